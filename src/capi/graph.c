/*
 * capi/graph — TF_Graph, the TF_OperationDescription builder, operation queries, attr
 * setters and getters, and tensor shapes on graph edges: argument checks and translation to
 * graph/graph.h.
 *
 * A TF_Operation is a tfc_node (pointers are cast). Built nodes are immutable apart from
 * their output shapes, so per-node queries read them without a lock; anything that walks the
 * graph's node array or name map, or reads shapes, takes the graph lock, because a concurrent
 * TF_FinishOperation may grow the array or rehash the map.
 *
 * Attr values are tfc_attr_value. The C API's TF_DataType values equal tfc dtypes, and its
 * shapes use the same conventions (-1 rank or dim: unknown), so values translate one to one.
 * The proto-based setters and getters live in capi/attr_proto.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "capi/capi_internal.h"

/* ---------------- graphs ---------------- */

TFC_EXPORT TF_Graph *TF_NewGraph(void) {
  TF_Graph *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->g = tfc_graph_new();
  if (!g->g) {
    free(g);
    return NULL;
  }
  pthread_mutex_init(&g->mu, NULL);
  return g;
}

static void graph_free(TF_Graph *g) {
  if (g->builders_free) g->builders_free(g->builders);
  tfc_graph_free(g->g);
  pthread_mutex_destroy(&g->mu);
  free(g);
}

TFC_EXPORT void TF_DeleteGraph(TF_Graph *g) {
  if (!g) return;
  pthread_mutex_lock(&g->mu);
  g->delete_requested = 1;
  int unused = g->n_sessions == 0;
  pthread_mutex_unlock(&g->mu);
  if (unused) graph_free(g);
}

void tfc_capi_graph_retain(TF_Graph *g) {
  pthread_mutex_lock(&g->mu);
  g->n_sessions++;
  pthread_mutex_unlock(&g->mu);
}

void tfc_capi_graph_release(TF_Graph *g) {
  pthread_mutex_lock(&g->mu);
  int last = --g->n_sessions == 0 && g->delete_requested;
  pthread_mutex_unlock(&g->mu);
  if (last) graph_free(g);
}

/* ---------------- building operations ---------------- */

TFC_EXPORT TF_OperationDescription *TF_NewOperation(TF_Graph *graph, const char *op_type,
                                                    const char *oper_name) {
  if (!graph) return NULL;
  TF_OperationDescription *desc = malloc(sizeof *desc);
  if (!desc) return NULL;
  desc->d = tfc_node_desc_new(graph->g, op_type, oper_name);
  if (!desc->d) {
    free(desc);
    return NULL;
  }
  desc->graph = graph;
  return desc;
}

TFC_EXPORT void TF_SetDevice(TF_OperationDescription *desc, const char *device) {
  tfc_node_desc_set_device(desc->d, device);
}

TFC_EXPORT void TF_AddInput(TF_OperationDescription *desc, TF_Output input) {
  tfc_node_desc_add_input(desc->d, tfc_capi_endpoint(input));
}

TFC_EXPORT void TF_AddInputList(TF_OperationDescription *desc, const TF_Output *inputs,
                                int num_inputs) {
  if (num_inputs < 0 || (num_inputs > 0 && !inputs)) {
    tfc_node_desc_fail(desc->d, TFC_INVALID_ARGUMENT, "TF_AddInputList: invalid input array");
    return;
  }
  tfc_endpoint small[16] = {{0}};
  tfc_endpoint *eps = num_inputs <= 16 ? small : malloc(sizeof *eps * (size_t)num_inputs);
  if (!eps) {
    tfc_node_desc_fail(desc->d, TFC_RESOURCE_EXHAUSTED, "out of memory adding an input list");
    return;
  }
  for (int i = 0; i < num_inputs; i++) eps[i] = tfc_capi_endpoint(inputs[i]);
  tfc_node_desc_add_input_list(desc->d, eps, num_inputs);
  if (eps != small) free(eps);
}

TFC_EXPORT void TF_AddControlInput(TF_OperationDescription *desc, TF_Operation *input) {
  if (!input) {
    tfc_node_desc_fail(desc->d, TFC_INVALID_ARGUMENT, "TF_AddControlInput: input is NULL");
    return;
  }
  tfc_node_desc_add_control(desc->d, tfc_capi_node(input));
}

TFC_EXPORT void TF_ColocateWith(TF_OperationDescription *desc, TF_Operation *op) {
  if (!op) {
    tfc_node_desc_fail(desc->d, TFC_INVALID_ARGUMENT, "TF_ColocateWith: op is NULL");
    return;
  }
  tfc_node_desc_colocate_with(desc->d, tfc_capi_node(op));
}

