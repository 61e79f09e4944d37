/*
 * ops.h — TensorFlow's C API for defining ops and their shape functions (TF 1.15's
 * tensorflow/c/ops.h).
 *
 * A program, or a library loaded with TF_LoadLibrary (usually from a constructor function
 * that runs when the library is loaded), builds an op definition and registers it:
 *
 *   TF_OpDefinitionBuilder* b = TF_NewOpDefinitionBuilder("ScaleBy");
 *   TF_OpDefinitionBuilderAddAttr(b, "T: {float, int32}");
 *   TF_OpDefinitionBuilderAddAttr(b, "factor: int = 2");
 *   TF_OpDefinitionBuilderAddInput(b, "x: T");
 *   TF_OpDefinitionBuilderAddOutput(b, "y: T");
 *   TF_OpDefinitionBuilderSetShapeInferenceFunction(b, my_shape_fn);
 *   TF_RegisterOpDefinition(b, status);   // frees b, whatever the outcome
 *
 * Specs follow TF's REGISTER_OP syntax: attrs "name: type" or "name: type = default" (type:
 * string, int, float, bool, type, shape, tensor, func, list(...), {allowed, types},
 * {'allowed', 'strings'}, "int >= 1", and the groups numbertype, realnumbertype and
 * quantizedtype, alone or in a {union}); inputs and outputs "name: T", "name: float",
 * "name: N * T", "name: Tlist", "name: Ref(T)". A malformed spec is reported by
 * TF_RegisterOpDefinition (INVALID_ARGUMENT naming the op); a name already registered is
 * ALREADY_EXISTS "Op with name <name>". Registered ops live for the process.
 *
 * Shape functions receive a TF_ShapeInferenceContext (valid for the call only) and report
 * errors through their status, which TF prefixes with the node. Shape and dimension handles
 * are caller-owned: make them with TF_NewShapeHandle / TF_NewDimensionHandle, free them with
 * TF_DeleteShapeHandle / TF_DeleteDimensionHandle. Registration is thread-safe.
 */
#ifndef TENSORFLOW_C_OPS_H_
#define TENSORFLOW_C_OPS_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"

#ifndef TF_CAPI_EXPORT
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_DimensionHandle TF_DimensionHandle;
typedef struct TF_OpDefinitionBuilder TF_OpDefinitionBuilder;
typedef struct TF_ShapeHandle TF_ShapeHandle;
typedef struct TF_ShapeInferenceContext TF_ShapeInferenceContext;

/* A new builder for op_name. Freed by TF_RegisterOpDefinition or TF_DeleteOpDefinitionBuilder
 * (exactly one of them). */
TF_CAPI_EXPORT extern TF_OpDefinitionBuilder* TF_NewOpDefinitionBuilder(const char* op_name);

/* Registers the op; frees builder whether or not it succeeds. */
TF_CAPI_EXPORT extern void TF_RegisterOpDefinition(TF_OpDefinitionBuilder* builder, TF_Status* status);

/* Frees a builder that was not registered (NULL: no-op). */
TF_CAPI_EXPORT extern void TF_DeleteOpDefinitionBuilder(TF_OpDefinitionBuilder* builder);

/* Adds an attr, input or output; the spec is checked at registration. */
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderAddAttr(TF_OpDefinitionBuilder* builder, const char* attr_spec);
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderAddInput(TF_OpDefinitionBuilder* builder, const char* input_spec);
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderAddOutput(TF_OpDefinitionBuilder* builder,
                                                           const char* output_spec);

/* The op's flags (OpDef.is_commutative, is_aggregate, is_stateful,
 * allows_uninitialized_input). */
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderSetIsCommutative(TF_OpDefinitionBuilder* builder,
                                                                  bool is_commutative);
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderSetIsAggregate(TF_OpDefinitionBuilder* builder,
                                                                bool is_aggregate);
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderSetIsStateful(TF_OpDefinitionBuilder* builder, bool is_stateful);
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderSetAllowsUninitializedInput(TF_OpDefinitionBuilder* builder,
                                                                            bool allows_uninitialized_input);

/* Marks the op deprecated from GraphDef version `version` on, with an explanation. Does not
 * affect registration. */
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderDeprecated(TF_OpDefinitionBuilder* builder, int version,
                                                            const char* explanation);

