/*
 * queue — see queue.h for the semantics. The implementation:
 *
 * Storage is one ring of elements (each element n_components tensor references, no batch
 * dimension), grown by doubling, so FIFO takes from the front, a failed DequeueMany puts its
 * elements back at the front, and a RandomShuffleQueue swaps the picked element with the last.
 *
 * Waiting: one mutex and one condition variable per queue, broadcast on every change. Waiting
 * operations sit on two lists (enqueuers, dequeuers) in arrival order; only the first of each
 * list moves elements, which gives TF's ordering without per-waiter condition variables (a
 * queue rarely has more than a handful of waiters, so broadcasting costs little).
 *
 * Step abort: see tfc_queue_cancel below. A blocked call registers a receive of a key of its
 * own with the step's rendezvous; the rendezvous calls every waiting receive when it is
 * aborted, which wakes the queue. Going through the rendezvous's receive interface keeps this
 * working with any rendezvous (the distributed runtime's too) and names the blocked op in a
 * timed-out step's message. The watch is refcounted (the blocked call and the rendezvous
 * callback each hold one) because the abort thread may still be about to call it when the
 * blocked call returns.
 */
#include "state/queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/philox.h"
#include "base/strbuf.h"
#include "rendezvous/rendezvous.h"
#include "tensor/dtype.h"

typedef struct waiter {
  struct waiter *prev, *next;
  int cancelled; /* close(cancel_pending_enqueues) hit this enqueuer */
} waiter;

typedef struct wlist {
  waiter *head, *tail;
} wlist;

struct tfc_queue {
  tfc_resource base; /* first: the queue is a resource */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  char *name;
  int type;
  int n_comp;
  int *dtypes;
  int has_shapes;
  tfc_shape *shapes;
  int64_t capacity, min_after_dequeue, seed, seed2;
  /* guarded by mu */
  tfc_tensor **ring; /* slots * n_comp */
  int64_t slots, head, size;
  int closed, cancelled_enqueues, cancelled;
  wlist enq, deq;
  tfc_philox rng;
  uint32_t rnd[4];
  int n_rnd;
  int64_t deq_wait_us;
};

static const char *kind_name(const tfc_queue *q) {
  return q->type == TFC_QUEUE_RANDOM_SHUFFLE ? "RandomShuffleQueue"
         : q->type == TFC_QUEUE_PADDING_FIFO ? "PaddingFIFOQueue"
                                             : "FIFOQueue";
}

static const char *op_name_of(int type) {
  return type == TFC_QUEUE_RANDOM_SHUFFLE ? "RandomShuffleQueueV2"
         : type == TFC_QUEUE_PADDING_FIFO ? "PaddingFIFOQueueV2"
                                          : "FIFOQueueV2";
}

/* ---------------- lifecycle ---------------- */

static void queue_free(tfc_resource *r) {
  tfc_queue *q = (tfc_queue *)r;
  for (int64_t i = 0; i < q->size; i++) {
    tfc_tensor **e = q->ring + ((q->head + i) % q->slots) * q->n_comp;
    for (int c = 0; c < q->n_comp; c++) tfc_tensor_unref(e[c]);
  }
  free(q->ring);
  free(q->name);
  free(q->dtypes);
  free(q->shapes);
  pthread_cond_destroy(&q->cv);
  pthread_mutex_destroy(&q->mu);
  free(q);
}

static void queue_cancel(tfc_resource *r) {
  tfc_queue *q = (tfc_queue *)r;
  pthread_mutex_lock(&q->mu);
  q->cancelled = 1;
  pthread_cond_broadcast(&q->cv);
  pthread_mutex_unlock(&q->mu);
}

const tfc_resource_kind tfc_queue_kind = {"N10tensorflow14QueueInterfaceE", queue_free, queue_cancel};

