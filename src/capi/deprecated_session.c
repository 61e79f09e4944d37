/*
 * deprecated_session — TF's deprecated session API (TF_NewDeprecatedSession, TF_ExtendGraph,
 * TF_Run, TF_PRunSetup, TF_PRun, TF_DeprecatedSessionListDevices, close and delete), over the
 * one session implementation.
 *
 * A deprecated session owns a TF_Graph and a TF_Session on it. TF_ExtendGraph imports a
 * serialized GraphDef into that graph (TF_GraphImportGraphDef, no prefix); as in TF's
 * Session::Extend its nodes may name nodes added by earlier extensions as inputs (each such
 * input is mapped onto the graph's node), and a node name used again is the import's
 * INVALID_ARGUMENT. The session sees the added nodes as it sees nodes added to any graph
 * after it was made. TF_Run turns
 * "op:index" names (":0" when the index is left out) into outputs of the graph and calls
 * TF_SessionRun; partial runs go to TF_SessionPRunSetup / TF_SessionPRun, and so share their
 * answer (UNIMPLEMENTED in tfc: docs/COMPAT.md).
 *
 * Ownership as in TF: TF_Run and TF_PRun take the input tensors (deleted by the call, also on
 * failure); outputs are the caller's. A name that is not in the graph is NOT_FOUND naming it.
 * Thread-safety: TF_Run is as thread-safe as TF_SessionRun; TF_ExtendGraph takes the graph's
 * lock as any graph change.
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "capi/capi_internal.h"
#include "proto/pb_util.h"
#include "tensorflow/graph.pb-c.h"

struct TF_DeprecatedSession {
  TF_Graph *graph;
  TF_Session *session;
};

TFC_EXPORT TF_DeprecatedSession *TF_NewDeprecatedSession(const TF_SessionOptions *opts, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  TF_DeprecatedSession *d = calloc(1, sizeof *d);
  if (!d || !(d->graph = TF_NewGraph())) {
    free(d);
    TFC_OOM(s);
    return NULL;
  }
  d->session = TF_NewSession(d->graph, opts, status);
  if (!d->session) {
    TF_DeleteGraph(d->graph);
    free(d);
    return NULL;
  }
  return d;
}

TFC_EXPORT void TF_CloseDeprecatedSession(TF_DeprecatedSession *d, TF_Status *status) {
  if (!d) {
    tfc_status_set(tfc_capi_status(status), TFC_INVALID_ARGUMENT, "TF_CloseDeprecatedSession: session is NULL");
    return;
  }
  TF_CloseSession(d->session, status);
}

TFC_EXPORT void TF_DeleteDeprecatedSession(TF_DeprecatedSession *d, TF_Status *status) {
  tfc_capi_status(status);
  if (!d) return;
  TF_DeleteSession(d->session, status);
  TF_DeleteGraph(d->graph);
  free(d);
}

TFC_EXPORT TF_DeviceList *TF_DeprecatedSessionListDevices(TF_DeprecatedSession *d, TF_Status *status) {
  if (!d) {
    tfc_status_set(tfc_capi_status(status), TFC_INVALID_ARGUMENT, "TF_DeprecatedSessionListDevices: session is NULL");
    return NULL;
  }
  return TF_SessionListDevices(d->session, status);
}

static int defines(const Tensorflow__GraphDef *gd, const char *name, size_t len) {
  for (size_t i = 0; i < gd->n_node; i++)
    if (strlen(gd->node[i]->name) == len && !strncmp(gd->node[i]->name, name, len)) return 1;
  return 0;
}

/* Maps every input of gd that names a node of g and not of gd onto that node. */
static void map_existing_inputs(TF_Graph *g, const Tensorflow__GraphDef *gd, TF_ImportGraphDefOptions *o) {
  for (size_t i = 0; i < gd->n_node; i++)
    for (size_t k = 0; k < gd->node[i]->n_input; k++) {
      const char *in = gd->node[i]->input[k];
      int control = in[0] == '^';
      if (control) in++;
      const char *colon = control ? NULL : strrchr(in, ':');
      size_t len = colon ? (size_t)(colon - in) : strlen(in);
      if (defines(gd, in, len)) continue;
      char *name = tfc_strndup(in, len);
      if (!name) continue;
      if (TF_GraphOperationByName(g, name)) {
        if (control) {
          TF_ImportGraphDefOptionsRemapControlDependency(o, name, TF_GraphOperationByName(g, name));
        } else {
          int index = colon ? atoi(colon + 1) : 0;
          TF_ImportGraphDefOptionsAddInputMapping(o, name, index, (TF_Output){TF_GraphOperationByName(g, name), index});
        }
      }
      free(name);
    }
}

TFC_EXPORT void TF_ExtendGraph(TF_DeprecatedSession *d, const void *proto, size_t proto_len, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!d || (!proto && proto_len)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_ExtendGraph: %s", !d ? "session is NULL" : "proto is NULL");
    return;
  }
  TF_Buffer buf = {proto, proto_len, NULL};
  Tensorflow__GraphDef *gd = (Tensorflow__GraphDef *)tfc_pb_unpack(&tensorflow__graph_def__descriptor, proto,
                                                                   proto_len, "GraphDef", s);
  if (!gd) return;
  TF_ImportGraphDefOptions *o = TF_NewImportGraphDefOptions();
  if (!o) {
    TFC_OOM(s);
  } else {
    map_existing_inputs(d->graph, gd, o);
    TF_GraphImportGraphDef(d->graph, &buf, o, status);
    TF_DeleteImportGraphDefOptions(o);
  }
  protobuf_c_message_free_unpacked(&gd->base, NULL);
}

