/*
 * session — see session.h.
 *
 * Plans are keyed by the signature text "feeds|fetches|targets" of node ids and output
 * indexes. A graph is append-only, so a plan built for a signature stays right for it however
 * the graph grows later.
 */
#include "session/session.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "exec/executor.h"
#include "place/placer.h"

typedef struct partition {
  int device;
  tfc_graph *graph;
  tfc_executor *exec;
} partition;

typedef struct plan {
  int n_partitions;
  partition *parts;
  int n_feeds, n_fetches;
  struct plan *next; /* all plans, for freeing */
} plan;

struct tfc_session {
  tfc_graph *graph;
  tfc_session_config cfg;
  int n_devices;
  tfc_device **devices;
  tfc_threadpool *pool;
  pthread_mutex_t mu; /* guards everything below */
  tfc_placement *placement; /* per node id */
  int n_placed, cap_placed;
  tfc_hashmap plans;
  plan *all_plans;
  int closed;
  atomic_llong next_step_id;
};

/* ---------------- lifecycle ---------------- */

tfc_session *tfc_session_new(tfc_graph *g, const tfc_session_config *cfg, tfc_status *s) {
  tfc_session *sess = calloc(1, sizeof *sess);
  if (!sess) { TFC_OOM(s); return NULL; }
  sess->graph = g;
  pthread_mutex_init(&sess->mu, NULL);
  tfc_hashmap_init(&sess->plans);
  tfc_session_config_init(&sess->cfg);
  if (cfg && tfc_session_config_copy(cfg, &sess->cfg, s)) goto fail;
  int cores = tfc_num_cores();
  int inter = sess->cfg.inter_op_parallelism_threads > 0 ? sess->cfg.inter_op_parallelism_threads : cores;
  int intra = sess->cfg.intra_op_parallelism_threads > 0 ? sess->cfg.intra_op_parallelism_threads : cores;
  /* One pool serves inter-op scheduling and intra-op sharding; see base/threadpool.h. */
  sess->pool = tfc_threadpool_new(inter > intra ? inter : intra, "tfc");
  if (!sess->pool) { TFC_OOM(s); goto fail; }
  int n_cpu = tfc_session_config_device_count(&sess->cfg, "CPU");
  if (n_cpu < 0) n_cpu = 1;
  if (n_cpu == 0)
    n_cpu = 1; /* TF always keeps CPU:0 */
  sess->devices = calloc((size_t)n_cpu, sizeof *sess->devices);
  if (!sess->devices) { TFC_OOM(s); goto fail; }
  /* Each virtual CPU device gets its share of the cores for intra-op work; its parallel-for
   * width is that share plus the calling thread, which claims shards too. */
  int share = intra / n_cpu > 0 ? intra / n_cpu : 1;
  for (int i = 0; i < n_cpu; i++) {
    sess->devices[i] = tfc_cpu_device_new("localhost", 0, 0, i, sess->pool, share + 1, s);
    if (!sess->devices[i]) goto fail;
    sess->n_devices++;
  }
  atomic_init(&sess->next_step_id, 1);
  if (sess->cfg.log_device_placement) {
    /* TF prints the mapping of devices with physical descriptions; CPUs have none. */
    printf("Device mapping: no known devices.\n");
    fflush(stdout);
  }
  return sess;
fail:
  tfc_session_free(sess);
  return NULL;
}

static void plan_free(plan *p) {
  for (int i = 0; i < p->n_partitions; i++) {
    tfc_executor_free(p->parts[i].exec);
    tfc_graph_free(p->parts[i].graph);
  }
  free(p->parts);
  free(p);
}

void tfc_session_free(tfc_session *sess) {
  if (!sess) return;
  for (plan *p = sess->all_plans, *next; p; p = next) {
    next = p->next;
    plan_free(p);
  }
  tfc_hashmap_fini(&sess->plans);
  for (int i = 0; i < sess->n_devices; i++) tfc_device_free(sess->devices[i]);
  free(sess->devices);
  tfc_threadpool_free(sess->pool);
  tfc_placement_fini(sess->placement, sess->n_placed);
  free(sess->placement);
  tfc_session_config_fini(&sess->cfg);
  pthread_mutex_destroy(&sess->mu);
  free(sess);
}

