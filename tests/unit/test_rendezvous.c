/* Unit tests of the rendezvous: keys, both orders of send and receive, errors, abort,
 * deadlines, the pending listing, many threads at once, and remote fetches. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "base/clock.h"
#include "harness.h"
#include "rendezvous/rendezvous.h"

#define DEV0 "/job:localhost/replica:0/task:0/device:CPU:0"
#define DEV1 "/job:localhost/replica:0/task:0/device:CPU:1"

static tfc_tensor *scalar(float v) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = tfc_tensor_scalar(TFC_DT_FLOAT, &v, &s);
  if (!t) tfc_test_fail(__FILE__, __LINE__, "tensor: %s", tfc_status_msg(&s));
  tfc_status_fini(&s);
  return t;
}

/* What a receive callback saw. */
typedef struct got {
  atomic_int calls;
  int code;
  char msg[256];
  tfc_tensor *t;
} got;

static void record(void *arg, const tfc_status *s, tfc_tensor *t, int is_dead) {
  got *g = arg;
  g->code = s->code;
  snprintf(g->msg, sizeof g->msg, "%s", tfc_status_msg(s));
  g->t = t;
  atomic_fetch_add(&g->calls, 1);
}

static char *pending(tfc_rendezvous *r) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  tfc_rendezvous_pending(r, &b);
  char *out = strdup(tfc_strbuf_str(&b));
  tfc_strbuf_fini(&b);
  return out;
}

static void rendezvous_key_is_tf_format_with_16_hex_digit_incarnation(void) {
  char *k = tfc_rendezvous_key(DEV0, 1, DEV1, "edge_1_a", 0, 0);
  EXPECT_STREQ(k, DEV0 ";0000000000000001;" DEV1 ";edge_1_a;0:0");
  free(k);
  k = tfc_rendezvous_key(DEV1, 0xdeadBEEFull, DEV0, "edge_12_x/y", 3, 7);
  EXPECT_STREQ(k, DEV1 ";00000000deadbeef;" DEV0 ";edge_12_x/y;3:7");
  free(k);
  k = tfc_rendezvous_key("a", UINT64_MAX, "b", "t", 0, 0);
  EXPECT_STREQ(k, "a;ffffffffffffffff;b;t;0:0");
  free(k);
  /* A frame id is TF's uint64 hash, printed unsigned even past INT64_MAX. */
  k = tfc_rendezvous_key("a", 1, "b", "t", 0xfedcba9876543210ull, 12);
  EXPECT_STREQ(k, "a;0000000000000001;b;t;18364758544493064720:12");
  free(k);
}

static void rendezvous_send_then_recv_hands_over_the_reference(void) {
  tfc_rendezvous *r = tfc_rendezvous_new();
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = scalar(4.5f);
  EXPECT_EQ(tfc_rendezvous_send(r, "k", t, 0, &s), TFC_OK);
  EXPECT_EQ(atomic_load(&t->refs), 2);
  got g = {0};
  tfc_rendezvous_recv_async(r, "k", record, &g);
  EXPECT_EQ(atomic_load(&g.calls), 1);
  EXPECT_EQ(g.code, TFC_OK);
  EXPECT_TRUE(g.t == t);
  EXPECT_EQ(atomic_load(&t->refs), 2); /* the rendezvous's reference went to the receiver */
  EXPECT_NEAR(*(float *)g.t->data, 4.5, 0);
  tfc_tensor_unref(g.t);
  char *p = pending(r);
  EXPECT_STREQ(p, "");
  free(p);
  tfc_rendezvous_unref(r);
  EXPECT_EQ(atomic_load(&t->refs), 1);
  tfc_tensor_unref(t);
  tfc_status_fini(&s);
}

static void rendezvous_recv_then_send_runs_callback_in_send(void) {
  tfc_rendezvous *r = tfc_rendezvous_new();
  tfc_status s;
  tfc_status_init(&s);
  got g = {0};
  tfc_rendezvous_recv_async(r, "k", record, &g);
  EXPECT_EQ(atomic_load(&g.calls), 0);
  char *p = pending(r);
  EXPECT_STREQ(p, "k");
  free(p);
  tfc_tensor *t = scalar(2);
  EXPECT_EQ(tfc_rendezvous_send(r, "k", t, 0, &s), TFC_OK);
  EXPECT_EQ(atomic_load(&g.calls), 1);
  EXPECT_EQ(g.code, TFC_OK);
  EXPECT_TRUE(g.t == t);
  EXPECT_EQ(atomic_load(&t->refs), 2);
  p = pending(r);
  EXPECT_STREQ(p, "");
  free(p);
  tfc_tensor_unref(g.t);
  tfc_tensor_unref(t);
  tfc_rendezvous_unref(r);
  tfc_status_fini(&s);
}

