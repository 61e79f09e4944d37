/* Unit tests of the executor on a CPU device, with graphs built through the internal API. */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "base/clock.h"
#include "exec_fixture.h"
#include "harness.h"
#include "rendezvous/rendezvous.h"

static void fixture_init(fixture *f) { fixture_init_dev(f, 0); }

static tfc_node *const_f32(fixture *f, const char *name, const int64_t *dims, int ndims,
                           const float *vals) {
  tfc_tensor *t = tfc_tensor_new(TFC_DT_FLOAT, dims, ndims, &f->s);
  memcpy(t->data, vals, t->n_bytes);
  tfc_node_desc *d = tfc_node_desc_new(f->g, "Const", name);
  tfc_attr_value v = tfc_attr_tensor(t);
  tfc_node_desc_set_attr(d, "value", &v);
  v = tfc_attr_type(TFC_DT_FLOAT);
  tfc_node_desc_set_attr(d, "dtype", &v);
  return finish_or_fail(d, &f->s, __LINE__);
}

static tfc_node *arg_node(fixture *f, const char *name, int dtype, int index) {
  tfc_node_desc *d = tfc_node_desc_new(f->g, "_Arg", name);
  tfc_attr_value v = tfc_attr_type(dtype);
  tfc_node_desc_set_attr(d, "T", &v);
  v = tfc_attr_int(index);
  tfc_node_desc_set_attr(d, "index", &v);
  return finish_or_fail(d, &f->s, __LINE__);
}

static tfc_node *retval_node(fixture *f, const char *name, tfc_node *in, int index) {
  tfc_node_desc *d = tfc_node_desc_new(f->g, "_Retval", name);
  tfc_node_desc_add_input(d, (tfc_endpoint){in, 0});
  tfc_attr_value v = tfc_attr_int(index);
  tfc_node_desc_set_attr(d, "index", &v);
  return finish_or_fail(d, &f->s, __LINE__);
}

static tfc_node *binary(fixture *f, const char *op, const char *name, tfc_node *a, tfc_node *b) {
  tfc_node_desc *d = tfc_node_desc_new(f->g, op, name);
  tfc_node_desc_add_input(d, (tfc_endpoint){a, 0});
  tfc_node_desc_add_input(d, (tfc_endpoint){b, 0});
  return finish_or_fail(d, &f->s, __LINE__);
}

static tfc_node *unary(fixture *f, const char *op, const char *name, tfc_node *a) {
  tfc_node_desc *d = tfc_node_desc_new(f->g, op, name);
  tfc_node_desc_add_input(d, (tfc_endpoint){a, 0});
  return finish_or_fail(d, &f->s, __LINE__);
}

static tfc_tensor *f32(const int64_t *dims, int ndims, const float *vals) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_tensor *t = tfc_tensor_new(TFC_DT_FLOAT, dims, ndims, &s);
  if (!t) tfc_test_fail(__FILE__, __LINE__, "tensor: %s", tfc_status_msg(&s));
  memcpy(t->data, vals, t->n_bytes);
  tfc_status_fini(&s);
  return t;
}

/* y = Identity(MatMul(x, w)); out0 = y, out1 = AddV2(y, y). */
static void build_matmul_graph(fixture *f) {
  int64_t dw[2] = {2, 2};
  float w[4] = {1, 2, 3, 4};
  tfc_node *x = arg_node(f, "x", TFC_DT_FLOAT, 0);
  tfc_node *wn = const_f32(f, "w", dw, 2, w);
  tfc_node *m = binary(f, "MatMul", "m", x, wn);
  tfc_node *y = unary(f, "Identity", "y", m);
  tfc_node *z = binary(f, "AddV2", "z", y, y);
  retval_node(f, "out0", y, 0);
  retval_node(f, "out1", z, 1);
}

