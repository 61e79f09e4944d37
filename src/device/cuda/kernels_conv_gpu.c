/*
 * kernels_conv_gpu — Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter, MaxPool, AvgPool,
 * MaxPoolGrad and AvgPoolGrad on the GPU through cuDNN (loaded at run time: cudnn_loader.h),
 * for half, float and double as TF 1.15's GPU registrations.
 *
 * Attrs and shapes are checked as the CPU kernels check them (kernels_conv.c, kernels_pool.c),
 * with the same codes and texts, and the geometry comes from the same helper
 * (tfc_window_output_size), so both devices agree on output shapes and on TF's SAME split.
 *
 * Layouts. Activations stay in the user's layout (NHWC or NCHW): cuDNN takes either through
 * strided 4-D descriptors. Filters arrive in TF's HWIO layout, which cuDNN has no descriptor
 * for, so every call rearranges the filter into cuDNN's KCRS (NCHW data) or KRSC (NHWC data)
 * with cudnnTransformTensor on a strided view of the HWIO buffer (TF transforms the filter
 * too), and the filter gradient is computed in that layout and rearranged back.
 *
 * Padding. cuDNN pads symmetrically. TF's SAME puts an odd padding element after, and
 * EXPLICIT may pad each side differently, so when the two sides of a dim differ the input is
 * padded explicitly by the difference (zeros copied around it with cudnnTransformTensor into a
 * temporary) and cuDNN pads the common part, as TF does for its "rows_odd / cols_odd" case. The
 * input gradient is then computed for the padded input and its interior copied out. Pooling
 * needs no copy: cuDNN computes each output of the descriptor's size from its own window and
 * treats everything outside the input as padding (ignored by max, excluded from the average
 * count), so the pooling descriptor gets the padding before and the output TF's size, as TF
 * 1.15's cuDNN pooling does.
 *
 * Algorithms. The convolutions take cuDNN's v7 heuristics: the first algorithm (in cuDNN's
 * order) whose workspace fits TF's default limit of 4 GiB, and, as a fallback for a workspace
 * the device cannot allocate, the first one needing none. Both are cached per node and
 * geometry under the node's mutex. Workspaces and padded copies are temporary device tensors
 * from the device allocator, released right after the enqueue: the allocator hands memory back
 * in stream order, so a later kernel on the compute stream cannot overwrite it early. float
 * and double restrict cuDNN to FMA kernels (TF 1.15 predates TF32, and the CPU comparison
 * needs full precision); half may use tensor cores and accumulates in float, as TF.
 *
 * Thread-safety: compute may run concurrently for one node (several steps): the algorithm
 * cache is the only shared state and sits behind the node's mutex.
 */
#include <cuda_runtime_api.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/kernels_conv_int.h"
#include "device/cuda/cuda_kernels.h"
#include "device/cuda/cudnn_loader.h"
#include "device/gpu/gpu_device.h"

/* TF_CUDNN_WORKSPACE_LIMIT_IN_MB's default. */
#define WORKSPACE_LIMIT ((size_t)4096 << 20)

enum conv_kind { CONV_FWD = 0, CONV_BWD_INPUT = 1, CONV_BWD_FILTER = 2 };
enum pool_kind { POOL_MAX = 0, POOL_AVG = 1, POOL_MAX_GRAD = 2, POOL_AVG_GRAD = 3 };

/* ---- per-call cuDNN context: handle, stream, descriptors freed together ---- */

typedef struct dnn {
  tfc_kernel_ctx *c;
  const tfc_cudnn_api *api;
  cudnnHandle_t h;
  void *stream;
  cudnnDataType_t dt;
  size_t esize;
  int dtype;
  cudnnTensorDescriptor_t t[4];
  int n_t;
  cudnnFilterDescriptor_t f;
  cudnnConvolutionDescriptor_t conv;
  cudnnPoolingDescriptor_t pool;
  tfc_tensor *tmp[4]; /* temporaries, released at the end of the call */
  int n_tmp;
} dnn;

static int dnn_begin(dnn *d, tfc_kernel_ctx *c, int dtype) {
  memset(d, 0, sizeof *d);
  d->c = c;
  d->dtype = dtype;
  switch (dtype) {
    case TFC_DT_FLOAT: d->dt = CUDNN_DATA_FLOAT, d->esize = 4; break;
    case TFC_DT_DOUBLE: d->dt = CUDNN_DATA_DOUBLE, d->esize = 8; break;
    case TFC_DT_HALF: d->dt = CUDNN_DATA_HALF, d->esize = 2; break;
    default: return tfc_cuda_ctx_check(c, TFC_CUDA_E_UNSUPPORTED, dtype);
  }
  TFC_TRY(tfc_cuda_ctx_stream(c, &d->stream));
  if (!(d->api = tfc_cudnn_api_get(c))) return c->status->code;
  return tfc_cudnn_handle(c, tfc_gpu_device_platform_id(c->device), d->stream, &d->h);
}

