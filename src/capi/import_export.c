/*
 * import_export — the C API over GraphDef import/export and op-def queries:
 * TF_GraphToGraphDef, TF_ImportGraphDefOptions*, TF_GraphImportGraphDef*,
 * TF_ImportGraphDefResults*, TF_OperationToNodeDef, TF_GraphGetOpDef, TF_GetAllOpList,
 * TF_GraphVersions, and the op-table queries TF_OpIsStateful and
 * TF_GetNumberAttrForOpListInput. Thin: argument checks and translation; the work is in
 * proto/graphdef and ops/.
 *
 * Output TF_Buffers: as in TF, a buffer that already holds data is refused (INVALID_ARGUMENT
 * "Passing non-empty TF_Buffer is invalid."); filled buffers own malloc'd bytes released by
 * their data_deallocator.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"
#include "capi/capi_internal.h"
#include "proto/graphdef.h"
#include "tensorflow/c/c_api_experimental.h"

struct TF_ImportGraphDefOptions {
  char *prefix;
  char *default_device;
  int uniquify_names, uniquify_prefix;
  int validate_colocation_constraints;
  int n_input_mappings;
  tfc_import_input_mapping *input_mappings;
  int n_control_deps;
  tfc_node **control_deps;
  int n_return_outputs;
  tfc_import_tensor_ref *return_outputs;
  int n_return_ops;
  char **return_ops;
  int oom; /* a setter ran out of memory: the import reports it */
};

struct TF_ImportGraphDefResults {
  int n_outputs;
  TF_Output *outputs;
  int n_opers;
  TF_Operation **opers;
  int n_missing;
  const char **missing_names; /* owned: freed with the results */
  int *missing_indexes;
};

/* A local status for callers that pass NULL (TF tolerates it in these calls). */


/* ---------------- export ---------------- */

TFC_EXPORT void TF_GraphToGraphDef(TF_Graph *graph, TF_Buffer *output_graph_def, TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  void *data = NULL;
  size_t len = 0;
  if (!graph) tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_GraphToGraphDef: graph is NULL");
  else if (tfc_capi_check_out_buffer(output_graph_def, s) == TFC_OK && tfc_graphdef_export(graph->g, &data, &len, s) == TFC_OK)
    tfc_capi_fill_buffer(output_graph_def, data, len, s);
  tfc_status_fini(&local);
}

TFC_EXPORT void TF_OperationToNodeDef(TF_Operation *oper, TF_Buffer *output_node_def, TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  void *data = NULL;
  size_t len = 0;
  if (!oper) tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_OperationToNodeDef: operation is NULL");
  else if (tfc_capi_check_out_buffer(output_node_def, s) == TFC_OK && tfc_nodedef_export(tfc_capi_node(oper), &data, &len, s) == TFC_OK)
    tfc_capi_fill_buffer(output_node_def, data, len, s);
  tfc_status_fini(&local);
}

TFC_EXPORT void TF_GraphVersions(TF_Graph *graph, TF_Buffer *output_version_def, TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  void *data = NULL;
  size_t len = 0;
  if (!graph) tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_GraphVersions: graph is NULL");
  else if (tfc_capi_check_out_buffer(output_version_def, s) == TFC_OK && tfc_versiondef_export(graph->g, &data, &len, s) == TFC_OK)
    tfc_capi_fill_buffer(output_version_def, data, len, s);
  tfc_status_fini(&local);
}

/* The op named op_name, or NULL with TF's NOT_FOUND for an op it does not know in s. */
static const tfc_opdef *find_op(const char *op_name, tfc_status *s) {
  const tfc_opdef *op = op_name ? tfc_op_lookup(op_name) : NULL;
  if (!op) {
    char host[256] = "localhost";
    if (gethostname(host, sizeof host - 1) != 0) strcpy(host, "localhost");
    host[sizeof host - 1] = '\0';
    tfc_status_set(s, TFC_NOT_FOUND,
                   "Op type not registered '%s' in binary running on %s. Make sure the Op and "
                   "Kernel are registered in the binary running in this process.",
                   op_name ? op_name : "(null)", host);
  }
  return op;
}

TFC_EXPORT void TF_GraphGetOpDef(TF_Graph *graph, const char *op_name, TF_Buffer *output_op_def,
                                 TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  const tfc_opdef *op = find_op(op_name, s);
  void *data = NULL;
  size_t len = 0;
  if (op && tfc_capi_check_out_buffer(output_op_def, s) == TFC_OK && tfc_opdef_export(op, &data, &len, s) == TFC_OK)
    tfc_capi_fill_buffer(output_op_def, data, len, s);
  tfc_status_fini(&local);
}

