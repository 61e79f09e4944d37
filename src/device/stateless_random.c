/*
 * stateless_random — see stateless_random.h.
 */
#include "device/stateless_random.h"

#include <stdint.h>

#include "device/random_kernel.h"
#include "ops/opdef.h"

/* The distribution of the op being run. */
static int dist_of(int op) {
  switch (op) {
    case TFC_OP_StatelessRandomUniform:
    case TFC_OP_StatelessRandomUniformV2: return TFC_PHILOX_UNIFORM;
    case TFC_OP_StatelessRandomNormal:
    case TFC_OP_StatelessRandomNormalV2: return TFC_PHILOX_NORMAL;
    case TFC_OP_StatelessTruncatedNormal:
    case TFC_OP_StatelessTruncatedNormalV2: return TFC_PHILOX_TRUNCATED;
    case TFC_OP_StatelessRandomUniformInt:
    case TFC_OP_StatelessRandomUniformIntV2: return TFC_PHILOX_UNIFORM_INT;
    default: return TFC_PHILOX_FULL_INT;
  }
}

/* The element type of output 0: the stateful mapping, plus the unsigned types of FullInt
 * (same bits as their signed twins). */
static int elem_of(int dtype) {
  if (dtype == TFC_DT_UINT32) return TFC_PHILOX_I32;
  if (dtype == TFC_DT_UINT64) return TFC_PHILOX_I64;
  return tfc_random_elem(dtype);
}

/* The seed input of the V1 ops and GetKeyCounter must be shape [2]. */
int tfc_stateless_check_seed_shape(tfc_kernel_ctx *c, const tfc_tensor *seed) {
  if (seed->ndims == 1 && seed->dims[0] == 2) return TFC_OK;
  char buf[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "seed must have shape [2], not %s",
                          tfc_dims_str(seed->dims, seed->ndims, buf, sizeof buf));
}

/* GenerateKey on a checked seed: int32/int64 values, sign-extended. uint32/uint64 seeds (only
 * FullInt's op def allows them) are TF's "Invalid seed type". */
int tfc_stateless_seed_state(tfc_kernel_ctx *c, const tfc_tensor *seed, tfc_philox *g) {
  if (seed->dtype != TFC_DT_INT32 && seed->dtype != TFC_DT_INT64)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Invalid seed type: %s", tfc_dtype_name(seed->dtype));
  tfc_philox_init_stateless(g, (uint64_t)tfc_tensor_get_i64(seed, 0), (uint64_t)tfc_tensor_get_i64(seed, 1));
  return TFC_OK;
}

/* minval/maxval (inputs lo_in, lo_in + 1) of the uniform int ops: 0-D and lo < hi. On success
 * *lo and *range are the distribution's. */
static int int_bounds(tfc_kernel_ctx *c, int lo_in, int64_t *lo, uint64_t *range) {
  const tfc_tensor *minval = c->inputs[lo_in], *maxval = c->inputs[lo_in + 1];
  TFC_TRY(tfc_random_check_bounds_rank(c, minval, maxval));
  int64_t l = tfc_tensor_get_i64(minval, 0), h = tfc_tensor_get_i64(maxval, 0);
  if (l >= h)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Need minval < maxval, got %lld >= %lld", (long long)l,
                            (long long)h);
  *lo = l;
  *range = tfc_random_int_range(minval->dtype, l, h);
  return TFC_OK;
}

/* StatelessRandom{Uniform,Normal,UniformInt,UniformFullInt}, StatelessTruncatedNormal:
 * inputs shape, seed[, minval, maxval]. */
int tfc_stateless_v1(tfc_kernel_ctx *c, tfc_stateless_fill_fn fill) {
  const int dist = dist_of(c->node->op->id), dtype = c->node->output_types[0];
  tfc_tensor *out = tfc_random_alloc_output(c, dtype);
  if (!out) return c->status->code;
  TFC_TRY(tfc_stateless_check_seed_shape(c, c->inputs[1]));
  if (out->n_elems == 0) return TFC_OK;
  int64_t lo = 0;
  uint64_t range = 0;
  if (dist == TFC_PHILOX_UNIFORM_INT) TFC_TRY(int_bounds(c, 2, &lo, &range));
  tfc_philox g;
  TFC_TRY(tfc_stateless_seed_state(c, c->inputs[1], &g));
  return fill(c, &g, dist, elem_of(dtype), out, lo, range);
}

/* The V2 ops' key, counter and alg inputs (1, 2, 3), checked as TF does before the shape
 * input. *alg is the alg input's value, not yet checked to be supported. */
static int v2_inputs(tfc_kernel_ctx *c, tfc_philox *g, int *alg) {
  const tfc_tensor *key = c->inputs[1], *counter = c->inputs[2], *alg_t = c->inputs[3];
  char buf[TFC_SHAPE_STR_MAX];
  if (alg_t->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "input 3 (0-based) must have shape [], not %s",
                            tfc_dims_str(alg_t->dims, alg_t->ndims, buf, sizeof buf));
  *alg = (int)tfc_tensor_get_i64(alg_t, 0);
  if (key->ndims != 1 || key->dims[0] != 1)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "key must have shape [1], not %s. (Note that batched keys are not supported yet.)",
                            tfc_dims_str(key->dims, key->ndims, buf, sizeof buf));
  /* TF's quirk (cpu/kernels_stateless_random.c) */
  const int min_counter = *alg == TFC_STATELESS_AUTO_SELECT ? TFC_STATELESS_PHILOX : *alg;
  if (counter->ndims != 1 || counter->dims[0] < min_counter)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT,
                            "counter must be a vector with length at least %d; got shape: %s. (Note that "
                            "batched counters are not supported yet.)",
                            min_counter, tfc_dims_str(counter->dims, counter->ndims, buf, sizeof buf));
  const uint64_t *cv = counter->data;
  tfc_philox_init_key_counter(g, ((const uint64_t *)key->data)[0], counter->dims[0] > 0 ? cv[0] : 0,
                              counter->dims[0] > 1 ? cv[1] : 0);
  return TFC_OK;
}

/* StatelessRandom{Uniform,Normal,UniformInt,UniformFullInt}V2, StatelessTruncatedNormalV2:
 * inputs shape, key, counter, alg[, minval, maxval]. */
int tfc_stateless_v2(tfc_kernel_ctx *c, tfc_stateless_fill_fn fill) {
  const int dist = dist_of(c->node->op->id), dtype = c->node->output_types[0];
  tfc_philox g;
  int alg = 0;
  TFC_TRY(v2_inputs(c, &g, &alg));
  tfc_tensor *out = tfc_random_alloc_output(c, dtype);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  int64_t lo = 0;
  uint64_t range = 0;
  if (dist == TFC_PHILOX_UNIFORM_INT) TFC_TRY(int_bounds(c, 4, &lo, &range));
  if (alg != TFC_STATELESS_PHILOX && alg != TFC_STATELESS_AUTO_SELECT)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Unsupported algorithm id: %d", alg);
  return fill(c, &g, dist, elem_of(dtype), out, lo, range);
}

