/*
 * capi/saved_model_internal — the parsed saved_model.pb behind a TFC_SavedModel
 * (tfc/saved_model.h), shared by the reader and writer (saved_model_io.c) and the loader
 * (saved_model.c).
 */
#ifndef TFC_CAPI_SAVED_MODEL_INTERNAL_H
#define TFC_CAPI_SAVED_MODEL_INTERNAL_H

#include "tensorflow/saved_model.pb-c.h"
#include "tfc/saved_model.h"

struct TFC_SavedModel {
  char *data;              /* the file's bytes */
  Tensorflow__SavedModel *pb;
  Tensorflow__SavedModelMetaGraphView **views; /* one per meta_graphs entry; signatures,
                                                  their inputs and outputs sorted by key */
  int n;
};

#endif
