/*
 * kernels_depthwise_dnnl — DepthwiseConv2dNative's float forward on oneDNN, as a grouped
 * convolution with one group per input channel: TF's filter [kh, kw, in, mult] is oneDNN's
 * (g = in, oc/g = mult, ic/g = 1, kh, kw) in the hwigo layout, and TF's output channel
 * ch * mult + m is oneDNN's grouped channel order, so NHWC input and output map one to one.
 *
 * The node's kernel state owns a tfc_dnn_cache of primitives keyed by the geometry (with the
 * piece's minibatch or band of rows), built once and shared by concurrent steps; the call is
 * cut into the node's share of the intra-op pool as for Conv2D (tfc_conv_pieces: images, or
 * bands of output rows at batch 1; kernels_conv_int.h says why oneDNN runs single-threaded per
 * calling thread). As for Conv2D, the activations stay in NHWC when
 * oneDNN has an optimized kernel for it, and are otherwise reordered into the blocked layout
 * it picks. The filter (a few KiB) is reordered by each shard. _FusedDepthwiseConv2dNative adds
 * its bias as the primitive's and its activation as an eltwise post-op (kernels_conv_int.h).
 *
 * tfc_depthwise_dnn_fwd declines (returns 0, nothing set) what it does not handle: no state
 * (a node built without init), or oneDNN reporting the geometry unimplemented; the caller then
 * runs its reference loop. Other oneDNN failures are errors.
 */
#include <stdlib.h>
#include <string.h>

#include "device/cpu/kernels_conv_int.h"
#include "device/cpu/kernels_depthwise.h"

typedef struct dw_key {
  tfc_window_geom g; /* oc = in channels * multiplier; n = the shard's minibatch */
  int direct;
  tfc_conv_fusion fuse;
} dw_key;

typedef struct dw_state {
  tfc_dnn_cache cache;
  tfc_conv_fusion fuse; /* _FusedDepthwiseConv2dNative's bias and activation */
} dw_state;

int tfc_depthwise_dnn_init(const tfc_node *n, void **state, tfc_status *s) {
  tfc_conv_fusion f;
  TFC_TRY(tfc_conv_fusion_parse(n, &f, s));
  dw_state *c = calloc(1, sizeof *c);
  if (!c) return TFC_OOM(s);
  tfc_dnn_cache_init(&c->cache);
  c->fuse = f;
  *state = c;
  return TFC_OK;
}

const tfc_conv_fusion *tfc_depthwise_fusion(const void *state) {
  return state && ((const dw_state *)state)->fuse.on ? &((const dw_state *)state)->fuse : NULL;
}

void tfc_depthwise_dnn_free(void *state) {
  if (!state) return;
  tfc_dnn_cache_fini(&((dw_state *)state)->cache);
  free(state);
}

static int build_layout(const dw_key *k, tfc_dnn_prim *p, tfc_status *s) {
  const tfc_window_geom *g = &k->g;
  int64_t mult = g->oc / g->ic;
  dnnl_memory_desc_t src_u, w_u, dst_u, src_a, w_a, dst_a;
  tfc_dnn_md(&src_u, g->n, g->ic, g->ih, g->iw, dnnl_nhwc);
  tfc_dnn_md(&dst_u, g->n, g->oc, g->oh, g->ow, dnnl_nhwc);
  tfc_dnn_md(&src_a, g->n, g->ic, g->ih, g->iw, k->direct ? dnnl_nhwc : dnnl_format_tag_any);
  tfc_dnn_md(&dst_a, g->n, g->oc, g->oh, g->ow, k->direct ? dnnl_nhwc : dnnl_format_tag_any);
  dnnl_dims_t wd = {g->ic, mult, 1, g->kh, g->kw};
  if (tfc_dnn_check(dnnl_memory_desc_init_by_tag(&w_u, 5, wd, dnnl_f32, dnnl_hwigo), "depthwise filter desc", s) ||
      tfc_dnn_check(dnnl_memory_desc_init_by_tag(&w_a, 5, wd, dnnl_f32, dnnl_format_tag_any), "depthwise filter desc",
                    s))
    return s->code;
  dnnl_dims_t strides = {g->sh, g->sw}, dil = {g->dh - 1, g->dw - 1}, pl = {g->pt, g->pl}, pr = {g->pb, g->pr};
  dnnl_convolution_desc_t d;
  dnnl_primitive_desc_t pd;
  dnnl_memory_desc_t b_u;
  dnnl_dims_t bd = {g->oc};
  TFC_TRY(tfc_dnn_check(dnnl_memory_desc_init_by_tag(&b_u, 1, bd, dnnl_f32, dnnl_a), "bias desc", s));
  TFC_TRY(tfc_dnn_check(dnnl_dilated_convolution_forward_desc_init(&d, dnnl_forward_inference, dnnl_convolution_direct,
                                                                   &src_a, &w_a, k->fuse.on ? &b_u : NULL, &dst_a,
                                                                   strides, dil, pl, pr),
                        "depthwise convolution descriptor", s));
  TFC_TRY(tfc_dnn_pd_create_fused(&d, NULL, &k->fuse, &pd, s));
  /* A fused node's bias is the fourth arg, so the first three keep their places. */
  int ids[4] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST, DNNL_ARG_BIAS}, out[4] = {0, 0, 1, 0};
  dnnl_memory_desc_t u[4] = {src_u, w_u, dst_u, b_u};
  return tfc_dnn_prim_init(p, pd, ids, out, u, k->fuse.on ? 4 : 3, s);
}

