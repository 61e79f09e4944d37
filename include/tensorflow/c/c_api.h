/*
 * c_api.h — the TensorFlow 1.15 C API as implemented by tfc.
 *
 * Conventions (the same as TensorFlow's):
 *  - Every object is an opaque pointer created and freed by the API. Delete functions accept
 *    NULL. Objects are not thread-safe unless a comment says so; TF_Session is.
 *  - Every call taking a TF_Status* clears it on success and fills code + message on failure.
 *    Out-parameters are left unspecified on failure unless documented otherwise.
 *  - Booleans are unsigned char; byte sizes are size_t; array indexes and counts are int.
 *  - One session has one graph; nodes may be added to the graph after the session exists.
 *  - Strings passed in are copied unless a comment says the pointer is kept.
 */
#ifndef TENSORFLOW_C_C_API_H_
#define TENSORFLOW_C_C_API_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/tf_attrtype.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"

#ifndef TF_CAPI_EXPORT
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* --------------------------------------------------------------------------
 * Version. */

/* The version of the TensorFlow API implemented: "1.15.0". Static storage. */
TF_CAPI_EXPORT extern const char* TF_Version(void);

/* --------------------------------------------------------------------------
 * TF_Buffer: a block of bytes, usually a serialized protocol buffer. A public struct: callers
 * may fill it by hand. data_deallocator, when set, is called by TF_DeleteBuffer. */

typedef struct TF_Buffer {
  const void* data;
  size_t length;
  void (*data_deallocator)(void* data, size_t length);
} TF_Buffer;

/* A new buffer holding a copy of proto[0, proto_len). Caller owns; TF_DeleteBuffer frees. */
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBufferFromString(const void* proto, size_t proto_len);

/* A new empty buffer, typically filled by an API call as an output. Caller owns. */
TF_CAPI_EXPORT extern TF_Buffer* TF_NewBuffer(void);

/* Calls data_deallocator (if set) on the contents, then frees the struct. NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteBuffer(TF_Buffer*);

/* A copy of the struct (the data is not copied; it stays owned by buffer). */
TF_CAPI_EXPORT extern TF_Buffer TF_GetBuffer(TF_Buffer* buffer);

/* --------------------------------------------------------------------------
 * TF_Tensor: an n-dimensional array of one element type.
 *
 * TF_STRING tensors use this layout: an array of uint64 offsets (one per element) followed by
 * a data region; element i starts at data_region + offsets[i] and is a varint64 length
 * followed by that many bytes (see TF_StringEncode). Offsets are relative to the start of the
 * data region. */

typedef struct TF_Tensor TF_Tensor;

/* A tensor over caller memory data[0, len). The tensor takes ownership: deallocator(data,
 * len, deallocator_arg) runs when the tensor is deleted. Returns NULL (after invoking the
 * deallocator) when len is less than the dtype and dims need, or the dims are invalid. When data is not 64-byte aligned
 * it is copied into aligned memory and the deallocator runs at once. Caller owns the
 * result; free with TF_DeleteTensor. */
TF_CAPI_EXPORT extern TF_Tensor* TF_NewTensor(
    TF_DataType, const int64_t* dims, int num_dims, void* data, size_t len,
    void (*deallocator)(void* data, size_t len, void* arg), void* deallocator_arg);

/* A tensor with len bytes of uninitialized, aligned memory owned by the tensor; write it via
 * TF_TensorData. NULL when len is less than the dtype and dims need (TF_STRING: any len). */
TF_CAPI_EXPORT extern TF_Tensor* TF_AllocateTensor(TF_DataType, const int64_t* dims,
                                                   int num_dims, size_t len);

/* If tensor is the sole owner of memory the runtime allocated, deletes tensor and returns a
 * tensor with the same content (the caller owns it); otherwise returns NULL and leaves tensor
 * untouched. */
TF_CAPI_EXPORT extern TF_Tensor* TF_TensorMaybeMove(TF_Tensor* tensor);

/* Frees a tensor; the memory is released when no other tensor shares it. NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteTensor(TF_Tensor*);

/* The element type. */
TF_CAPI_EXPORT extern TF_DataType TF_TensorType(const TF_Tensor*);

/* The number of dimensions (0 for a scalar). */
TF_CAPI_EXPORT extern int TF_NumDims(const TF_Tensor*);

/* The size of dimension dim_index; dim_index must be in [0, TF_NumDims). */
TF_CAPI_EXPORT extern int64_t TF_Dim(const TF_Tensor* tensor, int dim_index);

/* The size of the tensor's data in bytes (the len it was created with). */
TF_CAPI_EXPORT extern size_t TF_TensorByteSize(const TF_Tensor*);

/* The tensor's data, owned by the tensor; 64-byte aligned. Valid until it is deleted. */
TF_CAPI_EXPORT extern void* TF_TensorData(const TF_Tensor*);

/* The number of elements (the product of the dims; 1 for a scalar). */
TF_CAPI_EXPORT extern int64_t TF_TensorElementCount(const TF_Tensor* tensor);

/* Makes `to` share `from`'s memory, viewed as `type` with new_dims. The byte sizes must
 * agree (INVALID_ARGUMENT otherwise; `to` is then unchanged). */
TF_CAPI_EXPORT extern void TF_TensorBitcastFrom(const TF_Tensor* from, TF_DataType type,
                                                TF_Tensor* to, const int64_t* new_dims,
                                                int num_new_dims, TF_Status* status);

/* --------------------------------------------------------------------------
 * Encoding of TF_STRING elements. */

/* Writes src[0, src_len) into dst as a varint64 length followed by the bytes. Returns the
 * bytes written; on error (dst_len < TF_StringEncodedSize(src_len)) sets
 * INVALID_ARGUMENT and returns 0. */
TF_CAPI_EXPORT extern size_t TF_StringEncode(const char* src, size_t src_len, char* dst,
                                             size_t dst_len, TF_Status* status);

/* Decodes one encoded string from src[0, src_len): *dst points into src (borrowed) and
 * *dst_len is its length. Returns the bytes consumed; on malformed input sets
 * INVALID_ARGUMENT and returns 0. */
TF_CAPI_EXPORT extern size_t TF_StringDecode(const char* src, size_t src_len,
                                             const char** dst, size_t* dst_len,
                                             TF_Status* status);

