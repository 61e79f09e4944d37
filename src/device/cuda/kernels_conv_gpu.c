/*
 * kernels_conv_gpu — Conv2D, Conv2DBackpropInput and Conv2DBackpropFilter, and
 * DepthwiseConv2dNative with its two backprops, on the GPU through cuDNN (loaded at run time:
 * cudnn_loader.h), and MaxPool, AvgPool, MaxPoolGrad and AvgPoolGrad through tfc's own CUDA
 * kernels (cuda_pool.cu), for half, float and double as TF 1.15's GPU registrations.
 *
 * Attrs, shapes, output sizes and TF's padding split come from device/conv_plan.h, the module
 * the CPU kernels use too, so both devices accept and refuse the same nodes and inputs with the
 * same codes and texts. What is left here is the arithmetic.
 *
 * Depthwise convolutions are cuDNN grouped convolutions with one group per input channel (TF
 * does the same where it uses cuDNN): the depthwise filter [kh, kw, C, mult] is read as the
 * HWIO filter [kh, kw, 1, C * mult], and output channel ch * mult + q is cuDNN's q-th output of
 * group ch, so both layouts, strides, dilations and TF's uneven padding take the Conv2D path
 * below unchanged. The GPU takes NCHW as TF's GPU kernels do; the CPU kernel refuses it.
 *
 * Convolution layouts. cuDNN sees packed NCHW activations and KCRS filters only, the one
 * configuration every cuDNN algorithm supports for every type; TF 1.15 does the same (it
 * transposes NHWC data to NCHW around its cuDNN calls). So an NHWC activation is rearranged
 * into an NCHW temporary (cudnnTransformTensor between two strided views of the same dims),
 * and an NHWC result back; the HWIO filter is rearranged into KCRS on every call (TF
 * transforms its filter too), and the filter gradient is computed in KCRS and rearranged back.
 *
 * Padding. cuDNN pads symmetrically. TF's SAME puts an odd padding element after, and EXPLICIT
 * may pad each side differently, so when the two sides of a dim differ the input is padded
 * explicitly by the difference (zeros around the data in the NCHW temporary) and cuDNN pads
 * the common part, as TF does for its "rows_odd / cols_odd" case. The input gradient is then
 * computed for the padded input and its interior copied out.
 *
 * Pooling does not use cuDNN: its symmetric padding and its undocumented tie rule in max
 * pooling's backward pass would both need work-arounds, and TF's window semantics are simple
 * to compute directly (cuda_pool.cu explains; MaxPoolGrad routes each gradient to the first
 * maximum of its window as TF's CPU kernel and TF's NHWC GPU kernel do, where TF 1.15's GPU
 * MaxPoolGrad goes through cuDNN's backward pass and inherits cuDNN's rule).
 *
 * Algorithms. The convolutions take cuDNN's v7 heuristics: the first algorithm (in cuDNN's
 * order) of the allowed math whose workspace fits TF's default limit of 4 GiB, and, as a
 * fallback for a workspace the device cannot allocate, the first one needing none. Both are
 * cached per node and geometry under the node's mutex. float and double allow only FMA math
 * (TF 1.15 predates TF32, and the CPU comparison needs full precision); half may use tensor
 * cores and accumulates in float, as TF.
 *
 * Temporaries (NCHW copies, the KCRS filter, workspaces, MaxPoolGrad's argmax) are device
 * tensors from the device allocator, released right after the enqueue: every GPU kernel of the
 * device runs on its one compute stream and copies wait for that stream
 * (tfc_gpu_mem_wait_compute), so memory handed back is reused only by work ordered after ours.
 *
 * Thread-safety: compute may run concurrently for one node (several steps), and with other
 * nodes of the device: the algorithm cache sits behind the node's mutex, and the device's
 * cuDNN handle is held (tfc_cudnn_acquire) from the first cuDNN call to the last enqueue.
 */
#include <cuda_runtime_api.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "device/conv_plan.h"
#include "device/cuda/cuda_kernels.h"
#include "device/cuda/cudnn_loader.h"
#include "device/gpu/gpu_device.h"

/* TF_CUDNN_WORKSPACE_LIMIT_IN_MB's default. */
#define WORKSPACE_LIMIT ((size_t)4096 << 20)
#define MAX_TEMPS 6

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
   * user's NHWC y; the filter as HWIO and as KCRS. */
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
  if (d->n_t == (int)(sizeof d->t / sizeof d->t[0]))
    return tfc_kernel_error(d->c, TFC_INTERNAL, "%s on GPU: too many tensor descriptors", d->c->node->op->name);
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

