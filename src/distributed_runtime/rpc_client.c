/*
 * rpc_client — the client half of rpc.h on gRPC core: channels and unary calls.
 *
 * Every call of the process completes on one completion queue polled by one thread, created
 * with the first channel and joined when the last channel is freed (so a process that frees
 * its channels leaves no gRPC thread of ours behind). A call is a single batch:
 * SEND_INITIAL_METADATA + SEND_MESSAGE + SEND_CLOSE_FROM_CLIENT + RECV_INITIAL_METADATA +
 * RECV_MESSAGE + RECV_STATUS_ON_CLIENT; its completion maps the status (gRPC's codes are TF's)
 * and the response, and runs the caller's callback on the completion thread.
 *
 * The pending object is shared by the caller's handle and the completion (a reference count):
 * tfc_rpc_cancel may race with completion, so the grpc_call pointer sits under the pending's
 * mutex and is dropped (grpc_call_unref) by the completion; a cancel after that is a no-op.
 * Each channel keeps its calls in flight on a list so that tfc_rpc_channel_free can cancel
 * them and wait for their callbacks before it destroys the channel.
 *
 * Lock order: channel mutex, then a pending's mutex. The completion thread takes them one at
 * a time. gRPC's internal synchronization is invisible to the thread sanitizer, so fields
 * written before a batch starts and read when it completes are also fenced by the pending's
 * mutex.
 */
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "distributed_runtime/rpc.h"
#include "distributed_runtime/rpc_int.h"

/* gRPC frames a message with a 32-bit length. */
#define GRPC_FRAME_MAX ((int64_t)UINT32_MAX)

struct tfc_rpc_channel {
  char *target;
  int64_t max_bytes;
  grpc_channel *channel;
  grpc_completion_queue *cq; /* the process-wide client queue */
  pthread_mutex_t mu;        /* calls, closing */
  pthread_cond_t cv;         /* the list of calls became empty */
  tfc_rpc_pending *calls;
  int closing;
};

struct tfc_rpc_pending {
  atomic_int refs; /* the caller's handle (if any) + the completion */
  pthread_mutex_t mu;
  grpc_call *call; /* NULL once completed */
  tfc_rpc_channel *ch;
  char *method;
  tfc_rpc_done done;
  void *arg;
  /* batch storage, filled by gRPC */
  grpc_byte_buffer *send_bb, *recv_bb;
  grpc_metadata_array initial_md, trailing_md;
  grpc_status_code status;
  grpc_slice details;
  tfc_rpc_pending *prev, *next; /* the channel's calls (under ch->mu) */
};

/* The process-wide completion queue and its thread, refcounted by channels. */
static struct {
  pthread_mutex_t mu;
  int refs;
  grpc_completion_queue *cq;
  pthread_t thread;
} g_client = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* A pending object (its mutex included) is made on the caller's thread and handed to the
 * completion thread through gRPC. Each call bumps this with release before its batch starts,
 * and the completion thread reads it with acquire after each event, so the thread sanitizer
 * sees the hand-over (gRPC's own synchronization is invisible to it). */
static atomic_uint g_handoff;

/* ---------------- pending calls ---------------- */

static void pending_unref(tfc_rpc_pending *p) {
  if (atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) != 1) return;
  pthread_mutex_destroy(&p->mu);
  free(p->method);
  free(p);
}

static void unlink_call(tfc_rpc_pending *p) {
  tfc_rpc_channel *ch = p->ch;
  pthread_mutex_lock(&ch->mu);
  if (p->prev)
    p->prev->next = p->next;
  else
    ch->calls = p->next;
  if (p->next) p->next->prev = p->prev;
  if (!ch->calls) pthread_cond_broadcast(&ch->cv);
  pthread_mutex_unlock(&ch->mu);
}

