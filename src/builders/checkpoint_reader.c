/*
 * builders/checkpoint_reader — tf.train.NewCheckpointReader for C (include/tfc/saver.h): the
 * tensors of a V2 checkpoint by name, over the tensor bundle reader (io/bundle.h), with the
 * texts TF's CheckpointReader gives for a missing checkpoint or key.
 */
#include <stdlib.h>
#include <string.h>

#include "capi/capi_internal.h"
#include "io/bundle.h"
#include "tfc/saver.h"

struct TFC_CheckpointReader {
  tfc_bundle_reader *r;
  char **names;
  int n;
};

TFC_EXPORT TFC_CheckpointReader *TFC_NewCheckpointReader(const char *prefix, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  TFC_CheckpointReader *cr = NULL;
  if (!prefix || !*prefix) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_NewCheckpointReader: prefix is empty");
  } else if (!tfc_bundle_exists(prefix)) {
    tfc_status_set(s, TFC_NOT_FOUND,
                   "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for %s", prefix);
  } else if (!(cr = calloc(1, sizeof *cr))) {
    TFC_OOM(s);
  } else if (!(cr->r = tfc_bundle_reader_open(prefix, s)) || tfc_bundle_reader_keys(cr->r, &cr->names, &cr->n, s)) {
    TFC_DeleteCheckpointReader(cr);
    cr = NULL;
  }
  tfc_status_fini(&scratch);
  return cr;
}

TFC_EXPORT void TFC_DeleteCheckpointReader(TFC_CheckpointReader *reader) {
  if (!reader) return;
  for (int i = 0; i < reader->n; i++) free(reader->names[i]);
  free(reader->names);
  tfc_bundle_reader_free(reader->r);
  free(reader);
}

TFC_EXPORT int TFC_CheckpointReaderNumTensors(const TFC_CheckpointReader *reader) { return reader->n; }

TFC_EXPORT const char *TFC_CheckpointReaderTensorName(const TFC_CheckpointReader *reader, int i) {
  return i >= 0 && i < reader->n ? reader->names[i] : NULL;
}

/* NOT_FOUND with TF's CheckpointReader text when name is not in the checkpoint. */
static int check_key(const TFC_CheckpointReader *reader, const char *name, tfc_status *s) {
  for (int i = 0; name && i < reader->n; i++)
    if (strcmp(reader->names[i], name) == 0) return TFC_OK;
  return tfc_status_set(s, TFC_NOT_FOUND, "Key %s not found in checkpoint", name ? name : "(null)");
}

TFC_EXPORT int TFC_CheckpointReaderTensorInfo(TFC_CheckpointReader *reader, const char *name, TF_DataType *out_dtype,
                                              int64_t *dims, int max_dims, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  int rank = -1, dtype = 0;
  int64_t all[TFC_MAX_DIMS];
  if (check_key(reader, name, s) == TFC_OK &&
      tfc_bundle_reader_lookup(reader->r, name, &dtype, &rank, all, s) == TFC_OK) {
    *out_dtype = (TF_DataType)dtype;
    for (int i = 0; dims && i < rank && i < max_dims; i++) dims[i] = all[i];
  } else {
    rank = -1;
  }
  tfc_status_fini(&scratch);
  return rank;
}

TFC_EXPORT TF_Tensor *TFC_CheckpointReaderGetTensor(TFC_CheckpointReader *reader, const char *name,
                                                    TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  TF_Tensor *out = NULL;
  if (check_key(reader, name, s) == TFC_OK) {
    tfc_tensor *t = tfc_bundle_reader_read(reader->r, name, s);
    if (t) out = tfc_capi_tensor_out(t, s);
    tfc_tensor_unref(t);
  }
  tfc_status_fini(&scratch);
  return out;
}
