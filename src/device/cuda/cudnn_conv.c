/*
 * cudnn_conv — convolutions of 2 or 3 spatial dims through cuDNN (loaded at run time:
 * cudnn_loader.h) with N-d tensor, filter and convolution descriptors, so one path serves
 * Conv2D, the depthwise convolutions, _FusedConv2D and Conv3D (see cudnn_conv.h).
 *
 * Layouts. cuDNN sees packed channels-first activations (NCHW, NCDHW) and KC<spatial> filters
 * only, the one configuration every cuDNN algorithm supports for every type; TF 1.15 does the
 * same (it transposes NHWC / NDHWC data to channels-first around its cuDNN calls). So a
 * channels-last activation is rearranged into a channels-first temporary (cudnnTransformTensor
 * between two strided views of the same dims), and a channels-last result back; the HWIO /
 * DHWIO filter is rearranged into KCRS / KCDRS on every call (TF transforms its filter too),
 * and the filter gradient is computed in that layout and rearranged back. A depthwise filter
 * [kh, kw, C, mult] is the HWIO filter [kh, kw, 1, C * mult] of a grouped convolution with one
 * group per input channel, whose output channel ch * mult + q is cuDNN's q-th of group ch.
 *
 * Padding. cuDNN pads symmetrically. TF's SAME puts an odd padding element after, and EXPLICIT
 * may pad each side differently, so when the two sides of a dim differ the input is padded
 * explicitly by the difference (zeros around the data in the channels-first temporary) and
 * cuDNN pads the common part, as TF does for its "rows_odd / cols_odd" case. The input
 * gradient is then computed for the padded input and its interior copied out.
 *
 * Algorithms. cuDNN's v7 heuristics: the first algorithm (in cuDNN's order) of the allowed
 * math whose workspace fits TF's default limit of 4 GiB, and, as a fallback for a workspace the
 * device cannot allocate, the first one needing none. Both are cached per node and geometry
 * under the cache's mutex. float and double allow only FMA math (TF 1.15 predates TF32, and
 * the CPU comparison needs full precision); half may use tensor cores and accumulates in
 * float, as TF.
 *
 * Temporaries (channels-first copies, the filter, workspaces) are device tensors from the
 * device allocator, released right after the enqueue: every GPU kernel of the device runs on
 * its one compute stream and copies wait for that stream (tfc_gpu_mem_wait_compute), so memory
 * handed back is reused only by work ordered after ours.
 *
 * Thread-safety: the algorithm cache sits behind its mutex, and the device's cuDNN handle is
 * held (tfc_cudnn_acquire) from the first cuDNN call to the last enqueue.
 */
#include "device/cuda/cudnn_conv.h"

#include <cuda_runtime_api.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "device/cuda/cuda_kernels.h"
#include "device/cuda/cudnn_loader.h"
#include "device/gpu/gpu_device.h"

/* TF_CUDNN_WORKSPACE_LIMIT_IN_MB's default. */
#define WORKSPACE_LIMIT ((size_t)4096 << 20)
#define MAX_TEMPS 6
#define MAX_ND 5 /* n, c and up to 3 spatial dims */
#define KEY_LEN 26

/* ---- geometry ---- */

void tfc_cudnn_conv_geom_2d(const tfc_window_geom *g, int64_t groups, tfc_cudnn_conv_geom *out) {
  memset(out, 0, sizeof *out);
  out->nsp = 2;
  out->cfirst = g->nchw;
  out->n = g->n, out->ic = g->ic, out->oc = g->oc, out->groups = groups;
  int64_t in[2] = {g->ih, g->iw}, k[2] = {g->kh, g->kw}, o[2] = {g->oh, g->ow}, st[2] = {g->sh, g->sw},
          dil[2] = {g->dh, g->dw}, pb[2] = {g->pt, g->pl}, pa[2] = {g->pb, g->pr};
  for (int i = 0; i < 2; i++)
    out->in[i] = in[i], out->k[i] = k[i], out->out[i] = o[i], out->stride[i] = st[i], out->dil[i] = dil[i],
    out->pb[i] = pb[i], out->pa[i] = pa[i];
}