static void dnn_end(dnn *d) {
  if (!d->api) return;
  for (int i = 0; i < d->n_t; i++) d->api->destroy_tensor(d->t[i]);
  if (d->f) d->api->destroy_filter(d->f);
  if (d->conv) d->api->destroy_conv(d->conv);
  if (d->pool) d->api->destroy_pool(d->pool);
  for (int i = 0; i < d->n_tmp; i++) tfc_tensor_unref(d->tmp[i]);
}

/* A device temporary of `bytes` (NULL data for 0), owned by d. */
static int dnn_temp(dnn *d, size_t bytes, void **out) {
  *out = NULL;
  if (bytes == 0) return TFC_OK;
  int64_t dim = (int64_t)bytes;
  tfc_tensor *t = tfc_allocator_tensor(d->c->device->allocator, TFC_DT_UINT8, &dim, 1, d->c->status);
  if (!t) return d->c->status->code;
  d->tmp[d->n_tmp++] = t;
  *out = t->data;
  return TFC_OK;
}

/* Element strides (n, c, h, w) of a dense N x C x H x W tensor in NCHW or NHWC order. */
static void dense_strides(int nchw, int64_t c, int64_t h, int64_t w, int64_t st[4]) {
  if (nchw) {
    st[3] = 1, st[2] = w, st[1] = h * w, st[0] = c * h * w;
  } else {
    st[1] = 1, st[3] = c, st[2] = w * c, st[0] = h * w * c;
  }
}

/* A tensor descriptor of dims (n, c, h, w) and element strides st, owned by d. */
static int dnn_tensor(dnn *d, int64_t n, int64_t c, int64_t h, int64_t w, const int64_t st[4],
                      cudnnTensorDescriptor_t *out) {
  cudnnStatus_t e = d->api->create_tensor(out);
  if (e == CUDNN_STATUS_SUCCESS) {
    d->t[d->n_t++] = *out;
    e = d->api->set_tensor4d_ex(*out, d->dt, (int)n, (int)c, (int)h, (int)w, (int)st[0], (int)st[1], (int)st[2],
                                (int)st[3]);
  }
  return tfc_cudnn_check(d->c, e, "setting a tensor descriptor");
}

static int dnn_dense(dnn *d, int nchw, int64_t n, int64_t c, int64_t h, int64_t w, cudnnTensorDescriptor_t *out) {
  int64_t st[4];
  dense_strides(nchw, c, h, w, st);
  return dnn_tensor(d, n, c, h, w, st, out);
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

static int too_big(tfc_kernel_ctx *c, const int64_t *v, int n) {
  for (int i = 0; i < n; i++)
    if (v[i] > INT_MAX / 4)
      return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s on GPU: dimensions beyond %d are not supported",
                              c->node->op->name, INT_MAX / 4);
  return TFC_OK;
}

/* ---- Conv2D and its backprops ---- */

typedef struct algo_entry {
  struct algo_entry *next;
  int key[24];
  int algo, algo0;     /* best fitting; best without workspace (-1: none) */
  size_t ws;           /* algo's workspace bytes */
} algo_entry;

typedef struct conv_state {
  int kind, nchw, padding;
  int64_t stride[2], dil[2];
  int64_t pads[4]; /* EXPLICIT: top, bottom, left, right */
  pthread_mutex_t mu;
  algo_entry *algos; /* guarded by mu */
} conv_state;

static int conv_init_kind(const tfc_node *n, void **state, tfc_status *s, int kind) {
  int64_t strides[4], dil[4] = {1, 1, 1, 1};
  const char *fmt, *padding;
  if (tfc_kernel_attr_string(n, "data_format", &fmt, s) || tfc_kernel_attr_string(n, "padding", &padding, s))
    return s->code;
  if (tfc_window_attr4(n, "strides", strides, "Sliding window strides field must specify 4 dimensions", s) ||
      tfc_window_attr4(n, "dilations", dil, "Sliding window dilations field must specify 4 dimensions", s))
    return s->code;
  int nchw = strcmp(fmt, "NCHW") == 0;
  int ni = 0, ci = nchw ? 1 : 3, hi = nchw ? 2 : 1, wi = nchw ? 3 : 2;
  if (strides[ni] != 1 || strides[ci] != 1)
    return tfc_status_set(s, TFC_UNIMPLEMENTED,
                          "Current implementation does not yet support strides in the batch and depth dimensions.");
  if (strides[hi] <= 0 || strides[wi] <= 0)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Row and column strides should be larger than 0.");
  if (dil[ni] != 1 || dil[ci] != 1)
    return tfc_status_set(s, TFC_UNIMPLEMENTED,
                          "Current implementation does not yet support dilations in the batch and depth dimensions.");
  if (dil[hi] <= 0 || dil[wi] <= 0) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Dilated rates should be larger than 0.");
  int pad = strcmp(padding, "SAME") == 0 ? TFC_PAD_SAME : strcmp(padding, "VALID") == 0 ? TFC_PAD_VALID : TFC_PAD_EXPLICIT;
  const tfc_attr_value *ep = tfc_node_attr(n, "explicit_paddings");
  int n_pads = ep && ep->kind == TFC_ATTR_LIST ? ep->u.list.n : 0;
  int64_t p[8] = {0};
  if (pad == TFC_PAD_EXPLICIT) {
    if (n_pads != 8)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "explicit_paddings attribute must contain 8 values, but got: %d",
                            n_pads);
    for (int i = 0; i < 8; i++)
      if ((p[i] = ep->u.list.items[i].u.i) < 0)
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "All elements of explicit_paddings must be nonnegative");
    if (p[2 * ni] || p[2 * ni + 1] || p[2 * ci] || p[2 * ci + 1])
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "Nonzero explicit padding in the batch or depth dimensions is not supported");
  } else if (n_pads) {
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "explicit_paddings attribute must be empty if the padding attribute is not EXPLICIT");
  }
  conv_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  if (pthread_mutex_init(&st->mu, NULL)) {
    free(st);
    return tfc_status_set(s, TFC_INTERNAL, "node '%s' (%s): cannot create a mutex", n->name, n->op->name);
  }
  st->kind = kind;
  st->nchw = nchw;
  st->padding = pad;
  st->stride[0] = strides[hi];
  st->stride[1] = strides[wi];
  st->dil[0] = dil[hi];
  st->dil[1] = dil[wi];
  st->pads[0] = p[2 * hi];
  st->pads[1] = p[2 * hi + 1];
  st->pads[2] = p[2 * wi];
  st->pads[3] = p[2 * wi + 1];
  *state = st;
  return TFC_OK;
}

