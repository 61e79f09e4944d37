/*
 * SavedModel assets, several MetaGraphDefs and the text form (tfc/saved_model.h and
 * TF_LoadSessionFromSavedModel). TensorFlow's tf.compat.v1.saved_model.Builder wrote the
 * fixtures (tests/fixtures/gen_saved_model_assets.py): a vocabulary table initialized by the
 * main op from an asset file, loaded from a copy of the directory elsewhere (the asset path fed
 * is the copy's: the file the graph's Const names is gone), as saved_model.pb and as
 * saved_model.pbtxt, and two MetaGraphDefs ({serve}, {serve, gpu}) sharing one checkpoint; the
 * outputs for words = ["b", "zz", "a"] equal TF's (expected.txt). tfc's builder writes the same
 * kind of model (the asset copied, two MetaGraphDefs, binary and text) and tfc loads each tag
 * set from a moved copy; assets sharing a basename get TF's "_1" names; a missing asset file
 * fails the load naming the file; a bad asset
 * tensor, add_meta_graph before add_meta_graph_and_variables and bad text fail with TF's codes.
 *
 * With TFC_SAVED_MODEL_OUT set, written_model_loads also writes its models there (<out>/pb and
 * <out>/text) and keeps them, for tests/fixtures/check_saved_model_tf.py --multi (TensorFlow's
 * loader on tfc's output).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capi_util.h"
#include "tfc/saved_model.h"
#include "tfc/train.h"

#define FIXTURE(name) TFC_FIXTURE_DIR "/" name

static char tmp[256];

static void sh(const char *fmt, const char *a, const char *b) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, fmt, a, b);
  EXPECT_EQ(system(cmd), 0);
}

/* A copy of fixture dir under a new temporary directory; returns the copy's path. */
static const char *moved_copy(const char *dir) {
  static char out[300];
  snprintf(tmp, sizeof tmp, "/tmp/tfc_sm_assets_XXXXXX");
  EXPECT_TRUE(mkdtemp(tmp) != NULL);
  snprintf(out, sizeof out, "%s/moved", tmp);
  sh("cp -r '%s' '%s'", dir, out);
  return out;
}

static void remove_tmp(void) { sh("rm -rf '%s'%s", tmp, ""); }

static TF_Session *load(const char *dir, const char *const *tags, int n, TF_Graph *g, TF_Status *s) {
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_LoadSessionFromSavedModel(o, NULL, dir, tags, n, g, NULL, s);
  TF_DeleteSessionOptions(o);
  return sess;
}

static TF_Tensor *words_tensor(void) {
  const char *w[] = {"b", "zz", "a"};
  int64_t dims[1] = {3};
  size_t size = 3 * 8;
  for (int i = 0; i < 3; i++) size += TF_StringEncodedSize(strlen(w[i]));
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, dims, 1, size);
  char *data = TF_TensorData(t);
  size_t off = 0;
  TF_Status *s = TF_NewStatus();
  for (int i = 0; i < 3; i++) {
    uint64_t o = off;
    memcpy(data + 8 * i, &o, 8);
    off += TF_StringEncode(w[i], strlen(w[i]), data + 24 + off, size - 24 - off, s);
    OK(s);
  }
  TF_DeleteStatus(s);
  return t;
}

/* Loads dir for each tag set of its expected.txt ("<tags,comma,separated> <tensor> <values>")
 * and compares every tensor with words fed (int64 exactly, floats within 1e-5 relative).
 * Returns the number of lines checked. */
