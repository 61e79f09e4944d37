/* C API contract tests: MetaGraphDefs (include/tfc/meta_graph.h) and the saver pieces that go
 * with them (TFC_NewSaverFromDef, TFC_SaverGetDef, TFC_SaverSaveWithOptions, the state file
 * functions).
 *
 * (1) Export: the VariableDefs of the variable collections (names as TF writes them), the
 *     SaverDef, the stripped op list, added collections, cleared devices.
 * (2) Round trip: a graph saved and exported, imported under a scope into a fresh graph whose
 *     builder state then holds the variables, restored through a saver made from the def.
 * (3) TensorFlow's .meta and checkpoint (tests/fixtures/meta_graph_tf, gen_meta_graph.py)
 *     imported, its collections recorded, restored and fetched with TF's values.
 * (4) Errors: bad bytes, missing files, names not in the graph, TF's forward-compatibility rule
 *     for attrs the local op lacks.
 * (5) TFC_NewCheckpointReader over TensorFlow's checkpoint: names, dtypes, shapes, values, TF's
 *     texts for a missing key or checkpoint.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capi_util.h"
#include "harness.h"
#include "proto/pb_util.h"
#include "tensorflow/attr_value.pb-c.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/graph.pb-c.h"
#include "tensorflow/meta_graph.pb-c.h"
#include "tensorflow/node_def.pb-c.h"
#include "tensorflow/op_def.pb-c.h"
#include "tensorflow/variable.pb-c.h"
#include "tfc/meta_graph.h"
#include "tfc/saver.h"
#include "tfc/train.h"

static char *tmp_dir(void) {
  char *d = malloc(4096);
  snprintf(d, 4096, "%s/meta_graph_tmp_XXXXXX", TFC_BINARY_DIR);
  EXPECT_TRUE(mkdtemp(d) != NULL);
  return d;
}

static void rm_tree(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char p[8192];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    if (unlink(p) != 0) rm_tree(p);
  }
  closedir(d);
  rmdir(dir);
}

/* weights [[1,2],[3,4]] * scale (trainable), count 7 * scale (int64, not trainable). */
typedef struct model {
  TF_Graph *g;
  TFC_Scope *root;
  TFC_Variable w, count;
} model;

static void model_init(model *m, float scale) {
  TF_Status *s = TF_NewStatus();
  m->g = TF_NewGraph();
  m->root = TFC_NewRootScope(m->g);
  float w[4] = {1 * scale, 2 * scale, 3 * scale, 4 * scale};
  int64_t c = (int64_t)(7 * scale);
  m->w = TFC_NewVariable(m->root, "weights", capi_const(m->g, "w0", TF_FLOAT, (int64_t[]){2, 2}, 2, w, sizeof w, s), 1, s);
  OK(s);
  m->count = TFC_NewVariable(m->root, "count", capi_const(m->g, "c0", TF_INT64, NULL, 0, &c, sizeof c, s), 0, s);
  OK(s);
  TF_DeleteStatus(s);
}

static void model_fini(model *m) {
  TFC_DeleteScope(m->root);
  TF_DeleteGraph(m->g);
}

static TF_Session *start(TF_Graph *g, TF_Operation *init) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  OK(s);
  TF_DeleteSessionOptions(o);
  if (init) {
    TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&init, 1, NULL, s);
    OK(s);
  }
  TF_DeleteStatus(s);
  return sess;
}

static void stop(TF_Session *sess) {
  TF_Status *s = TF_NewStatus();
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteStatus(s);
}

static TF_Tensor *fetch(TF_Session *sess, TF_Graph *g, const char *op) {
  TF_Status *s = TF_NewStatus();
  TF_Output o = {TF_GraphOperationByName(g, op), 0};
  EXPECT_TRUE(o.oper != NULL);
  TF_Tensor *t = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &o, &t, 1, NULL, 0, NULL, s);
  OK(s);
  TF_DeleteStatus(s);
  return t;
}

