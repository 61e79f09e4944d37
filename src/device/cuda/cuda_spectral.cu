/*
 * cuda_spectral — the element maps of the complex ops and the FFTs' scaling on the GPU (the
 * launchers tfc_cuda_complex_map and tfc_cuda_scale of cuda_kernels.h; the tfc kernels on top
 * are kernels_spectral_gpu.c). A complex element is two reals, real part first, as on the
 * CPU (C's complex types) and in cuFFT.
 *
 * The maps compute in the element's own precision with CUDA's libm: ComplexAbs is hypot,
 * Angle atan2(imag, real), as C's cabs and carg; CUDA's are within an ulp or two of glibc's.
 */
#include "device/cuda/cuda_common.cuh"

using namespace tfc_cuda;

namespace {

template <typename R> __global__ void complex_map(int kind, const R *x, R *y, int64_t n) {
  TFC_CUDA_GRID_LOOP(i, n) {
    R re = x[2 * i], im = x[2 * i + 1];
    switch (kind) {
      case TFC_CUDA_CPLX_ABS: y[i] = hypot(re, im); break;
      case TFC_CUDA_CPLX_ANGLE: y[i] = atan2(im, re); break;
      default: /* conj */
        y[2 * i] = re;
        y[2 * i + 1] = -im;
        break;
    }
  }
}

template <typename R> __global__ void scale(R *x, int64_t n, R s) {
  TFC_CUDA_GRID_LOOP(i, n) x[i] *= s;
}

} // namespace

extern "C" int tfc_cuda_complex_map(int kind, int dtype, const void *x, void *y, int64_t n, void *stream) {
  if (n <= 0) return 0;
  if (kind < 0 || kind > TFC_CUDA_CPLX_CONJ) return TFC_CUDA_E_UNSUPPORTED;
  cudaStream_t s = (cudaStream_t)stream;
  switch (dtype) {
    case TFC_CUDA_F32: complex_map<float><<<blocks_for(n), kThreads, 0, s>>>(kind, (const float *)x, (float *)y, n); break;
    case TFC_CUDA_F64:
      complex_map<double><<<blocks_for(n), kThreads, 0, s>>>(kind, (const double *)x, (double *)y, n);
      break;
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
  return launched();
}

extern "C" int tfc_cuda_scale(int dtype, void *x, int64_t n, double factor, void *stream) {
  if (n <= 0) return 0;
  cudaStream_t s = (cudaStream_t)stream;
  switch (dtype) {
    case TFC_CUDA_F32: scale<float><<<blocks_for(n), kThreads, 0, s>>>((float *)x, n, (float)factor); break;
    case TFC_CUDA_F64: scale<double><<<blocks_for(n), kThreads, 0, s>>>((double *)x, n, factor); break;
    default: return TFC_CUDA_E_UNSUPPORTED;
  }
  return launched();
}