/* The bytes TF_StringEncode needs for a string of len bytes. */
TF_CAPI_EXPORT extern size_t TF_StringEncodedSize(size_t len);

/* --------------------------------------------------------------------------
 * TF_SessionOptions: how to create a session. */

typedef struct TF_SessionOptions TF_SessionOptions;

/* New options with defaults (in-process target, default ConfigProto). Caller owns. */
TF_CAPI_EXPORT extern TF_SessionOptions* TF_NewSessionOptions(void);

/* The target: "" or "local" for in-process, "grpc://host:port" for a server. Copied. */
TF_CAPI_EXPORT extern void TF_SetTarget(TF_SessionOptions* options, const char* target);

/* Sets the config from a serialized ConfigProto (copied). INVALID_ARGUMENT "Unparseable
 * ConfigProto" when it does not parse; the options are then unchanged. */
TF_CAPI_EXPORT extern void TF_SetConfig(TF_SessionOptions* options, const void* proto,
                                        size_t proto_len, TF_Status* status);

/* Frees options; NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteSessionOptions(TF_SessionOptions*);

/* --------------------------------------------------------------------------
 * TF_Graph: a dataflow graph. Thread-safe: operations may be added and queried from several
 * threads. */

typedef struct TF_Graph TF_Graph;

/* A new empty graph. Caller owns; free with TF_DeleteGraph. */
TF_CAPI_EXPORT extern TF_Graph* TF_NewGraph(void);

/* Frees a graph. A graph still used by sessions is freed when the last of them is deleted.
 * NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteGraph(TF_Graph*);

/* An operation under construction (from TF_NewOperation until TF_FinishOperation). */
typedef struct TF_OperationDescription TF_OperationDescription;

/* An operation in a graph; owned by the graph, valid until the graph is freed. */
typedef struct TF_Operation TF_Operation;

/* A specific input of an operation. */
typedef struct TF_Input {
  TF_Operation* oper;
  int index; /* The index of the input within oper. */
} TF_Input;

/* A specific output of an operation. */
typedef struct TF_Output {
  TF_Operation* oper;
  int index; /* The index of the output within oper. */
} TF_Output;

/* A function defined by a graph (see TF_GraphToFunction). */
typedef struct TF_Function TF_Function;

/* Options for TF_GraphToFunction (none defined yet; pass NULL). */
typedef struct TF_FunctionOptions TF_FunctionOptions;

/* Merges dims[0, num_dims) into the known shape of output (num_dims -1: unknown rank; a dim
 * of -1: unknown size). INVALID_ARGUMENT when incompatible with what is known or for a bad
 * output index. */
TF_CAPI_EXPORT extern void TF_GraphSetTensorShape(TF_Graph* graph, TF_Output output,
                                                  const int64_t* dims, const int num_dims,
                                                  TF_Status* status);

/* The rank of output's known shape, or -1 when the rank is unknown. */
TF_CAPI_EXPORT extern int TF_GraphGetTensorNumDims(TF_Graph* graph, TF_Output output,
                                                   TF_Status* status);

/* Writes output's known dims (-1 for unknown sizes) to dims[0, num_dims). num_dims must equal
 * TF_GraphGetTensorNumDims (INVALID_ARGUMENT otherwise). */
TF_CAPI_EXPORT extern void TF_GraphGetTensorShape(TF_Graph* graph, TF_Output output,
                                                  int64_t* dims, int num_dims,
                                                  TF_Status* status);

/* Starts an operation of type op_type named oper_name in graph (both copied). Complete it
 * with TF_FinishOperation, which frees the description. */
TF_CAPI_EXPORT extern TF_OperationDescription* TF_NewOperation(TF_Graph* graph,
                                                               const char* op_type,
                                                               const char* oper_name);

/* The requested device, e.g. "/device:CPU:0" ("" = any). Copied. */
TF_CAPI_EXPORT extern void TF_SetDevice(TF_OperationDescription* desc, const char* device);

/* Adds the next input, for an op argument that is a single tensor. Inputs must be added in
 * the op's argument order. */
TF_CAPI_EXPORT extern void TF_AddInput(TF_OperationDescription* desc, TF_Output input);

/* Adds a whole list argument (an arg of N tensors or a type list) at once. */
TF_CAPI_EXPORT extern void TF_AddInputList(TF_OperationDescription* desc,
                                           const TF_Output* inputs, int num_inputs);

/* The new operation runs only after `input` (a control edge). */
TF_CAPI_EXPORT extern void TF_AddControlInput(TF_OperationDescription* desc,
                                              TF_Operation* input);

/* Requests the same device as op: appends "loc:@<op name>" to the _class attr. */
TF_CAPI_EXPORT extern void TF_ColocateWith(TF_OperationDescription* desc, TF_Operation* op);

/* Attr setters. Values are copied. Setting an attr twice keeps the last value. Errors
 * (wrong kind for the op's attr, bad values) are reported by TF_FinishOperation. */

/* A string attr of `length` bytes (may contain NULs). */
TF_CAPI_EXPORT extern void TF_SetAttrString(TF_OperationDescription* desc,
                                            const char* attr_name, const void* value,
                                            size_t length);
/* A list(string) attr: values[i] holds lengths[i] bytes. */
TF_CAPI_EXPORT extern void TF_SetAttrStringList(TF_OperationDescription* desc,
                                                const char* attr_name,
                                                const void* const* values,
                                                const size_t* lengths, int num_values);
/* An int attr. */
TF_CAPI_EXPORT extern void TF_SetAttrInt(TF_OperationDescription* desc, const char* attr_name,
                                         int64_t value);
/* A list(int) attr of num_values values (0: an empty list). */
TF_CAPI_EXPORT extern void TF_SetAttrIntList(TF_OperationDescription* desc,
                                             const char* attr_name, const int64_t* values,
                                             int num_values);
/* A float attr. */
TF_CAPI_EXPORT extern void TF_SetAttrFloat(TF_OperationDescription* desc,
                                           const char* attr_name, float value);
/* A list(float) attr. */
TF_CAPI_EXPORT extern void TF_SetAttrFloatList(TF_OperationDescription* desc,
                                               const char* attr_name, const float* values,
                                               int num_values);
