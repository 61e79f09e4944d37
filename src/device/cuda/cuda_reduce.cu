/*
 * cuda_reduce — the reduction CUDA kernels: Sum, Mean, Prod, Max, Min over any set of axes
 * (also BiasAddGrad's per-channel sum), and the row-wise Softmax / LogSoftmax.
 *
 * A reduction plan (cuda_kernels.h) gives each output element as a point of the kept dims
 * and the elements it reduces as the points of the reduced dims, both with input strides, so
 * any axis pattern is one plan. The launcher first normalizes the plan (size-1 dims dropped,
 * neighbours that walk memory as one dim merged), then picks one of four shapes of work from
 * the shape alone (never from the GPU model, so a result does not depend on the machine):
 *   - thread: one thread per output, a serial loop (few elements per output, < kBlockMin);
 *   - block: one block per output; each thread folds a strided slice of the reduced points,
 *     then the block combines its partials in shared memory (a tree);
 *   - columns: the kept dims end in a stride-1 run of columns and one reduced dim walks the
 *     rows (BiasAddGrad in NHWC, Sum(axis=0) of a gradient). A block is a tile of w columns
 *     (w = 32, or the next power of two >= the columns when fewer) by kThreads / w row lanes,
 *     so a warp reads adjacent addresses; the rows are cut into chunks along gridDim.y so that
 *     few columns still fill the GPU. With one chunk the block writes the outputs; otherwise
 *     each (chunk, column) partial goes to scratch and a second pass folds them;
 *   - split: few outputs with many elements each (a full reduction, Sum over rows of a few
 *     long rows): each output's reduced range is cut into chunks of at least kChunkMin
 *     elements, one block per (chunk, output) writes its partial to scratch, and the second
 *     pass folds them.
 * The second pass of both multi-pass shapes is the columns kernel itself over the partials
 * (a [chunks, outputs] matrix in the accumulation type), with one chunk: each lane folds its
 * rows in order, then the lanes meet in a fixed tree. So every result is the same on every
 * run: no atomics, and the partition depends on the shape only.
 *
 * Accumulation is in float for float and half, in double for double (partials in scratch
 * too); Mean divides the whole sum by the whole count once, in the pass that writes the
 * output (0/0 = NaN for an empty Mean, as on the CPU). Max/Min keep the accumulator unless a
 * value compares greater (smaller), so NaNs never win and partials combine like elements.
 *
 * Scratch: the multi-pass shapes need device memory for their partials, which the caller
 * sizes with tfc_cuda_reduce_scratch_bytes and passes in (a launcher never allocates); with
 * no scratch they fall back to the single-pass kernels.
 *
 * Softmax runs one block per row: the row maximum, the sum of exp(x - max), then the outputs
 * exp(x - max) / sum (or x - max - log(sum)), each pass a block-wide loop over the row.
 *
 * Invariants of the block kernels: they are launched with exactly kThreads (a power of two)
 * threads, which the trees rely on; their item and row loops are uniform over the block
 * (every thread runs the same iterations; per-thread bounds only guard loads and stores), so
 * every thread reaches every barrier; and a Softmax thread reads and writes only its own
 * elements of a row, which is what lets Softmax run in place.
 */
#include "device/cuda/cuda_common.cuh"

using namespace tfc_cuda;