int tfc_session_close(tfc_session *sess, tfc_status *s) {
  pthread_mutex_lock(&sess->mu);
  sess->closed = 1;
  pthread_mutex_unlock(&sess->mu);
  (void)s;
  return TFC_OK;
}

int tfc_session_num_devices(const tfc_session *sess) { return sess->n_devices; }
const tfc_device *tfc_session_device(const tfc_session *sess, int i) {
  return i >= 0 && i < sess->n_devices ? sess->devices[i] : NULL;
}

const tfc_device *tfc_session_node_device(tfc_session *sess, const tfc_node *n) {
  pthread_mutex_lock(&sess->mu);
  const tfc_device *d = n->id < sess->n_placed ? sess->devices[sess->placement[n->id].device] : NULL;
  pthread_mutex_unlock(&sess->mu);
  return d;
}

/* ---------------- extend + place (caller holds sess->mu) ---------------- */

static int extend(tfc_session *sess, tfc_status *s) {
  tfc_graph *g = sess->graph;
  tfc_graph_lock(g);
  int n = g->n_nodes;
  if (n > sess->n_placed) {
    if (n > sess->cap_placed) {
      int cap = n * 2;
      tfc_placement *a = realloc(sess->placement, sizeof *a * (size_t)cap);
      if (!a) { tfc_graph_unlock(g); return TFC_OOM(s); }
      sess->placement = a;
      sess->cap_placed = cap;
    }
    tfc_place_options po = {sess->cfg.allow_soft_placement};
    for (int i = sess->n_placed; i < n; i++) sess->placement[i] = (tfc_placement){-1, NULL};
    if (tfc_place(g, sess->n_placed, sess->devices, sess->n_devices, &po, sess->placement, s)) {
      tfc_graph_unlock(g);
      return s->code;
    }
    if (sess->cfg.log_device_placement) {
      for (int i = sess->n_placed; i < n; i++) {
        const tfc_node *nd = g->nodes[i];
        printf("%s: (%s): %s\n", nd->name, nd->op->name, sess->devices[sess->placement[i].device]->name);
      }
      fflush(stdout);
    }
    sess->n_placed = n;
  }
  tfc_graph_unlock(g);
  return TFC_OK;
}

/* ---------------- plan building ---------------- */

typedef struct builder {
  tfc_session *sess;
  const tfc_endpoint *feeds;
  int n_feeds;
  const tfc_endpoint *fetches;
  int n_fetches;
  tfc_node *const *targets;
  int n_targets;
  unsigned char *needed;
  tfc_node **copy;     /* user node id -> copy in its partition graph */
  tfc_node **arg_node; /* feed index -> its _Arg node */
  int *part_of_device; /* device -> partition index, -1 */
  plan *p;
} builder;

static int feed_index(const builder *b, const tfc_node *n, int index) {
  for (int i = 0; i < b->n_feeds; i++)
    if (b->feeds[i].node == n && b->feeds[i].index == index) return i;
  return -1;
}

/* Marks what the fetches and targets need, walking inputs backwards; a fed output cuts the
 * walk (its producer runs only if needed for another reason). */
static int prune(builder *b, tfc_status *s) {
  int n = b->sess->n_placed;
  int *stack = malloc(sizeof(int) * (size_t)(n ? n : 1));
  if (!stack) return TFC_OOM(s);
  int top = 0;
  for (int i = 0; i < b->n_fetches; i++) {
    const tfc_node *nd = b->fetches[i].node;
    if (feed_index(b, nd, b->fetches[i].index) < 0 && !b->needed[nd->id]) {
      b->needed[nd->id] = 1;
      stack[top++] = nd->id;
    }
  }
  for (int i = 0; i < b->n_targets; i++)
    if (!b->needed[b->targets[i]->id]) {
      b->needed[b->targets[i]->id] = 1;
      stack[top++] = b->targets[i]->id;
    }
  tfc_graph *g = b->sess->graph;
  while (top > 0) {
    const tfc_node *nd = g->nodes[stack[--top]];
    for (int j = 0; j < nd->n_inputs; j++) {
      const tfc_node *src = nd->inputs[j].node;
      if (feed_index(b, src, nd->inputs[j].index) >= 0 || b->needed[src->id]) continue;
      b->needed[src->id] = 1;
      stack[top++] = src->id;
    }
    for (int j = 0; j < nd->n_control_inputs; j++) {
      const tfc_node *src = nd->control_inputs[j];
      if (b->needed[src->id]) continue;
      b->needed[src->id] = 1;
      stack[top++] = src->id;
    }
  }
  free(stack);
  return TFC_OK;
}

