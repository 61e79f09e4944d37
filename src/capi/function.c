/*
 * function — the C API over a graph's function library (graph/function.h): TF_Function
 * handles holding a FunctionDef, their attrs, copying them into graphs and listing a graph's
 * functions. Building a function from a graph (TF_GraphToFunction) is not here yet.
 *
 * A TF_Function owns its name and its canonical FunctionDef bytes (proto/function_codec.h);
 * graphs hold their own copies, so deleting a handle never affects a graph.
 */
#include <stdlib.h>
#include <string.h>

#include "capi/capi_internal.h"
#include "proto/function_codec.h"

struct TF_Function {
  char *name;
  void *def;
  size_t len;
};

static TF_Function *function_new(const char *name, const void *def, size_t len, tfc_status *s) {
  TF_Function *f = calloc(1, sizeof *f);
  if (f) {
    f->name = strdup(name);
    f->def = malloc(len ? len : 1);
  }
  if (!f || !f->name || !f->def) {
    if (f) {
      free(f->name);
      free(f->def);
      free(f);
    }
    tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "Out of memory copying function '%s'", name);
    return NULL;
  }
  if (len) memcpy(f->def, def, len);
  f->len = len;
  return f;
}

TFC_EXPORT TF_Function *TF_FunctionImportFunctionDef(const void *proto, size_t proto_len, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  void *def;
  size_t len;
  char *name;
  if (tfc_functiondef_canonical(proto, proto_len, "Invalid FunctionDef given to TF_FunctionImportFunctionDef",
                                &def, &len, &name, s))
    return NULL;
  TF_Function *f = calloc(1, sizeof *f);
  if (!f) {
    free(def);
    free(name);
    tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "Out of memory importing a FunctionDef");
    return NULL;
  }
  f->name = name;
  f->def = def;
  f->len = len;
  return f;
}

TFC_EXPORT void TF_DeleteFunction(TF_Function *func) {
  if (!func) return;
  free(func->name);
  free(func->def);
  free(func);
}

TFC_EXPORT const char *TF_FunctionName(TF_Function *func) { return func->name; }

TFC_EXPORT void TF_FunctionToFunctionDef(TF_Function *func, TF_Buffer *output_func_def, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (tfc_capi_check_out_buffer(output_func_def, s)) return;
  void *copy = malloc(func->len ? func->len : 1);
  if (!copy) {
    tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "Out of memory serializing function '%s'", func->name);
    return;
  }
  if (func->len) memcpy(copy, func->def, func->len);
  tfc_capi_fill_buffer(output_func_def, copy, func->len, s);
}

TFC_EXPORT void TF_FunctionSetAttrValueProto(TF_Function *func, const char *attr_name, const void *proto,
                                             size_t proto_len, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  void *def;
  size_t len;
  if (tfc_functiondef_set_attr(func->def, func->len, attr_name, proto, proto_len,
                               "AttrValue proto passed to TF_FunctionSetAttrValueProto", &def, &len, s))
    return;
  free(func->def);
  func->def = def;
  func->len = len;
}

TFC_EXPORT void TF_FunctionGetAttrValueProto(TF_Function *func, const char *attr_name, TF_Buffer *output_attr_value,
                                             TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (tfc_capi_check_out_buffer(output_attr_value, s)) return;
  void *out;
  size_t len;
  if (tfc_functiondef_get_attr(func->def, func->len, attr_name, &out, &len, s)) return;
  tfc_capi_fill_buffer(output_attr_value, out, len, s);
}

TFC_EXPORT void TF_GraphCopyFunction(TF_Graph *g, const TF_Function *func, const TF_Function *grad,
                                     TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!func) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "'func' argument to TF_GraphCopyFunction cannot be null");
    return;
  }
  tfc_graph *graph = g->g;
  tfc_graph_lock(graph);
  tfc_funclib_mark mark = tfc_funclib_get_mark(&graph->library);
  int r = tfc_funclib_add(&graph->library, func->name, func->def, func->len, s);
  if (r == TFC_OK && grad) r = tfc_funclib_add(&graph->library, grad->name, grad->def, grad->len, s);
  if (r == TFC_OK && grad) r = tfc_funclib_add_grad(&graph->library, func->name, grad->name, s);
  if (r != TFC_OK) tfc_funclib_rollback(&graph->library, mark);
  tfc_graph_unlock(graph);
}

TFC_EXPORT int TF_GraphNumFunctions(TF_Graph *g) {
  tfc_graph_lock(g->g);
  int n = g->g->library.n_funcs;
  tfc_graph_unlock(g->g);
  return n;
}

TFC_EXPORT int TF_GraphGetFunctions(TF_Graph *g, TF_Function **funcs, int max_func, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_graph *graph = g->g;
  tfc_graph_lock(graph);
  int n = graph->library.n_funcs < max_func ? graph->library.n_funcs : max_func;
  int k = 0;
  for (; k < n; k++) {
    const tfc_function *f = &graph->library.funcs[k];
    funcs[k] = function_new(f->name, f->def, f->len, s);
    if (!funcs[k]) break;
  }
  tfc_graph_unlock(graph);
  if (k < n) {
    for (int i = 0; i < k; i++) {
      TF_DeleteFunction(funcs[i]);
      funcs[i] = NULL;
    }
    return 0;
  }
  return n;
}