/* A bool attr (nonzero is true). */
TF_CAPI_EXPORT extern void TF_SetAttrBool(TF_OperationDescription* desc,
                                          const char* attr_name, unsigned char value);
/* A list(bool) attr (nonzero is true). */
TF_CAPI_EXPORT extern void TF_SetAttrBoolList(TF_OperationDescription* desc,
                                              const char* attr_name,
                                              const unsigned char* values, int num_values);
/* A type attr. Type attrs of input args are inferred from the inputs when not set. */
TF_CAPI_EXPORT extern void TF_SetAttrType(TF_OperationDescription* desc,
                                          const char* attr_name, TF_DataType value);
/* A list(type) attr. */
TF_CAPI_EXPORT extern void TF_SetAttrTypeList(TF_OperationDescription* desc,
                                              const char* attr_name, const TF_DataType* values,
                                              int num_values);
/* The attr refers to the enclosing function's attr named `placeholder`. */
TF_CAPI_EXPORT extern void TF_SetAttrPlaceholder(TF_OperationDescription* desc,
                                                 const char* attr_name,
                                                 const char* placeholder);
/* A func attr naming function value[0, length) with no attrs. */
TF_CAPI_EXPORT extern void TF_SetAttrFuncName(TF_OperationDescription* desc,
                                              const char* attr_name, const char* value,
                                              size_t length);
/* A shape attr: num_dims -1 means unknown rank; a dim of -1 means unknown size. */
TF_CAPI_EXPORT extern void TF_SetAttrShape(TF_OperationDescription* desc,
                                           const char* attr_name, const int64_t* dims,
                                           int num_dims);
/* A list of shapes: dims[i] has num_dims[i] entries (-1: unknown rank, dims[i] ignored). */
TF_CAPI_EXPORT extern void TF_SetAttrShapeList(TF_OperationDescription* desc,
                                               const char* attr_name,
                                               const int64_t* const* dims,
                                               const int* num_dims, int num_shapes);
/* A shape attr from a serialized TensorShapeProto; INVALID_ARGUMENT if it does not parse. */
TF_CAPI_EXPORT extern void TF_SetAttrTensorShapeProto(TF_OperationDescription* desc,
                                                      const char* attr_name,
                                                      const void* proto, size_t proto_len,
                                                      TF_Status* status);
/* A list(shape) attr from serialized TensorShapeProtos; INVALID_ARGUMENT if one does not
 * parse. */
TF_CAPI_EXPORT extern void TF_SetAttrTensorShapeProtoList(TF_OperationDescription* desc,
                                                          const char* attr_name,
                                                          const void* const* protos,
                                                          const size_t* proto_lens,
                                                          int num_shapes, TF_Status* status);
/* A tensor attr; the value is copied (the caller keeps ownership of value). */
TF_CAPI_EXPORT extern void TF_SetAttrTensor(TF_OperationDescription* desc,
                                            const char* attr_name, TF_Tensor* value,
                                            TF_Status* status);
/* A list(tensor) attr; each value is copied (the caller keeps ownership). */
TF_CAPI_EXPORT extern void TF_SetAttrTensorList(TF_OperationDescription* desc,
                                                const char* attr_name,
                                                TF_Tensor* const* values, int num_values,
                                                TF_Status* status);
/* An attr from a serialized AttrValue; INVALID_ARGUMENT if it does not parse. */
TF_CAPI_EXPORT extern void TF_SetAttrValueProto(TF_OperationDescription* desc,
                                                const char* attr_name, const void* proto,
                                                size_t proto_len, TF_Status* status);

/* Validates the description against the op's definition, fills attr defaults, infers
 * output shapes and adds the operation to the graph. Always frees desc. On error returns
 * NULL and leaves the graph unchanged: NOT_FOUND for an unknown op type, INVALID_ARGUMENT
 * for bad inputs/attrs or a duplicate name. The result is owned by the graph. */
TF_CAPI_EXPORT extern TF_Operation* TF_FinishOperation(TF_OperationDescription* desc,
                                                       TF_Status* status);

/* --------------------------------------------------------------------------
 * Operation queries. Returned strings are owned by the operation (valid while the graph
 * lives). */

/* The operation's name. */
TF_CAPI_EXPORT extern const char* TF_OperationName(TF_Operation* oper);
/* The operation's op type, e.g. "MatMul". */
TF_CAPI_EXPORT extern const char* TF_OperationOpType(TF_Operation* oper);
/* The requested device ("" when none). */
TF_CAPI_EXPORT extern const char* TF_OperationDevice(TF_Operation* oper);

/* The number of outputs (list args count each tensor). */
TF_CAPI_EXPORT extern int TF_OperationNumOutputs(TF_Operation* oper);
/* The output's type; a reference type (base + 100) for ref outputs. */
TF_CAPI_EXPORT extern TF_DataType TF_OperationOutputType(TF_Output oper_out);
/* The number of outputs of the output argument arg_name; INVALID_ARGUMENT if no such arg. */
TF_CAPI_EXPORT extern int TF_OperationOutputListLength(TF_Operation* oper,
                                                       const char* arg_name,
                                                       TF_Status* status);

/* The number of data inputs (control inputs excluded). */
TF_CAPI_EXPORT extern int TF_OperationNumInputs(TF_Operation* oper);
/* The type the input's argument expects (a reference type for ref args). */
TF_CAPI_EXPORT extern TF_DataType TF_OperationInputType(TF_Input oper_in);
/* The number of inputs of the input argument arg_name; INVALID_ARGUMENT if no such arg. */
TF_CAPI_EXPORT extern int TF_OperationInputListLength(TF_Operation* oper,
                                                      const char* arg_name,
                                                      TF_Status* status);

/* The output feeding oper_in; oper_in.index must be in [0, TF_OperationNumInputs). */
TF_CAPI_EXPORT extern TF_Output TF_OperationInput(TF_Input oper_in);

/* Writes the outputs feeding each input of oper to inputs[0, max_inputs); max_inputs must
 * equal TF_OperationNumInputs(oper). */
TF_CAPI_EXPORT extern void TF_OperationAllInputs(TF_Operation* oper, TF_Output* inputs,
                                                 int max_inputs);