/* cuDNN's 4-D descriptors take int dims and strides. */
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
  int key[20];
  int algo, algo0;        /* best fitting; best without workspace (-1: none) */
  cudnnMathType_t math, math0;
  size_t ws;              /* algo's workspace bytes */
} algo_entry;

typedef struct conv_state {
  int kind;
  tfc_conv_attrs attrs;
  pthread_mutex_t mu;
  algo_entry *algos; /* guarded by mu */
} conv_state;

/* A new state of `kind` with attrs a (NULL: none kept). */
static int state_new(const tfc_node *n, int kind, const tfc_conv_attrs *a, void **state, tfc_status *s) {
  conv_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  if (pthread_mutex_init(&st->mu, NULL)) {
    free(st);
    return tfc_status_set(s, TFC_INTERNAL, "node '%s' (%s): cannot create a mutex", n->name, n->op->name);
  }
  st->kind = kind;
  if (a) st->attrs = *a;
  *state = st;
  return TFC_OK;
}

static int conv_init_kind(const tfc_node *n, void **state, tfc_status *s, int kind) {
  tfc_conv_attrs a;
  TFC_TRY(tfc_conv_attrs_parse(n, &a, s));
  return state_new(n, kind, &a, state, s);
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
  for (algo_entry *e = st->algos, *next; e; e = next) {
    next = e->next;
    free(e);
  }
  pthread_mutex_destroy(&st->mu);
  free(st);
}

/* Whether a heuristic result's math is allowed: half anything, float and double FMA only. */
static int math_ok(const dnn *d, cudnnMathType_t m) {
  return d->dt == CUDNN_DATA_HALF || m == CUDNN_DEFAULT_MATH || m == CUDNN_FMA_MATH;
}

