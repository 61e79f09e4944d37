/*
 * saved_model.h — SavedModel directories for C beyond TF_LoadSessionFromSavedModel (c_api.h):
 * reading what a saved_model.pb holds (tag sets, signatures: what `saved_model_cli show`
 * prints) and writing one from a session (tf.compat.v1.saved_model.Builder's
 * add_meta_graph_and_variables + save, simple_save).
 *
 * A SavedModel directory (TF's layout) holds saved_model.pb (a SavedModel message: one
 * MetaGraphDef per tag set, each with its signatures: named maps of input and output tensors
 * and a method name) and variables/variables.{index,data-00000-of-00001} (a V2 checkpoint).
 *
 * TFC_SaveSavedModel writes one MetaGraphDef (TFC_ExportMetaGraph of the graph, devices
 * cleared, with the tags, the signatures and the SaverDef), and the variables through a saver
 * (a V2 checkpoint under the prefix "<dir>/variables/variables", no state file, no .meta), as
 * TF's builder does; TensorFlow's loaders (tf.compat.v1.saved_model.loader.load, the C/C++
 * LoadSessionFromSavedModel) read the result, and so does TF_LoadSessionFromSavedModel. The
 * main op, when given, goes into the "saved_model_main_op" collection and runs after the
 * restore at load time.
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

/* Reads <export_dir>/saved_model.pb. NOT_FOUND "Could not find SavedModel .pb or .pbtxt at
 * supplied export directory path: <dir>" when there is neither it nor a saved_model.pbtxt;
 * UNIMPLEMENTED naming the file when there is only the text form; DATA_LOSS "Can't parse
 * <dir>/saved_model.pb as binary proto" when it is not a SavedModel. NULL on error. */
TF_CAPI_EXPORT extern TFC_SavedModel* TFC_ReadSavedModel(const char* export_dir, TF_Status* status);
TF_CAPI_EXPORT extern void TFC_DeleteSavedModel(TFC_SavedModel* sm); /* NULL: no-op */

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