tfc_queue *tfc_queue_new(const tfc_queue_options *o, tfc_status *s) {
  if (o->n_components < 1) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Queue '%s' needs at least one component type", o->name);
    return NULL;
  }
  if (o->n_shapes != 0 && o->n_shapes != o->n_components) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Length of shapes (%d) must be 0 or equal to the length of component_types (%d)",
                   o->n_shapes, o->n_components);
    return NULL;
  }
  if (o->type == TFC_QUEUE_PADDING_FIFO && o->n_shapes != o->n_components) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shapes must be provided for all components, but received %d dtypes and %d shapes.",
                   o->n_components, o->n_shapes);
    return NULL;
  }
  for (int i = 0; i < o->n_shapes; i++)
    if (o->type == TFC_QUEUE_PADDING_FIFO ? o->shapes[i].rank < 0 : !tfc_shape_fully_defined(&o->shapes[i])) {
      char b[TFC_SHAPE_STR_MAX];
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "Queue '%s' component %d has shape %s, which is not fully defined", o->name, i,
                     tfc_shape_str(&o->shapes[i], b, sizeof b));
      return NULL;
    }
  if (o->type == TFC_QUEUE_RANDOM_SHUFFLE) {
    if (o->min_after_dequeue < 0) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "min_after_dequeue %lld must be >= 0", (long long)o->min_after_dequeue);
      return NULL;
    }
    if (o->capacity >= 0 && o->min_after_dequeue >= o->capacity) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "min_after_dequeue %lld must be < capacity %lld",
                     (long long)o->min_after_dequeue, (long long)o->capacity);
      return NULL;
    }
  }
  tfc_queue *q = calloc(1, sizeof *q);
  if (!q) {
    TFC_OOM(s);
    return NULL;
  }
  tfc_resource_init(&q->base, &tfc_queue_kind);
  pthread_mutex_init(&q->mu, NULL);
  tfc_cond_init_monotonic(&q->cv);
  q->name = strdup(o->name);
  q->type = o->type;
  q->n_comp = o->n_components;
  q->dtypes = malloc(sizeof(int) * (size_t)o->n_components);
  q->has_shapes = o->n_shapes > 0;
  q->shapes = malloc(sizeof(tfc_shape) * (size_t)o->n_components);
  q->capacity = o->capacity < 0 ? -1 : o->capacity;
  q->min_after_dequeue = o->type == TFC_QUEUE_RANDOM_SHUFFLE ? o->min_after_dequeue : 0;
  q->seed = o->seed;
  q->seed2 = o->seed2;
  if (!q->name || !q->dtypes || !q->shapes) {
    TFC_OOM(s);
    queue_free(&q->base);
    return NULL;
  }
  memcpy(q->dtypes, o->dtypes, sizeof(int) * (size_t)o->n_components);
  for (int i = 0; i < o->n_components; i++) q->shapes[i] = q->has_shapes ? o->shapes[i] : tfc_shape_unknown();
  if (q->type == TFC_QUEUE_RANDOM_SHUFFLE) {
    uint64_t s1 = (uint64_t)o->seed, s2 = (uint64_t)o->seed2;
    if (s1 == 0 && s2 == 0) { /* TF: both zero means a nondeterministic seed */
      s1 = (uint64_t)tfc_now_us() ^ (uint64_t)(uintptr_t)q;
      s2 = (uint64_t)(uintptr_t)q * 0x9e3779b97f4a7c15ull;
    }
    tfc_philox_init(&q->rng, s1, s2);
  }
  return q;
}

static void dtypes_str(const int *d, int n, char *buf, size_t cap) {
  size_t o = 0;
  buf[0] = 0;
  for (int i = 0; i < n && o < cap; i++) o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? ", " : "", tfc_dtype_name(d[i]));
}

static void shapes_str(const tfc_shape *sh, int n, char *buf, size_t cap) {
  size_t o = (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < n && o < cap; i++) {
    char b[TFC_SHAPE_STR_MAX];
    o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? ", " : "", tfc_shape_str(&sh[i], b, sizeof b));
  }
  if (o < cap) snprintf(buf + o, cap - o, "]");
}

