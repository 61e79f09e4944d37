/*
 * lib_loader — the one dlopen of the CUDA libraries tfc does not link (cuBLAS, cuSOLVER, cuDNN,
 * cuFFT): open the library by its versioned soname and resolve a table of functions, or say
 * why not. Each library's module keeps its own table, its once-only state and its handles
 * (blas_loader.h, cudnn_loader.h, kernels_spectral_gpu.c); this is only the loading they share.
 */
#ifndef TFC_DEVICE_CUDA_LIB_LOADER_H
#define TFC_DEVICE_CUDA_LIB_LOADER_H

#include <stddef.h>

/* One function to resolve: its symbol and where its address goes. */
typedef struct tfc_cuda_sym {
  const char *name;
  void **slot;
} tfc_cuda_sym;

/* Opens `soname` (RTLD_NOW | RTLD_LOCAL) and fills every slot of syms[0..n) (stopping early at
 * a NULL name). Returns 0 with the library loaded for good (never closed: handles and plans
 * point into it), or -1 with err (cap bytes) "cannot load <name> (<soname>): <dlerror>" or
 * "<soname> has no symbol <symbol>" and the library closed again. Not thread-safe per table:
 * the caller loads each library once, under its own lock or once-control. */
int tfc_cuda_lib_load(const char *name, const char *soname, const tfc_cuda_sym *syms, int n, char *err, size_t cap);

#endif
