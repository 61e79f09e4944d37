/*
 * scale_by — an op library in C: the op ScaleBy (y = x * factor, with an int attr `factor`,
 * default 2) for float and int32, its shape function, and a CPU kernel for each type.
 *
 * Built as a shared module (CMake: scale_by) and loaded with TF_LoadLibrary, which runs the
 * constructor below: it registers the op (include/tensorflow/c/ops.h) and its kernels
 * (include/tensorflow/c/kernels.h), as a TensorFlow op library's static initializers do.
 *
 *   TF_Library *lib = TF_LoadLibrary("libscale_by.so", status);
 *   ... TF_NewOperation(graph, "ScaleBy", "y") with input x and attr factor ...
 *
 * Errors it reports, with TF's codes: a negative factor fails kernel construction
 * (INVALID_ARGUMENT), an int32 product that overflows fails the step (OUT_OF_RANGE), and an
 * input of rank above 4 fails shape inference (INVALID_ARGUMENT).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/kernels.h"
#include "tensorflow/c/ops.h"

/* y has x's shape; x may have rank 4 at most. */
static void scale_by_shape(TF_ShapeInferenceContext *ctx, TF_Status *status) {
  TF_ShapeHandle *x = TF_NewShapeHandle();
  TF_ShapeInferenceContextGetInput(ctx, 0, x, status);
  if (TF_GetCode(status) == TF_OK) TF_ShapeInferenceContextWithRankAtMost(ctx, x, 4, x, status);
  if (TF_GetCode(status) == TF_OK) TF_ShapeInferenceContextSetOutput(ctx, 0, x, status);
  TF_DeleteShapeHandle(x);
}

typedef struct scale_by {
  int64_t factor;
} scale_by;

static void *scale_by_create(TF_OpKernelConstruction *ctx) {
  TF_Status *s = TF_NewStatus();
  scale_by *k = calloc(1, sizeof *k);
  TF_OpKernelConstruction_GetAttrInt64(ctx, "factor", &k->factor, s);
  if (TF_GetCode(s) == TF_OK && k->factor < 0) {
    char msg[96];
    snprintf(msg, sizeof msg, "ScaleBy needs factor >= 0, got %lld", (long long)k->factor);
    TF_SetStatus(s, TF_INVALID_ARGUMENT, msg);
  }
  if (TF_GetCode(s) != TF_OK) TF_OpKernelConstruction_Failure(ctx, s);
  TF_DeleteStatus(s);
  return k;
}

static void scale_by_delete(void *k) { free(k); }

static void scale_by_compute(void *kernel, TF_OpKernelContext *ctx) {
  const scale_by *k = kernel;
  TF_Status *s = TF_NewStatus();
  TF_Tensor *x = NULL;
  TF_GetInput(ctx, 0, &x, s);
  if (TF_GetCode(s) != TF_OK) goto done;
  int nd = TF_NumDims(x);
  int64_t dims[8];
  for (int i = 0; i < nd && i < 8; i++) dims[i] = TF_Dim(x, i);
  TF_DataType dt = TF_TensorType(x);
  TF_Tensor *y = TF_AllocateOutput(ctx, 0, dt, dims, nd, TF_TensorByteSize(x), s);
  if (TF_GetCode(s) != TF_OK) goto done;
  int64_t n = TF_TensorElementCount(x);
  if (dt == TF_FLOAT) {
    const float *in = TF_TensorData(x);
    float *out = TF_TensorData(y);
    for (int64_t i = 0; i < n; i++) out[i] = in[i] * (float)k->factor;
  } else {
    const int32_t *in = TF_TensorData(x);
    int32_t *out = TF_TensorData(y);
    for (int64_t i = 0; i < n; i++) {
      int64_t v = (int64_t)in[i] * k->factor;
      if (v > INT32_MAX || v < INT32_MIN) {
        char msg[96];
        snprintf(msg, sizeof msg, "ScaleBy: %d * %lld overflows int32", in[i], (long long)k->factor);
        TF_SetStatus(s, TF_OUT_OF_RANGE, msg);
        break;
      }
      out[i] = (int32_t)v;
    }
  }
  TF_DeleteTensor(y);
done:
  if (TF_GetCode(s) != TF_OK) TF_OpKernelContext_Failure(ctx, s);
  TF_DeleteTensor(x);
  TF_DeleteStatus(s);
}

__attribute__((constructor)) static void register_scale_by(void) {
  TF_Status *s = TF_NewStatus();
  TF_OpDefinitionBuilder *b = TF_NewOpDefinitionBuilder("ScaleBy");
  TF_OpDefinitionBuilderAddAttr(b, "T: {float, int32}");
  TF_OpDefinitionBuilderAddAttr(b, "factor: int = 2");
  TF_OpDefinitionBuilderAddInput(b, "x: T");
  TF_OpDefinitionBuilderAddOutput(b, "y: T");
  TF_OpDefinitionBuilderSetShapeInferenceFunction(b, scale_by_shape);
  TF_RegisterOpDefinition(b, s);
  const TF_DataType types[] = {TF_FLOAT, TF_INT32};
  for (int i = 0; i < 2 && TF_GetCode(s) == TF_OK; i++) {
    TF_KernelBuilder *kb = TF_NewKernelBuilder("ScaleBy", "CPU", scale_by_create, scale_by_compute, scale_by_delete);
    TF_KernelBuilder_TypeConstraint(kb, "T", types[i], s);
    if (TF_GetCode(s) == TF_OK) TF_RegisterKernelBuilder(i == 0 ? "ScaleByFloat" : "ScaleByInt32", kb, s);
    else TF_DeleteKernelBuilder(kb);
  }
  /* An error here also fails the TF_LoadLibrary that runs this constructor. */
  TF_DeleteStatus(s);
}