int tfc_queue_check_shared(const tfc_queue *q, const tfc_queue_options *o, const char *node_name, const char *op,
                           tfc_status *s) {
  const char *want = op_name_of(o->type);
  const char *have = op_name_of(q->type);
  if (q->type != o->type)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shared queue '%s' has type '%s' that does not match type of Node '%s': %s",
                          q->name, have, node_name, op ? op : want);
  int64_t cap = o->capacity < 0 ? -1 : o->capacity;
  if (cap != q->capacity)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shared queue '%s' has capacity %lld but requested capacity was %lld",
                          q->name, (long long)q->capacity, (long long)cap);
  int same = o->n_components == q->n_comp;
  for (int i = 0; same && i < q->n_comp; i++) same = o->dtypes[i] == q->dtypes[i];
  if (!same) {
    char a[512], b[512];
    dtypes_str(q->dtypes, q->n_comp, a, sizeof a);
    dtypes_str(o->dtypes, o->n_components, b, sizeof b);
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "Shared queue '%s' has component types %s but requested component types were %s", q->name, a, b);
  }
  same = (o->n_shapes > 0) == q->has_shapes;
  for (int i = 0; same && i < o->n_shapes; i++) same = tfc_shape_equal(&o->shapes[i], &q->shapes[i]);
  if (!same) {
    char a[2048], b[2048];
    shapes_str(q->shapes, q->has_shapes ? q->n_comp : 0, a, sizeof a);
    shapes_str(o->shapes, o->n_shapes, b, sizeof b);
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "Shared queue '%s' has component shapes %s but requested component shapes were %s", q->name, a, b);
  }
  if (q->type == TFC_QUEUE_RANDOM_SHUFFLE) {
    if (o->min_after_dequeue != q->min_after_dequeue)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "Shared queue '%s' has min_after_dequeue %lld but requested min_after_dequeue was %lld", q->name,
                            (long long)q->min_after_dequeue, (long long)o->min_after_dequeue);
    if (o->seed != q->seed || o->seed2 != q->seed2)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "Shared queue '%s' has random seeds (%lld, %lld) but requested seeds are (%lld, %lld).", q->name,
                            (long long)q->seed, (long long)q->seed2, (long long)o->seed, (long long)o->seed2);
  }
  return TFC_OK;
}

/* ---------------- the ring (mu held) ---------------- */

static int ring_reserve(tfc_queue *q, int64_t extra, tfc_status *s) {
  if (q->size + extra <= q->slots) return TFC_OK;
  int64_t n = q->slots ? q->slots : 16;
  while (n < q->size + extra) n *= 2;
  tfc_tensor **r = malloc(sizeof *r * (size_t)(n * q->n_comp));
  if (!r) return TFC_OOM(s);
  for (int64_t i = 0; i < q->size; i++)
    memcpy(r + i * q->n_comp, q->ring + ((q->head + i) % q->slots) * q->n_comp, sizeof *r * (size_t)q->n_comp);
  free(q->ring);
  q->ring = r;
  q->slots = n;
  q->head = 0;
  return TFC_OK;
}

static tfc_tensor **slot(tfc_queue *q, int64_t i) { return q->ring + ((q->head + i) % q->slots) * q->n_comp; }

/* Appends elem (references move to the ring); space reserved. */
static void push_back(tfc_queue *q, tfc_tensor **elem) {
  memcpy(slot(q, q->size), elem, sizeof *elem * (size_t)q->n_comp);
  q->size++;
}

static void push_front(tfc_queue *q, tfc_tensor **elem) {
  q->head = (q->head + q->slots - 1) % q->slots;
  memcpy(slot(q, 0), elem, sizeof *elem * (size_t)q->n_comp);
  q->size++;
}

static uint32_t next_u32(tfc_queue *q) {
  if (q->n_rnd == 0) {
    tfc_philox_next(&q->rng, q->rnd);
    q->n_rnd = 4;
  }
  return q->rnd[--q->n_rnd];
}

/* Removes one element into elem: the front (FIFO) or a uniformly random one. */
static void take_one(tfc_queue *q, tfc_tensor **elem) {
  int64_t i = 0;
  if (q->type == TFC_QUEUE_RANDOM_SHUFFLE && q->size > 1) {
    uint64_t r = ((uint64_t)next_u32(q) << 32) | next_u32(q);
    i = (int64_t)(r % (uint64_t)q->size);
  }
  memcpy(elem, slot(q, i), sizeof *elem * (size_t)q->n_comp);
  if (i != 0) { /* swap the front into the hole; order does not matter in a shuffle queue */
    memcpy(slot(q, i), slot(q, 0), sizeof *elem * (size_t)q->n_comp);
  }
  q->head = (q->head + 1) % q->slots;
  q->size--;
}

/* ---------------- waiting ---------------- */

