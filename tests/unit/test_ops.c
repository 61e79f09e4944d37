/* Unit tests of the op table (parsed op defs) and attr values. */
#include "harness.h"
#include "ops/attr.h"
#include "ops/opdef.h"

static const tfc_opdef *op_or_fail(const char *name) {
  tfc_status s;
  tfc_status_init(&s);
  if (tfc_ops_init(&s) != TFC_OK) tfc_test_fail(__FILE__, __LINE__, "ops init: %s", tfc_status_msg(&s));
  tfc_status_fini(&s);
  const tfc_opdef *op = tfc_op_lookup(name);
  if (!op) tfc_test_fail(__FILE__, __LINE__, "op %s not found", name);
  return op;
}

static const tfc_attr_def *attr_or_fail(const tfc_opdef *op, const char *name) {
  const tfc_attr_def *a = tfc_opdef_attr(op, name);
  if (!a) tfc_test_fail(__FILE__, __LINE__, "op %s has no attr %s", op->name, name);
  return a;
}

static void ops_init_succeeds_and_is_idempotent(void) {
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_ops_init(&s), TFC_OK);
  EXPECT_TRUE(tfc_status_ok(&s));
  EXPECT_EQ(tfc_ops_init(&s), TFC_OK);
  EXPECT_STREQ(tfc_status_msg(&s), "");
  tfc_status_fini(&s);
}

static void every_op_in_table_has_a_parsed_def(void) {
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_ops_init(&s), TFC_OK);
  EXPECT_TRUE(TFC_OP_COUNT > 10);
  for (int id = 0; id < TFC_OP_COUNT; id++) {
    const tfc_opdef *op = tfc_op_by_id(id);
    if (!op) tfc_test_fail(__FILE__, __LINE__, "op id %d has no def", id);
    if (op->id != id) tfc_test_fail(__FILE__, __LINE__, "op id %d reports id %d", id, op->id);
    if (!op->name || !op->name[0]) tfc_test_fail(__FILE__, __LINE__, "op id %d has no name", id);
    if (tfc_op_lookup(op->name) != op)
      tfc_test_fail(__FILE__, __LINE__, "lookup of %s does not return its def", op->name);
    for (int i = 0; i < op->n_inputs; i++)
      if (!op->inputs[i].name) tfc_test_fail(__FILE__, __LINE__, "%s input %d unnamed", op->name, i);
    for (int i = 0; i < op->n_outputs; i++)
      if (!op->outputs[i].name) tfc_test_fail(__FILE__, __LINE__, "%s output %d unnamed", op->name, i);
    for (int i = 0; i < op->n_attrs; i++)
      if (!op->attrs[i].name || !op->attrs[i].type_text)
        tfc_test_fail(__FILE__, __LINE__, "%s attr %d incomplete", op->name, i);
  }
  tfc_status_fini(&s);
}

static void op_lookup_unknown_is_null(void) {
  op_or_fail("MatMul");
  EXPECT_TRUE(tfc_op_lookup("Bogus") == NULL);
  EXPECT_TRUE(tfc_op_lookup("matmul") == NULL);
  EXPECT_TRUE(tfc_op_lookup("") == NULL);
}

static void op_ids_match_enum(void) {
  EXPECT_TRUE(op_or_fail("MatMul") == tfc_op_by_id(TFC_OP_MatMul));
  EXPECT_TRUE(op_or_fail("Const") == tfc_op_by_id(TFC_OP_Const));
  EXPECT_EQ(op_or_fail("AddV2")->id, TFC_OP_AddV2);
}

