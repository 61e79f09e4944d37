/* C API contract tests: mutable lookup tables in the Saver (TFC_NewSaverWithTables,
 * include/tfc/saver.h), as TF 1.x's Saver saves a MutableHashTable or DenseHashTable.
 *
 * A MutableHashTableV2 "mht" (string -> int64) and a MutableDenseHashTableV2 "dht" (int64 ->
 * float[2], 16 buckets) named as in tests/fixtures/gen_tables_dense.py's tables_checkpoint:
 * the saver's graph (the keys/values names, the export and restore nodes), TF's checkpoint
 * tables_mutable_ckpt/model restored by tfc's saver with TF's values, tfc's own save and
 * restore into a new session, and the builder's errors.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capi_util.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tfc/saver.h"
#include "tfc/train.h"

#define FAIL(...) tfc_test_fail(__FILE__, __LINE__, __VA_ARGS__)

static TF_Output const_of(TF_Graph *g, const char *name, TF_DataType dt, const int64_t *dims, int nd,
                          const void *data, size_t bytes) {
  TF_Status *s = TF_NewStatus();
  TF_Output o = capi_const(g, name, dt, dims, nd, data, bytes, s);
  TF_DeleteStatus(s);
  return o;
}

static TF_Tensor *strings_tensor(const char *const *v, int n) {
  size_t total = 0;
  for (int i = 0; i < n; i++) total += TF_StringEncodedSize(strlen(v[i]));
  int64_t dim = n;
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, &dim, 1, 8 * (size_t)n + total);
  char *base = TF_TensorData(t), *p = base + 8 * n;
  TF_Status *s = TF_NewStatus();
  for (int i = 0; i < n; i++) {
    ((uint64_t *)base)[i] = (uint64_t)(p - (base + 8 * n));
    p += TF_StringEncode(v[i], strlen(v[i]), p, TF_StringEncodedSize(strlen(v[i])), s);
  }
  TF_DeleteStatus(s);
  return t;
}

typedef struct tables {
  TF_Graph *g;
  TFC_Scope *root;
  TF_Output mht, dht, mht_find, dht_find, mht_size, dht_size;
} tables;

static void tables_init(tables *t) {
  t->g = TF_NewGraph();
  t->root = TFC_NewRootScope(t->g);
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(t->g, "MutableHashTableV2", "mht");
  TF_SetAttrType(d, "key_dtype", TF_STRING);
  TF_SetAttrType(d, "value_dtype", TF_INT64);
  TF_SetAttrBool(d, "use_node_name_sharing", 1);
  t->mht = (TF_Output){TF_FinishOperation(d, s), 0};
  OK(s);
  int64_t empty = 0, deleted = -1, two = 2;
  TF_Output ek = const_of(t->g, "empty_key", TF_INT64, NULL, 0, &empty, 8);
  TF_Output dk = const_of(t->g, "deleted_key", TF_INT64, NULL, 0, &deleted, 8);
  d = TF_NewOperation(t->g, "MutableDenseHashTableV2", "dht");
  TF_AddInput(d, ek);
  TF_AddInput(d, dk);
  TF_SetAttrType(d, "value_dtype", TF_FLOAT);
  TF_SetAttrShape(d, "value_shape", &two, 1);
  TF_SetAttrInt(d, "initial_num_buckets", 16);
  TF_SetAttrBool(d, "use_node_name_sharing", 1);
  t->dht = (TF_Output){TF_FinishOperation(d, s), 0};
  OK(s);
  const char *words[4] = {"a", "bb", "ccc", "d"};
  TF_Tensor *wt = strings_tensor(words, 4);
  d = TF_NewOperation(t->g, "Const", "words");
  TF_SetAttrTensor(d, "value", wt, s);
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_Output w = {TF_FinishOperation(d, s), 0};
  OK(s);
  TF_DeleteTensor(wt);
  int64_t minus1 = -1, ids[3] = {5, 7, 8}, three = 3;
  float dflt[2] = {-1, -1};
  TF_Output md = const_of(t->g, "mht_default", TF_INT64, NULL, 0, &minus1, 8);
  TF_Output dd = const_of(t->g, "dht_default", TF_FLOAT, &two, 1, dflt, sizeof dflt);
  TF_Output ik = const_of(t->g, "ids", TF_INT64, &three, 1, ids, sizeof ids);
  TF_Output in[2][3] = {{t->mht, w, md}, {t->dht, ik, dd}};
  TF_Output *find[2] = {&t->mht_find, &t->dht_find}, *size[2] = {&t->mht_size, &t->dht_size};
  for (int i = 0; i < 2; i++) {
    char n[64];
    snprintf(n, sizeof n, "find_%d", i);
    d = TF_NewOperation(t->g, "LookupTableFindV2", n);
    for (int k = 0; k < 3; k++) TF_AddInput(d, in[i][k]);
    *find[i] = (TF_Output){TF_FinishOperation(d, s), 0};
    OK(s);
    snprintf(n, sizeof n, "size_%d", i);
    d = TF_NewOperation(t->g, "LookupTableSizeV2", n);
    TF_AddInput(d, in[i][0]);
    *size[i] = (TF_Output){TF_FinishOperation(d, s), 0};
    OK(s);
  }
  TF_DeleteStatus(s);
}

static void tables_fini(tables *t) {
  TFC_DeleteScope(t->root);
  TF_DeleteGraph(t->g);
}

static TF_Session *session_of(TF_Graph *g) {
  TF_Status *s = TF_NewStatus();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  OK(s);
  TF_DeleteSessionOptions(o);
  TF_DeleteStatus(s);
  return sess;
}

static void close_session(TF_Session *sess) {
  TF_Status *s = TF_NewStatus();
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteStatus(s);
}

/* The values gen_tables_dense.py inserted: mht a->5 bb->7 ccc->9, dht 5,7,9 -> [1.5,2.5],
 * [3.5,4.5], [5.5,6.5]. */
