/* batch_split — see batch_split.h. */
#include "session/batch_split.h"

#include <stdlib.h>
#include <string.h>

#include "tensor/dtype.h"
#include "tensor/tensor.h"

/* What a tensor is along the batch: it varies by example with axis 0 the example (BATCH), or
 * it is the same for every example (FREE). A node that cannot be classified stops the split. */
enum { FAIL = 0, FREE = 1, BATCH = 2 };

/* Element-wise ops (any number of operands, broadcasting as TF does). */
static const char *const ELEMENTWISE[] = {
    "Abs", "Acos", "Acosh", "Add", "AddN", "AddV2", "Asin", "Asinh", "Atan", "Atan2", "Atanh", "BiasAdd", "Cast",
    "Ceil", "CheckNumerics", "ClipByValue", "Cos", "Cosh", "Div", "DivNoNan", "Elu", "Equal", "Erf", "Erfc", "Exp",
    "Expm1", "Floor", "FloorDiv", "FloorMod", "Greater", "GreaterEqual", "Identity", "Inv", "IsFinite", "IsInf",
    "IsNan", "LeakyRelu", "Less", "LessEqual", "Log", "Log1p", "LogicalAnd", "LogicalNot", "LogicalOr", "Maximum",
    "Minimum", "Mul", "Neg", "NotEqual", "Pow", "PreventGradient", "RealDiv", "Reciprocal", "Relu", "Relu6", "Rint",
    "Round", "Rsqrt", "Select", "SelectV2", "Selu", "Sigmoid", "Sign", "Sin", "Sinh", "Snapshot", "Softplus",
    "Softsign", "Sqrt", "Square", "SquaredDifference", "StopGradient", "Sub", "Tan", "Tanh"};

/* Ops over images (or volumes) one example at a time: input 0 the batch, the others (filters,
 * biases, statistics, sizes) the same for every example; _FusedConv2D's residual addend (its
 * fourth input) varies by example too. */
static const char *const PER_IMAGE[] = {"AvgPool", "AvgPool3D", "Conv2D", "Conv3D", "DepthToSpace",
                                        "DepthwiseConv2dNative", "FusedBatchNorm", "FusedBatchNormV2",
                                        "FusedBatchNormV3", "LRN", "MaxPool", "MaxPool3D", "MaxPoolV2",
                                        "ResizeArea", "ResizeBicubic", "ResizeBilinear", "ResizeNearestNeighbor",
                                        "SpaceToDepth", "_FusedConv2D", "_FusedDepthwiseConv2dNative"};

static const char *const REDUCTIONS[] = {"All", "Any", "ArgMax", "ArgMin", "EuclideanNorm", "Max", "Mean", "Min",
                                         "Prod", "Sum"};

static int in_list(const char *op, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(op, list[i]) == 0) return 1;
  return 0;
}
#define IN(op, list) in_list(op, list, sizeof(list) / sizeof(list[0]))

typedef struct analysis {
  const tfc_graph *g;
  unsigned char **cls; /* per node id, per output */
} analysis;

static int cls_of(const analysis *a, tfc_endpoint e) { return a->cls[e.node->id][e.index]; }
static const tfc_shape *shape_of(tfc_endpoint e) { return &e.node->output_shapes[e.index]; }

/* The value of a Const input, or NULL. */
static const tfc_tensor *const_value(tfc_endpoint e) {
  if (strcmp(e.node->op->name, "Const") != 0) return NULL;
  const tfc_attr_value *v = tfc_node_attr(e.node, "value");
  return v && v->kind == TFC_ATTR_TENSOR ? v->u.tensor : NULL;
}

/* 1 when the integer Const at e (a scalar or vector of axes of a rank-r tensor) names axis 0. */
static int names_axis0(tfc_endpoint e, int r, int *known) {
  const tfc_tensor *t = const_value(e);
  *known = t && (t->dtype == TFC_DT_INT32 || t->dtype == TFC_DT_INT64) && r > 0;
  if (!*known) return 0;
  for (int64_t i = 0; i < t->n_elems; i++) {
    int64_t ax = tfc_tensor_get_i64(t, i);
    if (ax == 0 || ax == -r) return 1;
  }
  return 0;
}

