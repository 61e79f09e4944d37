/* C API contract tests: c_api_experimental.h — config and run-option bytes as TensorFlow makes
 * them (tests/fixtures/gen_capi_registry.py), the XLA switches, TF_GraphDebugString, the
 * named-tensor queue helpers, the TF_CheckpointReader functions, the attr builder,
 * TF_InitMain and TF_PickUnusedPortOrDie. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/c/c_api_experimental.h"

#include "../fixtures/capi_registry_tf.inc"

static char *hex(const TF_Buffer *b) {
  char *h = malloc(b->length * 2 + 1);
  for (size_t i = 0; i < b->length; i++) sprintf(h + 2 * i, "%02x", ((const unsigned char *)b->data)[i]);
  h[b->length * 2] = '\0';
  return h;
}

static void expect_buffer_hex(TF_Buffer *b, const char *want) {
  EXPECT_TRUE(b != NULL);
  char *h = hex(b);
  EXPECT_STREQ(h, want);
  free(h);
  TF_DeleteBuffer(b);
}

static void create_config_and_run_options_are_tensorflows_bytes(void) {
  expect_buffer_hex(TF_CreateConfig(1, 1, 3), TF_CONFIG_1_1_3);
  expect_buffer_hex(TF_CreateConfig(0, 0, 1), TF_CONFIG_0_0_1);
  expect_buffer_hex(TF_CreateRunOptions(1), TF_RUN_OPTIONS_1);
  expect_buffer_hex(TF_CreateRunOptions(0), TF_RUN_OPTIONS_0);
  /* and a session takes the config */
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Buffer *c = TF_CreateConfig(0, 1, 2);
  TF_SetConfig(o, c->data, c->length, s);
  OK(s);
  TF_EnableXLACompilation(o, 1);
  TF_Graph *g = TF_NewGraph();
  TF_Session *sess = TF_NewSession(g, o, s);
  OK(s);
  TF_DeviceList *dl = TF_SessionListDevices(sess, s);
  EXPECT_EQ(TF_DeviceListCount(dl), 2);
  TF_DeleteDeviceList(dl);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteBuffer(c);
  TF_DeleteSessionOptions(o);
  TF_DeleteStatus(s);
}

static void xla_switches_keep_what_was_set(void) {
  EXPECT_EQ(TF_SetXlaEnableLazyCompilation(0), 1);
  EXPECT_EQ(TF_SetXlaEnableLazyCompilation(1), 0);
  EXPECT_EQ(TF_SetTfXlaCpuGlobalJit(1), 0);
  EXPECT_EQ(TF_SetTfXlaCpuGlobalJit(0), 1);
  EXPECT_EQ(TF_GetXlaConstantFoldingDisabled(), 0);
  TF_SetXlaConstantFoldingDisabled(1);
  EXPECT_EQ(TF_GetXlaConstantFoldingDisabled(), 1);
  TF_SetXlaConstantFoldingDisabled(0);
  TF_SetXlaAutoJitMode("ON_2");
  TF_SetXlaMinClusterSize(4);
  int argc = 2;
  char *args[] = {(char *)"prog", (char *)"--flag", NULL};
  char **argv = args;
  TF_InitMain("usage", &argc, &argv);
  EXPECT_EQ(argc, 2);
  EXPECT_STREQ(argv[1], "--flag");
}

static void graph_debug_string_is_the_graphdefs_text(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  const float v = 1.5f;
  capi_const(g, "c", TF_FLOAT, NULL, 0, &v, sizeof v, s);
  size_t len = 0;
  const char *text = TF_GraphDebugString(g, &len);
  /* What TF's GraphDef DebugString (and Python's text_format) prints for these bytes: the
   * value as tensor_content, as TF_SetAttrTensor stores it. */
  const char *want = "node {\n"
                     "  name: \"c\"\n"
                     "  op: \"Const\"\n"
                     "  attr {\n"
                     "    key: \"dtype\"\n"
                     "    value {\n"
                     "      type: DT_FLOAT\n"
                     "    }\n"
                     "  }\n"
                     "  attr {\n"
                     "    key: \"value\"\n"
                     "    value {\n"
                     "      tensor {\n"
                     "        dtype: DT_FLOAT\n"
                     "        tensor_shape {\n"
                     "        }\n"
                     "        tensor_content: \"\\000\\000\\300?\"\n"
                     "      }\n"
                     "    }\n"
                     "  }\n"
                     "}\n"
                     "versions {\n"
                     "  producer: 134\n"
                     "}\n";
  EXPECT_STREQ(text, want);
  EXPECT_EQ(len, strlen(want));
  free((void *)text);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static TF_Operation *queue_node(TF_Graph *g, const char *type, const char *name, TF_Output *in, int n_in, int list) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  if (n_in) TF_AddInput(d, in[0]);
  if (list) TF_AddInputList(d, in + 1, 1);
  TF_DataType f = TF_FLOAT;
  if (!strcmp(type, "FIFOQueueV2") || !strcmp(type, "QueueDequeueV2")) TF_SetAttrTypeList(d, "component_types", &f, 1);
  return capi_finish(d);
}