/* ---------------- attr setters ---------------- */

/* Hands a built value to the description; a failed build (status s holds why) is recorded
 * so TF_FinishOperation reports it. */
static void set_attr(TF_OperationDescription *desc, const char *name, tfc_attr_value *v,
                     tfc_status *s) {
  if (!tfc_status_ok(s)) {
    tfc_node_desc_fail(desc->d, s->code, tfc_status_msg(s));
    tfc_attr_value_fini(v);
    return;
  }
  tfc_node_desc_set_attr(desc->d, name ? name : "", v);
}

/* Builds a list value item by item; stops at the first failure (recorded in s). */
static void list_append(tfc_attr_value *list, tfc_attr_value *item, tfc_status *s) {
  if (!tfc_status_ok(s)) {
    tfc_attr_value_fini(item);
    return;
  }
  tfc_attr_list_append(list, item, s);
}

static int shape_from_dims(const int64_t *dims, int num_dims, tfc_shape *out, tfc_status *s) {
  if (num_dims < 0) {
    *out = tfc_shape_unknown();
    return TFC_OK;
  }
  if (num_dims > TFC_MAX_DIMS)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "shape of rank %d exceeds the maximum rank %d",
                          num_dims, TFC_MAX_DIMS);
  if (num_dims > 0 && !dims)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "shape of rank %d has no dims", num_dims);
  for (int i = 0; i < num_dims; i++)
    if (dims[i] < -1)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "Dimension %lld must be >= -1 (-1 means unknown)", (long long)dims[i]);
  *out = tfc_shape_make(dims, num_dims);
  return TFC_OK;
}

TFC_EXPORT void TF_SetAttrString(TF_OperationDescription *desc, const char *attr_name,
                                 const void *value, size_t length) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr_value v = {0};
  tfc_attr_string(length ? value : "", length, &v, &s);
  set_attr(desc, attr_name, &v, &s);
  tfc_status_fini(&s);
}

TFC_EXPORT void TF_SetAttrStringList(TF_OperationDescription *desc, const char *attr_name,
                                     const void *const *values, const size_t *lengths,
                                     int num_values) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr_value v = tfc_attr_list(TFC_ATTR_STRING);
  for (int i = 0; i < num_values; i++) {
    tfc_attr_value item = {0};
    if (tfc_attr_string(lengths[i] ? values[i] : "", lengths[i], &item, &s)) break;
    list_append(&v, &item, &s);
  }
  set_attr(desc, attr_name, &v, &s);
  tfc_status_fini(&s);
}

TFC_EXPORT void TF_SetAttrInt(TF_OperationDescription *desc, const char *attr_name,
                              int64_t value) {
  tfc_attr_value v = tfc_attr_int(value);
  tfc_node_desc_set_attr(desc->d, attr_name, &v);
}

TFC_EXPORT void TF_SetAttrIntList(TF_OperationDescription *desc, const char *attr_name,
                                  const int64_t *values, int num_values) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr_value v = tfc_attr_list(TFC_ATTR_INT);
  for (int i = 0; i < num_values; i++) {
    tfc_attr_value item = tfc_attr_int(values[i]);
    list_append(&v, &item, &s);
  }
  set_attr(desc, attr_name, &v, &s);
  tfc_status_fini(&s);
}

TFC_EXPORT void TF_SetAttrFloat(TF_OperationDescription *desc, const char *attr_name,
                                float value) {
  tfc_attr_value v = tfc_attr_float(value);
  tfc_node_desc_set_attr(desc->d, attr_name, &v);
}

TFC_EXPORT void TF_SetAttrFloatList(TF_OperationDescription *desc, const char *attr_name,
                                    const float *values, int num_values) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr_value v = tfc_attr_list(TFC_ATTR_FLOAT);
  for (int i = 0; i < num_values; i++) {
    tfc_attr_value item = tfc_attr_float(values[i]);
    list_append(&v, &item, &s);
  }
  set_attr(desc, attr_name, &v, &s);
  tfc_status_fini(&s);
}

TFC_EXPORT void TF_SetAttrBool(TF_OperationDescription *desc, const char *attr_name,
                               unsigned char value) {
  tfc_attr_value v = tfc_attr_bool(value);
  tfc_node_desc_set_attr(desc->d, attr_name, &v);
}

TFC_EXPORT void TF_SetAttrBoolList(TF_OperationDescription *desc, const char *attr_name,
                                   const unsigned char *values, int num_values) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr_value v = tfc_attr_list(TFC_ATTR_BOOL);
  for (int i = 0; i < num_values; i++) {
    tfc_attr_value item = tfc_attr_bool(values[i]);
    list_append(&v, &item, &s);
  }
  set_attr(desc, attr_name, &v, &s);
  tfc_status_fini(&s);
}

