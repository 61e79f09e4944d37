/*
 * kernels_spectral_gpu — the FFT ops through cuFFT, and the complex-number ops Complex, Real,
 * Imag, ComplexAbs, Angle and Conj, on the GPU (complex64 and complex128, with float and
 * double parts, as TF 1.15 registers them for the GPU).
 *
 * FFTs. The checks, sizes and texts are the CPU kernel's plan (device/fft_plan.h). One cuFFT
 * plan (cufftMakePlanMany64) describes the whole batch as it lies in memory: the inner dims
 * of the input and output as the embeddings, so an RFFT reads the cropped first fft_length
 * entries of each dim in place and no size is limited to int. FFT* and IFFT* are one c2c
 * transform; RFFT* one r2c; IRFFT* one c2r of the cropped input, which is what TF's GPU kernel
 * runs: for input that is Hermitian-symmetric (what an RFFT gives) it is the CPU's result, for
 * input that is not, cuFFT's (TF's CPU and GPU kernels differ there too). cuFFT's c2r may
 * overwrite its input, so it reads a device copy. Inverses are scaled by 1/N afterwards (cuFFT
 * is unscaled, as FFTW). An fft_length with a 0 entry gives zeros, as on the CPU.
 * Each node keeps its last plan (kernel state, under a mutex held from cufftSetStream to the
 * enqueue of the transform): a step with the shapes of the previous one plans nothing, as TF's
 * plan cache does; another shape or device replaces it. As in TF, the plan allocates no memory
 * of its own: each transform's work area is a temporary of the device's allocator.
 *
 * cuFFT is loaded on first use (dlopen of libcufft.so.<major>), as cuBLAS is
 * (lib_loader.h): libtfc needs no CUDA library to load. A machine whose cuFFT cannot
 * be loaded gets FAILED_PRECONDITION naming the library.
 *
 * Complex parts. Real and Imag are strided copies of one part; Complex interleaves its two
 * (broadcast) inputs with two strided copies, sharing the CPU kernel's broadcast check
 * (device/array_plan.h); ComplexAbs, Angle and Conj are the element maps of cuda_spectral.cu.
 */
#include <cuda_runtime_api.h>
#include <cufft.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/array_plan.h"
#include "device/cpu/cwise_int.h"
#include "device/cuda/cuda_kernels.h"
#include "device/cuda/lib_loader.h"
#include "device/fft_plan.h"
#include "device/gpu/gpu_device.h"

/* ---- cuFFT, loaded on first use ---- */

#define STR_(x) #x
#define STR(x) STR_(x)
#define CUFFT_SONAME "libcufft.so." STR(CUFFT_VER_MAJOR)

static struct {
  __typeof__(cufftCreate) *create;
  __typeof__(cufftMakePlanMany64) *make_plan;
  __typeof__(cufftSetStream) *set_stream;
  __typeof__(cufftExecC2C) *c2c;
  __typeof__(cufftExecZ2Z) *z2z;
  __typeof__(cufftExecR2C) *r2c;
  __typeof__(cufftExecD2Z) *d2z;
  __typeof__(cufftExecC2R) *c2r;
  __typeof__(cufftExecZ2D) *z2d;
  __typeof__(cufftDestroy) *destroy;
  __typeof__(cufftSetAutoAllocation) *set_auto_allocation;
  __typeof__(cufftSetWorkArea) *set_work_area;
} fft; /* constant once loaded */
static pthread_once_t fft_once = PTHREAD_ONCE_INIT;
static char fft_err[320]; /* empty once loaded */

static void load_cufft(void) {
  static const tfc_cuda_sym syms[] = {
      {"cufftCreate", (void **)&fft.create},       {"cufftMakePlanMany64", (void **)&fft.make_plan},
      {"cufftSetStream", (void **)&fft.set_stream}, {"cufftExecC2C", (void **)&fft.c2c},
      {"cufftExecZ2Z", (void **)&fft.z2z},          {"cufftExecR2C", (void **)&fft.r2c},
      {"cufftExecD2Z", (void **)&fft.d2z},          {"cufftExecC2R", (void **)&fft.c2r},
      {"cufftExecZ2D", (void **)&fft.z2d},          {"cufftDestroy", (void **)&fft.destroy},
      {"cufftSetAutoAllocation", (void **)&fft.set_auto_allocation},
      {"cufftSetWorkArea", (void **)&fft.set_work_area}};
  tfc_cuda_lib_load("cuFFT", CUFFT_SONAME, syms, (int)(sizeof syms / sizeof syms[0]), fft_err, sizeof fft_err);
}

