/*
 * capi/saved_model_io — SavedModel directories read for tfc/saved_model.h and the loader
 * (capi/saved_model.c); the writer is capi/saved_model_builder.c.
 *
 * Reading: saved_model.pb is parsed as a SavedModel whose MetaGraphDefs stay bytes (the
 * loader hands the chosen one on as written), and each is parsed again as a
 * SavedModelMetaGraphView (tags, signatures, assets: src/proto/tensorflow/saved_model.proto);
 * signatures and their tensors are sorted by key once, after parsing. Without saved_model.pb,
 * saved_model.pbtxt (TF's text form, Builder.save(as_text=True)) is parsed by the text reader
 * (proto/pb_text.h) as a SavedModelText (saved_model_text.proto: every nested message typed)
 * and packed: the result is the binary file's bytes, read as above.
 *
 * Ownership and errors: see tfc/saved_model.h; internal helpers return 0 or -1 with the
 * status set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi/capi_internal.h"
#include "capi/saved_model_internal.h"
#include "io/file.h"
#include "proto/pb_text.h"
#include "proto/pb_util.h"
#include "tensorflow/saved_model_text.pb-c.h"

/* Replaces the text form in *data with the binary one; DATA_LOSS "Can't parse <path> as text
 * proto: <the parser's message>" on a parse error (*data freed either way on error). */
static int text_to_binary(const char *path, char **data, size_t *len, tfc_status *s) {
  tfc_status parse;
  tfc_status_init(&parse);
  ProtobufCMessage *m = tfc_pb_text_read(&tensorflow__saved_model_text__descriptor, *data, *len, &parse);
  free(*data);
  *data = NULL;
  int rc = 0;
  if (!m) {
    const char *why = tfc_status_msg(&parse);
    size_t n = strlen(why);
    tfc_status_set(s, TFC_DATA_LOSS, "Can't parse %s as text proto: %.*s", path,
                   (int)(n && why[n - 1] == '\n' ? n - 1 : n), why);
    rc = -1;
  } else {
    void *bin = NULL;
    rc = tfc_pb_pack(m, &bin, len, s) ? -1 : 0;
    *data = bin;
    protobuf_c_message_free_unpacked(m, NULL);
  }
  tfc_status_fini(&parse);
  return rc;
}

static int cmp_sig(const void *a, const void *b) {
  return strcmp((*(Tensorflow__SavedModelMetaGraphView__SignatureDefEntry *const *)a)->key,
                (*(Tensorflow__SavedModelMetaGraphView__SignatureDefEntry *const *)b)->key);
}
/* The inputs and outputs entries have one layout (key, value). */
static int cmp_io(const void *a, const void *b) {
  return strcmp((*(Tensorflow__SignatureDef__InputsEntry *const *)a)->key,
                (*(Tensorflow__SignatureDef__InputsEntry *const *)b)->key);
}

TFC_EXPORT void TFC_DeleteSavedModel(TFC_SavedModel *sm) {
  if (!sm) return;
  for (int i = 0; i < sm->n; i++)
    if (sm->views[i]) protobuf_c_message_free_unpacked(&sm->views[i]->base, NULL);
  free(sm->views);
  if (sm->pb) protobuf_c_message_free_unpacked(&sm->pb->base, NULL);
  free(sm->data);
  free(sm);
}