/* The number of inputs (of any operation) fed by oper_out. */
TF_CAPI_EXPORT extern int TF_OperationOutputNumConsumers(TF_Output oper_out);

/* Writes up to max_consumers consumers of oper_out; returns the total number of consumers
 * (which may exceed max_consumers). */
TF_CAPI_EXPORT extern int TF_OperationOutputConsumers(TF_Output oper_out, TF_Input* consumers,
                                                      int max_consumers);

/* The number of control inputs. */
TF_CAPI_EXPORT extern int TF_OperationNumControlInputs(TF_Operation* oper);
/* Writes up to max_control_inputs control inputs; returns the total number of control
 * inputs (which may exceed max_control_inputs). */
TF_CAPI_EXPORT extern int TF_OperationGetControlInputs(TF_Operation* oper,
                                                       TF_Operation** control_inputs,
                                                       int max_control_inputs);

/* The number of operations with a control edge from oper. */
TF_CAPI_EXPORT extern int TF_OperationNumControlOutputs(TF_Operation* oper);
/* Writes up to max_control_outputs control outputs; returns the total number (which may
 * exceed max_control_outputs). */
TF_CAPI_EXPORT extern int TF_OperationGetControlOutputs(TF_Operation* oper,
                                                        TF_Operation** control_outputs,
                                                        int max_control_outputs);

/* Describes the value of an attr, so callers can size the buffers of the getters. */
typedef struct TF_AttrMetadata {
  /* A boolean: 1 if the attr is a list, 0 otherwise. */
  unsigned char is_list;
  /* The number of list elements when is_list, -1 otherwise. */
  int64_t list_size;
  /* The kind of the value (of each element when is_list). */
  TF_AttrType type;
  /* STRING: bytes of the value (sum over the list); SHAPE: number of dims (-1 unknown rank;
   * sum of known ranks over a list); TENSOR, FUNC and others: -1. */
  int64_t total_size;
} TF_AttrMetadata;

/* Metadata of attr attr_name; INVALID_ARGUMENT "Operation '<op>' has no attr named '<a>'."
 * when absent. */
TF_CAPI_EXPORT extern TF_AttrMetadata TF_OperationGetAttrMetadata(TF_Operation* oper,
                                                                  const char* attr_name,
                                                                  TF_Status* status);

/* Attr getters. Each fails with INVALID_ARGUMENT when the attr is absent or of another kind.
 * List getters write at most max_values entries. */

/* Copies up to max_length bytes of a string attr into value (not NUL-terminated). */
TF_CAPI_EXPORT extern void TF_OperationGetAttrString(TF_Operation* oper, const char* attr_name,
                                                     void* value, size_t max_length,
                                                     TF_Status* status);
/* Copies the strings into storage[0, storage_size) and points values[i] into it, with
 * lengths[i]; INVALID_ARGUMENT when storage is too small (see metadata total_size). */
TF_CAPI_EXPORT extern void TF_OperationGetAttrStringList(TF_Operation* oper,
                                                         const char* attr_name, void** values,
                                                         size_t* lengths, int max_values,
                                                         void* storage, size_t storage_size,
                                                         TF_Status* status);
/* Reads an int attr; NOT_FOUND when absent, INVALID_ARGUMENT for another kind. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrInt(TF_Operation* oper, const char* attr_name,
                                                  int64_t* value, TF_Status* status);
/* Writes up to max_values elements of a list(int) attr. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrIntList(TF_Operation* oper,
                                                      const char* attr_name, int64_t* values,
                                                      int max_values, TF_Status* status);
/* Reads a float attr; NOT_FOUND when absent, INVALID_ARGUMENT for another kind. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrFloat(TF_Operation* oper, const char* attr_name,
                                                    float* value, TF_Status* status);
/* Writes up to max_values elements of a list(float) attr. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrFloatList(TF_Operation* oper,
                                                        const char* attr_name, float* values,
                                                        int max_values, TF_Status* status);
/* Reads a bool attr as 0 or 1; NOT_FOUND when absent, INVALID_ARGUMENT for another kind. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrBool(TF_Operation* oper, const char* attr_name,
                                                   unsigned char* value, TF_Status* status);
/* Writes up to max_values elements of a list(bool) attr (0 or 1). */
TF_CAPI_EXPORT extern void TF_OperationGetAttrBoolList(TF_Operation* oper,
                                                       const char* attr_name,
                                                       unsigned char* values, int max_values,
                                                       TF_Status* status);
/* Reads a type attr; NOT_FOUND when absent, INVALID_ARGUMENT for another kind. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrType(TF_Operation* oper, const char* attr_name,
                                                   TF_DataType* value, TF_Status* status);
/* Writes up to max_values elements of a list(type) attr. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrTypeList(TF_Operation* oper,
                                                       const char* attr_name,
                                                       TF_DataType* values, int max_values,
                                                       TF_Status* status);
/* Writes up to num_dims dims of a shape attr (num_dims from metadata total_size). */
TF_CAPI_EXPORT extern void TF_OperationGetAttrShape(TF_Operation* oper, const char* attr_name,
                                                    int64_t* value, int num_dims,
                                                    TF_Status* status);
/* For each of up to num_shapes shapes: num_dims[i] = rank (-1 unknown) and dims[i] points
 * into storage[0, storage_size) where its dims were copied (storage_size counts int64_t
 * elements). INVALID_ARGUMENT when storage is too small. */
TF_CAPI_EXPORT extern void TF_OperationGetAttrShapeList(TF_Operation* oper,
                                                        const char* attr_name, int64_t** dims,
                                                        int* num_dims, int num_shapes,
                                                        int64_t* storage, int storage_size,
                                                        TF_Status* status);
/* Serializes a shape attr as a TensorShapeProto into value (caller owns the buffer). */
TF_CAPI_EXPORT extern void TF_OperationGetAttrTensorShapeProto(TF_Operation* oper,
                                                               const char* attr_name,
                                                               TF_Buffer* value,
                                                               TF_Status* status);
/* values[i] = a new TF_Buffer holding shape i as a TensorShapeProto (caller frees each). */
TF_CAPI_EXPORT extern void TF_OperationGetAttrTensorShapeProtoList(TF_Operation* oper,
                                                                   const char* attr_name,
                                                                   TF_Buffer** values,
                                                                   int max_values,
                                                                   TF_Status* status);
