/*
 * capi/saved_model_io — SavedModel directories read and written for tfc/saved_model.h (and
 * read for the loader, capi/saved_model.c).
 *
 * Reading: saved_model.pb is parsed as a SavedModel whose MetaGraphDefs stay bytes (the
 * loader hands the chosen one on as written), and each is parsed again as a
 * SavedModelMetaGraphView (tags, signatures, assets: src/proto/tensorflow/saved_model.proto);
 * signatures and their tensors are sorted by key once, after parsing.
 *
 * Writing: the MetaGraphDef is TFC_ExportMetaGraph's (tfc/meta_graph.h) serialized, followed by
 * a serialized SavedModelMetaGraphView holding the tags (meta_info_def field 1) and the
 * signature map (field 5): protobuf readers merge a message's repeated occurrences of an
 * embedded message field and append repeated fields, so the two concatenated parse as one
 * MetaGraphDef with both (TF's and tfc's readers alike). The variables go through a saver
 * (tfc/saver.h) to "<dir>/variables/variables" before saved_model.pb is written (a temporary
 * file renamed into place).
 *
 * Ownership and errors: see tfc/saved_model.h; internal helpers return 0 or -1 with the
 * status set.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "capi/capi_internal.h"
#include "capi/saved_model_internal.h"
#include "proto/pb_util.h"
#include "tfc/meta_graph.h"
#include "tfc/train.h"

/* The file's bytes (caller frees *out): 0, or -1 when it does not exist, -2 out of memory,
 * -3 a read error. */
static int read_file(const char *path, char **out, size_t *out_len) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  char *buf = NULL;
  size_t len = 0, cap = 0, got;
  int rc = 0;
  do {
    if (len == cap) {
      char *b = realloc(buf, cap = cap ? 2 * cap : 1 << 16);
      if (!b) {
        rc = -2;
        break;
      }
      buf = b;
    }
    got = fread(buf + len, 1, cap - len, f);
    len += got;
  } while (got > 0);
  if (!rc && ferror(f)) rc = -3;
  fclose(f);
  if (rc) {
    free(buf);
    return rc;
  }
  *out = buf;
  *out_len = len;
  return 0;
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
  int rc = pb ? (sprintf(pb, "%s/saved_model.pb", export_dir), read_file(pb, &data, &len)) : -2;
  if (rc == -1) {
    strcat(pb, "txt");
    if (access(pb, F_OK) == 0)
      tfc_status_set(s, TFC_UNIMPLEMENTED, "%s: text-format SavedModels are not supported; convert it to saved_model.pb",
                     pb);
    else
      tfc_status_set(s, TFC_NOT_FOUND, "Could not find SavedModel .pb or .pbtxt at supplied export directory path: %s",
                     export_dir);
  } else if (rc == -2) {
    TFC_OOM(s);
  } else if (rc) {
    tfc_status_set(s, TFC_DATA_LOSS, "%s: read error", pb);
  }
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

/* ---- writing ---- */