/* The message of a failed call: gRPC's details, or something useful when it sent none. */
static void set_call_error(tfc_status *st, const tfc_rpc_pending *p, grpc_status_code code, grpc_slice details) {
  int c = tfc_rpc_from_grpc_code(code);
  if (c == TFC_OK) c = TFC_UNKNOWN;
  if (GRPC_SLICE_LENGTH(details) > 0) {
    char *msg = tfc_rpc_slice_strdup(details);
    if (msg) {
      tfc_status_set(st, c, "%s", msg);
      free(msg);
      return;
    }
  }
  switch (c) {
  case TFC_UNAVAILABLE: tfc_status_set(st, c, "failed to connect to %s", p->ch->target); break;
  case TFC_DEADLINE_EXCEEDED: tfc_status_set(st, c, "Deadline Exceeded"); break;
  case TFC_CANCELLED: tfc_status_set(st, c, "Cancelled"); break;
  default: tfc_status_set(st, c, "%s to %s failed with %s", p->method, p->ch->target, tfc_code_name(c));
  }
}

/* Runs on the completion thread when the call's batch is done. */
static void complete(tfc_rpc_pending *p, int ok) {
  pthread_mutex_lock(&p->mu);
  grpc_byte_buffer *recv_bb = p->recv_bb, *send_bb = p->send_bb;
  p->recv_bb = p->send_bb = NULL;
  grpc_status_code code = p->status;
  grpc_slice details = p->details;
  pthread_mutex_unlock(&p->mu);

  tfc_status st;
  tfc_status_init(&st);
  tfc_msg_in *resp = NULL;
  if (!ok) {
    /* A batch holding RECV_STATUS_ON_CLIENT always succeeds; be explicit if it does not. */
    tfc_status_set(&st, TFC_INTERNAL, "%s to %s: the gRPC batch failed", p->method, p->ch->target);
  } else if (code != GRPC_STATUS_OK) {
    set_call_error(&st, p, code, details);
  } else if (!recv_bb) {
    tfc_status_set(&st, TFC_INTERNAL, "%s to %s: the server replied OK without a message", p->method, p->ch->target);
  } else {
    size_t len = grpc_byte_buffer_length(recv_bb);
    if ((int64_t)len > p->ch->max_bytes) {
      tfc_status_set(&st, TFC_INVALID_ARGUMENT, "%s: response of %zu bytes exceeds the limit of %lld bytes",
                     p->method, len, (long long)p->ch->max_bytes);
    } else {
      resp = tfc_rpc_msg_from_bb(recv_bb);
      recv_bb = NULL;
      if (!resp) tfc_status_set(&st, TFC_RESOURCE_EXHAUSTED, "%s: out of memory receiving the response", p->method);
    }
  }
  if (recv_bb) grpc_byte_buffer_destroy(recv_bb);
  if (send_bb) grpc_byte_buffer_destroy(send_bb);

  p->done(p->arg, &st, resp);
  tfc_status_fini(&st);

  grpc_metadata_array_destroy(&p->initial_md);
  grpc_metadata_array_destroy(&p->trailing_md);
  grpc_slice_unref(details);
  pthread_mutex_lock(&p->mu);
  grpc_call_unref(p->call);
  p->call = NULL;
  pthread_mutex_unlock(&p->mu);
  unlink_call(p);
  pending_unref(p);
}

static void *client_cq_main(void *arg) {
  grpc_completion_queue *cq = arg;
  for (;;) {
    grpc_event ev = grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
    if (ev.type == GRPC_QUEUE_SHUTDOWN) break;
    (void)atomic_load_explicit(&g_handoff, memory_order_acquire);
    if (ev.type == GRPC_OP_COMPLETE) complete(ev.tag, ev.success);
  }
  return NULL;
}

/* ---------------- calls ---------------- */

/* Finishes a call that never reached gRPC: the callback runs on the caller's thread. */
static void fail_early(tfc_rpc_pending *p, tfc_status *st) {
  p->done(p->arg, st, NULL);
  tfc_status_fini(st);
  pending_unref(p);
}

