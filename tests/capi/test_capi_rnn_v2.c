/*
 * Dynamic RNNs in control flow v2, written by real TensorFlow (tests/fixtures/gen_rnn_v2.py
 * writes rnn2_NAME.pb and rnn2_NAME.values; both are committed): tf.compat.v1.nn.dynamic_rnn
 * with LSTMCell and GRUCell and a different sequence length per row, whose time loop is a
 * StatelessWhile over library functions carrying TensorLists. Run through the public C API:
 * the outputs and final states right after init must be within 1e-5 of TensorFlow's, and a
 * training graph (the gradient While, fed by TensorList accumulators) must reproduce
 * TensorFlow's loss at every one of five Adam or gradient-descent steps within 1e-4 relative.
 * Also TF 2.x's TensorArrays in loops (tests/fixtures/gen_tensor_list.py: tf.map_fn, tf.scan,
 * a dynamic-size TensorArray written in a while_loop, scatter/gather, split/concat), values and
 * gradients.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tensorflow/c/c_api.h"

#define FAIL(...) tfc_test_fail(__FILE__, __LINE__, __VA_ARGS__)
#define VALUE_TOL 1e-5
#define LOSS_TOL 1e-4
#define MAX_RECS 8
#define MAX_STEPS 16

typedef struct tensor_rec {
  char name[256];
  TF_Tensor *t;
} tensor_rec;

typedef struct fixture {
  char init[256], loss[256], train[256];
  int n_feeds, n_fetches, n_steps;
  tensor_rec feeds[MAX_RECS], fetches[MAX_RECS];
  double losses[MAX_STEPS];
} fixture;

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) FAIL("cannot open %s: %s", path, strerror(errno));
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) FAIL("cannot read %s", path);
  buf[n] = 0;
  fclose(f);
  if (len) *len = (size_t)n;
  return buf;
}

/* "<name> <dtype> <ndims> <dims...> <values...>" after the record kind. */
static void parse_tensor(char **p, tensor_rec *r) {
  int dtype, nd, used;
  if (sscanf(*p, "%255s %d %d%n", r->name, &dtype, &nd, &used) != 3 || nd > 8) FAIL("bad tensor record");
  *p += used;
  int64_t dims[8], n = 1;
  for (int i = 0; i < nd; i++) {
    dims[i] = strtoll(*p, p, 10);
    n *= dims[i];
  }
  r->t = TF_AllocateTensor((TF_DataType)dtype, dims, nd, (size_t)n * TF_DataTypeSize((TF_DataType)dtype));
  for (int64_t i = 0; i < n; i++) {
    if (dtype == TF_FLOAT)
      ((float *)TF_TensorData(r->t))[i] = strtof(*p, p);
    else if (dtype == TF_INT32)
      ((int32_t *)TF_TensorData(r->t))[i] = (int32_t)strtol(*p, p, 10);
    else
      FAIL("dtype %d not handled", dtype);
  }
}

static void load(const char *name, fixture *fx) {
  memset(fx, 0, sizeof *fx);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.values", TFC_FIXTURE_DIR, name);
  char *text = read_file(path, NULL);
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    char kind[16];
    int used;
    if (line[0] == '#' || sscanf(line, "%15s%n", kind, &used) != 1) continue;
    char *p = line + used;
    if (!strcmp(kind, "init"))
      sscanf(p, "%255s", fx->init);
    else if (!strcmp(kind, "loss"))
      sscanf(p, "%255s", fx->loss);
    else if (!strcmp(kind, "train"))
      sscanf(p, "%255s", fx->train);
    else if (!strcmp(kind, "feed") && fx->n_feeds < MAX_RECS)
      parse_tensor(&p, &fx->feeds[fx->n_feeds++]);
    else if (!strcmp(kind, "fetch") && fx->n_fetches < MAX_RECS)
      parse_tensor(&p, &fx->fetches[fx->n_fetches++]);
    else if (!strcmp(kind, "step") && fx->n_steps < MAX_STEPS) {
      int i;
      double v;
      if (sscanf(p, "%d %lf", &i, &v) != 2 || i != fx->n_steps) FAIL("bad step record");
      fx->losses[fx->n_steps++] = v;
    }
  }
  free(text);
}

static void unload(fixture *fx) {
  for (int i = 0; i < fx->n_feeds; i++) TF_DeleteTensor(fx->feeds[i].t);
  for (int i = 0; i < fx->n_fetches; i++) TF_DeleteTensor(fx->fetches[i].t);
}

/* "name:k" -> output of g. */
static TF_Output output(TF_Graph *g, const char *spec) {
  char name[256];
  snprintf(name, sizeof name, "%s", spec);
  char *colon = strrchr(name, ':');
  int index = 0;
  if (colon) {
    *colon = 0;
    index = atoi(colon + 1);
  }
  TF_Operation *op = TF_GraphOperationByName(g, name);
  if (!op) FAIL("no operation %s in the graph", name);
  return (TF_Output){op, index};
}

static TF_Operation *operation(TF_Graph *g, const char *name) {
  TF_Operation *op = TF_GraphOperationByName(g, name);
  if (!op) FAIL("no operation %s in the graph", name);
  return op;
}

static void check(TF_Status *s, const char *what) {
  if (TF_GetCode(s) != TF_OK) FAIL("%s: %s", what, TF_Message(s));
}

