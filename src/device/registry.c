/* registry — see registry.h. */
#include "device/registry.h"

#include "device/gpu/gpu_device.h"

static const tfc_device_factory factories[] = {
    {"GPU", 210, tfc_gpu_devices_create},
    {"CPU", 70, tfc_cpu_devices_create},
};

const tfc_device_factory *tfc_device_factories(int *n) {
  *n = (int)(sizeof factories / sizeof factories[0]);
  return factories;
}
