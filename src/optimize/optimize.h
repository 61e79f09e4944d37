/*
 * optimize — the graph optimization stage: rewrites of a run signature's client graph
 * (session/client_graph.h) before it is partitioned, in the spirit of TF's default graph
 * optimizations. It runs once per distinct run signature, when the session builds that
 * signature's plan, and the plan cache keeps the result.
 *
 * Passes, in order, one file each:
 *   const_fold.c   constant folding: pure subgraphs fed only by Const nodes are evaluated once
 *                  with the CPU kernels and replaced by Const nodes carrying the folded
 *                  node's name (TF's ConstantFolding);
 *   scale_fold.c   a per-output-channel Mul by a constant after Conv2D,
 *                  DepthwiseConv2dNative or MatMul with constant weights goes into the weights
 *                  (the decomposed inference batch norm of frozen Keras models);
 *   fuse_conv.c    a zero Pad before a VALID convolution goes into its EXPLICIT padding, and a
 *                  convolution with its bias and activation becomes one _FusedConv2D or
 *                  _FusedDepthwiseConv2dNative node named as the last of them (TF's remapper);
 *   pool_ws.c      a float MaxPool and its MaxPoolGrad become _MaxPoolWithWorkspace and
 *                  _MaxPoolGradWithWorkspace of their names: the pool records where each
 *                  gradient goes, so the gradient does not search its input again (TF's oneDNN
 *                  workspace);
 *   dep_opt.c      a pure node that only control edges wait for (a gated gradient nobody
 *                  uses) becomes a NoOp of its name waiting for what it waited for (TF's
 *                  DependencyOptimizer);
 * and after each pass that changed something (or once, when none did), pruning (optimize.c, with the copier the passes
 * share) drops what no longer feeds a fetch, a target or a stateful node (a control edge from a
 * Const that depends on nothing feeds nothing: it orders nothing and has no effect).
 *
 * What the stage guarantees. Values stay those of the unoptimized graph up to float rounding
 * (the folded graph computes the same expressions, reassociated only by scale folding). A node
 * a _Retval reads (a fetch) keeps its name and its op (except that the last node of a fused
 * convolution chain becomes the fused op, under its name, and a node only control edges wait for
 * may become a NoOp of its name); fed tensors are already _Arg nodes
 * in a client graph and are never folded. Error behaviour is unchanged: a kernel that fails while
 * folding leaves its subgraph unfolded, to fail at run time with the same status; only pure
 * ops (not stateful, not control flow, not internal) with CPU kernels are folded, outside
 * loops. Only nodes placed on CPU devices are folded or fused.
 *
 * Options: session/config.h's switches (ConfigProto's OptimizerOptions and RewriterConfig).
 *
 * Ownership and errors: tfc_optimize_graph replaces *g with a new graph (freeing the old one)
 * when a pass changed it; on error (out of memory, node creation) *g is left as it was and the
 * status is set. Nothing else is kept between calls; thread-safe for distinct graphs.
 */
#ifndef TFC_OPTIMIZE_OPTIMIZE_H
#define TFC_OPTIMIZE_OPTIMIZE_H

#include <stdint.h>

#include "base/status.h"
#include "graph/graph.h"

typedef struct tfc_optimize_options {
  int constant_folding;                 /* 1: run const_fold */
  int scale_folding;                    /* 1: run scale_fold */
  int remapping;                        /* 1: fuse_conv's conv + bias + activation fusion, pool_ws */
  int pad_folding;                      /* 1: fuse_conv's folding of a Pad into a conv's padding */
  int dependency_optimization;          /* 1: run dep_opt */
  int64_t max_folded_constant_in_bytes; /* <= 0: TF's default, 10 MiB */
} tfc_optimize_options;

/* Runs the enabled passes over the client graph *g (see the top comment). */
int tfc_optimize_graph(tfc_graph **g, const tfc_optimize_options *o, tfc_status *s);

#endif