namespace {

/* Below this many elements per output a block would leave most of its threads idle. */
const int64_t kBlockMin = 128;
/* A columns block needs this many rows: below it most of its 8+ row lanes would idle, and
 * one thread per output (coalesced on this shape too) serves better. */
const int64_t kColMinRows = 32;
/* The least work of one block of a multi-pass shape (32 elements per thread): enough to
 * amortize its partial's write and the second pass. */
const int64_t kChunkMin = 8192;
/* The blocks the multi-pass shapes aim for: about one full wave of 256-thread blocks on the
 * largest current GPUs (132 SMs x 8 resident blocks on an H200, 108 x 8 on an A100). More
 * chunks only lengthen the second pass. Also the cap on chunks, far below gridDim.y's 65535. */
const int64_t kTargetBlocks = 1024;

static_assert(kTargetBlocks <= 65535, "column chunks run along gridDim.y");

template <int OP, typename A> __device__ __forceinline__ A identity() {
  if constexpr (OP == TFC_CUDA_RED_PROD) return (A)1;
  else if constexpr (OP == TFC_CUDA_RED_MAX) return (A)-INFINITY;
  else if constexpr (OP == TFC_CUDA_RED_MIN) return (A)INFINITY;
  else return (A)0;
}

/* Eigen's MaxReducer/MinReducer keep the accumulator unless the new value compares greater
 * (smaller), as the CPU kernels do. */
template <int OP, typename A> __device__ __forceinline__ A combine(A acc, A v) {
  if constexpr (OP == TFC_CUDA_RED_PROD) return acc * v;
  else if constexpr (OP == TFC_CUDA_RED_MAX) return v > acc ? v : acc;
  else if constexpr (OP == TFC_CUDA_RED_MIN) return v < acc ? v : acc;
  else return acc + v;
}

/* Offset of point `i` of dims (row-major) under strides; i < the product of dims, so the
 * outermost dim needs no division (and a single dim none at all). */
__device__ __forceinline__ int64_t offset_of(int64_t i, int n, const int64_t *dims, const int64_t *strides) {
  if (n == 0) return 0;
  int64_t off = 0;
  for (int d = n - 1; d > 0; d--) {
    int64_t q = i / dims[d];
    off += (i - q * dims[d]) * strides[d];
    i = q;
  }
  return off + i * strides[0];
}

template <int OP, typename A> __device__ __forceinline__ A finish(A acc, int64_t count) {
  if constexpr (OP == TFC_CUDA_RED_MEAN) return acc / (A)count;
  else return acc;
}

template <int OP, typename S>
__global__ void reduce_thread_kernel(const S *__restrict__ x, S *__restrict__ out, tfc_cuda_reduce_plan p,
                                     int64_t n_out, int64_t count) {
  typedef acc_t<S> A;
  TFC_CUDA_GRID_LOOP(o, n_out) {
    const int64_t base = offset_of(o, p.n_kept, p.kdims, p.kstrides);
    A acc = identity<OP, A>();
    for (int64_t j = 0; j < count; j++)
      acc = combine<OP, A>(acc, load(x, base + offset_of(j, p.n_red, p.rdims, p.rstrides)));
    store(out, o, finish<OP, A>(acc, count));
  }
}

/* Combines the block's partials; every thread gets the result. */
template <typename A, typename F> __device__ A block_combine(A v, F f) {
  __shared__ A part[kThreads];
  __syncthreads(); /* the previous use of part is done */
  part[threadIdx.x] = v;
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w >>= 1) {
    if ((int)threadIdx.x < w) part[threadIdx.x] = f(part[threadIdx.x], part[threadIdx.x + w]);
    __syncthreads();
  }
  return part[0];
}

template <int OP, typename S>
__global__ void reduce_block_kernel(const S *__restrict__ x, S *__restrict__ out, tfc_cuda_reduce_plan p,
                                    int64_t n_out, int64_t count) {
  typedef acc_t<S> A;
  TFC_CUDA_BLOCK_LOOP(o, n_out) {
    const int64_t base = offset_of(o, p.n_kept, p.kdims, p.kstrides);
    A acc = identity<OP, A>();
    for (int64_t j = threadIdx.x; j < count; j += blockDim.x)
      acc = combine<OP, A>(acc, load(x, base + offset_of(j, p.n_red, p.rdims, p.rstrides)));
    acc = block_combine(acc, [](A a, A b) { return combine<OP, A>(a, b); });
    if (threadIdx.x == 0) store(out, o, finish<OP, A>(acc, count));
  }
}

/* The split shape's first pass: block item = chunk * n_out + o folds elements
 * [chunk * chunk_len, + chunk_len) of output o's reduced points into part[item]. */