/* *value = a new tensor holding the attr (caller owns; TF_DeleteTensor). */
TF_CAPI_EXPORT extern void TF_OperationGetAttrTensor(TF_Operation* oper, const char* attr_name,
                                                     TF_Tensor** value, TF_Status* status);
/* values[i] = new tensors (caller owns each). */
TF_CAPI_EXPORT extern void TF_OperationGetAttrTensorList(TF_Operation* oper,
                                                         const char* attr_name,
                                                         TF_Tensor** values, int max_values,
                                                         TF_Status* status);
/* Serializes the attr as an AttrValue into output_attr_value (caller owns the buffer). */
TF_CAPI_EXPORT extern void TF_OperationGetAttrValueProto(TF_Operation* oper,
                                                         const char* attr_name,
                                                         TF_Buffer* output_attr_value,
                                                         TF_Status* status);

/* The operation named oper_name, or NULL. Owned by the graph. */
TF_CAPI_EXPORT extern TF_Operation* TF_GraphOperationByName(TF_Graph* graph,
                                                            const char* oper_name);

/* Iterates over the graph's operations in creation order: start with *pos = 0; each call
 * returns the next operation and advances *pos, NULL at the end. */
TF_CAPI_EXPORT extern TF_Operation* TF_GraphNextOperation(TF_Graph* graph, size_t* pos);

/* Serializes the graph as a GraphDef into output_graph_def (caller owns the buffer). */
TF_CAPI_EXPORT extern void TF_GraphToGraphDef(TF_Graph* graph, TF_Buffer* output_graph_def,
                                              TF_Status* status);

/* Serializes the OpDef of op_name into output_op_def; NOT_FOUND for an unknown op. */
TF_CAPI_EXPORT extern void TF_GraphGetOpDef(TF_Graph* graph, const char* op_name,
                                            TF_Buffer* output_op_def, TF_Status* status);

/* Serializes the graph's VersionDef into output_version_def. */
TF_CAPI_EXPORT extern void TF_GraphVersions(TF_Graph* graph, TF_Buffer* output_version_def,
                                            TF_Status* status);

/* --------------------------------------------------------------------------
 * Importing a GraphDef. */

typedef struct TF_ImportGraphDefOptions TF_ImportGraphDefOptions;

/* New options with defaults. Caller owns. */
TF_CAPI_EXPORT extern TF_ImportGraphDefOptions* TF_NewImportGraphDefOptions(void);
/* Frees options; NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteImportGraphDefOptions(TF_ImportGraphDefOptions* opts);
/* Prefix prepended to imported node names ("prefix/name"). Copied. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetPrefix(TF_ImportGraphDefOptions* opts,
                                                             const char* prefix);
/* Device given to imported nodes that request none. Copied. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetDefaultDevice(
    TF_ImportGraphDefOptions* opts, const char* device);
/* If true, imported names that clash with existing ones are made unique. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetUniquifyNames(
    TF_ImportGraphDefOptions* opts, unsigned char uniquify_names);
/* If true, the prefix itself is made unique when it clashes with an existing name. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetUniquifyPrefix(
    TF_ImportGraphDefOptions* opts, unsigned char uniquify_prefix);
/* Replaces uses of src_name:src_index in the GraphDef with dst (an existing output). */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsAddInputMapping(
    TF_ImportGraphDefOptions* opts, const char* src_name, int src_index, TF_Output dst);
/* Replaces control uses of src_name in the GraphDef with dst. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsRemapControlDependency(
    TF_ImportGraphDefOptions* opts, const char* src_name, TF_Operation* dst);
/* Adds a control edge from oper to every imported node without inputs. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsAddControlDependency(
    TF_ImportGraphDefOptions* opts, TF_Operation* oper);
/* Requests output oper_name:index of the GraphDef be returned by the import. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsAddReturnOutput(
    TF_ImportGraphDefOptions* opts, const char* oper_name, int index);
/* The number of return outputs requested so far. */
TF_CAPI_EXPORT extern int TF_ImportGraphDefOptionsNumReturnOutputs(
    const TF_ImportGraphDefOptions* opts);
/* Requests operation oper_name of the GraphDef be returned by the import. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsAddReturnOperation(
    TF_ImportGraphDefOptions* opts, const char* oper_name);
/* The number of return operations requested so far. */
TF_CAPI_EXPORT extern int TF_ImportGraphDefOptionsNumReturnOperations(
    const TF_ImportGraphDefOptions* opts);

/* The results of TF_GraphImportGraphDefWithResults. */
typedef struct TF_ImportGraphDefResults TF_ImportGraphDefResults;

/* *outputs: the requested return outputs, owned by results. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefResultsReturnOutputs(
    TF_ImportGraphDefResults* results, int* num_outputs, TF_Output** outputs);
/* *opers: the requested return operations, owned by results. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefResultsReturnOperations(
    TF_ImportGraphDefResults* results, int* num_opers, TF_Operation*** opers);
/* Input mappings whose source was not found in the GraphDef; arrays owned by results. */
TF_CAPI_EXPORT extern void TF_ImportGraphDefResultsMissingUnusedInputMappings(
    TF_ImportGraphDefResults* results, int* num_missing_unused_input_mappings,
    const char*** src_names, int** src_indexes);
/* Frees results; NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteImportGraphDefResults(TF_ImportGraphDefResults* results);

/* Imports graph_def into graph. On success returns new results (caller owns); on error
 * returns NULL and the graph is unchanged. */
TF_CAPI_EXPORT extern TF_ImportGraphDefResults* TF_GraphImportGraphDefWithResults(
    TF_Graph* graph, const TF_Buffer* graph_def, const TF_ImportGraphDefOptions* options,
    TF_Status* status);

/* Imports graph_def and writes the requested return outputs to return_outputs;
 * num_return_outputs must equal TF_ImportGraphDefOptionsNumReturnOutputs(options). */
TF_CAPI_EXPORT extern void TF_GraphImportGraphDefWithReturnOutputs(
    TF_Graph* graph, const TF_Buffer* graph_def, const TF_ImportGraphDefOptions* options,
    TF_Output* return_outputs, int num_return_outputs, TF_Status* status);