static void executor_runs_matmul_graph_with_call_frame(void) {
  fixture f;
  fixture_init(&f);
  build_matmul_graph(&f);
  tfc_executor *e = tfc_executor_new(f.g, f.dev, NULL, &f.s);
  if (!e) tfc_test_fail(__FILE__, __LINE__, "executor: %s", tfc_status_msg(&f.s));
  int64_t dx[2] = {1, 2};
  float xv[2] = {1, 1};
  tfc_tensor *x = f32(dx, 2, xv);
  tfc_tensor *rets[2] = {NULL, NULL};
  tfc_call_frame frame = {1, &x, 2, rets};
  tfc_exec_args args = {&frame, NULL, 1, NULL, NULL, NULL, 0};
  EXPECT_EQ(tfc_executor_run(e, &args, &f.s), TFC_OK);
  EXPECT_TRUE(rets[0] != NULL && rets[1] != NULL);
  EXPECT_EQ(rets[0]->dtype, TFC_DT_FLOAT);
  EXPECT_EQ(rets[0]->ndims, 2);
  EXPECT_EQ(rets[0]->dims[0], 1);
  EXPECT_EQ(rets[0]->dims[1], 2);
  EXPECT_NEAR(((float *)rets[0]->data)[0], 4, 0);
  EXPECT_NEAR(((float *)rets[0]->data)[1], 6, 0);
  EXPECT_NEAR(((float *)rets[1]->data)[0], 8, 0);
  EXPECT_NEAR(((float *)rets[1]->data)[1], 12, 0);
  tfc_tensor_unref(rets[0]);
  tfc_tensor_unref(rets[1]);
  /* A second step on the same executor with another feed and the inter-op pool. */
  float xv2[2] = {2, -1};
  tfc_tensor *x2 = f32(dx, 2, xv2);
  frame.args = &x2;
  rets[0] = rets[1] = NULL;
  args.inter_pool = f.pool;
  args.step_id = 2;
  EXPECT_EQ(tfc_executor_run(e, &args, &f.s), TFC_OK);
  EXPECT_NEAR(((float *)rets[0]->data)[0], -1, 0);
  EXPECT_NEAR(((float *)rets[0]->data)[1], 0, 0);
  EXPECT_NEAR(((float *)rets[1]->data)[0], -2, 0);
  EXPECT_EQ(atomic_load(&x->refs), 1);
  tfc_tensor_unref(rets[0]);
  tfc_tensor_unref(rets[1]);
  tfc_tensor_unref(x);
  tfc_tensor_unref(x2);
  tfc_executor_free(e);
  fixture_fini(&f);
}

static void executor_diamond_graph_with_inter_op_pool(void) {
  fixture f;
  fixture_init(&f);
  int64_t d[2] = {2, 2};
  float a[4] = {1, 2, 3, 4}, id[4] = {1, 0, 0, 1};
  tfc_node *an = const_f32(&f, "a", d, 2, a), *in = const_f32(&f, "i", d, 2, id);
  tfc_node *l1 = binary(&f, "MatMul", "left1", an, an);       /* a@a = [7,10,15,22] */
  tfc_node *l2 = binary(&f, "MatMul", "left2", l1, in);       /* same */
  tfc_node *r1 = binary(&f, "AddV2", "right1", an, an);       /* 2a */
  tfc_node *r2 = binary(&f, "MatMul", "right2", r1, in);      /* 2a */
  tfc_node *j = binary(&f, "AddV2", "join", l2, r2);          /* [9,14,21,30] */
  retval_node(&f, "out", j, 0);
  tfc_executor *e = tfc_executor_new(f.g, f.dev, NULL, &f.s);
  if (!e) tfc_test_fail(__FILE__, __LINE__, "executor: %s", tfc_status_msg(&f.s));
  for (int step = 0; step < 50; step++) {
    tfc_tensor *ret = NULL;
    tfc_call_frame frame = {0, NULL, 1, &ret};
    tfc_exec_args args = {&frame, f.pool, step, NULL, NULL, NULL, 0};
    EXPECT_EQ(tfc_executor_run(e, &args, &f.s), TFC_OK);
    EXPECT_TRUE(ret != NULL);
    float *o = ret->data;
    EXPECT_NEAR(o[0], 9, 0);
    EXPECT_NEAR(o[1], 14, 0);
    EXPECT_NEAR(o[2], 21, 0);
    EXPECT_NEAR(o[3], 30, 0);
    tfc_tensor_unref(ret);
  }
  tfc_executor_free(e);
  fixture_fini(&f);
}

