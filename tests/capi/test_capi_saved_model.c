/*
 * TF_LoadSessionFromSavedModel on SavedModels written by TensorFlow's
 * tf.compat.v1.saved_model.simple_save (tests/fixtures/gen_saved_model.py): variables restored
 * from variables/variables, a main op (legacy_init_op) setting a local variable, an asset
 * path fed at load (the main op reads the file there); the outputs for x = [1, 2, 3] equal TF's (expected.txt); tags that match
 * no MetaGraphDef, a missing directory and a non-empty graph fail with TF's codes and texts;
 * the MetaGraphDef comes back and parses. SavedModels written by TF 2.x's tf.saved_model.save (a
 * tf.Module, a Keras model) load and their serving signatures give TF's outputs; simple_save's
 * own sharded saver restores, and saves again, and so does a TF 2.x model's saver.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "capi_util.h"
#include "tfc/meta_graph.h"

#define DIR(name) TFC_FIXTURE_DIR "/" name

static TF_Session *load(const char *dir, const char *const *tags, int n, TF_Graph *g, TF_Buffer *mgd, TF_Status *s) {
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_LoadSessionFromSavedModel(o, NULL, dir, tags, n, g, mgd, s);
  TF_DeleteSessionOptions(o);
  return sess;
}

/* Loads dir with tag serve, runs every tensor of its expected.txt with the input fed (x =
 * [1, 2, 3] into "x", or the first line's "feed <tensor> <d0>x<d1> <values>"), and compares
 * (floats, within 1e-5 relative). */
static void check_model(const char *dir) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  const char *tags[] = {"serve"};
  TF_Session *sess = load(dir, tags, 1, g, NULL, s);
  OK(s);
  char path[1024];
  snprintf(path, sizeof path, "%s/expected.txt", dir);
  FILE *f = fopen(path, "r");
  EXPECT_TRUE(f != NULL);
  char line[4096], feed[256] = "x";
  float xv[64] = {1, 2, 3};
  int64_t dims[2] = {3, 1};
  int ndims = 1;
  int lines = 0;
  while (fgets(line, sizeof line, f)) {
    char name[256];
    int used = 0;
    if (strncmp(line, "feed ", 5) == 0) {
      long d0 = 0, d1 = 0;
      EXPECT_TRUE(sscanf(line + 5, "%255s %ldx%ld %n", feed, &d0, &d1, &used) == 3);
      EXPECT_TRUE(d0 * d1 <= 64);
      char *p = line + 5 + used;
      for (long i = 0; i < d0 * d1; i++) xv[i] = strtof(p, &p);
      dims[0] = d0;
      dims[1] = d1;
      ndims = 2;
      continue;
    }
    EXPECT_TRUE(sscanf(line, "%255s %n", name, &used) == 1);
    char *colon = strrchr(name, ':');
    *colon = 0;
    TF_Output out = {TF_GraphOperationByName(g, name), atoi(colon + 1)};
    EXPECT_TRUE(out.oper != NULL);
    size_t nx = (size_t)(dims[0] * (ndims == 2 ? dims[1] : 1));
    TF_Tensor *x = TF_AllocateTensor(TF_FLOAT, dims, ndims, nx * sizeof(float));
    memcpy(TF_TensorData(x), xv, nx * sizeof(float));
    char *fcolon = strrchr(feed, ':');
    if (fcolon) *fcolon = 0;
    TF_Output xo = {TF_GraphOperationByName(g, feed), fcolon ? atoi(fcolon + 1) : 0};
    if (fcolon) *fcolon = ':';
    EXPECT_TRUE(xo.oper != NULL);
    TF_Tensor *v = NULL;
    TF_SessionRun(sess, NULL, &xo, &x, 1, &out, &v, 1, NULL, 0, NULL, s);
    OK(s);
    TF_DeleteTensor(x);
    char *rest = line + used;
    rest[strcspn(rest, "\n")] = 0;
    {
      EXPECT_EQ(TF_TensorType(v), TF_FLOAT);
      const float *got = TF_TensorData(v);
      size_t n = TF_TensorByteSize(v) / sizeof(float), k = 0;
      char *tok = strtok(rest, " ");
      for (; tok; tok = strtok(NULL, " "), k++) {
        EXPECT_TRUE(k < n);
        double want = strtod(tok, NULL);
        EXPECT_NEAR(got[k], want, 1e-5 * (fabs(want) > 1 ? fabs(want) : 1));
      }
      EXPECT_EQ((long)k, (long)n);
    }
    TF_DeleteTensor(v);
    lines++;
  }
  fclose(f);
  EXPECT_TRUE(lines > 0);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void variables_are_restored(void) { check_model(DIR("saved_model_half")); }
static void main_op_runs_at_load(void) { check_model(DIR("saved_model_init")); }
static void asset_paths_are_fed(void) { check_model(DIR("saved_model_asset")); }
static void sharded_saver_restores(void) { check_model(DIR("saved_model_sharded")); }