TFC_EXPORT void TF_SetAttrType(TF_OperationDescription *desc, const char *attr_name,
                               TF_DataType value) {
  tfc_attr_value v = tfc_attr_type((int)value);
  tfc_node_desc_set_attr(desc->d, attr_name, &v);
}

TFC_EXPORT void TF_SetAttrTypeList(TF_OperationDescription *desc, const char *attr_name,
                                   const TF_DataType *values, int num_values) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr_value v = tfc_attr_list(TFC_ATTR_TYPE);
  for (int i = 0; i < num_values; i++) {
    tfc_attr_value item = tfc_attr_type((int)values[i]);
    list_append(&v, &item, &s);
  }
  set_attr(desc, attr_name, &v, &s);
  tfc_status_fini(&s);
}

TFC_EXPORT void TF_SetAttrPlaceholder(TF_OperationDescription *desc, const char *attr_name,
                                      const char *placeholder) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr_value v = {0};
  const char *p = placeholder ? placeholder : "";
  if (tfc_attr_string(p, strlen(p), &v, &s) == TFC_OK) v.kind = TFC_ATTR_PLACEHOLDER;
  set_attr(desc, attr_name, &v, &s);
  tfc_status_fini(&s);
}

TFC_EXPORT void TF_SetAttrFuncName(TF_OperationDescription *desc, const char *attr_name,
                                   const char *value, size_t length) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr_value v = {0};
  tfc_func_attr *f = calloc(1, sizeof *f);
  char *name = tfc_strndup(length ? value : "", length);
  if (!f || !name) {
    free(f);
    free(name);
    TFC_OOM(&s);
  } else {
    f->name = name;
    v.kind = TFC_ATTR_FUNC;
    v.u.func = f;
  }
  set_attr(desc, attr_name, &v, &s);
  tfc_status_fini(&s);
}

TFC_EXPORT void TF_SetAttrShape(TF_OperationDescription *desc, const char *attr_name,
                                const int64_t *dims, int num_dims) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr_value v = {0};
  tfc_shape shape;
  if (shape_from_dims(dims, num_dims, &shape, &s) == TFC_OK) tfc_attr_shape(&shape, &v, &s);
  set_attr(desc, attr_name, &v, &s);
  tfc_status_fini(&s);
}

TFC_EXPORT void TF_SetAttrShapeList(TF_OperationDescription *desc, const char *attr_name,
                                    const int64_t *const *dims, const int *num_dims,
                                    int num_shapes) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr_value v = tfc_attr_list(TFC_ATTR_SHAPE);
  for (int i = 0; i < num_shapes && tfc_status_ok(&s); i++) {
    tfc_shape shape;
    tfc_attr_value item = {0};
    if (shape_from_dims(dims[i], num_dims[i], &shape, &s) ||
        tfc_attr_shape(&shape, &item, &s))
      break;
    list_append(&v, &item, &s);
  }
  set_attr(desc, attr_name, &v, &s);
  tfc_status_fini(&s);
}

/* A deep copy of a C API tensor as an attr value: the attr must not change when the caller
 * later writes into its tensor. */
static tfc_tensor *attr_tensor_in(const TF_Tensor *t, tfc_status *s) {
  tfc_tensor *shared = tfc_capi_tensor_in(t, s);
  if (!shared) return NULL;
  tfc_tensor *copy = t->dtype == TF_STRING ? shared : tfc_tensor_copy(shared, s);
  if (copy != shared) tfc_tensor_unref(shared);
  return copy;
}

TFC_EXPORT void TF_SetAttrTensor(TF_OperationDescription *desc, const char *attr_name,
                                 TF_Tensor *value, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_tensor *t = attr_tensor_in(value, s);
  if (!t) return;
  tfc_attr_value v = tfc_attr_tensor(t);
  tfc_node_desc_set_attr(desc->d, attr_name, &v);
}

TFC_EXPORT void TF_SetAttrTensorList(TF_OperationDescription *desc, const char *attr_name,
                                     TF_Tensor *const *values, int num_values,
                                     TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_attr_value v = tfc_attr_list(TFC_ATTR_TENSOR);
  for (int i = 0; i < num_values; i++) {
    tfc_tensor *t = attr_tensor_in(values[i], s);
    if (!t) break;
    tfc_attr_value item = tfc_attr_tensor(t);
    if (tfc_attr_list_append(&v, &item, s)) break;
  }
  if (!tfc_status_ok(s)) {
    tfc_attr_value_fini(&v);
    return;
  }
  tfc_node_desc_set_attr(desc->d, attr_name, &v);
}

