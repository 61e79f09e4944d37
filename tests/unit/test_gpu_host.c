/* The GPU's host-memory rows (kernels_gpu_host.c): TF 1.15's all-HostMemory GPU kernels, copied
 * from the CPU table. On fake GPUs: int32 shape math with no device request lands on GPU:0 and
 * gives the CPU's values without touching device memory; an int32 op pinned beside a float op
 * on GPU:0 crosses devices through host memory only, even with more than 32 inputs; float ops
 * without a GPU row stay on the CPU; the CPU kernels' errors come through unchanged. The rows
 * themselves: narrowed to TF's dtypes, every argument in host memory, the CPU's functions, and
 * no two rows of a GPU table (core, and core + CUDA where built) can match one node.
 *
 * Sessions go through the C API, as a user's would. */
#include <stdint.h>
#include <string.h>

#include "device/device.h"
#include "device/gpu/gpu_device.h"
#include "device/gpu/gpu_fake.h"
#include "gpu_host_graph.c"
#include "harness.h"
#include "ops/opdef.h"
#include "tensorflow/c/c_api.h"
#include "tfc/tfc.h"

/* ---------------- placement and values ---------------- */

/* Shape -> StridedSlice -> Pack -> Reshape, Add, Mul, Sum, Range and BroadcastGradientArgs of
 * int32, with no device requests: all on GPU:0, the CPU's values, no device memory. */
static void int32_shape_math_runs_on_gpu0_in_host_memory(void) {
  install(1);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = i32c(g, "x", NULL, (int64_t[]){2, 3}, 2, (int32_t[]){1, 2, 3, 4, 5, 6});
  TF_Operation *shp = NODE(g, "Shape", "shape", NULL, x);
  TF_Operation *b = i32c(g, "b", NULL, (int64_t[]){1}, 1, (int32_t[]){0});
  TF_Operation *e = i32c(g, "e", NULL, (int64_t[]){1}, 1, (int32_t[]){1});
  TF_Operation *st = i32c(g, "st", NULL, (int64_t[]){1}, 1, (int32_t[]){1});
  TF_OperationDescription *d = TF_NewOperation(g, "StridedSlice", "rows");
  TF_AddInput(d, (TF_Output){shp, 0});
  TF_AddInput(d, (TF_Output){b, 0});
  TF_AddInput(d, (TF_Output){e, 0});
  TF_AddInput(d, (TF_Output){st, 0});
  TF_SetAttrInt(d, "shrink_axis_mask", 1);
  TF_Operation *rows = finish(d);
  TF_Operation *packed = pack(g, "packed", (TF_Operation *[]){i32s(g, "three", 3), rows}, 2, NULL);
  TF_Operation *reshaped = NODE(g, "Reshape", "reshaped", NULL, x, packed);
  TF_Operation *sum = NODE(g, "Add", "sum", NULL, x, x);
  TF_Operation *mul = NODE(g, "Mul", "mul", NULL, sum, x);
  TF_Operation *total = NODE(g, "Sum", "total", NULL, mul, i32s(g, "axis", 1));
  TF_Operation *range = NODE(g, "Range", "range", NULL, i32s(g, "start", 1), i32s(g, "limit", 10), i32s(g, "delta", 3));
  TF_Operation *bga =
      NODE(g, "BroadcastGradientArgs", "bga", NULL, shp, i32c(g, "s1", NULL, (int64_t[]){1}, 1, (int32_t[]){3}));
  TF_Output fetches[] = {{reshaped, 0}, {total, 0}, {range, 0}, {bga, 0}, {bga, 1}, {packed, 0}};
  enum { N = 6 };

  TF_Session *sess = session(g);
  TF_Tensor *out[N];
  run_ok(sess, NULL, NULL, 0, fetches, N, out);
  TF_Operation *ops[] = {x, shp, rows, packed, reshaped, sum, mul, total, range, bga};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) EXPECT_STREQ(placed(sess, ops[i]), LH "GPU:0");
  expect_i32(out[0], (int64_t[]){3, 2}, 2, (int32_t[]){1, 2, 3, 4, 5, 6});
  expect_i32(out[1], (int64_t[]){2}, 1, (int32_t[]){2 + 8 + 18, 32 + 50 + 72});
  expect_i32(out[2], (int64_t[]){3}, 1, (int32_t[]){1, 4, 7});
  expect_i32(out[3], (int64_t[]){0}, 1, NULL);
  expect_i32(out[4], (int64_t[]){1}, 1, (int32_t[]){0});
  expect_i32(out[5], (int64_t[]){2}, 1, (int32_t[]){3, 2});
  /* Every tensor stayed in host memory. */
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 0);
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_H2D) + tfc_gpu_fake_n_copies(TFC_GPU_COPY_D2H), 0);
  close_session(sess);

  /* Without a GPU the same graph runs on the CPU, bit for bit the same. */
  install(0);
  sess = session(g);
  TF_Tensor *cpu[N];
  char *msg;
  EXPECT_EQ(run(sess, NULL, NULL, 0, fetches, N, cpu, &msg), TF_OK);
  free(msg);
  EXPECT_STREQ(placed(sess, bga), LH "CPU:0");
  for (int i = 0; i < N; i++) {
    EXPECT_TRUE(same_tensor(out[i], cpu[i]));
    TF_DeleteTensor(out[i]);
    TF_DeleteTensor(cpu[i]);
  }
  close_session(sess);
  TF_DeleteGraph(g);
}

