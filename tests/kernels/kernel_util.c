/* kernel_util — see kernel_util.h. Included (not linked) by kernel tests: #include "kernel_util.c". */
#include "kernel_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "harness.h"

int ku_run(const char *op, const ku_attr *attrs, int n_attrs, tfc_tensor *const *inputs, int n_inputs,
           const int *list_sizes, tfc_tensor **outs, int n_outs, tfc_status *s) {
  tfc_graph *g = tfc_graph_new();
  tfc_endpoint *eps = calloc((size_t)(n_inputs ? n_inputs : 1), sizeof *eps);
  for (int i = 0; i < n_inputs; i++) {
    char name[32];
    snprintf(name, sizeof name, "in%d", i);
    tfc_node_desc *d = tfc_node_desc_new(g, "Placeholder", name);
    tfc_attr_value v = tfc_attr_type(inputs[i]->dtype);
    tfc_node_desc_set_attr(d, "dtype", &v);
    tfc_shape sh = tfc_tensor_shape(inputs[i]);
    tfc_attr_value sv;
    tfc_attr_shape(&sh, &sv, s);
    tfc_node_desc_set_attr(d, "shape", &sv);
    tfc_node *n = tfc_node_desc_finish(d, s);
    if (!n) tfc_test_fail(__FILE__, __LINE__, "placeholder: %s", tfc_status_msg(s));
    eps[i] = (tfc_endpoint){n, 0};
  }
  tfc_node_desc *d = tfc_node_desc_new(g, op, "op");
  const tfc_opdef *od = tfc_op_lookup(op);
  if (!od) tfc_test_fail(__FILE__, __LINE__, "unknown op %s", op);
  if (list_sizes) {
    int pos = 0;
    for (int a = 0; a < od->n_inputs; a++) {
      if (list_sizes[a] < 0) tfc_node_desc_add_input(d, eps[pos++]);
      else {
        tfc_node_desc_add_input_list(d, eps + pos, list_sizes[a]);
        pos += list_sizes[a];
      }
    }
  } else {
    for (int i = 0; i < n_inputs; i++) tfc_node_desc_add_input(d, eps[i]);
  }
  for (int i = 0; i < n_attrs; i++) {
    tfc_attr_value v;
    tfc_attr_value_copy(&attrs[i].value, &v, s);
    tfc_node_desc_set_attr(d, attrs[i].name, &v);
  }
  tfc_node *n = tfc_node_desc_finish(d, s);
  free(eps);
  if (!n) {
    tfc_graph_free(g);
    return s->code;
  }
  const tfc_kernel_table *kt = tfc_cpu_kernel_table(s);
  const tfc_kernel_def *k = kt ? tfc_kernel_find(kt, n, s) : NULL;
  if (!k) {
    tfc_graph_free(g);
    return s->code;
  }
  void *state = NULL;
  if (k->init && k->init(n, &state, s)) {
    tfc_graph_free(g);
    return s->code;
  }
  tfc_threadpool *pool = tfc_threadpool_new(2, "kernel-test");
  tfc_tensor **o = calloc((size_t)(n->n_outputs ? n->n_outputs : 1), sizeof *o);
  tfc_kernel_ctx c = {.node = n,
                      .state = state,
                      .n_inputs = n_inputs,
                      .inputs = (tfc_tensor **)inputs,
                      .n_outputs = n->n_outputs,
                      .outputs = o,
                      .pool = pool,
                      .status = s};
  k->compute(&c);
  if (k->free_state && state) k->free_state(state);
  if (tfc_status_ok(s) && n_outs != n->n_outputs)
    tfc_test_fail(__FILE__, __LINE__, "op %s has %d outputs, test expects %d", op, n->n_outputs, n_outs);
  for (int i = 0; i < n->n_outputs; i++) {
    if (i < n_outs && tfc_status_ok(s)) {
      outs[i] = o[i];
      /* the graph's inferred shape must agree with the computed one */
      if (o[i]) {
        tfc_shape got = tfc_tensor_shape(o[i]);
        if (!tfc_shape_compatible(&n->output_shapes[i], &got)) {
          char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
          tfc_test_fail(__FILE__, __LINE__, "op %s output %d: inferred shape %s, computed %s", op, i,
                        tfc_shape_str(&n->output_shapes[i], a, sizeof a), tfc_shape_str(&got, b, sizeof b));
        }
      }
    } else {
      tfc_tensor_unref(o[i]);
    }
  }
  free(o);
  tfc_threadpool_free(pool);
  tfc_graph_free(g);
  return s->code;
}

