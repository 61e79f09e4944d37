/*
 * control_flow — static frames of a graph's nodes; see control_flow.h for the rules.
 *
 * One pass in id order. For each node, the frame of each input that is not a loop back edge
 * is the output frame of its source (already known: sources come first); the first such input
 * fixes the node's frame and is remembered, so a disagreeing input can be named beside it as
 * TF names both. Frames are found by name in a small table (a graph has few loops).
 */
#include "graph/control_flow.h"

#include <stdlib.h>
#include <string.h>

#include "ops/attr.h"

int tfc_node_is_enter(const tfc_node *n) { return n->op->id == TFC_OP_Enter || n->op->id == TFC_OP_RefEnter; }
int tfc_node_is_exit(const tfc_node *n) { return n->op->id == TFC_OP_Exit || n->op->id == TFC_OP_RefExit; }
int tfc_node_is_loop_cond(const tfc_node *n) { return n->op->id == TFC_OP_LoopCond; }

void tfc_cf_info_fini(tfc_cf_info *info) {
  for (int i = 0; i < info->n_frames; i++) free(info->frames[i].name);
  free(info->frames);
  free(info->frame_of);
  memset(info, 0, sizeof *info);
}

int tfc_cf_output_frame(const tfc_cf_info *info, const tfc_node *n) {
  int f = info->frame_of[n->id];
  if (tfc_node_is_exit(n)) return f > 0 ? info->frames[f].parent : 0;
  if (!tfc_node_is_enter(n)) return f;
  /* An Enter's child frame: the frame whose parent is f and whose name is its frame_name
   * (found again rather than stored: Enters are few). */
  const tfc_attr_value *fn = tfc_node_attr(n, "frame_name");
  for (int i = 1; i < info->n_frames; i++)
    if (info->frames[i].parent == f && fn && strlen(info->frames[i].name) == fn->u.s.len &&
        memcmp(info->frames[i].name, fn->u.s.data, fn->u.s.len) == 0)
      return i;
  return f;
}

/* The frame named `name` (len bytes), added under `parent` when new (*out_index); INTERNAL
 * when the name is already a frame with another parent. */
static int frame_for(tfc_cf_info *info, const tfc_node *enter, const char *name, size_t len, int parent,
                     int *out_index, tfc_status *s) {
  for (int i = 1; i < info->n_frames; i++) {
    tfc_cf_frame *f = &info->frames[i];
    if (strlen(f->name) != len || memcmp(f->name, name, len) != 0) continue;
    if (f->parent != parent)
      return tfc_status_set(s, TFC_INTERNAL,
                            "Invalid loop structure: Mismatched parent frames for \"%s\": \"%s\" vs \"%s\". The node "
                            "giving this error: {{node %s}}. This is an internal bug, please file a bug report with "
                            "instructions on how to reproduce the error.",
                            f->name, info->frames[parent].name, info->frames[f->parent].name, enter->name);
    *out_index = i;
    return TFC_OK;
  }
  tfc_cf_frame *nf = realloc(info->frames, sizeof *nf * (size_t)(info->n_frames + 1));
  if (!nf) return TFC_OOM(s);
  info->frames = nf;
  int64_t par = 10;
  tfc_node_attr_int(enter, "parallel_iterations", &par);
  nf[info->n_frames] = (tfc_cf_frame){.name = malloc(len + 1), .parent = parent, .enter = enter,
                                      .parallel_iterations = par > 0 ? (int)par : 1};
  if (!nf[info->n_frames].name) return TFC_OOM(s);
  memcpy(nf[info->n_frames].name, name, len);
  nf[info->n_frames].name[len] = '\0';
  *out_index = info->n_frames++;
  return TFC_OK;
}

/* Frame of node n from its inputs; *first_src (an array by node id) remembers which input
 * fixed it, for the error naming both. */
static int node_frame(tfc_cf_info *info, const tfc_node *n, const tfc_node **first_src, tfc_status *s) {
  int frame = -1;
  const tfc_node *from = NULL;
  int n_all = n->n_inputs + n->n_control_inputs;
  for (int j = 0; j < n_all; j++) {
    const tfc_node *src;
    if (j < n->n_inputs) {
      if (tfc_node_input_is_back_edge(n, j)) continue;
      src = n->inputs[j].node;
    } else {
      src = n->control_inputs[j - n->n_inputs];
    }
    int f = tfc_cf_output_frame(info, src);
    if (frame < 0) {
      frame = f;
      from = src;
    } else if (f != frame) {
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "{{node %s}} has inputs from different frames. The input {{node %s}} is in frame '%s'. "
                            "The input {{node %s}} is in frame '%s'.",
                            n->name, src->name, info->frames[f].name, from->name, info->frames[frame].name);
    }
  }
  first_src[n->id] = from;
  info->frame_of[n->id] = frame < 0 ? 0 : frame;
  return TFC_OK;
}

static int note_loop_cond(tfc_cf_info *info, const tfc_node *n, tfc_status *s) {
  tfc_cf_frame *f = &info->frames[info->frame_of[n->id]];
  if (f->loop_cond && !strstr(f->loop_cond->name, "LoopCounter") && !strstr(n->name, "LoopCounter"))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "Invalid loop structure: Loop \"%s\" has more than one LoopCond node: {{node %s}} and "
                          "{{node %s}}. This is an internal bug, please file a bug report with instructions on how "
                          "to reproduce the error.",
                          f->name, n->name, f->loop_cond->name);
  f->loop_cond = n;
  return TFC_OK;
}

int tfc_cf_info_build(const tfc_graph *g, tfc_cf_info *out, tfc_status *s) {
  memset(out, 0, sizeof *out);
  out->n_nodes = g->n_nodes;
  out->frame_of = calloc((size_t)g->n_nodes + 1, sizeof(int));
  out->frames = calloc(1, sizeof *out->frames);
  const tfc_node **first_src = calloc((size_t)g->n_nodes + 1, sizeof *first_src);
  int rc = TFC_OK;
  if (!out->frame_of || !out->frames || !first_src || !(out->frames[0].name = strdup(""))) {
    rc = TFC_OOM(s);
  } else {
    out->n_frames = 1;
    out->frames[0].parent = -1;
    out->frames[0].parallel_iterations = 1;
  }
  for (int i = 0; i < g->n_nodes && !rc; i++) {
    const tfc_node *n = g->nodes[i];
    rc = node_frame(out, n, first_src, s);
    if (!rc && tfc_node_is_enter(n)) {
      const tfc_attr_value *fn = tfc_node_attr(n, "frame_name");
      if (!fn || fn->kind != TFC_ATTR_STRING || fn->u.s.len == 0) {
        rc = tfc_status_set(s, TFC_INVALID_ARGUMENT, "The Enter {{node %s}} must have a frame name.", n->name);
      } else {
        int child;
        rc = frame_for(out, n, fn->u.s.data, fn->u.s.len, out->frame_of[i], &child, s);
      }
    }
    if (!rc && tfc_node_is_loop_cond(n)) rc = note_loop_cond(out, n, s);
  }
  free(first_src);
  if (rc) tfc_cf_info_fini(out);
  return rc;
}
