/* C API contract tests: the Saver (include/tfc/saver.h) and the checkpoint ops behind it.
 *
 * (1) TFC_NewSaver's graph equals the one tf.compat.v1.train.Saver() made over the same three
 *     variables (tests/fixtures/ckpt_saver_graph.pb, gen_checkpoint.py), node for node in the
 *     canonical text (names, ops, attrs, inputs, devices), in Python's creation order.
 * (2) Save/restore through a session; TF's Saver checkpoint restored; tfc's checkpoint equal
 *     to TF's byte for byte; the state file; max_to_keep; recovering the list; atomic saves;
 *     restore errors with TF's codes and texts; builder errors leaving the graph unchanged.
 * (3) Damaged checkpoints passed over for the newest intact one (TFC_LatestIntactCheckpoint);
 *     the temporaries of killed saves removed by the next saver's first save.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "capi/capi_internal.h"
#include "graph/graph_text.h"
#include "io/bundle.h"
#include "capi_util.h"
#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tfc/saver.h"
#include "tfc/train.h"


/* ---------------- helpers ---------------- */

static char *tmp_dir(void) {
  char *d = malloc(4096);
  snprintf(d, 4096, "%s/saver_tmp_XXXXXX", TFC_BINARY_DIR);
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

/* The directory's entry names, sorted, joined by spaces. */
static char *listing(const char *dir) {
  char names[64][256];
  int n = 0;
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && n < 64) snprintf(names[n++], 256, "%s", e->d_name);
  if (d) closedir(d);
  qsort(names, (size_t)n, 256, (int (*)(const void *, const void *))strcmp);
  char *out = calloc(1, 64 * 260);
  for (int i = 0; i < n; i++) {
    if (i) strcat(out, " ");
    strcat(out, names[i]);
  }
  return out;
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = calloc(1, 1 << 16);
  size_t n = fread(buf, 1, (1 << 16) - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

static TF_Output const_t(TFC_Scope *sc, const char *name, TF_DataType dt, const int64_t *dims, int nd, const void *data,
                         size_t bytes) {
  TF_Tensor *t = TF_AllocateTensor(dt, dims, nd, bytes);
  memcpy(TF_TensorData(t), data, bytes);
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  OK(s);
  TF_SetAttrType(d, "dtype", dt);
  TF_Operation *op = TF_FinishOperation(d, s);
  OK(s);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return (TF_Output){op, 0};
}

/* gen_checkpoint.py's SAVER_VARS: weights [[1.5,-2],[0.25,4]], bias [0.5,-0.5], count 3. */
static const float W0[4] = {1.5f, -2.0f, 0.25f, 4.0f};
static const float B0[2] = {0.5f, -0.5f};
static const int64_t C0 = 3;

typedef struct model {
  TF_Graph *g;
  TFC_Scope *root;
  TFC_Variable w, b, count;
  TF_Session *sess;
} model;

static void model_init(model *m, float scale) {
  TF_Status *s = TF_NewStatus();
  m->g = TF_NewGraph();
  m->root = TFC_NewRootScope(m->g);
  float w[4], b[2];
  for (int i = 0; i < 4; i++) w[i] = W0[i] * scale;
  for (int i = 0; i < 2; i++) b[i] = B0[i] * scale;
  int64_t c = (int64_t)(C0 * scale);
  m->w = TFC_NewVariable(m->root, "weights", const_t(m->root, "w0", TF_FLOAT, (int64_t[]){2, 2}, 2, w, sizeof w), 1, s);
  OK(s);
  m->b = TFC_NewVariable(m->root, "bias", const_t(m->root, "b0", TF_FLOAT, (int64_t[]){2}, 1, b, sizeof b), 1, s);
  OK(s);
  m->count = TFC_NewVariable(m->root, "count", const_t(m->root, "c0", TF_INT64, NULL, 0, &c, sizeof c), 0, s);
  OK(s);
  m->sess = NULL;
  TF_DeleteStatus(s);
}

static void model_start(model *m) {
  TF_Status *s = TF_NewStatus();
  TF_Operation *init = TFC_GlobalVariablesInitializer(m->root, NULL, s);
  OK(s);
  TF_SessionOptions *o = TF_NewSessionOptions();
  m->sess = TF_NewSession(m->g, o, s);
  OK(s);
  TF_DeleteSessionOptions(o);
  TF_SessionRun(m->sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&init, 1, NULL, s);
  OK(s);
  TF_DeleteStatus(s);
}

static void model_fini(model *m) {
  TF_Status *s = TF_NewStatus();
  if (m->sess) {
    TF_CloseSession(m->sess, s);
    TF_DeleteSession(m->sess, s);
  }
  TFC_DeleteScope(m->root);
  TF_DeleteGraph(m->g);
  TF_DeleteStatus(s);
}

/* Fetches the three variables and checks them against the saved values times scale. */
static void expect_values(model *m, float scale) {
  TF_Status *s = TF_NewStatus();
  TF_Output outs[3] = {{m->w.variable, 0}, {m->b.variable, 0}, {m->count.variable, 0}};
  TF_Tensor *vals[3] = {NULL, NULL, NULL};
  TF_SessionRun(m->sess, NULL, NULL, NULL, 0, outs, vals, 3, NULL, 0, NULL, s);
  OK(s);
  for (int i = 0; i < 4; i++) EXPECT_EQ(((float *)TF_TensorData(vals[0]))[i], W0[i] * scale);
  for (int i = 0; i < 2; i++) EXPECT_EQ(((float *)TF_TensorData(vals[1]))[i], B0[i] * scale);
  EXPECT_EQ(*(int64_t *)TF_TensorData(vals[2]), (int64_t)(C0 * scale));
  for (int i = 0; i < 3; i++) TF_DeleteTensor(vals[i]);
  TF_DeleteStatus(s);
}

/* Assigns value*scale to every variable through new Assign ops. */
static void overwrite(model *m, float scale, const char *tag) {
  TF_Status *s = TF_NewStatus();
  TFC_Scope *sc = TFC_NewSubScope(m->root, tag);
  float w[4], b[2];
  for (int i = 0; i < 4; i++) w[i] = W0[i] * scale;
  for (int i = 0; i < 2; i++) b[i] = B0[i] * scale;
  int64_t c = (int64_t)(C0 * scale);
  TF_Output vals[3] = {const_t(sc, "w", TF_FLOAT, (int64_t[]){2, 2}, 2, w, sizeof w),
                       const_t(sc, "b", TF_FLOAT, (int64_t[]){2}, 1, b, sizeof b),
                       const_t(sc, "c", TF_INT64, NULL, 0, &c, sizeof c)};
  TF_Operation *vars[3] = {m->w.variable, m->b.variable, m->count.variable};
  TF_Operation *ops[3];
  for (int i = 0; i < 3; i++) {
    TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Assign", NULL);
    TF_AddInput(d, (TF_Output){vars[i], 0});
    TF_AddInput(d, vals[i]);
    ops[i] = TF_FinishOperation(d, s);
    OK(s);
  }
  TF_SessionRun(m->sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)ops, 3, NULL, s);
  OK(s);
  TFC_DeleteScope(sc);
  TF_DeleteStatus(s);
}

static int line_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The canonical lines of the nodes under "<prefix>/", sorted (TF_GraphImportGraphDef adds
 * nodes in topological order, not Python's creation order, which is checked separately). */
static char *save_lines(TF_Graph *g, const char *prefix) {
  tfc_strbuf all, out;
  tfc_strbuf_init(&all);
  tfc_strbuf_init(&out);
  tfc_graph_to_text(g->g, &all);
  char *text = tfc_strbuf_take(&all);
  char *lines[256];
  int n = 0;
  size_t pl = strlen(prefix);
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
    if (!strncmp(line, prefix, pl) && line[pl] == '/' && n < 256) lines[n++] = line;
  qsort(lines, (size_t)n, sizeof *lines, line_cmp);
  for (int i = 0; i < n; i++) {
    tfc_strbuf_puts(&out, lines[i]);
    tfc_strbuf_puts(&out, "\n");
  }
  free(text);
  tfc_strbuf_str(&out);
  return tfc_strbuf_take(&out);
}

/* ---------------- (1) the graph ---------------- */

static void saver_graph_matches_tf_node_for_node(void) {
  char *pb = NULL;
  FILE *f = fopen(TFC_FIXTURE_DIR "/ckpt_saver_graph.pb", "rb");
  EXPECT_TRUE(f != NULL);
  pb = malloc(1 << 16);
  size_t n = fread(pb, 1, 1 << 16, f);
  fclose(f);
  TF_Status *s = TF_NewStatus();
  TF_Graph *tf = TF_NewGraph();
  TF_Buffer *buf = TF_NewBufferFromString(pb, n);
  TF_ImportGraphDefOptions *io = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(tf, buf, io, s);
  OK(s);
  TF_DeleteImportGraphDefOptions(io);
  TF_DeleteBuffer(buf);
  free(pb);
  model m;
  model_init(&m, 1);
  TFC_Saver *saver = TFC_NewSaver(m.root, NULL, NULL, 0, 5, s);
  OK(s);
  char *want = save_lines(tf, "save"), *got = save_lines(m.g, "save");
  EXPECT_TRUE(strlen(want) > 0);
  EXPECT_STREQ(got, want);
  /* Python's creation order. */
  static const char *order[] = {"save/filename/input", "save/filename", "save/Const", "save/SaveV2/tensor_names",
                                "save/SaveV2/shape_and_slices", "save/SaveV2", "save/control_dependency",
                                "save/RestoreV2/tensor_names", "save/RestoreV2/shape_and_slices", "save/RestoreV2",
                                "save/Assign", "save/Assign_1", "save/Assign_2", "save/restore_all"};
  size_t pos = 0;
  TF_Operation *op;
  int k = 0;
  while ((op = TF_GraphNextOperation(m.g, &pos)))
    if (!strncmp(TF_OperationName(op), "save/", 5)) {
      EXPECT_TRUE(k < 14);
      EXPECT_STREQ(TF_OperationName(op), order[k]);
      k++;
    }
  EXPECT_EQ(k, 14);
  /* The accessors. */
  EXPECT_STREQ(TF_OperationName(TFC_SaverFilenameTensor(saver).oper), "save/Const");
  EXPECT_STREQ(TF_OperationName(TFC_SaverSaveTensor(saver).oper), "save/control_dependency");
  EXPECT_STREQ(TF_OperationName(TFC_SaverSaveOp(saver)), "save/SaveV2");
  EXPECT_STREQ(TF_OperationName(TFC_SaverRestoreOp(saver)), "save/restore_all");
  /* A second saver on the same graph takes "save_1", as Python. */
  TFC_Saver *second = TFC_NewSaver(m.root, NULL, NULL, 0, 5, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(TFC_SaverFilenameTensor(second).oper), "save_1/Const");
  EXPECT_STREQ(TF_OperationName(TFC_SaverRestoreOp(second)), "save_1/restore_all");
  TFC_DeleteSaver(second);
  TFC_DeleteSaver(saver);
  free(want);
  free(got);
  model_fini(&m);
  TF_DeleteGraph(tf);
  TF_DeleteStatus(s);
}

static void saver_builder_errors_leave_graph_unchanged(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TFC_Scope *root = TFC_NewRootScope(g);
  EXPECT_TRUE(TFC_NewSaver(root, NULL, NULL, 0, 5, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "No variables to save");
  model m;
  model_init(&m, 1);
  size_t pos = 0;
  int before = 0;
  while (TF_GraphNextOperation(m.g, &pos)) before++;
  /* Two variables under one name. */
  TF_Output vars[2] = {{m.w.variable, 0}, {m.b.variable, 0}};
  const char *names[2] = {"same", "same"};
  EXPECT_TRUE(TFC_NewSaver(m.root, names, vars, 2, 5, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "At least two variables have the same name: same");
  /* Not a variable. */
  TF_Output notvar[1] = {m.w.value};
  EXPECT_TRUE(TFC_NewSaver(m.root, NULL, notvar, 1, 5, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "TFC_NewSaver: vars[0] ('weights/read:0', Identity) is not a reference variable (VariableV2)");
  pos = 0;
  int after = 0;
  while (TF_GraphNextOperation(m.g, &pos)) after++;
  EXPECT_EQ(after, before);
  /* The failed calls took no name: the next saver is still "save". */
  TFC_Saver *saver = TFC_NewSaver(m.root, NULL, NULL, 0, 5, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(TFC_SaverFilenameTensor(saver).oper), "save/Const");
  TFC_DeleteSaver(saver);
  model_fini(&m);
  TFC_DeleteScope(root);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

/* ---------------- (2) saving and restoring ---------------- */

static void saver_save_restore_round_trip(void) {
  char *dir = tmp_dir();
  TF_Status *s = TF_NewStatus();
  model m;
  model_init(&m, 1);
  TFC_Saver *saver = TFC_NewSaver(m.root, NULL, NULL, 0, 5, s);
  OK(s);
  model_start(&m);
  char path[4200], got[4300], want[4300];
  snprintf(path, sizeof path, "%s/run/model.ckpt", dir); /* "run" is created */
  EXPECT_EQ(TFC_SaverSave(saver, m.sess, path, 1, got, sizeof got, s), 1);
  OK(s);
  snprintf(want, sizeof want, "%s-1", path);
  EXPECT_STREQ(got, want);
  overwrite(&m, 10, "change");
  expect_values(&m, 10);
  TFC_SaverRestore(saver, m.sess, want, s);
  OK(s);
  expect_values(&m, 1);
  /* The state file, relative to its directory. */
  char state[4300];
  snprintf(state, sizeof state, "%s/run/checkpoint", dir);
  char *text = read_text(state);
  EXPECT_STREQ(text, "model_checkpoint_path: \"model.ckpt-1\"\nall_model_checkpoint_paths: \"model.ckpt-1\"\n");
  free(text);
  char run[4300];
  snprintf(run, sizeof run, "%s/run", dir);
  char latest[4300];
  EXPECT_EQ(TFC_LatestCheckpoint(run, latest, sizeof latest, s), 1);
  OK(s);
  EXPECT_STREQ(latest, want);
  /* Without a global step the path is save_path itself. */
  EXPECT_EQ(TFC_SaverSave(saver, m.sess, path, -1, got, sizeof got, s), 1);
  EXPECT_STREQ(got, path);
  TFC_DeleteSaver(saver);
  model_fini(&m);
  rm_tree(dir);
  free(dir);
  TF_DeleteStatus(s);
}

static void saver_restores_tf_checkpoint_and_writes_identical_bytes(void) {
  TF_Status *s = TF_NewStatus();
  model m;
  model_init(&m, 7);
  TFC_Saver *saver = TFC_NewSaver(m.root, NULL, NULL, 0, 5, s);
  OK(s);
  model_start(&m);
  expect_values(&m, 7);
  char latest[4300];
  EXPECT_EQ(TFC_LatestCheckpoint(TFC_FIXTURE_DIR "/ckpt_saver", latest, sizeof latest, s), 1);
  EXPECT_STREQ(latest, TFC_FIXTURE_DIR "/ckpt_saver/model.ckpt-7");
  TFC_SaverRestore(saver, m.sess, latest, s);
  OK(s);
  expect_values(&m, 1);
  /* Saved by tfc: the same bytes as TF's Saver wrote. */
  char *dir = tmp_dir();
  char path[4200], got[4300];
  snprintf(path, sizeof path, "%s/model.ckpt", dir);
  EXPECT_EQ(TFC_SaverSave(saver, m.sess, path, 7, got, sizeof got, s), 1);
  static const char *suffix[] = {".index", ".data-00000-of-00001"};
  for (int i = 0; i < 2; i++) {
    char a[4400], b[4400];
    snprintf(a, sizeof a, "%s%s", got, suffix[i]);
    snprintf(b, sizeof b, "%s/ckpt_saver/model.ckpt-7%s", TFC_FIXTURE_DIR, suffix[i]);
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    EXPECT_TRUE(fa && fb);
    char ba[4096], bb[4096];
    size_t na = fread(ba, 1, sizeof ba, fa), nb = fread(bb, 1, sizeof bb, fb);
    fclose(fa);
    fclose(fb);
    EXPECT_EQ(na, nb);
    EXPECT_TRUE(memcmp(ba, bb, na) == 0);
  }
  /* The state file too (the fixture's was written by Python for a relative save path). */
  char sa[4300];
  snprintf(sa, sizeof sa, "%s/checkpoint", dir);
  char *mine = read_text(sa), *theirs = read_text(TFC_FIXTURE_DIR "/ckpt_saver/checkpoint");
  EXPECT_STREQ(mine, theirs);
  free(mine);
  free(theirs);
  TFC_DeleteSaver(saver);
  model_fini(&m);
  rm_tree(dir);
  free(dir);
  TF_DeleteStatus(s);
}

static void saver_max_to_keep_deletes_oldest(void) {
  char *dir = tmp_dir();
  TF_Status *s = TF_NewStatus();
  model m;
  model_init(&m, 1);
  TFC_Saver *saver = TFC_NewSaver(m.root, NULL, NULL, 0, 2, s);
  OK(s);
  model_start(&m);
  char path[4200];
  snprintf(path, sizeof path, "%s/m", dir);
  for (int step = 1; step <= 4; step++) EXPECT_EQ(TFC_SaverSave(saver, m.sess, path, step, NULL, 0, s), 1);
  OK(s);
  char *files = listing(dir);
  EXPECT_STREQ(files, "checkpoint m-3.data-00000-of-00001 m-3.index m-4.data-00000-of-00001 m-4.index");
  free(files);
  char state[4300];
  snprintf(state, sizeof state, "%s/checkpoint", dir);
  char *text = read_text(state);
  EXPECT_STREQ(text, "model_checkpoint_path: \"m-4\"\nall_model_checkpoint_paths: \"m-3\"\n"
                     "all_model_checkpoint_paths: \"m-4\"\n");
  free(text);
  EXPECT_EQ(TFC_SaverNumLastCheckpoints(saver), 2);
  char want[4300];
  snprintf(want, sizeof want, "%s-3", path);
  EXPECT_STREQ(TFC_SaverLastCheckpoint(saver, 0), want);
  /* Saving a step again moves it to the end instead of duplicating it. */
  EXPECT_EQ(TFC_SaverSave(saver, m.sess, path, 3, NULL, 0, s), 1);
  text = read_text(state);
  EXPECT_STREQ(text, "model_checkpoint_path: \"m-3\"\nall_model_checkpoint_paths: \"m-4\"\n"
                     "all_model_checkpoint_paths: \"m-3\"\n");
  free(text);
  /* A new saver (a resumed run) recovers the list, so its saves keep deleting. */
  TFC_Saver *resumed = TFC_NewSaver(m.root, NULL, NULL, 0, 2, s);
  OK(s);
  TFC_SaverRecoverLastCheckpoints(resumed, dir, s);
  OK(s);
  EXPECT_EQ(TFC_SaverNumLastCheckpoints(resumed), 2);
  EXPECT_EQ(TFC_SaverSave(resumed, m.sess, path, 5, NULL, 0, s), 1);
  files = listing(dir);
  EXPECT_STREQ(files, "checkpoint m-3.data-00000-of-00001 m-3.index m-5.data-00000-of-00001 m-5.index");
  free(files);
  /* max_to_keep 0 keeps every file and lists only the newest. */
  TFC_Saver *all = TFC_NewSaver(m.root, NULL, NULL, 0, 0, s);
  OK(s);
  EXPECT_EQ(TFC_SaverSave(all, m.sess, path, 6, NULL, 0, s), 1);
  EXPECT_EQ(TFC_SaverSave(all, m.sess, path, 7, NULL, 0, s), 1);
  text = read_text(state);
  EXPECT_STREQ(text, "model_checkpoint_path: \"m-7\"\nall_model_checkpoint_paths: \"m-7\"\n");
  free(text);
  snprintf(want, sizeof want, "%s/m-6.index", dir);
  EXPECT_EQ(access(want, F_OK), 0);
  TFC_DeleteSaver(all);
  TFC_DeleteSaver(resumed);
  TFC_DeleteSaver(saver);
  model_fini(&m);
  rm_tree(dir);
  free(dir);
  TF_DeleteStatus(s);
}

static void saver_failed_save_keeps_previous_checkpoint_and_state(void) {
  char *dir = tmp_dir();
  TF_Status *s = TF_NewStatus();
  model m;
  model_init(&m, 1);
  TFC_Saver *saver = TFC_NewSaver(m.root, NULL, NULL, 0, 5, s);
  OK(s);
  model_start(&m);
  char path[4200], blocker[4400], state[4300];
  snprintf(path, sizeof path, "%s/model", dir);
  snprintf(state, sizeof state, "%s/checkpoint", dir);
  EXPECT_EQ(TFC_SaverSave(saver, m.sess, path, 1, NULL, 0, s), 1);
  char *before = read_text(state);
  /* A directory holds the name of step 2's data file: the save fails naming it. */
  snprintf(blocker, sizeof blocker, "%s-2.data-00000-of-00001", path);
  EXPECT_EQ(mkdir(blocker, 0777), 0);
  overwrite(&m, 3, "change");
  EXPECT_EQ(TFC_SaverSave(saver, m.sess, path, 2, NULL, 0, s), 0);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);
  EXPECT_CONTAINS(TF_Message(s), "Failed to rename ");
  EXPECT_CONTAINS(TF_Message(s), blocker);
  EXPECT_CONTAINS(TF_Message(s), "save/SaveV2");
  /* The state file and step 1 are untouched, and no temporary file is left. */
  char *after = read_text(state);
  EXPECT_STREQ(after, before);
  char *files = listing(dir);
  EXPECT_STREQ(files, "checkpoint model-1.data-00000-of-00001 model-1.index model-2.data-00000-of-00001");
  free(files);
  char latest[4300], want[4300];
  snprintf(want, sizeof want, "%s-1", path);
  EXPECT_EQ(TFC_LatestCheckpoint(dir, latest, sizeof latest, s), 1);
  EXPECT_STREQ(latest, want);
  TFC_SaverRestore(saver, m.sess, latest, s);
  OK(s);
  expect_values(&m, 1);
  EXPECT_EQ(TFC_SaverNumLastCheckpoints(saver), 1);
  free(before);
  free(after);
  TFC_DeleteSaver(saver);
  model_fini(&m);
  rm_tree(dir);
  free(dir);
  TF_DeleteStatus(s);
}

static void saver_restore_errors_name_key_and_file(void) {
  TF_Status *s = TF_NewStatus();
  model m;
  model_init(&m, 2);
  /* "weights" saved under a name the checkpoint lacks. */
  TF_Output vars[3] = {{m.w.variable, 0}, {m.b.variable, 0}, {m.count.variable, 0}};
  const char *names[3] = {"w", "bias", "count"};
  TFC_Saver *saver = TFC_NewSaver(m.root, names, vars, 3, 5, s);
  OK(s);
  model_start(&m);
  const char *ckpt = TFC_FIXTURE_DIR "/ckpt_saver/model.ckpt-7";
  TFC_SaverRestore(saver, m.sess, ckpt, s);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(s), "Key w not found in checkpoint " TFC_FIXTURE_DIR "/ckpt_saver/model.ckpt-7");
  expect_values(&m, 2); /* nothing restored */
  /* No such checkpoint. */
  TFC_SaverRestore(saver, m.sess, TFC_FIXTURE_DIR "/ckpt_saver/model.ckpt-8", s);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_STREQ(TF_Message(s), "The passed save_path is not a valid checkpoint: " TFC_FIXTURE_DIR
                              "/ckpt_saver/model.ckpt-8");
  /* RestoreV2 run by hand on a missing prefix: TF's text. */
  TF_Tensor *feed = NULL;
  {
    const char *p = TFC_FIXTURE_DIR "/nope";
    size_t len = strlen(p), enc = TF_StringEncodedSize(len);
    feed = TF_AllocateTensor(TF_STRING, NULL, 0, 8 + enc);
    memset(TF_TensorData(feed), 0, 8);
    TF_StringEncode(p, len, (char *)TF_TensorData(feed) + 8, enc, s);
    OK(s);
  }
  TF_Output fname = TFC_SaverFilenameTensor(saver);
  TF_Operation *restore = TFC_SaverRestoreOp(saver);
  TF_SessionRun(m.sess, NULL, &fname, &feed, 1, NULL, NULL, 0, (const TF_Operation *const *)&restore, 1, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_NOT_FOUND);
  EXPECT_CONTAINS(TF_Message(s), "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for "
                                 TFC_FIXTURE_DIR "/nope");
  TF_DeleteTensor(feed);
  /* A dtype mismatch: "count" restored as float. */
  TFC_DeleteSaver(saver);
  TFC_Scope *other = TFC_NewSubScope(m.root, "other");
  float zero = 0;
  TFC_Variable fc = TFC_NewVariable(other, "count", const_t(other, "z", TF_FLOAT, NULL, 0, &zero, sizeof zero), 0, s);
  OK(s);
  const char *cname[1] = {"count"};
  TF_Output cvar[1] = {{fc.variable, 0}};
  saver = TFC_NewSaver(m.root, cname, cvar, 1, 5, s);
  OK(s);
  TF_SessionRun(m.sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&fc.initializer, 1, NULL, s);
  OK(s);
  TFC_SaverRestore(saver, m.sess, ckpt, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "tensor_name = count; expected dtype float does not equal original dtype int64");
  /* A latest-checkpoint query on a directory without a state file. */
  char latest[64];
  EXPECT_EQ(TFC_LatestCheckpoint(TFC_FIXTURE_DIR "/ckpt_tf", latest, sizeof latest, s), 0);
  OK(s);
  TFC_DeleteScope(other);
  TFC_DeleteSaver(saver);
  model_fini(&m);
  TF_DeleteStatus(s);
}

/* ---------------- (3) the sharded save ops, run by hand ---------------- */

static TF_Output string_const(TFC_Scope *sc, const char *name, const char *value) {
  size_t len = strlen(value), enc = TF_StringEncodedSize(len);
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, NULL, 0, 8 + enc);
  TF_Status *s = TF_NewStatus();
  memset(TF_TensorData(t), 0, 8);
  TF_StringEncode(value, len, (char *)TF_TensorData(t) + 8, enc, s);
  OK(s);
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_Operation *op = TF_FinishOperation(d, s);
  OK(s);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return (TF_Output){op, 0};
}

static TF_Output vec_const(TFC_Scope *sc, const char *name, const char *a, const char *b) {
  size_t la = strlen(a), lb = b ? strlen(b) : 0, ea = TF_StringEncodedSize(la), eb = b ? TF_StringEncodedSize(lb) : 0;
  int n = b ? 2 : 1;
  TF_Tensor *t = TF_AllocateTensor(TF_STRING, (int64_t[]){n}, 1, 8 * (size_t)n + ea + eb);
  TF_Status *s = TF_NewStatus();
  uint64_t *off = TF_TensorData(t);
  char *data = (char *)TF_TensorData(t) + 8 * n;
  off[0] = 0;
  TF_StringEncode(a, la, data, ea, s);
  if (b) {
    off[1] = ea;
    TF_StringEncode(b, lb, data + ea, eb, s);
  }
  OK(s);
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  TF_SetAttrType(d, "dtype", TF_STRING);
  TF_Operation *op = TF_FinishOperation(d, s);
  OK(s);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return (TF_Output){op, 0};
}

static TF_Output int_const(TFC_Scope *sc, const char *name, int32_t v) {
  return const_t(sc, name, TF_INT32, NULL, 0, &v, sizeof v);
}

static void string_of(TF_Tensor *t, char *out, size_t n) {
  const char *dst;
  size_t len;
  TF_Status *s = TF_NewStatus();
  TF_StringDecode((const char *)TF_TensorData(t) + 8, TF_TensorByteSize(t) - 8, &dst, &len, s);
  OK(s);
  snprintf(out, n, "%.*s", (int)len, dst);
  TF_DeleteStatus(s);
}

static void sharded_save_ops_merge_into_one_checkpoint(void) {
  char *dir = tmp_dir();
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TFC_Scope *root = TFC_NewRootScope(g);
  char prefix[4200];
  snprintf(prefix, sizeof prefix, "%s/model", dir);
  /* Python's _AddShardedSaveOpsForV2: "<prefix>_temp_<id>/part", one shard per device. */
  TF_Output join_in[2] = {string_const(root, "prefix", prefix), string_const(root, "suffix", "_temp_0123/part")};
  TF_OperationDescription *d = TFC_ScopeNewOperation(root, "StringJoin", NULL);
  TF_AddInputList(d, join_in, 2);
  TF_Operation *join = TF_FinishOperation(d, s);
  OK(s);
  TF_Output num = int_const(root, "num_shards", 2), shard[2] = {int_const(root, "s0", 0), int_const(root, "s1", 1)};
  TF_Output files[2];
  TF_Operation *saves[2];
  float a[2] = {1, 2};
  int64_t b = 9;
  TF_Output vals[2] = {const_t(root, "a", TF_FLOAT, (int64_t[]){2}, 1, a, sizeof a),
                       const_t(root, "b", TF_INT64, NULL, 0, &b, sizeof b)};
  const char *names[2] = {"a", "b"};
  for (int i = 0; i < 2; i++) {
    d = TFC_ScopeNewOperation(root, "ShardedFilename", NULL);
    TF_AddInput(d, (TF_Output){join, 0});
    TF_AddInput(d, shard[i]);
    TF_AddInput(d, num);
    files[i] = (TF_Output){TF_FinishOperation(d, s), 0};
    OK(s);
    d = TFC_ScopeNewOperation(root, "SaveV2", NULL);
    TF_AddInput(d, files[i]);
    TF_AddInput(d, vec_const(root, NULL, names[i], NULL));
    TF_AddInput(d, vec_const(root, NULL, "", NULL));
    TF_AddInputList(d, &vals[i], 1);
    saves[i] = TF_FinishOperation(d, s);
    OK(s);
  }
  d = TFC_ScopeNewOperation(root, "Pack", NULL);
  TF_AddInputList(d, files, 2);
  TF_Operation *pack = TF_FinishOperation(d, s);
  OK(s);
  d = TFC_ScopeNewOperation(root, "MergeV2Checkpoints", NULL);
  TF_AddInput(d, (TF_Output){pack, 0});
  TF_AddInput(d, string_const(root, "dest", prefix));
  TF_AddControlInput(d, saves[0]);
  TF_AddControlInput(d, saves[1]);
  TF_Operation *merge = TF_FinishOperation(d, s);
  OK(s);
  d = TFC_ScopeNewOperation(root, "ShardedFilespec", NULL);
  TF_AddInput(d, string_const(root, "base", "x/y"));
  TF_AddInput(d, num);
  TF_Operation *spec = TF_FinishOperation(d, s);
  OK(s);
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, o, s);
  OK(s);
  TF_Output fetch[3] = {files[0], files[1], {spec, 0}};
  TF_Tensor *out[3] = {NULL, NULL, NULL};
  TF_SessionRun(sess, NULL, NULL, NULL, 0, fetch, out, 3, (const TF_Operation *const *)&merge, 1, NULL, s);
  OK(s);
  char got[4400], want[4400];
  string_of(out[1], got, sizeof got);
  snprintf(want, sizeof want, "%s_temp_0123/part-00001-of-00002", prefix);
  EXPECT_STREQ(got, want);
  string_of(out[2], got, sizeof got);
  EXPECT_STREQ(got, "x/y-\?\?\?\?\?-of-00002");
  for (int i = 0; i < 3; i++) TF_DeleteTensor(out[i]);
  /* One checkpoint at prefix, two data shards; the temporary directory is gone. */
  char *files_now = listing(dir);
  EXPECT_STREQ(files_now, "model.data-00000-of-00002 model.data-00001-of-00002 model.index");
  free(files_now);
  tfc_status ts;
  tfc_status_init(&ts);
  tfc_bundle_reader *r = tfc_bundle_reader_open(prefix, &ts);
  EXPECT_TRUE(r != NULL);
  tfc_tensor *ta = tfc_bundle_reader_read(r, "a", &ts), *tb = tfc_bundle_reader_read(r, "b", &ts);
  EXPECT_TRUE(ta && tb);
  EXPECT_EQ(((float *)ta->data)[1], 2.0f);
  EXPECT_EQ(*(int64_t *)tb->data, 9);
  tfc_tensor_unref(ta);
  tfc_tensor_unref(tb);
  tfc_bundle_reader_free(r);
  tfc_status_fini(&ts);
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(o);
  TFC_DeleteScope(root);
  TF_DeleteGraph(g);
  rm_tree(dir);
  free(dir);
  TF_DeleteStatus(s);
}

/* ---------------- damaged checkpoints and killed saves ---------------- */

typedef struct skips {
  int n;
  char paths[4][4300];
  TF_Code codes[4];
  char msgs[4][8192];
} skips;

static void note_skip(void *arg, const char *path, const TF_Status *why) {
  skips *k = arg;
  if (k->n < 4) {
    snprintf(k->paths[k->n], sizeof k->paths[0], "%s", path);
    k->codes[k->n] = TF_GetCode(why);
    snprintf(k->msgs[k->n], sizeof k->msgs[0], "%s", TF_Message(why));
  }
  k->n++;
}

static void flip_byte(const char *path, long at) {
  FILE *f = fopen(path, "r+b");
  EXPECT_TRUE(f != NULL);
  fseek(f, at, SEEK_SET);
  int c = fgetc(f);
  fseek(f, at, SEEK_SET);
  fputc(c ^ 0xff, f);
  fclose(f);
}

/* The newest intact checkpoint: a corrupt newest (flipped data byte) and a missing one are
 * passed over, newest first, each with why; none intact is 0; no state file is 0; a state
 * file that does not parse is DATA_LOSS. */
static void latest_intact_checkpoint_passes_over_damaged_ones(void) {
  char *dir = tmp_dir();
  TF_Status *s = TF_NewStatus();
  model m;
  model_init(&m, 1);
  TFC_Saver *saver = TFC_NewSaver(m.root, NULL, NULL, 0, 5, s);
  OK(s);
  model_start(&m);
  char path[4200], want[4300], got[4300], file[4400];
  snprintf(path, sizeof path, "%s/m", dir);
  skips k = {0};
  EXPECT_EQ(TFC_LatestIntactCheckpoint(dir, got, sizeof got, note_skip, &k, s), 0); /* no state file */
  OK(s);
  for (int step = 1; step <= 3; step++) EXPECT_EQ(TFC_SaverSave(saver, m.sess, path, step, NULL, 0, s), 1);
  OK(s);
  snprintf(want, sizeof want, "%s-3", path);
  EXPECT_EQ(TFC_LatestIntactCheckpoint(dir, got, sizeof got, note_skip, &k, s), 1);
  EXPECT_STREQ(got, want);
  EXPECT_EQ(k.n, 0);
  EXPECT_EQ(TFC_CheckpointIntact(want, s), 1);
  OK(s);
  /* m-3: one byte of its data flipped; m-2: its index gone. */
  snprintf(file, sizeof file, "%s-3.data-00000-of-00001", path);
  flip_byte(file, 2);
  EXPECT_EQ(TFC_CheckpointIntact(want, s), 0);
  EXPECT_EQ(TF_GetCode(s), TF_DATA_LOSS);
  EXPECT_CONTAINS(TF_Message(s), file);
  TF_SetStatus(s, TF_OK, "");
  char index2[4400];
  snprintf(index2, sizeof index2, "%s-2.index", path);
  EXPECT_EQ(unlink(index2), 0);
  EXPECT_EQ(TFC_LatestCheckpoint(dir, got, sizeof got, s), 1); /* the plain one is fooled */
  EXPECT_EQ(TFC_LatestIntactCheckpoint(dir, got, sizeof got, note_skip, &k, s), 1);
  OK(s);
  snprintf(want, sizeof want, "%s-1", path);
  EXPECT_STREQ(got, want);
  EXPECT_EQ(k.n, 2);
  snprintf(want, sizeof want, "%s-3", path);
  EXPECT_STREQ(k.paths[0], want);
  EXPECT_EQ(k.codes[0], TF_DATA_LOSS);
  EXPECT_CONTAINS(k.msgs[0], "Checksum does not match");
  EXPECT_CONTAINS(k.msgs[0], file);
  snprintf(want, sizeof want, "%s-2", path);
  EXPECT_STREQ(k.paths[1], want);
  EXPECT_EQ(k.codes[1], TF_NOT_FOUND);
  EXPECT_CONTAINS(k.msgs[1], index2);
  /* What restores is what the check accepted. */
  overwrite(&m, 3, "scaled");
  TFC_SaverRestore(saver, m.sess, got, s);
  OK(s);
  expect_values(&m, 1);
  /* m-1 truncated too: nothing intact. */
  snprintf(file, sizeof file, "%s-1.data-00000-of-00001", path);
  EXPECT_EQ(truncate(file, 4), 0);
  k.n = 0;
  EXPECT_EQ(TFC_LatestIntactCheckpoint(dir, got, sizeof got, note_skip, &k, s), 0);
  OK(s);
  EXPECT_EQ(k.n, 3);
  EXPECT_EQ(k.codes[2], TF_DATA_LOSS);
  /* An unparseable state file. */
  char state[4300];
  snprintf(state, sizeof state, "%s/checkpoint", dir);
  FILE *f = fopen(state, "w");
  fputs("model_checkpoint_path: m-3\n", f);
  fclose(f);
  EXPECT_EQ(TFC_LatestIntactCheckpoint(dir, got, sizeof got, NULL, NULL, s), -1);
  EXPECT_EQ(TF_GetCode(s), TF_DATA_LOSS);
  EXPECT_CONTAINS(TF_Message(s), "Unparseable checkpoint state file");
  TFC_DeleteSaver(saver);
  model_fini(&m);
  rm_tree(dir);
  free(dir);
  TF_DeleteStatus(s);
}

/* A save killed midway leaves "*.tempstate*" files; the saver's first save to that path
 * removes them, and only them: not another prefix's, not one another writer holds (locked). */
static void first_save_removes_stale_temporaries(void) {
  char *dir = tmp_dir();
  TF_Status *s = TF_NewStatus();
  model m;
  model_init(&m, 1);
  TFC_Saver *saver = TFC_NewSaver(m.root, NULL, NULL, 0, 5, s);
  OK(s);
  model_start(&m);
  static const char *const names[] = {"m-600.data-00000-of-00001.tempstate4242", "m-600.index.tempstate77",
                                      "other-600.index.tempstate1", "m-9.index.tempstate5"};
  char p[8192];
  for (int i = 0; i < 4; i++) {
    snprintf(p, sizeof p, "%s/%s", dir, names[i]);
    FILE *f = fopen(p, "wb");
    fputs("partial", f);
    fclose(f);
  }
  /* names[3] is being written by someone else: its writer holds an exclusive flock. */
  snprintf(p, sizeof p, "%s/%s", dir, names[3]);
  int fd = open(p, O_RDWR);
  EXPECT_TRUE(fd >= 0);
  EXPECT_EQ(flock(fd, LOCK_EX), 0);
  char path[4200];
  snprintf(path, sizeof path, "%s/m", dir);
  EXPECT_EQ(TFC_SaverSave(saver, m.sess, path, 1, NULL, 0, s), 1);
  OK(s);
  char *files = listing(dir);
  EXPECT_STREQ(files, "checkpoint m-1.data-00000-of-00001 m-1.index m-9.index.tempstate5 other-600.index.tempstate1");
  free(files);
  close(fd);
  TFC_DeleteSaver(saver);
  model_fini(&m);
  rm_tree(dir);
  free(dir);
  TF_DeleteStatus(s);
}

static const tfc_test tests[] = {
    TFC_TEST(saver_graph_matches_tf_node_for_node),
    TFC_TEST(saver_builder_errors_leave_graph_unchanged),
    TFC_TEST(saver_save_restore_round_trip),
    TFC_TEST(saver_restores_tf_checkpoint_and_writes_identical_bytes),
    TFC_TEST(saver_max_to_keep_deletes_oldest),
    TFC_TEST(saver_failed_save_keeps_previous_checkpoint_and_state),
    TFC_TEST(saver_restore_errors_name_key_and_file),
    TFC_TEST(sharded_save_ops_merge_into_one_checkpoint),
    TFC_TEST(latest_intact_checkpoint_passes_over_damaged_ones),
    TFC_TEST(first_save_removes_stale_temporaries),
    {0}};
TFC_TEST_MAIN(tests)
