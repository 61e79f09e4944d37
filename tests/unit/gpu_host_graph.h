/*
 * gpu_host_graph — the common half of the tests that run graphs on fake GPUs (the GPU's
 * host-memory rows, the containers): installing the fake platform, building nodes through the
 * C API, running sessions, and reading the kernel tables' rows.
 *
 * Included (not linked) by those tests: #include "gpu_host_graph.c". Every helper fails the
 * test (harness.h) when the C API reports an error it does not expect.
 */
#ifndef TFC_TESTS_GPU_HOST_GRAPH_H
#define TFC_TESTS_GPU_HOST_GRAPH_H

#include <stdint.h>

#include "device/device.h"
#include "device/gpu/gpu_fake.h"
#include "tensorflow/c/c_api.h"

#define GiB ((int64_t)1 << 30)
#define LH "/job:localhost/replica:0/task:0/device:"

/* The fake GPU the tests install (1 GiB). */
extern const tfc_gpu_fake_spec gpu_a;
/* Makes n_gpus fake GPUs like gpu_a the platform of the sessions made after it (0: none). */
void install(int n_gpus);

/* ---- graphs: each returns the new node ---- */
TF_Operation *finish(TF_OperationDescription *d);
/* A Const holding t (taken), on dev when not NULL. */
TF_Operation *const_tensor(TF_Graph *g, const char *name, const char *dev, TF_Tensor *t);
/* A constant of dtype dt and dims (ndims 0: a scalar) holding the values at v. */
TF_Operation *typed_const(TF_Graph *g, const char *name, const char *dev, TF_DataType dt, const int64_t *dims,
                          int ndims, const void *v);
/* int32 and float constants of dims (ndims 0: a scalar) holding v. */
TF_Operation *i32c(TF_Graph *g, const char *name, const char *dev, const int64_t *dims, int ndims, const int32_t *v);
TF_Operation *i32s(TF_Graph *g, const char *name, int32_t v);
TF_Operation *f32c(TF_Graph *g, const char *name, const char *dev, const int64_t *dims, int ndims, const float *v);
/* A node of `type` with single inputs in[0..n) (output 0 of each). */
TF_Operation *node(TF_Graph *g, const char *type, const char *name, const TF_Operation *const *in, int n,
                   const char *dev);
#define NODE(g, type, name, dev, ...)                                                                              \
  node(g, type, name, (const TF_Operation *const[]){__VA_ARGS__},                                                 \
       (int)(sizeof((const TF_Operation *const[]){__VA_ARGS__}) / sizeof(TF_Operation *)), dev)
TF_Operation *pack(TF_Graph *g, const char *name, TF_Operation *const *in, int n, const char *dev);

/* ---- sessions ---- */
TF_Session *session(TF_Graph *g);
void close_session(TF_Session *sess);
/* Runs the fetches (and feeds, which it deletes); returns the code, *msg the message (heap). */
int run(TF_Session *sess, const TF_Output *feeds, TF_Tensor **feed_values, int n_feeds, const TF_Output *fetches,
        int n, TF_Tensor **out, char **msg);
/* run() that must succeed with an empty message. */
void run_ok(TF_Session *sess, const TF_Output *feeds, TF_Tensor **feed_values, int n_feeds,
            const TF_Output *fetches, int n, TF_Tensor **out);
/* The device `op` was placed on, after a run. */
const char *placed(TF_Session *sess, TF_Operation *op);
void expect_i32(const TF_Tensor *t, const int64_t *dims, int ndims, const int32_t *v);
/* Same dtype, dims and bytes. */
int same_tensor(const TF_Tensor *a, const TF_Tensor *b);

/* ---- kernel tables ---- */
/* op's first row in the CPU table. */
const tfc_kernel_def *cpu_row(int op);
/* The rows of op in t; *n their count. */
const tfc_kernel_def *rows_of(const tfc_kernel_table *t, int op, int *n);
/* Row i (in table order) of op in t, or NULL. */
const tfc_kernel_def *nth_row(const tfc_kernel_table *t, int op, int i);

#endif