template <int OP, typename S>
__global__ void reduce_split_kernel(const S *__restrict__ x, acc_t<S> *__restrict__ part, tfc_cuda_reduce_plan p,
                                    int64_t n_out, int64_t count, int64_t n_chunks, int64_t chunk_len) {
  typedef acc_t<S> A;
  TFC_CUDA_BLOCK_LOOP(item, n_out * n_chunks) {
    const int64_t ch = item / n_out, o = item - ch * n_out;
    const int64_t base = offset_of(o, p.n_kept, p.kdims, p.kstrides);
    const int64_t end = ch * chunk_len + chunk_len < count ? ch * chunk_len + chunk_len : count;
    A acc = identity<OP, A>();
#pragma unroll 4
    for (int64_t j = ch * chunk_len + threadIdx.x; j < end; j += blockDim.x)
      acc = combine<OP, A>(acc, load(x, base + offset_of(j, p.n_red, p.rdims, p.rstrides)));
    acc = block_combine(acc, [](A a, A b) { return combine<OP, A>(a, b); });
    if (threadIdx.x == 0) part[item] = acc;
  }
}

/* A columns pass: the input viewed as [batches][rows][cols], element (b, r, k) at
 * offset_of(b, outer dims) + r * rstride + k; output o = b * cols + k. Items (gridDim.x,
 * strided) are (batch, tile of w columns); chunks (gridDim.y, exactly n_chunks) are runs of
 * chunk_rows rows. */
struct col_geom {
  int n_outer; /* the kept dims before the columns (batches) */
  int64_t odims[TFC_CUDA_MAX_DIMS], ostrides[TFC_CUDA_MAX_DIMS];
  int64_t cols, rows, rstride;
  int log2w;          /* w = 1 << log2w columns per tile, kThreads / w row lanes */
  int64_t tiles;      /* ceil(cols / w) */
  int64_t items;      /* batches * tiles */
  int64_t chunk_rows; /* rows per chunk; n_chunks = ceil(rows / chunk_rows) = gridDim.y */
  int64_t n_out;      /* batches * cols: the partials' row length */
  int64_t count;      /* the reduction's whole count (Mean's divisor) */
};

/* FINAL: out (type Out = the storage type) gets finish(acc) at o; otherwise out (type Out =
 * acc_t<In>) gets the partial at chunk * n_out + o. In is the storage type in a first pass,
 * the accumulation type in a second. */
template <int OP, typename In, typename Out, bool FINAL>
__global__ void reduce_cols_kernel(const In *__restrict__ x, Out *__restrict__ out, col_geom g) {
  typedef acc_t<In> A;
  __shared__ A sh[kThreads];
  const int w = 1 << g.log2w, lanes = kThreads >> g.log2w;
  const int col = (int)threadIdx.x & (w - 1), lane = (int)threadIdx.x >> g.log2w;
  const int64_t ch = blockIdx.y, r0 = ch * g.chunk_rows, r1 = r0 + g.chunk_rows < g.rows ? r0 + g.chunk_rows : g.rows;
  for (int64_t item = blockIdx.x; item < g.items; item += gridDim.x) {
    const int64_t b = item / g.tiles, k = (item - b * g.tiles) * w + col;
    A acc = identity<OP, A>();
    if (k < g.cols) {
      const In *xb = x + offset_of(b, g.n_outer, g.odims, g.ostrides) + k;
#pragma unroll 4
      for (int64_t r = r0 + lane; r < r1; r += lanes) acc = combine<OP, A>(acc, load(xb, r * g.rstride));
    }
    /* The lanes of each column meet in a tree: lane l takes lane l + s, at index + s * w. */
    __syncthreads(); /* the previous item's reads of sh are done */
    sh[threadIdx.x] = acc;
    __syncthreads();
    for (int s = lanes / 2; s > 0; s >>= 1) {
      if (lane < s) sh[threadIdx.x] = combine<OP, A>(sh[threadIdx.x], sh[threadIdx.x + s * w]);
      __syncthreads();
    }
    if (lane == 0 && k < g.cols) {
      const int64_t o = b * g.cols + k;
      if constexpr (FINAL) store(out, o, finish<OP, A>(sh[threadIdx.x], g.count));
      else out[ch * g.n_out + o] = sh[threadIdx.x];
    }
  }
}

