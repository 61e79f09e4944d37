/*
 * kernels_conv — Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter on the CPU, and the
 * registration of the whole convolution and pooling family (pooling rows: kernels_pool.c).
 *
 * float goes to oneDNN 2.x: per node, one primitive per shard geometry, built on first use
 * and cached in the kernel state; the batch is cut into the node's share of intra-op threads
 * and each shard runs a single-threaded primitive (kernels_conv_int.h says why). A forward
 * NHWC convolution with fewer images than threads (batch-1 inference) is cut into bands of
 * output rows instead, each a convolution of its own over the input rows it reads; when its
 * Const filter outweighs its activations (ResNet50's last stage at batch 1: 9 MB of filter,
 * 0.2 MB of activations), into slices of output channels instead, so that each thread reads
 * only its slice of the filter (see oc_split). Filters arrive in TF's HWIO layout and are reordered once per call into the layout
 * the primitive chose (once per node when the filter is a Const node's value, immutable); activations stay in the user's layout (NHWC or NCHW) when oneDNN has
 * a direct kernel for it and are otherwise reordered per shard; a 3x3 forward at stride 1 runs
 * oneDNN's Winograd kernel in its blocked layout (see use_winograd). The filter gradient is a sum
 * over the batch: each shard writes its partial sum, the partials are added, and the total
 * is reordered to HWIO once. double runs plain C loops (kernels_conv_ref.c), used by the
 * float64 gradient checks. _FusedConv2D is the forward with its bias, residual addend and
 * activation as the primitive's bias, a sum post-op and an eltwise post-op
 * (kernels_conv_int.h), in the same cache; in double the plain-C epilogue follows the sum.
 *
 * Attrs (in init) and shapes (in compute) are checked by device/conv_plan.h, with TF 1.15's
 * kernel texts, shared with the GPU kernels so both devices refuse the same inputs.
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "device/cpu/kernels_conv_int.h"

/* A filter reordered into a primitive's layout, kept for a node whose filter is a Const
 * node's value (the same immutable buffer every step). */
typedef struct packed_filter {
  const void *src;
  dnnl_memory_desc_t md;
  void *data;
} packed_filter;

#define MAX_PACKED 8

/* A Const filter's output channels [o0, o1) as a dense HWIO filter of their own. */
typedef struct filter_slice {
  const void *src;
  int64_t o0, o1;
  float *data;
} filter_slice;

#define MAX_SLICES 8

typedef struct conv_state {
  int kind;
  tfc_conv_attrs attrs;
  tfc_dnn_cache cache;
  int const_filter; /* input 1 comes from a Const node */
  tfc_conv_fusion fuse; /* _FusedConv2D's bias and activation */
  pthread_mutex_t packed_mu;
  int n_packed;
  packed_filter packed[MAX_PACKED];
  int n_slices; /* under packed_mu */
  filter_slice slices[MAX_SLICES];
} conv_state;

/* The cache key: everything a primitive depends on, with n = the shard's minibatch. */
typedef struct conv_key {
  int kind;
  tfc_window_geom g;
  tfc_conv_fusion fuse;
} conv_key;

/* ---- init ---- */

static int conv_init_kind(const tfc_node *n, void **state, tfc_status *s, int kind) {
  tfc_conv_attrs a;
  tfc_conv_fusion f;
  TFC_TRY(tfc_conv_attrs_parse(n, &a, s));
  TFC_TRY(tfc_conv_fusion_parse(n, &f, s));
  conv_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  st->kind = kind;
  st->fuse = f;
  st->attrs = a;
  tfc_dnn_cache_init(&st->cache);
  st->const_filter = kind != TFC_CONV_BWD_FILTER && n->n_inputs > 1 && strcmp(n->inputs[1].node->op->name, "Const") == 0;
  pthread_mutex_init(&st->packed_mu, NULL);
  *state = st;
  return TFC_OK;
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
  tfc_dnn_cache_fini(&st->cache);
  for (int i = 0; i < st->n_packed; i++) free(st->packed[i].data);
  for (int i = 0; i < st->n_slices; i++) free(st->slices[i].data);
  pthread_mutex_destroy(&st->packed_mu);
  free(st);
}

