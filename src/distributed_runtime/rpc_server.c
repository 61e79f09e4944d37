/*
 * rpc_server — the server half of rpc.h on gRPC core.
 *
 * One completion queue and one thread polling it. The server keeps a few unregistered-call
 * requests (grpc_server_request_call) outstanding; when one matches a call, the thread asks
 * for the request message (RECV_MESSAGE) and at once for the call's end (RECV_CLOSE_ON_SERVER,
 * whose `cancelled` flag is how gRPC says the client went away, the deadline passed or the
 * server cancelled the call). When the message arrives the thread checks its size against
 * max_message_bytes and looks the method up; the handler then runs on a pool thread.
 * Refusals (unknown method, oversized request, pool exhausted) are replied from the
 * completion-queue thread without a handler.
 *
 * A reply is one batch: SEND_INITIAL_METADATA + SEND_MESSAGE (when OK) +
 * SEND_STATUS_FROM_SERVER. A call object is freed when three things are done: the receive
 * batch, the close batch and the reply obligation (the reply batch completing, or the call
 * dropped without a reply when its request never arrived). A reference count under the call's
 * mutex tracks them.
 *
 * Cancellation vs reply. tfc_rpc_call_on_cancel's callback must never run after the reply
 * has begun, and its argument need only live until the reply. So the callback runs with the
 * call marked `cancel_running`; a reply from another thread waits for it to finish, a reply
 * from the callback itself (the same thread) goes ahead. Once `reply_started` is set the
 * callback is never called.
 *
 * Inline methods (tfc_rpc_server_add_inline_method) skip the pool: their handler runs on the
 * completion-queue thread as soon as the request is in. They never block, so a burst of them
 * (thousands of RecvTensor calls) costs no threads and no hand-offs, and a call behind them
 * waits only for their few microseconds each.
 *
 * Handler pool: threads are spawned on demand up to TFC_RPC_MAX_HANDLERS and kept while idle
 * (all but a few retire after a minute without work). Beyond the cap a call is refused with
 * RESOURCE_EXHAUSTED rather than queued: handlers block (a RunStep waits for its step), and
 * a queue behind blocked handlers could wait for the very call it holds back.
 *
 * Shutdown: grpc_server_shutdown_and_notify, then grpc_server_cancel_all_calls (so every
 * blocked handler hears of it through its cancel callback, and every call waiting for an
 * answer — a RecvTensor for its tensor — is answered by its cancel callback), then wait for
 * the notify tag, for every call object to be freed and every handler to return; only then
 * destroy the server and the queue and join the threads. The first half can run alone
 * (tfc_rpc_server_cancel_calls) with a bounded wait after it, so that a caller can cut short
 * what its handlers still wait for (server.c cancels its calls to other tasks).
 *
 * Thread-sanitizer note: gRPC is not instrumented, so what it synchronizes internally may be
 * invisible to TSan. Every object handed across threads through gRPC (a call's fields written
 * before a batch starts and read when it completes) is therefore also fenced by our own
 * mutexes, and completion tags carry no data to read before the fence. Run TSan with
 * ignore_noninstrumented_modules=1 (gRPC's own memcpy/malloc traffic is not ours to check).
 */
#include <errno.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "distributed_runtime/rpc.h"
#include "distributed_runtime/rpc_int.h"

/* The most handler threads at once: each may block on a tensor or a step; 512 is far beyond
 * a cluster's useful concurrency yet bounded in memory (512 default stacks of 8 MiB are
 * virtual, not resident). */
#define TFC_RPC_MAX_HANDLERS 512
/* Idle handler threads kept beyond a minute without work. */
#define KEEP_IDLE 4
#define IDLE_RETIRE_US (60 * 1000000LL)
/* Unregistered-call requests kept outstanding: enough that a burst of new calls does not wait
 * for the completion-queue thread to re-arm one request per call. */
#define N_REQUESTS 8

enum tag_kind { TAG_NEW = 1, TAG_RECV, TAG_CLOSE, TAG_REPLY, TAG_SHUTDOWN };

/* A completion tag is its object's address (a call, or the server for TAG_SHUTDOWN) with the
 * event's kind in the low bits, free in any malloc'd address: decoding one reads no memory,
 * so the completion thread touches an object only after taking its mutex. */
