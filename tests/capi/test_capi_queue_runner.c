/* C API contract tests for queues, readers and queue runners (ops_data.def,
 * include/tfc/queue_runner.h): blocking under a RunOptions deadline, shared queues, TFRecord
 * readers over several files, the coordinator and its runner threads, and closing or deleting
 * a session while a run is blocked in a queue. Codes and texts are TF's. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capi_util.h"
#include "harness.h"
#include "io/record.h"
#include "tensorflow/c/c_api.h"
#include "tfc/queue_runner.h"
#include "tfc/train.h"



static TF_Operation *queue(TF_Graph *g, const char *name, const char *type, TF_DataType dt, int scalar_shape,
                           int64_t cap, const char *shared) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_SetAttrTypeList(d, "component_types", &dt, 1);
  if (scalar_shape) {
    const int64_t *dims[1] = {NULL};
    int nd[1] = {0};
    TF_SetAttrShapeList(d, "shapes", dims, nd, 1);
  }
  TF_SetAttrInt(d, "capacity", cap);
  if (shared) TF_SetAttrString(d, "shared_name", shared, strlen(shared));
  return capi_finish(d);
}

static TF_Operation *fconst(TF_Graph *g, const char *name, const float *v, int64_t n, int vector) {
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, &n, vector ? 1 : 0, sizeof(float) * (size_t)n);
  memcpy(TF_TensorData(t), v, sizeof(float) * (size_t)n);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_Status *s = TF_NewStatus();
  TF_SetAttrTensor(d, "value", t, s);
  OK(s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_DeleteStatus(s);
  TF_DeleteTensor(t);
  return capi_finish(d);
}

static TF_Operation *enqueue(TF_Graph *g, const char *name, const char *type, TF_Operation *q, TF_Output v) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, (TF_Output){q, 0});
  TF_AddInputList(d, &v, 1);
  return capi_finish(d);
}

static TF_Operation *unary(TF_Graph *g, const char *name, const char *type, TF_Operation *q) {
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  TF_AddInput(d, (TF_Output){q, 0});
  if (strstr(type, "Dequeue")) {
    TF_DataType dt = TF_FLOAT;
    TF_SetAttrTypeList(d, "component_types", &dt, 1);
  }
  return capi_finish(d);
}

static TF_Operation *close_op(TF_Graph *g, const char *name, TF_Operation *q, int cancel) {
  TF_OperationDescription *d = TF_NewOperation(g, "QueueCloseV2", name);
  TF_AddInput(d, (TF_Output){q, 0});
  TF_SetAttrBool(d, "cancel_pending_enqueues", (unsigned char)cancel);
  return capi_finish(d);
}

static TF_Session *new_session(TF_Graph *g) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  OK(s);
  TF_DeleteSessionOptions(o);
  TF_DeleteStatus(s);
  return sess;
}

/* Runs target (and fetches out when given); returns the code, message into msg. */
static int run(TF_Session *sess, TF_Operation *target, TF_Output *fetch, TF_Tensor **out, int timeout_ms,
               char *msg, size_t cap) {
  TF_Status *s = TF_NewStatus();
  /* RunOptions { timeout_in_ms (field 2) } */
  unsigned char ro[8] = {0x10};
  size_t n = 1;
  for (unsigned v = (unsigned)timeout_ms; ; v >>= 7) {
    ro[n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    if (v <= 0x7f) break;
  }
  TF_Buffer *opts = timeout_ms > 0 ? TF_NewBufferFromString(ro, n) : NULL;
  TF_SessionRun(sess, opts, NULL, NULL, 0, fetch, out, fetch ? 1 : 0, target ? (const TF_Operation *const *)&target : NULL,
                target ? 1 : 0, NULL, s);
  int code = TF_GetCode(s);
  if (msg) snprintf(msg, cap, "%s", TF_Message(s));
  TF_DeleteBuffer(opts);
  TF_DeleteStatus(s);
  return code;
}

static int32_t size_of(TF_Session *sess, TF_Operation *size) {
  TF_Output f = {size, 0};
  TF_Tensor *t = NULL;
  EXPECT_EQ(run(sess, NULL, &f, &t, 0, NULL, 0), TF_OK);
  int32_t v = *(int32_t *)TF_TensorData(t);
  TF_DeleteTensor(t);
  return v;
}

static float dequeue_value(TF_Session *sess, TF_Operation *deq) {
  TF_Output f = {deq, 0};
  TF_Tensor *t = NULL;
  char msg[512];
  if (run(sess, NULL, &f, &t, 0, msg, sizeof msg) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s", msg);
  float v = *(float *)TF_TensorData(t);
  TF_DeleteTensor(t);
  return v;
}

static void blocked_enqueue_times_out_and_leaves_queue_unchanged(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *q = queue(g, "fq", "FIFOQueueV2", TF_FLOAT, 1, 2, NULL);
  float one = 1;
  TF_Operation *c = fconst(g, "c", &one, 1, 0);
  TF_Operation *enq = enqueue(g, "fq_enqueue", "QueueEnqueueV2", q, (TF_Output){c, 0});
  TF_Operation *deq = unary(g, "fq_Dequeue", "QueueDequeueV2", q);
  TF_Operation *size = unary(g, "fq_Size", "QueueSizeV2", q);
  TF_Session *sess = new_session(g);
  char msg[1024];
  EXPECT_EQ(run(sess, enq, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  EXPECT_EQ(run(sess, enq, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  EXPECT_EQ(run(sess, enq, NULL, NULL, 100, msg, sizeof msg), TF_DEADLINE_EXCEEDED);
  EXPECT_CONTAINS(msg, "Timed out after 100 ms");
  EXPECT_EQ(size_of(sess, size), 2);
  EXPECT_EQ(dequeue_value(sess, deq), 1);
  EXPECT_EQ(dequeue_value(sess, deq), 1);
  /* an empty queue: the dequeue times out too, and the queue still works afterwards */
  TF_Output f = {deq, 0};
  TF_Tensor *t = NULL;
  EXPECT_EQ(run(sess, NULL, &f, &t, 100, msg, sizeof msg), TF_DEADLINE_EXCEEDED);
  EXPECT_CONTAINS(msg, "fq_Dequeue (blocked on queue '_0_fq')");
  EXPECT_TRUE(t == NULL);
  EXPECT_EQ(run(sess, enq, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  EXPECT_EQ(size_of(sess, size), 1);
  EXPECT_EQ(dequeue_value(sess, deq), 1);
  TF_Status *s = TF_NewStatus();
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* A step of one partition whose dequeue waits on an empty queue while another node of the
 * same step fails: the failure wakes the dequeue and the step reports it (no hang). */
static void failing_node_wakes_blocked_dequeue_in_same_step(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *q = queue(g, "fq", "FIFOQueueV2", TF_FLOAT, 1, 2, NULL);
  TF_Operation *deq = unary(g, "fq_Dequeue", "QueueDequeueV2", q);
  TF_Status *s = TF_NewStatus();
  TF_Tensor *f = TF_AllocateTensor(TF_BOOL, NULL, 0, 1);
  *(unsigned char *)TF_TensorData(f) = 0;
  TF_OperationDescription *d = TF_NewOperation(g, "Const", "cond");
  TF_SetAttrTensor(d, "value", f, s);
  OK(s);
  TF_SetAttrType(d, "dtype", TF_BOOL);
  TF_Operation *cond = capi_finish(d);
  TF_DeleteTensor(f);
  float one = 1;
  TF_Operation *c = fconst(g, "c", &one, 1, 0);
  d = TF_NewOperation(g, "Assert", "check");
  TF_AddInput(d, (TF_Output){cond, 0});
  TF_Output data = {c, 0};
  TF_AddInputList(d, &data, 1);
  TF_Operation *check = capi_finish(d);
  d = TF_NewOperation(g, "NoOp", "both");
  TF_AddControlInput(d, deq);
  TF_AddControlInput(d, check);
  TF_Operation *both = capi_finish(d);
  TF_Session *sess = new_session(g);
  char msg[1024];
  EXPECT_EQ(run(sess, both, NULL, NULL, 0, msg, sizeof msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "assertion failed: [1]");
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void close_then_drain_then_out_of_range_with_node(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *q = queue(g, "fq", "FIFOQueueV2", TF_FLOAT, 1, 5, NULL);
  float v[3] = {1, 2, 3};
  TF_Operation *c = fconst(g, "c", v, 3, 1);
  TF_Operation *enq = enqueue(g, "fq_EnqueueMany", "QueueEnqueueManyV2", q, (TF_Output){c, 0});
  TF_Operation *deq = unary(g, "fq_Dequeue", "QueueDequeueV2", q);
  TF_Operation *cl = close_op(g, "fq_Close", q, 0);
  TF_Operation *closed = unary(g, "fq_IsClosed", "QueueIsClosedV2", q);
  TF_Session *sess = new_session(g);
  char msg[1024];
  EXPECT_EQ(run(sess, enq, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  EXPECT_EQ(run(sess, cl, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  EXPECT_EQ(run(sess, enq, NULL, NULL, 0, msg, sizeof msg), TF_CANCELLED);
  EXPECT_CONTAINS(msg, "FIFOQueue '_0_fq' is closed.");
  EXPECT_CONTAINS(msg, "fq_EnqueueMany");
  TF_Output f = {closed, 0};
  TF_Tensor *t = NULL;
  EXPECT_EQ(run(sess, NULL, &f, &t, 0, msg, sizeof msg), TF_OK);
  EXPECT_EQ(*(unsigned char *)TF_TensorData(t), 1);
  TF_DeleteTensor(t);
  for (int i = 0; i < 3; i++) EXPECT_EQ(dequeue_value(sess, deq), v[i]);
  TF_Output d = {deq, 0};
  EXPECT_EQ(run(sess, NULL, &d, &t, 0, msg, sizeof msg), TF_OUT_OF_RANGE);
  EXPECT_CONTAINS(msg, "FIFOQueue '_0_fq' is closed and has insufficient elements (requested 1, current size 0)");
  EXPECT_CONTAINS(msg, "[[{{node fq_Dequeue}}]]");
  TF_Status *s = TF_NewStatus();
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void shared_name_shares_one_queue_and_checks_attrs(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *q1 = queue(g, "q1", "FIFOQueueV2", TF_FLOAT, 1, 5, "shq");
  TF_Operation *q2 = queue(g, "q2", "FIFOQueueV2", TF_FLOAT, 1, 5, "shq");
  TF_Operation *q3 = queue(g, "q3", "FIFOQueueV2", TF_FLOAT, 1, 7, "shq");
  float one = 7;
  TF_Operation *c = fconst(g, "c", &one, 1, 0);
  TF_Operation *enq = enqueue(g, "q1_enqueue", "QueueEnqueueV2", q1, (TF_Output){c, 0});
  TF_Operation *size2 = unary(g, "q2_Size", "QueueSizeV2", q2);
  TF_Operation *deq2 = unary(g, "q2_Dequeue", "QueueDequeueV2", q2);
  TF_Operation *size3 = unary(g, "q3_Size", "QueueSizeV2", q3);
  TF_Session *sess = new_session(g);
  char msg[1024];
  EXPECT_EQ(run(sess, enq, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  EXPECT_EQ(size_of(sess, size2), 1);
  EXPECT_EQ(dequeue_value(sess, deq2), 7);
  TF_Output f = {size3, 0};
  TF_Tensor *t = NULL;
  EXPECT_EQ(run(sess, NULL, &f, &t, 0, msg, sizeof msg), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(msg, "Shared queue 'shq' has capacity 5 but requested capacity was 7");
  TF_Status *s = TF_NewStatus();
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* ---------------- readers ---------------- */

static void write_records_as(const char *path, int file, int n, tfc_compression c) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_record_writer *w = tfc_record_writer_open(path, c, 0, &s);
  if (!w) tfc_test_fail(__FILE__, __LINE__, "%s", tfc_status_msg(&s));
  for (int i = 0; i < n; i++) {
    char rec[32];
    int len = snprintf(rec, sizeof rec, "rec%d_%d", file, i);
    tfc_record_write(w, rec, (size_t)len, &s);
  }
  EXPECT_EQ(tfc_record_writer_close(w, &s), TFC_OK);
  tfc_status_fini(&s);
}

static void write_records(const char *path, int file, int n) { write_records_as(path, file, n, TFC_COMPRESSION_NONE); }

static TF_Operation *string_const(TF_Graph *g, const char *name, char **v, int n) {
  int64_t dims = n;
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, &dims, 1, 0);
  /* TF 1.x layout: offsets then varint-length-prefixed bytes */
  size_t total = 8 * (size_t)n;
  for (int i = 0; i < n; i++) total += 1 + strlen(v[i]);
  TF_DeleteTensor(t);
  t = TF_AllocateTensor(TF_STRING, &dims, 1, total);
  char *base = TF_TensorData(t), *p = base + 8 * n;
  for (int i = 0; i < n; i++) {
    uint64_t off = (uint64_t)(p - (base + 8 * n));
    memcpy(base + 8 * i, &off, 8);
    size_t len = strlen(v[i]);
    *p++ = (char)len;
    memcpy(p, v[i], len);
    p += len;
  }
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_Status *s = TF_NewStatus();
  TF_SetAttrTensor(d, "value", t, s);
  OK(s);
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_DeleteStatus(s);
  TF_DeleteTensor(t);
  return capi_finish(d);
}

static void string_at(TF_Tensor *t, int i, char *out, size_t cap) {
  int64_t n = TF_TensorElementCount(t);
  const char *base = TF_TensorData(t);
  uint64_t off;
  memcpy(&off, base + 8 * i, 8);
  const char *src = base + 8 * n + off;
  size_t len = 0;
  TF_Status *s = TF_NewStatus();
  const char *dst = NULL;
  TF_StringDecode(src, TF_TensorByteSize(t) - 8 * (size_t)n - off, &dst, &len, s);
  OK(s);
  snprintf(out, cap, "%.*s", (int)len, dst);
  TF_DeleteStatus(s);
}

static void reader_reads_files_in_order_with_keys_then_out_of_range(void) {
  char dir[] = "/tmp/tfc_reader_XXXXXX";
  EXPECT_TRUE(mkdtemp(dir) != NULL);
  char f0[128], f1[128];
  snprintf(f0, sizeof f0, "%s/f0.tfrecord", dir);
  snprintf(f1, sizeof f1, "%s/f1.tfrecord", dir);
  write_records(f0, 0, 2);
  write_records(f1, 1, 3);
  TF_Graph *g = TF_NewGraph();
  TF_Operation *files = queue(g, "files", "FIFOQueueV2", TF_STRING, 1, 10, NULL);
  char *names[2] = {f0, f1};
  TF_Operation *c = string_const(g, "names", names, 2);
  TF_Operation *enq = enqueue(g, "files_EnqueueMany", "QueueEnqueueManyV2", files, (TF_Output){c, 0});
  TF_Operation *cl = close_op(g, "files_Close", files, 0);
  TF_OperationDescription *d = TF_NewOperation(g, "TFRecordReaderV2", "rdr");
  TF_Operation *rdr = capi_finish(d);
  d = TF_NewOperation(g, "ReaderReadV2", "ReaderReadV2");
  TF_AddInput(d, (TF_Output){rdr, 0});
  TF_AddInput(d, (TF_Output){files, 0});
  TF_Operation *read = capi_finish(d);
  d = TF_NewOperation(g, "ReaderNumRecordsProducedV2", "produced");
  TF_AddInput(d, (TF_Output){rdr, 0});
  TF_Operation *produced = capi_finish(d);
  d = TF_NewOperation(g, "ReaderNumWorkUnitsCompletedV2", "completed");
  TF_AddInput(d, (TF_Output){rdr, 0});
  TF_Operation *completed = capi_finish(d);
  TF_Session *sess = new_session(g);
  char msg[1024];
  EXPECT_EQ(run(sess, enq, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  EXPECT_EQ(run(sess, cl, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  const char *want_vals[5] = {"rec0_0", "rec0_1", "rec1_0", "rec1_1", "rec1_2"};
  const char *want_files[5] = {f0, f0, f1, f1, f1};
  const int want_off[5] = {0, 22, 0, 22, 44}; /* 12 + 6 + 4 bytes per record */
  TF_Status *s = TF_NewStatus();
  for (int i = 0; i < 5; i++) {
    TF_Output outs[2] = {{read, 0}, {read, 1}};
    TF_Tensor *vals[2] = {NULL, NULL};
    TF_SessionRun(sess, NULL, NULL, NULL, 0, outs, vals, 2, NULL, 0, NULL, s);
    OK(s);
    char key[256], val[64], want_key[256];
    string_at(vals[0], 0, key, sizeof key);
    string_at(vals[1], 0, val, sizeof val);
    snprintf(want_key, sizeof want_key, "%s:%d", want_files[i], want_off[i]);
    EXPECT_STREQ(key, want_key);
    EXPECT_STREQ(val, want_vals[i]);
    TF_DeleteTensor(vals[0]);
    TF_DeleteTensor(vals[1]);
  }
  TF_Output o = {read, 0};
  TF_Tensor *t = NULL;
  EXPECT_EQ(run(sess, NULL, &o, &t, 0, msg, sizeof msg), TF_OUT_OF_RANGE);
  EXPECT_CONTAINS(msg, "FIFOQueue '_0_files' is closed and has insufficient elements (requested 1, current size 0)");
  o = (TF_Output){produced, 0};
  EXPECT_EQ(run(sess, NULL, &o, &t, 0, msg, sizeof msg), TF_OK);
  EXPECT_EQ(*(int64_t *)TF_TensorData(t), 5);
  TF_DeleteTensor(t);
  o = (TF_Output){completed, 0};
  EXPECT_EQ(run(sess, NULL, &o, &t, 0, msg, sizeof msg), TF_OK);
  EXPECT_EQ(*(int64_t *)TF_TensorData(t), 2);
  TF_DeleteTensor(t);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  unlink(f0);
  unlink(f1);
  rmdir(dir);
}

/* ---------------- runners and the coordinator ---------------- */

/* A reader of `compression` over one file: the values of its first n reads (then the status
 * of read n + 1 in msg). */
static int read_file_records(const char *path, const char *compression, int n, char vals[][64], char keys[][256],
                             char *msg, size_t cap) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *files = queue(g, "files", "FIFOQueueV2", TF_STRING, 1, 10, NULL);
  char *names[1] = {(char *)path};
  TF_Operation *c = string_const(g, "names", names, 1);
  TF_Operation *enq = enqueue(g, "files_EnqueueMany", "QueueEnqueueManyV2", files, (TF_Output){c, 0});
  TF_Operation *cl = close_op(g, "files_Close", files, 0);
  TF_OperationDescription *d = TF_NewOperation(g, "TFRecordReaderV2", "rdr");
  TF_SetAttrString(d, "compression_type", compression, strlen(compression));
  TF_Operation *rdr = capi_finish(d);
  d = TF_NewOperation(g, "ReaderReadV2", "ReaderReadV2");
  TF_AddInput(d, (TF_Output){rdr, 0});
  TF_AddInput(d, (TF_Output){files, 0});
  TF_Operation *read = capi_finish(d);
  TF_Session *sess = new_session(g);
  EXPECT_EQ(run(sess, enq, NULL, NULL, 0, msg, cap), TF_OK);
  EXPECT_EQ(run(sess, cl, NULL, NULL, 0, msg, cap), TF_OK);
  TF_Status *s = TF_NewStatus();
  int code = TF_OK;
  for (int i = 0; i <= n && code == TF_OK; i++) {
    TF_Output outs[2] = {{read, 0}, {read, 1}};
    TF_Tensor *v[2] = {NULL, NULL};
    TF_SessionRun(sess, NULL, NULL, NULL, 0, outs, v, 2, NULL, 0, NULL, s);
    code = TF_GetCode(s);
    snprintf(msg, cap, "%s", TF_Message(s));
    if (code == TF_OK && i < n) {
      string_at(v[0], 0, keys[i], 256);
      string_at(v[1], 0, vals[i], 64);
    }
    TF_DeleteTensor(v[0]);
    TF_DeleteTensor(v[1]);
  }
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  return code;
}

/* GZIP files read through the reader op (keys carry uncompressed offsets); a flipped byte in
 * a plain file is DATA_LOSS naming the file and the record's offset. */
static void reader_reads_gzip_and_reports_corruption(void) {
  char dir[] = "/tmp/tfc_reader_XXXXXX";
  EXPECT_TRUE(mkdtemp(dir) != NULL);
  char gz[128], bad[128], msg[1024], vals[3][64], keys[3][256], want[300];
  snprintf(gz, sizeof gz, "%s/f.tfrecord.gz", dir);
  snprintf(bad, sizeof bad, "%s/bad.tfrecord", dir);
  write_records_as(gz, 7, 2, TFC_COMPRESSION_GZIP);
  EXPECT_EQ(read_file_records(gz, "GZIP", 2, vals, keys, msg, sizeof msg), TF_OUT_OF_RANGE);
  EXPECT_STREQ(vals[0], "rec7_0");
  EXPECT_STREQ(vals[1], "rec7_1");
  snprintf(want, sizeof want, "%s:22", gz);
  EXPECT_STREQ(keys[1], want);
  /* The same file read as uncompressed is not a TFRecord file. */
  EXPECT_EQ(read_file_records(gz, "", 0, vals, keys, msg, sizeof msg), TF_DATA_LOSS);
  EXPECT_CONTAINS(msg, gz);
  write_records(bad, 3, 2);
  FILE *f = fopen(bad, "r+b");
  EXPECT_TRUE(f != NULL);
  fseek(f, 22 + 12 + 2, SEEK_SET); /* inside the second record's data */
  fputc('X', f);
  fclose(f);
  EXPECT_EQ(read_file_records(bad, "", 1, vals, keys, msg, sizeof msg), TF_DATA_LOSS);
  EXPECT_STREQ(vals[0], "rec3_0");
  EXPECT_CONTAINS(msg, "corrupted record at 22");
  EXPECT_CONTAINS(msg, bad);
  unlink(gz);
  unlink(bad);
  rmdir(dir);
}

static void runners_fill_queue_and_stop_cleanly(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *q = queue(g, "fq", "FIFOQueueV2", TF_FLOAT, 1, 4, NULL);
  float v[3] = {1, 2, 3};
  TF_Operation *c = fconst(g, "c", v, 3, 1);
  TF_Operation *enq = enqueue(g, "fq_EnqueueMany", "QueueEnqueueManyV2", q, (TF_Output){c, 0});
  TF_Operation *cl = close_op(g, "fq_Close", q, 0);
  TF_Operation *cancel = close_op(g, "fq_Close_1", q, 1);
  TF_Operation *deq = unary(g, "fq_Dequeue", "QueueDequeueV2", q);
  TF_Status *s = TF_NewStatus();
  TF_Operation *entry[5] = {q, cl, cancel, enq, enq};
  TFC_AddToCollection(g, "queue_runners", entry, 5, s);
  OK(s);
  TF_Session *sess = new_session(g);
  TFC_Coordinator *coord = TFC_NewCoordinator();
  EXPECT_EQ(TFC_StartQueueRunners(sess, g, coord, s), 2);
  OK(s);
  float sum = 0;
  for (int i = 0; i < 30; i++) sum += dequeue_value(sess, deq);
  EXPECT_EQ(sum, 60); /* each EnqueueMany's three values stay together */
  EXPECT_EQ(TFC_CoordinatorShouldStop(coord), 0);
  TFC_CoordinatorRequestStop(coord, NULL);
  EXPECT_EQ(TFC_CoordinatorShouldStop(coord), 1);
  TFC_CoordinatorJoin(coord, s);
  OK(s);
  EXPECT_TRUE(TFC_QueueDequeueWaitSeconds(sess, q, s) >= 0);
  OK(s);
  TFC_QueueDequeueWaitSeconds(sess, c, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TFC_DeleteCoordinator(coord);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void runner_ends_at_epoch_end_and_closes_its_queue(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *src = queue(g, "src", "FIFOQueueV2", TF_FLOAT, 1, 10, NULL);
  float v[4] = {1, 2, 3, 4};
  TF_Operation *c = fconst(g, "c", v, 4, 1);
  TF_Operation *fill = enqueue(g, "src_EnqueueMany", "QueueEnqueueManyV2", src, (TF_Output){c, 0});
  TF_Operation *src_close = close_op(g, "src_Close", src, 0);
  TF_Operation *take = unary(g, "src_Dequeue", "QueueDequeueV2", src);
  TF_Operation *dst = queue(g, "dst", "FIFOQueueV2", TF_FLOAT, 1, 2, NULL);
  TF_Operation *enq = enqueue(g, "dst_enqueue", "QueueEnqueueV2", dst, (TF_Output){take, 0});
  TF_Operation *cl = close_op(g, "dst_Close", dst, 0);
  TF_Operation *cancel = close_op(g, "dst_Close_1", dst, 1);
  TF_Operation *deq = unary(g, "dst_Dequeue", "QueueDequeueV2", dst);
  TF_Session *sess = new_session(g);
  char msg[1024];
  EXPECT_EQ(run(sess, fill, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  EXPECT_EQ(run(sess, src_close, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  TF_Status *s = TF_NewStatus();
  TFC_Coordinator *coord = TFC_NewCoordinator();
  TF_Operation *ops[1] = {enq};
  EXPECT_EQ(TFC_StartQueueRunner(sess, coord, cl, cancel, ops, NULL, 1, s), 1);
  OK(s);
  for (int i = 0; i < 4; i++) EXPECT_EQ(dequeue_value(sess, deq), v[i]);
  TF_Output o = {deq, 0};
  TF_Tensor *t = NULL;
  EXPECT_EQ(run(sess, NULL, &o, &t, 0, msg, sizeof msg), TF_OUT_OF_RANGE);
  EXPECT_CONTAINS(msg, "FIFOQueue '_1_dst' is closed and has insufficient elements (requested 1, current size 0)");
  TFC_CoordinatorJoin(coord, s); /* the thread ended on its own */
  OK(s);
  TFC_DeleteCoordinator(coord);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void runner_error_stops_coordinator_and_join_reports_it(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *q = queue(g, "fq", "FIFOQueueV2", TF_FLOAT, 1, 4, NULL);
  float v[2] = {1, 2};
  TF_Operation *c = fconst(g, "c", v, 2, 1);
  /* a vector into a queue of scalars: INVALID_ARGUMENT on every run */
  TF_Operation *bad = enqueue(g, "fq_enqueue", "QueueEnqueueV2", q, (TF_Output){c, 0});
  TF_Operation *cancel = close_op(g, "fq_Close_1", q, 1);
  TF_Session *sess = new_session(g);
  TF_Status *s = TF_NewStatus();
  TFC_Coordinator *coord = TFC_NewCoordinator();
  TF_Operation *ops[1] = {bad};
  EXPECT_EQ(TFC_StartQueueRunner(sess, coord, NULL, cancel, ops, NULL, 1, s), 1);
  TFC_CoordinatorJoin(coord, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Shape mismatch in tuple component 0. Expected [], got [2]");
  EXPECT_EQ(TFC_CoordinatorShouldStop(coord), 1);
  TFC_DeleteCoordinator(coord);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* A stop requested for a preemption (a task of the cluster died) leaves the runner's queue
 * open: the monitored session goes on with a new session over the same queues, so neither the
 * cancel op (at the stop) nor the close op (when the last thread ends quietly) may run. */
static void runner_stopped_for_a_preemption_leaves_its_queue_open(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *src = queue(g, "src", "FIFOQueueV2", TF_FLOAT, 1, 10, NULL);
  TF_Operation *src_close = close_op(g, "src_Close", src, 0);
  TF_Operation *take = unary(g, "src_Dequeue", "QueueDequeueV2", src);
  TF_Operation *dst = queue(g, "dst", "FIFOQueueV2", TF_FLOAT, 1, 2, NULL);
  TF_Operation *enq = enqueue(g, "dst_enqueue", "QueueEnqueueV2", dst, (TF_Output){take, 0});
  TF_Operation *cl = close_op(g, "dst_Close", dst, 0);
  TF_Operation *cancel = close_op(g, "dst_Close_1", dst, 1);
  float one = 1;
  TF_Operation *c = fconst(g, "c", &one, 1, 0);
  TF_Operation *put = enqueue(g, "dst_put", "QueueEnqueueV2", dst, (TF_Output){c, 0});
  TF_Operation *deq = unary(g, "dst_Dequeue", "QueueDequeueV2", dst);
  TF_Session *sess = new_session(g);
  TF_Status *s = TF_NewStatus(), *died = TF_NewStatus();
  TFC_Coordinator *coord = TFC_NewCoordinator();
  TF_Operation *ops[1] = {enq};
  EXPECT_EQ(TFC_StartQueueRunner(sess, coord, cl, cancel, ops, NULL, 1, s), 1); /* blocks on the empty src */
  OK(s);
  TF_SetStatus(died, TF_UNAVAILABLE, "RunGraph on /job:ps/replica:0/task:0 failed: Socket closed");
  TFC_CoordinatorRequestStop(coord, died);
  char msg[1024];
  EXPECT_EQ(run(sess, src_close, NULL, NULL, 0, msg, sizeof msg), TF_OK); /* the runner's take: OUT_OF_RANGE */
  TFC_CoordinatorJoin(coord, s);
  EXPECT_EQ(TF_GetCode(s), TF_UNAVAILABLE);
  EXPECT_EQ(run(sess, put, NULL, NULL, 0, msg, sizeof msg), TF_OK); /* dst is open */
  EXPECT_EQ(dequeue_value(sess, deq), 1);
  TFC_DeleteCoordinator(coord);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(died);
  TF_DeleteStatus(s);
}

typedef struct bg_run {
  TF_Session *sess;
  TF_Operation *op;
  int code;
  char msg[512];
} bg_run;

static void *bg_main(void *p) {
  bg_run *b = p;
  b->code = run(b->sess, b->op, NULL, NULL, 0, b->msg, sizeof b->msg);
  return NULL;
}

static void session_close_cancels_blocked_enqueue(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *q = queue(g, "fq", "FIFOQueueV2", TF_FLOAT, 1, 1, NULL);
  float one = 1;
  TF_Operation *c = fconst(g, "c", &one, 1, 0);
  TF_Operation *enq = enqueue(g, "fq_enqueue", "QueueEnqueueV2", q, (TF_Output){c, 0});
  TF_Operation *size = unary(g, "fq_Size", "QueueSizeV2", q);
  TF_Session *sess = new_session(g);
  char msg[512];
  EXPECT_EQ(run(sess, enq, NULL, NULL, 0, msg, sizeof msg), TF_OK);
  bg_run b = {sess, enq, -1, ""};
  pthread_t th;
  pthread_create(&th, NULL, bg_main, &b);
  /* wait until the background run has started; it then blocks (or is about to) */
  usleep(100000);
  EXPECT_EQ(size_of(sess, size), 1);
  TF_Status *s = TF_NewStatus();
  TF_CloseSession(sess, s);
  OK(s);
  pthread_join(th, NULL); /* returns: the run was cancelled (a hang fails the test by timeout) */
  EXPECT_EQ(b.code, TF_CANCELLED);
  EXPECT_CONTAINS(b.msg, "Enqueue operation was cancelled");
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void session_delete_with_runner_blocked_returns(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *q = queue(g, "fq", "FIFOQueueV2", TF_FLOAT, 1, 2, NULL);
  float one = 1;
  TF_Operation *c = fconst(g, "c", &one, 1, 0);
  TF_Operation *enq = enqueue(g, "fq_enqueue", "QueueEnqueueV2", q, (TF_Output){c, 0});
  TF_Operation *size = unary(g, "fq_Size", "QueueSizeV2", q);
  TF_Session *sess = new_session(g);
  TF_Status *s = TF_NewStatus();
  TFC_Coordinator *coord = TFC_NewCoordinator();
  TF_Operation *ops[1] = {enq};
  int threads[1] = {2};
  EXPECT_EQ(TFC_StartQueueRunner(sess, coord, NULL, NULL, ops, threads, 1, s), 2);
  while (size_of(sess, size) < 2) usleep(1000); /* full: both threads block in an enqueue */
  TF_CloseSession(sess, s);
  TFC_CoordinatorJoin(coord, s); /* the threads saw CANCELLED and ended quietly */
  OK(s);
  TF_DeleteSession(sess, s);
  TFC_DeleteCoordinator(coord);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void dequeue_wait_seconds_counts_blocked_time(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *q = queue(g, "fq", "FIFOQueueV2", TF_FLOAT, 1, 2, NULL);
  TF_Operation *deq = unary(g, "fq_Dequeue", "QueueDequeueV2", q);
  TF_Session *sess = new_session(g);
  TF_Status *s = TF_NewStatus();
  EXPECT_EQ(TFC_QueueDequeueWaitSeconds(sess, q, s), 0);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT); /* not placed yet */
  TF_Output o = {deq, 0};
  TF_Tensor *t = NULL;
  char msg[512];
  EXPECT_EQ(run(sess, NULL, &o, &t, 50, msg, sizeof msg), TF_DEADLINE_EXCEEDED);
  double w = TFC_QueueDequeueWaitSeconds(sess, q, s);
  OK(s);
  EXPECT_TRUE(w > 0);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(failing_node_wakes_blocked_dequeue_in_same_step),
    TFC_TEST(reader_reads_gzip_and_reports_corruption),
    TFC_TEST(blocked_enqueue_times_out_and_leaves_queue_unchanged),
    TFC_TEST(close_then_drain_then_out_of_range_with_node),
    TFC_TEST(shared_name_shares_one_queue_and_checks_attrs),
    TFC_TEST(reader_reads_files_in_order_with_keys_then_out_of_range),
    TFC_TEST(runners_fill_queue_and_stop_cleanly),
    TFC_TEST(runner_ends_at_epoch_end_and_closes_its_queue),
    TFC_TEST(runner_error_stops_coordinator_and_join_reports_it),
    TFC_TEST(runner_stopped_for_a_preemption_leaves_its_queue_open),
    TFC_TEST(session_close_cancels_blocked_enqueue),
    TFC_TEST(session_delete_with_runner_blocked_returns),
    TFC_TEST(dequeue_wait_seconds_counts_blocked_time),
    {0}};
TFC_TEST_MAIN(tests)
