/*
 * partition — splits a placed graph into one graph per device, joined by _Send/_Recv pairs.
 *
 * Input: a graph in which every node has `assigned_device` set to a full device name (the
 * session builds it from the pruned user graph plus _Arg/_Retval call-frame nodes). Output:
 * one graph per distinct assigned device, in order of first appearance; each keeps its nodes'
 * names, ops, attrs, requested devices and output shapes, and its nodes' assigned_device.
 * Devices are keyed by full name, which holds (job, replica, task, device), so a partition
 * for a remote task is just another entry (the distributed runtime registers it remotely).
 *
 * Every edge whose ends sit on different devices is cut (tensorflow/core/graph/
 * graph_partition.cc):
 * - data edge src:k -> dst: a _Send on src's device (input src:k) and a _Recv on dst's
 *   device feeding dst. Attrs: tensor_name "edge_<id>_<src name>", send_device,
 *   send_device_incarnation (int64), recv_device, client_terminated false; T on _Send,
 *   tensor_type on _Recv (the base dtype; shape = src's output shape). One pair per (src, k,
 *   dst device, recv side in host memory) — TF's DupRecvKey: other consumers on that device
 *   share the _Recv. Node names: "<src name>/_<n>", n counting up from 0 per call and
 *   skipping names the input graph already holds; new nodes request and are assigned their
 *   partition's device.
 * - control edge src -> dst: an empty float Const (shape [0], TF's AddDummyConst) on src's
 *   device with a control input from src, sent as above; dst gets a control input from the
 *   _Recv (TF puts an Identity after that _Recv; we do not need one).
 * - _HostSend/_HostRecv instead of _Send/_Recv when the side that is not a CPU device keeps
 *   that tensor in host memory (the kernel's host_memory_in/out masks, plus string, resource
 *   and variant tensors): int32 shape inputs of GPU kernels never travel through device
 *   memory. A data edge inside one non-CPU device whose ends disagree on host memory is cut
 *   the same way, with send_device == recv_device (TF's NeedSameDeviceSendRecv).
 * Edge ids number the input graph's edges in (dst id, data inputs then control inputs)
 * order, so names are stable for a given graph.
 *
 * Control flow across devices (TF's AddControlFlow, done when the graph has control-flow
 * ops and an edge between devices): each node's frame is computed (graph/control_flow.h; its
 * INVALID_ARGUMENT errors for malformed loops come from here). Switch and Exit move to the
 * device of their data input, a non-ref Enter and a NextIteration to that of their first data
 * consumer (when that device has a kernel for them); the input graph is not changed, the
 * partition copies carry the new device. The device holding a frame's LoopCond leads: for each
 * cut edge inside a loop frame F (source output frame = F, not the root), the destination's
 * partition gets a control loop for F, and for each enclosing frame, made once per (frame,
 * partition): "_cloop<dst>/_<n>" nodes Enter(frame_name F, F's parallel_iterations, float) ->
 * Merge(Enter, NextIteration) -> Switch(Merge, LoopCond) -> NextIteration(Switch:1), no Exit.
 * The outermost Enter takes an empty float Const (root frame), an inner one the enclosing
 * loop's Merge; the LoopCond reaches the Switch through a _Send/_Recv pair like any cut edge
 * of F. The _Recv made for an edge of F takes a control input from F's Merge on its
 * partition, so it runs once per iteration, the last time dead; an edge that shares an
 * existing _Recv leaves that control input on its destination. A frame without LoopCond that
 * needs a control loop: INVALID_ARGUMENT "A cross-device loop must have a pivot predicate:
 * <frame>". A loop back edge (NextIteration -> Merge) left between devices: INVALID_ARGUMENT.
 * A partition that may then receive dead tokens but holds no control-flow op gets an
 * unconnected ControlTrigger "_cf_marker/_<n>" (when its device has that kernel): the
 * executor handles dead tensors only in graphs with control-flow ops (exec/frame.h).
 *
 * Ownership: the input graph and devices are borrowed for the call; the result owns its
 * graphs (tfc_partitions_fini). Thread-safe for distinct outputs.
 */
#ifndef TFC_PARTITION_PARTITION_H
#define TFC_PARTITION_PARTITION_H

#include "device/device.h"
#include "graph/graph.h"

typedef struct tfc_partition {
  tfc_device *device; /* borrowed from the options' device array */
  tfc_graph *graph;   /* owned */
} tfc_partition;

typedef struct tfc_partitions {
  int n;
  tfc_partition *parts;
} tfc_partitions;

typedef struct tfc_partition_options {
  tfc_device *const *devices; /* every device a node may be assigned to (incarnations, kernels) */
  int n_devices;
} tfc_partition_options;

/* Partitions g. INVALID_ARGUMENT when a node has no assigned device or one not in the
 * options' devices, or for the control-flow errors above; INTERNAL when a node on a non-CPU device has no kernel there (the placer
 * should have caught it; kernels are looked up only for data-edge ends on non-CPU devices).
 * On error *out is empty (n 0, parts NULL). */
int tfc_partition_graph(const tfc_graph *g, const tfc_partition_options *opts,
                        tfc_partitions *out, tfc_status *s);
void tfc_partitions_fini(tfc_partitions *p);

#endif
