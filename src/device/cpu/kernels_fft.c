/*
 * kernels_fft — CPU kernels of the FFT ops (ops_fft.def) over FFTW 3 (libfftw3f for float /
 * complex64, libfftw3 for double / complex128).
 *
 * Every transform runs over the innermost `rank` (1, 2 or 3) dims of a row-major tensor, for
 * each entry of the outer ("batch") dims. FFTW's guru64 interface describes the tensor as it
 * lies in memory (sizes and strides per dim, the batch as a "howmany" loop), so RFFT reads a
 * cropped input in place and no size is limited to int.
 *   FFT*, IFFT*: one c2c plan; inverses scaled by 1/N (FFTW's backward transform is unscaled).
 *   RFFT*: one r2c plan over the first fft_length entries of each inner dim; the output's
 *     innermost dim is fft_length[-1] / 2 + 1.
 *   IRFFT*: the input is cropped to fft_length (the innermost dim to fft_length[-1] / 2 + 1);
 *     a c2c backward transform over the outer transformed dims into a scratch buffer (rank 2
 *     and 3; rank 1 just copies), then a 1-D c2r along the innermost dim, scaled by 1/N. That
 *     is the order TF's CPU kernel (and numpy's irfftn) uses, which fixes the result for input
 *     that is not Hermitian-symmetric; the imaginary parts of the innermost DC (and, for even
 *     lengths, Nyquist) terms are ignored, as c2r does.
 * The batch is split over the intra-op pool; each shard makes its own plan (FFTW_ESTIMATE,
 * which never touches the arrays) for its own slice. FFTW's planner is not thread-safe, so
 * plan creation and destruction hold one process-wide mutex; executing a plan does not.
 *
 * Checks, sizes and TF's error texts are the plan the GPU kernel shares (device/fft_plan.h).
 * An fft_length with a 0 entry gives zeros (TF itself aborts there); a planner failure is
 * INTERNAL.
 */
#include <fftw3.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "device/cpu/cpu_kernels.h"
#include "device/fft_plan.h"

static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct fft_job {
  tfc_fft_plan p;
  const char *in;
  char *out, *tmp;
  int64_t tmp_block; /* IRFFT scratch elements per batch entry */
  volatile int failed;
} fft_job;

/* Row-major strides of dims[0, rank). */
static void strides_of(const int64_t *dims, int rank, int64_t *st) {
  int64_t s = 1;
  for (int i = rank - 1; i >= 0; i--) {
    st[i] = s;
    s *= dims[i];
  }
}

/* One batch range [b0, b1) in precision P (fftwf / fftw) with real type R; returns 0 or -1
 * when FFTW gave no plan. */
