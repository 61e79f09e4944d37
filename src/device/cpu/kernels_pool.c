/*
 * kernels_pool — MaxPool, AvgPool, MaxPoolGrad and AvgPoolGrad on the CPU.
 *
 * float MaxPool, AvgPool and AvgPoolGrad run oneDNN pooling directly on the user's layout
 * (its pooling kernels handle NHWC and NCHW without reorders), sharded over the batch like
 * the convolutions (kernels_conv_int.h), with primitives cached per node and shape. Average
 * pooling uses oneDNN's avg_exclude_padding, which is TF's "divide by the valid elements";
 * TF's SAME padding is asymmetric (the odd element after), which oneDNN takes as separate
 * left/right paddings. MaxPoolGrad (and double everywhere) runs the plain-C pooling of
 * kernels_conv_ref.c, which routes each gradient to the first maximum of its window as TF
 * does. The internal pair _MaxPoolWithWorkspace / _MaxPoolGradWithWorkspace (what the optimizer
 * makes of a float MaxPool and its MaxPoolGrad, optimize/pool_ws.c) keeps that routing in a
 * byte per pooled element from the forward pass, so the gradient reads neither input again.
 * Attrs and shapes are checked by device/conv_plan.h (shared with the GPU kernels);
 * pooling across depth or batch is rejected with TF's texts.
 */
#include <stdlib.h>
#include <string.h>

#include "device/cpu/kernels_conv_int.h"

typedef struct pool_state {
  int kind;
  tfc_pool_attrs attrs;
  tfc_dnn_cache cache;
} pool_state;

typedef struct pool_key {
  int kind;
  tfc_window_geom g;
} pool_key;

