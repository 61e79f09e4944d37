/*
 * placer — TF 1.15's placer (placer.cc + colocation_graph.cc) over tfc's graph; see placer.h.
 *
 * One call rebuilds the colocation forest over every node of the graph, earlier-placed ones
 * included, so a new node joined to an old one inherits its device:
 *   1. members: each node's supported device types (a bit per distinct device type, found by
 *      asking each type's kernel table), its parsed request, and for earlier nodes their
 *      device as an "assigned" name that fixes their group;
 *   2. reference edges (into Ref(T) or resource inputs) join source and destination; when
 *      the two groups' requests conflict the destination's is replaced (TF's "Ignoring device
 *      specification ... because the input edge ... is a reference connection");
 *   3. `_class` "loc:@X" entries join X's group. X is looked up by node name; when no node is
 *      named X, the nodes naming X form a group of their own (TF keys groups by that name and
 *      raises no error; the GraphDef importer rejects such names unless told not to). With
 *      soft placement a failed `_class` join is skipped, as TF does;
 *   4. each group's device: the first device (priority desc, type name, job, replica, task,
 *      id numerically) matching the merged request whose type runs every member; with soft
 *      placement and none, the request loses its type and id (not for a group fixed by an
 *      earlier node, whose device cannot move);
 *   5. heuristics for nodes alone in their group: metadata ops (Shape, Size, Rank) take their
 *      first input's device, generators (no inputs, one non-ref output) wait for a second
 *      pass and take their consumers' device when all consumers share one. Either only when
 *      that device is one of the node's own candidates.
 * Joins run in TF's order (references, then `_class`, nodes by id), unions by rank with
 * TF's tie-break, so error texts name the same pair TF names. Everything is deterministic.
 *
 * Error texts are TF 1.15's (colocation_graph.cc), with 'name' where TF writes
 * {{colocation_node name}} for Python to rewrite, and one final line saying whether soft
 * placement was on.
 */
#include "place/placer.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/hashmap.h"
#include "base/strbuf.h"
#include "device/device_name.h"
#include "tensor/dtype.h"

/* Device types are bits of a mask; a process has a handful (CPU, GPU, XLA_*). */
#define MAX_TYPES 64

enum { LINK_NONE = 0, LINK_REF = 1, LINK_CLASS = 2 };
enum { SOFT_NONE = 0, SOFT_MISSING = 1, SOFT_NO_KERNEL = 2 };

typedef struct member {
  /* Per node. */
  uint64_t own_types;     /* device types with a kernel for this node */
  tfc_devname own;        /* its parsed request */
  int link, link_kind;    /* the node it was joined to first, and how */
  const char *link_class; /* the X of "loc:@X" (borrowed from the attr) */
  int has_override;       /* a reference edge replaced its group's request ... */
  tfc_devname overridden; /* ... which was this */
  int deferred;           /* a generator waiting for the second pass */
  int cons_first, cons_dev; /* generators: first consumer, the device all consumers share */
  /* Per root (valid on the group's root only). */
  int parent, rank, size;
  uint64_t types;         /* device types running every member */
  tfc_devname requested;  /* merged request */
  tfc_devname assigned;   /* the device of an earlier-placed member, or empty */
  int fixed_node;         /* that member, or -1 */
  int device, soft;       /* chosen device (-1 before), and why soft placement was needed */
  tfc_devname spec;       /* the request candidates were matched against */
} member;

typedef struct placer {
  const tfc_graph *g;
  int first, n;
  tfc_device *const *devices;
  int n_devices, allow_soft;
  int default_device;     /* index of the options' default device, or -1 */
  const char *default_why; /* what that device is, for the reason */
  tfc_placement *out;
  tfc_devname *dev_names; /* parsed device names */
  int *dev_type;          /* device -> type index */
  int *order;             /* devices in preference order */
  int n_types;
  const char *type_names[MAX_TYPES];
  int type_priority[MAX_TYPES];
  const tfc_kernel_table *type_tables[MAX_TYPES];
  member *m;
  tfc_hashmap class_claims; /* "loc:@X" names with no node X -> first claimant id + 1 */
} placer;

/* ---------------- devices and types ---------------- */