TFC_EXPORT TF_Operation *TF_FinishOperation(TF_OperationDescription *desc, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!desc) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_FinishOperation: description is NULL");
    return NULL;
  }
  tfc_node *n = tfc_node_desc_finish(desc->d, s);
  free(desc);
  return tfc_capi_oper(n);
}

/* ---------------- operation queries ---------------- */

TFC_EXPORT const char *TF_OperationName(TF_Operation *oper) { return tfc_capi_node(oper)->name; }

TFC_EXPORT const char *TF_OperationOpType(TF_Operation *oper) {
  return tfc_capi_node(oper)->op->name;
}

TFC_EXPORT const char *TF_OperationDevice(TF_Operation *oper) {
  return tfc_capi_node(oper)->device;
}

TFC_EXPORT int TF_OperationNumOutputs(TF_Operation *oper) {
  return tfc_capi_node(oper)->n_outputs;
}

TFC_EXPORT TF_DataType TF_OperationOutputType(TF_Output oper_out) {
  const tfc_node *n = tfc_capi_node(oper_out.oper);
  if (oper_out.index < 0 || oper_out.index >= n->n_outputs) return (TF_DataType)TFC_DT_INVALID;
  return (TF_DataType)n->output_types[oper_out.index];
}

TFC_EXPORT int TF_OperationOutputListLength(TF_Operation *oper, const char *arg_name,
                                            TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  int start, stop;
  if (tfc_node_output_range(tfc_capi_node(oper), arg_name ? arg_name : "", &start, &stop)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Output arg '%s' not found", arg_name ? arg_name : "");
    return -1;
  }
  return stop - start;
}

TFC_EXPORT int TF_OperationNumInputs(TF_Operation *oper) { return tfc_capi_node(oper)->n_inputs; }

TFC_EXPORT TF_DataType TF_OperationInputType(TF_Input oper_in) {
  const tfc_node *n = tfc_capi_node(oper_in.oper);
  if (oper_in.index < 0 || oper_in.index >= n->n_inputs) return (TF_DataType)TFC_DT_INVALID;
  return (TF_DataType)n->input_types[oper_in.index];
}

TFC_EXPORT int TF_OperationInputListLength(TF_Operation *oper, const char *arg_name,
                                           TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  int start, stop;
  if (tfc_node_input_range(tfc_capi_node(oper), arg_name ? arg_name : "", &start, &stop)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Input arg '%s' not found", arg_name ? arg_name : "");
    return -1;
  }
  return stop - start;
}

TFC_EXPORT TF_Output TF_OperationInput(TF_Input oper_in) {
  const tfc_node *n = tfc_capi_node(oper_in.oper);
  TF_Output r = {NULL, -1};
  if (oper_in.index < 0 || oper_in.index >= n->n_inputs) return r;
  r.oper = tfc_capi_oper(n->inputs[oper_in.index].node);
  r.index = n->inputs[oper_in.index].index;
  return r;
}

TFC_EXPORT void TF_OperationAllInputs(TF_Operation *oper, TF_Output *inputs, int max_inputs) {
  const tfc_node *n = tfc_capi_node(oper);
  for (int i = 0; i < n->n_inputs && i < max_inputs; i++) {
    inputs[i].oper = tfc_capi_oper(n->inputs[i].node);
    inputs[i].index = n->inputs[i].index;
  }
}

/* Consumers are found by scanning the nodes created after the producer (inputs always
 * point to earlier nodes), in creation order, under the graph lock. */
TFC_EXPORT int TF_OperationOutputConsumers(TF_Output oper_out, TF_Input *consumers,
                                           int max_consumers) {
  tfc_node *src = tfc_capi_node(oper_out.oper);
  tfc_graph *g = src->graph;
  int count = 0;
  tfc_graph_lock(g);
  for (int i = src->id + 1; i < g->n_nodes; i++) {
    tfc_node *n = g->nodes[i];
    for (int j = 0; j < n->n_inputs; j++) {
      if (n->inputs[j].node != src || n->inputs[j].index != oper_out.index) continue;
      if (count < max_consumers && consumers) {
        consumers[count].oper = tfc_capi_oper(n);
        consumers[count].index = j;
      }
      count++;
    }
  }
  tfc_graph_unlock(g);
  return count;
}

TFC_EXPORT int TF_OperationOutputNumConsumers(TF_Output oper_out) {
  return TF_OperationOutputConsumers(oper_out, NULL, 0);
}

TFC_EXPORT int TF_OperationNumControlInputs(TF_Operation *oper) {
  return tfc_capi_node(oper)->n_control_inputs;
}

