/*
 * kernels_conv3d_gpu — Conv3D, Conv3DBackpropInputV2 and Conv3DBackpropFilterV2 on the GPU
 * through cuDNN's N-d convolutions (cudnn_conv.h, the path of the 2-D convolutions), and
 * MaxPool3D, AvgPool3D, MaxPool3DGrad and AvgPool3DGrad through tfc's pooling kernels
 * (cuda_pool.cu, which the 2-D pools use too), in NDHWC and NCDHW, with TF 1.15's GPU types:
 * half, float and double for the convolutions, half and float for the pools; input_sizes,
 * filter_sizes and orig_input_shape in host memory.
 *
 * Attrs and shapes are checked by device/conv3d_plan.h, the plan the CPU kernels
 * (cpu/kernels_conv3d.c) use, so both devices give the same codes and texts; the GPU takes
 * NCDHW, which the CPU refuses (as TF's CPU kernels). MaxPool3DGrad follows the CPU kernel's
 * rule (every maximum of a window gets its gradient), so the two devices agree on ties.
 */
#include <stdlib.h>
#include <string.h>

#include "device/conv3d_plan.h"
#include "device/cuda/cuda_kernels.h"
#include "device/cuda/cuda_nn_extra.h"
#include "device/cuda/cudnn_conv.h"

typedef struct c3_state {
  tfc_conv3d_attrs a;
  tfc_cudnn_algo_cache cache; /* convolutions only */
} c3_state;

static int init_kind(const tfc_node *n, void **state, tfc_status *s, int kind) {
  tfc_conv3d_attrs a;
  TFC_TRY(tfc_conv3d_attrs_parse(n, kind, 0, &a, s));
  c3_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  if (tfc_cudnn_algo_cache_init(&st->cache, n, s)) {
    free(st);
    return s->code;
  }
  st->a = a;
  *state = st;
  return TFC_OK;
}

static void state_free(void *p) {
  c3_state *st = p;
  if (!st) return;
  tfc_cudnn_algo_cache_fini(&st->cache);
  free(st);
}

static int conv_fwd_init(const tfc_node *n, void **st, tfc_status *s) { return init_kind(n, st, s, TFC_C3_CONV_FWD); }
static int conv_bwd_input_init(const tfc_node *n, void **st, tfc_status *s) {
  return init_kind(n, st, s, TFC_C3_BWD_INPUT);
}
static int conv_bwd_filter_init(const tfc_node *n, void **st, tfc_status *s) {
  return init_kind(n, st, s, TFC_C3_BWD_FILTER);
}
static int max_init(const tfc_node *n, void **st, tfc_status *s) { return init_kind(n, st, s, TFC_C3_MAX); }
static int avg_init(const tfc_node *n, void **st, tfc_status *s) { return init_kind(n, st, s, TFC_C3_AVG); }
static int max_grad_init(const tfc_node *n, void **st, tfc_status *s) { return init_kind(n, st, s, TFC_C3_MAX_GRAD); }
static int avg_grad_init(const tfc_node *n, void **st, tfc_status *s) { return init_kind(n, st, s, TFC_C3_AVG_GRAD); }

/* The plan's kinds are conv_plan.h's convolution kinds in the same order. */
_Static_assert((int)TFC_C3_CONV_FWD == (int)TFC_CONV_FWD && (int)TFC_C3_BWD_INPUT == (int)TFC_CONV_BWD_INPUT &&
                   (int)TFC_C3_BWD_FILTER == (int)TFC_CONV_BWD_FILTER,
               "conv3d_plan's convolution kinds are conv_plan's");

static int conv_compute(tfc_kernel_ctx *c) {
  c3_state *st = c->state;
  tfc_conv3d_plan p;
  TFC_TRY(tfc_conv3d_plan_make(c, &st->a, &p));
  tfc_cudnn_conv_geom cg;
  tfc_cudnn_conv_geom_3d(&p.g, &cg);
  tfc_tensor *out;
  return tfc_cudnn_conv_output(c, &st->cache, st->a.kind, &cg, p.dtype, p.out_dims, 5, p.zeros,
                               p.x ? p.x->data : NULL, p.f ? p.f->data : NULL, p.grad ? p.grad->data : NULL, &out);
}

static int pool_compute(tfc_kernel_ctx *c) {
  const c3_state *st = c->state;
  tfc_conv3d_plan p;
  TFC_TRY(tfc_conv3d_plan_make(c, &st->a, &p));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, p.dtype, p.out_dims, 5);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  if (p.zeros) return tfc_cuda_ctx_check(c, tfc_cuda_memset(out->data, 0, (int64_t)out->n_bytes, stream), p.dtype);
  int ct = tfc_cuda_dtype_of(p.dtype);
  const tfc_geom3 *g = &p.g;
  tfc_cuda_pool_geom pg = {.n = g->n, .c = g->ic, .cfirst = g->ncdhw};
  for (int d = 0; d < 3; d++)
    pg.in[d] = g->in[d], pg.out[d] = g->out[d], pg.k[d] = g->k[d], pg.s[d] = g->stride[d], pg.pad[d] = g->pb[d];
  int err;
  switch (st->a.kind) {
    case TFC_C3_MAX:
    case TFC_C3_AVG: err = tfc_cuda_pool_fwd(ct, st->a.kind == TFC_C3_MAX, p.x->data, out->data, &pg, stream); break;
    case TFC_C3_MAX_GRAD:
      err = tfc_cuda_pool_max_grad_ties(ct, p.x->data, p.y->data, p.grad->data, out->data, &pg, stream);
      break;
    default: err = tfc_cuda_pool_avg_grad(ct, p.grad->data, out->data, &pg, stream); break;
  }
  return tfc_cuda_ctx_check(c, err, p.dtype);
}

#define C3_T (TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))
#define P3_T (TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_FLOAT))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Conv3D, .type_attr = "T", .types = C3_T, .flags = TFC_KF_EXPENSIVE, .init = conv_fwd_init,
     .compute = conv_compute, .free_state = state_free},
    {.op = TFC_OP_Conv3DBackpropInputV2, .type_attr = "T", .types = C3_T, .host_memory_in = TFC_HOST(0),
     .flags = TFC_KF_EXPENSIVE, .init = conv_bwd_input_init, .compute = conv_compute, .free_state = state_free},
    {.op = TFC_OP_Conv3DBackpropFilterV2, .type_attr = "T", .types = C3_T, .host_memory_in = TFC_HOST(1),
     .flags = TFC_KF_EXPENSIVE, .init = conv_bwd_filter_init, .compute = conv_compute, .free_state = state_free},
    {.op = TFC_OP_MaxPool3D, .type_attr = "T", .types = P3_T, .init = max_init, .compute = pool_compute,
     .free_state = state_free},
    {.op = TFC_OP_AvgPool3D, .type_attr = "T", .types = P3_T, .init = avg_init, .compute = pool_compute,
     .free_state = state_free},
    {.op = TFC_OP_MaxPool3DGrad, .type_attr = "T", .types = P3_T, .init = max_grad_init, .compute = pool_compute,
     .free_state = state_free},
    {.op = TFC_OP_AvgPool3DGrad, .type_attr = "T", .types = P3_T, .host_memory_in = TFC_HOST(0),
     .init = avg_grad_init, .compute = pool_compute, .free_state = state_free},
};

int tfc_cuda_kernels_conv3d(tfc_kernel_table *t, tfc_status *s) {
  TFC_TRY(tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s));
  TFC_TRY(tfc_cuda_kernels_lrn(t, s));
  return tfc_cuda_kernels_crop(t, s);
}