TFC_EXPORT int TF_OpIsStateful(const char *op_type, TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  const tfc_opdef *op = find_op(op_type, s);
  tfc_status_fini(&local);
  return op && (op->flags & TFC_OPF_STATEFUL) != 0;
}

/* The name lives in the op table, for the life of the process. */
TFC_EXPORT const char *TF_GetNumberAttrForOpListInput(const char *op_name, int input_index,
                                                     TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  const tfc_opdef *op = find_op(op_name, s);
  const char *n = NULL;
  if (!op) {
  } else if (input_index < 0 || input_index >= op->n_inputs) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "%d out of range for %s", input_index, op_name);
  } else if (!(n = op->inputs[input_index].number_attr) || !n[0]) {
    n = NULL;
    tfc_status_set(s, TFC_NOT_FOUND, "%s does not have number_attr() defined.", op_name);
  }
  tfc_status_fini(&local);
  return n;
}

TFC_EXPORT TF_Buffer *TF_GetAllOpList(void) {
  tfc_status s;
  tfc_status_init(&s);
  void *data = NULL;
  size_t len = 0;
  TF_Buffer *b = NULL;
  if (tfc_oplist_export(&data, &len, &s) == TFC_OK) {
    b = TF_NewBuffer();
    if (!b) free(data);
    else if (tfc_capi_fill_buffer(b, data, len, &s)) {
      TF_DeleteBuffer(b);
      b = NULL;
    }
  }
  tfc_status_fini(&s);
  return b;
}

/* ---------------- options ---------------- */

TFC_EXPORT TF_ImportGraphDefOptions *TF_NewImportGraphDefOptions(void) {
  TF_ImportGraphDefOptions *o = calloc(1, sizeof *o);
  if (o) o->validate_colocation_constraints = 1;
  return o;
}

TFC_EXPORT void TF_DeleteImportGraphDefOptions(TF_ImportGraphDefOptions *o) {
  if (!o) return;
  free(o->prefix);
  free(o->default_device);
  for (int i = 0; i < o->n_input_mappings; i++) free(o->input_mappings[i].src_name);
  free(o->input_mappings);
  free(o->control_deps);
  for (int i = 0; i < o->n_return_outputs; i++) free(o->return_outputs[i].name);
  free(o->return_outputs);
  for (int i = 0; i < o->n_return_ops; i++) free(o->return_ops[i]);
  free(o->return_ops);
  free(o);
}

static void set_string(TF_ImportGraphDefOptions *o, char **field, const char *v) {
  char *c = tfc_strdup(v ? v : "");
  if (!c) {
    o->oom = 1;
    return;
  }
  free(*field);
  *field = c;
}

TFC_EXPORT void TF_ImportGraphDefOptionsSetPrefix(TF_ImportGraphDefOptions *o, const char *prefix) {
  if (o) set_string(o, &o->prefix, prefix);
}

TFC_EXPORT void TF_ImportGraphDefOptionsSetDefaultDevice(TF_ImportGraphDefOptions *o, const char *device) {
  if (o) set_string(o, &o->default_device, device);
}

TFC_EXPORT void TF_ImportGraphDefOptionsSetUniquifyNames(TF_ImportGraphDefOptions *o, unsigned char v) {
  if (o) o->uniquify_names = v != 0;
}

TFC_EXPORT void TF_ImportGraphDefOptionsSetUniquifyPrefix(TF_ImportGraphDefOptions *o, unsigned char v) {
  if (o) o->uniquify_prefix = v != 0;
}

TFC_EXPORT void TF_ImportGraphDefOptionsSetValidateColocationConstraints(TF_ImportGraphDefOptions *o,
                                                                         unsigned char enable) {
  if (o) o->validate_colocation_constraints = enable != 0;
}

static void add_mapping(TF_ImportGraphDefOptions *o, const char *src_name, int src_index, tfc_endpoint dst) {
  tfc_import_input_mapping *m = realloc(o->input_mappings, sizeof *m * (size_t)(o->n_input_mappings + 1));
  char *name = tfc_strdup(src_name ? src_name : "");
  if (!m || !name) {
    if (m) o->input_mappings = m;
    free(name);
    o->oom = 1;
    return;
  }
  o->input_mappings = m;
  m[o->n_input_mappings].src_name = name;
  m[o->n_input_mappings].src_index = src_index;
  m[o->n_input_mappings].dst = dst;
  o->n_input_mappings++;
}

