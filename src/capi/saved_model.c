/*
 * capi/saved_model — TF_LoadSessionFromSavedModel: a session over a SavedModel directory
 * written by TF 1.x's SavedModelBuilder (tf.compat.v1.saved_model.simple_save), with TF
 * 1.15's loader semantics.
 *
 * Steps, each failing with TF's code and the whole call returning NULL:
 *   1. graph must be empty (INVALID_ARGUMENT "Graph is non-empty.");
 *   2. <dir>/saved_model.pb, else the text form saved_model.pbtxt, is read (TFC_ReadSavedModel,
 *      saved_model_io.c: DATA_LOSS when it is not a SavedModel, NOT_FOUND "Could not find
 *      SavedModel .pb or .pbtxt at supplied export directory path: <dir>" without either);
 *   3. the first MetaGraphDef whose tags equal the requested ones as a set is chosen
 *      (NOT_FOUND "Could not find meta graph def matching supplied tags: { a b }. ...");
 *   4. it is imported into graph by the meta-graph module (TFC_NewMetaGraphFromBuffer,
 *      TFC_ImportMetaGraph: no prefix), and a session is made with session_options;
 *   5. when <dir>/variables/variables.index exists, the SaverDef's restore_op_name runs with
 *      filename_tensor_name fed "<dir>/variables/variables" (plus the asset feeds);
 *   6. the init op (the output "__saved_model_init_op" of the signature of that key, which
 *      TF 2.x's tf.saved_model.save writes, else collection "saved_model_main_op", else
 *      "legacy_init_op"; a collection holds exactly one node or the load fails with
 *      FAILED_PRECONDITION "Expected exactly one main op in : <dir>") runs with the asset
 *      feeds: each AssetFileDef (the MetaGraphDef's asset_file_def, else the Any entries of
 *      collection "saved_model_assets") feeds tensor_info.name "<dir>/assets/<filename>" (in the
 *      restore run too, as TF does); a missing asset file is the reading op's error, which
 *      names the file;
 *   7. meta_graph_def (when non-NULL) receives the chosen MetaGraphDef's bytes as written.
 * TF 2.x's SavedModels (tf.saved_model.save: VarHandleOp variables, the model and its saver in
 * library functions called by StatefulPartitionedCall) load the same way.
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
#include "capi/saved_model_internal.h"
#include "tfc/meta_graph.h"

#define ANY_ASSET_URL_SUFFIX "/tensorflow.AssetFileDef"

static char *join3(const char *a, const char *b, const char *c) {
  size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
  char *p = malloc(n);
  if (p) snprintf(p, n, "%s%s%s", a, b, c);
  return p;
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

/* The init op's name (borrowed from v or mg), NULL when there is none: the signature
 * "__saved_model_init_op"'s output of that key, else the collection "saved_model_main_op", else
 * "legacy_init_op"; *bad set when the collection does not hold exactly one node. */
static const char *init_op_name(const Tensorflow__SavedModelMetaGraphView *v, const TFC_MetaGraph *mg, int *bad) {
  const char *keys[] = {"saved_model_main_op", "legacy_init_op"};
  *bad = 0;
  for (size_t i = 0; i < v->n_signature_def; i++) {
    const Tensorflow__SignatureDef *d = v->signature_def[i]->value;
    if (strcmp(v->signature_def[i]->key, "__saved_model_init_op") || !d) continue;
    for (size_t k = 0; k < d->n_outputs; k++)
      if (strcmp(d->outputs[k]->key, "__saved_model_init_op") == 0 && d->outputs[k]->value &&
          d->outputs[k]->value->encoding_case == TENSORFLOW__SIGNATURE_TENSOR_INFO__ENCODING_NAME)
        return d->outputs[k]->value->name;
  }
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
  TF_Session *sess = NULL;
  TFC_MetaGraph *mg = NULL;
  feeds f = {NULL, NULL, 0};
  char *prefix = NULL, *index = NULL;
  TFC_SavedModel *sm = TFC_ReadSavedModel(export_dir, status);
  if (!sm) return NULL;
  int which = TFC_SavedModelFindMetaGraph(sm, tags, tags_len);
  if (which < 0) {
    char text[512];
    tags_text(tags, tags_len, text, sizeof text);
    tfc_status_set(s, TFC_NOT_FOUND,
                   "Could not find meta graph def matching supplied tags: { %s}. To inspect available tag-sets in "
                   "the SavedModel, please use the SavedModel CLI: `saved_model_cli`",
                   text);
    goto fail;
  }
  const ProtobufCBinaryData *chosen = &sm->pb->meta_graphs[which];
  const Tensorflow__SavedModelMetaGraphView *view = sm->views[which];
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
  const char *init = init_op_name(view, mg, &bad);
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
  TFC_DeleteSavedModel(sm);
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
  TFC_DeleteSavedModel(sm);
  return NULL;
}
