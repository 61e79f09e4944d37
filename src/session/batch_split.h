/*
 * batch_split — whether a step over a batch may run example by example.
 *
 * A step over a batch of N examples runs each layer over all N before the next begins, so
 * every layer's activations go out to main memory and come back for the next: for MobileNetV2
 * at batch 32, 154 MB for one layer's output alone. Run example by example, each example on
 * one thread through the whole graph, an example's activations stay in the caches between
 * layers, while the weights are read once per example instead of once per batch. That wins
 * when a network's weights are small next to one example's activations (MobileNetV2 at batch
 * 32 on two cores: 100 ms against 125) and loses when they are large (ResNet50, 100 MB of
 * weights: 850 ms against 680), so the session does it when the weights an example reads are
 * fewer bytes than the activations it makes (both from the graph's inferred shapes), and those
 * are 8 MiB or more (below, they stay in the caches anyway and a step per example costs more
 * than it saves).
 *
 * It is only done where the results are the same: every node that depends on a fed tensor
 * must map examples to examples (the rules in batch_split.c: convolutions, pooling, element-
 * wise ops whose other operand does not vary along the batch, MatMul of a batch by weights,
 * reductions, paddings, reshapes, concatenations and transposes that keep axis 0, inference
 * batch normalization, softmax, ...); everything else (a Shape of a fed tensor, a reduction
 * over axis 0, a stateful op other than reading a variable) keeps the step whole. The session
 * (session.c) splits a run only when it also has at least two examples, two threads, no
 * tracing, deadline or cancellation, no targets, and feeds that all share their leading
 * dimension; a failed example reruns the step whole, so errors are the batched run's.
 * TFC_BATCH_SPLIT=0 in the environment turns it off; TFC_BATCH_SPLIT=1 forces it wherever it
 * is allowed, whatever the weights.
 */
#ifndef TFC_SESSION_BATCH_SPLIT_H
#define TFC_SESSION_BATCH_SPLIT_H

#include "graph/graph.h"

/* 1 when graph g (a plan's only partition, with _Arg feeds and _Retval fetches) may and should
 * run example by example, as above; else 0. Reads g only; never fails (out of memory: 0). */
int tfc_batch_split_plan(const tfc_graph *g);

#endif
