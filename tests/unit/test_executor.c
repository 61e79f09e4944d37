/* Unit tests of the executor on a CPU device, with graphs built through the internal API. */
#include <pthread.h>
#include <stdint.h>

#include "device/device.h"
#include "exec/executor.h"
#include "graph/graph.h"
#include "harness.h"

typedef struct fixture {
  tfc_graph *g;
  tfc_threadpool *pool;
  tfc_device *dev;
  tfc_status s;
} fixture;

static void fixture_init(fixture *f) {
  tfc_status_init(&f->s);
  if (tfc_ops_init(&f->s) != TFC_OK) tfc_test_fail(__FILE__, __LINE__, "ops: %s", tfc_status_msg(&f->s));
  f->g = tfc_graph_new();
  f->pool = tfc_threadpool_new(4, "exec-test");
  f->dev = tfc_cpu_device_new("localhost", 0, 0, 0, f->pool, 2, &f->s);
  if (!f->dev) tfc_test_fail(__FILE__, __LINE__, "device: %s", tfc_status_msg(&f->s));
}

static void fixture_fini(fixture *f) {
  tfc_device_free(f->dev);
  tfc_graph_free(f->g);
  tfc_threadpool_free(f->pool);
  tfc_status_fini(&f->s);
}

static tfc_node *finish_or_fail(tfc_node_desc *d, tfc_status *s, int line) {
  tfc_node *n = tfc_node_desc_finish(d, s);
  if (!n) tfc_test_fail(__FILE__, line, "node: %s", tfc_status_msg(s));
  return n;
}

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
  tfc_executor *e = tfc_executor_new(f.g, f.dev, &f.s);
  if (!e) tfc_test_fail(__FILE__, __LINE__, "executor: %s", tfc_status_msg(&f.s));
  int64_t dx[2] = {1, 2};
  float xv[2] = {1, 1};
  tfc_tensor *x = f32(dx, 2, xv);
  tfc_tensor *rets[2] = {NULL, NULL};
  tfc_call_frame frame = {1, &x, 2, rets};
  tfc_exec_args args = {&frame, NULL, 1, NULL};
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
  tfc_executor *e = tfc_executor_new(f.g, f.dev, &f.s);
  if (!e) tfc_test_fail(__FILE__, __LINE__, "executor: %s", tfc_status_msg(&f.s));
  for (int step = 0; step < 50; step++) {
    tfc_tensor *ret = NULL;
    tfc_call_frame frame = {0, NULL, 1, &ret};
    tfc_exec_args args = {&frame, f.pool, step, NULL};
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
  tfc_executor *e = tfc_executor_new(f.g, f.dev, &f.s);
  if (!e) tfc_test_fail(__FILE__, __LINE__, "executor: %s", tfc_status_msg(&f.s));
  for (int with_pool = 0; with_pool < 2; with_pool++) {
    int64_t dx[2] = {1, 3};
    float xv[3] = {1, 2, 3};
    tfc_tensor *x = f32(dx, 2, xv);
    tfc_tensor *rets[2] = {NULL, NULL};
    tfc_call_frame frame = {1, &x, 2, rets};
    tfc_exec_args args = {&frame, with_pool ? f.pool : NULL, 7, NULL};
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
  tfc_exec_args args = {&frame, f.pool, 8, NULL};
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
    tfc_exec_args args = {&frame, (it & 1) ? w->pool : NULL, w->id * 1000 + it, NULL};
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
  tfc_executor *e = tfc_executor_new(f.g, f.dev, &f.s);
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
  tfc_node *m = binary(&f, "MatMul", "mm_half", a, a);
  retval_node(&f, "out", m, 0);
  tfc_status s;
  tfc_status_init(&s);
  tfc_executor *e = tfc_executor_new(f.g, f.dev, &s);
  EXPECT_TRUE(e == NULL);
  EXPECT_TRUE(!tfc_status_ok(&s));
  EXPECT_CONTAINS(tfc_status_msg(&s), "No OpKernel was registered to support Op 'MatMul'");
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

static const tfc_test tests[] = {
    TFC_TEST(cpu_device_has_canonical_name),
    TFC_TEST(executor_runs_matmul_graph_with_call_frame),
    TFC_TEST(executor_diamond_graph_with_inter_op_pool),
    TFC_TEST(executor_node_error_names_node_and_step_returns),
    TFC_TEST(executor_concurrent_runs_from_four_threads),
    TFC_TEST(executor_new_fails_for_missing_kernel),
    {0}};

TFC_TEST_MAIN(tests)
