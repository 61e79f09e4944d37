/*
 * saved_model.h — SavedModel directories for C beyond TF_LoadSessionFromSavedModel (c_api.h):
 * reading what a saved_model.pb (or saved_model.pbtxt) holds (tag sets, signatures: what
 * `saved_model_cli show` prints) and writing one from a session (tf.compat.v1.saved_model.Builder:
 * add_meta_graph_and_variables, add_meta_graph, assets, save; simple_save).
 *
 * A SavedModel directory (TF's layout) holds saved_model.pb (a SavedModel message: one
 * MetaGraphDef per tag set, each with its signatures: named maps of input and output tensors
 * and a method name) and variables/variables.{index,data-00000-of-00001} (a V2 checkpoint).
 *
 * and assets/ (files whose paths are fed at load to the string Consts that named them).
 *
 * The builder (TFC_NewSavedModelBuilder) writes what TF 1.x's SavedModelBuilder writes: each
 * MetaGraphDef is TFC_ExportMetaGraph of a graph (devices cleared) with its tags, signatures,
 * SaverDef, main op (collection "saved_model_main_op", run after the restore at load time) and
 * assets (collection "saved_model_assets"); the first one's call saves the variables through a
 * saver (a V2 checkpoint under the prefix "<dir>/variables/variables", no state file, no
 * .meta), later ones share that checkpoint. TensorFlow's loaders
 * (tf.compat.v1.saved_model.loader.load, the C/C++ LoadSessionFromSavedModel) read the result,
 * and so does TF_LoadSessionFromSavedModel. TFC_SaveSavedModel is the one-MetaGraphDef case.
 *
 * Ownership: a TFC_SavedModel is the caller's (TFC_DeleteSavedModel); strings and arrays it
 * returns are its own, valid until it is deleted. The graph, session and saver are borrowed
 * for the call. Errors go to the TF_Status (which may be NULL) with TF's codes and, for the
 * directory, TF's texts (see each function). Thread-safety: a TFC_SavedModel may be read from
 * several threads; TFC_SaveSavedModel follows the session's and the saver's rules.
 */
#ifndef TFC_SAVED_MODEL_H_
#define TFC_SAVED_MODEL_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api.h"
#include "tfc/meta_graph.h"
#include "tfc/saver.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TFC_SavedModel TFC_SavedModel;

/* The kinds of a signature tensor (TensorInfo's encoding). */
#define TFC_SIGNATURE_TENSOR_DENSE 1     /* name: "op:k" */
#define TFC_SIGNATURE_TENSOR_COO_SPARSE 2 /* name: the values tensor */
#define TFC_SIGNATURE_TENSOR_COMPOSITE 3  /* name: "" (the components are not described) */

/* One input or output of a signature (strings borrowed from the TFC_SavedModel). num_dims -1:
 * unknown rank; the dims are TFC_SavedModelSignatureTensorDim's. */
typedef struct TFC_SignatureTensor {
  const char* key;  /* the map key, e.g. "x" */
  const char* name; /* the graph tensor, e.g. "serving_default_x:0" */
  int kind;         /* TFC_SIGNATURE_TENSOR_* */
  TF_DataType dtype;
  int num_dims;
} TFC_SignatureTensor;

/* Reads <export_dir>/saved_model.pb, else the text form <export_dir>/saved_model.pbtxt.
 * NOT_FOUND "Could not find SavedModel .pb or .pbtxt at supplied export directory path: <dir>"
 * when there is neither; DATA_LOSS "Can't parse <dir>/saved_model.pb as binary proto" when it
 * is not a SavedModel, "Can't parse <dir>/saved_model.pbtxt as text proto: <line>(<column>):
 * <why>" for bad text. NULL on error. */
TF_CAPI_EXPORT extern TFC_SavedModel* TFC_ReadSavedModel(const char* export_dir, TF_Status* status);
TF_CAPI_EXPORT extern void TFC_DeleteSavedModel(TFC_SavedModel* sm); /* NULL: no-op */

/* The SavedModel as binary saved_model.pb bytes (also for one read from the text form) into
 * output, which must be empty (INVALID_ARGUMENT otherwise). */
TF_CAPI_EXPORT extern void TFC_SavedModelToBuffer(const TFC_SavedModel* sm, TF_Buffer* output, TF_Status* status);

/* The MetaGraphDefs (in the file's order), each one's tags (in the file's order), and the
 * first one whose tags equal tags[0..num_tags) as a set (-1 when none does). */
