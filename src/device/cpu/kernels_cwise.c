/* kernels_cwise — CPU kernels of the cwise family. */
#include "device/cpu/cpu_kernels.h"

int tfc_cpu_kernels_cwise(tfc_kernel_table *t, tfc_status *s) {
  (void)t;
  (void)s;
  return TFC_OK;
}
