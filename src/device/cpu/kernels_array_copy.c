/*
 * kernels_array_copy — the data-movement primitives of the array kernels (see array_copy.h).
 *
 * Work is split by output rows (the outermost dims of the collapsed problem) so each shard
 * writes a disjoint range; a row's innermost run moves with one memcpy when it is contiguous
 * in the input, else with a typed strided loop per element size.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/array_copy.h"

/* ---- element runs ---- */

static int copy_strings(tfc_tstring *dst, const tfc_tstring *src, int64_t n, int64_t stride, tfc_status *s) {
  for (int64_t i = 0; i < n; i++, src += stride)
    if (tfc_tstring_assign(&dst[i], src->data, src->len, s)) return s->code;
  return TFC_OK;
}

int tfc_array_copy(void *dst, const void *src, int64_t n, int dtype, tfc_status *s) {
  if (n <= 0) return TFC_OK;
  if (dtype == TFC_DT_STRING) return copy_strings(dst, src, n, 1, s);
  memcpy(dst, src, (size_t)n * tfc_dtype_size(dtype));
  return TFC_OK;
}

#define STRIDED_LOOP(T)                                                                            \
  do {                                                                                             \
    T *d_ = dst;                                                                                   \
    const T *s_ = src;                                                                             \
    for (int64_t i = 0; i < n; i++) d_[i] = s_[i * stride];                                        \
  } while (0)

/* n elements read `stride` elements apart (stride may be negative). */
static int copy_run(void *dst, const void *src, int64_t n, int64_t stride, size_t es, int is_str,
                    tfc_status *s) {
  if (is_str) return copy_strings(dst, src, n, stride, s);
  if (stride == 1) {
    memcpy(dst, src, (size_t)n * es);
    return TFC_OK;
  }
  switch (es) {
    case 1: STRIDED_LOOP(uint8_t); break;
    case 2: STRIDED_LOOP(uint16_t); break;
    case 4: STRIDED_LOOP(uint32_t); break;
    case 8: STRIDED_LOOP(uint64_t); break;
    default:
      for (int64_t i = 0; i < n; i++)
        memcpy((char *)dst + (size_t)i * es, (const char *)src + i * stride * (int64_t)es, es);
  }
  return TFC_OK;
}

/* Fills dst[n] from its first `have` elements by doubling (memcpy of ever larger blocks). */
static int replicate(char *dst, int64_t have, int64_t n, size_t es, int is_str, tfc_status *s) {
  if (have <= 0) return TFC_OK;
  if (is_str) {
    tfc_tstring *d = (tfc_tstring *)dst;
    for (int64_t i = have; i < n; i++)
      if (tfc_tstring_assign(&d[i], d[i % have].data, d[i % have].len, s)) return s->code;
    return TFC_OK;
  }
  while (have < n) {
    int64_t k = have < n - have ? have : n - have;
    memcpy(dst + (size_t)have * es, dst, (size_t)k * es);
    have += k;
  }
  return TFC_OK;
}

/* dst[n] = the one element at value: a store loop per element size (small fills, such as the
 * gradient of a sum broadcast to its input, cost no call per block), else doubling. */
#define FILL_LOOP(T)                                                                               \
  do {                                                                                             \
    T v_;                                                                                          \
    memcpy(&v_, value, sizeof v_);                                                                 \
    for (int64_t i = 0; i < n; i++) ((T *)dst)[i] = v_;                                            \
  } while (0)

int tfc_array_fill(void *dst, int64_t n, const void *value, int dtype, tfc_status *s) {
  if (n <= 0) return TFC_OK;
  int is_str = dtype == TFC_DT_STRING;
  size_t es = tfc_dtype_size(dtype);
  if (!is_str) switch (es) {
      case 1: FILL_LOOP(uint8_t); return TFC_OK;
      case 2: FILL_LOOP(uint16_t); return TFC_OK;
      case 4: FILL_LOOP(uint32_t); return TFC_OK;
      case 8: FILL_LOOP(uint64_t); return TFC_OK;
      default: break;
    }
  TFC_TRY(tfc_array_copy(dst, value, 1, dtype, s));
  return replicate(dst, 1, n, es, is_str, s);
}

/* Shards record a failure here; only string copies can fail, and only for lack of memory. */
static int shard_failed(tfc_kernel_ctx *c, atomic_int *failed) {
  if (!atomic_load(failed)) return TFC_OK;
  return tfc_kernel_error(c, TFC_RESOURCE_EXHAUSTED, "out of memory copying string elements");
}

static void shard_status_done(tfc_status *s, atomic_int *failed) {
  if (!tfc_status_ok(s)) atomic_store(failed, 1);
  tfc_status_fini(s);
}

/* ---- strided copy ---- */

