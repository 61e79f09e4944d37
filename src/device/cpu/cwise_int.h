/*
 * cwise_int — what the math-family CPU kernel files share: short element type names for the
 * macros that instantiate one loop per (op, dtype), the numpy broadcast plan, and the
 * registration hooks that kernels_cwise.c calls for its sibling files.
 *
 * Internal to src/device/cpu/kernels_{cwise*,reduce,batch_matmul,complex}.c.
 */
#ifndef TFC_DEVICE_CPU_CWISE_INT_H
#define TFC_DEVICE_CPU_CWISE_INT_H

#include <stdint.h>

#include "device/cpu/cpu_kernels.h"

#if defined(__GNUC__) && !defined(__clang__)
/* The element-wise and reduction loops below are written to vectorize, but GCC's -O2 only
 * vectorizes loops whose trip count it knows ("very cheap" cost model). The files that
 * include this header are the math kernels, so they opt into -O3's loop optimizations.
 * (clang vectorizes at -O2 already.) */
#pragma GCC optimize("O3")
#endif

/* Element types by short name, so macros can paste them into function names. `w_<T>` is the
 * unsigned type integer arithmetic runs in: TF's integer ops wrap on overflow, and signed
 * overflow is undefined in C, so sums and products go through unsigned arithmetic. */
typedef float f32;
typedef double f64;
typedef int32_t i32;
typedef int64_t i64;
typedef uint8_t u8;
typedef int8_t i8;
typedef int16_t i16;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef uint8_t bl; /* DT_BOOL: one byte, 0 or 1 */
/* complex64 / complex128: C's complex types have std::complex's layout (real, then imag). */
typedef float _Complex c64;
typedef double _Complex c128;
typedef float w_f32;
typedef double w_f64;
typedef uint32_t w_i32;
typedef uint64_t w_i64;
typedef uint32_t w_u8;
typedef uint32_t w_i8;
typedef uint32_t w_i16;
typedef uint32_t w_u16;
typedef uint32_t w_u32;
typedef uint64_t w_u64;
typedef c64 w_c64;
typedef c128 w_c128;

/*
 * A broadcast plan for up to three inputs (numpy rules, aligned at the last dimension).
 * Output dims of size 1 are dropped and neighbouring dims where the same inputs broadcast
 * are merged, so a scalar or same-shape operand becomes rank 1 and a bias row rank 2. Each
 * input gets element strides over the collapsed dims, 0 where it is broadcast.
 */
typedef struct tfc_cwise_bcast {
  int n_in;
  int out_ndims;
  int64_t out_dims[TFC_MAX_DIMS];
  int64_t n_out;
  int rank; /* collapsed; >= 1 */
  int64_t dims[TFC_MAX_DIMS];
  int64_t strides[3][TFC_MAX_DIMS];
} tfc_cwise_bcast;

/* Builds the plan over dims arrays. Returns 0, or -1 if the shapes do not broadcast. */
int tfc_cwise_bcast_dims(tfc_cwise_bcast *b, int n_in, const int64_t *const *dims, const int *ndims);
/* The same over tensors. */
int tfc_cwise_bcast_init(tfc_cwise_bcast *b, int n_in, const tfc_tensor *const *ins);
/* Offsets (in elements) of collapsed row `row` (index over dims[0..rank-1)) for each input. */
void tfc_cwise_bcast_row(const tfc_cwise_bcast *b, int64_t row, int64_t *offs);

/* Sibling registration, called from tfc_cpu_kernels_cwise / tfc_cpu_kernels_reduce. */
int tfc_cpu_kernels_cwise_unary(tfc_kernel_table *t, tfc_status *s);   /* kernels_cwise_unary.c */
int tfc_cpu_kernels_cwise_misc(tfc_kernel_table *t, tfc_status *s);    /* kernels_cwise_misc.c */
int tfc_cpu_kernels_batch_matmul(tfc_kernel_table *t, tfc_status *s);  /* kernels_batch_matmul.c */
/* The real Cast kernel's compute (kernels_cwise_misc.c), which the complex casts finish with. */
int tfc_cpu_cast_compute(tfc_kernel_ctx *c);
int tfc_cpu_kernels_complex(tfc_kernel_table *t, tfc_status *s);       /* kernels_complex.c */

#endif