static void executor_node_error_names_node_and_step_returns(void) {
  fixture f;
  fixture_init(&f);
  build_matmul_graph(&f);
  tfc_executor *e = tfc_executor_new(f.g, f.dev, NULL, &f.s);
  if (!e) tfc_test_fail(__FILE__, __LINE__, "executor: %s", tfc_status_msg(&f.s));
  for (int with_pool = 0; with_pool < 2; with_pool++) {
    int64_t dx[2] = {1, 3};
    float xv[3] = {1, 2, 3};
    tfc_tensor *x = f32(dx, 2, xv);
    tfc_tensor *rets[2] = {NULL, NULL};
    tfc_call_frame frame = {1, &x, 2, rets};
    tfc_exec_args args = {&frame, with_pool ? f.pool : NULL, 7, NULL, NULL, NULL, 0};
    tfc_status s;
    tfc_status_init(&s);
    EXPECT_EQ(tfc_executor_run(e, &args, &s), TFC_INVALID_ARGUMENT);
    EXPECT_CONTAINS(tfc_status_msg(&s), "\n\t [[{{node m}}]]");
    EXPECT_TRUE(rets[1] == NULL);
    tfc_tensor_unref(rets[0]);
    tfc_tensor_unref(rets[1]);
    tfc_tensor_unref(x);
    tfc_status_fini(&s);
  }
  /* The executor is still usable after a failed step. */
  int64_t dx[2] = {1, 2};
  float xv[2] = {0, 1};
  tfc_tensor *x = f32(dx, 2, xv);
  tfc_tensor *rets[2] = {NULL, NULL};
  tfc_call_frame frame = {1, &x, 2, rets};
  tfc_exec_args args = {&frame, f.pool, 8, NULL, NULL, NULL, 0};
  EXPECT_EQ(tfc_executor_run(e, &args, &f.s), TFC_OK);
  EXPECT_NEAR(((float *)rets[0]->data)[0], 3, 0);
  EXPECT_NEAR(((float *)rets[0]->data)[1], 4, 0);
  tfc_tensor_unref(rets[0]);
  tfc_tensor_unref(rets[1]);
  tfc_tensor_unref(x);
  tfc_executor_free(e);
  fixture_fini(&f);
}

typedef struct worker {
  tfc_executor *e;
  tfc_threadpool *pool;
  int id;
  int failures;
  char msg[256];
} worker;

static void *worker_main(void *arg) {
  worker *w = arg;
  for (int it = 0; it < 100; it++) {
    int64_t dx[2] = {1, 2};
    float xv[2] = {(float)w->id, (float)it};
    tfc_status s;
    tfc_status_init(&s);
    tfc_tensor *x = tfc_tensor_new(TFC_DT_FLOAT, dx, 2, &s);
    memcpy(x->data, xv, sizeof xv);
    tfc_tensor *rets[2] = {NULL, NULL};
    tfc_call_frame frame = {1, &x, 2, rets};
    tfc_exec_args args = {&frame, (it & 1) ? w->pool : NULL, w->id * 1000 + it, NULL, NULL, NULL, 0};
    int rc = tfc_executor_run(w->e, &args, &s);
    /* [id, it] @ [[1,2],[3,4]] = [id + 3 it, 2 id + 4 it] */
    float e0 = xv[0] + 3 * xv[1], e1 = 2 * xv[0] + 4 * xv[1];
    if (rc != TFC_OK || !rets[0] || !rets[1] || ((float *)rets[0]->data)[0] != e0 ||
        ((float *)rets[0]->data)[1] != e1 || ((float *)rets[1]->data)[0] != 2 * e0 ||
        ((float *)rets[1]->data)[1] != 2 * e1) {
      if (!w->failures)
        snprintf(w->msg, sizeof w->msg, "thread %d iter %d rc %d: %s", w->id, it, rc, tfc_status_msg(&s));
      w->failures++;
    }
    tfc_tensor_unref(rets[0]);
    tfc_tensor_unref(rets[1]);
    tfc_tensor_unref(x);
    tfc_status_fini(&s);
  }
  return NULL;
}

static void executor_concurrent_runs_from_four_threads(void) {
  fixture f;
  fixture_init(&f);
  build_matmul_graph(&f);
  tfc_executor *e = tfc_executor_new(f.g, f.dev, NULL, &f.s);
  if (!e) tfc_test_fail(__FILE__, __LINE__, "executor: %s", tfc_status_msg(&f.s));
  worker w[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++) {
    w[i] = (worker){e, f.pool, i + 1, 0, ""};
    EXPECT_EQ(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
  }
  for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < 4; i++)
    if (w[i].failures) tfc_test_fail(__FILE__, __LINE__, "%d failures; first: %s", w[i].failures, w[i].msg);
  tfc_executor_free(e);
  fixture_fini(&f);
}