/* The algorithm for this call, from the cache or cuDNN's heuristics. */
static int conv_algo(dnn *d, conv_state *st, const int *key, cudnnTensorDescriptor_t xd, cudnnTensorDescriptor_t yd,
                     algo_entry *out) {
  pthread_mutex_lock(&st->mu);
  for (algo_entry *e = st->algos; e; e = e->next)
    if (memcmp(e->key, key, sizeof e->key) == 0) {
      *out = *e;
      pthread_mutex_unlock(&st->mu);
      return TFC_OK;
    }
  union {
    cudnnConvolutionFwdAlgoPerf_t fwd[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    cudnnConvolutionBwdDataAlgoPerf_t bwd_data[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
    cudnnConvolutionBwdFilterAlgoPerf_t bwd_filter[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
  } perf;
  int n = 0;
  cudnnStatus_t e;
  if (st->kind == TFC_CONV_FWD)
    e = d->api->fwd_algos(d->h, xd, d->f, d->conv, yd, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &n, perf.fwd);
  else if (st->kind == TFC_CONV_BWD_INPUT)
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
    if (st->kind == TFC_CONV_FWD)
      a = (int)perf.fwd[i].algo, ok = perf.fwd[i].status, mem = perf.fwd[i].memory, m = perf.fwd[i].mathType;
    else if (st->kind == TFC_CONV_BWD_INPUT)
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
    ent->next = st->algos;
    st->algos = ent;
  }
  pthread_mutex_unlock(&st->mu);
  if (e != CUDNN_STATUS_SUCCESS) return tfc_cudnn_check(d->c, e, "choosing a convolution algorithm");
  if (out->algo < 0)
    return tfc_kernel_error(d->c, TFC_UNIMPLEMENTED,
                            "%s on GPU: cuDNN has no algorithm for this convolution of %s within a %zu MiB workspace",
                            d->c->node->op->name, tfc_dtype_name(d->dtype), WORKSPACE_LIMIT >> 20);
  return TFC_OK;
}

/* Runs the convolution of kind st->kind in `groups` groups (1; g->ic for a depthwise one).
 * x: input (FWD, BWD_FILTER) or input gradient (BWD_INPUT, written); w: HWIO filter with
 * g->ic / groups input channels (read, or written for BWD_FILTER); y: output (FWD, written) or
 * out_backprop. All in the user's layout (g->nchw). */
static int conv_run(dnn *d, conv_state *st, const tfc_window_geom *g, int64_t groups, void *x, void *w, void *y) {
  tfc_kernel_ctx *c = d->c;
  int kind = st->kind;
  int64_t fic = g->ic / groups; /* the filter's input channels */
  /* Step 1: the symmetric part cuDNN pads, and the explicit rest (at most one side each). */
  int64_t ph = g->pt < g->pb ? g->pt : g->pb, pw = g->pl < g->pr ? g->pl : g->pr;
  int64_t et = g->pt - ph, eb = g->pb - ph, el = g->pl - pw, er = g->pr - pw;
  int64_t hp = g->ih + et + eb, wp = g->iw + el + er;
  int64_t chk[] = {g->n, g->ic, hp, wp, g->oc, g->kh, g->kw, g->oh, g->ow, ph, pw, g->sh, g->sw, g->dh, g->dw,
                   g->n * g->ic * hp * wp, g->n * g->oc * g->oh * g->ow, g->kh * g->kw * fic * g->oc, groups};
  TFC_TRY(too_big(c, chk, (int)(sizeof chk / sizeof chk[0])));
  int padded = et || eb || el || er;
  /* Step 2: cuDNN's x: packed NCHW (n, ic, hp, wp); a temporary unless it is the user's. xin
   * views its interior (the user's dims at the padded strides), xu the user's buffer. */
  cudnnTensorDescriptor_t xd, xin, xu;
  int64_t pst[4];
  dense_strides(1, g->ic, hp, wp, pst);
  TFC_TRY(dnn_tensor(d, g->n, g->ic, hp, wp, pst, &xd));
  void *xp = x;
  char *interior = x;
  if (padded || !g->nchw) {
    size_t bytes = (size_t)(g->n * g->ic * hp * wp) * d->esize;
    TFC_TRY(temp_alloc(&d->tmp, bytes, &xp));
    interior = (char *)xp + (size_t)(et * pst[2] + el * pst[3]) * d->esize;
    TFC_TRY(dnn_tensor(d, g->n, g->ic, g->ih, g->iw, pst, &xin));
    TFC_TRY(dnn_dense(d, g->nchw, g->n, g->ic, g->ih, g->iw, &xu));
    if (kind != TFC_CONV_BWD_INPUT) {
      if (padded) TFC_TRY(tfc_cuda_ctx_check(c, tfc_cuda_memset(xp, 0, (int64_t)bytes, d->stream), d->dtype));
      TFC_TRY(dnn_copy(d, xu, x, xin, interior));
    }
  }
  /* Step 3: cuDNN's y: packed NCHW (n, oc, oh, ow); a temporary for NHWC data. */
  cudnnTensorDescriptor_t yd, yu = NULL;
  TFC_TRY(dnn_dense(d, 1, g->n, g->oc, g->oh, g->ow, &yd));
  void *yp = y;
  if (!g->nchw) {
    TFC_TRY(temp_alloc(&d->tmp, (size_t)(g->n * g->oc * g->oh * g->ow) * d->esize, &yp));
    TFC_TRY(dnn_dense(d, 0, g->n, g->oc, g->oh, g->ow, &yu));
    if (kind != TFC_CONV_FWD) TFC_TRY(dnn_copy(d, yu, y, yd, yp));
  }
  /* Step 4: the filter in KCRS. hwio views the user's HWIO buffer as (K, C, R, S) with HWIO's
   * strides; fk is the dense KCRS layout. A depthwise filter [kh, kw, C, mult] is the HWIO
   * filter [kh, kw, 1, C * mult] whose output channel ch * mult + q is cuDNN's q-th of group ch. */
  cudnnTensorDescriptor_t hwio, fk;
  int64_t hst[4] = {1, g->oc, g->kw * fic * g->oc, fic * g->oc}, fst[4];
  dense_strides(1, fic, g->kh, g->kw, fst);
  TFC_TRY(dnn_tensor(d, g->oc, fic, g->kh, g->kw, hst, &hwio));
  TFC_TRY(dnn_tensor(d, g->oc, fic, g->kh, g->kw, fst, &fk));
  void *wk;
  TFC_TRY(temp_alloc(&d->tmp, (size_t)(g->kh * g->kw * fic * g->oc) * d->esize, &wk));
  if (kind != TFC_CONV_BWD_FILTER) TFC_TRY(dnn_copy(d, hwio, w, fk, wk));
  cudnnStatus_t e = d->api->create_filter(&d->f);
  if (e == CUDNN_STATUS_SUCCESS)
    e = d->api->set_filter4d(d->f, d->dt, CUDNN_TENSOR_NCHW, (int)g->oc, (int)fic, (int)g->kh, (int)g->kw);
  TFC_TRY(tfc_cudnn_check(c, e, "setting the filter descriptor"));
  /* Step 5: the convolution descriptor (cross-correlation, as TF), its math, the algorithm. */
  e = d->api->create_conv(&d->conv);
  if (e == CUDNN_STATUS_SUCCESS)
    e = d->api->set_conv2d(d->conv, (int)ph, (int)pw, (int)g->sh, (int)g->sw, (int)g->dh, (int)g->dw,
                           CUDNN_CROSS_CORRELATION, d->dt == CUDNN_DATA_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT);
  if (e == CUDNN_STATUS_SUCCESS)
    e = d->api->set_conv_math(d->conv, d->dt == CUDNN_DATA_HALF ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH);
  if (e == CUDNN_STATUS_SUCCESS && groups > 1) e = d->api->set_conv_groups(d->conv, (int)groups);
  TFC_TRY(tfc_cudnn_check(c, e, "setting the convolution descriptor"));
  int key[20] = {kind,       (int)d->dt, (int)g->n,  (int)g->ic, (int)hp,    (int)wp,    (int)g->oc,
                 (int)g->kh, (int)g->kw, (int)g->oh, (int)g->ow, (int)ph,    (int)pw,    (int)g->sh,
                 (int)g->sw, (int)g->dh, (int)g->dw, (int)groups};
  algo_entry a;
  TFC_TRY(conv_algo(d, st, key, xd, yd, &a));
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

/* Allocates output 0 (out_dims of dtype) and fills it with the convolution of kind st->kind
 * over g in `groups` groups: zeros when the plan says so, else through conv_run. x, f, dy: the
 * plan's inputs (NULL where the kind has none). */
static int conv_output(tfc_kernel_ctx *c, conv_state *st, const tfc_window_geom *g, int64_t groups, int dtype,
                       const int64_t out_dims[4], int zeros, const tfc_tensor *x, const tfc_tensor *f,
                       const tfc_tensor *dy) {
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, dtype, out_dims, 4);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  if (zeros) {
    void *stream;
    TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
    return tfc_cuda_ctx_check(c, tfc_cuda_memset(out->data, 0, (int64_t)out->n_bytes, stream), dtype);
  }
  dnn d;
  int rc = dnn_begin(&d, c, dtype);
  if (rc == TFC_OK) {
    if (st->kind == TFC_CONV_FWD)
      rc = conv_run(&d, st, g, groups, x->data, f->data, out->data);
    else if (st->kind == TFC_CONV_BWD_INPUT)
      rc = conv_run(&d, st, g, groups, out->data, f->data, dy->data);
    else
      rc = conv_run(&d, st, g, groups, x->data, out->data, dy->data);
  }
  dnn_end(&d);
  return rc;
}

static int conv_compute(tfc_kernel_ctx *c) {
  conv_state *st = c->state;
  tfc_conv_plan p;
  TFC_TRY(tfc_conv_plan_make(c, &st->attrs, st->kind, &p));
  return conv_output(c, st, &p.g, 1, p.dtype, p.out_dims, p.zeros, p.x, p.f, p.dy);
}

/* ---- the depthwise convolutions: grouped convolutions with one group per input channel ---- */

/* The attrs are checked by tfc_depthwise_plan_make on every call, as the CPU kernel does (TF's
 * depthwise checks come before Conv2D's there); the state holds the algorithm cache. */
static int dw_init_kind(const tfc_node *n, void **state, tfc_status *s, int kind) {
  return state_new(n, kind, NULL, state, s);
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
  return conv_output(c, st, &p.g, p.g.ic, p.dtype, p.out_dims, p.zeros, x, f, dy);
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
  tfc_cuda_pool_geom pg = {g->n, g->ic, g->ih, g->iw, g->oh, g->ow, g->kh, g->kw, g->sh, g->sw, g->pt, g->pl, g->nchw};
  switch (st->kind) {
    case TFC_POOL_MAX:
    case TFC_POOL_AVG:
      return tfc_cuda_ctx_check(c, tfc_cuda_pool_fwd(ct, st->kind == TFC_POOL_MAX, p.x->data, out->data, &pg, stream),
                                p.dtype);
    case TFC_POOL_MAX_GRAD: {
      temps tp = {.c = c};
      void *argmax;
      int rc = temp_alloc(&tp, sizeof(int32_t) * (size_t)(g->n * g->ic * g->oh * g->ow), &argmax);
      if (rc == TFC_OK)
        rc = tfc_cuda_ctx_check(
            c, tfc_cuda_pool_max_grad(ct, p.x->data, p.grad->data, out->data, argmax, &pg, stream), p.dtype);
      temps_release(&tp); /* after the enqueue: see the top comment */
      return rc;
    }
    default:
      return tfc_cuda_ctx_check(c, tfc_cuda_pool_avg_grad(ct, p.grad->data, out->data, &pg, stream), p.dtype);
  }
}

/* ---- registration ---- */

#define G_F (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE) | TFC_T(TFC_DT_HALF))

/* TF 1.15: Conv2D, the depthwise convolutions, their backprops and the four pooling ops on
 * DEVICE_GPU for half, float and double; input_sizes, filter_sizes and orig_input_shape are
 * HostMemory. */
static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Conv2D, .type_attr = "T", .types = G_F, .flags = TFC_KF_EXPENSIVE, .init = conv_fwd_init,
     .compute = conv_compute, .free_state = conv_free},
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