TFC_EXPORT int TF_OperationGetControlInputs(TF_Operation *oper, TF_Operation **control_inputs,
                                            int max_control_inputs) {
  const tfc_node *n = tfc_capi_node(oper);
  for (int i = 0; i < n->n_control_inputs && i < max_control_inputs; i++)
    control_inputs[i] = tfc_capi_oper(n->control_inputs[i]);
  return n->n_control_inputs;
}

TFC_EXPORT int TF_OperationGetControlOutputs(TF_Operation *oper, TF_Operation **control_outputs,
                                             int max_control_outputs) {
  tfc_node *src = tfc_capi_node(oper);
  tfc_graph *g = src->graph;
  int count = 0;
  tfc_graph_lock(g);
  for (int i = src->id + 1; i < g->n_nodes; i++) {
    tfc_node *n = g->nodes[i];
    for (int j = 0; j < n->n_control_inputs; j++) {
      if (n->control_inputs[j] != src) continue;
      if (count < max_control_outputs && control_outputs) control_outputs[count] = tfc_capi_oper(n);
      count++;
      break;
    }
  }
  tfc_graph_unlock(g);
  return count;
}

TFC_EXPORT int TF_OperationNumControlOutputs(TF_Operation *oper) {
  return TF_OperationGetControlOutputs(oper, NULL, 0);
}

/* ---------------- graph lookups ---------------- */

TFC_EXPORT TF_Operation *TF_GraphOperationByName(TF_Graph *graph, const char *oper_name) {
  if (!graph || !oper_name) return NULL;
  tfc_graph_lock(graph->g);
  tfc_node *n = tfc_graph_find(graph->g, oper_name);
  tfc_graph_unlock(graph->g);
  return tfc_capi_oper(n);
}

/* Positions are TF's node ids (graph.h): 0 starts at id 2, past TF's _SOURCE and _SINK; any
 * other position moves on to the next id. The returned op's id is left in *pos; at the end
 * *pos stops at the graph's id count or past it, as in TF. */
TFC_EXPORT TF_Operation *TF_GraphNextOperation(TF_Graph *graph, size_t *pos) {
  tfc_node *n = NULL;
  size_t want = *pos == 0 ? 2 : *pos + 1;
  tfc_graph_lock(graph->g);
  size_t end = (size_t)graph->g->next_tf_id;
  if (want < end) n = tfc_graph_node_at_tf_id(graph->g, (int)want);
  *pos = n ? (size_t)n->tf_id : want > end ? want : end;
  tfc_graph_unlock(graph->g);
  return tfc_capi_oper(n);
}

/* ---------------- shapes on graph edges ---------------- */

/* Checks that output belongs to graph and names an existing output. */
static int check_output(TF_Graph *graph, TF_Output output, tfc_status *s) {
  const tfc_node *n = tfc_capi_node(output.oper);
  if (!n) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "output.oper is NULL");
  if (n->graph != graph->g)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Node %s was not found in the graph", n->name);
  if (output.index < 0 || output.index >= n->n_outputs)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "output_port '%d' is out of range, node '%s' has %d outputs",
                          output.index, n->name, n->n_outputs);
  return TFC_OK;
}

TFC_EXPORT void TF_GraphSetTensorShape(TF_Graph *graph, TF_Output output, const int64_t *dims,
                                       const int num_dims, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_shape shape;
  if (check_output(graph, output, s) || shape_from_dims(dims, num_dims, &shape, s)) return;
  tfc_graph_set_output_shape(graph->g, tfc_capi_endpoint(output), &shape, s);
}

/* The current shape of output, read under the lock (shapes are refined in place). */
static int output_shape(TF_Graph *graph, TF_Output output, tfc_shape *out, tfc_status *s) {
  TFC_TRY(check_output(graph, output, s));
  tfc_graph_lock(graph->g);
  *out = tfc_capi_node(output.oper)->output_shapes[output.index];
  tfc_graph_unlock(graph->g);
  return TFC_OK;
}

TFC_EXPORT int TF_GraphGetTensorNumDims(TF_Graph *graph, TF_Output output, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_shape shape;
  if (output_shape(graph, output, &shape, s)) return -1;
  return shape.rank;
}

TFC_EXPORT void TF_GraphGetTensorShape(TF_Graph *graph, TF_Output output, int64_t *dims,
                                       int num_dims, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_shape shape;
  if (output_shape(graph, output, &shape, s)) return;
  if (num_dims != shape.rank) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Expected rank is %d but actual rank is %d", num_dims,
                   shape.rank);
    return;
  }
  for (int i = 0; i < num_dims; i++) dims[i] = shape.dims[i];
}

/* ---------------- attr getters ---------------- */