static void wlist_push(wlist *l, waiter *w) {
  w->next = NULL;
  w->prev = l->tail;
  if (l->tail) l->tail->next = w; else l->head = w;
  l->tail = w;
}

static void wlist_remove(wlist *l, waiter *w) {
  if (w->prev) w->prev->next = w->next; else l->head = w->next;
  if (w->next) w->next->prev = w->prev; else l->tail = w->prev;
  w->prev = w->next = NULL;
}

struct tfc_queue_watch {
  atomic_int refs;
  tfc_resource *r; /* a reference: keeps mu and cv alive */
  pthread_mutex_t *mu;
  pthread_cond_t *cv;
  char *key;
};

static void watch_unref(struct tfc_queue_watch *w) {
  if (!w || atomic_fetch_sub_explicit(&w->refs, 1, memory_order_acq_rel) != 1) return;
  tfc_resource_unref(w->r);
  free(w->key);
  free(w);
}

/* The rendezvous's callback: an abort (s not OK) wakes the waiters; either way it is the
 * callback's reference that goes. */
static void watch_done(void *arg, const tfc_status *s, tfc_tensor *t, int is_dead) {
  (void)is_dead;
  struct tfc_queue_watch *w = arg;
  tfc_tensor_unref(t);
  if (!tfc_status_ok(s)) {
    pthread_mutex_lock(w->mu);
    pthread_cond_broadcast(w->cv);
    pthread_mutex_unlock(w->mu);
  }
  watch_unref(w);
}

void tfc_queue_cancel_init(tfc_queue_cancel *c, struct tfc_rendezvous *rendezvous, const char *node_name) {
  c->rendezvous = rendezvous;
  c->node_name = node_name;
  c->watch = NULL;
}

void tfc_queue_cancel_fini(tfc_queue_cancel *c) {
  struct tfc_queue_watch *w = c->watch;
  if (!w) return;
  c->watch = NULL;
  /* Sending the key completes our own receive (its callback drops its reference here, on this
   * thread); after an abort the send fails and the abort's callback does it instead. */
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *dummy = tfc_tensor_new(TFC_DT_BOOL, NULL, 0, &s);
  if (dummy) tfc_rendezvous_send(c->rendezvous, w->key, dummy, 0, &s);
  tfc_tensor_unref(dummy);
  tfc_status_fini(&s);
  watch_unref(w);
}

/* Registers c with its rendezvous for the waiters on (mu, cv) of r (called without mu: an
 * already aborted rendezvous calls back at once). Out of memory leaves c unregistered: the
 * operation then wakes only for the resource's own reasons (close, session close). */
static void watch_register(tfc_queue_cancel *c, tfc_resource *r, pthread_mutex_t *mu, pthread_cond_t *cv,
                           const char *what, const char *name) {
  struct tfc_queue_watch *w = calloc(1, sizeof *w);
  if (!w) return;
  /* Unique within the step (a node runs once per step); it reads well in the deadline
   * message, which lists the receives still waiting. */
  if (asprintf(&w->key, "%s (blocked on %s '%s')", c->node_name ? c->node_name : "?", what, name) < 0) {
    free(w);
    return;
  }
  atomic_init(&w->refs, 2);
  w->r = tfc_resource_ref(r);
  w->mu = mu;
  w->cv = cv;
  c->watch = w;
  tfc_rendezvous_recv_async(c->rendezvous, w->key, watch_done, w);
}

int tfc_queue_cancel_aborted(const tfc_queue_cancel *c) {
  return c && c->rendezvous && tfc_rendezvous_aborted(c->rendezvous);
}

int tfc_queue_cancel_wait(tfc_queue_cancel *c, tfc_resource *r, pthread_mutex_t *mu, pthread_cond_t *cv,
                          const char *what, const char *name) {
  if (c && c->rendezvous && !c->watch) {
    pthread_mutex_unlock(mu);
    watch_register(c, r, mu, cv, what, name);
    pthread_mutex_lock(mu);
    return 0;
  }
  pthread_cond_wait(cv, mu);
  return 1;
}

/* Why a waiting operation must stop (mu held): 0 = keep going. */
static int stop_reason(tfc_queue *q, tfc_queue_cancel *cx) { return q->cancelled || tfc_queue_cancel_aborted(cx); }