/* simple_save's sharded saver also saves in tfc: its save tensor, run with a new prefix fed,
 * goes through StaticRegexFullMatch, ShardedFilename, SaveV2 and MergeV2Checkpoints into
 * "<prefix>.index" + one data file, and the checkpoint holds the restored values. */
static void sharded_saver_saves_again(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Buffer *b = TF_NewBuffer();
  const char *tags[] = {"serve"};
  TF_Session *sess = load(DIR("saved_model_sharded"), tags, 1, g, b, s);
  OK(s);
  TFC_MetaGraph *mg = TFC_NewMetaGraphFromBuffer(b->data, b->length, s);
  OK(s);
  TFC_SaverDef sd;
  EXPECT_TRUE(TFC_MetaGraphGetSaverDef(mg, &sd));
  EXPECT_TRUE(sd.sharded);
  TFC_Saver *sv = TFC_NewSaverFromDef(g, &sd, s);
  OK(s);
  char tmp[64] = "/tmp/tfc_sm_sharded_XXXXXX", prefix[128], file[160];
  EXPECT_TRUE(mkdtemp(tmp) != NULL);
  snprintf(prefix, sizeof prefix, "%s/ckpt", tmp);
  EXPECT_EQ(TFC_SaverSaveWithOptions(sv, sess, prefix, -1, NULL, NULL, TFC_SAVER_NO_STATE, NULL, 0, s), 1);
  OK(s);
  TFC_CheckpointReader *r = TFC_NewCheckpointReader(prefix, s);
  OK(s);
  TF_Tensor *w = TFC_CheckpointReaderGetTensor(r, "w", s);
  OK(s);
  EXPECT_NEAR(*(float *)TF_TensorData(w), 0.5, 0);
  TF_DeleteTensor(w);
  TFC_DeleteCheckpointReader(r);
  snprintf(file, sizeof file, "%s.index", prefix);
  EXPECT_EQ(unlink(file), 0);
  snprintf(file, sizeof file, "%s.data-00000-of-00001", prefix);
  EXPECT_EQ(unlink(file), 0);
  EXPECT_EQ(rmdir(tmp), 0); /* the merge removed the temporary shard directory */
  TFC_DeleteSaver(sv);
  TFC_DeleteMetaGraph(mg);
  TF_DeleteBuffer(b);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* A TF 2.x SavedModel's saver (its save function: DisableCopyOnRead, StaticRegexFullMatch,
 * SaveV2, MergeV2Checkpoints in a library function) saves the loaded variables under their
 * object keys, with the object graph; the values are the restored ones. */
