/*
 * capi/while — TF_NewWhile / TF_FinishWhile / TF_AbortWhile, TF 1.15's C API while loops.
 *
 * TF_NewWhile makes two fresh graphs owned by the params: the cond graph and the body graph,
 * each starting with one Placeholder per loop variable ("cond_input<i>", "body_input<i>").
 * The caller builds into them and sets cond_output, body_outputs[] and name.
 *
 * TF_FinishWhile builds the loop into the parent graph as TF's BuildWhileLoop does, with the
 * frame name = params.name and TF's node names:
 *   <name>/Enter[_i]  (parallel_iterations 10, is_constant false)
 *   <name>/Merge[_i]  (Enter, NextIteration — the back edge is set last)
 *   <name>/cond/...   (the cond graph imported, its placeholders mapped to the Merges, and a
 *                      control edge from Merge 0 to every imported node with no input from
 *                      the cond graph itself)
 *   <name>/LoopCond, <name>/Switch[_i]
 *   <name>/body/...   (the body graph likewise, mapped to the Switches' true outputs, control
 *                      edge from Switch 0)
 *   <name>/NextIteration[_i], <name>/Exit[_i]   (outputs[i] = Exit_i:0)
 * The placeholders themselves are not imported (they are the graphs' first nodes, left out of
 * the export). Any error rolls the parent graph back to where it was (TF leaves what it built
 * before the error). Unlike TF, a body output whose type differs from its loop variable's is
 * an error here (TF builds the loop, whose Merge then mixes types). The params' graphs and
 * arrays are freed by Finish (success or error, except when the params did not come from a
 * successful TF_NewWhile) and by Abort.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi/capi_internal.h"
#include "proto/graphdef.h"
#include "tensor/dtype.h"
#include "tensor/shape.h"

static TF_WhileParams empty_params(void) {
  TF_WhileParams p = {0, NULL, NULL, {NULL, 0}, NULL, NULL, NULL, NULL};
  return p;
}

/* A Placeholder of dtype `type` named `name` in g; NULL (status set) on error. */
static TF_Operation *placeholder(TF_Graph *g, const char *name, TF_DataType type, TF_Status *status) {
  TF_OperationDescription *d = TF_NewOperation(g, "Placeholder", name);
  TF_SetAttrType(d, "dtype", type);
  return TF_FinishOperation(d, status);
}

static TF_WhileParams new_while(TF_Graph *g, TF_Output *inputs, int ninputs, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (ninputs < 1) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_NewWhile() must be passed at least one input");
    return empty_params();
  }
  if (!g || !inputs) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_NewWhile: graph or inputs is NULL");
    return empty_params();
  }
  for (int i = 0; i < ninputs; i++) {
    const tfc_node *n = tfc_capi_node(inputs[i].oper);
    if (!n || n->graph != g->g || inputs[i].index < 0 || inputs[i].index >= n->n_outputs) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_NewWhile: input %d is not an output of the graph", i);
      return empty_params();
    }
  }
  TF_Graph *cond = TF_NewGraph(), *body = TF_NewGraph();
  TF_Output *cond_in = calloc((size_t)ninputs, sizeof *cond_in);
  TF_Output *body_in = calloc((size_t)ninputs, sizeof *body_in);
  TF_Output *body_out = calloc((size_t)ninputs, sizeof *body_out);
  TF_Output *saved = malloc(sizeof *saved * (size_t)ninputs);
  int ok = cond && body && cond_in && body_in && body_out && saved;
  if (!ok) TFC_OOM(s);
  for (int i = 0; ok && i < ninputs; i++) {
    char name[32];
    TF_DataType t = TF_OperationOutputType(inputs[i]);
    snprintf(name, sizeof name, "cond_input%d", i);
    cond_in[i].oper = placeholder(cond, name, t, status);
    snprintf(name, sizeof name, "body_input%d", i);
    if (cond_in[i].oper) body_in[i].oper = placeholder(body, name, t, status);
    ok = cond_in[i].oper && body_in[i].oper;
    saved[i] = inputs[i];
  }
  if (!ok) {
    TF_DeleteGraph(cond);
    TF_DeleteGraph(body);
    free(cond_in);
    free(body_in);
    free(body_out);
    free(saved);
    return empty_params();
  }
  cond->while_parent = g;
  cond->while_inputs = saved;
  TF_WhileParams p = {ninputs, cond, cond_in, {NULL, 0}, body, body_in, body_out, NULL};
  return p;
}