/* Waits once on the queue (mu held on entry and exit); see tfc_queue_cancel_wait. */
static void wait_once(tfc_queue *q, tfc_queue_cancel *cx, int64_t *waited_us) {
  int64_t t0 = waited_us ? tfc_now_us() : 0;
  int waited = tfc_queue_cancel_wait(cx, &q->base, &q->mu, &q->cv, "queue", q->name);
  if (waited && waited_us) *waited_us += tfc_now_us() - t0;
}

/* ---------------- enqueue ---------------- */

static int signature_mismatch(tfc_queue *q, tfc_tensor *const *c, int n, tfc_status *s) {
  tfc_strbuf have, want;
  tfc_strbuf_init(&have);
  tfc_strbuf_init(&want);
  tfc_strbuf_puts(&have, "resource");
  for (int i = 0; i < n; i++) tfc_strbuf_printf(&have, ", %s", tfc_dtype_name(c[i]->dtype));
  tfc_strbuf_puts(&want, "resource");
  for (int i = 0; i < q->n_comp; i++) tfc_strbuf_printf(&want, ", %s", tfc_dtype_name(q->dtypes[i]));
  tfc_status_set(s, TFC_INVALID_ARGUMENT, "Signature mismatch, have: %s-> expected: %s->", tfc_strbuf_str(&have),
                 tfc_strbuf_str(&want));
  tfc_strbuf_fini(&have);
  tfc_strbuf_fini(&want);
  return s->code;
}

/* Whether an element's shape fits the queue's: equal, or for a padding queue compatible
 * (unknown dims match any size). */
static int shape_matches(const tfc_queue *q, const tfc_shape *got, const tfc_shape *want) {
  return q->type == TFC_QUEUE_PADDING_FIFO ? tfc_shape_compatible(got, want) : tfc_shape_equal(got, want);
}

/* TF's ValidateTuple / ValidateManyTuple; *batch gets the batch size (1 for one element). */
static int validate(tfc_queue *q, tfc_tensor *const *c, int n, int many, int64_t *batch, tfc_status *s) {
  if (n != q->n_comp) return signature_mismatch(q, c, n, s);
  for (int i = 0; i < n; i++)
    if (c[i]->dtype != q->dtypes[i]) return signature_mismatch(q, c, n, s);
  char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
  if (!many) {
    *batch = 1;
    for (int i = 0; q->has_shapes && i < n; i++) {
      tfc_shape got = tfc_tensor_shape(c[i]);
      if (!shape_matches(q, &got, &q->shapes[i]))
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape mismatch in tuple component %d. Expected %s, got %s", i,
                              tfc_shape_str(&q->shapes[i], a, sizeof a), tfc_shape_str(&got, b, sizeof b));
    }
    return TFC_OK;
  }
  /* TF reads dimension 0 without checking the rank (and crashes); tfc reports it. */
  for (int i = 0; i < n; i++)
    if (c[i]->ndims < 1) {
      tfc_shape got = tfc_tensor_shape(c[i]);
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "EnqueueMany requires components of rank at least 1; component %d has shape %s", i,
                            tfc_shape_str(&got, a, sizeof a));
    }
  *batch = c[0]->dims[0];
  for (int i = 0; i < n; i++) {
    tfc_shape got = tfc_tensor_shape(c[i]);
    if (q->has_shapes) {
      tfc_shape want = q->shapes[i];
      if (want.rank + 1 > TFC_MAX_DIMS)
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape mismatch in tuple component %d: rank too large", i);
      memmove(want.dims + 1, want.dims, sizeof want.dims[0] * (size_t)want.rank);
      want.dims[0] = *batch;
      want.rank++;
      if (!shape_matches(q, &got, &want))
        return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape mismatch in tuple component %d. Expected %s, got %s", i,
                              tfc_shape_str(&want, a, sizeof a), tfc_shape_str(&got, b, sizeof b));
    } else if (i > 0 && c[i]->dims[0] != *batch) {
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "All input tensors must have the same size in the 0th dimension. Component %d has %lld, and "
                            "should have %lld",
                            i, (long long)c[i]->dims[0], (long long)*batch);
    }
  }
  return TFC_OK;
}