/* TensorFlow's AttrValue type names, as its messages print them. */
static const char *kind_text(int kind, char *buf, size_t n) {
  snprintf(buf, n, "%s", tfc_attr_kind_name(kind));
  return buf;
}

static const char *value_type_text(const tfc_attr_value *v, char *buf, size_t n) {
  if (v->kind == TFC_ATTR_LIST) {
    snprintf(buf, n, "list(%s)", tfc_attr_kind_name(v->list_kind));
    return buf;
  }
  return kind_text(v->kind, buf, n);
}

/* The getters see the NodeDef's own attrs (tfc_attrs_find, not tfc_node_attr): an attr TF
 * added after 1.15 that the node does not set is absent, as in TF 1.15. */
/* The attr for the generic getters: INVALID_ARGUMENT "Operation 'x' has no attr named 'y'." */
static const tfc_attr_value *find_attr(TF_Operation *oper, const char *attr_name, tfc_status *s) {
  const tfc_node *n = tfc_capi_node(oper);
  const tfc_attr_value *v = attr_name ? tfc_attrs_find(n->attrs, n->n_attrs, attr_name) : NULL;
  if (!v)
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Operation '%s' has no attr named '%s'.", n->name,
                   attr_name ? attr_name : "");
  return v;
}

/* The attr for the typed getters (TensorFlow's GetNodeAttr): NOT_FOUND when absent,
 * INVALID_ARGUMENT when of another kind. */
const tfc_attr_value *tfc_capi_typed_attr(const tfc_attr *attrs, int n_attrs, const char *node_name,
                                          const char *attr_name, int kind, int is_list, tfc_status *s) {
  const tfc_attr_value *v = attr_name ? tfc_attrs_find(attrs, n_attrs, attr_name) : NULL;
  if (!v) {
    tfc_status_set(s, TFC_NOT_FOUND, "No attr named '%s' in NodeDef:\n\t [[{{node %s}}]]",
                   attr_name ? attr_name : "", node_name);
    return NULL;
  }
  int ok = is_list ? v->kind == TFC_ATTR_LIST &&
                         (v->u.list.n == 0 || v->list_kind == TFC_ATTR_NONE || v->list_kind == kind)
                   : v->kind == kind;
  if (!ok) {
    char have[64], want[64];
    if (is_list) snprintf(want, sizeof want, "list(%s)", tfc_attr_kind_name(kind));
    else kind_text(kind, want, sizeof want);
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "AttrValue had value with type '%s' when '%s' expected",
                   value_type_text(v, have, sizeof have), want);
    return NULL;
  }
  return v;
}

static const tfc_attr_value *typed_attr(TF_Operation *oper, const char *attr_name, int kind,
                                        int is_list, tfc_status *s) {
  const tfc_node *n = tfc_capi_node(oper);
  return tfc_capi_typed_attr(n->attrs, n->n_attrs, n->name, attr_name, kind, is_list, s);
}

/* The list attr for the list getters (TensorFlow: "Value for 'x' is not a list."). */
static const tfc_attr_value *list_attr(TF_Operation *oper, const char *attr_name, int kind,
                                       const char *not_list_suffix, tfc_status *s) {
  const tfc_attr_value *v = find_attr(oper, attr_name, s);
  if (!v) return NULL;
  if (v->kind != TFC_ATTR_LIST) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Value for '%s' is not a list%s", attr_name,
                   not_list_suffix);
    return NULL;
  }
  if (v->u.list.n && v->list_kind != kind) {
    char have[64];
    tfc_status_set(s, TFC_INVALID_ARGUMENT,
                   "AttrValue had value with type '%s' when 'list(%s)' expected",
                   value_type_text(v, have, sizeof have), tfc_attr_kind_name(kind));
    return NULL;
  }
  return v;
}

static int c_attr_type(int kind, TF_AttrType *out) {
  switch (kind) {
    case TFC_ATTR_STRING: *out = TF_ATTR_STRING; return 0;
    case TFC_ATTR_INT: *out = TF_ATTR_INT; return 0;
    case TFC_ATTR_FLOAT: *out = TF_ATTR_FLOAT; return 0;
    case TFC_ATTR_BOOL: *out = TF_ATTR_BOOL; return 0;
    case TFC_ATTR_TYPE: *out = TF_ATTR_TYPE; return 0;
    case TFC_ATTR_SHAPE: *out = TF_ATTR_SHAPE; return 0;
    case TFC_ATTR_TENSOR: *out = TF_ATTR_TENSOR; return 0;
    case TFC_ATTR_PLACEHOLDER: *out = TF_ATTR_PLACEHOLDER; return 0;
    case TFC_ATTR_FUNC: *out = TF_ATTR_FUNC; return 0;
    default: return -1;
  }
}

