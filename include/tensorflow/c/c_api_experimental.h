/*
 * c_api_experimental.h — TensorFlow 1.15's experimental C API additions (the parts that do
 * not involve eager execution): config and run-option builders, XLA switches, debug strings,
 * named-tensor queues, checkpoint reading, attr builders, op queries.
 *
 * These functions may change or disappear in later TensorFlow versions. The eager (TFE_)
 * declarations of TensorFlow's header are not provided: tfc runs graphs only.
 */
#ifndef TENSORFLOW_C_C_API_EXPERIMENTAL_H_
#define TENSORFLOW_C_C_API_EXPERIMENTAL_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api.h"

#ifndef TF_CAPI_EXPORT
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Enables (or disables) XLA JIT compilation of the graphs of sessions created with options.
 * tfc has no XLA: the setting is recorded in the config and otherwise ignored. */
TF_CAPI_EXPORT extern void TF_EnableXLACompilation(TF_SessionOptions* options,
                                                   unsigned char enable);

/* Process-wide XLA switches; each returns the previous value. Accepted and ignored. */
TF_CAPI_EXPORT unsigned char TF_SetXlaEnableLazyCompilation(unsigned char enable);
/* Accepted and ignored; returns the previous value. */
TF_CAPI_EXPORT unsigned char TF_SetTfXlaCpuGlobalJit(unsigned char enable);
/* Accepted and ignored. */
TF_CAPI_EXPORT void TF_SetXlaAutoJitMode(const char* mode);
/* The value last set by TF_SetXlaConstantFoldingDisabled (0 at start). */
TF_CAPI_EXPORT unsigned char TF_GetXlaConstantFoldingDisabled(void);
/* Accepted and recorded; tfc has no XLA. */
TF_CAPI_EXPORT void TF_SetXlaConstantFoldingDisabled(unsigned char should_enable);
/* Accepted and ignored. */
TF_CAPI_EXPORT void TF_SetXlaMinClusterSize(int size);

/* A new buffer holding the serialized ConfigProto TF 1.15 makes: device_count["CPU"],
 * inter_op_parallelism_threads 1, GPUOptions.allow_growth, and the XLA JIT level ON_1 when
 * enable_xla_compilation, else OFF. Caller owns (TF_DeleteBuffer). */
TF_CAPI_EXPORT extern TF_Buffer* TF_CreateConfig(unsigned char enable_xla_compilation,
                                                 unsigned char gpu_memory_allow_growth,
                                                 unsigned int num_cpu_devices);

/* A new buffer holding a serialized RunOptions, with trace_level FULL_TRACE when
 * enable_full_trace. Caller owns (TF_DeleteBuffer). */
TF_CAPI_EXPORT extern TF_Buffer* TF_CreateRunOptions(unsigned char enable_full_trace);

/* A human-readable dump of graph; *len receives its length. The caller frees the result
 * with free(). */
TF_CAPI_EXPORT extern const char* TF_GraphDebugString(TF_Graph* graph, size_t* len);

/* A human-readable dump of func; *len receives its length. The caller frees it with free(). */
TF_CAPI_EXPORT extern const char* TF_FunctionDebugString(TF_Function* func, size_t* len);

/* Feeds `tensor` to the FIFO queue of the session's graph named "fifo_queue_enqueue_<id>"
 * (built by the caller with its placeholder "arg_tensor_enqueue_<id>"). Caller keeps tensor. */
TF_CAPI_EXPORT extern void TF_EnqueueNamedTensor(TF_Session* session, int tensor_id,
                                                 TF_Tensor* tensor, TF_Status* status);

/* Dequeues a tensor from the queue "fifo_queue_dequeue_<id>". Caller owns the result. */
TF_CAPI_EXPORT extern TF_Tensor* TF_DequeueNamedTensor(TF_Session* session, int tensor_id,
                                                       TF_Status* status);

/* Sets status to INTERNAL with errMsg. */
TF_CAPI_EXPORT void TF_MakeInternalErrorStatus(TF_Status* status, const char* errMsg);

/* Reading checkpoints (V2 tensor bundles). */
typedef struct TF_CheckpointReader TF_CheckpointReader;

/* Opens the checkpoint with prefix filename. Caller owns; NULL on error. */
TF_CAPI_EXPORT extern TF_CheckpointReader* TF_NewCheckpointReader(const char* filename,
                                                                  TF_Status* status);