TFC_EXPORT TFC_SavedModel *TFC_ReadSavedModel(const char *export_dir, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  TFC_SavedModel *sm = NULL;
  if (!export_dir) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_ReadSavedModel: NULL export_dir");
    goto out;
  }
  size_t dl = strlen(export_dir), len = 0;
  char *pb = malloc(dl + 20);
  char *data = NULL;
  int rc = pb ? (sprintf(pb, "%s/saved_model.pb", export_dir), tfc_file_read_all(pb, &data, &len)) : -2;
  int text = 0;
  if (rc == -1) {
    strcat(pb, "txt");
    rc = tfc_file_read_all(pb, &data, &len);
    text = 1;
    if (rc == -1)
      tfc_status_set(s, TFC_NOT_FOUND, "Could not find SavedModel .pb or .pbtxt at supplied export directory path: %s",
                     export_dir);
  }
  if (rc == -2) {
    TFC_OOM(s);
  } else if (rc < -2) {
    tfc_status_set(s, TFC_DATA_LOSS, "%s: read error", pb);
  }
  if (!rc && text && text_to_binary(pb, &data, &len, s)) rc = -1;
  free(pb);
  if (rc) goto out;
  sm = calloc(1, sizeof *sm);
  if (!sm) {
    free(data);
    TFC_OOM(s);
    goto out;
  }
  sm->data = data;
  tfc_status parse;
  tfc_status_init(&parse);
  sm->pb = (Tensorflow__SavedModel *)tfc_pb_unpack(&tensorflow__saved_model__descriptor, data, len, "SavedModel", &parse);
  tfc_status_fini(&parse);
  if (!sm->pb) {
    tfc_status_set(s, TFC_DATA_LOSS, "Can't parse %s/saved_model.pb as binary proto", export_dir);
    goto fail;
  }
  sm->views = calloc(sm->pb->n_meta_graphs ? sm->pb->n_meta_graphs : 1, sizeof *sm->views);
  if (!sm->views) {
    TFC_OOM(s);
    goto fail;
  }
  for (size_t i = 0; i < sm->pb->n_meta_graphs; i++) {
    Tensorflow__SavedModelMetaGraphView *v = (Tensorflow__SavedModelMetaGraphView *)tfc_pb_unpack(
        &tensorflow__saved_model_meta_graph_view__descriptor, sm->pb->meta_graphs[i].data,
        sm->pb->meta_graphs[i].len, "MetaGraphDef", s);
    if (!v) goto fail;
    sm->views[sm->n++] = v;
    /* (qsort's array may not be NULL, even for no elements) */
    if (v->n_signature_def > 1) qsort(v->signature_def, v->n_signature_def, sizeof *v->signature_def, cmp_sig);
    for (size_t k = 0; k < v->n_signature_def; k++) {
      Tensorflow__SignatureDef *d = v->signature_def[k]->value;
      if (!d) continue;
      if (d->n_inputs > 1) qsort(d->inputs, d->n_inputs, sizeof *d->inputs, cmp_io);
      if (d->n_outputs > 1) qsort(d->outputs, d->n_outputs, sizeof *d->outputs, cmp_io);
    }
  }
  goto out;
fail:
  TFC_DeleteSavedModel(sm);
  sm = NULL;
out:
  tfc_status_fini(&scratch);
  return sm;
}

static const Tensorflow__SavedModelMetaGraphView *view_at(const TFC_SavedModel *sm, int mg) {
  return sm && mg >= 0 && mg < sm->n ? sm->views[mg] : NULL;
}

TFC_EXPORT int TFC_SavedModelNumMetaGraphs(const TFC_SavedModel *sm) { return sm ? sm->n : 0; }

TFC_EXPORT int TFC_SavedModelNumTags(const TFC_SavedModel *sm, int mg) {
  const Tensorflow__SavedModelMetaGraphView *v = view_at(sm, mg);
  return v && v->meta_info_def ? (int)v->meta_info_def->n_tags : 0;
}

TFC_EXPORT const char *TFC_SavedModelTag(const TFC_SavedModel *sm, int mg, int i) {
  return i >= 0 && i < TFC_SavedModelNumTags(sm, mg) ? sm->views[mg]->meta_info_def->tags[i] : NULL;
}

/* Whether tag is among tags[0..n). */
static int has_tag(const char *const *tags, int n, const char *tag) {
  for (int j = 0; j < n; j++)
    if (tags[j] && strcmp(tags[j], tag) == 0) return 1;
  return 0;
}

TFC_EXPORT int TFC_SavedModelFindMetaGraph(const TFC_SavedModel *sm, const char *const *tags, int n) {
  if (!sm || n < 0 || (n > 0 && !tags)) return -1;
  for (int m = 0; m < sm->n; m++) {
    int nt = TFC_SavedModelNumTags(sm, m), same = 1;
    const char *const *have = (const char *const *)(nt ? sm->views[m]->meta_info_def->tags : NULL);
    for (int i = 0; i < nt && same; i++) same = has_tag(tags, n, have[i]);
    for (int j = 0; j < n && same; j++) same = tags[j] && has_tag(have, nt, tags[j]);
    if (same) return m;
  }
  return -1;
}

TFC_EXPORT const void *TFC_SavedModelMetaGraphBytes(const TFC_SavedModel *sm, int mg, size_t *out_len) {
  if (!view_at(sm, mg)) return NULL;
  if (out_len) *out_len = sm->pb->meta_graphs[mg].len;
  return sm->pb->meta_graphs[mg].data;
}

TFC_EXPORT int TFC_SavedModelNumSignatures(const TFC_SavedModel *sm, int mg) {
  const Tensorflow__SavedModelMetaGraphView *v = view_at(sm, mg);
  return v ? (int)v->n_signature_def : 0;
}