/* An int32 Add pinned to GPU:0 beside a float Identity there: the int32 edges (from a CPU
 * constant, to the client) use host memory; only the float tensor is copied. */
static void int32_beside_float_on_gpu0_crosses_in_host_memory(void) {
  install(1);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *f = f32c(g, "f", LH "GPU:0", (int64_t[]){2}, 1, (float[]){1.5f, -2});
  TF_Operation *fi = NODE(g, "Identity", "fi", LH "GPU:0", f);
  TF_Operation *a = i32c(g, "a", "/device:CPU:0", (int64_t[]){2}, 1, (int32_t[]){40, -7});
  TF_Operation *b = i32c(g, "b", "/device:CPU:0", (int64_t[]){2}, 1, (int32_t[]){2, 7});
  TF_Operation *add = NODE(g, "Add", "add", "/device:GPU:0", a, b);
  TF_Operation *neg = NODE(g, "Neg", "neg", "/device:CPU:0", add); /* back to the CPU */
  TF_Session *sess = session(g);
  TF_Output fetches[] = {{fi, 0}, {add, 0}, {neg, 0}};
  TF_Tensor *out[3];
  run_ok(sess, NULL, NULL, 0, fetches, 3, out);
  EXPECT_STREQ(placed(sess, add), LH "GPU:0");
  EXPECT_STREQ(placed(sess, a), LH "CPU:0");
  EXPECT_STREQ(placed(sess, neg), LH "CPU:0");
  EXPECT_STREQ(placed(sess, fi), LH "GPU:0");
  expect_i32(out[1], (int64_t[]){2}, 1, (int32_t[]){42, 0});
  expect_i32(out[2], (int64_t[]){2}, 1, (int32_t[]){-42, 0});
  const float *fv = TF_TensorData(out[0]);
  EXPECT_TRUE(fv[0] == 1.5f && fv[1] == -2);
  /* The float constant went to device memory and its Identity came back; nothing else moved. */
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 1);
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_H2D), 1);
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_D2H), 1);
  for (int i = 0; i < 3; i++) TF_DeleteTensor(out[i]);
  close_session(sess);
  TF_DeleteGraph(g);
}

/* Pack of 40 CPU constants on GPU:0: inputs past the 32nd are in host memory too. */
static void variadic_host_row_keeps_every_input_in_host_memory(void) {
  install(1);
  TF_Graph *g = TF_NewGraph();
  enum { N = 40 };
  TF_Operation *in[N];
  int32_t want[N];
  for (int i = 0; i < N; i++) {
    char name[16];
    snprintf(name, sizeof name, "c%d", i);
    want[i] = i * 3 - 50;
    in[i] = i32c(g, name, "/device:CPU:0", NULL, 0, &want[i]);
  }
  TF_Operation *p = pack(g, "p", in, N, NULL);
  TF_OperationDescription *d = TF_NewOperation(g, "Unpack", "up"); /* 40 outputs on GPU:0 */
  TF_AddInput(d, (TF_Output){p, 0});
  TF_SetAttrInt(d, "num", N);
  TF_Operation *up = finish(d);
  TF_Operation *last = NODE(g, "Identity", "last", "/device:CPU:0", up);
  (void)last;
  TF_Session *sess = session(g);
  TF_Output fetches[] = {{p, 0}, {up, 39}};
  TF_Tensor *out[2];
  run_ok(sess, NULL, NULL, 0, fetches, 2, out);
  EXPECT_STREQ(placed(sess, p), LH "GPU:0");
  EXPECT_STREQ(placed(sess, up), LH "GPU:0");
  expect_i32(out[0], (int64_t[]){N}, 1, want);
  expect_i32(out[1], NULL, 0, &want[39]);
  EXPECT_EQ(tfc_gpu_fake_n_mem_allocs(), 0);
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_H2D) + tfc_gpu_fake_n_copies(TFC_GPU_COPY_D2H), 0);
  TF_DeleteTensor(out[0]);
  TF_DeleteTensor(out[1]);
  close_session(sess);
  TF_DeleteGraph(g);
}

/* The fake platform has no float Add, Sum or Shape(float): those stay on the CPU, while their
 * int32 twins go to GPU:0. */