/* The i-th VariableDef of a collection, unpacked (caller frees). */
static Tensorflow__VariableDef *variable_def(const TFC_MetaGraph *mg, const char *key, int i) {
  size_t len;
  const void *b = TFC_MetaGraphCollectionBytes(mg, key, i, &len);
  EXPECT_TRUE(b != NULL);
  Tensorflow__VariableDef *d = tensorflow__variable_def__unpack(NULL, len, b);
  EXPECT_TRUE(d != NULL);
  return d;
}

static void export_writes_variable_defs_saver_def_and_op_list(void) {
  TF_Status *s = TF_NewStatus();
  model m;
  model_init(&m, 1);
  TFC_Saver *saver = TFC_NewSaver(m.root, NULL, NULL, 0, 5, s);
  OK(s);
  TFC_SaverDef sd;
  TFC_SaverGetDef(saver, &sd);
  EXPECT_STREQ(sd.filename_tensor_name, "save/Const:0");
  EXPECT_STREQ(sd.save_tensor_name, "save/control_dependency:0");
  EXPECT_STREQ(sd.restore_op_name, "save/restore_all");
  EXPECT_EQ(sd.max_to_keep, 5);
  EXPECT_EQ(sd.version, 2);
  TFC_MetaGraph *mg = TFC_ExportMetaGraph(m.g, &sd, NULL, 0, 0, s);
  OK(s);
  /* Variables: "variables" holds both in creation order, "trainable_variables" the weights. */
  EXPECT_EQ(TFC_MetaGraphCollectionKind(mg, "variables"), TFC_COLLECTION_BYTES_LIST);
  EXPECT_EQ(TFC_MetaGraphCollectionSize(mg, "variables"), 2);
  EXPECT_EQ(TFC_MetaGraphCollectionSize(mg, "trainable_variables"), 1);
  Tensorflow__VariableDef *d = variable_def(mg, "variables", 0);
  EXPECT_STREQ(d->variable_name, "weights:0");
  EXPECT_STREQ(d->initializer_name, "weights/Assign");
  EXPECT_STREQ(d->snapshot_name, "weights/read:0");
  EXPECT_STREQ(d->initial_value_name, "w0:0");
  EXPECT_TRUE(d->trainable);
  tensorflow__variable_def__free_unpacked(d, NULL);
  d = variable_def(mg, "variables", 1);
  EXPECT_STREQ(d->variable_name, "count:0");
  EXPECT_TRUE(!d->trainable);
  tensorflow__variable_def__free_unpacked(d, NULL);
  /* The SaverDef as given; the collections added by the caller; the op list. */
  TFC_SaverDef back;
  EXPECT_EQ(TFC_MetaGraphGetSaverDef(mg, &back), 1);
  EXPECT_STREQ(back.restore_op_name, "save/restore_all");
  EXPECT_EQ((int)back.keep_checkpoint_every_n_hours, 10000);
  const char *names[2] = {"weights", "count/read:0"};
  TFC_MetaGraphAddNodeList(mg, "train_op", names, 2, s);
  OK(s);
  int64_t ints[3] = {1, -2, 1LL << 40};
  TFC_MetaGraphAddInt64List(mg, "ints", ints, 3, s);
  OK(s);
  TFC_MetaGraphAddNodeList(mg, "train_op", names, 1, s); /* replaces */
  OK(s);
  EXPECT_EQ(TFC_MetaGraphCollectionSize(mg, "train_op"), 1);
  EXPECT_EQ(TFC_MetaGraphCollectionInt64(mg, "ints", 2), 1LL << 40);
  EXPECT_EQ(TFC_MetaGraphNumCollections(mg), 4);
  TF_Buffer *buf = TF_NewBuffer();
  TFC_MetaGraphToBuffer(mg, buf, s);
  OK(s);
  Tensorflow__MetaGraphDef *m2 = tensorflow__meta_graph_def__unpack(NULL, buf->length, buf->data);
  EXPECT_TRUE(m2 != NULL && m2->meta_info_def != NULL);
  Tensorflow__OpList *ops = tensorflow__op_list__unpack(NULL, m2->meta_info_def->stripped_op_list.len,
                                                        m2->meta_info_def->stripped_op_list.data);
  EXPECT_TRUE(ops != NULL);
  char seen[1024] = "";
  for (size_t i = 0; i < ops->n_op; i++) {
    strcat(seen, ops->op[i]->name);
    strcat(seen, " ");
  }
  EXPECT_STREQ(seen, "Assign Const Identity NoOp PlaceholderWithDefault RestoreV2 SaveV2 VariableV2 ");
  EXPECT_STREQ(m2->meta_info_def->tensorflow_version, TF_Version());
  tensorflow__op_list__free_unpacked(ops, NULL);
  tensorflow__meta_graph_def__free_unpacked(m2, NULL);
  /* Only the collections asked for. */
  TFC_MetaGraph *only = TFC_ExportMetaGraph(m.g, NULL, (const char *const[]){"trainable_variables"}, 1, 0, s);
  OK(s);
  EXPECT_EQ(TFC_MetaGraphNumCollections(only), 1);
  EXPECT_STREQ(TFC_MetaGraphCollectionKey(only, 0), "trainable_variables");
  EXPECT_EQ(TFC_MetaGraphGetSaverDef(only, &back), 0);
  TFC_DeleteMetaGraph(only);
  TF_DeleteBuffer(buf);
  TFC_DeleteMetaGraph(mg);
  TFC_DeleteSaver(saver);
  model_fini(&m);
  TF_DeleteStatus(s);
}

