/* registry — see registry.h. */
#include "device/registry.h"

#include <string.h>

#include "device/gpu/gpu_device.h"

static const tfc_device_factory factories[] = {
    {"GPU", 210, tfc_gpu_devices_create},
    {"CPU", 70, tfc_cpu_devices_create},
};

const tfc_device_factory *tfc_device_factories(int *n) {
  *n = (int)(sizeof factories / sizeof factories[0]);
  return factories;
}

const tfc_kernel_table *tfc_device_kernel_table(const char *type, tfc_status *s) {
  if (strcmp(type, "CPU") == 0) return tfc_cpu_kernel_table(s);
#ifdef TFC_HAVE_CUDA
  if (strcmp(type, "GPU") == 0) {
    const tfc_kernel_table *t = tfc_gpu_kernel_table();
    if (!t) TFC_OOM(s);
    return t;
  }
#endif
  return NULL;
}
