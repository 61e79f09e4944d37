/* The containers on a GPU (kernels_gpu_host.c): stacks, TensorArrays and TensorLists pinned to
 * a fake GPU run there, with TF 1.15's GPU dtypes, and give the CPU's values bit for bit: float
 * values made in device memory (GPU Consts) enter them through host memory, and what they hand
 * out reaches GPU consumers (Identity) through device memory. A while loop on the GPU writes a
 * TensorArray each iteration, as dynamic_rnn does, and a dtype TF has no GPU kernel for (a
 * string TensorArray) is refused on the GPU with the placer's error, as TF's is.
 *
 * Sessions go through the C API, as a user's would. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "device/gpu/gpu_device.h"
#include "device/gpu/gpu_fake.h"
#include "gpu_host_graph.c"
#include "harness.h"
#include "ops/opdef.h"
#include "tensorflow/c/c_api.h"
#include "tfc/tfc.h"

#define GPU LH "GPU:0"
#define CPU LH "CPU:0"

/* A new node description of `type` on dev with inputs in[0..n) (output index in each). */
static TF_OperationDescription *desc(TF_Graph *g, const char *type, const char *name, const char *dev,
                                     const TF_Output *in, int n) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  for (int i = 0; i < n; i++) TF_AddInput(d, in[i]);
  TF_SetDevice(d, dev);
  return d;
}

#define IN(...) (const TF_Output[]){__VA_ARGS__}, (int)(sizeof((const TF_Output[]){__VA_ARGS__}) / sizeof(TF_Output))

static TF_Output out0(TF_Operation *op) { return (TF_Output){op, 0}; }

/* The containers' graph, every node on dev; fetches[0..N) are Identities on dev of:
 *   0 TensorArray read of index 1 after a scatter of a [3, 2]
 *   1 its gather of indices [2, 0]
 *   2 its size
 *   3, 4 a second TensorArray's concat (values, lengths) after a split of a by lengths [1, 2]
 *   5 a TensorList from a, item 1 set to b, stacked
 *   6 that list's item 0
 *   7 a stack's pop after a push of b */
enum { N_FETCHES = 8 };

