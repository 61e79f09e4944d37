/*
 * kernels_conv_gpu — Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, _FusedConv2D and
 * DepthwiseConv2dNative with its two backprops on the GPU through cuDNN (cudnn_conv.h; the top
 * comment of cudnn_conv.c explains layouts, padding and algorithms), and MaxPool, AvgPool,
 * MaxPoolGrad and AvgPoolGrad through tfc's own CUDA kernels (cuda_pool.cu), for half, float
 * and double as TF 1.15's GPU registrations (_FusedConv2D: float and double).
 *
 * Attrs, shapes, output sizes and TF's padding split come from device/conv_plan.h, the module
 * the CPU kernels use too, so both devices accept and refuse the same nodes and inputs with the
 * same codes and texts. What is left here is the arithmetic.
 *
 * Depthwise convolutions are cuDNN grouped convolutions with one group per input channel (TF
 * does the same where it uses cuDNN). The GPU takes NCHW as TF's GPU kernels do; the CPU
 * kernel refuses it.
 *
 * _FusedConv2D. TF 1.15's GPU kernel takes fused_ops [BiasAdd] and [BiasAdd, Relu] only; tfc's
 * CPU kernel also takes a residual Add and Relu6, Elu and LeakyRelu (tfc_conv_fusion_parse).
 * tfc's remapper (optimize/fuse_conv.c) and the batch-norm folding (optimize/scale_fold.c)
 * rewrite only nodes placed on a CPU, so on a GPU a _FusedConv2D comes from an imported graph;
 * this kernel runs every fusion the shared parse accepts, so a graph the CPU runs runs here
 * too: cuDNN's convolution, then one epilogue kernel (cuda_nn_extra.cu) adding the bias and
 * the addend and applying the activation in place. What the parse refuses (FusedBatchNorm
 * fusions, other orders) fails at init on both devices with the same UNIMPLEMENTED text.
 *
 * Pooling does not use cuDNN: its symmetric padding and its undocumented tie rule in max
 * pooling's backward pass would both need work-arounds, and TF's window semantics are simple
 * to compute directly (cuda_pool.cu explains; MaxPoolGrad routes each gradient to the first
 * maximum of its window as TF's CPU kernel and TF's NHWC GPU kernel do, where TF 1.15's GPU
 * MaxPoolGrad goes through cuDNN's backward pass and inherits cuDNN's rule).
 *
 * Thread-safety: compute may run concurrently for one node (several steps), and with other
 * nodes of the device: the algorithm cache sits behind its mutex (cudnn_conv.h).
 */
#include <stdlib.h>
#include <string.h>

#include "device/conv_plan.h"
#include "device/cuda/cuda_kernels.h"
#include "device/cuda/cuda_nn_extra.h"
#include "device/cuda/cudnn_conv.h"

_Static_assert((int)TFC_CUDA_ACT_RELU == (int)TFC_ACT_RELU && (int)TFC_CUDA_ACT_RELU6 == (int)TFC_ACT_RELU6 &&
                   (int)TFC_CUDA_ACT_ELU == (int)TFC_ACT_ELU &&
                   (int)TFC_CUDA_ACT_LEAKY_RELU == (int)TFC_ACT_LEAKY_RELU,
               "the epilogue's activations are conv_plan.h's");

/* ---- Conv2D, _FusedConv2D and the backprops ---- */

typedef struct conv_state {
  int kind;
  tfc_conv_attrs attrs;
  tfc_conv_fusion fuse; /* _FusedConv2D's bias, addend and activation */
  tfc_cudnn_algo_cache cache;
} conv_state;

/* A new state of `kind` with attrs a (NULL: none kept) and fusion f (NULL: none). */
static int state_new(const tfc_node *n, int kind, const tfc_conv_attrs *a, const tfc_conv_fusion *f, void **state,
                     tfc_status *s) {
  conv_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  if (tfc_cudnn_algo_cache_init(&st->cache, n, s)) {
    free(st);
    return s->code;
  }
  st->kind = kind;
  if (a) st->attrs = *a;
  if (f) st->fuse = *f;
  *state = st;
  return TFC_OK;
}

static int conv_init_kind(const tfc_node *n, void **state, tfc_status *s, int kind) {
  tfc_conv_attrs a;
  tfc_conv_fusion f;
  TFC_TRY(tfc_conv_attrs_parse(n, &a, s));
  TFC_TRY(tfc_conv_fusion_parse(n, &f, s));
  return state_new(n, kind, &a, &f, state, s);
}

static int conv_fwd_init(const tfc_node *n, void **st, tfc_status *s) { return conv_init_kind(n, st, s, TFC_CONV_FWD); }
static int conv_bwd_input_init(const tfc_node *n, void **st, tfc_status *s) {
  return conv_init_kind(n, st, s, TFC_CONV_BWD_INPUT);
}
static int conv_bwd_filter_init(const tfc_node *n, void **st, tfc_status *s) {
  return conv_init_kind(n, st, s, TFC_CONV_BWD_FILTER);
}