/* ---- oneDNN primitives ---- */

static int build_conv_layout(const void *key, tfc_dnn_prim *p, int direct, dnnl_alg_kind_t alg, tfc_status *s) {
  const conv_key *k = key;
  const tfc_window_geom *g = &k->g;
  dnnl_format_tag_t act = g->nchw ? dnnl_nchw : dnnl_nhwc;
  dnnl_memory_desc_t src_u, w_u, dst_u, src_a, w_a, dst_a;
  tfc_dnn_md(&src_u, g->n, g->ic, g->ih, g->iw, act);
  tfc_dnn_md(&w_u, g->oc, g->ic, g->kh, g->kw, dnnl_hwio);
  tfc_dnn_md(&dst_u, g->n, g->oc, g->oh, g->ow, act);
  /* Weights are small and reordered once per call: let oneDNN pick their blocking. The
   * activations stay in the user's layout when `direct` (see build_conv). */
  tfc_dnn_md(&w_a, g->oc, g->ic, g->kh, g->kw, dnnl_format_tag_any);
  tfc_dnn_md(&src_a, g->n, g->ic, g->ih, g->iw, direct ? act : dnnl_format_tag_any);
  tfc_dnn_md(&dst_a, g->n, g->oc, g->oh, g->ow, direct ? act : dnnl_format_tag_any);
  dnnl_dims_t strides = {g->sh, g->sw}, dil = {g->dh - 1, g->dw - 1}, pl = {g->pt, g->pl}, pr = {g->pb, g->pr};
  dnnl_convolution_desc_t fwd, bwd;
  dnnl_primitive_desc_t hint = NULL, pd = NULL;
  if (k->fuse.on) { /* inference only: bias as the primitive's, the activation a post-op */
    dnnl_memory_desc_t b_u;
    dnnl_dims_t bd = {g->oc};
    TFC_TRY(tfc_dnn_check(dnnl_memory_desc_init_by_tag(&b_u, 1, bd, dnnl_f32, dnnl_a), "bias desc", s));
    TFC_TRY(tfc_dnn_check(dnnl_dilated_convolution_forward_desc_init(&fwd, dnnl_forward_inference,
                                                                     alg, &src_a, &w_a, &b_u,
                                                                     &dst_a, strides, dil, pl, pr),
                          "convolution descriptor", s));
    TFC_TRY(tfc_dnn_pd_create_fused(&fwd, NULL, &k->fuse, &pd, s));
    int ids[4] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST, DNNL_ARG_BIAS}, out[4] = {0, 0, 1, 0};
    dnnl_memory_desc_t u[4] = {src_u, w_u, dst_u, b_u};
    return tfc_dnn_prim_init(p, pd, ids, out, u, 4, s);
  }
  TFC_TRY(tfc_dnn_check(dnnl_dilated_convolution_forward_desc_init(&fwd, dnnl_forward_training, alg,
                                                                   &src_a, &w_a, NULL, &dst_a, strides, dil, pl, pr),
                        "convolution descriptor", s));
  TFC_TRY(tfc_dnn_pd_create(&fwd, NULL, &hint, s));
  int rc = TFC_OK;
  switch (k->kind) {
    case TFC_CONV_FWD: {
      int ids[3] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST}, out[3] = {0, 0, 1};
      dnnl_memory_desc_t u[3] = {src_u, w_u, dst_u};
      rc = tfc_dnn_prim_init(p, hint, ids, out, u, 3, s);
      return rc;
    }
    case TFC_CONV_BWD_INPUT: {
      int ids[3] = {DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_SRC}, out[3] = {0, 0, 1};
      dnnl_memory_desc_t u[3] = {dst_u, w_u, src_u};
      rc = tfc_dnn_check(dnnl_dilated_convolution_backward_data_desc_init(&bwd, dnnl_convolution_direct, &src_a, &w_a,
                                                                          &dst_a, strides, dil, pl, pr),
                         "convolution backward data descriptor", s);
      if (!rc) rc = tfc_dnn_pd_create(&bwd, hint, &pd, s);
      if (!rc) rc = tfc_dnn_prim_init(p, pd, ids, out, u, 3, s);
      break;
    }
    default: {
      int ids[3] = {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS}, out[3] = {0, 0, 1};
      dnnl_memory_desc_t u[3] = {src_u, dst_u, w_u};
      rc = tfc_dnn_check(dnnl_dilated_convolution_backward_weights_desc_init(&bwd, dnnl_convolution_direct, &src_a,
                                                                             &w_a, NULL, &dst_a, strides, dil, pl, pr),
                         "convolution backward weights descriptor", s);
      if (!rc) rc = tfc_dnn_pd_create(&bwd, hint, &pd, s);
      if (!rc) rc = tfc_dnn_prim_init(p, pd, ids, out, u, 3, s);
      break;
    }
  }
  dnnl_primitive_desc_destroy(hint);
  return rc;
}