static void build_containers(TF_Graph *g, const char *dev, TF_Output *fetches, TF_Operation **containers, int *n_cont) {
  TF_Operation *a = f32c(g, "a", dev, (int64_t[]){3, 2}, 2, (float[]){1, 2, 3, 4, 5, 6});
  TF_Operation *b = f32c(g, "b", dev, (int64_t[]){2}, 1, (float[]){7, 8});
  TF_Operation *three = i32s(g, "three", 3), *two = i32s(g, "two", 2), *one = i32s(g, "one", 1);
  TF_Operation *zero = i32s(g, "zero", 0);
  TF_Operation *ix = i32c(g, "ix", NULL, (int64_t[]){3}, 1, (int32_t[]){0, 1, 2});
  TF_Operation *gix = i32c(g, "gix", NULL, (int64_t[]){2}, 1, (int32_t[]){2, 0});
  TF_Operation *es = i32c(g, "es", NULL, (int64_t[]){1}, 1, (int32_t[]){2});
  TF_Operation *lengths = typed_const(g, "lengths", NULL, TF_INT64, (int64_t[]){2}, 1, (int64_t[]){1, 2});
  int n = 0;

  TF_OperationDescription *d = desc(g, "TensorArrayV3", "ta", dev, IN(out0(three)));
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrBool(d, "clear_after_read", 0);
  TF_Operation *ta = containers[n++] = finish(d);
  d = desc(g, "TensorArrayScatterV3", "ta_scatter", dev, IN(out0(ta), out0(ix), out0(a), (TF_Output){ta, 1}));
  TF_Operation *scatter = containers[n++] = finish(d);
  d = desc(g, "TensorArrayReadV3", "ta_read", dev, IN(out0(ta), out0(one), out0(scatter)));
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *read = containers[n++] = finish(d);
  d = desc(g, "TensorArrayGatherV3", "ta_gather", dev, IN(out0(ta), out0(gix), out0(scatter)));
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *gather = containers[n++] = finish(d);
  d = desc(g, "TensorArraySizeV3", "ta_size", dev, IN(out0(ta), out0(scatter)));
  TF_Operation *size = containers[n++] = finish(d);

  d = desc(g, "TensorArrayV3", "ta2", dev, IN(out0(two)));
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *ta2 = containers[n++] = finish(d);
  d = desc(g, "TensorArraySplitV3", "ta2_split", dev, IN(out0(ta2), out0(a), out0(lengths), (TF_Output){ta2, 1}));
  TF_Operation *split = containers[n++] = finish(d);
  d = desc(g, "TensorArrayConcatV3", "ta2_concat", dev, IN(out0(ta2), out0(split)));
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *concat = containers[n++] = finish(d);

  d = desc(g, "TensorListFromTensor", "list", dev, IN(out0(a), out0(es)));
  TF_SetAttrType(d, "element_dtype", TF_FLOAT);
  TF_SetAttrType(d, "shape_type", TF_INT32);
  TF_Operation *list = containers[n++] = finish(d);
  d = desc(g, "TensorListSetItem", "list_set", dev, IN(out0(list), out0(one), out0(b)));
  TF_SetAttrType(d, "element_dtype", TF_FLOAT);
  TF_Operation *set = containers[n++] = finish(d);
  d = desc(g, "TensorListStack", "list_stack", dev, IN(out0(set), out0(es)));
  TF_SetAttrType(d, "element_dtype", TF_FLOAT);
  TF_Operation *stacked = containers[n++] = finish(d);
  d = desc(g, "TensorListGetItem", "list_get", dev, IN(out0(set), out0(zero), out0(es)));
  TF_SetAttrType(d, "element_dtype", TF_FLOAT);
  TF_Operation *item = containers[n++] = finish(d);

  TF_Operation *minus_one = i32s(g, "minus_one", -1);
  d = desc(g, "StackV2", "stack", dev, IN(out0(minus_one)));
  TF_SetAttrType(d, "elem_type", TF_FLOAT);
  TF_Operation *stack = containers[n++] = finish(d);
  d = desc(g, "StackPushV2", "stack_push", dev, IN(out0(stack), out0(b)));
  TF_Operation *push = containers[n++] = finish(d);
  d = desc(g, "StackPopV2", "stack_pop", dev, IN(out0(stack)));
  TF_SetAttrType(d, "elem_type", TF_FLOAT);
  TF_AddControlInput(d, push);
  TF_Operation *pop = containers[n++] = finish(d);
  *n_cont = n;

  TF_Output results[N_FETCHES] = {out0(read), out0(gather), out0(size), out0(concat), {concat, 1},
                                  out0(stacked), out0(item), out0(pop)};
  for (int i = 0; i < N_FETCHES; i++) {
    char name[32];
    snprintf(name, sizeof name, "out%d", i);
    /* Identity has no GPU row for int32 in device memory: the size goes to the client as is. */
    fetches[i] = i == 2 ? results[i] : out0(finish(desc(g, "Identity", name, dev, &results[i], 1)));
  }
}

static void stack_tensor_array_and_list_run_on_gpu0_as_on_the_cpu(void) {
  TF_Tensor *got[2][N_FETCHES];
  for (int on_gpu = 1; on_gpu >= 0; on_gpu--) {
    install(1);
    TF_Graph *g = TF_NewGraph();
    TF_Output fetches[N_FETCHES];
    TF_Operation *containers[32];
    int n_cont = 0;
    build_containers(g, on_gpu ? GPU : CPU, fetches, containers, &n_cont);
    TF_Session *sess = session(g);
    run_ok(sess, NULL, NULL, 0, fetches, N_FETCHES, got[on_gpu]);
    for (int i = 0; i < n_cont; i++)
      if (strcmp(placed(sess, containers[i]), on_gpu ? GPU : CPU))
        tfc_test_fail(__FILE__, __LINE__, "%s placed on %s", TF_OperationName(containers[i]),
                      placed(sess, containers[i]));
    if (on_gpu) {
      /* The float values crossed between the GPU's memory and the host. */
      EXPECT_TRUE(tfc_gpu_fake_n_copies(TFC_GPU_COPY_D2H) > 0);
      EXPECT_TRUE(tfc_gpu_fake_n_copies(TFC_GPU_COPY_H2D) > 0);
    }
    close_session(sess);
    TF_DeleteGraph(g);
  }
  static const float read[] = {3, 4}, gather[] = {5, 6, 1, 2}, concat[] = {1, 2, 3, 4, 5, 6},
                     stacked[] = {1, 2, 7, 8, 5, 6}, item[] = {1, 2}, pop[] = {7, 8};
  const float *want[N_FETCHES] = {read, gather, NULL, concat, NULL, stacked, item, pop};
  const int64_t n_want[N_FETCHES] = {2, 4, 0, 6, 0, 6, 2, 2};
  for (int i = 0; i < N_FETCHES; i++) {
    if (!same_tensor(got[1][i], got[0][i])) tfc_test_fail(__FILE__, __LINE__, "fetch %d differs from the CPU's", i);
    if (want[i]) {
      EXPECT_EQ(TF_TensorType(got[1][i]), TF_FLOAT);
      EXPECT_EQ((int64_t)(TF_TensorByteSize(got[1][i]) / sizeof(float)), n_want[i]);
      EXPECT_TRUE(memcmp(TF_TensorData(got[1][i]), want[i], (size_t)n_want[i] * sizeof(float)) == 0);
    }
  }
  EXPECT_EQ(*(const int32_t *)TF_TensorData(got[1][2]), 3);
  const int64_t *len = TF_TensorData(got[1][4]);
  EXPECT_EQ(len[0], 1);
  EXPECT_EQ(len[1], 2);
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < N_FETCHES; i++) TF_DeleteTensor(got[k][i]);
}