TFC_EXPORT TF_WhileParams TF_NewWhile(TF_Graph *g, TF_Output *inputs, int ninputs, TF_Status *status) {
  if (status) return new_while(g, inputs, ninputs, status);
  TF_Status *local = TF_NewStatus(); /* the calls inside need one */
  TF_WhileParams p = new_while(g, inputs, ninputs, local);
  TF_DeleteStatus(local);
  return p;
}

TFC_EXPORT void TF_AbortWhile(const TF_WhileParams *params) {
  if (!params || !params->cond_graph) return;
  free(params->cond_graph->while_inputs);
  TF_DeleteGraph(params->cond_graph);
  TF_DeleteGraph(params->body_graph);
  free((void *)params->cond_inputs);
  free((void *)params->body_inputs);
  free(params->body_outputs);
}

/* "<name>/<base>" for i == 0, "<name>/<base>_<i>" after. */
static void loop_name(char *buf, size_t n, const char *name, const char *base, int i) {
  if (i == 0) snprintf(buf, n, "%s/%s", name, base);
  else snprintf(buf, n, "%s/%s_%d", name, base, i);
}

/* Checks that `out` is an output of subgraph `sub` (TF's texts for a tensor the import of
 * `sub` would not find). Placeholders of the params count as found. */
static int check_return(TF_Graph *sub, TF_Output out, tfc_status *s) {
  tfc_node *n = tfc_capi_node(out.oper);
  if (n->graph != sub->g)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Requested return tensor '%s:%d' not found in graph def",
                          n->name, out.index);
  if (out.index < 0 || out.index >= n->n_outputs)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Invalid return output %d of node '%s', which has %d output(s)",
                          out.index, n->name, n->n_outputs);
  return TFC_OK;
}

/* Imports subgraph `sub` (all but its first ninputs nodes, the placeholders) into the parent
 * under `prefix`, mapping placeholder i to mapped[i] and adding the control edge from `ctrl`.
 * Resolves the n_ret tensors `ret` of sub into `ret_out` (a placeholder resolves to its
 * mapping). */
static int import_sub(TF_Graph *parent, TF_Graph *sub, const TF_Output *placeholders, int ninputs,
                      const TF_Output *mapped, tfc_node *ctrl, const char *prefix, const TF_Output *ret,
                      int n_ret, TF_Output *ret_out, tfc_status *s) {
  void *data = NULL;
  size_t len = 0;
  tfc_import_input_mapping *maps = calloc((size_t)ninputs, sizeof *maps);
  tfc_import_tensor_ref *refs = calloc((size_t)n_ret + 1, sizeof *refs);
  int *ret_slot = calloc((size_t)n_ret + 1, sizeof *ret_slot);
  int r = TFC_OK;
  if (!maps || !refs || !ret_slot) r = TFC_OOM(s);
  if (r == TFC_OK) r = tfc_graphdef_export_ex(sub->g, ninputs, 0, &data, &len, s);
  int n_refs = 0;
  for (int i = 0; r == TFC_OK && i < ninputs; i++) {
    maps[i].src_name = tfc_capi_node(placeholders[i].oper)->name;
    maps[i].src_index = 0;
    maps[i].dst = tfc_capi_endpoint(mapped[i]);
  }
  for (int k = 0; r == TFC_OK && k < n_ret; k++) {
    ret_slot[k] = -1;
    for (int i = 0; i < ninputs; i++)
      if (ret[k].oper == placeholders[i].oper) ret_out[k] = mapped[i];
    if (ret_slot[k] == -1 && tfc_capi_node(ret[k].oper)->id >= ninputs) {
      refs[n_refs].name = tfc_capi_node(ret[k].oper)->name;
      refs[n_refs].index = ret[k].index;
      ret_slot[k] = n_refs++;
    }
  }
  if (r == TFC_OK) {
    tfc_import_options io;
    memset(&io, 0, sizeof io);
    io.prefix = prefix;
    io.n_input_mappings = ninputs;
    io.input_mappings = maps;
    io.n_control_deps = 1;
    io.control_deps = &ctrl;
    io.n_return_outputs = n_refs;
    io.return_outputs = refs;
    tfc_import_results res;
    tfc_import_results_init(&res);
    r = tfc_graphdef_import(parent->g, data, len, &io, &res, s);
    for (int k = 0; r == TFC_OK && k < n_ret; k++)
      if (ret_slot[k] >= 0) {
        ret_out[k].oper = tfc_capi_oper(res.return_outputs[ret_slot[k]].node);
        ret_out[k].index = res.return_outputs[ret_slot[k]].index;
      }
    tfc_import_results_fini(&res);
  }
  free(data);
  free(maps);
  free(refs);
  free(ret_slot);
  return r;
}