static int rank_of(tfc_endpoint e) { return shape_of(e)->rank; }

/* Element-wise: the BATCH operands share one known rank r >= 1, and each FREE one broadcasts
 * without reaching axis 0 (a lower rank, or a leading 1). */
static int elementwise(const analysis *a, const tfc_node *n) {
  int r = -1;
  for (int i = 0; i < n->n_inputs; i++)
    if (cls_of(a, n->inputs[i]) == BATCH) {
      int ri = rank_of(n->inputs[i]);
      if (ri < 1 || (r >= 0 && ri != r)) return FAIL;
      r = ri;
    }
  for (int i = 0; i < n->n_inputs; i++)
    if (cls_of(a, n->inputs[i]) == FREE) {
      const tfc_shape *s = shape_of(n->inputs[i]);
      if (s->rank < 0 || s->rank > r || (s->rank == r && s->dims[0] != 1)) return FAIL;
    }
  return BATCH;
}

/* The class of node n's outputs given its inputs' (at least one BATCH); FAIL when n does not
 * map examples to examples or that cannot be told from the graph. */
static int classify_batch(const analysis *a, const tfc_node *n) {
  const char *op = n->op->name;
  int c0 = n->n_inputs > 0 ? cls_of(a, n->inputs[0]) : FAIL, r0 = n->n_inputs > 0 ? rank_of(n->inputs[0]) : -1;
  int known = 0;
  if (IN(op, ELEMENTWISE)) return elementwise(a, n);
  if (IN(op, PER_IMAGE)) {
    if (c0 != BATCH) return FAIL;
    for (int i = 1; i < n->n_inputs; i++) {
      int want = strcmp(op, "_FusedConv2D") == 0 && i == 3 ? BATCH : FREE;
      if (cls_of(a, n->inputs[i]) != want) return FAIL;
    }
    int training = 0;
    if (strncmp(op, "FusedBatchNorm", 14) == 0 && (tfc_node_attr_bool(n, "is_training", &training) || training))
      return FAIL;
    return BATCH;
  }
  if (strcmp(op, "MatMul") == 0 || strcmp(op, "_FusedMatMul") == 0) {
    int ta = 0;
    if (c0 != BATCH || tfc_node_attr_bool(n, "transpose_a", &ta) || ta) return FAIL;
    for (int i = 1; i < n->n_inputs; i++)
      if (cls_of(a, n->inputs[i]) != FREE) return FAIL;
    return BATCH;
  }
  /* Every other rule has one batch operand, input 0, and FREE (mostly Const) parameters. */
  if (c0 != BATCH || r0 < 1) return FAIL;
  for (int i = 1; i < n->n_inputs; i++)
    if (cls_of(a, n->inputs[i]) != FREE && !(strncmp(op, "Concat", 6) == 0)) return FAIL;
  if (strcmp(op, "Softmax") == 0 || strcmp(op, "LogSoftmax") == 0) return r0 >= 2 ? BATCH : FAIL;
  if (IN(op, REDUCTIONS)) {
    if (n->n_inputs != 2 || names_axis0(n->inputs[1], r0, &known) || !known) return FAIL;
    return BATCH;
  }
  if (strcmp(op, "Pad") == 0 || strcmp(op, "PadV2") == 0 || strcmp(op, "MirrorPad") == 0) {
    const tfc_tensor *p = const_value(n->inputs[1]);
    if (!p || p->n_elems < 2 || tfc_tensor_get_i64(p, 0) != 0 || tfc_tensor_get_i64(p, 1) != 0) return FAIL;
    return BATCH;
  }
  if (strcmp(op, "Transpose") == 0) {
    const tfc_tensor *p = const_value(n->inputs[1]);
    return p && p->n_elems == r0 && tfc_tensor_get_i64(p, 0) == 0 ? BATCH : FAIL;
  }
  if (strcmp(op, "ExpandDims") == 0) {
    const tfc_tensor *p = const_value(n->inputs[1]);
    if (!p || p->n_elems != 1) return FAIL;
    int64_t ax = tfc_tensor_get_i64(p, 0);
    return ax != 0 && ax != -(int64_t)r0 - 1 ? BATCH : FAIL;
  }
  if (strcmp(op, "Squeeze") == 0) {
    const tfc_attr_value *d = tfc_node_attr(n, "squeeze_dims");
    if (!d || d->kind != TFC_ATTR_LIST || d->u.list.n == 0) return FAIL; /* could squeeze a batch of 1 */
    for (int i = 0; i < d->u.list.n; i++)
      if (d->u.list.items[i].u.i == 0 || d->u.list.items[i].u.i == -r0) return FAIL;
    return BATCH;
  }
  if (strcmp(op, "Reshape") == 0) {
    /* [-1, d1, ...]: one example's elements in the same order, when they number the same */
    const tfc_tensor *p = const_value(n->inputs[1]);
    const tfc_shape *s = shape_of(n->inputs[0]);
    if (!p || p->n_elems < 1 || tfc_tensor_get_i64(p, 0) != -1) return FAIL;
    int64_t want = 1, have = 1;
    for (int64_t i = 1; i < p->n_elems; i++) {
      int64_t d = tfc_tensor_get_i64(p, i);
      if (d < 0) return FAIL;
      want *= d;
    }
    for (int i = 1; i < s->rank; i++) {
      if (s->dims[i] < 0) return FAIL;
      have *= s->dims[i];
    }
    return want == have ? BATCH : FAIL;
  }
  if (strcmp(op, "ConcatV2") == 0) {
    tfc_endpoint axis = n->inputs[n->n_inputs - 1];
    if (cls_of(a, axis) != FREE) return FAIL;
    for (int i = 0; i < n->n_inputs - 1; i++)
      if (cls_of(a, n->inputs[i]) != BATCH || rank_of(n->inputs[i]) != r0) return FAIL;
    return names_axis0(axis, r0, &known) || !known ? FAIL : BATCH;
  }
  return FAIL;
}

