/*
 * cpu_kernels — the CPU kernel families. Each family file registers its rows into the CPU
 * kernel table with one function, called once by cpu_device.c at first use.
 */
#ifndef TFC_DEVICE_CPU_KERNELS_H
#define TFC_DEVICE_CPU_KERNELS_H

#include "device/kernel.h"

int tfc_cpu_kernels_core(tfc_kernel_table *t, tfc_status *s);   /* kernels_core.c */
int tfc_cpu_kernels_matmul(tfc_kernel_table *t, tfc_status *s); /* kernels_matmul.c */
int tfc_cpu_kernels_cwise(tfc_kernel_table *t, tfc_status *s);  /* kernels_cwise*.c */
int tfc_cpu_kernels_reduce(tfc_kernel_table *t, tfc_status *s); /* kernels_reduce.c */
int tfc_cpu_kernels_array(tfc_kernel_table *t, tfc_status *s);  /* kernels_array*.c */
int tfc_cpu_kernels_sendrecv(tfc_kernel_table *t, tfc_status *s); /* kernels_sendrecv.c */

#endif