static void executor_new_fails_for_missing_kernel(void) {
  fixture f;
  fixture_init(&f);
  tfc_node *a = arg_node(&f, "a", TFC_DT_HALF, 0);
  /* TF has no half Cholesky on CPU either */
  tfc_node *m = unary(&f, "Cholesky", "mm_half", a);
  retval_node(&f, "out", m, 0);
  tfc_status s;
  tfc_status_init(&s);
  tfc_executor *e = tfc_executor_new(f.g, f.dev, NULL, &s);
  EXPECT_TRUE(e == NULL);
  EXPECT_TRUE(!tfc_status_ok(&s));
  EXPECT_CONTAINS(tfc_status_msg(&s), "No OpKernel was registered to support Op 'Cholesky'");
  EXPECT_CONTAINS(tfc_status_msg(&s), "mm_half");
  EXPECT_CONTAINS(tfc_status_msg(&s), "T=DT_HALF");
  tfc_status_fini(&s);
  fixture_fini(&f);
}

static void cpu_device_has_canonical_name(void) {
  fixture f;
  fixture_init(&f);
  EXPECT_STREQ(f.dev->name, "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_STREQ(f.dev->type, "CPU");
  EXPECT_EQ(f.dev->id, 0);
  EXPECT_TRUE(f.dev->incarnation != 0);
  EXPECT_TRUE(f.dev->kernels != NULL);
  EXPECT_TRUE(f.dev->pool == f.pool);
  fixture_fini(&f);
}

/* ---------------- partitions joined by a rendezvous ---------------- */

/* Sets the attrs _Send and _Recv share: the edge from `from`'s device to `to`'s. */
static void transfer_attrs(tfc_node_desc *d, const fixture *from, const fixture *to, const char *tensor_name) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_attr_value v;
  tfc_attr_string(tensor_name, strlen(tensor_name), &v, &s);
  tfc_node_desc_set_attr(d, "tensor_name", &v);
  tfc_attr_string(from->dev->name, strlen(from->dev->name), &v, &s);
  tfc_node_desc_set_attr(d, "send_device", &v);
  v = tfc_attr_int((int64_t)from->dev->incarnation);
  tfc_node_desc_set_attr(d, "send_device_incarnation", &v);
  tfc_attr_string(to->dev->name, strlen(to->dev->name), &v, &s);
  tfc_node_desc_set_attr(d, "recv_device", &v);
  tfc_status_fini(&s);
}

/* _Send of `in` in from's graph, toward `to`. */
static tfc_node *send_node(fixture *from, const fixture *to, const char *name, tfc_node *in, const char *tensor_name) {
  tfc_node_desc *d = tfc_node_desc_new(from->g, "_Send", name);
  tfc_node_desc_add_input(d, (tfc_endpoint){in, 0});
  transfer_attrs(d, from, to, tensor_name);
  return finish_or_fail(d, &from->s, __LINE__);
}

/* _Recv in to's graph of a float sent by `from`. */
static tfc_node *recv_node(const fixture *from, fixture *to, const char *name, const char *tensor_name) {
  tfc_node_desc *d = tfc_node_desc_new(to->g, "_Recv", name);
  tfc_attr_value v = tfc_attr_type(TFC_DT_FLOAT);
  tfc_node_desc_set_attr(d, "tensor_type", &v);
  transfer_attrs(d, from, to, tensor_name);
  return finish_or_fail(d, &to->s, __LINE__);
}

/* A (CPU:0): m = MatMul(x, [[1,2],[3,4]]); _Send(m) as "edge_3_m".
 * B (CPU:1): r = _Recv("edge_3_m"); y = AddV2(r, r); out0 = y. */
typedef struct two {
  fixture a, b;
  tfc_executor *ea, *eb;
} two;

