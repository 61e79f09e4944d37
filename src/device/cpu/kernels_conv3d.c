/*
 * kernels_conv3d — Conv3D, Conv3DBackpropInputV2, Conv3DBackpropFilterV2, MaxPool3D,
 * AvgPool3D, MaxPool3DGrad and AvgPool3DGrad on the CPU (NDHWC, as TF's CPU kernels).
 *
 * float runs on the oneDNN layer of the 2-D family (kernels_conv_int.h) with 5-D memory
 * descriptors: per node a primitive cache keyed by the geometry with the shard's minibatch,
 * single-threaded primitives, the batch cut into the node's share of intra-op threads. The
 * convolutions keep activations in NDHWC, the filter reordered from TF's DHWIO into the
 * layout oneDNN picks, when oneDNN has a direct kernel for that, else let it pick blocked
 * activation layouts too (reorders per call, as kernels_conv.c); the filter gradient of a sharded call is a sum of per-shard partials. Max and average
 * pooling and the average-pooling gradient are oneDNN pooling (avg_exclude_padding is TF's
 * "divide by the valid elements"). MaxPool3DGrad runs plain C: TF's CPU kernel gives each
 * window's gradient to EVERY input equal to the window's maximum (unlike MaxPoolGrad's first
 * maximum), which no oneDNN primitive does. double (Conv3D's and AvgPool3D's other CPU type,
 * used by the float64 gradient checks) runs the same plain-C loops, images shared out over
 * the intra-op pool (the filter gradient, a sum over the batch, on the calling thread).
 *
 * Attrs are checked in init and shapes in compute by device/conv3d_plan.h, the plan the GPU
 * kernels (cuda/kernels_conv3d_gpu.c) share, with the texts of TF's CPU kernels
 * (conv_ops_3d.cc, conv_grad_ops_3d.cc, pooling_ops_3d.cc). Unlike TF's Eigen kernels, which
 * refuse dilations above 1 on the CPU, dilations are supported (oneDNN has them; TF's own
 * oneDNN kernels, the default in TF 2.x builds, accept them too). NCDHW is refused as TF's CPU
 * kernels refuse it. Errors are set on the kernel context; nothing here aborts.
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "device/conv3d_plan.h"
#include "device/cpu/kernels_conv_int.h"

/* The plan's kinds under short names. */
enum {
  K_CONV_FWD = TFC_C3_CONV_FWD,
  K_CONV_BWD_INPUT = TFC_C3_BWD_INPUT,
  K_CONV_BWD_FILTER = TFC_C3_BWD_FILTER,
  K_MAX = TFC_C3_MAX,
  K_AVG = TFC_C3_AVG,
  K_MAX_GRAD = TFC_C3_MAX_GRAD,
  K_AVG_GRAD = TFC_C3_AVG_GRAD
};

typedef struct conv3d_state {
  tfc_conv3d_attrs a;
  tfc_dnn_cache cache;
} conv3d_state;

typedef struct conv3d_key {
  int kind;
  tfc_geom3 g;
} conv3d_key;

/* ---- attrs (init) ---- */

static int init_kind(const tfc_node *n, void **state, tfc_status *s, int kind) {
  tfc_conv3d_attrs a;
  TFC_TRY(tfc_conv3d_attrs_parse(n, kind, 1, &a, s));
  conv3d_state *st = malloc(sizeof *st);
  if (!st) return TFC_OOM(s);
  st->a = a;
  tfc_dnn_cache_init(&st->cache);
  *state = st;
  return TFC_OK;
}

