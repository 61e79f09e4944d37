/*
 * kernels_nn_gpu — the GPU kernels of the reductions (Sum, Mean, Prod, Max, Min over axes,
 * keep_dims; All and Any through a float product and sum of the bools), BiasAdd / BiasAddV1 /
 * BiasAddGrad (NHWC and NCHW) and Softmax / LogSoftmax.
 *
 * The host side mirrors the CPU kernels (kernels_reduce.c, kernels_nn.c): the same checks and
 * messages, the same output shapes. Reductions turn the axes into a plan of kept and reduced
 * dims (size-1 dims dropped, neighbours of the same kind merged, each with its input stride)
 * for tfc_cuda_reduce, with the device scratch it asks for (tfc_cuda_reduce_scratch_bytes)
 * as a temporary. BiasAdd is the broadcasting Add with a plan built here (the bias advances
 * along the channel dim only); BiasAddGrad is a Sum whose kept dim is the channel. The
 * reduction axes stay in host memory (as TF's HostMemory("reduction_indices")).
 */
#include <stdlib.h>
#include <string.h>

#include "device/cuda/cuda_kernels.h"
#include "device/device.h"
#include "tensor/allocator.h"

/* ---- reductions ---- */

static int too_many_dims(tfc_kernel_ctx *c) {
  return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s on GPU: the reduction needs more than %d collapsed dimensions",
                          c->node->op->name, TFC_CUDA_MAX_DIMS);
}

/* Appends dim (size, stride) to the kept or the reduced list. */
static int plan_push(tfc_kernel_ctx *c, tfc_cuda_reduce_plan *p, int reduced, int64_t size, int64_t stride) {
  int *n = reduced ? &p->n_red : &p->n_kept;
  if (*n >= TFC_CUDA_MAX_DIMS) return too_many_dims(c);
  (reduced ? p->rdims : p->kdims)[*n] = size;
  (reduced ? p->rstrides : p->kstrides)[*n] = stride;
  (*n)++;
  return TFC_OK;
}

/* Runs plan over x into out on c's compute stream, with the launcher's scratch (if it wants
 * any) as a device temporary: releasing it right after the enqueue is safe, since the device
 * allocator hands memory out again only to work ordered after this on the same stream. */
static int run_reduce(tfc_kernel_ctx *c, int op, int ct, const tfc_tensor *x, tfc_tensor *out,
                      const tfc_cuda_reduce_plan *p) {
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  int64_t bytes = tfc_cuda_reduce_scratch_bytes(ct, p);
  tfc_tensor *scratch = NULL;
  if (bytes > 0 && !(scratch = tfc_cuda_ctx_temp(c, bytes))) return c->status->code;
  int err = tfc_cuda_reduce(op, ct, x->data, out->data, p, scratch ? scratch->data : NULL, stream);
  tfc_tensor_unref(scratch);
  return tfc_cuda_ctx_check(c, err, x->dtype);
}

/* All (op PROD) and Any (op SUM) of bool x into out: x as 0/1 floats, the float reduction
 * (a product of zeros and ones is exact, and a sum of ones is never 0: the empty cases give
 * All's true and Any's false), and its nonzeros as bool, on the compute stream; the float
 * temporaries go back right after the enqueue (see run_reduce). */
static int run_bool_reduce(tfc_kernel_ctx *c, int op, const tfc_tensor *x, tfc_tensor *out,
                           const tfc_cuda_reduce_plan *p) {
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *xf = tfc_allocator_tensor(c->device->allocator, TFC_DT_FLOAT, x->dims, x->ndims, c->status);
  tfc_tensor *of = xf ? tfc_allocator_tensor(c->device->allocator, TFC_DT_FLOAT, out->dims, out->ndims, c->status)
                      : NULL;
  int rc = of ? tfc_cuda_ctx_check(c, tfc_cuda_cast(TFC_CUDA_BOOL, TFC_CUDA_F32, x->data, xf->data, x->n_elems, stream),
                                   x->dtype)
              : c->status->code;
  if (rc == TFC_OK) rc = run_reduce(c, op, TFC_CUDA_F32, xf, of, p);
  if (rc == TFC_OK)
    rc = tfc_cuda_ctx_check(c, tfc_cuda_cast(TFC_CUDA_F32, TFC_CUDA_BOOL, of->data, out->data, out->n_elems, stream),
                            x->dtype);
  tfc_tensor_unref(xf);
  tfc_tensor_unref(of);
  return rc;
}

