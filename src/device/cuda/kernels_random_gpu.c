/*
 * kernels_random_gpu — RandomUniform, RandomStandardNormal, TruncatedNormal (half, float,
 * double) and RandomUniformInt (int32, int64) on the GPU, drawing TF's Philox streams: for the
 * same seed and seed2, run k of a GPU node produces the same numbers as run k of the CPU node
 * (kernels_random.c) — bit for bit for the uniform and integer ops, to a few ulp for the
 * normals (cuda_random.cu says why and how close).
 *
 * State and reservation are the CPU kernel's: each node owns one generator, seeded from its
 * seed/seed2 attrs (both 0: two fresh random 64-bit seeds), behind a mutex; a run copies it and
 * skips the shared one ahead by 256 samples per output element (TF's ReserveRandomOutputs),
 * then launches the fill from the copy on the device's compute stream. The shape (and
 * RandomUniformInt's bounds) stay in host memory, as TF's HostMemory args, and are validated
 * with the CPU kernel's texts before anything is reserved, so a failed run leaves the stream
 * where it was.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>

#include "base/philox.h"
#include "device/cuda/cuda_kernels.h"

typedef struct random_state {
  pthread_mutex_t mu;
  tfc_philox gen; /* guarded by mu */
  int dist, elem; /* TFC_PHILOX_* */
} random_state;

/* A random 64-bit seed for seed = seed2 = 0 (TF's random::New64); a splitmix64 hash of the
 * clock, a counter and an address when getrandom() fails. */
static uint64_t random_seed64(void) {
  uint64_t v;
  if (getrandom(&v, sizeof v, 0) == (ssize_t)sizeof v) return v;
  static _Atomic uint64_t calls;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t z = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + (uintptr_t)&v +
               (calls++ + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int elem_of(int dtype) {
  switch (dtype) {
    case TFC_DT_FLOAT: return TFC_PHILOX_F32;
    case TFC_DT_DOUBLE: return TFC_PHILOX_F64;
    case TFC_DT_HALF: return TFC_PHILOX_F16;
    case TFC_DT_INT32: return TFC_PHILOX_I32;
    case TFC_DT_INT64: return TFC_PHILOX_I64;
    default: return -1;
  }
}

static int random_init_dist(const tfc_node *n, void **state, int dist, const char *type_attr, tfc_status *s) {
  int64_t seed = 0, seed2 = 0;
  int dtype = 0;
  TFC_TRY(tfc_kernel_attr_int(n, "seed", &seed, s));
  TFC_TRY(tfc_kernel_attr_int(n, "seed2", &seed2, s));
  TFC_TRY(tfc_kernel_attr_type(n, type_attr, &dtype, s));
  int elem = elem_of(dtype);
  if (elem < 0 || !tfc_philox_group_size(dist, elem))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "node '%s' (%s): unsupported %s %s on GPU", n->name, n->op->name,
                          type_attr, tfc_dtype_name(dtype));
  random_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  if (pthread_mutex_init(&st->mu, NULL)) {
    free(st);
    return tfc_status_set(s, TFC_INTERNAL, "node '%s' (%s): cannot create a mutex", n->name, n->op->name);
  }
  uint64_t s1 = (uint64_t)seed, s2 = (uint64_t)seed2;
  if (s1 == 0 && s2 == 0) {
    s1 = random_seed64();
    s2 = random_seed64();
  }
  tfc_philox_init(&st->gen, s1, s2);
  st->dist = dist;
  st->elem = elem;
  *state = st;
  return TFC_OK;
}

static int uniform_init(const tfc_node *n, void **st, tfc_status *s) {
  return random_init_dist(n, st, TFC_PHILOX_UNIFORM, "dtype", s);
}
static int normal_init(const tfc_node *n, void **st, tfc_status *s) {
  return random_init_dist(n, st, TFC_PHILOX_NORMAL, "dtype", s);
}
static int truncated_init(const tfc_node *n, void **st, tfc_status *s) {
  return random_init_dist(n, st, TFC_PHILOX_TRUNCATED, "dtype", s);
}
static int uniform_int_init(const tfc_node *n, void **st, tfc_status *s) {
  return random_init_dist(n, st, TFC_PHILOX_UNIFORM_INT, "Tout", s);
}

static void random_free(void *p) {
  random_state *st = p;
  if (!st) return;
  pthread_mutex_destroy(&st->mu);
  free(st);
}

/* Output 0 with the dims held by the (host) shape input, with TF's checks. NULL with the
 * status set on bad input. */
static tfc_tensor *alloc_from_shape_input(tfc_kernel_ctx *c, int dtype) {
  const tfc_tensor *shape = c->inputs[0];
  char buf[TFC_SHAPE_STR_MAX];
  if (shape->ndims != 1 || (shape->dtype != TFC_DT_INT32 && shape->dtype != TFC_DT_INT64)) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "shape must be a vector of {int32,int64}, got shape %s",
                     tfc_dims_str(shape->dims, shape->ndims, buf, sizeof buf));
    return NULL;
  }
  if (shape->n_elems > TFC_MAX_DIMS) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Shape of rank %lld exceeds the maximum rank %d",
                     (long long)shape->n_elems, TFC_MAX_DIMS);
    return NULL;
  }
  int64_t dims[TFC_MAX_DIMS];
  int nd = (int)shape->n_elems;
  for (int i = 0; i < nd; i++) {
    dims[i] = tfc_tensor_get_i64(shape, i);
    if (dims[i] < 0) {
      tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Dimension %lld must be >= 0", (long long)dims[i]);
      return NULL;
    }
  }
  if (tfc_dims_num_elements(dims, nd) < 0) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Shape %s would have more than 2**63 - 1 elements",
                     tfc_dims_str(dims, nd, buf, sizeof buf));
    return NULL;
  }
  return tfc_kernel_alloc_output(c, 0, dtype, dims, nd);
}

