/* C API contract tests: the input-pipeline builders (include/tfc/input.h).
 *
 * (1) The pipeline of tests/fixtures/gen_input.py (two string_input_producers, TFRecordReader,
 *     parse_single_example, decode_raw, shuffle_batch, batch, both initializers; graph seed
 *     20261121) built with the builders has the node set of the TF-made input_pipeline.pb: the
 *     same names, op types, data inputs in order, control inputs (as sets), devices,
 *     colocation groups and attrs (compared as serialized AttrValues, seeds included: the
 *     fixture carries TF 1.15's), and the same queue_runners / summaries / local variables
 *     collections (input_pipeline.txt).
 * (2) Outputs, shapes, seeds and local variables.
 * (3) Errors: Python's codes and messages, and a failed builder leaves the graph, its names and
 *     its collections exactly as they were.
 * (4) End to end: TFRecord files of Examples read through the pipeline by queue runners; every
 *     example arrives once per epoch, and num_epochs ends in OUT_OF_RANGE.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capi_util.h"
#include "harness.h"
#include "io/record.h"
#include "tensorflow/c/c_api.h"
#include "tfc/input.h"
#include "tfc/queue_runner.h"
#include "tfc/train.h"

/* ---------------- helpers ---------------- */


static TF_Output finish(TF_OperationDescription *d) {
  TF_Status *s = TF_NewStatus();
  EXPECT_TRUE(d != NULL);
  TF_Operation *op = TF_FinishOperation(d, s);
  OK(s);
  TF_DeleteStatus(s);
  return (TF_Output){op, 0};
}

static TF_Output cast(TFC_Scope *sc, TF_Output x, TF_DataType to) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Cast", NULL);
  TF_AddInput(d, x);
  TF_SetAttrType(d, "DstT", to);
  return finish(d);
}

/* tf.reshape(x, dims): Const "Reshape/shape" (int32) and Reshape "Reshape". */
static TF_Output reshape(TFC_Scope *sc, TF_Output x, const int32_t *dims, int nd) {
  int64_t n = nd;
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, &n, 1, (size_t)nd * sizeof(int32_t));
  memcpy(TF_TensorData(t), dims, (size_t)nd * sizeof(int32_t));
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Const", "Reshape/shape");
  TF_SetAttrTensor(d, "value", t, s);
  OK(s);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  TF_Output shape = finish(d);
  d = TFC_ScopeNewOperation(sc, "Reshape", NULL);
  TF_AddInput(d, x);
  TF_AddInput(d, shape);
  return finish(d);
}

static TF_Output placeholder(TFC_Scope *sc, const char *name, TF_DataType dt, const int64_t *dims, int nd) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Placeholder", name);
  TF_SetAttrType(d, "dtype", dt);
  if (nd >= 0) TF_SetAttrShape(d, "shape", dims, nd);
  return finish(d);
}

static TF_Tensor *scalar_i64(int64_t v) {
  TF_Tensor *t = TF_AllocateTensor(TF_INT64, NULL, 0, sizeof v);
  *(int64_t *)TF_TensorData(t) = v;
  return t;
}

static const char *name_of(TF_Operation *op) { return op ? TF_OperationName(op) : "(null)"; }

/* ---------------- (1) the pipeline against TF's graph ---------------- */

static const char *const FILES[2] = {"input_a.tfrecord", "input_b.tfrecord"};

typedef struct pipeline {
  TF_Output forever, queue, key, value, feats[3], image, shuffled[3], batched[2];
  TF_Operation *local_init, *global_init;
} pipeline;

/* gen_input.py's pipeline(), call for call. */
static void build_pipeline(TF_Graph *g, pipeline *p) {
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_SetRandomSeed(g, 20261121);
  p->forever = TFC_StringInputProducer(root, FILES, 2, 0, 0, 0, 32, NULL, s);
  OK(s);
  p->queue = TFC_StringInputProducer(root, FILES, 2, 2, 1, 0, 32, NULL, s);
  OK(s);
  TFC_TFRecordReaderRead(root, p->queue, NULL, NULL, &p->key, &p->value, s);
  OK(s);
  int64_t d784 = 784;
  TF_Tensor *minus1 = scalar_i64(-1);
  TFC_FixedLenFeature f[3] = {{"image_raw", TF_STRING, NULL, 0, NULL},
                              {"pixels", TF_INT64, &d784, 1, NULL},
                              {"label", TF_INT64, NULL, 0, minus1}};
  TFC_ParseSingleExample(root, p->value, f, 3, p->feats, s);
  OK(s);
  TF_DeleteTensor(minus1);
  TF_Output raw = TFC_DecodeRaw(root, p->feats[0], TF_UINT8, 1, s);
  OK(s);
  int32_t dims[1] = {784};
  p->image = reshape(root, cast(root, raw, TF_FLOAT), dims, 1);
  TF_Output pixels = cast(root, p->feats[1], TF_FLOAT);
  TF_Output label = cast(root, p->feats[2], TF_INT32);
  TF_Output sb[3] = {p->image, pixels, label};
  TFC_ShuffleBatch(root, sb, 3, 8, 40, 10, 2, 0, NULL, p->shuffled, s);
  OK(s);
  TF_Output b[2] = {p->image, label};
  TFC_Batch(root, b, 2, 8, 16, 1, 1, NULL, p->batched, s);
  OK(s);
  p->local_init = TFC_LocalVariablesInitializer(root, NULL, s);
  OK(s);
  p->global_init = TFC_GlobalVariablesInitializer(root, NULL, s);
  OK(s);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
}

