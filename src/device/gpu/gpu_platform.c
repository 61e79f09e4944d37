/*
 * gpu_platform — which GPU platform the GPU device uses: a test override, else the CUDA
 * runtime when this build has it, else a platform without devices (see gpu_platform.h).
 *
 * The "none" platform answers device_count() == 0, so the GPU factory adds no devices and
 * nothing else is ever asked of it; its other functions still answer with an error rather
 * than crash, for a caller that asks anyway.
 */
#include "device/gpu/gpu_platform.h"

#include <stdatomic.h>

static int none_count(void) { return 0; }

static int none_error(int ordinal, tfc_status *s) {
  return tfc_status_set(s, TFC_FAILED_PRECONDITION, "no GPU platform in this process: GPU %d does not exist", ordinal);
}
static int none_props(int ordinal, tfc_gpu_props *out, tfc_status *s) {
  (void)out;
  return none_error(ordinal, s);
}
static int none_mem_info(int ordinal, int64_t *free_bytes, int64_t *total_bytes, tfc_status *s) {
  *free_bytes = *total_bytes = 0;
  return none_error(ordinal, s);
}
static int none_mem_alloc(int ordinal, size_t bytes, void **out, tfc_status *s) {
  (void)bytes;
  *out = NULL;
  return none_error(ordinal, s);
}
static void none_mem_free(int ordinal, void *p) { (void)ordinal, (void)p; }
static int none_host_alloc(size_t bytes, void **out, tfc_status *s) {
  (void)bytes;
  *out = NULL;
  return none_error(0, s);
}
static void none_host_free(void *p) { (void)p; }
static int none_copy(int ordinal, void *dst, const void *src, size_t n, tfc_status *s) {
  (void)dst, (void)src, (void)n;
  return none_error(ordinal, s);
}

static int none_enable_peer(int from, int to) {
  (void)from, (void)to;
  return 0;
}

/* Without devices there is no asynchronous work: no streams or events. */
static const tfc_gpu_platform none_platform = {
    .name = "none",
    .device_count = none_count,
    .get_props = none_props,
    .mem_info = none_mem_info,
    .mem_alloc = none_mem_alloc,
    .mem_free = none_mem_free,
    .host_alloc = none_host_alloc,
    .host_free = none_host_free,
    .copy_to_device = none_copy,
    .copy_to_host = none_copy,
    .enable_peer = none_enable_peer,
};

/* Atomic so that a test setting it and a session reading it never tear; the header still
 * asks tests to set it before creating sessions, since devices keep the platform they got. */
static _Atomic(const tfc_gpu_platform *) override;

#ifndef TFC_HAVE_CUDA
/* Builds without the CUDA toolkit do not compile src/device/cuda/: no CUDA platform. */
const tfc_gpu_platform *tfc_gpu_platform_cuda(void) { return NULL; }
#endif

const tfc_gpu_platform *tfc_gpu_platform_get(void) {
  const tfc_gpu_platform *p = atomic_load(&override);
  if (p) return p;
  p = tfc_gpu_platform_cuda();
  return p ? p : &none_platform;
}

void tfc_gpu_platform_set_for_testing(const tfc_gpu_platform *p) { atomic_store(&override, p); }
