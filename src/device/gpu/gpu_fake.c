/*
 * gpu_fake — see gpu_fake.h.
 *
 * Each "device allocation" is one aligned host block with a 256-byte header in front holding
 * its size and ordinal, so mem_free can give the bytes back to the right GPU's accounting
 * without a lookup table, and the address handed out keeps the 256-byte alignment CUDA
 * guarantees.
 */
#include "device/gpu/gpu_fake.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CUDA's cudaMalloc alignment; the header takes exactly one alignment unit. */
#define FAKE_ALIGN 256

typedef struct fake_header {
  size_t bytes;
  int ordinal;
} fake_header;

typedef struct fake_gpu {
  tfc_gpu_props props;
  int64_t free_at_start;
  int64_t allocated;
} fake_gpu;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int n_gpus;
static fake_gpu gpus[TFC_GPU_FAKE_MAX_DEVICES];
static int64_t n_mem_allocs;
static int64_t fail_above = -1;

/* n: the number of fake GPUs, read under the lock by the caller. */
static int bad_ordinal(int ordinal, int n, tfc_status *s) {
  return tfc_status_set(s, TFC_INVALID_ARGUMENT, "fake GPU %d does not exist (%d fake GPUs)", ordinal, n);
}

static int fake_count(void) {
  pthread_mutex_lock(&mu);
  int n = n_gpus;
  pthread_mutex_unlock(&mu);
  return n;
}

static int fake_props(int ordinal, tfc_gpu_props *out, tfc_status *s) {
  pthread_mutex_lock(&mu);
  int code = ordinal < 0 || ordinal >= n_gpus ? bad_ordinal(ordinal, n_gpus, s) : TFC_OK;
  if (code == TFC_OK) *out = gpus[ordinal].props;
  pthread_mutex_unlock(&mu);
  return code;
}

static int fake_mem_info(int ordinal, int64_t *free_bytes, int64_t *total_bytes, tfc_status *s) {
  pthread_mutex_lock(&mu);
  int code = ordinal < 0 || ordinal >= n_gpus ? bad_ordinal(ordinal, n_gpus, s) : TFC_OK;
  if (code == TFC_OK) {
    const fake_gpu *g = &gpus[ordinal];
    *free_bytes = g->free_at_start > g->allocated ? g->free_at_start - g->allocated : 0;
    *total_bytes = g->props.total_memory;
  }
  pthread_mutex_unlock(&mu);
  return code;
}

static int fake_mem_alloc(int ordinal, size_t bytes, void **out, tfc_status *s) {
  *out = NULL;
  pthread_mutex_lock(&mu);
  int code = TFC_OK;
  if (ordinal < 0 || ordinal >= n_gpus) {
    code = bad_ordinal(ordinal, n_gpus, s);
  } else if (fail_above >= 0 && bytes > (uint64_t)fail_above) {
    code = tfc_status_set(s, TFC_RESOURCE_EXHAUSTED,
                          "fake GPU %d: allocating %zu bytes fails (the test limit is %lld bytes)", ordinal, bytes,
                          (long long)fail_above);
  } else if ((int64_t)bytes > gpus[ordinal].free_at_start - gpus[ordinal].allocated) {
    code = tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "fake GPU %d: out of memory allocating %zu bytes (%lld free)",
                          ordinal, bytes, (long long)(gpus[ordinal].free_at_start - gpus[ordinal].allocated));
  }
  if (code == TFC_OK) {
    void *block = NULL;
    if (bytes > SIZE_MAX - FAKE_ALIGN || posix_memalign(&block, FAKE_ALIGN, FAKE_ALIGN + bytes) != 0) {
      code = tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "fake GPU %d: the host has no %zu bytes to pose as device memory",
                            ordinal, bytes);
    } else {
      fake_header *h = block;
      h->bytes = bytes;
      h->ordinal = ordinal;
      gpus[ordinal].allocated += (int64_t)bytes;
      n_mem_allocs++;
      *out = (char *)block + FAKE_ALIGN;
    }
  }
  pthread_mutex_unlock(&mu);
  return code;
}

static void fake_mem_free(int ordinal, void *p) {
  (void)ordinal; /* the header knows; a mismatch would be the caller's bug */
  if (!p) return;
  fake_header *h = (fake_header *)((char *)p - FAKE_ALIGN);
  pthread_mutex_lock(&mu);
  if (h->ordinal >= 0 && h->ordinal < TFC_GPU_FAKE_MAX_DEVICES) gpus[h->ordinal].allocated -= (int64_t)h->bytes;
  pthread_mutex_unlock(&mu);
  free(h);
}

static int fake_host_alloc(size_t bytes, void **out, tfc_status *s) {
  *out = NULL;
  if (posix_memalign(out, FAKE_ALIGN, bytes ? bytes : 1) != 0) {
    *out = NULL;
    return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "fake GPU platform: no %zu bytes of host memory", bytes);
  }
  return TFC_OK;
}

static void fake_host_free(void *p) { free(p); }

static int64_t n_copies[4]; /* by TFC_GPU_COPY_* kind; guarded by mu */