static const Tensorflow__SavedModelMetaGraphView__SignatureDefEntry *sig_at(const TFC_SavedModel *sm, int mg,
                                                                            int sig) {
  return sig >= 0 && sig < TFC_SavedModelNumSignatures(sm, mg) ? sm->views[mg]->signature_def[sig] : NULL;
}

TFC_EXPORT const char *TFC_SavedModelSignatureKey(const TFC_SavedModel *sm, int mg, int sig) {
  const Tensorflow__SavedModelMetaGraphView__SignatureDefEntry *e = sig_at(sm, mg, sig);
  return e ? e->key : NULL;
}

TFC_EXPORT const char *TFC_SavedModelSignatureMethod(const TFC_SavedModel *sm, int mg, int sig) {
  const Tensorflow__SavedModelMetaGraphView__SignatureDefEntry *e = sig_at(sm, mg, sig);
  return e ? (e->value ? e->value->method_name : "") : NULL;
}

TFC_EXPORT int TFC_SavedModelFindSignature(const TFC_SavedModel *sm, int mg, const char *key) {
  int n = TFC_SavedModelNumSignatures(sm, mg);
  for (int i = 0; key && i < n; i++)
    if (strcmp(sm->views[mg]->signature_def[i]->key, key) == 0) return i;
  return -1;
}

TFC_EXPORT int TFC_SavedModelSignatureNumTensors(const TFC_SavedModel *sm, int mg, int sig, int is_output) {
  const Tensorflow__SavedModelMetaGraphView__SignatureDefEntry *e = sig_at(sm, mg, sig);
  if (!e || !e->value) return 0;
  return (int)(is_output ? e->value->n_outputs : e->value->n_inputs);
}

TFC_EXPORT int TFC_SavedModelSignatureTensor(const TFC_SavedModel *sm, int mg, int sig, int is_output, int i,
                                             TFC_SignatureTensor *out) {
  if (!out || i < 0 || i >= TFC_SavedModelSignatureNumTensors(sm, mg, sig, is_output)) return 0;
  const Tensorflow__SignatureDef *d = sm->views[mg]->signature_def[sig]->value;
  const char *key = is_output ? d->outputs[i]->key : d->inputs[i]->key;
  const Tensorflow__SignatureTensorInfo *t = is_output ? d->outputs[i]->value : d->inputs[i]->value;
  memset(out, 0, sizeof *out);
  out->key = key;
  out->name = "";
  out->num_dims = -1;
  if (!t) return 1;
  out->dtype = (TF_DataType)t->dtype;
  if (t->encoding_case == TENSORFLOW__SIGNATURE_TENSOR_INFO__ENCODING_NAME) {
    out->kind = TFC_SIGNATURE_TENSOR_DENSE;
    out->name = t->name;
  } else if (t->encoding_case == TENSORFLOW__SIGNATURE_TENSOR_INFO__ENCODING_COO_SPARSE) {
    out->kind = TFC_SIGNATURE_TENSOR_COO_SPARSE;
    out->name = t->coo_sparse->values_tensor_name;
  } else if (t->encoding_case == TENSORFLOW__SIGNATURE_TENSOR_INFO__ENCODING_COMPOSITE_TENSOR) {
    out->kind = TFC_SIGNATURE_TENSOR_COMPOSITE;
  }
  const Tensorflow__TensorShapeProto *sh = t->tensor_shape;
  if (sh && !sh->unknown_rank) out->num_dims = (int)sh->n_dim;
  return 1;
}

TFC_EXPORT int64_t TFC_SavedModelSignatureTensorDim(const TFC_SavedModel *sm, int mg, int sig, int is_output, int i,
                                                    int d) {
  TFC_SignatureTensor t;
  if (!TFC_SavedModelSignatureTensor(sm, mg, sig, is_output, i, &t) || d < 0 || d >= t.num_dims) return -1;
  const Tensorflow__SignatureDef *def = sm->views[mg]->signature_def[sig]->value;
  const Tensorflow__SignatureTensorInfo *ti = is_output ? def->outputs[i]->value : def->inputs[i]->value;
  return ti->tensor_shape->dim[d]->size;
}


TFC_EXPORT void TFC_SavedModelToBuffer(const TFC_SavedModel *sm, TF_Buffer *output, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  void *out = NULL;
  size_t len = 0;
  if (!sm || !output)
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_SavedModelToBuffer: NULL SavedModel or buffer");
  else if (tfc_pb_pack(&sm->pb->base, &out, &len, s) == 0)
    tfc_capi_fill_buffer(output, out, len, s);
  tfc_status_fini(&scratch);
}
