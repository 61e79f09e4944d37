/* C API contract tests: RunMetadata from TF_SessionRun — step_stats under RunOptions.trace_level
 * (every executed node once, per device, with times, labels and FULL_TRACE outputs), an empty
 * message without tracing, and partition_graphs with _Send/_Recv across two devices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/config.pb-c.h"
#include "tfc/tfc.h"

#define CPU(i) "/job:localhost/replica:0/task:0/device:CPU:" #i

static TF_Operation *finish(TF_OperationDescription *d, int line) {
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, line, "%s", TF_Message(s));
  TF_DeleteStatus(s);
  return op;
}

static TF_Operation *constant(TF_Graph *g, const char *name, const char *dev, float v0) {
  TF_Status *s = TF_NewStatus();
  int64_t dims[1] = {3};
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, 1, 3 * sizeof(float));
  float *v = TF_TensorData(t);
  v[0] = v0, v[1] = v0 + 1, v[2] = v0 + 2;
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  if (dev) TF_SetDevice(d, dev);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return finish(d, __LINE__);
}

static TF_Operation *binary(TF_Graph *g, const char *op, const char *name, const char *dev, TF_Operation *a,
                            TF_Operation *b) {
  TF_OperationDescription *d = TF_NewOperation(g, op, name);
  if (dev) TF_SetDevice(d, dev);
  TF_AddInput(d, (TF_Output){a, 0});
  TF_AddInput(d, (TF_Output){b, 0});
  return finish(d, __LINE__);
}

/* Serialized RunOptions (the caller deletes the buffer). */
static TF_Buffer *run_options(int trace_level, int partition_graphs) {
  Tensorflow__RunOptions ro = TENSORFLOW__RUN_OPTIONS__INIT;
  ro.trace_level = (Tensorflow__RunOptions__TraceLevel)trace_level;
  ro.output_partition_graphs = partition_graphs;
  size_t n = tensorflow__run_options__get_packed_size(&ro);
  uint8_t *b = malloc(n + 1);
  tensorflow__run_options__pack(&ro, b);
  TF_Buffer *buf = TF_NewBufferFromString(b, n);
  free(b);
  return buf;
}

/* Options whose ConfigProto switches constant folding off (OptimizerOptions L0 and
 * RewriterConfig's constant_folding OFF, as in TF): these graphs are all constants, and the
 * tests count the nodes the executor runs. */