static int fake_copy(int ordinal, int kind, void *dst, const void *src, size_t n, tfc_status *s) {
  pthread_mutex_lock(&mu);
  int n_now = n_gpus;
  if (ordinal >= 0 && ordinal < n_now) n_copies[kind]++;
  pthread_mutex_unlock(&mu);
  if (ordinal < 0 || ordinal >= n_now) return bad_ordinal(ordinal, n_now, s);
  if (n) memmove(dst, src, n);
  return TFC_OK;
}

static int fake_copy_to_device(int ordinal, void *dst, const void *src, size_t n, tfc_status *s) {
  return fake_copy(ordinal, TFC_GPU_COPY_H2D, dst, src, n, s);
}

static int fake_copy_to_host(int ordinal, void *dst, const void *src, size_t n, tfc_status *s) {
  return fake_copy(ordinal, TFC_GPU_COPY_D2H, dst, src, n, s);
}

/* Every fake GPU's memory is host memory, so each can read every other's. */
static int fake_enable_peer(int from, int to) {
  int n = fake_count();
  return from >= 0 && from < n && to >= 0 && to < n;
}

/* No streams or events: the device copies synchronously on a platform without them. */
static const tfc_gpu_platform fake_platform = {
    .name = "fake",
    .device_count = fake_count,
    .get_props = fake_props,
    .mem_info = fake_mem_info,
    .mem_alloc = fake_mem_alloc,
    .mem_free = fake_mem_free,
    .host_alloc = fake_host_alloc,
    .host_free = fake_host_free,
    .copy_to_device = fake_copy_to_device,
    .copy_to_host = fake_copy_to_host,
    .enable_peer = fake_enable_peer,
};

const tfc_gpu_platform *tfc_gpu_fake_platform(void) { return &fake_platform; }

int tfc_gpu_fake_configure(const tfc_gpu_fake_spec *specs, int n, tfc_status *s) {
  if (n < 0 || n > TFC_GPU_FAKE_MAX_DEVICES || (n > 0 && !specs))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "a fake GPU platform has 0 to %d GPUs, not %d",
                          TFC_GPU_FAKE_MAX_DEVICES, n);
  for (int i = 0; i < n; i++)
    if (specs[i].total_memory < 0 || specs[i].free_memory < 0 || specs[i].free_memory > specs[i].total_memory)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "fake GPU %d: memory sizes must be >= 0 with free <= total (total %lld, free %lld)", i,
                            (long long)specs[i].total_memory, (long long)specs[i].free_memory);
  pthread_mutex_lock(&mu);
  for (int i = 0; i < n_gpus; i++)
    if (gpus[i].allocated != 0) {
      int64_t held = gpus[i].allocated;
      pthread_mutex_unlock(&mu);
      return tfc_status_set(s, TFC_FAILED_PRECONDITION,
                            "fake GPU %d still has %lld bytes allocated; free them before reconfiguring", i,
                            (long long)held);
    }
  memset(gpus, 0, sizeof gpus);
  for (int i = 0; i < n; i++) {
    fake_gpu *g = &gpus[i];
    snprintf(g->props.name, sizeof g->props.name, "%s", specs[i].name ? specs[i].name : "Fake GPU");
    if (specs[i].pci_bus_id)
      snprintf(g->props.pci_bus_id, sizeof g->props.pci_bus_id, "%s", specs[i].pci_bus_id);
    else
      snprintf(g->props.pci_bus_id, sizeof g->props.pci_bus_id, "0000:00:%02x.0", i);
    g->props.cc_major = specs[i].cc_major;
    g->props.cc_minor = specs[i].cc_minor;
    g->props.total_memory = specs[i].total_memory;
    g->props.multiprocessors = 1;
    g->free_at_start = specs[i].free_memory ? specs[i].free_memory : specs[i].total_memory;
  }
  n_gpus = n;
  n_mem_allocs = 0;
  memset(n_copies, 0, sizeof n_copies);
  fail_above = -1;
  pthread_mutex_unlock(&mu);
  return TFC_OK;
}

void tfc_gpu_fake_fail_above(int64_t bytes) {
  pthread_mutex_lock(&mu);
  fail_above = bytes < 0 ? -1 : bytes;
  pthread_mutex_unlock(&mu);
}

int64_t tfc_gpu_fake_bytes_allocated(int ordinal) {
  pthread_mutex_lock(&mu);
  int64_t v = ordinal >= 0 && ordinal < n_gpus ? gpus[ordinal].allocated : 0;
  pthread_mutex_unlock(&mu);
  return v;
}

int64_t tfc_gpu_fake_n_mem_allocs(void) {
  pthread_mutex_lock(&mu);
  int64_t v = n_mem_allocs;
  pthread_mutex_unlock(&mu);
  return v;
}

int64_t tfc_gpu_fake_n_copies(int kind) {
  if (kind != TFC_GPU_COPY_H2D && kind != TFC_GPU_COPY_D2H) return 0;
  pthread_mutex_lock(&mu);
  int64_t v = n_copies[kind];
  pthread_mutex_unlock(&mu);
  return v;
}