TFC_EXPORT TF_AttrMetadata TF_OperationGetAttrMetadata(TF_Operation *oper,
                                                       const char *attr_name,
                                                       TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  TF_AttrMetadata m = {0, -1, TF_ATTR_STRING, -1};
  const tfc_attr_value *v = find_attr(oper, attr_name, s);
  if (!v) return m;
  if (v->kind != TFC_ATTR_LIST) {
    if (c_attr_type(v->kind, &m.type)) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "Attribute '%s' has no value set", attr_name);
      return m;
    }
    if (v->kind == TFC_ATTR_STRING) m.total_size = (int64_t)v->u.s.len;
    if (v->kind == TFC_ATTR_SHAPE) m.total_size = v->u.shape->rank < 0 ? -1 : v->u.shape->rank;
    return m;
  }
  m.is_list = 1;
  m.list_size = v->u.list.n;
  int kind = v->list_kind;
  if (kind == TFC_ATTR_NONE) {
    /* An empty list that no op def typed (a private attr): TensorFlow reads the kind from
     * the op def, and fails when there is none. */
    const tfc_attr_def *ad = tfc_opdef_attr(tfc_capi_node(oper)->op, attr_name);
    if (ad && ad->is_list) kind = ad->kind;
  }
  if (c_attr_type(kind, &m.type)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT,
                   "Attribute '%s' has an empty value of an unrecognized type '%s'", attr_name,
                   "list(none)");
    return m;
  }
  if (kind == TFC_ATTR_STRING) {
    m.total_size = 0;
    for (int i = 0; i < v->u.list.n; i++) m.total_size += (int64_t)v->u.list.items[i].u.s.len;
  } else if (kind == TFC_ATTR_SHAPE) {
    m.total_size = 0;
    for (int i = 0; i < v->u.list.n; i++) {
      int r = v->u.list.items[i].u.shape->rank;
      m.total_size += r < 0 ? 0 : r;
    }
  }
  return m;
}

TFC_EXPORT void TF_OperationGetAttrString(TF_Operation *oper, const char *attr_name, void *value,
                                          size_t max_length, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  const tfc_attr_value *v = find_attr(oper, attr_name, s);
  if (!v) return;
  if (v->kind != TFC_ATTR_STRING) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Attribute '%s' is not a string", attr_name);
    return;
  }
  size_t n = v->u.s.len < max_length ? v->u.s.len : max_length;
  if (n) memcpy(value, v->u.s.data, n);
}

TFC_EXPORT void TF_OperationGetAttrStringList(TF_Operation *oper, const char *attr_name,
                                              void **values, size_t *lengths, int max_values,
                                              void *storage, size_t storage_size,
                                              TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  const tfc_attr_value *v = list_attr(oper, attr_name, TFC_ATTR_STRING, "", s);
  if (!v) return;
  char *p = storage;
  size_t left = storage_size;
  for (int i = 0; i < v->u.list.n && i < max_values; i++) {
    const tfc_attr_value *it = &v->u.list.items[i];
    values[i] = p;
    lengths[i] = it->u.s.len;
    if (it->u.s.len > left) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT,
                     "Not enough storage to hold the requested list of strings");
      return;
    }
    if (it->u.s.len) memcpy(p, it->u.s.data, it->u.s.len);
    p += it->u.s.len;
    left -= it->u.s.len;
  }
}

TFC_EXPORT void TF_OperationGetAttrInt(TF_Operation *oper, const char *attr_name, int64_t *value,
                                       TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  const tfc_attr_value *v = typed_attr(oper, attr_name, TFC_ATTR_INT, 0, s);
  if (v) *value = v->u.i;
}

TFC_EXPORT void TF_OperationGetAttrIntList(TF_Operation *oper, const char *attr_name,
                                           int64_t *values, int max_values, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  const tfc_attr_value *v = list_attr(oper, attr_name, TFC_ATTR_INT, ".", s);
  if (!v) return;
  for (int i = 0; i < v->u.list.n && i < max_values; i++) values[i] = v->u.list.items[i].u.i;
}

TFC_EXPORT void TF_OperationGetAttrFloat(TF_Operation *oper, const char *attr_name, float *value,
                                         TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  const tfc_attr_value *v = typed_attr(oper, attr_name, TFC_ATTR_FLOAT, 0, s);
  if (v) *value = v->u.f;
}

TFC_EXPORT void TF_OperationGetAttrFloatList(TF_Operation *oper, const char *attr_name,
                                             float *values, int max_values, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  const tfc_attr_value *v = list_attr(oper, attr_name, TFC_ATTR_FLOAT, ".", s);
  if (!v) return;
  for (int i = 0; i < v->u.list.n && i < max_values; i++) values[i] = v->u.list.items[i].u.f;
}