static int partition_for(builder *b, int device, tfc_status *s) {
  if (b->part_of_device[device] >= 0) return b->part_of_device[device];
  plan *p = b->p;
  partition *parts = realloc(p->parts, sizeof *parts * (size_t)(p->n_partitions + 1));
  if (!parts) { TFC_OOM(s); return -1; }
  p->parts = parts;
  partition *pt = &parts[p->n_partitions];
  memset(pt, 0, sizeof *pt);
  pt->device = device;
  pt->graph = tfc_graph_new();
  if (!pt->graph) { TFC_OOM(s); return -1; }
  b->part_of_device[device] = p->n_partitions;
  return p->n_partitions++;
}

static tfc_node *add_call_node(builder *b, int device, const char *op, const char *name, int dtype, int index,
                               const tfc_endpoint *input, tfc_status *s) {
  int pi = partition_for(b, device, s);
  if (pi < 0) return NULL;
  tfc_graph *pg = b->p->parts[pi].graph;
  tfc_attr *attrs = NULL;
  int n_attrs = 0;
  tfc_attr_value t = tfc_attr_type(dtype), idx = tfc_attr_int(index);
  tfc_attrs_set(&attrs, &n_attrs, "T", &t, s);
  tfc_attrs_set(&attrs, &n_attrs, "index", &idx, s);
  tfc_node *n = NULL;
  if (tfc_status_ok(s)) {
    char *uname = tfc_graph_unique_name(pg, name);
    if (uname)
      n = tfc_graph_add_raw(pg, uname, tfc_op_lookup(op), b->sess->devices[device]->name, input, input ? 1 : 0,
                            NULL, 0, attrs, n_attrs, s);
    else
      TFC_OOM(s);
    free(uname);
  }
  tfc_attrs_free(attrs, n_attrs);
  return n;
}

/* Copies needed nodes into their device's partition in topological (id) order, rewiring fed
 * inputs to _Arg nodes. Cross-device edges need _Send/_Recv pairs (issue #3). */
static int copy_nodes(builder *b, tfc_status *s) {
  tfc_graph *g = b->sess->graph;
  for (int id = 0; id < b->sess->n_placed; id++) {
    if (!b->needed[id]) continue;
    const tfc_node *nd = g->nodes[id];
    int dev = b->sess->placement[id].device;
    int pi = partition_for(b, dev, s);
    if (pi < 0) return s->code;
    tfc_endpoint in_small[8];
    tfc_endpoint *ins = nd->n_inputs <= 8 ? in_small : malloc(sizeof *ins * (size_t)nd->n_inputs);
    tfc_node *ctl_small[8];
    tfc_node **ctls = nd->n_control_inputs <= 8 ? ctl_small : malloc(sizeof *ctls * (size_t)nd->n_control_inputs);
    if (!ins || !ctls) {
      if (ins != in_small) free(ins);
      if (ctls != ctl_small) free(ctls);
      return TFC_OOM(s);
    }
    for (int j = 0; j < nd->n_inputs; j++) {
      int f = feed_index(b, nd->inputs[j].node, nd->inputs[j].index);
      ins[j] = f >= 0 ? (tfc_endpoint){b->arg_node[f], 0}
                      : (tfc_endpoint){b->copy[nd->inputs[j].node->id], nd->inputs[j].index};
    }
    for (int j = 0; j < nd->n_control_inputs; j++) ctls[j] = b->copy[nd->control_inputs[j]->id];
    int cross = 0;
    for (int j = 0; j < nd->n_inputs; j++) cross |= ins[j].node->graph != b->p->parts[pi].graph;
    for (int j = 0; j < nd->n_control_inputs; j++) cross |= ctls[j]->graph != b->p->parts[pi].graph;
    if (cross) {
      if (ins != in_small) free(ins);
      if (ctls != ctl_small) free(ctls);
      return tfc_status_set(s, TFC_UNIMPLEMENTED,
                            "node '%s' on %s has an input from another device; cross-device edges are "
                            "not supported yet",
                            nd->name, b->sess->devices[dev]->name);
    }
    tfc_node *c = tfc_graph_add_raw(b->p->parts[pi].graph, nd->name, nd->op, nd->device, ins, nd->n_inputs,
                                    ctls, nd->n_control_inputs, nd->attrs, nd->n_attrs, s);
    if (ins != in_small) free(ins);
    if (ctls != ctl_small) free(ctls);
    if (!c) return s->code;
    for (int o = 0; o < nd->n_outputs; o++) c->output_shapes[o] = nd->output_shapes[o];
    c->assigned_device = tfc_strdup(b->sess->devices[dev]->name);
    b->copy[id] = c;
  }
  return TFC_OK;
}