static int conv_fwd_init(const tfc_node *n, void **st, tfc_status *s) { return init_kind(n, st, s, K_CONV_FWD); }
static int conv_bwd_input_init(const tfc_node *n, void **st, tfc_status *s) {
  return init_kind(n, st, s, K_CONV_BWD_INPUT);
}
static int conv_bwd_filter_init(const tfc_node *n, void **st, tfc_status *s) {
  return init_kind(n, st, s, K_CONV_BWD_FILTER);
}
static int max_init(const tfc_node *n, void **st, tfc_status *s) { return init_kind(n, st, s, K_MAX); }
static int avg_init(const tfc_node *n, void **st, tfc_status *s) { return init_kind(n, st, s, K_AVG); }
static int max_grad_init(const tfc_node *n, void **st, tfc_status *s) { return init_kind(n, st, s, K_MAX_GRAD); }
static int avg_grad_init(const tfc_node *n, void **st, tfc_status *s) { return init_kind(n, st, s, K_AVG_GRAD); }

static void state_free(void *p) {
  conv3d_state *st = p;
  if (!st) return;
  tfc_dnn_cache_fini(&st->cache);
  free(st);
}

#define prod3 tfc_prod3

/* ---- plain C ---- */

/* Visits every (image, output position, window tap) that reads an input element (padding
 * skipped), with the element offsets of the input position (times ic), the output position
 * (times oc) and the tap (index into the window, 0 .. kd*kh*kw). */
typedef void (*tap_fn)(void *arg, int64_t in_pos, int64_t out_pos, int64_t tap);

static void for_taps(const tfc_geom3 *g, int64_t b0, int64_t b1, tap_fn fn, void *arg) {
  for (int64_t b = b0; b < b1; b++)
    for (int64_t od = 0; od < g->out[0]; od++)
      for (int64_t oh = 0; oh < g->out[1]; oh++)
        for (int64_t ow = 0; ow < g->out[2]; ow++) {
          int64_t out_pos = ((b * g->out[0] + od) * g->out[1] + oh) * g->out[2] + ow;
          for (int64_t kd = 0; kd < g->k[0]; kd++) {
            int64_t id = od * g->stride[0] - g->pb[0] + kd * g->dil[0];
            if (id < 0 || id >= g->in[0]) continue;
            for (int64_t kh = 0; kh < g->k[1]; kh++) {
              int64_t ih = oh * g->stride[1] - g->pb[1] + kh * g->dil[1];
              if (ih < 0 || ih >= g->in[1]) continue;
              for (int64_t kw = 0; kw < g->k[2]; kw++) {
                int64_t iw = ow * g->stride[2] - g->pb[2] + kw * g->dil[2];
                if (iw < 0 || iw >= g->in[2]) continue;
                fn(arg, ((b * g->in[0] + id) * g->in[1] + ih) * g->in[2] + iw, out_pos,
                   (kd * g->k[1] + kh) * g->k[2] + kw);
              }
            }
          }
        }
}

typedef struct ref_job {
  const tfc_geom3 *g;
  int kind, dtype;
  const void *a, *b; /* per kind: (x, w), (w, dy), (x, dy); AvgPool3D: (x, -); AvgPool3DGrad: (-, dy);
                        MaxPool3DGrad: (x, y) */
  void *out;
  void *count; /* average pooling: double per output position; MaxPool3DGrad: the gradient */
} ref_job;

static void conv_tap(void *arg, int64_t ip, int64_t op, int64_t tap) {
  const ref_job *j = arg;
  int64_t ic = j->g->ic, oc = j->g->oc;
  const double *w = (const double *)(j->kind == K_CONV_BWD_INPUT ? j->a : j->b) + tap * ic * oc;
  if (j->kind == K_CONV_FWD) {
    const double *x = (const double *)j->a + ip * ic;
    double *y = (double *)j->out + op * oc;
    for (int64_t i = 0; i < ic; i++)
      for (int64_t o = 0; o < oc; o++) y[o] += x[i] * w[i * oc + o];
  } else if (j->kind == K_CONV_BWD_INPUT) {
    const double *dy = (const double *)j->b + op * oc;
    double *dx = (double *)j->out + ip * ic;
    for (int64_t i = 0; i < ic; i++)
      for (int64_t o = 0; o < oc; o++) dx[i] += w[i * oc + o] * dy[o];
  } else {
    const double *x = (const double *)j->a + ip * ic, *dy = (const double *)j->b + op * oc;
    double *dw = (double *)j->out + tap * ic * oc;
    for (int64_t i = 0; i < ic; i++)
      for (int64_t o = 0; o < oc; o++) dw[i * oc + o] += x[i] * dy[o];
  }
}

