/*
 * kernels_random — CPU kernels of the stateful random ops: RandomUniform,
 * RandomStandardNormal, TruncatedNormal (half, bfloat16, float, double), RandomUniformInt
 * (int32, int64) and Multinomial (float and double logits), bit for bit with TF's
 * (Philox4x32-10, src/base/philox.h).
 *
 * The generator state, its seeding, the reservation of each run's samples and the input checks
 * are shared with the GPU kernels (device/random_kernel.h); this file is the CPU's fill, which the
 * stateless ops (kernels_stateless_random.c, registered from here) use too.
 *
 * Parallel fill. The output is cut into Philox groups (philox.h); group g's values depend only
 * on g, so the groups are split over the intra-op pool with tfc_kernel_parallel_for and the
 * result does not depend on the thread count. Per-group costs are TF's (4 samples times the
 * generator's cost of 10 plus the distribution's: uniform 3, normal 70, truncated normal 90).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "device/cpu/cpu_kernels.h"
#include "device/random_kernel.h"

static void fill_shard(int64_t begin, int64_t end, void *arg) { tfc_philox_fill_groups(arg, begin, end); }

/* TF's per-group cost: kResultElementCount (4) * (Philox cost 10 + distribution cost). */
static const int64_t group_costs[TFC_PHILOX_DIST_COUNT] = {
    [TFC_PHILOX_UNIFORM] = 4 * (10 + 3),
    [TFC_PHILOX_NORMAL] = 4 * (10 + 70),
    [TFC_PHILOX_TRUNCATED] = 4 * (10 + 90),
    [TFC_PHILOX_UNIFORM_INT] = 4 * (10 + 3),
    [TFC_PHILOX_FULL_INT] = 4 * (10 + 3),
};

void tfc_cpu_random_fill(tfc_kernel_ctx *c, const tfc_philox *base, int dist, int elem, tfc_tensor *out, int64_t lo,
                         uint64_t range) {
  tfc_philox_fill f = {.dist = dist, .elem = elem, .lo = lo, .range = range,
                       .out = out->data, .size = out->n_elems, .base = *base};
  tfc_kernel_parallel_for(c, tfc_philox_n_groups(&f), group_costs[dist], fill_shard, &f);
}

static int cpu_fill(tfc_kernel_ctx *c, const tfc_random_state *st, const tfc_philox *base, tfc_tensor *out,
                    int64_t lo, uint64_t range) {
  tfc_cpu_random_fill(c, base, st->dist, st->elem, out, lo, range);
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

/* ---- Multinomial ---- */

/* The node's generator, seeded as every random op's; its distribution and fill are unused
 * (the kernel draws its own samples). */
static int multinomial_init(const tfc_node *n, void **st, tfc_status *s) {
  return tfc_random_init(n, st, TFC_PHILOX_UNIFORM_INT, "output_dtype", cpu_fill, "", s);
}

/* TF's CPU kernel, one shard: the run reserves batch * ceil4(num_samples) * 2 outputs; each row
 * takes the max of its finite logits, an unnormalized CDF of exp(logit - max) over the finite
 * ones (in double), and per sample a double in [0, 1) from two uint32s of the generator (single
 * samples, TF's SimplePhilox) scaled by the total; the class is the first CDF entry above it.
 * TF splits large batches over threads, each shard skipping ahead by its first row; for the
 * sizes TF runs as one shard the samples are TF's bit for bit. */
static int multinomial_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *logits = c->inputs[0];
  tfc_philox gen;
  tfc_tensor *out = tfc_multinomial_prepare(c, &gen);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  int64_t batch = out->dims[0], num_samples = out->dims[1], classes = logits->dims[1];
  int odt = out->dtype;
  double *cdf = malloc((size_t)classes * sizeof *cdf);
  if (!cdf) return tfc_kernel_error(c, TFC_RESOURCE_EXHAUSTED, "Multinomial: out of memory");
  uint32_t block[4];
  int used = 4;
  for (int64_t b = 0; b < batch; b++) {
    double max = -HUGE_VAL;
    int any = 0;
    for (int64_t j = 0; j < classes; j++) {
      double v = tfc_tensor_get_f64(logits, b * classes + j);
      if (isfinite(v) && (!any || v > max)) {
        max = v;
        any = 1;
      }
    }
    if (!any) max = logits->dtype == TFC_DT_DOUBLE ? -DBL_MAX : -FLT_MAX; /* T's lowest() */
    double total = 0;
    for (int64_t j = 0; j < classes; j++) {
      double v = tfc_tensor_get_f64(logits, b * classes + j);
      if (isfinite(v)) total += exp(v - max);
      cdf[j] = total;
    }
    for (int64_t k = 0; k < num_samples; k++) {
      uint32_t x[2];
      for (int h = 0; h < 2; h++) {
        if (used == 4) {
          tfc_philox_next(&gen, block);
          used = 0;
        }
        x[h] = block[used++];
      }
      double to_find = tfc_philox_uint64_to_double(x[0], x[1]) * total;
      int64_t lo = 0, hi = classes; /* first cdf[i] > to_find */
      while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (cdf[mid] > to_find) hi = mid;
        else lo = mid + 1;
      }
      if (odt == TFC_DT_INT32) ((int32_t *)out->data)[b * num_samples + k] = (int32_t)lo;
      else ((int64_t *)out->data)[b * num_samples + k] = lo;
    }
  }
  free(cdf);
  return TFC_OK;
}

#define M_RANDOM_FLOAT                                                                            \
  (TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_BFLOAT16) | TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))
#define M_RANDOM_INT (TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64))
#define ROW(opname, init_fn)                                                                      \
  {.op = TFC_OP_##opname, .type_attr = "dtype", .types = M_RANDOM_FLOAT, .type_attr2 = "T",       \
   .types2 = M_RANDOM_INT, .host_memory_in = 0x1, .init = init_fn, .compute = tfc_random_compute, \
   .free_state = tfc_random_free, .flags = TFC_KF_SHARED_STATE}

static const tfc_kernel_def defs[] = {
    ROW(RandomUniform, uniform_init),
    ROW(RandomStandardNormal, normal_init),
    ROW(TruncatedNormal, truncated_init),
    {.op = TFC_OP_RandomUniformInt, .type_attr = "Tout", .types = M_RANDOM_INT, .type_attr2 = "T",
     .types2 = M_RANDOM_INT, .host_memory_in = 0x7, .init = uniform_int_init,
     .compute = tfc_random_uniform_int_compute, .free_state = tfc_random_free, .flags = TFC_KF_SHARED_STATE},
    {.op = TFC_OP_Multinomial, .type_attr = "T", .types = TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE),
     .host_memory_in = 0x2, .init = multinomial_init, .compute = multinomial_compute, .free_state = tfc_random_free, .flags = TFC_KF_SHARED_STATE},
};

int tfc_cpu_kernels_random(tfc_kernel_table *t, tfc_status *s) {
  TFC_TRY(tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s));
  return tfc_cpu_kernels_stateless_random(t, s);
}