#define FFT_RANGE(P, R)                                                                            \
  static P##_plan P##_plan_locked(P##_plan (*mk)(void *), void *arg) {                             \
    pthread_mutex_lock(&plan_lock);                                                                \
    P##_plan p = mk(arg);                                                                          \
    pthread_mutex_unlock(&plan_lock);                                                              \
    return p;                                                                                      \
  }                                                                                                \
  static void P##_run_plan(P##_plan p) {                                                           \
    P##_execute(p);                                                                                \
    pthread_mutex_lock(&plan_lock);                                                                \
    P##_destroy_plan(p);                                                                           \
    pthread_mutex_unlock(&plan_lock);                                                              \
  }                                                                                                \
  typedef struct P##_args {                                                                        \
    int rank, howmany_rank, sign;                                                                  \
    P##_iodim64 dims[3], howmany[2];                                                               \
    void *in, *out;                                                                                \
    unsigned flags;                                                                                \
  } P##_args;                                                                                      \
  static P##_plan P##_mk_c2c(void *v) {                                                            \
    P##_args *a = v;                                                                               \
    return P##_plan_guru64_dft(a->rank, a->dims, a->howmany_rank, a->howmany, a->in, a->out,     \
                               a->sign, a->flags);                                                 \
  }                                                                                                \
  static P##_plan P##_mk_r2c(void *v) {                                                            \
    P##_args *a = v;                                                                               \
    return P##_plan_guru64_dft_r2c(a->rank, a->dims, a->howmany_rank, a->howmany, a->in, a->out, \
                                   a->flags);                                                      \
  }                                                                                                \
  static P##_plan P##_mk_c2r(void *v) {                                                            \
    P##_args *a = v;                                                                               \
    return P##_plan_guru64_dft_c2r(a->rank, a->dims, a->howmany_rank, a->howmany, a->in, a->out, \
                                   a->flags);                                                      \
  }                                                                                                \
  static int P##_range(fft_job *j, int64_t b0, int64_t b1) {                                       \
    const int r = j->p.rank;                                                                         \
    int64_t nb = b1 - b0, ist[3], ost[3], tst[3], tdims[3];                                        \
    strides_of(j->p.in_dims, r, ist);                                                                \
    strides_of(j->p.out_dims, r, ost);                                                               \
    P##_args a = {0};                                                                              \
    P##_plan p;                                                                                    \
    const unsigned keep = FFTW_ESTIMATE | FFTW_PRESERVE_INPUT;                                     \
    if (!j->p.real) {                                                                                \
      a.rank = r;                                                                                  \
      for (int i = 0; i < r; i++) a.dims[i] = (P##_iodim64){j->p.n[i], ist[i], ost[i]};              \
      a.howmany_rank = 1;                                                                          \
      a.howmany[0] = (P##_iodim64){nb, j->p.in_block, j->p.out_block};                                 \
      a.in = (P##_complex *)j->in + b0 * j->p.in_block;                                              \
      a.out = (P##_complex *)j->out + b0 * j->p.out_block;                                           \
      a.sign = j->p.inverse ? FFTW_BACKWARD : FFTW_FORWARD;                                          \
      a.flags = keep;                                                                              \
      if (!(p = P##_plan_locked(P##_mk_c2c, &a))) return -1;                                       \
      P##_run_plan(p);                                                                             \
    } else if (!j->p.inverse) {                                                                      \
      a.rank = r;                                                                                  \
      for (int i = 0; i < r; i++) a.dims[i] = (P##_iodim64){j->p.n[i], ist[i], ost[i]};              \
      a.howmany_rank = 1;                                                                          \
      a.howmany[0] = (P##_iodim64){nb, j->p.in_block, j->p.out_block};                                 \
      a.in = (R *)j->in + b0 * j->p.in_block;                                                        \
      a.out = (P##_complex *)j->out + b0 * j->p.out_block;                                           \
      a.flags = keep;                                                                              \
      if (!(p = P##_plan_locked(P##_mk_r2c, &a))) return -1;                                       \
      P##_run_plan(p);                                                                             \
    } else {                                                                                       \
      /* scratch: [nb, n0 .. n(r-2), half] complex */                                              \
      for (int i = 0; i < r - 1; i++) tdims[i] = j->p.n[i];                                          \
      tdims[r - 1] = j->p.half;                                                                      \
      strides_of(tdims, r, tst);                                                                   \
      P##_complex *tmp = (P##_complex *)j->tmp + b0 * j->tmp_block;                                \
      const P##_complex *in = (const P##_complex *)j->in + b0 * j->p.in_block;                       \
      if (r == 1) {                                                                                \
        for (int64_t b = 0; b < nb; b++)                                                           \
          memcpy(tmp + b * j->tmp_block, in + b * j->p.in_block, (size_t)j->p.half * sizeof *tmp);     \
      } else {                                                                                     \
        a.rank = r - 1;                                                                            \
        for (int i = 0; i < r - 1; i++) a.dims[i] = (P##_iodim64){j->p.n[i], ist[i], tst[i]};        \
        a.howmany_rank = 2;                                                                        \
        a.howmany[0] = (P##_iodim64){nb, j->p.in_block, j->tmp_block};                               \
        a.howmany[1] = (P##_iodim64){j->p.half, 1, 1};                                               \
        a.in = (void *)in;                                                                         \
        a.out = tmp;                                                                               \
        a.sign = FFTW_BACKWARD;                                                                    \
        a.flags = keep;                                                                            \
        if (!(p = P##_plan_locked(P##_mk_c2c, &a))) return -1;                                     \
        P##_run_plan(p);                                                                           \
      }                                                                                            \
      int64_t rows = nb * (j->tmp_block / j->p.half), last = j->p.n[r - 1];                            \
      a = (P##_args){0};                                                                           \
      a.rank = 1;                                                                                  \
      a.dims[0] = (P##_iodim64){last, 1, 1};                                                       \
      a.howmany_rank = 1;                                                                          \
      a.howmany[0] = (P##_iodim64){rows, j->p.half, last};                                           \
      a.in = tmp;                                                                                  \
      a.out = (R *)j->out + b0 * j->p.out_block;                                                     \
      a.flags = FFTW_ESTIMATE | FFTW_DESTROY_INPUT;                                                \
      if (!(p = P##_plan_locked(P##_mk_c2r, &a))) return -1;                                       \
      P##_run_plan(p);                                                                             \
    }                                                                                              \
    if (j->p.scale != 1.0) {                                                                         \
      /* complex outputs scale both parts: 2 reals per element */                                  \
      int64_t m = nb * j->p.out_block * (j->p.real ? 1 : 2);                                           \
      R *o = (R *)j->out + b0 * j->p.out_block * (j->p.real ? 1 : 2), s = (R)j->p.scale;                 \
      for (int64_t k = 0; k < m; k++) o[k] *= s;                                                   \
    }                                                                                              \
    return 0;                                                                                      \
  }

FFT_RANGE(fftwf, float)
FFT_RANGE(fftw, double)

typedef struct fft_shard_arg {
  fft_job *job;
  int dbl;
} fft_shard_arg;

static void fft_shard(int64_t begin, int64_t end, void *arg) {
  fft_shard_arg *a = arg;
  if ((a->dbl ? fftw_range : fftwf_range)(a->job, begin, end)) a->job->failed = 1;
}

static int fft_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  tfc_fft_plan p;
  tfc_tensor *y = tfc_fft_plan_of(c, &p);
  if (!y) return c->status->code;
  if (y->n_elems == 0) return TFC_OK;
  if (p.total == 0) { /* an empty transform: zeros */
    memset(y->data, 0, (size_t)y->n_elems * tfc_dtype_size(y->dtype));
    return TFC_OK;
  }
  fft_job j = {.p = p};
  const int r = p.rank;
  int64_t total = p.total, batch = p.batch;
  int is_f = x->dtype == TFC_DT_FLOAT || x->dtype == TFC_DT_COMPLEX64;
  j.tmp_block = total / p.n[r - 1] * p.half;
  j.in = x->data;
  j.out = y->data;
  if (p.real && p.inverse) {
    size_t csize = is_f ? sizeof(fftwf_complex) : sizeof(fftw_complex);
    j.tmp = is_f ? fftwf_malloc((size_t)(batch * j.tmp_block) * csize) : fftw_malloc((size_t)(batch * j.tmp_block) * csize);
    if (!j.tmp)
      return tfc_kernel_error(c, TFC_RESOURCE_EXHAUSTED, "%s: could not allocate %lld bytes of scratch",
                              c->node->op->name, (long long)(batch * j.tmp_block * (int64_t)csize));
  }
  /* about 5 N log2 N flops per transform */
  int64_t lg = 1;
  while ((int64_t)1 << lg < total) lg++;
  fft_shard_arg sa = {&j, !is_f};
  tfc_kernel_parallel_for(c, batch, 5 * total * lg, fft_shard, &sa);
  if (j.tmp) (is_f ? fftwf_free : fftw_free)(j.tmp);
  if (j.failed) return tfc_kernel_error(c, TFC_INTERNAL, "%s: FFTW could not plan the transform", c->node->op->name);
  return TFC_OK;
}

#define CPLX (TFC_T(TFC_DT_COMPLEX64) | TFC_T(TFC_DT_COMPLEX128))
#define C_ROW(name) {.op = TFC_OP_##name, .type_attr = "Tcomplex", .types = CPLX, .compute = fft_compute}
/* Treal and Tcomplex pair up (float with complex64, double with complex128); fft_length stays
 * in host memory, as TF pins it. */
#define R_ROW1(name, R, C)                                                                         \
  {.op = TFC_OP_##name, .type_attr = "Treal", .types = TFC_T(R), .type_attr2 = "Tcomplex", .types2 = TFC_T(C), \
   .host_memory_in = TFC_HOST(1), .compute = fft_compute}
#define R_ROW(name) R_ROW1(name, TFC_DT_FLOAT, TFC_DT_COMPLEX64), R_ROW1(name, TFC_DT_DOUBLE, TFC_DT_COMPLEX128)

static const tfc_kernel_def fft_kernels[] = {
    C_ROW(FFT),  C_ROW(IFFT),  C_ROW(FFT2D),  C_ROW(IFFT2D),  C_ROW(FFT3D),  C_ROW(IFFT3D),
    R_ROW(RFFT), R_ROW(IRFFT), R_ROW(RFFT2D), R_ROW(IRFFT2D), R_ROW(RFFT3D), R_ROW(IRFFT3D),
};

int tfc_cpu_kernels_fft(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, fft_kernels, (int)(sizeof fft_kernels / sizeof fft_kernels[0]), s);
}