static void named_tensors_go_through_the_graphs_fifo_queue(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Operation *q = queue_node(g, "FIFOQueueV2", "fifo_queue_0", NULL, 0, 0);
  TF_OperationDescription *pd = TF_NewOperation(g, "Placeholder", "arg_tensor_enqueue_0");
  TF_SetAttrType(pd, "dtype", TF_FLOAT);
  TF_Operation *ph = capi_finish(pd);
  TF_Output qin[2] = {{q, 0}, {ph, 0}};
  queue_node(g, "QueueEnqueueV2", "fifo_queue_enqueue_0", qin, 1, 1);
  queue_node(g, "QueueDequeueV2", "fifo_queue_dequeue_0", qin, 1, 0);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  OK(s);
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, (int64_t[]){2}, 1, 8);
  ((float *)TF_TensorData(t))[0] = 3;
  ((float *)TF_TensorData(t))[1] = -4;
  TF_EnqueueNamedTensor(sess, 0, t, s);
  OK(s);
  TF_DeleteTensor(t);
  TF_Tensor *out = TF_DequeueNamedTensor(sess, 0, s);
  OK(s);
  EXPECT_EQ(TF_Dim(out, 0), 2);
  EXPECT_EQ(((float *)TF_TensorData(out))[1], -4);
  TF_DeleteTensor(out);
  /* no such queue: TF's INTERNAL texts */
  EXPECT_TRUE(TF_DequeueNamedTensor(sess, 7, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INTERNAL);
  EXPECT_STREQ(TF_Message(s), "Unable to find the dequeue node in the TF graph.");
  TF_EnqueueNamedTensor(sess, 7, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INTERNAL);
  EXPECT_STREQ(TF_Message(s), "Unable to find the enqueue node in the TF graph.");
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void checkpoint_reader_reads_tensorflows_checkpoint(void) {
  TF_Status *s = TF_NewStatus();
  TF_CheckpointReader *r = TF_NewCheckpointReader(TFC_FIXTURE_DIR "/meta_graph_tf/model.ckpt-5", s);
  OK(s);
  EXPECT_EQ(TF_CheckpointReaderSize(r), 3);
  EXPECT_STREQ(TF_CheckpointReaderGetVariable(r, 0), "b");
  EXPECT_STREQ(TF_CheckpointReaderGetVariable(r, 2), "w");
  EXPECT_TRUE(TF_CheckpointReaderHasTensor(r, "w"));
  EXPECT_TRUE(!TF_CheckpointReaderHasTensor(r, "nope"));
  EXPECT_EQ(TF_CheckpointReaderGetVariableDataType(r, "w"), TF_FLOAT);
  EXPECT_EQ(TF_CheckpointReaderGetVariableDataType(r, "global_step"), TF_INT64);
  EXPECT_EQ(TF_CheckpointReaderGetVariableNumDims(r, "w"), 2);
  int64_t dims[2] = {0, 0};
  TF_CheckpointReaderGetVariableShape(r, "w", dims, 2, s);
  OK(s);
  EXPECT_EQ(dims[0], 2);
  EXPECT_EQ(dims[1], 3);
  TF_Tensor *w = TF_CheckpointReaderGetTensor(r, "w", s);
  OK(s);
  EXPECT_EQ(TF_TensorElementCount(w), 6);
  TF_DeleteTensor(w);
  EXPECT_TRUE(TF_CheckpointReaderGetTensor(r, "nope", s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_STREQ(TF_Message(s), "Key nope not found in checkpoint");
  TF_DeleteCheckpointReader(r);
  EXPECT_TRUE(TF_NewCheckpointReader(TFC_BINARY_DIR "/no/ckpt", s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  TF_DeleteStatus(s);
}

static void attr_builder_asks_the_kernel_tables(void) {
  TF_Status *s = TF_NewStatus();
  TF_AttrBuilder *b = TF_NewAttrBuilder("MatMul");
  TF_AttrBuilderSetType(b, "T", TF_FLOAT);
  TF_AttrBuilderCheckCanRunOnDevice(b, "CPU", s);
  OK(s);
  TF_AttrBuilderSetType(b, "T", TF_STRING); /* replaces */
  TF_AttrBuilderCheckCanRunOnDevice(b, "CPU", s);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(s), "MatMul");
  TF_AttrBuilderCheckCanRunOnDevice(b, "TPU", s);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  TF_DeleteAttrBuilder(b);
  b = TF_NewAttrBuilder("IdentityN");
  TF_DataType ts[2] = {TF_FLOAT, TF_INT32};
  TF_AttrBuilderSetTypeList(b, "T", ts, 2);
  TF_AttrBuilderCheckCanRunOnDevice(b, "CPU", s);
  OK(s);
  TF_DeleteAttrBuilder(b);
  b = TF_NewAttrBuilder("NoSuchOp");
  TF_AttrBuilderCheckCanRunOnDevice(b, "CPU", s);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(s), "NoSuchOp");
  TF_DeleteAttrBuilder(b);
  TF_DeleteStatus(s);
}

static void pick_unused_port_gives_a_bindable_port(void) {
  int p = TF_PickUnusedPortOrDie();
  EXPECT_TRUE(p > 0 && p < 65536);
}

static const tfc_test tests[] = {
    TFC_TEST(create_config_and_run_options_are_tensorflows_bytes),
    TFC_TEST(xla_switches_keep_what_was_set),
    TFC_TEST(graph_debug_string_is_the_graphdefs_text),
    TFC_TEST(named_tensors_go_through_the_graphs_fifo_queue),
    TFC_TEST(checkpoint_reader_reads_tensorflows_checkpoint),
    TFC_TEST(attr_builder_asks_the_kernel_tables),
    TFC_TEST(pick_unused_port_gives_a_bindable_port),
    {0}};
TFC_TEST_MAIN(tests)