static double ld(int dtype, const void *p, int64_t i) {
  return dtype == TFC_DT_DOUBLE ? ((const double *)p)[i] : ((const float *)p)[i];
}
static void st_add(int dtype, void *p, int64_t i, double v) {
  if (dtype == TFC_DT_DOUBLE) ((double *)p)[i] += v;
  else ((float *)p)[i] += (float)v;
}

/* Pooling taps. K_AVG and K_AVG_GRAD first count each window's valid taps (a pass with out
 * NULL), then average / spread; K_MAX_GRAD adds the window's gradient (in `count`) to every
 * input equal to the window's maximum (TF's CPU rule). (MaxPool3D has only float kernels,
 * which are oneDNN's.) */
static void pool_tap(void *arg, int64_t ip, int64_t op, int64_t tap) {
  (void)tap;
  const ref_job *j = arg;
  int64_t ch = j->g->ic;
  if (j->out == NULL) {
    ((double *)j->count)[op] += 1;
    return;
  }
  for (int64_t k = 0; k < ch; k++) {
    int64_t i = ip * ch + k, o = op * ch + k;
    if (j->kind == K_AVG)
      st_add(j->dtype, j->out, o, ld(j->dtype, j->a, i) / ((double *)j->count)[op]);
    else if (j->kind == K_AVG_GRAD)
      st_add(j->dtype, j->out, i, ld(j->dtype, j->b, o) / ((double *)j->count)[op]);
    else if (ld(j->dtype, j->a, i) == ld(j->dtype, j->b, o)) /* K_MAX_GRAD: a = x, b = y */
      st_add(j->dtype, j->out, i, ld(j->dtype, j->count, o));
  }
}

typedef struct ref_range {
  const ref_job *j;
  tap_fn fn;
} ref_range;

static void ref_images(int64_t begin, int64_t end, void *arg) {
  const ref_range *r = arg;
  for_taps(r->j->g, begin, end, r->fn, (void *)r->j);
}

/* Visits images [0, n) with fn: on the intra-op pool when every image writes only its own
 * part of the output (all but the filter gradient, a sum over the batch). */
static void ref_pass(tfc_kernel_ctx *c, const ref_job *j, tap_fn fn) {
  ref_range r = {j, fn};
  const tfc_geom3 *g = j->g;
  if (j->kind == K_CONV_BWD_FILTER) {
    ref_images(0, g->n, &r);
    return;
  }
  int64_t per_image = prod3(g->out) * prod3(g->k) * g->ic * (j->kind <= K_CONV_BWD_FILTER ? g->oc : 1);
  tfc_kernel_parallel_for(c, g->n, per_image, ref_images, &r);
}

/* Runs kind on the plain-C path into out (zeroed here): the convolutions in double (a, b per
 * ref_job), AvgPool3D and AvgPool3DGrad in double, MaxPool3DGrad (a = x, b = y, grad). */
static int ref_run(tfc_kernel_ctx *c, const tfc_geom3 *g, int kind, int dtype, const void *a, const void *b,
                   const void *grad, tfc_tensor *out) {
  memset(out->data, 0, out->n_bytes);
  ref_job j = {g, kind, dtype, a, b, out->data, NULL};
  if (kind <= K_CONV_BWD_FILTER) {
    ref_pass(c, &j, conv_tap);
    return TFC_OK;
  }
  if (kind == K_MAX_GRAD) {
    j.count = (void *)grad;
    ref_pass(c, &j, pool_tap);
    return TFC_OK;
  }
  int64_t n_pos = g->n * prod3(g->out);
  double *count = calloc((size_t)(n_pos ? n_pos : 1), sizeof *count);
  if (!count) return TFC_OOM(c->status);
  j.count = count;
  j.out = NULL;
  ref_pass(c, &j, pool_tap); /* the valid taps of each window */
  j.out = out->data;
  ref_pass(c, &j, pool_tap);
  free(count);
  return TFC_OK;
}