#define TAG_BITS ((uintptr_t)7)
_Static_assert(_Alignof(max_align_t) > TAG_BITS, "malloc'd objects leave the tag bits free");

static void *make_tag(void *owner, enum tag_kind kind) { return (void *)((uintptr_t)owner | (uintptr_t)kind); }

typedef struct method_entry {
  char *name;
  tfc_rpc_handler fn;
  void *arg;
  int run_inline; /* runs on the completion-queue thread (tfc_rpc_server_add_inline_method) */
} method_entry;

typedef struct worker {
  pthread_t tid;
  tfc_rpc_server *srv;
  int done; /* returned; waiting to be joined (under srv->mu) */
  struct worker *next;
} worker;

enum { SRV_NEW, SRV_STARTED, SRV_STOPPED };

struct tfc_rpc_server {
  char *address;
  int64_t max_bytes;
  int n_methods;
  method_entry *methods;

  grpc_server *server;
  grpc_completion_queue *cq;
  pthread_t cq_thread;

  pthread_mutex_t stop_mu; /* serializes start and shutdown */
  pthread_mutex_t mu;      /* everything below */
  pthread_cond_t cv;       /* state changes that shutdown waits for */
  pthread_cond_t work_cv;  /* a call was queued, or the pool stops */
  int state;
  int stopping;    /* shutdown began: do not request more calls */
  int cancelled;   /* the server's shutdown and cancel_all_calls were issued */
  int notified;    /* the shutdown tag came back */
  int n_calls;     /* call objects alive (requests outstanding included) */
  int n_active;    /* of them, calls that arrived (tfc_rpc_server_load) */
  /* handler pool. Invariant: n_idle >= n_queued, i.e. every queued call has an
   * idle thread of its own that will take it. */
  tfc_rpc_call *queue_head, *queue_tail;
  int n_queued, n_threads, n_idle, n_busy;
  int pool_stop;
  worker *workers;
};

struct tfc_rpc_call {
  tfc_rpc_server *srv;
  grpc_call *call;
  grpc_call_details details;
  grpc_metadata_array request_md;
  grpc_byte_buffer *request_bb;
  int close_cancelled; /* written by gRPC when RECV_CLOSE_ON_SERVER completes */

  char *method, *peer;
  int64_t deadline_us;
  int active; /* counted in srv->n_active */
  const method_entry *entry;
  tfc_msg_in *request;
  tfc_rpc_call *next; /* pool queue */

  /* reply batch storage (lives until the batch completes) */
  grpc_byte_buffer *reply_bb;
  grpc_slice reply_details;

  pthread_mutex_t mu; /* everything below, and a fence for fields handed over via gRPC */
  pthread_cond_t cv;
  int refs;
  int closed, cancelled, reply_started, cancel_running;
  pthread_t cancel_thread;
  void (*on_cancel)(void *);
  void *on_cancel_arg;
};

/* ---------------- call objects ---------------- */

static tfc_rpc_call *call_new(tfc_rpc_server *srv) {
  tfc_rpc_call *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->srv = srv;
  grpc_call_details_init(&c->details);
  grpc_metadata_array_init(&c->request_md);
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->cv, NULL);
  pthread_mutex_lock(&srv->mu);
  srv->n_calls++;
  pthread_mutex_unlock(&srv->mu);
  return c;
}

static void call_free(tfc_rpc_call *c) {
  tfc_rpc_server *srv = c->srv;
  if (c->call) grpc_call_unref(c->call);
  grpc_call_details_destroy(&c->details);
  grpc_metadata_array_destroy(&c->request_md);
  if (c->request_bb) grpc_byte_buffer_destroy(c->request_bb);
  tfc_msg_in_free(c->request);
  free(c->method);
  if (c->peer) gpr_free(c->peer);
  pthread_mutex_destroy(&c->mu);
  pthread_cond_destroy(&c->cv);
  int active = c->active;
  free(c);
  pthread_mutex_lock(&srv->mu);
  srv->n_active -= active;
  if (--srv->n_calls == 0) pthread_cond_broadcast(&srv->cv);
  pthread_mutex_unlock(&srv->mu);
}

static void call_unref(tfc_rpc_call *c) {
  pthread_mutex_lock(&c->mu);
  int last = --c->refs == 0;
  pthread_mutex_unlock(&c->mu);
  if (last) call_free(c);
}