static void rendezvous_second_send_or_recv_of_a_key_is_internal(void) {
  tfc_rendezvous *r = tfc_rendezvous_new();
  tfc_tensor *t = scalar(1);
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_rendezvous_send(r, "k", t, 0, &s), TFC_OK);
  EXPECT_EQ(tfc_rendezvous_send(r, "k", t, 0, &s), TFC_INTERNAL);
  EXPECT_STREQ(tfc_status_msg(&s), "Send of an already sent tensor: k");
  tfc_status_clear(&s);
  got g = {0}, g2 = {0};
  tfc_rendezvous_recv_async(r, "k", record, &g);
  tfc_tensor_unref(g.t);
  /* after it was received, both directions still refuse the key */
  EXPECT_EQ(tfc_rendezvous_send(r, "k", t, 0, &s), TFC_INTERNAL);
  EXPECT_STREQ(tfc_status_msg(&s), "Send of an already sent tensor: k");
  tfc_rendezvous_recv_async(r, "k", record, &g2);
  EXPECT_EQ(atomic_load(&g2.calls), 1);
  EXPECT_EQ(g2.code, TFC_INTERNAL);
  EXPECT_STREQ(g2.msg, "Recv of an already received tensor: k");
  EXPECT_TRUE(g2.t == NULL);
  /* two receivers waiting on one key */
  got w1 = {0}, w2 = {0};
  tfc_rendezvous_recv_async(r, "j", record, &w1);
  tfc_rendezvous_recv_async(r, "j", record, &w2);
  EXPECT_EQ(atomic_load(&w1.calls), 0);
  EXPECT_EQ(w2.code, TFC_INTERNAL);
  EXPECT_STREQ(w2.msg, "Recv of an already received tensor: j");
  tfc_status_clear(&s);
  EXPECT_EQ(tfc_rendezvous_send(r, "j", t, 0, &s), TFC_OK);
  EXPECT_EQ(atomic_load(&w1.calls), 1);
  tfc_tensor_unref(w1.t);
  EXPECT_EQ(atomic_load(&t->refs), 1);
  tfc_tensor_unref(t);
  tfc_rendezvous_unref(r);
  tfc_status_fini(&s);
}

static void rendezvous_abort_wakes_waiters_and_fails_later_ops(void) {
  tfc_rendezvous *r = tfc_rendezvous_new();
  tfc_status s, ab;
  tfc_status_init(&s);
  tfc_status_init(&ab);
  tfc_tensor *t = scalar(1);
  EXPECT_EQ(tfc_rendezvous_send(r, "unclaimed", t, 0, &s), TFC_OK);
  EXPECT_EQ(atomic_load(&t->refs), 2);
  got a = {0}, b = {0};
  tfc_rendezvous_recv_async(r, "a", record, &a);
  tfc_rendezvous_recv_async(r, "b", record, &b);
  EXPECT_EQ(tfc_rendezvous_aborted(r), 0);
  EXPECT_EQ(tfc_rendezvous_status(r, &s), TFC_OK);
  tfc_status_set(&ab, TFC_CANCELLED, "step cancelled");
  tfc_rendezvous_abort(r, &ab);
  EXPECT_EQ(tfc_rendezvous_aborted(r), 1);
  EXPECT_EQ(atomic_load(&a.calls), 1);
  EXPECT_EQ(atomic_load(&b.calls), 1);
  EXPECT_EQ(a.code, TFC_CANCELLED);
  EXPECT_STREQ(a.msg, "step cancelled");
  EXPECT_STREQ(b.msg, "step cancelled");
  EXPECT_TRUE(a.t == NULL && b.t == NULL);
  EXPECT_EQ(atomic_load(&t->refs), 1); /* the unclaimed tensor is released */
  char *p = pending(r);
  EXPECT_STREQ(p, "");
  free(p);
  /* the first abort wins */
  tfc_status_clear(&ab);
  tfc_status_set(&ab, TFC_INTERNAL, "second");
  tfc_rendezvous_abort(r, &ab);
  EXPECT_EQ(tfc_rendezvous_status(r, &s), TFC_CANCELLED);
  EXPECT_STREQ(tfc_status_msg(&s), "step cancelled");
  tfc_status_clear(&s);
  EXPECT_EQ(tfc_rendezvous_send(r, "c", t, 0, &s), TFC_CANCELLED);
  EXPECT_STREQ(tfc_status_msg(&s), "step cancelled");
  got c = {0};
  tfc_rendezvous_recv_async(r, "unclaimed", record, &c);
  EXPECT_EQ(atomic_load(&c.calls), 1);
  EXPECT_EQ(c.code, TFC_CANCELLED);
  tfc_status_clear(&s);
  tfc_tensor *out = t;
  EXPECT_EQ(tfc_rendezvous_recv(r, "d", 0, &out, &s), TFC_CANCELLED);
  EXPECT_TRUE(out == NULL);
  tfc_tensor_unref(t);
  tfc_rendezvous_unref(r);
  tfc_status_fini(&s);
  tfc_status_fini(&ab);
}