static plan *build_plan(tfc_session *sess, const tfc_endpoint *feeds, int n_feeds, const tfc_endpoint *fetches,
                        int n_fetches, tfc_node *const *targets, int n_targets, tfc_status *s) {
  builder b = {sess, feeds, n_feeds, fetches, n_fetches, targets, n_targets, NULL, NULL, NULL, NULL, NULL};
  b.p = calloc(1, sizeof *b.p);
  b.needed = calloc((size_t)sess->n_placed + 1, 1);
  b.copy = calloc((size_t)sess->n_placed + 1, sizeof *b.copy);
  b.arg_node = calloc((size_t)n_feeds + 1, sizeof *b.arg_node);
  b.part_of_device = malloc(sizeof(int) * (size_t)sess->n_devices);
  if (!b.p || !b.needed || !b.copy || !b.arg_node || !b.part_of_device) {
    TFC_OOM(s);
    goto fail;
  }
  for (int i = 0; i < sess->n_devices; i++) b.part_of_device[i] = -1;
  b.p->n_feeds = n_feeds;
  b.p->n_fetches = n_fetches;
  if (prune(&b, s)) goto fail;
  /* feeds: an _Arg on the device the fed node was placed on */
  for (int i = 0; i < n_feeds; i++) {
    char name[64];
    snprintf(name, sizeof name, "_arg_%d", i);
    int dev = sess->placement[feeds[i].node->id].device;
    b.arg_node[i] = add_call_node(&b, dev, "_Arg", name, tfc_dtype_base(feeds[i].node->output_types[feeds[i].index]),
                                  i, NULL, s);
    if (!b.arg_node[i]) goto fail;
    b.arg_node[i]->output_shapes[0] = feeds[i].node->output_shapes[feeds[i].index];
  }
  if (copy_nodes(&b, s)) goto fail;
  for (int i = 0; i < n_fetches; i++) {
    int f = feed_index(&b, fetches[i].node, fetches[i].index);
    tfc_endpoint src = f >= 0 ? (tfc_endpoint){b.arg_node[f], 0}
                              : (tfc_endpoint){b.copy[fetches[i].node->id], fetches[i].index};
    int dev = f >= 0 ? sess->placement[feeds[f].node->id].device : sess->placement[fetches[i].node->id].device;
    char name[64];
    snprintf(name, sizeof name, "_retval_%d", i);
    if (!add_call_node(&b, dev, "_Retval", name, tfc_dtype_base(src.node->output_types[src.index]), i, &src, s))
      goto fail;
  }
  for (int i = 0; i < b.p->n_partitions; i++) {
    partition *pt = &b.p->parts[i];
    pt->exec = tfc_executor_new(pt->graph, sess->devices[pt->device], s);
    if (!pt->exec) goto fail;
  }
  free(b.needed);
  free(b.copy);
  free(b.arg_node);
  free(b.part_of_device);
  return b.p;
fail:
  if (b.p) plan_free(b.p);
  free(b.needed);
  free(b.copy);
  free(b.arg_node);
  free(b.part_of_device);
  return NULL;
}

/* ---------------- run ---------------- */