TF_CAPI_EXPORT extern int TFC_SavedModelNumMetaGraphs(const TFC_SavedModel* sm);
TF_CAPI_EXPORT extern int TFC_SavedModelNumTags(const TFC_SavedModel* sm, int meta_graph);
TF_CAPI_EXPORT extern const char* TFC_SavedModelTag(const TFC_SavedModel* sm, int meta_graph, int i);
TF_CAPI_EXPORT extern int TFC_SavedModelFindMetaGraph(const TFC_SavedModel* sm, const char* const* tags,
                                                      int num_tags);
/* The serialized MetaGraphDef (borrowed) and its length. */
TF_CAPI_EXPORT extern const void* TFC_SavedModelMetaGraphBytes(const TFC_SavedModel* sm, int meta_graph,
                                                               size_t* out_len);

/* A MetaGraphDef's signatures sorted by key (as saved_model_cli lists them): the key, the
 * method name ("tensorflow/serving/predict"), the index of the one named key (-1 when none),
 * and its inputs (is_output 0) or outputs (1), sorted by key. Out-of-range indices give 0,
 * NULL, or (for TFC_SavedModelSignatureTensor) 0 with *out untouched; 1 on success. */
TF_CAPI_EXPORT extern int TFC_SavedModelNumSignatures(const TFC_SavedModel* sm, int meta_graph);
TF_CAPI_EXPORT extern const char* TFC_SavedModelSignatureKey(const TFC_SavedModel* sm, int meta_graph, int sig);
TF_CAPI_EXPORT extern const char* TFC_SavedModelSignatureMethod(const TFC_SavedModel* sm, int meta_graph,
                                                                int sig);
TF_CAPI_EXPORT extern int TFC_SavedModelFindSignature(const TFC_SavedModel* sm, int meta_graph, const char* key);
TF_CAPI_EXPORT extern int TFC_SavedModelSignatureNumTensors(const TFC_SavedModel* sm, int meta_graph, int sig,
                                                            int is_output);
TF_CAPI_EXPORT extern int TFC_SavedModelSignatureTensor(const TFC_SavedModel* sm, int meta_graph, int sig,
                                                        int is_output, int i, TFC_SignatureTensor* out);
/* Dim d of that tensor's shape: its size, -1 when unknown (or out of range). */
TF_CAPI_EXPORT extern int64_t TFC_SavedModelSignatureTensorDim(const TFC_SavedModel* sm, int meta_graph, int sig,
                                                               int is_output, int i, int d);

/* A signature to write: inputs[i] under input_keys[i], outputs likewise; the dtype and shape
 * of each TensorInfo are the graph's (TF_OperationOutputType, TF_GraphGetTensorShape).
 * method_name NULL: "tensorflow/serving/predict" (predict_signature_def's). */
typedef struct TFC_SignatureSpec {
  const char* key; /* e.g. "serving_default" */
  const char* method_name;
  int num_inputs;
  const char* const* input_keys;
  const TF_Output* inputs;
  int num_outputs;
  const char* const* output_keys;
  const TF_Output* outputs;
} TFC_SignatureSpec;

/* What one MetaGraphDef holds besides its graph and SaverDef: tags (at least one, none empty),
 * signatures, the main op's name (NULL: none) and the asset tensors: string scalar Consts whose
 * values are the files' paths (TF's assets_collection, e.g. the ASSET_FILEPATHS collection).
 * add_collections (NULL: none), called with add_collections_arg on the exported MetaGraphDef
 * before the SavedModel's own collections go in, adds collections the client holds itself
 * (TFC_MetaGraphAdd*List; an error it sets fails the call). */
typedef struct TFC_SavedModelMetaGraphSpec {
  const char* const* tags;
  int num_tags;
  const TFC_SignatureSpec* signatures;
  int num_signatures;
  const char* main_op;
  const TF_Output* assets;
  int num_assets;
  void (*add_collections)(TFC_MetaGraph* mg, void* arg, TF_Status* status);
  void* add_collections_arg;
} TFC_SavedModelMetaGraphSpec;

typedef struct TFC_SavedModelBuilder TFC_SavedModelBuilder;

