/*
 * kernels_stateless_random — CPU kernels of TF 2.x's stateless random ops, bit for bit with TF's:
 * StatelessRandomUniform / Normal / TruncatedNormal (half, bfloat16, float, double),
 * StatelessRandomUniformInt (int32, int64), StatelessRandomUniformFullInt (int32, int64,
 * uint32, uint64), their V2 forms, and StatelessRandomGetKeyCounter / GetKeyCounterAlg /
 * GetAlg.
 *
 * A stateless op is a pure function of its inputs: no kernel state, nothing reserved between
 * runs, so two runs (or two nodes) with the same inputs give the same values, and the op table
 * lets constant folding fold them (only GetAlg is stateful, as in TF's registry).
 *
 * Generator state. The V1 ops take a seed vector of two int32/int64 values (sign-extended to 64
 * bits) and derive a Philox key and counter from it (tfc_philox_init_stateless, TF's
 * GenerateKey). The V2 ops take the key (uint64 [1]) and counter (uint64, Philox uses 2 words)
 * directly, plus the algorithm: 1 (Philox) or 3 (auto-select, Philox on CPU); anything else is
 * TF's "Unsupported algorithm id". GetKeyCounter hands out V1's derived state as V2's inputs,
 * so V2 on GetKeyCounter(seed) gives V1's values on seed. The values themselves are the fills
 * of the stateful ops (tfc_cpu_random_fill over philox.h's groups, split over the intra-op
 * threads), started at that state with no skip.
 *
 * Checks, in TF's order and with its INVALID_ARGUMENT texts: V1: the shape input (shared with
 * the stateful ops, tfc_random_alloc_output), the seed's shape; then, only for a non-empty
 * output, FullInt's seed type (uint32/uint64 seeds pass the op def but not the kernel) or the
 * int bounds (0-D, minval < maxval). V2: alg a scalar, key of shape [1], counter a vector of at
 * least N words, the shape input; then, only for a non-empty output, the int bounds and the
 * algorithm. TF takes N from the algorithm's id rather than its counter size (3 counts as 1),
 * so it accepts a one-word Philox counter and then reads past it; tfc accepts the same inputs
 * and takes the missing high word as 0.
 *
 * Ownership: outputs are allocated through the kernel context. Thread-safety: no shared state.
 */
#include <stdint.h>

#include "device/cpu/cpu_kernels.h"
#include "device/random_kernel.h"

/* TF's algorithm ids (the V2 ops' alg input). */
enum { ALG_PHILOX = 1, ALG_THREEFRY = 2, ALG_AUTO_SELECT = 3 };

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
static int check_seed_shape(tfc_kernel_ctx *c, const tfc_tensor *seed) {
  if (seed->ndims == 1 && seed->dims[0] == 2) return TFC_OK;
  char buf[TFC_SHAPE_STR_MAX];
  return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "seed must have shape [2], not %s",
                          tfc_dims_str(seed->dims, seed->ndims, buf, sizeof buf));
}

/* GenerateKey on a checked seed: int32/int64 values, sign-extended. uint32/uint64 seeds (only
 * FullInt's op def allows them) are TF's "Invalid seed type". */