static void tf2_saver_saves_again(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Buffer *b = TF_NewBuffer();
  const char *tags[] = {"serve"};
  TF_Session *sess = load(DIR("saved_model_tf2_module"), tags, 1, g, b, s);
  OK(s);
  TFC_MetaGraph *mg = TFC_NewMetaGraphFromBuffer(b->data, b->length, s);
  OK(s);
  TFC_SaverDef sd;
  EXPECT_TRUE(TFC_MetaGraphGetSaverDef(mg, &sd));
  EXPECT_STREQ(sd.filename_tensor_name, "saver_filename:0");
  TFC_Saver *sv = TFC_NewSaverFromDef(g, &sd, s);
  OK(s);
  char tmp[64] = "/tmp/tfc_sm_tf2_XXXXXX", prefix[128], file[160];
  EXPECT_TRUE(mkdtemp(tmp) != NULL);
  snprintf(prefix, sizeof prefix, "%s/ckpt", tmp);
  EXPECT_EQ(TFC_SaverSaveWithOptions(sv, sess, prefix, -1, NULL, NULL, TFC_SAVER_NO_STATE, NULL, 0, s), 1);
  OK(s);
  TFC_CheckpointReader *r = TFC_NewCheckpointReader(prefix, s);
  OK(s);
  EXPECT_EQ(TFC_CheckpointReaderNumTensors(r), 3);
  TF_Tensor *w = TFC_CheckpointReaderGetTensor(r, "w/.ATTRIBUTES/VARIABLE_VALUE", s);
  OK(s);
  const float want[6] = {1, -2, 0.5, 3, 0.25, -1};
  EXPECT_EQ((long)TF_TensorByteSize(w), (long)sizeof want);
  for (int i = 0; i < 6; i++) EXPECT_NEAR(((float *)TF_TensorData(w))[i], want[i], 0);
  TF_DeleteTensor(w);
  TF_Tensor *og = TFC_CheckpointReaderGetTensor(r, "_CHECKPOINTABLE_OBJECT_GRAPH", s);
  OK(s);
  EXPECT_EQ(TF_TensorType(og), TF_STRING);
  TF_DeleteTensor(og);
  TFC_DeleteCheckpointReader(r);
  snprintf(file, sizeof file, "%s.index", prefix);
  EXPECT_EQ(unlink(file), 0);
  snprintf(file, sizeof file, "%s.data-00000-of-00001", prefix);
  EXPECT_EQ(unlink(file), 0);
  EXPECT_EQ(rmdir(tmp), 0);
  TFC_DeleteSaver(sv);
  TFC_DeleteMetaGraph(mg);
  TF_DeleteBuffer(b);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void init_op_from_signature_runs(void) { check_model(DIR("saved_model_init_sig")); }
static void tf2_module_signature_runs(void) { check_model(DIR("saved_model_tf2_module")); }
static void tf2_keras_model_runs(void) { check_model(DIR("saved_model_tf2_keras")); }

static void meta_graph_def_is_returned(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TF_Buffer *b = TF_NewBuffer();
  const char *tags[] = {"serve"};
  TF_Session *sess = load(DIR("saved_model_half"), tags, 1, g, b, s);
  OK(s);
  EXPECT_TRUE(b->length > 0);
  TFC_MetaGraph *mg = TFC_NewMetaGraphFromBuffer(b->data, b->length, s);
  OK(s);
  TFC_SaverDef sd;
  EXPECT_TRUE(TFC_MetaGraphGetSaverDef(mg, &sd));
  EXPECT_STREQ(sd.restore_op_name, "save/restore_all");
  EXPECT_EQ(TFC_MetaGraphCollectionKind(mg, "variables"), TFC_COLLECTION_BYTES_LIST);
  TFC_DeleteMetaGraph(mg);
  TF_DeleteBuffer(b);
  TF_DeleteSession(sess, s);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void unknown_tags_are_not_found(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  const char *tags[] = {"serve", "gpu"};
  EXPECT_TRUE(load(DIR("saved_model_half"), tags, 2, g, NULL, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_STREQ(TF_Message(s), "Could not find meta graph def matching supplied tags: { serve gpu }. To inspect "
                              "available tag-sets in the SavedModel, please use the SavedModel CLI: "
                              "`saved_model_cli`");
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void missing_directory_is_not_found(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  const char *tags[] = {"serve"};
  EXPECT_TRUE(load(DIR("no_such_saved_model"), tags, 1, g, NULL, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_STREQ(TF_Message(s), "Could not find SavedModel .pb or .pbtxt at supplied export directory path: " DIR(
                                  "no_such_saved_model"));
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void non_empty_graph_is_refused(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  float one = 1;
  capi_const(g, "c", TF_FLOAT, NULL, 0, &one, sizeof one, s);
  OK(s);
  const char *tags[] = {"serve"};
  EXPECT_TRUE(load(DIR("saved_model_half"), tags, 1, g, NULL, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Graph is non-empty.");
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* A new temporary directory holding file (contents text); returns the directory (valid until
 * the next call). remove_dir deletes both. */
static char dir[64];
static char path[256];
static char *dir_with(const char *file, const char *text) {
  snprintf(dir, sizeof dir, "/tmp/tfc_saved_model_XXXXXX");
  EXPECT_TRUE(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "w");
  EXPECT_TRUE(f != NULL);
  fputs(text, f);
  fclose(f);
  return dir;
}

static void remove_dir(void) {
  unlink(path);
  rmdir(dir);
}

/* A text-form SavedModel is read (saved_model.pbtxt without saved_model.pb); this one has no
 * MetaGraphDef, so the tags are not found. */
static void text_format_is_read(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  const char *tags[] = {"serve"};
  char *dir = dir_with("saved_model.pbtxt", "saved_model_schema_version: 1\n");
  EXPECT_TRUE(load(dir, tags, 1, g, NULL, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(s), "Could not find meta graph def matching supplied tags: { serve }.");
  remove_dir();
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void unparseable_file_is_data_loss(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  const char *tags[] = {"serve"};
  char *dir = dir_with("saved_model.pb", "\x12\x05" "ab") /* 5 bytes promised, 2 there */;
  EXPECT_TRUE(load(dir, tags, 1, g, NULL, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_DATA_LOSS);
  char want[256];
  snprintf(want, sizeof want, "Can't parse %s/saved_model.pb as binary proto", dir);
  EXPECT_STREQ(TF_Message(s), want);
  remove_dir();
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(text_format_is_read),
    TFC_TEST(unparseable_file_is_data_loss),
    TFC_TEST(variables_are_restored),
    TFC_TEST(main_op_runs_at_load),
    TFC_TEST(asset_paths_are_fed),
    TFC_TEST(sharded_saver_restores),
    TFC_TEST(sharded_saver_saves_again),
    TFC_TEST(tf2_saver_saves_again),
    TFC_TEST(init_op_from_signature_runs),
    TFC_TEST(tf2_module_signature_runs),
    TFC_TEST(tf2_keras_model_runs),
    TFC_TEST(meta_graph_def_is_returned),
    TFC_TEST(unknown_tags_are_not_found),
    TFC_TEST(missing_directory_is_not_found),
    TFC_TEST(non_empty_graph_is_refused),
    {0},
};

TFC_TEST_MAIN(tests)