static int pool_init_kind(const tfc_node *n, void **state, tfc_status *s, int kind) {
  tfc_pool_attrs a;
  TFC_TRY(tfc_pool_attrs_parse(n, "CPU", &a, s));
  pool_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  st->kind = kind;
  st->attrs = a;
  tfc_dnn_cache_init(&st->cache);
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

static void pool_free(void *p) {
  pool_state *st = p;
  if (!st) return;
  tfc_dnn_cache_fini(&st->cache);
  free(st);
}

/* ---- oneDNN ---- */

static int build_pool(const void *key, tfc_dnn_prim *p, tfc_status *s) {
  const pool_key *k = key;
  const tfc_window_geom *g = &k->g;
  dnnl_format_tag_t tag = g->nchw ? dnnl_nchw : dnnl_nhwc;
  dnnl_memory_desc_t src, dst;
  tfc_dnn_md(&src, g->n, g->ic, g->ih, g->iw, tag);
  tfc_dnn_md(&dst, g->n, g->ic, g->oh, g->ow, tag);
  dnnl_dims_t strides = {g->sh, g->sw}, kernel = {g->kh, g->kw}, pl = {g->pt, g->pl}, pr = {g->pb, g->pr};
  return tfc_dnn_pool_prim(p, &src, &dst, strides, kernel, pl, pr, k->kind == TFC_POOL_MAX,
                           k->kind == TFC_POOL_AVG_GRAD, s);
}

typedef struct pool_run {
  const tfc_window_geom *g;
  int n_shards;
  int64_t q;
  const tfc_dnn_prim *prim[2];
  const char *in;
  char *out;
  int64_t in_img, out_img;
  uint8_t *ws; /* max pooling's workspace (_MaxPoolWithWorkspace), or NULL */
  tfc_status *st;
} pool_run;

static void pool_shard(int k, void *arg) {
  pool_run *r = arg;
  int64_t begin, size;
  tfc_conv_shard(r->g->n, r->n_shards, k, &begin, &size);
  void *ptr[2] = {(void *)(r->in + begin * r->in_img), r->out + begin * r->out_img};
  tfc_dnn_run(r->prim[size == r->q ? 0 : 1], ptr, 0, &r->st[k]);
  if (r->ws && !r->st[k].code)
    tfc_pool_ref_max_workspace_images(r->g, (const float *)r->in, r->ws, begin, begin + size, &r->st[k]);
}

/* The images of one shard of a pool that also writes its workspace: at most this many input
 * bytes, so the workspace pass finds them in the core's cache after oneDNN's pass. */
#define WS_SHARD_BYTES (256 << 10)

/* in/out: src/dst for the forward kinds, diff_dst/diff_src for AvgPoolGrad; ws: the workspace
 * to write too (TFC_POOL_MAX only), or NULL. */
static int pool_dnn(tfc_kernel_ctx *c, pool_state *st, const tfc_window_geom *g, const void *in, void *out,
                    uint8_t *ws) {
  double work = (double)g->n * (double)(g->oh * g->ow * g->ic * g->kh * g->kw);
  int ns = tfc_conv_n_shards(c, g->n, work * 4); /* memory-bound: weigh an element op as 4 flops */
  if (ws) {
    int64_t want = g->n * g->ih * g->iw * g->ic * 4 / WS_SHARD_BYTES + 1;
    if (want > g->n) want = g->n;
    if (want > ns) ns = (int)want;
  }
  int64_t src_img = g->ih * g->iw * g->ic * 4, dst_img = g->oh * g->ow * g->ic * 4;
  int grad = st->kind == TFC_POOL_AVG_GRAD;
  pool_run r = {g, ns, g->n / ns, {NULL, NULL}, in, out, grad ? dst_img : src_img, grad ? src_img : dst_img, ws, NULL};
  pool_key key;
  memset(&key, 0, sizeof key);
  key.kind = st->kind;
  key.g = *g;
  for (int w = 0; w < 2; w++) {
    key.g.n = r.q + w;
    if ((w == 0 && r.q == 0) || (w == 1 && g->n % ns == 0)) continue;
    if (!(r.prim[w] = tfc_dnn_cache_get(&st->cache, &key, sizeof key, build_pool, c->status))) return c->status->code;
  }
  tfc_status *sts = calloc((size_t)ns, sizeof *sts);
  if (!sts) return TFC_OOM(c->status);
  for (int k = 0; k < ns; k++) tfc_status_init(&sts[k]);
  r.st = sts;
  tfc_conv_for_shards(c, ns, pool_shard, &r);
  for (int k = 0; k < ns; k++) {
    if (sts[k].code && !c->status->code) tfc_status_move(c->status, &sts[k]);
    tfc_status_fini(&sts[k]);
  }
  free(sts);
  return c->status->code;
}

/* ---- compute ---- */

/* Output 0 of p's shape; *done set when nothing is left to compute (it is empty, or it is a
 * gradient of an empty out_backprop, zeroed here). NULL with the status set. */
static tfc_tensor *pool_output(tfc_kernel_ctx *c, const tfc_pool_plan *p, int *done) {
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, p->dtype, p->out_dims, 4);
  *done = !out || out->n_elems == 0 || p->zeros;
  if (out && out->n_elems && p->zeros) memset(out->data, 0, out->n_bytes);
  return out;
}

static int pool_compute(tfc_kernel_ctx *c) {
  pool_state *st = c->state;
  tfc_pool_plan p;
  int done;
  TFC_TRY(tfc_pool_plan_make(c, &st->attrs, st->kind, &p));
  tfc_tensor *out = pool_output(c, &p, &done);
  if (done) return c->status->code;
  if (p.dtype != TFC_DT_FLOAT && p.dtype != TFC_DT_DOUBLE)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s for %s", c->node->op->name, tfc_dtype_name(p.dtype));
  const tfc_window_geom *g = &p.g;
  switch (st->kind) {
    case TFC_POOL_MAX:
    case TFC_POOL_AVG:
      if (p.dtype == TFC_DT_FLOAT) return pool_dnn(c, st, g, p.x->data, out->data, NULL);
      tfc_pool_ref_fwd(c, g, p.dtype, st->kind == TFC_POOL_MAX, p.x->data, out->data);
      break;
    case TFC_POOL_MAX_GRAD: tfc_pool_ref_max_grad(c, g, p.dtype, p.x->data, p.grad->data, out->data); break;
    default:
      if (p.dtype == TFC_DT_FLOAT) return pool_dnn(c, st, g, p.grad->data, out->data, NULL);
      tfc_pool_ref_avg_grad(c, g, p.dtype, p.grad->data, out->data);
  }
  return c->status->code;
}