static void float_ops_without_gpu_rows_stay_on_cpu(void) {
  install(1);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *x = f32c(g, "x", "/device:CPU:0", (int64_t[]){2, 2}, 2, (float[]){1, 2, 3, 4});
  TF_Operation *fadd = NODE(g, "Add", "fadd", NULL, x, x);
  TF_Operation *fsum = NODE(g, "Sum", "fsum", NULL, fadd, i32s(g, "axis", 0));
  TF_Operation *fshape = NODE(g, "Shape", "fshape", NULL, x);
  TF_Operation *iadd = NODE(g, "Add", "iadd", NULL, fshape, fshape);
  TF_Operation *ipow = NODE(g, "Pow", "ipow", NULL, fshape, fshape); /* int32 Pow: no TF GPU row */
  TF_Session *sess = session(g);
  TF_Output fetches[] = {{fsum, 0}, {iadd, 0}, {ipow, 0}};
  TF_Tensor *out[3];
  run_ok(sess, NULL, NULL, 0, fetches, 3, out);
  EXPECT_STREQ(placed(sess, fadd), LH "CPU:0");
  EXPECT_STREQ(placed(sess, fsum), LH "CPU:0");
  EXPECT_STREQ(placed(sess, fshape), LH "GPU:0"); /* shape-only: a GPU row for every dtype */
  EXPECT_STREQ(placed(sess, ipow), LH "CPU:0");
  EXPECT_STREQ(placed(sess, iadd), LH "GPU:0");
  const float *s = TF_TensorData(out[0]);
  EXPECT_TRUE(s[0] == 8 && s[1] == 12);
  expect_i32(out[1], (int64_t[]){2}, 1, (int32_t[]){4, 4});
  expect_i32(out[2], (int64_t[]){2}, 1, (int32_t[]){4, 4});
  for (int i = 0; i < 3; i++) TF_DeleteTensor(out[i]);
  close_session(sess);
  TF_DeleteGraph(g);
}

/* IdentityN runs its CPU kernel on GPU:0 with its data in device memory: a float and an int32
 * constant go in, come back equal, and each crossed into device memory and out again. */
static void identity_n_forwards_device_tensors(void) {
  install(1);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *f = f32c(g, "f", "/device:CPU:0", (int64_t[]){3}, 1, (float[]){1.5f, -2, 4});
  TF_Operation *i = i32c(g, "i", "/device:CPU:0", (int64_t[]){2}, 1, (int32_t[]){7, -8});
  TF_OperationDescription *d = TF_NewOperation(g, "IdentityN", "idn");
  TF_SetDevice(d, "/device:GPU:0");
  TF_AddInputList(d, (TF_Output[]){{f, 0}, {i, 0}}, 2);
  TF_Operation *idn = finish(d);
  TF_Session *sess = session(g);
  TF_Output fetches[] = {{idn, 0}, {idn, 1}};
  TF_Tensor *out[2];
  run_ok(sess, NULL, NULL, 0, fetches, 2, out);
  EXPECT_STREQ(placed(sess, idn), LH "GPU:0");
  const float *fv = TF_TensorData(out[0]);
  EXPECT_TRUE(TF_Dim(out[0], 0) == 3 && fv[0] == 1.5f && fv[1] == -2 && fv[2] == 4);
  expect_i32(out[1], (int64_t[]){2}, 1, (int32_t[]){7, -8});
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_H2D), 2);
  EXPECT_EQ(tfc_gpu_fake_n_copies(TFC_GPU_COPY_D2H), 2);
  for (int k = 0; k < 2; k++) TF_DeleteTensor(out[k]);
  close_session(sess);
  TF_DeleteGraph(g);
}

/* Runs `fetch` of g with 1 fake GPU and with none; both fail with the same code and message,
 * but for the device the executor names. */
static void expect_same_error(TF_Graph *g, TF_Operation *feed, const int32_t *feed_v, int64_t feed_n,
                              TF_Operation *fetch, int code, const char *text) {
  char *msg[2];
  for (int gpus = 1; gpus >= 0; gpus--) {
    install(gpus);
    TF_Session *sess = session(g);
    TF_Output fo = {fetch, 0}, fi = {feed, 0};
    TF_Tensor *out, *fv = NULL;
    if (feed) {
      fv = TF_AllocateTensor(TF_INT32, &feed_n, 1, (size_t)feed_n * sizeof(int32_t));
      memcpy(TF_TensorData(fv), feed_v, (size_t)feed_n * sizeof(int32_t));
    }
    EXPECT_EQ(run(sess, feed ? &fi : NULL, feed ? &fv : NULL, feed ? 1 : 0, &fo, 1, &out, &msg[gpus]), code);
    EXPECT_TRUE(out == NULL);
    EXPECT_CONTAINS(msg[gpus], text);
    EXPECT_STREQ(placed(sess, fetch), gpus ? LH "GPU:0" : LH "CPU:0");
    close_session(sess);
  }
  char *gpu_at = strstr(msg[1], " (device: " LH "GPU:0)"), *cpu_at = strstr(msg[0], " (device: " LH "CPU:0)");
  EXPECT_TRUE(gpu_at && cpu_at);
  *gpu_at = *cpu_at = 0;
  EXPECT_STREQ(msg[1], msg[0]);
  free(msg[0]);
  free(msg[1]);
}