/* ---------------- replies ---------------- */

/* Starts the reply batch; the call's reply reference is dropped when it completes. `resp` is
 * taken. Callers have set reply_started. */
static void send_reply(tfc_rpc_call *c, int code, const char *msg, tfc_msg_out *resp) {
  tfc_status st;
  tfc_status_init(&st);
  if (code == TFC_OK) {
    if (resp && tfc_msg_out_status(resp, &st) == TFC_OK && (int64_t)resp->len > c->srv->max_bytes)
      tfc_status_set(&st, TFC_INVALID_ARGUMENT, "%s: response of %zu bytes exceeds the limit of %lld bytes",
                     c->method, resp->len, (long long)c->srv->max_bytes);
    if (st.code != TFC_OK) {
      code = st.code;
      msg = st.msg;
    }
  }
  grpc_byte_buffer *bb = NULL;
  if (code == TFC_OK) {
    tfc_msg_out empty = {0};
    bb = tfc_rpc_bb_from_msg(resp ? resp : &empty);
    if (!bb) {
      code = TFC_RESOURCE_EXHAUSTED;
      msg = "out of memory sending an RPC response";
    }
  }
  tfc_msg_out_free(resp);

  grpc_op ops[3];
  memset(ops, 0, sizeof ops);
  size_t n = 0;
  ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
  if (bb) {
    ops[n].op = GRPC_OP_SEND_MESSAGE;
    ops[n++].data.send_message.send_message = bb;
  }
  pthread_mutex_lock(&c->mu);
  c->reply_bb = bb;
  c->reply_details = grpc_slice_from_copied_string(code == TFC_OK || !msg ? "" : msg);
  ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
  ops[n].data.send_status_from_server.status = tfc_rpc_to_grpc_code(code);
  ops[n++].data.send_status_from_server.status_details = &c->reply_details;
  grpc_call_error err = grpc_call_start_batch(c->call, ops, n, make_tag(c, TAG_REPLY), NULL);
  pthread_mutex_unlock(&c->mu);
  tfc_status_fini(&st);
  if (err != GRPC_CALL_OK) {
    /* Only a bug in this file can get here (a second reply); nothing was queued. */
    if (bb) grpc_byte_buffer_destroy(bb);
    grpc_slice_unref(c->reply_details);
    c->reply_bb = NULL;
    call_unref(c);
  }
}