static void matmul_def_has_typed_inputs_and_transpose_defaults(void) {
  const tfc_opdef *op = op_or_fail("MatMul");
  EXPECT_EQ(op->n_inputs, 2);
  EXPECT_STREQ(op->inputs[0].name, "a");
  EXPECT_STREQ(op->inputs[1].name, "b");
  EXPECT_STREQ(op->inputs[0].type_attr, "T");
  EXPECT_STREQ(op->inputs[1].type_attr, "T");
  EXPECT_TRUE(op->inputs[0].number_attr == NULL);
  EXPECT_EQ(op->inputs[0].is_ref, 0);
  EXPECT_EQ(op->n_outputs, 1);
  EXPECT_STREQ(op->outputs[0].name, "product");
  EXPECT_STREQ(op->outputs[0].type_attr, "T");
  const tfc_attr_def *ta = attr_or_fail(op, "transpose_a");
  EXPECT_STREQ(ta->type_text, "bool");
  EXPECT_EQ(ta->kind, TFC_ATTR_BOOL);
  EXPECT_EQ(ta->is_list, 0);
  EXPECT_TRUE(ta->has_default);
  EXPECT_EQ(ta->default_value.kind, TFC_ATTR_BOOL);
  EXPECT_EQ(ta->default_value.u.b, 0);
  const tfc_attr_def *t = attr_or_fail(op, "T");
  EXPECT_STREQ(t->type_text, "type");
  EXPECT_EQ(t->kind, TFC_ATTR_TYPE);
  EXPECT_TRUE(!t->has_default);
  EXPECT_TRUE(t->n_allowed >= 2);
  int has_float = 0, has_string = 0;
  for (int i = 0; i < t->n_allowed; i++) {
    if (t->allowed_types[i] == TFC_DT_FLOAT) has_float = 1;
    if (t->allowed_types[i] == TFC_DT_STRING) has_string = 1;
  }
  EXPECT_TRUE(has_float);
  EXPECT_TRUE(!has_string);
  EXPECT_TRUE(op->shape_fn != NULL);
  EXPECT_TRUE(tfc_opdef_attr(op, "nope") == NULL);
}

static void concatv2_values_is_n_times_t_with_minimum_2(void) {
  const tfc_opdef *op = op_or_fail("ConcatV2");
  EXPECT_EQ(op->n_inputs, 2);
  EXPECT_STREQ(op->inputs[0].name, "values");
  EXPECT_STREQ(op->inputs[0].number_attr, "N");
  EXPECT_STREQ(op->inputs[0].type_attr, "T");
  EXPECT_STREQ(op->inputs[1].name, "axis");
  EXPECT_STREQ(op->inputs[1].type_attr, "Tidx");
  const tfc_attr_def *n = attr_or_fail(op, "N");
  EXPECT_EQ(n->kind, TFC_ATTR_INT);
  EXPECT_STREQ(n->type_text, "int");
  EXPECT_TRUE(n->has_minimum);
  EXPECT_EQ(n->minimum, 2);
  EXPECT_TRUE(!n->has_default);
  const tfc_attr_def *tidx = attr_or_fail(op, "Tidx");
  EXPECT_TRUE(tidx->has_default);
  EXPECT_EQ(tidx->default_value.kind, TFC_ATTR_TYPE);
  EXPECT_EQ(tidx->default_value.u.type, TFC_DT_INT32);
  EXPECT_EQ(tidx->n_allowed, 2);
}

static void placeholder_shape_default_is_unknown_rank(void) {
  const tfc_opdef *op = op_or_fail("Placeholder");
  EXPECT_EQ(op->n_inputs, 0);
  EXPECT_EQ(op->n_outputs, 1);
  EXPECT_STREQ(op->outputs[0].type_attr, "dtype");
  const tfc_attr_def *sh = attr_or_fail(op, "shape");
  EXPECT_EQ(sh->kind, TFC_ATTR_SHAPE);
  EXPECT_STREQ(sh->type_text, "shape");
  EXPECT_TRUE(sh->has_default);
  EXPECT_EQ(sh->default_value.kind, TFC_ATTR_SHAPE);
  EXPECT_TRUE(sh->default_value.u.shape != NULL);
  EXPECT_EQ(sh->default_value.u.shape->rank, -1);
  const tfc_attr_def *dt = attr_or_fail(op, "dtype");
  EXPECT_TRUE(!dt->has_default);
}

static void identity_n_t_is_type_list_with_minimum_1(void) {
  const tfc_opdef *op = op_or_fail("IdentityN");
  const tfc_attr_def *t = attr_or_fail(op, "T");
  EXPECT_STREQ(t->type_text, "list(type)");
  EXPECT_TRUE(t->is_list);
  EXPECT_EQ(t->kind, TFC_ATTR_TYPE);
  EXPECT_TRUE(t->has_minimum);
  EXPECT_EQ(t->minimum, 1);
  EXPECT_EQ(op->n_inputs, 1);
  EXPECT_STREQ(op->inputs[0].type_list_attr, "T");
  EXPECT_TRUE(op->inputs[0].type_attr == NULL);
  EXPECT_STREQ(op->outputs[0].type_list_attr, "T");
}

