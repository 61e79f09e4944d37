/* Control flow across the tasks of a cluster: `tfc server` tasks in two processes on 127.0.0.1
 * (tools/tfc_server.c) and this process as the client. TF-made loops and conds
 * (tests/fixtures/cf_*.pb with TensorFlow's values in NAME.expect, and fn_call_while.pb) run
 * with their nodes spread over the two tasks, two CPU devices each, and give TensorFlow's
 * values: control loops per task and device, in-loop transfers keyed per frame and
 * iteration, dead tokens carried by RecvTensor (is_dead). A deadline ends a loop spread over
 * both tasks with DEADLINE_EXCEEDED and leaves the cluster usable.
 *
 * Every wait has a hang guard (dist_util.h) and every spawned task dies with the test. */
#include "../capi/cf_spread.h"
#include "../fixtures/expect_file.h"
#include "dist_util.h"

static const char *const DEVS[4] = {"/job:local/replica:0/task:0/device:CPU:0", "/job:local/replica:0/task:1/device:CPU:0",
                                    "/job:local/replica:0/task:0/device:CPU:1", "/job:local/replica:0/task:1/device:CPU:1"};

typedef struct cluster {
  dist_task *t[2];
} cluster;

static void cluster_start(cluster *c) {
  char spec[128];
  int ports[2];
  dist_local_cluster(spec, sizeof spec, ports);
  for (int i = 0; i < 2; i++) c->t[i] = dist_server_start(spec, "local", i, "--cpus", "2");
}

static void cluster_stop(cluster *c) {
  for (int i = 1; i >= 0; i--) dist_task_free(c->t[i]);
}

/* Round-robin over the four devices alternates tasks node by node; pairs of neighbours
 * go to the same device, then to the other task. */
static void run_on_cluster(cluster *c, const char *name, int pattern) {
  fixture fx;
  load_fixture(name, &fx);
  char file[256];
  snprintf(file, sizeof file, "%s.pb", name);
  TF_Graph *g = cf_spread_graph(file, DEVS, 4, pattern);
  dist_config cfg = {.operation_timeout_in_ms = DIST_STEP_GUARD_MS};
  TF_Session *sess = dist_session(g, c->t[0]->target, &cfg);
  expect_run(&fx, g, sess, 2);
  dist_session_free(sess);
  TF_DeleteGraph(g);
  free_fixture(&fx);
}

static const char *const CF_FIXTURES[] = {"cf_cond",          "cf_nested_cond",   "cf_while_counter", "cf_while_par1",
                                          "cf_while_par10",   "cf_nested_while",  "cf_while_in_cond", "cf_cond_in_while",
                                          "cf_while_zero_trip", "cf_dead_loop_exit"};

static void tf_loops_and_conds_across_two_tasks(void) {
  cluster c;
  cluster_start(&c);
  for (size_t i = 0; i < sizeof CF_FIXTURES / sizeof CF_FIXTURES[0]; i++)
    for (int pattern = 0; pattern < 2; pattern++) run_on_cluster(&c, CF_FIXTURES[i], pattern);
  cluster_stop(&c);
}

/* A cond whose branches each span both tasks: the untaken one's tensors cross tasks as dead
 * tokens (RecvTensorResponse.is_dead), and the Merge on task 1 takes the live one. Fetching
 * the untaken branch fails as TF's worker fails it: "The tensor returned for ... was not
 * valid." */
static void untaken_branch_across_two_tasks_goes_dead(void) {
  cluster c;
  cluster_start(&c);
  TF_Graph *g = TF_NewGraph();
  cf_dead_branch db = cf_dead_branch_build(g, DEVS);
  dist_config cfg = {.operation_timeout_in_ms = DIST_STEP_GUARD_MS};
  TF_Session *sess = dist_session(g, c.t[0]->target, &cfg);
  cf_dead_branch_check(&db, sess, "was not valid.");
  dist_session_free(sess);
  TF_DeleteGraph(g);
  cluster_stop(&c);
}

static TF_Tensor *i32_scalar(int v) {
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, NULL, 0, sizeof(int32_t));
  *(int32_t *)TF_TensorData(t) = v;
  return t;
}

/* A lowered StatelessWhile (nested call, nested loop) whose inputs and outputs sit on both
 * tasks: the same values as with every node on task 0's first device. */