TFC_EXPORT void TF_OperationGetAttrBool(TF_Operation *oper, const char *attr_name,
                                        unsigned char *value, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  const tfc_attr_value *v = typed_attr(oper, attr_name, TFC_ATTR_BOOL, 0, s);
  if (v) *value = v->u.b ? 1 : 0;
}

TFC_EXPORT void TF_OperationGetAttrBoolList(TF_Operation *oper, const char *attr_name,
                                            unsigned char *values, int max_values,
                                            TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  const tfc_attr_value *v = list_attr(oper, attr_name, TFC_ATTR_BOOL, ".", s);
  if (!v) return;
  for (int i = 0; i < v->u.list.n && i < max_values; i++) values[i] = v->u.list.items[i].u.b ? 1 : 0;
}

TFC_EXPORT void TF_OperationGetAttrType(TF_Operation *oper, const char *attr_name,
                                        TF_DataType *value, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  const tfc_attr_value *v = typed_attr(oper, attr_name, TFC_ATTR_TYPE, 0, s);
  if (v) *value = (TF_DataType)v->u.type;
}

TFC_EXPORT void TF_OperationGetAttrTypeList(TF_Operation *oper, const char *attr_name,
                                            TF_DataType *values, int max_values,
                                            TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  const tfc_attr_value *v = list_attr(oper, attr_name, TFC_ATTR_TYPE, ".", s);
  if (!v) return;
  for (int i = 0; i < v->u.list.n && i < max_values; i++)
    values[i] = (TF_DataType)v->u.list.items[i].u.type;
}

TFC_EXPORT void TF_OperationGetAttrShape(TF_Operation *oper, const char *attr_name,
                                         int64_t *value, int num_dims, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  const tfc_attr_value *v = typed_attr(oper, attr_name, TFC_ATTR_SHAPE, 0, s);
  if (!v) return;
  const tfc_shape *sh = v->u.shape;
  for (int i = 0; i < sh->rank && i < num_dims; i++) value[i] = sh->dims[i];
}

TFC_EXPORT void TF_OperationGetAttrShapeList(TF_Operation *oper, const char *attr_name,
                                             int64_t **dims, int *num_dims, int num_shapes,
                                             int64_t *storage, int storage_size,
                                             TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  const tfc_attr_value *v = typed_attr(oper, attr_name, TFC_ATTR_SHAPE, 1, s);
  if (!v) return;
  int64_t *p = storage;
  int left = storage_size;
  for (int i = 0; i < v->u.list.n && i < num_shapes; i++) {
    const tfc_shape *sh = v->u.list.items[i].u.shape;
    num_dims[i] = sh->rank;
    dims[i] = p;
    if (sh->rank < 0) continue;
    if (left < sh->rank) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT,
                     "Not enough storage to hold the requested list of shapes");
      return;
    }
    for (int j = 0; j < sh->rank; j++) *p++ = sh->dims[j];
    left -= sh->rank;
  }
}

/* A new C API tensor holding a private copy of an attr tensor (the caller may write it). */
static TF_Tensor *attr_tensor_out(const tfc_tensor *t, tfc_status *s) {
  tfc_tensor *copy = tfc_tensor_copy(t, s);
  if (!copy) return NULL;
  TF_Tensor *r = tfc_capi_tensor_out(copy, s);
  tfc_tensor_unref(copy);
  return r;
}

TFC_EXPORT void TF_OperationGetAttrTensor(TF_Operation *oper, const char *attr_name,
                                          TF_Tensor **value, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  *value = NULL;
  const tfc_attr_value *v = typed_attr(oper, attr_name, TFC_ATTR_TENSOR, 0, s);
  if (v) *value = attr_tensor_out(v->u.tensor, s);
}

TFC_EXPORT void TF_OperationGetAttrTensorList(TF_Operation *oper, const char *attr_name,
                                              TF_Tensor **values, int max_values,
                                              TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  const tfc_attr_value *v = typed_attr(oper, attr_name, TFC_ATTR_TENSOR, 1, s);
  if (!v) return;
  int n = v->u.list.n < max_values ? v->u.list.n : max_values;
  for (int i = 0; i < n; i++) values[i] = NULL;
  for (int i = 0; i < n; i++) {
    values[i] = attr_tensor_out(v->u.list.items[i].u.tensor, s);
    if (!values[i]) {
      /* Do not leave the caller half the list to free. */
      for (int j = 0; j < i; j++) {
        TF_DeleteTensor(values[j]);
        values[j] = NULL;
      }
      return;
    }
  }
}