static void cpu_kernel_errors_come_through_the_gpu_node(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *q = NODE(g, "FloorDiv", "q", NULL, i32c(g, "n", NULL, (int64_t[]){2}, 1, (int32_t[]){7, 8}),
                         i32c(g, "z", NULL, (int64_t[]){2}, 1, (int32_t[]){2, 0}));
  expect_same_error(g, NULL, NULL, 0, q, TF_INVALID_ARGUMENT, "Integer division by zero");
  /* A fed shape, so that only the kernel can tell. */
  TF_Operation *x = i32c(g, "x", NULL, (int64_t[]){2, 3}, 2, (int32_t[]){1, 2, 3, 4, 5, 6});
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "to");
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_Operation *to = finish(d);
  TF_Operation *r = NODE(g, "Reshape", "r", NULL, x, to);
  expect_same_error(g, to, (int32_t[]){4}, 1, r, TF_INVALID_ARGUMENT,
                    "Input to reshape is a tensor with 6 values, but the requested shape has 4");
  TF_DeleteGraph(g);
}

/* d(x + b)/db for x [2,3], b [3]: the gradient's BroadcastGradientArgs (int32) lands on GPU:0
 * while the float math stays on the CPU, and the reduction indices reach the CPU's Sum. */
static void gradient_broadcast_args_run_on_gpu0(void) {
  install(1);
  TF_Graph *g = TF_NewGraph();
  TF_OperationDescription *pd = TF_NewOperation(g, "Placeholder", "x");
  TF_SetAttrType(pd, "dtype", TF_FLOAT);
  TF_Operation *x = finish(pd);
  TF_Operation *b = f32c(g, "b", "/device:CPU:0", (int64_t[]){3}, 1, (float[]){1, 2, 3});
  TF_Operation *y = NODE(g, "Add", "y", NULL, x, b);
  TF_Status *s = TF_NewStatus();
  TF_Output ys[] = {{y, 0}}, xs[] = {{x, 0}, {b, 0}}, dys[2];
  TF_AddGradients(g, ys, 1, xs, 2, NULL, s, dys);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  TF_Operation *bga = NULL;
  size_t pos = 0;
  for (TF_Operation *op; (op = TF_GraphNextOperation(g, &pos));)
    if (strcmp(TF_OperationOpType(op), "BroadcastGradientArgs") == 0) bga = op;
  EXPECT_TRUE(bga != NULL);
  TF_Session *sess = session(g);
  TF_Tensor *feed = TF_AllocateTensor(TF_FLOAT, (int64_t[]){2, 3}, 2, 6 * sizeof(float));
  memset(TF_TensorData(feed), 0, 6 * sizeof(float));
  TF_Output fi = {x, 0};
  TF_Tensor *out[2];
  run_ok(sess, &fi, &feed, 1, dys, 2, out);
  EXPECT_STREQ(placed(sess, bga), LH "GPU:0");
  EXPECT_STREQ(placed(sess, y), LH "CPU:0");
  EXPECT_STREQ(placed(sess, dys[1].oper), LH "GPU:0"); /* db's Reshape: shape-only, runs anywhere */
  EXPECT_EQ(TF_NumDims(out[1]), 1);
  EXPECT_EQ(TF_Dim(out[1], 0), 3);
  const float *db = TF_TensorData(out[1]);
  EXPECT_TRUE(db[0] == 2 && db[1] == 2 && db[2] == 2);
  EXPECT_EQ(TF_Dim(out[0], 0), 2);
  EXPECT_EQ(TF_Dim(out[0], 1), 3);
  TF_DeleteTensor(out[0]);
  TF_DeleteTensor(out[1]);
  close_session(sess);
  TF_DeleteGraph(g);
}

/* ---------------- the rows ---------------- */
/* ---------------- the rows ---------------- */