/* ---- FFT ---- */

#define KEY_LEN 12

/* A node's cached plan: the one for `key` on device `ordinal`. */
typedef struct fft_state {
  pthread_mutex_t mu;
  int have;
  cufftHandle plan;
  size_t work; /* the plan's work area, in bytes */
  int ordinal;
  int64_t key[KEY_LEN];
} fft_state;

static int fft_init(const tfc_node *n, void **state, tfc_status *s) {
  (void)n;
  fft_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  pthread_mutex_init(&st->mu, NULL);
  *state = st;
  return TFC_OK;
}

static void fft_free(void *state) {
  fft_state *st = state;
  if (!st) return;
  if (st->have) fft.destroy(st->plan);
  pthread_mutex_destroy(&st->mu);
  free(st);
}

static int cufft_error(tfc_kernel_ctx *c, const char *what, cufftResult r) {
  return tfc_kernel_error(c, TFC_INTERNAL, "%s on GPU: cuFFT %s failed with error %d", c->node->op->name, what, (int)r);
}

/* The cuFFT transform type of a plan over elements of the input's dtype. */
static cufftType type_of(const tfc_fft_plan *p, int dbl) {
  if (!p->real) return dbl ? CUFFT_Z2Z : CUFFT_C2C;
  if (!p->inverse) return dbl ? CUFFT_D2Z : CUFFT_R2C;
  return dbl ? CUFFT_Z2D : CUFFT_C2R;
}

/* Makes st's plan the one for p (st->mu held). */
static int ensure_plan(tfc_kernel_ctx *c, fft_state *st, const tfc_fft_plan *p, cufftType type, int ordinal) {
  int64_t key[KEY_LEN] = {p->rank, (int64_t)type, p->batch};
  for (int i = 0; i < p->rank; i++) key[3 + i] = p->n[i], key[6 + i] = p->in_dims[i], key[9 + i] = p->out_dims[i];
  if (st->have && st->ordinal == ordinal && memcmp(st->key, key, sizeof key) == 0) return TFC_OK;
  if (st->have) fft.destroy(st->plan);
  st->have = 0;
  long long n[3], inembed[3], onembed[3];
  for (int i = 0; i < p->rank; i++) n[i] = p->n[i], inembed[i] = p->in_dims[i], onembed[i] = p->out_dims[i];
  cufftHandle h;
  cufftResult r = fft.create(&h);
  if (r != CUFFT_SUCCESS) return cufft_error(c, "cufftCreate", r);
  size_t work = 0;
  r = fft.set_auto_allocation(h, 0); /* the work area comes from the device's allocator */
  if (r == CUFFT_SUCCESS)
    r = fft.make_plan(h, p->rank, n, inembed, 1, p->in_block, onembed, 1, p->out_block, type, p->batch, &work);
  if (r != CUFFT_SUCCESS) {
    fft.destroy(h);
    return cufft_error(c, "plan", r);
  }
  st->plan = h;
  st->work = work;
  st->have = 1;
  st->ordinal = ordinal;
  memcpy(st->key, key, sizeof key);
  return TFC_OK;
}

/* Enqueues p's transform of in into out on the plan, with a work area from the device's
 * allocator (st->mu held). */
static int fft_exec(tfc_kernel_ctx *c, fft_state *st, const tfc_fft_plan *p, int dbl, void *in, void *out,
                    void *stream) {
  cufftResult r = fft.set_stream(st->plan, (cudaStream_t)stream);
  if (r != CUFFT_SUCCESS) return cufft_error(c, "cufftSetStream", r);
  tfc_tensor *work = NULL;
  if (st->work > 0) {
    if (!(work = tfc_cuda_ctx_temp(c, (int64_t)st->work))) return c->status->code;
    r = fft.set_work_area(st->plan, work->data);
    if (r != CUFFT_SUCCESS) {
      tfc_tensor_unref(work);
      return cufft_error(c, "cufftSetWorkArea", r);
    }
  }
  int dir = p->inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
  if (!p->real)
    r = dbl ? fft.z2z(st->plan, in, out, dir) : fft.c2c(st->plan, in, out, dir);
  else if (!p->inverse)
    r = dbl ? fft.d2z(st->plan, in, out) : fft.r2c(st->plan, in, out);
  else
    r = dbl ? fft.z2d(st->plan, in, out) : fft.c2r(st->plan, in, out);
  if (work) tfc_tensor_unref(work); /* the allocator reuses it only for work after this */
  return r == CUFFT_SUCCESS ? TFC_OK : cufft_error(c, "exec", r);
}