static int type_cmp(const placer *p, int a, int b) {
  if (p->type_priority[a] != p->type_priority[b])
    return p->type_priority[a] > p->type_priority[b] ? -1 : 1;
  return strcmp(p->type_names[a], p->type_names[b]);
}

static int device_cmp(const void *x, const void *y, void *ctx) {
  const placer *p = ctx;
  int a = *(const int *)x, b = *(const int *)y;
  int c = type_cmp(p, p->dev_type[a], p->dev_type[b]);
  if (c) return c;
  const tfc_devname *na = &p->dev_names[a], *nb = &p->dev_names[b];
  if ((c = strcmp(na->job, nb->job))) return c;
  if (na->replica != nb->replica) return na->replica < nb->replica ? -1 : 1;
  if (na->task != nb->task) return na->task < nb->task ? -1 : 1;
  if (na->id != nb->id) return na->id < nb->id ? -1 : 1;
  return a - b;
}

static int type_index(placer *p, const tfc_device *d, tfc_status *s) {
  for (int t = 0; t < p->n_types; t++)
    if (strcmp(p->type_names[t], d->type) == 0) return t;
  if (p->n_types == MAX_TYPES)
    return -tfc_status_set(s, TFC_INVALID_ARGUMENT, "more than %d device types", MAX_TYPES);
  p->type_names[p->n_types] = d->type;
  p->type_priority[p->n_types] = d->priority;
  p->type_tables[p->n_types] = d->kernels;
  return p->n_types++;
}

/* Parses device names, numbers the types in TF's priority order, sorts the devices. */
static int setup_devices(placer *p, tfc_status *s) {
  if (p->n_devices == 0) return tfc_status_set(s, TFC_FAILED_PRECONDITION, "No devices are registered");
  p->dev_names = calloc((size_t)p->n_devices, sizeof *p->dev_names);
  p->dev_type = calloc((size_t)p->n_devices, sizeof *p->dev_type);
  p->order = calloc((size_t)p->n_devices, sizeof *p->order);
  if (!p->dev_names || !p->dev_type || !p->order) return TFC_OOM(s);
  for (int d = 0; d < p->n_devices; d++) {
    const tfc_device *dev = p->devices[d];
    if (tfc_devname_parse(dev->name, &p->dev_names[d]) != 0)
      return tfc_status_set(s, TFC_INTERNAL, "Malformed device name '%s'", dev->name);
    int t = type_index(p, dev, s);
    if (t < 0) return -t;
    p->dev_type[d] = t;
    p->order[d] = d;
  }
  /* Renumber types so that bit order is priority order (debug info lists them so). */
  int rank[MAX_TYPES];
  for (int t = 0; t < p->n_types; t++) {
    rank[t] = 0;
    for (int u = 0; u < p->n_types; u++) rank[t] += type_cmp(p, u, t) < 0;
  }
  const char *names[MAX_TYPES];
  int prio[MAX_TYPES];
  const tfc_kernel_table *tables[MAX_TYPES];
  for (int t = 0; t < p->n_types; t++) {
    names[rank[t]] = p->type_names[t];
    prio[rank[t]] = p->type_priority[t];
    tables[rank[t]] = p->type_tables[t];
  }
  memcpy(p->type_names, names, sizeof(names[0]) * (size_t)p->n_types);
  memcpy(p->type_priority, prio, sizeof(prio[0]) * (size_t)p->n_types);
  memcpy(p->type_tables, tables, sizeof(tables[0]) * (size_t)p->n_types);
  for (int d = 0; d < p->n_devices; d++) p->dev_type[d] = rank[p->dev_type[d]];
  qsort_r(p->order, (size_t)p->n_devices, sizeof *p->order, device_cmp, p);
  return TFC_OK;
}

static int name_cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ---------------- device-name helpers ---------------- */

static int has_details(const tfc_devname *n) {
  return n->has_job || n->has_replica || n->has_task || n->has_type || n->has_id;
}

/* TF's AreCompatibleDevNames: no component set on both sides with different values. */
static int compatible(const tfc_devname *a, const tfc_devname *b) {
  tfc_devname x = *a, y = *b;
  x.has_job &= y.has_job, x.has_replica &= y.has_replica, x.has_task &= y.has_task;
  x.has_type &= y.has_type, x.has_id &= y.has_id;
  return tfc_devname_matches(&x, &y);
}