static int conv_fwd_init(const tfc_node *n, void **st, tfc_status *s) { return conv_init_kind(n, st, s, CONV_FWD); }
static int conv_bwd_input_init(const tfc_node *n, void **st, tfc_status *s) {
  return conv_init_kind(n, st, s, CONV_BWD_INPUT);
}
static int conv_bwd_filter_init(const tfc_node *n, void **st, tfc_status *s) {
  return conv_init_kind(n, st, s, CONV_BWD_FILTER);
}

static void conv_free(void *p) {
  conv_state *st = p;
  if (!st) return;
  for (algo_entry *e = st->algos, *next; e; e = next) {
    next = e->next;
    free(e);
  }
  pthread_mutex_destroy(&st->mu);
  free(st);
}

/* g from an input shape (4 dims in st's layout) and a filter shape (HWIO), as the CPU. */
static int conv_geom(tfc_kernel_ctx *c, const conv_state *st, const int64_t *in, const int64_t *f, const char *label,
                     tfc_window_geom *g) {
  memset(g, 0, sizeof *g);
  g->nchw = st->nchw;
  g->n = in[0];
  g->ic = in[st->nchw ? 1 : 3];
  g->ih = in[st->nchw ? 2 : 1];
  g->iw = in[st->nchw ? 3 : 2];
  g->kh = f[0];
  g->kw = f[1];
  g->oc = f[3];
  if (g->ic != f[2]) {
    if (label)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: input and filter must have the same depth", label);
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input and filter must have the same depth: %lld vs %lld",
                            (long long)g->ic, (long long)f[2]);
  }
  g->sh = st->stride[0];
  g->sw = st->stride[1];
  g->dh = st->dil[0];
  g->dw = st->dil[1];
  g->pt = st->pads[0];
  g->pb = st->pads[1];
  g->pl = st->pads[2];
  g->pr = st->pads[3];
  TFC_TRY(tfc_window_output_size(c, g->ih, g->kh, g->dh, g->sh, st->padding, &g->oh, &g->pt, &g->pb));
  return tfc_window_output_size(c, g->iw, g->kw, g->dw, g->sw, st->padding, &g->ow, &g->pl, &g->pr);
}

static void act_dims(const tfc_window_geom *g, int64_t h, int64_t w, int64_t ch, int64_t *dims) {
  dims[0] = g->n;
  dims[g->nchw ? 1 : 3] = ch;
  dims[g->nchw ? 2 : 1] = h;
  dims[g->nchw ? 3 : 2] = w;
}

