/*
 * kernels_queue — CPU kernels of the queue ops (ops_data.def): FIFOQueueV2,
 * RandomShuffleQueueV2 and PaddingFIFOQueueV2 find or create their queue in the device's resources and output a
 * DT_RESOURCE handle to it; the other ops act on the queue behind their handle input.
 * Semantics, blocking and cancellation are state/queue.h's.
 *
 * A queue with a shared_name is found under that name (a second node asking for it must
 * agree on type, capacity, dtypes, shapes and seeds: TF's "Shared queue ..." texts); one
 * without is private to its node, named as TF names it ("_<id>_<node name>", the id from the
 * device's resource manager), and every executor of the session built for that node finds the
 * same queue. The node caches its queue after the first run.
 *
 * Blocking ops (enqueue, dequeue) hold their thread while they wait; they register with the
 * step's rendezvous so an aborted step (another partition failed, the deadline passed) wakes
 * them (tfc_queue_cancel).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/cpu/cpu_kernels.h"
#include "device/device.h"
#include "device/cpu/kernels_data_int.h"
#include "state/queue.h"

/* ---------------- FIFOQueueV2, RandomShuffleQueueV2, PaddingFIFOQueueV2 ---------------- */

typedef struct queue_op {
  tfc_queue_options o;
  const char *container, *shared_name, *node_name, *op_name;
  int *dtypes;
  tfc_shape *shapes;
  _Atomic(tfc_resource *) res;
} queue_op;

static void queue_op_free(void *state) {
  queue_op *st = state;
  tfc_resource_unref(atomic_load(&st->res));
  free(st->dtypes);
  free(st->shapes);
  free(st);
}

static int queue_op_init(const tfc_node *n, void **state, tfc_status *s) {
  queue_op *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  atomic_init(&st->res, NULL);
  st->node_name = n->name;
  st->op_name = n->op->name;
  st->o.type = n->op->id == TFC_OP_RandomShuffleQueueV2 ? TFC_QUEUE_RANDOM_SHUFFLE
                : n->op->id == TFC_OP_PaddingFIFOQueueV2 ? TFC_QUEUE_PADDING_FIFO
                                                         : TFC_QUEUE_FIFO;
  const tfc_attr_value *types = tfc_node_attr(n, "component_types");
  const tfc_attr_value *shapes = tfc_node_attr(n, "shapes");
  if (!types || types->kind != TFC_ATTR_LIST) {
    free(st);
    return tfc_status_set(s, TFC_INTERNAL, "node '%s' has no component_types", n->name);
  }
  int nc = types->u.list.n, ns = shapes && shapes->kind == TFC_ATTR_LIST ? shapes->u.list.n : 0;
  st->dtypes = calloc((size_t)nc + 1, sizeof *st->dtypes);
  st->shapes = calloc((size_t)ns + 1, sizeof *st->shapes);
  if (!st->dtypes || !st->shapes) {
    queue_op_free(st);
    return TFC_OOM(s);
  }
  for (int i = 0; i < nc; i++) st->dtypes[i] = types->u.list.items[i].u.type;
  for (int i = 0; i < ns; i++) st->shapes[i] = *shapes->u.list.items[i].u.shape;
  st->o.n_components = nc;
  st->o.dtypes = st->dtypes;
  st->o.n_shapes = ns;
  st->o.shapes = st->shapes;
  if (tfc_kernel_attr_int(n, "capacity", &st->o.capacity, s) || tfc_kernel_attr_string(n, "container", &st->container, s) ||
      tfc_kernel_attr_string(n, "shared_name", &st->shared_name, s) ||
      (st->o.type == TFC_QUEUE_RANDOM_SHUFFLE &&
       (tfc_kernel_attr_int(n, "min_after_dequeue", &st->o.min_after_dequeue, s) ||
        tfc_kernel_attr_int(n, "seed", &st->o.seed, s) || tfc_kernel_attr_int(n, "seed2", &st->o.seed2, s)))) {
    queue_op_free(st);
    return s->code;
  }
  *state = st;
  return TFC_OK;
}

/* What queue_create needs: the node's state and the device's manager (for a private queue's
 * id). On the stack of the compute that creates, since two steps may create at once. */
typedef struct queue_create_args {
  const queue_op *st;
  tfc_resource_mgr *mgr;
} queue_create_args;