static void two_init(two *t) {
  fixture_init_dev(&t->a, 0);
  fixture_init_dev(&t->b, 1);
  int64_t dw[2] = {2, 2};
  float w[4] = {1, 2, 3, 4};
  tfc_node *x = arg_node(&t->a, "x", TFC_DT_FLOAT, 0);
  tfc_node *wn = const_f32(&t->a, "w", dw, 2, w);
  tfc_node *m = binary(&t->a, "MatMul", "m", x, wn);
  send_node(&t->a, &t->b, "m/_send", m, "edge_3_m");
  tfc_node *r = recv_node(&t->a, &t->b, "m/_recv", "edge_3_m");
  tfc_node *y = binary(&t->b, "AddV2", "y", r, r);
  retval_node(&t->b, "out0", y, 0);
  t->ea = tfc_executor_new(t->a.g, t->a.dev, NULL, &t->a.s);
  t->eb = tfc_executor_new(t->b.g, t->b.dev, NULL, &t->b.s);
  if (!t->ea || !t->eb) tfc_test_fail(__FILE__, __LINE__, "executor: %s%s", tfc_status_msg(&t->a.s), tfc_status_msg(&t->b.s));
}

static void two_fini(two *t) {
  tfc_executor_free(t->ea);
  tfc_executor_free(t->eb);
  fixture_fini(&t->a);
  fixture_fini(&t->b);
}

/* Runs one step of both partitions, started in the given order, and checks B's fetch. */
static void run_pair(two *t, int b_first, int with_pool, float x0, float x1) {
  int64_t dx[2] = {1, 2};
  float xv[2] = {x0, x1};
  tfc_tensor *x = f32(dx, 2, xv);
  tfc_tensor *ret = NULL;
  tfc_call_frame fa = {1, &x, 0, NULL}, fb = {0, NULL, 1, &ret};
  tfc_rendezvous *rv = tfc_rendezvous_new();
  tfc_exec_args aa = {&fa, with_pool ? t->a.pool : NULL, 1, rv, NULL, NULL, 0};
  tfc_exec_args ab = {&fb, with_pool ? t->b.pool : NULL, 1, rv, NULL, NULL, 0};
  step_end ea, eb;
  step_end_init(&ea);
  step_end_init(&eb);
  if (b_first) tfc_executor_run_async(t->eb, &ab, on_step_end, &eb);
  tfc_executor_run_async(t->ea, &aa, on_step_end, &ea);
  if (!b_first) tfc_executor_run_async(t->eb, &ab, on_step_end, &eb);
  step_end_wait(&ea);
  step_end_wait(&eb);
  EXPECT_EQ(ea.done, 1);
  EXPECT_EQ(eb.done, 1);
  if (ea.code || eb.code) tfc_test_fail(__FILE__, __LINE__, "A: %s; B: %s", ea.msg, eb.msg);
  EXPECT_TRUE(ret != NULL);
  /* [x0, x1] @ [[1,2],[3,4]] doubled */
  EXPECT_NEAR(((float *)ret->data)[0], 2 * (x0 + 3 * x1), 0);
  EXPECT_NEAR(((float *)ret->data)[1], 2 * (2 * x0 + 4 * x1), 0);
  EXPECT_EQ(atomic_load(&x->refs), 1);
  tfc_tensor_unref(ret);
  tfc_tensor_unref(x);
  tfc_rendezvous_unref(rv);
}

static void executor_send_recv_joins_two_partitions_in_either_order(void) {
  two t;
  two_init(&t);
  for (int b_first = 0; b_first < 2; b_first++)
    for (int with_pool = 0; with_pool < 2; with_pool++) run_pair(&t, b_first, with_pool, 1, 1);
  two_fini(&t);
}

static void executor_200_steps_reuse_executors_with_fresh_rendezvous(void) {
  two t;
  two_init(&t);
  for (int i = 0; i < 200; i++) run_pair(&t, i & 1, (i >> 1) & 1, (float)i, -1);
  two_fini(&t);
}

