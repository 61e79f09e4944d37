/*
 * capi/saved_model — TF_LoadSessionFromSavedModel: a session over a SavedModel directory
 * written by TF 1.x's SavedModelBuilder (tf.compat.v1.saved_model.simple_save), with TF
 * 1.15's loader semantics.
 *
 * Steps, each failing with TF's code and the whole call returning NULL:
 *   1. graph must be empty (INVALID_ARGUMENT "Graph is non-empty.");
 *   2. <dir>/saved_model.pb is read as a SavedModel (src/proto/tensorflow/saved_model.proto,
 *      the MetaGraphDefs kept as bytes; DATA_LOSS "Can't parse <file> as binary proto"
 *      when it is not one); with only saved_model.pbtxt: UNIMPLEMENTED (text
 *      format is not read); neither: NOT_FOUND "Could not find SavedModel .pb or .pbtxt at
 *      supplied export directory path: <dir>";
 *   3. the first MetaGraphDef whose tags equal the requested ones as a set is chosen
 *      (NOT_FOUND "Could not find meta graph def matching supplied tags: { a b }. ...");
 *   4. it is imported into graph by the meta-graph module (TFC_NewMetaGraphFromBuffer,
 *      TFC_ImportMetaGraph: no prefix), and a session is made with session_options;
 *   5. when <dir>/variables/variables.index exists, the SaverDef's restore_op_name runs with
 *      filename_tensor_name fed "<dir>/variables/variables" (plus the asset feeds);
 *   6. the init op (collection "saved_model_main_op", else "legacy_init_op"; exactly one node
 *      or FAILED_PRECONDITION "Expected exactly one main op in : <dir>") runs with the asset
 *      feeds: each AssetFileDef (the MetaGraphDef's asset_file_def, else the Any entries of
 *      collection "saved_model_assets") feeds tensor_info.name "<dir>/assets/<filename>";
 *   7. meta_graph_def (when non-NULL) receives the chosen MetaGraphDef's bytes as written.
 * Not carried: the signature-based init op (signature_def "__saved_model_init_op", written by
 * TF 2.x's tf.saved_model.save, whose graphs need function calls this runtime lacks).
 *
 * Ownership: the session is the caller's (TF_DeleteSession); on error nothing is left
 * allocated, though graph keeps the nodes imported before the failure (as TF's does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capi/capi_internal.h"
#include "proto/pb_util.h"
#include "tensorflow/saved_model.pb-c.h"
#include "tfc/meta_graph.h"

#define ANY_ASSET_URL_SUFFIX "/tensorflow.AssetFileDef"

/* The file's bytes (caller frees *out) or an errno-style failure: -1 when it does not exist. */
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

static char *join3(const char *a, const char *b, const char *c) {
  size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s%s%s", a, b, c);
  return p;
}

/* Whether the view's tags equal tags[0..n) as sets. */
static int same_tags(const Tensorflow__SavedModelMetaGraphView *v, const char *const *tags, int n) {
  size_t nt = v->meta_info_def ? v->meta_info_def->n_tags : 0;
  char **have = v->meta_info_def ? v->meta_info_def->tags : NULL;
  for (size_t i = 0; i < nt; i++) {
    int found = 0;
    for (int j = 0; j < n && !found; j++) found = strcmp(have[i], tags[j]) == 0;
    if (!found) return 0;
  }
  for (int j = 0; j < n; j++) {
    int found = 0;
    for (size_t i = 0; i < nt && !found; i++) found = strcmp(have[i], tags[j]) == 0;
    if (!found) return 0;
  }
  return 1;
}

/* The graph's output for a tensor name "op:k" ("op" means k = 0); oper NULL when absent. */
static TF_Output output_of(TF_Graph *graph, const char *name) {
  TF_Output o = {NULL, 0};
  const char *colon = strrchr(name, ':');
  size_t n = colon ? (size_t)(colon - name) : strlen(name);
  char *op = strndup(name, n);
  if (!op) return o;
  o.oper = TF_GraphOperationByName(graph, op);
  o.index = colon ? atoi(colon + 1) : 0;
  free(op);
  return o;
}

typedef struct feeds {
  TF_Output *outs;
  TF_Tensor **values;
  int n;
} feeds;