void tfc_rpc_call_async(tfc_rpc_channel *ch, const char *method, tfc_msg_out *request, int64_t deadline_us,
                        int flags, tfc_rpc_done done, void *arg, tfc_rpc_pending **out_pending) {
  tfc_status st;
  tfc_status_init(&st);
  if (out_pending) *out_pending = NULL;
  tfc_rpc_pending *p = calloc(1, sizeof *p);
  char *name = strdup(method ? method : "");
  if (!p || !name) {
    free(p);
    free(name);
    tfc_msg_out_free(request);
    TFC_OOM(&st);
    done(arg, &st, NULL);
    tfc_status_fini(&st);
    return;
  }
  atomic_init(&p->refs, out_pending ? 2 : 1);
  pthread_mutex_init(&p->mu, NULL);
  p->ch = ch;
  p->method = name;
  p->done = done;
  p->arg = arg;
  p->details = grpc_empty_slice();
  grpc_metadata_array_init(&p->initial_md);
  grpc_metadata_array_init(&p->trailing_md);
  if (out_pending) *out_pending = p;

  /* Local refusals: a bad method name, a message that failed to build or is too big. */
  size_t len = request ? request->len : 0;
  int64_t limit = ch->max_bytes < GRPC_FRAME_MAX ? ch->max_bytes : GRPC_FRAME_MAX;
  if (name[0] != '/')
    tfc_status_set(&st, TFC_INVALID_ARGUMENT, "invalid gRPC method '%s': expected \"/package.Service/Method\"", name);
  else if (request && tfc_msg_out_status(request, &st) != TFC_OK)
    tfc_status_prefix(&st, "%s: ", name);
  else if ((int64_t)len > limit)
    tfc_status_set(&st, TFC_INVALID_ARGUMENT, "%s: request of %zu bytes exceeds the limit of %lld bytes", name, len,
                   (long long)limit);
  tfc_msg_out empty = {0};
  grpc_byte_buffer *bb = NULL;
  if (st.code == TFC_OK && !(bb = tfc_rpc_bb_from_msg(request ? request : &empty)))
    tfc_status_set(&st, TFC_RESOURCE_EXHAUSTED, "%s: out of memory sending the request", name);
  tfc_msg_out_free(request);
  if (st.code == TFC_OK) {
    pthread_mutex_lock(&ch->mu);
    if (ch->closing) {
      tfc_status_set(&st, TFC_CANCELLED, "%s: the channel to %s is being closed", name, ch->target);
    } else {
      p->next = ch->calls;
      if (ch->calls) ch->calls->prev = p;
      ch->calls = p;
    }
    pthread_mutex_unlock(&ch->mu);
  }
  if (st.code != TFC_OK) {
    if (bb) grpc_byte_buffer_destroy(bb);
    grpc_metadata_array_destroy(&p->initial_md);
    grpc_metadata_array_destroy(&p->trailing_md);
    fail_early(p, &st);
    return;
  }

  grpc_op ops[6];
  memset(ops, 0, sizeof ops);
  ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
  if (flags & TFC_RPC_WAIT_FOR_READY)
    ops[0].flags = GRPC_INITIAL_METADATA_WAIT_FOR_READY | GRPC_INITIAL_METADATA_WAIT_FOR_READY_EXPLICITLY_SET;
  ops[1].op = GRPC_OP_SEND_MESSAGE;
  ops[1].data.send_message.send_message = bb;
  ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
  ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
  ops[3].data.recv_initial_metadata.recv_initial_metadata = &p->initial_md;
  ops[4].op = GRPC_OP_RECV_MESSAGE;
  ops[4].data.recv_message.recv_message = &p->recv_bb;
  ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
  ops[5].data.recv_status_on_client.trailing_metadata = &p->trailing_md;
  ops[5].data.recv_status_on_client.status = &p->status;
  ops[5].data.recv_status_on_client.status_details = &p->details;

  grpc_slice mslice = grpc_slice_from_copied_string(name);
  atomic_fetch_add_explicit(&g_handoff, 1, memory_order_release);
  pthread_mutex_lock(&p->mu);
  p->send_bb = bb;
  p->call = grpc_channel_create_call(ch->channel, NULL, GRPC_PROPAGATE_DEFAULTS, ch->cq, mslice, NULL,
                                     tfc_rpc_deadline_to_gpr(deadline_us), NULL);
  grpc_call_error err = grpc_call_start_batch(p->call, ops, 6, p, NULL);
  if (err != GRPC_CALL_OK) {
    grpc_call_unref(p->call);
    p->call = NULL;
    p->send_bb = NULL;
  }
  pthread_mutex_unlock(&p->mu);
  grpc_slice_unref(mslice);
  if (err != GRPC_CALL_OK) {
    grpc_byte_buffer_destroy(bb);
    grpc_metadata_array_destroy(&p->initial_md);
    grpc_metadata_array_destroy(&p->trailing_md);
    tfc_status_set(&st, TFC_INTERNAL, "%s to %s: gRPC refused the call: %s", name, ch->target,
                   grpc_call_error_to_string(err));
    p->done(p->arg, &st, NULL);
    tfc_status_fini(&st);
    unlink_call(p); /* after the callback, like a completed call: channel_free waits for it */
    pending_unref(p);
  }
}