static int check_expected(const char *dir, const char *expected) {
  FILE *f = fopen(expected, "r");
  EXPECT_TRUE(f != NULL);
  char line[1024];
  int lines = 0;
  while (fgets(line, sizeof line, f)) {
    char tagtext[128], name[128];
    int used = 0;
    EXPECT_TRUE(sscanf(line, "%127s %127s %n", tagtext, name, &used) == 2);
    const char *tags[4];
    int nt = 0;
    for (char *t = strtok(tagtext, ","); t && nt < 4; t = strtok(NULL, ",")) tags[nt++] = t;
    TF_Status *s = TF_NewStatus();
    TF_Graph *g = TF_NewGraph();
    TF_Session *sess = load(dir, tags, nt, g, s);
    OK(s);
    char *colon = strrchr(name, ':');
    *colon = 0;
    TF_Output out = {TF_GraphOperationByName(g, name), atoi(colon + 1)};
    TF_Output in = {TF_GraphOperationByName(g, "words"), 0};
    EXPECT_TRUE(out.oper && in.oper);
    TF_Tensor *x = words_tensor(), *v = NULL;
    TF_SessionRun(sess, NULL, &in, &x, 1, &out, &v, 1, NULL, 0, NULL, s);
    OK(s);
    char *p = line + used;
    size_t n = (size_t)TF_TensorElementCount(v), k = 0;
    for (char *tok = strtok(p, " \n"); tok; tok = strtok(NULL, " \n"), k++) {
      EXPECT_TRUE(k < n);
      if (TF_TensorType(v) == TF_INT64) {
        EXPECT_EQ((long long)((const int64_t *)TF_TensorData(v))[k], strtoll(tok, NULL, 10));
      } else {
        EXPECT_EQ(TF_TensorType(v), TF_FLOAT);
        double want = strtod(tok, NULL);
        EXPECT_NEAR(((const float *)TF_TensorData(v))[k], want, 1e-5 * (fabs(want) > 1 ? fabs(want) : 1));
      }
    }
    EXPECT_EQ((long)k, (long)n);
    TF_DeleteTensor(x);
    TF_DeleteTensor(v);
    TF_CloseSession(sess, s);
    TF_DeleteSession(sess, s);
    TF_DeleteGraph(g);
    TF_DeleteStatus(s);
    lines++;
  }
  fclose(f);
  return lines;
}

static void check_fixture(const char *name, int want_lines) {
  char dir[300], expected[400];
  snprintf(dir, sizeof dir, "%s/%s", TFC_FIXTURE_DIR, name);
  snprintf(expected, sizeof expected, "%s/expected.txt", dir);
  const char *moved = moved_copy(dir);
  EXPECT_EQ(check_expected(moved, expected), want_lines);
  remove_tmp();
}

static void tf_vocab_asset_loads_from_a_moved_copy(void) { check_fixture("saved_model_vocab", 2); }
static void tf_text_format_loads(void) { check_fixture("saved_model_vocab_text", 2); }
static void tf_meta_graphs_share_variables(void) { check_fixture("saved_model_multi", 3); }