/* NHWC first; a reference implementation there means no optimized NHWC kernel, and then the
 * blocked layout (reorders on both sides) is still far faster than oneDNN's reference. */
static int build(const void *key, tfc_dnn_prim *p, tfc_status *s) {
  dw_key k = *(const dw_key *)key;
  k.direct = 1;
  TFC_TRY(build_layout(&k, p, s));
  if (strncmp(p->impl, "ref", 3) != 0) return TFC_OK;
  tfc_dnn_prim_fini(p);
  k.direct = 0;
  return build_layout(&k, p, s);
}

typedef struct dw_run {
  const tfc_conv_piece *pc;
  const tfc_dnn_prim **prim; /* one per piece */
  const char *x;
  const void *f, *bias;
  char *y;
  tfc_status *st; /* one per piece */
} dw_run;

static void dw_shard(int k, void *arg) {
  dw_run *r = arg;
  void *ptr[4] = {(void *)(r->x + r->pc[k].in_off), (void *)r->f, r->y + r->pc[k].out_off, (void *)r->bias};
  tfc_dnn_run(r->prim[k], ptr, 0, &r->st[k]);
}

int tfc_depthwise_dnn_fwd(tfc_kernel_ctx *c, const tfc_window_geom *g, const float *x, const float *f,
                          const float *bias, float *y) {
  dw_state *state = c->state;
  tfc_dnn_cache *cache = state ? &state->cache : NULL;
  if (!cache || g->nchw || g->n <= 0 || g->oh <= 0 || g->ow <= 0 || g->ic <= 0 || g->oc <= 0 || g->oc % g->ic)
    return 0;
  /* Memory-bound (a 3x3 window does 18 flops per 8 bytes moved): the work is the larger of
   * its flops and its bytes moved (TFC_FLOPS_PER_BYTE_MOVED), so a 14x14x576 layer (2 MFLOP,
   * 0.9 MB) splits over two threads. */
  double flops = 2.0 * (double)g->n * (double)(g->oh * g->ow) * (double)(g->oc * g->kh * g->kw);
  double bytes = 4.0 * (double)g->n * (double)(g->ih * g->iw * g->ic + g->oh * g->ow * g->oc);
  double work = flops > TFC_FLOPS_PER_BYTE_MOVED * bytes ? flops : TFC_FLOPS_PER_BYTE_MOVED * bytes;
  tfc_conv_piece pc[TFC_CONV_MAX_PIECES];
  const tfc_dnn_prim *prim[TFC_CONV_MAX_PIECES];
  tfc_status sts[TFC_CONV_MAX_PIECES];
  int ns = 0;
  tfc_conv_pieces(c, g, work, 1, g->ih * g->iw * g->ic * 4, g->oh * g->ow * g->oc * 4, pc, TFC_CONV_MAX_PIECES, &ns);
  dw_key key;
  memset(&key, 0, sizeof key); /* padding bytes take part in the key's memcmp */
  key.fuse = state->fuse;
  for (int k = 0; k < ns; k++) {
    key.g = pc[k].g;
    if (k > 0 && memcmp(&pc[k].g, &pc[k - 1].g, sizeof pc[k].g) == 0) {
      prim[k] = prim[k - 1];
      continue;
    }
    tfc_status s;
    tfc_status_init(&s);
    prim[k] = tfc_dnn_cache_get(cache, &key, sizeof key, build, &s);
    if (!prim[k]) {
      int unimpl = s.code == TFC_UNIMPLEMENTED;
      if (!unimpl) tfc_status_move(c->status, &s);
      tfc_status_fini(&s);
      return unimpl ? 0 : 1;
    }
    tfc_status_fini(&s);
  }
  dw_run r = {.pc = pc, .prim = prim, .x = (const char *)x, .f = f, .bias = bias, .y = (char *)y, .st = sts};
  for (int k = 0; k < ns; k++) tfc_status_init(&sts[k]);
  tfc_conv_for_shards(c, ns, dw_shard, &r);
  for (int k = 0; k < ns; k++) {
    if (sts[k].code && !c->status->code) tfc_status_move(c->status, &sts[k]);
    tfc_status_fini(&sts[k]);
  }
  return 1;
}