/* The class of n's outputs (FAIL when n stops the split); output_class refines it per output. */
static int classify(const analysis *a, const tfc_node *n) {
  const char *op = n->op->name;
  if (strcmp(op, "_Arg") == 0) return BATCH;
  if (strcmp(op, "_Retval") == 0) return n->n_inputs == 1 && cls_of(a, n->inputs[0]) == BATCH ? BATCH : FAIL;
  int any_batch = 0;
  for (int i = 0; i < n->n_inputs; i++) {
    int c = cls_of(a, n->inputs[i]);
    if (c == FAIL) return FAIL;
    any_batch |= c == BATCH;
  }
  if (!any_batch) {
    /* The same value for every example, computed again for each: only if it cannot change. */
    int var_read = strcmp(op, "VarHandleOp") == 0 || strcmp(op, "ReadVariableOp") == 0 ||
                   strcmp(op, "VariableV2") == 0 || strcmp(op, "Variable") == 0;
    return (n->op->flags & TFC_OPF_STATEFUL) && !var_read ? FAIL : FREE;
  }
  if (n->op->flags & TFC_OPF_STATEFUL) return FAIL;
  return classify_batch(a, n);
}

/* Output k of a node of class c: inference batch normalization passes its statistics through. */
static int output_class(const tfc_node *n, int c, int k) {
  return c == BATCH && k > 0 && strncmp(n->op->name, "FusedBatchNorm", 14) == 0 ? FREE : c;
}

/* Bytes of one example of a BATCH tensor, or of a whole FREE one; -1 when not known. */
static int64_t bytes_of(tfc_endpoint e, int per_example) {
  const tfc_shape *s = shape_of(e);
  int64_t n = (int64_t)tfc_dtype_size(e.node->output_types[e.index]);
  if (s->rank < 0 || n <= 0) return -1;
  for (int i = per_example ? 1 : 0; i < s->rank; i++) {
    if (s->dims[i] < 0) return -1;
    n *= s->dims[i];
  }
  return n;
}

/* Node ids in an order where each node follows its inputs (data and control); 0 on a cycle
 * (a loop) or out of memory. */