static void round_trip_imports_under_scope_and_restores(void) {
  char *dir = tmp_dir();
  TF_Status *s = TF_NewStatus();
  model m;
  model_init(&m, 1);
  TFC_Saver *saver = TFC_NewSaver(m.root, NULL, NULL, 0, 5, s);
  OK(s);
  TF_Operation *init = TFC_GlobalVariablesInitializer(m.root, NULL, s);
  OK(s);
  TF_Session *sess = start(m.g, init);
  char path[4200], prefix[4300], meta[4400];
  snprintf(path, sizeof path, "%s/model.ckpt", dir);
  EXPECT_EQ(TFC_SaverSaveWithOptions(saver, sess, path, 3, NULL, NULL, TFC_SAVER_PATHS_AS_GIVEN, prefix, sizeof prefix, s),
            1);
  OK(s);
  TFC_SaverDef sd;
  TFC_SaverGetDef(saver, &sd);
  TFC_MetaGraph *mg = TFC_ExportMetaGraph(m.g, &sd, NULL, 0, 0, s);
  OK(s);
  snprintf(meta, sizeof meta, "%s.meta", prefix);
  TFC_WriteMetaGraph(mg, meta, s);
  OK(s);
  TFC_DeleteMetaGraph(mg);
  /* The state file lists the path as given (Python's default). */
  TFC_CheckpointState *st = TFC_GetCheckpointState(dir, NULL, s);
  OK(s);
  EXPECT_TRUE(st != NULL);
  EXPECT_STREQ(TFC_CheckpointStateModelPath(st), prefix);
  EXPECT_EQ(TFC_CheckpointStateNumPaths(st), 1);
  TFC_DeleteCheckpointState(st);
  stop(sess);

  /* A fresh graph: import under "imp", the builders see the variables. */
  TF_Graph *g = TF_NewGraph();
  mg = TFC_ReadMetaGraph(meta, s);
  OK(s);
  TFC_ImportMetaGraph(g, mg, "imp", 0, s);
  OK(s);
  TFC_Variable vars[4];
  EXPECT_EQ(TFC_GlobalVariables(g, vars, 4), 2);
  EXPECT_STREQ(TF_OperationName(vars[0].variable), "imp/weights");
  EXPECT_STREQ(TF_OperationName(vars[0].value.oper), "imp/weights/read");
  EXPECT_EQ(TFC_TrainableVariables(g, vars, 4), 1);
  EXPECT_EQ(TFC_MetaGraphGetSaverDef(mg, &sd), 1);
  char fname[256], save[256], restore[256];
  snprintf(fname, sizeof fname, "imp/%s", sd.filename_tensor_name);
  snprintf(save, sizeof save, "imp/%s", sd.save_tensor_name);
  snprintf(restore, sizeof restore, "imp/%s", sd.restore_op_name);
  sd.filename_tensor_name = fname;
  sd.save_tensor_name = save;
  sd.restore_op_name = restore;
  TFC_Saver *restored = TFC_NewSaverFromDef(g, &sd, s);
  OK(s);
  TFC_DeleteMetaGraph(mg);
  sess = start(g, NULL);
  TFC_SaverRestore(restored, sess, prefix, s);
  OK(s);
  TF_Tensor *w = fetch(sess, g, "imp/weights"), *c = fetch(sess, g, "imp/count");
  for (int i = 0; i < 4; i++) EXPECT_EQ(((float *)TF_TensorData(w))[i], (float)(i + 1));
  EXPECT_EQ(*(int64_t *)TF_TensorData(c), 7);
  TF_DeleteTensor(w);
  TF_DeleteTensor(c);
  /* The imported saver saves too; without state, nothing is tracked. */
  char again[4200], got[4300];
  snprintf(again, sizeof again, "%s/again", dir);
  EXPECT_EQ(TFC_SaverSaveWithOptions(restored, sess, again, -1, NULL, NULL, TFC_SAVER_NO_STATE, got, sizeof got, s), 1);
  OK(s);
  EXPECT_STREQ(got, again);
  EXPECT_EQ(TFC_SaverNumLastCheckpoints(restored), 0);
  stop(sess);
  TFC_DeleteSaver(restored);
  TF_DeleteGraph(g);
  TFC_DeleteSaver(saver);
  model_fini(&m);
  rm_tree(dir);
  free(dir);
  TF_DeleteStatus(s);
}

