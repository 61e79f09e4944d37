/*
 * The C API over function libraries: TF_Function handles (import, name, FunctionDef, attrs,
 * delete), TF_GraphCopyFunction with gradients, TF_GraphNumFunctions/TF_GraphGetFunctions, and
 * GraphDef.library through import and export. FunctionDefs, GraphDef and every expected code
 * and message come from TensorFlow (tests/fixtures/gen_functions.py, fn_*).
 */
#include <string.h>

#include "capi_util.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"

/* Checks a status against line `name` of fn_expect.txt ("name\tcode\tmessage"). */
static void expect_case(const char *name, TF_Status *s) {
  char path[1024], line[1024];
  snprintf(path, sizeof path, "%s/fn_expect.txt", TFC_FIXTURE_DIR);
  FILE *f = fopen(path, "r");
  EXPECT_TRUE(f != NULL);
  size_t n = strlen(name);
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, name, n) != 0 || line[n] != '\t') continue;
    fclose(f);
    line[strcspn(line, "\n")] = 0;
    char *msg = strchr(line + n + 1, '\t');
    EXPECT_TRUE(msg != NULL);
    int code = atoi(line + n + 1);
    /* Unescape \\, \n and \t in place. */
    char *w = msg + 1;
    for (const char *r = msg + 1; *r; r++) {
      if (*r == '\\' && r[1]) {
        r++;
        *w++ = *r == 'n' ? '\n' : *r == 't' ? '\t' : *r;
      } else {
        *w++ = *r;
      }
    }
    *w = 0;
    if ((int)TF_GetCode(s) != code || (code != 0 && strcmp(TF_Message(s), msg + 1) != 0))
      tfc_test_fail(__FILE__, __LINE__, "%s: got %d '%s', want %d '%s'", name, (int)TF_GetCode(s), TF_Message(s),
                    code, msg + 1);
    return;
  }
  fclose(f);
  tfc_test_fail(__FILE__, __LINE__, "no case %s in fn_expect.txt", name);
}

/* The value of an OK case (its message column), in a static buffer. */
static const char *expect_value(const char *name) {
  static char line[1024];
  char path[1024];
  snprintf(path, sizeof path, "%s/fn_expect.txt", TFC_FIXTURE_DIR);
  FILE *f = fopen(path, "r");
  EXPECT_TRUE(f != NULL);
  size_t n = strlen(name);
  while (fgets(line, sizeof line, f))
    if (strncmp(line, name, n) == 0 && line[n] == '\t') {
      fclose(f);
      line[strcspn(line, "\n")] = 0;
      return strchr(line + n + 1, '\t') + 1;
    }
  fclose(f);
  tfc_test_fail(__FILE__, __LINE__, "no case %s in fn_expect.txt", name);
}

static int expect_int(const char *name) { return atoi(expect_value(name)); }

static TF_Function *load_function(const char *file) {
  TF_Buffer *b = capi_read_fixture(file);
  TF_Status *s = TF_NewStatus();
  TF_Function *f = TF_FunctionImportFunctionDef(b->data, b->length, s);
  OK(s);
  EXPECT_TRUE(f != NULL);
  TF_DeleteStatus(s);
  TF_DeleteBuffer(b);
  return f;
}

static void expect_def_is_fixture(TF_Function *f, const char *file) {
  TF_Buffer *want = capi_read_fixture(file);
  TF_Buffer *got = TF_NewBuffer();
  TF_Status *s = TF_NewStatus();
  TF_FunctionToFunctionDef(f, got, s);
  OK(s);
  EXPECT_EQ(got->length, want->length);
  EXPECT_TRUE(memcmp(got->data, want->data, want->length) == 0);
  TF_DeleteBuffer(got);
  TF_DeleteBuffer(want);
  TF_DeleteStatus(s);
}

