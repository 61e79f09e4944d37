/*
 * gpu_copy — copies of tensors between host memory and GPU device memory, and between GPUs.
 *
 * The transfer kernels use these when a tensor crosses between memories: a CPU _Recv (or any
 * _HostRecv) that receives a device tensor copies it to host memory; a GPU _Recv that receives
 * a host tensor, or another GPU's, copies it into its own device's memory. A device tensor is
 * recognised by its buffer's allocator (allocator.h's device_memory; gpu_device.h's
 * tfc_gpu_mem_of tells which GPU), so a tensor carries its location with it.
 *
 * On a platform with streams a copy is asynchronous: the copy stream first waits for the
 * source GPU's compute stream (the kernels producing the source, or the kernels that last
 * used the memory the arena just handed out for the destination, are queued there), the copy
 * is queued, and completion runs on the GPU's completion thread once it is done. The source
 * and destination stay referenced until then. Between GPUs the copy is direct when they share
 * a physical GPU or have peer access, else staged through host memory in two steps. On a
 * platform without streams (the fake one) every copy is synchronous with the platform's
 * copy_to_host / copy_to_device, and a device-to-device copy goes through a host buffer.
 *
 * Only numeric and bool tensors live in device memory: string, resource and variant tensors
 * and variables' ref tensors are host-memory arguments of every GPU kernel, and copying one
 * to a device is INVALID_ARGUMENT.
 *
 * Thread-safety: every function may be called from any thread.
 */
#ifndef TFC_DEVICE_GPU_GPU_COPY_H
#define TFC_DEVICE_GPU_GPU_COPY_H

#include "base/status.h"
#include "device/device.h"
#include "tensor/tensor.h"

/* Completion of a copy: s is its outcome; on success out is the copy (a reference the callee
 * takes), else NULL. Called exactly once, possibly before the copy function returns, from
 * the calling thread or a GPU's completion thread. */
typedef void (*tfc_gpu_copy_done)(void *arg, const tfc_status *s, tfc_tensor *out);

/* Whether t's bytes are device memory (the CPU must not touch them). */
int tfc_gpu_tensor_in_device_memory(const tfc_tensor *t);

/* Copies src (borrowed; referenced until done) into a new host tensor whose bytes count
 * against host_allocator (NULL: nobody's). A src already in host memory is handed back as is
 * (a new reference, no copy). Errors through done: RESOURCE_EXHAUSTED when host memory runs
 * out, the platform's errors. */
void tfc_gpu_copy_to_host(tfc_allocator *host_allocator, tfc_tensor *src, tfc_gpu_copy_done done, void *arg);

/* Copies src (borrowed; referenced until done), in host memory or on another GPU, into a new
 * tensor in gpu's device memory. A src already allocated by gpu is handed back as is (a new
 * reference). Errors through done: INVALID_ARGUMENT when gpu is not a GPU device or src's
 * dtype never lives in device memory; RESOURCE_EXHAUSTED with the allocator's "OOM when
 * allocating tensor ..." text; the platform's errors. gpu must outlive the copy. */
void tfc_gpu_copy_to_device(tfc_device *gpu, tfc_tensor *src, tfc_gpu_copy_done done, void *arg);

/* The same, done on the calling thread: waits for the GPUs' compute streams, then copies with
 * the platform's synchronous copies. Returns the copy (caller owns it), or NULL with s set.
 * Safe on any thread, a GPU's completion thread included; meant for rare copies (a Const's
 * value, once). */
tfc_tensor *tfc_gpu_copy_to_host_sync(tfc_allocator *host_allocator, tfc_tensor *src, tfc_status *s);
tfc_tensor *tfc_gpu_copy_to_device_sync(tfc_device *gpu, tfc_tensor *src, tfc_status *s);

#endif