/* Imports graph_def into graph; on error the graph is unchanged. */
TF_CAPI_EXPORT extern void TF_GraphImportGraphDef(TF_Graph* graph, const TF_Buffer* graph_def,
                                                  const TF_ImportGraphDefOptions* options,
                                                  TF_Status* status);

/* Adds func (and its gradient grad, may be NULL) to graph's function library. */
TF_CAPI_EXPORT extern void TF_GraphCopyFunction(TF_Graph* g, const TF_Function* func,
                                                const TF_Function* grad, TF_Status* status);

/* The number of functions in graph's library. */
TF_CAPI_EXPORT extern int TF_GraphNumFunctions(TF_Graph* g);

/* Writes up to max_func new TF_Function handles (caller deletes each); returns the count. */
TF_CAPI_EXPORT extern int TF_GraphGetFunctions(TF_Graph* g, TF_Function** funcs, int max_func,
                                               TF_Status* status);

/* Serializes oper as a NodeDef into output_node_def (caller owns the buffer). */
TF_CAPI_EXPORT extern void TF_OperationToNodeDef(TF_Operation* oper,
                                                 TF_Buffer* output_node_def,
                                                 TF_Status* status);

/* --------------------------------------------------------------------------
 * While loops. */

typedef struct TF_WhileParams {
  /* The number of inputs to the while loop (the number of loop variables). */
  const int ninputs;

  /* The condition graph: its inputs are cond_inputs[0, ninputs); cond_output must be a
   * scalar boolean computed from them. Owned by the params; valid until TF_FinishWhile or
   * TF_AbortWhile. */
  TF_Graph* const cond_graph;
  const TF_Output* const cond_inputs;
  TF_Output cond_output; /* set by the caller */

  /* The body graph: inputs body_inputs[0, ninputs); the caller sets
   * body_outputs[0, ninputs) to the next values of the loop variables. */
  TF_Graph* const body_graph;
  const TF_Output* const body_inputs;
  TF_Output* const body_outputs;

  /* Unique name prefix for the loop's nodes; set by the caller (may stay NULL). */
  const char* name;
} TF_WhileParams;

/* Starts a while loop over loop variables inputs[0, ninputs). On success the caller builds
 * the cond and body graphs, then calls TF_FinishWhile or TF_AbortWhile. */
TF_CAPI_EXPORT extern TF_WhileParams TF_NewWhile(TF_Graph* g, TF_Output* inputs, int ninputs,
                                                 TF_Status* status);

/* Builds the loop into the outer graph; outputs[0, ninputs) receive the final values. Frees
 * the params' graphs in every case. */
TF_CAPI_EXPORT extern void TF_FinishWhile(const TF_WhileParams* params, TF_Status* status,
                                          TF_Output* outputs);

/* Frees the params' graphs without building the loop. */
TF_CAPI_EXPORT extern void TF_AbortWhile(const TF_WhileParams* params);

/* --------------------------------------------------------------------------
 * Gradients. */

/* Adds operations computing the partial derivatives of sum(y) with respect to x, i.e.
 * dy[i] = d(y[0] + ... + y[ny-1]) / dx[i], seeded with dx (NULL: ones). Node names are under
 * "gradients/", "gradients_1/", ... dy[0, nx) receive the results. */
TF_CAPI_EXPORT extern void TF_AddGradients(TF_Graph* g, TF_Output* y, int ny, TF_Output* x,
                                           int nx, TF_Output* dx, TF_Status* status,
                                           TF_Output* dy);

/* As TF_AddGradients, with the new nodes under prefix (which must not already be used by an
 * operation name; NULL: as TF_AddGradients). */
TF_CAPI_EXPORT extern void TF_AddGradientsWithPrefix(TF_Graph* g, const char* prefix,
                                                     TF_Output* y, int ny, TF_Output* x,
                                                     int nx, TF_Output* dx, TF_Status* status,
                                                     TF_Output* dy);

/* --------------------------------------------------------------------------
 * Functions. */

/* A new function from opers of fn_body (all operations when num_opers is -1), with the given
 * inputs and outputs. Caller owns; NULL on error. */
TF_CAPI_EXPORT extern TF_Function* TF_GraphToFunction(
    const TF_Graph* fn_body, const char* fn_name, unsigned char append_hash_to_fn_name,
    int num_opers, const TF_Operation* const* opers, int ninputs, const TF_Output* inputs,
    int noutputs, const TF_Output* outputs, const char* const* output_names,
    const TF_FunctionOptions* opts, const char* description, TF_Status* status);

/* As TF_GraphToFunction, with control outputs. */
TF_CAPI_EXPORT extern TF_Function* TF_GraphToFunctionWithControlOutputs(
    const TF_Graph* fn_body, const char* fn_name, unsigned char append_hash_to_fn_name,
    int num_opers, const TF_Operation* const* opers, int ninputs, const TF_Output* inputs,
    int noutputs, const TF_Output* outputs, const char* const* output_names,
    int ncontrol_outputs, const TF_Operation* const* control_outputs,
    const char* const* control_output_names, const TF_FunctionOptions* opts,
    const char* description, TF_Status* status);

/* The function's name, owned by func. */
TF_CAPI_EXPORT extern const char* TF_FunctionName(TF_Function* func);

/* Serializes func as a FunctionDef into output_func_def (caller owns the buffer). */
TF_CAPI_EXPORT extern void TF_FunctionToFunctionDef(TF_Function* func,
                                                    TF_Buffer* output_func_def,
                                                    TF_Status* status);

/* A new function from a serialized FunctionDef. Caller owns; NULL on error. */
TF_CAPI_EXPORT extern TF_Function* TF_FunctionImportFunctionDef(const void* proto,
                                                                size_t proto_len,
                                                                TF_Status* status);

/* Sets attr_name of func from a serialized AttrValue. */
TF_CAPI_EXPORT extern void TF_FunctionSetAttrValueProto(TF_Function* func,
                                                        const char* attr_name,
                                                        const void* proto, size_t proto_len,
                                                        TF_Status* status);

/* Serializes attr_name of func as an AttrValue into output_attr_value. */
TF_CAPI_EXPORT extern void TF_FunctionGetAttrValueProto(TF_Function* func,
                                                        const char* attr_name,
                                                        TF_Buffer* output_attr_value,
                                                        TF_Status* status);