static void feeds_free(feeds *f) {
  for (int i = 0; i < f->n; i++) TF_DeleteTensor(f->values[i]);
  free(f->outs);
  free(f->values);
}

/* Appends name <- text; NOT_FOUND when name is not in graph. */
static int feeds_add(feeds *f, TF_Graph *graph, const char *name, const char *text, TF_Status *status) {
  TF_Output o = name ? output_of(graph, name) : (TF_Output){NULL, 0};
  if (!o.oper) {
    if (!name) name = "";
    tfc_status_set(&status->s, TF_NOT_FOUND, "SavedModel feed tensor '%s' is not in the graph", name);
    return -1;
  }
  TF_Output *outs = realloc(f->outs, sizeof *outs * (size_t)(f->n + 1));
  if (outs) f->outs = outs;
  TF_Tensor **values = realloc(f->values, sizeof *values * (size_t)(f->n + 1));
  if (values) f->values = values;
  if (!outs || !values) {
    TFC_OOM(&status->s);
    return -1;
  }
  TF_Tensor *t = tfc_capi_string_scalar(text, &status->s);
  if (!t) return -1;
  f->outs[f->n] = o;
  f->values[f->n++] = t;
  return 0;
}

/* One AssetFileDef's feed. */
static int add_asset(feeds *f, TF_Graph *graph, const char *dir, const void *data, size_t len, TF_Status *status) {
  Tensorflow__AssetFileDef *a = (Tensorflow__AssetFileDef *)tfc_pb_unpack(&tensorflow__asset_file_def__descriptor,
                                                                        data, len, "AssetFileDef", &status->s);
  if (!a) return -1;
  int rc = 0;
  if (a->tensor_info && a->tensor_info->name[0]) {
    char *path = malloc(strlen(dir) + strlen(a->filename) + 9);
    if (!path) {
      TFC_OOM(&status->s);
      rc = -1;
    } else {
      sprintf(path, "%s/assets/%s", dir, a->filename);
      rc = feeds_add(f, graph, a->tensor_info->name, path, status);
      free(path);
    }
  }
  protobuf_c_message_free_unpacked(&a->base, NULL);
  return rc;
}

/* The asset feeds: the view's asset_file_def, else collection "saved_model_assets". */
static int asset_feeds(feeds *f, TF_Graph *graph, const char *dir, const Tensorflow__SavedModelMetaGraphView *v,
                       const TFC_MetaGraph *mg, TF_Status *status) {
  for (size_t i = 0; i < v->n_asset_file_def; i++)
    if (add_asset(f, graph, dir, v->asset_file_def[i].data, v->asset_file_def[i].len, status)) return -1;
  if (v->n_asset_file_def) return 0;
  if (TFC_MetaGraphCollectionKind(mg, "saved_model_assets") != TFC_COLLECTION_ANY_LIST) return 0;
  int n = TFC_MetaGraphCollectionSize(mg, "saved_model_assets");
  for (int i = 0; i < n; i++) {
    size_t len = 0;
    const void *b = TFC_MetaGraphCollectionBytes(mg, "saved_model_assets", i, &len);
    Tensorflow__AssetAny *any =
        (Tensorflow__AssetAny *)tfc_pb_unpack(&tensorflow__asset_any__descriptor, b, len, "Any", &status->s);
    if (!any) return -1;
    size_t ul = strlen(any->type_url), sl = strlen(ANY_ASSET_URL_SUFFIX);
    int rc = 0;
    if (ul >= sl && strcmp(any->type_url + ul - sl, ANY_ASSET_URL_SUFFIX) == 0)
      rc = add_asset(f, graph, dir, any->value.data, any->value.len, status);
    protobuf_c_message_free_unpacked(&any->base, NULL);
    if (rc) return -1;
  }
  return 0;
}

/* Runs target op `op` with the feeds. */
static int run_target(TF_Session *sess, const TF_Buffer *run_options, TF_Graph *graph, const char *op,
                      const feeds *f, TF_Status *status) {
  const TF_Operation *t = TF_GraphOperationByName(graph, op);
  if (!t) {
    tfc_status_set(&status->s, TF_NOT_FOUND, "SavedModel op '%s' is not in the graph", op);
    return -1;
  }
  TF_SessionRun(sess, run_options, f->outs, f->values, f->n, NULL, NULL, 0, &t, 1, NULL, status);
  return TF_GetCode(status) == TF_OK ? 0 : -1;
}

