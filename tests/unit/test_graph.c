/* Unit tests of the graph store: node descriptions, validation, shape inference, rollback. */
#include <stdint.h>

#include "graph/graph.h"
#include "harness.h"

static tfc_graph *new_graph(void) {
  tfc_status s;
  tfc_status_init(&s);
  if (tfc_ops_init(&s) != TFC_OK) tfc_test_fail(__FILE__, __LINE__, "ops init: %s", tfc_status_msg(&s));
  tfc_status_fini(&s);
  tfc_graph *g = tfc_graph_new();
  if (!g) tfc_test_fail(__FILE__, __LINE__, "graph_new failed");
  return g;
}

/* A float Const of the given dims (values 0, 1, 2, ...). */
static tfc_node *add_const(tfc_graph *g, const char *name, const int64_t *dims, int ndims) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = tfc_tensor_new(TFC_DT_FLOAT, dims, ndims, &s);
  for (int64_t i = 0; i < t->n_elems; i++) ((float *)t->data)[i] = (float)i;
  tfc_node_desc *d = tfc_node_desc_new(g, "Const", name);
  tfc_attr_value v = tfc_attr_tensor(t);
  tfc_node_desc_set_attr(d, "value", &v);
  v = tfc_attr_type(TFC_DT_FLOAT);
  tfc_node_desc_set_attr(d, "dtype", &v);
  tfc_node *n = tfc_node_desc_finish(d, &s);
  if (!n) tfc_test_fail(__FILE__, __LINE__, "const %s: %s", name, tfc_status_msg(&s));
  tfc_status_fini(&s);
  return n;
}

static tfc_node *add_int_const(tfc_graph *g, const char *name, int32_t value) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = tfc_tensor_scalar(TFC_DT_INT32, &value, &s);
  tfc_node_desc *d = tfc_node_desc_new(g, "Const", name);
  tfc_attr_value v = tfc_attr_tensor(t);
  tfc_node_desc_set_attr(d, "value", &v);
  v = tfc_attr_type(TFC_DT_INT32);
  tfc_node_desc_set_attr(d, "dtype", &v);
  tfc_node *n = tfc_node_desc_finish(d, &s);
  if (!n) tfc_test_fail(__FILE__, __LINE__, "const %s: %s", name, tfc_status_msg(&s));
  tfc_status_fini(&s);
  return n;
}

static tfc_node *binary(tfc_graph *g, const char *op, const char *name, tfc_node *a, tfc_node *b,
                        tfc_status *s) {
  tfc_node_desc *d = tfc_node_desc_new(g, op, name);
  tfc_node_desc_add_input(d, (tfc_endpoint){a, 0});
  tfc_node_desc_add_input(d, (tfc_endpoint){b, 0});
  return tfc_node_desc_finish(d, s);
}

static void graph_new_is_empty(void) {
  tfc_graph *g = new_graph();
  EXPECT_EQ(tfc_graph_num_nodes(g), 0);
  EXPECT_TRUE(tfc_graph_find(g, "a") == NULL);
  tfc_graph_free(g);
  tfc_graph_free(NULL);
}

static void const_node_has_output_type_and_shape(void) {
  tfc_graph *g = new_graph();
  int64_t d[2] = {2, 3};
  tfc_node *a = add_const(g, "a", d, 2);
  EXPECT_EQ(a->id, 0);
  EXPECT_STREQ(a->name, "a");
  EXPECT_STREQ(a->op->name, "Const");
  EXPECT_STREQ(a->device, "");
  EXPECT_EQ(a->n_outputs, 1);
  EXPECT_EQ(a->output_types[0], TFC_DT_FLOAT);
  EXPECT_EQ(a->output_shapes[0].rank, 2);
  EXPECT_EQ(a->output_shapes[0].dims[0], 2);
  EXPECT_EQ(a->output_shapes[0].dims[1], 3);
  EXPECT_TRUE(tfc_graph_find(g, "a") == a);
  EXPECT_TRUE(a->graph == g);
  EXPECT_EQ(tfc_graph_num_nodes(g), 1);
  tfc_graph_free(g);
}