/* ---- planning (host) ---- */

enum { SHAPE_THREAD = 0, SHAPE_BLOCK = 1, SHAPE_COLS = 2, SHAPE_SPLIT = 3 };

struct work {
  int shape;
  tfc_cuda_reduce_plan p; /* normalized */
  int64_t n_out, count;
  col_geom cols;                /* SHAPE_COLS: the first pass */
  int64_t n_chunks, chunk_len;  /* SHAPE_COLS and SHAPE_SPLIT: chunks per output (1: one pass) */
  int64_t scratch_elems;        /* partials in the accumulation type; 0 for one pass */
};

/* Appends (size, stride) to one side of a plan, dropping size 1 and merging with the
 * previous dim when together they walk memory as one dim (the order of points is kept). */
static void push_dim(int *n, int64_t *dims, int64_t *strides, int64_t size, int64_t stride) {
  if (size == 1) return;
  if (*n > 0 && strides[*n - 1] == size * stride) {
    dims[*n - 1] *= size;
    strides[*n - 1] = stride;
    return;
  }
  dims[*n] = size;
  strides[*n] = stride;
  (*n)++;
}

static int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b > 0); }

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* The column geometry of cols stride-1 columns after outer kept dims, rows at rstride, cut
 * into n_chunks chunks (>= 1) of rows. */
static col_geom col_geom_of(int n_outer, const int64_t *odims, const int64_t *ostrides, int64_t cols, int64_t rows,
                            int64_t rstride, int64_t n_chunks, int64_t count) {
  col_geom g = {};
  g.n_outer = n_outer;
  for (int d = 0; d < n_outer; d++) {
    g.odims[d] = odims[d];
    g.ostrides[d] = ostrides[d];
  }
  g.cols = cols;
  g.rows = rows;
  g.rstride = rstride;
  while ((1 << g.log2w) < cols && (1 << g.log2w) < kWarp) g.log2w++;
  g.tiles = ceil_div(cols, (int64_t)1 << g.log2w);
  g.items = dims_count(n_outer, odims) * g.tiles;
  g.chunk_rows = ceil_div(rows, n_chunks);
  g.n_out = dims_count(n_outer, odims) * cols;
  g.count = count;
  return g;
}

/* The work for plan; multi-pass shapes only when scratch_ok. A pure function of the plan,
 * so tfc_cuda_reduce_scratch_bytes and tfc_cuda_reduce agree. */
