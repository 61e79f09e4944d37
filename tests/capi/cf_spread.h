/*
 * cf_spread — a fixture GraphDef with its nodes spread over several devices, for the tests of
 * control flow across devices (test_capi_cf_devices.c) and across tasks
 * (tests/distributed_runtime/test_cluster_control_flow.c).
 *
 * cf_spread_graph reads TFC_FIXTURE_DIR/<file>, sets NodeDef k's device to
 * devices[pick(k)], and imports it. Nodes that touch a resource variable (VarHandleOp and the
 * ops reading, writing or testing it) keep their empty device, so the placer keeps them beside
 * their variable as TF's colocation rules want, and so do nodes with a `_class` colocation
 * attr (they follow the node they name). Header-only, for test programs; failures fail
 * the test.
 */
#ifndef TFC_TESTS_CF_SPREAD_H
#define TFC_TESTS_CF_SPREAD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tensorflow/c/c_api.h"
#include "tensorflow/graph.pb-c.h"

/* Device patterns over n devices: round-robin by NodeDef index, and pairs of neighbours. */
enum { CF_SPREAD_ROUND_ROBIN = 0, CF_SPREAD_PAIRS = 1 };

static int cf_spread_pick(int pattern, int k, int n) { return pattern == CF_SPREAD_PAIRS ? (k / 2) % n : k % n; }

static int cf_spread_keeps(const char *op) {
  static const char *const keep[] = {"VarHandleOp", "ReadVariableOp", "AssignVariableOp", "VarIsInitializedOp",
                                     "AssignAddVariableOp", "AssignSubVariableOp"};
  for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
    if (strcmp(op, keep[i]) == 0) return 1;
  return 0;
}

static __attribute__((unused)) TF_Graph *cf_spread_graph(const char *file, const char *const *devices, int n_devices,
                                                         int pattern) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", TFC_FIXTURE_DIR, file);
  FILE *fp = fopen(path, "rb");
  if (!fp) tfc_test_fail(__FILE__, __LINE__, "cannot open %s", path);
  fseek(fp, 0, SEEK_END);
  long len = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  unsigned char *bytes = malloc((size_t)len + 1);
  if (!bytes || fread(bytes, 1, (size_t)len, fp) != (size_t)len) tfc_test_fail(__FILE__, __LINE__, "cannot read %s", path);
  fclose(fp);
  Tensorflow__GraphDef *gd = tensorflow__graph_def__unpack(NULL, (size_t)len, bytes);
  free(bytes);
  if (!gd) tfc_test_fail(__FILE__, __LINE__, "%s is not a GraphDef", path);
  for (size_t k = 0; k < gd->n_node; k++) {
    Tensorflow__NodeDef *n = gd->node[k];
    if (cf_spread_keeps(n->op)) continue;
    /* A node colocated with another (_class "loc:@...", as tf.while_loop puts Switch with
     * Merge) follows that node's device: a device of its own would conflict, in TF too. */
    int colocated = 0;
    for (size_t a = 0; a < n->n_attr; a++) colocated = colocated || strcmp(n->attr[a]->key, "_class") == 0;
    if (colocated) continue;
    /* protobuf-c frees a string field unless it is the default "" it points at */
    if (n->device && n->device != protobuf_c_empty_string) free(n->device);
    n->device = strdup(devices[cf_spread_pick(pattern, (int)k, n_devices)]);
  }
  size_t out_len = tensorflow__graph_def__get_packed_size(gd);
  unsigned char *out = malloc(out_len + 1);
  tensorflow__graph_def__pack(gd, out);
  tensorflow__graph_def__free_unpacked(gd, NULL);
  TF_Buffer *buf = TF_NewBufferFromString(out, out_len);
  free(out);
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  TF_GraphImportGraphDef(g, buf, o, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: import: %s", file, TF_Message(s));
  TF_DeleteImportGraphDefOptions(o);
  TF_DeleteBuffer(buf);
  TF_DeleteStatus(s);
  return g;
}

/* ---------------- a cond whose branches span devices ---------------- */

static TF_Operation *cf_node(TF_Graph *g, const char *type, const char *name, const char *dev, const TF_Output *in,
                             int n_in) {
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, type, name);
  if (strcmp(type, "Merge") == 0) TF_AddInputList(d, in, n_in);
  else
    for (int i = 0; i < n_in; i++) TF_AddInput(d, in[i]);
  if (dev) TF_SetDevice(d, dev);
  TF_Operation *o = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", name, TF_Message(s));
  TF_DeleteStatus(s);
  return o;
}