/* Winograd for a float forward 3x3 convolution at stride 1 without dilation (all of ResNet's
 * and VGG's 3x3 layers): oneDNN's F(4x4, 3x3) (F(2x2, 3x3) at batch 1) needs a third to half
 * the time of its direct kernel on AVX-512 (ResNet50 at batch 32: 0.83 of the direct run's
 * time, reorders to its blocked layout included). Its error is about twice the direct kernel's
 * (1e-6 of the output's scale against 6e-7, measured against float64), as with the Winograd
 * algorithms cuDNN picks under TF on a GPU. Not with a fused Add (the sum post-op must read the
 * user's buffer); TFC_CONV_WINOGRAD=0 in the environment turns it off; a CPU without a Winograd
 * kernel gets the direct one. */
static pthread_once_t winograd_once = PTHREAD_ONCE_INIT;
static int winograd_off;

static void winograd_env(void) {
  const char *v = getenv("TFC_CONV_WINOGRAD");
  winograd_off = v && strcmp(v, "0") == 0;
}

static int use_winograd(const conv_key *k) {
  pthread_once(&winograd_once, winograd_env);
  const tfc_window_geom *g = &k->g;
  return !winograd_off && k->kind == TFC_CONV_FWD && !k->fuse.add && g->kh == 3 && g->kw == 3 && g->sh == 1 && g->sw == 1 &&
         g->dh == 1 && g->dw == 1;
}

/* Activations in the user's layout first: oneDNN 2.6 has direct NHWC (and NCHW) kernels,
 * which on the benchmark CNN measured as fast as its blocked layout for 32->64 channels and
 * 7x faster for the one-channel layer's filter gradient, with no per-shard reorders. Only
 * when that finds no optimized kernel (a "ref" implementation) does `any` let oneDNN pick a
 * blocked layout, paying a reorder per shard on each side. Winograd (above) goes first. */
static int build_conv(const void *key, tfc_dnn_prim *p, tfc_status *s) {
  if (use_winograd(key)) {
    tfc_status ws;
    tfc_status_init(&ws);
    int rc = build_conv_layout(key, p, 0, dnnl_convolution_winograd, &ws);
    tfc_status_fini(&ws);
    if (rc == TFC_OK) return TFC_OK;
  }
  TFC_TRY(build_conv_layout(key, p, 1, dnnl_convolution_direct, s));
  /* A fused Add's sum post-op reads the output, which must then be the user's buffer. */
  if (strncmp(p->impl, "ref", 3) != 0 || ((const conv_key *)key)->fuse.add) return TFC_OK;
  tfc_dnn_prim_fini(p);
  return build_conv_layout(key, p, 0, dnnl_convolution_direct, s);
}

/* One shard of a call: its primitive, where its activations start and end (bytes into the
 * batched input and output), and the filter it reads (for the filter gradient: its partial). */
typedef struct conv_shard_plan {
  const tfc_dnn_prim *prim;
  int64_t in_off, out_off, out_bytes;
  void *w;
  unsigned pre; /* prearranged mask for tfc_dnn_run */
} conv_shard_plan;

/* One call: the shards and the batched pointers. */
typedef struct conv_run {
  int kind;
  const conv_shard_plan *sp;
  char *act_in, *act_out;      /* batched input and output (per kind, see conv_dnn) */
  const void *bias;            /* a fused forward's bias */
  const char *addend;          /* a fused Add's addend, copied into each output shard first */
  tfc_status *st;              /* one per shard */
} conv_run;