void tfc_cudnn_conv_geom_3d(const tfc_geom3 *g, tfc_cudnn_conv_geom *out) {
  memset(out, 0, sizeof *out);
  out->nsp = 3;
  out->cfirst = g->ncdhw;
  out->n = g->n, out->ic = g->ic, out->oc = g->oc, out->groups = 1;
  for (int i = 0; i < 3; i++)
    out->in[i] = g->in[i], out->k[i] = g->k[i], out->out[i] = g->out[i], out->stride[i] = g->stride[i],
    out->dil[i] = g->dil[i], out->pb[i] = g->pb[i], out->pa[i] = g->pa[i];
}

/* ---- device temporaries ---- */

typedef struct temps {
  tfc_kernel_ctx *c;
  tfc_tensor *t[MAX_TEMPS];
  int n;
} temps;

/* A device temporary of `bytes` (NULL for 0), owned by tp until temps_release. */
static int temp_alloc(temps *tp, size_t bytes, void **out) {
  *out = NULL;
  if (bytes == 0) return TFC_OK;
  if (tp->n == MAX_TEMPS) return tfc_kernel_error(tp->c, TFC_INTERNAL, "%s on GPU: too many temporaries", tp->c->node->op->name);
  tfc_tensor *t = tfc_cuda_ctx_temp(tp->c, (int64_t)bytes);
  if (!t) return tp->c->status->code;
  tp->t[tp->n++] = t;
  *out = t->data;
  return TFC_OK;
}

static void temps_release(temps *tp) {
  for (int i = 0; i < tp->n; i++) tfc_tensor_unref(tp->t[i]);
  tp->n = 0;
}

/* ---- per-call cuDNN context: handle (held), stream, descriptors freed together ---- */

typedef struct dnn {
  tfc_kernel_ctx *c;
  const tfc_cudnn_api *api;
  cudnnHandle_t h; /* held from dnn_begin to dnn_end */
  void *stream;
  cudnnDataType_t dt;
  size_t esize;
  int dtype;
  /* conv_run makes at most 7: x packed, its interior and the user's x; y packed and the
   * user's channels-last y; the filter as HWIO and packed. */
  cudnnTensorDescriptor_t t[8];
  int n_t;
  cudnnFilterDescriptor_t f;
  cudnnConvolutionDescriptor_t conv;
  temps tmp;
} dnn;

static int dnn_begin(dnn *d, tfc_kernel_ctx *c, int dtype) {
  memset(d, 0, sizeof *d);
  d->c = c;
  d->tmp.c = c;
  d->dtype = dtype;
  switch (dtype) {
    case TFC_DT_FLOAT: d->dt = CUDNN_DATA_FLOAT, d->esize = 4; break;
    case TFC_DT_DOUBLE: d->dt = CUDNN_DATA_DOUBLE, d->esize = 8; break;
    case TFC_DT_HALF: d->dt = CUDNN_DATA_HALF, d->esize = 2; break;
    default: return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, dtype);
  }
  TFC_TRY(tfc_cuda_ctx_stream(c, &d->stream));
  if (!(d->api = tfc_cudnn_api_get(c))) return c->status->code;
  return tfc_cudnn_acquire(c, tfc_gpu_device_platform_id(c->device), d->stream, &d->h);
}

/* Destroys the descriptors, lets the handle go and releases the temporaries (after the last
 * enqueue: see the top comment). */
static void dnn_end(dnn *d) {
  if (d->api) {
    for (int i = 0; i < d->n_t; i++) d->api->destroy_tensor(d->t[i]);
    if (d->f) d->api->destroy_filter(d->f);
    if (d->conv) d->api->destroy_conv(d->conv);
  }
  tfc_cudnn_release(d->h);
  temps_release(&d->tmp);
}