static void expect_tf_values(tables *t, TF_Session *sess) {
  TF_Status *s = TF_NewStatus();
  TF_Output outs[4] = {t->mht_find, t->dht_find, t->mht_size, t->dht_size};
  TF_Tensor *v[4] = {0};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, outs, v, 4, NULL, 0, NULL, s);
  OK(s);
  const int64_t *m = TF_TensorData(v[0]);
  EXPECT_EQ(m[0], 5);
  EXPECT_EQ(m[1], 7);
  EXPECT_EQ(m[2], 9);
  EXPECT_EQ(m[3], -1);
  const float *f = TF_TensorData(v[1]);
  const float want[6] = {1.5f, 2.5f, 3.5f, 4.5f, -1, -1};
  for (int i = 0; i < 6; i++) EXPECT_TRUE(f[i] == want[i]);
  EXPECT_EQ(*(int64_t *)TF_TensorData(v[2]), 3);
  EXPECT_EQ(*(int64_t *)TF_TensorData(v[3]), 3);
  for (int i = 0; i < 4; i++) TF_DeleteTensor(v[i]);
  TF_DeleteStatus(s);
}

static void expect_empty(tables *t, TF_Session *sess) {
  TF_Status *s = TF_NewStatus();
  TF_Output outs[2] = {t->mht_size, t->dht_size};
  TF_Tensor *v[2] = {0};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, outs, v, 2, NULL, 0, NULL, s);
  OK(s);
  EXPECT_EQ(*(int64_t *)TF_TensorData(v[0]), 0);
  EXPECT_EQ(*(int64_t *)TF_TensorData(v[1]), 0);
  TF_DeleteTensor(v[0]);
  TF_DeleteTensor(v[1]);
  TF_DeleteStatus(s);
}

static TFC_Saver *table_saver(tables *t, TF_Status *s) {
  TFC_SaverTable tb[2] = {{"mht", t->mht, {0}, {0}}, {"dht", t->dht, {0}, {0}}};
  return TFC_NewSaverWithTables(t->root, NULL, NULL, 0, tb, 2, 5, s);
}

/* The saver's graph: "<name>-keys"/"<name>-values" in name order, Python's export and restore
 * node names. */