static void while_call_across_two_tasks_matches_one_device(void) {
  cluster c;
  cluster_start(&c);
  TF_Graph *g1 = cf_spread_graph("fn_call_while.pb", DEVS, 1, CF_SPREAD_ROUND_ROBIN);
  TF_Graph *g4 = cf_spread_graph("fn_call_while.pb", DEVS, 4, CF_SPREAD_ROUND_ROBIN);
  TF_Status *s = TF_NewStatus();
  dist_config cfg = {.operation_timeout_in_ms = DIST_STEP_GUARD_MS};
  TF_Session *remote = dist_session(g4, c.t[0]->target, &cfg);
  TF_Session *local_on_t0 = dist_session(g1, c.t[0]->target, &cfg); /* every node on task 0, CPU:0 */
  const float xv[6] = {0.5f, -1.0f, 1.5f, 2.0f, -2.5f, 3.0f};
  int64_t dims[2] = {2, 3};
  for (int nv = 0; nv <= 3; nv += 3) {
    TF_Tensor *x = TF_AllocateTensor(TF_FLOAT, dims, 2, sizeof xv);
    memcpy(TF_TensorData(x), xv, sizeof xv);
    TF_Tensor *fv[2] = {x, i32_scalar(nv)};
    TF_Tensor *v1[2] = {NULL, NULL}, *v4[2] = {NULL, NULL};
    TF_Output f1[2] = {{TF_GraphOperationByName(g1, "x"), 0}, {TF_GraphOperationByName(g1, "n"), 0}};
    TF_Output o1[2] = {{TF_GraphOperationByName(g1, "acc_out"), 0}, {TF_GraphOperationByName(g1, "i_out"), 0}};
    TF_Output f4[2] = {{TF_GraphOperationByName(g4, "x"), 0}, {TF_GraphOperationByName(g4, "n"), 0}};
    TF_Output o4[2] = {{TF_GraphOperationByName(g4, "acc_out"), 0}, {TF_GraphOperationByName(g4, "i_out"), 0}};
    TF_SessionRun(local_on_t0, NULL, f1, fv, 2, o1, v1, 2, NULL, 0, NULL, s);
    if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "one device: %s", TF_Message(s));
    TF_SessionRun(remote, NULL, f4, fv, 2, o4, v4, 2, NULL, 0, NULL, s);
    if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "two tasks: %s", TF_Message(s));
    for (int i = 0; i < 2; i++) {
      EXPECT_EQ(TF_TensorByteSize(v1[i]), TF_TensorByteSize(v4[i]));
      EXPECT_TRUE(memcmp(TF_TensorData(v1[i]), TF_TensorData(v4[i]), TF_TensorByteSize(v1[i])) == 0);
    }
    EXPECT_EQ(*(int32_t *)TF_TensorData(v4[1]), nv);
    for (int i = 0; i < 2; i++) {
      TF_DeleteTensor(fv[i]);
      TF_DeleteTensor(v1[i]);
      TF_DeleteTensor(v4[i]);
    }
  }
  dist_session_free(remote);
  dist_session_free(local_on_t0);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g1);
  TF_DeleteGraph(g4);
  cluster_stop(&c);
}

/* A loop of 2^31 - 1 trips over both tasks: the step's deadline aborts it on every task
 * (waiting _Recvs inside the loop wake there), and a short loop runs afterwards. */
static void deadline_ends_a_loop_across_two_tasks(void) {
  cluster c;
  cluster_start(&c);
  TF_Graph *g = cf_spread_graph("cf_while_counter.pb", DEVS, 4, CF_SPREAD_ROUND_ROBIN);
  dist_config cfg = {.operation_timeout_in_ms = 500};
  TF_Session *sess = dist_session(g, c.t[0]->target, &cfg);
  TF_Status *s = TF_NewStatus();
  TF_Output in = {TF_GraphOperationByName(g, "n"), 0}, out = {TF_GraphOperationByName(g, "s_out"), 0};
  TF_Tensor *n = i32_scalar(2147483647), *v = NULL;
  TF_SessionRun(sess, NULL, &in, &n, 1, &out, &v, 1, NULL, 0, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_DEADLINE_EXCEEDED);
  EXPECT_TRUE(v == NULL);
  TF_DeleteTensor(n);
  n = i32_scalar(7);
  TF_SessionRun(sess, NULL, &in, &n, 1, &out, &v, 1, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "after the deadline: %s", TF_Message(s));
  EXPECT_EQ(*(int32_t *)TF_TensorData(v), 91);
  TF_DeleteTensor(v);
  TF_DeleteTensor(n);
  dist_session_free(sess);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
  cluster_stop(&c);
}

static const tfc_test tests[] = {
    TFC_TEST(tf_loops_and_conds_across_two_tasks),
    TFC_TEST(untaken_branch_across_two_tasks_goes_dead),
    TFC_TEST(while_call_across_two_tasks_matches_one_device),
    TFC_TEST(deadline_ends_a_loop_across_two_tasks),
    {0},
};

TFC_TEST_MAIN(tests)