/* ---- oneDNN ---- */

static void md5(dnnl_memory_desc_t *md, int64_t n, int64_t ch, const int64_t *sp, dnnl_format_tag_t tag) {
  int64_t d[5] = {n, ch, sp[0], sp[1], sp[2]};
  tfc_dnn_md_nd(md, 5, d, tag);
}

static int build_conv_layout(const conv3d_key *k, tfc_dnn_prim *p, int direct, tfc_status *s) {
  const tfc_geom3 *g = &k->g;
  dnnl_memory_desc_t src_u, w_u, dst_u, src_a, w_a, dst_a;
  md5(&src_u, g->n, g->ic, g->in, dnnl_ndhwc);
  md5(&w_u, g->oc, g->ic, g->k, dnnl_dhwio);
  md5(&dst_u, g->n, g->oc, g->out, dnnl_ndhwc);
  md5(&w_a, g->oc, g->ic, g->k, dnnl_format_tag_any); /* small: reordered once per call */
  md5(&src_a, g->n, g->ic, g->in, direct ? dnnl_ndhwc : dnnl_format_tag_any);
  md5(&dst_a, g->n, g->oc, g->out, direct ? dnnl_ndhwc : dnnl_format_tag_any);
  dnnl_dims_t strides, dil, pl, pr;
  for (int i = 0; i < 3; i++) {
    strides[i] = g->stride[i];
    dil[i] = g->dil[i] - 1;
    pl[i] = g->pb[i];
    pr[i] = g->pa[i];
  }
  dnnl_convolution_desc_t fwd, bwd;
  dnnl_primitive_desc_t hint = NULL, pd = NULL;
  TFC_TRY(tfc_dnn_check(dnnl_dilated_convolution_forward_desc_init(&fwd, dnnl_forward_training, dnnl_convolution_direct,
                                                                   &src_a, &w_a, NULL, &dst_a, strides, dil, pl, pr),
                        "convolution descriptor", s));
  TFC_TRY(tfc_dnn_pd_create(&fwd, NULL, &hint, s));
  if (k->kind == K_CONV_FWD) {
    int ids[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST}, out[3] = {0, 0, 1};
    dnnl_memory_desc_t u[3] = {src_u, w_u, dst_u};
    return tfc_dnn_prim_init(p, hint, ids, out, u, 3, s);
  }
  int rc;
  if (k->kind == K_CONV_BWD_INPUT) {
    int ids[3] = {DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_SRC}, out[3] = {0, 0, 1};
    dnnl_memory_desc_t u[3] = {dst_u, w_u, src_u};
    rc = tfc_dnn_check(dnnl_dilated_convolution_backward_data_desc_init(&bwd, dnnl_convolution_direct, &src_a, &w_a,
                                                                        &dst_a, strides, dil, pl, pr),
                       "convolution backward data descriptor", s);
    if (!rc) rc = tfc_dnn_pd_create(&bwd, hint, &pd, s);
    if (!rc) rc = tfc_dnn_prim_init(p, pd, ids, out, u, 3, s);
  } else {
    int ids[3] = {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS}, out[3] = {0, 0, 1};
    dnnl_memory_desc_t u[3] = {src_u, dst_u, w_u};
    rc = tfc_dnn_check(dnnl_dilated_convolution_backward_weights_desc_init(&bwd, dnnl_convolution_direct, &src_a, &w_a,
                                                                           NULL, &dst_a, strides, dil, pl, pr),
                       "convolution backward weights descriptor", s);
    if (!rc) rc = tfc_dnn_pd_create(&bwd, hint, &pd, s);
    if (!rc) rc = tfc_dnn_prim_init(p, pd, ids, out, u, 3, s);
  }
  dnnl_primitive_desc_destroy(hint);
  return rc;
}