/* Waits until r has a receiver waiting (a _Recv got to the rendezvous). */
static void wait_for_receiver(tfc_rendezvous *r) {
  for (int i = 0; i < 10000; i++) {
    tfc_strbuf b;
    tfc_strbuf_init(&b);
    tfc_rendezvous_pending(r, &b);
    size_t n = b.len;
    tfc_strbuf_fini(&b);
    if (n) return;
    struct timespec ts = {0, 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  tfc_test_fail(__FILE__, __LINE__, "no receiver ever waited");
}

static void executor_kernel_error_wakes_the_waiting_partition(void) {
  two t;
  two_init(&t);
  for (int with_pool = 0; with_pool < 2; with_pool++) {
    int64_t dx[2] = {1, 3};
    float xv[3] = {1, 2, 3};
    tfc_tensor *x = f32(dx, 2, xv); /* [1,3] @ [2,2]: MatMul fails */
    tfc_tensor *ret = NULL;
    tfc_call_frame fa = {1, &x, 0, NULL}, fb = {0, NULL, 1, &ret};
    tfc_rendezvous *rv = tfc_rendezvous_new();
    tfc_exec_args aa = {&fa, with_pool ? t.a.pool : NULL, 9, rv, NULL, NULL, 0};
    tfc_exec_args ab = {&fb, with_pool ? t.b.pool : NULL, 9, rv, NULL, NULL, 0};
    step_end eb;
    step_end_init(&eb);
    tfc_executor_run_async(t.eb, &ab, on_step_end, &eb);
    wait_for_receiver(rv);
    tfc_status sa;
    tfc_status_init(&sa);
    EXPECT_EQ(tfc_executor_run(t.ea, &aa, &sa), TFC_INVALID_ARGUMENT);
    EXPECT_STREQ(tfc_status_msg(&sa), "Matrix size-incompatible: In[0]: [1,3], In[1]: [2,2]\n\t [[{{node m}}]] "
                                      "(device: /job:localhost/replica:0/task:0/device:CPU:0)");
    step_end_wait(&eb);
    /* B has no deadline: only the abort can have woken it (a hang fails the test). */
    EXPECT_EQ(eb.code, TFC_INVALID_ARGUMENT);
    EXPECT_STREQ(eb.msg, tfc_status_msg(&sa));
    EXPECT_TRUE(ret == NULL);
    EXPECT_EQ(tfc_rendezvous_aborted(rv), 1);
    tfc_status_fini(&sa);
    tfc_tensor_unref(x);
    tfc_rendezvous_unref(rv);
  }
  two_fini(&t);
}

static void executor_returns_deadline_when_step_rendezvous_times_out(void) {
  two t;
  two_init(&t);
  tfc_tensor *ret = NULL;
  tfc_call_frame fb = {0, NULL, 1, &ret};
  tfc_rendezvous *rv = tfc_rendezvous_new();
  tfc_exec_args ab = {&fb, t.b.pool, 3, rv, NULL, NULL, 0};
  step_end eb;
  step_end_init(&eb);
  tfc_executor_run_async(t.eb, &ab, on_step_end, &eb);
  struct timespec ts = {0, 100 * 1000 * 1000};
  nanosleep(&ts, NULL);
  /* what a session does when the step's deadline passes */
  tfc_strbuf keys;
  tfc_strbuf_init(&keys);
  tfc_rendezvous_pending(rv, &keys);
  tfc_status ds;
  tfc_status_init(&ds);
  tfc_status_set(&ds, TFC_DEADLINE_EXCEEDED, "Timed out waiting for tensor %s", tfc_strbuf_str(&keys));
  char *key = tfc_rendezvous_key(t.a.dev->name, t.a.dev->incarnation, t.b.dev->name, "edge_3_m", 0, 0);
  EXPECT_STREQ(tfc_strbuf_str(&keys), key);
  free(key);
  tfc_rendezvous_abort(rv, &ds);
  step_end_wait(&eb);
  EXPECT_EQ(eb.code, TFC_DEADLINE_EXCEEDED);
  EXPECT_STREQ(eb.msg, tfc_status_msg(&ds));
  EXPECT_TRUE(ret == NULL);
  tfc_strbuf_fini(&keys);
  tfc_status_fini(&ds);
  tfc_rendezvous_unref(rv);
  two_fini(&t);
}

static void executor_starts_no_node_once_rendezvous_is_aborted(void) {
  fixture f;
  fixture_init(&f);
  build_matmul_graph(&f);
  tfc_executor *e = tfc_executor_new(f.g, f.dev, NULL, &f.s);
  if (!e) tfc_test_fail(__FILE__, __LINE__, "executor: %s", tfc_status_msg(&f.s));
  int64_t dx[2] = {1, 2};
  float xv[2] = {1, 1};
  tfc_tensor *x = f32(dx, 2, xv);
  tfc_tensor *rets[2] = {NULL, NULL};
  tfc_call_frame frame = {1, &x, 2, rets};
  tfc_rendezvous *rv = tfc_rendezvous_new();
  tfc_status ab;
  tfc_status_init(&ab);
  tfc_status_set(&ab, TFC_CANCELLED, "Step cancelled by a peer");
  tfc_rendezvous_abort(rv, &ab);
  tfc_exec_args args = {&frame, f.pool, 4, rv, NULL, NULL, 0};
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_executor_run(e, &args, &s), TFC_CANCELLED);
  EXPECT_STREQ(tfc_status_msg(&s), "Step cancelled by a peer");
  EXPECT_TRUE(rets[0] == NULL && rets[1] == NULL);
  EXPECT_EQ(atomic_load(&x->refs), 1);
  tfc_status_fini(&s);
  tfc_status_fini(&ab);
  tfc_rendezvous_unref(rv);
  tfc_tensor_unref(x);
  tfc_executor_free(e);
  fixture_fini(&f);
}

static void executor_recv_errors_without_rendezvous_or_with_wrong_dtype(void) {
  two t;
  two_init(&t);
  tfc_tensor *ret = NULL;
  tfc_call_frame fb = {0, NULL, 1, &ret};
  tfc_exec_args ab = {&fb, NULL, 5, NULL, NULL, NULL, 0};
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_executor_run(t.eb, &ab, &s), TFC_INTERNAL);
  EXPECT_STREQ(tfc_status_msg(&s), "_Recv of tensor 'edge_3_m' needs the step's rendezvous, and the step has none"
                                   "\n\t [[{{node m/_recv}}]] (device: /job:localhost/replica:0/task:0/device:CPU:1)");
  /* an int32 arrives where the graph says float */
  tfc_rendezvous *rv = tfc_rendezvous_new();
  char *key = tfc_rendezvous_key(t.a.dev->name, t.a.dev->incarnation, t.b.dev->name, "edge_3_m", 0, 0);
  int32_t one = 1;
  tfc_status_clear(&s);
  tfc_tensor *i32 = tfc_tensor_scalar(TFC_DT_INT32, &one, &s);
  EXPECT_EQ(tfc_rendezvous_send(rv, key, i32, 0, &s), TFC_OK);
  ab.rendezvous = rv;
  EXPECT_EQ(tfc_executor_run(t.eb, &ab, &s), TFC_INTERNAL);
  EXPECT_STREQ(tfc_status_msg(&s), "_Recv of tensor 'edge_3_m' expects float but received int32"
                                   "\n\t [[{{node m/_recv}}]] (device: /job:localhost/replica:0/task:0/device:CPU:1)");
  EXPECT_TRUE(ret == NULL);
  EXPECT_EQ(atomic_load(&i32->refs), 1);
  tfc_tensor_unref(i32);
  free(key);
  tfc_rendezvous_unref(rv);
  tfc_status_fini(&s);
  two_fini(&t);
}