static void conv_free(void *p) {
  conv_state *st = p;
  if (!st) return;
  tfc_cudnn_algo_cache_fini(&st->cache);
  free(st);
}

static int conv_compute(tfc_kernel_ctx *c) {
  conv_state *st = c->state;
  tfc_conv_plan p;
  TFC_TRY(tfc_conv_plan_make(c, &st->attrs, st->kind, &p));
  const tfc_window_geom *g = &p.g;
  if (st->fuse.on) {
    TFC_TRY(tfc_conv_fusion_check_bias(c, g->oc));
    TFC_TRY(tfc_conv_fusion_check_addend(c, &st->fuse, p.out_dims, 4));
  }
  tfc_cudnn_conv_geom cg;
  tfc_cudnn_conv_geom_2d(g, 1, &cg);
  tfc_tensor *out;
  TFC_TRY(tfc_cudnn_conv_output(c, &st->cache, st->kind, &cg, p.dtype, p.out_dims, 4, p.zeros,
                                p.x ? p.x->data : NULL, p.f ? p.f->data : NULL, p.dy ? p.dy->data : NULL, &out));
  if (!st->fuse.on || out->n_elems == 0) return TFC_OK;
  /* The epilogue, in place over the convolution's result on the same stream. */
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  int ct = tfc_cuda_dtype_of(p.dtype);
  int err = tfc_cuda_conv_epilogue(ct, out->data, c->inputs[2]->data, st->fuse.add ? c->inputs[3]->data : NULL,
                                   out->n_elems, g->oc, g->nchw, g->oh * g->ow, st->fuse.act, st->fuse.alpha, stream);
  return tfc_cuda_ctx_check(c, err, p.dtype);
}

/* ---- the depthwise convolutions: grouped convolutions with one group per input channel ---- */

/* The attrs are checked by tfc_depthwise_plan_make on every call, as the CPU kernel does (TF's
 * depthwise checks come before Conv2D's there); the state holds the algorithm cache. */
static int dw_init_kind(const tfc_node *n, void **state, tfc_status *s, int kind) {
  return state_new(n, kind, NULL, NULL, state, s);
}
static int dw_fwd_init(const tfc_node *n, void **st, tfc_status *s) { return dw_init_kind(n, st, s, TFC_CONV_FWD); }
static int dw_bwd_input_init(const tfc_node *n, void **st, tfc_status *s) {
  return dw_init_kind(n, st, s, TFC_CONV_BWD_INPUT);
}
static int dw_bwd_filter_init(const tfc_node *n, void **st, tfc_status *s) {
  return dw_init_kind(n, st, s, TFC_CONV_BWD_FILTER);
}

static int dw_compute(tfc_kernel_ctx *c) {
  conv_state *st = c->state;
  tfc_depthwise_plan p;
  TFC_TRY(tfc_depthwise_plan_make(c, st->kind, 0, &p));
  const tfc_tensor *x = st->kind != TFC_CONV_BWD_INPUT ? c->inputs[0] : NULL;
  const tfc_tensor *f = st->kind != TFC_CONV_BWD_FILTER ? c->inputs[1] : NULL;
  const tfc_tensor *dy = st->kind != TFC_CONV_FWD ? c->inputs[2] : NULL;
  tfc_cudnn_conv_geom cg;
  tfc_cudnn_conv_geom_2d(&p.g, p.g.ic, &cg);
  tfc_tensor *out;
  return tfc_cudnn_conv_output(c, &st->cache, st->kind, &cg, p.dtype, p.out_dims, 4, p.zeros, x ? x->data : NULL,
                               f ? f->data : NULL, dy ? dy->data : NULL, &out);
}

/* ---- pooling ---- */

typedef struct pool_state {
  int kind;
  tfc_pool_attrs attrs;
} pool_state;

static int pool_init_kind(const tfc_node *n, void **state, tfc_status *s, int kind) {
  tfc_pool_attrs a;
  TFC_TRY(tfc_pool_attrs_parse(n, "GPU", &a, s));
  pool_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  st->kind = kind;
  st->attrs = a;
  *state = st;
  return TFC_OK;
}

static int max_pool_init(const tfc_node *n, void **st, tfc_status *s) { return pool_init_kind(n, st, s, TFC_POOL_MAX); }
static int avg_pool_init(const tfc_node *n, void **st, tfc_status *s) { return pool_init_kind(n, st, s, TFC_POOL_AVG); }
static int max_pool_grad_init(const tfc_node *n, void **st, tfc_status *s) {
  return pool_init_kind(n, st, s, TFC_POOL_MAX_GRAD);
}
static int avg_pool_grad_init(const tfc_node *n, void **st, tfc_status *s) {
  return pool_init_kind(n, st, s, TFC_POOL_AVG_GRAD);
}

