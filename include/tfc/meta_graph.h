/*
 * meta_graph.h — MetaGraphDefs (".meta" files) for C: tf.compat.v1.train.export_meta_graph and
 * import_meta_graph over a TF_Graph and the builders' collections.
 *
 * A MetaGraphDef (TF's core/protobuf/meta_graph.proto) holds a GraphDef, the producer's OpDefs
 * for the op types it uses (meta_info_def.stripped_op_list) and versions, a SaverDef (where the
 * graph's save/restore subgraph is), and the graph's collections by name. TFC_ExportMetaGraph
 * makes one as TF 1.15's Python does for the same graph:
 *   - "variables", "trainable_variables", "local_variables": the builders' variable lists
 *     (train.h), each variable a serialized VariableDef {variable_name "w:0",
 *     initial_value_name "w/initial_value:0", initializer_name "w/Assign", snapshot_name
 *     "w/read:0", trainable} in a bytes_list; the global step ("global_step") likewise;
 *   - "queue_runners": one QueueRunnerDef per runner (queue, enqueue ops, close and cancel
 *     ops, queue_closed_exception_types [OUT_OF_RANGE]);
 *   - "summaries": node_list of the summary tensors ("loss_1:0"); any other collection of
 *     the builders (TFC_AddToCollection): node_list of each entry's first operation's name;
 *   - collections a client holds itself (Python's train_op, losses, ...) are added with
 *     TFC_MetaGraphAdd*List, replacing an exported one of the same key.
 * The result reads in TensorFlow's import_meta_graph; tfc reads TensorFlow's.
 *
 * TFC_ImportMetaGraph is import_meta_graph's graph part: it imports the GraphDef (node names
 * prefixed "<import_scope>/" when a scope is given; devices cleared on request), then records
 * the imported variables in the builders' variable collections (train.h: the optimizers,
 * initializers and savers see them), the global step, and the summaries, queue runners and
 * other node_list collections as builder collection entries. The SaverDef and every
 * collection stay readable from the TFC_MetaGraph (TFC_MetaGraphGetSaverDef, the collection
 * accessors) for a client that keeps its own objects (TFC_NewSaverFromDef makes the saver).
 *
 * Not carried: `_output_shapes` attrs, function libraries beyond the GraphDef's own, cond and
 * while contexts, signature and asset defs (kept as read, not interpreted), text-format
 * files. Import applies the producer's op list as TF does: an attr the local op definition
 * lacks is dropped when it holds the producer's default value (a graph from a newer
 * TensorFlow); any other unknown attr fails the import.
 *
 * Ownership: a TFC_MetaGraph is the caller's (TFC_DeleteMetaGraph); strings and bytes it
 * returns are its own, valid until it changes or is deleted. The graph is borrowed for the
 * call. Errors go to the TF_Status (which may be NULL) with TF's codes: INVALID_ARGUMENT for
 * bytes that are not a MetaGraphDef or a collection entry of the wrong kind, the import's
 * errors (naming the node), NOT_FOUND for a VariableDef or node_list name not in the graph.
 * Thread-safety: one thread at a time per TFC_MetaGraph; graph calls follow train.h's rules.
 */
#ifndef TFC_META_GRAPH_H_
#define TFC_META_GRAPH_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api.h"
#include "tfc/saver.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TFC_MetaGraph TFC_MetaGraph;