static void conv_shard(int k, void *arg) {
  const conv_run *r = arg;
  const conv_shard_plan *q = &r->sp[k];
  char *in = r->act_in + q->in_off, *out = r->act_out + q->out_off;
  void *ptr[4];
  if (r->kind == TFC_CONV_BWD_FILTER) { /* src, diff_dst batched; diff_weights a partial */
    ptr[0] = in;
    ptr[1] = out;
    ptr[2] = q->w;
  } else { /* (diff_)src or diff_dst batched in and out; weights shared */
    if (r->addend) memcpy(out, r->addend + q->out_off, (size_t)q->out_bytes);
    ptr[0] = in;
    ptr[1] = q->w;
    ptr[2] = out;
    ptr[3] = (void *)r->bias;
  }
  tfc_dnn_run(q->prim, ptr, q->pre, &r->st[k]);
}

typedef struct sum_job {
  float **parts;
  int n;
} sum_job;

static void sum_partials(int64_t begin, int64_t end, void *arg) {
  const sum_job *j = arg;
  float *dst = j->parts[0];
  for (int k = 1; k < j->n; k++) {
    const float *src = j->parts[k];
    for (int64_t i = begin; i < end; i++) dst[i] += src[i];
  }
}

/* The Const filter b in p's weights layout, reordered on first use and kept in st; NULL with
 * status on failure, or without when st already keeps MAX_PACKED (the caller then reorders
 * per call; a Const filter is one buffer in one or two layouts, so this does not happen). */
static void *packed_filter_get(conv_state *st, const tfc_dnn_prim *p, const void *b, tfc_status *s) {
  pthread_mutex_lock(&st->packed_mu);
  void *data = NULL;
  for (int i = 0; i < st->n_packed && !data; i++)
    if (st->packed[i].src == b && dnnl_memory_desc_equal(&st->packed[i].md, &p->args[1].prim)) data = st->packed[i].data;
  if (!data && st->n_packed < MAX_PACKED) {
    size_t bytes = (tfc_dnn_arg_bytes(p, 1) + 63) / 64 * 64;
    data = aligned_alloc(64, bytes);
    if (!data) {
      TFC_OOM(s);
    } else if (tfc_dnn_reorder_arg(p, 1, (void *)b, data, 1, s)) {
      free(data);
      data = NULL;
    } else {
      st->packed[st->n_packed++] = (packed_filter){b, p->args[1].prim, data};
    }
  }
  pthread_mutex_unlock(&st->packed_mu);
  return data;
}

/* Each piece's primitive and offsets (sp has room for TFC_CONV_MAX_PIECES); filters are set by
 * the caller. */
static int plan_shards(tfc_kernel_ctx *c, conv_state *st, const tfc_window_geom *g, double flops, int64_t in_img,
                       int64_t out_img, conv_shard_plan *sp, int *ns) {
  tfc_conv_piece pc[TFC_CONV_MAX_PIECES];
  tfc_conv_pieces(c, g, flops, st->kind == TFC_CONV_FWD && !g->nchw, in_img, out_img, pc, TFC_CONV_MAX_PIECES, ns);
  conv_key key, last_key;
  memset(&key, 0, sizeof key); /* padding bytes take part in the key's memcmp */
  key.kind = st->kind;
  key.fuse = st->fuse;
  const tfc_dnn_prim *last = NULL;
  for (int k = 0; k < *ns; k++) {
    conv_shard_plan *q = &sp[k];
    q->w = NULL;
    q->pre = 0;
    q->in_off = pc[k].in_off;
    q->out_off = pc[k].out_off;
    q->out_bytes = pc[k].out_bytes;
    key.g = pc[k].g;
    if (last && memcmp(&key, &last_key, sizeof key) == 0) {
      q->prim = last;
    } else if (!(q->prim = last = tfc_dnn_cache_get(&st->cache, &key, sizeof key, build_conv, c->status))) {
      return c->status->code;
    }
    last_key = key;
  }
  return TFC_OK;
}

/* ---- output-channel slices (forward, NHWC, Const filter) ---- */