/* The algorithm for this call, from the cache or cuDNN's heuristics. */
static int conv_algo(dnn *d, conv_state *st, const int *key, cudnnTensorDescriptor_t xd, cudnnTensorDescriptor_t yd,
                     int *algo, int *algo0, size_t *ws) {
  pthread_mutex_lock(&st->mu);
  for (algo_entry *e = st->algos; e; e = e->next)
    if (memcmp(e->key, key, sizeof e->key) == 0) {
      *algo = e->algo, *algo0 = e->algo0, *ws = e->ws;
      pthread_mutex_unlock(&st->mu);
      return TFC_OK;
    }
  /* Every perf struct starts with (algo, status, time, memory), whichever direction. */
  union {
    cudnnConvolutionFwdAlgoPerf_t fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    cudnnConvolutionBwdDataAlgoPerf_t bwd_data[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    cudnnConvolutionBwdFilterAlgoPerf_t bwd_filter[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  } perf;
  int n = 0;
  cudnnStatus_t e;
  if (st->kind == CONV_FWD)
    e = d->api->fwd_algos(d->h, xd, d->f, d->conv, yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf.fwd);
  else if (st->kind == CONV_BWD_INPUT)
    e = d->api->bwd_data_algos(d->h, d->f, yd, d->conv, xd, CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &n, perf.bwd_data);
  else
    e = d->api->bwd_filter_algos(d->h, xd, yd, d->conv, d->f, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, &n,
                                 perf.bwd_filter);
  *algo = *algo0 = -1;
  *ws = 0;
  for (int i = 0; e == CUDNN_STATUS_SUCCESS && i < n; i++) {
    int a;
    cudnnStatus_t ok;
    size_t mem;
    if (st->kind == CONV_FWD) a = (int)perf.fwd[i].algo, ok = perf.fwd[i].status, mem = perf.fwd[i].memory;
    else if (st->kind == CONV_BWD_INPUT)
      a = (int)perf.bwd_data[i].algo, ok = perf.bwd_data[i].status, mem = perf.bwd_data[i].memory;
    else a = (int)perf.bwd_filter[i].algo, ok = perf.bwd_filter[i].status, mem = perf.bwd_filter[i].memory;
    if (ok != CUDNN_STATUS_SUCCESS || mem > WORKSPACE_LIMIT) continue;
    if (*algo < 0) *algo = a, *ws = mem;
    if (*algo0 < 0 && mem == 0) *algo0 = a;
  }
  algo_entry *ent = e == CUDNN_STATUS_SUCCESS && *algo >= 0 ? malloc(sizeof *ent) : NULL;
  if (ent) {
    memcpy(ent->key, key, sizeof ent->key);
    ent->algo = *algo, ent->algo0 = *algo0, ent->ws = *ws;
    ent->next = st->algos;
    st->algos = ent;
  }
  pthread_mutex_unlock(&st->mu);
  if (e != CUDNN_STATUS_SUCCESS) return tfc_cudnn_check(d->c, e, "choosing a convolution algorithm");
  if (*algo < 0)
    return tfc_kernel_error(d->c, TFC_UNIMPLEMENTED,
                            "%s on GPU: cuDNN has no algorithm for this convolution of %s within a %zu MiB workspace",
                            d->c->node->op->name, tfc_dtype_name(d->dtype), WORKSPACE_LIMIT >> 20);
  return TFC_OK;
}

/* Runs the convolution of kind st->kind. x: input (FWD, BWD_FILTER) or input gradient
 * (BWD_INPUT, written); w: HWIO filter (read, or written for BWD_FILTER); y: output or
 * out_backprop. */
static int conv_run(dnn *d, conv_state *st, const tfc_window_geom *g, void *x, void *w, void *y) {
  tfc_kernel_ctx *c = d->c;
  /* Step 1: the symmetric part cuDNN pads, and the explicit rest (at most one side each). */
  int64_t ph = g->pt < g->pb ? g->pt : g->pb, pw = g->pl < g->pr ? g->pl : g->pr;
  int64_t et = g->pt - ph, eb = g->pb - ph, el = g->pl - pw, er = g->pr - pw;
  int64_t hp = g->ih + et + eb, wp = g->iw + el + er;
  int64_t chk[] = {g->n, g->ic, hp, wp, g->oc, g->kh, g->kw, g->oh, g->ow, ph, pw, g->sh, g->sw, g->dh, g->dw,
                   g->n * g->ic * hp * wp, g->n * g->oc * g->oh * g->ow, g->kh * g->kw * g->ic * g->oc};
  TFC_TRY(too_big(c, chk, (int)(sizeof chk / sizeof chk[0])));
  int padded = et || eb || el || er;
  cudnnTensorDescriptor_t xd, yd, xin;
  int64_t pst[4];
  dense_strides(g->nchw, g->ic, hp, wp, pst);
  TFC_TRY(dnn_tensor(d, g->n, g->ic, hp, wp, pst, &xd));
  TFC_TRY(dnn_dense(d, g->nchw, g->n, g->oc, g->oh, g->ow, &yd));
  void *xp = x;
  size_t xp_bytes = (size_t)(g->n * g->ic * hp * wp) * d->esize;
  if (padded) {
    /* xin: the user's input as the interior of the padded buffer (same dims, padded strides). */
    TFC_TRY(dnn_temp(d, xp_bytes, &xp));
    TFC_TRY(tfc_cuda_ctx_check(c, tfc_cuda_memset(xp, 0, (int64_t)xp_bytes, d->stream), d->dtype));
    TFC_TRY(dnn_tensor(d, g->n, g->ic, g->ih, g->iw, pst, &xin));
    if (st->kind != CONV_BWD_INPUT) {
      cudnnTensorDescriptor_t xu;
      TFC_TRY(dnn_dense(d, g->nchw, g->n, g->ic, g->ih, g->iw, &xu));
      char *interior = (char *)xp + (size_t)(et * pst[2] + el * pst[3]) * d->esize;
      TFC_TRY(dnn_copy(d, xu, x, xin, interior));
    }
  }
  /* Step 2: the filter in cuDNN's layout (KCRS for NCHW data, KRSC for NHWC). hwio views the
   * user's HWIO buffer as (K, C, R, S) with HWIO's strides; fk is the dense cuDNN layout. */
  cudnnTensorDescriptor_t hwio, fk;
  int64_t hst[4] = {1, g->oc, g->kw * g->ic * g->oc, g->ic * g->oc}, fst[4];
  dense_strides(g->nchw, g->ic, g->kh, g->kw, fst);
  TFC_TRY(dnn_tensor(d, g->oc, g->ic, g->kh, g->kw, hst, &hwio));
  TFC_TRY(dnn_tensor(d, g->oc, g->ic, g->kh, g->kw, fst, &fk));
  void *wk;
  TFC_TRY(dnn_temp(d, (size_t)(g->kh * g->kw * g->ic * g->oc) * d->esize, &wk));
  if (st->kind != CONV_BWD_FILTER) TFC_TRY(dnn_copy(d, hwio, w, fk, wk));
  cudnnStatus_t e = d->api->create_filter(&d->f);
  if (e == CUDNN_STATUS_SUCCESS)
    e = d->api->set_filter4d(d->f, d->dt, g->nchw ? CUDNN_TENSOR_NCHW : CUDNN_TENSOR_NHWC, (int)g->oc, (int)g->ic,
                             (int)g->kh, (int)g->kw);
  TFC_TRY(tfc_cudnn_check(c, e, "setting the filter descriptor"));
  /* Step 3: the convolution descriptor (cross-correlation, as TF), its math, the algorithm. */
  e = d->api->create_conv(&d->conv);
  if (e == CUDNN_STATUS_SUCCESS)
    e = d->api->set_conv2d(d->conv, (int)ph, (int)pw, (int)g->sh, (int)g->sw, (int)g->dh, (int)g->dw,
                           CUDNN_CROSS_CORRELATION, d->dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT);
  if (e == CUDNN_STATUS_SUCCESS)
    e = d->api->set_conv_math(d->conv, d->dt == CUDNN_DATA_HALF ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH);
  TFC_TRY(tfc_cudnn_check(c, e, "setting the convolution descriptor"));
  int key[24] = {st->kind, (int)d->dt, g->nchw, (int)g->n, (int)g->ic, (int)hp, (int)wp, (int)g->oc, (int)g->kh,
                 (int)g->kw, (int)g->oh, (int)g->ow, (int)ph, (int)pw, (int)g->sh, (int)g->sw, (int)g->dh, (int)g->dw};
  int algo, algo0;
  size_t ws_bytes;
  TFC_TRY(conv_algo(d, st, key, xd, yd, &algo, &algo0, &ws_bytes));
  void *ws = NULL;
  if (dnn_temp(d, ws_bytes, &ws)) {
    /* The device cannot spare the workspace: fall back to an algorithm that needs none. */
    if (algo0 < 0 || c->status->code != TFC_RESOURCE_EXHAUSTED) return c->status->code;
    tfc_status_fini(c->status);
    tfc_status_init(c->status);
    algo = algo0;
    ws_bytes = 0;
  }
  /* Step 4: run, then undo the layout changes of the outputs. */
  if (st->kind == CONV_FWD) {
    e = d->api->conv_fwd(d->h, one(d), xd, xp, d->f, wk, d->conv, (cudnnConvolutionFwdAlgo_t)algo, ws, ws_bytes,
                         zero(d), yd, y);
    return tfc_cudnn_check(c, e, "cudnnConvolutionForward");
  }
  if (st->kind == CONV_BWD_INPUT) {
    e = d->api->conv_bwd_data(d->h, one(d), d->f, wk, yd, y, d->conv, (cudnnConvolutionBwdDataAlgo_t)algo, ws,
                              ws_bytes, zero(d), xd, xp);
    TFC_TRY(tfc_cudnn_check(c, e, "cudnnConvolutionBackwardData"));
    if (!padded) return TFC_OK;
    cudnnTensorDescriptor_t xu;
    TFC_TRY(dnn_dense(d, g->nchw, g->n, g->ic, g->ih, g->iw, &xu));
    const char *interior = (const char *)xp + (size_t)(et * pst[2] + el * pst[3]) * d->esize;
    return dnn_copy(d, xin, interior, xu, x);
  }
  e = d->api->conv_bwd_filter(d->h, one(d), xd, xp, yd, y, d->conv, (cudnnConvolutionBwdFilterAlgo_t)algo, ws,
                              ws_bytes, zero(d), d->f, wk);
  TFC_TRY(tfc_cudnn_check(c, e, "cudnnConvolutionBackwardFilter"));
  return dnn_copy(d, fk, wk, hwio, w);
}

static int check_4d(tfc_kernel_ctx *c, const tfc_tensor *t, const char *what, const char *label) {
  if (t->ndims == 4) return TFC_OK;
  char buf[TFC_SHAPE_STR_MAX];
  if (label) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: %s must be 4-dimensional", label, what);
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s must be 4-dimensional%s%s", what,
                          strcmp(what, "input") ? ": " : "", tfc_tensor_shape_str(t, buf, sizeof buf));
}

/* A host int32 vector input of 4 sizes (input_sizes, filter_sizes). */
static int sizes_input(tfc_kernel_ctx *c, int i, const char *op, const char *name, int64_t out[4]) {
  const tfc_tensor *t = c->inputs[i];
  if (t->ndims != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: %s input must be 1-dim, not %d", op, name, t->ndims);
  if (t->n_elems != 4)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: %s must describe a 4-dimensional tensor, got %lld sizes", op,
                            name, (long long)t->n_elems);
  for (int k = 0; k < 4; k++) {
    out[k] = tfc_tensor_get_i64(t, k);
    if (out[k] < 0) return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: %s has a negative dimension", op, name);
  }
  return TFC_OK;
}

static int conv_compute(tfc_kernel_ctx *c) {
  conv_state *st = c->state;
  const char *label = st->kind == CONV_BWD_INPUT    ? "Conv2DCustomBackpropInput"
                      : st->kind == CONV_BWD_FILTER ? "Conv2DCustomBackpropFilter"
                                                    : NULL;
  tfc_window_geom g;
  int64_t in_shape[4], f_shape[4], out_dims[4];
  const tfc_tensor *x = NULL, *f = NULL, *dy = NULL;
  int dtype;
  /* Step 1: shapes, with the CPU kernel's checks and texts. */
  if (st->kind == CONV_FWD) {
    x = c->inputs[0];
    f = c->inputs[1];
    TFC_TRY(check_4d(c, x, "input", NULL));
    TFC_TRY(check_4d(c, f, "filter", NULL));
    memcpy(in_shape, x->dims, sizeof in_shape);
    memcpy(f_shape, f->dims, sizeof f_shape);
    dtype = x->dtype;
  } else {
    dy = c->inputs[2];
    if (st->kind == CONV_BWD_INPUT) {
      f = c->inputs[1];
      TFC_TRY(sizes_input(c, 0, "Conv2DBackpropInput", "input_sizes", in_shape));
      TFC_TRY(check_4d(c, f, "filter", label));
      memcpy(f_shape, f->dims, sizeof f_shape);
    } else {
      x = c->inputs[0];
      TFC_TRY(check_4d(c, x, "input", label));
      TFC_TRY(sizes_input(c, 1, "Conv2DBackpropFilter", "filter_sizes", f_shape));
      memcpy(in_shape, x->dims, sizeof in_shape);
    }
    TFC_TRY(check_4d(c, dy, "out_backprop", label));
    dtype = dy->dtype;
  }
  TFC_TRY(conv_geom(c, st, in_shape, f_shape, label, &g));
  if (st->kind != CONV_FWD) {
    int64_t want[4];
    act_dims(&g, g.oh, g.ow, g.oc, want);
    int ci = g.nchw ? 1 : 3;
    if (dy->dims[0] != want[0])
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: input and out_backprop must have the same batch size", label);
    if (dy->dims[ci] != g.oc)
      return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s: filter and out_backprop must have the same out_depth", label);
    for (int k = 0; k < 2; k++) {
      int idx = g.nchw ? 2 + k : 1 + k;
      if (dy->dims[idx] != want[idx])
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                                "%s: Size of out_backprop doesn't match computed: actual = %lld, computed = %lld "
                                "spatial_dim: %d input: %lld filter: %lld output: %lld stride: %lld dilation: %lld",
                                label, (long long)dy->dims[idx], (long long)want[idx], k + 1,
                                (long long)(k ? g.iw : g.ih), (long long)(k ? g.kw : g.kh), (long long)want[idx],
                                (long long)(k ? g.sw : g.sh), (long long)(k ? g.dw : g.dh));
    }
  }
  /* Step 2: the output; empty reductions give zeros. */
  if (st->kind == CONV_FWD)
    act_dims(&g, g.oh, g.ow, g.oc, out_dims);
  else
    memcpy(out_dims, st->kind == CONV_BWD_INPUT ? in_shape : f_shape, sizeof out_dims);
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dtype, out_dims, 4);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  dnn d;
  int rc = dnn_begin(&d, c, dtype);
  if (rc == TFC_OK) {
    if (g.n == 0 || g.ic == 0 || g.oc == 0 || g.oh == 0 || g.ow == 0 || g.kh == 0 || g.kw == 0)
      rc = tfc_cuda_ctx_check(c, tfc_cuda_memset(out->data, 0, (int64_t)out->n_bytes, d.stream), dtype);
    else if (st->kind == CONV_FWD)
      rc = conv_run(&d, st, &g, x->data, f->data, out->data);
    else if (st->kind == CONV_BWD_INPUT)
      rc = conv_run(&d, st, &g, out->data, f->data, dy->data);
    else
      rc = conv_run(&d, st, &g, x->data, out->data, dy->data);
  }
  dnn_end(&d);
  return rc;
}