static void reply_error(tfc_rpc_call *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void reply_error(tfc_rpc_call *c, int code, const char *fmt, ...) {
  tfc_status st;
  tfc_status_init(&st);
  va_list ap;
  va_start(ap, fmt);
  tfc_status_setv(&st, code, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&c->mu);
  c->reply_started = 1;
  pthread_mutex_unlock(&c->mu);
  send_reply(c, st.code, tfc_status_msg(&st), NULL);
  tfc_status_fini(&st);
}

void tfc_rpc_reply(tfc_rpc_call *c, const tfc_status *st, tfc_msg_out *response) {
  pthread_mutex_lock(&c->mu);
  /* A cancel callback running on another thread finishes first (its argument may die with
   * the reply); one running on this thread is replying from inside itself. */
  while (c->cancel_running && !pthread_equal(c->cancel_thread, pthread_self())) pthread_cond_wait(&c->cv, &c->mu);
  c->reply_started = 1;
  pthread_mutex_unlock(&c->mu);
  int code = st ? st->code : TFC_OK;
  if (code != TFC_OK) {
    tfc_msg_out_free(response);
    response = NULL;
  }
  send_reply(c, code, st ? tfc_status_msg(st) : "", response);
}

int64_t tfc_rpc_call_deadline_us(const tfc_rpc_call *c) { return c->deadline_us; }
const char *tfc_rpc_call_method(const tfc_rpc_call *c) { return c->method; }
const char *tfc_rpc_call_peer(const tfc_rpc_call *c) { return c->peer ? c->peer : ""; }

int tfc_rpc_call_on_cancel(tfc_rpc_call *c, void (*fn)(void *arg), void *arg) {
  pthread_mutex_lock(&c->mu);
  int already = c->cancelled;
  if (!already) {
    c->on_cancel = fn;
    c->on_cancel_arg = arg;
  }
  pthread_mutex_unlock(&c->mu);
  return already;
}

/* ---------------- handler pool ---------------- */

static void *worker_main(void *p) {
  worker *w = p;
  tfc_rpc_server *srv = w->srv;
  pthread_mutex_lock(&srv->mu);
  for (;;) {
    if (srv->queue_head) {
      tfc_rpc_call *c = srv->queue_head;
      srv->queue_head = c->next;
      if (!srv->queue_head) srv->queue_tail = NULL;
      srv->n_queued--;
      srv->n_idle--;
      srv->n_busy++;
      pthread_mutex_unlock(&srv->mu);

      pthread_mutex_lock(&c->mu); /* pairs with the dispatching thread's writes */
      tfc_msg_in *req = c->request;
      c->request = NULL;
      const method_entry *e = c->entry;
      pthread_mutex_unlock(&c->mu);
      e->fn(e->arg, c, req);

      pthread_mutex_lock(&srv->mu);
      srv->n_busy--;
      srv->n_idle++;
      if (srv->n_busy == 0) pthread_cond_broadcast(&srv->cv);
      continue;
    }
    if (srv->pool_stop) break;
    int rc = tfc_cond_wait_until(&srv->work_cv, &srv->mu, tfc_now_us() + IDLE_RETIRE_US);
    /* Nothing is queued, so no call counts on this thread: it may retire. */
    if (rc == ETIMEDOUT && !srv->queue_head && !srv->pool_stop && srv->n_idle > KEEP_IDLE) break;
  }
  srv->n_idle--;
  srv->n_threads--;
  w->done = 1;
  pthread_cond_broadcast(&srv->cv);
  pthread_mutex_unlock(&srv->mu);
  return NULL;
}

/* Joins the workers that have returned. Called with srv->mu held; drops it while joining. */
static void reap_workers(tfc_rpc_server *srv) {
  for (;;) {
    worker **pp = &srv->workers;
    while (*pp && !(*pp)->done) pp = &(*pp)->next;
    worker *w = *pp;
    if (!w) return;
    *pp = w->next;
    pthread_mutex_unlock(&srv->mu);
    pthread_join(w->tid, NULL);
    free(w);
    pthread_mutex_lock(&srv->mu);
  }
}

/* Hands a call whose request arrived to a handler thread. Returns 0, or -1 when the pool is at
 * its cap or out of resources (the caller refuses the call). */
static int dispatch(tfc_rpc_server *srv, tfc_rpc_call *c) {
  pthread_mutex_lock(&srv->mu);
  reap_workers(srv);
  if (srv->n_idle <= srv->n_queued) {
    if (srv->n_threads >= TFC_RPC_MAX_HANDLERS) {
      pthread_mutex_unlock(&srv->mu);
      return -1;
    }
    worker *w = calloc(1, sizeof *w);
    if (!w) {
      pthread_mutex_unlock(&srv->mu);
      return -1;
    }
    w->srv = srv;
    if (pthread_create(&w->tid, NULL, worker_main, w) != 0) {
      free(w);
      pthread_mutex_unlock(&srv->mu);
      return -1;
    }
    w->next = srv->workers;
    srv->workers = w;
    srv->n_threads++;
    srv->n_idle++; /* idle from birth: it takes a queued call before it ever waits */
  }
  c->next = NULL;
  if (srv->queue_tail)
    srv->queue_tail->next = c;
  else
    srv->queue_head = c;
  srv->queue_tail = c;
  srv->n_queued++;
  pthread_cond_signal(&srv->work_cv);
  pthread_mutex_unlock(&srv->mu);
  return 0;
}

/* ---------------- the completion-queue thread ---------------- */

static void request_call(tfc_rpc_server *srv) {
  tfc_rpc_call *c = call_new(srv);
  if (!c) return; /* out of memory: the other outstanding requests keep serving */
  pthread_mutex_lock(&c->mu);
  grpc_call_error err = grpc_server_request_call(srv->server, &c->call, &c->details, &c->request_md, srv->cq,
                                                  srv->cq, make_tag(c, TAG_NEW));
  pthread_mutex_unlock(&c->mu);
  if (err != GRPC_CALL_OK) call_free(c);
}

static void on_new_call(tfc_rpc_call *c, int ok) {
  tfc_rpc_server *srv = c->srv;
  if (!ok) { /* the server is shutting down */
    call_free(c);
    return;
  }
  pthread_mutex_lock(&srv->mu);
  int stopping = srv->stopping;
  srv->n_active++;
  pthread_mutex_unlock(&srv->mu);
  c->active = 1; /* read by call_free, which runs after the batches below complete */
  if (!stopping) request_call(srv);

  pthread_mutex_lock(&c->mu);
  c->refs = 3; /* receive, close, reply */
  c->method = tfc_rpc_slice_strdup(c->details.method);
  c->peer = grpc_call_get_peer(c->call);
  c->deadline_us = tfc_rpc_deadline_from_gpr(c->details.deadline);
  grpc_op op;
  memset(&op, 0, sizeof op);
  op.op = GRPC_OP_RECV_MESSAGE;
  op.data.recv_message.recv_message = &c->request_bb;
  int recv_failed = grpc_call_start_batch(c->call, &op, 1, make_tag(c, TAG_RECV), NULL) != GRPC_CALL_OK;
  memset(&op, 0, sizeof op);
  op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
  op.data.recv_close_on_server.cancelled = &c->close_cancelled;
  int close_failed = grpc_call_start_batch(c->call, &op, 1, make_tag(c, TAG_CLOSE), NULL) != GRPC_CALL_OK;
  pthread_mutex_unlock(&c->mu);
  if (recv_failed || close_failed) {
    /* Cannot happen with a fresh call. Cancel it: a started receive then fails and drops the
     * reply obligation itself (on_request); otherwise it is dropped here. */
    grpc_call_cancel(c->call, NULL);
    int n = recv_failed ? 2 : 0;
    n += close_failed;
    for (int i = 0; i < n; i++) call_unref(c);
  }
}

static const method_entry *find_method(const tfc_rpc_server *srv, const char *name) {
  for (int i = 0; i < srv->n_methods; i++)
    if (!strcmp(srv->methods[i].name, name)) return &srv->methods[i];
  return NULL;
}

static void on_request(tfc_rpc_call *c, int ok) {
  tfc_rpc_server *srv = c->srv;
  pthread_mutex_lock(&c->mu);
  grpc_byte_buffer *bb = c->request_bb;
  c->request_bb = NULL;
  pthread_mutex_unlock(&c->mu);
  const char *method = c->method ? c->method : "(unknown method)";

  if (!ok || !bb) {
    if (bb) grpc_byte_buffer_destroy(bb);
    if (ok) {
      reply_error(c, TFC_INVALID_ARGUMENT, "%s: the request carried no message", method);
    } else {
      /* The call died before its request arrived: nobody to reply to. */
      grpc_call_cancel(c->call, NULL);
      call_unref(c); /* the reply obligation */
    }
  } else if (!c->method) {
    grpc_byte_buffer_destroy(bb);
    reply_error(c, TFC_RESOURCE_EXHAUSTED, "out of memory receiving an RPC");
  } else {
    size_t len = grpc_byte_buffer_length(bb);
    const method_entry *e = find_method(srv, method);
    if ((int64_t)len > srv->max_bytes) {
      grpc_byte_buffer_destroy(bb);
      reply_error(c, TFC_INVALID_ARGUMENT, "%s: request of %zu bytes exceeds the limit of %lld bytes", method, len,
                  (long long)srv->max_bytes);
    } else if (!e) {
      grpc_byte_buffer_destroy(bb);
      reply_error(c, TFC_UNIMPLEMENTED, "Method not found: %s", method);
    } else {
      tfc_msg_in *in = tfc_rpc_msg_from_bb(bb);
      if (!in) {
        reply_error(c, TFC_RESOURCE_EXHAUSTED, "%s: out of memory receiving the request", method);
      } else if (e->run_inline) {
        e->fn(e->arg, c, in);
      } else {
        pthread_mutex_lock(&c->mu);
        c->request = in;
        c->entry = e;
        pthread_mutex_unlock(&c->mu);
        if (dispatch(srv, c) != 0) {
          pthread_mutex_lock(&c->mu);
          c->request = NULL;
          pthread_mutex_unlock(&c->mu);
          tfc_msg_in_free(in);
          reply_error(c, TFC_RESOURCE_EXHAUSTED,
                      "%s: the server is busy: all %d handler threads are running calls; try again later", method,
                      TFC_RPC_MAX_HANDLERS);
        }
      }
    }
  }
  call_unref(c); /* the receive batch */
}

static void on_close(tfc_rpc_call *c) {
  pthread_mutex_lock(&c->mu);
  c->closed = 1;
  c->cancelled = c->close_cancelled != 0;
  void (*fn)(void *) = NULL;
  void *arg = NULL;
  if (c->cancelled && !c->reply_started && c->on_cancel) {
    fn = c->on_cancel;
    arg = c->on_cancel_arg;
    c->on_cancel = NULL;
    c->cancel_running = 1;
    c->cancel_thread = pthread_self();
  }
  pthread_mutex_unlock(&c->mu);
  if (fn) {
    /* fn may reply (from here or another thread); c stays alive until the close reference
     * is dropped below, whatever the reply does. */
    fn(arg);
    pthread_mutex_lock(&c->mu);
    c->cancel_running = 0;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
  }
  call_unref(c); /* the close batch */
}

static void on_reply_sent(tfc_rpc_call *c) {
  pthread_mutex_lock(&c->mu);
  grpc_byte_buffer *bb = c->reply_bb;
  c->reply_bb = NULL;
  grpc_slice details = c->reply_details;
  pthread_mutex_unlock(&c->mu);
  if (bb) grpc_byte_buffer_destroy(bb);
  grpc_slice_unref(details);
  call_unref(c); /* the reply obligation */
}

static void *cq_main(void *p) {
  tfc_rpc_server *srv = p;
  for (;;) {
    grpc_event ev = grpc_completion_queue_next(srv->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
    if (ev.type == GRPC_QUEUE_SHUTDOWN) break;
    if (ev.type != GRPC_OP_COMPLETE) continue;
    enum tag_kind kind = (enum tag_kind)((uintptr_t)ev.tag & TAG_BITS);
    void *owner = (void *)((uintptr_t)ev.tag & ~TAG_BITS);
    if (kind == TAG_NEW) {
      /* The call was made on another thread (its mutex too): acquire through the server's
       * mutex, which call_new took after initializing it. */
      pthread_mutex_lock(&srv->mu);
      pthread_mutex_unlock(&srv->mu);
    }
    if (kind != TAG_SHUTDOWN) {
      /* Acquire what the thread that started the batch wrote (it held the call's mutex). */
      tfc_rpc_call *c = owner;
      pthread_mutex_lock(&c->mu);
      pthread_mutex_unlock(&c->mu);
    }
    switch (kind) {
    case TAG_NEW: on_new_call(owner, ev.success); break;
    case TAG_RECV: on_request(owner, ev.success); break;
    case TAG_CLOSE: on_close(owner); break;
    case TAG_REPLY: on_reply_sent(owner); break;
    case TAG_SHUTDOWN:
      pthread_mutex_lock(&srv->mu);
      srv->notified = 1;
      pthread_cond_broadcast(&srv->cv);
      pthread_mutex_unlock(&srv->mu);
      break;
    }
  }
  return NULL;
}

/* ---------------- lifecycle ---------------- */

tfc_rpc_server *tfc_rpc_server_new(const char *address, int64_t max_message_bytes, tfc_status *s) {
  if (!address || !*address) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "gRPC server address is empty");
    return NULL;
  }
  tfc_rpc_server *srv = calloc(1, sizeof *srv);
  if (!srv || !(srv->address = strdup(address))) {
    free(srv);
    TFC_OOM(s);
    return NULL;
  }
  srv->max_bytes = max_message_bytes > 0 ? max_message_bytes : TFC_RPC_DEFAULT_MAX_MESSAGE;
  pthread_mutex_init(&srv->stop_mu, NULL);
  pthread_mutex_init(&srv->mu, NULL);
  tfc_cond_init_monotonic(&srv->cv);
  tfc_cond_init_monotonic(&srv->work_cv);
  srv->state = SRV_NEW;
  tfc_rpc_grpc_init();
  return srv;
}