static int same_name(const tfc_devname *a, const tfc_devname *b) {
  return tfc_devname_matches(a, b) && tfc_devname_matches(b, a);
}

/* TF's EnsureSpecification: fills the request's unset components from the assigned name. */
static void ensure_specification(tfc_devname *requested, const tfc_devname *assigned) {
  tfc_devname t = *assigned;
  tfc_devname_merge_override(&t, requested);
  *requested = t;
}

/* ---------------- members and union-find ---------------- */

static int find(placer *p, int i) {
  while (p->m[i].parent != i) {
    p->m[i].parent = p->m[p->m[i].parent].parent; /* path halving */
    i = p->m[i].parent;
  }
  return i;
}

/* TF lists every device type's kernels in one message; each kernel table words its own
 * part, so the parts are spliced: the first table's head, then each table's kernel lines. */
static int no_kernel_error(placer *p, const tfc_node *n, tfc_status *s) {
  tfc_strbuf head, kernels, types;
  tfc_strbuf_init(&head), tfc_strbuf_init(&kernels), tfc_strbuf_init(&types);
  for (int t = 0; t < p->n_types; t++) {
    tfc_status one;
    tfc_status_init(&one);
    tfc_kernel_find(p->type_tables[t], n, &one);
    const char *msg = tfc_status_msg(&one);
    const char *dev = strstr(msg, "\nRegistered devices: [");
    const char *ks = strstr(msg, "Registered kernels:\n");
    if (t == 0) tfc_strbuf_append(&head, msg, dev ? (size_t)(dev - msg) : strlen(msg));
    if (ks && !strstr(ks, "<no registered kernels>")) tfc_strbuf_puts(&kernels, ks + strlen("Registered kernels:\n"));
    tfc_status_fini(&one);
  }
  /* "Registered devices" is TF's std::set of type names: sorted. */
  const char *names[MAX_TYPES];
  memcpy(names, p->type_names, sizeof(names[0]) * (size_t)p->n_types);
  qsort(names, (size_t)p->n_types, sizeof names[0], name_cmp);
  for (int t = 0; t < p->n_types; t++) tfc_strbuf_printf(&types, "%s%s", t ? ", " : "", names[t]);
  tfc_status_set(s, TFC_INVALID_ARGUMENT,
                 "Cannot assign a device for operation %s: %s\nRegistered devices: [%s]\nRegistered "
                 "kernels:\n%s",
                 n->name, tfc_strbuf_str(&head), tfc_strbuf_str(&types),
                 kernels.len ? tfc_strbuf_str(&kernels) : "  <no registered kernels>\n");
  tfc_strbuf_fini(&head), tfc_strbuf_fini(&kernels), tfc_strbuf_fini(&types);
  return s->code;
}

/* The device types with a kernel for node i. */
static uint64_t kernel_types(const placer *p, int i) {
  uint64_t types = 0;
  for (int t = 0; t < p->n_types; t++)
    if (tfc_kernel_find(p->type_tables[t], p->g->nodes[i], NULL)) types |= (uint64_t)1 << t;
  return types;
}

static int init_member(placer *p, int i, tfc_status *s) {
  const tfc_node *n = p->g->nodes[i];
  member *m = &p->m[i];
  m->parent = i, m->size = 1, m->link = -1, m->fixed_node = -1, m->device = -1;
  m->cons_first = m->cons_dev = -1;
  /* A node placed earlier runs where it is: its group is bound to that device, whose type its
   * own kernels need not narrow (the kernel tables are searched for it only in error texts),
   * so placing a few new nodes in a large graph costs no lookups for the old ones. */
  m->own_types = i >= p->first ? kernel_types(p, i) : p->n_types < 64 ? ((uint64_t)1 << p->n_types) - 1 : ~(uint64_t)0;
  m->types = m->own_types;
  if (i < p->first) {
    int d = p->out[i].device;
    if (d < 0 || d >= p->n_devices)
      return tfc_status_set(s, TFC_INTERNAL, "Node %s was placed on device %d of %d", n->name, d,
                            p->n_devices);
    m->assigned = m->requested = m->own = p->dev_names[d];
    m->fixed_node = i;
    return TFC_OK;
  }
  if (!m->own_types) return no_kernel_error(p, n, s);
  if (tfc_devname_parse(n->device, &m->own) != 0)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "Cannot assign a device for operation %s: Malformed device specification "
                          "'%s' in node: %s",
                          n->name, n->device, n->name);
  m->requested = m->own;
  return TFC_OK;
}