static void host_rows_copy_cpu_rows_narrowed_to_tf_dtypes(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_kernel_table t;
  tfc_kernel_table_init(&t, "GPU");
  EXPECT_EQ(tfc_gpu_kernels_host(&t, &s), TFC_OK);
  int n;
  const tfc_kernel_def *k = rows_of(&t, TFC_OP_Add, &n);
  EXPECT_EQ(n, 1);
  EXPECT_STREQ(k->type_attr, "T");
  EXPECT_EQ(k->types, TFC_T(TFC_DT_INT32));
  EXPECT_EQ(k->host_memory_in, TFC_HOST_ALL);
  EXPECT_EQ(k->host_memory_out, TFC_HOST_ALL);
  EXPECT_TRUE(k->compute == cpu_row(TFC_OP_Add)->compute);
  /* Sum: T and TF's int32 Tidx. */
  k = rows_of(&t, TFC_OP_Sum, &n);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(k->types, TFC_T(TFC_DT_INT32));
  EXPECT_STREQ(k->type_attr2, "Tidx");
  EXPECT_EQ(k->types2, TFC_T(TFC_DT_INT32));
  /* Shape's CPU row constrains nothing: the host rows add T. int32 has every argument in host
   * memory; the other dtypes keep the CPU row's masks (data anywhere, the answer on the host). */
  rows_of(&t, TFC_OP_Shape, &n);
  EXPECT_EQ(n, 2);
  k = nth_row(&t, TFC_OP_Shape, 0);
  EXPECT_STREQ(k->type_attr, "T");
  EXPECT_EQ(k->types, TFC_T(TFC_DT_INT32));
  EXPECT_EQ(k->host_memory_in, TFC_HOST_ALL);
  EXPECT_TRUE(k->compute == cpu_row(TFC_OP_Shape)->compute);
  k = nth_row(&t, TFC_OP_Shape, 1);
  EXPECT_TRUE((k->types & TFC_T(TFC_DT_FLOAT)) && (k->types & TFC_T(TFC_DT_BOOL)) &&
              !(k->types & TFC_T(TFC_DT_INT32)) && !(k->types & TFC_T(TFC_DT_STRING)));
  EXPECT_EQ(k->host_memory_in, 0);
  EXPECT_EQ(k->host_memory_out, cpu_row(TFC_OP_Shape)->host_memory_out);
  EXPECT_TRUE(k->compute == cpu_row(TFC_OP_Shape)->compute);
  rows_of(&t, TFC_OP_Reshape, &n);
  EXPECT_EQ(n, 2);
  EXPECT_EQ(nth_row(&t, TFC_OP_Reshape, 1)->host_memory_in, TFC_HOST(1));
  /* Range: every dtype TF registers, as many as the CPU has. */
  k = rows_of(&t, TFC_OP_Range, &n);
  EXPECT_EQ(n, 1);
  EXPECT_STREQ(k->type_attr, "Tidx");
  EXPECT_EQ(k->types, TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64) | TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE));
  k = rows_of(&t, TFC_OP_Fill, &n);
  EXPECT_EQ(n, 1);
  EXPECT_STREQ(k->type_attr2, "index_type");
  /* LinSpace: float and double, wholly in host memory. */
  k = rows_of(&t, TFC_OP_LinSpace, &n);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(k->types, TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE));
  EXPECT_EQ(k->host_memory_out, TFC_HOST_ALL);
  /* Where: TF's int32 row, the CPU kernel with input and index in host memory (the CPU row
   * constrains no dtype: the host row adds T). */
  k = rows_of(&t, TFC_OP_Where, &n);
  EXPECT_EQ(n, 1);
  EXPECT_STREQ(k->type_attr, "T");
  EXPECT_EQ(k->types, TFC_T(TFC_DT_INT32));
  EXPECT_EQ(k->host_memory_in, TFC_HOST_ALL);
  EXPECT_EQ(k->host_memory_out, TFC_HOST_ALL);
  EXPECT_TRUE(k->compute == cpu_row(TFC_OP_Where)->compute);
  /* Unconstrained: ConcatOffset, Assert. */
  k = rows_of(&t, TFC_OP_Assert, &n);
  EXPECT_EQ(n, 1);
  EXPECT_TRUE(k->type_attr == NULL);
  EXPECT_TRUE(k->compute == cpu_row(TFC_OP_Assert)->compute);
  /* Not TF's: no int32 Pow, Tile, Transpose, Cast or ZerosLike rows. */
  int ops_absent[] = {TFC_OP_Pow, TFC_OP_Tile, TFC_OP_Transpose, TFC_OP_Cast, TFC_OP_Mean};
  for (size_t i = 0; i < sizeof ops_absent / sizeof ops_absent[0]; i++) {
    rows_of(&t, ops_absent[i], &n);
    EXPECT_EQ(n, 0);
  }
  /* ZerosLike's one host row is the lists' (test_gpu_containers.c). */
  k = rows_of(&t, TFC_OP_ZerosLike, &n);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(k->types, TFC_T(TFC_DT_VARIANT));
  tfc_kernel_table_fini(&t);
}