static void run_fixture(const char *name) {
  fixture fx;
  load(name, &fx);
  if (fx.n_fetches == 0) FAIL("%s: incomplete fixture", name);
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.pb", TFC_FIXTURE_DIR, name);
  size_t len;
  char *pb = read_file(path, &len);
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Buffer *buf = TF_NewBufferFromString(pb, len);
  TF_ImportGraphDefOptions *io = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g, buf, io, s);
  check(s, "import");
  TF_DeleteImportGraphDefOptions(io);
  TF_DeleteBuffer(buf);
  free(pb);
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  check(s, "new session");
  if (fx.init[0]) {
    TF_Operation *init = operation(g, fx.init);
    TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&init, 1, NULL, s);
    check(s, "init");
  }
  TF_Output feeds[MAX_RECS], fetches[MAX_RECS];
  TF_Tensor *feed_t[MAX_RECS], *got[MAX_RECS] = {0};
  for (int i = 0; i < fx.n_feeds; i++) {
    feeds[i] = output(g, fx.feeds[i].name);
    feed_t[i] = fx.feeds[i].t;
  }
  for (int i = 0; i < fx.n_fetches; i++) fetches[i] = output(g, fx.fetches[i].name);
  TF_SessionRun(sess, NULL, feeds, feed_t, fx.n_feeds, fetches, got, fx.n_fetches, NULL, 0, NULL, s);
  check(s, "inference");
  for (int i = 0; i < fx.n_fetches; i++) {
    int64_t n = TF_TensorElementCount(fx.fetches[i].t);
    EXPECT_EQ(TF_NumDims(got[i]), TF_NumDims(fx.fetches[i].t));
    for (int d = 0; d < TF_NumDims(got[i]); d++) EXPECT_EQ(TF_Dim(got[i], d), TF_Dim(fx.fetches[i].t, d));
    const float *v = TF_TensorData(got[i]), *want = TF_TensorData(fx.fetches[i].t);
    for (int64_t k = 0; k < n; k++)
      if (!(fabs(v[k] - want[k]) <= VALUE_TOL))
        FAIL("%s: %s[%lld] = %.9g, TensorFlow %.9g", name, fx.fetches[i].name, (long long)k, v[k], want[k]);
    TF_DeleteTensor(got[i]);
  }
  if (fx.n_steps) {
    TF_Output loss = output(g, fx.loss);
    TF_Operation *train = operation(g, fx.train);
    for (int step = 0; step < fx.n_steps; step++) {
      TF_Tensor *l = NULL;
      TF_SessionRun(sess, NULL, feeds, feed_t, fx.n_feeds, &loss, &l, 1, NULL, 0, NULL, s);
      check(s, "loss");
      double v = *(float *)TF_TensorData(l);
      TF_DeleteTensor(l);
      if (!(fabs(v - fx.losses[step]) <= LOSS_TOL * fmax(1.0, fabs(fx.losses[step]))))
        FAIL("%s step %d: loss %.9g, TensorFlow %.9g", name, step, v, fx.losses[step]);
      if (step + 1 == fx.n_steps) break; /* the last record is the loss after the last step */
      TF_SessionRun(sess, NULL, feeds, feed_t, fx.n_feeds, NULL, NULL, 0, (const TF_Operation *const *)&train, 1,
                    NULL, s);
      check(s, "train");
    }
  }
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  unload(&fx);
}

static void lstm_inference_matches_tensorflow(void) { run_fixture("rnn2_lstm_infer"); }
static void gru_inference_matches_tensorflow(void) { run_fixture("rnn2_gru_infer"); }
static void lstm_adam_training_matches_tensorflow(void) { run_fixture("rnn2_lstm_adam"); }
static void lstm_gradient_descent_training_matches_tensorflow(void) { run_fixture("rnn2_lstm_gd"); }
static void gru_adam_training_matches_tensorflow(void) { run_fixture("rnn2_gru_adam"); }
static void gru_gradient_descent_training_matches_tensorflow(void) { run_fixture("rnn2_gru_gd"); }
static void map_fn_and_its_gradient_match_tensorflow(void) { run_fixture("tl_map_fn"); }
static void scan_and_its_gradient_match_tensorflow(void) { run_fixture("tl_scan"); }
static void dynamic_size_tensor_array_in_a_loop_matches_tensorflow(void) { run_fixture("tl_dynamic"); }
static void tensor_array_scatter_gather_and_reads_in_a_loop_match_tensorflow(void) { run_fixture("tl_scatter"); }
static void tensor_array_split_and_concat_match_tensorflow(void) { run_fixture("tl_concat"); }

static const tfc_test tests[] = {
    TFC_TEST(lstm_inference_matches_tensorflow),
    TFC_TEST(gru_inference_matches_tensorflow),
    TFC_TEST(lstm_adam_training_matches_tensorflow),
    TFC_TEST(lstm_gradient_descent_training_matches_tensorflow),
    TFC_TEST(gru_adam_training_matches_tensorflow),
    TFC_TEST(gru_gradient_descent_training_matches_tensorflow),
    TFC_TEST(map_fn_and_its_gradient_match_tensorflow),
    TFC_TEST(scan_and_its_gradient_match_tensorflow),
    TFC_TEST(dynamic_size_tensor_array_in_a_loop_matches_tensorflow),
    TFC_TEST(tensor_array_scatter_gather_and_reads_in_a_loop_match_tensorflow),
    TFC_TEST(tensor_array_split_and_concat_match_tensorflow),
    {0},
};

TFC_TEST_MAIN(tests)
