/*
 * gpu_fake — see gpu_fake.h.
 *
 * Each "device allocation" is a memfd mapped twice: once with no access at all, the address
 * handed out as the device pointer, and once readable and writable, the fake's own view. So
 * host code that touches device memory by mistake faults at once, as it would on a real GPU,
 * while the fake's copies reach the bytes through the second view (fake_view). mmap's page
 * alignment keeps the 256-byte alignment CUDA guarantees. The live allocations are a small
 * array (the arena asks for few, large regions), searched under the mutex.
 */
#include "device/gpu/gpu_fake.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* CUDA's cudaMalloc alignment (host blocks). */
#define FAKE_ALIGN 256

typedef struct fake_block {
  char *device; /* PROT_NONE: what the caller gets */
  char *view;   /* the same pages, read-write */
  size_t bytes, mapped;
  int ordinal;
} fake_block;

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
static fake_block *blocks; /* live allocations; guarded by mu */
static int n_blocks, cap_blocks;

/* The block holding [p, p + n), or NULL; called with mu held. */
static fake_block *find_block(const void *p, size_t n) {
  const char *c = p;
  for (int i = 0; i < n_blocks; i++)
    if (c >= blocks[i].device && c - blocks[i].device <= (ptrdiff_t)blocks[i].bytes &&
        n <= blocks[i].bytes - (size_t)(c - blocks[i].device))
      return &blocks[i];
  return NULL;
}

/* Maps one block of `bytes` (both views) and records it; called with mu held. */
static int map_block(int ordinal, size_t bytes, void **out, tfc_status *s) {
  long page = sysconf(_SC_PAGESIZE);
  size_t mapped = bytes ? (bytes + (size_t)page - 1) / (size_t)page * (size_t)page : (size_t)page;
  if (n_blocks == cap_blocks) {
    int cap = cap_blocks ? 2 * cap_blocks : 16;
    fake_block *b = realloc(blocks, sizeof *b * (size_t)cap);
    if (!b) return TFC_OOM(s);
    blocks = b;
    cap_blocks = cap;
  }
  int fd = memfd_create("tfc-fake-gpu", MFD_CLOEXEC);
  void *dev = MAP_FAILED, *view = MAP_FAILED;
  if (fd >= 0 && ftruncate(fd, (off_t)mapped) == 0) {
    dev = mmap(NULL, mapped, PROT_NONE, MAP_SHARED, fd, 0);
    view = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  }
  if (fd >= 0) close(fd);
  if (dev == MAP_FAILED || view == MAP_FAILED) {
    if (dev != MAP_FAILED) munmap(dev, mapped);
    if (view != MAP_FAILED) munmap(view, mapped);
    return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "fake GPU %d: the host has no %zu bytes to pose as device memory",
                          ordinal, bytes);
  }
  blocks[n_blocks++] = (fake_block){dev, view, bytes, mapped, ordinal};
  *out = dev;
  return TFC_OK;
}

/* The fake's read-write view of device bytes [p, p + n); NULL when they are not one fake
 * allocation. Called with mu held. */
static void *fake_view(const void *p, size_t n) {
  fake_block *b = find_block(p, n);
  return b ? b->view + ((const char *)p - b->device) : NULL;
}

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
  if (code == TFC_OK && (code = map_block(ordinal, bytes, out, s)) == TFC_OK) {
    gpus[ordinal].allocated += (int64_t)bytes;
    n_mem_allocs++;
  }
  pthread_mutex_unlock(&mu);
  return code;
}

static void fake_mem_free(int ordinal, void *p) {
  (void)ordinal; /* the block knows; a mismatch would be the caller's bug */
  if (!p) return;
  pthread_mutex_lock(&mu);
  fake_block *b = find_block(p, 0);
  fake_block gone = {0};
  if (b && b->device == p) {
    gone = *b;
    *b = blocks[--n_blocks];
    if (gone.ordinal >= 0 && gone.ordinal < TFC_GPU_FAKE_MAX_DEVICES) gpus[gone.ordinal].allocated -= (int64_t)gone.bytes;
  }
  pthread_mutex_unlock(&mu);
  if (gone.device) {
    munmap(gone.device, gone.mapped);
    munmap(gone.view, gone.mapped);
  }
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

/* Copies between host memory and device memory (kind says which side is which) through the
 * device side's view. Device bytes outside any fake allocation are INVALID_ARGUMENT, as
 * cudaMemcpy's invalid-value error. */
static int fake_copy(int ordinal, int kind, void *dst, const void *src, size_t n, tfc_status *s) {
  pthread_mutex_lock(&mu);
  int n_now = n_gpus, code = TFC_OK;
  if (ordinal < 0 || ordinal >= n_now) {
    code = bad_ordinal(ordinal, n_now, s);
  } else if (n) {
    void *dev = kind == TFC_GPU_COPY_H2D ? dst : (void *)src;
    void *view = fake_view(dev, n);
    if (!view)
      code = tfc_status_set(s, TFC_INVALID_ARGUMENT, "fake GPU %d: %zu bytes at %p are not device memory", ordinal, n,
                            dev);
    else if (kind == TFC_GPU_COPY_H2D)
      memmove(view, src, n);
    else
      memmove(dst, view, n);
  }
  if (code == TFC_OK) n_copies[kind]++;
  pthread_mutex_unlock(&mu);
  return code;
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

void *tfc_gpu_fake_host_view(const void *p, size_t n) {
  pthread_mutex_lock(&mu);
  void *v = fake_view(p, n);
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
