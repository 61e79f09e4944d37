/*
 * kernels_image — what the CPU image kernel files share (kernels_image*.c): the element
 * conversions every geometry kernel needs and the sub-family registrations that
 * tfc_cpu_kernels_image (kernels_image.c) calls.
 *
 * TF's image kernels read every input element as float (static_cast<float>), whatever T is,
 * and accumulate gradients in T; these helpers give the kernels that view.
 */
#ifndef TFC_DEVICE_CPU_KERNELS_IMAGE_H
#define TFC_DEVICE_CPU_KERNELS_IMAGE_H

#include "device/kernel.h"

/* A new float copy of t's n_elems elements (any real dtype, half and bfloat16 included),
 * freed by the caller with free(); NULL with RESOURCE_EXHAUSTED in c->status when out of
 * memory. An empty tensor gives a valid one-element buffer. */
float *tfc_image_floats(tfc_kernel_ctx *c, const tfc_tensor *t);
/* Writes v[0, t->n_elems) into t, converted to t's dtype (float, double, half, bfloat16, or an
 * integer type, truncated as a C cast). */
void tfc_image_store(tfc_tensor *t, const double *v);

/* Sub-families, registered by tfc_cpu_kernels_image. */
int tfc_cpu_kernels_image_resize(tfc_kernel_table *t, tfc_status *s); /* kernels_image_resize.c */
int tfc_cpu_kernels_image_crop(tfc_kernel_table *t, tfc_status *s);   /* kernels_image_crop.c */
int tfc_cpu_kernels_image_nms(tfc_kernel_table *t, tfc_status *s);    /* kernels_image_nms.c */
int tfc_cpu_kernels_image_scale(tfc_kernel_table *t, tfc_status *s);  /* kernels_image_scale.c */

#endif
