/*
 * cuda_platform — the GPU platform table (device/gpu/gpu_platform.h) over the CUDA runtime.
 *
 * Built only when CMake finds the CUDA toolkit. cudart is linked statically and loads the
 * driver itself: on a machine without a driver or a GPU, cudaGetDeviceCount fails and the
 * platform reports no devices, so such machines simply have none.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#include "device/gpu/gpu_platform.h"

static int cuda_error(cudaError_t e, const char *what, int ordinal, tfc_status *s) {
  int code = e == cudaErrorMemoryAllocation ? TFC_RESOURCE_EXHAUSTED : TFC_INTERNAL;
  /* Clear the sticky last error so later calls are not blamed for this one. */
  (void)cudaGetLastError();
  return tfc_status_set(s, code, "%s on GPU %d failed: %s (%s)", what, ordinal, cudaGetErrorString(e),
                        cudaGetErrorName(e));
}

static int device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

static int get_props(int ordinal, tfc_gpu_props *out, tfc_status *s) {
  struct cudaDeviceProp p;
  cudaError_t e = cudaGetDeviceProperties(&p, ordinal);
  if (e != cudaSuccess) return cuda_error(e, "cudaGetDeviceProperties", ordinal, s);
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%s", p.name);
  snprintf(out->pci_bus_id, sizeof out->pci_bus_id, "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);
  out->cc_major = p.major;
  out->cc_minor = p.minor;
  out->total_memory = (int64_t)p.totalGlobalMem;
  out->multiprocessors = p.multiProcessorCount;
  return TFC_OK;
}

/* The runtime API works on the calling thread's current device. */
static int use(int ordinal, tfc_status *s) {
  cudaError_t e = cudaSetDevice(ordinal);
  return e == cudaSuccess ? TFC_OK : cuda_error(e, "cudaSetDevice", ordinal, s);
}

static int mem_info(int ordinal, int64_t *free_bytes, int64_t *total_bytes, tfc_status *s) {
  TFC_TRY(use(ordinal, s));
  size_t f = 0, t = 0;
  cudaError_t e = cudaMemGetInfo(&f, &t);
  if (e != cudaSuccess) return cuda_error(e, "cudaMemGetInfo", ordinal, s);
  *free_bytes = (int64_t)f;
  *total_bytes = (int64_t)t;
  return TFC_OK;
}

static int mem_alloc(int ordinal, size_t bytes, void **out, tfc_status *s) {
  TFC_TRY(use(ordinal, s));
  cudaError_t e = cudaMalloc(out, bytes);
  if (e != cudaSuccess) {
    *out = NULL;
    return cuda_error(e, "cudaMalloc", ordinal, s);
  }
  return TFC_OK;
}

static void mem_free(int ordinal, void *p) {
  tfc_status ignore;
  tfc_status_init(&ignore);
  if (use(ordinal, &ignore) == TFC_OK) cudaFree(p);
  tfc_status_fini(&ignore);
}

static int host_alloc(size_t bytes, void **out, tfc_status *s) {
  cudaError_t e = cudaMallocHost(out, bytes);
  if (e != cudaSuccess) {
    *out = NULL;
    return cuda_error(e, "cudaMallocHost", -1, s);
  }
  return TFC_OK;
}

static void host_free(void *p) { cudaFreeHost(p); }

static int copy(int ordinal, void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, tfc_status *s) {
  TFC_TRY(use(ordinal, s));
  cudaError_t e = cudaMemcpy(dst, src, n, kind);
  return e == cudaSuccess ? TFC_OK : cuda_error(e, "cudaMemcpy", ordinal, s);
}

static int copy_to_device(int ordinal, void *dst, const void *src, size_t n, tfc_status *s) {
  return copy(ordinal, dst, src, n, cudaMemcpyHostToDevice, s);
}

static int copy_to_host(int ordinal, void *dst, const void *src, size_t n, tfc_status *s) {
  return copy(ordinal, dst, src, n, cudaMemcpyDeviceToHost, s);
}

static int stream_create(int ordinal, void **out, tfc_status *s) {
  TFC_TRY(use(ordinal, s));
  cudaStream_t st;
  cudaError_t e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
  if (e != cudaSuccess) return cuda_error(e, "cudaStreamCreate", ordinal, s);
  *out = st;
  return TFC_OK;
}

static void stream_destroy(int ordinal, void *stream) {
  tfc_status ignore;
  tfc_status_init(&ignore);
  if (use(ordinal, &ignore) == TFC_OK) cudaStreamDestroy((cudaStream_t)stream);
  tfc_status_fini(&ignore);
}

static int stream_sync(int ordinal, void *stream, tfc_status *s) {
  cudaError_t e = cudaStreamSynchronize((cudaStream_t)stream);
  return e == cudaSuccess ? TFC_OK : cuda_error(e, "cudaStreamSynchronize", ordinal, s);
}

static int copy_async(int ordinal, void *dst, const void *src, size_t n, int kind, void *stream, tfc_status *s) {
  enum cudaMemcpyKind k = kind == TFC_GPU_COPY_H2D   ? cudaMemcpyHostToDevice
                          : kind == TFC_GPU_COPY_D2H ? cudaMemcpyDeviceToHost
                                                     : cudaMemcpyDeviceToDevice;
  TFC_TRY(use(ordinal, s));
  cudaError_t e = cudaMemcpyAsync(dst, src, n, k, (cudaStream_t)stream);
  return e == cudaSuccess ? TFC_OK : cuda_error(e, "cudaMemcpyAsync", ordinal, s);
}

static int event_create(int ordinal, void **out, tfc_status *s) {
  TFC_TRY(use(ordinal, s));
  cudaEvent_t ev;
  cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
  if (e != cudaSuccess) return cuda_error(e, "cudaEventCreate", ordinal, s);
  *out = ev;
  return TFC_OK;
}

static void event_destroy(int ordinal, void *event) {
  (void)ordinal;
  cudaEventDestroy((cudaEvent_t)event);
}

static int event_record(int ordinal, void *event, void *stream, tfc_status *s) {
  cudaError_t e = cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream);
  return e == cudaSuccess ? TFC_OK : cuda_error(e, "cudaEventRecord", ordinal, s);
}