static int reduce_compute(tfc_kernel_ctx *c, int op) {
  const tfc_tensor *x = c->inputs[0], *axes = c->inputs[1];
  int keep_dims = 0;
  TFC_TRY(tfc_kernel_attr_bool(c->node, "keep_dims", &keep_dims, c->status));
  int ct = tfc_cuda_dtype_of(x->dtype);
  if (ct != TFC_CUDA_F32 && ct != TFC_CUDA_F64 && ct != TFC_CUDA_F16 && ct != TFC_CUDA_BOOL)
    return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, x->dtype);
  /* Step 1: mark the reduced dims (TF's ReductionHelper checks and message). */
  int mark[TFC_MAX_DIMS] = {0};
  for (int64_t i = 0; i < axes->n_elems; i++) {
    int64_t a = tfc_tensor_get_i64(axes, i);
    if (a < -x->ndims || a >= x->ndims)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid reduction dimension (%lld for input with %d dimension(s)",
                              (long long)a, x->ndims);
    mark[a < 0 ? a + x->ndims : a] = 1;
  }
  int64_t out_dims[TFC_MAX_DIMS];
  int out_ndims = 0;
  for (int i = 0; i < x->ndims; i++) {
    if (!mark[i]) out_dims[out_ndims++] = x->dims[i];
    else if (keep_dims) out_dims[out_ndims++] = 1;
  }
  /* Step 2: collapse, then split into kept and reduced dims with row-major input strides. */
  int rank = 0, kind[TFC_MAX_DIMS];
  int64_t dims[TFC_MAX_DIMS];
  for (int i = 0; i < x->ndims; i++) {
    if (x->dims[i] == 1) continue;
    if (rank > 0 && kind[rank - 1] == mark[i]) {
      dims[rank - 1] *= x->dims[i];
    } else {
      dims[rank] = x->dims[i];
      kind[rank++] = mark[i];
    }
  }
  tfc_cuda_reduce_plan p = {0};
  int64_t stride[TFC_MAX_DIMS], s = 1;
  for (int i = rank - 1; i >= 0; i--) {
    stride[i] = s;
    s *= dims[i];
  }
  for (int i = 0; i < rank; i++) TFC_TRY(plan_push(c, &p, kind[i], dims[i], stride[i]));
  /* Step 3: the output and the launch. */
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, out_dims, out_ndims);
  if (!out) return c->status->code;
  if (ct == TFC_CUDA_BOOL) return run_bool_reduce(c, op, x, out, &p);
  return run_reduce(c, op, ct, x, out, &p);
}

static int sum_compute(tfc_kernel_ctx *c) { return reduce_compute(c, TFC_CUDA_RED_SUM); }
static int mean_compute(tfc_kernel_ctx *c) { return reduce_compute(c, TFC_CUDA_RED_MEAN); }
static int prod_compute(tfc_kernel_ctx *c) { return reduce_compute(c, TFC_CUDA_RED_PROD); }
static int max_compute(tfc_kernel_ctx *c) { return reduce_compute(c, TFC_CUDA_RED_MAX); }
static int min_compute(tfc_kernel_ctx *c) { return reduce_compute(c, TFC_CUDA_RED_MIN); }
static int all_compute(tfc_kernel_ctx *c) { return reduce_compute(c, TFC_CUDA_RED_PROD); }
static int any_compute(tfc_kernel_ctx *c) { return reduce_compute(c, TFC_CUDA_RED_SUM); }

/* ---- BiasAdd, BiasAddGrad ---- */

static int is_nchw(const tfc_node *n) {
  const tfc_attr_value *v = tfc_node_attr(n, "data_format");
  return v && v->kind == TFC_ATTR_STRING && strcmp(v->u.s.data, "NCHW") == 0;
}

/* The sizes around the channel dim: outer x channels x inner. */
static void channel_split(const tfc_tensor *x, int ch, int64_t *outer, int64_t *inner) {
  *outer = *inner = 1;
  for (int d = 0; d < ch; d++) *outer *= x->dims[d];
  for (int d = ch + 1; d < x->ndims; d++) *inner *= x->dims[d];
}

