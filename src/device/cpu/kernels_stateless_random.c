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
 * The checks, the generator state and the op's distribution are device/stateless_random.h's,
 * shared with the GPU kernels; this file supplies the CPU's fill and GetKeyCounter / GetAlg.
 *
 * Ownership: outputs are allocated through the kernel context. Thread-safety: no shared state.
 */
#include <stdint.h>

#include "device/cpu/cpu_kernels.h"
#include "device/random_kernel.h"
#include "device/stateless_random.h"

/* StatelessRandomGetKeyCounter[Alg]: seed -> key [1], counter [2] (uint64, low words first)
 * [, alg = Philox]. */
static int get_key_counter_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *seed = c->inputs[0];
  TFC_TRY(tfc_stateless_check_seed_shape(c, seed));
  tfc_philox g;
  TFC_TRY(tfc_stateless_seed_state(c, seed, &g));
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
  ((int32_t *)alg->data)[0] = TFC_STATELESS_PHILOX;
  return TFC_OK;
}

/* StatelessRandomGetAlg: the algorithm the CPU kernels use for auto-select (Philox). */
static int get_alg_compute(tfc_kernel_ctx *c) {
  tfc_tensor *alg = tfc_kernel_alloc_output(c, 0, TFC_DT_INT32, NULL, 0);
  if (!alg) return c->status->code;
  ((int32_t *)alg->data)[0] = TFC_STATELESS_PHILOX;
  return TFC_OK;
}

/* The CPU's fill: Philox groups split over the intra-op threads. */
static int cpu_fill(tfc_kernel_ctx *c, const tfc_philox *g, int dist, int elem, tfc_tensor *out, int64_t lo,
                    uint64_t range) {
  tfc_cpu_random_fill(c, g, dist, elem, out, lo, range);
  return TFC_OK;
}

static int stateless_v1_compute(tfc_kernel_ctx *c) { return tfc_stateless_v1(c, cpu_fill); }
static int stateless_v2_compute(tfc_kernel_ctx *c) { return tfc_stateless_v2(c, cpu_fill); }

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
