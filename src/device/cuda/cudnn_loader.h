/*
 * cudnn_loader — cuDNN loaded on first use, and one cuDNN handle per (GPU, stream).
 *
 * libtfc must load, and run on the CPU, on machines without cuDNN (or without any CUDA
 * library but the statically linked runtime). So cuDNN is never linked: the first GPU kernel
 * that needs it dlopens libcudnn.so.<major> (the major version of the headers this build saw)
 * and resolves the functions the GPU kernels use into tfc_cudnn_api. When that fails, every
 * cuDNN kernel fails with FAILED_PRECONDITION naming the library and the loader's reason; the
 * rest of the GPU device keeps working.
 *
 * Handles are bound to one stream for good (cudnnSetStream) and kept for the life of the
 * process in a small table under a mutex, as the cuBLAS handles of blas_loader.h. cuDNN
 * is thread-safe only across distinct handles, so each handle has its own lock, held by the
 * kernel that acquired it from its first cuDNN call to its last enqueue (TF guards its cuDNN
 * handle the same way); the table lock is held only to find or create a handle.
 */
#ifndef TFC_DEVICE_CUDA_CUDNN_LOADER_H
#define TFC_DEVICE_CUDA_CUDNN_LOADER_H

#include <cudnn.h>

#include "base/status.h"
#include "device/kernel.h"

/* The cuDNN functions tfc uses (the legacy descriptor API, which cuDNN 9 still ships). */
typedef struct tfc_cudnn_api {
  __typeof__(cudnnCreate) *create;
  __typeof__(cudnnDestroy) *destroy;
  __typeof__(cudnnSetStream) *set_stream;
  __typeof__(cudnnGetErrorString) *error_string;
  __typeof__(cudnnCreateTensorDescriptor) *create_tensor;
  __typeof__(cudnnSetTensorNdDescriptor) *set_tensor_nd;
  __typeof__(cudnnDestroyTensorDescriptor) *destroy_tensor;
  __typeof__(cudnnCreateFilterDescriptor) *create_filter;
  __typeof__(cudnnSetFilterNdDescriptor) *set_filter_nd;
  __typeof__(cudnnDestroyFilterDescriptor) *destroy_filter;
  __typeof__(cudnnCreateConvolutionDescriptor) *create_conv;
  __typeof__(cudnnSetConvolutionNdDescriptor) *set_conv_nd;
  __typeof__(cudnnSetConvolutionMathType) *set_conv_math;
  __typeof__(cudnnSetConvolutionGroupCount) *set_conv_groups;
  __typeof__(cudnnDestroyConvolutionDescriptor) *destroy_conv;
  __typeof__(cudnnGetConvolutionForwardAlgorithm_v7) *fwd_algos;
  __typeof__(cudnnGetConvolutionBackwardDataAlgorithm_v7) *bwd_data_algos;
  __typeof__(cudnnGetConvolutionBackwardFilterAlgorithm_v7) *bwd_filter_algos;
  __typeof__(cudnnConvolutionForward) *conv_fwd;
  __typeof__(cudnnConvolutionBackwardData) *conv_bwd_data;
  __typeof__(cudnnConvolutionBackwardFilter) *conv_bwd_filter;
  __typeof__(cudnnTransformTensor) *transform;
} tfc_cudnn_api;

/* The cuDNN API, loaded on the first call. Returns NULL with FAILED_PRECONDITION in c's status
 * ("<op> on GPU: cannot load cuDNN (libcudnn.so.9): <dlerror>", or the missing symbol) when the
 * library is absent or too old; every later call answers the same. The table is process-wide
 * and constant once loaded (borrowed for the life of the process). Thread-safe. */
const tfc_cudnn_api *tfc_cudnn_api_get(tfc_kernel_ctx *c);

/* The handle bound to `stream` (a cudaStream_t of GPU `ordinal`, the calling thread's current
 * device), created on first use, returned LOCKED: the caller has it to itself until
 * tfc_cudnn_release(*out), which it must call exactly once, on the same thread, after its last
 * cuDNN call with it (a cuDNN handle must not be used by two threads at once; two kernels of one
 * device running on the inter-op pool take turns, and their work lands on the one stream in
 * the order they enqueued it). Returns 0 and *out, or the error set in c (nothing held): the
 * load error above, or INTERNAL when cudnnCreate fails or too many streams were seen. The
 * handle is owned by the table (never freed). Thread-safe. */
int tfc_cudnn_acquire(tfc_kernel_ctx *c, int ordinal, void *stream, cudnnHandle_t *out);
/* Unlocks a handle from tfc_cudnn_acquire. */
void tfc_cudnn_release(cudnnHandle_t h);

/* Turns a cuDNN status into c's status: SUCCESS returns 0; anything else is INTERNAL
 * "<op> on GPU: <what> failed: <cuDNN's text>". Returns c->status->code. */
int tfc_cudnn_check(tfc_kernel_ctx *c, cudnnStatus_t st, const char *what);

#endif