/* Frees func; NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteFunction(TF_Function* func);

/* Tries to evaluate output without running a session (constant folding). Returns 1 and sets
 * *result (caller owns) on success; 0 with *result NULL when output is not constant. */
TF_CAPI_EXPORT extern unsigned char TF_TryEvaluateConstant(TF_Graph* graph, TF_Output output,
                                                           TF_Tensor** result,
                                                           TF_Status* status);

/* --------------------------------------------------------------------------
 * Sessions. TF_Session is thread-safe: concurrent TF_SessionRun calls are supported. */

typedef struct TF_Session TF_Session;

/* A new session over graph. The graph is kept alive until the session is deleted; nodes added
 * to it later become visible at the next run. Caller owns; NULL on error. */
TF_CAPI_EXPORT extern TF_Session* TF_NewSession(TF_Graph* graph, const TF_SessionOptions* opts,
                                                TF_Status* status);

/* Loads a SavedModel from export_dir with the given tags into graph and returns a session
 * over it. meta_graph_def (may be NULL) receives the serialized MetaGraphDef. */
TF_CAPI_EXPORT extern TF_Session* TF_LoadSessionFromSavedModel(
    const TF_SessionOptions* session_options, const TF_Buffer* run_options,
    const char* export_dir, const char* const* tags, int tags_len, TF_Graph* graph,
    TF_Buffer* meta_graph_def, TF_Status* status);

/* Closes a session: later runs fail. Contacts remote targets to release their resources. */
TF_CAPI_EXPORT extern void TF_CloseSession(TF_Session*, TF_Status* status);

/* Frees a session (closing it first if needed) and releases its graph. NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteSession(TF_Session*, TF_Status* status);

/* Runs the graph: feeds inputs[i] with input_values[i] (borrowed), computes outputs and runs
 * target_opers. run_options (serialized RunOptions) and run_metadata (receives a serialized
 * RunMetadata) may be NULL. On success output_values[i] are new tensors owned by the caller;
 * on failure they are NULL. */
TF_CAPI_EXPORT extern void TF_SessionRun(
    TF_Session* session,
    /* RunOptions */
    const TF_Buffer* run_options,
    /* Input tensors */
    const TF_Output* inputs, TF_Tensor* const* input_values, int ninputs,
    /* Output tensors */
    const TF_Output* outputs, TF_Tensor** output_values, int noutputs,
    /* Target operations */
    const TF_Operation* const* target_opers, int ntargets,
    /* RunMetadata */
    TF_Buffer* run_metadata,
    /* Output status */
    TF_Status*);

/* Sets up a partial run over the given feeds, fetches and targets. *handle receives a new
 * string owned by the caller (free with TF_DeletePRunHandle). */
TF_CAPI_EXPORT extern void TF_SessionPRunSetup(
    TF_Session*,
    /* Input names */
    const TF_Output* inputs, int ninputs,
    /* Output names */
    const TF_Output* outputs, int noutputs,
    /* Target operations */
    const TF_Operation* const* target_opers, int ntargets,
    /* Output handle */
    const char** handle,
    /* Output status */
    TF_Status*);

/* Continues the partial run `handle` with more feeds and fetches (a subset of those given to
 * setup). Output tensors are owned by the caller. */
TF_CAPI_EXPORT extern void TF_SessionPRun(
    TF_Session*, const char* handle,
    /* Input tensors */
    const TF_Output* inputs, TF_Tensor* const* input_values, int ninputs,
    /* Output tensors */
    const TF_Output* outputs, TF_Tensor** output_values, int noutputs,
    /* Target operations */
    const TF_Operation* const* target_opers, int ntargets,
    /* Output status */
    TF_Status*);

/* Frees a partial-run handle; NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeletePRunHandle(const char* handle);

/* --------------------------------------------------------------------------
 * The deprecated session API: the graph is given as serialized GraphDefs and tensors are
 * named "op:index". */

typedef struct TF_DeprecatedSession TF_DeprecatedSession;

/* A new session with an empty graph. Caller owns; NULL on error. */
TF_CAPI_EXPORT extern TF_DeprecatedSession* TF_NewDeprecatedSession(const TF_SessionOptions*,
                                                                    TF_Status* status);
/* Closes the session: later runs fail. */
TF_CAPI_EXPORT extern void TF_CloseDeprecatedSession(TF_DeprecatedSession*, TF_Status* status);
/* Frees the session; NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteDeprecatedSession(TF_DeprecatedSession*,
                                                      TF_Status* status);
/* Clears the named resource containers (all when ncontainers is 0) on the opt's target. */
TF_CAPI_EXPORT extern void TF_Reset(const TF_SessionOptions* opt, const char** containers,
                                    int ncontainers, TF_Status* status);
/* Adds the nodes of a serialized GraphDef to the session's graph. */
TF_CAPI_EXPORT extern void TF_ExtendGraph(TF_DeprecatedSession*, const void* proto,
                                          size_t proto_len, TF_Status*);

/* Runs the graph with tensors named "op:index". Takes ownership of inputs[] (deleted by the
 * call, even on failure); outputs[] receive new tensors owned by the caller. */
TF_CAPI_EXPORT extern void TF_Run(TF_DeprecatedSession*,
                                  /* RunOptions */
                                  const TF_Buffer* run_options,
                                  /* Input tensors */
                                  const char** input_names, TF_Tensor** inputs, int ninputs,
                                  /* Output tensors */
                                  const char** output_names, TF_Tensor** outputs,
                                  int noutputs,
                                  /* Target nodes */
                                  const char** target_oper_names, int ntargets,
                                  /* RunMetadata */
                                  TF_Buffer* run_metadata,
                                  /* Output status */
                                  TF_Status*);

/* Sets up a partial run; *handle receives a new string (free with TF_DeletePRunHandle). */
TF_CAPI_EXPORT extern void TF_PRunSetup(TF_DeprecatedSession*,
                                        /* Input names */
                                        const char** input_names, int ninputs,
                                        /* Output names */
                                        const char** output_names, int noutputs,
                                        /* Target nodes */
                                        const char** target_oper_names, int ntargets,
                                        /* Output handle */
                                        const char** handle,
                                        /* Output status */
                                        TF_Status*);

