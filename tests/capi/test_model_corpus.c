/*
 * The model corpus: inference graphs of models people deploy (the Keras applications, an
 * SSD-style detector head, BERT-style encoders, greedy seq2seq decoders in TF1 and TF2
 * control flow, image preprocessing from JPEG and PNG bytes), frozen by real TensorFlow, run through tfc's C API and checked against the
 * outputs TensorFlow computed for the very same graph. tests/fixtures/gen_model_corpus.py
 * writes models/NAME.pb and models/NAME.expect (a one-run session script, format:
 * session_script.h); weights and inputs are computed in the graph, so nothing is fed.
 * Floating outputs match within 1e-4 of the output's largest magnitude, integers exactly; the small
 * models run twice in their session.
 *
 * A per_example model also runs its default batch fed, forced example by example where
 * session/batch_split.h allows, against the same outputs.
 *
 * One test per model. A failure names the first thing that stops the model: the op the
 * import does not know, the shape function or the kernel that fails, or the first value that
 * differs. Only tensorflow/c/c_api.h is used.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../fixtures/session_script.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"

/* Every model gen_model_corpus.py writes: X(name, heavy, per_example). Heavy ones are skipped
 * under valgrind. A per_example model computes each example of the batch on its own (no loop
 * that ends when the whole batch is done), so it also runs on the first example alone. */
#define MODELS(X)                                                                                  \
  X(mobilenet, 1, 1)                                                                               \
  X(mobilenet_v2, 1, 1)                                                                            \
  X(mobilenet_v3_small, 1, 1)                                                                      \
  X(resnet50, 1, 1)                                                                                \
  X(resnet50_v2, 1, 1)                                                                             \
  X(inception_v3, 1, 1)                                                                            \
  X(xception, 1, 1)                                                                                \
  X(densenet121, 1, 1)                                                                             \
  X(efficientnet_b0, 1, 1)                                                                         \
  X(nasnet_mobile, 1, 1)                                                                           \
  X(vgg16, 1, 1)                                                                                   \
  X(mobilenet_tf1_session, 1, 1)                                                                   \
  X(unet_small, 0, 1)                                                                              \
  X(atrous_conv, 0, 1)                                                                             \
  X(text_lstm, 0, 1)                                                                               \
  X(ssd_head, 0, 0)                                                                                \
  X(ssd_nms, 0, 0)                                                                                 \
  X(bert_tf1, 0, 0)                                                                                \
  X(bert_einsum, 0, 0)                                                                             \
  X(decoder_cf_v1, 0, 0)                                                                           \
  X(decoder_cf_v2, 0, 0)                                                                           \
  X(decoder_tf2_function, 0, 0)                                                                    \
  X(beam_search_cf_v1, 0, 0)                                                                       \
  X(beam_search_cf_v2, 0, 0)                                                                       \
  X(bert_tf1_erf, 0, 0)                                                                            \
  X(image_preprocess, 0, 0)


/* ------------------------------------------------------------------------------------------ */

/* The model input: the one float PlaceholderWithDefault of g, else the one int32 one (a
 * bool one is Keras's learning phase). */
static TF_Operation *model_input(const char *name, TF_Graph *g) {
  const TF_DataType types[2] = {TF_FLOAT, TF_INT32};
  for (int t = 0; t < 2; t++) {
    TF_Operation *found = NULL, *op;
    size_t pos = 0;
    while ((op = TF_GraphNextOperation(g, &pos)))
      if (!strcmp(TF_OperationOpType(op), "PlaceholderWithDefault") &&
          TF_OperationOutputType((TF_Output){op, 0}) == types[t]) {
        if (found) FAIL("%s: two inputs, %s and %s", name, TF_OperationName(found), TF_OperationName(op));
        found = op;
      }
    if (found) return found;
  }
  FAIL("%s: no float or int32 PlaceholderWithDefault input", name);
}

