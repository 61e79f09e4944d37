/*
 * rendezvous — the local rendezvous; see rendezvous.h for the contract.
 *
 * One item per key, found through the string hash map (src/base/hashmap.h). Because each key
 * is sent once and received once per step, an item never goes away while the rendezvous
 * lives: it moves EMPTY -> SENT -> DONE (tensor first) or EMPTY -> WAITING -> DONE (receiver
 * first), and the DONE tombstone is what turns a second send or receive of the key into an
 * error. A blocking receive that times out withdraws its wait (back to EMPTY). Memory is
 * bounded by the keys of one step, and the map needs no delete.
 *
 * Waiting receivers are also on a list in arrival order, for abort (all of them are called)
 * and for tfc_rendezvous_pending (keys listed in the order their receivers started waiting).
 *
 * One mutex guards the table, the list and the status. Callbacks run after it is released:
 * a callback may send, receive or abort on this rendezvous. `aborted` mirrors "status is an
 * error" so executors can poll it per node without the lock; the status itself never changes
 * once set, so after observing the flag it may be read without the lock.
 */
#include "rendezvous/rendezvous.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/hashmap.h"

enum { RV_EMPTY, RV_SENT, RV_WAITING, RV_DONE };

typedef struct rv_item {
  int state;
  tfc_tensor *tensor; /* SENT: the rendezvous's reference */
  int is_dead;
  tfc_recv_done done; /* WAITING */
  void *arg;
  struct rv_item *prev, *next; /* WAITING: the waiter list */
  char key[];
} rv_item;

struct tfc_rendezvous {
  atomic_int refs;
  atomic_int aborted;
  pthread_mutex_t mu;
  pthread_cond_t cv; /* blocking receivers (monotonic clock) */
  tfc_status status;
  tfc_hashmap items; /* key -> rv_item */
  rv_item *wait_head, *wait_tail;
  /* Remote receives (set once before sharing; read without the lock). */
  char *local_prefix;
  size_t local_prefix_len;
  tfc_rendezvous_hold_fn hold;
  tfc_rendezvous_fetch_fn fetch;
  tfc_rendezvous_abort_fn on_abort;
  void *remote_arg;
};

tfc_rendezvous *tfc_rendezvous_new(void) {
  tfc_rendezvous *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  atomic_init(&r->refs, 1);
  atomic_init(&r->aborted, 0);
  pthread_mutex_init(&r->mu, NULL);
  tfc_cond_init_monotonic(&r->cv);
  tfc_status_init(&r->status);
  tfc_hashmap_init(&r->items);
  return r;
}

tfc_rendezvous *tfc_rendezvous_ref(tfc_rendezvous *r) {
  atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
  return r;
}

void tfc_rendezvous_unref(tfc_rendezvous *r) {
  if (!r || atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) != 1) return;
  /* Receivers still waiting hear about it, as TF's "LocalRendezvousImpl deleted". */
  if (r->wait_head) {
    tfc_status s;
    tfc_status_init(&s);
    tfc_status_set(&s, TFC_CANCELLED, "Rendezvous deleted with receivers waiting");
    tfc_rendezvous_abort(r, &s);
    tfc_status_fini(&s);
  }
  for (size_t i = 0; i < r->items.cap; i++) {
    rv_item *it = r->items.slots[i].key ? r->items.slots[i].value : NULL;
    if (!it) continue;
    tfc_tensor_unref(it->tensor);
    free(it);
  }
  tfc_hashmap_fini(&r->items);
  free(r->local_prefix);
  tfc_status_fini(&r->status);
  pthread_cond_destroy(&r->cv);
  pthread_mutex_destroy(&r->mu);
  free(r);
}

char *tfc_rendezvous_key(const char *send_device, uint64_t send_device_incarnation,
                         const char *recv_device, const char *tensor_name, uint64_t frame_id,
                         int64_t iter_id) {
  char *k;
  /* strings::Uint64ToHexString: always 16 lowercase digits, zero-padded. */
  if (asprintf(&k, "%s;%016llx;%s;%s;%llu:%lld", send_device, (unsigned long long)send_device_incarnation,
               recv_device, tensor_name, (unsigned long long)frame_id, (long long)iter_id) < 0)
    return NULL;
  return k;
}

/* The item of key, created EMPTY when absent. NULL on out of memory. Lock held. */
static rv_item *item_get(tfc_rendezvous *r, const char *key) {
  rv_item *it = tfc_hashmap_get(&r->items, key);
  if (it) return it;
  size_t n = strlen(key);
  it = calloc(1, sizeof *it + n + 1);
  if (!it) return NULL;
  memcpy(it->key, key, n + 1);
  if (tfc_hashmap_put(&r->items, it->key, it)) {
    free(it);
    return NULL;
  }
  return it;
}