static int stream_wait_event(int ordinal, void *stream, void *event, tfc_status *s) {
  cudaError_t e = cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)event, 0);
  return e == cudaSuccess ? TFC_OK : cuda_error(e, "cudaStreamWaitEvent", ordinal, s);
}

static int stream_callback(int ordinal, void *stream, void (*fn)(void *arg), void *arg, tfc_status *s) {
  cudaError_t e = cudaLaunchHostFunc((cudaStream_t)stream, fn, arg);
  return e == cudaSuccess ? TFC_OK : cuda_error(e, "cudaLaunchHostFunc", ordinal, s);
}

static int enable_peer(int from, int to) {
  int can = 0;
  if (from == to) return 1;
  if (cudaDeviceCanAccessPeer(&can, from, to) != cudaSuccess || !can) {
    (void)cudaGetLastError();
    return 0;
  }
  if (cudaSetDevice(from) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
  if (e == cudaErrorPeerAccessAlreadyEnabled) e = cudaSuccess;
  (void)cudaGetLastError();
  return e == cudaSuccess;
}

static const tfc_gpu_platform cuda = {
    .name = "CUDA",
    .device_count = device_count,
    .get_props = get_props,
    .mem_info = mem_info,
    .mem_alloc = mem_alloc,
    .mem_free = mem_free,
    .host_alloc = host_alloc,
    .host_free = host_free,
    .copy_to_device = copy_to_device,
    .copy_to_host = copy_to_host,
    .stream_create = stream_create,
    .stream_destroy = stream_destroy,
    .stream_sync = stream_sync,
    .copy_async = copy_async,
    .event_create = event_create,
    .event_destroy = event_destroy,
    .event_record = event_record,
    .stream_wait_event = stream_wait_event,
    .stream_callback = stream_callback,
    .enable_peer = enable_peer,
};

const tfc_gpu_platform *tfc_gpu_platform_cuda(void) { return &cuda; }
