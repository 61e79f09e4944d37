/*
 * gpu_fake — a GPU platform for tests, with host memory posing as device memory.
 *
 * Tests describe up to TFC_GPU_FAKE_MAX_DEVICES GPUs (name, PCI bus id, compute capability,
 * total and free memory), install the platform with tfc_gpu_platform_set_for_testing
 * (gpu_platform.h), and then observe what the GPU device asks of it: how many bytes of
 * "device memory" each GPU has handed out now, how many mem_alloc calls were made and how
 * many copies went each way. The memory is real host memory, but the address handed out for it
 * cannot be read or written by host code (the fake keeps a second, private mapping of the same
 * pages): copies through copy_to_device / copy_to_host work, and host code that touches device
 * memory faults, as on a real GPU. Tests reach the bytes with tfc_gpu_fake_host_view. What is
 * not given back shows in tfc_gpu_fake_bytes_allocated. Failure injection: every mem_alloc above a byte
 * count fails with RESOURCE_EXHAUSTED, as a device that is out of memory does; so does one
 * that would exceed the GPU's free memory.
 *
 * Compiled into the library (it is small and has no dependencies) so that every test and
 * example can use it; nothing installs it unless asked.
 *
 * Thread-safety: every function is thread-safe (one mutex). Configuring devices while a
 * session uses them is a test bug (their memory is reset).
 */
#ifndef TFC_DEVICE_GPU_GPU_FAKE_H
#define TFC_DEVICE_GPU_GPU_FAKE_H

#include <stddef.h>
#include <stdint.h>

#include "base/status.h"
#include "device/gpu/gpu_platform.h"

#define TFC_GPU_FAKE_MAX_DEVICES 16

typedef struct tfc_gpu_fake_spec {
  const char *name;       /* NULL: "Fake GPU" */
  const char *pci_bus_id; /* NULL: "0000:00:0<i>.0" */
  int cc_major, cc_minor;
  int64_t total_memory;
  int64_t free_memory; /* at start, before anything is allocated; 0: the total */
} tfc_gpu_fake_spec;

/* The fake platform (a constant table; always the same pointer). */
const tfc_gpu_platform *tfc_gpu_fake_platform(void);
/* Replaces the fake GPUs with specs[0..n) (copied), clears the counters and the failure
 * switch. INVALID_ARGUMENT for n outside [0, TFC_GPU_FAKE_MAX_DEVICES], a negative memory
 * size or free memory above the total; FAILED_PRECONDITION while fake device memory is still
 * allocated. */
int tfc_gpu_fake_configure(const tfc_gpu_fake_spec *specs, int n, tfc_status *s);
/* mem_alloc of more than `bytes` fails from now on (RESOURCE_EXHAUSTED); bytes < 0: never. */
void tfc_gpu_fake_fail_above(int64_t bytes);
/* Bytes of device memory GPU `ordinal` has handed out and not taken back (0 for a bad
 * ordinal). */
int64_t tfc_gpu_fake_bytes_allocated(int ordinal);
/* Successful mem_alloc calls since the last configure, all GPUs together. */
int64_t tfc_gpu_fake_n_mem_allocs(void);
/* Host code's read-write view of the fake device bytes [p, p + n) (for tests that plant or
 * inspect device data), or NULL when they are not inside one live fake allocation. Valid
 * until that allocation is freed. */
void *tfc_gpu_fake_host_view(const void *p, size_t n);
/* Successful copy_to_device (kind TFC_GPU_COPY_H2D) or copy_to_host (TFC_GPU_COPY_D2H) calls
 * since the last configure, all GPUs together; 0 for other kinds. */
int64_t tfc_gpu_fake_n_copies(int kind);

#endif