static work plan_work(const tfc_cuda_reduce_plan *in, int scratch_ok) {
  work w = {};
  for (int d = 0; d < in->n_kept; d++) push_dim(&w.p.n_kept, w.p.kdims, w.p.kstrides, in->kdims[d], in->kstrides[d]);
  for (int d = 0; d < in->n_red; d++) push_dim(&w.p.n_red, w.p.rdims, w.p.rstrides, in->rdims[d], in->rstrides[d]);
  const tfc_cuda_reduce_plan *p = &w.p;
  w.n_out = dims_count(p->n_kept, p->kdims);
  w.count = dims_count(p->n_red, p->rdims);
  w.n_chunks = 1;
  w.shape = w.count < kBlockMin ? SHAPE_THREAD : SHAPE_BLOCK;
  if (w.n_out == 0 || w.count == 0) return w;
  /* Columns: the last kept dim has stride 1 and one reduced dim walks the rows. */
  if (p->n_kept >= 1 && p->kstrides[p->n_kept - 1] == 1 && p->n_red == 1 && w.count >= kColMinRows) {
    const int64_t cols = p->kdims[p->n_kept - 1];
    w.cols = col_geom_of(p->n_kept - 1, p->kdims, p->kstrides, cols, w.count, p->rstrides[0], 1, w.count);
    const col_geom &g = w.cols;
    int64_t chunks = 1;
    if (scratch_ok) {
      const int64_t by_work = w.count / (kChunkMin >> g.log2w), by_fill = ceil_div(kTargetBlocks, g.items);
      chunks = clamp64(by_work < by_fill ? by_work : by_fill, 1, kTargetBlocks);
      chunks = ceil_div(w.count, ceil_div(w.count, chunks)); /* no empty chunk */
    }
    w.shape = SHAPE_COLS;
    w.cols.chunk_rows = ceil_div(w.count, chunks);
    w.n_chunks = chunks;
    w.scratch_elems = chunks > 1 ? chunks * w.n_out : 0;
    return w;
  }
  /* Split: fewer outputs than kTargetBlocks, each worth several kChunkMin blocks. */
  if (scratch_ok) {
    const int64_t by_work = w.count / kChunkMin, by_fill = ceil_div(kTargetBlocks, w.n_out);
    const int64_t chunks = by_work < by_fill ? by_work : by_fill;
    if (chunks >= 2) {
      w.shape = SHAPE_SPLIT;
      w.chunk_len = ceil_div(w.count, chunks);
      w.n_chunks = ceil_div(w.count, w.chunk_len);
      w.scratch_elems = w.n_chunks * w.n_out;
    }
  }
  return w;
}

/* ---- launches ---- */

/* The second pass: out (n_out elements of S) = the fold of part's n_chunks rows of n_out. */
template <int OP, typename S>
void launch_fold(const acc_t<S> *part, S *out, int64_t n_out, int64_t n_chunks, int64_t count, cudaStream_t st) {
  col_geom g = col_geom_of(0, NULL, NULL, n_out, n_chunks, n_out, 1, count);
  reduce_cols_kernel<OP, acc_t<S>, S, true><<<blocks_for(g.items, 1), kThreads, 0, st>>>(part, out, g);
}

template <int OP, typename S>
int launch_reduce(const void *xv, void *outv, const work *w, void *scratch, cudaStream_t st) {
  typedef acc_t<S> A;
  const S *x = (const S *)xv;
  S *out = (S *)outv;
  A *part = (A *)scratch;
  switch (w->shape) {
    case SHAPE_THREAD:
      reduce_thread_kernel<OP, S><<<blocks_for(w->n_out), kThreads, 0, st>>>(x, out, w->p, w->n_out, w->count);
      break;
    case SHAPE_BLOCK:
      reduce_block_kernel<OP, S><<<blocks_for(w->n_out, 1), kThreads, 0, st>>>(x, out, w->p, w->n_out, w->count);
      break;
    case SHAPE_COLS: {
      const dim3 grid(blocks_for(w->cols.items, 1), (unsigned)w->n_chunks);
      if (w->n_chunks == 1) {
        reduce_cols_kernel<OP, S, S, true><<<grid, kThreads, 0, st>>>(x, out, w->cols);
        break;
      }
      reduce_cols_kernel<OP, S, A, false><<<grid, kThreads, 0, st>>>(x, part, w->cols);
      int err = launched();
      if (err) return err;
      launch_fold<OP, S>(part, out, w->n_out, w->n_chunks, w->count, st);
      break;
    }
    case SHAPE_SPLIT: {
      reduce_split_kernel<OP, S><<<blocks_for(w->n_out * w->n_chunks, 1), kThreads, 0, st>>>(
          x, part, w->p, w->n_out, w->count, w->n_chunks, w->chunk_len);
      int err = launched();
      if (err) return err;
      launch_fold<OP, S>(part, out, w->n_out, w->n_chunks, w->count, st);
      break;
    }
  }
  return launched();
}

template <int OP>
int dispatch_reduce(int dtype, const void *x, void *out, const work *w, void *scratch, cudaStream_t st) {
  return by_float_dtype(dtype, [&](auto t) {
    return launch_reduce<OP, typename decltype(t)::type>(x, out, w, scratch, st);
  });
}