/* Feeds the first example of the input's default batch alone and checks every fetch against
 * the first example of TensorFlow's batch-of-2 outputs: unknown-batch shapes (Shape,
 * StridedSlice, Pack into Reshape) resolved at run time with another batch size. */
static void run_first_example(const char *name, const ss_script *sc, TF_Graph *g, TF_Session *sess) {
  TF_Status *s = TF_NewStatus();
  TF_Output x = {model_input(name, g), 0};
  TF_Tensor *batch = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &x, &batch, 1, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) FAIL("%s: fetching the default input: %s", name, TF_Message(s));
  int nd = TF_NumDims(batch);
  int64_t dims[SS_MAX_DIMS];
  for (int d = 0; d < nd; d++) dims[d] = TF_Dim(batch, d);
  if (nd < 1 || dims[0] != 2) FAIL("%s: the default input's batch is %lld, not 2", name, (long long)(nd ? dims[0] : -1));
  dims[0] = 1;
  size_t half = TF_TensorByteSize(batch) / 2;
  TF_Tensor *one = TF_AllocateTensor(TF_TensorType(batch), dims, nd, half);
  memcpy(TF_TensorData(one), TF_TensorData(batch), half);
  TF_DeleteTensor(batch);
  int n = 0;
  TF_Output outs[32];
  ss_record firsts[32];
  for (int k = 0; k < sc->nrecs; k++) {
    const ss_record *r = &sc->recs[k];
    if (r->kind != 'o') continue;
    if (n == 32) FAIL("%s: more than 32 fetches", name);
    if (r->ndims < 1 || r->dims[0] != 2) FAIL("%s: fetch %s has no batch of 2", name, r->op);
    firsts[n] = *r;
    firsts[n].dims[0] = 1;
    firsts[n].n = r->n / 2; /* row-major: example 0 comes first */
    outs[n++] = (TF_Output){ss_op(sc->name, g, r->op), r->index};
  }
  TF_Tensor *vals[32] = {0};
  TF_SessionRun(sess, NULL, &x, &one, 1, outs, vals, n, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) FAIL("%s: run on the first example: code %d: %s", name, (int)TF_GetCode(s), TF_Message(s));
  for (int k = 0; k < n; k++) {
    ss_check_tensor(sc, &firsts[k], vals[k], 1);
    TF_DeleteTensor(vals[k]);
  }
  TF_DeleteTensor(one);
  TF_DeleteStatus(s);
}

/* Feeds the default batch of 2 itself to a two-thread session that must run it example by
 * example wherever session/batch_split.h allows (TFC_BATCH_SPLIT=1), and checks every fetch
 * against TensorFlow's batch: the split's rules on the graphs TensorFlow writes. */
static void run_fed_batch_split(const char *name, const ss_script *sc, TF_Graph *g) {
  TF_Status *s = TF_NewStatus();
  setenv("TFC_BATCH_SPLIT", "1", 1);
  TF_SessionOptions *so = TF_NewSessionOptions();
  unsigned char config[4] = {0x10, 2, 0x28, 2}; /* intra_op 2, inter_op 2 */
  TF_SetConfig(so, config, sizeof config, s);
  TF_Session *sess = TF_NewSession(g, so, s);
  if (TF_GetCode(s) != TF_OK) FAIL("%s: new session: %s", name, TF_Message(s));
  TF_Output x = {model_input(name, g), 0};
  TF_Tensor *batch = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &x, &batch, 1, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) FAIL("%s: fetching the default input: %s", name, TF_Message(s));
  int n = 0;
  TF_Output outs[32];
  const ss_record *recs[32];
  for (int k = 0; k < sc->nrecs && n < 32; k++)
    if (sc->recs[k].kind == 'o') {
      recs[n] = &sc->recs[k];
      outs[n++] = (TF_Output){ss_op(sc->name, g, sc->recs[k].op), sc->recs[k].index};
    }
  TF_Tensor *vals[32] = {0};
  TF_SessionRun(sess, NULL, &x, &batch, 1, outs, vals, n, NULL, 0, NULL, s);
  unsetenv("TFC_BATCH_SPLIT");
  if (TF_GetCode(s) != TF_OK) FAIL("%s: fed batch: code %d: %s", name, (int)TF_GetCode(s), TF_Message(s));
  for (int k = 0; k < n; k++) {
    ss_check_tensor(sc, recs[k], vals[k], 0);
    TF_DeleteTensor(vals[k]);
  }
  TF_DeleteTensor(batch);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteStatus(s);
}

