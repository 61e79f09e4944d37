/*
 * TFC_SaveSavedModel and the SavedModel reader (tfc/saved_model.h): a graph with a variable
 * changed after initialization, a local variable set by the main op and a serving signature is
 * written, then loaded by TF_LoadSessionFromSavedModel into a new graph, whose outputs show the
 * saved value and the main op; the reader gives the tags and signatures (names, dtypes,
 * shapes, method) of tfc's output and of TF 2.x's (tests/fixtures/saved_model_tf2_module);
 * bad arguments and a non-empty directory fail with TF's codes and texts. The saver writes the
 * ".meta" file on request (write_meta_graph=True), and a graph imported from it restores.
 *
 * With TFC_SAVED_MODEL_OUT set, written_model_loads writes there and keeps the directory, for
 * tests/fixtures/check_saved_model_tf.py (TensorFlow's loader on tfc's output).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "capi_util.h"
#include "tfc/meta_graph.h"
#include "tfc/saved_model.h"
#include "tfc/train.h"

static char dir[256];

static void temp_dir(void) {
  snprintf(dir, sizeof dir, "/tmp/tfc_sm_write_XXXXXX");
  EXPECT_TRUE(mkdtemp(dir) != NULL);
}

static void remove_tree(const char *d) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
  EXPECT_EQ(system(cmd), 0);
}

static TF_Output scalar(TF_Graph *g, const char *name, float v, TF_Status *s) {
  return capi_const(g, name, TF_FLOAT, NULL, 0, &v, sizeof v, s);
}

typedef struct model {
  TF_Graph *g;
  TF_Session *sess;
  TF_Output x, y, z;
} model;

/* x: float [-1]; y = w * x + 2 with w initialized to 0.5 then assigned 3; z = x + c with c a
 * local variable that only the main op "main_op" sets (to 7). */
static void build(model *m, TF_Status *s) {
  m->g = TF_NewGraph();
  TF_Graph *g = m->g;
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "x");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  int64_t dims[1] = {-1};
  TF_SetAttrShape(d, "shape", dims, 1);
  m->x = (TF_Output){capi_finish(d), 0};
  TFC_Variable w = TFC_NewVariable(root, "w", scalar(g, "w/initial_value", 0.5f, s), 1, s);
  OK(s);
  TFC_Variable c = TFC_NewVariableWithFlags(root, "c", scalar(g, "c/initial_value", 0, s), TFC_VARIABLE_LOCAL, s);
  OK(s);
  TF_Output mul = capi_op2(g, "Mul", "mul", w.value, m->x, s);
  m->y = capi_op2(g, "Add", "y", mul, scalar(g, "two", 2, s), s);
  m->z = capi_op2(g, "Add", "z", m->x, c.value, s);
  TF_Output set_w = capi_op2(g, "Assign", "set_w", (TF_Output){w.variable, 0}, scalar(g, "three", 3, s), s);
  capi_op2(g, "Assign", "main_op", (TF_Output){c.variable, 0}, scalar(g, "seven", 7, s), s);
  TF_Operation *init = TFC_GlobalVariablesInitializer(root, NULL, s);
  OK(s);
  TFC_DeleteScope(root);
  TF_SessionOptions *o = TF_NewSessionOptions();
  m->sess = TF_NewSession(g, o, s);
  TF_DeleteSessionOptions(o);
  OK(s);
  TF_SessionRun(m->sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&init, 1, NULL, s);
  OK(s);
  const TF_Operation *set = set_w.oper;
  TF_SessionRun(m->sess, NULL, NULL, NULL, 0, NULL, NULL, 0, &set, 1, NULL, s);
  OK(s);
}

static void done(model *m, TF_Status *s) {
  TF_CloseSession(m->sess, s);
  TF_DeleteSession(m->sess, s);
  TF_DeleteGraph(m->g);
}

static const char *const serve[] = {"serve"};

static int save(model *m, const char *where, const char *sig_key, const char *main_op, TF_Status *s) {
  const char *in_keys[] = {"x"}, *out_keys[] = {"z", "y"};
  TF_Output outs[] = {m->z, m->y};
  TFC_SignatureSpec sig = {sig_key, NULL, 1, in_keys, &m->x, 2, out_keys, outs};
  return TFC_SaveSavedModel(m->sess, m->g, NULL, where, serve, 1, &sig, 1, main_op, s);
}