void tfc_rpc_cancel(tfc_rpc_pending *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  if (p->call) grpc_call_cancel(p->call, NULL);
  pthread_mutex_unlock(&p->mu);
}

void tfc_rpc_pending_release(tfc_rpc_pending *p) {
  if (p) pending_unref(p);
}

/* ---------------- blocking calls ---------------- */

typedef struct waiter {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
  tfc_status st;
  tfc_msg_in *resp;
} waiter;

static void wake(void *arg, const tfc_status *s, tfc_msg_in *resp) {
  waiter *w = arg;
  pthread_mutex_lock(&w->mu);
  tfc_status_assign(&w->st, s->code, s->msg);
  w->resp = resp;
  w->done = 1;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
}

int tfc_rpc_call_sync_watched(tfc_rpc_channel *ch, const char *method, tfc_msg_out *request, int64_t deadline_us,
                              int flags, tfc_rpc_watch watch, void *watch_arg, tfc_msg_in **out_response,
                              tfc_status *s) {
  waiter w = {.done = 0};
  pthread_mutex_init(&w.mu, NULL);
  pthread_cond_init(&w.cv, NULL);
  tfc_status_init(&w.st);
  tfc_rpc_pending *p = NULL;
  tfc_rpc_call_async(ch, method, request, deadline_us, flags, wake, &w, watch ? &p : NULL);
  if (watch) watch(watch_arg, p);
  pthread_mutex_lock(&w.mu);
  while (!w.done) pthread_cond_wait(&w.cv, &w.mu);
  pthread_mutex_unlock(&w.mu);
  if (watch) {
    watch(watch_arg, NULL);
    tfc_rpc_pending_release(p);
  }
  pthread_mutex_destroy(&w.mu);
  pthread_cond_destroy(&w.cv);
  *out_response = w.resp;
  return tfc_status_move(s, &w.st);
}

int tfc_rpc_call_sync(tfc_rpc_channel *ch, const char *method, tfc_msg_out *request, int64_t deadline_us, int flags,
                      tfc_msg_in **out_response, tfc_status *s) {
  return tfc_rpc_call_sync_watched(ch, method, request, deadline_us, flags, NULL, NULL, out_response, s);
}

/* ---------------- channels ---------------- */

/* Takes a reference on the process-wide completion queue, starting it with the first. */
static grpc_completion_queue *client_cq_ref(void) {
  pthread_mutex_lock(&g_client.mu);
  if (g_client.refs == 0) {
    grpc_completion_queue *cq = grpc_completion_queue_create_for_next(NULL);
    if (pthread_create(&g_client.thread, NULL, client_cq_main, cq) != 0) {
      grpc_completion_queue_shutdown(cq);
      while (grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type != GRPC_QUEUE_SHUTDOWN) {
      }
      grpc_completion_queue_destroy(cq);
      pthread_mutex_unlock(&g_client.mu);
      return NULL;
    }
    g_client.cq = cq;
  }
  g_client.refs++;
  grpc_completion_queue *cq = g_client.cq;
  pthread_mutex_unlock(&g_client.mu);
  return cq;
}