/* Bits of the flags of TFC_ExportMetaGraph and TFC_ImportMetaGraph. */
#define TFC_META_GRAPH_CLEAR_DEVICES 1 /* clear_devices=True: every node's device emptied */
#define TFC_META_GRAPH_UNIQUIFY_NAMES 2 /* import: a node whose name is taken gets the first free
                                           "<name>_<k>" (Python's import does this), instead of
                                           failing the import */

/* The kinds of a collection (CollectionDef's oneof): 0 when there is no such collection. */
#define TFC_COLLECTION_NODE_LIST 1
#define TFC_COLLECTION_BYTES_LIST 2
#define TFC_COLLECTION_INT64_LIST 3
#define TFC_COLLECTION_FLOAT_LIST 4
#define TFC_COLLECTION_ANY_LIST 5

/* tf.train.export_meta_graph(graph, saver_def, collection_list, clear_devices): the graph's
 * MetaGraphDef (see above). saver_def NULL: none. collection_list NULL: every collection;
 * else only those named (n_collections of them). NULL on error. */
TF_CAPI_EXPORT extern TFC_MetaGraph* TFC_ExportMetaGraph(TF_Graph* graph, const TFC_SaverDef* saver_def,
                                                        const char* const* collection_list, int n_collections,
                                                        int flags, TF_Status* status);

/* Adds collection `key` (replacing one of that key) with n values: node or tensor names; byte
 * strings (values[i] of lengths[i] bytes: serialized messages or plain bytes); integers;
 * floats. INVALID_ARGUMENT for an empty key or NULL values with n > 0. */
TF_CAPI_EXPORT extern void TFC_MetaGraphAddNodeList(TFC_MetaGraph* mg, const char* key,
                                                    const char* const* names, int n, TF_Status* status);
TF_CAPI_EXPORT extern void TFC_MetaGraphAddBytesList(TFC_MetaGraph* mg, const char* key,
                                                     const void* const* values, const size_t* lengths, int n,
                                                     TF_Status* status);
TF_CAPI_EXPORT extern void TFC_MetaGraphAddInt64List(TFC_MetaGraph* mg, const char* key, const int64_t* values,
                                                     int n, TF_Status* status);
TF_CAPI_EXPORT extern void TFC_MetaGraphAddFloatList(TFC_MetaGraph* mg, const char* key, const float* values,
                                                     int n, TF_Status* status);

/* The serialized MetaGraphDef (binary; what a ".meta" file holds) into output. */
TF_CAPI_EXPORT extern void TFC_MetaGraphToBuffer(const TFC_MetaGraph* mg, TF_Buffer* output, TF_Status* status);
/* Writes it to path (a temporary file renamed into place; the directory must exist). Errors
 * name the file. */
TF_CAPI_EXPORT extern void TFC_WriteMetaGraph(const TFC_MetaGraph* mg, const char* path, TF_Status* status);
/* A MetaGraphDef from its serialized bytes (copied): INVALID_ARGUMENT "Unparseable
 * MetaGraphDef" when they are not one. TFC_ReadMetaGraph reads a file: NOT_FOUND naming a
 * missing one. NULL on error. */
TF_CAPI_EXPORT extern TFC_MetaGraph* TFC_NewMetaGraphFromBuffer(const void* data, size_t len, TF_Status* status);
TF_CAPI_EXPORT extern TFC_MetaGraph* TFC_ReadMetaGraph(const char* path, TF_Status* status);
TF_CAPI_EXPORT extern void TFC_DeleteMetaGraph(TFC_MetaGraph* mg); /* NULL: no-op */

/* tf.train.import_meta_graph's graph part (see above): import_scope NULL or "" imports the
 * names as they are. On an import error the graph is unchanged; a collection naming a node the
 * GraphDef lacks is NOT_FOUND after the import (the nodes stay). */
TF_CAPI_EXPORT extern void TFC_ImportMetaGraph(TF_Graph* graph, const TFC_MetaGraph* mg, const char* import_scope,
                                              int flags, TF_Status* status);

/* The SaverDef: 1 and *out filled (strings owned by mg) when there is one, else 0. */
TF_CAPI_EXPORT extern int TFC_MetaGraphGetSaverDef(const TFC_MetaGraph* mg, TFC_SaverDef* out);
/* The serialized GraphDef (borrowed bytes of mg) and its length. */
TF_CAPI_EXPORT extern const void* TFC_MetaGraphGraphDef(const TFC_MetaGraph* mg, size_t* out_len);

/* Collections: the number of keys, key i (in the file's order), a key's kind
 * (TFC_COLLECTION_*, 0 when absent) and number of values, and value i: a name or bytes
 * (node and bytes lists: *out_len its length), an integer, a float. */
TF_CAPI_EXPORT extern int TFC_MetaGraphNumCollections(const TFC_MetaGraph* mg);
TF_CAPI_EXPORT extern const char* TFC_MetaGraphCollectionKey(const TFC_MetaGraph* mg, int i);
TF_CAPI_EXPORT extern int TFC_MetaGraphCollectionKind(const TFC_MetaGraph* mg, const char* key);
TF_CAPI_EXPORT extern int TFC_MetaGraphCollectionSize(const TFC_MetaGraph* mg, const char* key);
TF_CAPI_EXPORT extern const void* TFC_MetaGraphCollectionBytes(const TFC_MetaGraph* mg, const char* key, int i,
                                                              size_t* out_len);
TF_CAPI_EXPORT extern int64_t TFC_MetaGraphCollectionInt64(const TFC_MetaGraph* mg, const char* key, int i);
TF_CAPI_EXPORT extern float TFC_MetaGraphCollectionFloat(const TFC_MetaGraph* mg, const char* key, int i);

#ifdef __cplusplus
}
#endif

#endif