static int add_method(tfc_rpc_server *srv, const char *method, tfc_rpc_handler fn, void *arg, int run_inline,
                      tfc_status *s) {
  pthread_mutex_lock(&srv->stop_mu);
  int code = TFC_OK;
  if (srv->state != SRV_NEW) {
    code = tfc_status_set(s, TFC_FAILED_PRECONDITION, "cannot add method %s: the gRPC server at %s has already started",
                          method ? method : "(null)", srv->address);
  } else if (!method || method[0] != '/' || !fn) {
    code = tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "invalid gRPC method '%s': expected \"/package.Service/Method\" and a handler",
                          method ? method : "(null)");
  } else if (find_method(srv, method)) {
    code = tfc_status_set(s, TFC_ALREADY_EXISTS, "gRPC method %s is already registered", method);
  } else {
    method_entry *m = realloc(srv->methods, sizeof *m * (size_t)(srv->n_methods + 1));
    char *name = m ? strdup(method) : NULL;
    if (m) srv->methods = m;
    if (!name) {
      code = TFC_OOM(s);
    } else {
      srv->methods[srv->n_methods++] = (method_entry){name, fn, arg, run_inline};
    }
  }
  pthread_mutex_unlock(&srv->stop_mu);
  return code;
}

int tfc_rpc_server_add_method(tfc_rpc_server *srv, const char *method, tfc_rpc_handler fn, void *arg,
                              tfc_status *s) {
  return add_method(srv, method, fn, arg, 0, s);
}