static int fft_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  tfc_fft_plan p;
  tfc_tensor *y = tfc_fft_plan_of(c, &p);
  if (!y) return c->status->code;
  if (y->n_elems == 0) return TFC_OK;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  if (p.total == 0) return tfc_cuda_ctx_check(c, tfc_cuda_memset(y->data, 0, (int64_t)y->n_bytes, stream), x->dtype);
  pthread_once(&fft_once, load_cufft);
  if (fft_err[0]) return tfc_kernel_error(c, TFC_FAILED_PRECONDITION, "%s on GPU: %s", c->node->op->name, fft_err);
  int dbl = x->dtype == TFC_DT_DOUBLE || x->dtype == TFC_DT_COMPLEX128;
  /* cuFFT's c2r may overwrite its input: it reads a copy. */
  tfc_tensor *copy = NULL;
  void *in = x->data;
  if (p.real && p.inverse) {
    if (!(copy = tfc_cuda_ctx_temp(c, (int64_t)x->n_bytes))) return c->status->code;
    int rc = tfc_cuda_ctx_check(c, tfc_cuda_memcpy(copy->data, x->data, (int64_t)x->n_bytes, stream), x->dtype);
    if (rc) {
      tfc_tensor_unref(copy);
      return rc;
    }
    in = copy->data;
  }
  fft_state *st = c->state;
  pthread_mutex_lock(&st->mu);
  int rc = ensure_plan(c, st, &p, type_of(&p, dbl), tfc_gpu_device_platform_id(c->device));
  if (rc == TFC_OK) rc = fft_exec(c, st, &p, dbl, in, y->data, stream);
  pthread_mutex_unlock(&st->mu);
  if (copy) tfc_tensor_unref(copy);
  if (rc == TFC_OK && p.scale != 1.0) {
    /* complex outputs scale both parts: 2 reals per element */
    int64_t reals = y->n_elems * (p.real ? 1 : 2);
    rc = tfc_cuda_ctx_check(c, tfc_cuda_scale(dbl ? TFC_CUDA_F64 : TFC_CUDA_F32, y->data, reals, p.scale, stream),
                            x->dtype);
  }
  return rc;
}

/* ---- complex parts ---- */

/* Real (part 0) and Imag (part 1): every other real of x. */
static int part_copy(tfc_kernel_ctx *c, int part) {
  const tfc_tensor *x = c->inputs[0];
  int dbl = x->dtype == TFC_DT_COMPLEX128;
  tfc_tensor *y = tfc_kernel_alloc_output(c, 0, dbl ? TFC_DT_DOUBLE : TFC_DT_FLOAT, x->dims, x->ndims);
  if (!y) return c->status->code;
  if (y->n_elems == 0) return TFC_OK;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  tfc_cuda_copy_plan cp = {.rank = 1, .dims = {y->n_elems}, .src_strides = {2}, .dst_strides = {1},
                           .src_offset = part};
  return tfc_cuda_ctx_check(c, tfc_cuda_strided_copy(dbl ? 8 : 4, x->data, y->data, &cp, stream), x->dtype);
}
static int real_compute(tfc_kernel_ctx *c) { return part_copy(c, 0); }
static int imag_compute(tfc_kernel_ctx *c) { return part_copy(c, 1); }

static int map_run(tfc_kernel_ctx *c, int kind) {
  const tfc_tensor *x = c->inputs[0];
  int dbl = x->dtype == TFC_DT_COMPLEX128;
  int odt = kind == TFC_CUDA_CPLX_CONJ ? x->dtype : dbl ? TFC_DT_DOUBLE : TFC_DT_FLOAT;
  tfc_tensor *y = tfc_kernel_alloc_output(c, 0, odt, x->dims, x->ndims);
  if (!y) return c->status->code;
  if (y->n_elems == 0) return TFC_OK;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  return tfc_cuda_ctx_check(
      c, tfc_cuda_complex_map(kind, dbl ? TFC_CUDA_F64 : TFC_CUDA_F32, x->data, y->data, x->n_elems, stream), x->dtype);
}
static int abs_compute(tfc_kernel_ctx *c) { return map_run(c, TFC_CUDA_CPLX_ABS); }
static int angle_compute(tfc_kernel_ctx *c) { return map_run(c, TFC_CUDA_CPLX_ANGLE); }
static int conj_compute(tfc_kernel_ctx *c) { return map_run(c, TFC_CUDA_CPLX_CONJ); }

