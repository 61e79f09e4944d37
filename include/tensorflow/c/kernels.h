/*
 * kernels.h — TensorFlow's C API for kernels of user-defined ops (TF 1.15's
 * tensorflow/c/kernels.h, with the attr getters and TF_AllocateOutput that later releases
 * added).
 *
 *   TF_KernelBuilder* b = TF_NewKernelBuilder("ScaleBy", "CPU", create, compute, destroy);
 *   TF_KernelBuilder_TypeConstraint(b, "T", TF_FLOAT, status);
 *   TF_RegisterKernelBuilder("ScaleByOp", b, status);   // takes b
 *
 * create(construction) runs once per node when a session's executor is built, and may read
 * the node's attrs; what it returns is passed to compute and, when the kernel is dropped, to
 * destroy. compute(kernel, context) runs once per step, possibly in several steps at once.
 * The construction and context pointers are valid only during the call. A failure reported
 * with TF_OpKernelConstruction_Failure / TF_OpKernelContext_Failure fails the run with that
 * status, prefixed with the node's name. Registration is thread-safe; registered kernels live
 * for the process.
 */
#ifndef TENSORFLOW_C_KERNELS_H_
#define TENSORFLOW_C_KERNELS_H_

#include <stddef.h>
#include <stdint.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"

#ifndef TF_CAPI_EXPORT
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_KernelBuilder TF_KernelBuilder;
typedef struct TF_OpKernelConstruction TF_OpKernelConstruction;
typedef struct TF_OpKernelContext TF_OpKernelContext;

/* A new builder for a kernel of op_name on device_name ("CPU"). Any callback may be NULL.
 * Owned by the caller until TF_RegisterKernelBuilder takes it; else TF_DeleteKernelBuilder. */
TF_CAPI_EXPORT extern TF_KernelBuilder* TF_NewKernelBuilder(const char* op_name, const char* device_name,
                                                            void* (*create_func)(TF_OpKernelConstruction*),
                                                            void (*compute_func)(void*, TF_OpKernelContext*),
                                                            void (*delete_func)(void*));

/* The kernel runs only nodes whose attr attr_name is type (each call adds a constraint). */
TF_CAPI_EXPORT extern void TF_KernelBuilder_TypeConstraint(TF_KernelBuilder* kernel_builder, const char* attr_name,
                                                           const TF_DataType type, TF_Status* status);

/* The named input or output argument lives in host memory. */
TF_CAPI_EXPORT extern void TF_KernelBuilder_HostMemory(TF_KernelBuilder* kernel_builder, const char* arg_name);

/* Registers builder (taken, whatever the outcome) under kernel_name. */
TF_CAPI_EXPORT extern void TF_RegisterKernelBuilder(const char* kernel_name, TF_KernelBuilder* builder,
                                                    TF_Status* status);

/* Frees a builder that was not registered (NULL: no-op). */
TF_CAPI_EXPORT extern void TF_DeleteKernelBuilder(TF_KernelBuilder* builder);

/* ---- inside compute ---- */

/* The numbers of (flat) inputs and outputs of the node. */
TF_CAPI_EXPORT extern int TF_NumInputs(TF_OpKernelContext* ctx);
TF_CAPI_EXPORT extern int TF_NumOutputs(TF_OpKernelContext* ctx);

/* Input i as a new TF_Tensor the caller deletes (sharing the input's memory: read only).
 * OUT_OF_RANGE when i is not an input; *tensor is then untouched. */
TF_CAPI_EXPORT extern void TF_GetInput(TF_OpKernelContext* ctx, int i, TF_Tensor** tensor, TF_Status* status);

/* Sets output i to tensor (the caller keeps its reference). OUT_OF_RANGE when i is not an
 * output; INVALID_ARGUMENT when tensor's type is not the output's. */
TF_CAPI_EXPORT extern void TF_SetOutput(TF_OpKernelContext* ctx, int i, const TF_Tensor* tensor,
                                        TF_Status* status);

/* Report a failure of create / compute: the node fails with status's code and message. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_Failure(TF_OpKernelConstruction* ctx, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OpKernelContext_Failure(TF_OpKernelContext* ctx, TF_Status* status);

/* Output i's type (0 when i is not an output). */
TF_CAPI_EXPORT extern TF_DataType TF_ExpectedOutputDataType(TF_OpKernelContext* ctx, int i);

/* The id of the step being run. */
TF_CAPI_EXPORT extern int64_t TF_StepId(TF_OpKernelContext* ctx);

/* ---- inside create: the node's attrs ---- */
/* Each sets *val from the attr, or sets status: INVALID_ARGUMENT when the node has no such
 * attr or it is of another kind. */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrType(TF_OpKernelConstruction* ctx, const char* attr_name,
                                                               TF_DataType* val, TF_Status* status);
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrInt32(TF_OpKernelConstruction* ctx,
                                                                const char* attr_name, int32_t* val,
                                                                TF_Status* status);
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrInt64(TF_OpKernelConstruction* ctx,
                                                                const char* attr_name, int64_t* val,
                                                                TF_Status* status);
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrFloat(TF_OpKernelConstruction* ctx,
                                                                const char* attr_name, float* val,
                                                                TF_Status* status);
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrBool(TF_OpKernelConstruction* ctx, const char* attr_name,
                                                               unsigned char* val, TF_Status* status);
/* Copies at most max_length bytes of the string (not NUL-terminated, as in TF). */
TF_CAPI_EXPORT extern void TF_OpKernelConstruction_GetAttrString(TF_OpKernelConstruction* ctx,
                                                                 const char* attr_name, char* val,
                                                                 size_t max_length, TF_Status* status);

/* Allocates output index with dims (num_dims of them; len: its byte size, checked) and
 * returns a TF_Tensor sharing its memory, to be filled and then deleted by the caller. */
TF_CAPI_EXPORT extern TF_Tensor* TF_AllocateOutput(TF_OpKernelContext* context, int index, TF_DataType dtype,
                                                   const int64_t* dims, int num_dims, size_t len,
                                                   TF_Status* status);

#ifdef __cplusplus
}
#endif

#endif