/* gen_meta_graph.py's expected.json: the values after five steps. */
static const float TF_W[6] = {0.1331326812505722f, -0.3564506769180298f, -0.1756983995437622f,
                              0.34265589714050293f, 0.2870986759662628f, -1.1081005334854126f};

static void imports_and_restores_tensorflow_meta_graph(void) {
  TF_Status *s = TF_NewStatus();
  TFC_MetaGraph *mg = TFC_ReadMetaGraph(TFC_FIXTURE_DIR "/meta_graph_tf/model.ckpt-5.meta", s);
  OK(s);
  TF_Graph *g = TF_NewGraph();
  TFC_ImportMetaGraph(g, mg, NULL, TFC_META_GRAPH_CLEAR_DEVICES, s);
  OK(s);
  TFC_Variable vars[8];
  EXPECT_EQ(TFC_GlobalVariables(g, vars, 8), 3);
  EXPECT_EQ(TFC_TrainableVariables(g, vars, 8), 2);
  EXPECT_EQ(TFC_CollectionSize(g, "summaries"), 1);
  EXPECT_EQ(TFC_CollectionSize(g, "train_op"), 1);
  TF_Operation *op = NULL;
  EXPECT_EQ(TFC_CollectionEntry(g, "train_op", 0, &op, 1), 1);
  EXPECT_STREQ(TF_OperationName(op), "GradientDescent");
  EXPECT_EQ(TFC_MetaGraphCollectionKind(mg, "global_step"), TFC_COLLECTION_BYTES_LIST);
  TFC_SaverDef sd;
  EXPECT_EQ(TFC_MetaGraphGetSaverDef(mg, &sd), 1);
  TFC_Saver *saver = TFC_NewSaverFromDef(g, &sd, s);
  OK(s);
  char latest[4300];
  EXPECT_EQ(TFC_LatestCheckpoint(TFC_FIXTURE_DIR "/meta_graph_tf", latest, sizeof latest, s), 1);
  TF_Session *sess = start(g, NULL);
  TFC_SaverRestore(saver, sess, latest, s);
  OK(s);
  TF_Tensor *w = fetch(sess, g, "w"), *step = fetch(sess, g, "global_step");
  for (int i = 0; i < 6; i++) EXPECT_NEAR(((float *)TF_TensorData(w))[i], TF_W[i], 1e-6);
  EXPECT_EQ(*(int64_t *)TF_TensorData(step), 5);
  TF_DeleteTensor(w);
  TF_DeleteTensor(step);
  /* One training step through TF's train_op. */
  TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&op, 1, NULL, s);
  OK(s);
  step = fetch(sess, g, "global_step");
  EXPECT_EQ(*(int64_t *)TF_TensorData(step), 6);
  TF_DeleteTensor(step);
  stop(sess);
  TFC_DeleteSaver(saver);
  TF_DeleteGraph(g);
  TFC_DeleteMetaGraph(mg);
  TF_DeleteStatus(s);
}