/* Channels [o0, o1) of the Const HWIO filter b (kh*kw*ic rows of oc), copied once and kept in
 * st; NULL with status on failure, or without when st already keeps MAX_SLICES. */
static const float *filter_slice_get(conv_state *st, const tfc_window_geom *g, const float *b, int64_t o0, int64_t o1,
                                     tfc_status *s) {
  pthread_mutex_lock(&st->packed_mu);
  const float *data = NULL;
  for (int i = 0; i < st->n_slices && !data; i++)
    if (st->slices[i].src == b && st->slices[i].o0 == o0 && st->slices[i].o1 == o1) data = st->slices[i].data;
  if (!data && st->n_slices < MAX_SLICES) {
    int64_t rows = g->kh * g->kw * g->ic, w = o1 - o0;
    float *d = malloc(sizeof(float) * (size_t)(rows * w));
    if (!d) {
      TFC_OOM(s);
    } else {
      for (int64_t r = 0; r < rows; r++) memcpy(d + r * w, b + r * g->oc + o0, sizeof(float) * (size_t)w);
      st->slices[st->n_slices++] = (filter_slice){b, o0, o1, d};
      data = d;
    }
  }
  pthread_mutex_unlock(&st->packed_mu);
  return data;
}

/* One slice of a call: channels [o0, o1) into a dense buffer of its own, then copied into
 * the output's columns. */
typedef struct oc_slice {
  const tfc_dnn_prim *prim;
  int64_t o0, o1;
  void *w;
  unsigned pre;
  float *tmp;
} oc_slice;

typedef struct oc_run {
  const oc_slice *sl;
  const char *in;
  float *out;
  const float *bias;
  const float *addend; /* a fused Add's addend (the output itself when it was forwarded) */
  int64_t pixels, oc;
  tfc_status *st;
} oc_run;

static void oc_slice_run(int k, void *arg) {
  const oc_run *r = arg;
  const oc_slice *q = &r->sl[k];
  int64_t w = q->o1 - q->o0;
  if (r->addend)
    for (int64_t p = 0; p < r->pixels; p++) memcpy(q->tmp + p * w, r->addend + p * r->oc + q->o0, sizeof(float) * (size_t)w);
  void *ptr[4] = {(void *)r->in, q->w, q->tmp, (void *)(r->bias ? r->bias + q->o0 : NULL)};
  if (tfc_dnn_run(q->prim, ptr, q->pre, &r->st[k])) return;
  for (int64_t p = 0; p < r->pixels; p++) memcpy(r->out + p * r->oc + q->o0, q->tmp + p * w, sizeof(float) * (size_t)w);
}

/* The slice count for a forward call of g (0: use images or bands): a Const filter in NHWC
 * worth more threads than images, larger than the activations it meets (at batch 1 every
 * band would read the whole filter; slices read one part each), in slices of whole 16-channel
 * blocks. */
static int oc_split_count(const tfc_kernel_ctx *c, const conv_state *st, const tfc_window_geom *g, double flops) {
  if (st->kind != TFC_CONV_FWD || g->nchw || !st->const_filter || g->oc < 32) return 0;
  int want = tfc_conv_n_shards(c, INT64_MAX, flops);
  if (want <= g->n) return 0;
  double filter = 4.0 * (double)(g->kh * g->kw * g->ic * g->oc);
  double acts = 4.0 * (double)g->n * (double)(g->ih * g->iw * g->ic + g->oh * g->ow * g->oc);
  if (filter < acts) return 0;
  int64_t blocks = g->oc / 16;
  if (want > blocks) want = (int)blocks;
  if (want > MAX_SLICES / 2) want = MAX_SLICES / 2;
  return want >= 2 ? want : 0;
}

/* The forward of g in `n_sl` output-channel slices (see oc_split_count). Returns the status
 * code, or -1 (nothing done, no status) when the node's slice or packed-filter cache is full
 * and the caller should run the call the usual way. */