/* Runs output `name` of the loaded graph with x = [1, 2, 3]. */
static void expect_run(TF_Session *sess, TF_Graph *g, const char *name, const float want[3], TF_Status *s) {
  float xv[3] = {1, 2, 3};
  int64_t dims[1] = {3};
  TF_Tensor *x = TF_AllocateTensor(TF_FLOAT, dims, 1, sizeof xv);
  memcpy(TF_TensorData(x), xv, sizeof xv);
  TF_Output xo = {TF_GraphOperationByName(g, "x"), 0}, out = {TF_GraphOperationByName(g, name), 0};
  EXPECT_TRUE(xo.oper && out.oper);
  TF_Tensor *v = NULL;
  TF_SessionRun(sess, NULL, &xo, &x, 1, &out, &v, 1, NULL, 0, NULL, s);
  OK(s);
  const float *got = TF_TensorData(v);
  for (int i = 0; i < 3; i++) EXPECT_NEAR(got[i], want[i], 1e-6);
  TF_DeleteTensor(x);
  TF_DeleteTensor(v);
}

static void written_model_loads(void) {
  TF_Status *s = TF_NewStatus();
  model m;
  build(&m, s);
  const char *keep = getenv("TFC_SAVED_MODEL_OUT");
  if (keep) {
    snprintf(dir, sizeof dir, "%s", keep);
  } else {
    temp_dir();
    strcat(dir, "/model"); /* a directory that does not exist yet */
  }
  EXPECT_EQ(save(&m, dir, "serving_default", "main_op", s), 1);
  OK(s);
  done(&m, s);
  char p[512];
  snprintf(p, sizeof p, "%s/variables/variables.index", dir);
  EXPECT_EQ(access(p, F_OK), 0);
  snprintf(p, sizeof p, "%s/variables/checkpoint", dir);
  EXPECT_TRUE(access(p, F_OK) != 0); /* no state file, as TF's builder */

  TF_Graph *g = TF_NewGraph();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_LoadSessionFromSavedModel(o, NULL, dir, serve, 1, g, NULL, s);
  TF_DeleteSessionOptions(o);
  OK(s);
  const float y[3] = {5, 8, 11}, z[3] = {8, 9, 10};
  expect_run(sess, g, "y", y, s); /* w restored as 3, not its initial 0.5 */
  expect_run(sess, g, "z", z, s); /* c set by the main op */
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  if (!keep) {
    *strrchr(dir, '/') = 0;
    remove_tree(dir);
  }
  TF_DeleteStatus(s);
}

static void reader_describes_written_model(void) {
  TF_Status *s = TF_NewStatus();
  model m;
  build(&m, s);
  temp_dir();
  EXPECT_EQ(save(&m, dir, "serving_default", NULL, s), 1);
  OK(s);
  done(&m, s);
  TFC_SavedModel *sm = TFC_ReadSavedModel(dir, s);
  OK(s);
  EXPECT_EQ(TFC_SavedModelNumMetaGraphs(sm), 1);
  EXPECT_EQ(TFC_SavedModelNumTags(sm, 0), 1);
  EXPECT_STREQ(TFC_SavedModelTag(sm, 0, 0), "serve");
  EXPECT_EQ(TFC_SavedModelFindMetaGraph(sm, serve, 1), 0);
  EXPECT_EQ(TFC_SavedModelNumSignatures(sm, 0), 1);
  EXPECT_STREQ(TFC_SavedModelSignatureKey(sm, 0, 0), "serving_default");
  EXPECT_STREQ(TFC_SavedModelSignatureMethod(sm, 0, 0), "tensorflow/serving/predict");
  EXPECT_EQ(TFC_SavedModelSignatureNumTensors(sm, 0, 0, 0), 1);
  EXPECT_EQ(TFC_SavedModelSignatureNumTensors(sm, 0, 0, 1), 2);
  TFC_SignatureTensor t;
  EXPECT_EQ(TFC_SavedModelSignatureTensor(sm, 0, 0, 0, 0, &t), 1);
  EXPECT_STREQ(t.key, "x");
  EXPECT_STREQ(t.name, "x:0");
  EXPECT_EQ(t.kind, TFC_SIGNATURE_TENSOR_DENSE);
  EXPECT_EQ(t.dtype, TF_FLOAT);
  EXPECT_EQ(t.num_dims, 1);
  EXPECT_EQ(TFC_SavedModelSignatureTensorDim(sm, 0, 0, 0, 0, 0), -1);
  EXPECT_EQ(TFC_SavedModelSignatureTensor(sm, 0, 0, 1, 0, &t), 1); /* sorted: y before z */
  EXPECT_STREQ(t.key, "y");
  EXPECT_STREQ(t.name, "y:0");
  EXPECT_EQ(TFC_SavedModelSignatureTensor(sm, 0, 0, 1, 1, &t), 1);
  EXPECT_STREQ(t.key, "z");
  EXPECT_EQ(TFC_SavedModelSignatureTensor(sm, 0, 0, 1, 2, &t), 0);
  /* the SaverDef and the variables collection are in the MetaGraphDef */
  size_t len = 0;
  const void *b = TFC_SavedModelMetaGraphBytes(sm, 0, &len);
  TFC_MetaGraph *mg = TFC_NewMetaGraphFromBuffer(b, len, s);
  OK(s);
  TFC_SaverDef sd;
  EXPECT_TRUE(TFC_MetaGraphGetSaverDef(mg, &sd));
  EXPECT_STREQ(sd.restore_op_name, "save/restore_all");
  EXPECT_EQ(TFC_MetaGraphCollectionKind(mg, "variables"), TFC_COLLECTION_BYTES_LIST);
  TFC_DeleteMetaGraph(mg);
  TFC_DeleteSavedModel(sm);
  remove_tree(dir);
  TF_DeleteStatus(s);
}

