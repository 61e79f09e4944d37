/*
 * registry — the device types this build can create, as factories, in TF's priority order.
 *
 * A session asks every factory for its devices at once: how many comes from
 * ConfigProto.device_count for that type, else the factory's default (CPU: 1; GPU: every
 * GPU the platform shows, after visible_device_list and virtual devices). A factory with no
 * hardware behind it (the GPU one on a machine without a GPU) simply adds nothing. Nothing
 * else in the runtime names a device type. Priorities are TF's (GPU 210, CPU 70): the placer
 * prefers higher ones.
 *
 * Thread-safety: the table is constant.
 */
#ifndef TFC_DEVICE_REGISTRY_H
#define TFC_DEVICE_REGISTRY_H

#include "device/device.h"

typedef struct tfc_device_factory {
  const char *type;
  int priority;
  /* Appends this type's devices for task /job:<job>/replica:<replica>/task:<task> to
   * *devices / *n_devices (realloc'ed; the caller owns the array and the devices, also those
   * appended before an error). count: ConfigProto.device_count for the type, -1 when not
   * given. Devices borrow `pool` and use intra_op_threads for their parallel-for width.
   * Returns 0, or an error code with s set (TF's texts for bad GPU options). */
  int (*create)(const tfc_device_options *o, const char *job, int replica, int task, int count, tfc_threadpool *pool,
                int intra_op_threads, tfc_device ***devices, int *n_devices, tfc_status *s);
} tfc_device_factory;

/* The factories, highest priority first; *n receives their number. */
const tfc_device_factory *tfc_device_factories(int *n);

/* The compiled kernel table of a device type this build runs kernels for ("CPU"; "GPU" in a
 * CUDA build), for questions about kernels without a device (TF_AttrBuilderCheckCanRunOnDevice,
 * TF_GetAllRegisteredKernels). NULL for another type (s untouched) or when the table cannot be
 * built (s set). Kernels of user ops are not in these tables: device/user_kernel.h. */
const tfc_kernel_table *tfc_device_kernel_table(const char *type, tfc_status *s);

#endif