/* A MetaGraphDef of one NoOp "n" carrying attr "newer" = i, whose producer's NoOp declares
 * "newer" with default 0. */
static TFC_MetaGraph *noop_with_newer_attr(int64_t value, TF_Status *s) {
  Tensorflow__AttrValue v = TENSORFLOW__ATTR_VALUE__INIT, dflt = TENSORFLOW__ATTR_VALUE__INIT;
  v.value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
  v.i = value;
  dflt.value_case = TENSORFLOW__ATTR_VALUE__VALUE_I;
  dflt.i = 0;
  Tensorflow__NodeDef__AttrEntry e = TENSORFLOW__NODE_DEF__ATTR_ENTRY__INIT, *ep = &e;
  e.key = "newer";
  e.value = &v;
  Tensorflow__NodeDef nd = TENSORFLOW__NODE_DEF__INIT, *ndp = &nd;
  nd.name = "n";
  nd.op = "NoOp";
  nd.device = "/job:nowhere/device:CPU:7";
  nd.n_attr = 1;
  nd.attr = &ep;
  Tensorflow__GraphDef gd = TENSORFLOW__GRAPH_DEF__INIT;
  gd.n_node = 1;
  gd.node = &ndp;
  Tensorflow__OpDef__AttrDef ad = TENSORFLOW__OP_DEF__ATTR_DEF__INIT, *adp = &ad;
  ad.name = "newer";
  ad.type = "int";
  ad.default_value = &dflt;
  Tensorflow__OpDef od = TENSORFLOW__OP_DEF__INIT, *odp = &od;
  od.name = "NoOp";
  od.n_attr = 1;
  od.attr = &adp;
  Tensorflow__OpList ol = TENSORFLOW__OP_LIST__INIT;
  ol.n_op = 1;
  ol.op = &odp;
  uint8_t gbuf[512], obuf[512];
  size_t glen = tensorflow__graph_def__pack(&gd, gbuf), olen = tensorflow__op_list__pack(&ol, obuf);
  Tensorflow__MetaGraphDef__MetaInfoDef info = TENSORFLOW__META_GRAPH_DEF__META_INFO_DEF__INIT;
  info.stripped_op_list = (ProtobufCBinaryData){olen, obuf};
  Tensorflow__MetaGraphDef m = TENSORFLOW__META_GRAPH_DEF__INIT;
  m.meta_info_def = &info;
  m.graph_def = (ProtobufCBinaryData){glen, gbuf};
  uint8_t mbuf[2048];
  size_t mlen = tensorflow__meta_graph_def__pack(&m, mbuf);
  return TFC_NewMetaGraphFromBuffer(mbuf, mlen, s);
}

