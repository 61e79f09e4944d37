/*
 * registry — the device types this build can create, as factories, in TF's priority order.
 *
 * A session asks every factory for its devices: how many comes from ConfigProto.device_count
 * for that type, else the factory's default (CPU: 1; a GPU factory: the GPUs present). The
 * CUDA device registers its factory here (issue #7); nothing else in the runtime names a
 * device type. Priorities are TF's (GPU 210, CPU 70): the placer prefers higher ones.
 *
 * Thread-safety: the table is constant.
 */
#ifndef TFC_DEVICE_REGISTRY_H
#define TFC_DEVICE_REGISTRY_H

#include "device/device.h"

typedef struct tfc_device_factory {
  const char *type;
  int priority;
  /* How many devices of this type exist when device_count does not say (may be 0). */
  int (*default_count)(void);
  /* Device `id` of this type in task /job:<job>/replica:<replica>/task:<task>, with `pool`
   * (borrowed) and a parallel-for width of intra_op_threads. NULL with status on error. */
  tfc_device *(*create)(const char *job, int replica, int task, int id, tfc_threadpool *pool,
                        int intra_op_threads, tfc_status *s);
} tfc_device_factory;

/* The factories, highest priority first; *n receives their number. */
const tfc_device_factory *tfc_device_factories(int *n);

#endif
