/*
 * capi/saved_model_internal — the parsed saved_model.pb behind a TFC_SavedModel
 * (tfc/saved_model.h), shared by the reader and writer (saved_model_io.c) and the loader
 * (saved_model.c), and the file helpers the reader and writer (saved_model_builder.c) share.
 */
#ifndef TFC_CAPI_SAVED_MODEL_INTERNAL_H
#define TFC_CAPI_SAVED_MODEL_INTERNAL_H

#include "base/status.h"
#include "tensorflow/saved_model.pb-c.h"
#include "tfc/saved_model.h"

struct TFC_SavedModel {
  char *data;              /* the file's bytes */
  Tensorflow__SavedModel *pb;
  Tensorflow__SavedModelMetaGraphView **views; /* one per meta_graphs entry; signatures,
                                                  their inputs and outputs sorted by key */
  int n;
};

/* Writes bytes to path through path.tmp renamed into place; PERMISSION_DENIED or
 * FAILED_PRECONDITION naming the file (saved_model_builder.c). */
int tfc_sm_write_file(const char *path, const void *data, size_t len, tfc_status *s);

#endif