static int build_pool(const conv3d_key *k, tfc_dnn_prim *p, tfc_status *s) {
  const tfc_geom3 *g = &k->g;
  dnnl_memory_desc_t src, dst;
  md5(&src, g->n, g->ic, g->in, dnnl_ndhwc);
  md5(&dst, g->n, g->ic, g->out, dnnl_ndhwc);
  dnnl_dims_t strides, kernel, pl, pr;
  for (int i = 0; i < 3; i++) {
    strides[i] = g->stride[i];
    kernel[i] = g->k[i];
    pl[i] = g->pb[i];
    pr[i] = g->pa[i];
  }
  return tfc_dnn_pool_prim(p, &src, &dst, strides, kernel, pl, pr, k->kind == K_MAX, k->kind == K_AVG_GRAD, s);
}

/* Activations in NDHWC with the filter in the layout oneDNN picks (reordered from DHWIO per
 * call) when it has a direct kernel for that; otherwise (a "ref" implementation) blocked
 * activations too, reordered per shard. Measured on a 4 x 16 x 32 x 32 x 16 input and a
 * 3 x 3 x 3 x 16 x 32 filter: forward 15 ms and both backprops 36 ms this way, 31 and 69 ms
 * with blocked activations, 50 and 215 ms with the filter kept in DHWIO (a GEMM kernel). */
static int build(const void *key, tfc_dnn_prim *p, tfc_status *s) {
  const conv3d_key *k = key;
  if (k->kind > K_CONV_BWD_FILTER) return build_pool(k, p, s);
  TFC_TRY(build_conv_layout(k, p, 1, s));
  if (strncmp(p->impl, "ref", 3) != 0) return TFC_OK;
  tfc_dnn_prim_fini(p);
  return build_conv_layout(k, p, 0, s);
}

/* One call: shards of the batch, each with its primitive and pointers. */
typedef struct dnn_call {
  int kind, n_shards;
  int64_t n;
  const tfc_dnn_prim *prim[2]; /* for shards of n / n_shards + 1 and n / n_shards images */
  const char *a;               /* batched first activation (src, or diff_dst for BWD_INPUT) */
  const char *b;               /* batched second (diff_dst for BWD_FILTER), or NULL */
  const void *w;               /* the filter (FWD, BWD_INPUT) */
  char *out;                   /* batched output, or the filter gradient */
  char **partial;              /* BWD_FILTER with several shards: one per shard */
  int64_t a_img, b_img, out_img; /* bytes of one image of each */
  tfc_status *st;
} dnn_call;

static void dnn_shard(int k, void *arg) {
  const dnn_call *r = arg;
  int64_t begin, size;
  tfc_conv_shard(r->n, r->n_shards, k, &begin, &size);
  const tfc_dnn_prim *p = r->prim[size == r->n / r->n_shards + 1 ? 0 : 1];
  void *ptr[3];
  ptr[0] = (void *)(r->a + begin * r->a_img);
  if (r->kind == K_CONV_BWD_FILTER) {
    ptr[1] = (void *)(r->b + begin * r->b_img);
    ptr[2] = r->partial ? r->partial[k] : r->out;
  } else if (r->kind <= K_CONV_BWD_FILTER) {
    ptr[1] = (void *)r->w;
    ptr[2] = r->out + begin * r->out_img;
  } else {
    ptr[1] = r->out + begin * r->out_img;
  }
  tfc_dnn_run(p, ptr, 0, &r->st[k]);
}

typedef struct sum_job {
  float **parts;
  int n;
} sum_job;

static void sum_partials(int64_t begin, int64_t end, void *arg) {
  const sum_job *j = arg;
  float *dst = j->parts[0];
  for (int k = 1; k < j->n; k++)
    for (int64_t i = begin; i < end; i++) dst[i] += j->parts[k][i];
}

