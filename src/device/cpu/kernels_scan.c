/*
 * kernels_scan — CPU kernels of the scans Cumsum and Cumprod: out[..., i, ...] is the sum
 * (product) of x along `axis` up to and including i, or excluding i (exclusive), counted
 * from the end (reverse). The tensor is viewed as [outer, n, inner] around the axis; each
 * (outer, inner) line is one sequential scan, and the outer rows are spread over the intra-op
 * pool. Types: float, double, int32, int64 (integer overflow wraps, as TF's does on CPU).
 * Registered through tfc_cpu_kernels_array_extra. The checks (TF 1.15's ScanOp texts) are
 * shared with the GPU kernel (tfc_scan_plan_of, device/array_plan.h).
 */
#include <stdint.h>
#include <string.h>

#include "device/array_plan.h"
#include "device/cpu/array_copy.h"
#include "device/cpu/array_kernels.h"

typedef struct scan_job {
  const void *x;
  void *y;
  int64_t n, inner;
  int prod, exclusive, reverse;
} scan_job;

/* Integer accumulation goes through the unsigned type so overflow wraps instead of being
 * undefined. */
#define SCAN(T, ACC)                                                                               \
  static void scan_##T(int64_t b, int64_t e, void *arg) {                                          \
    const scan_job *j = arg;                                                                       \
    const T *x = j->x;                                                                             \
    T *y = j->y;                                                                                   \
    int64_t n = j->n, inner = j->inner;                                                            \
    for (int64_t o = b; o < e; o++)                                                                \
      for (int64_t k = 0; k < inner; k++) {                                                        \
        ACC acc = j->prod ? 1 : 0;                                                                 \
        for (int64_t t = 0; t < n; t++) {                                                          \
          int64_t i = j->reverse ? n - 1 - t : t;                                                  \
          int64_t at = (o * n + i) * inner + k;                                                    \
          ACC v = (ACC)x[at];                                                                      \
          if (!j->exclusive) acc = j->prod ? acc * v : acc + v;                                    \
          y[at] = (T)acc;                                                                          \
          if (j->exclusive) acc = j->prod ? acc * v : acc + v;                                     \
        }                                                                                          \
      }                                                                                            \
  }
SCAN(float, float)
SCAN(double, double)
SCAN(int32_t, uint32_t)
SCAN(int64_t, uint64_t)

static int scan_compute(tfc_kernel_ctx *c) {
  const tfc_tensor *x = c->inputs[0];
  scan_job j = {.x = x->data, .prod = c->node->op->id == TFC_OP_Cumprod};
  int64_t outer;
  TFC_TRY(tfc_scan_plan_of(c, &outer, &j.n, &j.inner, &j.exclusive, &j.reverse));
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, x->dtype, x->dims, x->ndims);
  if (!out) return c->status->code;
  if (x->n_elems == 0) return TFC_OK;
  j.y = out->data;
  void (*fn)(int64_t, int64_t, void *);
  switch (x->dtype) {
    case TFC_DT_FLOAT: fn = scan_float; break;
    case TFC_DT_DOUBLE: fn = scan_double; break;
    case TFC_DT_INT32: fn = scan_int32_t; break;
    case TFC_DT_INT64: fn = scan_int64_t; break;
    default: return tfc_kernel_error(c, TFC_UNIMPLEMENTED, "%s for %s", c->node->op->name, tfc_dtype_name(x->dtype));
  }
  tfc_kernel_parallel_for(c, outer, j.n * j.inner * 2 + 1, fn, &j);
  return TFC_OK;
}

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_Cumsum,
     .type_attr = "T",
     .types = TFC_TYPES_FLOAT | TFC_TYPES_INT,
     .host_memory_in = 1u << 1,
     .compute = scan_compute},
    {.op = TFC_OP_Cumprod,
     .type_attr = "T",
     .types = TFC_TYPES_FLOAT | TFC_TYPES_INT,
     .host_memory_in = 1u << 1,
     .compute = scan_compute},
};

int tfc_cpu_kernels_scan(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof defs[0]), s);
}
