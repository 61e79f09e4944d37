/*
 * array_kernels — how the array family's CPU kernels are split over files. kernels_array.c
 * registers them all (tfc_cpu_kernels_array) and calls the registration functions below.
 */
#ifndef TFC_DEVICE_CPU_ARRAY_KERNELS_H
#define TFC_DEVICE_CPU_ARRAY_KERNELS_H

#include "device/kernel.h"

/* kernels_array_slice.c: Transpose, Slice, StridedSlice, Tile, BroadcastTo. */
int tfc_cpu_kernels_array_slice(tfc_kernel_table *t, tfc_status *s);
/* kernels_array_join.c: ConcatV2, Concat, Split, SplitV, Pack, Unpack, GatherV2, Gather. */
int tfc_cpu_kernels_array_join(tfc_kernel_table *t, tfc_status *s);
/* kernels_array_extra.c: Pad, PadV2, MirrorPad, UnsortedSegmentSum, InvertPermutation,
 * StridedSliceGrad, ConcatOffset, OneHot; it also registers kernels_scan.c and
 * kernels_stitch.c. */
int tfc_cpu_kernels_array_extra(tfc_kernel_table *t, tfc_status *s);
/* kernels_array_reverse.c: ReverseV2, ReverseSequence. */
int tfc_cpu_kernels_array_reverse(tfc_kernel_table *t, tfc_status *s);
/* kernels_scan.c: Cumsum, Cumprod. */
int tfc_cpu_kernels_scan(tfc_kernel_table *t, tfc_status *s);
/* kernels_stitch.c: DynamicStitch, ParallelDynamicStitch, DynamicPartition. */
int tfc_cpu_kernels_stitch(tfc_kernel_table *t, tfc_status *s);

#endif