typedef struct strided_job {
  char *dst;
  const char *src; /* at the window's first element */
  size_t es;
  int is_str;
  int rank; /* >= 1 */
  int64_t dims[TFC_MAX_DIMS], strides[TFC_MAX_DIMS];
  atomic_int failed;
} strided_job;

static void strided_rows(int64_t begin, int64_t end, void *arg) {
  strided_job *j = arg;
  int r = j->rank;
  int64_t inner = j->dims[r - 1], istride = j->strides[r - 1];
  int64_t coord[TFC_MAX_DIMS], off = 0, rem = begin;
  for (int d = r - 2; d >= 0; d--) {
    coord[d] = rem % j->dims[d];
    rem /= j->dims[d];
    off += coord[d] * j->strides[d];
  }
  tfc_status s;
  tfc_status_init(&s);
  for (int64_t row = begin; row < end; row++) {
    if (copy_run(j->dst + (size_t)(row * inner) * j->es, j->src + off * (int64_t)j->es, inner, istride, j->es,
                 j->is_str, &s))
      break;
    for (int d = r - 2; d >= 0; d--) {
      off += j->strides[d];
      if (++coord[d] < j->dims[d]) break;
      off -= j->strides[d] * j->dims[d];
      coord[d] = 0;
    }
  }
  shard_status_done(&s, &j->failed);
}

int tfc_array_strided_copy(tfc_kernel_ctx *c, tfc_tensor *out, const tfc_tensor *in, int rank,
                           const int64_t *dims, const int64_t *src_strides, int64_t src_offset) {
  if (out->n_elems == 0) return TFC_OK;
  strided_job job, *j = &job;
  memset(j, 0, sizeof *j);
  atomic_init(&j->failed, 0);
  j->es = tfc_dtype_size(in->dtype);
  j->is_str = in->dtype == TFC_DT_STRING;
  j->dst = out->data;
  j->src = (const char *)in->data + src_offset * (int64_t)j->es;
  /* Collapse: size-1 dims move nothing; a dim whose stride equals the next one's extent
   * continues it, so [a, b] with strides [b, 1] becomes one run of a*b. */
  int r = 0;
  for (int d = 0; d < rank; d++) {
    if (dims[d] == 1) continue;
    if (r > 0 && j->strides[r - 1] == src_strides[d] * dims[d]) {
      j->dims[r - 1] *= dims[d];
      j->strides[r - 1] = src_strides[d];
      continue;
    }
    j->dims[r] = dims[d];
    j->strides[r] = src_strides[d];
    r++;
  }
  if (r == 0) {
    j->dims[0] = 1;
    j->strides[0] = 1;
    r = 1;
  }
  j->rank = r;
  int64_t rows = out->n_elems / j->dims[r - 1];
  tfc_kernel_parallel_for(c, rows, j->dims[r - 1], strided_rows, j);
  return shard_failed(c, &j->failed);
}

/* ---- concat / split ---- */

typedef struct concat_job {
  char *whole;
  char **pieces;
  const int64_t *runs;
  int n, split, is_str;
  int64_t row;
  size_t es;
  atomic_int failed;
} concat_job;

static void concat_rows(int64_t begin, int64_t end, void *arg) {
  concat_job *j = arg;
  tfc_status s;
  tfc_status_init(&s);
  for (int64_t o = begin; o < end && tfc_status_ok(&s); o++) {
    char *w = j->whole + (size_t)(o * j->row) * j->es;
    for (int k = 0; k < j->n; k++) {
      int64_t run = j->runs[k];
      char *p = j->pieces[k] + (size_t)(o * run) * j->es;
      int dtype = j->is_str ? TFC_DT_STRING : TFC_DT_UINT8;
      size_t mul = j->is_str ? 1 : j->es;
      if (j->split ? tfc_array_copy(p, w, run * (int64_t)mul, dtype, &s)
                   : tfc_array_copy(w, p, run * (int64_t)mul, dtype, &s))
        break;
      w += (size_t)run * j->es;
    }
  }
  shard_status_done(&s, &j->failed);
}

int tfc_array_concat(tfc_kernel_ctx *c, tfc_tensor *whole, tfc_tensor *const *pieces, int n, int64_t outer,
                     const int64_t *runs, int split) {
  if (whole->n_elems == 0 || outer == 0) return TFC_OK;
  char *small[16];
  char **ptrs = n <= 16 ? small : malloc(sizeof *ptrs * (size_t)n);
  if (!ptrs) return TFC_OOM(c->status);
  concat_job j = {.whole = whole->data, .pieces = ptrs, .runs = runs, .n = n, .split = split,
                  .is_str = whole->dtype == TFC_DT_STRING, .row = 0, .es = tfc_dtype_size(whole->dtype)};
  atomic_init(&j.failed, 0);
  for (int k = 0; k < n; k++) {
    ptrs[k] = pieces[k]->data;
    j.row += runs[k];
  }
  tfc_kernel_parallel_for(c, outer, j.row, concat_rows, &j);
  if (ptrs != small) free(ptrs);
  return shard_failed(c, &j.failed);
}