/* SavedModelBuilder(export_dir): creates export_dir (and its parents). ALREADY_EXISTS "Export
 * directory <dir> already exists, and isn't empty. Please choose a different export directory,
 * or delete all the contents of the specified directory."; the file system's errors. The
 * builder is the caller's (TFC_DeleteSavedModelBuilder, NULL: no-op); NULL on error. */
TF_CAPI_EXPORT extern TFC_SavedModelBuilder* TFC_NewSavedModelBuilder(const char* export_dir, TF_Status* status);
TF_CAPI_EXPORT extern void TFC_DeleteSavedModelBuilder(TFC_SavedModelBuilder* b);

/* add_meta_graph_and_variables(session, spec..., saver=saver, clear_devices=True): the first
 * MetaGraphDef; saves the variables with saver (NULL: a new saver over the graph's global
 * variables, as TF's builder makes; none when the graph has none) to
 * "<export_dir>/variables/variables" and copies the asset files to "<export_dir>/assets/" (a
 * basename already used in the same call by another file with other contents gets "_1", ...;
 * a missing source file is skipped, as TF does, and loading then fails naming it).
 * TFC_SavedModelBuilderAddMetaGraph (add_meta_graph) adds another MetaGraphDef of graph (the
 * same graph or another whose saver restores the same checkpoint) without saving variables;
 * saver NULL makes a new one, whose nodes go into graph. Each MetaGraphDef gets the main op and
 * assets of its own call. Errors: FAILED_PRECONDITION "Graph state including variables and
 * assets has already been saved. Please invoke `add_meta_graph()` instead." (a second
 * AddMetaGraphAndVariables) or "... has not been saved yet. Please invoke
 * `add_meta_graph_and_variables()` first." (AddMetaGraph first); INVALID_ARGUMENT for the
 * spec's faults (as TFC_SaveSavedModel's) and for an asset tensor that is not a string scalar
 * Const ("Asset path tensor <name> must be of type constant.Has type <op> instead.", "... must
 * be a scalar."); the saver's and the file system's errors (naming the file). The session,
 * graph, saver and spec are borrowed for the call. Returns 1 on success, 0 on error. */
TF_CAPI_EXPORT extern int TFC_SavedModelBuilderAddMetaGraphAndVariables(TFC_SavedModelBuilder* b,
                                                                        TF_Session* session, TF_Graph* graph,
                                                                        TFC_Saver* saver,
                                                                        const TFC_SavedModelMetaGraphSpec* spec,
                                                                        TF_Status* status);
TF_CAPI_EXPORT extern int TFC_SavedModelBuilderAddMetaGraph(TFC_SavedModelBuilder* b, TF_Graph* graph,
                                                            TFC_Saver* saver,
                                                            const TFC_SavedModelMetaGraphSpec* spec,
                                                            TF_Status* status);
/* save(as_text): writes the MetaGraphDefs added so far to saved_model.pb, or as text to
 * saved_model.pbtxt (TF's text format; tfc and TF read either). May be called again after more
 * MetaGraphDefs are added. The file system's errors naming the file. 1 on success, 0 on error. */
TF_CAPI_EXPORT extern int TFC_SavedModelBuilderSave(TFC_SavedModelBuilder* b, int as_text, TF_Status* status);

/* SavedModelBuilder(export_dir).add_meta_graph_and_variables(session, tags, signatures,
 * main_op=main_op, saver=saver, clear_devices=True) then save(): creates export_dir (and its
 * parents), saves the variables with saver (NULL: a new saver over the graph's global
 * variables, as TF's builder makes; none when the graph has none) to
 * "<export_dir>/variables/variables", and writes saved_model.pb. main_op NULL: none.
 * Errors: ALREADY_EXISTS "Export directory <dir> already exists, and isn't empty. Please choose
 * a different export directory, or delete all the contents of the specified directory.";
 * INVALID_ARGUMENT for no tags, an empty or repeated signature key, a reserved one
 * ("__saved_model_init_op", "__saved_model_train_op"), a NULL output or a main op not in the
 * graph (naming it); the saver's and the file system's errors (naming the file). A failed
 * call may leave a partial directory. Returns 1 on success, 0 on error. */
TF_CAPI_EXPORT extern int TFC_SaveSavedModel(TF_Session* session, TF_Graph* graph, TFC_Saver* saver,
                                            const char* export_dir, const char* const* tags, int num_tags,
                                            const TFC_SignatureSpec* signatures, int num_signatures,
                                            const char* main_op, TF_Status* status);

#ifdef __cplusplus
}
#endif

#endif
