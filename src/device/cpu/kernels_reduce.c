/* kernels_reduce — CPU kernels of the reduce family. */
#include "device/cpu/cpu_kernels.h"

int tfc_cpu_kernels_reduce(tfc_kernel_table *t, tfc_status *s) {
  (void)t;
  (void)s;
  return TFC_OK;
}