static void rendezvous_blocking_recv_times_out_naming_the_key(void) {
  tfc_rendezvous *r = tfc_rendezvous_new();
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *out = NULL;
  int64_t t0 = tfc_now_us();
  EXPECT_EQ(tfc_rendezvous_recv(r, DEV0 ";0000000000000001;" DEV1 ";edge_3_m;0:0", t0 + 50000, &out, &s),
            TFC_DEADLINE_EXCEEDED);
  int64_t waited = tfc_now_us() - t0;
  EXPECT_STREQ(tfc_status_msg(&s), "Timed out waiting for tensor " DEV0 ";0000000000000001;" DEV1 ";edge_3_m;0:0");
  EXPECT_TRUE(waited >= 50000); /* the deadline is honoured, not cut short */
  EXPECT_TRUE(out == NULL);
  char *p = pending(r);
  EXPECT_STREQ(p, ""); /* the wait was withdrawn */
  free(p);
  /* the key is still usable: a later send and receive meet */
  tfc_status_clear(&s);
  tfc_tensor *t = scalar(3);
  EXPECT_EQ(tfc_rendezvous_send(r, DEV0 ";0000000000000001;" DEV1 ";edge_3_m;0:0", t, 0, &s), TFC_OK);
  EXPECT_EQ(tfc_rendezvous_recv(r, DEV0 ";0000000000000001;" DEV1 ";edge_3_m;0:0", tfc_now_us() + 1000, &out, &s),
            TFC_OK);
  EXPECT_TRUE(out == t);
  tfc_tensor_unref(out);
  tfc_tensor_unref(t);
  tfc_rendezvous_unref(r);
  tfc_status_fini(&s);
}

typedef struct later {
  tfc_rendezvous *r;
  int abort; /* 0: send "k" after 50 ms; 1: abort */
  tfc_tensor *t;
} later;

static void *do_later(void *arg) {
  later *l = arg;
  struct timespec ts = {0, 50 * 1000 * 1000};
  nanosleep(&ts, NULL);
  tfc_status s;
  tfc_status_init(&s);
  if (l->abort) {
    tfc_status_set(&s, TFC_ABORTED, "peer failed");
    tfc_rendezvous_abort(l->r, &s);
  } else {
    tfc_rendezvous_send(l->r, "k", l->t, 0, &s);
  }
  tfc_status_fini(&s);
  return NULL;
}

static void rendezvous_blocking_recv_wakes_on_send_and_on_abort(void) {
  for (int ab = 0; ab < 2; ab++) {
    tfc_rendezvous *r = tfc_rendezvous_new();
    later l = {r, ab, scalar(7)};
    pthread_t th;
    EXPECT_EQ(pthread_create(&th, NULL, do_later, &l), 0);
    tfc_status s;
    tfc_status_init(&s);
    tfc_tensor *out = NULL;
    /* the code tells a wake-up by send or abort from the deadline (DEADLINE_EXCEEDED) */
    int code = tfc_rendezvous_recv(r, "k", tfc_now_us() + 60 * 1000000, &out, &s);
    pthread_join(th, NULL);
    if (ab) {
      EXPECT_EQ(code, TFC_ABORTED);
      EXPECT_STREQ(tfc_status_msg(&s), "peer failed");
      EXPECT_TRUE(out == NULL);
    } else {
      EXPECT_EQ(code, TFC_OK);
      EXPECT_TRUE(out == l.t);
      EXPECT_NEAR(*(float *)out->data, 7, 0);
      tfc_tensor_unref(out);
    }
    tfc_tensor_unref(l.t);
    tfc_rendezvous_unref(r);
    tfc_status_fini(&s);
  }
}