static void output_name(TF_Output o, char *out, size_t n) {
  if (o.index) snprintf(out, n, "%s:%d", TF_OperationName(o.oper), o.index);
  else snprintf(out, n, "%s", TF_OperationName(o.oper));
}

static int controls(TF_Operation *op, const char **out, int max) {
  TF_Operation *ops[64];
  int n = TF_OperationGetControlInputs(op, ops, 64);
  if (n > max) n = max;
  for (int i = 0; i < n; i++) out[i] = TF_OperationName(ops[i]);
  return n;
}

/* The serialized AttrValue of attr `name` (0 bytes: absent). Caller deletes. */
static TF_Buffer *attr_proto(TF_Operation *op, const char *name) {
  TF_Buffer *b = TF_NewBuffer();
  TF_Status *s = TF_NewStatus();
  TF_OperationGetAttrValueProto(op, name, b, s);
  if (TF_GetCode(s) != TF_OK) b->length = 0;
  TF_DeleteStatus(s);
  return b;
}

/* Every attr the pipeline's ops carry. */
static const char *const ATTRS[] = {
    "dtype", "value", "T", "shape", "container", "shared_name", "component_types", "shapes", "capacity",
    "min_after_dequeue", "seed", "seed2", "limit", "summarize", "Tcomponents", "timeout_ms",
    "cancel_pending_enqueues", "SrcT", "DstT", "Truncate", "compression_type", "num_sparse", "sparse_keys",
    "dense_keys", "sparse_types", "Tdense", "dense_shapes", "out_type", "little_endian", "Tshape",
    "validate_shape", "use_locking", "_class"};

static void compare_node(TF_Operation *op, TF_Operation *mine) {
  const char *name = TF_OperationName(op);
  if (strcmp(TF_OperationOpType(mine), TF_OperationOpType(op)))
    tfc_test_fail(__FILE__, __LINE__, "'%s' is %s, TF has %s", name, TF_OperationOpType(mine), TF_OperationOpType(op));
  int n = TF_OperationNumInputs(op);
  if (TF_OperationNumInputs(mine) != n)
    tfc_test_fail(__FILE__, __LINE__, "'%s' has %d inputs, TF %d", name, TF_OperationNumInputs(mine), n);
  for (int i = 0; i < n; i++) {
    char got[512], want[512];
    output_name(TF_OperationInput((TF_Input){mine, i}), got, sizeof got);
    output_name(TF_OperationInput((TF_Input){op, i}), want, sizeof want);
    if (strcmp(got, want)) tfc_test_fail(__FILE__, __LINE__, "'%s' input %d is '%s', TF has '%s'", name, i, got, want);
  }
  const char *have[64], *wantc[64];
  int nc = controls(mine, have, 64), nw = controls(op, wantc, 64);
  if (nc != nw) tfc_test_fail(__FILE__, __LINE__, "'%s' has %d control inputs, TF %d", name, nc, nw);
  for (int i = 0; i < nc; i++) {
    int found = 0;
    for (int k = 0; k < nw; k++) found |= !strcmp(have[i], wantc[k]);
    if (!found) tfc_test_fail(__FILE__, __LINE__, "'%s' waits for '%s', TF does not", name, have[i]);
  }
  if (strcmp(TF_OperationDevice(mine), TF_OperationDevice(op)))
    tfc_test_fail(__FILE__, __LINE__, "'%s' device '%s', TF '%s'", name, TF_OperationDevice(mine),
                  TF_OperationDevice(op));
  for (size_t a = 0; a < sizeof ATTRS / sizeof *ATTRS; a++) {
    TF_Buffer *x = attr_proto(mine, ATTRS[a]), *y = attr_proto(op, ATTRS[a]);
    if (x->length != y->length || (x->length && memcmp(x->data, y->data, x->length)))
      tfc_test_fail(__FILE__, __LINE__, "'%s' attr %s differs (%zu vs TF's %zu bytes)", name, ATTRS[a], x->length,
                    y->length);
    TF_DeleteBuffer(x);
    TF_DeleteBuffer(y);
  }
}

static void pipeline_matches_tf_graph(void) {
  TF_Graph *ours = TF_NewGraph();
  pipeline p;
  build_pipeline(ours, &p);
  TF_Graph *fx = capi_load_fixture("input_pipeline.pb");
  EXPECT_EQ(capi_num_ops(ours), capi_num_ops(fx));
  size_t pos = 0;
  TF_Operation *op;
  while ((op = TF_GraphNextOperation(fx, &pos)) != NULL) {
    TF_Operation *mine = TF_GraphOperationByName(ours, TF_OperationName(op));
    if (!mine) tfc_test_fail(__FILE__, __LINE__, "no node '%s'", TF_OperationName(op));
    compare_node(op, mine);
  }
  TF_DeleteGraph(ours);
  TF_DeleteGraph(fx);
}