/* ---- pooling ---- */

typedef struct pool_state {
  int kind, nchw, padding;
  int64_t ksize[2], stride[2];
} pool_state;

static int pool_init_kind(const tfc_node *n, void **state, tfc_status *s, int kind) {
  int64_t k[4], st4[4];
  const char *fmt, *padding;
  if (tfc_kernel_attr_string(n, "data_format", &fmt, s) || tfc_kernel_attr_string(n, "padding", &padding, s))
    return s->code;
  if (tfc_window_attr4(n, "ksize", k, "Sliding window ksize field must specify 4 dimensions", s) ||
      tfc_window_attr4(n, "strides", st4, "Sliding window stride field must specify 4 dimensions", s))
    return s->code;
  if (strcmp(fmt, "NHWC") != 0 && strcmp(fmt, "NCHW") != 0)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s on the GPU supports only the NHWC and NCHW data formats, got %s",
                          n->op->name, fmt);
  int nchw = strcmp(fmt, "NCHW") == 0;
  int ci = nchw ? 1 : 3, hi = nchw ? 2 : 1, wi = nchw ? 3 : 2;
  if (k[0] != 1 || st4[0] != 1)
    return tfc_status_set(s, TFC_UNIMPLEMENTED, "Pooling is not yet supported on the batch dimension.");
  if (k[ci] != 1 || st4[ci] != 1) {
    if (k[hi] != 1 || k[wi] != 1 || st4[hi] != 1 || st4[wi] != 1)
      return tfc_status_set(s, TFC_UNIMPLEMENTED,
                            "MaxPooling supports exactly one of pooling across depth or pooling across width/height.");
    return tfc_status_set(s, TFC_UNIMPLEMENTED, "%s: pooling across depth is not supported on the GPU", n->op->name);
  }
  for (int i = 1; i < 4; i++)
    if (k[i] <= 0 || st4[i] <= 0)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Sliding window ksize and strides must be positive");
  pool_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  st->kind = kind;
  st->nchw = nchw;
  st->padding = strcmp(padding, "SAME") == 0 ? TFC_PAD_SAME : TFC_PAD_VALID;
  st->ksize[0] = k[hi];
  st->ksize[1] = k[wi];
  st->stride[0] = st4[hi];
  st->stride[1] = st4[wi];
  *state = st;
  return TFC_OK;
}

