/*
 * const_fold — constant folding (see optimize.h): a pure node placed on a CPU device whose
 * inputs all come from Const nodes or from nodes folded in turn is computed once, here, with
 * its CPU kernel, and each such node a non-folded node reads (the frontier) becomes a Const
 * node with its name, device and value. What fed only the frontier is then pruned.
 *
 * TF's limits: nodes with control inputs, fetched nodes (a _Retval reads them), nodes in loops
 * (their inputs come through Enter), PlaceholderWithDefault, and folded values above
 * max_folded_constant_in_bytes (10 MiB by default; statically known shapes are checked before
 * computing) are left alone. Only single-output nodes are replaced; a multi-output one can be
 * computed on the way to a frontier node. A kernel that fails leaves its node and everything
 * computed from it unfolded, so the error comes at run time as before.
 */
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "optimize/optimize_int.h"

#define DEFAULT_MAX_BYTES (10 * 1024 * 1024)

typedef struct folder {
  const tfc_graph *g;
  const tfc_optimize_options *o;
  const tfc_kernel_table *kt;
  int64_t max_bytes;
  int *consumers;
  unsigned char *fetched;
  unsigned char *foldable; /* Const, or a pure node computable from foldable nodes */
  unsigned char *frontier; /* a non-Const foldable node read by a non-foldable one */
  unsigned char *needed;   /* computed: frontier nodes and what they read */
  int *off;                /* node id -> first slot in values */
  tfc_tensor **values;     /* computed outputs (NULL: not computed or failed) */
} folder;

/* The bytes of output i of n when its static shape is fully known, else -1. */
static int64_t static_bytes(const tfc_node *n, int i) {
  const tfc_shape *sh = &n->output_shapes[i];
  if (sh->rank < 0) return -1;
  int64_t elems = 1;
  for (int d = 0; d < sh->rank; d++) {
    if (sh->dims[d] < 0) return -1;
    elems *= sh->dims[d];
  }
  size_t es = tfc_dtype_size(tfc_dtype_base(n->output_types[i]));
  return es ? elems * (int64_t)es : -1;
}

static int is_foldable(const folder *f, const tfc_node *n) {
  if (!tfc_opt_node_is_pure(n) || !tfc_opt_node_on_cpu(n) || n->n_control_inputs || f->fetched[n->id]) return 0;
  if (strcmp(n->op->name, "Const") == 0) return 1;
  if (n->n_inputs == 0 || strcmp(n->op->name, "PlaceholderWithDefault") == 0) return 0;
  for (int j = 0; j < n->n_inputs; j++)
    if (tfc_node_input_is_back_edge(n, j) || !f->foldable[n->inputs[j].node->id]) return 0;
  for (int i = 0; i < n->n_outputs; i++)
    if (static_bytes(n, i) > f->max_bytes) return 0;
  const tfc_kernel_def *k = tfc_kernel_find(f->kt, n, NULL);
  return k && k->compute && !(k->flags & (TFC_KF_ASYNC | TFC_KF_BLOCKING | TFC_KF_SHARED_STATE));
}

/* Runs n's CPU kernel on the computed values of its inputs; 0 and the outputs in values, or
 * nonzero (the kernel's error, dropped) with nothing stored. */
static int compute(folder *f, const tfc_node *n) {
  tfc_tensor *in_small[8], *out_small[8];
  tfc_tensor **ins = n->n_inputs <= 8 ? in_small : calloc((size_t)n->n_inputs, sizeof *ins);
  tfc_tensor **outs = n->n_outputs <= 8 ? out_small : calloc((size_t)n->n_outputs, sizeof *outs);
  int rc = -1;
  if (!ins || !outs) goto done;
  for (int i = 0; i < n->n_inputs; i++) {
    tfc_endpoint e = n->inputs[i];
    if (!(ins[i] = f->values[f->off[e.node->id] + e.index])) goto done;
  }
  const tfc_kernel_def *k = tfc_kernel_find(f->kt, n, NULL);
  if (!k) goto done;
  /* No device: outputs live on the host heap, as a graph's Const values do (they outlive the
   * session's devices while the plan cache holds the graph). */
  tfc_status st;
  tfc_status_init(&st);
  rc = tfc_kernel_run_host(k, n, ins, outs, &st) ? -1 : 0;
  tfc_status_fini(&st);
  for (int i = 0; i < n->n_outputs && rc == 0; i++) f->values[f->off[n->id] + i] = outs[i];
done:
  if (ins && ins != in_small) free(ins);
  if (outs && outs != out_small) free(outs);
  return rc;
}