TFC_EXPORT void TF_ImportGraphDefOptionsAddInputMapping(TF_ImportGraphDefOptions *o, const char *src_name,
                                                        int src_index, TF_Output dst) {
  if (!o) return;
  /* A later mapping of the same key replaces the earlier one, as in TF's map. */
  for (int i = 0; i < o->n_input_mappings; i++)
    if (o->input_mappings[i].src_index == src_index && src_name &&
        strcmp(o->input_mappings[i].src_name, src_name) == 0) {
      o->input_mappings[i].dst = tfc_capi_endpoint(dst);
      return;
    }
  add_mapping(o, src_name, src_index, tfc_capi_endpoint(dst));
}

TFC_EXPORT void TF_ImportGraphDefOptionsRemapControlDependency(TF_ImportGraphDefOptions *o,
                                                               const char *src_name, TF_Operation *dst) {
  if (!o) return;
  tfc_endpoint e = {tfc_capi_node(dst), -1};
  for (int i = 0; i < o->n_input_mappings; i++)
    if (o->input_mappings[i].src_index == -1 && src_name &&
        strcmp(o->input_mappings[i].src_name, src_name) == 0) {
      o->input_mappings[i].dst = e;
      return;
    }
  add_mapping(o, src_name, -1, e);
}

TFC_EXPORT void TF_ImportGraphDefOptionsAddControlDependency(TF_ImportGraphDefOptions *o, TF_Operation *oper) {
  if (!o) return;
  tfc_node **c = realloc(o->control_deps, sizeof *c * (size_t)(o->n_control_deps + 1));
  if (!c) {
    o->oom = 1;
    return;
  }
  c[o->n_control_deps++] = tfc_capi_node(oper);
  o->control_deps = c;
}

TFC_EXPORT void TF_ImportGraphDefOptionsAddReturnOutput(TF_ImportGraphDefOptions *o, const char *oper_name,
                                                        int index) {
  if (!o) return;
  tfc_import_tensor_ref *r = realloc(o->return_outputs, sizeof *r * (size_t)(o->n_return_outputs + 1));
  char *name = tfc_strdup(oper_name ? oper_name : "");
  if (!r || !name) {
    if (r) o->return_outputs = r;
    free(name);
    o->oom = 1;
    return;
  }
  o->return_outputs = r;
  r[o->n_return_outputs].name = name;
  r[o->n_return_outputs].index = index;
  o->n_return_outputs++;
}

TFC_EXPORT int TF_ImportGraphDefOptionsNumReturnOutputs(const TF_ImportGraphDefOptions *o) {
  return o ? o->n_return_outputs : 0;
}

TFC_EXPORT void TF_ImportGraphDefOptionsAddReturnOperation(TF_ImportGraphDefOptions *o, const char *oper_name) {
  if (!o) return;
  char **r = realloc(o->return_ops, sizeof *r * (size_t)(o->n_return_ops + 1));
  char *name = tfc_strdup(oper_name ? oper_name : "");
  if (!r || !name) {
    if (r) o->return_ops = r;
    free(name);
    o->oom = 1;
    return;
  }
  o->return_ops = r;
  r[o->n_return_ops++] = name;
}

TFC_EXPORT int TF_ImportGraphDefOptionsNumReturnOperations(const TF_ImportGraphDefOptions *o) {
  return o ? o->n_return_ops : 0;
}

/* ---------------- import ---------------- */

static int do_import(TF_Graph *graph, const TF_Buffer *graph_def, const TF_ImportGraphDefOptions *o,
                     tfc_import_results *res, tfc_status *s) {
  if (!graph) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_GraphImportGraphDef: graph is NULL");
  if (!graph_def) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_GraphImportGraphDef: graph_def is NULL");
  if (o && o->oom) return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "out of memory setting import options");
  tfc_import_options io;
  memset(&io, 0, sizeof io);
  if (o) {
    io.prefix = o->prefix;
    io.default_device = o->default_device;
    io.uniquify_names = o->uniquify_names;
    io.uniquify_prefix = o->uniquify_prefix;
    io.n_input_mappings = o->n_input_mappings;
    io.input_mappings = o->input_mappings;
    io.n_control_deps = o->n_control_deps;
    io.control_deps = o->control_deps;
    io.n_return_outputs = o->n_return_outputs;
    io.return_outputs = o->return_outputs;
    io.n_return_ops = o->n_return_ops;
    io.return_ops = o->return_ops;
    io.skip_colocation_validation = !o->validate_colocation_constraints;
  }
  return tfc_graphdef_import(graph->g, graph_def->data, graph_def->length, &io, res, s);
}

TFC_EXPORT void TF_GraphImportGraphDef(TF_Graph *graph, const TF_Buffer *graph_def,
                                       const TF_ImportGraphDefOptions *options, TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  tfc_import_results res;
  tfc_import_results_init(&res);
  do_import(graph, graph_def, options, &res, s);
  tfc_import_results_fini(&res);
  tfc_status_fini(&local);
}