/* Runs kind with oneDNN on float data. a/b/w per dnn_call; out: the output tensor. */
static int dnn_run(tfc_kernel_ctx *c, conv3d_state *st, const tfc_geom3 *g, const void *a, const void *b, const void *w,
                   tfc_tensor *out) {
  int kind = st->a.kind;
  int64_t in_img = prod3(g->in) * g->ic * 4, out_img = prod3(g->out) * g->oc * 4;
  double flops = 2.0 * (double)g->n * (double)prod3(g->out) * (double)prod3(g->k) * (double)g->ic *
                 (double)(kind <= K_CONV_BWD_FILTER ? g->oc : 2);
  int ns = tfc_conv_n_shards(c, g->n, flops);
  if (ns > TFC_CONV_MAX_PIECES) ns = TFC_CONV_MAX_PIECES;
  dnn_call r = {.kind = kind, .n_shards = ns, .n = g->n, .a = a, .b = b, .w = w, .out = out->data};
  switch (kind) {
    case K_CONV_FWD: case K_MAX: case K_AVG: r.a_img = in_img; r.out_img = out_img; break;
    case K_CONV_BWD_INPUT: case K_AVG_GRAD: r.a_img = out_img; r.out_img = in_img; break;
    default: r.a_img = in_img; r.b_img = out_img; break;
  }
  conv3d_key key;
  memset(&key, 0, sizeof key); /* padding bytes take part in the key's memcmp */
  key.kind = kind;
  key.g = *g;
  int64_t q = g->n / ns;
  for (int i = 0; i < 2; i++) {
    key.g.n = q + 1 - i;
    if (key.g.n == 0 || (i == 0 && g->n % ns == 0)) continue; /* no shard of that size */
    if (!(r.prim[i] = tfc_dnn_cache_get(&st->cache, &key, sizeof key, build, c->status))) return c->status->code;
  }
  tfc_status sts[TFC_CONV_MAX_PIECES];
  for (int k = 0; k < ns; k++) tfc_status_init(&sts[k]);
  r.st = sts;
  size_t w_bytes = (size_t)(prod3(g->k) * g->ic * g->oc * 4);
  char *block = NULL;
  size_t block_bytes = 0;
  char *parts[TFC_CONV_MAX_PIECES];
  if (kind == K_CONV_BWD_FILTER && ns > 1) {
    size_t bytes = (w_bytes + 63) / 64 * 64;
    block_bytes = bytes * (size_t)ns;
    if (!(block = tfc_block_alloc(block_bytes))) {
      TFC_OOM(c->status);
      goto out;
    }
    for (int k = 0; k < ns; k++) parts[k] = block + bytes * (size_t)k;
    r.partial = parts;
  }
  tfc_conv_for_shards(c, ns, dnn_shard, &r);
  for (int k = 0; k < ns; k++)
    if (sts[k].code) goto out;
  if (block) {
    sum_job j = {(float **)parts, ns};
    tfc_kernel_parallel_for(c, (int64_t)(w_bytes / 4), ns, sum_partials, &j);
    memcpy(out->data, parts[0], w_bytes);
  }
out:
  for (int k = 0; k < ns; k++) {
    if (sts[k].code && !c->status->code) tfc_status_move(c->status, &sts[k]);
    tfc_status_fini(&sts[k]);
  }
  if (block) tfc_block_free(block, block_bytes);
  return c->status->code;
}

/* ---- compute ---- */