static void host_rows_yield_to_rows_already_in_the_table(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_kernel_table t;
  tfc_kernel_table_init(&t, "GPU");
  const tfc_kernel_def existing[] = {
      /* a device's own int32 Reshape: the host row is left out */
      {.op = TFC_OP_Reshape, .type_attr = "T", .types = TFC_T(TFC_DT_INT32), .host_memory_in = TFC_HOST_ALL},
      /* Range's int32 elsewhere: the host row keeps the other dtypes */
      {.op = TFC_OP_Range, .type_attr = "Tidx", .types = TFC_T(TFC_DT_INT32)},
      /* an unconstrained Assert: the host row is left out */
      {.op = TFC_OP_Assert},
      /* a row on another attr than TF narrows: cannot be split, the host row is left out */
      {.op = TFC_OP_Fill, .type_attr = "index_type", .types = TFC_T(TFC_DT_INT32)},
      /* disjoint: int64 Add in device memory stays beside the int32 host row */
      {.op = TFC_OP_Add, .type_attr = "T", .types = TFC_T(TFC_DT_INT64)},
  };
  EXPECT_EQ(tfc_kernel_table_add(&t, existing, 5, &s), TFC_OK);
  EXPECT_EQ(tfc_gpu_kernels_host(&t, &s), TFC_OK);
  int n;
  /* the int32 host row gives way; the device-data row (no int32) is added */
  rows_of(&t, TFC_OP_Reshape, &n);
  EXPECT_EQ(n, 2);
  const tfc_kernel_def *r = nth_row(&t, TFC_OP_Reshape, 1);
  EXPECT_EQ(r->host_memory_in, TFC_HOST(1));
  EXPECT_TRUE(!(r->types & TFC_T(TFC_DT_INT32)));
  rows_of(&t, TFC_OP_Assert, &n);
  EXPECT_EQ(n, 1);
  rows_of(&t, TFC_OP_Fill, &n);
  EXPECT_EQ(n, 1);
  const tfc_kernel_def *k = rows_of(&t, TFC_OP_Range, &n);
  EXPECT_EQ(n, 2);
  EXPECT_EQ(k[0].types, TFC_T(TFC_DT_INT32));
  for (int i = 0; i < t.n_defs; i++)
    if (t.defs[i].op == TFC_OP_Range && t.defs[i].host_memory_in == TFC_HOST_ALL)
      EXPECT_EQ(t.defs[i].types, TFC_T(TFC_DT_INT64) | TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE));
  rows_of(&t, TFC_OP_Add, &n);
  EXPECT_EQ(n, 2);
  tfc_kernel_table_fini(&t);
}

static void rows_overlap_when_every_shared_attr_shares_a_dtype(void) {
  const uint32_t i32 = TFC_T(TFC_DT_INT32), i64 = TFC_T(TFC_DT_INT64), f32 = TFC_T(TFC_DT_FLOAT);
  tfc_kernel_def a = {.op = TFC_OP_Sum, .type_attr = "T", .types = i32, .type_attr2 = "Tidx", .types2 = i32};
  tfc_kernel_def b = {.op = TFC_OP_Sum, .type_attr = "T", .types = i32 | f32};
  EXPECT_EQ(tfc_gpu_kernel_rows_overlap(&a, &b), 1);
  b.type_attr2 = "Tidx";
  b.types2 = i64; /* same T, disjoint Tidx */
  EXPECT_EQ(tfc_gpu_kernel_rows_overlap(&a, &b), 0);
  tfc_kernel_def c = {.op = TFC_OP_Sum, .type_attr = "Tidx", .types = i32 | i64}; /* attrs in other slots */
  EXPECT_EQ(tfc_gpu_kernel_rows_overlap(&a, &c), 1);
  c.types = i64;
  EXPECT_EQ(tfc_gpu_kernel_rows_overlap(&a, &c), 0);
  tfc_kernel_def any = {.op = TFC_OP_Sum};
  EXPECT_EQ(tfc_gpu_kernel_rows_overlap(&a, &any), 1);
  any.op = TFC_OP_Prod;
  EXPECT_EQ(tfc_gpu_kernel_rows_overlap(&a, &any), 0);
}

static void expect_no_overlaps(const tfc_kernel_table *t) {
  for (int i = 0; i < t->n_defs; i++)
    for (int j = i + 1; j < t->n_defs; j++)
      if (tfc_gpu_kernel_rows_overlap(&t->defs[i], &t->defs[j]))
        tfc_test_fail(__FILE__, __LINE__, "GPU rows %d and %d of %s can match one node", i, j,
                      tfc_op_by_id(t->defs[i].op)->name);
}

#ifdef TFC_HAVE_CUDA
int tfc_cuda_kernels_register(tfc_kernel_table *t, tfc_status *s);
#endif

/* No two rows of a GPU table can match one node: the fake platform's (core) table, and the
 * CUDA table composed as gpu_device.c does. */