static int conv_oc_split(tfc_kernel_ctx *c, conv_state *st, const tfc_window_geom *g, int n_sl, const void *a,
                         const void *b, const void *bias, const void *addend, void *out) {
  oc_slice sl[MAX_SLICES];
  tfc_status sts[MAX_SLICES];
  int64_t pixels = g->n * g->oh * g->ow, per = (g->oc / 16 + n_sl - 1) / n_sl * 16;
  /* One block: each slice's output at a 64-byte boundary (at most n_sl + 1 slices). */
  int64_t floats = (pixels * g->oc + 16 * (n_sl + 1) + 15) / 16 * 16;
  size_t tmp_bytes = sizeof(float) * (size_t)floats;
  float *tmp = tfc_block_alloc(tmp_bytes);
  if (!tmp) return TFC_OOM(c->status);
  conv_key key;
  memset(&key, 0, sizeof key); /* padding bytes take part in the key's memcmp */
  key.kind = st->kind;
  key.fuse = st->fuse;
  int n = 0;
  float *t = tmp;
  for (int64_t o0 = 0; o0 < g->oc; o0 += per, n++) {
    oc_slice *q = &sl[n];
    q->o0 = o0;
    q->o1 = o0 + per < g->oc ? o0 + per : g->oc;
    q->tmp = t;
    t += (pixels * (q->o1 - q->o0) + 15) / 16 * 16;
    key.g = *g;
    key.g.oc = q->o1 - q->o0;
    if (!(q->prim = tfc_dnn_cache_get(&st->cache, &key, sizeof key, build_conv, c->status))) goto out;
    const float *slice = filter_slice_get(st, g, b, q->o0, q->o1, c->status);
    void *packed = slice && q->prim->args[1].reorder ? packed_filter_get(st, q->prim, slice, c->status) : NULL;
    if (c->status->code) goto out;
    if (!slice || (q->prim->args[1].reorder && !packed)) { /* the node's caches are full */
      tfc_block_free(tmp, tmp_bytes);
      return -1;
    }
    q->w = packed ? packed : (void *)slice;
    q->pre = packed ? 1u << 1 : 0;
  }
  for (int k = 0; k < n; k++) tfc_status_init(&sts[k]);
  oc_run r = {sl, a, out, bias, st->fuse.add ? (addend ? addend : out) : NULL, pixels, g->oc, sts};
  tfc_conv_for_shards(c, n, oc_slice_run, &r);
  for (int k = 0; k < n; k++) {
    if (sts[k].code && !c->status->code) tfc_status_move(c->status, &sts[k]);
    tfc_status_fini(&sts[k]);
  }
out:
  tfc_block_free(tmp, tmp_bytes);
  return c->status->code;
}

/* Runs one conv kind with oneDNN. For FWD: a = input, b = filter, out = output (holding the
 * addend already when fused with Add and addend is NULL). BWD_INPUT: a = out_backprop, b =
 * filter, out = input gradient. BWD_FILTER: a = input, b = out_backprop, out = filter
 * gradient. */