/* Complex(real, imag): each input's broadcast view copied into its part of the output. */
static int complex_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *re = c->inputs[0];
  tfc_cwise_bcast b;
  TFC_TRY(tfc_binary_bcast_plan_of(c, &b));
  if (b.rank > TFC_CUDA_MAX_DIMS)
    return tfc_kernel_error(c, TFC_UNIMPLEMENTED,
                            "%s on GPU broadcasts over at most %d collapsed dimensions, these shapes need %d",
                            c->node->op->name, TFC_CUDA_MAX_DIMS, b.rank);
  int dbl = re->dtype == TFC_DT_DOUBLE;
  tfc_tensor *z = tfc_kernel_alloc_output(c, 0, dbl ? TFC_DT_COMPLEX128 : TFC_DT_COMPLEX64, b.out_dims, b.out_ndims);
  if (!z) return c->status->code;
  if (b.n_out == 0) return TFC_OK;
  void *stream;
  TFC_TRY(tfc_cuda_ctx_stream(c, &stream));
  int rc = TFC_OK;
  for (int part = 0; part < 2 && rc == TFC_OK; part++) {
    tfc_cuda_copy_plan cp = {.rank = b.rank, .dst_offset = part};
    int64_t st = 2;
    for (int d = b.rank - 1; d >= 0; d--) {
      cp.dims[d] = b.dims[d];
      cp.src_strides[d] = b.strides[part][d];
      cp.dst_strides[d] = st;
      st *= b.dims[d];
    }
    rc = tfc_cuda_ctx_check(c, tfc_cuda_strided_copy(dbl ? 8 : 4, c->inputs[part]->data, z->data, &cp, stream),
                            re->dtype);
  }
  return rc;
}

/* ---- the table ---- */

#define CPLX (TFC_T(TFC_DT_COMPLEX64) | TFC_T(TFC_DT_COMPLEX128))
#define C_ROW(name)                                                                                                \
  {.op = TFC_OP_##name, .type_attr = "Tcomplex", .types = CPLX, .flags = TFC_KF_EXPENSIVE, .init = fft_init,       \
   .compute = fft_compute, .free_state = fft_free}
/* Treal and Tcomplex pair up (float with complex64, double with complex128); fft_length stays
 * in host memory, as TF pins it. */
#define R_ROW1(name, R, C)                                                                                         \
  {.op = TFC_OP_##name, .type_attr = "Treal", .types = TFC_T(R), .type_attr2 = "Tcomplex", .types2 = TFC_T(C),     \
   .host_memory_in = TFC_HOST(1), .flags = TFC_KF_EXPENSIVE, .init = fft_init, .compute = fft_compute,             \
   .free_state = fft_free}
#define R_ROW(name) R_ROW1(name, TFC_DT_FLOAT, TFC_DT_COMPLEX64), R_ROW1(name, TFC_DT_DOUBLE, TFC_DT_COMPLEX128)
#define PART_ROW(opname, fn, tin, tout)                                                                            \
  {.op = TFC_OP_##opname, .type_attr = "T", .types = TFC_T(tin), .type_attr2 = "Tout", .types2 = TFC_T(tout),      \
   .compute = fn##_compute}
#define PART_ROWS(opname, fn)                                                                                      \
  PART_ROW(opname, fn, TFC_DT_COMPLEX64, TFC_DT_FLOAT), PART_ROW(opname, fn, TFC_DT_COMPLEX128, TFC_DT_DOUBLE)

static const tfc_kernel_def defs[] = {
    C_ROW(FFT),
    C_ROW(IFFT),
    C_ROW(FFT2D),
    C_ROW(IFFT2D),
    C_ROW(FFT3D),
    C_ROW(IFFT3D),
    R_ROW(RFFT),
    R_ROW(IRFFT),
    R_ROW(RFFT2D),
    R_ROW(IRFFT2D),
    R_ROW(RFFT3D),
    R_ROW(IRFFT3D),
    PART_ROW(Complex, complex, TFC_DT_FLOAT, TFC_DT_COMPLEX64),
    PART_ROW(Complex, complex, TFC_DT_DOUBLE, TFC_DT_COMPLEX128),
    PART_ROWS(Real, real),
    PART_ROWS(Imag, imag),
    PART_ROWS(ComplexAbs, abs),
    PART_ROWS(Angle, angle),
    {.op = TFC_OP_Conj, .type_attr = "T", .types = CPLX, .compute = conj_compute},
};

int tfc_cuda_kernels_spectral(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