/* Ping-pong: the test kicks A with x; A sends it over hop 0; B adds 1 and sends it back
 * (hop 1); A passes it on (hop 2) ... for HOPS hops; the last receiver fetches it. Every
 * _Recv waits before the kick, so each hop's continuation starts inside the previous hop's
 * _Send: without a pool this is the recursion the trampoline flattens. */
#define HOPS 400

static void build_ping_pong(two *t) {
  int64_t d1[1] = {1};
  float one = 1;
  tfc_node *cur = recv_node(&t->b, &t->a, "kick", "kick");
  tfc_node *inc = const_f32(&t->b, "one", d1, 1, &one);
  for (int h = 0; h < HOPS; h++) {
    fixture *from = (h & 1) ? &t->b : &t->a, *to = (h & 1) ? &t->a : &t->b;
    char name[32], edge[32];
    snprintf(edge, sizeof edge, "edge_%d_hop", h);
    snprintf(name, sizeof name, "send_%d", h);
    send_node(from, to, name, cur, edge);
    snprintf(name, sizeof name, "recv_%d", h);
    tfc_node *r = recv_node(from, to, name, edge);
    snprintf(name, sizeof name, "step_%d", h);
    cur = (h & 1) ? unary(to, "Identity", name, r) : binary(to, "AddV2", name, r, inc);
  }
  retval_node((HOPS & 1) ? &t->b : &t->a, "out", cur, 0);
  t->ea = tfc_executor_new(t->a.g, t->a.dev, NULL, &t->a.s);
  t->eb = tfc_executor_new(t->b.g, t->b.dev, NULL, &t->b.s);
  if (!t->ea || !t->eb) tfc_test_fail(__FILE__, __LINE__, "executor: %s%s", tfc_status_msg(&t->a.s), tfc_status_msg(&t->b.s));
}

