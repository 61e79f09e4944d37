/*
 * kernels_random_gpu — RandomUniform, RandomStandardNormal, TruncatedNormal (half, float,
 * double) and RandomUniformInt (int32, int64) on the GPU, drawing TF's Philox streams: for the
 * same seed and seed2, run k of a GPU node produces the same numbers as run k of the CPU node
 * (kernels_random.c) — bit for bit for the uniform and integer ops, to a few ulp for the
 * normals (cuda_random.cu says why and how close).
 *
 * State, seeding, reservation and the checks of the host-memory inputs are shared with the
 * CPU kernels (device/random_kernel.h); this file is the GPU's fill, a kernel launched from the
 * reserved generator copy on the device's compute stream.
 *
 * Multinomial (float and double logits; TF 1.15 also lists half, which has no CPU kernel here)
 * shares its checks and the run's reservation with the CPU kernel and draws the CPU's samples.
 *
 * The stateless ops (StatelessRandomUniform, Normal, TruncatedNormal and UniformInt, and their
 * V2 forms; half, float, double and int32, int64) share their checks and starting state with
 * the CPU (device/stateless_random.h) and fill with the same launcher from that state, so they
 * give the CPU's values for the same inputs; the FullInt forms (int32, int64, uint32, uint64)
 * take the generator's raw bits.
 */
#include "device/cuda/cuda_kernels.h"
#include "device/random_kernel.h"
#include "device/stateless_random.h"

static int gpu_fill(tfc_kernel_ctx *c, const tfc_random_state *st, const tfc_philox *base, tfc_tensor *out,
                    int64_t lo, uint64_t range) {
  if (out->n_elems == 0) return TFC_OK;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  return tfc_cuda_ctx_check(
      c, tfc_cuda_random(st->dist, st->elem, base->key, base->counter, lo, range, out->data, out->n_elems, stream),
      out->dtype);
}

static int stateless_fill(tfc_kernel_ctx *c, const tfc_philox *g, int dist, int elem, tfc_tensor *out, int64_t lo,
                          uint64_t range) {
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  return tfc_cuda_ctx_check(
      c, tfc_cuda_random(dist, elem, g->key, g->counter, lo, range, out->data, out->n_elems, stream), out->dtype);
}
static int stateless_v1_compute(tfc_kernel_ctx *c) { return tfc_stateless_v1(c, stateless_fill); }
static int stateless_v2_compute(tfc_kernel_ctx *c) { return tfc_stateless_v2(c, stateless_fill); }

static int uniform_init(const tfc_node *n, void **st, tfc_status *s) {
  return tfc_random_init(n, st, TFC_PHILOX_UNIFORM, "dtype", gpu_fill, " on GPU", s);
}
static int normal_init(const tfc_node *n, void **st, tfc_status *s) {
  return tfc_random_init(n, st, TFC_PHILOX_NORMAL, "dtype", gpu_fill, " on GPU", s);
}
static int truncated_init(const tfc_node *n, void **st, tfc_status *s) {
  return tfc_random_init(n, st, TFC_PHILOX_TRUNCATED, "dtype", gpu_fill, " on GPU", s);
}
static int uniform_int_init(const tfc_node *n, void **st, tfc_status *s) {
  return tfc_random_init(n, st, TFC_PHILOX_UNIFORM_INT, "Tout", gpu_fill, " on GPU", s);
}

#define G_F (TFC_T(TFC_DT_HALF) | TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))
#define G_I (TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64))
#define G_FULL_I (G_I | TFC_T(TFC_DT_UINT32) | TFC_T(TFC_DT_UINT64))
#define ROW(opname, init_fn)                                                                      \
  {.op = TFC_OP_##opname, .type_attr = "dtype", .types = G_F, .type_attr2 = "T", .types2 = G_I,    \
   .host_memory_in = TFC_HOST(0), .init = init_fn, .compute = tfc_random_compute, .free_state = tfc_random_free, .flags = TFC_KF_SHARED_STATE}

/* Multinomial: the CPU's checks and reservation (tfc_multinomial_prepare), then each row's CDF
 * in a device temporary and one thread per sample; the samples are the CPU's for the same
 * seeds (the CDF's exps are CUDA's double exp, within an ulp of glibc's: a sample can differ
 * only when its uniform lands within that of a CDF step). */
static int multinomial_init(const tfc_node *n, void **st, tfc_status *s) {
  return tfc_random_init(n, st, TFC_PHILOX_UNIFORM_INT, "output_dtype", gpu_fill, " on GPU", s);
}

static int multinomial_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *logits = c->inputs[0];
  tfc_philox gen;
  tfc_tensor *out = tfc_multinomial_prepare(c, &gen);
  if (!out) return c->status->code;
  if (out->n_elems == 0) return TFC_OK;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  int64_t batch = logits->dims[0], classes = logits->dims[1];
  tfc_tensor *cdf = tfc_cuda_ctx_temp(c, batch * classes * (int64_t)sizeof(double));
  if (!cdf) return c->status->code;
  int err = tfc_cuda_multinomial(tfc_cuda_dtype_of(logits->dtype), tfc_cuda_dtype_of(out->dtype), logits->data,
                                 batch, classes, out->dims[1], gen.key, gen.counter, cdf->data, out->data, stream);
  tfc_tensor_unref(cdf);
  return tfc_cuda_ctx_check(c, err, logits->dtype);
}

/* Stateless: every input in host memory (shape, seed or key/counter/alg, int bounds). */
#define V1(opname, types_)                                                                        \
  {.op = TFC_OP_##opname, .type_attr = "dtype", .types = types_, .type_attr2 = "T", .types2 = G_I,  \
   .host_memory_in = TFC_HOST_ALL, .compute = stateless_v1_compute}
#define V2(opname, types_)                                                                        \
  {.op = TFC_OP_##opname, .type_attr = "dtype", .types = types_, .type_attr2 = "Tshape", .types2 = G_I, \
   .host_memory_in = TFC_HOST_ALL, .compute = stateless_v2_compute}

static const tfc_kernel_def defs[] = {
    V1(StatelessRandomUniform, G_F),
    V1(StatelessRandomNormal, G_F),
    V1(StatelessTruncatedNormal, G_F),
    V1(StatelessRandomUniformInt, G_I),
    V1(StatelessRandomUniformFullInt, G_FULL_I),
    V2(StatelessRandomUniformV2, G_F),
    V2(StatelessRandomNormalV2, G_F),
    V2(StatelessTruncatedNormalV2, G_F),
    V2(StatelessRandomUniformIntV2, G_I),
    V2(StatelessRandomUniformFullIntV2, G_FULL_I),
    ROW(RandomUniform, uniform_init),
    ROW(RandomStandardNormal, normal_init),
    ROW(TruncatedNormal, truncated_init),
    {.op = TFC_OP_RandomUniformInt, .type_attr = "Tout", .types = G_I, .type_attr2 = "T", .types2 = G_I,
     .host_memory_in = TFC_HOST(0) | TFC_HOST(1) | TFC_HOST(2), .init = uniform_int_init,
     .compute = tfc_random_uniform_int_compute, .free_state = tfc_random_free, .flags = TFC_KF_SHARED_STATE},
    {.op = TFC_OP_Multinomial, .type_attr = "T", .types = TFC_TYPES_FLOAT, .type_attr2 = "output_dtype",
     .types2 = G_I, .host_memory_in = TFC_HOST(1), .init = multinomial_init, .compute = multinomial_compute,
     .free_state = tfc_random_free, .flags = TFC_KF_SHARED_STATE},
};

int tfc_cuda_kernels_random(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