/* The collections of input_pipeline.txt, entry by entry and in order. */
static void collections_match_tf(void) {
  TF_Graph *g = TF_NewGraph();
  pipeline p;
  build_pipeline(g, &p);
  char path[1024], line[2048];
  snprintf(path, sizeof path, "%s/input_pipeline.txt", TFC_FIXTURE_DIR);
  FILE *f = fopen(path, "r");
  EXPECT_TRUE(f != NULL);
  int n_qr = 0, n_sum = 0, n_local = 0;
  TFC_Variable locals[4];
  int n_locals = TFC_LocalVariables(g, locals, 4);
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    char *save = NULL, *kind = strtok_r(line, " ", &save);
    if (!kind) continue;
    const char *want[16];
    int nw = 0;
    for (char *t; nw < 16 && (t = strtok_r(NULL, " ", &save)) != NULL;) want[nw++] = t;
    if (!strcmp(kind, "queue_runner") || !strcmp(kind, "summary")) {
      int is_qr = kind[0] == 'q';
      TF_Operation *ops[16];
      int n = TFC_CollectionEntry(g, is_qr ? "queue_runners" : "summaries", is_qr ? n_qr++ : n_sum++, ops, 16);
      EXPECT_EQ(n, nw);
      for (int i = 0; i < n; i++) EXPECT_STREQ(name_of(ops[i]), want[i]);
    } else {
      EXPECT_STREQ(kind, "local_variable");
      EXPECT_TRUE(n_local < n_locals);
      EXPECT_STREQ(name_of(locals[n_local++].variable), want[0]);
    }
  }
  fclose(f);
  EXPECT_EQ(TFC_CollectionSize(g, "queue_runners"), n_qr);
  EXPECT_EQ(TFC_CollectionSize(g, "summaries"), n_sum);
  EXPECT_EQ(n_locals, n_local);
  TF_DeleteGraph(g);
}

/* ---------------- (2) outputs, shapes, seeds, local variables ---------------- */

static void dims_of(TF_Graph *g, TF_Output o, int64_t *dims, int *nd) {
  TF_Status *s = TF_NewStatus();
  *nd = TF_GraphGetTensorNumDims(g, o, s);
  OK(s);
  if (*nd > 0) TF_GraphGetTensorShape(g, o, dims, *nd, s);
  OK(s);
  TF_DeleteStatus(s);
}

static void builders_return_pythons_tensors(void) {
  TF_Graph *g = TF_NewGraph();
  pipeline p;
  build_pipeline(g, &p);
  EXPECT_STREQ(name_of(p.forever.oper), "input_producer");
  EXPECT_STREQ(name_of(p.queue.oper), "input_producer_1");
  EXPECT_EQ(TF_OperationOutputType(p.queue), TF_RESOURCE);
  EXPECT_STREQ(name_of(p.key.oper), "ReaderReadV2");
  EXPECT_EQ(p.key.index, 0);
  EXPECT_EQ(p.value.index, 1);
  /* The caller's order (image_raw, pixels, label) from the op's sorted one. */
  EXPECT_STREQ(name_of(p.feats[0].oper), "ParseSingleExample/ParseSingleExample");
  EXPECT_EQ(p.feats[0].index, 0);
  EXPECT_EQ(p.feats[1].index, 2);
  EXPECT_EQ(p.feats[2].index, 1);
  EXPECT_EQ(TF_OperationOutputType(p.feats[1]), TF_INT64);
  int64_t dims[8];
  int nd;
  dims_of(g, p.feats[1], dims, &nd);
  EXPECT_EQ(nd, 1);
  EXPECT_EQ(dims[0], 784);
  EXPECT_STREQ(name_of(p.shuffled[0].oper), "shuffle_batch");
  dims_of(g, p.shuffled[0], dims, &nd);
  EXPECT_EQ(nd, 2);
  EXPECT_EQ(dims[0], 8);
  EXPECT_EQ(dims[1], 784);
  dims_of(g, p.shuffled[2], dims, &nd);
  EXPECT_EQ(nd, 1);
  EXPECT_EQ(dims[0], 8);
  EXPECT_EQ(TF_OperationOutputType(p.shuffled[2]), TF_INT32);
  /* allow_smaller_final_batch: the batch dim is unknown. */
  EXPECT_STREQ(name_of(p.batched[1].oper), "batch");
  dims_of(g, p.batched[0], dims, &nd);
  EXPECT_EQ(nd, 2);
  EXPECT_EQ(dims[0], -1);
  EXPECT_EQ(dims[1], 784);
  EXPECT_STREQ(name_of(p.local_init), "init");
  EXPECT_STREQ(name_of(p.global_init), "init_1");
  EXPECT_EQ(TF_OperationNumControlInputs(p.local_init), 1);
  EXPECT_EQ(TF_OperationNumControlInputs(p.global_init), 0);
  TF_DeleteGraph(g);
}

static int64_t attr_int(TF_Graph *g, const char *op, const char *attr) {
  int64_t v = -7;
  TF_Status *s = TF_NewStatus();
  TF_Operation *o = TF_GraphOperationByName(g, op);
  if (!o) tfc_test_fail(__FILE__, __LINE__, "no node '%s'", op);
  TF_OperationGetAttrInt(o, attr, &v, s);
  OK(s);
  TF_DeleteStatus(s);
  return v;
}