static TF_SessionOptions *unoptimized_options(void) {
  Tensorflow__ConfigProto cp = TENSORFLOW__CONFIG_PROTO__INIT;
  Tensorflow__GraphOptions go = TENSORFLOW__GRAPH_OPTIONS__INIT;
  Tensorflow__OptimizerOptions oo = TENSORFLOW__OPTIMIZER_OPTIONS__INIT;
  Tensorflow__RewriterConfig rc = TENSORFLOW__REWRITER_CONFIG__INIT;
  cp.graph_options = &go;
  go.optimizer_options = &oo;
  go.rewrite_options = &rc;
  oo.opt_level = TENSORFLOW__OPTIMIZER_OPTIONS__LEVEL__L0;
  rc.constant_folding = TENSORFLOW__REWRITER_CONFIG__TOGGLE__OFF;
  size_t n = tensorflow__config_proto__get_packed_size(&cp);
  uint8_t *b = malloc(n + 1);
  tensorflow__config_proto__pack(&cp, b);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Status *s = TF_NewStatus();
  TF_SetConfig(o, b, n, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  free(b);
  return o;
}

static TF_Session *session(TF_Graph *g, int n_cpus, TF_SessionOptions **opts) {
  TF_Status *s = TF_NewStatus();
  *opts = unoptimized_options();
  TFC_SetDeviceCount(*opts, "CPU", n_cpus, s);
  TF_Session *sess = TF_NewSession(g, *opts, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_DeleteStatus(s);
  return sess;
}

static void close_all(TF_Session *sess, TF_SessionOptions *o, TF_Graph *g) {
  TF_Status *s = TF_NewStatus();
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* Runs `fetch` with the given options and returns the decoded RunMetadata (free with
 * tensorflow__run_metadata__free_unpacked). */
static Tensorflow__RunMetadata *run_traced(TF_Session *sess, TF_Operation *fetch, int trace_level, int graphs,
                                           size_t *out_len) {
  TF_Status *s = TF_NewStatus();
  TF_Buffer *opts = run_options(trace_level, graphs);
  TF_Buffer *md = TF_NewBuffer();
  TF_Output out = {fetch, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, opts, NULL, NULL, 0, &out, &r, 1, NULL, 0, md, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s", TF_Message(s));
  EXPECT_TRUE(r != NULL);
  EXPECT_TRUE(md->data != NULL);
  EXPECT_TRUE(md->data_deallocator != NULL);
  Tensorflow__RunMetadata *m = tensorflow__run_metadata__unpack(NULL, md->length, md->data);
  EXPECT_TRUE(m != NULL);
  if (out_len) *out_len = md->length;
  TF_DeleteTensor(r);
  TF_DeleteBuffer(md);
  TF_DeleteBuffer(opts);
  TF_DeleteStatus(s);
  return m;
}

static const Tensorflow__NodeExecStats *find_node(const Tensorflow__DeviceStepStats *ds, const char *name,
                                                 int *count) {
  const Tensorflow__NodeExecStats *hit = NULL;
  *count = 0;
  for (size_t i = 0; i < ds->n_node_stats; i++)
    if (strcmp(ds->node_stats[i]->node_name, name) == 0) {
      hit = ds->node_stats[i];
      (*count)++;
    }
  return hit;
}

static void expect_sane_times(const Tensorflow__NodeExecStats *n) {
  EXPECT_TRUE(n != NULL);
  EXPECT_TRUE(n->all_start_micros > 1500000000LL * 1000000); /* epoch micros, after 2017 */
  EXPECT_TRUE(n->op_start_rel_micros >= 0);
  EXPECT_TRUE(n->op_end_rel_micros >= n->op_start_rel_micros);
  EXPECT_TRUE(n->all_end_rel_micros >= n->op_end_rel_micros);
  EXPECT_TRUE(n->all_end_rel_micros < 60 * 1000000);
  EXPECT_EQ(n->scheduled_micros, n->all_start_micros);
  EXPECT_TRUE(n->thread_id != 0);
}

static void full_trace_records_every_node_once_with_labels_and_outputs(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *a = constant(g, "a", NULL, 1), *b = constant(g, "b", NULL, 10);
  TF_Operation *add = binary(g, "Add", "add", NULL, a, b);
  TF_Operation *mul = binary(g, "Mul", "mul", NULL, add, b);
  TF_SessionOptions *o;
  TF_Session *sess = session(g, 1, &o);
  for (int pass = 0; pass < 2; pass++) { /* the cached plan too */
    Tensorflow__RunMetadata *m = run_traced(sess, mul, 3, 0, NULL);
    EXPECT_TRUE(m->step_stats != NULL);
    EXPECT_EQ((int)m->step_stats->n_dev_stats, 1);
    EXPECT_EQ((int)m->n_partition_graphs, 0);
    const Tensorflow__DeviceStepStats *ds = m->step_stats->dev_stats[0];
    EXPECT_STREQ(ds->device, CPU(0));
    const char *names[] = {"a", "b", "add", "mul"};
    const char *labels[] = {"a = Const()", "b = Const()", "add = Add(a, b)", "mul = Mul(add, b)"};
    for (int i = 0; i < 4; i++) {
      int count;
      const Tensorflow__NodeExecStats *n = find_node(ds, names[i], &count);
      EXPECT_EQ(count, 1);
      EXPECT_STREQ(n->timeline_label, labels[i]);
      expect_sane_times(n);
      /* FULL_TRACE: the one output, float[3], 12 bytes */
      EXPECT_EQ((int)n->n_output, 1);
      EXPECT_EQ(n->output[0]->slot, 0);
      const Tensorflow__TensorDescription *td = n->output[0]->tensor_description;
      EXPECT_EQ((int)td->dtype, TF_FLOAT);
      EXPECT_EQ((int)td->shape->n_dim, 1);
      EXPECT_EQ((int)td->shape->dim[0]->size, 3);
      EXPECT_EQ((int)td->allocation_description->allocated_bytes, 12);
      EXPECT_EQ((int)td->allocation_description->requested_bytes, 12);
    }
    /* the fetch's _Retval ran too; nothing ran twice */
    int retvals = 0;
    for (size_t i = 0; i < ds->n_node_stats; i++) {
      if (strstr(ds->node_stats[i]->timeline_label, "= _Retval(mul)")) retvals++;
      int count;
      find_node(ds, ds->node_stats[i]->node_name, &count);
      EXPECT_EQ(count, 1);
    }
    EXPECT_EQ(retvals, 1);
    EXPECT_EQ((int)ds->n_node_stats, 5);
    tensorflow__run_metadata__free_unpacked(m, NULL);
  }
  close_all(sess, o, g);
}

static void software_trace_has_no_outputs(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *add = binary(g, "Add", "add", NULL, constant(g, "a", NULL, 1), constant(g, "b", NULL, 2));
  TF_SessionOptions *o;
  TF_Session *sess = session(g, 1, &o);
  Tensorflow__RunMetadata *m = run_traced(sess, add, 1, 0, NULL);
  int count;
  const Tensorflow__NodeExecStats *n = find_node(m->step_stats->dev_stats[0], "add", &count);
  EXPECT_EQ(count, 1);
  expect_sane_times(n);
  EXPECT_EQ((int)n->n_output, 0);
  tensorflow__run_metadata__free_unpacked(m, NULL);
  close_all(sess, o, g);
}

static void no_trace_gives_empty_metadata(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *add = binary(g, "Add", "add", NULL, constant(g, "a", NULL, 1), constant(g, "b", NULL, 2));
  TF_SessionOptions *o;
  TF_Session *sess = session(g, 1, &o);
  size_t len = 99;
  Tensorflow__RunMetadata *m = run_traced(sess, add, 0, 0, &len);
  EXPECT_EQ((int)len, 0);
  EXPECT_TRUE(m->step_stats == NULL);
  EXPECT_EQ((int)m->n_partition_graphs, 0);
  tensorflow__run_metadata__free_unpacked(m, NULL);
  /* no options at all: the same */
  TF_Status *s = TF_NewStatus();
  TF_Buffer *md = TF_NewBuffer();
  TF_Output out = {add, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, md, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  EXPECT_TRUE(md->data != NULL);
  EXPECT_EQ((int)md->length, 0);
  TF_DeleteTensor(r);
  TF_DeleteBuffer(md);
  TF_DeleteStatus(s);
  close_all(sess, o, g);
}

static void non_empty_metadata_buffer_is_invalid_argument(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *a = constant(g, "a", NULL, 1);
  TF_SessionOptions *o;
  TF_Session *sess = session(g, 1, &o);
  TF_Status *s = TF_NewStatus();
  TF_Buffer *md = TF_NewBufferFromString("x", 1);
  TF_Output out = {a, 0};
  TF_Tensor *r = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &r, 1, NULL, 0, md, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Passing non-empty TF_Buffer is invalid.");
  EXPECT_TRUE(r == NULL);
  EXPECT_EQ((int)md->length, 1);
  TF_DeleteBuffer(md);
  TF_DeleteStatus(s);
  close_all(sess, o, g);
}

static int graph_has_op(const Tensorflow__GraphDef *gd, const char *op, const char *device) {
  for (size_t i = 0; i < gd->n_node; i++)
    if (strcmp(gd->node[i]->op, op) == 0 && strcmp(gd->node[i]->device, device) == 0) return 1;
  return 0;
}

static void two_devices_give_two_partition_graphs_with_send_recv(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Operation *a = constant(g, "a", "/device:CPU:0", 1), *b = constant(g, "b", "/device:CPU:1", 5);
  TF_Operation *add = binary(g, "Add", "add", "/device:CPU:1", a, b);
  TF_SessionOptions *o;
  TF_Session *sess = session(g, 2, &o);
  Tensorflow__RunMetadata *m = run_traced(sess, add, 1, 1, NULL);
  EXPECT_EQ((int)m->n_partition_graphs, 2);
  int sends = 0, recvs = 0;
  for (size_t i = 0; i < m->n_partition_graphs; i++) {
    sends += graph_has_op(m->partition_graphs[i], "_Send", CPU(0));
    recvs += graph_has_op(m->partition_graphs[i], "_Recv", CPU(1));
  }
  EXPECT_EQ(sends, 1);
  EXPECT_EQ(recvs, 1);
  /* one DeviceStepStats per device, each node on its own device */
  EXPECT_EQ((int)m->step_stats->n_dev_stats, 2);
  int seen_a = 0, seen_add = 0;
  for (size_t d = 0; d < m->step_stats->n_dev_stats; d++) {
    const Tensorflow__DeviceStepStats *ds = m->step_stats->dev_stats[d];
    int count;
    if (find_node(ds, "a", &count)) {
      EXPECT_STREQ(ds->device, CPU(0));
      seen_a += count;
    }
    if (find_node(ds, "add", &count)) {
      EXPECT_STREQ(ds->device, CPU(1));
      seen_add += count;
    }
    /* as in TF, transfer nodes are not recorded */
    for (size_t i = 0; i < ds->n_node_stats; i++) {
      EXPECT_TRUE(strstr(ds->node_stats[i]->timeline_label, "= _Send(") == NULL);
      EXPECT_TRUE(strstr(ds->node_stats[i]->timeline_label, "= _Recv(") == NULL);
    }
  }
  EXPECT_EQ(seen_a, 1);
  EXPECT_EQ(seen_add, 1);
  tensorflow__run_metadata__free_unpacked(m, NULL);
  /* partition graphs alone, without tracing */
  m = run_traced(sess, add, 0, 1, NULL);
  EXPECT_EQ((int)m->n_partition_graphs, 2);
  EXPECT_TRUE(m->step_stats == NULL);
  tensorflow__run_metadata__free_unpacked(m, NULL);
  close_all(sess, o, g);
}

/* Independent MatMuls large enough for the inter-op pool: records written from several
 * threads at once, each node still once (TSan runs this too). */
static void parallel_nodes_are_each_recorded_once(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int64_t dims[2] = {128, 128};
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, 2, 128 * 128 * sizeof(float));
  memset(TF_TensorData(t), 0, 128 * 128 * sizeof(float));
  TF_OperationDescription *d = TF_NewOperation(g, "Const", "w");
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *w = finish(d, __LINE__);
  TF_DeleteTensor(t);
  TF_Output mm[8];
  for (int i = 0; i < 8; i++) {
    char name[16];
    snprintf(name, sizeof name, "mm%d", i);
    mm[i] = (TF_Output){binary(g, "MatMul", name, NULL, w, w), 0};
  }
  d = TF_NewOperation(g, "AddN", "sum");
  TF_AddInputList(d, mm, 8);
  TF_Operation *sum = finish(d, __LINE__);
  TF_SessionOptions *o = unoptimized_options();
  TFC_SetThreads(o, 2, 4);
  TF_Session *sess = TF_NewSession(g, o, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  for (int pass = 0; pass < 4; pass++) {
    Tensorflow__RunMetadata *m = run_traced(sess, sum, 3, 0, NULL);
    const Tensorflow__DeviceStepStats *ds = m->step_stats->dev_stats[0];
    EXPECT_EQ((int)ds->n_node_stats, 11); /* w, mm0..7, sum, _Retval */
    for (int i = 0; i < 8; i++) {
      char name[16];
      snprintf(name, sizeof name, "mm%d", i);
      int count;
      expect_sane_times(find_node(ds, name, &count));
      EXPECT_EQ(count, 1);
    }
    tensorflow__run_metadata__free_unpacked(m, NULL);
  }
  TF_DeleteStatus(s);
  close_all(sess, o, g);
}

/* A while loop (the control-flow executor): its body node once per iteration, the nodes
 * outside it once. i = 0; while i < 5: i = i + 1. */
static void loop_body_is_recorded_once_per_iteration(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  int zero = 0, five = 5, one = 1;
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, NULL, 0, sizeof zero);
  memcpy(TF_TensorData(t), &zero, sizeof zero);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", "i0");
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_Output in = {finish(d, __LINE__), 0};
  TF_DeleteTensor(t);
  TF_WhileParams p = TF_NewWhile(g, &in, 1, s);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  const struct {
    TF_Graph *g;
    const char *name;
    int *v;
  } consts[2] = {{p.cond_graph, "five", &five}, {p.body_graph, "one", &one}};
  TF_Operation *c[2];
  for (int k = 0; k < 2; k++) {
    t = TF_AllocateTensor(TF_INT32, NULL, 0, sizeof(int));
    memcpy(TF_TensorData(t), consts[k].v, sizeof(int));
    d = TF_NewOperation(consts[k].g, "Const", consts[k].name);
    TF_SetAttrTensor(d, "value", t, s);
    TF_SetAttrType(d, "dtype", TF_INT32);
    c[k] = finish(d, __LINE__);
    TF_DeleteTensor(t);
  }
  d = TF_NewOperation(p.cond_graph, "Less", "less");
  TF_AddInput(d, p.cond_inputs[0]);
  TF_AddInput(d, (TF_Output){c[0], 0});
  p.cond_output = (TF_Output){finish(d, __LINE__), 0};
  d = TF_NewOperation(p.body_graph, "Add", "step");
  TF_AddInput(d, p.body_inputs[0]);
  TF_AddInput(d, (TF_Output){c[1], 0});
  p.body_outputs[0] = (TF_Output){finish(d, __LINE__), 0};
  p.name = "loop";
  TF_Output out;
  TF_FinishWhile(&p, s, &out);
  EXPECT_EQ(TF_GetCode(s), TF_OK);
  TF_SessionOptions *o;
  TF_Session *sess = session(g, 1, &o);
  Tensorflow__RunMetadata *m = run_traced(sess, out.oper, 3, 0, NULL);
  const Tensorflow__DeviceStepStats *ds = m->step_stats->dev_stats[0];
  int count;
  expect_sane_times(find_node(ds, "loop/body/step", &count));
  EXPECT_EQ(count, 5);
  find_node(ds, "loop/cond/less", &count);
  EXPECT_EQ(count, 6);
  find_node(ds, "i0", &count);
  EXPECT_EQ(count, 1);
  find_node(ds, "loop/Exit", &count);
  EXPECT_EQ(count, 1);
  tensorflow__run_metadata__free_unpacked(m, NULL);
  TF_DeleteStatus(s);
  close_all(sess, o, g);
}

static const tfc_test tests[] = {
    TFC_TEST(loop_body_is_recorded_once_per_iteration),
    TFC_TEST(parallel_nodes_are_each_recorded_once),
    TFC_TEST(full_trace_records_every_node_once_with_labels_and_outputs),
    TFC_TEST(software_trace_has_no_outputs),
    TFC_TEST(no_trace_gives_empty_metadata),
    TFC_TEST(non_empty_metadata_buffer_is_invalid_argument),
    TFC_TEST(two_devices_give_two_partition_graphs_with_send_recv),
    {0}};
TFC_TEST_MAIN(tests)