/* Runs under the resource manager's lock (see tfc_resource_create_fn). */
static tfc_resource *queue_create(void *arg, tfc_status *s) {
  const queue_create_args *a = arg;
  const queue_op *st = a->st;
  tfc_queue_options o = st->o;
  char *name = NULL;
  if (!*st->shared_name) {
    if (asprintf(&name, "_%lld_%s", (long long)tfc_resource_mgr_next_id(a->mgr), st->node_name) < 0) {
      TFC_OOM(s);
      return NULL;
    }
    o.name = name;
  } else {
    o.name = st->shared_name;
  }
  tfc_queue *q = tfc_queue_new(&o, s);
  free(name);
  return q ? tfc_queue_resource(q) : NULL;
}

/* The node's queue (borrowed: the state holds a reference), or NULL with status. */
static tfc_queue *node_queue(tfc_kernel_ctx *c) {
  queue_op *st = c->state;
  tfc_resource *r = atomic_load_explicit(&st->res, memory_order_acquire);
  if (r) return tfc_queue_from_resource(r);
  char *key = NULL;
  /* A private queue's key cannot clash with a shared name: \x1f never appears in one a
   * graph builder would choose, and the node name is unique in the session's graph. */
  if (!*st->shared_name && !(key = tfc_resource_private_name(st->node_name))) {
    TFC_OOM(c->status);
    return NULL;
  }
  r = tfc_resource_mgr_lookup_or_create(c->device->resources, st->container, key ? key : st->shared_name,
                                        &tfc_queue_kind, queue_create, &(queue_create_args){st, c->device->resources},
                                        c->status);
  free(key);
  if (!r) return NULL;
  if (tfc_queue_check_shared(tfc_queue_from_resource(r), &st->o, st->node_name, st->op_name, c->status)) {
    tfc_resource_unref(r);
    return NULL;
  }
  tfc_resource *expected = NULL;
  if (!atomic_compare_exchange_strong(&st->res, &expected, r)) { /* another step got there first */
    tfc_resource_unref(r);
    r = expected;
  }
  return tfc_queue_from_resource(r);
}

static int queue_op_compute(tfc_kernel_ctx *c) {
  tfc_queue *q = node_queue(c);
  if (!q) return c->status->code;
  tfc_tensor *h = tfc_resource_handle_new(tfc_queue_resource(q), c->status);
  if (!h) return c->status->code;
  tfc_kernel_set_output(c, 0, h);
  return TFC_OK;
}

/* ---------------- ops on a queue handle ---------------- */

static tfc_queue *input_queue(tfc_kernel_ctx *c) {
  tfc_resource *r = tfc_resource_from_handle(c->inputs[0], &tfc_queue_kind, c->status);
  return r ? tfc_queue_from_resource(r) : NULL;
}

static int enqueue(tfc_kernel_ctx *c, int many) {
  tfc_queue *q = input_queue(c);
  if (!q) return c->status->code;
  tfc_queue_cancel cx;
  tfc_queue_cancel_init(&cx, c->rendezvous, c->node->name);
  tfc_queue_enqueue(q, c->inputs + 1, c->n_inputs - 1, many, &cx, c->status);
  tfc_queue_cancel_fini(&cx);
  return c->status->code;
}

static int enqueue_compute(tfc_kernel_ctx *c) { return enqueue(c, 0); }
static int enqueue_many_compute(tfc_kernel_ctx *c) { return enqueue(c, 1); }

/* TF's OpKernelContext::MatchSignature text: the op's outputs against the queue's dtypes. */
static int check_outputs(tfc_kernel_ctx *c, tfc_queue *q) {
  int nq = tfc_queue_n_components(q), same = nq == c->n_outputs;
  for (int i = 0; same && i < nq; i++) same = tfc_queue_dtype(q, i) == c->node->output_types[i];
  if (same) return TFC_OK;
  char have[1024], want[1024];
  size_t a = 0, b = 0;
  have[0] = want[0] = 0;
  for (int i = 0; i < c->n_outputs && a < sizeof have; i++)
    a += (size_t)snprintf(have + a, sizeof have - a, "%s%s", i ? ", " : "", tfc_dtype_name(c->node->output_types[i]));
  for (int i = 0; i < nq && b < sizeof want; i++)
    b += (size_t)snprintf(want + b, sizeof want - b, "%s%s", i ? ", " : "", tfc_dtype_name(tfc_queue_dtype(q, i)));
  return tfc_status_set(c->status, TFC_INVALID_ARGUMENT, "Signature mismatch, have: resource->%s expected: resource->%s",
                        have, want);
}

static int dequeue(tfc_kernel_ctx *c, int64_t n, int allow_small) {
  tfc_queue *q = input_queue(c);
  if (!q || check_outputs(c, q)) return c->status->code;
  int nc = tfc_queue_n_components(q);
  tfc_tensor *small[8], **out = nc <= 8 ? small : calloc((size_t)nc, sizeof *out);
  if (!out) return TFC_OOM(c->status);
  tfc_queue_cancel cx;
  tfc_queue_cancel_init(&cx, c->rendezvous, c->node->name);
  if (tfc_queue_dequeue(q, n, allow_small, &cx, out, c->status) == TFC_OK)
    for (int i = 0; i < nc; i++) tfc_kernel_set_output(c, i, out[i]);
  tfc_queue_cancel_fini(&cx);
  if (out != small) free(out);
  return c->status->code;
}

