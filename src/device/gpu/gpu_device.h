/*
 * gpu_device — the GPU device: TF's GPUDevice behind tfc's device interface.
 *
 * The GPU factory turns the platform's GPUs (gpu_platform.h) into TF's logical GPU devices:
 * visible_device_list picks and orders the physical GPUs, device_count {"GPU": n} keeps the
 * first n of them, and GPUOptions.experimental.virtual_devices splits each into several
 * logical GPUs with memory limits of their own, numbered consecutively (/device:GPU:0, 1, ...
 * over the first physical GPU's logical devices, then the next one's). Without virtual
 * devices each physical GPU is one logical GPU whose limit is per_process_gpu_memory_fraction
 * of its total memory, or by default its free memory less TF's reserve for the system.
 *
 * Memory is lazy: each logical GPU's allocator draws from its own best-fit arena (bfc.h,
 * "GPU_<id>_bfc") that is created, and takes its first region from the platform, only when
 * the first tensor is allocated. Listing devices or creating a session takes no GPU memory.
 * Two logical GPUs on one physical GPU share nothing but the platform.
 *
 * Kernels: the GPU kernel table (tfc_gpu_kernel_table) is empty for now, so the placer puts
 * every op on the CPU (soft placement moves "/device:GPU:0" requests there), and a session
 * with GPUs runs exactly as without them.
 *
 * On a machine without a GPU (the platform reports none) the factory adds no device and
 * ignores the GPU options, as a CPU-only TF build does.
 *
 * Ownership and threads: as every device (device.h). The platform is borrowed and must
 * outlive the devices and every tensor allocated on them.
 */
#ifndef TFC_DEVICE_GPU_GPU_DEVICE_H
#define TFC_DEVICE_GPU_GPU_DEVICE_H

#include "device/device.h"
#include "device/gpu/bfc.h"

/* The GPU factory (registry.h's create; see there for ownership). count: device_count["GPU"]
 * or -1 (all). Errors, TF 1.15's texts:
 *  - INVALID_ARGUMENT "Could not parse entry in 'visible_device_list': 'x'. visible_device_list = x",
 *    "'visible_device_list' listed an invalid GPU id '5' but visible device count is 1",
 *    "visible_device_list contained a duplicate entry: 0,0";
 *  - UNKNOWN "Not enough GPUs to create virtual devices. num_gpus_to_use: 1 #virtual_devices: 2",
 *    INVALID_ARGUMENT "The number of GPUs in visible_device_list doesn't match the number of
 *    elements in the virtual_devices list. #GPUs in visible_device_list: 1
 *    virtual_devices.size(): 2", UNKNOWN "The number of valid GPUs doesn't match the number of
 *    elements in the virtual_devices list. #valid GPUs: 2 virtual_devices.size(): 1";
 *  - UNIMPLEMENTED for per_process_gpu_memory_fraction > 1 (TF's unified memory) and
 *    INVALID_ARGUMENT for a negative one, when a GPU takes the default limit; INVALID_ARGUMENT
 *    for a negative memory_limit_mb;
 *  - the platform's errors while reading device properties.
 * Thread-safe (the platform is read once per call). */
int tfc_gpu_devices_create(const tfc_device_options *o, const char *job, int replica, int task, int count,
                           tfc_threadpool *pool, int intra_op_threads, tfc_device ***devices, int *n_devices,
                           tfc_status *s);

/* The GPU kernel table (process-wide, constant; empty until GPU kernels exist). */
const tfc_kernel_table *tfc_gpu_kernel_table(void);

/* The platform's ordinal of a GPU device's physical GPU; -1 when d is not a GPU device. */
int tfc_gpu_device_platform_id(const tfc_device *d);
/* The statistics of a GPU device's arena. Returns 0 and *out, or -1 (out zeroed) when d is not
 * a GPU device or its arena does not exist yet (nothing was ever allocated on it). Thread-safe. */
int tfc_gpu_device_arena_stats(const tfc_device *d, tfc_bfc_stats *out);

/* The compute stream of a GPU device, created on first use: GPU kernels enqueue their work on
 * it, so work on one device runs in the order the executor issued it and a buffer freed by one
 * kernel may be reused by the next. NULL with s OK on a platform without streams (the fake
 * one: its "kernels" run synchronously); NULL with s set when creating it failed. */
void *tfc_gpu_device_compute_stream(tfc_device *d, tfc_status *s);

#endif