/* TF's DebugInfo: the op types of a group with their supported device types (by op name;
 * the last member of a type wins, as in TF's map), then every member and its request. */
static void debug_info(placer *p, int root, tfc_strbuf *b) {
  tfc_strbuf_puts(b, "\nColocation Debug Info:\nColocation group had the following types and "
                     "supported devices: ");
  const char *printed = NULL;
  for (;;) {
    const char *op = NULL;
    uint64_t mask = 0;
    for (int i = 0; i < p->n; i++) {
      const char *name = p->g->nodes[i]->op->name;
      if (find(p, i) != root || (printed && strcmp(name, printed) <= 0)) continue;
      if (!op || strcmp(name, op) < 0 || strcmp(name, op) == 0)
        op = name, mask = i < p->first ? kernel_types(p, i) : p->m[i].own_types;
    }
    if (!op) break;
    tfc_strbuf_printf(b, "\n%s: ", op);
    for (int t = 0; t < p->n_types; t++)
      if (mask >> t & 1) tfc_strbuf_printf(b, "%s ", p->type_names[t]);
    printed = op;
  }
  tfc_strbuf_puts(b, "\n\nColocation members, user-requested devices, and framework assigned "
                     "devices, if any:");
  for (int i = 0; i < p->n; i++) {
    if (find(p, i) != root) continue;
    const tfc_node *n = p->g->nodes[i];
    tfc_strbuf_printf(b, "\n  %s (%s) %s", n->name, n->op->name, n->device);
    if (i < p->first)
      tfc_strbuf_printf(b, " framework assigned device=%s", p->devices[p->out[i].device]->name);
  }
  tfc_strbuf_puts(b, "\n");
}

/* TF's ColocateNodes: joins the groups of x and y, or fails leaving both unchanged. */
static int colocate(placer *p, int x, int y, tfc_status *s) {
  int xr = find(p, x), yr = find(p, y);
  if (xr == yr) return TFC_OK;
  int new_root = p->m[xr].rank < p->m[yr].rank ? yr : xr, old_root = new_root == xr ? yr : xr;
  member *a = &p->m[new_root], *b = &p->m[old_root];
  const char *xn = p->g->nodes[x]->name, *yn = p->g->nodes[y]->name;
  tfc_devname assigned = a->assigned, requested = a->requested;
  tfc_status why;
  tfc_status_init(&why);
  if (tfc_devname_merge(&assigned, &b->assigned, 0, &why) != TFC_OK ||
      tfc_devname_merge(&requested, &b->requested, p->allow_soft, &why) != TFC_OK) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Cannot colocate nodes '%s' and '%s': %s", xn, yn,
                   tfc_status_msg(&why));
    tfc_status_fini(&why);
    return s->code;
  }
  tfc_status_fini(&why);
  if (!(a->types & b->types)) {
    tfc_strbuf info;
    tfc_strbuf_init(&info);
    debug_info(p, xr, &info);
    debug_info(p, yr, &info);
    tfc_status_set(s, TFC_INVALID_ARGUMENT,
                   "Cannot colocate nodes '%s' and '%s' because no device type supports both of "
                   "those nodes and the other nodes colocated with them.%s",
                   xn, yn, tfc_strbuf_str(&info));
    tfc_strbuf_fini(&info);
    return s->code;
  }
  ensure_specification(&requested, &assigned);
  b->parent = new_root;
  if (a->rank == b->rank) a->rank++;
  a->size += b->size;
  a->types &= b->types;
  a->requested = requested, a->assigned = assigned;
  if (a->fixed_node < 0 || (b->fixed_node >= 0 && b->fixed_node < a->fixed_node))
    a->fixed_node = b->fixed_node;
  return TFC_OK;
}

static void set_link(placer *p, int node, int to, int kind, const char *cls) {
  member *m = &p->m[node];
  if (m->link >= 0) return;
  m->link = to, m->link_kind = kind, m->link_class = cls;
}