/* The accumulation type's size of a float dtype, or 0. */
static int64_t acc_size(int dtype) {
  return dtype == TFC_CUDA_F64 ? 8 : dtype == TFC_CUDA_F32 || dtype == TFC_CUDA_F16 ? 4 : 0;
}

static int plan_ok(const tfc_cuda_reduce_plan *p) {
  return p->n_kept >= 0 && p->n_kept <= TFC_CUDA_MAX_DIMS && p->n_red >= 0 && p->n_red <= TFC_CUDA_MAX_DIMS;
}

/* ---- softmax ---- */

template <typename S>
/* Not __restrict__: y may be x (a forwarded input); each element is read before it is written. */
__global__ void softmax_kernel(const S *x, S *y, int64_t rows, int64_t cols, int log_out) {
  typedef acc_t<S> A;
  TFC_CUDA_BLOCK_LOOP(r, rows) {
    const int64_t base = r * cols;
    A m = (A)-INFINITY;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) {
      A v = load(x, base + j);
      m = v > m ? v : m;
    }
    m = block_combine(m, [](A a, A b) { return b > a ? b : a; });
    A sum = 0;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) sum += m_exp(load(x, base + j) - m);
    sum = block_combine(sum, [](A a, A b) { return a + b; });
    if (log_out) {
      const A ls = m_log(sum);
      for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) store(y, base + j, (load(x, base + j) - m) - ls);
    } else {
      for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) store(y, base + j, m_exp(load(x, base + j) - m) / sum);
    }
  }
}

template <typename S> int launch_softmax(const void *x, void *y, int64_t rows, int64_t cols, int log, cudaStream_t st) {
  softmax_kernel<S><<<blocks_for(rows, 1), kThreads, 0, st>>>((const S *)x, (S *)y, rows, cols, log);
  return launched();
}

} // namespace

extern "C" int64_t tfc_cuda_reduce_scratch_bytes(int dtype, const tfc_cuda_reduce_plan *plan) {
  if (!plan_ok(plan) || acc_size(dtype) == 0) return 0;
  const work w = plan_work(plan, 1);
  return w.scratch_elems * acc_size(dtype);
}

extern "C" int tfc_cuda_reduce(int op, int dtype, const void *x, void *out, const tfc_cuda_reduce_plan *plan,
                               void *scratch, void *stream) {
  if (!plan_ok(plan)) return TFC_CUDA_E_UNSUPPORTED;
  const work w = plan_work(plan, scratch != NULL);
  if (w.n_out == 0) return 0;
  cudaStream_t st = (cudaStream_t)stream;
  switch (op) {
    case TFC_CUDA_RED_SUM: return dispatch_reduce<TFC_CUDA_RED_SUM>(dtype, x, out, &w, scratch, st);
    case TFC_CUDA_RED_MEAN: return dispatch_reduce<TFC_CUDA_RED_MEAN>(dtype, x, out, &w, scratch, st);
    case TFC_CUDA_RED_PROD: return dispatch_reduce<TFC_CUDA_RED_PROD>(dtype, x, out, &w, scratch, st);
    case TFC_CUDA_RED_MAX: return dispatch_reduce<TFC_CUDA_RED_MAX>(dtype, x, out, &w, scratch, st);
    case TFC_CUDA_RED_MIN: return dispatch_reduce<TFC_CUDA_RED_MIN>(dtype, x, out, &w, scratch, st);
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
}

extern "C" int tfc_cuda_softmax(int dtype, int log, const void *x, void *y, int64_t rows, int64_t cols, void *stream) {
  if (rows == 0 || cols == 0) return 0;
  cudaStream_t st = (cudaStream_t)stream;
  return by_float_dtype(dtype,
                        [&](auto t) { return launch_softmax<typename decltype(t)::type>(x, y, rows, cols, log, st); });
}