/* The asset file gone: the table initializer fails, naming the file at the copy's assets/. */
static void missing_asset_file_is_named(void) {
  const char *moved = moved_copy(FIXTURE("saved_model_vocab"));
  char file[400];
  snprintf(file, sizeof file, "%s/assets/vocab.txt", moved);
  EXPECT_EQ(unlink(file), 0);
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  const char *tags[] = {"serve"};
  EXPECT_TRUE(load(moved, tags, 1, g, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(s), file);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  remove_tmp();
}

/* Requested tags that no MetaGraphDef has exactly: NOT_FOUND listing the requested ones. */
static void subset_of_tags_is_not_found(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  const char *tags[] = {"gpu"};
  EXPECT_TRUE(load(FIXTURE("saved_model_multi"), tags, 1, g, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(s), "Could not find meta graph def matching supplied tags: { gpu }.");
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* Text that is not a SavedModel: DATA_LOSS naming the file and the field. */
static void bad_text_is_data_loss(void) {
  snprintf(tmp, sizeof tmp, "/tmp/tfc_sm_assets_XXXXXX");
  EXPECT_TRUE(mkdtemp(tmp) != NULL);
  char file[300];
  snprintf(file, sizeof file, "%s/saved_model.pbtxt", tmp);
  FILE *f = fopen(file, "w");
  fputs("saved_model_schema_version: 1\nmeta_graphs { bogus: 2 }\n", f);
  fclose(f);
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  const char *tags[] = {"serve"};
  EXPECT_TRUE(load(tmp, tags, 1, g, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_DATA_LOSS);
  char want[400];
  snprintf(want, sizeof want, "Can't parse %s as text proto: 2(", file);
  EXPECT_CONTAINS(TF_Message(s), want);
  EXPECT_CONTAINS(TF_Message(s), "no field named \"bogus\"");
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
  remove_tmp();
}

/* ---- tfc's builder ---- */

typedef struct model {
  TF_Graph *g;
  TF_Session *sess;
  TF_Output words, ids, n, path;
  TF_Operation *table_init;
} model;

static TF_Output op1(TF_OperationDescription *d) { return (TF_Output){capi_finish(d), 0}; }

/* words: string [-1]; ids = a HashTableV2 initialized from the file named by Const
 * "vocab_path" (whole line -> line number) looked up (default -1); n = w * 2 with w a variable
 * assigned 4. The vocabulary file is written to vocab (a, b, c). */
static void build(model *m, const char *vocab, TF_Status *s) {
  FILE *f = fopen(vocab, "w");
  EXPECT_TRUE(f != NULL);
  fputs("a\nb\nc\n", f);
  fclose(f);
  m->g = TF_NewGraph();
  TF_Graph *g = m->g;
  TFC_Scope *root = TFC_NewRootScope(g);
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", "words");
  TF_SetAttrType(d, "dtype", TF_STRING);
  int64_t dims[1] = {-1};
  TF_SetAttrShape(d, "shape", dims, 1);
  m->words = op1(d);
  TF_Tensor *pt = NULL;
  {
    size_t len = strlen(vocab), size = 8 + TF_StringEncodedSize(len);
    pt = TF_AllocateTensor(TF_STRING, NULL, 0, size);
    memset(TF_TensorData(pt), 0, 8);
    TF_StringEncode(vocab, len, (char *)TF_TensorData(pt) + 8, size - 8, s);
    OK(s);
  }
  d = TF_NewOperation(g, "Const", "vocab_path");
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_SetAttrTensor(d, "value", pt, s);
  OK(s);
  m->path = op1(d);
  TF_DeleteTensor(pt);
  d = TF_NewOperation(g, "HashTableV2", "vocab_table");
  TF_SetAttrType(d, "key_dtype", TF_STRING);
  TF_SetAttrType(d, "value_dtype", TF_INT64);
  TF_Output table = op1(d);
  d = TF_NewOperation(g, "InitializeTableFromTextFileV2", "vocab_table/init");
  TF_AddInput(d, table);
  TF_AddInput(d, m->path);
  TF_SetAttrInt(d, "key_index", -2);
  TF_SetAttrInt(d, "value_index", -1);
  m->table_init = capi_finish(d);
  int64_t minus1 = -1;
  TF_Output dflt = capi_const(g, "default", TF_INT64, NULL, 0, &minus1, sizeof minus1, s);
  d = TF_NewOperation(g, "LookupTableFindV2", "ids");
  TF_AddInput(d, table);
  TF_AddInput(d, m->words);
  TF_AddInput(d, dflt);
  m->ids = op1(d);
  float one = 1, four = 4, two = 2;
  TFC_Variable w = TFC_NewVariable(root, "w", capi_const(g, "w/initial_value", TF_FLOAT, NULL, 0, &one, 4, s), 1, s);
  OK(s);
  m->n = capi_op2(g, "Mul", "n", w.value, capi_const(g, "two", TF_FLOAT, NULL, 0, &two, 4, s), s);
  TF_Output set_w = capi_op2(g, "Assign", "set_w", (TF_Output){w.variable, 0},
                             capi_const(g, "four", TF_FLOAT, NULL, 0, &four, 4, s), s);
  TF_Operation *init = TFC_GlobalVariablesInitializer(root, NULL, s);
  OK(s);
  TFC_DeleteScope(root);
  TF_SessionOptions *o = TF_NewSessionOptions();
  m->sess = TF_NewSession(g, o, s);
  TF_DeleteSessionOptions(o);
  OK(s);
  const TF_Operation *targets[2] = {init, set_w.oper};
  TF_SessionRun(m->sess, NULL, NULL, NULL, 0, NULL, NULL, 0, targets, 1, NULL, s);
  OK(s);
  TF_SessionRun(m->sess, NULL, NULL, NULL, 0, NULL, NULL, 0, targets + 1, 1, NULL, s);
  OK(s);
}

static void done(model *m, TF_Status *s) {
  TF_CloseSession(m->sess, s);
  TF_DeleteSession(m->sess, s);
  TF_DeleteGraph(m->g);
}

/* Writes m to dir: {serve} with signature n only (no asset, no main op), then {serve, gpu}
 * with ids and n, the asset and the table initializer as main op. */
static void write_model(model *m, const char *dir, int as_text, TF_Status *s) {
  TFC_SavedModelBuilder *b = TFC_NewSavedModelBuilder(dir, s);
  OK(s);
  const char *in_keys[] = {"words"}, *out_keys[] = {"ids", "n"};
  TF_Output outs[2] = {m->ids, m->n};
  TFC_SignatureSpec only_n = {"serving_default", NULL, 1, in_keys, &m->words, 1, out_keys + 1, &m->n};
  TFC_SignatureSpec both = {"serving_default", NULL, 1, in_keys, &m->words, 2, out_keys, outs};
  const char *serve[] = {"serve"}, *serve_gpu[] = {"serve", "gpu"};
  TFC_SavedModelMetaGraphSpec first = {serve, 1, &only_n, 1, NULL, NULL, 0, NULL, NULL};
  TFC_SavedModelMetaGraphSpec second = {serve_gpu, 2, &both, 1, TF_OperationName(m->table_init), &m->path, 1,
                                        NULL, NULL};
  EXPECT_EQ(TFC_SavedModelBuilderAddMetaGraph(b, m->g, NULL, &first, s), 0);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);
  EXPECT_STREQ(TF_Message(s),
               "Graph state including variables and assets has not been saved yet. Please invoke "
               "`add_meta_graph_and_variables()` first.");
  EXPECT_EQ(TFC_SavedModelBuilderAddMetaGraphAndVariables(b, m->sess, m->g, NULL, &first, s), 1);
  OK(s);
  EXPECT_EQ(TFC_SavedModelBuilderAddMetaGraphAndVariables(b, m->sess, m->g, NULL, &first, s), 0);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);
  EXPECT_CONTAINS(TF_Message(s), "Please invoke `add_meta_graph()` instead.");
  EXPECT_EQ(TFC_SavedModelBuilderAddMetaGraph(b, m->g, NULL, &second, s), 1);
  OK(s);
  EXPECT_EQ(TFC_SavedModelBuilderSave(b, as_text, s), 1);
  OK(s);
  TFC_DeleteSavedModelBuilder(b);
}

static void written_model_loads(void) {
  TF_Status *s = TF_NewStatus();
  char work[] = "/tmp/tfc_sm_build_XXXXXX";
  EXPECT_TRUE(mkdtemp(work) != NULL);
  const char *keep = getenv("TFC_SAVED_MODEL_OUT");
  const char *root = keep ? keep : work;
  char vocab[400], out[300], expected[600];
  snprintf(vocab, sizeof vocab, "%s/vocab.txt", work);
  model m;
  build(&m, vocab, s);
  for (int as_text = 0; as_text < 2; as_text++) {
    snprintf(out, sizeof out, "%s/%s", root, as_text ? "text" : "pb");
    write_model(&m, out, as_text, s);
    snprintf(expected, sizeof expected, "%s/%s", out, as_text ? "saved_model.pbtxt" : "saved_model.pb");
    EXPECT_EQ(access(expected, F_OK), 0);
    snprintf(expected, sizeof expected, "%s/assets/vocab.txt", out);
    EXPECT_EQ(access(expected, F_OK), 0);
  }
  unlink(vocab); /* the loaders must use the copies */
  snprintf(expected, sizeof expected, "%s/expected.txt", work);
  FILE *f = fopen(expected, "w");
  fputs("serve n:0 8.0\nserve,gpu ids:0 1 -1 0\nserve,gpu n:0 8.0\n", f);
  fclose(f);
  for (int as_text = 0; as_text < 2; as_text++) {
    snprintf(out, sizeof out, "%s/%s", root, as_text ? "text" : "pb");
    const char *moved = moved_copy(out);
    EXPECT_EQ(check_expected(moved, expected), 3);
    remove_tmp();
  }
  /* the reader sees both MetaGraphDefs of the text form, in order */
  snprintf(out, sizeof out, "%s/text", root);
  TFC_SavedModel *sm = TFC_ReadSavedModel(out, s);
  OK(s);
  EXPECT_EQ(TFC_SavedModelNumMetaGraphs(sm), 2);
  EXPECT_EQ(TFC_SavedModelNumTags(sm, 1), 2);
  EXPECT_STREQ(TFC_SavedModelTag(sm, 1, 1), "gpu");
  TFC_DeleteSavedModel(sm);
  done(&m, s);
  sh("rm -rf '%s'%s", work, "");
  TF_DeleteStatus(s);
}

/* An asset tensor that is not a string Const: INVALID_ARGUMENT naming it; nothing is added. */
static void bad_asset_tensor_is_refused(void) {
  TF_Status *s = TF_NewStatus();
  char work[] = "/tmp/tfc_sm_build_XXXXXX";
  EXPECT_TRUE(mkdtemp(work) != NULL);
  char vocab[400], out[300];
  snprintf(vocab, sizeof vocab, "%s/vocab.txt", work);
  snprintf(out, sizeof out, "%s/m", work);
  model m;
  build(&m, vocab, s);
  TFC_SavedModelBuilder *b = TFC_NewSavedModelBuilder(out, s);
  OK(s);
  const char *serve[] = {"serve"};
  TFC_SavedModelMetaGraphSpec spec = {serve, 1, NULL, 0, NULL, &m.ids, 1, NULL, NULL};
  EXPECT_EQ(TFC_SavedModelBuilderAddMetaGraphAndVariables(b, m.sess, m.g, NULL, &spec, s), 0);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Asset path tensor ids:0 must be of type constant.Has type LookupTableFindV2 instead.");
  spec.assets = &m.n;
  EXPECT_EQ(TFC_SavedModelBuilderAddMetaGraphAndVariables(b, m.sess, m.g, NULL, &spec, s), 0);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "Asset path tensor n:0");
  TFC_DeleteSavedModelBuilder(b);
  /* the same directory again: ALREADY_EXISTS once something is in it */
  snprintf(vocab, sizeof vocab, "%s/x", out);
  FILE *f = fopen(vocab, "w");
  fclose(f);
  EXPECT_TRUE(TFC_NewSavedModelBuilder(out, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_ALREADY_EXISTS);
  done(&m, s);
  sh("rm -rf '%s'%s", work, "");
  TF_DeleteStatus(s);
}

/* A string scalar Const holding text. */
static TF_Output string_const(TF_Graph *g, const char *name, const char *text, TF_Status *s) {
  size_t len = strlen(text), size = 8 + TF_StringEncodedSize(len);
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, NULL, 0, size);
  memset(TF_TensorData(t), 0, 8);
  TF_StringEncode(text, len, (char *)TF_TensorData(t) + 8, size - 8, s);
  OK(s);
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_SetAttrTensor(d, "value", t, s);
  OK(s);
  TF_DeleteTensor(t);
  return op1(d);
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  EXPECT_TRUE(f != NULL);
  fputs(text, f);
  fclose(f);
}

static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  EXPECT_TRUE(f != NULL);
  static char buf[1 << 20];
  *len = fread(buf, 1, sizeof buf, f);
  fclose(f);
  return buf;
}