tfc_tensor *ku_typed(int dtype, const int64_t *dims, int ndims, const void *vals) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = tfc_tensor_new(dtype, dims, ndims, &s);
  if (!t) tfc_test_fail(__FILE__, __LINE__, "tensor: %s", tfc_status_msg(&s));
  if (vals && t->n_bytes) memcpy(t->data, vals, t->n_bytes);
  return t;
}
tfc_tensor *ku_f32(const int64_t *d, int n, const float *v) { return ku_typed(TFC_DT_FLOAT, d, n, v); }
tfc_tensor *ku_f64(const int64_t *d, int n, const double *v) { return ku_typed(TFC_DT_DOUBLE, d, n, v); }
tfc_tensor *ku_i32(const int64_t *d, int n, const int32_t *v) { return ku_typed(TFC_DT_INT32, d, n, v); }
tfc_tensor *ku_i64(const int64_t *d, int n, const int64_t *v) { return ku_typed(TFC_DT_INT64, d, n, v); }
tfc_tensor *ku_bool(const int64_t *d, int n, const uint8_t *v) { return ku_typed(TFC_DT_BOOL, d, n, v); }

void ku_set(tfc_tensor *t, int64_t i, double v) {
  switch (t->dtype) {
    case TFC_DT_FLOAT: ((float *)t->data)[i] = (float)v; break;
    case TFC_DT_DOUBLE: ((double *)t->data)[i] = v; break;
    case TFC_DT_INT32: ((int32_t *)t->data)[i] = (int32_t)v; break;
    case TFC_DT_INT64: ((int64_t *)t->data)[i] = (int64_t)v; break;
    case TFC_DT_UINT8: ((uint8_t *)t->data)[i] = (uint8_t)v; break;
    case TFC_DT_INT8: ((int8_t *)t->data)[i] = (int8_t)v; break;
    case TFC_DT_INT16: ((int16_t *)t->data)[i] = (int16_t)v; break;
    case TFC_DT_UINT16: ((uint16_t *)t->data)[i] = (uint16_t)v; break;
    case TFC_DT_BOOL: ((uint8_t *)t->data)[i] = v != 0; break;
    default: tfc_test_fail(__FILE__, __LINE__, "ku_set: dtype %s", tfc_dtype_name(t->dtype));
  }
}

int ku_run_unknown(const char *op, const ku_attr *attrs, int n_attrs, tfc_tensor *const *inputs, int n,
                       tfc_tensor **outs, int n_outs, tfc_status *s) {
  tfc_graph *g = tfc_graph_new();
  tfc_node_desc *d = tfc_node_desc_new(g, op, "op");
  for (int i = 0; i < n; i++) {
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    tfc_node_desc *p = tfc_node_desc_new(g, "Placeholder", name);
    tfc_attr_value v = tfc_attr_type(inputs[i]->dtype);
    tfc_node_desc_set_attr(p, "dtype", &v);
    tfc_node *pn = tfc_node_desc_finish(p, s);
    if (!pn) tfc_test_fail(__FILE__, __LINE__, "placeholder: %s", tfc_status_msg(s));
    tfc_node_desc_add_input(d, (tfc_endpoint){pn, 0});
  }
  for (int i = 0; i < n_attrs; i++) {
    tfc_attr_value v;
    tfc_attr_value_copy(&attrs[i].value, &v, s);
    tfc_node_desc_set_attr(d, attrs[i].name, &v);
  }
  tfc_node *node = tfc_node_desc_finish(d, s);
  if (!node) tfc_test_fail(__FILE__, __LINE__, "node: %s", tfc_status_msg(s));
  const tfc_kernel_def *k = tfc_kernel_find(tfc_cpu_kernel_table(s), node, s);
  if (!k) tfc_test_fail(__FILE__, __LINE__, "kernel: %s", tfc_status_msg(s));
  for (int i = 0; i < n_outs; i++) outs[i] = NULL;
  void *state = NULL;
  if (k->init && k->init(node, &state, s)) {
    tfc_graph_free(g);
    return s->code;
  }
  tfc_kernel_ctx c = {.node = node, .state = state, .n_inputs = n, .inputs = (tfc_tensor **)inputs,
                      .n_outputs = n_outs, .outputs = outs, .status = s};
  int rc = k->compute(&c);
  if (k->free_state) k->free_state(state);
  if (rc)
    for (int i = 0; i < n_outs; i++) {
      tfc_tensor_unref(outs[i]);
      outs[i] = NULL;
    }
  tfc_graph_free(g);
  return rc;
}