static int check_endpoint(tfc_session *sess, tfc_endpoint e, const char *what, tfc_status *s) {
  if (!e.node || e.node->graph != sess->graph)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s is not an operation of this session's graph", what);
  if (e.index < 0 || e.index >= e.node->n_outputs)
    return tfc_status_set(s, TFC_OUT_OF_RANGE, "Node '%s' (type: '%s', num of outputs: %d) does not have output %d",
                          e.node->name, e.node->op->name, e.node->n_outputs, e.index);
  return TFC_OK;
}

static char *signature(const tfc_endpoint *feeds, int n_feeds, const tfc_endpoint *fetches, int n_fetches,
                       tfc_node *const *targets, int n_targets) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  for (int i = 0; i < n_feeds; i++) tfc_strbuf_printf(&b, "%d:%d,", feeds[i].node->id, feeds[i].index);
  tfc_strbuf_puts(&b, "|");
  for (int i = 0; i < n_fetches; i++) tfc_strbuf_printf(&b, "%d:%d,", fetches[i].node->id, fetches[i].index);
  tfc_strbuf_puts(&b, "|");
  for (int i = 0; i < n_targets; i++) tfc_strbuf_printf(&b, "%d,", targets[i]->id);
  return tfc_strbuf_take(&b);
}

int tfc_session_run(tfc_session *sess, const tfc_endpoint *feed_eps, tfc_tensor *const *feeds, int n_feeds,
                    const tfc_endpoint *fetch_eps, tfc_tensor **out, int n_fetches, tfc_node *const *targets,
                    int n_targets, tfc_status *s) {
  for (int i = 0; i < n_fetches; i++) out[i] = NULL;
  for (int i = 0; i < n_feeds; i++) {
    TFC_TRY(check_endpoint(sess, feed_eps[i], "a feed", s));
    if (!feeds[i]) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "feed %d has no tensor", i);
    for (int j = 0; j < i; j++)
      if (feed_eps[j].node == feed_eps[i].node && feed_eps[j].index == feed_eps[i].index)
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "%s:%d fed more than once.", feed_eps[i].node->name,
                              feed_eps[i].index);
  }
  for (int i = 0; i < n_fetches; i++) TFC_TRY(check_endpoint(sess, fetch_eps[i], "a fetch", s));
  for (int i = 0; i < n_targets; i++)
    if (!targets[i] || targets[i]->graph != sess->graph)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "a target is not an operation of this session's graph");

  char *key = signature(feed_eps, n_feeds, fetch_eps, n_fetches, targets, n_targets);
  if (!key) return TFC_OOM(s);
  pthread_mutex_lock(&sess->mu);
  if (sess->closed) {
    pthread_mutex_unlock(&sess->mu);
    free(key);
    return tfc_status_set(s, TFC_FAILED_PRECONDITION, "Session has been closed.");
  }
  plan *p = NULL;
  if (extend(sess, s) == TFC_OK) {
    p = tfc_hashmap_get(&sess->plans, key);
    if (!p) {
      p = build_plan(sess, feed_eps, n_feeds, fetch_eps, n_fetches, targets, n_targets, s);
      if (p && tfc_hashmap_put(&sess->plans, key, p) != 0) {
        plan_free(p);
        p = NULL;
        TFC_OOM(s);
      }
      if (p) {
        p->next = sess->all_plans;
        sess->all_plans = p;
      }
    }
  }
  pthread_mutex_unlock(&sess->mu);
  free(key);
  if (!p) return s->code;

  tfc_call_frame frame = {n_feeds, feeds, n_fetches, out};
  tfc_exec_args args = {&frame, sess->pool, atomic_fetch_add(&sess->next_step_id, 1), NULL};
  /* One partition per device; they run one after another until cross-device edges exist. */
  for (int i = 0; i < p->n_partitions && tfc_status_ok(s); i++) tfc_executor_run(p->parts[i].exec, &args, s);
  if (tfc_status_ok(s))
    for (int i = 0; i < n_fetches; i++)
      if (!out[i]) tfc_status_set(s, TFC_INTERNAL, "fetch %d was not produced", i);
  if (!tfc_status_ok(s))
    for (int i = 0; i < n_fetches; i++) {
      tfc_tensor_unref(out[i]);
      out[i] = NULL;
    }
  return s->code;
}