/* _MaxPoolWithWorkspace: MaxPool's output, then the workspace from the same input (a second
 * pass over it while it is still in cache). _MaxPoolGradWithWorkspace: MaxPoolGrad's checks,
 * then the workspace (uint8, grad's shape) routes each gradient. NHWC or NCHW. */
static int max_pool_ws_compute(tfc_kernel_ctx *c) {
  pool_state *st = c->state;
  tfc_pool_plan p;
  TFC_TRY(tfc_pool_plan_make(c, &st->attrs, TFC_POOL_MAX, &p));
  if (p.g.kh * p.g.kw >= TFC_POOL_WS_NONE)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: a window of %lld elements has no workspace index",
                            c->node->op->name, (long long)(p.g.kh * p.g.kw));
  if (p.dtype != TFC_DT_FLOAT)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s for %s", c->node->op->name, tfc_dtype_name(p.dtype));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, p.dtype, p.out_dims, 4);
  tfc_tensor *ws = out ? tfc_kernel_alloc_output(c, 1, TFC_DT_UINT8, p.out_dims, 4) : NULL;
  if (!ws) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  return pool_dnn(c, st, &p.g, p.x->data, out->data, ws->data);
}

static int max_pool_grad_ws_compute(tfc_kernel_ctx *c) {
  pool_state *st = c->state;
  tfc_pool_plan p;
  TFC_TRY(tfc_pool_plan_make(c, &st->attrs, TFC_POOL_MAX_GRAD, &p));
  const tfc_tensor *ws = c->inputs[3];
  if (ws->dtype != TFC_DT_UINT8 || ws->ndims != 4 || memcmp(ws->dims, p.grad->dims, sizeof ws->dims[0] * 4) != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "workspace must be uint8 of grad's shape");
  int done;
  tfc_tensor *out = pool_output(c, &p, &done);
  if (done) return c->status->code;
  tfc_pool_ref_max_grad_workspace(c, &p.g, ws->data, p.grad->data, out->data);
  return c->status->code;
}

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_MaxPool, .type_attr = "T", .types = TFC_TYPES_FLOAT, .init = max_pool_init,
     .compute = pool_compute, .free_state = pool_free},
    {.op = TFC_OP_AvgPool, .type_attr = "T", .types = TFC_TYPES_FLOAT, .init = avg_pool_init,
     .compute = pool_compute, .free_state = pool_free},
    {.op = TFC_OP_MaxPoolGrad, .type_attr = "T", .types = TFC_TYPES_FLOAT, .init = max_pool_grad_init,
     .compute = pool_compute, .free_state = pool_free},
    {.op = TFC_OP__MaxPoolWithWorkspace, .type_attr = "T", .types = TFC_T(TFC_DT_FLOAT), .init = max_pool_init,
     .compute = max_pool_ws_compute, .free_state = pool_free},
    {.op = TFC_OP__MaxPoolGradWithWorkspace, .type_attr = "T", .types = TFC_T(TFC_DT_FLOAT), .init = max_pool_grad_init,
     .compute = max_pool_grad_ws_compute, .free_state = pool_free},
    {.op = TFC_OP_AvgPoolGrad, .type_attr = "T", .types = TFC_TYPES_FLOAT, .host_memory_in = 1u << 0,
     .init = avg_pool_grad_init, .compute = pool_compute, .free_state = pool_free},
};

int tfc_cpu_kernels_pool(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