/* Row `row` of t (dimension 0 dropped) as a new tensor. */
static tfc_tensor *slice_row(const tfc_tensor *t, int64_t row, tfc_status *s) {
  tfc_tensor *o = tfc_tensor_new(t->dtype, t->dims + 1, t->ndims - 1, s);
  if (!o) return NULL;
  int64_t per = o->n_elems;
  if (t->dtype == TFC_DT_STRING) {
    const tfc_tstring *src = tfc_tensor_strings(t) + row * per;
    tfc_tstring *dst = tfc_tensor_strings(o);
    for (int64_t k = 0; k < per; k++)
      if (tfc_tstring_assign(&dst[k], src[k].data, src[k].len, s)) {
        tfc_tensor_unref(o);
        return NULL;
      }
  } else if (o->n_bytes) {
    memcpy(o->data, (const char *)t->data + (size_t)row * o->n_bytes, o->n_bytes);
  }
  return o;
}

/* The batch's elements, built before taking the lock (copies for EnqueueMany). */
static tfc_tensor **make_elements(tfc_queue *q, tfc_tensor *const *c, int many, int64_t batch, tfc_status *s) {
  tfc_tensor **e = calloc((size_t)(batch * q->n_comp) + 1, sizeof *e);
  if (!e) {
    TFC_OOM(s);
    return NULL;
  }
  for (int64_t r = 0; r < batch; r++)
    for (int i = 0; i < q->n_comp; i++) {
      e[r * q->n_comp + i] = many ? slice_row(c[i], r, s) : tfc_tensor_ref(c[i]);
      if (!e[r * q->n_comp + i]) {
        for (int64_t k = 0; k < batch * q->n_comp; k++) tfc_tensor_unref(e[k]);
        free(e);
        return NULL;
      }
    }
  return e;
}

int tfc_queue_enqueue(tfc_queue *q, tfc_tensor *const *components, int n, int many, tfc_queue_cancel *cx,
                      tfc_status *s) {
  int64_t batch = 0;
  TFC_TRY(validate(q, components, n, many, &batch, s));
  tfc_tensor **elems = make_elements(q, components, many, batch, s);
  if (!elems) return s->code;
  int64_t done = 0;
  waiter w = {0};
  pthread_mutex_lock(&q->mu);
  if (q->closed) {
    tfc_status_set(s, TFC_CANCELLED, "%s '%s' is closed.", kind_name(q), q->name);
  } else {
    wlist_push(&q->enq, &w);
    while (done < batch) {
      if (w.cancelled || stop_reason(q, cx)) {
        tfc_status_set(s, TFC_CANCELLED, "Enqueue operation was cancelled");
        break;
      }
      if (q->enq.head == &w) {
        int64_t room = q->capacity < 0 ? batch - done : q->capacity - q->size;
        if (room > batch - done) room = batch - done;
        if (room > 0) {
          if (ring_reserve(q, room, s)) break;
          for (int64_t k = 0; k < room; k++, done++) push_back(q, elems + done * q->n_comp);
          pthread_cond_broadcast(&q->cv);
          continue;
        }
      }
      wait_once(q, cx, NULL);
    }
    wlist_remove(&q->enq, &w);
    pthread_cond_broadcast(&q->cv); /* the next enqueuer may go */
  }
  pthread_mutex_unlock(&q->mu);
  for (int64_t k = done * q->n_comp; k < batch * q->n_comp; k++) tfc_tensor_unref(elems[k]);
  free(elems);
  return s->code;
}

/* ---------------- dequeue ---------------- */

/* Copies element e into the padded slot `r` of t ([k] + padded dims, zero-filled): e's
 * innermost rows one at a time, each to its place under t's strides. */
