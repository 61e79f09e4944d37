/*
 * random_kernel — see random_kernel.h.
 */
#include "device/random_kernel.h"

#include <stdlib.h>
#include <sys/random.h>
#include <time.h>

/* A random 64-bit seed for seed = seed2 = 0 (TF's random::New64). getrandom() rarely fails;
 * if it does, a splitmix64 hash of the clock, a counter and an address still differs per call. */
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

int tfc_random_elem(int dtype) {
  switch (dtype) {
    case TFC_DT_FLOAT: return TFC_PHILOX_F32;
    case TFC_DT_DOUBLE: return TFC_PHILOX_F64;
    case TFC_DT_HALF: return TFC_PHILOX_F16;
    case TFC_DT_BFLOAT16: return TFC_PHILOX_BF16;
    case TFC_DT_INT32: return TFC_PHILOX_I32;
    case TFC_DT_INT64: return TFC_PHILOX_I64;
    default: return -1;
  }
}

int tfc_random_init(const tfc_node *n, void **state, int dist, const char *type_attr, tfc_random_fill_fn fill,
                    const char *where, tfc_status *s) {
  int64_t seed = 0, seed2 = 0;
  int dtype = 0;
  TFC_TRY(tfc_kernel_attr_int(n, "seed", &seed, s));
  TFC_TRY(tfc_kernel_attr_int(n, "seed2", &seed2, s));
  TFC_TRY(tfc_kernel_attr_type(n, type_attr, &dtype, s));
  int elem = tfc_random_elem(dtype);
  if (elem < 0 || !tfc_philox_group_size(dist, elem))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "node '%s' (%s): unsupported %s %s%s", n->name, n->op->name,
                          type_attr, tfc_dtype_name(dtype), where);
  tfc_random_state *st = calloc(1, sizeof *st);
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
  st->fill = fill;
  *state = st;
  return TFC_OK;
}

void tfc_random_free(void *p) {
  tfc_random_state *st = p;
  if (!st) return;
  pthread_mutex_destroy(&st->mu);
  free(st);
}

tfc_tensor *tfc_random_alloc_output(tfc_kernel_ctx *c, int dtype) {
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

/* Reserves this run's samples and hands them to the device's fill. */
static int reserve_and_fill(tfc_kernel_ctx *c, tfc_random_state *st, tfc_tensor *out, int64_t lo, uint64_t range) {
  tfc_philox base;
  pthread_mutex_lock(&st->mu);
  base = st->gen;
  tfc_philox_skip(&st->gen, (uint64_t)out->n_elems * TFC_PHILOX_SAMPLES_PER_OUTPUT);
  pthread_mutex_unlock(&st->mu);
  return st->fill(c, st, &base, out, lo, range);
}

int tfc_random_compute(tfc_kernel_ctx *c) {
  tfc_tensor *out = tfc_random_alloc_output(c, c->node->output_types[0]);
  if (!out) return c->status->code;
  return reserve_and_fill(c, c->state, out, 0, 0);
}

int tfc_random_check_bounds_rank(tfc_kernel_ctx *c, const tfc_tensor *minval, const tfc_tensor *maxval) {
  char buf[TFC_SHAPE_STR_MAX];
  if (minval->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "minval must be 0-D, got shape %s",
                            tfc_dims_str(minval->dims, minval->ndims, buf, sizeof buf));
  if (maxval->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "maxval must be 0-D, got shape %s",
                            tfc_dims_str(maxval->dims, maxval->ndims, buf, sizeof buf));
  return TFC_OK;
}

int tfc_random_uniform_int_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *minval = c->inputs[1], *maxval = c->inputs[2];
  TFC_TRY(tfc_random_check_bounds_rank(c, minval, maxval));
  tfc_tensor *out = tfc_random_alloc_output(c, minval->dtype);
  if (!out) return c->status->code;
  /* TF checks the bounds only for a non-empty output ("zero impossible things are fine"). */
  if (out->n_elems == 0) return TFC_OK;
  int64_t lo = tfc_tensor_get_i64(minval, 0), hi = tfc_tensor_get_i64(maxval, 0);
  if (lo >= hi)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Need minval < maxval: %lld >= %lld", (long long)lo,
                            (long long)hi);
  return reserve_and_fill(c, c->state, out, lo, tfc_random_int_range(minval->dtype, lo, hi));
}

/* The width as TF computes it, in the output's unsigned type (hi - lo may exceed the signed
 * range: [-2^63, 2^63 - 1) spans 2^64 - 1 values). */
uint64_t tfc_random_int_range(int dtype, int64_t lo, int64_t hi) {
  return dtype == TFC_DT_INT32 ? (uint64_t)((uint32_t)hi - (uint32_t)lo) : (uint64_t)hi - (uint64_t)lo;
}

tfc_tensor *tfc_multinomial_prepare(tfc_kernel_ctx *c, tfc_philox *gen) {
  tfc_random_state *st = c->state;
  const tfc_tensor *logits = c->inputs[0], *ns = c->inputs[1];
  char buf[TFC_SHAPE_STR_MAX];
  if (logits->ndims != 2) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "logits should be a matrix, got shape %s",
                     tfc_dims_str(logits->dims, logits->ndims, buf, sizeof buf));
    return NULL;
  }
  if (ns->ndims != 0) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "num_samples should be a scalar, got shape %s",
                     tfc_dims_str(ns->dims, ns->ndims, buf, sizeof buf));
    return NULL;
  }
  int64_t num_samples = tfc_tensor_get_i64(ns, 0);
  if (num_samples < 0) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "num_samples should be nonnegative, got %lld", (long long)num_samples);
    return NULL;
  }
  int64_t batch = logits->dims[0], classes = logits->dims[1];
  if (batch > 0 && classes <= 0) {
    tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "num_classes should be positive, got %lld", (long long)classes);
    return NULL;
  }
  const int64_t dims[2] = {batch, num_samples};
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, c->node->output_types[0], dims, 2);
  if (!out || out->n_elems == 0) return out;
  uint64_t outputs = (uint64_t)batch * (uint64_t)((num_samples + 3) / 4 * 4) * 2;
  pthread_mutex_lock(&st->mu);
  *gen = st->gen;
  tfc_philox_skip(&st->gen, outputs * TFC_PHILOX_SAMPLES_PER_OUTPUT);
  pthread_mutex_unlock(&st->mu);
  return out;
}
