/*
 * control_flow — the static frame of every node of a graph (TF's BuildControlFlowInfo,
 * tensorflow/core/graph/control_flow.cc), for passes that must know which while-loop a node
 * belongs to before anything runs: partitioning adds per-device control loops for frames
 * whose nodes sit on several devices (partition.h).
 *
 * Frames are named by the Enter ops' frame_name; the root frame is index 0, name "". A
 * node's frame is the frame its inputs live in: an Enter's successors are in the frame it
 * names (a child of the Enter's own frame), an Exit's successors in the parent of the Exit's
 * frame, every other node's successors in its own. A node without inputs is in the root
 * frame. The executor computes the same thing on each partition's items at run time
 * (exec/frame.c); this one works on a tfc_graph, before partitioning.
 *
 * Graphs list nodes in a topological order apart from loop back edges (graph.h,
 * tfc_node_input_is_back_edge), so one pass in id order suffices: each node's frame comes from
 * its first input that is not a back edge, and every other such input must agree.
 *
 * Errors, with TF's texts (nodes as "{{node <name>}}"):
 * - INVALID_ARGUMENT "<node> has inputs from different frames. The input <a> is in frame
 *   '<fa>'. The input <b> is in frame '<fb>'."
 * - INVALID_ARGUMENT "The Enter <node> must have a frame name."
 * - INTERNAL "Invalid loop structure: Mismatched parent frames for ..." (one frame name
 *   entered from two different frames)
 * - INVALID_ARGUMENT "Invalid loop structure: Loop "<f>" has more than one LoopCond node: ..."
 *   (allowed when either name contains "LoopCounter", as TF allows for gradient counters).
 *
 * Ownership: the info owns its arrays and frame names; the graph is borrowed for the call.
 */
#ifndef TFC_GRAPH_CONTROL_FLOW_H
#define TFC_GRAPH_CONTROL_FLOW_H

#include "graph/graph.h"

typedef struct tfc_cf_frame {
  char *name;                 /* "" for the root frame */
  int parent;                 /* frame index; -1 for the root */
  const tfc_node *enter;      /* the first Enter of the frame in id order (NULL: root) */
  const tfc_node *loop_cond;  /* the frame's pivot predicate; NULL when it has none */
  int parallel_iterations;    /* from `enter` (1 for the root) */
} tfc_cf_frame;

typedef struct tfc_cf_info {
  int n_nodes;
  int *frame_of; /* node id -> frame index of the node's inputs (an Enter's: its parent) */
  int n_frames;
  tfc_cf_frame *frames;
} tfc_cf_info;

/* Fills *out for g's nodes. On error *out is empty (tfc_cf_info_fini is still safe). */
int tfc_cf_info_build(const tfc_graph *g, tfc_cf_info *out, tfc_status *s);
void tfc_cf_info_fini(tfc_cf_info *info);

/* The frame n's outputs live in: an Enter's child frame, an Exit's parent frame (the root's
 * own for an Exit in the root), else n's frame. */
int tfc_cf_output_frame(const tfc_cf_info *info, const tfc_node *n);

/* 1 when n's op is Enter or RefEnter (Exit, RefExit; LoopCond), else 0. */
int tfc_node_is_enter(const tfc_node *n);
int tfc_node_is_exit(const tfc_node *n);
int tfc_node_is_loop_cond(const tfc_node *n);

#endif