/* Element strides st[0..nd) of dims[0..nd) stored with dim ord[0] outermost and ord[nd - 1]
 * innermost (packed). */
static void packed_strides(int nd, const int64_t *dims, const int *ord, int64_t *st) {
  st[ord[nd - 1]] = 1;
  for (int j = nd - 2; j >= 0; j--) st[ord[j]] = st[ord[j + 1]] * dims[ord[j + 1]];
}

/* Strides of a packed activation of dims (n, c, s..) (nd = nsp + 2), channels first or last. */
static void act_strides(int cfirst, int nd, const int64_t *dims, int64_t *st) {
  int ord[MAX_ND];
  ord[0] = 0;
  for (int j = 1; j < nd; j++) ord[j] = cfirst ? j : (j == nd - 1 ? 1 : j + 1);
  packed_strides(nd, dims, ord, st);
}

/* A tensor descriptor of dims and element strides (nd of each), owned by d. */
static int dnn_tensor(dnn *d, int nd, const int64_t *dims, const int64_t *st, cudnnTensorDescriptor_t *out) {
  if (d->n_t == (int)(sizeof d->t / sizeof d->t[0]))
    return tfc_kernel_error(d->c, TFC_INTERNAL, "%s on GPU: too many tensor descriptors", d->c->node->op->name);
  int di[MAX_ND], si[MAX_ND];
  for (int i = 0; i < nd; i++) di[i] = (int)dims[i], si[i] = (int)st[i];
  cudnnStatus_t e = d->api->create_tensor(out);
  if (e == CUDNN_STATUS_SUCCESS) {
    d->t[d->n_t++] = *out;
    e = d->api->set_tensor_nd(*out, d->dt, nd, di, si);
  }
  return tfc_cudnn_check(d->c, e, "setting a tensor descriptor");
}

static int dnn_act(dnn *d, int cfirst, int nd, const int64_t *dims, cudnnTensorDescriptor_t *out) {
  int64_t st[MAX_ND];
  act_strides(cfirst, nd, dims, st);
  return dnn_tensor(d, nd, dims, st, out);
}

/* alpha = 1, beta = 0 in the scaling type cuDNN wants (double for double data). */
static const void *one(const dnn *d) {
  static const float f = 1.0f;
  static const double g = 1.0;
  return d->dt == CUDNN_DATA_DOUBLE ? (const void *)&g : (const void *)&f;
}
static const void *zero(const dnn *d) {
  static const float f = 0.0f;
  static const double g = 0.0;
  return d->dt == CUDNN_DATA_DOUBLE ? (const void *)&g : (const void *)&f;
}

/* dst = src, element by element between two (possibly strided) views of the same dims. */
static int dnn_copy(dnn *d, cudnnTensorDescriptor_t sd, const void *src, cudnnTensorDescriptor_t dd, void *dst) {
  return tfc_cudnn_check(d->c, d->api->transform(d->h, one(d), sd, src, zero(d), dd, dst), "cudnnTransformTensor");
}

/* cuDNN's descriptors take int dims and strides. */
static int too_big(tfc_kernel_ctx *c, const int64_t *v, int n) {
  for (int i = 0; i < n; i++)
    if (v[i] > INT_MAX / 4)
      return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s on GPU: dimensions beyond %d are not supported",
                              c->node->op->name, INT_MAX / 4);
  return TFC_OK;
}

/* ---- the algorithm cache ---- */

typedef struct tfc_cudnn_algo {
  struct tfc_cudnn_algo *next;
  int key[KEY_LEN];
  int algo, algo0; /* best fitting; best without workspace (-1: none) */
  cudnnMathType_t math, math0;
  size_t ws; /* algo's workspace bytes */
} algo_entry;