static int colocate_ref_edge(placer *p, int src, int dst, tfc_status *s) {
  const char *sn = p->g->nodes[src]->name, *dn = p->g->nodes[dst]->name;
  member *a = &p->m[find(p, src)], *b = &p->m[find(p, dst)];
  char x[160], y[160];
  if (!compatible(&a->assigned, &b->assigned))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "Cannot place the graph because a reference or resource edge connects "
                          "colocation groups with incompatible assigned devices: %s vs %s. The edge "
                          "src node is %s , and the dst node is %s",
                          tfc_devname_str(&a->assigned, x, sizeof x), tfc_devname_str(&b->assigned, y, sizeof y),
                          sn, dn);
  /* The destination follows its source; a group fixed by an earlier node cannot follow. */
  if (a != b && !compatible(&a->requested, &b->requested) && b->fixed_node < 0) {
    p->m[dst].has_override = 1;
    p->m[dst].overridden = b->requested;
    b->requested = a->requested;
  }
  int joined = a != b;
  tfc_status why;
  tfc_status_init(&why);
  if (colocate(p, src, dst, &why) != TFC_OK) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT,
                   "Nodes were connected by a reference connection (requiring them to be on the "
                   "same device), but the two nodes were assigned two different devices: %s",
                   tfc_status_msg(&why));
    tfc_status_fini(&why);
    return s->code;
  }
  tfc_status_fini(&why);
  if (joined) set_link(p, dst, src, LINK_REF, NULL);
  return TFC_OK;
}

static int colocate_ref_edges(placer *p, tfc_status *s) {
  for (int i = 0; i < p->n; i++) {
    const tfc_node *n = p->g->nodes[i];
    for (int k = 0; k < n->n_inputs; k++) {
      int t = n->input_types[k];
      if (tfc_dtype_is_ref(t) || t == TFC_DT_RESOURCE)
        TFC_TRY(colocate_ref_edge(p, n->inputs[k].node->id, i, s));
    }
  }
  return TFC_OK;
}

/* The node "loc:@name" points at: the node of that name, else the first node that named it
 * (node itself when it is the first). -1 on out of memory. */
static int class_target(placer *p, int node, const char *name) {
  const tfc_node *t = tfc_graph_find(p->g, name);
  if (t) return t->id;
  intptr_t claim = (intptr_t)tfc_hashmap_get(&p->class_claims, name);
  if (claim) return (int)claim - 1;
  return tfc_hashmap_put(&p->class_claims, name, (void *)(intptr_t)(node + 1)) == 0 ? node : -1;
}

static int colocate_classes(placer *p, tfc_status *s) {
  for (int i = 0; i < p->n; i++) {
    const tfc_attr_value *cls = tfc_node_attr(p->g->nodes[i], "_class");
    if (!cls || cls->kind != TFC_ATTR_LIST) continue;
    for (int k = 0; k < cls->u.list.n; k++) {
      const tfc_attr_value *v = &cls->u.list.items[k];
      if (v->kind != TFC_ATTR_STRING || strncmp(v->u.s.data, "loc:@", 5) != 0) continue;
      const char *name = v->u.s.data + 5;
      int target = class_target(p, i, name);
      if (target < 0) return TFC_OOM(s);
      int joined = find(p, i) != find(p, target);
      tfc_status why;
      tfc_status_init(&why);
      int rc = colocate(p, i, target, &why);
      /* With soft placement TF skips a `_class` join that cannot be satisfied. */
      if (rc != TFC_OK && !p->allow_soft) return tfc_status_move(s, &why);
      tfc_status_fini(&why);
      if (rc == TFC_OK && joined) set_link(p, i, target, LINK_CLASS, name);
    }
  }
  return TFC_OK;
}

/* ---------------- choosing devices ---------------- */

static int is_candidate(const placer *p, const member *root, int d) {
  return (root->types >> p->dev_type[d] & 1) && tfc_devname_matches(&root->spec, &p->dev_names[d]);
}

static int first_candidate(const placer *p, const member *root) {
  for (int k = 0; k < p->n_devices; k++)
    if (is_candidate(p, root, p->order[k])) return p->order[k];
  return -1;
}

