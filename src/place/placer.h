/*
 * placer — assigns every node of a session's graph to one device, with a reason.
 *
 * TF's rules (tensorflow/core/common_runtime/placer.cc, colocation_graph.cc), in passes:
 * 1. Colocation groups by union-find: each node starts alone; a `_class` entry "loc:@other"
 *    joins other's group; a data edge into a reference-typed input joins source and
 *    destination (a variable, its Assign and its ref reads). Joining a group merges the
 *    requested device specs (tfc_devname_merge, soft when allow_soft_placement) and
 *    intersects the device types that have a kernel for every member.
 * 2. Each group's candidates: the devices matching the merged spec whose type supports every
 *    member, ordered by device-type priority (GPU 210 before CPU 70), then type, then id. With
 *    allow_soft_placement and no candidate, the spec is relaxed to job/replica/task only
 *    (a missing /gpu:2 falls back to another GPU, then to CPU; no GPU kernel falls back to
 *    CPU). The group takes candidates[0].
 * 3. Heuristics for nodes alone in their group: a generator (no inputs, one non-ref output,
 *    e.g. Const) follows its consumers when they all sit on one device that can run it; a
 *    metadata op (Shape, Size, Rank) follows its input's device.
 * 4. Nodes placed by an earlier call keep their device; a group holding one fixes the group.
 *
 * Every node gets a reason, e.g. "explicit request /device:CPU:1", "colocated with w via
 * reference edge", "colocated with w via _class loc:@w", "soft placement: no GPU kernel for
 * Assign", "soft placement: /device:GPU:2 does not exist", "generator: follows its consumer
 * c", "metadata: follows its input x", "default: first device with a kernel".
 *
 * Errors are TF 1.15's INVALID_ARGUMENT texts, prefixed "Cannot assign a device for
 * operation <name>: " — a device that does not exist ("Operation was explicitly assigned to
 * /device:GPU:2 but available devices are [ ... ]. Make sure the device specification refers
 * to a valid device."), no kernel on the requested type ("Could not satisfy explicit device
 * specification '/device:GPU:0' because no supported kernel for GPU devices is available."
 * + "\nColocation Debug Info:\nColocation group had the following types and devices: \n<Op>:
 * <types> \n..." one line per op type), colocation conflicts ("Cannot colocate nodes 'a' and
 * 'b': ..."), reference-edge conflicts, malformed device strings ("Malformed device
 * specification '<s>' in node: <name>"), and an op with no kernel anywhere (the kernel
 * table's "No OpKernel was registered ..." text). tfc adds one line to every error saying
 * whether soft placement was on, since TF users could not tell (tf#30782).
 *
 * Ownership: devices are borrowed for the call. out[] is caller storage; reasons are heap
 * strings owned by the caller (tfc_placement_fini). Not thread-safe per graph: the caller
 * holds the graph lock.
 */
#ifndef TFC_PLACE_PLACER_H
#define TFC_PLACE_PLACER_H

#include "device/device.h"
#include "graph/graph.h"

typedef struct tfc_placement {
  int device;   /* index into the device array; -1 before placement */
  char *reason; /* heap, owned by the caller */
} tfc_placement;

typedef struct tfc_place_options {
  int allow_soft_placement;
} tfc_place_options;

/* Places nodes [first, g->n_nodes) of g over devices[0..n_devices) (in any order: the placer
 * sorts candidates itself). out[0..first) hold earlier placements (read, kept); on success
 * out[first..n_nodes) are filled. On error out[first..) are left with device -1 and no
 * reason, and s holds the error. The caller holds the graph lock. */
int tfc_place(const tfc_graph *g, int first, tfc_device *const *devices, int n_devices,
              const tfc_place_options *opts, tfc_placement *out, tfc_status *s);
void tfc_placement_fini(tfc_placement *p, int n);

#endif