/* Assets sharing a basename (TF's get_asset_filename_to_add): another file with other contents
 * becomes "vocab.txt_1"; one with the same contents, or the same path twice, shares the name;
 * a missing source file is listed but not copied. */
static void clashing_asset_names_get_suffixes(void) {
  TF_Status *s = TF_NewStatus();
  char work[] = "/tmp/tfc_sm_build_XXXXXX";
  EXPECT_TRUE(mkdtemp(work) != NULL);
  char a[400], b[400], c[400], out[400], file[500];
  snprintf(a, sizeof a, "%s/vocab.txt", work);
  snprintf(out, sizeof out, "%s/b", work);
  EXPECT_EQ(mkdir(out, 0777), 0);
  snprintf(b, sizeof b, "%s/b/vocab.txt", work);
  snprintf(out, sizeof out, "%s/c", work);
  EXPECT_EQ(mkdir(out, 0777), 0);
  snprintf(c, sizeof c, "%s/c/vocab.txt", work);
  model m;
  build(&m, a, s);
  write_text(b, "x\ny\n");
  write_text(c, "a\nb\nc\n");
  TF_Output assets[5] = {m.path, string_const(m.g, "path_b", b, s), string_const(m.g, "path_c", c, s), m.path,
                         string_const(m.g, "gone", "/nonexistent/dir/gone.txt", s)};
  snprintf(out, sizeof out, "%s/m", work);
  TFC_SavedModelBuilder *bld = TFC_NewSavedModelBuilder(out, s);
  OK(s);
  const char *serve[] = {"serve"};
  TFC_SavedModelMetaGraphSpec spec = {serve, 1, NULL, 0, NULL, assets, 5, NULL, NULL};
  EXPECT_EQ(TFC_SavedModelBuilderAddMetaGraphAndVariables(bld, m.sess, m.g, NULL, &spec, s), 1);
  OK(s);
  EXPECT_EQ(TFC_SavedModelBuilderSave(bld, 0, s), 1);
  OK(s);
  TFC_DeleteSavedModelBuilder(bld);
  size_t len;
  snprintf(file, sizeof file, "%s/assets/vocab.txt", out);
  char *got = read_all(file, &len);
  EXPECT_EQ((long)len, 6L);
  EXPECT_TRUE(memcmp(got, "a\nb\nc\n", 6) == 0);
  snprintf(file, sizeof file, "%s/assets/vocab.txt_1", out);
  got = read_all(file, &len);
  EXPECT_EQ((long)len, 4L);
  EXPECT_TRUE(memcmp(got, "x\ny\n", 4) == 0);
  snprintf(file, sizeof file, "%s/assets/vocab.txt_2", out);
  EXPECT_TRUE(access(file, F_OK) != 0);
  snprintf(file, sizeof file, "%s/assets/gone.txt", out);
  EXPECT_TRUE(access(file, F_OK) != 0);
  /* the five AssetFileDefs: {path_b:0, vocab.txt_1}, path_c:0 and vocab_path:0 (twice) under
   * vocab.txt, {gone:0, gone.txt} */
  snprintf(file, sizeof file, "%s/saved_model.pb", out);
  got = read_all(file, &len);
  const char *want[] = {"\x0e\n\x0cvocab_path:0\x12\x09vocab.txt", "\x0a\n\x08path_b:0\x12\x0bvocab.txt_1",
                        "\x0a\n\x08path_c:0\x12\x09vocab.txt", "\x08\n\x06gone:0\x12\x08gone.txt"};
  int count[4] = {0};
  for (int k = 0; k < 4; k++)
    for (const char *p = got; (p = memmem(p, len - (size_t)(p - got), want[k], strlen(want[k]))); p++) count[k]++;
  EXPECT_EQ(count[0], 2);
  EXPECT_EQ(count[1], 1);
  EXPECT_EQ(count[2], 1);
  EXPECT_EQ(count[3], 1);
  done(&m, s);
  sh("rm -rf '%s'%s", work, "");
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(tf_vocab_asset_loads_from_a_moved_copy),
    TFC_TEST(tf_text_format_loads),
    TFC_TEST(tf_meta_graphs_share_variables),
    TFC_TEST(missing_asset_file_is_named),
    TFC_TEST(subset_of_tags_is_not_found),
    TFC_TEST(bad_text_is_data_loss),
    TFC_TEST(written_model_loads),
    TFC_TEST(bad_asset_tensor_is_refused),
    TFC_TEST(clashing_asset_names_get_suffixes),
    {0},
};

TFC_TEST_MAIN(tests)