static void waiter_unlink(tfc_rendezvous *r, rv_item *it) {
  if (it->prev) it->prev->next = it->next; else r->wait_head = it->next;
  if (it->next) it->next->prev = it->prev; else r->wait_tail = it->prev;
  it->prev = it->next = NULL;
}

/* Copies the abort status (lock held, or the flag observed set). */
static int copy_abort(tfc_rendezvous *r, tfc_status *s) {
  return tfc_status_set(s, r->status.code, "%s", tfc_status_msg(&r->status));
}

int tfc_rendezvous_send(tfc_rendezvous *r, const char *key, tfc_tensor *t, int is_dead, tfc_status *s) {
  pthread_mutex_lock(&r->mu);
  if (!tfc_status_ok(&r->status)) {
    int code = copy_abort(r, s);
    pthread_mutex_unlock(&r->mu);
    return code;
  }
  rv_item *it = item_get(r, key);
  if (!it || it->state == RV_SENT || it->state == RV_DONE) {
    pthread_mutex_unlock(&r->mu);
    if (!it) return TFC_OOM(s);
    return tfc_status_set(s, TFC_INTERNAL, "Send of an already sent tensor: %s", key);
  }
  if (it->state == RV_EMPTY) {
    it->state = RV_SENT;
    it->tensor = tfc_tensor_ref(t);
    it->is_dead = is_dead;
    pthread_mutex_unlock(&r->mu);
    return TFC_OK;
  }
  /* A receiver is waiting: hand the tensor over outside the lock. */
  tfc_recv_done done = it->done;
  void *arg = it->arg;
  it->state = RV_DONE;
  it->done = NULL;
  waiter_unlink(r, it);
  pthread_mutex_unlock(&r->mu);
  tfc_status ok;
  tfc_status_init(&ok);
  done(arg, &ok, tfc_tensor_ref(t), is_dead);
  return TFC_OK;
}

int tfc_rendezvous_set_remote(tfc_rendezvous *r, const char *local_prefix, tfc_rendezvous_hold_fn hold,
                              tfc_rendezvous_fetch_fn fetch, tfc_rendezvous_abort_fn on_abort, void *arg) {
  r->local_prefix = strdup(local_prefix);
  if (!r->local_prefix) return -1;
  r->local_prefix_len = strlen(local_prefix);
  r->hold = hold;
  r->fetch = fetch;
  r->on_abort = on_abort;
  r->remote_arg = arg;
  return 0;
}

/* A key's send device is its text up to the first ';'. Keys without one are not transfers
 * (a blocked queue op watches the step under a name of its own) and stay local. */
static int is_remote_key(const tfc_rendezvous *r, const char *key) {
  if (!r->fetch) return 0;
  const char *semi = strchr(key, ';');
  if (!semi) return 0;
  size_t dev_len = (size_t)(semi - key);
  return dev_len < r->local_prefix_len || memcmp(key, r->local_prefix, r->local_prefix_len) != 0;
}

void tfc_rendezvous_recv_async(tfc_rendezvous *r, const char *key, tfc_recv_done done, void *arg) {
  tfc_status s;
  tfc_status_init(&s);
  pthread_mutex_lock(&r->mu);
  rv_item *it = tfc_status_ok(&r->status) ? item_get(r, key) : NULL;
  if (!tfc_status_ok(&r->status)) {
    copy_abort(r, &s);
  } else if (!it) {
    TFC_OOM(&s);
  } else if (it->state == RV_EMPTY) {
    it->state = RV_WAITING;
    it->done = done;
    it->arg = arg;
    it->prev = r->wait_tail;
    if (r->wait_tail) r->wait_tail->next = it; else r->wait_head = it;
    r->wait_tail = it;
    /* A tensor from another task: ask for it; it arrives as a send of this key. Once the lock
     * is released the waiter may complete on another thread and the receiver let go of r, so
     * the fetch's arg (which keeps r) is held first, and nothing here reads r after. */
    int remote = is_remote_key(r, key);
    void *farg = r->remote_arg;
    if (remote && r->hold) r->hold(farg);
    tfc_rendezvous_fetch_fn fetch = r->fetch;
    pthread_mutex_unlock(&r->mu);
    if (remote) fetch(farg, r, key);
    return;
  } else if (it->state == RV_SENT) {
    tfc_tensor *t = it->tensor;
    int is_dead = it->is_dead;
    it->tensor = NULL;
    it->state = RV_DONE;
    pthread_mutex_unlock(&r->mu);
    done(arg, &s, t, is_dead); /* our reference goes to the receiver */
    return;
  } else {
    tfc_status_set(&s, TFC_INTERNAL, "Recv of an already received tensor: %s", key);
  }
  pthread_mutex_unlock(&r->mu);
  done(arg, &s, NULL, 0);
  tfc_status_fini(&s);
}