/* 1 when dir does not exist or is an empty directory. */
static int missing_or_empty(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return errno == ENOENT;
  struct dirent *e;
  int empty = 1;
  while (empty && (e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = 0;
  closedir(d);
  return empty;
}

/* mkdir -p dir. */
static int make_dirs(const char *dir, tfc_status *s) {
  char *p = strdup(dir);
  if (!p) {
    TFC_OOM(s);
    return -1;
  }
  int rc = 0;
  for (char *q = p + 1;; q++) {
    if (*q && *q != '/') continue;
    char c = *q;
    *q = 0;
    if (mkdir(p, 0777) != 0 && errno != EEXIST) {
      tfc_status_set(s, errno == EACCES ? TFC_PERMISSION_DENIED : TFC_FAILED_PRECONDITION, "%s: %s", p,
                     strerror(errno));
      rc = -1;
    }
    *q = c;
    if (!c || rc) break;
  }
  free(p);
  return rc;
}

/* The TensorInfo of output o: its name, dtype and graph shape (arena-allocated). */
static Tensorflow__SignatureTensorInfo *tensor_info(tfc_pb_arena *a, TF_Graph *g, const char *sig, const char *key,
                                                    TF_Output o, tfc_status *s) {
  if (!o.oper || o.index < 0 || o.index >= TF_OperationNumOutputs(o.oper)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "signature '%s': tensor '%s' is not an output in the graph", sig,
                   key ? key : "");
    return NULL;
  }
  Tensorflow__SignatureTensorInfo *t = tfc_pb_alloc(a, sizeof *t);
  Tensorflow__TensorShapeProto *sh = tfc_pb_alloc(a, sizeof *sh);
  const char *op = TF_OperationName(o.oper);
  char *name = tfc_pb_alloc(a, strlen(op) + 16);
  if (!t || !sh || !name) return NULL;
  tensorflow__signature_tensor_info__init(t);
  tensorflow__tensor_shape_proto__init(sh);
  sprintf(name, "%s:%d", op, o.index);
  t->encoding_case = TENSORFLOW__SIGNATURE_TENSOR_INFO__ENCODING_NAME;
  t->name = name;
  t->dtype = (Tensorflow__DataType)TF_OperationOutputType(o);
  t->tensor_shape = sh;
  TF_Status *st = TF_NewStatus();
  int nd = TF_GraphGetTensorNumDims(g, o, st);
  if (nd < 0 || TF_GetCode(st) != TF_OK) {
    sh->unknown_rank = 1;
  } else if (nd > 0) {
    int64_t *dims = tfc_pb_alloc(a, sizeof *dims * (size_t)nd);
    sh->dim = tfc_pb_alloc(a, sizeof *sh->dim * (size_t)nd);
    if (dims && sh->dim) {
      TF_GraphGetTensorShape(g, o, dims, nd, st);
      for (int i = 0; i < nd; i++) {
        Tensorflow__TensorShapeProto__Dim *d = tfc_pb_alloc(a, sizeof *d);
        if (!d) break;
        tensorflow__tensor_shape_proto__dim__init(d);
        d->size = dims[i];
        sh->dim[sh->n_dim++] = d;
      }
    }
  }
  TF_DeleteStatus(st);
  return a->oom ? NULL : t;
}

/* The serialized tags and signatures to append to the exported MetaGraphDef (*out malloc'd). */
static int tags_and_signatures(TF_Graph *g, const char *const *tags, int num_tags, const TFC_SignatureSpec *sigs,
                               int num_sigs, void **out, size_t *out_len, tfc_status *s) {
  tfc_pb_arena a;
  tfc_pb_arena_init(&a);
  Tensorflow__SavedModelMetaGraphView v;
  Tensorflow__SavedModelMetaGraphView__MetaInfoTags info;
  tensorflow__saved_model_meta_graph_view__init(&v);
  tensorflow__saved_model_meta_graph_view__meta_info_tags__init(&info);
  v.meta_info_def = &info;
  info.n_tags = (size_t)num_tags;
  info.tags = (char **)tags;
  int rc = -1;
  v.signature_def = tfc_pb_alloc(&a, sizeof *v.signature_def * (size_t)(num_sigs ? num_sigs : 1));
  for (int i = 0; v.signature_def && i < num_sigs; i++) {
    const TFC_SignatureSpec *sp = &sigs[i];
    Tensorflow__SavedModelMetaGraphView__SignatureDefEntry *e = tfc_pb_alloc(&a, sizeof *e);
    Tensorflow__SignatureDef *d = tfc_pb_alloc(&a, sizeof *d);
    if (!e || !d) goto out;
    tensorflow__saved_model_meta_graph_view__signature_def_entry__init(e);
    tensorflow__signature_def__init(d);
    e->key = (char *)sp->key;
    e->value = d;
    d->method_name = (char *)(sp->method_name ? sp->method_name : "tensorflow/serving/predict");
    d->inputs = tfc_pb_alloc(&a, sizeof *d->inputs * (size_t)(sp->num_inputs + 1));
    d->outputs = tfc_pb_alloc(&a, sizeof *d->outputs * (size_t)(sp->num_outputs + 1));
    if (!d->inputs || !d->outputs) goto out;
    for (int k = 0; k < sp->num_inputs + sp->num_outputs; k++) {
      int is_out = k >= sp->num_inputs, j = is_out ? k - sp->num_inputs : k;
      const char *key = is_out ? sp->output_keys[j] : sp->input_keys[j];
      if (!key || !key[0]) {
        tfc_status_set(s, TFC_INVALID_ARGUMENT, "signature '%s': an empty %s key", sp->key,
                       is_out ? "output" : "input");
        goto out;
      }
      Tensorflow__SignatureTensorInfo *t = tensor_info(&a, g, sp->key, key, is_out ? sp->outputs[j] : sp->inputs[j], s);
      Tensorflow__SignatureDef__InputsEntry *en = tfc_pb_alloc(&a, sizeof *en);
      if (!t || !en) goto out;
      /* the inputs and outputs entries have one layout; each is packed by its own descriptor */
      if (is_out) {
        tensorflow__signature_def__outputs_entry__init((Tensorflow__SignatureDef__OutputsEntry *)en);
        d->outputs[d->n_outputs++] = (Tensorflow__SignatureDef__OutputsEntry *)en;
      } else {
        tensorflow__signature_def__inputs_entry__init(en);
        d->inputs[d->n_inputs++] = en;
      }
      en->key = (char *)key;
      en->value = t;
    }
    v.signature_def[v.n_signature_def++] = e;
  }
  if (tfc_pb_arena_status(&a, s) == 0) rc = tfc_pb_pack(&v.base, out, out_len, s) == 0 ? 0 : -1;
out:
  if (rc && tfc_status_ok(s)) tfc_pb_arena_status(&a, s);
  if (rc && tfc_status_ok(s)) TFC_OOM(s);
  tfc_pb_arena_fini(&a);
  return rc;
}

/* Checks the arguments TF's builder checks. */
static int check_args(TF_Graph *g, const char *const *tags, int num_tags, const TFC_SignatureSpec *sigs,
                      int num_sigs, const char *main_op, tfc_status *s) {
  if (num_tags <= 0 || !tags) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "a SavedModel's MetaGraphDef needs at least one tag");
    return -1;
  }
  for (int i = 0; i < num_tags; i++)
    if (!tags[i] || !tags[i][0]) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "tag %d is empty", i);
      return -1;
    }
  if (num_sigs > 0 && !sigs) num_sigs = -1;
  for (int i = 0; i < num_sigs; i++) {
    const char *k = sigs[i].key;
    if (!k || !k[0]) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "signature %d has an empty key", i);
      return -1;
    }
    if (strcmp(k, "__saved_model_init_op") == 0 || strcmp(k, "__saved_model_train_op") == 0) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "Signature key '%s' is reserved", k);
      return -1;
    }
    for (int j = 0; j < i; j++)
      if (strcmp(sigs[j].key, k) == 0) {
        tfc_status_set(s, TFC_INVALID_ARGUMENT, "signature key '%s' is given twice", k);
        return -1;
      }
    if ((sigs[i].num_inputs > 0 && (!sigs[i].inputs || !sigs[i].input_keys)) ||
        (sigs[i].num_outputs > 0 && (!sigs[i].outputs || !sigs[i].output_keys)) || sigs[i].num_inputs < 0 ||
        sigs[i].num_outputs < 0) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "signature '%s': NULL or negative inputs or outputs", k);
      return -1;
    }
  }
  if (num_sigs < 0) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "NULL signatures with num_signatures > 0");
    return -1;
  }
  if (main_op && !TF_GraphOperationByName(g, main_op)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "main op '%s' is not in the graph", main_op);
    return -1;
  }
  return 0;
}