static void node_desc_infers_t_from_inputs(void) {
  tfc_graph *g = new_graph();
  int64_t d[2] = {2, 2};
  tfc_node *a = add_const(g, "a", d, 2), *b = add_const(g, "b", d, 2);
  tfc_status s;
  tfc_status_init(&s);
  tfc_node *c = binary(g, "AddV2", "c", a, b, &s);
  EXPECT_TRUE(c != NULL);
  int t = -1;
  EXPECT_EQ(tfc_node_attr_type(c, "T", &t), TFC_OK);
  EXPECT_EQ(t, TFC_DT_FLOAT);
  EXPECT_EQ(c->output_types[0], TFC_DT_FLOAT);
  EXPECT_EQ(c->n_inputs, 2);
  EXPECT_TRUE(c->inputs[0].node == a);
  EXPECT_TRUE(c->inputs[1].node == b);
  EXPECT_EQ(c->input_types[0], TFC_DT_FLOAT);
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static void node_desc_fills_attr_defaults(void) {
  tfc_graph *g = new_graph();
  int64_t d[2] = {2, 2};
  tfc_node *a = add_const(g, "a", d, 2), *b = add_const(g, "b", d, 2);
  tfc_status s;
  tfc_status_init(&s);
  tfc_node *c = binary(g, "MatMul", "c", a, b, &s);
  EXPECT_TRUE(c != NULL);
  int ta = -1, tb = -1;
  EXPECT_EQ(tfc_node_attr_bool(c, "transpose_a", &ta), TFC_OK);
  EXPECT_EQ(tfc_node_attr_bool(c, "transpose_b", &tb), TFC_OK);
  EXPECT_EQ(ta, 0);
  EXPECT_EQ(tb, 0);
  EXPECT_EQ(c->n_attrs, 3);
  for (int i = 1; i < c->n_attrs; i++) EXPECT_TRUE(strcmp(c->attrs[i - 1].name, c->attrs[i].name) < 0);

  tfc_node_desc *pd = tfc_node_desc_new(g, "Placeholder", "p");
  tfc_attr_value v = tfc_attr_type(TFC_DT_INT32);
  tfc_node_desc_set_attr(pd, "dtype", &v);
  tfc_node *p = tfc_node_desc_finish(pd, &s);
  EXPECT_TRUE(p != NULL);
  const tfc_attr_value *sh = tfc_node_attr(p, "shape");
  EXPECT_TRUE(sh != NULL);
  EXPECT_EQ(sh->kind, TFC_ATTR_SHAPE);
  EXPECT_EQ(sh->u.shape->rank, -1);
  EXPECT_EQ(p->output_types[0], TFC_DT_INT32);
  EXPECT_EQ(p->output_shapes[0].rank, -1);
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static void explicit_attr_overrides_default(void) {
  tfc_graph *g = new_graph();
  int64_t d[2] = {3, 2};
  tfc_node *a = add_const(g, "a", d, 2), *b = add_const(g, "b", d, 2);
  tfc_status s;
  tfc_status_init(&s);
  tfc_node_desc *nd = tfc_node_desc_new(g, "MatMul", "c");
  tfc_node_desc_add_input(nd, (tfc_endpoint){a, 0});
  tfc_node_desc_add_input(nd, (tfc_endpoint){b, 0});
  tfc_attr_value v = tfc_attr_bool(1);
  tfc_node_desc_set_attr(nd, "transpose_a", &v);
  tfc_node *c = tfc_node_desc_finish(nd, &s);
  EXPECT_TRUE(c != NULL);
  int ta = 0;
  tfc_node_attr_bool(c, "transpose_a", &ta);
  EXPECT_EQ(ta, 1);
  EXPECT_EQ(c->output_shapes[0].rank, 2);
  EXPECT_EQ(c->output_shapes[0].dims[0], 2);
  EXPECT_EQ(c->output_shapes[0].dims[1], 2);
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static void duplicate_node_name_is_rejected(void) {
  tfc_graph *g = new_graph();
  int64_t d[1] = {2};
  add_const(g, "a", d, 1);
  tfc_status s;
  tfc_status_init(&s);
  tfc_node_desc *nd = tfc_node_desc_new(g, "NoOp", "a");
  EXPECT_TRUE(tfc_node_desc_finish(nd, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Duplicate node name in graph: 'a'");
  EXPECT_EQ(tfc_graph_num_nodes(g), 1);
  EXPECT_STREQ(tfc_graph_find(g, "a")->op->name, "Const");
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static void unknown_op_is_not_found(void) {
  tfc_graph *g = new_graph();
  tfc_status s;
  tfc_status_init(&s);
  tfc_node_desc *nd = tfc_node_desc_new(g, "Bogus", "x");
  EXPECT_TRUE(nd != NULL);
  EXPECT_TRUE(tfc_node_desc_finish(nd, &s) == NULL);
  EXPECT_EQ(s.code, TFC_NOT_FOUND);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Op type not registered 'Bogus'");
  EXPECT_EQ(tfc_graph_num_nodes(g), 0);
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static void invalid_node_name_is_rejected(void) {
  tfc_graph *g = new_graph();
  tfc_status s;
  tfc_status_init(&s);
  tfc_node_desc *nd = tfc_node_desc_new(g, "NoOp", "_bad name");
  EXPECT_TRUE(tfc_node_desc_finish(nd, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Node name '_bad name' is not valid");
  EXPECT_EQ(tfc_graph_num_nodes(g), 0);
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static void node_name_rule(void) {
  EXPECT_TRUE(tfc_node_name_valid("a"));
  EXPECT_TRUE(tfc_node_name_valid("A0.b_c/d-e"));
  EXPECT_TRUE(tfc_node_name_valid(".x"));
  EXPECT_TRUE(tfc_node_name_valid("9"));
  EXPECT_TRUE(!tfc_node_name_valid(""));
  EXPECT_TRUE(!tfc_node_name_valid("_a"));
  EXPECT_TRUE(!tfc_node_name_valid("/a"));
  EXPECT_TRUE(!tfc_node_name_valid("-a"));
  EXPECT_TRUE(!tfc_node_name_valid("a b"));
  EXPECT_TRUE(!tfc_node_name_valid("a:0"));
}

static void inconsistent_t_is_rejected(void) {
  tfc_graph *g = new_graph();
  int64_t d[1] = {1};
  tfc_node *a = add_const(g, "a", d, 0);
  tfc_node *b = add_int_const(g, "b", 1);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_TRUE(binary(g, "AddV2", "c", a, b, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Inconsistent values for attr 'T'");
  EXPECT_CONTAINS(tfc_status_msg(&s), "DT_FLOAT vs. DT_INT32");
  EXPECT_CONTAINS(tfc_status_msg(&s), "while building NodeDef 'c'");
  EXPECT_EQ(tfc_graph_num_nodes(g), 2);
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static void wrong_input_count_is_rejected(void) {
  tfc_graph *g = new_graph();
  int64_t d[2] = {2, 2};
  tfc_node *a = add_const(g, "a", d, 2);
  tfc_status s;
  tfc_status_init(&s);
  tfc_node_desc *nd = tfc_node_desc_new(g, "MatMul", "c");
  tfc_node_desc_add_input(nd, (tfc_endpoint){a, 0});
  EXPECT_TRUE(tfc_node_desc_finish(nd, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Expected 2 inputs but got 1");
  EXPECT_CONTAINS(tfc_status_msg(&s), "'c'");
  EXPECT_EQ(tfc_graph_num_nodes(g), 1);
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static void matmul_shape_inference(void) {
  tfc_graph *g = new_graph();
  int64_t da[2] = {2, 3}, db[2] = {3, 4};
  tfc_node *a = add_const(g, "a", da, 2), *b = add_const(g, "b", db, 2);
  tfc_status s;
  tfc_status_init(&s);
  tfc_node *c = binary(g, "MatMul", "c", a, b, &s);
  EXPECT_TRUE(c != NULL);
  EXPECT_TRUE(tfc_status_ok(&s));
  char buf[TFC_SHAPE_STR_MAX];
  EXPECT_STREQ(tfc_shape_str(&c->output_shapes[0], buf, sizeof buf), "[2,4]");
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static void matmul_shape_error_message(void) {
  tfc_graph *g = new_graph();
  int64_t da[2] = {2, 3};
  tfc_node *a = add_const(g, "a", da, 2), *b = add_const(g, "b", da, 2);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_TRUE(binary(g, "MatMul", "c", a, b, &s) == NULL);
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s),
                  "Dimensions must be equal, but are 3 and 2 for 'c' (op: 'MatMul') with input "
                  "shapes: [2,3], [2,3].");
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static void failed_finish_leaves_graph_unchanged(void) {
  tfc_graph *g = new_graph();
  int64_t da[2] = {2, 3};
  tfc_node *a = add_const(g, "a", da, 2), *b = add_const(g, "b", da, 2);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_graph_num_nodes(g), 2);
  EXPECT_TRUE(binary(g, "MatMul", "c", a, b, &s) == NULL);
  EXPECT_EQ(tfc_graph_num_nodes(g), 2);
  EXPECT_EQ(g->n_nodes, 2);
  EXPECT_TRUE(tfc_graph_find(g, "c") == NULL);
  tfc_status_clear(&s);
  /* The name is still free and the next node gets the next dense id. */
  tfc_node *c = binary(g, "AddV2", "c", a, b, &s);
  EXPECT_TRUE(c != NULL);
  EXPECT_EQ(c->id, 2);
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static void desc_fail_is_reported_by_finish(void) {
  tfc_graph *g = new_graph();
  tfc_status s;
  tfc_status_init(&s);
  tfc_node_desc *nd = tfc_node_desc_new(g, "NoOp", "n");
  tfc_node_desc_fail(nd, TFC_OUT_OF_RANGE, "setter went wrong");
  EXPECT_TRUE(tfc_node_desc_finish(nd, &s) == NULL);
  EXPECT_EQ(s.code, TFC_OUT_OF_RANGE);
  EXPECT_CONTAINS(tfc_status_msg(&s), "setter went wrong");
  EXPECT_EQ(tfc_graph_num_nodes(g), 0);
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static void mark_and_rollback_remove_nodes_and_names(void) {
  tfc_graph *g = new_graph();
  int64_t d[1] = {2};
  add_const(g, "keep", d, 1);
  tfc_graph_lock(g);
  int mark = tfc_graph_mark(g);
  tfc_graph_unlock(g);
  EXPECT_EQ(mark, 1);
  tfc_node *x = add_const(g, "x", d, 1);
  add_const(g, "y", d, 1);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_TRUE(binary(g, "AddV2", "z", x, x, &s) != NULL);
  EXPECT_EQ(tfc_graph_num_nodes(g), 4);
  tfc_graph_lock(g);
  tfc_graph_rollback(g, mark);
  tfc_graph_unlock(g);
  EXPECT_EQ(tfc_graph_num_nodes(g), 1);
  EXPECT_TRUE(tfc_graph_find(g, "x") == NULL);
  EXPECT_TRUE(tfc_graph_find(g, "y") == NULL);
  EXPECT_TRUE(tfc_graph_find(g, "z") == NULL);
  EXPECT_TRUE(tfc_graph_find(g, "keep") != NULL);
  /* Removed names can be reused. */
  tfc_node *x2 = add_const(g, "x", d, 1);
  EXPECT_EQ(x2->id, 1);
  EXPECT_TRUE(tfc_graph_find(g, "x") == x2);
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

/* TF's ids (graph.h): from 2, kept used by rolled-back nodes and by a finish whose shape
 * inference failed (TF made that node first), not by one refused earlier; the lookup by TF
 * id finds the first node at or past it. */
static void tf_ids_skip_nodes_tf_made_and_removed(void) {
  tfc_graph *g = new_graph();
  int64_t d2[1] = {2}, d3[1] = {3};
  tfc_node *a = add_const(g, "a", d2, 1);
  EXPECT_EQ(a->tf_id, 2);
  tfc_graph_lock(g);
  int mark = tfc_graph_mark(g);
  tfc_graph_unlock(g);
  add_const(g, "gone1", d2, 1);
  add_const(g, "gone2", d2, 1);
  tfc_graph_lock(g);
  tfc_graph_rollback(g, mark);
  tfc_graph_unlock(g);
  tfc_status s;
  tfc_status_init(&s);
  tfc_node *b = add_const(g, "b", d3, 1);
  EXPECT_EQ(b->id, 1);
  EXPECT_EQ(b->tf_id, 5);
  EXPECT_TRUE(binary(g, "AddV2", "shape_error", a, b, &s) == NULL); /* [2] + [3] */
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  tfc_status_clear(&s);
  tfc_node *i = add_int_const(g, "i", 1);
  EXPECT_EQ(i->tf_id, 7);
  EXPECT_TRUE(binary(g, "AddV2", "type_error", a, i, &s) == NULL); /* refused before */
  EXPECT_EQ(s.code, TFC_INVALID_ARGUMENT);
  tfc_status_clear(&s);
  tfc_node *c = add_const(g, "c", d2, 1);
  EXPECT_EQ(c->tf_id, 8);
  EXPECT_EQ(g->next_tf_id, 9);
  EXPECT_TRUE(tfc_graph_node_at_tf_id(g, 0) == a);
  EXPECT_TRUE(tfc_graph_node_at_tf_id(g, 3) == b);
  EXPECT_TRUE(tfc_graph_node_at_tf_id(g, 6) == i);
  EXPECT_TRUE(tfc_graph_node_at_tf_id(g, 8) == c);
  EXPECT_TRUE(tfc_graph_node_at_tf_id(g, 9) == NULL);
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static void colocate_with_adds_class_attr(void) {
  tfc_graph *g = new_graph();
  int64_t d[1] = {2};
  tfc_node *x = add_const(g, "x", d, 1), *w = add_const(g, "w", d, 1);
  tfc_status s;
  tfc_status_init(&s);
  tfc_node_desc *nd = tfc_node_desc_new(g, "Identity", "id");
  tfc_node_desc_add_input(nd, (tfc_endpoint){x, 0});
  tfc_node_desc_colocate_with(nd, x);
  tfc_node_desc_colocate_with(nd, w);
  tfc_node *n = tfc_node_desc_finish(nd, &s);
  EXPECT_TRUE(n != NULL);
  const tfc_attr_value *cls = tfc_node_attr(n, "_class");
  EXPECT_TRUE(cls != NULL);
  EXPECT_EQ(cls->kind, TFC_ATTR_LIST);
  EXPECT_EQ(cls->list_kind, TFC_ATTR_STRING);
  EXPECT_EQ(cls->u.list.n, 2);
  EXPECT_STREQ(cls->u.list.items[0].u.s.data, "loc:@x");
  EXPECT_STREQ(cls->u.list.items[1].u.s.data, "loc:@w");
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static void unique_name_appends_counter(void) {
  tfc_graph *g = new_graph();
  int64_t d[1] = {2};
  char *n0 = tfc_graph_unique_name(g, "x");
  EXPECT_STREQ(n0, "x");
  free(n0);
  add_const(g, "x", d, 1);
  char *n1 = tfc_graph_unique_name(g, "x");
  EXPECT_STREQ(n1, "x_1");
  add_const(g, n1, d, 1);
  free(n1);
  char *n2 = tfc_graph_unique_name(g, "x");
  EXPECT_STREQ(n2, "x_2");
  free(n2);
  tfc_graph_free(g);
}

static void device_and_control_inputs_are_recorded(void) {
  tfc_graph *g = new_graph();
  int64_t d[1] = {2};
  tfc_node *x = add_const(g, "x", d, 1), *y = add_const(g, "y", d, 1);
  tfc_status s;
  tfc_status_init(&s);
  tfc_node_desc *nd = tfc_node_desc_new(g, "Identity", "id");
  tfc_node_desc_add_input(nd, (tfc_endpoint){x, 0});
  tfc_node_desc_add_control(nd, y);
  tfc_node_desc_set_device(nd, "/device:CPU:0");
  tfc_node *n = tfc_node_desc_finish(nd, &s);
  EXPECT_TRUE(n != NULL);
  EXPECT_STREQ(n->device, "/device:CPU:0");
  EXPECT_EQ(n->n_control_inputs, 1);
  EXPECT_TRUE(n->control_inputs[0] == y);
  EXPECT_EQ(n->output_shapes[0].rank, 1);
  EXPECT_EQ(n->output_shapes[0].dims[0], 2);
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static void concat_list_input_infers_n_and_shape(void) {
  tfc_graph *g = new_graph();
  int64_t d1[2] = {2, 3}, d2[2] = {4, 3};
  tfc_node *a = add_const(g, "a", d1, 2), *b = add_const(g, "b", d2, 2);
  tfc_node *axis = add_int_const(g, "axis", 0);
  tfc_status s;
  tfc_status_init(&s);
  tfc_node_desc *nd = tfc_node_desc_new(g, "ConcatV2", "cat");
  tfc_endpoint vals[2] = {{a, 0}, {b, 0}};
  tfc_node_desc_add_input_list(nd, vals, 2);
  tfc_node_desc_add_input(nd, (tfc_endpoint){axis, 0});
  tfc_node *n = tfc_node_desc_finish(nd, &s);
  if (!n) tfc_test_fail(__FILE__, __LINE__, "concat: %s", tfc_status_msg(&s));
  int64_t nv = 0;
  EXPECT_EQ(tfc_node_attr_int(n, "N", &nv), TFC_OK);
  EXPECT_EQ(nv, 2);
  int tidx = 0;
  tfc_node_attr_type(n, "Tidx", &tidx);
  EXPECT_EQ(tidx, TFC_DT_INT32);
  int start = -1, stop = -1;
  EXPECT_EQ(tfc_node_input_range(n, "values", &start, &stop), 0);
  EXPECT_EQ(start, 0);
  EXPECT_EQ(stop, 2);
  EXPECT_EQ(tfc_node_input_range(n, "axis", &start, &stop), 0);
  EXPECT_EQ(start, 2);
  EXPECT_EQ(stop, 3);
  EXPECT_EQ(tfc_node_input_range(n, "nope", &start, &stop), -1);
  char buf[TFC_SHAPE_STR_MAX];
  EXPECT_STREQ(tfc_shape_str(&n->output_shapes[0], buf, sizeof buf), "[6,3]");
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static void set_output_shape_merges_and_rejects_mismatch(void) {
  tfc_graph *g = new_graph();
  tfc_status s;
  tfc_status_init(&s);
  tfc_node_desc *pd = tfc_node_desc_new(g, "Placeholder", "p");
  tfc_attr_value v = tfc_attr_type(TFC_DT_FLOAT);
  tfc_node_desc_set_attr(pd, "dtype", &v);
  tfc_node *p = tfc_node_desc_finish(pd, &s);
  int64_t d[2] = {-1, 3};
  tfc_shape sh = tfc_shape_make(d, 2);
  EXPECT_EQ(tfc_graph_set_output_shape(g, (tfc_endpoint){p, 0}, &sh, &s), TFC_OK);
  EXPECT_EQ(p->output_shapes[0].rank, 2);
  EXPECT_EQ(p->output_shapes[0].dims[0], -1);
  EXPECT_EQ(p->output_shapes[0].dims[1], 3);
  int64_t bad[2] = {2, 4};
  tfc_shape sb = tfc_shape_make(bad, 2);
  EXPECT_EQ(tfc_graph_set_output_shape(g, (tfc_endpoint){p, 0}, &sb, &s), TFC_INVALID_ARGUMENT);
  EXPECT_CONTAINS(tfc_status_msg(&s), "Dimension mismatch");
  EXPECT_EQ(p->output_shapes[0].dims[1], 3);
  tfc_status_fini(&s);
  tfc_graph_free(g);
}

static const tfc_test tests[] = {
    TFC_TEST(graph_new_is_empty),
    TFC_TEST(const_node_has_output_type_and_shape),
    TFC_TEST(node_desc_infers_t_from_inputs),
    TFC_TEST(node_desc_fills_attr_defaults),
    TFC_TEST(explicit_attr_overrides_default),
    TFC_TEST(duplicate_node_name_is_rejected),
    TFC_TEST(unknown_op_is_not_found),
    TFC_TEST(invalid_node_name_is_rejected),
    TFC_TEST(node_name_rule),
    TFC_TEST(inconsistent_t_is_rejected),
    TFC_TEST(wrong_input_count_is_rejected),
    TFC_TEST(matmul_shape_inference),
    TFC_TEST(matmul_shape_error_message),
    TFC_TEST(failed_finish_leaves_graph_unchanged),
    TFC_TEST(desc_fail_is_reported_by_finish),
    TFC_TEST(mark_and_rollback_remove_nodes_and_names),
    TFC_TEST(tf_ids_skip_nodes_tf_made_and_removed),
    TFC_TEST(colocate_with_adds_class_attr),
    TFC_TEST(unique_name_appends_counter),
    TFC_TEST(device_and_control_inputs_are_recorded),
    TFC_TEST(concat_list_input_infers_n_and_shape),
    TFC_TEST(set_output_shape_merges_and_rejects_mismatch),
    {0}};

TFC_TEST_MAIN(tests)