/* "op:index" (or "op") -> an output of g. NOT_FOUND names what is missing. */
static int resolve(TF_Graph *g, const char *name, const char *what, TF_Output *out, tfc_status *s) {
  if (!name) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s name is NULL", what);
  const char *colon = strrchr(name, ':');
  char *op = colon ? tfc_strndup(name, (size_t)(colon - name)) : tfc_strdup(name);
  if (!op) return TFC_OOM(s);
  long index = 0;
  int bad_index = 0;
  if (colon) {
    char *end;
    index = strtol(colon + 1, &end, 10);
    bad_index = end == colon + 1 || *end || index < 0;
  }
  TF_Operation *oper = bad_index ? NULL : TF_GraphOperationByName(g, op);
  free(op);
  if (!oper) return tfc_status_set(s, TFC_NOT_FOUND, "%s '%s' not found in the graph", what, name);
  if (index >= TF_OperationNumOutputs(oper))
    return tfc_status_set(s, TFC_NOT_FOUND, "%s '%s': the node has %d outputs", what, name,
                          TF_OperationNumOutputs(oper));
  out->oper = oper;
  out->index = (int)index;
  return TFC_OK;
}

/* Resolves all names of a run into new arrays (freed by the caller). */
static int resolve_all(TF_Graph *g, const char **input_names, int ninputs, const char **output_names, int noutputs,
                       const char **target_names, int ntargets, TF_Output **in, TF_Output **out,
                       TF_Operation ***targets, tfc_status *s) {
  *in = calloc((size_t)ninputs + 1, sizeof **in);
  *out = calloc((size_t)noutputs + 1, sizeof **out);
  *targets = calloc((size_t)ntargets + 1, sizeof **targets);
  if (!*in || !*out || !*targets) return TFC_OOM(s);
  for (int i = 0; i < ninputs; i++) TFC_TRY(resolve(g, input_names[i], "Feed", &(*in)[i], s));
  for (int i = 0; i < noutputs; i++) TFC_TRY(resolve(g, output_names[i], "Fetch", &(*out)[i], s));
  for (int i = 0; i < ntargets; i++) {
    if (!target_names[i] || !((*targets)[i] = TF_GraphOperationByName(g, target_names[i])))
      return tfc_status_set(s, TFC_NOT_FOUND, "Target '%s' not found in the graph",
                            target_names[i] ? target_names[i] : "");
  }
  return TFC_OK;
}

TFC_EXPORT void TF_Run(TF_DeprecatedSession *d, const TF_Buffer *run_options, const char **input_names,
                       TF_Tensor **inputs, int ninputs, const char **output_names, TF_Tensor **outputs, int noutputs,
                       const char **target_oper_names, int ntargets, TF_Buffer *run_metadata, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  for (int i = 0; i < noutputs; i++) outputs[i] = NULL;
  TF_Output *in = NULL, *out = NULL;
  TF_Operation **targets = NULL;
  if (!d) tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_Run: session is NULL");
  else if (resolve_all(d->graph, input_names, ninputs, output_names, noutputs, target_oper_names, ntargets, &in,
                       &out, &targets, s) == TFC_OK)
    TF_SessionRun(d->session, run_options, in, inputs, ninputs, out, outputs, noutputs,
                  (const TF_Operation *const *)targets, ntargets, run_metadata, status);
  for (int i = 0; i < ninputs; i++) TF_DeleteTensor(inputs[i]);
  free(in);
  free(out);
  free(targets);
}

TFC_EXPORT void TF_PRunSetup(TF_DeprecatedSession *d, const char **input_names, int ninputs, const char **output_names,
                             int noutputs, const char **target_oper_names, int ntargets, const char **handle,
                             TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (handle) *handle = NULL;
  TF_Output *in = NULL, *out = NULL;
  TF_Operation **targets = NULL;
  if (!d) tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_PRunSetup: session is NULL");
  else if (resolve_all(d->graph, input_names, ninputs, output_names, noutputs, target_oper_names, ntargets, &in,
                       &out, &targets, s) == TFC_OK)
    TF_SessionPRunSetup(d->session, in, ninputs, out, noutputs, (const TF_Operation *const *)targets, ntargets,
                        handle, status);
  free(in);
  free(out);
  free(targets);
}

TFC_EXPORT void TF_PRun(TF_DeprecatedSession *d, const char *handle, const char **input_names, TF_Tensor **inputs,
                        int ninputs, const char **output_names, TF_Tensor **outputs, int noutputs,
                        const char **target_oper_names, int ntargets, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  for (int i = 0; i < noutputs; i++) outputs[i] = NULL;
  TF_Output *in = NULL, *out = NULL;
  TF_Operation **targets = NULL;
  if (!d) tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_PRun: session is NULL");
  else if (resolve_all(d->graph, input_names, ninputs, output_names, noutputs, target_oper_names, ntargets, &in,
                       &out, &targets, s) == TFC_OK)
    TF_SessionPRun(d->session, handle, in, inputs, ninputs, out, outputs, noutputs,
                   (const TF_Operation *const *)targets, ntargets, status);
  for (int i = 0; i < ninputs; i++) TF_DeleteTensor(inputs[i]);
  free(in);
  free(out);
  free(targets);
}