/* Drops a reference; the last one stops the thread (every call on the queue has completed). */
static void client_cq_unref(void) {
  pthread_mutex_lock(&g_client.mu);
  if (--g_client.refs == 0) {
    grpc_completion_queue_shutdown(g_client.cq);
    pthread_join(g_client.thread, NULL);
    grpc_completion_queue_destroy(g_client.cq);
    g_client.cq = NULL;
  }
  pthread_mutex_unlock(&g_client.mu);
}

tfc_rpc_channel *tfc_rpc_channel_new(const char *target, int64_t max_message_bytes, tfc_status *s) {
  if (!target || !*target) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "gRPC channel target is empty");
    return NULL;
  }
  tfc_rpc_channel *ch = calloc(1, sizeof *ch);
  if (!ch || !(ch->target = strdup(target))) {
    free(ch);
    TFC_OOM(s);
    return NULL;
  }
  ch->max_bytes = max_message_bytes > 0 ? max_message_bytes : TFC_RPC_DEFAULT_MAX_MESSAGE;
  tfc_rpc_grpc_init();
  ch->cq = client_cq_ref();
  if (!ch->cq) {
    grpc_shutdown();
    free(ch->target);
    free(ch);
    tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "cannot start the gRPC client thread for %s", target);
    return NULL;
  }
  pthread_mutex_init(&ch->mu, NULL);
  pthread_cond_init(&ch->cv, NULL);
  grpc_channel_credentials *creds;
  int is_tls;
  if (tfc_rpc_tls_channel_credentials(&creds, &is_tls, s)) {
    client_cq_unref();
    grpc_shutdown();
    pthread_mutex_destroy(&ch->mu);
    pthread_cond_destroy(&ch->cv);
    free(ch->target);
    free(ch);
    return NULL;
  }
  /* "localhost" is dialled as 127.0.0.1, where servers of localhost tasks listen (server.h):
   * no name lookup per connection, and none of the c-ares resolver's per-lookup leak. Over
   * TLS the server's certificate is still checked against the name "localhost". */
  char *dial = NULL;
  if (strncmp(target, "localhost:", 10) == 0 && asprintf(&dial, "127.0.0.1:%s", target + 10) < 0) dial = NULL;
  const grpc_channel_args *args = tfc_rpc_channel_args(0);
  grpc_arg extra[64];
  grpc_channel_args with_name;
  if (is_tls && dial && args->num_args < sizeof extra / sizeof extra[0]) {
    memcpy(extra, args->args, args->num_args * sizeof extra[0]);
    extra[args->num_args].type = GRPC_ARG_STRING;
    extra[args->num_args].key = (char *)GRPC_SSL_TARGET_NAME_OVERRIDE_ARG;
    extra[args->num_args].value.string = (char *)"localhost";
    with_name = (grpc_channel_args){args->num_args + 1, extra};
    args = &with_name;
  }
  ch->channel = grpc_channel_create(dial ? dial : target, creds, args);
  free(dial);
  grpc_channel_credentials_release(creds);
  return ch;
}

void tfc_rpc_channel_close(tfc_rpc_channel *ch) {
  if (!ch) return;
  pthread_mutex_lock(&ch->mu);
  ch->closing = 1;
  for (tfc_rpc_pending *p = ch->calls; p; p = p->next) tfc_rpc_cancel(p);
  pthread_mutex_unlock(&ch->mu);
}

void tfc_rpc_channel_free(tfc_rpc_channel *ch) {
  if (!ch) return;
  pthread_mutex_lock(&ch->mu);
  ch->closing = 1;
  for (tfc_rpc_pending *p = ch->calls; p; p = p->next) tfc_rpc_cancel(p);
  while (ch->calls) pthread_cond_wait(&ch->cv, &ch->mu);
  pthread_mutex_unlock(&ch->mu);
  grpc_channel_destroy(ch->channel);
  client_cq_unref();
  grpc_shutdown();
  pthread_mutex_destroy(&ch->mu);
  pthread_cond_destroy(&ch->cv);
  free(ch->target);
  free(ch);
}

const char *tfc_rpc_channel_target(const tfc_rpc_channel *ch) { return ch->target; }
