/*
 * kernels_half — half and bfloat16 rows for the float kernels of the ops TF runs on those
 * types on CPU (element-wise arithmetic and math, comparisons, activations and their
 * gradients, softmax and its cross entropy, BiasAdd and its gradient, AddN, the reductions,
 * Cumsum, the matrix products, Conv2D and DepthwiseConv2dNative, max and average pooling, and
 * the convolution and pooling gradients, and the batch norms with T half or bfloat16 and U float).
 *
 * There is one implementation of each op: its float kernel. A half/bfloat16 row runs that
 * kernel on float copies of its half/bfloat16 inputs and rounds its float outputs back to
 * nearest even, element by element, as Eigen's half and bfloat16 operators do (they compute
 * in float and round each result). Conversions are tfc_half_to_float / tfc_bfloat16_to_float
 * and tfc_float_to_half / _bfloat16 (base/half.h).
 *
 * tfc_cpu_kernels_half runs after every other family has registered: for each op of the list
 * below it copies the op's first float row (init, flags, host-memory masks) into a row for
 * the half types TF registers, whose compute is widen_compute. A second type attr (the batch
 * norms' U) keeps its float row's types. Only outputs the op declares of the row's type attr
 * are rounded back (not a batch norm's float statistics); other outputs (a comparison's bool)
 * pass through unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "base/half.h"
#include "device/cpu/cpu_kernels.h"

/* The float row each widened op runs, by op id (filled once, at registration). */
static tfc_kernel_def float_rows[TFC_OP_COUNT];

static int is_narrow(int dt) { return dt == TFC_DT_HALF || dt == TFC_DT_BFLOAT16; }

/* A float tensor with x's values (half or bfloat16); NULL with status set on failure. */
static tfc_tensor *widen(const tfc_tensor *x, tfc_status *s) {
  tfc_tensor *w = tfc_tensor_new(TFC_DT_FLOAT, x->dims, x->ndims, s);
  if (!w) return NULL;
  const uint16_t *in = x->data;
  float *out = w->data;
  if (x->dtype == TFC_DT_HALF)
    for (int64_t i = 0; i < x->n_elems; i++) out[i] = tfc_half_to_float(in[i]);
  else
    for (int64_t i = 0; i < x->n_elems; i++) out[i] = tfc_bfloat16_to_float(in[i]);
  return w;
}

/* Whether output i of c's op has the type of its type attr `attr` (outputs declared one per
 * arg map one to one; an op with list outputs counts every output as that type). */
static int output_is_typed(const tfc_opdef *op, const char *attr, int i) {
  for (int a = 0; a < op->n_outputs; a++)
    if (op->outputs[a].number_attr || op->outputs[a].type_list_attr) return 1;
  const char *t = i < op->n_outputs ? op->outputs[i].type_attr : NULL;
  return t && attr && strcmp(t, attr) == 0;
}

static int widen_compute(tfc_kernel_ctx *c) {
  const tfc_kernel_def *k = &float_rows[c->node->op->id];
  int narrow = 0;
  tfc_tensor **ins = calloc((size_t)(c->n_inputs + c->n_outputs) + 1, sizeof *ins);
  if (!ins) return TFC_OOM(c->status);
  tfc_tensor **outs = ins + c->n_inputs;
  int rc = TFC_OK;
  for (int i = 0; i < c->n_inputs && rc == TFC_OK; i++) {
    tfc_tensor *x = c->inputs[i];
    if (x && is_narrow(x->dtype)) {
      narrow = x->dtype;
      if (!(ins[i] = widen(x, c->status))) rc = c->status->code;
    } else {
      ins[i] = x ? tfc_tensor_ref(x) : NULL;
    }
  }
  if (rc == TFC_OK) {
    tfc_kernel_ctx sub = *c;
    sub.inputs = ins;
    sub.outputs = outs;
    rc = k->compute(&sub);
  }
  for (int i = 0; i < c->n_outputs; i++) {
    tfc_tensor *o = outs[i];
    if (rc == TFC_OK && o && o->dtype == TFC_DT_FLOAT && narrow && output_is_typed(c->node->op, k->type_attr, i)) {
      tfc_tensor *z = tfc_kernel_alloc_output(c, i, narrow, o->dims, o->ndims);
      if (!z) {
        rc = c->status->code;
      } else {
        const float *f = o->data;
        uint16_t *h = z->data;
        if (narrow == TFC_DT_HALF)
          for (int64_t e = 0; e < o->n_elems; e++) h[e] = tfc_float_to_half(f[e]);
        else
          for (int64_t e = 0; e < o->n_elems; e++) h[e] = tfc_float_to_bfloat16(f[e]);
      }
      tfc_tensor_unref(o);
    } else if (rc == TFC_OK) {
      tfc_kernel_set_output(c, i, o);
    } else {
      tfc_tensor_unref(o);
    }
  }
  for (int i = 0; i < c->n_inputs; i++) tfc_tensor_unref(ins[i]);
  free(ins);
  return rc;
}