/* Writes bytes to path through path.tmp renamed into place. */
static int write_file(const char *path, const void *data, size_t len, tfc_status *s) {
  size_t pl = strlen(path);
  char *tmp = malloc(pl + 5);
  if (!tmp) {
    TFC_OOM(s);
    return -1;
  }
  sprintf(tmp, "%s.tmp", path);
  FILE *f = fopen(tmp, "wb");
  int bad = !f;
  if (f) {
    bad = fwrite(data, 1, len, f) != len;
    bad |= fclose(f) != 0;
  }
  if (!bad) bad = rename(tmp, path) != 0;
  if (bad) {
    tfc_status_set(s, errno == EACCES ? TFC_PERMISSION_DENIED : TFC_FAILED_PRECONDITION, "%s: %s", path,
                   strerror(errno));
    unlink(tmp);
  }
  free(tmp);
  return bad ? -1 : 0;
}

TFC_EXPORT int TFC_SaveSavedModel(TF_Session *session, TF_Graph *graph, TFC_Saver *saver, const char *export_dir,
                                  const char *const *tags, int num_tags, const TFC_SignatureSpec *sigs,
                                  int num_sigs, const char *main_op, TF_Status *status) {
  TF_Status *own_status = status ? NULL : TF_NewStatus();
  if (!status) status = own_status;
  tfc_status *s = tfc_capi_status(status);
  TFC_Saver *own_saver = NULL;
  TFC_MetaGraph *mg = NULL;
  TF_Buffer *buf = NULL;
  void *extra = NULL, *packed = NULL;
  char *mgbytes = NULL, *path = NULL;
  size_t extra_len = 0, packed_len = 0;
  int ok = 0;
  if (!session || !graph || !export_dir || !export_dir[0]) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_SaveSavedModel: NULL session, graph or export_dir");
    goto out;
  }
  if (check_args(graph, tags, num_tags, sigs, num_sigs, main_op, s)) goto out;
  if (!missing_or_empty(export_dir)) {
    tfc_status_set(s, TFC_ALREADY_EXISTS,
                   "Export directory %s already exists, and isn't empty. Please choose a different export "
                   "directory, or delete all the contents of the specified directory.",
                   export_dir);
    goto out;
  }
  if (make_dirs(export_dir, s)) goto out;
  if (!(path = malloc(strlen(export_dir) + 32))) {
    TFC_OOM(s);
    goto out;
  }
  if (!saver) {
    TFC_Scope *root = TFC_NewRootScope(graph);
    own_saver = root ? TFC_NewSaver(root, NULL, NULL, 0, 5, status) : NULL;
    TFC_DeleteScope(root);
    if (!own_saver && strcmp(TF_Message(status), "No variables to save") == 0) tfc_status_clear(s);
    if (!tfc_status_ok(s)) goto out;
    saver = own_saver;
  }
  TFC_SaverDef sd;
  if (saver) {
    sprintf(path, "%s/variables/variables", export_dir);
    if (!TFC_SaverSaveWithOptions(saver, session, path, -1, NULL, NULL, TFC_SAVER_NO_STATE, NULL, 0, status))
      goto out;
    TFC_SaverGetDef(saver, &sd);
  }
  mg = TFC_ExportMetaGraph(graph, saver ? &sd : NULL, NULL, 0, TFC_META_GRAPH_CLEAR_DEVICES, status);
  if (!mg) goto out;
  if (main_op) {
    TFC_MetaGraphAddNodeList(mg, "saved_model_main_op", &main_op, 1, status);
    if (!tfc_status_ok(s)) goto out;
  }
  buf = TF_NewBuffer();
  TFC_MetaGraphToBuffer(mg, buf, status);
  if (!tfc_status_ok(s)) goto out;
  if (tags_and_signatures(graph, tags, num_tags, sigs, num_sigs, &extra, &extra_len, s)) goto out;
  if (!(mgbytes = malloc(buf->length + extra_len + 1))) {
    TFC_OOM(s);
    goto out;
  }
  memcpy(mgbytes, buf->data, buf->length);
  memcpy(mgbytes + buf->length, extra, extra_len);
  Tensorflow__SavedModel pb;
  tensorflow__saved_model__init(&pb);
  ProtobufCBinaryData one = {buf->length + extra_len, (uint8_t *)mgbytes};
  pb.saved_model_schema_version = 1;
  pb.n_meta_graphs = 1;
  pb.meta_graphs = &one;
  if (tfc_pb_pack(&pb.base, &packed, &packed_len, s)) goto out;
  sprintf(path, "%s/saved_model.pb", export_dir);
  if (write_file(path, packed, packed_len, s)) goto out;
  ok = 1;
out:
  TFC_DeleteSaver(own_saver);
  TFC_DeleteMetaGraph(mg);
  TF_DeleteBuffer(buf);
  free(extra);
  free(packed);
  free(mgbytes);
  free(path);
  TF_DeleteStatus(own_status);
  return ok;
}