typedef struct kick {
  tfc_rendezvous *rv;
  char *key;
  tfc_tensor *x;
  int code;
} kick;

static void *kick_thread(void *arg) {
  kick *k = arg;
  tfc_status s;
  tfc_status_init(&s);
  k->code = tfc_rendezvous_send(k->rv, k->key, k->x, 0, &s);
  tfc_status_fini(&s);
  return NULL;
}

static void executor_ping_pong_between_partitions_with_and_without_pool(void) {
  two t;
  fixture_init_dev(&t.a, 0);
  fixture_init_dev(&t.b, 1);
  build_ping_pong(&t);
  for (int with_pool = 0; with_pool < 2; with_pool++) {
    int64_t d1[1] = {1};
    float xv = 5;
    tfc_tensor *ret = NULL;
    tfc_call_frame fa = {0, NULL, 1, &ret}, fb = {0, NULL, 0, NULL};
    tfc_rendezvous *rv = tfc_rendezvous_new();
    tfc_exec_args aa = {&fa, with_pool ? t.a.pool : NULL, 6, rv, NULL, NULL, 0};
    tfc_exec_args ab = {&fb, with_pool ? t.b.pool : NULL, 6, rv, NULL, NULL, 0};
    step_end ea, eb;
    step_end_init(&ea);
    step_end_init(&eb);
    tfc_executor_run_async(t.ea, &aa, on_step_end, &ea);
    tfc_executor_run_async(t.eb, &ab, on_step_end, &eb);
    EXPECT_EQ(ea.done + eb.done, 0);
    /* Without pools every continuation runs on the kicking thread, whose 256 KiB stack would
     * not hold HOPS nested ones. */
    kick k = {rv, tfc_rendezvous_key(t.b.dev->name, t.b.dev->incarnation, t.a.dev->name, "kick", 0, 0),
              f32(d1, 1, &xv), -1};
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 256 * 1024);
    pthread_t th;
    EXPECT_EQ(pthread_create(&th, &at, kick_thread, &k), 0);
    pthread_attr_destroy(&at);
    pthread_join(th, NULL);
    EXPECT_EQ(k.code, TFC_OK);
    if (!with_pool) EXPECT_EQ(ea.done + eb.done, 2); /* all of it ran inside that send */
    step_end_wait(&ea);
    step_end_wait(&eb);
    if (ea.code || eb.code) tfc_test_fail(__FILE__, __LINE__, "pool %d: A: %s; B: %s", with_pool, ea.msg, eb.msg);
    EXPECT_TRUE(ret != NULL);
    EXPECT_NEAR(((float *)ret->data)[0], 5 + HOPS / 2, 0);
    tfc_tensor_unref(ret);
    tfc_tensor_unref(k.x);
    free(k.key);
    tfc_rendezvous_unref(rv);
  }
  two_fini(&t);
}

static const tfc_test tests[] = {
    TFC_TEST(cpu_device_has_canonical_name),
    TFC_TEST(executor_runs_matmul_graph_with_call_frame),
    TFC_TEST(executor_diamond_graph_with_inter_op_pool),
    TFC_TEST(executor_node_error_names_node_and_step_returns),
    TFC_TEST(executor_concurrent_runs_from_four_threads),
    TFC_TEST(executor_new_fails_for_missing_kernel),
    TFC_TEST(executor_send_recv_joins_two_partitions_in_either_order),
    TFC_TEST(executor_200_steps_reuse_executors_with_fresh_rendezvous),
    TFC_TEST(executor_kernel_error_wakes_the_waiting_partition),
    TFC_TEST(executor_returns_deadline_when_step_rendezvous_times_out),
    TFC_TEST(executor_starts_no_node_once_rendezvous_is_aborted),
    TFC_TEST(executor_recv_errors_without_rendezvous_or_with_wrong_dtype),
    TFC_TEST(executor_ping_pong_between_partitions_with_and_without_pool),
    {0}};

TFC_TEST_MAIN(tests)