int tfc_rpc_server_add_inline_method(tfc_rpc_server *srv, const char *method, tfc_rpc_handler fn, void *arg,
                                     tfc_status *s) {
  return add_method(srv, method, fn, arg, 1, s);
}

/* Tears down a server/queue pair that never served (bind failed): the shutdown tag is drained
 * on this thread, as no completion-queue thread runs yet. */
static void destroy_unstarted(tfc_rpc_server *srv) {
  grpc_server_shutdown_and_notify(srv->server, srv->cq, make_tag(srv, TAG_SHUTDOWN));
  for (;;) {
    grpc_event ev = grpc_completion_queue_next(srv->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
    if (ev.type == GRPC_OP_COMPLETE && ev.tag == make_tag(srv, TAG_SHUTDOWN)) break;
  }
  grpc_server_destroy(srv->server);
  grpc_completion_queue_shutdown(srv->cq);
  while (grpc_completion_queue_next(srv->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type != GRPC_QUEUE_SHUTDOWN) {
  }
  grpc_completion_queue_destroy(srv->cq);
  srv->server = NULL;
  srv->cq = NULL;
}

int tfc_rpc_server_start(tfc_rpc_server *srv, int *out_port, tfc_status *s) {
  pthread_mutex_lock(&srv->stop_mu);
  if (srv->state != SRV_NEW) {
    pthread_mutex_unlock(&srv->stop_mu);
    return tfc_status_set(s, TFC_FAILED_PRECONDITION, "the gRPC server at %s was already %s", srv->address,
                          srv->state == SRV_STARTED ? "started" : "shut down");
  }
  grpc_server_credentials *creds;
  if (tfc_rpc_tls_server_credentials(&creds, s)) {
    pthread_mutex_unlock(&srv->stop_mu);
    return s->code;
  }
  srv->server = grpc_server_create(tfc_rpc_channel_args(1), NULL);
  srv->cq = grpc_completion_queue_create_for_next(NULL);
  grpc_server_register_completion_queue(srv->server, srv->cq, NULL);
  int port = grpc_server_add_http2_port(srv->server, srv->address, creds);
  grpc_server_credentials_release(creds);
  if (port == 0) {
    destroy_unstarted(srv);
    pthread_mutex_unlock(&srv->stop_mu);
    return tfc_status_set(s, TFC_UNKNOWN, "Could not start gRPC server: failed to bind %s", srv->address);
  }
  grpc_server_start(srv->server);
  if (pthread_create(&srv->cq_thread, NULL, cq_main, srv) != 0) {
    destroy_unstarted(srv);
    pthread_mutex_unlock(&srv->stop_mu);
    return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "Could not start gRPC server at %s: cannot create a thread",
                          srv->address);
  }
  pthread_mutex_lock(&srv->mu);
  srv->state = SRV_STARTED;
  pthread_mutex_unlock(&srv->mu);
  for (int i = 0; i < N_REQUESTS; i++) request_call(srv);
  pthread_mutex_unlock(&srv->stop_mu);
  if (out_port) *out_port = port;
  return TFC_OK;
}

/* Stops accepting calls and cancels those in flight, the first time after start. Returns
 * whether the server had started and not yet stopped. Called with stop_mu held. */
static int stop_calls_locked(tfc_rpc_server *srv) {
  pthread_mutex_lock(&srv->mu);
  int started = srv->state == SRV_STARTED;
  int first = started && !srv->stopping;
  srv->stopping = 1;
  if (first) srv->cancelled = 1;
  pthread_mutex_unlock(&srv->mu);
  if (first) {
    grpc_server_shutdown_and_notify(srv->server, srv->cq, make_tag(srv, TAG_SHUTDOWN));
    grpc_server_cancel_all_calls(srv->server);
  }
  return started;
}

/* Every call is over and every handler returned (the queue may go). Called with srv->mu held. */
static int calls_over(const tfc_rpc_server *srv) {
  return srv->notified && srv->n_calls == 0 && srv->n_busy == 0 && !srv->queue_head;
}

void tfc_rpc_server_cancel_calls(tfc_rpc_server *srv) {
  pthread_mutex_lock(&srv->stop_mu);
  stop_calls_locked(srv);
  pthread_mutex_unlock(&srv->stop_mu);
}

int tfc_rpc_server_wait_calls(tfc_rpc_server *srv, int64_t deadline_us) {
  pthread_mutex_lock(&srv->mu);
  int over;
  for (;;) {
    over = !srv->cancelled || calls_over(srv); /* nothing was cancelled: it never started */
    if (over) break;
    if (deadline_us == 0)
      pthread_cond_wait(&srv->cv, &srv->mu);
    else if (tfc_cond_wait_until(&srv->cv, &srv->mu, deadline_us) == ETIMEDOUT)
      break;
  }
  over = over || calls_over(srv);
  pthread_mutex_unlock(&srv->mu);
  return over;
}

void tfc_rpc_server_shutdown(tfc_rpc_server *srv) {
  pthread_mutex_lock(&srv->stop_mu);
  int started = stop_calls_locked(srv);
  pthread_mutex_lock(&srv->mu);
  srv->state = SRV_STOPPED;
  pthread_mutex_unlock(&srv->mu);
  if (!started) {
    pthread_mutex_unlock(&srv->stop_mu);
    return;
  }

  /* Every call ends: cancelled ones tell their handlers (cancel callbacks), whose replies
   * complete at once; then every handler returns. */
  pthread_mutex_lock(&srv->mu);
  while (!calls_over(srv)) pthread_cond_wait(&srv->cv, &srv->mu);
  pthread_mutex_unlock(&srv->mu);

  grpc_server_destroy(srv->server);
  grpc_completion_queue_shutdown(srv->cq);
  pthread_join(srv->cq_thread, NULL);
  grpc_completion_queue_destroy(srv->cq);
  srv->server = NULL;
  srv->cq = NULL;

  pthread_mutex_lock(&srv->mu);
  srv->pool_stop = 1;
  pthread_cond_broadcast(&srv->work_cv);
  while (srv->n_threads > 0) pthread_cond_wait(&srv->cv, &srv->mu);
  reap_workers(srv);
  pthread_mutex_unlock(&srv->mu);
  pthread_mutex_unlock(&srv->stop_mu);
}

void tfc_rpc_server_load(tfc_rpc_server *srv, int *out_calls, int *out_busy) {
  pthread_mutex_lock(&srv->mu);
  if (out_calls) *out_calls = srv->n_active;
  if (out_busy) *out_busy = srv->n_busy;
  pthread_mutex_unlock(&srv->mu);
}

void tfc_rpc_server_free(tfc_rpc_server *srv) {
  if (!srv) return;
  tfc_rpc_server_shutdown(srv);
  for (int i = 0; i < srv->n_methods; i++) free(srv->methods[i].name);
  free(srv->methods);
  free(srv->address);
  pthread_mutex_destroy(&srv->stop_mu);
  pthread_mutex_destroy(&srv->mu);
  pthread_cond_destroy(&srv->cv);
  pthread_cond_destroy(&srv->work_cv);
  free(srv);
  grpc_shutdown();
}