static void import_function_def_keeps_name_and_bytes(void) {
  TF_Function *f = load_function("fn_myadd.pb");
  EXPECT_STREQ(TF_FunctionName(f), "MyAdd");
  /* TF's deterministic bytes come back unchanged (the canonical form sorts maps alike). */
  expect_def_is_fixture(f, "fn_myadd.pb");
  TF_Status *s = TF_NewStatus();
  TF_Buffer *full = TF_NewBufferFromString("x", 1);
  TF_FunctionToFunctionDef(f, full, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Passing non-empty TF_Buffer is invalid.");
  TF_DeleteBuffer(full);
  TF_DeleteStatus(s);
  TF_DeleteFunction(f);
  TF_DeleteFunction(NULL);
}

static void import_function_def_rejects_garbage(void) {
  TF_Status *s = TF_NewStatus();
  EXPECT_TRUE(TF_FunctionImportFunctionDef("\xff\xff", 2, s) == NULL);
  expect_case("import_bad", s);
  TF_DeleteStatus(s);
}

static void attrs_set_get_override_and_errors(void) {
  TF_Function *f = load_function("fn_myadd.pb");
  TF_Status *s = TF_NewStatus();
  const char b_true[] = {0x28, 0x01}, b_false[] = {0x28, 0x00}, i_7[] = {0x18, 0x07};
  TF_FunctionSetAttrValueProto(f, "_noinline", b_true, 2, s);
  OK(s);
  TF_FunctionSetAttrValueProto(f, "_noinline", i_7, 2, s);
  OK(s);
  TF_Buffer *got = TF_NewBuffer();
  TF_FunctionGetAttrValueProto(f, "_noinline", got, s);
  OK(s);
  EXPECT_EQ(got->length, 2);
  EXPECT_TRUE(memcmp(got->data, i_7, 2) == 0);
  TF_DeleteBuffer(got);
  /* The attr the FunctionDef came with. */
  got = TF_NewBuffer();
  TF_FunctionGetAttrValueProto(f, "_disable_call_shape_inference", got, s);
  OK(s);
  EXPECT_EQ(got->length, 2);
  EXPECT_TRUE(memcmp(got->data, b_true, 2) == 0);
  TF_DeleteBuffer(got);
  got = TF_NewBuffer();
  TF_FunctionGetAttrValueProto(f, "nope", got, s);
  expect_case("get_missing", s);
  EXPECT_EQ(got->length, 0);
  TF_DeleteBuffer(got);
  TF_FunctionSetAttrValueProto(f, "x", "\xff\xff", 2, s);
  expect_case("set_bad", s);
  /* A failed set leaves the function as it was; a set attr goes out with the FunctionDef. */
  TF_FunctionSetAttrValueProto(f, "_noinline", b_false, 2, s);
  OK(s);
  TF_Buffer *def = TF_NewBuffer();
  TF_FunctionToFunctionDef(f, def, s);
  OK(s);
  TF_Function *g = TF_FunctionImportFunctionDef(def->data, def->length, s);
  OK(s);
  got = TF_NewBuffer();
  TF_FunctionGetAttrValueProto(g, "_noinline", got, s);
  OK(s);
  EXPECT_TRUE(got->length == 2 && memcmp(got->data, b_false, 2) == 0);
  TF_DeleteBuffer(got);
  TF_DeleteBuffer(def);
  TF_DeleteFunction(g);
  TF_DeleteFunction(f);
  TF_DeleteStatus(s);
}

static void graph_copy_function_with_gradient_and_errors(void) {
  TF_Function *add = load_function("fn_myadd.pb"), *mul = load_function("fn_mymul.pb");
  TF_Function *other = load_function("fn_myadd_other.pb");
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  EXPECT_EQ(TF_GraphNumFunctions(g), 0);
  TF_GraphCopyFunction(g, NULL, NULL, s);
  expect_case("copy_null", s);
  TF_GraphCopyFunction(g, add, mul, s);
  expect_case("copy_with_grad", s);
  EXPECT_EQ(TF_GraphNumFunctions(g), expect_int("num_after_copy"));
  TF_GraphCopyFunction(g, add, mul, s);
  expect_case("copy_again", s);
  TF_GraphCopyFunction(g, other, NULL, s);
  expect_case("copy_clash", s);
  TF_GraphCopyFunction(g, add, add, s);
  expect_case("copy_grad_clash", s);
  EXPECT_EQ(TF_GraphNumFunctions(g), expect_int("num_after_errors"));
  /* A function named like an op (MyAdd renamed "Add"). */
  TF_Function *op_named = load_function("fn_add_opname.pb");
  TF_GraphCopyFunction(g, op_named, NULL, s);
  expect_case("copy_op_name", s);
  TF_DeleteFunction(op_named);
  /* Deleting the handles leaves the graph's copies. */
  TF_DeleteFunction(add);
  TF_DeleteFunction(mul);
  TF_DeleteFunction(other);
  TF_Function *got[3] = {NULL, NULL, NULL};
  EXPECT_EQ(TF_GraphGetFunctions(g, got, 0, s), 0);
  EXPECT_EQ(TF_GraphGetFunctions(g, got, -1, s), 0);
  OK(s);
  EXPECT_EQ(TF_GraphGetFunctions(g, got, 1, s), 1);
  OK(s);
  EXPECT_STREQ(TF_FunctionName(got[0]), "MyAdd");
  TF_DeleteFunction(got[0]);
  EXPECT_EQ(TF_GraphGetFunctions(g, got, 3, s), 2);
  OK(s);
  EXPECT_STREQ(TF_FunctionName(got[0]), "MyAdd");
  EXPECT_STREQ(TF_FunctionName(got[1]), "MyMul");
  expect_def_is_fixture(got[0], "fn_myadd.pb");
  expect_def_is_fixture(got[1], "fn_mymul.pb");
  TF_DeleteFunction(got[0]);
  TF_DeleteFunction(got[1]);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void import_into(TF_Graph *g, TF_Buffer *b, TF_Status *s) {
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g, b, o, s);
  TF_DeleteImportGraphDefOptions(o);
}

static void graphdef_library_imports_and_exports(void) {
  TF_Buffer *gd = capi_read_fixture("fn_library_graph.pb");
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  import_into(g, gd, s);
  expect_case("import_library", s);
  EXPECT_EQ(TF_GraphNumFunctions(g), expect_int("num_after_import"));
  import_into(g, gd, s);
  expect_case("import_library_again", s);
  /* A library clash (a different MyAdd), and a second gradient for MyAdd: both rejected, and
   * the graph keeps its library. The GraphDefs are written by hand: library {function {...}} and
   * library {gradient {function_name: "MyAdd" gradient_func: "MyAdd"}}. */
  TF_Buffer *other = capi_read_fixture("fn_myadd_other.pb");
  size_t n = other->length;
  unsigned char *clash = malloc(n + 8);
  size_t k = 0;
  clash[k++] = 0x12; /* GraphDef.library */
  clash[k++] = (unsigned char)(0x80 | ((n + 3) & 0x7f));
  clash[k++] = (unsigned char)((n + 3) >> 7);
  clash[k++] = 0x0a; /* FunctionDefLibrary.function */
  clash[k++] = (unsigned char)(0x80 | (n & 0x7f));
  clash[k++] = (unsigned char)(n >> 7);
  EXPECT_TRUE(n >= 128 && n + 3 < 16384);
  memcpy(clash + k, other->data, n);
  TF_Buffer *cb = TF_NewBufferFromString(clash, k + n);
  import_into(g, cb, s);
  expect_case("import_clash", s);
  TF_DeleteBuffer(cb);
  free(clash);
  TF_DeleteBuffer(other);
  const char grad[] = "\x12\x10\x12\x0e\x0a\x05MyAdd\x12\x05MyAdd";
  TF_Buffer *gb = TF_NewBufferFromString(grad, sizeof grad - 1);
  import_into(g, gb, s);
  expect_case("import_grad_clash", s);
  TF_DeleteBuffer(gb);
  EXPECT_EQ(TF_GraphNumFunctions(g), expect_int("num_after_import_errors"));
  /* Export writes the library back: TF's bytes exactly (node, library, versions). */
  TF_Buffer *out = TF_NewBuffer();
  TF_GraphToGraphDef(g, out, s);
  OK(s);
  EXPECT_EQ(out->length, gd->length);
  EXPECT_TRUE(memcmp(out->data, gd->data, gd->length) == 0);
  TF_DeleteBuffer(out);
  TF_DeleteBuffer(gd);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* ---- TF_GraphToFunction (mirrors build_g2f_graph in gen_functions.py) ---- */

typedef struct g2f_graph {
  TF_Graph *g;
  TF_Operation *a, *b, *add, *mul, *split, *ident, *v;
} g2f_graph;


static TF_Output out(TF_Operation *o, int k) {
  TF_Output r = {o, k};
  return r;
}

static g2f_graph g2f_build(void) {
  g2f_graph G;
  G.g = TF_NewGraph();
  int64_t two = 2;
  TF_OperationDescription *d = TF_NewOperation(G.g, "Placeholder", "Feed/A");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", &two, 1);
  G.a = capi_finish(d);
  d = TF_NewOperation(G.g, "Placeholder", "b");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  G.b = capi_finish(d);
  d = TF_NewOperation(G.g, "AddV2", "add");
  TF_AddInput(d, out(G.a, 0));
  TF_AddInput(d, out(G.b, 0));
  G.add = capi_finish(d);
  d = TF_NewOperation(G.g, "Mul", "mul");
  TF_AddInput(d, out(G.add, 0));
  TF_AddInput(d, out(G.a, 0));
  G.mul = capi_finish(d);
  d = TF_NewOperation(G.g, "Unpack", "split");
  TF_AddInput(d, out(G.mul, 0));
  TF_SetAttrInt(d, "num", 2);
  G.split = capi_finish(d);
  d = TF_NewOperation(G.g, "Identity", "ident");
  TF_AddInput(d, out(G.split, 1));
  TF_AddControlInput(d, G.add);
  G.ident = capi_finish(d);
  d = TF_NewOperation(G.g, "VariableV2", "v");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", NULL, 0);
  G.v = capi_finish(d);
  return G;
}

/* TF_GraphToFunctionWithControlOutputs named "MyFunc"; opers NULL with nopers -1 for all. */
static TF_Function *g2f(const g2f_graph *G, int nopers, TF_Operation *const *opers, int nin, const TF_Output *in,
                        int nout, const TF_Output *outs, const char *const *names, int nctl,
                        TF_Operation *const *ctl, const char *const *ctl_names, const char *desc, TF_Status *s) {
  return TF_GraphToFunctionWithControlOutputs(G->g, "MyFunc", 0, nopers, (const TF_Operation *const *)opers, nin, in,
                                              nout, outs, names, nctl, (const TF_Operation *const *)ctl, ctl_names,
                                              NULL, desc, s);
}

static void graph_to_function_matches_tf(void) {
  g2f_graph G = g2f_build();
  TF_Status *s = TF_NewStatus();
  TF_Output in[2] = {out(G.a, 0), out(G.b, 0)};
  TF_Output outs[3] = {out(G.ident, 0), out(G.split, 0), out(G.a, 0)};
  TF_Function *f = TF_GraphToFunction(G.g, "MyFunc", 0, -1, NULL, 2, in, 3, outs, NULL, NULL, "desc", s);
  OK(s);
  EXPECT_STREQ(TF_FunctionName(f), "MyFunc");
  expect_def_is_fixture(f, "fn_g2f_full.pb");
  TF_DeleteFunction(f);
  TF_Operation *body[2] = {G.add, G.mul};
  TF_Output prod = out(G.mul, 0);
  const char *names[1] = {"prod"}, *ctl_names[1] = {"c_add"};
  f = g2f(&G, 2, body, 2, in, 1, &prod, names, 1, &G.add, ctl_names, NULL, s);
  OK(s);
  expect_def_is_fixture(f, "fn_g2f_control.pb");
  /* A made function goes into a graph's library and out through its GraphDef. */
  TF_Graph *g2 = TF_NewGraph();
  TF_GraphCopyFunction(g2, f, NULL, s);
  OK(s);
  TF_Buffer *gd = TF_NewBuffer();
  TF_GraphToGraphDef(g2, gd, s);
  OK(s);
  TF_Graph *g3 = TF_NewGraph();
  import_into(g3, gd, s);
  OK(s);
  TF_Function *back = NULL;
  EXPECT_EQ(TF_GraphGetFunctions(g3, &back, 1, s), 1);
  expect_def_is_fixture(back, "fn_g2f_control.pb");
  TF_DeleteFunction(back);
  TF_DeleteBuffer(gd);
  TF_DeleteGraph(g3);
  TF_DeleteGraph(g2);
  TF_DeleteFunction(f);
  TF_DeleteGraph(G.g);
  TF_DeleteStatus(s);
}

static void graph_to_function_errors_match_tf(void) {
  g2f_graph G = g2f_build();
  TF_Status *s = TF_NewStatus();
  TF_Output ab[2] = {out(G.a, 0), out(G.b, 0)}, aa[2] = {out(G.a, 0), out(G.a, 0)};
  TF_Output add2[2] = {out(G.add, 0), out(G.add, 0)};
  TF_Output ident = out(G.ident, 0), mul = out(G.mul, 0), add = out(G.add, 0), split1 = out(G.split, 1);
  TF_Output split0 = out(G.split, 0), v = out(G.v, 0);
  const char *sum2[2] = {"sum", "sum"};
  EXPECT_TRUE(g2f(&G, 1, &G.add, 2, ab, 2, add2, sum2, 0, NULL, NULL, NULL, s) == NULL);
  expect_case("g2f_dup_output_names", s);
  TF_Operation *four[4] = {G.add, G.mul, G.split, G.ident};
  EXPECT_TRUE(g2f(&G, 4, four, 1, ab, 1, &ident, NULL, 0, NULL, NULL, NULL, s) == NULL);
  expect_case("g2f_input_missing", s);
  EXPECT_TRUE(g2f(&G, 1, &G.ident, 1, &split1, 1, &ident, NULL, 0, NULL, NULL, NULL, s) == NULL);
  expect_case("g2f_control_missing", s);
  EXPECT_TRUE(g2f(&G, 1, &G.add, 2, ab, 1, &mul, NULL, 0, NULL, NULL, NULL, s) == NULL);
  expect_case("g2f_output_missing", s);
  EXPECT_TRUE(g2f(&G, 1, &G.add, 2, aa, 1, &add, NULL, 0, NULL, NULL, NULL, s) == NULL);
  expect_case("g2f_dup_input", s);
  EXPECT_TRUE(g2f(&G, -1, NULL, 1, &split0, 1, &ident, NULL, 0, NULL, NULL, NULL, s) == NULL);
  expect_case("g2f_multi_output_input", s);
  TF_Output add_a[2] = {out(G.add, 0), out(G.a, 0)};
  TF_Function *f = g2f(&G, 1, &G.mul, 2, add_a, 1, &mul, NULL, 1, &G.add, NULL, NULL, s);
  expect_case("g2f_control_not_in_body", s);
  TF_DeleteFunction(f);
  EXPECT_TRUE(g2f(&G, 1, &G.add, 2, ab, 1, &add, NULL, 1, &G.mul, NULL, NULL, s) == NULL);
  expect_case("g2f_control_outside", s);
  TF_Operation *add_mul[2] = {G.add, G.mul};
  const char *cc[2] = {"c", "c"};
  EXPECT_TRUE(g2f(&G, 2, add_mul, 2, ab, 1, &add, NULL, 2, add_mul, cc, NULL, s) == NULL);
  expect_case("g2f_control_names_repeat", s);
  EXPECT_TRUE(g2f(&G, 0, NULL, 1, &v, 1, &v, NULL, 0, NULL, NULL, NULL, s) == NULL);
  expect_case("g2f_ref_input", s);
  TF_DeleteGraph(G.g);
  TF_DeleteStatus(s);
}

/* A TF 2.x graph whose PartitionedCall calls a library function imports (the call op has a
 * signature, no kernel yet) and keeps the function. */
static void tf2_partitioned_call_graph_imports_with_its_library(void) {
  TF_Graph *g = capi_load_fixture("fn_partitioned_call.pb");
  EXPECT_EQ(TF_GraphNumFunctions(g), 1);
  TF_Operation *call = TF_GraphOperationByName(g, "PartitionedCall");
  EXPECT_TRUE(call != NULL);
  EXPECT_STREQ(TF_OperationOpType(call), "PartitionedCall");
  EXPECT_EQ(TF_OperationNumOutputs(call), 1);
  EXPECT_EQ(TF_OperationOutputType(out(call, 0)), TF_FLOAT);
  TF_Status *s = TF_NewStatus();
  TF_Function *f = NULL;
  EXPECT_EQ(TF_GraphGetFunctions(g, &f, 1, s), 1);
  OK(s);
  EXPECT_STREQ(TF_FunctionName(f), expect_value("partitioned_call_function"));
  expect_def_is_fixture(f, "fn_partitioned_inner.pb");
  TF_DeleteFunction(f);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static const tfc_test tests[] = {
    TFC_TEST(import_function_def_keeps_name_and_bytes),
    TFC_TEST(import_function_def_rejects_garbage),
    TFC_TEST(attrs_set_get_override_and_errors),
    TFC_TEST(graph_copy_function_with_gradient_and_errors),
    TFC_TEST(graphdef_library_imports_and_exports),
    TFC_TEST(graph_to_function_matches_tf),
    TFC_TEST(graph_to_function_errors_match_tf),
    TFC_TEST(tf2_partitioned_call_graph_imports_with_its_library),
    {0},
};
TFC_TEST_MAIN(tests)
