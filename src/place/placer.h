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
 *    member, ordered by device-type priority (GPU 210 before CPU 70), then type name, then
 *    job, replica, task and id, numbers compared as numbers (CPU:2 before CPU:10). With
 *    allow_soft_placement and no candidate, the spec is relaxed to job/replica/task only
 *    (a missing /gpu:2 falls back to another GPU, then to CPU; no GPU kernel falls back to
 *    CPU). The group takes candidates[0].
 * 3. Heuristics for nodes alone in their group: a generator (no inputs, one non-ref output,
 *    e.g. Const) follows its consumers when they all sit on one device that can run it; a
 *    metadata op (Shape, Size, Rank) follows its first input's device when it can run there.
 * 4. Nodes placed by an earlier call keep their device; a group holding one is fixed to it
 *    (soft placement does not move it).
 * `_class` "loc:@X" naming no node: the nodes naming X are colocated with each other (TF keys
 * groups by that name; no error). With soft placement a `_class` join that fails is skipped.
 *
 * Every new node gets exactly one reason (first that applies):
 *   "metadata: follows its input x"              "generator: follows its consumer c"
 *   "colocated with w via _class loc:@w"         "colocated with w via reference edge"
 *   "colocated with w via reference edge, overriding the request /device:GPU:0"
 *   "colocated with w, placed earlier"           (its group holds a node placed by an earlier call)
 *   "soft placement: /device:GPU:2 does not exist"
 *   "soft placement: no GPU kernel for Assign"   (the first member lacking the type)
 *   "explicit request /device:CPU:1"             (the group's merged request, printed canonically)
 *   "request of its colocation group /device:CPU:1"   (the node asked nothing, its group did)
 *   "default: the master's own device"          (the options' default device; default_why)
 *   "default: first device with a kernel"
 *
 * Errors are TF 1.15's INVALID_ARGUMENT texts (colocation_graph.cc), most prefixed "Cannot
 * assign a device for operation <name>: ":
 * - "Operation was explicitly assigned to <request> but available devices are [ <names sorted,
 *   ", "> ]. Make sure the device specification refers to a valid device." (+ " The requested
 *   device appears to be a GPU, but CUDA is not enabled." when no GPU device exists);
 * - "Could not satisfy explicit device specification '<request>' because no supported kernel
 *   for <TYPE> devices is available." + debug info;
 * - "Could not satisfy explicit device specification '<request>' because the node '<name>' was
 *   colocated with a group of nodes that required incompatible device '<merged>'. All
 *   available devices [<names, ", ">]. " + debug info;
 * - "Malformed device specification '<s>' in node: <name>";
 * - no kernel on any device: the kernel tables' "No OpKernel was registered to support Op ..."
 *   text, with every device type's kernels;
 * - unprefixed, while joining groups: "Cannot colocate nodes 'a' and 'b': Cannot merge devices
 *   with incompatible types: '/device:GPU:0' and '/device:CPU:0'", "Cannot colocate nodes 'a'
 *   and 'b' because no device type supports both of those nodes and the other nodes colocated
 *   with them." + both groups' debug info; for a reference edge, "Nodes were connected by a
 *   reference connection (requiring them to be on the same device), but the two nodes were
 *   assigned two different devices: " + that text.
 * Debug info, one line per op type (sorted) with its device types in priority order, then one
 * per member: "\nColocation Debug Info:\nColocation group had the following types and supported
 * devices: \nAssign: CPU \nVariableV2: CPU \n\nColocation members, user-requested devices, and
 * framework assigned devices, if any:\n  v (VariableV2) /device:GPU:0\n  a (Assign) \n"
 * (a member placed earlier adds " framework assigned device=<name>"). TF 1.15 also prints its
 * internal "Root Member(...)" line; tfc leaves it out. tfc ends every error with
 * "\n(allow_soft_placement is on|off for this session)", since TF users could not tell (tf#30782).
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
  /* NULL, or one of the devices: a group with no device request at all goes there when it can
   * run every member there (TF's default_local_device: a distributed master places
   * unconstrained nodes on its own task, not on the first task of the cluster; a function
   * body's nodes default to their call's device), and otherwise to the first candidate on the
   * default device's task when there is one. */
  const tfc_device *default_device;
  /* What the default device is, for the reasons ("the device of its function call f"); NULL:
   * "the master's own device". Borrowed for the call. */
  const char *default_why;
} tfc_place_options;

/* Places nodes [first, g->n_nodes) of g over devices[0..n_devices) (in any order: the placer
 * sorts candidates itself). out[0..first) hold earlier placements (read, kept); out[first..
 * n_nodes) need no initialization and are filled on success. On error out[first..) are left with device -1 and no
 * reason, and s holds the error. The caller holds the graph lock. */
int tfc_place(const tfc_graph *g, int first, tfc_device *const *devices, int n_devices,
              const tfc_place_options *opts, tfc_placement *out, tfc_status *s);
void tfc_placement_fini(tfc_placement *p, int n);
/* log_device_placement: prints TF's line "name: (Op): device" for nodes [from, to) of g to
 * stdout, each followed by "  # reason" when with_reasons, and flushes. */
void tfc_placement_log(const tfc_graph *g, int from, int to, tfc_device *const *devices, const tfc_placement *pl,
                       int with_reasons);

#endif