static void internal_ops_are_flagged(void) {
  const tfc_opdef *arg = op_or_fail("_Arg"), *ret = op_or_fail("_Retval");
  EXPECT_TRUE(arg->flags & TFC_OPF_INTERNAL);
  EXPECT_TRUE(ret->flags & TFC_OPF_INTERNAL);
  EXPECT_EQ(ret->n_outputs, 0);
  EXPECT_TRUE(!(op_or_fail("MatMul")->flags & TFC_OPF_INTERNAL));
  EXPECT_TRUE(op_or_fail("AddV2")->flags & TFC_OPF_COMMUTATIVE);
  const tfc_attr_def *idx = attr_or_fail(arg, "index");
  EXPECT_TRUE(idx->has_minimum);
  EXPECT_EQ(idx->minimum, 0);
}

static void opdef_format_names_op_and_signature(void) {
  char buf[1024];
  tfc_opdef_format(op_or_fail("MatMul"), buf, sizeof buf);
  EXPECT_CONTAINS(buf, "Op<name=MatMul");
  EXPECT_CONTAINS(buf, "signature=a:T, b:T -> product:T");
}

/* ---- attr values ---- */

static void attr_scalar_constructors(void) {
  tfc_attr_value i = tfc_attr_int(-7), f = tfc_attr_float(1.5f), b = tfc_attr_bool(5),
                 t = tfc_attr_type(TFC_DT_INT64);
  EXPECT_EQ(i.kind, TFC_ATTR_INT);
  EXPECT_EQ(i.u.i, -7);
  EXPECT_EQ(f.kind, TFC_ATTR_FLOAT);
  EXPECT_NEAR(f.u.f, 1.5, 0);
  EXPECT_EQ(b.kind, TFC_ATTR_BOOL);
  EXPECT_TRUE(b.u.b);
  EXPECT_EQ(t.kind, TFC_ATTR_TYPE);
  EXPECT_EQ(t.u.type, TFC_DT_INT64);
}

static void attr_format_forms(void) {
  char buf[256];
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr_value v = tfc_attr_type(TFC_DT_FLOAT);
  tfc_attr_value_format(&v, buf, sizeof buf);
  EXPECT_STREQ(buf, "DT_FLOAT");
  v = tfc_attr_type(TFC_DT_INT32);
  tfc_attr_value_format(&v, buf, sizeof buf);
  EXPECT_STREQ(buf, "DT_INT32");
  v = tfc_attr_int(5);
  tfc_attr_value_format(&v, buf, sizeof buf);
  EXPECT_STREQ(buf, "5");
  v = tfc_attr_float(1.5f);
  tfc_attr_value_format(&v, buf, sizeof buf);
  EXPECT_STREQ(buf, "1.5");
  v = tfc_attr_bool(1);
  tfc_attr_value_format(&v, buf, sizeof buf);
  EXPECT_STREQ(buf, "true");
  v = tfc_attr_bool(0);
  tfc_attr_value_format(&v, buf, sizeof buf);
  EXPECT_STREQ(buf, "false");

  tfc_attr_value list = tfc_attr_list(TFC_ATTR_INT);
  tfc_attr_value one = tfc_attr_int(1), two = tfc_attr_int(2);
  EXPECT_EQ(tfc_attr_list_append(&list, &one, &s), TFC_OK);
  EXPECT_EQ(tfc_attr_list_append(&list, &two, &s), TFC_OK);
  EXPECT_EQ(list.kind, TFC_ATTR_LIST);
  EXPECT_EQ(list.list_kind, TFC_ATTR_INT);
  EXPECT_EQ(list.u.list.n, 2);
  tfc_attr_value_format(&list, buf, sizeof buf);
  EXPECT_STREQ(buf, "[1, 2]");
  tfc_attr_value_fini(&list);

  tfc_attr_value empty = tfc_attr_list(TFC_ATTR_TYPE);
  tfc_attr_value_format(&empty, buf, sizeof buf);
  EXPECT_STREQ(buf, "[]");
  tfc_attr_value_fini(&empty);

  tfc_attr_value str;
  EXPECT_EQ(tfc_attr_string("abc", 3, &str, &s), TFC_OK);
  tfc_attr_value_format(&str, buf, sizeof buf);
  EXPECT_STREQ(buf, "\"abc\"");
  tfc_attr_value_fini(&str);

  int64_t d[2] = {2, 3};
  tfc_shape sh = tfc_shape_make(d, 2);
  tfc_attr_value shv;
  EXPECT_EQ(tfc_attr_shape(&sh, &shv, &s), TFC_OK);
  tfc_attr_value_format(&shv, buf, sizeof buf);
  EXPECT_STREQ(buf, "[2,3]");
  tfc_attr_value_fini(&shv);
  tfc_status_fini(&s);
}