static int topo_order(const tfc_graph *g, int *order) {
  int n = g->n_nodes, head = 0, tail = 0, ok = 0;
  int *pending = calloc((size_t)n + 1, sizeof *pending), *n_out = calloc((size_t)n + 1, sizeof *n_out);
  int **outs = calloc((size_t)n + 1, sizeof *outs);
  if (!pending || !n_out || !outs) goto out;
  for (int i = 0; i < n; i++) {
    const tfc_node *x = g->nodes[i];
    if (!x) continue;
    pending[i] = x->n_inputs + x->n_control_inputs;
    for (int j = 0; j < x->n_inputs; j++) n_out[x->inputs[j].node->id]++;
    for (int j = 0; j < x->n_control_inputs; j++) n_out[x->control_inputs[j]->id]++;
  }
  for (int i = 0; i < n; i++)
    if (n_out[i] && !(outs[i] = malloc(sizeof(int) * (size_t)n_out[i]))) goto out;
  memset(n_out, 0, sizeof(int) * (size_t)n);
  for (int i = 0; i < n; i++) {
    const tfc_node *x = g->nodes[i];
    if (!x) continue;
    for (int j = 0; j < x->n_inputs; j++) outs[x->inputs[j].node->id][n_out[x->inputs[j].node->id]++] = i;
    for (int j = 0; j < x->n_control_inputs; j++) outs[x->control_inputs[j]->id][n_out[x->control_inputs[j]->id]++] = i;
    if (pending[i] == 0) order[tail++] = i;
  }
  while (head < tail) {
    int i = order[head++];
    for (int j = 0; j < n_out[i]; j++)
      if (--pending[outs[i][j]] == 0) order[tail++] = outs[i][j];
  }
  int live = 0;
  for (int i = 0; i < n; i++) live += g->nodes[i] != NULL;
  ok = tail == live ? tail : 0;
out:
  if (outs)
    for (int i = 0; i < n; i++) free(outs[i]);
  free(outs);
  free(pending);
  free(n_out);
  return ok;
}

/* An example's activations below which the batched run stays: they fit the caches anyway, and a
 * step per example would cost more than it saves (MobileNetV2 at 224x224: 27 MB). */
#define MIN_ACTIVATION_BYTES ((int64_t)8 << 20)

static int split_mode(void) {
  const char *v = getenv("TFC_BATCH_SPLIT");
  return !v ? -1 : strcmp(v, "0") == 0 ? 0 : strcmp(v, "1") == 0 ? 1 : -1;
}

int tfc_batch_split_plan(const tfc_graph *g) {
  int mode = split_mode();
  if (mode == 0 || g->n_nodes == 0) return 0;
  int n = g->n_nodes, result = 0, n_order, n_args = 0, n_rets = 0;
  int *order = malloc(sizeof(int) * (size_t)n);
  analysis a = {g, calloc((size_t)n, sizeof *a.cls)};
  if (!order || !a.cls || !(n_order = topo_order(g, order))) goto out;
  int64_t weights = 0, activations = 0;
  int sizes_known = 1;
  for (int t = 0; t < n_order; t++) {
    const tfc_node *x = g->nodes[order[t]];
    if (!(a.cls[x->id] = calloc((size_t)x->n_outputs + 1, 1))) goto out;
    n_args += strcmp(x->op->name, "_Arg") == 0;
    n_rets += strcmp(x->op->name, "_Retval") == 0;
    int node_class = classify(&a, x);
    if (node_class == FAIL) goto out;
    for (int k = 0; k < x->n_outputs; k++) {
      int c = output_class(x, node_class, k);
      a.cls[x->id][k] = (unsigned char)c;
      if (c == BATCH && strcmp(x->op->name, "_Arg") != 0) {
        int64_t b = bytes_of((tfc_endpoint){(tfc_node *)x, k}, 1);
        if (b < 0) sizes_known = 0;
        else activations += b;
      }
    }
    /* the weights an example reads: the FREE inputs of nodes that compute on the batch */
    if (node_class == BATCH)
      for (int i = 0; i < x->n_inputs; i++)
        if (a.cls[x->inputs[i].node->id][x->inputs[i].index] == FREE) {
          int64_t b = bytes_of(x->inputs[i], 0);
          if (b < 0) sizes_known = 0;
          else weights += b;
        }
  }
  if (n_args == 0 || n_rets == 0) goto out;
  result = mode == 1 || (sizes_known && weights < activations && activations >= MIN_ACTIVATION_BYTES);
out:
  if (a.cls)
    for (int i = 0; i < n; i++) free(a.cls[i]);
  free(a.cls);
  free(order);
  return result;
}