TFC_EXPORT void TF_GraphImportGraphDefWithReturnOutputs(TF_Graph *graph, const TF_Buffer *graph_def,
                                                        const TF_ImportGraphDefOptions *options,
                                                        TF_Output *return_outputs, int num_return_outputs,
                                                        TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  int want = options ? options->n_return_outputs : 0;
  if (num_return_outputs != want) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Expected 'num_return_outputs' to be %d, got %d", want,
                   num_return_outputs);
  } else {
    tfc_import_results res;
    tfc_import_results_init(&res);
    if (do_import(graph, graph_def, options, &res, s) == TFC_OK)
      for (int i = 0; i < res.n_return_outputs; i++) {
        return_outputs[i].oper = tfc_capi_oper(res.return_outputs[i].node);
        return_outputs[i].index = res.return_outputs[i].index;
      }
    tfc_import_results_fini(&res);
  }
  tfc_status_fini(&local);
}

TFC_EXPORT TF_ImportGraphDefResults *TF_GraphImportGraphDefWithResults(TF_Graph *graph,
                                                                      const TF_Buffer *graph_def,
                                                                      const TF_ImportGraphDefOptions *options,
                                                                      TF_Status *status) {
  tfc_status local, *s = tfc_capi_status_or(status, &local);
  tfc_import_results res;
  tfc_import_results_init(&res);
  TF_ImportGraphDefResults *r = NULL;
  if (do_import(graph, graph_def, options, &res, s) == TFC_OK) {
    r = calloc(1, sizeof *r);
    if (r) {
      r->outputs = calloc((size_t)res.n_return_outputs + 1, sizeof *r->outputs);
      r->opers = calloc((size_t)res.n_return_ops + 1, sizeof *r->opers);
      r->missing_indexes = calloc((size_t)res.n_missing_unused + 1, sizeof *r->missing_indexes);
      r->missing_names = calloc((size_t)res.n_missing_unused + 1, sizeof *r->missing_names);
    }
    if (!r || !r->outputs || !r->opers || !r->missing_indexes || !r->missing_names) {
      TF_DeleteImportGraphDefResults(r);
      r = NULL;
      /* The nodes are in the graph; only the results could not be returned. */
      TFC_OOM(s);
    } else {
      r->n_outputs = res.n_return_outputs;
      for (int i = 0; i < res.n_return_outputs; i++) {
        r->outputs[i].oper = tfc_capi_oper(res.return_outputs[i].node);
        r->outputs[i].index = res.return_outputs[i].index;
      }
      r->n_opers = res.n_return_ops;
      for (int i = 0; i < res.n_return_ops; i++) r->opers[i] = tfc_capi_oper(res.return_ops[i]);
      r->n_missing = res.n_missing_unused;
      for (int i = 0; i < res.n_missing_unused; i++) {
        r->missing_names[i] = res.missing_unused_names[i];
        res.missing_unused_names[i] = NULL; /* moved */
        r->missing_indexes[i] = res.missing_unused_indexes[i];
      }
    }
  }
  tfc_import_results_fini(&res);
  tfc_status_fini(&local);
  return r;
}

TFC_EXPORT void TF_ImportGraphDefResultsReturnOutputs(TF_ImportGraphDefResults *results, int *num_outputs,
                                                      TF_Output **outputs) {
  *num_outputs = results ? results->n_outputs : 0;
  *outputs = results ? results->outputs : NULL;
}

TFC_EXPORT void TF_ImportGraphDefResultsReturnOperations(TF_ImportGraphDefResults *results, int *num_opers,
                                                         TF_Operation ***opers) {
  *num_opers = results ? results->n_opers : 0;
  *opers = results ? results->opers : NULL;
}

TFC_EXPORT void TF_ImportGraphDefResultsMissingUnusedInputMappings(TF_ImportGraphDefResults *results,
                                                                   int *num_missing_unused_input_mappings,
                                                                   const char ***src_names,
                                                                   int **src_indexes) {
  *num_missing_unused_input_mappings = results ? results->n_missing : 0;
  *src_names = results ? results->missing_names : NULL;
  *src_indexes = results ? results->missing_indexes : NULL;
}

TFC_EXPORT void TF_DeleteImportGraphDefResults(TF_ImportGraphDefResults *results) {
  if (!results) return;
  free(results->outputs);
  free(results->opers);
  if (results->missing_names)
    for (int i = 0; i < results->n_missing; i++) free((char *)results->missing_names[i]);
  free(results->missing_names);
  free(results->missing_indexes);
  free(results);
}