static void seeds_follow_tf115(void) {
  /* With the graph seed: seed2 = the number of nodes made before the op. */
  TF_Graph *g = TF_NewGraph();
  pipeline p;
  build_pipeline(g, &p);
  EXPECT_EQ(attr_int(g, "input_producer_1/RandomShuffle", "seed"), 20261121);
  EXPECT_EQ(attr_int(g, "input_producer_1/RandomShuffle", "seed2"), 26);
  EXPECT_EQ(attr_int(g, "shuffle_batch/random_shuffle_queue", "seed2"), 58);
  TF_DeleteGraph(g);
  /* Without one: (0, 0) unseeded, or (DEFAULT_GRAPH_SEED, op seed). */
  g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_StringInputProducer(root, FILES, 2, 0, 1, 0, 32, NULL, s);
  OK(s);
  TFC_StringInputProducer(root, FILES, 2, 0, 1, 5, 32, "seeded", s);
  OK(s);
  EXPECT_EQ(attr_int(g, "input_producer/RandomShuffle", "seed"), 0);
  EXPECT_EQ(attr_int(g, "input_producer/RandomShuffle", "seed2"), 0);
  EXPECT_EQ(attr_int(g, "seeded/RandomShuffle", "seed"), 87654321);
  EXPECT_EQ(attr_int(g, "seeded/RandomShuffle", "seed2"), 5);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void local_variables_stay_out_of_global_ones(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  /* No local variables: the initializer is a plain NoOp. */
  TF_Operation *none = TFC_LocalVariablesInitializer(root, NULL, s);
  OK(s);
  EXPECT_STREQ(name_of(none), "init");
  EXPECT_EQ(TF_OperationNumControlInputs(none), 0);
  TF_Output zero = TFC_ScalarConst(root, "zero", TF_FLOAT, 0, s);
  TFC_Variable g1 = TFC_NewVariable(root, "w", zero, 1, s);
  OK(s);
  TFC_Variable l1 = TFC_NewLocalVariable(root, "count", zero, s);
  OK(s);
  EXPECT_STREQ(name_of(l1.variable), "count");
  EXPECT_STREQ(name_of(l1.initializer), "count/Assign");
  EXPECT_STREQ(name_of(l1.value.oper), "count/read");
  TFC_Variable out[4];
  EXPECT_EQ(TFC_LocalVariables(g, out, 4), 1);
  EXPECT_TRUE(out[0].variable == l1.variable);
  EXPECT_EQ(TFC_GlobalVariables(g, out, 4), 1);
  EXPECT_TRUE(out[0].variable == g1.variable);
  EXPECT_EQ(TFC_TrainableVariables(g, out, 4), 1);
  TF_Operation *li = TFC_LocalVariablesInitializer(root, NULL, s);
  OK(s);
  EXPECT_STREQ(name_of(li), "init_1");
  TF_Operation *ctl[4];
  EXPECT_EQ(TF_OperationGetControlInputs(li, ctl, 4), 1);
  EXPECT_TRUE(ctl[0] == l1.initializer);
  TF_Operation *gi = TFC_GlobalVariablesInitializer(root, "gi", s);
  OK(s);
  EXPECT_EQ(TF_OperationGetControlInputs(gi, ctl, 4), 1);
  EXPECT_TRUE(ctl[0] == g1.initializer);
  EXPECT_EQ(TFC_LocalVariables(NULL, out, 4), 0);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void scope_device_and_names_apply(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Scope *sub = TFC_NewSubScope(root, "data");
  TFC_Scope *dev = TFC_ScopeWithDevice(sub, "/cpu:0");
  TF_Output q = TFC_StringInputProducer(dev, FILES, 2, 1, 0, 0, 4, "files", s);
  OK(s);
  EXPECT_STREQ(name_of(q.oper), "data/files");
  EXPECT_STREQ(TF_OperationDevice(q.oper), "/device:CPU:0");
  TF_Operation *count = TF_GraphOperationByName(g, "data/files/limit_epochs/CountUpTo");
  EXPECT_TRUE(count != NULL);
  EXPECT_STREQ(TF_OperationDevice(count), "/device:CPU:0");
  EXPECT_TRUE(TF_GraphOperationByName(g, "data/files/fraction_of_4_full") != NULL);
  /* The same name again is made unique as a Python name scope. */
  TF_Output q2 = TFC_StringInputProducer(dev, FILES, 2, 0, 0, 0, 4, "files", s);
  OK(s);
  EXPECT_STREQ(name_of(q2.oper), "data/files_1");
  EXPECT_TRUE(TF_GraphOperationByName(g, "data/files_1/files_1_EnqueueMany") != NULL);
  TF_Output key, value;
  TFC_TFRecordReaderRead(dev, q, "GZIP", "reader", &key, &value, s);
  OK(s);
  EXPECT_STREQ(name_of(key.oper), "data/ReaderReadV2");
  TF_Operation *reader = TF_GraphOperationByName(g, "data/reader");
  EXPECT_TRUE(reader != NULL);
  char ct[16] = {0};
  TF_OperationGetAttrString(reader, "compression_type", ct, sizeof ct - 1, s);
  OK(s);
  EXPECT_STREQ(ct, "GZIP");
  TFC_DeleteScope(dev);
  TFC_DeleteScope(sub);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* ---------------- (3) errors ---------------- */

/* Expects code and message fragment, and a graph with `before` nodes. */
static void expect_failure(TF_Status *s, TF_Code code, const char *msg, TF_Graph *g, int before) {
  EXPECT_EQ(TF_GetCode(s), code);
  EXPECT_CONTAINS(TF_Message(s), msg);
  EXPECT_EQ(capi_num_ops(g), before);
}

static void producer_errors_are_pythons(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output q = TFC_StringInputProducer(root, FILES, 0, 0, 0, 0, 32, NULL, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "string_input_producer requires a non-null input tensor", g, 0);
  EXPECT_TRUE(q.oper == NULL);
  TFC_StringInputProducer(root, FILES, 2, -1, 0, 0, 32, NULL, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "num_epochs must be > 0 not -1.", g, 0);
  TFC_StringInputProducer(root, FILES, 2, 0, 0, 0, 0, NULL, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "capacity must be > 0 not 0", g, 0);
  TFC_StringInputProducer(NULL, FILES, 2, 0, 0, 0, 32, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "scope is NULL");
  /* Nothing was taken: the next producer is the first. */
  q = TFC_StringInputProducer(root, FILES, 2, 0, 0, 0, 32, NULL, s);
  OK(s);
  EXPECT_STREQ(name_of(q.oper), "input_producer");
  EXPECT_EQ(TFC_CollectionSize(g, "queue_runners"), 1);
  EXPECT_EQ(TFC_CollectionSize(g, "summaries"), 1);
  int before = capi_num_ops(g);
  TF_Output key, value;
  TFC_TFRecordReaderRead(root, q, "LZ4", NULL, &key, &value, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "Unsupported compression_type: 'LZ4'", g, before);
  EXPECT_TRUE(key.oper == NULL && value.oper == NULL);
  TF_Output notq = TFC_ScalarConst(root, "k", TF_FLOAT, 1, s);
  before = capi_num_ops(g);
  TFC_TFRecordReaderRead(root, notq, NULL, NULL, &key, &value, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "queue 'k:0' is a float tensor, not a queue handle", g, before);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void parse_errors_name_the_feature(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output ser = placeholder(root, "ser", TF_STRING, NULL, 0);
  int before = capi_num_ops(g);
  TF_Output v[3];
  TFC_ParseSingleExample(root, ser, NULL, 0, v, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "Missing features.", g, before);
  int64_t bad[2] = {-1, 3};
  TFC_FixedLenFeature f1 = {"img", TF_FLOAT, bad, 2, NULL};
  TFC_ParseSingleExample(root, ser, &f1, 1, v, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "All dimensions of shape for feature img need to be known but received [None, 3].",
                 g, before);
  TFC_FixedLenFeature f2 = {"x", TF_INT32, NULL, 0, NULL};
  TFC_ParseSingleExample(root, ser, &f2, 1, v, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "feature 'x': dtype int32 is not supported", g, before);
  TF_Tensor *d = scalar_i64(3);
  TFC_FixedLenFeature f3 = {"y", TF_FLOAT, NULL, 0, d};
  TFC_ParseSingleExample(root, ser, &f3, 1, v, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "feature 'y': default_value is int64, the feature is float", g, before);
  TFC_FixedLenFeature twice[2] = {{"a", TF_INT64, NULL, 0, NULL}, {"a", TF_INT64, NULL, 0, NULL}};
  TFC_ParseSingleExample(root, ser, twice, 2, v, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "feature 'a' is given twice", g, before);
  int64_t two = 2;
  TF_Output vec = placeholder(root, "vec", TF_STRING, &two, 1);
  before = capi_num_ops(g);
  TFC_FixedLenFeature ok = {"a", TF_INT64, NULL, 0, d};
  TFC_ParseSingleExample(root, vec, &ok, 1, v, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "Input serialized must be a scalar", g, before);
  EXPECT_TRUE(v[0].oper == NULL);
  /* A good call after the failures takes the first names. */
  TFC_ParseSingleExample(root, ser, &ok, 1, v, s);
  OK(s);
  EXPECT_STREQ(name_of(v[0].oper), "ParseSingleExample/ParseSingleExample");
  EXPECT_TRUE(TF_GraphOperationByName(g, "ParseSingleExample/key_a") != NULL);
  TF_DeleteTensor(d);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* TFC_BatchWithOptions: enqueue_many enqueues batches (QueueEnqueueManyV2 "<q>_EnqueueMany",
 * element shapes without the first dim); the shuffle with allow_smaller_final_batch dequeues up
 * to a batch; dynamic_pad batches through a PaddingFIFOQueueV2 and keeps unknown dims; a
 * partial shape without it, a scalar with enqueue_many and NULL options fail and leave the
 * graph alone. */
static void batch_with_options(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  int64_t d[2] = {5, 3};
  TF_Output rows = placeholder(root, "rows", TF_FLOAT, d, 2);
  TF_Output scalar = placeholder(root, "scalar", TF_FLOAT, NULL, 0);
  TFC_BatchOptions o = {0, 4, 10, 2, 0, 0, 1, 0, NULL, 0};
  TF_Output out[1];
  TFC_BatchWithOptions(root, &rows, 1, &o, out, s);
  OK(s);
  EXPECT_STREQ(name_of(out[0].oper), "batch");
  TF_Operation *enq = TF_GraphOperationByName(g, "batch/fifo_queue_EnqueueMany");
  EXPECT_TRUE(enq != NULL);
  EXPECT_STREQ(TF_OperationOpType(enq), "QueueEnqueueManyV2");
  int64_t dims[8];
  int nd;
  dims_of(g, out[0], dims, &nd);
  EXPECT_EQ(nd, 2);
  EXPECT_EQ(dims[0], 4);
  EXPECT_EQ(dims[1], 3);
  TFC_BatchOptions sh = {1, 2, 10, 1, 3, 0, 0, 1, "sb", 0};
  TFC_BatchWithOptions(root, &scalar, 1, &sh, out, s);
  OK(s);
  EXPECT_STREQ(name_of(out[0].oper), "sb");
  EXPECT_STREQ(TF_OperationOpType(out[0].oper), "QueueDequeueUpToV2");
  dims_of(g, out[0], dims, &nd);
  EXPECT_EQ(nd, 1);
  EXPECT_EQ(dims[0], -1);
  /* dynamic_pad: a padding queue; the unknown dim stays unknown in the batch. */
  int64_t pd[2] = {-1, 3};
  TF_Output ragged = placeholder(root, "ragged", TF_FLOAT, pd, 2);
  TFC_BatchOptions pad = {0, 2, 10, 1, 0, 0, 0, 0, "padded", 1};
  TFC_BatchWithOptions(root, &ragged, 1, &pad, out, s);
  OK(s);
  TF_Operation *pq = TF_GraphOperationByName(g, "padded/padding_fifo_queue");
  EXPECT_TRUE(pq != NULL);
  EXPECT_STREQ(TF_OperationOpType(pq), "PaddingFIFOQueueV2");
  dims_of(g, out[0], dims, &nd);
  EXPECT_EQ(nd, 3);
  EXPECT_EQ(dims[0], 2);
  EXPECT_EQ(dims[1], -1);
  EXPECT_EQ(dims[2], 3);
  int before = capi_num_ops(g);
  pad.dynamic_pad = 0;
  TFC_BatchWithOptions(root, &ragged, 1, &pad, out, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "All shapes must be fully defined", g, before);
  TFC_BatchWithOptions(root, &scalar, 1, &o, out, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "Shape () must have rank at least 1", g, before);
  TFC_BatchWithOptions(root, &rows, 1, NULL, out, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "TFC_BatchWithOptions: options is NULL", g, before);
  EXPECT_TRUE(out[0].oper == NULL);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void batch_errors_are_pythons(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  int64_t d3[2] = {-1, 3}, d4 = 4;
  TF_Output known = placeholder(root, "known", TF_FLOAT, &d4, 1);
  TF_Output partial = placeholder(root, "partial", TF_FLOAT, d3, 2);
  TF_Output unknown = placeholder(root, "unknown", TF_FLOAT, NULL, -1);
  int before = capi_num_ops(g);
  TF_Output out[2];
  TFC_ShuffleBatch(root, &known, 1, 4, 10, 10, 1, 0, NULL, out, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "capacity 10 must be bigger than min_after_dequeue 10.", g, before);
  TFC_ShuffleBatch(root, &known, 0, 4, 10, 2, 1, 0, NULL, out, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "Expected at least one tensor in batch().", g, before);
  TF_Output two[2] = {known, partial};
  TFC_Batch(root, two, 2, 4, 10, 1, 0, NULL, out, s);
  expect_failure(s, TF_INVALID_ARGUMENT,
                 "All shapes must be fully defined: [TensorShape([Dimension(4)]), "
                 "TensorShape([Dimension(None), Dimension(3)])]",
                 g, before);
  EXPECT_TRUE(out[0].oper == NULL && out[1].oper == NULL);
  TFC_Batch(root, &unknown, 1, 4, 10, 1, 0, NULL, out, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "Cannot infer Tensor's rank: Tensor(\"unknown:0\", dtype=float32)", g,
                 before);
  TFC_Batch(root, &known, 1, 0, 10, 1, 0, NULL, out, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "batch_size must be > 0 not 0.", g, before);
  TFC_Batch(root, &known, 1, 4, 10, 0, 0, NULL, out, s);
  expect_failure(s, TF_INVALID_ARGUMENT, "num_threads must be > 0 not 0.", g, before);
  EXPECT_EQ(TFC_CollectionSize(g, "queue_runners"), 0);
  EXPECT_EQ(TFC_CollectionSize(g, "summaries"), 0);
  /* Nothing was taken: the next batch is "batch", with Python's nodes. */
  TFC_Batch(root, &known, 1, 4, 10, 3, 0, NULL, out, s);
  OK(s);
  EXPECT_STREQ(name_of(out[0].oper), "batch");
  EXPECT_STREQ(TF_OperationOpType(out[0].oper), "QueueDequeueManyV2");
  TF_Operation *entry[8];
  EXPECT_EQ(TFC_CollectionEntry(g, "queue_runners", 0, entry, 8), 6); /* queue, close, cancel, 3 x enqueue */
  EXPECT_STREQ(name_of(entry[0]), "batch/fifo_queue");
  EXPECT_STREQ(name_of(entry[1]), "batch/fifo_queue_Close");
  EXPECT_STREQ(name_of(entry[2]), "batch/fifo_queue_Close_1");
  EXPECT_STREQ(name_of(entry[5]), "batch/fifo_queue_enqueue");
  EXPECT_TRUE(entry[3] == entry[5]);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* ---------------- (4) end to end ---------------- */

/* A growable buffer for protobuf wire bytes. */
typedef struct pbuf {
  unsigned char b[512];
  size_t n;
} pbuf;

static void pb_varint(pbuf *p, uint64_t v) {
  do {
    p->b[p->n++] = (unsigned char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    v >>= 7;
  } while (v);
}

/* A length-delimited field. */
static void pb_bytes(pbuf *p, int field, const void *data, size_t len) {
  pb_varint(p, (uint64_t)field << 3 | 2);
  pb_varint(p, len);
  memcpy(p->b + p->n, data, len);
  p->n += len;
}

/* features.feature[key] = Feature{kind: list} (map entry: key = 1, value = 2). */
static void pb_feature(pbuf *features, const char *key, int kind, const pbuf *list) {
  pbuf feat = {.n = 0}, entry = {.n = 0};
  pb_bytes(&feat, kind, list->b, list->n);
  pb_bytes(&entry, 1, key, strlen(key));
  pb_bytes(&entry, 2, feat.b, feat.n);
  pb_bytes(features, 1, entry.b, entry.n);
}

enum { N_PIX = 4, N_FILES = 3, PER_FILE = 4, N_EXAMPLES = N_FILES * PER_FILE };

/* Example `label`: image_raw = bytes label..label+3, pixels = label*100 + i, label. */
static void example(int label, pbuf *out) {
  pbuf features = {.n = 0}, bytes = {.n = 0}, pix = {.n = 0}, packed = {.n = 0}, lab = {.n = 0};
  unsigned char img[N_PIX];
  for (int i = 0; i < N_PIX; i++) img[i] = (unsigned char)(label + i);
  pb_bytes(&bytes, 1, img, N_PIX); /* BytesList.value */
  for (int i = 0; i < N_PIX; i++) pb_varint(&packed, (uint64_t)(label * 100 + i));
  pb_bytes(&pix, 1, packed.b, packed.n); /* Int64List.value, packed */
  packed.n = 0;
  pb_varint(&packed, (uint64_t)label);
  pb_bytes(&lab, 1, packed.b, packed.n);
  pb_feature(&features, "image_raw", 1, &bytes); /* Feature.bytes_list = 1, int64_list = 3 */
  pb_feature(&features, "pixels", 3, &pix);
  pb_feature(&features, "label", 3, &lab);
  out->n = 0;
  pb_bytes(out, 1, features.b, features.n); /* Example.features */
}

typedef struct e2e_files {
  char dir[1024];
  char paths[N_FILES][1100];
  const char *names[N_FILES];
} e2e_files;

/* N_FILES TFRecord files of PER_FILE examples each, labels 0..N_EXAMPLES-1. */
static void write_files(e2e_files *f) {
  snprintf(f->dir, sizeof f->dir, "%s/input_e2e_XXXXXX", TFC_BINARY_DIR);
  EXPECT_TRUE(mkdtemp(f->dir) != NULL);
  tfc_status st;
  tfc_status_init(&st);
  for (int k = 0; k < N_FILES; k++) {
    snprintf(f->paths[k], sizeof f->paths[k], "%s/part-%d.tfrecord", f->dir, k);
    f->names[k] = f->paths[k];
    tfc_record_writer *w = tfc_record_writer_open(f->paths[k], TFC_COMPRESSION_NONE, 0, &st);
    EXPECT_TRUE(w != NULL);
    for (int r = 0; r < PER_FILE; r++) {
      pbuf ex;
      example(k * PER_FILE + r, &ex);
      EXPECT_EQ(tfc_record_write(w, ex.b, ex.n, &st), TFC_OK);
    }
    EXPECT_EQ(tfc_record_writer_close(w, &st), TFC_OK);
  }
  tfc_status_fini(&st);
}

static void remove_files(e2e_files *f) {
  for (int k = 0; k < N_FILES; k++) unlink(f->paths[k]);
  rmdir(f->dir);
}

/* string_input_producer -> TFRecordReader -> parse -> decode_raw -> [image, pixels, label]. */
static void read_pipeline(TFC_Scope *root, e2e_files *f, int64_t num_epochs, TF_Output *out) {
  TF_Status *s = TF_NewStatus();
  TF_Output q = TFC_StringInputProducer(root, f->names, N_FILES, num_epochs, 1, 7, 32, NULL, s);
  OK(s);
  TF_Output key, value;
  TFC_TFRecordReaderRead(root, q, NULL, NULL, &key, &value, s);
  OK(s);
  int64_t npix = N_PIX;
  TFC_FixedLenFeature feats[3] = {{"image_raw", TF_STRING, NULL, 0, NULL},
                                  {"pixels", TF_INT64, &npix, 1, NULL},
                                  {"label", TF_INT64, NULL, 0, NULL}};
  TF_Output v[3];
  TFC_ParseSingleExample(root, value, feats, 3, v, s);
  OK(s);
  TF_Output raw = TFC_DecodeRaw(root, v[0], TF_UINT8, 1, s);
  OK(s);
  int32_t dims[1] = {N_PIX};
  out[0] = reshape(root, cast(root, raw, TF_FLOAT), dims, 1);
  out[1] = v[1];
  out[2] = v[2];
  TF_DeleteStatus(s);
}

/* Runs the initializers, starts the queue runners, fetches `batch` until OUT_OF_RANGE and
 * records every row's label (checking its image and pixels). Returns the number of rows. */
static int drain(TF_Graph *g, TF_Operation *const *inits, int n_inits, const TF_Output *batch, int *labels,
                 int max) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  OK(s);
  TF_DeleteSessionOptions(o);
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)inits, n_inits, NULL, s);
  OK(s);
  TFC_Coordinator *coord = TFC_NewCoordinator();
  TFC_StartQueueRunners(sess, g, coord, s);
  OK(s);
  int rows = 0;
  for (int step = 0; step < 100; step++) {
    TF_Tensor *out[3] = {NULL, NULL, NULL};
    TF_SessionRun(sess, NULL, NULL, NULL, 0, batch, out, 3, NULL, 0, NULL, s);
    if (TF_GetCode(s) == TF_OUT_OF_RANGE) break;
    OK(s);
    int64_t n = TF_Dim(out[2], 0);
    EXPECT_EQ(TF_Dim(out[0], 1), N_PIX);
    const float *img = TF_TensorData(out[0]);
    const int64_t *pix = TF_TensorData(out[1]), *lab = TF_TensorData(out[2]);
    for (int64_t r = 0; r < n; r++) {
      EXPECT_TRUE(rows < max);
      labels[rows++] = (int)lab[r];
      for (int i = 0; i < N_PIX; i++) {
        EXPECT_EQ(img[r * N_PIX + i], lab[r] + i);
        EXPECT_EQ(pix[r * N_PIX + i], lab[r] * 100 + i);
      }
    }
    for (int k = 0; k < 3; k++) TF_DeleteTensor(out[k]);
  }
  EXPECT_EQ(TF_GetCode(s), TF_OUT_OF_RANGE);
  TFC_CoordinatorRequestStop(coord, NULL);
  TFC_CoordinatorJoin(coord, s);
  TFC_DeleteCoordinator(coord);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteStatus(s);
  return rows;
}

/* Labels [from, from + N_EXAMPLES) of rows hold each example exactly once. */
static void expect_one_epoch(const int *labels, int from) {
  int seen[N_EXAMPLES] = {0};
  for (int i = from; i < from + N_EXAMPLES; i++) {
    EXPECT_TRUE(labels[i] >= 0 && labels[i] < N_EXAMPLES);
    seen[labels[i]]++;
  }
  for (int l = 0; l < N_EXAMPLES; l++)
    if (seen[l] != 1) tfc_test_fail(__FILE__, __LINE__, "example %d arrived %d times in the epoch", l, seen[l]);
}

static void batch_reads_every_example_once_per_epoch(void) {
  e2e_files f;
  write_files(&f);
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_Output row[3], batch[3];
  read_pipeline(root, &f, 2, row);
  /* One reader thread and a FIFO: epoch 1's examples, then epoch 2's; 24 rows = 4 x 5 + 4. */
  TFC_Batch(root, row, 3, 5, 32, 1, 1, NULL, batch, s);
  OK(s);
  TF_Operation *inits[2] = {TFC_LocalVariablesInitializer(root, NULL, s), NULL};
  OK(s);
  inits[1] = TFC_GlobalVariablesInitializer(root, NULL, s);
  OK(s);
  int labels[64];
  EXPECT_EQ(drain(g, inits, 2, batch, labels, 64), 2 * N_EXAMPLES);
  expect_one_epoch(labels, 0);
  expect_one_epoch(labels, N_EXAMPLES);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
  remove_files(&f);
}

static void shuffle_batch_reads_every_example_once(void) {
  e2e_files f;
  write_files(&f);
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_SetRandomSeed(g, 3);
  TF_Output row[3], batch[3];
  read_pipeline(root, &f, 1, row);
  /* Two enqueue threads; 12 examples = 3 batches of 4, then OUT_OF_RANGE. */
  TFC_ShuffleBatch(root, row, 3, 4, 20, 2, 2, 0, NULL, batch, s);
  OK(s);
  TF_Operation *inits[2] = {TFC_LocalVariablesInitializer(root, NULL, s), NULL};
  OK(s);
  inits[1] = TFC_GlobalVariablesInitializer(root, NULL, s);
  OK(s);
  int labels[64];
  EXPECT_EQ(drain(g, inits, 2, batch, labels, 64), N_EXAMPLES);
  expect_one_epoch(labels, 0);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
  remove_files(&f);
}

static const tfc_test tests[] = {
    TFC_TEST(pipeline_matches_tf_graph),
    TFC_TEST(batch_with_options),
    TFC_TEST(collections_match_tf),
    TFC_TEST(builders_return_pythons_tensors),
    TFC_TEST(seeds_follow_tf115),
    TFC_TEST(local_variables_stay_out_of_global_ones),
    TFC_TEST(scope_device_and_names_apply),
    TFC_TEST(producer_errors_are_pythons),
    TFC_TEST(parse_errors_name_the_feature),
    TFC_TEST(batch_errors_are_pythons),
    TFC_TEST(batch_reads_every_example_once_per_epoch),
    TFC_TEST(shuffle_batch_reads_every_example_once),
    {0},
};

TFC_TEST_MAIN(tests)
