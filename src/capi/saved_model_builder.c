/*
 * capi/saved_model_builder — SavedModel directories written for tfc/saved_model.h: TF 1.x's
 * SavedModelBuilder (TFC_NewSavedModelBuilder ... TFC_SavedModelBuilderSave) and
 * TFC_SaveSavedModel (simple_save's one MetaGraphDef).
 *
 * Each MetaGraphDef is TFC_ExportMetaGraph's (tfc/meta_graph.h) serialized, followed by a
 * serialized SavedModelMetaGraphView holding the tags (meta_info_def field 1), the signature map
 * (field 5) and the "saved_model_assets" collection (field 4): protobuf readers merge a
 * message's repeated occurrences of an embedded message field and append repeated fields and
 * map entries, so the two concatenated parse as one MetaGraphDef with all of them (TF's and
 * tfc's readers alike). The first MetaGraphDef's call saves the variables through a saver
 * (tfc/saver.h) to "<dir>/variables/variables"; later ones only record their saver's SaverDef
 * (TF's add_meta_graph), so every MetaGraphDef restores the one checkpoint.
 *
 * Assets are TF 1.x's: each is a string scalar Const whose value is a file's path; the file is
 * copied to "<dir>/assets/<basename>" (a basename already taken in the same call by a file with
 * other contents gets "_1", "_2", ...; a source that does not exist is not copied, as TF's
 * builder skips it, so loading then fails in the op that reads it, naming the file) and the
 * MetaGraphDef's "saved_model_assets" collection gets an Any-wrapped AssetFileDef {tensor_info
 * {name "<const>:0"}, filename}, which loaders read to feed the Const "<export dir>/assets/
 * <filename>" (capi/saved_model.c). saved_model.pb (or, as text, saved_model.pbtxt: the
 * binary form unpacked as a SavedModelText and printed by proto/pb_text.h) is written by
 * TFC_SavedModelBuilderSave through a temporary file renamed into place.
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

#include "base/strbuf.h"
#include "capi/capi_internal.h"
#include "capi/saved_model_internal.h"
#include "io/file.h"
#include "proto/pb_text.h"
#include "proto/pb_util.h"
#include "tensor/dtype.h"
#include "tensorflow/saved_model_text.pb-c.h"
#include "tfc/meta_graph.h"
#include "tfc/train.h"

struct TFC_SavedModelBuilder {
  char *dir;
  ProtobufCBinaryData *meta_graphs; /* serialized MetaGraphDefs, malloc'd */
  size_t n;
  int has_variables;
  char **copied; /* destination paths of the asset files copied so far */
  size_t n_copied;
};

/* One call's assets: name[i] (the file name under assets/) from source[i]; any[i] the
 * serialized Any of the AssetFileDef of asset tensor i. Every string is malloc'd. */
typedef struct asset_list {
  char **name, **source;
  size_t n_files;
  ProtobufCBinaryData *any;
  size_t n;
} asset_list;

static void asset_list_free(asset_list *l) {
  for (size_t i = 0; i < l->n_files; i++) {
    free(l->name[i]);
    free(l->source[i]);
  }
  for (size_t i = 0; i < l->n; i++) free(l->any[i].data);
  free(l->name);
  free(l->source);
  free(l->any);
  memset(l, 0, sizeof *l);
}

/* 1 when the two files have the same bytes (0 also when either cannot be read). */
static int same_contents(const char *a, const char *b) {
  char *da = NULL, *db = NULL;
  size_t la = 0, lb = 0;
  int same = tfc_file_read_all(a, &da, &la) == 0 && tfc_file_read_all(b, &db, &lb) == 0 && la == lb &&
             (la == 0 || memcmp(da, db, la) == 0);
  free(da);
  free(db);
  return same;
}

/* The path held by the string scalar Const of asset tensor o (malloc'd into *out), with TF's
 * builder's checks: INVALID_ARGUMENT naming the tensor when it is not a Const, not a string or
 * not one element, or its path is empty. */