static int max_pool_init(const tfc_node *n, void **st, tfc_status *s) { return pool_init_kind(n, st, s, POOL_MAX); }
static int avg_pool_init(const tfc_node *n, void **st, tfc_status *s) { return pool_init_kind(n, st, s, POOL_AVG); }
static int max_pool_grad_init(const tfc_node *n, void **st, tfc_status *s) {
  return pool_init_kind(n, st, s, POOL_MAX_GRAD);
}
static int avg_pool_grad_init(const tfc_node *n, void **st, tfc_status *s) {
  return pool_init_kind(n, st, s, POOL_AVG_GRAD);
}

static int need_4d(tfc_kernel_ctx *c, const tfc_tensor *t, const char *what) {
  if (t->ndims == 4) return TFC_OK;
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s must be 4-dimensional", what);
}

/* x, y: input and output (for AvgPoolGrad any buffers of those sizes: cuDNN's average
 * backward reads neither); dy, dx: the gradients (backward kinds). */
static int pool_run(dnn *d, const pool_state *st, const tfc_window_geom *g, const void *x, void *y, const void *dy,
                    void *dx) {
  int64_t chk[] = {g->n, g->ic, g->ih, g->iw, g->oh, g->ow, g->kh, g->kw, g->sh, g->sw, g->pt, g->pl,
                   g->n * g->ic * g->ih * g->iw, g->n * g->ic * g->oh * g->ow};
  TFC_TRY(too_big(d->c, chk, (int)(sizeof chk / sizeof chk[0])));
  cudnnTensorDescriptor_t xd, yd;
  TFC_TRY(dnn_dense(d, g->nchw, g->n, g->ic, g->ih, g->iw, &xd));
  TFC_TRY(dnn_dense(d, g->nchw, g->n, g->ic, g->oh, g->ow, &yd));
  cudnnPoolingMode_t mode = st->kind == POOL_MAX        ? CUDNN_POOLING_MAX
                            : st->kind == POOL_MAX_GRAD ? CUDNN_POOLING_MAX_DETERMINISTIC
                                                        : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
  cudnnStatus_t e = d->api->create_pool(&d->pool);
  if (e == CUDNN_STATUS_SUCCESS)
    e = d->api->set_pool2d(d->pool, mode, CUDNN_PROPAGATE_NAN, (int)g->kh, (int)g->kw, (int)g->pt, (int)g->pl,
                           (int)g->sh, (int)g->sw);
  TFC_TRY(tfc_cudnn_check(d->c, e, "setting the pooling descriptor"));
  if (st->kind == POOL_MAX || st->kind == POOL_AVG)
    return tfc_cudnn_check(d->c, d->api->pool_fwd(d->h, d->pool, one(d), xd, x, zero(d), yd, y), "cudnnPoolingForward");
  e = d->api->pool_bwd(d->h, d->pool, one(d), yd, y, yd, dy, xd, x, zero(d), xd, dx);
  return tfc_cudnn_check(d->c, e, "cudnnPoolingBackward");
}

