/*
 * shape_eval — what the graph knows of a tensor's value while it is being built: TF's
 * ShapeRefiner answers to a shape function's input_tensor and MakeShapeFromShapeTensor.
 *
 * Three levels, each a superset of the one before:
 *  - tfc_shape_eval_known: values that need no kernel: a Const's value; Shape / Size of a
 *    fully known shape; Rank of a known rank; tf.shape(x)[i] (a StridedSlice of a Shape with
 *    shrink_axis_mask 1 and a Const index) and tf.unstack(tf.shape(x))[i] when that dim is
 *    known.
 *  - tfc_shape_eval_tensor: TF's EvaluateConstantTensor: the above, else the constant
 *    subgraph that computes the tensor (every node stateless, with a CPU kernel, not a
 *    placeholder, not control flow, no function attrs; control edges are not followed) is run
 *    on the CPU, here, with no device. A kernel error means "not constant".
 *  - tfc_shape_eval_partial: TF's ConstantPartialShape: a shape vector read as a partial
 *    shape. Shape / ShapeN give their input's shape, Pack gives one dim per scalar (unknown
 *    where not constant or negative), ConcatV2 / Concat join their pieces' partial shapes,
 *    StridedSlice of such a vector (one begin/end/stride, masks 0 or 1 for begin/end only)
 *    slices it as TF's Subshape does (with its errors), Cast between int types keeps it;
 *    anything else is its constant value or, failing that, unknown dims of the known length.
 *
 * All run under the graph's lock (the caller's), read only finished nodes, and never change
 * the graph.
 */
#ifndef TFC_GRAPH_SHAPE_EVAL_H
#define TFC_GRAPH_SHAPE_EVAL_H

#include "graph/graph.h"

/* 1 when no output of n can ever be known at build time (n or an input of it can never be
 * run to fold it: a placeholder, a stateful op, control flow, ...), from n's inputs' own
 * flags (tfc_node.no_fold, set by the graph as nodes are made); else 0 (maybe). */
int tfc_shape_eval_never_known(const tfc_node *n);
/* The value of e without running a kernel: a new reference, or NULL. */
tfc_tensor *tfc_shape_eval_known(tfc_endpoint e);
/* The value of e computed at build time: a new reference, or NULL when not constant. */
tfc_tensor *tfc_shape_eval_tensor(tfc_endpoint e);
/* e read as a shape: TFC_OK with *out (rank -1: nothing known), or INVALID_ARGUMENT with TF's
 * text (no node suffix, as TF reports it) in s: a StridedSlice of a shape out of bounds, a
 * shape vector of rank > 1, a value below -1. */
int tfc_shape_eval_partial(tfc_endpoint e, tfc_shape *out, tfc_status *s);

#endif