static TF_Operation *cf_placeholder(TF_Graph *g, const char *name, TF_DataType dt, const char *dev) {
  TF_Status *s = TF_NewStatus();
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", dt);
  TF_SetDevice(d, dev);
  TF_Operation *o = TF_FinishOperation(d, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", name, TF_Message(s));
  TF_DeleteStatus(s);
  return o;
}

typedef struct cf_dead_branch {
  TF_Operation *x, *p, *m, *f_square, *t_add;
} cf_dead_branch;

/* y = p ? (x + x) : square(-x) on devs[0..3]: the Switch on devs[0], the false branch on
 * devs[1] and devs[2], the true branch on devs[2] and devs[3], the Merge on devs[3]. */
static __attribute__((unused)) cf_dead_branch cf_dead_branch_build(TF_Graph *g, const char *const *devs) {
  cf_dead_branch b;
  b.x = cf_placeholder(g, "x", TF_FLOAT, devs[0]);
  b.p = cf_placeholder(g, "p", TF_BOOL, devs[0]);
  TF_Output sw_in[2] = {{b.x, 0}, {b.p, 0}};
  TF_Operation *sw = cf_node(g, "Switch", "sw", devs[0], sw_in, 2);
  TF_Operation *neg = cf_node(g, "Neg", "f_neg", devs[1], &(TF_Output){sw, 0}, 1);
  b.f_square = cf_node(g, "Square", "f_square", devs[2], &(TF_Output){neg, 0}, 1);
  TF_Operation *id = cf_node(g, "Identity", "t_id", devs[2], &(TF_Output){sw, 1}, 1);
  TF_Output add_in[2] = {{id, 0}, {id, 0}};
  b.t_add = cf_node(g, "Add", "t_add", devs[3], add_in, 2);
  TF_Output m_in[2] = {{b.f_square, 0}, {b.t_add, 0}};
  b.m = cf_node(g, "Merge", "m", devs[3], m_in, 2);
  return b;
}

/* Runs b with x = 3 and p false, true, false, true: the Merge gives 9 or 6 and value_index 0
 * or 1 (the untaken branch went dead across two cuts: its _Send ran dead, its _Recv delivered
 * deadness), and fetching the untaken branch fails as TF fails it (INVALID_ARGUMENT, its
 * message containing dead_msg). */
static __attribute__((unused)) void cf_dead_branch_check(const cf_dead_branch *b, TF_Session *sess,
                                                         const char *dead_msg) {
  TF_Status *s = TF_NewStatus();
  for (int run = 0; run < 4; run++) {
    int taken = run % 2;
    TF_Tensor *fv[2] = {TF_AllocateTensor(TF_FLOAT, NULL, 0, sizeof(float)), TF_AllocateTensor(TF_BOOL, NULL, 0, 1)};
    *(float *)TF_TensorData(fv[0]) = 3;
    *(unsigned char *)TF_TensorData(fv[1]) = (unsigned char)taken;
    TF_Output feeds[2] = {{b->x, 0}, {b->p, 0}}, fetches[2] = {{b->m, 0}, {b->m, 1}};
    TF_Tensor *v[2] = {NULL, NULL};
    TF_SessionRun(sess, NULL, feeds, fv, 2, fetches, v, 2, NULL, 0, NULL, s);
    if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "run %d: %s", run, TF_Message(s));
    EXPECT_EQ(*(float *)TF_TensorData(v[0]), taken ? 6 : 9);
    EXPECT_EQ(*(int32_t *)TF_TensorData(v[1]), taken ? 1 : 0);
    TF_Output dead = {taken ? b->f_square : b->t_add, 0};
    TF_Tensor *dv = NULL;
    TF_SessionRun(sess, NULL, feeds, fv, 2, &dead, &dv, 1, NULL, 0, NULL, s);
    if (TF_GetCode(s) != TF_INVALID_ARGUMENT)
      tfc_test_fail(__FILE__, __LINE__, "fetching the untaken branch: code %d: %s", (int)TF_GetCode(s), TF_Message(s));
    EXPECT_CONTAINS(TF_Message(s), dead_msg);
    EXPECT_TRUE(dv == NULL);
    for (int i = 0; i < 2; i++) {
      TF_DeleteTensor(fv[i]);
      TF_DeleteTensor(v[i]);
    }
  }
  TF_DeleteStatus(s);
}

#endif