static int seed_state(tfc_kernel_ctx *c, const tfc_tensor *seed, tfc_philox *g) {
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
static int stateless_v1_compute(tfc_kernel_ctx *c) {
  const int dist = dist_of(c->node->op->id), dtype = c->node->output_types[0];
  tfc_tensor *out = tfc_random_alloc_output(c, dtype);
  if (!out) return c->status->code;
  TFC_TRY(check_seed_shape(c, c->inputs[1]));
  if (out->n_elems == 0) return TFC_OK;
  int64_t lo = 0;
  uint64_t range = 0;
  if (dist == TFC_PHILOX_UNIFORM_INT) TFC_TRY(int_bounds(c, 2, &lo, &range));
  tfc_philox g;
  TFC_TRY(seed_state(c, c->inputs[1], &g));
  tfc_cpu_random_fill(c, &g, dist, elem_of(dtype), out, lo, range);
  return TFC_OK;
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
  const int min_counter = *alg == ALG_AUTO_SELECT ? ALG_PHILOX : *alg; /* TF's quirk, see the top */
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
static int stateless_v2_compute(tfc_kernel_ctx *c) {
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
  if (alg != ALG_PHILOX && alg != ALG_AUTO_SELECT)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "Unsupported algorithm id: %d", alg);
  tfc_cpu_random_fill(c, &g, dist, elem_of(dtype), out, lo, range);
  return TFC_OK;
}

/* StatelessRandomGetKeyCounter[Alg]: seed -> key [1], counter [2] (uint64, low words first)
 * [, alg = Philox]. */
static int get_key_counter_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *seed = c->inputs[0];
  TFC_TRY(check_seed_shape(c, seed));
  tfc_philox g;
  TFC_TRY(seed_state(c, seed, &g));
  const int64_t one = 1, two = 2;
  tfc_tensor *key = tfc_kernel_alloc_output(c, 0, TFC_DT_UINT64, &one, 1);
  tfc_tensor *counter = key ? tfc_kernel_alloc_output(c, 1, TFC_DT_UINT64, &two, 1) : NULL;
  if (!counter) return c->status->code;
  ((uint64_t *)key->data)[0] = (uint64_t)g.key[0] | (uint64_t)g.key[1] << 32;
  ((uint64_t *)counter->data)[0] = (uint64_t)g.counter[0] | (uint64_t)g.counter[1] << 32;
  ((uint64_t *)counter->data)[1] = (uint64_t)g.counter[2] | (uint64_t)g.counter[3] << 32;
  if (c->n_outputs < 3) return TFC_OK;
  tfc_tensor *alg = tfc_kernel_alloc_output(c, 2, TFC_DT_INT32, NULL, 0);
  if (!alg) return c->status->code;
  ((int32_t *)alg->data)[0] = ALG_PHILOX;
  return TFC_OK;
}

/* StatelessRandomGetAlg: the algorithm the CPU kernels use for auto-select (Philox). */
static int get_alg_compute(tfc_kernel_ctx *c) {
  tfc_tensor *alg = tfc_kernel_alloc_output(c, 0, TFC_DT_INT32, NULL, 0);
  if (!alg) return c->status->code;
  ((int32_t *)alg->data)[0] = ALG_PHILOX;
  return TFC_OK;
}

#define M_FLOATS (TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_BFLOAT16) | TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))
#define M_INTS (TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64))
#define M_FULL_INTS (M_INTS | TFC_T(TFC_DT_UINT32) | TFC_T(TFC_DT_UINT64))
#define V1(opname, types_)                                                                         \
  {.op = TFC_OP_##opname, .type_attr = "dtype", .types = types_, .type_attr2 = "T", .types2 = M_INTS, \
   .host_memory_in = 0xf, .compute = stateless_v1_compute}
#define V2(opname, types_)                                                                         \
  {.op = TFC_OP_##opname, .type_attr = "dtype", .types = types_, .type_attr2 = "Tshape",              \
   .types2 = M_INTS, .host_memory_in = 0x3f, .compute = stateless_v2_compute}

static const tfc_kernel_def defs[] = {
    V1(StatelessRandomUniform, M_FLOATS),
    V1(StatelessRandomNormal, M_FLOATS),
    V1(StatelessTruncatedNormal, M_FLOATS),
    V1(StatelessRandomUniformInt, M_INTS),
    V1(StatelessRandomUniformFullInt, M_FULL_INTS),
    V2(StatelessRandomUniformV2, M_FLOATS),
    V2(StatelessRandomNormalV2, M_FLOATS),
    V2(StatelessTruncatedNormalV2, M_FLOATS),
    /* TF's CPU kernels of UniformIntV2 are int32 and int64 only (its op def allows unsigned). */
    V2(StatelessRandomUniformIntV2, M_INTS),
    V2(StatelessRandomUniformFullIntV2, M_FULL_INTS),
    {.op = TFC_OP_StatelessRandomGetKeyCounter, .type_attr = "Tseed", .types = M_INTS, .host_memory_in = 0x1,
     .host_memory_out = 0x3, .compute = get_key_counter_compute},
    {.op = TFC_OP_StatelessRandomGetKeyCounterAlg, .type_attr = "Tseed", .types = M_INTS,
     .host_memory_in = 0x1, .host_memory_out = 0x7, .compute = get_key_counter_compute},
    {.op = TFC_OP_StatelessRandomGetAlg, .host_memory_out = 0x1, .compute = get_alg_compute},
};

int tfc_cpu_kernels_stateless_random(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