/* The first device matching spec whatever its kernels, or -1. */
static int first_match(const placer *p, const tfc_devname *spec) {
  for (int k = 0; k < p->n_devices; k++)
    if (tfc_devname_matches(spec, &p->dev_names[p->order[k]])) return p->order[k];
  return -1;
}

/* TF lists the devices sorted by name for a device that does not exist, and in device-set
 * order (the caller's) for a colocation conflict. */
static void list_devices(const placer *p, int sorted, tfc_strbuf *b) {
  const char **names = malloc(sizeof *names * (size_t)p->n_devices);
  if (!names) { b->oom = 1; return; }
  for (int d = 0; d < p->n_devices; d++) names[d] = p->devices[d]->name;
  if (sorted) qsort(names, (size_t)p->n_devices, sizeof *names, name_cmp);
  for (int d = 0; d < p->n_devices; d++) tfc_strbuf_printf(b, "%s%s", d ? ", " : "", names[d]);
  free(names);
}

static int has_gpu_device(const placer *p) {
  for (int t = 0; t < p->n_types; t++)
    if (strcmp(p->type_names[t], "GPU") == 0) return 1;
  return 0;
}

/* TF's GetDevicesForNode errors, for the node whose group has no candidate. */
static int placement_error(placer *p, int i, int root, tfc_status *s) {
  const tfc_node *n = p->g->nodes[i];
  const tfc_devname *req = &p->m[root].requested;
  char merged[160];
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  tfc_strbuf_printf(&b, "Cannot assign a device for operation %s: ", n->name);
  if (!same_name(&p->m[i].own, req)) {
    tfc_strbuf_printf(&b, "Could not satisfy explicit device specification '%s' because the node "
                          "'%s' was colocated with a group of nodes that required incompatible "
                          "device '%s'. All available devices [",
                      n->device, n->name, tfc_devname_str(req, merged, sizeof merged));
    list_devices(p, 0, &b);
    tfc_strbuf_puts(&b, "]. ");
    debug_info(p, root, &b);
  } else if (first_match(p, req) < 0) {
    tfc_strbuf_printf(&b, "Operation was explicitly assigned to %s but available devices are [ ",
                      n->device);
    list_devices(p, 1, &b);
    tfc_strbuf_puts(&b, " ]. Make sure the device specification refers to a valid device.");
    /* TF built without CUDA adds this; tfc has no GPU device unless one is registered. */
    if (req->has_type && strcasecmp(req->type, "gpu") == 0 && !has_gpu_device(p))
      tfc_strbuf_puts(&b, " The requested device appears to be a GPU, but CUDA is not enabled.");
  } else if (req->has_type) {
    tfc_strbuf_printf(&b, "Could not satisfy explicit device specification '%s' because no "
                          "supported kernel for %s devices is available.",
                      n->device, req->type);
    debug_info(p, root, &b);
  } else {
    tfc_strbuf_printf(&b, "Could not satisfy explicit device specification '%s'", n->device);
    debug_info(p, root, &b);
  }
  if (tfc_strbuf_ok(&b))
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s", tfc_strbuf_str(&b));
  else
    TFC_OOM(s);
  tfc_strbuf_fini(&b);
  return s->code;
}

/* Picks the group's device once: candidates[0], relaxed to job/replica/task under soft
 * placement. i is the node asking (errors name it). */
static int resolve_group(placer *p, int i, int root, tfc_status *s) {
  member *g = &p->m[root];
  if (g->device >= 0) return TFC_OK;
  g->spec = g->requested;
  /* A group nobody asked anything of goes to the default device (the master's own) when it
   * can run every member there. */
  int d = -1;
  if (p->default_device >= 0 && !has_details(&g->requested) && g->fixed_node < 0) {
    if (g->types >> p->dev_type[p->default_device] & 1) {
      g->device = p->default_device;
      return TFC_OK;
    }
    /* It cannot run there: the default device's task still comes first. */
    tfc_devname task = p->dev_names[p->default_device];
    tfc_devname_clear_type_id(&task);
    g->spec = task;
    d = first_candidate(p, g);
    g->spec = g->requested;
  }
  if (d < 0) d = first_candidate(p, g);
  if (d < 0 && p->allow_soft && has_details(&g->spec) && g->fixed_node < 0) {
    g->soft = first_match(p, &g->requested) < 0 ? SOFT_MISSING : SOFT_NO_KERNEL;
    tfc_devname_clear_type_id(&g->spec);
    d = first_candidate(p, g);
  }
  if (d < 0) return placement_error(p, i, root, s);
  g->device = d;
  return TFC_OK;
}