int tfc_cudnn_algo_cache_init(tfc_cudnn_algo_cache *cache, const tfc_node *n, tfc_status *s) {
  cache->algos = NULL;
  if (pthread_mutex_init(&cache->mu, NULL))
    return tfc_status_set(s, TFC_INTERNAL, "node '%s' (%s): cannot create a mutex", n->name, n->op->name);
  return TFC_OK;
}

void tfc_cudnn_algo_cache_fini(tfc_cudnn_algo_cache *cache) {
  for (algo_entry *e = cache->algos, *next; e; e = next) {
    next = e->next;
    free(e);
  }
  cache->algos = NULL;
  pthread_mutex_destroy(&cache->mu);
}

/* Whether a heuristic result's math is allowed: half anything, float and double FMA only. */
static int math_ok(const dnn *d, cudnnMathType_t m) {
  return d->dt == CUDNN_DATA_HALF || m == CUDNN_DEFAULT_MATH || m == CUDNN_FMA_MATH;
}

/* The algorithm for this call, from the cache or cuDNN's heuristics. */
static int conv_algo(dnn *d, tfc_cudnn_algo_cache *cache, int kind, const int *key, cudnnTensorDescriptor_t xd,
                     cudnnTensorDescriptor_t yd, algo_entry *out) {
  pthread_mutex_lock(&cache->mu);
  for (algo_entry *e = cache->algos; e; e = e->next)
    if (memcmp(e->key, key, sizeof e->key) == 0) {
      *out = *e;
      pthread_mutex_unlock(&cache->mu);
      return TFC_OK;
    }
  union {
    cudnnConvolutionFwdAlgoPerf_t fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    cudnnConvolutionBwdDataAlgoPerf_t bwd_data[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    cudnnConvolutionBwdFilterAlgoPerf_t bwd_filter[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  } perf;
  int n = 0;
  cudnnStatus_t e;
  if (kind == TFC_CONV_FWD)
    e = d->api->fwd_algos(d->h, xd, d->f, d->conv, yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf.fwd);
  else if (kind == TFC_CONV_BWD_INPUT)
    e = d->api->bwd_data_algos(d->h, d->f, yd, d->conv, xd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, perf.bwd_data);
  else
    e = d->api->bwd_filter_algos(d->h, xd, yd, d->conv, d->f, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n,
                                 perf.bwd_filter);
  memset(out, 0, sizeof *out);
  memcpy(out->key, key, sizeof out->key);
  out->algo = out->algo0 = -1;
  for (int i = 0; e == CUDNN_STATUS_SUCCESS && i < n; i++) {
    int a;
    cudnnStatus_t ok;
    size_t mem;
    cudnnMathType_t m;
    if (kind == TFC_CONV_FWD)
      a = (int)perf.fwd[i].algo, ok = perf.fwd[i].status, mem = perf.fwd[i].memory, m = perf.fwd[i].mathType;
    else if (kind == TFC_CONV_BWD_INPUT)
      a = (int)perf.bwd_data[i].algo, ok = perf.bwd_data[i].status, mem = perf.bwd_data[i].memory,
      m = perf.bwd_data[i].mathType;
    else
      a = (int)perf.bwd_filter[i].algo, ok = perf.bwd_filter[i].status, mem = perf.bwd_filter[i].memory,
      m = perf.bwd_filter[i].mathType;
    if (ok != CUDNN_STATUS_SUCCESS || mem > WORKSPACE_LIMIT || !math_ok(d, m)) continue;
    if (out->algo < 0) out->algo = a, out->ws = mem, out->math = m;
    if (out->algo0 < 0 && mem == 0) out->algo0 = a, out->math0 = m;
  }
  algo_entry *ent = e == CUDNN_STATUS_SUCCESS && out->algo >= 0 ? malloc(sizeof *ent) : NULL;
  if (ent) { /* a failed malloc only costs a later lookup */
    *ent = *out;
    ent->next = cache->algos;
    cache->algos = ent;
  }
  pthread_mutex_unlock(&cache->mu);
  if (e != CUDNN_STATUS_SUCCESS) return tfc_cudnn_check(d->c, e, "choosing a convolution algorithm");
  if (out->algo < 0)
    return tfc_kernel_error(d->c, TFC_UNIMPLEMENTED,
                            "%s on GPU: cuDNN has no algorithm for this convolution of %s within a %zu MiB workspace",
                            d->c->node->op->name, tfc_dtype_name(d->dtype), WORKSPACE_LIMIT >> 20);
  return TFC_OK;
}

/* ---- the convolution ---- */

/* Runs the convolution of `kind` over g. x: input (FWD, BWD_FILTER) or input gradient
 * (BWD_INPUT, written); w: the filter with ic / groups input channels (read, or written for
 * BWD_FILTER); y: output (FWD, written) or out_backprop. All in the user's layouts. */
static int conv_run(dnn *d, tfc_cudnn_algo_cache *cache, int kind, const tfc_cudnn_conv_geom *g, void *x, void *w,
                    void *y) {
  tfc_kernel_ctx *c = d->c;
  int nsp = g->nsp, nd = nsp + 2;
  int64_t fic = g->ic / g->groups; /* the filter's input channels */
  /* Step 1: per spatial dim, the symmetric part cuDNN pads and the explicit rest (at most one
   * side each); the dims of the padded input, of the user's input and of the output. */
  int64_t pad[3], eb[3], xpd[MAX_ND] = {g->n, g->ic}, xud[MAX_ND] = {g->n, g->ic}, yd_[MAX_ND] = {g->n, g->oc},
                                     fd[MAX_ND] = {g->oc, fic};
  int padded = 0;
  int64_t chk[32], n_chk = 0;
  for (int i = 0; i < nsp; i++) {
    pad[i] = g->pb[i] < g->pa[i] ? g->pb[i] : g->pa[i];
    eb[i] = g->pb[i] - pad[i];
    int64_t ea = g->pa[i] - pad[i];
    padded |= eb[i] || ea;
    xpd[2 + i] = g->in[i] + eb[i] + ea;
    xud[2 + i] = g->in[i];
    yd_[2 + i] = g->out[i];
    fd[2 + i] = g->k[i];
    chk[n_chk++] = xpd[2 + i], chk[n_chk++] = pad[i], chk[n_chk++] = g->stride[i], chk[n_chk++] = g->dil[i];
  }
  int64_t xp_elems = 1, y_elems = 1, f_elems = 1;
  for (int i = 0; i < nd; i++) xp_elems *= xpd[i], y_elems *= yd_[i], f_elems *= fd[i];
  chk[n_chk++] = g->n, chk[n_chk++] = g->ic, chk[n_chk++] = g->oc, chk[n_chk++] = g->groups;
  chk[n_chk++] = xp_elems, chk[n_chk++] = y_elems, chk[n_chk++] = f_elems;
  TFC_TRY(too_big(c, chk, (int)n_chk));
  /* Step 2: cuDNN's x: packed channels-first (n, ic, padded dims); a temporary unless it is
   * the user's. xin views its interior (the user's dims at the padded strides), xu the user's
   * buffer. */
  cudnnTensorDescriptor_t xd, xin = NULL, xu = NULL;
  int64_t pst[MAX_ND];
  act_strides(1, nd, xpd, pst);
  TFC_TRY(dnn_tensor(d, nd, xpd, pst, &xd));
  void *xp = x;
  char *interior = x;
  if (padded || !g->cfirst) {
    size_t bytes = (size_t)xp_elems * d->esize;
    TFC_TRY(temp_alloc(&d->tmp, bytes, &xp));
    int64_t off = 0;
    for (int i = 0; i < nsp; i++) off += eb[i] * pst[2 + i];
    interior = (char *)xp + (size_t)off * d->esize;
    TFC_TRY(dnn_tensor(d, nd, xud, pst, &xin));
    TFC_TRY(dnn_act(d, g->cfirst, nd, xud, &xu));
    if (kind != TFC_CONV_BWD_INPUT) {
      if (padded) TFC_TRY(tfc_cuda_ctx_check(c, tfc_cuda_memset(xp, 0, (int64_t)bytes, d->stream), d->dtype));
      TFC_TRY(dnn_copy(d, xu, x, xin, interior));
    }
  }
  /* Step 3: cuDNN's y: packed channels-first; a temporary for channels-last data. */
  cudnnTensorDescriptor_t yd, yu = NULL;
  TFC_TRY(dnn_act(d, 1, nd, yd_, &yd));
  void *yp = y;
  if (!g->cfirst) {
    TFC_TRY(temp_alloc(&d->tmp, (size_t)y_elems * d->esize, &yp));
    TFC_TRY(dnn_act(d, 0, nd, yd_, &yu));
    if (kind != TFC_CONV_FWD) TFC_TRY(dnn_copy(d, yu, y, yd, yp));
  }
  /* Step 4: the filter, packed (K, C, spatial..). hwio views the user's [spatial.., C, K]
   * buffer with the same dims: spatial outermost, then C, K innermost. */
  cudnnTensorDescriptor_t hwio, fk;
  int hord[MAX_ND], kord[MAX_ND];
  for (int i = 0; i < nsp; i++) hord[i] = 2 + i;
  hord[nsp] = 1, hord[nsp + 1] = 0;
  for (int i = 0; i < nd; i++) kord[i] = i;
  int64_t hst[MAX_ND], fst[MAX_ND];
  packed_strides(nd, fd, hord, hst);
  packed_strides(nd, fd, kord, fst);
  TFC_TRY(dnn_tensor(d, nd, fd, hst, &hwio));
  TFC_TRY(dnn_tensor(d, nd, fd, fst, &fk));
  void *wk;
  TFC_TRY(temp_alloc(&d->tmp, (size_t)f_elems * d->esize, &wk));
  if (kind != TFC_CONV_BWD_FILTER) TFC_TRY(dnn_copy(d, hwio, w, fk, wk));
  int fdi[MAX_ND];
  for (int i = 0; i < nd; i++) fdi[i] = (int)fd[i];
  cudnnStatus_t e = d->api->create_filter(&d->f);
  if (e == CUDNN_STATUS_SUCCESS) e = d->api->set_filter_nd(d->f, d->dt, CUDNN_TENSOR_NCHW, nd, fdi);
  TFC_TRY(tfc_cudnn_check(c, e, "setting the filter descriptor"));
  /* Step 5: the convolution descriptor (cross-correlation, as TF), its math, the algorithm. */
  int padi[3], stri[3], dili[3];
  for (int i = 0; i < nsp; i++) padi[i] = (int)pad[i], stri[i] = (int)g->stride[i], dili[i] = (int)g->dil[i];
  e = d->api->create_conv(&d->conv);
  if (e == CUDNN_STATUS_SUCCESS)
    e = d->api->set_conv_nd(d->conv, nsp, padi, stri, dili, CUDNN_CROSS_CORRELATION,
                            d->dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT);
  if (e == CUDNN_STATUS_SUCCESS)
    e = d->api->set_conv_math(d->conv, d->dt == CUDNN_DATA_HALF ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH);
  if (e == CUDNN_STATUS_SUCCESS && g->groups > 1) e = d->api->set_conv_groups(d->conv, (int)g->groups);
  TFC_TRY(tfc_cudnn_check(c, e, "setting the convolution descriptor"));
  int key[KEY_LEN];
  memset(key, 0, sizeof key);
  int nk = 0;
  key[nk++] = kind, key[nk++] = (int)d->dt, key[nk++] = nsp, key[nk++] = (int)g->n, key[nk++] = (int)g->ic;
  key[nk++] = (int)g->oc, key[nk++] = (int)g->groups;
  for (int i = 0; i < nsp; i++)
    key[nk++] = (int)xpd[2 + i], key[nk++] = (int)g->k[i], key[nk++] = (int)g->out[i], key[nk++] = padi[i],
    key[nk++] = stri[i], key[nk++] = dili[i];
  algo_entry a;
  TFC_TRY(conv_algo(d, cache, kind, key, xd, yd, &a));
  void *ws = NULL;
  int algo = a.algo;
  cudnnMathType_t math = a.math;
  size_t ws_bytes = a.ws;
  if (temp_alloc(&d->tmp, ws_bytes, &ws)) {
    /* The device cannot spare the workspace: fall back to an algorithm that needs none. */
    if (a.algo0 < 0 || c->status->code != TFC_RESOURCE_EXHAUSTED) return c->status->code;
    tfc_status_fini(c->status);
    tfc_status_init(c->status);
    algo = a.algo0, math = a.math0, ws_bytes = 0;
  }
  TFC_TRY(tfc_cudnn_check(c, d->api->set_conv_math(d->conv, math), "setting the convolution math"));
  /* Step 6: run, then undo the layout changes of the output. */
  if (kind == TFC_CONV_FWD) {
    e = d->api->conv_fwd(d->h, one(d), xd, xp, d->f, wk, d->conv, (cudnnConvolutionFwdAlgo_t)algo, ws, ws_bytes,
                         zero(d), yd, yp);
    TFC_TRY(tfc_cudnn_check(c, e, "cudnnConvolutionForward"));
    return yp == y ? TFC_OK : dnn_copy(d, yd, yp, yu, y);
  }
  if (kind == TFC_CONV_BWD_INPUT) {
    e = d->api->conv_bwd_data(d->h, one(d), d->f, wk, yd, yp, d->conv, (cudnnConvolutionBwdDataAlgo_t)algo, ws,
                              ws_bytes, zero(d), xd, xp);
    TFC_TRY(tfc_cudnn_check(c, e, "cudnnConvolutionBackwardData"));
    return xp == x ? TFC_OK : dnn_copy(d, xin, interior, xu, x);
  }
  e = d->api->conv_bwd_filter(d->h, one(d), xd, xp, yd, yp, d->conv, (cudnnConvolutionBwdFilterAlgo_t)algo, ws,
                              ws_bytes, zero(d), d->f, wk);
  TFC_TRY(tfc_cudnn_check(c, e, "cudnnConvolutionBackwardFilter"));
  return dnn_copy(d, fk, wk, hwio, w);
}

int tfc_cudnn_conv_output(tfc_kernel_ctx *c, tfc_cudnn_algo_cache *cache, int kind, const tfc_cudnn_conv_geom *g,
                          int dtype, const int64_t *out_dims, int ndims, int zeros, const void *x, const void *f,
                          const void *dy, tfc_tensor **out) {
  *out = NULL;
  tfc_tensor *o = tfc_kernel_alloc_output(c, 0, dtype, out_dims, ndims);
  if (!o) return c->status->code;
  if (o->n_elems == 0) {
    *out = o;
    return TFC_OK;
  }
  if (zeros) {
    void *stream;
    TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
    TFC_TRY(tfc_cuda_ctx_check(c, tfc_cuda_memset(o->data, 0, (int64_t)o->n_bytes, stream), dtype));
    *out = o;
    return TFC_OK;
  }
  dnn d;
  int rc = dnn_begin(&d, c, dtype);
  /* cuDNN's API takes non-const pointers for its read-only operands. */
  if (rc == TFC_OK) {
    if (kind == TFC_CONV_FWD)
      rc = conv_run(&d, cache, kind, g, (void *)x, (void *)f, o->data);
    else if (kind == TFC_CONV_BWD_INPUT)
      rc = conv_run(&d, cache, kind, g, o->data, (void *)f, (void *)dy);
    else
      rc = conv_run(&d, cache, kind, g, (void *)x, o->data, (void *)dy);
  }
  dnn_end(&d);
  if (rc == TFC_OK) *out = o;
  return rc;
}