static int asset_source(TF_Output o, const char *tname, char **out, tfc_status *s) {
  if (strcmp(TF_OperationOpType(o.oper), "Const") != 0) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Asset path tensor %s must be of type constant.Has type %s instead.",
                   tname, TF_OperationOpType(o.oper));
    return -1;
  }
  TF_DataType dt = TF_OperationOutputType(o);
  if (dt != TF_STRING) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Asset path tensor %s` must be of dtype string.Has type %s instead.",
                   tname, tfc_dtype_name((int)dt));
    return -1;
  }
  TF_Status *st = TF_NewStatus();
  TF_Tensor *t = NULL;
  int rc = -1;
  TF_OperationGetAttrTensor(o.oper, "value", &t, st);
  if (TF_GetCode(st) != TF_OK || !t) {
    tfc_status_set(s, (int)TF_GetCode(st), "%s", TF_Message(st));
  } else if (TF_TensorElementCount(t) != 1) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Asset path tensor %s must be a scalar.", tname);
  } else {
    const char *data = TF_TensorData(t), *dst = NULL;
    size_t size = TF_TensorByteSize(t), dst_len = 0;
    uint64_t off = 0;
    if (size >= 8) memcpy(&off, data, sizeof off);
    if (size >= 8 && off <= size - 8) TF_StringDecode(data + 8 + off, size - 8 - off, &dst, &dst_len, st);
    if (TF_GetCode(st) != TF_OK || !dst || dst_len == 0) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "Asset filepath tensor %s in is invalid.", tname);
    } else if (!(*out = strndup(dst, dst_len))) {
      TFC_OOM(s);
    } else {
      rc = 0;
    }
  }
  TF_DeleteTensor(t);
  TF_DeleteStatus(st);
  return rc;
}

/* Appends an Any-wrapped AssetFileDef {tensor_info {name tname}, filename name}. */
static int add_asset_any(asset_list *l, const char *tname, const char *name, tfc_status *s) {
  Tensorflow__AssetFileDef def;
  Tensorflow__AssetTensorInfo ti;
  Tensorflow__AssetAny any;
  tensorflow__asset_file_def__init(&def);
  tensorflow__asset_tensor_info__init(&ti);
  tensorflow__asset_any__init(&any);
  ti.name = (char *)tname;
  def.tensor_info = &ti;
  def.filename = (char *)name;
  void *inner = NULL, *outer = NULL;
  size_t inner_len = 0, outer_len = 0;
  if (tfc_pb_pack(&def.base, &inner, &inner_len, s)) return -1;
  any.type_url = "type.googleapis.com/tensorflow.AssetFileDef";
  any.value = (ProtobufCBinaryData){inner_len, inner};
  int rc = tfc_pb_pack(&any.base, &outer, &outer_len, s);
  free(inner);
  if (rc) return -1;
  l->any[l->n++] = (ProtobufCBinaryData){outer_len, outer};
  return 0;
}

static size_t find_name(const asset_list *l, const char *name) {
  size_t i = 0;
  while (i < l->n_files && strcmp(l->name[i], name) != 0) i++;
  return i;
}

/* The file name under assets/ for source (TF's get_asset_filename_to_add; *out borrowed from
 * l): its basename, or with "_k" when that name is taken in l by another file with other
 * contents. Adds it to l's files unless there. */
static int asset_name(asset_list *l, const char *source, const char **out, tfc_status *s) {
  const char *slash = strrchr(source, '/');
  const char *base = slash ? slash + 1 : source;
  size_t i = find_name(l, base);
  if (i < l->n_files && (strcmp(l->source[i], source) == 0 || same_contents(l->source[i], source))) {
    *out = l->name[i];
    return 0;
  }
  size_t cap = strlen(base) + 24;
  char *name = malloc(cap), *src = strdup(source);
  if (!name || !src) {
    free(name);
    free(src);
    TFC_OOM(s);
    return -1;
  }
  snprintf(name, cap, "%s", base);
  for (int k = 1; i < l->n_files; k++) {
    snprintf(name, cap, "%s_%d", base, k);
    i = find_name(l, name);
  }
  l->name[l->n_files] = name;
  l->source[l->n_files++] = src;
  *out = name;
  return 0;
}

/* The assets of one call: checks each tensor, names its file and makes its Any entry. */
static int asset_list_make(const TF_Output *assets, int n, asset_list *l, tfc_status *s) {
  memset(l, 0, sizeof *l);
  if (n <= 0) return 0;
  if (!assets) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "NULL assets with num_assets > 0");
    return -1;
  }
  l->name = calloc((size_t)n, sizeof *l->name);
  l->source = calloc((size_t)n, sizeof *l->source);
  l->any = calloc((size_t)n, sizeof *l->any);
  if (!l->name || !l->source || !l->any) {
    TFC_OOM(s);
    return -1;
  }
  for (int i = 0; i < n; i++) {
    TF_Output o = assets[i];
    if (!o.oper || o.index < 0 || o.index >= TF_OperationNumOutputs(o.oper)) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "Asset path tensor %d must be a Tensor.", i);
      return -1;
    }
    char tname[1024], *source = NULL;
    const char *name = NULL;
    snprintf(tname, sizeof tname, "%s:%d", TF_OperationName(o.oper), o.index);
    if (asset_source(o, tname, &source, s)) return -1;
    int rc = asset_name(l, source, &name, s);
    free(source);
    if (rc || add_asset_any(l, tname, name, s)) return -1;
  }
  return 0;
}

/* Copies each asset file to <dir>/assets/ unless its source is missing, is the destination,
 * or the destination was copied before (TF's copy_assets_to_destination_dir). */
static int copy_assets(TFC_SavedModelBuilder *b, const asset_list *l, tfc_status *s) {
  if (!l->n_files) return 0;
  tfc_strbuf p;
  tfc_strbuf_init(&p);
  tfc_strbuf_printf(&p, "%s/assets", b->dir);
  int rc = tfc_strbuf_ok(&p) ? 0 : -1;
  if (!rc && mkdir(tfc_strbuf_str(&p), 0777) != 0 && errno != EEXIST) {
    tfc_status_set(s, errno == EACCES ? TFC_PERMISSION_DENIED : TFC_FAILED_PRECONDITION, "%s: %s",
                   tfc_strbuf_str(&p), strerror(errno));
    rc = -1;
  }
  for (size_t i = 0; !rc && i < l->n_files; i++) {
    p.len = 0;
    tfc_strbuf_printf(&p, "%s/assets/%s", b->dir, l->name[i]);
    if (!tfc_strbuf_ok(&p)) break;
    const char *dest = tfc_strbuf_str(&p);
    size_t k = 0;
    while (k < b->n_copied && strcmp(b->copied[k], dest) != 0) k++;
    if (k < b->n_copied || strcmp(dest, l->source[i]) == 0 || access(l->source[i], F_OK) != 0) continue;
    char *data = NULL;
    size_t len = 0;
    int r = tfc_file_read_all(l->source[i], &data, &len);
    if (r == -2) TFC_OOM(s);
    else if (r) tfc_status_set(s, TFC_NOT_FOUND, "%s; %s", l->source[i], strerror(errno ? errno : EIO));
    if (r || tfc_sm_write_file(dest, data, len, s)) {
      free(data);
      rc = -1;
      break;
    }
    free(data);
    char **c = realloc(b->copied, sizeof *c * (b->n_copied + 1));
    char *d = strdup(dest);
    if (c) b->copied = c;
    if (!c || !d) {
      free(d);
      break;
    }
    b->copied[b->n_copied++] = d;
  }
  if (!rc && !tfc_strbuf_ok(&p)) rc = -1;
  if (rc && tfc_status_ok(s)) TFC_OOM(s);
  tfc_strbuf_fini(&p);
  return rc;
}

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
                               int num_sigs, const asset_list *assets, void **out, size_t *out_len, tfc_status *s) {
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
  Tensorflow__SavedModelMetaGraphView__CollectionDefEntry entry, *entries[1] = {&entry};
  Tensorflow__CollectionDef coll;
  Tensorflow__CollectionDef__AnyList any_list;
  if (assets->n) {
    tensorflow__saved_model_meta_graph_view__collection_def_entry__init(&entry);
    tensorflow__collection_def__init(&coll);
    tensorflow__collection_def__any_list__init(&any_list);
    entry.key = "saved_model_assets";
    entry.value = &coll;
    coll.kind_case = TENSORFLOW__COLLECTION_DEF__KIND_ANY_LIST;
    coll.any_list = &any_list;
    any_list.n_value = assets->n;
    any_list.value = assets->any;
    v.n_collection_def = 1;
    v.collection_def = entries;
  }
  if (tfc_pb_arena_status(&a, s) == 0) rc = tfc_pb_pack(&v.base, out, out_len, s) == 0 ? 0 : -1;
out:
  if (rc && tfc_status_ok(s)) tfc_pb_arena_status(&a, s);
  if (rc && tfc_status_ok(s)) TFC_OOM(s);
  tfc_pb_arena_fini(&a);
  return rc;
}

/* Checks the arguments TF's builder checks (the assets: asset_list_make). */
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
int tfc_sm_write_file(const char *path, const void *data, size_t len, tfc_status *s) {
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


TFC_EXPORT TFC_SavedModelBuilder *TFC_NewSavedModelBuilder(const char *export_dir, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  TFC_SavedModelBuilder *b = NULL;
  if (!export_dir || !export_dir[0]) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_NewSavedModelBuilder: NULL or empty export_dir");
  } else if (!missing_or_empty(export_dir)) {
    tfc_status_set(s, TFC_ALREADY_EXISTS,
                   "Export directory %s already exists, and isn't empty. Please choose a different export "
                   "directory, or delete all the contents of the specified directory.",
                   export_dir);
  } else if (make_dirs(export_dir, s) == 0) {
    b = calloc(1, sizeof *b);
    if (b && !(b->dir = strdup(export_dir))) {
      free(b);
      b = NULL;
    }
    if (!b) TFC_OOM(s);
  }
  tfc_status_fini(&scratch);
  return b;
}

TFC_EXPORT void TFC_DeleteSavedModelBuilder(TFC_SavedModelBuilder *b) {
  if (!b) return;
  for (size_t i = 0; i < b->n; i++) free(b->meta_graphs[i].data);
  for (size_t i = 0; i < b->n_copied; i++) free(b->copied[i]);
  free(b->meta_graphs);
  free(b->copied);
  free(b->dir);
  free(b);
}

/* One MetaGraphDef: the variables saved first when session is non-NULL. */
static int add_meta_graph(TFC_SavedModelBuilder *b, TF_Session *session, TF_Graph *graph, TFC_Saver *saver,
                          const TFC_SavedModelMetaGraphSpec *spec, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  TFC_Saver *own_saver = NULL;
  TFC_MetaGraph *mg = NULL;
  TF_Buffer *buf = NULL;
  void *extra = NULL;
  char *mgbytes = NULL, *path = NULL;
  size_t extra_len = 0;
  asset_list assets;
  memset(&assets, 0, sizeof assets);
  int ok = 0;
  if (!graph || !spec) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "NULL graph or MetaGraphDef spec");
    goto out;
  }
  if (!b->has_variables && !session) {
    tfc_status_set(s, TFC_FAILED_PRECONDITION,
                   "Graph state including variables and assets has not been saved yet. Please invoke "
                   "`add_meta_graph_and_variables()` first.");
    goto out;
  }
  if (b->has_variables && session) {
    tfc_status_set(s, TFC_FAILED_PRECONDITION,
                   "Graph state including variables and assets has already been saved. Please invoke "
                   "`add_meta_graph()` instead.");
    goto out;
  }
  if (check_args(graph, spec->tags, spec->num_tags, spec->signatures, spec->num_signatures, spec->main_op, s))
    goto out;
  if (asset_list_make(spec->assets, spec->num_assets, &assets, s) || copy_assets(b, &assets, s)) goto out;
  if (!(path = malloc(strlen(b->dir) + 32))) {
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
    if (session) {
      sprintf(path, "%s/variables/variables", b->dir);
      if (!TFC_SaverSaveWithOptions(saver, session, path, -1, NULL, NULL, TFC_SAVER_NO_STATE, NULL, 0, status))
        goto out;
    }
    TFC_SaverGetDef(saver, &sd);
  }
  mg = TFC_ExportMetaGraph(graph, saver ? &sd : NULL, NULL, 0, TFC_META_GRAPH_CLEAR_DEVICES, status);
  if (!mg) goto out;
  if (spec->add_collections) {
    spec->add_collections(mg, spec->add_collections_arg, status);
    if (!tfc_status_ok(s)) goto out;
  }
  if (spec->main_op) {
    TFC_MetaGraphAddNodeList(mg, "saved_model_main_op", &spec->main_op, 1, status);
    if (!tfc_status_ok(s)) goto out;
  }
  buf = TF_NewBuffer();
  TFC_MetaGraphToBuffer(mg, buf, status);
  if (!tfc_status_ok(s)) goto out;
  if (tags_and_signatures(graph, spec->tags, spec->num_tags, spec->signatures, spec->num_signatures, &assets, &extra,
                          &extra_len, s))
    goto out;
  ProtobufCBinaryData *mgs = realloc(b->meta_graphs, sizeof *mgs * (b->n + 1));
  if (mgs) b->meta_graphs = mgs;
  if (!mgs || !(mgbytes = malloc(buf->length + extra_len + 1))) {
    TFC_OOM(s);
    goto out;
  }
  memcpy(mgbytes, buf->data, buf->length);
  memcpy(mgbytes + buf->length, extra, extra_len);
  b->meta_graphs[b->n++] = (ProtobufCBinaryData){buf->length + extra_len, (uint8_t *)mgbytes};
  mgbytes = NULL;
  if (session) b->has_variables = 1;
  ok = 1;
out:
  asset_list_free(&assets);
  TFC_DeleteSaver(own_saver);
  TFC_DeleteMetaGraph(mg);
  TF_DeleteBuffer(buf);
  free(extra);
  free(mgbytes);
  free(path);
  return ok;
}

/* Runs add_meta_graph with a status of its own when status is NULL. */
static int add_checked(TFC_SavedModelBuilder *b, TF_Session *session, TF_Graph *graph, TFC_Saver *saver,
                       const TFC_SavedModelMetaGraphSpec *spec, TF_Status *status) {
  TF_Status *own = status ? NULL : TF_NewStatus();
  int ok;
  if (!b) {
    tfc_status_set(tfc_capi_status(status ? status : own), TFC_INVALID_ARGUMENT, "NULL SavedModel builder");
    ok = 0;
  } else {
    ok = add_meta_graph(b, session, graph, saver, spec, status ? status : own);
  }
  TF_DeleteStatus(own);
  return ok;
}

TFC_EXPORT int TFC_SavedModelBuilderAddMetaGraphAndVariables(TFC_SavedModelBuilder *b, TF_Session *session,
                                                             TF_Graph *graph, TFC_Saver *saver,
                                                             const TFC_SavedModelMetaGraphSpec *spec,
                                                             TF_Status *status) {
  if (!session) {
    tfc_status scratch;
    tfc_status_set(tfc_capi_status_or(status, &scratch), TFC_INVALID_ARGUMENT,
                   "TFC_SavedModelBuilderAddMetaGraphAndVariables: NULL session");
    tfc_status_fini(&scratch);
    return 0;
  }
  return add_checked(b, session, graph, saver, spec, status);
}

TFC_EXPORT int TFC_SavedModelBuilderAddMetaGraph(TFC_SavedModelBuilder *b, TF_Graph *graph, TFC_Saver *saver,
                                                 const TFC_SavedModelMetaGraphSpec *spec, TF_Status *status) {
  return add_checked(b, NULL, graph, saver, spec, status);
}

TFC_EXPORT int TFC_SavedModelBuilderSave(TFC_SavedModelBuilder *b, int as_text, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  void *packed = NULL;
  size_t packed_len = 0;
  char *path = NULL;
  ProtobufCMessage *text = NULL;
  tfc_strbuf out;
  tfc_strbuf_init(&out);
  int ok = 0;
  if (!b) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "NULL SavedModel builder");
    goto done;
  }
  Tensorflow__SavedModel pb;
  tensorflow__saved_model__init(&pb);
  pb.saved_model_schema_version = 1;
  pb.n_meta_graphs = b->n;
  pb.meta_graphs = b->meta_graphs;
  if (tfc_pb_pack(&pb.base, &packed, &packed_len, s)) goto done;
  if (!(path = malloc(strlen(b->dir) + 24))) {
    TFC_OOM(s);
    goto done;
  }
  sprintf(path, "%s/saved_model.pb%s", b->dir, as_text ? "txt" : "");
  if (as_text) {
    text = tfc_pb_unpack(&tensorflow__saved_model_text__descriptor, packed, packed_len, "SavedModel", s);
    if (!text) goto done;
    tfc_pb_text_write(text, &out);
    if (!tfc_strbuf_ok(&out)) {
      TFC_OOM(s);
      goto done;
    }
    if (tfc_sm_write_file(path, out.data ? out.data : "", out.len, s)) goto done;
  } else if (tfc_sm_write_file(path, packed, packed_len, s)) {
    goto done;
  }
  ok = 1;
done:
  if (text) protobuf_c_message_free_unpacked(text, NULL);
  tfc_strbuf_fini(&out);
  free(packed);
  free(path);
  tfc_status_fini(&scratch);
  return ok;
}

TFC_EXPORT int TFC_SaveSavedModel(TF_Session *session, TF_Graph *graph, TFC_Saver *saver, const char *export_dir,
                                  const char *const *tags, int num_tags, const TFC_SignatureSpec *sigs,
                                  int num_sigs, const char *main_op, TF_Status *status) {
  TF_Status *own_status = status ? NULL : TF_NewStatus();
  if (!status) status = own_status;
  tfc_status *s = tfc_capi_status(status);
  TFC_SavedModelBuilder *b = NULL;
  int ok = 0;
  if (!session || !graph || !export_dir || !export_dir[0]) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TFC_SaveSavedModel: NULL session, graph or export_dir");
    goto out;
  }
  /* the arguments are checked before the directory is made */
  if (check_args(graph, tags, num_tags, sigs, num_sigs, main_op, s)) goto out;
  TFC_SavedModelMetaGraphSpec spec = {tags, num_tags, sigs, num_sigs, main_op, NULL, 0, NULL, NULL};
  ok = (b = TFC_NewSavedModelBuilder(export_dir, status)) &&
       TFC_SavedModelBuilderAddMetaGraphAndVariables(b, session, graph, saver, &spec, status) &&
       TFC_SavedModelBuilderSave(b, 0, status);
out:
  TFC_DeleteSavedModelBuilder(b);
  TF_DeleteStatus(own_status);
  return ok;
}