__attribute__((format(printf, 5, 6))) static int set_reason(placer *p, int i, int device, tfc_status *s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *r = NULL;
  int rc = vasprintf(&r, fmt, ap);
  va_end(ap);
  if (rc < 0) return TFC_OOM(s);
  p->out[i].device = device;
  p->out[i].reason = r;
  return TFC_OK;
}

/* Why a group needed soft placement for want of a kernel: the type asked for (or of the
 * first device matching the request) and the first member without a kernel for it. */
static int soft_kernel_reason(placer *p, int i, int root, tfc_status *s) {
  const member *g = &p->m[root];
  int t = p->dev_type[first_match(p, &g->requested)];
  const char *op = p->g->nodes[i]->op->name;
  for (int k = 0; k < p->n; k++)
    if (find(p, k) == root && !(p->m[k].own_types >> t & 1)) {
      op = p->g->nodes[k]->op->name;
      break;
    }
  return set_reason(p, i, g->device, s, "soft placement: no %s kernel for %s", p->type_names[t], op);
}

/* The reason of a node that takes its group's device (see placer.h for the list). */
static int group_reason(placer *p, int i, int root, tfc_status *s) {
  const member *m = &p->m[i], *g = &p->m[root];
  char a[160];
  if (m->link >= 0) {
    const char *to = p->g->nodes[m->link]->name;
    if (m->link_kind == LINK_CLASS)
      return set_reason(p, i, g->device, s, "colocated with %s via _class loc:@%s", to, m->link_class);
    if (m->has_override)
      return set_reason(p, i, g->device, s, "colocated with %s via reference edge, overriding the request %s",
                        to, tfc_devname_str(&m->overridden, a, sizeof a));
    return set_reason(p, i, g->device, s, "colocated with %s via reference edge", to);
  }
  if (g->fixed_node >= 0)
    return set_reason(p, i, g->device, s, "colocated with %s, placed earlier", p->g->nodes[g->fixed_node]->name);
  if (g->soft == SOFT_MISSING)
    return set_reason(p, i, g->device, s, "soft placement: %s does not exist", tfc_devname_str(&g->requested, a, sizeof a));
  if (g->soft == SOFT_NO_KERNEL) return soft_kernel_reason(p, i, root, s);
  if (has_details(&g->requested))
    return set_reason(p, i, g->device, s, has_details(&m->own) ? "explicit request %s" : "request of its colocation group %s",
                      tfc_devname_str(&g->requested, a, sizeof a));
  if (g->device == p->default_device)
    return set_reason(p, i, g->device, s, "default: %s", p->default_why);
  return set_reason(p, i, g->device, s, "default: first device with a kernel");
}

static int is_generator(const tfc_node *n) {
  return n->n_inputs == 0 && n->n_outputs == 1 && !tfc_dtype_is_ref(n->output_types[0]);
}

static int is_metadata(const tfc_node *n) {
  int op = n->op->id;
  return op == TFC_OP_Shape || op == TFC_OP_Size || op == TFC_OP_Rank;
}

/* First pass for one node: its group's device, or its input's for a lone metadata op. */
static int assign_node(placer *p, int i, tfc_status *s) {
  const tfc_node *n = p->g->nodes[i];
  int root = find(p, i);
  TFC_TRY(resolve_group(p, i, root, s));
  if (p->m[root].size == 1 && is_metadata(n) && n->n_inputs > 0) {
    const tfc_node *in = n->inputs[0].node;
    int d = p->out[in->id].device;
    if (d >= 0 && is_candidate(p, &p->m[root], d))
      return set_reason(p, i, d, s, "metadata: follows its input %s", in->name);
  }
  return group_reason(p, i, root, s);
}

/* Records, for each deferred generator, its first consumer and whether all consumers (data
 * and control, as TF's out_edges) sit on one device. */