/* One loop node in the parent: op(in) with attr T (when typed), Enter's frame attrs. */
static TF_Operation *loop_node(TF_Graph *g, const char *op, const char *name, TF_Output in, int typed,
                               const char *frame, TF_Status *status) {
  TF_OperationDescription *d = TF_NewOperation(g, op, name);
  TF_AddInput(d, in);
  if (typed) TF_SetAttrType(d, "T", TF_OperationOutputType(in));
  if (frame) {
    TF_SetAttrString(d, "frame_name", frame, strlen(frame));
    TF_SetAttrBool(d, "is_constant", 0);
    TF_SetAttrInt(d, "parallel_iterations", 10);
  }
  return TF_FinishOperation(d, status);
}

/* TF keeps one while context per frame name in a graph: a loop whose name an earlier loop's
 * Enter already uses as its frame is an error. */
static int check_frame_unused(tfc_graph *g, const char *name, tfc_status *s) {
  size_t len = strlen(name);
  int used = 0;
  tfc_graph_lock(g);
  for (int i = 0; i < g->n_nodes && !used; i++) {
    const tfc_node *n = g->nodes[i];
    if (!n || (strcmp(n->op->name, "Enter") != 0 && strcmp(n->op->name, "RefEnter") != 0)) continue;
    const tfc_attr_value *fn = tfc_node_attr(n, "frame_name");
    used = fn && fn->kind == TFC_ATTR_STRING && fn->u.s.len == len && memcmp(fn->u.s.data, name, len) == 0;
  }
  tfc_graph_unlock(g);
  if (used)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "WhileContext with frame name '%s' already exists", name);
  return TFC_OK;
}