/* ---- tile ---- */

typedef struct tile_job {
  char *dst;
  const char *src;
  size_t es;
  int is_str, rank;
  const int64_t *in_dims, *out_dims;
  int64_t in_row_stride[TFC_MAX_DIMS]; /* in rows (units of in_dims[rank-1] elements) */
  atomic_int failed;
} tile_job;

static void tile_rows(int64_t begin, int64_t end, void *arg) {
  tile_job *j = arg;
  int r = j->rank;
  int64_t in_inner = j->in_dims[r - 1], out_inner = j->out_dims[r - 1];
  tfc_status s;
  tfc_status_init(&s);
  for (int64_t row = begin; row < end; row++) {
    int64_t rem = row, src_row = 0;
    for (int d = r - 2; d >= 0; d--) {
      int64_t coord = rem % j->out_dims[d];
      rem /= j->out_dims[d];
      src_row += (coord % j->in_dims[d]) * j->in_row_stride[d];
    }
    char *dst = j->dst + (size_t)(row * out_inner) * j->es;
    int dtype = j->is_str ? TFC_DT_STRING : TFC_DT_UINT8;
    int64_t mul = j->is_str ? 1 : (int64_t)j->es;
    if (tfc_array_copy(dst, j->src + (size_t)(src_row * in_inner) * j->es, in_inner * mul, dtype, &s)) break;
    if (replicate(dst, in_inner, out_inner, j->es, j->is_str, &s)) break;
  }
  shard_status_done(&s, &j->failed);
}

int tfc_array_tile(tfc_kernel_ctx *c, tfc_tensor *out, const tfc_tensor *in, int rank, const int64_t *in_dims,
                   const int64_t *out_dims) {
  if (out->n_elems == 0) return TFC_OK;
  if (rank == 0) return tfc_array_copy(out->data, in->data, 1, in->dtype, c->status);
  if (in->n_elems == 1) return tfc_array_fill(out->data, out->n_elems, in->data, in->dtype, c->status);
  tile_job j = {.dst = out->data, .src = in->data, .es = tfc_dtype_size(in->dtype),
                .is_str = in->dtype == TFC_DT_STRING, .rank = rank, .in_dims = in_dims, .out_dims = out_dims};
  atomic_init(&j.failed, 0);
  int64_t st = 1;
  for (int d = rank - 2; d >= 0; d--) {
    j.in_row_stride[d] = st;
    st *= in_dims[d];
  }
  int64_t rows = out->n_elems / out_dims[rank - 1];
  tfc_kernel_parallel_for(c, rows, out_dims[rank - 1], tile_rows, &j);
  return shard_failed(c, &j.failed);
}

/* ---- gather ---- */

typedef struct gather_job {
  char *dst;
  const char *src;
  const tfc_tensor *idx;
  size_t es;
  int is_str;
  int64_t outer, limit, n_idx, inner;
  atomic_int failed;
} gather_job;

/* Item t = ((b * outer) + o) * n_idx + k, the output's run order. */
static void gather_items(int64_t begin, int64_t end, void *arg) {
  gather_job *j = arg;
  tfc_status s;
  tfc_status_init(&s);
  int dtype = j->is_str ? TFC_DT_STRING : TFC_DT_UINT8;
  int64_t mul = j->is_str ? 1 : (int64_t)j->es;
  for (int64_t t = begin; t < end; t++) {
    int64_t k = t % j->n_idx, bo = t / j->n_idx, b = bo / j->outer;
    int64_t ix = tfc_array_int_at(j->idx, b * j->n_idx + k);
    const char *src = j->src + (size_t)((bo * j->limit + ix) * j->inner) * j->es;
    if (tfc_array_copy(j->dst + (size_t)(t * j->inner) * j->es, src, j->inner * mul, dtype, &s)) break;
  }
  shard_status_done(&s, &j->failed);
}

int tfc_array_gather(tfc_kernel_ctx *c, tfc_tensor *out, const tfc_tensor *params, const tfc_tensor *idx,
                     int64_t batch, int64_t outer, int64_t limit, int64_t n_idx, int64_t inner) {
  if (out->n_elems == 0) return TFC_OK;
  gather_job j = {.dst = out->data, .src = params->data, .idx = idx, .es = tfc_dtype_size(params->dtype),
                  .is_str = params->dtype == TFC_DT_STRING, .outer = outer, .limit = limit, .n_idx = n_idx,
                  .inner = inner};
  atomic_init(&j.failed, 0);
  tfc_kernel_parallel_for(c, batch * outer * n_idx, inner, gather_items, &j);
  return shard_failed(c, &j.failed);
}