static void attr_copy_is_deep_and_equal(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr_value str, copy;
  EXPECT_EQ(tfc_attr_string("a\0b", 3, &str, &s), TFC_OK);
  EXPECT_EQ(str.u.s.len, 3);
  EXPECT_EQ(tfc_attr_value_copy(&str, &copy, &s), TFC_OK);
  EXPECT_TRUE(copy.u.s.data != str.u.s.data);
  EXPECT_EQ(copy.u.s.len, 3);
  EXPECT_EQ(memcmp(copy.u.s.data, "a\0b", 3), 0);
  EXPECT_TRUE(tfc_attr_value_equal(&str, &copy));
  copy.u.s.data[2] = 'c';
  EXPECT_TRUE(!tfc_attr_value_equal(&str, &copy));
  tfc_attr_value_fini(&str);
  tfc_attr_value_fini(&copy);

  int64_t d[2] = {-1, 4};
  tfc_shape sh = tfc_shape_make(d, 2);
  tfc_attr_value shv, shc;
  tfc_attr_shape(&sh, &shv, &s);
  EXPECT_EQ(tfc_attr_value_copy(&shv, &shc, &s), TFC_OK);
  EXPECT_TRUE(shc.u.shape != shv.u.shape);
  EXPECT_TRUE(tfc_attr_value_equal(&shv, &shc));
  shc.u.shape->dims[1] = 5;
  EXPECT_TRUE(!tfc_attr_value_equal(&shv, &shc));
  tfc_attr_value_fini(&shv);
  tfc_attr_value_fini(&shc);

  tfc_attr_value list = tfc_attr_list(TFC_ATTR_TYPE), lc;
  tfc_attr_value a = tfc_attr_type(TFC_DT_FLOAT), b = tfc_attr_type(TFC_DT_INT32);
  tfc_attr_list_append(&list, &a, &s);
  tfc_attr_list_append(&list, &b, &s);
  EXPECT_EQ(tfc_attr_value_copy(&list, &lc, &s), TFC_OK);
  EXPECT_EQ(lc.u.list.n, 2);
  EXPECT_TRUE(lc.u.list.items != list.u.list.items);
  EXPECT_TRUE(tfc_attr_value_equal(&list, &lc));
  lc.u.list.items[1].u.type = TFC_DT_INT64;
  EXPECT_TRUE(!tfc_attr_value_equal(&list, &lc));
  tfc_attr_value_fini(&list);
  tfc_attr_value_fini(&lc);
  tfc_status_fini(&s);
}

static void attr_equal_distinguishes_kinds_and_values(void) {
  tfc_attr_value i1 = tfc_attr_int(1), i1b = tfc_attr_int(1), i2 = tfc_attr_int(2);
  tfc_attr_value b1 = tfc_attr_bool(1), b7 = tfc_attr_bool(7), t1 = tfc_attr_type(1);
  EXPECT_TRUE(tfc_attr_value_equal(&i1, &i1b));
  EXPECT_TRUE(!tfc_attr_value_equal(&i1, &i2));
  EXPECT_TRUE(!tfc_attr_value_equal(&i1, &b1));
  EXPECT_TRUE(!tfc_attr_value_equal(&i1, &t1));
  EXPECT_TRUE(tfc_attr_value_equal(&b1, &b7));
  tfc_attr_value f = tfc_attr_float(NAN), g = tfc_attr_float(NAN);
  EXPECT_TRUE(tfc_attr_value_equal(&f, &g));
}

