/* libFuzzer harness: GraphDef import. Any input must either import or fail with a status;
 * a successful import must export and re-import to the same number of nodes, and a failed
 * one must leave the graph empty. */
#include <stdint.h>
#include <stdlib.h>

#include "graph/graph.h"
#include "proto/graphdef.h"
#include "proto/tensor_codec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* Const values may declare huge shapes with no data; keep allocations fuzzer-sized. */
  tfc_tensor_proto_set_max_bytes(1 << 20);
  tfc_status s;
  tfc_status_init(&s);
  tfc_graph *g = tfc_graph_new();
  tfc_import_options o = {.prefix = (size & 1) ? "p" : NULL, .uniquify_names = 1};
  tfc_import_results r;
  if (tfc_graphdef_import(g, data, size, &o, &r, &s) == TFC_OK) {
    void *bytes = NULL;
    size_t len = 0;
    if (tfc_graphdef_export(g, &bytes, &len, &s) != TFC_OK) abort();
    tfc_graph *g2 = tfc_graph_new();
    if (tfc_graphdef_import(g2, bytes, len, NULL, NULL, &s) != TFC_OK) abort();
    if (g2->n_nodes != g->n_nodes) abort();
    /* Importing the same bytes again with uniquified names must also work. */
    if (tfc_graphdef_import(g2, bytes, len, &o, NULL, &s) != TFC_OK) abort();
    tfc_graph_free(g2);
    free(bytes);
    tfc_import_results_fini(&r);
  } else if (g->n_nodes != 0) {
    abort();
  }
  tfc_graph_free(g);
  tfc_status_fini(&s);
  return 0;
}