static void rendezvous_pending_lists_waiters_in_arrival_order(void) {
  tfc_rendezvous *r = tfc_rendezvous_new();
  got a = {0}, b = {0}, c = {0};
  tfc_rendezvous_recv_async(r, "key_a", record, &a);
  tfc_rendezvous_recv_async(r, "key_b", record, &b);
  tfc_rendezvous_recv_async(r, "key_c", record, &c);
  char *p = pending(r);
  EXPECT_STREQ(p, "key_a, key_b, key_c");
  free(p);
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = scalar(1);
  EXPECT_EQ(tfc_rendezvous_send(r, "key_b", t, 0, &s), TFC_OK);
  EXPECT_EQ(tfc_rendezvous_send(r, "key_x", t, 0, &s), TFC_OK); /* sent, not awaited: not listed */
  p = pending(r);
  EXPECT_STREQ(p, "key_a, key_c");
  free(p);
  tfc_tensor_unref(b.t);
  /* freeing the rendezvous calls the receivers still waiting */
  tfc_rendezvous_unref(r);
  EXPECT_EQ(atomic_load(&a.calls), 1);
  EXPECT_EQ(a.code, TFC_CANCELLED);
  EXPECT_STREQ(a.msg, "Rendezvous deleted with receivers waiting");
  EXPECT_EQ(atomic_load(&c.calls), 1);
  EXPECT_EQ(atomic_load(&t->refs), 1);
  tfc_tensor_unref(t);
  tfc_status_fini(&s);
}

/* Each of N threads sends keys "<id>/<i>" and receives the keys of thread (id+1) % N, half
 * with the blocking receive and half with callbacks. */
#define N_THREADS 8
#define N_KEYS 400

typedef struct peer {
  tfc_rendezvous *r;
  int id;
  atomic_int received;
  atomic_int bad; /* the callbacks run on the sending threads */
} peer;

static void peer_got(void *arg, const tfc_status *s, tfc_tensor *t, int is_dead) {
  peer *p = arg;
  if (!tfc_status_ok(s) || !t || *(float *)t->data < 0) atomic_fetch_add(&p->bad, 1);
  tfc_tensor_unref(t);
  atomic_fetch_add(&p->received, 1);
}

static void *peer_main(void *arg) {
  peer *p = arg;
  tfc_status s;
  tfc_status_init(&s);
  int from = (p->id + 1) % N_THREADS;
  for (int i = 0; i < N_KEYS; i++) {
    char key[32];
    snprintf(key, sizeof key, "%d/%d", p->id, i);
    tfc_tensor *t = scalar((float)(p->id * 10000 + i));
    if (tfc_rendezvous_send(p->r, key, t, 0, &s) != TFC_OK) atomic_fetch_add(&p->bad, 1);
    tfc_tensor_unref(t);
    snprintf(key, sizeof key, "%d/%d", from, i);
    if (i & 1) {
      tfc_tensor *out = NULL;
      if (tfc_rendezvous_recv(p->r, key, tfc_now_us() + 20 * 1000000, &out, &s) != TFC_OK ||
          *(float *)out->data != (float)(from * 10000 + i))
        atomic_fetch_add(&p->bad, 1);
      tfc_tensor_unref(out);
      atomic_fetch_add(&p->received, 1);
    } else {
      tfc_rendezvous_recv_async(p->r, key, peer_got, p);
    }
  }
  tfc_status_fini(&s);
  return NULL;
}

static void rendezvous_many_threads_send_and_receive_distinct_keys(void) {
  tfc_rendezvous *r = tfc_rendezvous_new();
  peer peers[N_THREADS];
  pthread_t th[N_THREADS];
  for (int i = 0; i < N_THREADS; i++) {
    peers[i].r = r;
    peers[i].id = i;
    atomic_init(&peers[i].received, 0);
    atomic_init(&peers[i].bad, 0);
  }
  for (int i = 0; i < N_THREADS; i++) EXPECT_EQ(pthread_create(&th[i], NULL, peer_main, &peers[i]), 0);
  for (int i = 0; i < N_THREADS; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < N_THREADS; i++) {
    EXPECT_EQ(atomic_load(&peers[i].received), N_KEYS);
    EXPECT_EQ(atomic_load(&peers[i].bad), 0);
  }
  char *p = pending(r);
  EXPECT_STREQ(p, "");
  free(p);
  tfc_rendezvous_unref(r);
}