static void gpu_tables_have_one_row_per_node(void) {
  install(1);
  const tfc_kernel_table *core = tfc_gpu_kernel_table();
  EXPECT_TRUE(core != NULL);
  expect_no_overlaps(core);
  int n;
  rows_of(core, TFC_OP_StridedSlice, &n);
  EXPECT_EQ(n, 1);
#ifdef TFC_HAVE_CUDA
  tfc_status s;
  tfc_status_init(&s);
  tfc_kernel_table t;
  tfc_kernel_table_init(&t, "GPU");
  EXPECT_EQ(tfc_gpu_kernels_core(&t, &s), TFC_OK);
  EXPECT_EQ(tfc_cuda_kernels_register(&t, &s), TFC_OK);
  EXPECT_EQ(tfc_gpu_kernels_host(&t, &s), TFC_OK);
  expect_no_overlaps(&t);
  /* int32 Shape runs somewhere on the GPU, in host memory, whichever file holds its row. */
  const tfc_kernel_def *k = NULL;
  for (int i = 0; i < t.n_defs; i++)
    if (t.defs[i].op == TFC_OP_Shape && (t.defs[i].types & TFC_T(TFC_DT_INT32))) k = &t.defs[i];
  EXPECT_TRUE(k != NULL);
  EXPECT_EQ(k->host_memory_out & 1u, 1u);
  tfc_kernel_table_fini(&t);
#endif
}

/* The control-flow ops' GPU rows: the CPU kernels (pointer forwarding), for TF's device dtypes
 * with Switch's pred and Merge's value_index in host memory, and for int32 / string / resource /
 * variant with every argument in host memory; LoopCond wholly in host memory. */
static void control_flow_rows_forward_with_pred_and_value_index_in_host_memory(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_kernel_table t;
  tfc_kernel_table_init(&t, "GPU");
  EXPECT_EQ(tfc_gpu_kernels_host(&t, &s), TFC_OK);
  int ops[] = {TFC_OP_Switch, TFC_OP_RefSwitch, TFC_OP_Merge, TFC_OP_RefMerge, TFC_OP_Enter, TFC_OP_RefEnter,
               TFC_OP_Exit, TFC_OP_RefExit, TFC_OP_NextIteration, TFC_OP_RefNextIteration};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    int n;
    rows_of(&t, ops[i], &n);
    EXPECT_EQ(n, 2);
    const tfc_kernel_def *dev = nth_row(&t, ops[i], 0), *host = nth_row(&t, ops[i], 1);
    EXPECT_STREQ(dev->type_attr, "T");
    EXPECT_TRUE((dev->types & TFC_T(TFC_DT_FLOAT)) && (dev->types & TFC_T(TFC_DT_BOOL)) &&
                (dev->types & TFC_T(TFC_DT_INT64)) && !(dev->types & TFC_T(TFC_DT_INT32)));
    int sw = ops[i] == TFC_OP_Switch || ops[i] == TFC_OP_RefSwitch;
    int mg = ops[i] == TFC_OP_Merge || ops[i] == TFC_OP_RefMerge;
    EXPECT_EQ(dev->host_memory_in, sw ? TFC_HOST(1) : 0u);
    EXPECT_EQ(dev->host_memory_out, mg ? TFC_HOST(1) : 0u);
    EXPECT_TRUE(dev->compute == cpu_row(ops[i])->compute);
    EXPECT_EQ(host->types, TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_STRING) | TFC_T(TFC_DT_RESOURCE) | TFC_T(TFC_DT_VARIANT));
    EXPECT_EQ(host->host_memory_in, TFC_HOST_ALL);
    EXPECT_EQ(host->host_memory_out, TFC_HOST_ALL);
    EXPECT_TRUE(host->compute == cpu_row(ops[i])->compute);
  }
  int n;
  const tfc_kernel_def *k = rows_of(&t, TFC_OP_LoopCond, &n);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(k->host_memory_in, TFC_HOST_ALL);
  EXPECT_EQ(k->host_memory_out, TFC_HOST_ALL);
  k = rows_of(&t, TFC_OP_ControlTrigger, &n);
  EXPECT_EQ(n, 1);
  EXPECT_TRUE(k->compute == cpu_row(TFC_OP_ControlTrigger)->compute);
  tfc_kernel_table_fini(&t);
}

/* A while loop (TF_NewWhile: i = 0; while i < 5: i += 1) and a cond on a float constant, with no
 * device requests, on one fake GPU: every node lands on GPU:0 (the int32 loop in host memory, the
 * float Switch/Merge in device memory with pred and value_index on the host), and an Assert on
 * GPU:0 checks the loop's result and the Merge's value_index (a wrong expectation fails it, so
 * the check is real). */