static void run_model(const char *name, int heavy, int per_example) {
  if (heavy && getenv("TFC_TEST_VALGRIND")) tfc_test_skip("a whole image model is minutes under valgrind");
  char pb_file[256], script_file[256];
  snprintf(pb_file, sizeof pb_file, "models/%s.pb", name);
  snprintf(script_file, sizeof script_file, "models/%s.expect", name);
  ss_script sc;
  ss_load(script_file, &sc);
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = ss_try_import(pb_file, s);
  if (TF_GetCode(s) != TF_OK) FAIL("%s: import: code %d: %s", name, (int)TF_GetCode(s), TF_Message(s));
  TF_SessionOptions *so = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, so, s);
  if (TF_GetCode(s) != TF_OK) FAIL("%s: new session: code %d: %s", name, (int)TF_GetCode(s), TF_Message(s));
  if (ss_replay(&sc, g, sess, heavy ? 1 : 2) == 0) FAIL("%s checks nothing", script_file);
  if (per_example) run_first_example(name, &sc, g, sess);
  if (per_example && !getenv("TFC_TEST_VALGRIND")) run_fed_batch_split(name, &sc, g);
  TF_CloseSession(sess, s);
  if (TF_GetCode(s) != TF_OK) FAIL("%s: close session: %s", name, TF_Message(s));
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(so);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  ss_free(&sc);
}

#define DEFINE_MODEL_TEST(n, heavy, per_example) \
  static void model_##n(void) { run_model(#n, heavy, per_example); }
MODELS(DEFINE_MODEL_TEST)

static const char *const model_names[] = {
#define MODEL_NAME(n, heavy, per_example) #n,
    MODELS(MODEL_NAME)
#undef MODEL_NAME
};

/* Every models/NAME.expect has a test above and every test has its files. */
static void models_are_all_listed(void) {
  size_t nnames = sizeof model_names / sizeof model_names[0], found = 0;
  DIR *dir = opendir(TFC_FIXTURE_DIR "/models");
  if (!dir) FAIL("cannot open %s/models: %s", TFC_FIXTURE_DIR, strerror(errno));
  struct dirent *e;
  while ((e = readdir(dir))) {
    size_t len = strlen(e->d_name);
    if (len <= 7 || strcmp(e->d_name + len - 7, ".expect")) continue;
    int listed = 0;
    for (size_t k = 0; k < nnames; k++)
      listed |= strlen(model_names[k]) == len - 7 && !strncmp(model_names[k], e->d_name, len - 7);
    if (!listed) FAIL("%s has no test: add it to MODELS in %s", e->d_name, __FILE__);
    found++;
  }
  closedir(dir);
  EXPECT_EQ(found, nnames);
  for (size_t k = 0; k < nnames; k++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/models/%s.pb", TFC_FIXTURE_DIR, model_names[k]);
    FILE *f = fopen(path, "rb");
    if (!f) FAIL("%s is missing", path);
    fclose(f);
  }
}

#define MODEL_ENTRY(n, heavy, per_example) {"model_" #n, model_##n},
static const tfc_test tests[] = {
    TFC_TEST(models_are_all_listed),
    MODELS(MODEL_ENTRY)
    {0},
};

TFC_TEST_MAIN(tests)
