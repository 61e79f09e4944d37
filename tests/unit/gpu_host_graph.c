/*
 * gpu_host_graph — see gpu_host_graph.h.
 */
#include "gpu_host_graph.h"

#include <stdlib.h>
#include <string.h>

#include "device/gpu/gpu_platform.h"
#include "harness.h"
#include "tfc/tfc.h"

const tfc_gpu_fake_spec gpu_a = {"Fake GPU A", "0000:1b:00.0", 9, 0, 1 * GiB, 0};

void install(int n_gpus) {
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_gpu_fake_configure(&gpu_a, n_gpus, &s), TFC_OK);
  tfc_status_fini(&s);
  tfc_gpu_platform_set_for_testing(tfc_gpu_fake_platform());
}

/* ---------------- graphs ---------------- */

TF_Operation *finish(TF_OperationDescription *d) {
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TF_FinishOperation(d, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  return op;
}

TF_Operation *const_tensor(TF_Graph *g, const char *name, const char *dev, TF_Tensor *t) {
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_SetAttrType(d, "dtype", TF_TensorType(t));
  if (dev) TF_SetDevice(d, dev);
  TF_DeleteStatus(s);
  TF_DeleteTensor(t);
  return finish(d);
}

TF_Operation *typed_const(TF_Graph *g, const char *name, const char *dev, TF_DataType dt, const int64_t *dims,
                          int ndims, const void *v) {
  int64_t n = 1;
  for (int i = 0; i < ndims; i++) n *= dims[i];
  size_t bytes = (size_t)n * TF_DataTypeSize(dt);
  TF_Tensor *t = TF_AllocateTensor(dt, dims, ndims, bytes);
  if (bytes) memcpy(TF_TensorData(t), v, bytes);
  return const_tensor(g, name, dev, t);
}

TF_Operation *i32c(TF_Graph *g, const char *name, const char *dev, const int64_t *dims, int ndims,
                   const int32_t *v) {
  return typed_const(g, name, dev, TF_INT32, dims, ndims, v);
}

TF_Operation *i32s(TF_Graph *g, const char *name, int32_t v) { return i32c(g, name, NULL, NULL, 0, &v); }

TF_Operation *f32c(TF_Graph *g, const char *name, const char *dev, const int64_t *dims, int ndims,
                   const float *v) {
  return typed_const(g, name, dev, TF_FLOAT, dims, ndims, v);
}

/* A node of `type` with single inputs in[0..n). */
TF_Operation *node(TF_Graph *g, const char *type, const char *name, const TF_Operation *const *in, int n,
                   const char *dev) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  for (int i = 0; i < n; i++) TF_AddInput(d, (TF_Output){(TF_Operation *)in[i], 0});
  if (dev) TF_SetDevice(d, dev);
  return finish(d);
}


TF_Operation *pack(TF_Graph *g, const char *name, TF_Operation *const *in, int n, const char *dev) {
  TF_Output outs[64];
  EXPECT_TRUE(n <= 64);
  for (int i = 0; i < n; i++) outs[i] = (TF_Output){in[i], 0};
  TF_OperationDescription *d = TF_NewOperation(g, "Pack", name);
  TF_AddInputList(d, outs, n);
  if (dev) TF_SetDevice(d, dev);
  return finish(d);
}

/* ---------------- sessions ---------------- */

TF_Session *session(TF_Graph *g) {
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Status *s = TF_NewStatus();
  TF_Session *sess = TF_NewSession(g, o, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  TF_DeleteSessionOptions(o);
  return sess;
}

void close_session(TF_Session *sess) {
  TF_Status *s = TF_NewStatus();
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
}

/* Runs the fetches (and feeds, which it deletes); returns the code, *msg the message (heap). */
int run(TF_Session *sess, const TF_Output *feeds, TF_Tensor **feed_values, int n_feeds, const TF_Output *fetches,
        int n, TF_Tensor **out, char **msg) {
  TF_Status *s = TF_NewStatus();
  for (int i = 0; i < n; i++) out[i] = NULL;
  TF_SessionRun(sess, NULL, feeds, feed_values, n_feeds, fetches, out, n, NULL, 0, NULL, s);
  int code = TF_GetCode(s);
  *msg = strdup(TF_Message(s));
  TF_DeleteStatus(s);
  for (int i = 0; i < n_feeds; i++) TF_DeleteTensor(feed_values[i]);
  return code;
}

/* run() that must succeed with an empty message. */
void run_ok(TF_Session *sess, const TF_Output *feeds, TF_Tensor **feed_values, int n_feeds,
            const TF_Output *fetches, int n, TF_Tensor **out) {
  char *msg;
  int code = run(sess, feeds, feed_values, n_feeds, fetches, n, out, &msg);
  if (code != TF_OK || *msg) tfc_test_fail(__FILE__, __LINE__, "run: code %d: %s", code, msg);
  free(msg);
}

/* The device `op` was placed on, after a run. */
const char *placed(TF_Session *sess, TF_Operation *op) {
  TF_Status *s = TF_NewStatus();
  const char *d = TFC_SessionOperationDevice(sess, op, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  return d ? d : "";
}

void expect_i32(const TF_Tensor *t, const int64_t *dims, int ndims, const int32_t *v) {
  EXPECT_TRUE(t != NULL);
  EXPECT_EQ(TF_TensorType(t), TF_INT32);
  EXPECT_EQ(TF_NumDims(t), ndims);
  int64_t n = 1;
  for (int i = 0; i < ndims; i++) {
    EXPECT_EQ(TF_Dim(t, i), dims[i]);
    n *= dims[i];
  }
  const int32_t *got = TF_TensorData(t);
  for (int64_t i = 0; i < n; i++) EXPECT_EQ(got[i], v[i]);
}

int same_tensor(const TF_Tensor *a, const TF_Tensor *b) {
  if (TF_TensorType(a) != TF_TensorType(b) || TF_NumDims(a) != TF_NumDims(b)) return 0;
  for (int i = 0; i < TF_NumDims(a); i++)
    if (TF_Dim(a, i) != TF_Dim(b, i)) return 0;
  return TF_TensorByteSize(a) == TF_TensorByteSize(b) &&
         memcmp(TF_TensorData(a), TF_TensorData(b), TF_TensorByteSize(a)) == 0;
}


const tfc_kernel_def *cpu_row(int op) {
  tfc_status s;
  tfc_status_init(&s);
  const tfc_kernel_table *cpu = tfc_cpu_kernel_table(&s);
  EXPECT_TRUE(cpu != NULL);
  for (int i = 0; i < cpu->n_defs; i++)
    if (cpu->defs[i].op == op) return &cpu->defs[i];
  return NULL;
}

/* The rows of op in t; *n their count. */
const tfc_kernel_def *rows_of(const tfc_kernel_table *t, int op, int *n) {
  const tfc_kernel_def *first = NULL;
  *n = 0;
  for (int i = 0; i < t->n_defs; i++)
    if (t->defs[i].op == op) {
      if (!first) first = &t->defs[i];
      (*n)++;
    }
  return first;
}

/* Row i (in table order) of op in t, or NULL. */
const tfc_kernel_def *nth_row(const tfc_kernel_table *t, int op, int i) {
  for (int k = 0; k < t->n_defs; k++)
    if (t->defs[k].op == op && i-- == 0) return &t->defs[k];
  return NULL;
}
