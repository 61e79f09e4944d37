/*
 * example_util — the few helpers the device examples share, written against the public
 * TensorFlow 1.15 C API plus tfc.h (header-only so each example stays one file to read).
 */
#ifndef TFC_EXAMPLES_EXAMPLE_UTIL_H
#define TFC_EXAMPLES_EXAMPLE_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/c_api.h"
#include "tfc/tfc.h"

/* Exits with the status's message when it is not OK. */
static inline void ex_check(TF_Status *s, const char *what) {
  if (TF_GetCode(s) != TF_OK) {
    fprintf(stderr, "%s failed: %s\n", what, TF_Message(s));
    exit(1);
  }
}

/* A float Const named `name` on `device` ("" for none). */
static inline TF_Operation *ex_const(TF_Graph *g, const char *name, const char *device, const int64_t *dims,
                                     int ndims, const float *vals, TF_Status *s) {
  size_t n = 1;
  for (int i = 0; i < ndims; i++) n *= (size_t)dims[i];
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, dims, ndims, n * sizeof(float));
  memcpy(TF_TensorData(t), vals, n * sizeof(float));
  TF_OperationDescription *d = TF_NewOperation(g, "Const", name);
  TF_SetDevice(d, device);
  TF_SetAttrTensor(d, "value", t, s);
  ex_check(s, "TF_SetAttrTensor");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Operation *op = TF_FinishOperation(d, s);
  ex_check(s, "TF_FinishOperation(Const)");
  TF_DeleteTensor(t);
  return op;
}

/* A two-input op (MatMul, AddV2, ...) on `device`. */
static inline TF_Operation *ex_binary(TF_Graph *g, const char *op, const char *name, const char *device,
                                      TF_Output x, TF_Output y, TF_Status *s) {
  TF_OperationDescription *d = TF_NewOperation(g, op, name);
  TF_SetDevice(d, device);
  TF_AddInput(d, x);
  TF_AddInput(d, y);
  TF_Operation *o = TF_FinishOperation(d, s);
  ex_check(s, op);
  return o;
}

/* Prints a float matrix numpy-style: [[44. 56.] [98. 128.]] */
static inline void ex_print_matrix(const char *label, const TF_Tensor *t) {
  const float *v = TF_TensorData(t);
  int64_t rows = TF_Dim(t, 0), cols = TF_Dim(t, 1);
  printf("%s[", label);
  for (int64_t i = 0; i < rows; i++) {
    printf("%s[", i ? " " : "");
    for (int64_t j = 0; j < cols; j++) {
      float x = v[i * cols + j];
      printf(x == (float)(int64_t)x ? "%s%g." : "%s%g", j ? " " : "", x); /* numpy: 44. but 2.5 */
    }
    printf("]");
  }
  printf("]\n");
}

/* Session options: device_count {"CPU": n_cpus}, log_device_placement, soft placement. */
static inline TF_SessionOptions *ex_options(int n_cpus, int log_placement, int soft, TF_Status *s) {
  TF_SessionOptions *o = TF_NewSessionOptions();
  TFC_SetDeviceCount(o, "CPU", n_cpus, s);
  ex_check(s, "TFC_SetDeviceCount");
  TFC_SetLogDevicePlacement(o, (unsigned char)log_placement);
  TFC_SetAllowSoftPlacement(o, (unsigned char)soft);
  return o;
}

#endif