static int copy_padded(tfc_tensor *t, int64_t r, const tfc_tensor *e, tfc_status *s) {
  int rank = e->ndims;
  size_t esize = t->dtype == TFC_DT_STRING ? 0 : tfc_dtype_size(t->dtype);
  int64_t inner = rank ? e->dims[rank - 1] : 1;
  int64_t outer = inner ? e->n_elems / inner : 0;
  int64_t idx[TFC_MAX_DIMS] = {0};
  for (int64_t o = 0; o < outer; o++) {
    /* the destination offset of (r, idx[0..rank-2], 0) */
    int64_t off = r;
    for (int d = 0; d < rank; d++) off = off * t->dims[d + 1] + (d < rank - 1 ? idx[d] : 0);
    int64_t src = o * inner;
    if (t->dtype == TFC_DT_STRING) {
      for (int64_t j = 0; j < inner; j++)
        TFC_TRY(tfc_tstring_assign(&tfc_tensor_strings(t)[off + j], tfc_tensor_strings(e)[src + j].data,
                                   tfc_tensor_strings(e)[src + j].len, s));
    } else if (inner) {
      memcpy((char *)t->data + (size_t)off * esize, (const char *)e->data + (size_t)src * esize, (size_t)inner * esize);
    }
    for (int d = rank - 2; d >= 0; d--) { /* next outer index */
      if (++idx[d] < e->dims[d]) break;
      idx[d] = 0;
    }
  }
  return TFC_OK;
}

/* A padding queue's DequeueMany: each component padded to the largest size of each of its
 * dimensions among the k elements (zeros, empty strings). */
static int stack_padded(tfc_queue *q, tfc_tensor **taken, int64_t k, tfc_tensor **out, tfc_status *s) {
  for (int c = 0; c < q->n_comp; c++) {
    const tfc_shape *sh = &q->shapes[c];
    int64_t dims[TFC_MAX_DIMS];
    dims[0] = k;
    for (int d = 0; d < sh->rank; d++) dims[d + 1] = sh->dims[d] >= 0 ? sh->dims[d] : 0;
    for (int64_t r = 0; r < k; r++) {
      const tfc_tensor *e = taken[r * q->n_comp + c];
      for (int d = 0; d < sh->rank; d++)
        if (e->dims[d] > dims[d + 1]) dims[d + 1] = e->dims[d];
    }
    tfc_tensor *t = tfc_tensor_new(q->dtypes[c], dims, sh->rank + 1, s);
    if (!t) return s->code;
    out[c] = t;
    if (t->dtype != TFC_DT_STRING && t->n_bytes) memset(t->data, 0, t->n_bytes);
    for (int64_t r = 0; r < k; r++) TFC_TRY(copy_padded(t, r, taken[r * q->n_comp + c], s));
  }
  return TFC_OK;
}

/* Stacks taken[0..k) (elements) into out[c] = [k] + shape[c]. */
static int stack(tfc_queue *q, tfc_tensor **taken, int64_t k, tfc_tensor **out, tfc_status *s) {
  if (q->type == TFC_QUEUE_PADDING_FIFO) return stack_padded(q, taken, k, out, s);
  for (int c = 0; c < q->n_comp; c++) {
    int64_t dims[TFC_MAX_DIMS];
    dims[0] = k;
    const tfc_shape *sh = &q->shapes[c];
    for (int d = 0; d < sh->rank; d++) dims[d + 1] = sh->dims[d];
    tfc_tensor *t = tfc_tensor_new(q->dtypes[c], dims, sh->rank + 1, s);
    if (!t) return s->code;
    out[c] = t;
    size_t row = t->n_elems && k ? t->n_bytes / (size_t)k : 0;
    int64_t per = k ? t->n_elems / k : 0;
    for (int64_t r = 0; r < k; r++) {
      const tfc_tensor *e = taken[r * q->n_comp + c];
      if (t->dtype == TFC_DT_STRING) {
        for (int64_t j = 0; j < per; j++)
          TFC_TRY(tfc_tstring_assign(&tfc_tensor_strings(t)[r * per + j], tfc_tensor_strings(e)[j].data,
                                     tfc_tensor_strings(e)[j].len, s));
      } else if (row) {
        memcpy((char *)t->data + (size_t)r * row, e->data, row);
      }
    }
  }
  return TFC_OK;
}