/* The init op's name (borrowed from mg), NULL when there is none; -1 in *bad when the
 * collection does not hold exactly one node. */
static const char *init_op_name(const TFC_MetaGraph *mg, int *bad) {
  const char *keys[] = {"saved_model_main_op", "legacy_init_op"};
  *bad = 0;
  for (int k = 0; k < 2; k++) {
    if (TFC_MetaGraphCollectionKind(mg, keys[k]) == 0) continue;
    if (TFC_MetaGraphCollectionKind(mg, keys[k]) != TFC_COLLECTION_NODE_LIST ||
        TFC_MetaGraphCollectionSize(mg, keys[k]) != 1) {
      *bad = 1;
      return NULL;
    }
    size_t len = 0;
    return TFC_MetaGraphCollectionBytes(mg, keys[k], 0, &len);
  }
  return NULL;
}

static void tags_text(const char *const *tags, int n, char *out, size_t cap) {
  size_t at = 0;
  out[0] = 0;
  for (int i = 0; i < n && at < cap; i++) at += (size_t)snprintf(out + at, cap - at, "%s ", tags[i]);
}

TFC_EXPORT TF_Session *TF_LoadSessionFromSavedModel(const TF_SessionOptions *session_options,
                                                    const TF_Buffer *run_options, const char *export_dir,
                                                    const char *const *tags, int tags_len, TF_Graph *graph,
                                                    TF_Buffer *meta_graph_def, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  size_t pos = 0;
  if (!export_dir || !graph || (tags_len > 0 && !tags) || tags_len < 0) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_LoadSessionFromSavedModel: NULL export_dir, graph or tags");
    return NULL;
  }
  if (TF_GraphNextOperation(graph, &pos)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Graph is non-empty.");
    return NULL;
  }
  char *pb = join3(export_dir, "/", "saved_model.pb"), *data = NULL;
  size_t len = 0;
  int rc = pb ? read_file(pb, &data, &len) : -2;
  if (rc == -1) {
    char *txt = join3(export_dir, "/", "saved_model.pbtxt");
    if (txt && access(txt, F_OK) == 0)
      tfc_status_set(s, TFC_UNIMPLEMENTED, "%s: text-format SavedModels are not supported; convert it to saved_model.pb",
                     txt);
    else
      tfc_status_set(s, TFC_NOT_FOUND, "Could not find SavedModel .pb or .pbtxt at supplied export directory path: %s",
                     export_dir);
    free(txt);
  } else if (rc == -2) {
    TFC_OOM(s);
  } else if (rc) {
    tfc_status_set(s, TFC_DATA_LOSS, "%s: read error", pb);
  }
  free(pb);
  if (rc) return NULL;

  TF_Session *sess = NULL;
  TFC_MetaGraph *mg = NULL;
  Tensorflow__SavedModelMetaGraphView *view = NULL;
  feeds f = {NULL, NULL, 0};
  char *prefix = NULL, *index = NULL;
  const ProtobufCBinaryData *chosen = NULL;
  tfc_status parse;
  tfc_status_init(&parse);
  Tensorflow__SavedModel *sm =
      (Tensorflow__SavedModel *)tfc_pb_unpack(&tensorflow__saved_model__descriptor, data, len, "SavedModel", &parse);
  tfc_status_fini(&parse);
  if (!sm) {
    tfc_status_set(s, TFC_DATA_LOSS, "Can't parse %s/saved_model.pb as binary proto", export_dir);
    goto fail;
  }
  for (size_t i = 0; i < sm->n_meta_graphs && !chosen; i++) {
    view = (Tensorflow__SavedModelMetaGraphView *)tfc_pb_unpack(&tensorflow__saved_model_meta_graph_view__descriptor,
                                                               sm->meta_graphs[i].data, sm->meta_graphs[i].len,
                                                               "MetaGraphDef", s);
    if (!view) goto fail;
    if (same_tags(view, tags, tags_len)) {
      chosen = &sm->meta_graphs[i];
    } else {
      protobuf_c_message_free_unpacked(&view->base, NULL);
      view = NULL;
    }
  }
  if (!chosen) {
    char text[512];
    tags_text(tags, tags_len, text, sizeof text);
    tfc_status_set(s, TFC_NOT_FOUND,
                   "Could not find meta graph def matching supplied tags: { %s}. To inspect available tag-sets in "
                   "the SavedModel, please use the SavedModel CLI: `saved_model_cli`",
                   text);
    goto fail;
  }
  if (!(mg = TFC_NewMetaGraphFromBuffer(chosen->data, chosen->len, status))) goto fail;
  TFC_ImportMetaGraph(graph, mg, NULL, 0, status);
  if (TF_GetCode(status) != TF_OK) goto fail;
  TF_SessionOptions *own_opts = session_options ? NULL : TF_NewSessionOptions();
  sess = TF_NewSession(graph, session_options ? session_options : own_opts, status);
  TF_DeleteSessionOptions(own_opts);
  if (!sess) goto fail;
  if (asset_feeds(&f, graph, export_dir, view, mg, status)) goto fail;

  TFC_SaverDef sd;
  prefix = join3(export_dir, "/", "variables/variables");
  index = prefix ? join3(prefix, ".index", "") : NULL;
  if (!prefix || !index) {
    TFC_OOM(s);
    goto fail;
  }
  if (TFC_MetaGraphGetSaverDef(mg, &sd) && sd.restore_op_name && sd.restore_op_name[0] && access(index, F_OK) == 0) {
    feeds rf = f;
    /* the filename feed goes first, the asset feeds after it */
    feeds one = {NULL, NULL, 0};
    if (feeds_add(&one, graph, sd.filename_tensor_name, prefix, status)) {
      feeds_free(&one);
      goto fail;
    }
    for (int i = 0; i < rf.n && TF_GetCode(status) == TF_OK; i++) {
      TF_Output *o = realloc(one.outs, sizeof *o * (size_t)(one.n + 1));
      if (o) one.outs = o;
      TF_Tensor **v = realloc(one.values, sizeof *v * (size_t)(one.n + 1));
      if (v) one.values = v;
      if (!o || !v) break;
      one.outs[one.n] = rf.outs[i];
      one.values[one.n++] = rf.values[i];
    }
    int failed = TF_GetCode(status) != TF_OK || one.n != rf.n + 1;
    if (failed && TF_GetCode(status) == TF_OK) TFC_OOM(s);
    if (!failed) failed = run_target(sess, run_options, graph, sd.restore_op_name, &one, status) != 0;
    /* the asset tensors stay f's */
    TF_DeleteTensor(one.values[0]);
    free(one.outs);
    free(one.values);
    if (failed) goto fail;
  }
  int bad = 0;
  const char *init = init_op_name(mg, &bad);
  if (bad) {
    tfc_status_set(s, TFC_FAILED_PRECONDITION, "Expected exactly one main op in : %s", export_dir);
    goto fail;
  }
  if (init && run_target(sess, run_options, graph, init, &f, status)) goto fail;
  if (meta_graph_def) {
    void *copy = malloc(chosen->len ? chosen->len : 1);
    if (!copy) {
      TFC_OOM(s);
      goto fail;
    }
    if (chosen->len) memcpy(copy, chosen->data, chosen->len);
    if (tfc_capi_fill_buffer(meta_graph_def, copy, chosen->len, s) != TFC_OK) goto fail;
  }
  feeds_free(&f);
  free(prefix);
  free(index);
  TFC_DeleteMetaGraph(mg);
  protobuf_c_message_free_unpacked(&view->base, NULL);
  protobuf_c_message_free_unpacked(&sm->base, NULL);
  free(data);
  return sess;

fail:
  feeds_free(&f);
  free(prefix);
  free(index);
  if (sess) {
    TF_Status *scratch = TF_NewStatus();
    TF_DeleteSession(sess, scratch);
    TF_DeleteStatus(scratch);
  }
  TFC_DeleteMetaGraph(mg);
  if (view) protobuf_c_message_free_unpacked(&view->base, NULL);
  if (sm) protobuf_c_message_free_unpacked(&sm->base, NULL);
  free(data);
  return NULL;
}