static void import_drops_newer_attrs_at_their_default_only(void) {
  TF_Status *s = TF_NewStatus();
  TFC_MetaGraph *mg = noop_with_newer_attr(0, s);
  OK(s);
  TF_Graph *g = TF_NewGraph();
  TFC_ImportMetaGraph(g, mg, NULL, TFC_META_GRAPH_CLEAR_DEVICES, s);
  OK(s);
  TF_Operation *n = TF_GraphOperationByName(g, "n");
  EXPECT_TRUE(n != NULL);
  EXPECT_STREQ(TF_OperationDevice(n), "");
  TFC_DeleteMetaGraph(mg);
  TF_DeleteGraph(g);
  /* Another value has a meaning the local op cannot give it: the import fails, graph unchanged. */
  mg = noop_with_newer_attr(3, s);
  OK(s);
  g = TF_NewGraph();
  TFC_ImportMetaGraph(g, mg, NULL, 0, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "NodeDef mentions attr 'newer'");
  EXPECT_EQ(capi_num_ops(g), 0);
  TFC_DeleteMetaGraph(mg);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void errors_name_the_bytes_file_and_node(void) {
  TF_Status *s = TF_NewStatus();
  EXPECT_TRUE(TFC_NewMetaGraphFromBuffer("\xff\xff\xff", 3, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "MetaGraphDef");
  EXPECT_TRUE(TFC_ReadMetaGraph(TFC_BINARY_DIR "/no/such.meta", s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(s), "no/such.meta");
  /* A collection naming a node the graph lacks. */
  model m;
  model_init(&m, 1);
  TFC_MetaGraph *mg = TFC_ExportMetaGraph(m.g, NULL, NULL, 0, 0, s);
  OK(s);
  const char *missing[1] = {"nowhere:0"};
  TFC_MetaGraphAddNodeList(mg, "losses", missing, 1, s);
  OK(s);
  TFC_MetaGraphAddNodeList(mg, "", missing, 1, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TF_Graph *g = TF_NewGraph();
  TFC_ImportMetaGraph(g, mg, NULL, 0, s);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(s), "'nowhere'");
  /* Importing the same names again clashes (TF_GraphImportGraphDef's error). */
  TFC_ImportMetaGraph(m.g, mg, NULL, 0, s);
  EXPECT_TRUE(TF_GetCode(s) != TF_OK);
  /* A saver def whose nodes are not there. */
  TFC_SaverDef sd = {"save/Const:0", "save/control_dependency:0", "save/restore_all", 5, 0, 0, 2};
  EXPECT_TRUE(TFC_NewSaverFromDef(m.g, &sd, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(s), "save/Const:0");
  sd.restore_op_name = "";
  EXPECT_TRUE(TFC_NewSaverFromDef(m.g, &sd, s) == NULL);
  EXPECT_STREQ(TF_Message(s), "saver_def must specify the restore_op_name");
  TF_DeleteGraph(g);
  TFC_DeleteMetaGraph(mg);
  model_fini(&m);
  TF_DeleteStatus(s);
}

static void state_file_functions_and_latest_filename(void) {
  char *dir = tmp_dir();
  TF_Status *s = TF_NewStatus();
  EXPECT_TRUE(TFC_GetCheckpointState(dir, NULL, s) == NULL);
  OK(s);
  const char *all[2] = {"a-1", "a-2"};
  TFC_UpdateCheckpointState(dir, "a-3", all, 2, "mine", 1, s);
  OK(s);
  TFC_CheckpointState *st = TFC_GetCheckpointState(dir, "mine", s);
  OK(s);
  char want[4200];
  snprintf(want, sizeof want, "%s/a-3", dir);
  EXPECT_STREQ(TFC_CheckpointStateModelPath(st), want);
  EXPECT_EQ(TFC_CheckpointStateNumPaths(st), 3); /* the model path appended */
  snprintf(want, sizeof want, "%s/a-1", dir);
  EXPECT_STREQ(TFC_CheckpointStatePath(st, 0), want);
  TFC_DeleteCheckpointState(st);
  TFC_UpdateCheckpointState(dir, "a-3", NULL, 0, "x/y", 1, s);
  EXPECT_STREQ(TF_Message(s), "'latest_filename' must not contain path components");
  /* keep_checkpoint_every_n_hours 0: every checkpoint falling off the list is kept. */
  model m;
  model_init(&m, 1);
  TFC_Saver *saver = TFC_NewSaver(m.root, NULL, NULL, 0, 1, s);
  OK(s);
  TFC_SaverSetKeepCheckpointEveryNHours(saver, 0);
  TF_Operation *init = TFC_GlobalVariablesInitializer(m.root, NULL, s);
  OK(s);
  TF_Session *sess = start(m.g, init);
  char path[4200], got[4300];
  snprintf(path, sizeof path, "%s/k", dir);
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(TFC_SaverSaveWithOptions(saver, sess, path, i, "state", NULL, TFC_SAVER_PAD_STEP_NUMBER, got, sizeof got,
                                       s),
              1);
    OK(s);
  }
  snprintf(want, sizeof want, "%s/k-00000002", dir);
  EXPECT_STREQ(got, want);
  EXPECT_EQ(TFC_SaverNumLastCheckpoints(saver), 1);
  char idx[4400];
  snprintf(idx, sizeof idx, "%s/k-00000000.index", dir);
  EXPECT_EQ(access(idx, F_OK), 0);
  snprintf(idx, sizeof idx, "%s/state", dir);
  EXPECT_EQ(access(idx, F_OK), 0);
  /* set_last_checkpoints: tracked as given, never deleted when they fall off. */
  const char *set[2] = {"p1", "p2"};
  TFC_SaverSetLastCheckpoints(saver, set, NULL, 2, s);
  OK(s);
  EXPECT_EQ(TFC_SaverNumLastCheckpoints(saver), 2);
  EXPECT_STREQ(TFC_SaverLastCheckpoint(saver, 1), "p2");
  stop(sess);
  TFC_DeleteSaver(saver);
  model_fini(&m);
  rm_tree(dir);
  free(dir);
  TF_DeleteStatus(s);
}

static void checkpoint_reader_lists_and_reads_tensorflows_checkpoint(void) {
  TF_Status *s = TF_NewStatus();
  TFC_CheckpointReader *r = TFC_NewCheckpointReader(TFC_FIXTURE_DIR "/meta_graph_tf/model.ckpt-5", s);
  OK(s);
  EXPECT_EQ(TFC_CheckpointReaderNumTensors(r), 3);
  EXPECT_STREQ(TFC_CheckpointReaderTensorName(r, 0), "b");
  EXPECT_STREQ(TFC_CheckpointReaderTensorName(r, 1), "global_step");
  EXPECT_STREQ(TFC_CheckpointReaderTensorName(r, 2), "w");
  TF_DataType dt;
  int64_t dims[4];
  EXPECT_EQ(TFC_CheckpointReaderTensorInfo(r, "w", &dt, dims, 4, s), 2);
  OK(s);
  EXPECT_EQ(dt, TF_FLOAT);
  EXPECT_EQ(dims[0], 2);
  EXPECT_EQ(dims[1], 3);
  TF_Tensor *w = TFC_CheckpointReaderGetTensor(r, "w", s);
  OK(s);
  for (int i = 0; i < 6; i++) EXPECT_NEAR(((float *)TF_TensorData(w))[i], TF_W[i], 1e-6);
  TF_DeleteTensor(w);
  EXPECT_TRUE(TFC_CheckpointReaderGetTensor(r, "nope", s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_STREQ(TF_Message(s), "Key nope not found in checkpoint");
  EXPECT_EQ(TFC_CheckpointReaderTensorInfo(r, "nope", &dt, dims, 4, s), -1);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  TFC_DeleteCheckpointReader(r);
  EXPECT_TRUE(TFC_NewCheckpointReader(TFC_BINARY_DIR "/no/ckpt", s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_STREQ(TF_Message(s), "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for "
                              TFC_BINARY_DIR "/no/ckpt");
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(checkpoint_reader_lists_and_reads_tensorflows_checkpoint),
    TFC_TEST(export_writes_variable_defs_saver_def_and_op_list),
    TFC_TEST(round_trip_imports_under_scope_and_restores),
    TFC_TEST(imports_and_restores_tensorflow_meta_graph),
    TFC_TEST(import_drops_newer_attrs_at_their_default_only),
    TFC_TEST(errors_name_the_bytes_file_and_node),
    TFC_TEST(state_file_functions_and_latest_filename),
    {0}};
TFC_TEST_MAIN(tests)
