/* libFuzzer harness: MetaGraphDef files (include/tfc/meta_graph.h). Any input must either parse
 * or fail with a status; a parsed one is read through every accessor and imported into a fresh
 * graph (under a scope, devices cleared, names uniquified, as the input's size picks), which
 * either succeeds or fails with a status; a successful import must export again to bytes that
 * parse. */
#include <stdint.h>
#include <stdlib.h>

#include "tensorflow/c/c_api.h"
#include "tfc/meta_graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  TF_Status *s = TF_NewStatus();
  TFC_MetaGraph *mg = TFC_NewMetaGraphFromBuffer(data, size, s);
  if (!mg) {
    if (TF_GetCode(s) == TF_OK) abort();
    TF_DeleteStatus(s);
    return 0;
  }
  TFC_SaverDef sd;
  TFC_MetaGraphGetSaverDef(mg, &sd);
  size_t len;
  TFC_MetaGraphGraphDef(mg, &len);
  for (int i = 0; i < TFC_MetaGraphNumCollections(mg); i++) {
    const char *key = TFC_MetaGraphCollectionKey(mg, i);
    int kind = TFC_MetaGraphCollectionKind(mg, key), n = TFC_MetaGraphCollectionSize(mg, key);
    for (int k = 0; k < n; k++) {
      if (kind == TFC_COLLECTION_INT64_LIST) TFC_MetaGraphCollectionInt64(mg, key, k);
      else if (kind == TFC_COLLECTION_FLOAT_LIST) TFC_MetaGraphCollectionFloat(mg, key, k);
      else TFC_MetaGraphCollectionBytes(mg, key, k, &len);
    }
  }
  TF_Graph *g = TF_NewGraph();
  int flags = (size & 2 ? TFC_META_GRAPH_CLEAR_DEVICES : 0) | (size & 4 ? TFC_META_GRAPH_UNIQUIFY_NAMES : 0);
  TFC_ImportMetaGraph(g, mg, (size & 1) ? "p" : NULL, flags, s);
  if (TF_GetCode(s) == TF_OK) {
    TFC_MetaGraph *again = TFC_ExportMetaGraph(g, NULL, NULL, 0, 0, s);
    if (!again) abort();
    TF_Buffer *b = TF_NewBuffer();
    TFC_MetaGraphToBuffer(again, b, s);
    if (TF_GetCode(s) != TF_OK) abort();
    TFC_MetaGraph *parsed = TFC_NewMetaGraphFromBuffer(b->data, b->length, s);
    if (!parsed) abort();
    TFC_DeleteMetaGraph(parsed);
    TF_DeleteBuffer(b);
    TFC_DeleteMetaGraph(again);
  }
  TF_DeleteGraph(g);
  TFC_DeleteMetaGraph(mg);
  TF_DeleteStatus(s);
  return 0;
}
