/*
 * cf_spread — a fixture GraphDef with its nodes spread over several devices, for the tests of
 * control flow across devices (test_capi_cf_devices.c) and across tasks
 * (tests/dist/test_cluster_control_flow.c).
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

#endif