static void attr_tensor_copy_shares_value(void) {
  tfc_status s;
  tfc_status_init(&s);
  float x = 3.0f;
  tfc_tensor *t = tfc_tensor_scalar(TFC_DT_FLOAT, &x, &s);
  tfc_attr_value v = tfc_attr_tensor(t), c;
  EXPECT_EQ(v.kind, TFC_ATTR_TENSOR);
  EXPECT_EQ(tfc_attr_value_copy(&v, &c, &s), TFC_OK);
  EXPECT_TRUE(tfc_attr_value_equal(&v, &c));
  char buf[128];
  tfc_attr_value_format(&v, buf, sizeof buf);
  EXPECT_STREQ(buf, "Tensor<type: float shape: []>");
  tfc_attr_value_fini(&v);
  EXPECT_NEAR(tfc_tensor_get_f64(c.u.tensor, 0), 3.0, 0);
  tfc_attr_value_fini(&c);
  tfc_status_fini(&s);
}

static void attrs_set_keeps_array_sorted_and_replaces(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr *attrs = NULL;
  int n = 0;
  tfc_attr_value v = tfc_attr_int(1);
  EXPECT_EQ(tfc_attrs_set(&attrs, &n, "zeta", &v, &s), TFC_OK);
  EXPECT_EQ(v.kind, TFC_ATTR_NONE);
  v = tfc_attr_int(2);
  tfc_attrs_set(&attrs, &n, "alpha", &v, &s);
  v = tfc_attr_int(3);
  tfc_attrs_set(&attrs, &n, "mid", &v, &s);
  EXPECT_EQ(n, 3);
  EXPECT_STREQ(attrs[0].name, "alpha");
  EXPECT_STREQ(attrs[1].name, "mid");
  EXPECT_STREQ(attrs[2].name, "zeta");
  v = tfc_attr_int(30);
  tfc_attrs_set(&attrs, &n, "mid", &v, &s);
  EXPECT_EQ(n, 3);
  const tfc_attr_value *f = tfc_attrs_find(attrs, n, "mid");
  EXPECT_TRUE(f != NULL);
  EXPECT_EQ(f->u.i, 30);
  EXPECT_TRUE(tfc_attrs_find(attrs, n, "missing") == NULL);
  tfc_attr *copy = NULL;
  EXPECT_EQ(tfc_attrs_copy(attrs, n, &copy, &s), TFC_OK);
  EXPECT_EQ(tfc_attrs_find(copy, n, "zeta")->u.i, 1);
  tfc_attrs_free(attrs, n);
  tfc_attrs_free(copy, n);
  tfc_status_fini(&s);
}

static void attr_kind_names(void) {
  EXPECT_STREQ(tfc_attr_kind_name(TFC_ATTR_INT), "int");
  EXPECT_STREQ(tfc_attr_kind_name(TFC_ATTR_TYPE), "type");
  EXPECT_STREQ(tfc_attr_kind_name(TFC_ATTR_SHAPE), "shape");
  EXPECT_STREQ(tfc_attr_kind_name(TFC_ATTR_STRING), "string");
}

static const tfc_test tests[] = {
    TFC_TEST(ops_init_succeeds_and_is_idempotent),
    TFC_TEST(every_op_in_table_has_a_parsed_def),
    TFC_TEST(op_lookup_unknown_is_null),
    TFC_TEST(op_ids_match_enum),
    TFC_TEST(matmul_def_has_typed_inputs_and_transpose_defaults),
    TFC_TEST(concatv2_values_is_n_times_t_with_minimum_2),
    TFC_TEST(placeholder_shape_default_is_unknown_rank),
    TFC_TEST(identity_n_t_is_type_list_with_minimum_1),
    TFC_TEST(internal_ops_are_flagged),
    TFC_TEST(opdef_format_names_op_and_signature),
    TFC_TEST(attr_scalar_constructors),
    TFC_TEST(attr_format_forms),
    TFC_TEST(attr_copy_is_deep_and_equal),
    TFC_TEST(attr_equal_distinguishes_kinds_and_values),
    TFC_TEST(attr_tensor_copy_shares_value),
    TFC_TEST(attrs_set_keeps_array_sorted_and_replaces),
    TFC_TEST(attr_kind_names),
    {0}};

TFC_TEST_MAIN(tests)