static int conv_dnn(tfc_kernel_ctx *c, conv_state *st, const tfc_window_geom *g, const void *a, const void *b,
                    const void *bias, const void *addend, void *out) {
  double flops = 2.0 * (double)g->n * (double)(g->oh * g->ow) * (double)(g->oc * g->kh * g->kw * g->ic);
  int64_t src_img = g->ih * g->iw * g->ic * 4, dst_img = g->oh * g->ow * g->oc * 4;
  int fwd = st->kind == TFC_CONV_FWD, bwd_filter = st->kind == TFC_CONV_BWD_FILTER;
  int n_sl = oc_split_count(c, st, g, flops);
  if (n_sl) {
    int rc = conv_oc_split(c, st, g, n_sl, a, b, bias, addend, out);
    if (rc >= 0) return rc;
  }
  conv_shard_plan sp[TFC_CONV_MAX_PIECES];
  void *tmp[TFC_CONV_MAX_PIECES];
  size_t tmp_bytes[TFC_CONV_MAX_PIECES], block_bytes = 0;
  tfc_status sts[TFC_CONV_MAX_PIECES];
  int ns = 0, n_tmp = 0;
  char **partial = NULL;
  TFC_TRY(plan_shards(c, st, g, flops, fwd || bwd_filter ? src_img : dst_img, fwd || bwd_filter ? dst_img : src_img, sp,
                      &ns));
  for (int k = 0; k < ns; k++) tfc_status_init(&sts[k]);
  conv_run r = {.kind = st->kind, .sp = sp, .act_in = (char *)a, .bias = bias, .addend = addend, .st = sts};
  if (bwd_filter) {
    r.act_out = (char *)b;
    for (int k = 0; k < ns; k++) sp[k].w = out;
    if (ns > 1) {
      /* Partials in the primitive's layout when every shard's agrees on it (one reorder of the
       * total at the end), else in HWIO. */
      int in_prim = 1;
      for (int k = 1; k < ns; k++) in_prim &= dnnl_memory_desc_equal(&sp[0].prim->args[2].prim, &sp[k].prim->args[2].prim);
      size_t bytes = in_prim ? tfc_dnn_arg_bytes(sp[0].prim, 2) : (size_t)(g->kh * g->kw * g->ic * g->oc * 4);
      bytes = (bytes + 63) / 64 * 64;
      partial = calloc((size_t)ns, sizeof *partial);
      block_bytes = bytes * (size_t)ns;
      char *block = partial ? tfc_block_alloc(block_bytes) : NULL;
      if (!block) {
        free(partial);
        partial = NULL;
        TFC_OOM(c->status);
        goto out;
      }
      for (int k = 0; k < ns; k++) {
        partial[k] = block + bytes * (size_t)k;
        sp[k].w = partial[k];
        sp[k].pre = in_prim ? 1u << 2 : 0;
      }
      tfc_conv_for_shards(c, ns, conv_shard, &r);
      for (int k = 0; k < ns; k++)
        if (sts[k].code) goto out;
      sum_job j = {(float **)partial, ns};
      tfc_kernel_parallel_for(c, (int64_t)(bytes / 4), ns, sum_partials, &j);
      if (in_prim && sp[0].prim->args[2].reorder)
        tfc_dnn_reorder_arg(sp[0].prim, 2, out, partial[0], 0, c->status);
      else
        memcpy(out, partial[0], (size_t)(g->kh * g->kw * g->ic * g->oc * 4));
      goto out;
    }
  } else {
    r.act_out = out;
    /* The filter is reordered once per call and layout, shared by the shards that use it; a
     * Const filter once per node and layout. */
    for (int k = 0; k < ns; k++) {
      const tfc_dnn_prim *p = sp[k].prim;
      sp[k].w = (void *)b;
      sp[k].pre = 0;
      if (!p->args[1].reorder) continue;
      sp[k].pre = 1u << 1;
      for (int j = 0; j < k && sp[k].w == b; j++)
        if (sp[j].pre && dnnl_memory_desc_equal(&p->args[1].prim, &sp[j].prim->args[1].prim)) sp[k].w = sp[j].w;
      if (sp[k].w != b) continue;
      void *packed = st->const_filter ? packed_filter_get(st, p, b, c->status) : NULL;
      if (c->status->code) goto out;
      if (packed) {
        sp[k].w = packed;
        continue;
      }
      size_t bytes = (tfc_dnn_arg_bytes(p, 1) + 63) / 64 * 64;
      if (!(tmp[n_tmp] = tfc_block_alloc(bytes))) {
        TFC_OOM(c->status);
        goto out;
      }
      tmp_bytes[n_tmp] = bytes;
      sp[k].w = tmp[n_tmp++];
      if (tfc_dnn_reorder_arg(p, 1, (void *)b, sp[k].w, 1, c->status)) goto out;
    }
  }
  tfc_conv_for_shards(c, ns, conv_shard, &r);
out:
  for (int k = 0; k < ns; k++) {
    if (sts[k].code && !c->status->code) tfc_status_move(c->status, &sts[k]);
    tfc_status_fini(&sts[k]);
  }
  for (int i = 0; i < n_tmp; i++) tfc_block_free(tmp[i], tmp_bytes[i]);
  if (partial) tfc_block_free(partial[0], block_bytes);
  free(partial);
  return c->status->code;
}

/* ---- compute ---- */