static int bias_add_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0], *bias = c->inputs[1];
  char sa[TFC_SHAPE_STR_MAX], sb[TFC_SHAPE_STR_MAX];
  if (x->ndims < 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input tensor must be at least 2D: %s",
                            tfc_tensor_shape_str(x, sa, sizeof sa));
  if (bias->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Biases must be 1D: %s",
                            tfc_tensor_shape_str(bias, sa, sizeof sa));
  int ch = is_nchw(c->node) ? 1 : x->ndims - 1;
  if (bias->dims[0] != x->dims[ch])
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "Must provide as many biases as the last dimension of the input tensor: %s vs. %s",
                            tfc_tensor_shape_str(bias, sa, sizeof sa), tfc_tensor_shape_str(x, sb, sizeof sb));
  int ct = tfc_cuda_dtype_of(x->dtype);
  if (ct < 0) return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, x->dtype);
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *y = tfc_kernel_forward_or_alloc(c, 0, 0, x->dtype, x->dims, x->ndims);
  if (!y) return c->status->code;
  if (x->n_elems == 0) return TFC_OK;
  int64_t outer, inner, n_ch = x->dims[ch];
  channel_split(x, ch, &outer, &inner);
  /* outer x channels x inner: x is dense, the bias advances along channels only. */
  tfc_cuda_bcast p = {.rank = 3,
                      .dims = {outer, n_ch, inner},
                      .strides = {{n_ch * inner, inner, 1}, {0, 1, 0}}};
  return tfc_cuda_ctx_check(c, tfc_cuda_binary(TFC_CUDA_ADD, ct, x->data, bias->data, y->data, &p, 0, stream),
                            x->dtype);
}

static int bias_add_grad_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  char sa[TFC_SHAPE_STR_MAX];
  if (x->ndims < 2)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Input tensor must be at least 2D: %s",
                            tfc_tensor_shape_str(x, sa, sizeof sa));
  int ch = is_nchw(c->node) ? 1 : x->ndims - 1;
  int64_t n_ch = x->dims[ch], outer, inner;
  channel_split(x, ch, &outer, &inner);
  int ct = tfc_cuda_dtype_of(x->dtype);
  if (ct != TFC_CUDA_F32 && ct != TFC_CUDA_F64 && ct != TFC_CUDA_F16)
    return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, x->dtype);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, &n_ch, 1);
  if (!out) return c->status->code;
  /* Keep the channel; reduce outer (stride channels x inner) and inner (stride 1). The
   * launcher drops the size-1 dims, so NHWC (inner 1) is a column reduction: the channels
   * are stride-1 columns under outer rows. */
  tfc_cuda_reduce_plan p = {.n_kept = 1, .n_red = 2,
                            .kdims = {n_ch}, .kstrides = {inner},
                            .rdims = {outer, inner}, .rstrides = {n_ch * inner, 1}};
  return run_reduce(c, TFC_CUDA_RED_SUM, ct, x, out, &p);
}

/* ---- Softmax, LogSoftmax ---- */

static int softmax_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  char sa[TFC_SHAPE_STR_MAX];
  if (x->ndims < 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "logits must have >= 1 dimension, got %s",
                            tfc_tensor_shape_str(x, sa, sizeof sa));
  int ct = tfc_cuda_dtype_of(x->dtype);
  if (ct != TFC_CUDA_F32 && ct != TFC_CUDA_F64 && ct != TFC_CUDA_F16)
    return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, x->dtype);
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_tensor *y = tfc_kernel_forward_or_alloc(c, 0, 0, x->dtype, x->dims, x->ndims);
  if (!y) return c->status->code;
  if (x->n_elems == 0) return TFC_OK;
  int64_t cols = x->dims[x->ndims - 1];
  return tfc_cuda_ctx_check(c,
                            tfc_cuda_softmax(ct, c->node->op->id == TFC_OP_LogSoftmax, x->data, y->data,
                                             x->n_elems / cols, cols, stream),
                            x->dtype);
}

/* ---- registration ---- */

#define G_F (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_HALF))
#define RED_ROW(opname, fn)                                                                       \
  {.op = TFC_OP_##opname, .type_attr = "T", .types = G_F, .host_memory_in = TFC_HOST(1), .compute = fn##_compute}

static const tfc_kernel_def defs[] = {
    RED_ROW(Sum, sum),
    RED_ROW(Mean, mean),
    RED_ROW(Prod, prod),
    RED_ROW(Max, max),
    RED_ROW(Min, min),
    /* reduction_ops_all.cc, reduction_ops_any.cc: bool, the axes int32 or int64 in host memory */
    {.op = TFC_OP_All, .host_memory_in = TFC_HOST(1), .compute = all_compute},
    {.op = TFC_OP_Any, .host_memory_in = TFC_HOST(1), .compute = any_compute},
    {.op = TFC_OP_BiasAdd, .type_attr = "T", .types = G_F, .compute = bias_add_compute},
    {.op = TFC_OP_BiasAddV1, .type_attr = "T", .types = G_F, .compute = bias_add_compute},
    {.op = TFC_OP_BiasAddGrad, .type_attr = "T", .types = G_F, .compute = bias_add_grad_compute},
    {.op = TFC_OP_Softmax, .type_attr = "T", .types = G_F, .compute = softmax_compute},
    {.op = TFC_OP_LogSoftmax, .type_attr = "T", .types = G_F, .compute = softmax_compute},
};

int tfc_cuda_kernels_nn(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