/* Reserves this run's samples (as the CPU kernel) and enqueues the fill. */
static int reserve_and_fill(tfc_kernel_ctx *c, random_state *st, tfc_tensor *out, int64_t lo, uint64_t range) {
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_philox base;
  pthread_mutex_lock(&st->mu);
  base = st->gen;
  tfc_philox_skip(&st->gen, (uint64_t)out->n_elems * TFC_PHILOX_SAMPLES_PER_OUTPUT);
  pthread_mutex_unlock(&st->mu);
  if (out->n_elems == 0) return TFC_OK;
  return tfc_cuda_ctx_check(
      c, tfc_cuda_random(st->dist, st->elem, base.key, base.counter, lo, range, out->data, out->n_elems, stream),
      out->dtype);
}

static int random_compute(tfc_kernel_ctx *c) {
  tfc_tensor *out = alloc_from_shape_input(c, c->node->output_types[0]);
  if (!out) return c->status->code;
  return reserve_and_fill(c, c->state, out, 0, 0);
}

static int uniform_int_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *minval = c->inputs[1], *maxval = c->inputs[2];
  char buf[TFC_SHAPE_STR_MAX];
  if (minval->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "minval must be 0-D, got shape %s",
                            tfc_dims_str(minval->dims, minval->ndims, buf, sizeof buf));
  if (maxval->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "maxval must be 0-D, got shape %s",
                            tfc_dims_str(maxval->dims, maxval->ndims, buf, sizeof buf));
  tfc_tensor *out = alloc_from_shape_input(c, minval->dtype);
  if (!out) return c->status->code;
  /* TF checks the bounds only for a non-empty output. */
  if (out->n_elems == 0) return TFC_OK;
  int64_t lo = tfc_tensor_get_i64(minval, 0), hi = tfc_tensor_get_i64(maxval, 0);
  if (lo >= hi)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Need minval < maxval: %lld >= %lld", (long long)lo,
                            (long long)hi);
  /* The width in the output's unsigned type, as the CPU kernel. */
  uint64_t range = minval->dtype == TFC_DT_INT32 ? (uint64_t)((uint32_t)hi - (uint32_t)lo)
                                                 : (uint64_t)hi - (uint64_t)lo;
  return reserve_and_fill(c, c->state, out, lo, range);
}

#define G_F (TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))
#define G_I (TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64))
#define ROW(opname, init_fn)                                                                      \
  {.op = TFC_OP_##opname, .type_attr = "dtype", .types = G_F, .type_attr2 = "T", .types2 = G_I,    \
   .host_memory_in = TFC_HOST(0), .init = init_fn, .compute = random_compute, .free_state = random_free}

static const tfc_kernel_def defs[] = {
    ROW(RandomUniform, uniform_init),
    ROW(RandomStandardNormal, normal_init),
    ROW(TruncatedNormal, truncated_init),
    {.op = TFC_OP_RandomUniformInt, .type_attr = "Tout", .types = G_I, .type_attr2 = "T", .types2 = G_I,
     .host_memory_in = TFC_HOST(0) | TFC_HOST(1) | TFC_HOST(2), .init = uniform_int_init,
     .compute = uniform_int_compute, .free_state = random_free},
};

int tfc_cuda_kernels_random(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
