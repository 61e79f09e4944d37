/* C API contract tests: include/tfc/summary.h — the tf.summary.* builders and the event writer.
 *
 * (1) The builders make TF 1.15's structure: the graph built here equals, in canonical text
 *     (names, ops, attrs, inputs, shapes), the one tests/fixtures/gen_events.py made with
 *     tf.compat.v1.summary.{scalar, histogram, merge, merge_all} (events_graph.pb).
 * (2) Through a session: merged summaries are written with their steps, the graph event holds
 *     the GraphDef with each node's assigned device (two CPU devices, one node pinned to CPU:1),
 *     and session logs; the file is read back with the event reader. The logdir is left in the
 *     build tree (tests/capi_summary_logdir) for tools/check_events.py.
 * (3) Errors: the ops' run-time errors through the session (TF's texts), builder errors that
 *     leave the graph as it was, merge_all with no summaries, writer errors naming the path.
 */
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/strbuf.h"
#include "capi/capi_internal.h"
#include "graph/graph_text.h"
#include "capi_util.h"
#include "harness.h"
#include "io/events.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/graph.pb-c.h"
#include "tfc/summary.h"
#include "tfc/tfc.h"
#include "tfc/train.h"


static TF_Output placeholder(TFC_Scope *sc, const char *name, const int64_t *dims, int nd) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Placeholder", name);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", dims, nd);
  TF_Status *s = TF_NewStatus();
  TF_Operation *op = TF_FinishOperation(d, s);
  OK(s);
  TF_DeleteStatus(s);
  return (TF_Output){op, 0};
}

