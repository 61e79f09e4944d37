/*
 * device — the device interface and the devices of one process.
 *
 * A device has a canonical TF name (/job:localhost/replica:0/task:0/device:CPU:0), a type
 * ("CPU", later "GPU"), an id within its type, a random incarnation, a memory size for
 * TF_DeviceListMemoryBytes, a kernel table shared by all devices of its type, its own
 * allocator (per-device memory accounting), its resources (variables), and an intra-op
 * thread pool with its share of the threads, and for physical devices a description (TF's
 * "Device mapping" line). Device-specific behaviour (memory, copies, streams) goes through
 * `ops` and the allocator, so a GPU device (device/gpu/gpu_device.h) plugs in beside the CPU
 * one without the executor knowing which it drives.
 *
 * Ownership: a device set owns its devices; devices borrow the pool they are given (it must
 * outlive them). Devices are immutable after creation and safe to share across threads.
 */
#ifndef TFC_DEVICE_DEVICE_H
#define TFC_DEVICE_DEVICE_H

#include <stdint.h>

#include "base/status.h"
#include "base/threadpool.h"
#include "device/kernel.h"
#include "state/resource_mgr.h"
#include "tensor/allocator.h"

/* What a session's config says about devices, for the factories (GPUOptions, TF's meanings;
 * the CPU factory ignores all of it). Everything is borrowed for the factory call. */
typedef struct tfc_device_options {
  /* 0: TF's default (the free memory less a reserve for the system); (0, 1]: that share of
   * each GPU's total memory; > 1 (unified memory) is refused. */
  double per_process_gpu_memory_fraction;
  int allow_growth;                /* arenas start small and double instead of taking it all */
  const char *visible_device_list; /* NULL or "": all GPUs in order; "1,0": those, in that order */
  /* GPUOptions.experimental.virtual_devices: when n_virtual_devices > 0, visible GPU i becomes
   * n_memory_limits[i] logical GPUs whose limits (MiB) are the next n_memory_limits[i] values
   * of memory_limit_mb (entry after entry); an entry with no limits is one logical GPU with
   * the default limit. */
  int n_virtual_devices;
  const int *n_memory_limits;
  const float *memory_limit_mb;
} tfc_device_options;

typedef struct tfc_device_ops {
  void (*free)(tfc_device *d);
} tfc_device_ops;

struct tfc_device {
  const tfc_device_ops *ops;
  char *name;      /* full canonical name */
  char type[16];   /* "CPU", "GPU" */
  int id;
  /* TF's device-type priority: GPU 210 > CPU 70; the placer orders by it, then by name. */
  int priority;
  uint64_t incarnation;
  int64_t memory_bytes;
  /* TF's physical device description for log_device_placement's "Device mapping", e.g.
   * "device: 0, name: NVIDIA H200, pci bus id: 0000:1b:00.0, compute capability: 9.0";
   * owned; NULL for devices without one (CPU). */
  char *physical_desc;
  const tfc_kernel_table *kernels; /* borrowed, process-wide */
  tfc_allocator *allocator;        /* owned reference: kernel outputs count against it */
  tfc_resource_mgr *resources;     /* owned: the device's variables, for the device's life */
  tfc_threadpool *pool;            /* borrowed intra-op pool */
  int intra_op_threads;
};

/* The CPU kernel table (built once, thread-safe). NULL with status on a registration error. */
const tfc_kernel_table *tfc_cpu_kernel_table(tfc_status *s);
/* A CPU device named /job:<job>/replica:<r>/task:<t>/device:CPU:<id>. */
tfc_device *tfc_cpu_device_new(const char *job, int replica, int task, int id,
                               tfc_threadpool *pool, int intra_op_threads, tfc_status *s);
/* The CPU factory (registry.h): appends `count` CPU devices CPU:0.. (count < 0: one; 0 still
 * makes CPU:0, which TF always keeps; more than 4096 is INVALID_ARGUMENT), splitting
 * intra_op_threads between them. o is ignored. On error the devices made so far stay in
 * *devices (the caller frees them). */
int tfc_cpu_devices_create(const tfc_device_options *o, const char *job, int replica, int task, int count,
                           tfc_threadpool *pool, int intra_op_threads, tfc_device ***devices, int *n_devices,
                           tfc_status *s);
void tfc_device_free(tfc_device *d);
/* A random 64-bit incarnation, never 0. */
uint64_t tfc_new_incarnation(void);

#endif