/* ---- blocking receive: a recv_async whose callback signals r->cv ---- */

typedef struct sync_recv {
  tfc_rendezvous *r;
  int finished; /* guarded by r->mu */
  tfc_status status;
  tfc_tensor *tensor;
} sync_recv;

static void sync_recv_done(void *arg, const tfc_status *s, tfc_tensor *t, int is_dead) {
  sync_recv *w = arg;
  pthread_mutex_lock(&w->r->mu);
  if (!tfc_status_ok(s)) tfc_status_set(&w->status, s->code, "%s", tfc_status_msg(s));
  w->tensor = t;
  w->finished = 1;
  pthread_cond_broadcast(&w->r->cv);
  pthread_mutex_unlock(&w->r->mu);
}

int tfc_rendezvous_recv(tfc_rendezvous *r, const char *key, int64_t deadline_us, tfc_tensor **out,
                        tfc_status *s) {
  sync_recv w = {.r = r};
  tfc_status_init(&w.status);
  *out = NULL;
  tfc_rendezvous_recv_async(r, key, sync_recv_done, &w);
  pthread_mutex_lock(&r->mu);
  while (!w.finished) {
    if (tfc_cond_wait_until(&r->cv, &r->mu, deadline_us) != ETIMEDOUT) continue;
    rv_item *it = tfc_hashmap_get(&r->items, key);
    if (it && it->state == RV_WAITING && it->arg == &w && it->done == sync_recv_done) {
      /* Still ours: withdraw, so a later send stores the tensor for a later receive. */
      it->state = RV_EMPTY;
      it->done = NULL;
      waiter_unlink(r, it);
      pthread_mutex_unlock(&r->mu);
      tfc_status_fini(&w.status);
      return tfc_status_set(s, TFC_DEADLINE_EXCEEDED, "Timed out waiting for tensor %s", key);
    }
    deadline_us = 0; /* a sender or abort already took our wait; its callback is on the way */
  }
  pthread_mutex_unlock(&r->mu);
  int code = tfc_status_move(s, &w.status);
  tfc_status_fini(&w.status);
  if (code == TFC_OK) *out = w.tensor;
  return code;
}

void tfc_rendezvous_abort(tfc_rendezvous *r, const tfc_status *s) {
  pthread_mutex_lock(&r->mu);
  if (!tfc_status_ok(&r->status)) {
    pthread_mutex_unlock(&r->mu);
    return;
  }
  tfc_status_set(&r->status, s->code, "%s", tfc_status_msg(s));
  atomic_store_explicit(&r->aborted, 1, memory_order_release);
  /* Sent tensors nobody will take now are released at once (no callbacks involved). */
  for (size_t i = 0; i < r->items.cap; i++) {
    rv_item *it = r->items.slots[i].key ? r->items.slots[i].value : NULL;
    if (it && it->state == RV_SENT) {
      tfc_tensor_unref(it->tensor);
      it->tensor = NULL;
      it->state = RV_DONE;
    }
  }
  rv_item *waiters = r->wait_head;
  r->wait_head = r->wait_tail = NULL;
  for (rv_item *it = waiters; it; it = it->next) it->state = RV_DONE;
  pthread_mutex_unlock(&r->mu);
  if (r->on_abort) r->on_abort(r->remote_arg, &r->status);
  /* The items stay in the table (DONE), so the chain is ours to walk; r->status is frozen. */
  while (waiters) {
    rv_item *it = waiters;
    waiters = it->next;
    tfc_recv_done done = it->done;
    void *arg = it->arg;
    it->done = NULL;
    it->prev = it->next = NULL;
    done(arg, &r->status, NULL, 0);
  }
}

int tfc_rendezvous_aborted(tfc_rendezvous *r) {
  return atomic_load_explicit(&r->aborted, memory_order_acquire);
}

int tfc_rendezvous_status(tfc_rendezvous *r, tfc_status *out) {
  pthread_mutex_lock(&r->mu);
  int code = tfc_status_ok(&r->status) ? TFC_OK : copy_abort(r, out);
  pthread_mutex_unlock(&r->mu);
  return code;
}

void tfc_rendezvous_pending(tfc_rendezvous *r, tfc_strbuf *out) {
  pthread_mutex_lock(&r->mu);
  for (rv_item *it = r->wait_head; it; it = it->next)
    tfc_strbuf_printf(out, "%s%s", it == r->wait_head ? "" : ", ", it->key);
  pthread_mutex_unlock(&r->mu);
}
