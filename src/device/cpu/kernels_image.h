/*
 * kernels_image — what the CPU image kernel files share (kernels_image*.c): the element
 * conversions every geometry kernel needs and the sub-family registrations that
 * tfc_cpu_kernels_image (kernels_image.c) calls.
 *
 * TF's image kernels read every input element as float (static_cast<float>), whatever T is,
 * and accumulate gradients in T (the bilinear and bicubic ones in float for every T but
 * double); these helpers give the kernels that view, and the index clamp the resize and
 * ScaleAndTranslate samplers share.
 *
 * Half and bfloat16 are ordinary rows of these kernels (not widened by kernels_half.c, which
 * runs a float kernel and rounds its outputs): the forward resizes read any T as float and most
 * write float, ResizeNearestNeighbor copies T's bits, and the gradients that TF sums in T
 * (ResizeNearestNeighborGrad, CropAndResizeGradImage) round every partial sum to 16 bits through
 * tfc_image_accumulate, which a float kernel rounded once at the end would not.
 */
#ifndef TFC_DEVICE_CPU_KERNELS_IMAGE_H
#define TFC_DEVICE_CPU_KERNELS_IMAGE_H

#include "device/kernel.h"

/* A new float copy of t's n_elems elements (any real dtype, half and bfloat16 included),
 * freed by the caller with free(); NULL with RESOURCE_EXHAUSTED in c->status when out of
 * memory. An empty tensor gives a valid one-element buffer. */
float *tfc_image_floats(tfc_kernel_ctx *c, const tfc_tensor *t);
/* Element i of t (any real dtype, half and bfloat16 included) as a double, exact for every
 * dtype but int64 beyond 2^53. */
double tfc_image_value(const tfc_tensor *t, int64_t i);
/* Writes v[0, t->n_elems) into t, converted to t's dtype (float, double, half, bfloat16, or an
 * integer type, truncated as a C cast; values must lie in the integer type's range). */
void tfc_image_store(tfc_tensor *t, const double *v);
/* acc + v as TF's kernels add into a tensor of `dtype`: a float sum rounded to float (v rounded
 * first), double in double, half and bfloat16 with v and the sum each rounded to 16 bits (Eigen's
 * half and bfloat16 +=), the integer types (v an integer) with the sum wrapped to the type's
 * width. acc holds a value of dtype; so does the result. Pure. */
double tfc_image_accumulate(int dtype, double acc, double v);
/* v as an index into [0, n): NaN and values at or below 0 give 0, values at or above n - 1 give
 * n - 1, the rest truncate; v may be far outside int64's range. n >= 1. Pure. */
int64_t tfc_image_clamp_index(double v, int64_t n);

/* Sub-families, registered by tfc_cpu_kernels_image. */
int tfc_cpu_kernels_image_resize(tfc_kernel_table *t, tfc_status *s); /* kernels_image_resize.c */
int tfc_cpu_kernels_image_crop(tfc_kernel_table *t, tfc_status *s);   /* kernels_image_crop.c */
int tfc_cpu_kernels_image_nms(tfc_kernel_table *t, tfc_status *s);    /* kernels_image_nms.c */
int tfc_cpu_kernels_image_scale(tfc_kernel_table *t, tfc_status *s);  /* kernels_image_scale.c */

#endif