/* Frees the reader; NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteCheckpointReader(TF_CheckpointReader* reader);
/* 1 if the checkpoint holds a tensor named name. */
TF_CAPI_EXPORT extern int TF_CheckpointReaderHasTensor(TF_CheckpointReader* reader,
                                                       const char* name);
/* The name of variable index (sorted by name); owned by reader. */
TF_CAPI_EXPORT extern const char* TF_CheckpointReaderGetVariable(TF_CheckpointReader* reader,
                                                                 int index);
/* The number of variables in the checkpoint. */
TF_CAPI_EXPORT extern int TF_CheckpointReaderSize(TF_CheckpointReader* reader);
/* The dtype of variable name. */
TF_CAPI_EXPORT extern TF_DataType TF_CheckpointReaderGetVariableDataType(
    TF_CheckpointReader* reader, const char* name);
/* Writes up to num_dims dims of variable name. */
TF_CAPI_EXPORT extern void TF_CheckpointReaderGetVariableShape(TF_CheckpointReader* reader,
                                                               const char* name, int64_t* dims,
                                                               int num_dims,
                                                               TF_Status* status);
/* The rank of variable name. */
TF_CAPI_EXPORT extern int TF_CheckpointReaderGetVariableNumDims(TF_CheckpointReader* reader,
                                                                const char* name);
/* The value of variable name as a new tensor (caller owns); NULL on error. */
TF_CAPI_EXPORT extern TF_Tensor* TF_CheckpointReaderGetTensor(TF_CheckpointReader* reader,
                                                              const char* name,
                                                              TF_Status* status);

/* Attr builders: check whether an op with given type attrs has a kernel on a device type. */
typedef struct TF_AttrBuilder TF_AttrBuilder;

/* A new builder for op_name. Caller owns. */
TF_CAPI_EXPORT extern TF_AttrBuilder* TF_NewAttrBuilder(const char* op_name);
/* Frees the builder; NULL is a no-op. */
TF_CAPI_EXPORT extern void TF_DeleteAttrBuilder(TF_AttrBuilder* builder);
/* Sets a type attr on the builder. */
TF_CAPI_EXPORT extern void TF_AttrBuilderSetType(TF_AttrBuilder* builder,
                                                 const char* attr_name, TF_DataType value);
/* Sets a list(type) attr on the builder (values copied). */
TF_CAPI_EXPORT extern void TF_AttrBuilderSetTypeList(TF_AttrBuilder* builder,
                                                     const char* attr_name,
                                                     const TF_DataType* values,
                                                     int num_values);
/* OK when a kernel for the op with the builder's attrs exists for device_type ("CPU",
 * "GPU"); NOT_FOUND or INVALID_ARGUMENT otherwise. */
TF_CAPI_EXPORT extern void TF_AttrBuilderCheckCanRunOnDevice(TF_AttrBuilder* builder,
                                                             const char* device_type,
                                                             TF_Status* status);

/* The name of the number attr ("N") of input input_index of op op_name (static storage);
 * NULL with NOT_FOUND for an unknown op or an input that is not a list of one type, with
 * INVALID_ARGUMENT for an index out of range. */
TF_CAPI_EXPORT extern const char* TF_GetNumberAttrForOpListInput(const char* op_name,
                                                                 int input_index,
                                                                 TF_Status* status);

/* 1 if op_type is stateful, else 0; 0 with NOT_FOUND for an unknown op. */
TF_CAPI_EXPORT extern int TF_OpIsStateful(const char* op_type, TF_Status* status);

/* Program initialization (flag parsing); a no-op in tfc apart from argument checks. */
TF_CAPI_EXPORT void TF_InitMain(const char* usage, int* argc, char*** argv);

/* An unused TCP port on localhost; aborts when none can be found (test helper). */
TF_CAPI_EXPORT int TF_PickUnusedPortOrDie(void);

/* Whether the import validates colocation constraints (default on). */
TF_CAPI_EXPORT extern void TF_ImportGraphDefOptionsSetValidateColocationConstraints(
    TF_ImportGraphDefOptions* opts, unsigned char enable);

#ifdef __cplusplus
} /* end extern "C" */
#endif

#endif /* TENSORFLOW_C_C_API_EXPERIMENTAL_H_ */