static void reader_describes_tf2_model(void) {
  TF_Status *s = TF_NewStatus();
  TFC_SavedModel *sm = TFC_ReadSavedModel(TFC_FIXTURE_DIR "/saved_model_tf2_module", s);
  OK(s);
  EXPECT_EQ(TFC_SavedModelNumSignatures(sm, 0), 2);
  EXPECT_STREQ(TFC_SavedModelSignatureKey(sm, 0, 0), "__saved_model_init_op");
  EXPECT_STREQ(TFC_SavedModelSignatureKey(sm, 0, 1), "serving_default");
  int k = TFC_SavedModelFindSignature(sm, 0, "serving_default");
  EXPECT_EQ(k, 1);
  EXPECT_EQ(TFC_SavedModelFindSignature(sm, 0, "nope"), -1);
  TFC_SignatureTensor t;
  EXPECT_EQ(TFC_SavedModelSignatureTensor(sm, 0, k, 0, 0, &t), 1);
  EXPECT_STREQ(t.name, "serving_default_x:0");
  EXPECT_EQ(t.num_dims, 2);
  EXPECT_EQ(TFC_SavedModelSignatureTensorDim(sm, 0, k, 0, 0, 0), -1);
  EXPECT_EQ(TFC_SavedModelSignatureTensorDim(sm, 0, k, 0, 0, 1), 2);
  EXPECT_EQ(TFC_SavedModelSignatureTensor(sm, 0, k, 1, 0, &t), 1);
  EXPECT_STREQ(t.key, "y");
  EXPECT_STREQ(t.name, "StatefulPartitionedCall:0");
  EXPECT_EQ(TFC_SavedModelSignatureTensorDim(sm, 0, k, 1, 0, 1), 3);
  /* the init op's tensor has an unknown rank */
  EXPECT_EQ(TFC_SavedModelSignatureTensor(sm, 0, 0, 1, 0, &t), 1);
  EXPECT_STREQ(t.name, "NoOp");
  EXPECT_EQ(t.num_dims, -1);
  TFC_DeleteSavedModel(sm);
  TF_DeleteStatus(s);
}

static void non_empty_directory_is_refused(void) {
  TF_Status *s = TF_NewStatus();
  model m;
  build(&m, s);
  temp_dir();
  char p[512];
  snprintf(p, sizeof p, "%s/other", dir);
  FILE *f = fopen(p, "w");
  fclose(f);
  EXPECT_EQ(save(&m, dir, "serving_default", NULL, s), 0);
  EXPECT_EQ(TF_GetCode(s), TF_ALREADY_EXISTS);
  char want[700];
  snprintf(want, sizeof want,
           "Export directory %s already exists, and isn't empty. Please choose a different export directory, or "
           "delete all the contents of the specified directory.",
           dir);
  EXPECT_STREQ(TF_Message(s), want);
  done(&m, s);
  remove_tree(dir);
  TF_DeleteStatus(s);
}