static int conv_compute(tfc_kernel_ctx *c) {
  conv3d_state *st = c->state;
  tfc_conv3d_plan p;
  TFC_TRY(tfc_conv3d_plan_make(c, &st->a, &p));
  const tfc_geom3 *g = &p.g;
  int kind = st->a.kind, dtype = p.dtype;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dtype, p.out_dims, 5);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  if (p.zeros) {
    memset(out->data, 0, out->n_bytes); /* nothing to sum over */
    return TFC_OK;
  }
  const void *x = p.x ? p.x->data : NULL, *f = p.f ? p.f->data : NULL, *dy = p.grad ? p.grad->data : NULL;
  if (dtype == TFC_DT_DOUBLE) {
    if (kind == K_CONV_FWD) return ref_run(c, g, kind, dtype, x, f, NULL, out);
    if (kind == K_CONV_BWD_INPUT) return ref_run(c, g, kind, dtype, f, dy, NULL, out);
    return ref_run(c, g, kind, dtype, x, dy, NULL, out);
  }
  if (dtype != TFC_DT_FLOAT)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s for %s", c->node->op->name, tfc_dtype_name(dtype));
  if (kind == K_CONV_FWD) return dnn_run(c, st, g, x, NULL, f, out);
  if (kind == K_CONV_BWD_INPUT) return dnn_run(c, st, g, dy, NULL, f, out);
  return dnn_run(c, st, g, x, dy, NULL, out);
}

static int pool_compute(tfc_kernel_ctx *c) {
  conv3d_state *st = c->state;
  tfc_conv3d_plan p;
  TFC_TRY(tfc_conv3d_plan_make(c, &st->a, &p));
  int kind = st->a.kind, dtype = p.dtype;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dtype, p.out_dims, 5);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  if (p.zeros) {
    memset(out->data, 0, out->n_bytes);
    return TFC_OK;
  }
  if (dtype != TFC_DT_FLOAT && dtype != TFC_DT_DOUBLE)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s for %s", c->node->op->name, tfc_dtype_name(dtype));
  const void *x = p.x ? p.x->data : NULL, *grad = p.grad ? p.grad->data : NULL;
  if (dtype == TFC_DT_DOUBLE || kind == K_MAX_GRAD) {
    const void *b = kind == K_MAX_GRAD ? p.y->data : grad;
    return ref_run(c, &p.g, kind, dtype, x, b, grad, out);
  }
  return dnn_run(c, st, &p.g, grad ? grad : x, NULL, NULL, out);
}

#define F32 TFC_T(TFC_DT_FLOAT)
static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Conv3D, .type_attr = "T", .types = TFC_TYPES_FLOAT, .flags = TFC_KF_EXPENSIVE,
     .init = conv_fwd_init, .compute = conv_compute, .free_state = state_free},
    {.op = TFC_OP_Conv3DBackpropInputV2, .type_attr = "T", .types = TFC_TYPES_FLOAT, .host_memory_in = 1u << 0,
     .flags = TFC_KF_EXPENSIVE, .init = conv_bwd_input_init, .compute = conv_compute, .free_state = state_free},
    {.op = TFC_OP_Conv3DBackpropFilterV2, .type_attr = "T", .types = TFC_TYPES_FLOAT, .host_memory_in = 1u << 1,
     .flags = TFC_KF_EXPENSIVE, .init = conv_bwd_filter_init, .compute = conv_compute, .free_state = state_free},
    {.op = TFC_OP_MaxPool3D, .type_attr = "T", .types = F32, .flags = TFC_KF_EXPENSIVE, .init = max_init,
     .compute = pool_compute, .free_state = state_free},
    {.op = TFC_OP_AvgPool3D, .type_attr = "T", .types = TFC_TYPES_FLOAT, .flags = TFC_KF_EXPENSIVE, .init = avg_init,
     .compute = pool_compute, .free_state = state_free},
    {.op = TFC_OP_MaxPool3DGrad, .type_attr = "T", .types = F32, .flags = TFC_KF_EXPENSIVE, .init = max_grad_init,
     .compute = pool_compute, .free_state = state_free},
    {.op = TFC_OP_AvgPool3DGrad, .type_attr = "T", .types = TFC_TYPES_FLOAT, .host_memory_in = 1u << 0,
     .flags = TFC_KF_EXPENSIVE, .init = avg_grad_init, .compute = pool_compute, .free_state = state_free},
};

int tfc_cpu_kernels_conv3d(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