static int pool_compute(tfc_kernel_ctx *c) {
  const pool_state *st = c->state;
  const tfc_tensor *x = NULL, *y = NULL, *grad = NULL;
  int64_t in_shape[4], want[4];
  /* Step 1: shapes, with the CPU kernel's checks and texts. */
  switch (st->kind) {
    case POOL_MAX:
    case POOL_AVG: x = c->inputs[0]; TFC_TRY(need_4d(c, x, "tensor_in")); break;
    case POOL_MAX_GRAD:
      x = c->inputs[0];
      y = c->inputs[1];
      grad = c->inputs[2];
      TFC_TRY(need_4d(c, x, "orig_input"));
      TFC_TRY(need_4d(c, y, "orig_output"));
      TFC_TRY(need_4d(c, grad, "out_backprop"));
      break;
    default: {
      const tfc_tensor *shape = c->inputs[0];
      grad = c->inputs[1];
      if (shape->ndims != 1 || shape->n_elems != 4)
        return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "out_backprop must be 1-dimensional and 4 elements");
      TFC_TRY(need_4d(c, grad, "out_backprop"));
      for (int i = 0; i < 4; i++)
        if ((in_shape[i] = tfc_tensor_get_i64(shape, i)) < 0)
          return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "orig_input_shape has a negative dimension");
    }
  }
  if (x) memcpy(in_shape, x->dims, sizeof in_shape);
  tfc_window_geom g = {.nchw = st->nchw, .n = in_shape[0], .dh = 1, .dw = 1};
  g.ic = g.oc = in_shape[st->nchw ? 1 : 3];
  g.ih = in_shape[st->nchw ? 2 : 1];
  g.iw = in_shape[st->nchw ? 3 : 2];
  g.kh = st->ksize[0], g.kw = st->ksize[1], g.sh = st->stride[0], g.sw = st->stride[1];
  TFC_TRY(tfc_window_output_size(c, g.ih, g.kh, 1, g.sh, st->padding, &g.oh, &g.pt, &g.pb));
  TFC_TRY(tfc_window_output_size(c, g.iw, g.kw, 1, g.sw, st->padding, &g.ow, &g.pl, &g.pr));
  want[0] = g.n;
  want[st->nchw ? 1 : 3] = g.ic;
  want[st->nchw ? 2 : 1] = g.oh;
  want[st->nchw ? 3 : 2] = g.ow;
  const tfc_tensor *shape_src = grad ? grad : y;
  if (shape_src && memcmp(shape_src->dims, want, sizeof want) != 0) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    tfc_shape ws = {.rank = 4};
    memcpy(ws.dims, want, sizeof want);
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Expected grad shape to be %s, but got %s",
                            tfc_shape_str(&ws, a, sizeof a), tfc_tensor_shape_str(shape_src, b, sizeof b));
  }
  if (y && memcmp(y->dims, want, sizeof want) != 0) {
    char a[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "orig_output has shape %s, which is not the pooling output shape",
                            tfc_tensor_shape_str(y, a, sizeof a));
  }
  /* Step 2: the output; empty cases as the CPU. */
  int dtype = grad ? grad->dtype : x->dtype;
  int forward = st->kind == POOL_MAX || st->kind == POOL_AVG;
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dtype, forward ? want : in_shape, 4);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  dnn d;
  int rc = dnn_begin(&d, c, dtype);
  if (rc == TFC_OK) {
    if (forward && (g.oh == 0 || g.ow == 0))
      rc = TFC_OK;
    else if (!forward && grad->n_elems == 0)
      rc = tfc_cuda_ctx_check(c, tfc_cuda_memset(out->data, 0, (int64_t)out->n_bytes, d.stream), dtype);
    else if (forward)
      rc = pool_run(&d, st, &g, x->data, out->data, NULL, NULL);
    else if (st->kind == POOL_MAX_GRAD)
      rc = pool_run(&d, st, &g, x->data, y->data, grad->data, out->data);
    else
      rc = pool_run(&d, st, &g, out->data, grad->data, grad->data, out->data);
  }
  dnn_end(&d);
  return rc;
}

/* ---- registration ---- */

#define G_F (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_HALF))

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Conv2D, .type_attr = "T", .types = G_F, .flags = TFC_KF_EXPENSIVE, .init = conv_fwd_init,
     .compute = conv_compute, .free_state = conv_free},
    {.op = TFC_OP_Conv2DBackpropInput, .type_attr = "T", .types = G_F, .host_memory_in = TFC_HOST(0),
     .flags = TFC_KF_EXPENSIVE, .init = conv_bwd_input_init, .compute = conv_compute, .free_state = conv_free},
    {.op = TFC_OP_Conv2DBackpropFilter, .type_attr = "T", .types = G_F, .host_memory_in = TFC_HOST(1),
     .flags = TFC_KF_EXPENSIVE, .init = conv_bwd_filter_init, .compute = conv_compute, .free_state = conv_free},
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
