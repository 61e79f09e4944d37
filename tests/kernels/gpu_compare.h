/*
 * gpu_compare — the common half of the GPU kernel tests: run one op on /device:CPU:0 and on
 * /device:GPU:0 with the same inputs, in one session, and compare the results.
 *
 * Data inputs are fed through CPU placeholders (so they reach the GPU the way a graph's data
 * does: a _Send/_Recv into device memory); shape-like arguments are CPU constants, as a
 * graph's shape math is. The GPU copy is pinned without soft placement, so a missing GPU
 * kernel is an error rather than a silent CPU run, and the test fails unless the node really
 * ran on GPU:0. Outputs must match in dtype and shape exactly and in value within a
 * tolerance relative to max(1, |cpu|); integers and bool must match exactly (tol 0); NaN must
 * meet NaN and an infinity the same infinity. Half outputs of both copies (a half op run in
 * half on both devices) compare as their float values.
 *
 * Included (not linked) by the GPU kernel tests: #include "gpu_compare.c". Every failure is
 * a tfc_test_fail naming the label, the output and the element.
 *
 * Self-test: with TFC_GC_SELF_TEST=1 in the environment the "GPU" copies run on
 * /device:CPU:0 (half ones in half: only where the CPU has a half kernel) and nothing skips,
 * so a machine without a GPU can check that a test's graphs build and run, that its CPU half
 * computes what it should and that its error cases fail as expected. Tests that name GC_GPU themselves (rather than through
 * gc_check, gc_check_error and gc_gpu_dev) still need a GPU.
 */
#ifndef TFC_TESTS_GPU_COMPARE_H
#define TFC_TESTS_GPU_COMPARE_H

#include <stdint.h>

#include "tensorflow/c/c_api.h"

#define GC_CPU "/device:CPU:0"
#define GC_GPU "/device:GPU:0"
#define GC_MAX_ARGS 12
#define GC_MAX_OUTPUTS 8

/* Why this process cannot run the GPU copies (a static string), or NULL when it can: this
 * build has CUDA, the CUDA platform is in use and it shows at least one GPU. */
const char *gc_gpu_missing(void);
/* Skips the test with gc_gpu_missing()'s reason when there is one. */
void gc_need_gpu(void);
/* 1 under TFC_GC_SELF_TEST=1 (see the top comment), else 0. */
int gc_self_test(void);
/* The device of the GPU copies: GC_GPU, or GC_CPU in a self-test. Static. */
const char *gc_gpu_dev(void);

/* A new tensor of uniform values in [lo, hi) (integers: rounded down; bool: >= 0.5; complex:
 * both parts) from the tests' fixed generator. TF_HALF is not generated: feed float and set
 * gc_op.half. */
TF_Tensor *gc_rand(TF_DataType dt, int nd, const int64_t *dims, double lo, double hi);
/* A new int32 vector of n values, or a scalar when n < 0 (v[0]). */
TF_Tensor *gc_ints(const int32_t *v, int n);
/* A new int64 vector of n values, or a scalar when n < 0. */
TF_Tensor *gc_int64s(const int64_t *v, int n);

/* gpu ~= cpu as described above (complex: part by part); tol 0 demands equality. */
void gc_compare(const char *what, const TF_Tensor *gpu, const TF_Tensor *cpu, double tol);

/* One attr: kind 'i' int, 'f' float, 'b' bool, 't' type, 's' string, 'l' int list. */
typedef struct gc_attr {
  const char *name;
  char kind;
  int64_t i;
  double f;
  TF_DataType t;
  const char *s;
  const int64_t *list;
  int n_list;
} gc_attr;
#define GC_INT(n, v) {.name = (n), .kind = 'i', .i = (v)}
#define GC_FLOAT(n, v) {.name = (n), .kind = 'f', .f = (v)}
#define GC_BOOL(n, v) {.name = (n), .kind = 'b', .i = (v)}
#define GC_TYPE(n, v) {.name = (n), .kind = 't', .t = (v)}
#define GC_STR(n, v) {.name = (n), .kind = 's', .s = (v)}
#define GC_INTS(n, v, len) {.name = (n), .kind = 'l', .list = (v), .n_list = (len)}

typedef struct gc_op {
  const char *type;
  int list;            /* inputs [list_at, list_at + list) form the op's one list input (AddN,
                        * ConcatV2, Concat) */
  int list_at;         /* the list's position among the op's inputs (0: first; Concat: 1) */
  gc_attr attrs[8];    /* up to the first with a NULL name */
  int n_outputs;       /* outputs compared (0: 1) */
  int half;            /* the GPU copy runs in half: float fed inputs are cast to half on the
                        * CPU and half outputs cast back to float; the CPU copy runs in float */
  unsigned half_args;  /* with half: the inputs cast (bit i: input i); 0: every float input (a
                        * batch norm keeps its float statistics) */
} gc_op;

typedef struct gc_arg {
  TF_Tensor *t; /* borrowed */
  int konst;    /* 1: a CPU Const (shape-like arguments); 0: fed through a CPU Placeholder */
} gc_arg;
#define GC_FED(t) ((gc_arg){(t), 0})
#define GC_CONST(t) ((gc_arg){(t), 1})

/* A fed argument of gc_rand(dt, nd, dims, lo, hi) (the arg owns the tensor). */
gc_arg gc_fed(TF_DataType dt, int nd, const int64_t *dims, double lo, double hi);
/* A CPU int32 constant argument of gc_ints(v, n): a vector of n values, or a scalar when n < 0. */
gc_arg gc_konst(const int32_t *v, int n);

/* Runs o on the CPU and on the GPU with args and compares every output. */
void gc_check(const gc_op *o, const gc_arg *args, int n_args, double tol, const char *label);
/* Runs o on each device alone; both runs must fail with `code` and a message containing
 * `substr`: the GPU kernel reports bad input as the CPU kernel does. */
void gc_check_error(const gc_op *o, const gc_arg *args, int n_args, TF_Code code, const char *substr,
                    const char *label);
/* Deletes the tensors of args[0..n) (NULL ones skipped). */
void gc_free_args(gc_arg *args, int n);

#endif