static void note_consumer(placer *p, const tfc_node *src, int consumer) {
  member *g = &p->m[src->id];
  if (!g->deferred) return;
  int d = p->out[consumer].device;
  if (g->cons_first < 0) g->cons_first = consumer, g->cons_dev = d;
  else if (g->cons_dev != d) g->cons_dev = -1;
}

static int assign_generator(placer *p, int i, tfc_status *s) {
  int root = find(p, i);
  TFC_TRY(resolve_group(p, i, root, s));
  const member *m = &p->m[i];
  if (m->cons_first >= 0 && m->cons_dev >= 0 && is_candidate(p, &p->m[root], m->cons_dev))
    return set_reason(p, i, m->cons_dev, s, "generator: follows its consumer %s",
                      p->g->nodes[m->cons_first]->name);
  return group_reason(p, i, root, s);
}

static int assign_all(placer *p, tfc_status *s) {
  for (int i = p->first; i < p->n; i++) {
    if (is_generator(p->g->nodes[i]) && p->m[find(p, i)].size == 1) {
      p->m[i].deferred = 1;
      continue;
    }
    TFC_TRY(assign_node(p, i, s));
  }
  for (int j = p->first; j < p->n; j++) {
    const tfc_node *n = p->g->nodes[j];
    for (int k = 0; k < n->n_inputs; k++) note_consumer(p, n->inputs[k].node, j);
    for (int k = 0; k < n->n_control_inputs; k++) note_consumer(p, n->control_inputs[k], j);
  }
  for (int i = p->first; i < p->n; i++)
    if (p->m[i].deferred) TFC_TRY(assign_generator(p, i, s));
  return TFC_OK;
}

/* ---------------- entry points ---------------- */

static int place(placer *p, tfc_status *s) {
  TFC_TRY(setup_devices(p, s));
  p->m = calloc((size_t)(p->n ? p->n : 1), sizeof *p->m);
  if (!p->m) return TFC_OOM(s);
  for (int i = 0; i < p->n; i++) TFC_TRY(init_member(p, i, s));
  TFC_TRY(colocate_ref_edges(p, s));
  TFC_TRY(colocate_classes(p, s));
  return assign_all(p, s);
}

int tfc_place(const tfc_graph *g, int first, tfc_device *const *devices, int n_devices,
              const tfc_place_options *opts, tfc_placement *out, tfc_status *s) {
  placer p = {.g = g, .first = first, .n = g->n_nodes, .devices = devices, .n_devices = n_devices,
              .allow_soft = opts->allow_soft_placement, .default_device = -1, .out = out,
              .default_why = opts->default_why ? opts->default_why : "the master's own device"};
  for (int d = 0; d < n_devices && opts->default_device; d++)
    if (devices[d] == opts->default_device) p.default_device = d;
  tfc_hashmap_init(&p.class_claims);
  for (int i = first; i < p.n; i++) out[i] = (tfc_placement){-1, NULL};
  tfc_status err;
  tfc_status_init(&err);
  int rc = place(&p, &err);
  if (rc != TFC_OK) {
    tfc_placement_fini(out + first, p.n - first);
    for (int i = first; i < p.n; i++) out[i].device = -1;
    tfc_status_set(s, rc, "%s\n(allow_soft_placement is %s for this session)", tfc_status_msg(&err),
                   p.allow_soft ? "on" : "off");
  }
  tfc_status_fini(&err);
  tfc_hashmap_fini(&p.class_claims);
  free(p.m), free(p.dev_names), free(p.dev_type), free(p.order);
  return rc;
}

void tfc_placement_fini(tfc_placement *p, int n) {
  for (int i = 0; i < n; i++) {
    free(p[i].reason);
    p[i].reason = NULL;
  }
}

void tfc_placement_log(const tfc_graph *g, int from, int to, tfc_device *const *devices, const tfc_placement *pl,
                       int with_reasons) {
  for (int i = from; i < to; i++) {
    const tfc_node *nd = g->nodes[i];
    /* TF's line, byte for byte; tfc's reason follows only when asked for. */
    if (with_reasons)
      printf("%s: (%s): %s  # %s\n", nd->name, nd->op->name, devices[pl[i].device]->name,
             pl[i].reason ? pl[i].reason : "");
    else
      printf("%s: (%s): %s\n", nd->name, nd->op->name, devices[pl[i].device]->name);
  }
  fflush(stdout);
}