/* i = 0; while i < 3: ta = ta.write(i, v); i += 1 — the loop, the TensorArray and the value (a
 * float Const: device memory) on GPU:0 — then a gather of the three writes. */
static void a_while_loop_on_gpu0_fills_a_tensor_array(void) {
  install(1);
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = desc(g, "TensorArrayV3", "ta", GPU, IN(out0(i32s(g, "n", 3))));
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *ta = finish(d);
  TF_Output init[3] = {out0(i32s(g, "i0", 0)), out0(ta), {ta, 1}};
  TF_WhileParams w = TF_NewWhile(g, init, 3, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_Operation *less = NODE(w.cond_graph, "Less", "less", NULL, w.cond_inputs[0].oper, i32s(w.cond_graph, "three", 3));
  w.cond_output = out0(less);
  TF_Operation *v = f32c(w.body_graph, "v", GPU, (int64_t[]){2}, 1, (float[]){1.5f, -2});
  d = desc(w.body_graph, "TensorArrayWriteV3", "write", GPU, IN(w.body_inputs[1], w.body_inputs[0], out0(v),
                                                                  w.body_inputs[2]));
  TF_Operation *write = finish(d);
  TF_Operation *next = NODE(w.body_graph, "Add", "next", NULL, w.body_inputs[0].oper, i32s(w.body_graph, "one", 1));
  w.body_outputs[0] = out0(next);
  w.body_outputs[1] = w.body_inputs[1];
  w.body_outputs[2] = out0(write);
  w.name = "loop";
  TF_Output outs[3];
  TF_FinishWhile(&w, s, outs);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  d = desc(g, "TensorArrayGatherV3", "gather", GPU,
           IN(out0(ta), out0(i32c(g, "ix", NULL, (int64_t[]){3}, 1, (int32_t[]){0, 1, 2})), outs[2]));
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *gather = finish(d);
  TF_Output fetch = out0(gather);
  TF_Session *sess = session(g);
  TF_Tensor *got;
  run_ok(sess, NULL, NULL, 0, &fetch, 1, &got);
  EXPECT_EQ(TF_NumDims(got), 2);
  EXPECT_EQ(TF_Dim(got, 0), 3);
  EXPECT_EQ(TF_Dim(got, 1), 2);
  const float *x = TF_TensorData(got);
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(x[2 * i], 1.5f);
    EXPECT_EQ(x[2 * i + 1], -2.0f);
  }
  TF_DeleteTensor(got);
  const char *names[] = {"loop/body/write", "gather", "ta"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    TF_Operation *op = TF_GraphOperationByName(g, names[i]);
    if (!op) tfc_test_fail(__FILE__, __LINE__, "no node %s", names[i]);
    EXPECT_STREQ(placed(sess, op), GPU);
  }
  close_session(sess);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* TF 1.15 has no GPU kernel for a string TensorArray: pinned to the GPU without soft placement
 * it is refused, naming the node; with soft placement it runs on the CPU. */
static void a_string_tensor_array_has_no_gpu_kernel(void) {
  install(1);
  for (int soft = 0; soft <= 1; soft++) {
    TF_Graph *g = TF_NewGraph();
    TF_OperationDescription *d = desc(g, "TensorArrayV3", "ta", GPU, IN(out0(i32s(g, "n", 1))));
    TF_SetAttrType(d, "dtype", TF_STRING);
    TF_Operation *ta = finish(d);
    d = desc(g, "TensorArraySizeV3", "size", GPU, IN(out0(ta), (TF_Output){ta, 1}));
    TF_Operation *size = finish(d);
    TF_SessionOptions *o = TF_NewSessionOptions();
    TF_Status *s = TF_NewStatus();
    if (soft) {
      /* ConfigProto{allow_soft_placement: true} */
      static const uint8_t config[] = {0x38, 0x01};
      TF_SetConfig(o, config, sizeof config, s);
      EXPECT_EQ(TF_GetCode(s), TF_OK);
    }
    TF_Session *sess = TF_NewSession(g, o, s);
    EXPECT_EQ(TF_GetCode(s), TF_OK);
    TF_Output fetch = out0(size);
    TF_Tensor *got = NULL;
    TF_SessionRun(sess, NULL, NULL, NULL, 0, &fetch, &got, 1, NULL, 0, NULL, s);
    if (soft) {
      EXPECT_EQ(TF_GetCode(s), TF_OK);
      EXPECT_EQ(*(const int32_t *)TF_TensorData(got), 1);
      EXPECT_STREQ(placed(sess, ta), CPU);
      TF_DeleteTensor(got);
    } else {
      EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
      EXPECT_CONTAINS(TF_Message(s), "Cannot assign a device for operation");
      EXPECT_CONTAINS(TF_Message(s), "ta");
    }
    TF_CloseSession(sess, s);
    TF_DeleteSession(sess, s);
    TF_DeleteSessionOptions(o);
    TF_DeleteStatus(s);
    TF_DeleteGraph(g);
  }
}

/* The rows: TF's dtypes, every argument in host memory, the CPU kernels' functions. */
static void container_rows_keep_every_argument_in_host_memory(void) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_kernel_table t;
  tfc_kernel_table_init(&t, "GPU");
  EXPECT_EQ(tfc_gpu_kernels_host(&t, &s), TFC_OK);
  const int ops[] = {TFC_OP_TensorArrayV3, TFC_OP_TensorArrayWriteV3, TFC_OP_TensorArrayGatherV3,
                     TFC_OP_TensorArraySizeV3, TFC_OP_TensorListStack, TFC_OP_TensorListPushBack,
                     TFC_OP_StackPushV2, TFC_OP_StackPopV2};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    int n;
    const tfc_kernel_def *k = rows_of(&t, ops[i], &n);
    EXPECT_EQ(n, 1);
    EXPECT_EQ(k->host_memory_in, TFC_HOST_ALL);
    EXPECT_EQ(k->host_memory_out, TFC_HOST_ALL);
    EXPECT_TRUE(k->compute == cpu_row(ops[i])->compute);
  }
  int n;
  const tfc_kernel_def *k = rows_of(&t, TFC_OP_TensorArrayWriteV3, &n);
  EXPECT_STREQ(k->type_attr, "T");
  EXPECT_TRUE((k->types & TFC_T(TFC_DT_FLOAT)) && (k->types & TFC_T(TFC_DT_HALF)) && (k->types & TFC_T(TFC_DT_INT64)));
  EXPECT_TRUE(!(k->types & (TFC_T(TFC_DT_STRING) | TFC_T(TFC_DT_INT32))));
  k = rows_of(&t, TFC_OP_TensorListStack, &n);
  EXPECT_TRUE((k->types & TFC_T(TFC_DT_INT32)) && (k->types & TFC_T(TFC_DT_BOOL)));
  EXPECT_TRUE(!(k->types & TFC_T(TFC_DT_STRING)));
  k = rows_of(&t, TFC_OP_AddN, &n);
  EXPECT_EQ(n, 2); /* int32 and variant */
  tfc_kernel_table_fini(&t);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {
    TFC_TEST(stack_tensor_array_and_list_run_on_gpu0_as_on_the_cpu),
    TFC_TEST(a_while_loop_on_gpu0_fills_a_tensor_array),
    TFC_TEST(a_string_tensor_array_has_no_gpu_kernel),
    TFC_TEST(container_rows_keep_every_argument_in_host_memory),
    {0},
};

TFC_TEST_MAIN(tests)