static void bad_arguments_are_invalid(void) {
  TF_Status *s = TF_NewStatus();
  model m;
  build(&m, s);
  temp_dir();
  EXPECT_EQ(save(&m, dir, "__saved_model_init_op", NULL, s), 0);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Signature key '__saved_model_init_op' is reserved");
  EXPECT_EQ(save(&m, dir, "serving_default", "no_such_op", s), 0);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "main op 'no_such_op' is not in the graph");
  EXPECT_EQ(TFC_SaveSavedModel(m.sess, m.g, NULL, dir, NULL, 0, NULL, 0, NULL, s), 0);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  const char *in_keys[] = {"x"};
  TF_Output bad = {NULL, 0};
  TFC_SignatureSpec sig = {"serving_default", NULL, 1, in_keys, &bad, 0, NULL, NULL};
  EXPECT_EQ(TFC_SaveSavedModel(m.sess, m.g, NULL, dir, serve, 1, &sig, 1, NULL, s), 0);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "signature 'serving_default': tensor 'x' is not an output in the graph");
  done(&m, s);
  remove_tree(dir);
  TF_DeleteStatus(s);
}

static void reading_a_missing_directory_is_not_found(void) {
  TF_Status *s = TF_NewStatus();
  EXPECT_TRUE(TFC_ReadSavedModel("/nonexistent/tfc_sm", s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_STREQ(TF_Message(s),
               "Could not find SavedModel .pb or .pbtxt at supplied export directory path: /nonexistent/tfc_sm");
  TF_DeleteStatus(s);
}

/* Saver.save(write_meta_graph=True): "<prefix>.meta" holds the graph and the SaverDef; a new
 * graph imported from it restores the checkpoint through that SaverDef. */
static void saver_writes_meta_graph(void) {
  TF_Status *s = TF_NewStatus();
  model m;
  build(&m, s);
  temp_dir();
  TFC_Scope *root = TFC_NewRootScope(m.g);
  TFC_Saver *sv = TFC_NewSaver(root, NULL, NULL, 0, 5, s);
  OK(s);
  TFC_DeleteScope(root);
  char prefix[300], meta[320];
  snprintf(prefix, sizeof prefix, "%s/model.ckpt", dir);
  EXPECT_EQ(TFC_SaverSaveWithOptions(sv, m.sess, prefix, 7, NULL, NULL, TFC_SAVER_WRITE_META_GRAPH, NULL, 0, s), 1);
  OK(s);
  snprintf(meta, sizeof meta, "%s-7.meta", prefix);
  EXPECT_EQ(access(meta, F_OK), 0);
  snprintf(prefix, sizeof prefix, "%s/other.ckpt", dir);
  EXPECT_EQ(TFC_SaverSaveWithOptions(sv, m.sess, prefix, -1, NULL, "mg", 0, NULL, 0, s), 1);
  snprintf(meta, sizeof meta, "%s.mg", prefix);
  EXPECT_TRUE(access(meta, F_OK) != 0); /* only with the flag */
  TFC_DeleteSaver(sv);
  done(&m, s);

  snprintf(meta, sizeof meta, "%s/model.ckpt-7.meta", dir);
  TFC_MetaGraph *mg = TFC_ReadMetaGraph(meta, s);
  OK(s);
  TFC_SaverDef sd;
  EXPECT_TRUE(TFC_MetaGraphGetSaverDef(mg, &sd));
  EXPECT_STREQ(sd.restore_op_name, "save/restore_all");
  TF_Graph *g = TF_NewGraph();
  TFC_ImportMetaGraph(g, mg, NULL, 0, s);
  OK(s);
  TFC_Saver *back = TFC_NewSaverFromDef(g, &sd, s);
  OK(s);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  TF_DeleteSessionOptions(o);
  OK(s);
  snprintf(prefix, sizeof prefix, "%s/model.ckpt-7", dir);
  TFC_SaverRestore(back, sess, prefix, s);
  OK(s);
  const float y[3] = {5, 8, 11};
  expect_run(sess, g, "y", y, s);
  TFC_DeleteSaver(back);
  TFC_DeleteMetaGraph(mg);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  remove_tree(dir);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(saver_writes_meta_graph),
    TFC_TEST(written_model_loads),
    TFC_TEST(reader_describes_written_model),
    TFC_TEST(reader_describes_tf2_model),
    TFC_TEST(non_empty_directory_is_refused),
    TFC_TEST(bad_arguments_are_invalid),
    TFC_TEST(reading_a_missing_directory_is_not_found),
    {0},
};

TFC_TEST_MAIN(tests)
