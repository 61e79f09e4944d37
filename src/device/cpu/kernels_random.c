/*
 * kernels_random — CPU kernels of the stateful random ops: RandomUniform,
 * RandomStandardNormal, TruncatedNormal (half, bfloat16, float, double) and RandomUniformInt
 * (int32, int64), bit for bit with TF's (Philox4x32-10, src/base/philox.h).
 *
 * The generator state, its seeding, the reservation of each run's samples and the input checks
 * are shared with the GPU kernels (device/random_kernel.h); this file is the CPU's fill.
 *
 * Parallel fill. The output is cut into Philox groups (philox.h); group g's values depend only
 * on g, so the groups are split over the intra-op pool with tfc_kernel_parallel_for and the
 * result does not depend on the thread count. Per-group costs are TF's (4 samples times the
 * generator's cost of 10 plus the distribution's: uniform 3, normal 70, truncated normal 90).
 */
#include "device/cpu/cpu_kernels.h"
#include "device/random_kernel.h"

static void fill_shard(int64_t begin, int64_t end, void *arg) { tfc_philox_fill_groups(arg, begin, end); }

/* TF's per-group cost: kResultElementCount (4) * (Philox cost 10 + distribution cost). */
static const int64_t group_costs[TFC_PHILOX_DIST_COUNT] = {
    [TFC_PHILOX_UNIFORM] = 4 * (10 + 3),
    [TFC_PHILOX_NORMAL] = 4 * (10 + 70),
    [TFC_PHILOX_TRUNCATED] = 4 * (10 + 90),
    [TFC_PHILOX_UNIFORM_INT] = 4 * (10 + 3),
};

static int cpu_fill(tfc_kernel_ctx *c, const tfc_random_state *st, const tfc_philox *base, tfc_tensor *out,
                    int64_t lo, uint64_t range) {
  tfc_philox_fill f = {.dist = st->dist, .elem = st->elem, .lo = lo, .range = range,
                       .out = out->data, .size = out->n_elems, .base = *base};
  tfc_kernel_parallel_for(c, tfc_philox_n_groups(&f), group_costs[st->dist], fill_shard, &f);
  return TFC_OK;
}

static int uniform_init(const tfc_node *n, void **st, tfc_status *s) {
  return tfc_random_init(n, st, TFC_PHILOX_UNIFORM, "dtype", cpu_fill, "", s);
}
static int normal_init(const tfc_node *n, void **st, tfc_status *s) {
  return tfc_random_init(n, st, TFC_PHILOX_NORMAL, "dtype", cpu_fill, "", s);
}
static int truncated_init(const tfc_node *n, void **st, tfc_status *s) {
  return tfc_random_init(n, st, TFC_PHILOX_TRUNCATED, "dtype", cpu_fill, "", s);
}
static int uniform_int_init(const tfc_node *n, void **st, tfc_status *s) {
  return tfc_random_init(n, st, TFC_PHILOX_UNIFORM_INT, "Tout", cpu_fill, "", s);
}

#define M_RANDOM_FLOAT                                                                            \
  (TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_BFLOAT16) | TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))
#define M_RANDOM_INT (TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64))
#define ROW(opname, init_fn)                                                                      \
  {.op = TFC_OP_##opname, .type_attr = "dtype", .types = M_RANDOM_FLOAT, .type_attr2 = "T",       \
   .types2 = M_RANDOM_INT, .host_memory_in = 0x1, .init = init_fn, .compute = tfc_random_compute, \
   .free_state = tfc_random_free}

static const tfc_kernel_def defs[] = {
    ROW(RandomUniform, uniform_init),
    ROW(RandomStandardNormal, normal_init),
    ROW(TruncatedNormal, truncated_init),
    {.op = TFC_OP_RandomUniformInt, .type_attr = "Tout", .types = M_RANDOM_INT, .type_attr2 = "T",
     .types2 = M_RANDOM_INT, .host_memory_in = 0x7, .init = uniform_int_init,
     .compute = tfc_random_uniform_int_compute, .free_state = tfc_random_free},
};

int tfc_cpu_kernels_random(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
