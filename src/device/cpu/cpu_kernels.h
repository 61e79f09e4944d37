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
int tfc_cpu_kernels_state(tfc_kernel_table *t, tfc_status *s);  /* kernels_state.c */
int tfc_cpu_kernels_scatter(tfc_kernel_table *t, tfc_status *s); /* kernels_scatter.c */
int tfc_cpu_kernels_nn(tfc_kernel_table *t, tfc_status *s);     /* kernels_nn*.c */
int tfc_cpu_kernels_conv(tfc_kernel_table *t, tfc_status *s);   /* kernels_conv*.c (oneDNN) */
int tfc_cpu_kernels_random(tfc_kernel_table *t, tfc_status *s); /* kernels_random.c */
/* The stateless random ops, registered by tfc_cpu_kernels_random (kernels_stateless_random.c). */
int tfc_cpu_kernels_stateless_random(tfc_kernel_table *t, tfc_status *s);
/* Fills out (out->n_elems values) with TF's Philox distribution `dist` (TFC_PHILOX_*) of
 * element type `elem`, starting at generator state *base (not advanced), over the context's
 * intra-op threads; the values do not depend on the thread count. lo/range: the uniform int
 * distribution's (0 for the others). Never fails. (kernels_random.c) */
struct tfc_philox;
void tfc_cpu_random_fill(tfc_kernel_ctx *c, const struct tfc_philox *base, int dist, int elem, tfc_tensor *out,
                         int64_t lo, uint64_t range);
int tfc_cpu_kernels_training(tfc_kernel_table *t, tfc_status *s); /* kernels_training.c */
int tfc_cpu_kernels_parse(tfc_kernel_table *t, tfc_status *s);  /* kernels_parse.c */
int tfc_cpu_kernels_data(tfc_kernel_table *t, tfc_status *s);   /* kernels_queue.c, kernels_reader.c */
int tfc_cpu_kernels_checkpoint(tfc_kernel_table *t, tfc_status *s); /* kernels_checkpoint.c */
int tfc_cpu_kernels_summary(tfc_kernel_table *t, tfc_status *s); /* kernels_summary.c */
int tfc_cpu_kernels_list(tfc_kernel_table *t, tfc_status *s);   /* kernels_list.c */
int tfc_cpu_kernels_script(tfc_kernel_table *t, tfc_status *s); /* kernels_script.c */
int tfc_cpu_kernels_math_tail(tfc_kernel_table *t, tfc_status *s); /* kernels_math_tail.c */
int tfc_cpu_kernels_linalg(tfc_kernel_table *t, tfc_status *s); /* kernels_linalg.c */
int tfc_cpu_kernels_string(tfc_kernel_table *t, tfc_status *s); /* kernels_string.c */
int tfc_cpu_kernels_regex(tfc_kernel_table *t, tfc_status *s);  /* kernels_regex.c */
int tfc_cpu_kernels_lookup(tfc_kernel_table *t, tfc_status *s); /* kernels_lookup.c */
int tfc_cpu_kernels_string_ops(tfc_kernel_table *t, tfc_status *s); /* kernels_string_ops.c */
int tfc_cpu_kernels_array_tail(tfc_kernel_table *t, tfc_status *s); /* kernels_array_tail.c */
int tfc_cpu_kernels_image(tfc_kernel_table *t, tfc_status *s); /* kernels_image.c */
int tfc_cpu_kernels_codec(tfc_kernel_table *t, tfc_status *s); /* kernels_codec*.c (libjpeg, libpng) */
int tfc_cpu_kernels_fft(tfc_kernel_table *t, tfc_status *s);    /* kernels_fft.c (FFTW) */
int tfc_cpu_kernels_accumulator(tfc_kernel_table *t, tfc_status *s); /* kernels_accumulator.c */
/* half and bfloat16 rows over the float kernels of the other families; registered last
 * (kernels_half.c). */
int tfc_cpu_kernels_half(tfc_kernel_table *t, tfc_status *s);
/* Stacks and TensorArrays (kernels_tensor_array.c). */
int tfc_cpu_kernels_tensor_array(tfc_kernel_table *t, tfc_status *s);
/* The activations half of the nn family, registered by tfc_cpu_kernels_nn (kernels_nn_act.c). */
int tfc_cpu_kernels_nn_act(tfc_kernel_table *t, tfc_status *s);
/* FusedBatchNorm* and their gradients, registered by tfc_cpu_kernels_nn (kernels_batch_norm.c). */
int tfc_cpu_kernels_batch_norm(tfc_kernel_table *t, tfc_status *s);
/* DepthwiseConv2dNative and its backprops, registered by tfc_cpu_kernels_conv (kernels_depthwise.c). */
int tfc_cpu_kernels_depthwise(tfc_kernel_table *t, tfc_status *s);
/* Einsum (kernels_einsum.c), ClipByValue (kernels_clip.c) and the space <-> batch
 * rearrangements (kernels_space_batch.c), registered by tfc_cpu_kernels_nn. */
int tfc_cpu_kernels_einsum(tfc_kernel_table *t, tfc_status *s);
int tfc_cpu_kernels_clip(tfc_kernel_table *t, tfc_status *s);
int tfc_cpu_kernels_space_batch(tfc_kernel_table *t, tfc_status *s);
/* y[i] = exp(x[i]) for float, vectorizable, within 1e-6 relative (kernels_nn_act.c; softmax
 * and the sigmoid family use it). */
void tfc_nn_exp_f32(const float *x, float *y, int64_t n);

/* C = op(A) op(B) for float, double, complex64 or complex128 (row-major, leading dims as
 * cblas; ta/tb: 0 as is, 1 transposed, 2 conjugate-transposed (complex only)), spread over the
 * device's share of the intra-op threads: the larger of m and n is cut into blocks, one
 * single-threaded OpenBLAS GEMM each. OpenBLAS's own threads are off (tfc_cpu_blas_init):
 * every CPU device then uses exactly its share of the cores, however many run at once. */
void tfc_cpu_gemm(tfc_kernel_ctx *c, int dtype, int ta, int tb, int64_t m, int64_t n, int64_t k,
                  const void *a, int64_t lda, const void *b, int64_t ldb, void *out, int64_t ldc);
/* Turns OpenBLAS's own threading off, once per process (kernels_matmul.c). */
void tfc_cpu_blas_init(void);

#endif