static void saver_graph_saves_tables_under_tf_names(void) {
  tables t;
  tables_init(&t);
  TF_Status *s = TF_NewStatus();
  TFC_Saver *sv = table_saver(&t, s);
  OK(s);
  const char *nodes[] = {"mht_lookup_table_export_values/LookupTableExportV2",
                         "dht_lookup_table_export_values/LookupTableExportV2",
                         "save/dht_table_restore/LookupTableImportV2", "save/mht_table_restore/LookupTableImportV2",
                         "save/SaveV2", "save/restore_all"};
  for (int i = 0; i < 6; i++)
    if (!TF_GraphOperationByName(t.g, nodes[i])) FAIL("no node %s", nodes[i]);
  TF_Operation *names = TF_GraphOperationByName(t.g, "save/SaveV2/tensor_names");
  TF_Tensor *v = NULL;
  TF_OperationGetAttrTensor(names, "value", &v, s);
  OK(s);
  EXPECT_EQ(TF_TensorElementCount(v), 4);
  const char *want[4] = {"dht-keys", "dht-values", "mht-keys", "mht-values"};
  const char *base = TF_TensorData(v);
  for (int i = 0; i < 4; i++) {
    const char *dst;
    size_t len;
    uint64_t off = ((const uint64_t *)base)[i];
    TF_StringDecode(base + 32 + off, TF_TensorByteSize(v) - 32 - off, &dst, &len, s);
    OK(s);
    if (len != strlen(want[i]) || memcmp(dst, want[i], len))
      FAIL("tensor name %d: %.*s, want %s", i, (int)len, dst, want[i]);
  }
  TF_DeleteTensor(v);
  TFC_DeleteSaver(sv);
  tables_fini(&t);
  TF_DeleteStatus(s);
}

/* TF's checkpoint (gen_tables_dense.py) restores through tfc's saver with TF's values; tfc's
 * save restores into a new session. */
static void tables_round_trip_with_tf_checkpoint(void) {
  tables t;
  tables_init(&t);
  TF_Status *s = TF_NewStatus();
  TFC_Saver *sv = table_saver(&t, s);
  OK(s);
  TF_Session *sess = session_of(t.g);
  expect_empty(&t, sess);
  TFC_SaverRestore(sv, sess, TFC_FIXTURE_DIR "/tables_mutable_ckpt/model", s);
  OK(s);
  expect_tf_values(&t, sess);
  char dir[4096], got[4200];
  snprintf(dir, sizeof dir, "%s/saver_tables_XXXXXX", TFC_BINARY_DIR);
  EXPECT_TRUE(mkdtemp(dir) != NULL);
  char path[4200];
  snprintf(path, sizeof path, "%s/model", dir);
  EXPECT_EQ(TFC_SaverSaveWithOptions(sv, sess, path, -1, NULL, NULL, TFC_SAVER_NO_STATE, got, sizeof got, s), 1);
  OK(s);
  close_session(sess);
  sess = session_of(t.g);
  expect_empty(&t, sess);
  TFC_SaverRestore(sv, sess, path, s);
  OK(s);
  expect_tf_values(&t, sess);
  close_session(sess);
  const char *files[] = {"model.index", "model.data-00000-of-00001"};
  for (int i = 0; i < 2; i++) {
    char f[4300];
    snprintf(f, sizeof f, "%s/%s", dir, files[i]);
    unlink(f);
  }
  rmdir(dir);
  TFC_DeleteSaver(sv);
  tables_fini(&t);
  TF_DeleteStatus(s);
}

/* Not a table, an empty name, a table and a table of one name: INVALID_ARGUMENT, graph as it was. */
static void table_saver_errors(void) {
  tables t;
  tables_init(&t);
  TF_Status *s = TF_NewStatus();
  int before = capi_num_ops(t.g);
  TFC_SaverTable bad[2] = {{"mht", t.mht_find, {0}, {0}}, {"dht", t.dht, {0}, {0}}};
  EXPECT_TRUE(TFC_NewSaverWithTables(t.root, NULL, NULL, 0, bad, 2, 5, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s),
               "TFC_NewSaverWithTables: tables[0].table ('find_0:0', LookupTableFindV2) is not a mutable lookup table");
  TFC_SaverTable same[2] = {{"t", t.mht, {0}, {0}}, {"t", t.dht, {0}, {0}}};
  EXPECT_TRUE(TFC_NewSaverWithTables(t.root, NULL, NULL, 0, same, 2, 5, s) == NULL);
  EXPECT_STREQ(TF_Message(s), "At least two variables have the same name: t");
  TFC_SaverTable empty[1] = {{"", t.mht, {0}, {0}}};
  EXPECT_TRUE(TFC_NewSaverWithTables(t.root, NULL, NULL, 0, empty, 1, 5, s) == NULL);
  EXPECT_STREQ(TF_Message(s), "TFC_NewSaverWithTables: tables[0].name is empty");
  EXPECT_EQ(capi_num_ops(t.g), before);
  tables_fini(&t);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(saver_graph_saves_tables_under_tf_names),
    TFC_TEST(tables_round_trip_with_tf_checkpoint),
    TFC_TEST(table_saver_errors),
    {0},
};

TFC_TEST_MAIN(tests)