static void control_flow_runs_on_gpu0(void) {
  for (int expect_trips = 5; expect_trips >= 4; expect_trips--) {
    install(1);
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    TF_Operation *zero = i32s(g, "zero", 0);
    TF_Output init = {zero, 0};
    TF_WhileParams w = TF_NewWhile(g, &init, 1, s);
    EXPECT_EQ(TF_GetCode(s), TF_OK);
    TF_Operation *five = i32s(w.cond_graph, "five", 5);
    TF_Operation *less = NODE(w.cond_graph, "Less", "less", NULL, w.cond_inputs[0].oper, five);
    w.cond_output = (TF_Output){less, 0};
    TF_Operation *one = i32s(w.body_graph, "one", 1);
    TF_Operation *add = NODE(w.body_graph, "Add", "add", NULL, w.body_inputs[0].oper, one);
    w.body_outputs[0] = (TF_Output){add, 0};
    w.name = "loop";
    TF_Output trips;
    TF_FinishWhile(&w, s, &trips);
    EXPECT_EQ(TF_GetCode(s), TF_OK);
    TF_Operation *want = i32s(g, "want", expect_trips);
    TF_Operation *ok = NODE(g, "Equal", "ok", NULL, trips.oper, want);
    TF_Operation *f = f32c(g, "f", NULL, (int64_t[]){2}, 1, (float[]){1.5f, -2});
    TF_Operation *sw = NODE(g, "Switch", "sw", NULL, f, ok);
    TF_OperationDescription *d = TF_NewOperation(g, "Merge", "m");
    TF_AddInputList(d, (TF_Output[]){{sw, 0}, {sw, 1}}, 2);
    TF_Operation *m = finish(d);
    TF_Operation *one_i = i32s(g, "one_i", 1);
    d = TF_NewOperation(g, "Equal", "took_true");
    TF_AddInput(d, (TF_Output){m, 1});
    TF_AddInput(d, (TF_Output){one_i, 0});
    TF_Operation *took = finish(d);
    d = TF_NewOperation(g, "Assert", "check");
    TF_AddInput(d, (TF_Output){took, 0});
    TF_AddInputList(d, (TF_Output[]){trips}, 1);
    TF_Operation *check = finish(d);
    TF_Session *sess = session(g);
    const TF_Operation *target = check;
    TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, &target, 1, NULL, s);
    if (expect_trips == 5) {
      EXPECT_EQ(TF_GetCode(s), TF_OK);
      /* Fetching the loop's result and the Merge's float value brings them from GPU:0 to the
       * client's CPU: the graph with control flow spans two devices. */
      TF_Output fetches[] = {trips, {m, 0}, {m, 1}};
      TF_Tensor *out[3] = {0};
      run_ok(sess, NULL, NULL, 0, fetches, 3, out);
      EXPECT_EQ(*(const int32_t *)TF_TensorData(out[0]), 5);
      const float *mv = TF_TensorData(out[1]);
      EXPECT_EQ(mv[0], 1.5f);
      EXPECT_EQ(mv[1], -2.0f);
      EXPECT_EQ(*(const int32_t *)TF_TensorData(out[2]), 1);
      for (int i = 0; i < 3; i++) TF_DeleteTensor(out[i]);
    } else {
      EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
      EXPECT_CONTAINS(TF_Message(s), "assertion failed: [5]");
    }
    const char *names[] = {"loop/Enter", "loop/Merge", "loop/LoopCond", "loop/Switch", "loop/NextIteration",
                           "loop/Exit", "sw", "m", "check"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
      TF_Operation *op = TF_GraphOperationByName(g, names[i]);
      if (!op) tfc_test_fail(__FILE__, __LINE__, "no node %s", names[i]);
      if (strcmp(placed(sess, op), LH "GPU:0"))
        tfc_test_fail(__FILE__, __LINE__, "%s placed on %s", names[i], placed(sess, op));
    }
    close_session(sess);
    TF_DeleteStatus(s);
    TF_DeleteGraph(g);
  }
}

static const tfc_test tests[] = {
    TFC_TEST(int32_shape_math_runs_on_gpu0_in_host_memory),
    TFC_TEST(int32_beside_float_on_gpu0_crosses_in_host_memory),
    TFC_TEST(variadic_host_row_keeps_every_input_in_host_memory),
    TFC_TEST(float_ops_without_gpu_rows_stay_on_cpu),
    TFC_TEST(identity_n_forwards_device_tensors),
    TFC_TEST(cpu_kernel_errors_come_through_the_gpu_node),
    TFC_TEST(gradient_broadcast_args_run_on_gpu0),
    TFC_TEST(host_rows_copy_cpu_rows_narrowed_to_tf_dtypes),
    TFC_TEST(host_rows_yield_to_rows_already_in_the_table),
    TFC_TEST(rows_overlap_when_every_shared_attr_shares_a_dtype),
    TFC_TEST(gpu_tables_have_one_row_per_node),
    TFC_TEST(control_flow_rows_forward_with_pred_and_value_index_in_host_memory),
    TFC_TEST(control_flow_runs_on_gpu0),
    {0},
};

TFC_TEST_MAIN(tests)