/* Marks foldable, frontier and needed nodes; returns how many frontier nodes there are. */
static int plan(folder *f) {
  const tfc_graph *g = f->g;
  for (int id = 0; id < g->n_nodes; id++) f->foldable[id] = (unsigned char)is_foldable(f, g->nodes[id]);
  for (int id = 0; id < g->n_nodes; id++) {
    const tfc_node *n = g->nodes[id];
    if (f->foldable[id]) continue;
    for (int j = 0; j < n->n_inputs + n->n_control_inputs; j++) {
      const tfc_node *src = j < n->n_inputs ? n->inputs[j].node : n->control_inputs[j - n->n_inputs];
      if (f->foldable[src->id] && src->n_outputs == 1 && strcmp(src->op->name, "Const") != 0) f->frontier[src->id] = 1;
    }
  }
  int n_frontier = 0;
  for (int id = g->n_nodes - 1; id >= 0; id--) {
    if (f->frontier[id]) {
      f->needed[id] = 1;
      n_frontier++;
    }
    if (!f->needed[id]) continue;
    const tfc_node *n = g->nodes[id];
    for (int j = 0; j < n->n_inputs; j++) f->needed[n->inputs[j].node->id] = 1;
  }
  return n_frontier;
}

static int rewrite(folder *f, tfc_graph **out, tfc_status *s) {
  const tfc_graph *g = f->g;
  int replaced = 0;
  for (int id = 0; id < g->n_nodes; id++)
    if (f->frontier[id] && f->values[f->off[id]]) replaced++;
  if (!replaced) return TFC_OK;
  tfc_opt_copy c;
  TFC_TRY(tfc_opt_copy_init(&c, g, s));
  for (int id = 0; id < g->n_nodes && tfc_status_ok(s); id++) {
    const tfc_node *n = g->nodes[id];
    tfc_tensor *v = f->frontier[id] ? f->values[f->off[id]] : NULL;
    if (!v) {
      tfc_opt_copy_node(&c, n, NULL, s);
      continue;
    }
    tfc_node *k = tfc_opt_add_const(&c, n->name, n, v, s);
    if (k) tfc_opt_map(&c, n, &(tfc_endpoint){k, 0}, k);
  }
  if (!tfc_status_ok(s)) {
    tfc_opt_copy_fini(&c);
    return s->code;
  }
  tfc_opt_copy_finish(&c);
  *out = c.dst;
  c.dst = NULL;
  tfc_opt_copy_fini(&c);
  return TFC_OK;
}

int tfc_opt_const_fold(const tfc_graph *g, const tfc_optimize_options *o, tfc_graph **out, tfc_status *s) {
  *out = NULL;
  folder f = {.g = g, .o = o, .max_bytes = o->max_folded_constant_in_bytes > 0 ? o->max_folded_constant_in_bytes
                                                                               : DEFAULT_MAX_BYTES};
  int n = g->n_nodes;
  if (!(f.kt = tfc_cpu_kernel_table(s))) return s->code;
  TFC_TRY(tfc_opt_edges(g, &f.consumers, &f.fetched, s));
  f.foldable = calloc((size_t)n + 1, 1);
  f.frontier = calloc((size_t)n + 1, 1);
  f.needed = calloc((size_t)n + 1, 1);
  f.off = malloc(sizeof(int) * (size_t)(n + 1));
  int total = 0;
  if (f.off)
    for (int id = 0; id < n; id++) {
      f.off[id] = total;
      total += g->nodes[id]->n_outputs;
    }
  f.values = calloc((size_t)total + 1, sizeof *f.values);
  if (!f.foldable || !f.frontier || !f.needed || !f.off || !f.values) {
    TFC_OOM(s);
    goto out;
  }
  if (plan(&f) == 0) goto out;
  for (int id = 0; id < n; id++) {
    if (!f.needed[id] || compute(&f, g->nodes[id])) continue;
    for (int i = 0; i < g->nodes[id]->n_outputs; i++) {
      tfc_tensor **v = &f.values[f.off[id] + i];
      /* too large to keep as a constant (a shape known only now): not a frontier value */
      if (f.frontier[id] && (int64_t)(*v)->n_bytes > f.max_bytes) f.frontier[id] = 0;
    }
  }
  rewrite(&f, out, s);
out:
  if (f.values)
    for (int i = 0; i < total; i++)
      if (f.values[i]) tfc_tensor_unref(f.values[i]);
  free(f.values);
  free(f.off);
  free(f.needed);
  free(f.frontier);
  free(f.foldable);
  free(f.consumers);
  free(f.fetched);
  return s->code;
}