#define H TFC_T(TFC_DT_HALF)
#define B TFC_T(TFC_DT_BFLOAT16)
/* The ops and the half types TF 2.x registers CPU kernels of them for. */
static const struct {
  int op;
  uint32_t types;
} widened[] = {
    {TFC_OP_Add, H | B},        {TFC_OP_AddV2, H | B},     {TFC_OP_Sub, H | B},
    {TFC_OP_Mul, H | B},        {TFC_OP_Div, H | B},       {TFC_OP_RealDiv, H | B},
    {TFC_OP_Maximum, H | B},    {TFC_OP_Minimum, H | B},   {TFC_OP_Pow, H | B},
    {TFC_OP_SquaredDifference, H | B},
    {TFC_OP_Less, H | B},       {TFC_OP_LessEqual, H | B}, {TFC_OP_Greater, H | B},
    {TFC_OP_GreaterEqual, H | B}, {TFC_OP_Equal, H | B},   {TFC_OP_NotEqual, H | B},
    {TFC_OP_Neg, H | B},        {TFC_OP_Abs, H | B},       {TFC_OP_Square, H | B},
    {TFC_OP_Reciprocal, H | B}, {TFC_OP_Exp, H | B},       {TFC_OP_Log, H | B},
    {TFC_OP_Sqrt, H | B},       {TFC_OP_Rsqrt, H | B},     {TFC_OP_Sin, H | B},
    {TFC_OP_Cos, H | B},        {TFC_OP_Tanh, H | B},      {TFC_OP_Sigmoid, H | B},
    {TFC_OP_Floor, H | B},      {TFC_OP_Ceil, H | B},      {TFC_OP_Sign, H | B},
    {TFC_OP_Relu, H | B},       {TFC_OP_Relu6, H | B},     {TFC_OP_Elu, H | B},
    {TFC_OP_Softplus, H | B},   {TFC_OP_Softmax, H | B},   {TFC_OP_LogSoftmax, H | B},
    {TFC_OP_BiasAdd, H | B},    {TFC_OP_AddN, H | B},      {TFC_OP_Sum, H | B},
    {TFC_OP_Mean, H | B},       {TFC_OP_Max, H | B},       {TFC_OP_Min, H | B},
    {TFC_OP_Prod, H | B},       {TFC_OP_MatMul, H | B},    {TFC_OP_BatchMatMulV2, H | B},
    /* the nn kernels and the rest of the math TF 2.x runs on half and bfloat16 on CPU */
    {TFC_OP_Conv2D, H | B},     {TFC_OP_Conv2DBackpropInput, H | B}, {TFC_OP_Conv2DBackpropFilter, H | B},
    {TFC_OP_DepthwiseConv2dNative, H | B}, {TFC_OP_MaxPool, H | B}, {TFC_OP_AvgPool, H | B},
    {TFC_OP_MaxPoolGrad, H | B}, {TFC_OP_AvgPoolGrad, H | B}, {TFC_OP_ReluGrad, H | B},
    {TFC_OP_Relu6Grad, H | B},  {TFC_OP_EluGrad, H | B},   {TFC_OP_SoftplusGrad, H | B},
    {TFC_OP_TanhGrad, H | B},   {TFC_OP_SigmoidGrad, H | B}, {TFC_OP_SqrtGrad, H | B},
    {TFC_OP_RsqrtGrad, H | B},  {TFC_OP_FloorDiv, H | B},  {TFC_OP_FloorMod, H | B},
    {TFC_OP_Atan2, H | B},      {TFC_OP_LeakyRelu, H | B}, {TFC_OP_Selu, H | B},
    {TFC_OP_Softsign, H | B},   {TFC_OP_Erf, H | B},       {TFC_OP_Tan, H | B},
    {TFC_OP_Round, H | B},      {TFC_OP_Log1p, H | B},     {TFC_OP_Expm1, H | B},
    {TFC_OP_BiasAddGrad, H | B}, {TFC_OP_L2Loss, H | B},   {TFC_OP_Cumsum, H | B},
    {TFC_OP_SoftmaxCrossEntropyWithLogits, H | B},
    {TFC_OP_FusedBatchNormV2, H | B}, {TFC_OP_FusedBatchNormV3, H | B}, {TFC_OP_FusedBatchNormGradV2, H | B},
    {TFC_OP_FusedBatchNormGradV3, H | B},
};

int tfc_cpu_kernels_half(tfc_kernel_table *t, tfc_status *s) {
  size_t n = sizeof widened / sizeof widened[0];
  tfc_kernel_def rows[sizeof widened / sizeof widened[0]];
  int m = 0;
  for (size_t w = 0; w < n; w++) {
    int op = widened[w].op;
    const tfc_kernel_def *f = NULL;
    for (int i = 0; i < t->n_defs && !f; i++) {
      const tfc_kernel_def *d = &t->defs[i];
      if (d->op == op && d->type_attr && (!d->type_attr2 || (d->types2 & TFC_T(TFC_DT_FLOAT))) &&
          (d->types & TFC_T(TFC_DT_FLOAT)) && !(d->flags & TFC_KF_ASYNC))
        f = d;
    }
    if (!f) continue; /* no float kernel to run */
    float_rows[op] = *f;
    rows[m] = *f;
    rows[m].types = widened[w].types;
    rows[m].compute = widen_compute;
    rows[m].compute_scalar = NULL;
    m++;
  }
  return tfc_kernel_table_add(t, rows, m, s);
}
