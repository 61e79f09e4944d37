/* C API contract tests: what a client keeping its own name scopes (the Python package) needs
 * of the training builders (include/tfc/train.h): variables with exact names and chosen
 * collections (TFC_NewVariableWithFlags), collection membership changed afterwards
 * (TFC_SetVariableCollections) and seen by the builders that read it, tf.group (TFC_Group),
 * tf.gradients' Identity on a given seed, and a function's name= for the builder's own scope
 * (TFC_ScopeWithBuilderName), and a variable colocated with itself (TFC_VARIABLE_SELF_COLOCATE). */
#include <string.h>

#include "capi_util.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tfc/input.h"
#include "tfc/train.h"

static const char *name_of(TF_Operation *op) { return op ? TF_OperationName(op) : "(null)"; }

static TF_Output scalar(TFC_Scope *sc, const char *name, double v) {
  TF_Status *s = TF_NewStatus();
  TF_Output o = TFC_ScalarConst(sc, name, TF_FLOAT, v, s);
  OK(s);
  TF_DeleteStatus(s);
  return o;
}

static char *take(TF_Graph *g, const char *name) {
  TF_Buffer *b = TF_NewBuffer();
  TF_Status *s = TF_NewStatus();
  TFC_GraphUniqueName(g, name, 1, b, s);
  OK(s);
  static char out[256];
  memcpy(out, b->data, b->length);
  out[b->length] = 0;
  TF_DeleteBuffer(b);
  TF_DeleteStatus(s);
  return out;
}