static int build_loop(const TF_WhileParams *p, TF_Output *outputs, TF_Status *status) {
  tfc_status *s = &status->s;
  TF_Graph *g = p->cond_graph->while_parent;
  const int n = p->ninputs;
  const char *name = p->name;
  if (check_return(p->cond_graph, p->cond_output, s)) return s->code;
  for (int i = 0; i < n; i++)
    if (check_return(p->body_graph, p->body_outputs[i], s)) return s->code;
  if (check_frame_unused(g->g, name, s)) return s->code;
  TF_DataType ct = TF_OperationOutputType(p->cond_output);
  if (ct != TF_BOOL)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "BuildWhileLoop: 'cond' argument must return a boolean output, got %s",
                          tfc_dtype_name((int)ct));
  size_t nb = strlen(name) + 64;
  char *buf = malloc(nb);
  TF_Output *merge = calloc((size_t)n, sizeof *merge), *sw_true = calloc((size_t)n, sizeof *sw_true);
  TF_Output *next = calloc((size_t)n, sizeof *next);
  if (!buf || !merge || !sw_true || !next) {
    free(buf), free(merge), free(sw_true), free(next);
    return TFC_OOM(s);
  }
  int r = TFC_OK;
  for (int i = 0; r == TFC_OK && i < n; i++) {
    loop_name(buf, nb, name, "Enter", i);
    TF_Operation *enter = loop_node(g, "Enter", buf, p->cond_graph->while_inputs[i], 1, name, status);
    if (!enter) r = s->code;
    merge[i].oper = enter; /* the Merge is made after every Enter, as in TF */
  }
  for (int i = 0; r == TFC_OK && i < n; i++) {
    loop_name(buf, nb, name, "Merge", i);
    TF_OperationDescription *d = TF_NewOperation(g, "Merge", buf);
    TF_Output ins[2] = {{merge[i].oper, 0}, {merge[i].oper, 0}}; /* input 1 becomes the back edge */
    TF_AddInputList(d, ins, 2);
    TF_Operation *m = TF_FinishOperation(d, status);
    if (!m) r = s->code;
    merge[i] = (TF_Output){m, 0};
  }
  TF_Output cond_out = {NULL, 0};
  if (r == TFC_OK) {
    snprintf(buf, nb, "%s/cond", name);
    r = import_sub(g, p->cond_graph, p->cond_inputs, n, merge, tfc_capi_node(merge[0].oper), buf, &p->cond_output, 1,
                   &cond_out, s);
  }
  TF_Operation *loop_cond = NULL;
  if (r == TFC_OK) {
    snprintf(buf, nb, "%s/LoopCond", name);
    loop_cond = loop_node(g, "LoopCond", buf, cond_out, 0, NULL, status);
    if (!loop_cond) r = s->code;
  }
  TF_Operation **sw = calloc((size_t)n, sizeof *sw);
  if (!sw && r == TFC_OK) r = TFC_OOM(s);
  for (int i = 0; r == TFC_OK && i < n; i++) {
    loop_name(buf, nb, name, "Switch", i);
    TF_OperationDescription *d = TF_NewOperation(g, "Switch", buf);
    TF_AddInput(d, merge[i]);
    TF_AddInput(d, (TF_Output){loop_cond, 0});
    sw[i] = TF_FinishOperation(d, status);
    if (!sw[i]) r = s->code;
    sw_true[i] = (TF_Output){sw[i], 1};
  }
  if (r == TFC_OK) {
    snprintf(buf, nb, "%s/body", name);
    r = import_sub(g, p->body_graph, p->body_inputs, n, sw_true, tfc_capi_node(sw[0]), buf, p->body_outputs, n, next,
                   s);
  }
  for (int i = 0; r == TFC_OK && i < n; i++) {
    loop_name(buf, nb, name, "NextIteration", i);
    TF_Operation *ni = loop_node(g, "NextIteration", buf, next[i], 1, NULL, status);
    if (!ni) {
      r = s->code;
      break;
    }
    tfc_node *m = tfc_capi_node(merge[i].oper), *src = tfc_capi_node(ni);
    if (tfc_dtype_base(src->output_types[0]) != tfc_dtype_base(m->input_types[1])) {
      r = tfc_status_set(s, TFC_INVALID_ARGUMENT,
                         "Input 1 of node %s was passed %s from %s:0 incompatible with expected %s.", m->name,
                         tfc_dtype_name(src->output_types[0]), src->name, tfc_dtype_name(m->input_types[1]));
      break;
    }
    tfc_graph_lock(g->g);
    m->inputs[1] = (tfc_endpoint){src, 0};
    m->output_shapes[0] = tfc_shape_unknown();
    tfc_graph_unlock(g->g);
  }
  for (int i = 0; r == TFC_OK && i < n; i++) {
    loop_name(buf, nb, name, "Exit", i);
    TF_Operation *ex = loop_node(g, "Exit", buf, (TF_Output){sw[i], 0}, 1, NULL, status);
    if (!ex) r = s->code;
    else outputs[i] = (TF_Output){ex, 0};
  }
  free(buf), free(merge), free(sw_true), free(next), free(sw);
  return r;
}

static void finish_while(const TF_WhileParams *params, TF_Status *status, TF_Output *outputs) {
  tfc_status *s = tfc_capi_status(status);
  if (!params || !params->cond_graph || !params->cond_graph->while_parent) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_WhileParams must be created by successful TF_NewWhile() call");
    return;
  }
  int r = TFC_OK;
  if (!params->cond_output.oper)
    r = tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_WhileParams `cond_output` field isn't set");
  for (int i = 0; r == TFC_OK && i < params->ninputs; i++)
    if (!params->body_outputs[i].oper)
      r = tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_WhileParams `body_outputs[%d]` field isn't set", i);
  if (r == TFC_OK && !params->name) r = tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_WhileParams `name` field is null");
  if (r == TFC_OK) {
    tfc_graph *pg = params->cond_graph->while_parent->g;
    tfc_graph_lock(pg);
    int mark = tfc_graph_mark(pg);
    tfc_graph_unlock(pg);
    if (build_loop(params, outputs, status) != TFC_OK) {
      tfc_graph_lock(pg);
      tfc_graph_rollback(pg, mark);
      tfc_graph_unlock(pg);
    }
  }
  TF_AbortWhile(params);
}

TFC_EXPORT void TF_FinishWhile(const TF_WhileParams *params, TF_Status *status, TF_Output *outputs) {
  if (status) {
    finish_while(params, status, outputs);
    return;
  }
  TF_Status *local = TF_NewStatus(); /* the calls inside need one */
  finish_while(params, local, outputs);
  TF_DeleteStatus(local);
}
