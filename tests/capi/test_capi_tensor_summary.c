/* C API contract tests: TFC_TensorSummary / TFC_AudioSummary and the TensorSummaryV2 /
 * AudioSummaryV2 kernels (include/tfc/summary.h): the nodes TF's tf.summary.tensor_summary,
 * text and audio make, and the serialized Summary, byte for byte what TensorFlow's kernels
 * output for the same inputs (recorded with tf.compat.v1: tensor_summary("t", [[1., 2.],
 * [3., 4.]], summary_description="desc"), text("notes", ["hello", "world"]) and
 * audio("st", [[[0.5, -0.5], [1.0, 0.0]]], 16000.)).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tfc/summary.h"
#include "tfc/train.h"

/* Hex of TF's outputs. */
#define TF_FLOAT_SUMMARY                                                                           \
  "0a2b0a0174421e08011208120208021202080222100000803f0000004000004040000080404a061a0464657363"
#define TF_TEXT_SUMMARY                                                                            \
  "0a290a056e6f74657342160807120412020802420568656c6c6f4205776f726c644a080a060a0474657874"

#define TF_AUDIO_SUMMARY                                                                           \
  "0a580a0a73742f617564696f2f30324a0d00007a46100218022234524946462c00000057415645666d742010000000" \
  "01000200803e000000fa0000040010006461746108000000004000c0ff7f00002a09617564696f2f776176"

static char *hex(const void *data, size_t n) {
  char *r = malloc(2 * n + 1);
  for (size_t i = 0; i < n; i++) snprintf(r + 2 * i, 3, "%02x", ((const unsigned char *)data)[i]);
  r[2 * n] = 0;
  return r;
}

/* Runs the summary and returns its bytes as hex (caller frees). */
static char *run_summary(TF_Graph *g, TF_Output summary) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  OK(s);
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &summary, &out, 1, NULL, 0, NULL, s);
  OK(s);
  EXPECT_EQ(TF_TensorType(out), TF_STRING);
  /* TF 1.x's string layout: one uint64 offset, then the varint-prefixed bytes. */
  const char *base = (const char *)TF_TensorData(out) + 8, *dst = NULL;
  size_t dst_len = 0;
  TF_StringDecode(base, TF_TensorByteSize(out) - 8, &dst, &dst_len, s);
  OK(s);
  char *r = hex(dst, dst_len);
  TF_DeleteTensor(out);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteStatus(s);
  return r;
}

static void tensor_summary_serializes_as_tensorflow(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  const int64_t dims[2] = {2, 2};
  const float v[4] = {1, 2, 3, 4};
  TF_Output x = capi_const(g, "Const", TF_FLOAT, dims, 2, v, sizeof v, s);
  static const unsigned char meta[] = {0x1a, 0x04, 'd', 'e', 's', 'c'}; /* summary_description */
  TF_Output sum = TFC_TensorSummary(root, "t", NULL, x, meta, sizeof meta, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(sum.oper), "t");
  EXPECT_STREQ(TF_OperationOpType(sum.oper), "TensorSummaryV2");
  EXPECT_TRUE(TF_GraphOperationByName(g, "t/tag") != NULL);
  EXPECT_TRUE(TF_GraphOperationByName(g, "t/serialized_summary_metadata") != NULL);
  EXPECT_EQ(TFC_CollectionSize(g, "summaries"), 1);
  char *got = run_summary(g, sum);
  EXPECT_STREQ(got, TF_FLOAT_SUMMARY);
  free(got);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void text_summary_keeps_strings_in_string_val(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  int64_t two = 2;
  size_t each = TF_StringEncodedSize(5);
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, &two, 1, 16 + 2 * each);
  char *data = (char *)TF_TensorData(t);
  uint64_t offsets[2] = {0, each};
  memcpy(data, offsets, sizeof offsets);
  TF_StringEncode("hello", 5, data + 16, each, s);
  TF_StringEncode("world", 5, data + 16 + each, each, s);
  OK(s);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", "Const");
  TF_SetAttrTensor(d, "value", t, s);
  OK(s);
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_Output x = {TF_FinishOperation(d, s), 0};
  OK(s);
  TF_DeleteTensor(t);
  /* SummaryMetadata{plugin_data {plugin_name: "text"}} */
  static const unsigned char meta[] = {0x0a, 0x06, 0x0a, 0x04, 't', 'e', 'x', 't'};
  TF_Output sum = TFC_TensorSummary(root, "notes", NULL, x, meta, sizeof meta, s);
  OK(s);
  char *got = run_summary(g, sum);
  EXPECT_STREQ(got, TF_TEXT_SUMMARY);
  free(got);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void tensor_summary_errors(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  const float v[1] = {1};
  TF_Output x = capi_const(g, "Const", TF_FLOAT, NULL, 0, v, sizeof v, s);
  int before = capi_num_ops(g);
  TF_Output sum = TFC_TensorSummary(root, NULL, NULL, x, NULL, 0, s);
  EXPECT_TRUE(sum.oper == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_EQ(capi_num_ops(g), before);
  EXPECT_EQ(TFC_CollectionSize(g, "summaries"), 0);
  /* Metadata that does not parse fails at run time. */
  static const unsigned char bad[] = {0x0a, 0x09, 0x01};
  sum = TFC_TensorSummary(root, "x", NULL, x, bad, sizeof bad, s);
  OK(s);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  OK(s);
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &sum, &out, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_TRUE(strstr(TF_Message(s), "SummaryMetadata") != NULL);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void audio_summary_encodes_wav_as_tensorflow(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  const int64_t dims[3] = {1, 2, 2};
  const float v[4] = {0.5f, -0.5f, 1.0f, 0.0f};
  TF_Output x = capi_const(g, "Const", TF_FLOAT, dims, 3, v, sizeof v, s);
  TF_Output sum = TFC_AudioSummary(root, "st", NULL, x, 16000.0f, 3, s);
  OK(s);
  EXPECT_STREQ(TF_OperationOpType(sum.oper), "AudioSummaryV2");
  EXPECT_TRUE(TF_GraphOperationByName(g, "st/sample_rate") != NULL);
  char *got = run_summary(g, sum);
  EXPECT_STREQ(got, TF_AUDIO_SUMMARY);
  free(got);
  /* max_outputs < 1 is refused while building; a 1-D tensor at run time. */
  int before = capi_num_ops(g);
  EXPECT_TRUE(TFC_AudioSummary(root, "bad", NULL, x, 16000.0f, 0, s).oper == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_EQ(capi_num_ops(g), before);
  const int64_t four = 4;
  TF_Output flat = capi_const(g, "flat", TF_FLOAT, &four, 1, v, sizeof v, s);
  TF_Output bad = TFC_AudioSummary(root, "flat_audio", NULL, flat, 8000.0f, 3, s);
  OK(s);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  OK(s);
  TF_Tensor *out = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &bad, &out, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_TRUE(strstr(TF_Message(s), "Tensor must be 3-D or 2-D, got: [4]") != NULL);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static const tfc_test tests[] = {
    TFC_TEST(audio_summary_encodes_wav_as_tensorflow),
    TFC_TEST(tensor_summary_serializes_as_tensorflow),
    TFC_TEST(text_summary_keeps_strings_in_string_val),
    TFC_TEST(tensor_summary_errors),
    {0},
};

TFC_TEST_MAIN(tests)