static int pool_compute(tfc_kernel_ctx *c) {
  const pool_state *st = c->state;
  tfc_pool_plan p;
  TFC_TRY(tfc_pool_plan_make(c, &st->attrs, st->kind, &p));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, p.dtype, p.out_dims, 4);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  if (p.zeros) return tfc_cuda_ctx_check(c, tfc_cuda_memset(out->data, 0, (int64_t)out->n_bytes, stream), p.dtype);
  int ct = tfc_cuda_dtype_of(p.dtype);
  if (ct != TFC_CUDA_F32 && ct != TFC_CUDA_F64 && ct != TFC_CUDA_F16)
    return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, p.dtype);
  const tfc_window_geom *g = &p.g;
  tfc_cuda_pool_geom pg = {.n = g->n, .c = g->ic, .in = {1, g->ih, g->iw}, .out = {1, g->oh, g->ow},
                           .k = {1, g->kh, g->kw}, .s = {1, g->sh, g->sw}, .pad = {0, g->pt, g->pl},
                           .cfirst = g->nchw};
  switch (st->kind) {
    case TFC_POOL_MAX:
    case TFC_POOL_AVG:
      return tfc_cuda_ctx_check(c, tfc_cuda_pool_fwd(ct, st->kind == TFC_POOL_MAX, p.x->data, out->data, &pg, stream),
                                p.dtype);
    case TFC_POOL_MAX_GRAD: {
      int64_t n_out = g->n * g->ic * g->oh * g->ow;
      tfc_tensor *argmax = n_out ? tfc_cuda_ctx_temp(c, (int64_t)sizeof(int32_t) * n_out) : NULL;
      if (n_out && !argmax) return c->status->code;
      int err = tfc_cuda_pool_max_grad(ct, p.x->data, p.grad->data, out->data, argmax ? argmax->data : NULL, &pg,
                                       stream);
      tfc_tensor_unref(argmax); /* after the enqueue: stream-ordered reuse (cuda_kernels.h) */
      return tfc_cuda_ctx_check(c, err, p.dtype);
    }
    default:
      return tfc_cuda_ctx_check(c, tfc_cuda_pool_avg_grad(ct, p.grad->data, out->data, &pg, stream), p.dtype);
  }
}

/* ---- registration ---- */

#define G_F (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_HALF))

/* TF 1.15: Conv2D, the depthwise convolutions, their backprops and the four pooling ops on
 * DEVICE_GPU for half, float and double, _FusedConv2D for float and double; input_sizes,
 * filter_sizes and orig_input_shape are HostMemory. */
static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Conv2D, .type_attr = "T", .types = G_F, .flags = TFC_KF_EXPENSIVE, .init = conv_fwd_init,
     .compute = conv_compute, .free_state = conv_free},
    {.op = TFC_OP__FusedConv2D, .type_attr = "T", .types = TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE),
     .flags = TFC_KF_EXPENSIVE, .init = conv_fwd_init, .compute = conv_compute, .free_state = conv_free},
    {.op = TFC_OP_Conv2DBackpropInput, .type_attr = "T", .types = G_F, .host_memory_in = TFC_HOST(0),
     .flags = TFC_KF_EXPENSIVE, .init = conv_bwd_input_init, .compute = conv_compute, .free_state = conv_free},
    {.op = TFC_OP_Conv2DBackpropFilter, .type_attr = "T", .types = G_F, .host_memory_in = TFC_HOST(1),
     .flags = TFC_KF_EXPENSIVE, .init = conv_bwd_filter_init, .compute = conv_compute, .free_state = conv_free},
    {.op = TFC_OP_DepthwiseConv2dNative, .type_attr = "T", .types = G_F, .flags = TFC_KF_EXPENSIVE,
     .init = dw_fwd_init, .compute = dw_compute, .free_state = conv_free},
    {.op = TFC_OP_DepthwiseConv2dNativeBackpropInput, .type_attr = "T", .types = G_F, .host_memory_in = TFC_HOST(0),
     .flags = TFC_KF_EXPENSIVE, .init = dw_bwd_input_init, .compute = dw_compute, .free_state = conv_free},
    {.op = TFC_OP_DepthwiseConv2dNativeBackpropFilter, .type_attr = "T", .types = G_F, .host_memory_in = TFC_HOST(1),
     .flags = TFC_KF_EXPENSIVE, .init = dw_bwd_filter_init, .compute = dw_compute, .free_state = conv_free},
    {.op = TFC_OP_MaxPool, .type_attr = "T", .types = G_F, .init = max_pool_init, .compute = pool_compute,
     .free_state = free},
    {.op = TFC_OP_AvgPool, .type_attr = "T", .types = G_F, .init = avg_pool_init, .compute = pool_compute,
     .free_state = free},
    {.op = TFC_OP_MaxPoolGrad, .type_attr = "T", .types = G_F, .init = max_pool_grad_init, .compute = pool_compute,
     .free_state = free},
    {.op = TFC_OP_AvgPoolGrad, .type_attr = "T", .types = G_F, .host_memory_in = TFC_HOST(0),
     .init = avg_pool_grad_init, .compute = pool_compute, .free_state = free},
};

int tfc_cuda_kernels_conv(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
