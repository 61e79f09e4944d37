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
 * Kernels: the GPU kernel table (tfc_gpu_kernel_table) holds the platform-independent kernels
 * of kernels_gpu_core.c (transfers, Const, Identity, NoOp, Placeholder), on the CUDA platform
 * the CUDA kernels (src/device/cuda/), and on every platform the host-memory rows of
 * kernels_gpu_host.c (TF's all-HostMemory GPU kernels: int32 shape math runs the CPU kernels
 * on GPU:0). An op with a GPU kernel is placed on GPU:0 by default (TF's device priority); the
 * rest stay on the CPU.
 *
 * Streams: each logical GPU has, created on first use, a compute stream (its kernels' work, in
 * issue order) and host-to-device, device-to-host and device-to-device copy streams, plus a
 * completion thread: the platform's stream callbacks may not call the platform, so they only
 * queue, and that thread runs what was queued (tfc_gpu_mem_then). A platform without streams
 * (the fake one) has none of these, and copies run synchronously (gpu_copy.h). The streams
 * are synchronized and destroyed with the device; copies of its tensors made later (a fetched
 * tensor outliving its session) run synchronously.
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
#include "device/gpu/gpu_platform.h"

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

/* The GPU kernel table for the platform in use (process-wide, built once per platform kind,
 * constant after). NULL only when building it ran out of memory (the factory reports it).
 * Thread-safe. */
const tfc_kernel_table *tfc_gpu_kernel_table(void);
/* Appends the platform-independent GPU kernels (kernels_gpu_core.c) to t. 0 or
 * RESOURCE_EXHAUSTED. Not thread-safe against other users of t. */
int tfc_gpu_kernels_core(tfc_kernel_table *t, tfc_status *s);
/* Appends the rows TF registers for GPUs with every argument in host memory (int32 shape
 * math: Add, Sum, Pack, StridedSlice, Shape, ...; Range, BroadcastGradientArgs, ConcatOffset,
 * Assert for their dtypes; kernels_gpu_host.c): copies of the CPU kernel table's rows, narrowed
 * to TF's dtypes, that run the CPU kernels on host memory. Call it last: a row that could match
 * the same node as one already in t is narrowed or left out. 0, RESOURCE_EXHAUSTED, the CPU
 * table's error, or INTERNAL for a CPU row it cannot narrow. Not thread-safe against other
 * users of t. */
int tfc_gpu_kernels_host(tfc_kernel_table *t, tfc_status *s);
/* Whether rows a and b could both match one node: same op, and for every attr either
 * constrains, some dtype both allow. Pure. */
int tfc_gpu_kernel_rows_overlap(const tfc_kernel_def *a, const tfc_kernel_def *b);
/* Appends the GPU rows of the transfer kernels (_Send, _Recv and their host-memory forms;
 * src/device/cpu/kernels_sendrecv.c, shared with the CPU). Same contract. */
int tfc_gpu_kernels_sendrecv(tfc_kernel_table *t, tfc_status *s);

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

/*
 * The memory and streams of one logical GPU, for copies (gpu_copy.c) and GPU kernels. It is
 * the context of the GPU's allocator, so a device tensor finds it through its buffer's
 * allocator (tfc_gpu_mem_of), and it lives as long as that allocator: after the device.
 * Every function is thread-safe. The stream handles are valid until the device is freed;
 * work must not be queued on them concurrently with freeing the device (sessions free their
 * devices after their last step).
 */
typedef struct tfc_gpu_mem tfc_gpu_mem;

typedef struct tfc_gpu_streams {
  void *compute, *h2d, *d2h, *d2d; /* platform stream handles; all NULL: none */
} tfc_gpu_streams;

/* The GPU memory behind allocator a, or NULL when a is not a GPU allocator (a CPU's, NULL). */
tfc_gpu_mem *tfc_gpu_mem_of(const tfc_allocator *a);
/* The GPU memory of a GPU device, or NULL when d is not one. Borrowed: valid while d lives. */
tfc_gpu_mem *tfc_gpu_device_mem(const tfc_device *d);
const tfc_gpu_platform *tfc_gpu_mem_platform(const tfc_gpu_mem *m);
/* The platform ordinal of m's physical GPU. */
int tfc_gpu_mem_ordinal(const tfc_gpu_mem *m);
/* The streams, created on first use. All NULL with s OK on a platform without streams or
 * once the device is gone; an error (all NULL) when creating them failed. Returns s->code. */
int tfc_gpu_mem_streams(tfc_gpu_mem *m, tfc_gpu_streams *out, tfc_status *s);
/* Makes `stream` (of platform ordinal stream_ordinal) wait for the work queued so far on m's
 * compute stream: a copy reading a kernel's output, or writing memory the arena may have
 * handed back from a kernel still queued, is ordered after it. No-op without streams. */
int tfc_gpu_mem_wait_compute(tfc_gpu_mem *m, int stream_ordinal, void *stream, tfc_status *s);
/* Runs fn(arg) on m's completion thread once the work queued so far on `stream` (one of m's
 * streams) is done; fn may call the platform. FAILED_PRECONDITION without streams; on any
 * error fn is not called. */
int tfc_gpu_mem_then(tfc_gpu_mem *m, void *stream, void (*fn)(void *arg), void *arg, tfc_status *s);

#endif