/* ---------------- remote fetches ---------------- */

#define REMOTE_KEY "/job:ps/replica:0/task:0/device:CPU:0;0000000000000001;" DEV0 ";edge_3_v;0:0"

/* A fetcher that, like the worker's step, keeps the rendezvous while held. */
typedef struct fetcher {
  tfc_rendezvous *r;
  int holds, fetches, aborts;
  got *receiver;
  int send_code;
} fetcher;

static void fetcher_hold(void *arg) {
  fetcher *f = arg;
  f->holds++;
  tfc_rendezvous_ref(f->r);
}

/* Another thread aborts the step before the fetch gets going: the receiver hears of it and its
 * owner lets go of the rendezvous; the fetch still runs on what its hold keeps. */
static void fetcher_fetch(void *arg, tfc_rendezvous *r, const char *key) {
  fetcher *f = arg;
  f->fetches++;
  EXPECT_TRUE(r == f->r);
  EXPECT_STREQ(key, REMOTE_KEY);
  tfc_status ab, s;
  tfc_status_init(&ab);
  tfc_status_init(&s);
  tfc_status_set(&ab, TFC_ABORTED, "step 7 aborted");
  tfc_rendezvous_abort(r, &ab);
  EXPECT_EQ(atomic_load(&f->receiver->calls), 1);
  tfc_rendezvous_unref(r); /* the receiver's owner goes: only the hold keeps r */
  tfc_tensor *t = scalar(2);
  f->send_code = tfc_rendezvous_send(r, key, t, 0, &s); /* the pulled tensor comes too late */
  tfc_tensor_unref(t);
  tfc_rendezvous_unref(r); /* the hold is let go: r is freed */
  tfc_status_fini(&ab);
  tfc_status_fini(&s);
}

static void fetcher_aborted(void *arg, const tfc_status *s) {
  fetcher *f = arg;
  f->aborts++;
  EXPECT_EQ(s->code, TFC_ABORTED);
}

static void rendezvous_remote_fetch_runs_on_its_hold(void) {
  tfc_rendezvous *r = tfc_rendezvous_new();
  got local = {0}, remote = {0};
  fetcher f = {.r = r, .receiver = &remote};
  EXPECT_EQ(tfc_rendezvous_set_remote(r, "/job:localhost/replica:0/task:0/", fetcher_hold, fetcher_fetch,
                                      fetcher_aborted, &f),
            0);
  /* A key sent on this task waits without a fetch. */
  tfc_rendezvous_recv_async(r, DEV1 ";0000000000000001;" DEV0 ";edge_1_a;0:0", record, &local);
  EXPECT_EQ(f.holds, 0);
  EXPECT_EQ(f.fetches, 0);
  EXPECT_EQ(atomic_load(&local.calls), 0);
  /* One from another task is fetched, under a hold taken before the waiter could complete. */
  tfc_rendezvous_recv_async(r, REMOTE_KEY, record, &remote);
  EXPECT_EQ(f.holds, 1);
  EXPECT_EQ(f.fetches, 1);
  EXPECT_EQ(f.aborts, 1);
  EXPECT_EQ(atomic_load(&remote.calls), 1);
  EXPECT_EQ(remote.code, TFC_ABORTED);
  EXPECT_STREQ(remote.msg, "step 7 aborted");
  EXPECT_EQ(atomic_load(&local.calls), 1);
  EXPECT_EQ(local.code, TFC_ABORTED);
  EXPECT_EQ(f.send_code, TFC_ABORTED);
}

static const tfc_test tests[] = {
    TFC_TEST(rendezvous_key_is_tf_format_with_16_hex_digit_incarnation),
    TFC_TEST(rendezvous_send_then_recv_hands_over_the_reference),
    TFC_TEST(rendezvous_recv_then_send_runs_callback_in_send),
    TFC_TEST(rendezvous_second_send_or_recv_of_a_key_is_internal),
    TFC_TEST(rendezvous_abort_wakes_waiters_and_fails_later_ops),
    TFC_TEST(rendezvous_blocking_recv_times_out_naming_the_key),
    TFC_TEST(rendezvous_blocking_recv_wakes_on_send_and_on_abort),
    TFC_TEST(rendezvous_pending_lists_waiters_in_arrival_order),
    TFC_TEST(rendezvous_many_threads_send_and_receive_distinct_keys),
    TFC_TEST(rendezvous_remote_fetch_runs_on_its_hold),
    {0}};

TFC_TEST_MAIN(tests)
