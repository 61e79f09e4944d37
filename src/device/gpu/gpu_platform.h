/*
 * gpu_platform — what the GPU device needs from a GPU runtime, as a table of functions.
 *
 * The GPU device (gpu_device.c), its allocator and its streams are written against this table,
 * never against CUDA directly: the CUDA runtime implements it (src/device/cuda/cuda_platform.c,
 * built when nvcc is present), and tests install a fake platform whose "device memory" is host
 * memory, so enumeration, visible_device_list, virtual devices, memory limits, lazy allocation
 * and out-of-memory behaviour are all tested on machines without a GPU.
 *
 * Ordinals are the platform's physical device numbers (0..device_count-1, before
 * visible_device_list). Every function may be called from any thread.
 */
#ifndef TFC_DEVICE_GPU_GPU_PLATFORM_H
#define TFC_DEVICE_GPU_GPU_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"

typedef struct tfc_gpu_props {
  char name[256];       /* "NVIDIA H200" */
  char pci_bus_id[32];  /* "0000:1b:00.0" */
  int cc_major, cc_minor; /* compute capability */
  int64_t total_memory; /* bytes */
  int multiprocessors;
} tfc_gpu_props;

typedef struct tfc_gpu_platform {
  const char *name; /* "CUDA", "fake" */
  /* The number of GPUs (0 when there is no driver or no GPU; never an error). */
  int (*device_count)(void);
  int (*get_props)(int ordinal, tfc_gpu_props *out, tfc_status *s);
  /* Free and total device memory now. */
  int (*mem_info)(int ordinal, int64_t *free_bytes, int64_t *total_bytes, tfc_status *s);
  /* Raw device memory (the allocator's regions). RESOURCE_EXHAUSTED when the device has none. */
  int (*mem_alloc)(int ordinal, size_t bytes, void **out, tfc_status *s);
  void (*mem_free)(int ordinal, void *p);
  /* Pinned host memory for staging copies. */
  int (*host_alloc)(size_t bytes, void **out, tfc_status *s);
  void (*host_free)(void *p);
  /* Synchronous copies (the stream-ordered ones come with the streams). */
  int (*copy_to_device)(int ordinal, void *dst, const void *src, size_t n, tfc_status *s);
  int (*copy_to_host)(int ordinal, void *dst, const void *src, size_t n, tfc_status *s);

  /* Streams and events, as opaque handles (cudaStream_t, cudaEvent_t). A GPU device has a
   * compute stream and host-to-device, device-to-host and device-to-device copy streams; work
   * on one stream waits for another through an event recorded there. A platform without
   * asynchronous work (the fake one) may leave these NULL: the device then copies
   * synchronously. */
  int (*stream_create)(int ordinal, void **out, tfc_status *s);
  void (*stream_destroy)(int ordinal, void *stream);
  int (*stream_sync)(int ordinal, void *stream, tfc_status *s);
  /* kind: TFC_GPU_COPY_*. */
  int (*copy_async)(int ordinal, void *dst, const void *src, size_t n, int kind, void *stream, tfc_status *s);
  int (*event_create)(int ordinal, void **out, tfc_status *s);
  void (*event_destroy)(int ordinal, void *event);
  int (*event_record)(int ordinal, void *event, void *stream, tfc_status *s);
  int (*stream_wait_event)(int ordinal, void *stream, void *event, tfc_status *s);
  /* Runs fn(arg) on a platform thread once the work queued on stream so far is done (it
   * must not call the platform). */
  int (*stream_callback)(int ordinal, void *stream, void (*fn)(void *arg), void *arg, tfc_status *s);
  /* Peer access between two ordinals: 1 when ordinal `from` can read `to`'s memory directly
   * (enabled by the call), else 0. */
  int (*enable_peer)(int from, int to);
} tfc_gpu_platform;

enum {
  TFC_GPU_COPY_H2D = 1,
  TFC_GPU_COPY_D2H = 2,
  TFC_GPU_COPY_D2D = 3,
};

/* The platform in use: the test override if one is set, else CUDA when this build has it, else
 * a platform with no devices. Never NULL. */
const tfc_gpu_platform *tfc_gpu_platform_get(void);
/* Tests: use p instead (NULL restores the default). Not synchronized with running sessions:
 * set it before creating any. */
void tfc_gpu_platform_set_for_testing(const tfc_gpu_platform *p);
/* The CUDA runtime's platform, or NULL when this build has no CUDA (cuda_platform.c). */
const tfc_gpu_platform *tfc_gpu_platform_cuda(void);

#endif
