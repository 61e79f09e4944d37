/*
 * function — the C API over a graph's function library (graph/function.h): TF_Function
 * handles holding a FunctionDef, their attrs and text (TF_FunctionDebugString), copying them
 * into graphs and listing a graph's functions, and building one from part of a graph
 * (TF_GraphToFunction, proto/graph_to_function.h).
 *
 * A TF_Function owns its name and its canonical FunctionDef bytes (proto/function_codec.h);
 * graphs hold their own copies, so deleting a handle never affects a graph.
 */
#include <stdlib.h>
#include <string.h>

#include "capi/capi_internal.h"
#include "proto/function_codec.h"
#include "tensorflow/c/c_api_experimental.h"
#include "proto/graph_to_function.h"

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

/* TF's text of the FunctionDef (proto/function_text.c), malloc'd and NUL-terminated; NULL with
 * *len 0 only when out of memory (a handle always holds a valid FunctionDef). */
TFC_EXPORT const char *TF_FunctionDebugString(TF_Function *func, size_t *len) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  tfc_status s;
  tfc_status_init(&s);
  char *out = NULL;
  if (tfc_functiondef_debug_string(func->def, func->len, &b, &s) == TFC_OK) out = tfc_strbuf_take(&b);
  if (len) *len = out ? strlen(out) : 0;
  tfc_strbuf_fini(&b);
  tfc_status_fini(&s);
  return out;
}

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
  if (n < 0) n = 0;
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

static tfc_endpoint *endpoints(const TF_Output *o, int n) {
  tfc_endpoint *e = malloc(sizeof *e * (size_t)(n > 0 ? n : 1));
  if (e)
    for (int i = 0; i < n; i++) e[i] = tfc_capi_endpoint(o[i]);
  return e;
}

TFC_EXPORT TF_Function *TF_GraphToFunctionWithControlOutputs(
    const TF_Graph *fn_body, const char *fn_name, unsigned char append_hash_to_fn_name, int num_opers,
    const TF_Operation *const *opers, int ninputs, const TF_Output *inputs, int noutputs, const TF_Output *outputs,
    const char *const *output_names, int ncontrol_outputs, const TF_Operation *const *control_outputs,
    const char *const *control_output_names, const TF_FunctionOptions *opts, const char *description,
    TF_Status *status) {
  (void)opts;
  tfc_status *s = tfc_capi_status(status);
  tfc_endpoint *in = endpoints(inputs, ninputs), *out = endpoints(outputs, noutputs);
  TF_Function *f = NULL;
  if (!in || !out) {
    tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "Out of memory creating function '%s'", fn_name);
  } else {
    tfc_graph_to_function_args a = {
        .fn_name = fn_name,
        .append_hash = append_hash_to_fn_name != 0,
        .num_opers = num_opers,
        .opers = (tfc_node *const *)opers,
        .ninputs = ninputs,
        .inputs = in,
        .noutputs = noutputs,
        .outputs = out,
        .output_names = output_names,
        .ncontrol_outputs = ncontrol_outputs,
        .control_outputs = (tfc_node *const *)control_outputs,
        .control_output_names = control_output_names,
        .description = description,
    };
    tfc_graph *g = fn_body->g;
    void *def;
    size_t len;
    tfc_graph_lock(g);
    int r = tfc_graph_to_functiondef(g, &a, &def, &len, s);
    tfc_graph_unlock(g);
    if (r == TFC_OK) {
      f = function_new(fn_name, def, len, s);
      free(def);
    }
  }
  free(in);
  free(out);
  return f;
}

TFC_EXPORT TF_Function *TF_GraphToFunction(const TF_Graph *fn_body, const char *fn_name,
                                           unsigned char append_hash_to_fn_name, int num_opers,
                                           const TF_Operation *const *opers, int ninputs, const TF_Output *inputs,
                                           int noutputs, const TF_Output *outputs, const char *const *output_names,
                                           const TF_FunctionOptions *opts, const char *description,
                                           TF_Status *status) {
  return TF_GraphToFunctionWithControlOutputs(fn_body, fn_name, append_hash_to_fn_name, num_opers, opers, ninputs,
                                              inputs, noutputs, outputs, output_names, 0, NULL, NULL, opts,
                                              description, status);
}