static int dequeue_compute(tfc_kernel_ctx *c) { return dequeue(c, -1, 0); }

static int dequeue_n(tfc_kernel_ctx *c, int allow_small) {
  const tfc_tensor *n = c->inputs[1];
  if (n->ndims != 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "n must be a scalar, got shape [%lld]", (long long)n->dims[0]);
  int32_t k = *(const int32_t *)n->data;
  if (k < 0)
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s requested %d < 0 elements",
                            allow_small ? "DequeueUpToOp" : "DequeueManyOp", k);
  return dequeue(c, k, allow_small);
}

static int dequeue_many_compute(tfc_kernel_ctx *c) { return dequeue_n(c, 0); }
static int dequeue_up_to_compute(tfc_kernel_ctx *c) { return dequeue_n(c, 1); }

static int close_compute(tfc_kernel_ctx *c) {
  tfc_queue *q = input_queue(c);
  if (!q) return c->status->code;
  int cancel = 0;
  tfc_node_attr_bool(c->node, "cancel_pending_enqueues", &cancel);
  return tfc_queue_close(q, cancel, c->status);
}

static int size_compute(tfc_kernel_ctx *c) {
  tfc_queue *q = input_queue(c);
  if (!q) return c->status->code;
  tfc_tensor *t = tfc_kernel_alloc_output(c, 0, TFC_DT_INT32, NULL, 0);
  if (!t) return c->status->code;
  *(int32_t *)t->data = (int32_t)tfc_queue_size(q);
  return TFC_OK;
}

static int is_closed_compute(tfc_kernel_ctx *c) {
  tfc_queue *q = input_queue(c);
  if (!q) return c->status->code;
  tfc_tensor *t = tfc_kernel_alloc_output(c, 0, TFC_DT_BOOL, NULL, 0);
  if (!t) return c->status->code;
  *(uint8_t *)t->data = (uint8_t)tfc_queue_is_closed(q);
  return TFC_OK;
}

/* Handles are host-side (input or output 0); DequeueMany's n is read on the host. */
#define HANDLE TFC_HOST(0)

static const tfc_kernel_def queue_kernels[] = {
    {.op = TFC_OP_FIFOQueueV2, .host_memory_out = HANDLE, .init = queue_op_init, .compute = queue_op_compute,
     .free_state = queue_op_free},
    {.op = TFC_OP_RandomShuffleQueueV2, .host_memory_out = HANDLE, .init = queue_op_init,
     .compute = queue_op_compute, .free_state = queue_op_free},
    {.op = TFC_OP_PaddingFIFOQueueV2, .host_memory_out = HANDLE, .init = queue_op_init,
     .compute = queue_op_compute, .free_state = queue_op_free},
    {.op = TFC_OP_QueueEnqueueV2, .host_memory_in = HANDLE, .flags = TFC_KF_BLOCKING, .compute = enqueue_compute},
    {.op = TFC_OP_QueueEnqueueManyV2, .host_memory_in = HANDLE, .flags = TFC_KF_BLOCKING,
     .compute = enqueue_many_compute},
    {.op = TFC_OP_QueueDequeueV2, .host_memory_in = HANDLE, .flags = TFC_KF_BLOCKING, .compute = dequeue_compute},
    {.op = TFC_OP_QueueDequeueManyV2, .host_memory_in = HANDLE | TFC_HOST(1), .flags = TFC_KF_BLOCKING,
     .compute = dequeue_many_compute},
    {.op = TFC_OP_QueueDequeueUpToV2, .host_memory_in = HANDLE | TFC_HOST(1), .flags = TFC_KF_BLOCKING,
     .compute = dequeue_up_to_compute},
    {.op = TFC_OP_QueueCloseV2, .host_memory_in = HANDLE, .compute = close_compute},
    {.op = TFC_OP_QueueSizeV2, .host_memory_in = HANDLE, .host_memory_out = TFC_HOST(0), .compute = size_compute},
    {.op = TFC_OP_QueueIsClosedV2, .host_memory_in = HANDLE, .host_memory_out = TFC_HOST(0),
     .compute = is_closed_compute},
};

int tfc_cpu_kernels_queue(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, queue_kernels, (int)(sizeof queue_kernels / sizeof queue_kernels[0]), s);
}