static void exact_name_is_used_as_given(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  /* The client took "w" as a name scope and built the initial value in it. */
  EXPECT_STREQ(take(g, "w"), "w");
  TF_Output init = scalar(root, "w/initial_value", 1);
  TFC_Variable v = TFC_NewVariableWithFlags(root, "w", init, TFC_VARIABLE_EXACT_NAME | TFC_VARIABLE_GLOBAL, s);
  OK(s);
  EXPECT_STREQ(name_of(v.variable), "w");
  EXPECT_STREQ(name_of(v.initializer), "w/Assign");
  EXPECT_STREQ(name_of(v.value.oper), "w/read");
  /* Without the flag the name is made unique, as TFC_NewVariable does. */
  TFC_Variable u = TFC_NewVariableWithFlags(root, "w", init, TFC_VARIABLE_GLOBAL, s);
  OK(s);
  EXPECT_STREQ(name_of(u.variable), "w_1");
  /* An empty exact name is refused and changes nothing. */
  int before = capi_num_ops(g);
  TFC_Variable bad = TFC_NewVariableWithFlags(root, "", init, TFC_VARIABLE_EXACT_NAME, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "an exact name must not be empty");
  EXPECT_TRUE(bad.variable == NULL);
  EXPECT_EQ(capi_num_ops(g), before);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* The _class strings of op ("" when it has none), joined by ','. */
static const char *class_of(TF_Operation *op) {
  static char out[256];
  TF_Status *s = TF_NewStatus();
  TF_AttrMetadata m = TF_OperationGetAttrMetadata(op, "_class", s);
  out[0] = 0;
  if (TF_GetCode(s) == TF_OK && m.list_size == 1) {
    void *vals[1];
    size_t lens[1];
    char storage[128];
    TF_OperationGetAttrStringList(op, "_class", vals, lens, 1, storage, sizeof storage, s);
    OK(s);
    memcpy(out, vals[0], lens[0]);
    out[lens[0]] = 0;
  }
  TF_DeleteStatus(s);
  return out;
}

static void self_colocate_puts_the_class_on_the_variable(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Scope *dev = TFC_ScopeWithDevice(root, "/cpu:0");
  TF_Output one = scalar(root, NULL, 1);
  TFC_Variable v = TFC_NewVariableWithFlags(dev, "v", one, TFC_VARIABLE_GLOBAL | TFC_VARIABLE_SELF_COLOCATE, s);
  OK(s);
  EXPECT_STREQ(class_of(v.variable), "loc:@v");
  EXPECT_STREQ(TF_OperationDevice(v.variable), "/device:CPU:0");
  EXPECT_STREQ(class_of(v.initializer), "loc:@v");
  /* Without the flag the variable itself has no _class (its Assign and read still do). */
  TFC_Variable u = TFC_NewVariableWithFlags(root, "u", one, TFC_VARIABLE_GLOBAL, s);
  OK(s);
  EXPECT_STREQ(class_of(u.variable), "");
  EXPECT_STREQ(class_of(u.initializer), "loc:@u");
  TFC_DeleteScope(dev);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void flags_choose_the_collections(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output one = scalar(root, NULL, 1);
  TFC_Variable a = TFC_NewVariableWithFlags(root, "a", one, TFC_VARIABLE_GLOBAL | TFC_VARIABLE_TRAINABLE, s);
  TFC_Variable b = TFC_NewVariableWithFlags(root, "b", one, TFC_VARIABLE_TRAINABLE, s); /* collections=[] */
  TFC_Variable c = TFC_NewVariableWithFlags(root, "c", one, TFC_VARIABLE_LOCAL, s);
  TFC_Variable d = TFC_NewVariableWithFlags(root, "d", one, 0, s);
  OK(s);
  TFC_Variable got[4];
  EXPECT_EQ(TFC_GlobalVariables(g, got, 4), 1);
  EXPECT_TRUE(got[0].variable == a.variable);
  EXPECT_EQ(TFC_TrainableVariables(g, got, 4), 2);
  EXPECT_TRUE(got[0].variable == a.variable && got[1].variable == b.variable);
  EXPECT_EQ(TFC_LocalVariables(g, got, 4), 1);
  EXPECT_TRUE(got[0].variable == c.variable);
  /* The global initializer waits for the global variables only. */
  TF_Operation *init = TFC_GlobalVariablesInitializer(root, NULL, s);
  OK(s);
  TF_Operation *ctl[4];
  EXPECT_EQ(TF_OperationGetControlInputs(init, ctl, 4), 1);
  EXPECT_TRUE(ctl[0] == a.initializer);
  /* Membership changed afterwards: d joins the trainable and global ones, a leaves both. */
  TFC_SetVariableCollections(g, &d, TFC_VARIABLE_GLOBAL | TFC_VARIABLE_TRAINABLE, s);
  OK(s);
  TFC_SetVariableCollections(g, &a, 0, s);
  OK(s);
  EXPECT_EQ(TFC_TrainableVariables(g, got, 4), 2);
  EXPECT_TRUE(got[0].variable == b.variable && got[1].variable == d.variable);
  EXPECT_EQ(TFC_GlobalVariables(g, got, 4), 1);
  EXPECT_TRUE(got[0].variable == d.variable);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void set_collections_records_foreign_variables_and_checks_them(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Graph *other = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g), *oroot = TFC_NewRootScope(other);
  TFC_Variable ov = TFC_NewVariable(oroot, "x", scalar(oroot, NULL, 2), 1, s);
  OK(s);
  /* A variable of another graph, or one with an operation missing, is refused. */
  TFC_SetVariableCollections(g, &ov, TFC_VARIABLE_GLOBAL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "is not in this graph");
  TFC_Variable missing = {NULL, NULL, {NULL, 0}};
  TFC_SetVariableCollections(g, &missing, TFC_VARIABLE_GLOBAL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_EQ(TFC_GlobalVariables(g, NULL, 0), 0);
  /* A variable the builders did not record (built by hand, as an imported graph has them). */
  TF_OperationDescription *d = TF_NewOperation(g, "VariableV2", "h");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", NULL, 0);
  TF_Operation *var = TF_FinishOperation(d, s);
  OK(s);
  d = TF_NewOperation(g, "Assign", "h/Assign");
  TF_AddInput(d, (TF_Output){var, 0});
  TF_AddInput(d, scalar(root, NULL, 3));
  TF_Operation *assign = TF_FinishOperation(d, s);
  OK(s);
  d = TF_NewOperation(g, "Identity", "h/read");
  TF_AddInput(d, (TF_Output){var, 0});
  TF_Operation *read = TF_FinishOperation(d, s);
  OK(s);
  TFC_Variable h = {var, assign, {read, 0}};
  TFC_SetVariableCollections(g, &h, TFC_VARIABLE_GLOBAL | TFC_VARIABLE_TRAINABLE, s);
  OK(s);
  TFC_Variable got[2];
  EXPECT_EQ(TFC_TrainableVariables(g, got, 2), 1);
  EXPECT_TRUE(got[0].variable == var && got[0].initializer == assign);
  /* Setting it again updates the one record. */
  TFC_SetVariableCollections(g, &h, TFC_VARIABLE_GLOBAL, s);
  OK(s);
  EXPECT_EQ(TFC_GlobalVariables(g, NULL, 0), 1);
  EXPECT_EQ(TFC_TrainableVariables(g, NULL, 0), 0);
  TFC_DeleteScope(root);
  TFC_DeleteScope(oroot);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
  TF_DeleteGraph(other);
}

static void group_waits_for_its_ops(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output a = scalar(root, "a", 1), b = scalar(root, "b", 2);
  TF_Operation *ops[2] = {a.oper, b.oper};
  TF_Operation *grp = TFC_Group(root, ops, 2, NULL, s);
  OK(s);
  EXPECT_STREQ(name_of(grp), "group_deps");
  EXPECT_STREQ(TF_OperationOpType(grp), "NoOp");
  EXPECT_EQ(TF_OperationNumControlInputs(grp), 2);
  TF_Operation *grp2 = TFC_Group(root, ops, 1, NULL, s);
  OK(s);
  EXPECT_STREQ(name_of(grp2), "group_deps_1");
  /* Ops on two devices: a NoOp per device inside the group's name scope. */
  TFC_Scope *cpu0 = TFC_ScopeWithDevice(root, "/cpu:0"), *cpu1 = TFC_ScopeWithDevice(root, "/cpu:1");
  TF_Operation *spread[2] = {scalar(cpu0, "c0", 1).oper, scalar(cpu1, "c1", 2).oper};
  TF_Operation *two = TFC_Group(root, spread, 2, "init", s);
  OK(s);
  EXPECT_STREQ(name_of(two), "init");
  TF_Operation *subs[2];
  EXPECT_EQ(TF_OperationGetControlInputs(two, subs, 2), 2);
  EXPECT_STREQ(name_of(subs[0]), "init/NoOp");
  EXPECT_STREQ(TF_OperationDevice(subs[0]), "/device:CPU:0");
  EXPECT_STREQ(name_of(subs[1]), "init/NoOp_1");
  EXPECT_STREQ(TF_OperationDevice(subs[1]), "/device:CPU:1");
  TFC_DeleteScope(cpu0);
  TFC_DeleteScope(cpu1);
  TF_Operation *empty = TFC_Group(root, NULL, 0, "init_1", s);
  OK(s);
  EXPECT_STREQ(name_of(empty), "init_1");
  EXPECT_EQ(TF_OperationNumControlInputs(empty), 0);
  /* Ops of another graph are refused, and nothing is added. */
  TF_Graph *other = TF_NewGraph();
  TFC_Scope *oroot = TFC_NewRootScope(other);
  TF_Operation *foreign[1] = {scalar(oroot, "c", 3).oper};
  int before = capi_num_ops(g);
  EXPECT_TRUE(TFC_Group(root, foreign, 1, NULL, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "TFC_Group: operation 0 is not in this graph");
  EXPECT_EQ(capi_num_ops(g), before);
  TFC_DeleteScope(oroot);
  TF_DeleteGraph(other);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void gradients_pass_a_given_seed_through_identity(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output x = scalar(root, "x", 3);
  TF_OperationDescription *d = TFC_ScopeNewOperation(root, "Square", NULL);
  TF_AddInput(d, x);
  TF_Output y = {TF_FinishOperation(d, s), 0};
  OK(s);
  TF_Output seed = scalar(root, "seed", 2), dx;
  TFC_Gradients(root, &y, 1, &x, 1, &seed, 1, &dx, s);
  OK(s);
  TF_Operation *id = TF_GraphOperationByName(g, "gradients/grad_ys_0");
  EXPECT_TRUE(id != NULL);
  EXPECT_STREQ(TF_OperationOpType(id), "Identity");
  EXPECT_TRUE(TF_OperationInput((TF_Input){id, 0}).oper == seed.oper);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void builder_name_replaces_the_builders_scope_name(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Scope *named = TFC_ScopeWithBuilderName(root, "noise");
  EXPECT_TRUE(TFC_ScopeWithBuilderName(root, "") == NULL);
  int64_t dims[1] = {2};
  TF_Output r = TFC_RandomNormal(named, dims, 1, 0, 1, TF_FLOAT, 0, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(r.oper), "noise");
  EXPECT_TRUE(TF_GraphOperationByName(g, "noise/RandomStandardNormal") != NULL);
  r = TFC_TruncatedNormal(named, dims, 1, 0, 1, TF_FLOAT, 0, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(r.oper), "noise_1");
  /* A scope derived from it builds under the defaults again. */
  TFC_Scope *sub = TFC_NewSubScope(named, "sub");
  r = TFC_RandomUniform(sub, dims, 1, 0, 1, TF_FLOAT, 0, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(r.oper), "sub/random_uniform");
  TFC_Scope *grads = TFC_ScopeWithBuilderName(root, "grads");
  TF_Output dx;
  TFC_Gradients(grads, &r, 1, &r, 1, NULL, 1, &dx, s);
  OK(s);
  EXPECT_TRUE(TF_GraphOperationByName(g, "grads/grad_ys_0") != NULL);
  TFC_DeleteScope(grads);
  TFC_DeleteScope(sub);
  TFC_DeleteScope(named);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static const tfc_test tests[] = {
    TFC_TEST(builder_name_replaces_the_builders_scope_name),
    TFC_TEST(exact_name_is_used_as_given),
    TFC_TEST(flags_choose_the_collections),
    TFC_TEST(self_colocate_puts_the_class_on_the_variable),
    TFC_TEST(set_collections_records_foreign_variables_and_checks_them),
    TFC_TEST(group_waits_for_its_ops),
    TFC_TEST(gradients_pass_a_given_seed_through_identity),
    {0},
};

TFC_TEST_MAIN(tests)