int tfc_queue_dequeue(tfc_queue *q, int64_t n, int allow_small, tfc_queue_cancel *cx, tfc_tensor **out,
                      tfc_status *s) {
  for (int c = 0; c < q->n_comp; c++) out[c] = NULL;
  int many = n >= 0;
  if (many && !q->has_shapes)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "%s's DequeueMany and DequeueUpTo require the components to have specified shapes.", kind_name(q));
  int64_t want = many ? n : 1;
  tfc_tensor **taken = calloc((size_t)(want * q->n_comp) + 1, sizeof *taken);
  if (!taken) return TFC_OOM(s);
  int64_t got = 0, waited = 0;
  waiter w = {0};
  pthread_mutex_lock(&q->mu);
  wlist_push(&q->deq, &w);
  int failed = 0;
  while (got < want) {
    if (stop_reason(q, cx)) {
      tfc_status_set(s, TFC_CANCELLED, "Dequeue operation was cancelled");
      failed = 1;
      break;
    }
    if (q->deq.head == &w) {
      int64_t avail = q->size - (q->closed ? 0 : q->min_after_dequeue);
      /* Closed with too few for a full batch: fail without taking more (TF's check). */
      if (q->closed && !allow_small && q->size < want - got) avail = 0;
      if (avail > 0) {
        for (; avail > 0 && got < want; avail--, got++) take_one(q, taken + got * q->n_comp);
        pthread_cond_broadcast(&q->cv); /* room for enqueuers */
        continue;
      }
      if (q->closed) {
        if (allow_small && got > 0) break;
        tfc_status_set(s, TFC_OUT_OF_RANGE, "%s '%s' is closed and has insufficient elements (requested %lld, current size %lld)",
                       kind_name(q), q->name, (long long)(want - got), (long long)q->size);
        failed = 1;
        break;
      }
    }
    wait_once(q, cx, &waited);
  }
  if (failed && got > 0) {
    /* Put back what was taken, in order, so the queue is as it was. */
    if (ring_reserve(q, got, s) == TFC_OK)
      for (int64_t k = got; k-- > 0;) push_front(q, taken + k * q->n_comp);
    else
      for (int64_t k = 0; k < got * q->n_comp; k++) tfc_tensor_unref(taken[k]);
    got = 0;
    pthread_cond_broadcast(&q->cv);
  }
  wlist_remove(&q->deq, &w);
  q->deq_wait_us += waited;
  pthread_cond_broadcast(&q->cv); /* the next dequeuer may go */
  pthread_mutex_unlock(&q->mu);
  if (!failed) {
    if (!many)
      for (int c = 0; c < q->n_comp; c++) {
        out[c] = taken[c];
        taken[c] = NULL;
      }
    else if (stack(q, taken, got, out, s))
      for (int c = 0; c < q->n_comp; c++) {
        tfc_tensor_unref(out[c]);
        out[c] = NULL;
      }
  }
  for (int64_t k = 0; k < got * q->n_comp; k++) tfc_tensor_unref(taken[k]);
  free(taken);
  return s->code;
}

/* ---------------- close, size ---------------- */

int tfc_queue_close(tfc_queue *q, int cancel_pending_enqueues, tfc_status *s) {
  pthread_mutex_lock(&q->mu);
  if (q->closed && (q->cancelled_enqueues || !cancel_pending_enqueues)) {
    pthread_mutex_unlock(&q->mu);
    return tfc_status_set(s, TFC_CANCELLED, "Queue '%s' is already closed.", q->name);
  }
  q->closed = 1;
  if (cancel_pending_enqueues) {
    q->cancelled_enqueues = 1;
    for (waiter *w = q->enq.head; w; w = w->next) w->cancelled = 1;
  }
  pthread_cond_broadcast(&q->cv);
  pthread_mutex_unlock(&q->mu);
  return TFC_OK;
}

int64_t tfc_queue_size(tfc_queue *q) {
  pthread_mutex_lock(&q->mu);
  int64_t n = q->size;
  pthread_mutex_unlock(&q->mu);
  return n;
}

int tfc_queue_is_closed(tfc_queue *q) {
  pthread_mutex_lock(&q->mu);
  int c = q->closed;
  pthread_mutex_unlock(&q->mu);
  return c;
}

int64_t tfc_queue_dequeue_wait_us(tfc_queue *q) {
  pthread_mutex_lock(&q->mu);
  int64_t t = q->deq_wait_us;
  pthread_mutex_unlock(&q->mu);
  return t;
}

int tfc_queue_n_components(const tfc_queue *q) { return q->n_comp; }
int tfc_queue_dtype(const tfc_queue *q, int i) { return i >= 0 && i < q->n_comp ? q->dtypes[i] : 0; }