static int conv_compute(tfc_kernel_ctx *c) {
  conv_state *st = c->state;
  tfc_conv_plan p;
  TFC_TRY(tfc_conv_plan_make(c, &st->attrs, st->kind, &p));
  const tfc_window_geom *g = &p.g;
  const void *bias = NULL, *addend = NULL;
  if (st->fuse.on) {
    TFC_TRY(tfc_conv_fusion_check_bias(c, g->oc));
    TFC_TRY(tfc_conv_fusion_check_addend(c, &st->fuse, p.out_dims, 4));
    bias = c->inputs[2]->data;
    if (st->fuse.add) addend = c->inputs[3]->data;
  }
  /* oneDNN's sum post-op adds what the output holds: the addend's own buffer when this node
   * holds its only reference, else a copy made shard by shard. */
  int dnn = p.dtype == TFC_DT_FLOAT && !p.zeros;
  tfc_tensor *out = addend && dnn ? tfc_kernel_forward_or_alloc(c, 3, 0, p.dtype, p.out_dims, 4)
                                  : tfc_kernel_alloc_output(c, 0, p.dtype, p.out_dims, 4);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  if (addend && out->data == addend) addend = NULL;
  /* The plain-C epilogue of a fused node whose sum did not run on oneDNN. */
  int64_t plane = g->oh * g->ow;
  if (p.zeros) {
    memset(out->data, 0, out->n_bytes);
    if (bias) tfc_conv_fusion_ref(c, &st->fuse, p.dtype, out->data, bias, addend, g->n * plane, g->oc, g->nchw, plane);
    return TFC_OK;
  }
  if (p.dtype == TFC_DT_DOUBLE) {
    if (st->kind == TFC_CONV_FWD) {
      tfc_conv_ref_fwd(c, g, p.x->data, p.f->data, out->data);
      if (bias) tfc_conv_fusion_ref(c, &st->fuse, p.dtype, out->data, bias, addend, g->n * plane, g->oc, g->nchw, plane);
    }
    else if (st->kind == TFC_CONV_BWD_INPUT)
      tfc_conv_ref_bwd_input(c, g, p.f->data, p.dy->data, out->data);
    else
      tfc_conv_ref_bwd_filter(c, g, p.x->data, p.dy->data, out->data);
    return TFC_OK;
  }
  if (p.dtype != TFC_DT_FLOAT)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s for %s", c->node->op->name, tfc_dtype_name(p.dtype));
  if (st->kind == TFC_CONV_FWD) return conv_dnn(c, st, g, p.x->data, p.f->data, bias, addend, out->data);
  if (st->kind == TFC_CONV_BWD_INPUT) return conv_dnn(c, st, g, p.dy->data, p.f->data, NULL, NULL, out->data);
  return conv_dnn(c, st, g, p.x->data, p.dy->data, NULL, NULL, out->data);
}

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Conv2D, .type_attr = "T", .types = TFC_TYPES_FLOAT, .flags = TFC_KF_EXPENSIVE,
     .init = conv_fwd_init, .compute = conv_compute, .free_state = conv_free},
    {.op = TFC_OP__FusedConv2D, .type_attr = "T", .types = TFC_TYPES_FLOAT, .flags = TFC_KF_EXPENSIVE,
     .init = conv_fwd_init, .compute = conv_compute, .free_state = conv_free},
    {.op = TFC_OP_Conv2DBackpropInput, .type_attr = "T", .types = TFC_TYPES_FLOAT, .host_memory_in = 1u << 0,
     .flags = TFC_KF_EXPENSIVE, .init = conv_bwd_input_init, .compute = conv_compute, .free_state = conv_free},
    {.op = TFC_OP_Conv2DBackpropFilter, .type_attr = "T", .types = TFC_TYPES_FLOAT, .host_memory_in = 1u << 1,
     .flags = TFC_KF_EXPENSIVE, .init = conv_bwd_filter_init, .compute = conv_compute, .free_state = conv_free},
};

int tfc_cpu_kernels_conv(tfc_kernel_table *t, tfc_status *s) {
  TFC_TRY(tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s));
  TFC_TRY(tfc_cpu_kernels_depthwise(t, s));
  TFC_TRY(tfc_cpu_kernels_conv3d(t, s));
  return tfc_cpu_kernels_pool(t, s);
}