static int cmp_line(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The canonical text of g with its lines sorted: an imported graph is in topological order,
 * a built one in creation order. */
static char *graph_text(TF_Graph *g) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  tfc_graph_lock(g->g);
  tfc_graph_to_text(g->g, &b);
  tfc_graph_unlock(g->g);
  char *text = strdup(tfc_strbuf_str(&b)), *lines[256], *save = NULL;
  tfc_strbuf_fini(&b);
  int n = 0;
  for (char *l = strtok_r(text, "\n", &save); l && n < 256; l = strtok_r(NULL, "\n", &save)) lines[n++] = l;
  qsort(lines, (size_t)n, sizeof *lines, cmp_line);
  tfc_strbuf_init(&b);
  for (int i = 0; i < n; i++) tfc_strbuf_printf(&b, "%s\n", lines[i]);
  char *r = strdup(tfc_strbuf_str(&b));
  tfc_strbuf_fini(&b);
  free(text);
  return r;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* ---------------- (1) structure ---------------- */

/* gen_events.py's write_graph, with the builders. */
static void builders_match_tf_graph(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  int64_t w_dims[1] = {3};
  TF_Output x = placeholder(root, "x", NULL, 0), w = placeholder(root, "w", w_dims, 1);
  TF_Output a = TFC_ScalarSummary(root, "loss", x, s);
  OK(s);
  TF_Output b = TFC_ScalarSummary(root, "loss", x, s);
  OK(s);
  TFC_Scope *train = TFC_NewSubScope(root, "train");
  TFC_HistogramSummary(train, "weights", w, s);
  OK(s);
  TFC_ScalarSummary(train, "lr", x, s);
  OK(s);
  TFC_HistogramSummary(root, "bad name!", w, s);
  OK(s);
  TF_Output pair[2] = {a, b};
  TF_Output m = TFC_MergeSummary(root, pair, 2, "pair", s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(m.oper), "pair/pair");
  TF_Output all = TFC_MergeAllSummaries(root, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(all.oper), "Merge/MergeSummary");
  EXPECT_EQ(TF_OperationNumInputs(all.oper), 5);
  EXPECT_EQ(TFC_CollectionSize(g, "summaries"), 5);

  TF_Graph *tf = capi_load_fixture("events_graph.pb");
  char *mine = graph_text(g), *theirs = graph_text(tf);
  if (strcmp(mine, theirs)) fprintf(stderr, "tfc:\n%s\nTF:\n%s\n", mine, theirs);
  EXPECT_STREQ(mine, theirs);
  /* Spot checks of the text the comparison covers. */
  EXPECT_CONTAINS(mine, "loss_1/tags = Const[dtype=string, value=string[]{\"loss_1\"}]");
  EXPECT_CONTAINS(mine, "train/weights = HistogramSummary[T=float](train/weights/tag, w)");
  EXPECT_CONTAINS(mine, "bad_name_/tag = Const[dtype=string, value=string[]{\"bad_name_\"}]");
  free(mine);
  free(theirs);
  TF_DeleteGraph(tf);
  TFC_DeleteScope(train);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* ---------------- (2) through a session into an event file ---------------- */

static TF_Tensor *scalar_f(float v) {
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof v);
  memcpy(TF_TensorData(t), &v, sizeof v);
  return t;
}

static void session_summaries_and_placed_graph_round_trip(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Scope *cpu1 = TFC_ScopeWithDevice(root, "/cpu:1");
  int64_t w_dims[1] = {4};
  TF_Output x = placeholder(root, "x", NULL, 0), w = placeholder(cpu1, "w", w_dims, 1);
  TFC_ScalarSummary(root, "loss", x, s);
  OK(s);
  TFC_HistogramSummary(root, "weights", w, s);
  OK(s);
  TF_Output merged = TFC_MergeAllSummaries(root, s);
  OK(s);

  TF_SessionOptions *opts = TF_NewSessionOptions();
  TFC_SetDeviceCount(opts, "CPU", 2, s);
  OK(s);
  TF_Session *sess = TF_NewSession(g, opts, s);
  OK(s);

  char logdir[1024];
  snprintf(logdir, sizeof logdir, "%s/tests/capi_summary_logdir", TFC_BINARY_DIR);
  nftw(logdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  TFC_EventWriter *ew = TFC_NewEventWriter(logdir, s);
  OK(s);
  const char *path = TFC_EventWriterPath(ew);
  EXPECT_TRUE(!strncmp(path, logdir, strlen(logdir)));
  EXPECT_CONTAINS(path, "/events.out.tfevents.");
  TFC_EventWriterAddSessionLog(ew, TFC_SESSION_LOG_START, NULL, 0, s);
  OK(s);
  const float losses[3] = {2.0f, 1.25f, 0.5f};
  const int64_t steps[3] = {0, 10, 20};
  for (int i = 0; i < 3; i++) {
    TF_Tensor *wv = TF_AllocateTensor(TF_FLOAT, w_dims, 1, 4 * sizeof(float));
    float *wp = TF_TensorData(wv);
    for (int k = 0; k < 4; k++) wp[k] = (float)(k - i);
    TF_Output feeds[2] = {x, w};
    TF_Tensor *fv[2] = {scalar_f(losses[i]), wv}, *out = NULL;
    TF_SessionRun(sess, NULL, feeds, fv, 2, &merged, &out, 1, NULL, 0, NULL, s);
    OK(s);
    TFC_EventWriterAddSummaryTensor(ew, out, steps[i], s);
    OK(s);
    TF_DeleteTensor(fv[0]);
    TF_DeleteTensor(fv[1]);
    TF_DeleteTensor(out);
  }
  TFC_EventWriterAddGraph(ew, g, sess, s);
  OK(s);
  TFC_EventWriterAddSessionLog(ew, TFC_SESSION_LOG_CHECKPOINT, "model.ckpt-20", 20, s);
  OK(s);
  TFC_EventWriterFlush(ew, s);
  OK(s);
  TFC_CloseEventWriter(ew, s);
  OK(s);

  /* Read it back. */
  tfc_status st;
  tfc_status_init(&st);
  tfc_event_reader *r = tfc_event_reader_open(path, &st);
  EXPECT_TRUE(r != NULL);
  Tensorflow__Event *e = NULL;
  EXPECT_EQ(tfc_event_reader_next(r, &e, &st), 0);
  EXPECT_STREQ(e->file_version, "brain.Event:2");
  tensorflow__event__free_unpacked(e, NULL);
  EXPECT_EQ(tfc_event_reader_next(r, &e, &st), 0);
  EXPECT_EQ(e->session_log->status, TFC_SESSION_LOG_START);
  tensorflow__event__free_unpacked(e, NULL);
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(tfc_event_reader_next(r, &e, &st), 0);
    EXPECT_EQ(e->what_case, TENSORFLOW__EVENT__WHAT_SUMMARY);
    EXPECT_EQ(e->step, steps[i]);
    EXPECT_EQ(e->summary->n_value, 2);
    EXPECT_STREQ(e->summary->value[0]->tag, "loss");
    EXPECT_TRUE(e->summary->value[0]->simple_value == losses[i]);
    EXPECT_STREQ(e->summary->value[1]->tag, "weights");
    const Tensorflow__HistogramProto *h = e->summary->value[1]->histo;
    EXPECT_TRUE(h->num == 4 && h->min == -i && h->max == 3 - i && h->sum == 6 - 4 * i);
    tensorflow__event__free_unpacked(e, NULL);
  }
  EXPECT_EQ(tfc_event_reader_next(r, &e, &st), 0);
  EXPECT_EQ(e->what_case, TENSORFLOW__EVENT__WHAT_GRAPH_DEF);
  Tensorflow__GraphDef *gd = tensorflow__graph_def__unpack(NULL, e->graph_def.len, e->graph_def.data);
  EXPECT_TRUE(gd != NULL);
  EXPECT_EQ(gd->n_node, capi_num_ops(g));
  int seen = 0;
  for (size_t i = 0; i < gd->n_node; i++) {
    const char *want = !strcmp(gd->node[i]->name, "w") ? "/job:localhost/replica:0/task:0/device:CPU:1"
                                                        : "/job:localhost/replica:0/task:0/device:CPU:0";
    EXPECT_STREQ(gd->node[i]->device, want);
    seen += !strcmp(gd->node[i]->name, "weights") || !strcmp(gd->node[i]->name, "w");
  }
  EXPECT_EQ(seen, 2);
  tensorflow__graph_def__free_unpacked(gd, NULL);
  tensorflow__event__free_unpacked(e, NULL);
  EXPECT_EQ(tfc_event_reader_next(r, &e, &st), 0);
  EXPECT_EQ(e->session_log->status, TFC_SESSION_LOG_CHECKPOINT);
  EXPECT_STREQ(e->session_log->checkpoint_path, "model.ckpt-20");
  EXPECT_EQ(e->step, 20);
  tensorflow__event__free_unpacked(e, NULL);
  EXPECT_EQ(tfc_event_reader_next(r, &e, &st), TFC_OUT_OF_RANGE);
  tfc_event_reader_free(r);
  tfc_status_fini(&st);

  /* Closed: later writes fail. */
  TFC_EventWriterAddSessionLog(ew, TFC_SESSION_LOG_STOP, NULL, 21, s);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);
  EXPECT_CONTAINS(TF_Message(s), "is closed");
  TFC_DeleteEventWriter(ew);

  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TFC_DeleteScope(cpu1);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* A graph without a session: requested devices are kept as written. */
static void graph_without_session_keeps_requested_devices(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Scope *cpu1 = TFC_ScopeWithDevice(root, "/cpu:1");
  placeholder(cpu1, "p", NULL, 0);
  placeholder(root, "q", NULL, 0);
  char logdir[1024];
  snprintf(logdir, sizeof logdir, "%s/tests/capi_summary_nosession", TFC_BINARY_DIR);
  nftw(logdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  TFC_EventWriter *ew = TFC_NewEventWriterWithSuffix(logdir, ".v2", s);
  OK(s);
  EXPECT_TRUE(strlen(TFC_EventWriterPath(ew)) > 3 &&
              !strcmp(TFC_EventWriterPath(ew) + strlen(TFC_EventWriterPath(ew)) - 3, ".v2"));
  TFC_EventWriterAddGraph(ew, g, NULL, s);
  OK(s);
  TFC_CloseEventWriter(ew, s);
  OK(s);
  tfc_status st;
  tfc_status_init(&st);
  tfc_event_reader *r = tfc_event_reader_open(TFC_EventWriterPath(ew), &st);
  Tensorflow__Event *e = NULL;
  EXPECT_EQ(tfc_event_reader_next(r, &e, &st), 0);
  tensorflow__event__free_unpacked(e, NULL);
  EXPECT_EQ(tfc_event_reader_next(r, &e, &st), 0);
  Tensorflow__GraphDef *gd = tensorflow__graph_def__unpack(NULL, e->graph_def.len, e->graph_def.data);
  EXPECT_EQ(gd->n_node, 2);
  EXPECT_STREQ(gd->node[0]->device, "/device:CPU:1");
  EXPECT_STREQ(gd->node[1]->device, "");
  tensorflow__graph_def__free_unpacked(gd, NULL);
  tensorflow__event__free_unpacked(e, NULL);
  tfc_event_reader_free(r);
  tfc_status_fini(&st);
  TFC_DeleteEventWriter(ew);
  nftw(logdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  TFC_DeleteScope(cpu1);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* ---------------- (3) errors ---------------- */

static void op_errors_surface_through_the_session(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  int64_t dims[1] = {2};
  TF_Output x = placeholder(root, "x", NULL, 0), v = placeholder(root, "v", dims, 1);
  TF_Output h = TFC_HistogramSummary(root, "hist", v, s);
  OK(s);
  TF_Output sc = TFC_ScalarSummary(root, "loss", x, s);
  OK(s);
  TF_Output bad = TFC_ScalarSummary(root, "vec", v, s); /* a vector against a scalar tag */
  OK(s);
  TF_Output dup_in[2] = {sc, sc};
  TF_Output dup = TFC_MergeSummary(root, dup_in, 2, NULL, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(dup.oper), "Merge/MergeSummary");
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  OK(s);

  TF_Tensor *vt = TF_AllocateTensor(TF_FLOAT, dims, 1, 2 * sizeof(float));
  ((float *)TF_TensorData(vt))[0] = 1;
  ((float *)TF_TensorData(vt))[1] = 0.0f / 0.0f;
  TF_Tensor *xt = scalar_f(3);
  TF_Output feeds[2] = {x, v};
  TF_Tensor *fv[2] = {xt, vt}, *out = NULL;
  TF_SessionRun(sess, NULL, feeds, fv, 2, &h, &out, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Nan in summary histogram for: hist");
  EXPECT_CONTAINS(TF_Message(s), "[[{{node hist}}]]");
  TF_SessionRun(sess, NULL, feeds, fv, 2, &bad, &out, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "tags and values not the same shape: [] != [2] (tag 'vec')");
  TF_SessionRun(sess, NULL, feeds, fv, 2, &dup, &out, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Duplicate tag loss found in summary inputs");
  TF_DeleteTensor(xt);
  TF_DeleteTensor(vt);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void builder_errors_leave_graph_unchanged(void) {
  TF_Graph *g = TF_NewGraph(), *other = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g), *oroot = TFC_NewRootScope(other);
  TF_Output x = placeholder(root, "x", NULL, 0), y = placeholder(oroot, "y", NULL, 0);

  /* merge_all with nothing collected: no op, no error (Python's None). */
  TF_Output none = TFC_MergeAllSummaries(root, s);
  OK(s);
  EXPECT_TRUE(none.oper == NULL);
  int before = capi_num_ops(g);

  TFC_ScalarSummary(NULL, "loss", x, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "scope is NULL");
  TF_Output r = TFC_ScalarSummary(root, NULL, x, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "TFC_ScalarSummary: the summary name (NULL) is empty");
  EXPECT_TRUE(r.oper == NULL);
  TFC_ScalarSummary(root, "/", x, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "TFC_ScalarSummary: the summary name '/' is empty once cleaned");
  TFC_HistogramSummary(root, "h", y, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "TFC_HistogramSummary: node 'y' is not in this graph");
  TFC_MergeSummary(root, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "TFC_MergeSummary: no summaries to merge");
  /* A merge of a float: the op's own validation fails after the scope and the name were
   * taken; all of it is rolled back. */
  TFC_MergeSummary(root, &x, 1, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Merge/MergeSummary");
  /* A string value is not a real number: ScalarSummary's T rejects it, and neither the Const
   * nor the collection entry survives. */
  TF_Output str = TFC_HistogramSummary(root, "s", x, s); /* a valid summary (a string) */
  OK(s);
  before = capi_num_ops(g);
  TFC_ScalarSummary(root, "of_string", str, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "string");
  EXPECT_EQ(capi_num_ops(g), before);
  EXPECT_EQ(TFC_CollectionSize(g, "summaries"), 1);
  /* The names a failed call took are free again: "of_string" and "Merge" are handed out. */
  TF_Output ok = TFC_ScalarSummary(root, "of_string", x, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(ok.oper), "of_string");
  TF_Output m = TFC_MergeAllSummaries(root, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(m.oper), "Merge/MergeSummary");

  TFC_DeleteScope(root);
  TFC_DeleteScope(oroot);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
  TF_DeleteGraph(other);
}

static void writer_errors_name_the_path(void) {
  TF_Status *s = TF_NewStatus();
  char file[1024], logdir[1100];
  snprintf(file, sizeof file, "%s/tests/capi_summary_plain_file", TFC_BINARY_DIR);
  FILE *f = fopen(file, "w");
  EXPECT_TRUE(f != NULL);
  fclose(f);
  snprintf(logdir, sizeof logdir, "%s/logs", file);
  EXPECT_TRUE(TFC_NewEventWriter(logdir, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);
  EXPECT_CONTAINS(TF_Message(s), file);
  EXPECT_CONTAINS(TF_Message(s), "Not a directory");
  remove(file);
  EXPECT_TRUE(TFC_NewEventWriter(NULL, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TFC_EventWriterFlush(NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "TFC_EventWriterFlush: writer is NULL");
  EXPECT_TRUE(TFC_EventWriterPath(NULL) == NULL);
  TFC_DeleteEventWriter(NULL);

  char dir[1024];
  snprintf(dir, sizeof dir, "%s/tests/capi_summary_errors", TFC_BINARY_DIR);
  TFC_EventWriter *ew = TFC_NewEventWriter(dir, s);
  OK(s);
  TFC_EventWriterAddSummary(ew, "\x0a\xff", 2, 0, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TFC_EventWriterAddSessionLog(ew, 0, NULL, 0, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_Tensor *t = scalar_f(1);
  TFC_EventWriterAddSummaryTensor(ew, t, 0, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "TFC_EventWriterAddSummaryTensor: a summary is a string scalar, got float []");
  TF_DeleteTensor(t);
  TFC_EventWriterAddGraph(ew, NULL, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TFC_DeleteEventWriter(ew); /* closes */
  nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  TF_DeleteStatus(s);
}

/* The tag Const's value of summary op `op` (its first input), as a C string the caller frees. */
static char *tag_of(TF_Operation *op) {
  TF_Output in = TF_OperationInput((TF_Input){op, 0});
  TF_Tensor *t = NULL;
  TF_Status *s = TF_NewStatus();
  TF_OperationGetAttrTensor(in.oper, "value", &t, s);
  OK(s);
  const char *dst = NULL;
  size_t len = 0; /* a scalar string tensor: one 8-byte offset, then the encoded string */
  TF_StringDecode((const char *)TF_TensorData(t) + 8, TF_TensorByteSize(t) - 8, &dst, &len, s);
  OK(s);
  char *r = strndup(dst, len);
  TF_DeleteStatus(s);
  TF_DeleteTensor(t);
  return r;
}

/* family: scope "<family>/<name>", tag "<family>/<scope>" (TF's summary_scope); an empty
 * family fails and leaves the graph as it was. */
static void family_names_scope_and_tag(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  int64_t d = 2;
  TF_Output x = placeholder(root, "x", &d, 1);
  TF_Output a = TFC_HistogramSummaryWithFamily(root, "w", "my fam", x, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(a.oper), "my_fam/w");
  char *tag = tag_of(a.oper);
  EXPECT_STREQ(tag, "my_fam/my_fam/w");
  free(tag);
  TFC_Scope *train = TFC_NewSubScope(root, "train");
  TF_Output b = TFC_HistogramSummaryWithFamily(train, "w", "my fam", x, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(b.oper), "train/my_fam/w");
  tag = tag_of(b.oper);
  EXPECT_STREQ(tag, "my_fam/train/my_fam/w");
  free(tag);
  int before = capi_num_ops(g);
  TFC_HistogramSummaryWithFamily(root, "w", "", x, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_EQ(capi_num_ops(g), before);
  EXPECT_EQ(TFC_CollectionSize(g, "summaries"), 2);
  TFC_DeleteScope(train);
  TFC_DeleteScope(root);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* TFC_EventWriterAddEvent appends a serialized Event as given (FileWriter.add_event): its
 * wall_time and step are kept; bytes that are not an Event, a NULL writer and a closed
 * writer fail. */
static void add_event_keeps_the_callers_event(void) {
  TF_Status *s = TF_NewStatus();
  char dir[1024];
  snprintf(dir, sizeof dir, "%s/tests/capi_summary_add_event", TFC_BINARY_DIR);
  TFC_EventWriter *ew = TFC_NewEventWriter(dir, s);
  OK(s);
  Tensorflow__Event in = TENSORFLOW__EVENT__INIT;
  in.wall_time = 123.5;
  in.step = 42;
  in.what_case = TENSORFLOW__EVENT__WHAT_FILE_VERSION;
  in.file_version = "custom";
  size_t len = tensorflow__event__get_packed_size(&in);
  uint8_t *buf = malloc(len);
  tensorflow__event__pack(&in, buf);
  TFC_EventWriterAddEvent(ew, buf, len, s);
  OK(s);
  TFC_EventWriterAddEvent(ew, "\x0a\xff", 2, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Unparseable Event");
  TFC_EventWriterAddEvent(NULL, buf, len, s);
  EXPECT_STREQ(TF_Message(s), "TFC_EventWriterAddEvent: writer is NULL");
  char *path = strdup(TFC_EventWriterPath(ew));
  TFC_CloseEventWriter(ew, s);
  OK(s);
  TFC_EventWriterAddEvent(ew, buf, len, s);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);

  tfc_status st;
  tfc_status_init(&st);
  tfc_event_reader *r = tfc_event_reader_open(path, &st);
  EXPECT_TRUE(r != NULL);
  Tensorflow__Event *e = NULL;
  EXPECT_EQ(tfc_event_reader_next(r, &e, &st), 0);
  EXPECT_STREQ(e->file_version, "brain.Event:2");
  tensorflow__event__free_unpacked(e, NULL);
  EXPECT_EQ(tfc_event_reader_next(r, &e, &st), 0);
  EXPECT_TRUE(e->wall_time == 123.5);
  EXPECT_EQ(e->step, 42);
  EXPECT_STREQ(e->file_version, "custom");
  tensorflow__event__free_unpacked(e, NULL);
  EXPECT_EQ(tfc_event_reader_next(r, &e, &st), TFC_OUT_OF_RANGE);
  tfc_event_reader_free(r);
  tfc_status_fini(&st);
  free(path);
  free(buf);
  TFC_DeleteEventWriter(ew);
  nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(add_event_keeps_the_callers_event),
    TFC_TEST(family_names_scope_and_tag),
    TFC_TEST(builders_match_tf_graph),
    TFC_TEST(session_summaries_and_placed_graph_round_trip),
    TFC_TEST(graph_without_session_keeps_requested_devices),
    TFC_TEST(op_errors_surface_through_the_session),
    TFC_TEST(builder_errors_leave_graph_unchanged),
    TFC_TEST(writer_errors_name_the_path),
    {0},
};

TFC_TEST_MAIN(tests)