/* Continues a partial run. Takes ownership of inputs[] as TF_Run does. */
TF_CAPI_EXPORT extern void TF_PRun(TF_DeprecatedSession*, const char* handle,
                                   /* Input tensors */
                                   const char** input_names, TF_Tensor** inputs, int ninputs,
                                   /* Output tensors */
                                   const char** output_names, TF_Tensor** outputs,
                                   int noutputs,
                                   /* Target nodes */
                                   const char** target_oper_names, int ntargets,
                                   /* Output status */
                                   TF_Status*);

/* --------------------------------------------------------------------------
 * Devices. */

typedef struct TF_DeviceList TF_DeviceList;

/* The devices available to session. Caller owns; free with TF_DeleteDeviceList. */
TF_CAPI_EXPORT extern TF_DeviceList* TF_SessionListDevices(TF_Session* session,
                                                           TF_Status* status);
/* As TF_SessionListDevices, for a deprecated session. Caller owns. */
TF_CAPI_EXPORT extern TF_DeviceList* TF_DeprecatedSessionListDevices(
    TF_DeprecatedSession* session, TF_Status* status);
/* Frees a device list; NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteDeviceList(TF_DeviceList* list);
/* The number of devices in list. */
TF_CAPI_EXPORT extern int TF_DeviceListCount(const TF_DeviceList* list);
/* The full name of device index, e.g. "/job:localhost/replica:0/task:0/device:CPU:0". Owned
 * by list. INVALID_ARGUMENT (and NULL) for a bad index. */
TF_CAPI_EXPORT extern const char* TF_DeviceListName(const TF_DeviceList* list, int index,
                                                    TF_Status* status);
/* The type of device index: "CPU", "GPU". Owned by list. */
TF_CAPI_EXPORT extern const char* TF_DeviceListType(const TF_DeviceList* list, int index,
                                                    TF_Status* status);
/* The memory of device index in bytes; -1 with INVALID_ARGUMENT for a bad index. */
TF_CAPI_EXPORT extern int64_t TF_DeviceListMemoryBytes(const TF_DeviceList* list, int index,
                                                       TF_Status* status);
/* The incarnation number of device index (random, nonzero). */
TF_CAPI_EXPORT extern uint64_t TF_DeviceListIncarnation(const TF_DeviceList* list, int index,
                                                        TF_Status* status);

/* --------------------------------------------------------------------------
 * Op libraries and the op registry. */

typedef struct TF_Library TF_Library;

/* Loads a library of ops and kernels written against tensorflow/c/ops.h and kernels.h (its
 * constructors register them). NOT_FOUND with dlerror()'s text when it does not load; a
 * registration error in it fails the load. Caller owns the handle. TensorFlow's C++ op
 * libraries cannot be loaded. */
TF_CAPI_EXPORT extern TF_Library* TF_LoadLibrary(const char* library_filename,
                                                 TF_Status* status);
/* The serialized OpList of the ops registered by lib_handle; owned by lib_handle. */
TF_CAPI_EXPORT extern TF_Buffer TF_GetOpList(TF_Library* lib_handle);
/* Frees the handle (the library stays loaded); NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteLibraryHandle(TF_Library* lib_handle);
/* A serialized OpList of every registered op. Caller owns (TF_DeleteBuffer). */
TF_CAPI_EXPORT extern TF_Buffer* TF_GetAllOpList(void);

/* API definitions (ApiDef) for the ops of an OpList, for language binding generators. */
typedef struct TF_ApiDefMap TF_ApiDefMap;

/* A new map for the ops of a serialized OpList. Caller owns. */
TF_CAPI_EXPORT extern TF_ApiDefMap* TF_NewApiDefMap(TF_Buffer* op_list_buffer,
                                                    TF_Status* status);
/* Frees the map; NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteApiDefMap(TF_ApiDefMap* apimap);
/* Adds ApiDefs given as text (ApiDefs text proto) text[0, text_len). */
TF_CAPI_EXPORT extern void TF_ApiDefMapPut(TF_ApiDefMap* api_def_map, const char* text,
                                           size_t text_len, TF_Status* status);
/* A serialized ApiDef for op name[0, name_len). Caller owns (TF_DeleteBuffer). */
TF_CAPI_EXPORT extern TF_Buffer* TF_ApiDefMapGet(TF_ApiDefMap* api_def_map, const char* name,
                                                 size_t name_len, TF_Status* status);

/* --------------------------------------------------------------------------
 * Kernel definitions. */

/* A serialized KernelList of every registered kernel. Caller owns. */
TF_CAPI_EXPORT extern TF_Buffer* TF_GetAllRegisteredKernels(TF_Status* status);
/* A serialized KernelList of the kernels registered for op `name`. Caller owns. */
TF_CAPI_EXPORT extern TF_Buffer* TF_GetRegisteredKernelsForOp(const char* name,
                                                              TF_Status* status);

/* --------------------------------------------------------------------------
 * In-process TensorFlow server functionality, for use in distributed training. A server
 * hosts the master and worker services of one task of a cluster. */

typedef struct TF_Server TF_Server;

/* A new server from a serialized ServerDef. It does not serve until TF_ServerStart. Caller
 * owns; NULL on error. */
TF_CAPI_EXPORT extern TF_Server* TF_NewServer(const void* proto, size_t proto_len,
                                              TF_Status* status);
/* Starts serving. */
TF_CAPI_EXPORT extern void TF_ServerStart(TF_Server* server, TF_Status* status);
/* Stops serving. */
TF_CAPI_EXPORT extern void TF_ServerStop(TF_Server* server, TF_Status* status);
/* Blocks until the server has stopped. */
TF_CAPI_EXPORT extern void TF_ServerJoin(TF_Server* server, TF_Status* status);
/* The target for TF_SetTarget: "grpc://localhost:<port>". Owned by server; valid until
 * TF_DeleteServer. */
TF_CAPI_EXPORT extern const char* TF_ServerTarget(TF_Server* server);
/* Stops (and joins) the server if running, then frees it. NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteServer(TF_Server* server);

/* Registers a listener for the log lines of the Print op and similar (process-wide). */
TF_CAPI_EXPORT extern void TF_RegisterLogListener(void (*listener)(const char*));

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_C_API_H_ */