/* The op's shape function. Without one, every output's shape is unknown. */
TF_CAPI_EXPORT extern void TF_OpDefinitionBuilderSetShapeInferenceFunction(
    TF_OpDefinitionBuilder* builder, void (*shape_inference_func)(TF_ShapeInferenceContext* ctx, TF_Status* status));

/* ---- inside a shape function ---- */

/* The number of (flat) inputs of the node. */
TF_CAPI_EXPORT extern int64_t TF_ShapeInferenceContextNumInputs(TF_ShapeInferenceContext* ctx);

/* A new, unknown shape handle. */
TF_CAPI_EXPORT extern TF_ShapeHandle* TF_NewShapeHandle(void);

/* Copies input i's shape into handle; OUT_OF_RANGE ... when i is not an input. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextGetInput(TF_ShapeInferenceContext* ctx, int i,
                                                            TF_ShapeHandle* handle, TF_Status* status);

/* Sets output i to a copy of handle's shape. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextSetOutput(TF_ShapeInferenceContext* ctx, int i,
                                                             TF_ShapeHandle* handle, TF_Status* status);

/* A new handle for a vector shape [size]; free with TF_DeleteShapeHandle. */
TF_CAPI_EXPORT extern TF_ShapeHandle* TF_ShapeInferenceContextVectorFromSize(TF_ShapeInferenceContext* ctx,
                                                                             size_t size);

/* A new, unknown dimension handle. */
TF_CAPI_EXPORT extern TF_DimensionHandle* TF_NewDimensionHandle(void);

/* The node's attr attr_name as a type. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContext_GetAttrType(TF_ShapeInferenceContext* ctx,
                                                                const char* attr_name, TF_DataType* val,
                                                                TF_Status* status);

/* handle's rank (-1 when unknown), and whether it is known. */
TF_CAPI_EXPORT extern int64_t TF_ShapeInferenceContextRank(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* handle);
TF_CAPI_EXPORT extern int TF_ShapeInferenceContextRankKnown(TF_ShapeInferenceContext* ctx,
                                                            TF_ShapeHandle* handle);

/* handle with its rank checked against rank (exactly / at least / at most); an unknown rank
 * passes (WithRank then gives that many unknown dims). INVALID_ARGUMENT otherwise. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextWithRank(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* handle,
                                                            int64_t rank, TF_ShapeHandle* result,
                                                            TF_Status* status);
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextWithRankAtLeast(TF_ShapeInferenceContext* ctx,
                                                                   TF_ShapeHandle* handle, int64_t rank,
                                                                   TF_ShapeHandle* result, TF_Status* status);
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextWithRankAtMost(TF_ShapeInferenceContext* ctx,
                                                                  TF_ShapeHandle* handle, int64_t rank,
                                                                  TF_ShapeHandle* result, TF_Status* status);

/* Dimension i of shape_handle (negative i counts from the end) into result; unknown when the
 * rank is unknown or i is out of range. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextDim(TF_ShapeInferenceContext* ctx, TF_ShapeHandle* shape_handle,
                                                       int64_t i, TF_DimensionHandle* result);

/* shape_handle's dims [start, end) (negative counts from the end; clamped to the rank). */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextSubshape(TF_ShapeInferenceContext* ctx,
                                                            TF_ShapeHandle* shape_handle, int64_t start,
                                                            int64_t end, TF_ShapeHandle* result,
                                                            TF_Status* status);

/* Every output's shape unknown. */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextSetUnknownShape(TF_ShapeInferenceContext* ctx,
                                                                   TF_Status* status);

/* Whether dim_handle's value is known, and the value (-1 when unknown). */
TF_CAPI_EXPORT extern int TF_DimensionHandleValueKnown(TF_DimensionHandle* dim_handle);
TF_CAPI_EXPORT extern int64_t TF_DimensionHandleValue(TF_DimensionHandle* dim_handle);

/* first's dims followed by second's (unknown when either rank is). */
TF_CAPI_EXPORT extern void TF_ShapeInferenceContextConcatenateShapes(TF_ShapeInferenceContext* ctx,
                                                                     TF_ShapeHandle* first,
                                                                     TF_ShapeHandle* second,
                                                                     TF_ShapeHandle* result, TF_Status* status);

/* Free handles (NULL: no-op). */
TF_CAPI_EXPORT extern void TF_DeleteShapeHandle(TF_ShapeHandle* handle);
TF_CAPI_EXPORT extern void TF_DeleteDimensionHandle(TF_DimensionHandle* handle);

#ifdef __cplusplus
}
#endif

#endif
