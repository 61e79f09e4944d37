/* Tests of the worker (distributed_runtime/worker.h) driven directly, without RPC: the lifetime of its steps
 * and graphs when it is freed while a RunGraph is still finishing. */
#include <pthread.h>
#include <stdint.h>

#include "distributed_runtime/worker.h"
#include "graph/graph.h"
#include "harness.h"
#include "ops/opdef.h"
#include "session/config.h"

#define STEP 7

/* What the RunGraph's completion, the feed's release and a RecvTensor's answer tell the test. */
typedef struct gate {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int run_done;      /* the RunGraph's done callback was called */
  int open;          /* the done callback may return */
  int feed_released; /* the feed's buffer went: the RunGraph let go of everything */
  int recv_answered;
  tfc_status run_status, recv_status;
  float fetched;
} gate;

static void gate_wait(gate *g, const int *flag) {
  pthread_mutex_lock(&g->mu);
  while (!*flag) pthread_cond_wait(&g->cv, &g->mu);
  pthread_mutex_unlock(&g->mu);
}

static void gate_set(gate *g, int *flag) {
  pthread_mutex_lock(&g->mu);
  *flag = 1;
  pthread_cond_broadcast(&g->cv);
  pthread_mutex_unlock(&g->mu);
}

static void feed_release(void *data, size_t size, void *arg) {
  gate *g = arg;
  gate_set(g, &g->feed_released);
  (void)data, (void)size;
}

/* Runs on a pool thread inside the worker's completion of the step, which still holds the
 * step and the graph: it waits until the test lets it return. */
static void run_done(void *arg, const tfc_status *s, tfc_tensor **fetches, int n_fetches) {
  gate *g = arg;
  tfc_status_set(&g->run_status, s->code, "%s", tfc_status_msg(s));
  if (n_fetches == 1 && fetches[0]) g->fetched = ((const float *)fetches[0]->data)[0];
  for (int i = 0; i < n_fetches; i++) tfc_tensor_unref(fetches[i]);
  gate_set(g, &g->run_done);
  gate_wait(g, &g->open);
}

/* The RecvTensor's answer, which comes while the worker is being freed: only now may the
 * RunGraph's completion go on, and the answer returns once it has let go of everything. */
static void recv_done(void *arg, const tfc_status *s, tfc_tensor *t, int is_dead) {
  gate *g = arg;
  tfc_status_set(&g->recv_status, s->code, "%s", tfc_status_msg(s));
  tfc_tensor_unref(t);
  gate_set(g, &g->recv_answered);
  gate_set(g, &g->open);
  gate_wait(g, &g->feed_released);
  (void)is_dead;
}

static tfc_node *node_on(tfc_node_desc *d, const char *device) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_node *n = tfc_node_desc_finish(d, &s);
  if (!n) tfc_test_fail(__FILE__, __LINE__, "node: %s", tfc_status_msg(&s));
  n->assigned_device = strdup(device);
  tfc_status_fini(&s);
  return n;
}

/* A worker freed while a RunGraph has answered but not yet let go of its step and graph (the
 * server has stopped; the master never sent CleanupGraph) waits for it instead of freeing them
 * under it, and a RecvTensor still waiting in the step is answered CANCELLED. */
static void free_waits_for_a_run_still_letting_go(void) {
  tfc_status s;
  tfc_status_init(&s);
  EXPECT_EQ(tfc_ops_init(&s), TFC_OK);
  tfc_session_config cfg;
  tfc_session_config_init(&cfg);
  tfc_worker *w = tfc_worker_new("test", 0, &cfg, NULL, NULL, &s);
  tfc_session_config_fini(&cfg);
  EXPECT_TRUE(w != NULL);
  const char *dev = tfc_worker_device(w, 0)->name;
  EXPECT_STREQ(dev, "/job:test/replica:0/task:0/device:CPU:0");

  /* out = x */
  tfc_graph *graph = tfc_graph_new();
  tfc_node_desc *d = tfc_node_desc_new(graph, "_Arg", "x");
  tfc_attr_value v = tfc_attr_type(TFC_DT_FLOAT);
  tfc_node_desc_set_attr(d, "T", &v);
  v = tfc_attr_int(0);
  tfc_node_desc_set_attr(d, "index", &v);
  tfc_node *x = node_on(d, dev);
  d = tfc_node_desc_new(graph, "_Retval", "out");
  tfc_node_desc_add_input(d, (tfc_endpoint){x, 0});
  v = tfc_attr_int(0);
  tfc_node_desc_set_attr(d, "index", &v);
  node_on(d, dev);
  char *handle = NULL;
  EXPECT_EQ(tfc_worker_register_graph(w, "session", graph, &handle, &s), TFC_OK);

  gate g = {.run_done = 0};
  pthread_mutex_init(&g.mu, NULL);
  pthread_cond_init(&g.cv, NULL);
  tfc_status_init(&g.run_status);
  tfc_status_init(&g.recv_status);
  static float value = 2.5f;
  int64_t dims[1] = {1};
  tfc_tensor *feed = tfc_tensor_wrap(TFC_DT_FLOAT, dims, 1, &value, sizeof value, feed_release, &g, &s);
  EXPECT_TRUE(feed != NULL);
  /* Not inline: the partition runs, and completes, on the worker's pool. */
  tfc_worker_run_graph(w, handle, STEP, &feed, 1, 0, 0, run_done, &g);
  tfc_tensor_unref(feed);
  gate_wait(&g, &g.run_done);
  EXPECT_EQ(g.run_status.code, TFC_OK);
  EXPECT_NEAR(g.fetched, 2.5f, 0);

  /* A RecvTensor for a tensor this step never sends waits in the step. */
  char key[256];
  snprintf(key, sizeof key, "%s;0000000000000001;%s;never_sent:0;0:0", dev, dev);
  tfc_worker_recv_tensor(w, STEP, key, recv_done, &g);
  EXPECT_EQ(g.recv_answered, 0);
  EXPECT_EQ(tfc_worker_num_steps(w), 1);

  tfc_worker_free(w);
  EXPECT_EQ(g.recv_answered, 1);
  EXPECT_EQ(g.feed_released, 1);
  EXPECT_EQ(g.recv_status.code, TFC_CANCELLED);
  EXPECT_STREQ(tfc_status_msg(&g.recv_status),
               "Step 7 was cancelled: the worker /job:test/replica:0/task:0 is shutting down");

  free(handle);
  tfc_status_fini(&g.run_status);
  tfc_status_fini(&g.recv_status);
  pthread_cond_destroy(&g.cv);
  pthread_mutex_destroy(&g.mu);
  tfc_status_fini(&s);
}

static const tfc_test tests[] = {
    TFC_TEST(free_waits_for_a_run_still_letting_go),
    {0},
};

TFC_TEST_MAIN(tests)
