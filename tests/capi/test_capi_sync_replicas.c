/* Tests of TFC_SyncReplicasOptimizer (include/tfc/sync_replicas.h): the graph it adds, node for
 * node and device for device, against what TensorFlow's Python adds for the same model
 * (tests/fixtures/gen_sync_replicas.py -> sync_replicas.txt); its argument errors; and
 * synchronous training on an in-process cluster (a ps and two or three workers, each worker
 * with its own graph and TFC_MonitoredSession): the global step and the variables after N
 * steps are exact (every worker computes the same gradient, so whichever replicas_to_aggregate
 * gradients a step takes, their mean is known), with backup workers and with one of three
 * workers never starting. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../distributed_runtime/dist_util.h" /* dist_free_ports */
#include "capi_util.h"
#include "tfc/monitored_session.h"
#include "tfc/server.h"
#include "tfc/sync_replicas.h"
#include "tfc/train.h"

/* ---------------- the model of the fixture ---------------- */

typedef struct model {
  TF_Graph *g;
  TFC_Scope *root, *worker;
  TFC_Variable gs, w, b;
  TF_Output grads[2];
  TFC_Optimizer *opt;
} model;

/* global_step and w on ps task 0, b on ps task 1, x and the loss on `worker_dev`;
 * loss = reduce_sum(w * x) + b; GradientDescent(lr) gradients of [w, b]. */
static model build(const char *ps0, const char *ps1, const char *worker_dev, const float *xv, double lr) {
  model m;
  TF_Status *s = TF_NewStatus();
  m.g = TF_NewGraph();
  m.root = TFC_NewRootScope(m.g);
  TFC_Scope *p0 = TFC_ScopeWithDevice(m.root, ps0), *p1 = TFC_ScopeWithDevice(m.root, ps1);
  m.worker = TFC_ScopeWithDevice(m.root, worker_dev);
  m.gs = TFC_GetOrCreateGlobalStep(p0, s);
  OK(s);
  const int64_t two = 2;
  TF_Output w0 = capi_const(m.g, "Const", TF_FLOAT, &two, 1, (float[]){1, 2}, 8, s);
  m.w = TFC_NewVariable(p0, "w", w0, 1, s);
  OK(s);
  TF_Output b0 = TFC_ScalarConst(p1, "b/initial_value", TF_FLOAT, 0.5, s);
  OK(s);
  m.b = TFC_NewVariable(p1, "b", b0, 1, s);
  OK(s);
  TF_OperationDescription *d = TFC_ScopeNewOperation(m.worker, "Const", "x");
  TF_Tensor *xt = TF_AllocateTensor(TF_FLOAT, &two, 1, 8);
  memcpy(TF_TensorData(xt), xv, 8);
  TF_SetAttrTensor(d, "value", xt, s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_Output x = {TF_FinishOperation(d, s), 0};
  OK(s);
  TF_DeleteTensor(xt);
  d = TFC_ScopeNewOperation(m.worker, "Mul", "mul");
  TF_AddInput(d, m.w.value);
  TF_AddInput(d, x);
  TF_Output mul = {capi_finish(d), 0};
  d = TFC_ScopeNewOperation(m.worker, "Const", "Const");
  const int64_t one = 1;
  TF_Tensor *axis = TF_AllocateTensor(TF_INT32, &one, 1, 4);
  *(int32_t *)TF_TensorData(axis) = 0;
  TF_SetAttrTensor(d, "value", axis, s);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_Output ax = {TF_FinishOperation(d, s), 0};
  OK(s);
  TF_DeleteTensor(axis);
  d = TFC_ScopeNewOperation(m.worker, "Sum", "Sum");
  TF_AddInput(d, mul);
  TF_AddInput(d, ax);
  TF_Output sum = {capi_finish(d), 0};
  d = TFC_ScopeNewOperation(m.worker, "AddV2", "add");
  TF_AddInput(d, sum);
  TF_AddInput(d, m.b.value);
  TF_Output loss = {capi_finish(d), 0};
  m.opt = TFC_NewGradientDescentOptimizer(lr, NULL);
  TFC_Variable vars[2] = {m.w, m.b};
  TFC_ComputeGradients(m.opt, m.worker, loss, vars, 2, m.grads, s);
  OK(s);
  TFC_DeleteScope(p0);
  TFC_DeleteScope(p1);
  TF_DeleteStatus(s);
  return m;
}

static void model_free(model *m) {
  TFC_DeleteOptimizer(m->opt);
  TFC_DeleteScope(m->worker);
  TFC_DeleteScope(m->root);
  TF_DeleteGraph(m->g);
}

/* ---------------- the graph against TensorFlow's ---------------- */

/* Node lines ("name op inputs,^ctl [_class=...]") of the graph's nodes from index `from`. */
static void dump_from(TF_Graph *g, size_t from, char *buf, size_t cap, int devices) {
  size_t pos = 0, len = 0;
  TF_Operation *o;
  TF_Status *s = TF_NewStatus();
  buf[0] = 0;
  for (size_t i = 0; (o = TF_GraphNextOperation(g, &pos)) != NULL; i++) {
    if (i < from) continue;
    if (devices) {
      len += (size_t)snprintf(buf + len, cap - len, "%s %s\n", TF_OperationName(o),
                              *TF_OperationDevice(o) ? TF_OperationDevice(o) : "-");
      continue;
    }
    len += (size_t)snprintf(buf + len, cap - len, "%s %s ", TF_OperationName(o), TF_OperationOpType(o));
    int n = TF_OperationNumInputs(o);
    for (int k = 0; k < n; k++) {
      TF_Output src = TF_OperationInput((TF_Input){o, k});
      len += (size_t)snprintf(buf + len, cap - len, "%s%s:%d", k ? "," : "", TF_OperationName(src.oper), src.index);
    }
    TF_Operation *ctl[8];
    int nc = TF_OperationGetControlInputs(o, ctl, 8);
    for (int k = 0; k < nc; k++)
      len += (size_t)snprintf(buf + len, cap - len, "%s^%s", n || k ? "," : "", TF_OperationName(ctl[k]));
    TF_AttrMetadata md = TF_OperationGetAttrMetadata(o, "_class", s);
    if (TF_GetCode(s) == TF_OK && md.list_size > 0) {
      void *vals[4];
      size_t lens[4];
      char store[256];
      TF_OperationGetAttrStringList(o, "_class", vals, lens, 1, store, sizeof store, s);
      len += (size_t)snprintf(buf + len, cap - len, " _class=%.*s", (int)lens[0], (const char *)vals[0]);
    }
    TF_SetStatus(s, TF_OK, "");
    len += (size_t)snprintf(buf + len, cap - len, "\n");
  }
  TF_DeleteStatus(s);
}

static void graph_is_tensorflows_node_for_node(void) {
  model m = build("/job:ps/task:0", "/job:ps/task:1", "/job:worker/task:0", (float[]){3, 4}, 0.1);
  TF_Status *s = TF_NewStatus();
  size_t n0 = (size_t)capi_num_ops(m.g);
  TFC_SyncReplicasOptimizer *sync = TFC_NewSyncReplicasOptimizer(m.opt, 2, 3, NULL, s);
  OK(s);
  TFC_Variable vars[2] = {m.w, m.b};
  TF_Operation *train = TFC_SyncReplicasApplyGradients(sync, m.worker, m.grads, vars, 2, &m.gs, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(train), "Assign_1");
  EXPECT_STREQ(TF_OperationName(TFC_SyncReplicasChiefInitOp(sync)), "sync_replicas/group_deps");
  EXPECT_STREQ(TF_OperationName(TFC_SyncReplicasLocalStepInitOp(sync)), "Assign");
  EXPECT_STREQ(TF_OperationName(TFC_SyncReplicasSyncOp(sync)), "sync_token_q_EnqueueMany");
  EXPECT_STREQ(TF_OperationName(TFC_SyncReplicasQueueRunnerCloseOp(sync, 1)), "sync_token_q_Close_1");
  TF_Operation *tokens = TFC_SyncReplicasInitTokensOp(sync, m.worker, -1, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(tokens), "sync_token_q_EnqueueMany_1");
  static char got[32768];
  dump_from(m.g, n0, got, sizeof got, 0);
  char *want = capi_fixture_section("sync_replicas.txt", "# nodes");
  /* tfc's one difference: the tokens read the global step after the update ("Fill/read",
   * include/tfc/sync_replicas.h says why), where TF's Fill takes the snapshot global_step/read. */
  const char *tf_fill = "Fill Fill Fill/dims:0,global_step/read:0\n";
  char *at = strstr(want, tf_fill);
  EXPECT_TRUE(at != NULL);
  size_t cap = strlen(want) + 256;
  char *adjusted = malloc(cap);
  snprintf(adjusted, cap, "%.*sFill/read Identity global_step:0,^GradientDescent\nFill Fill Fill/dims:0,Fill/read:0\n%s",
           (int)(at - want), want, at + strlen(tf_fill));
  capi_expect_node_lines(got, adjusted, "sync_replicas nodes");
  free(adjusted);
  free(want);
  /* Devices: TF 2.x pins queues to "/device:CPU:*", which tfc's placer does not take; the
   * rest is the same. */
  dump_from(m.g, n0, got, sizeof got, 1);
  want = capi_fixture_section("sync_replicas.txt", "# devices");
  char *cpu;
  while ((cpu = strstr(want, "/device:CPU:*")) != NULL) memmove(cpu, cpu + 13, strlen(cpu + 13) + 1);
  char *fill_dev = strstr(want, "Fill /job:ps/task:0\n");
  EXPECT_TRUE(fill_dev != NULL);
  cap = strlen(want) + 64;
  adjusted = malloc(cap);
  snprintf(adjusted, cap, "%.*sFill/read /job:ps/task:0\n%s", (int)(fill_dev - want), want, fill_dev);
  capi_expect_node_lines(got, adjusted, "sync_replicas devices");
  free(adjusted);
  free(want);
  TFC_DeleteSyncReplicasOptimizer(sync);
  TF_DeleteStatus(s);
  model_free(&m);
}

static void errors_are_tensorflows(void) {
  model m = build("/job:ps/task:0", "/job:ps/task:1", "/job:worker/task:0", (float[]){3, 4}, 0.1);
  TF_Status *s = TF_NewStatus();
  EXPECT_TRUE(TFC_NewSyncReplicasOptimizer(m.opt, 0, 0, NULL, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TFC_SyncReplicasOptimizer *sync = TFC_NewSyncReplicasOptimizer(m.opt, 3, 2, NULL, s);
  OK(s);
  EXPECT_TRUE(TFC_SyncReplicasInitTokensOp(sync, m.worker, -1, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);
  EXPECT_STREQ(TF_Message(s), "get_init_tokens_op() should be called after apply_gradients().");
  TFC_SyncReplicasSetSyncOp(sync, m.w.variable, s);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);
  TFC_Variable vars[2] = {m.w, m.b};
  int n0 = capi_num_ops(m.g);
  EXPECT_TRUE(TFC_SyncReplicasApplyGradients(sync, m.worker, m.grads, vars, 2, NULL, s) == NULL);
  EXPECT_STREQ(TF_Message(s), "Global step is required to check staleness");
  EXPECT_TRUE(TFC_SyncReplicasApplyGradients(sync, m.worker, m.grads, vars, 0, &m.gs, s) == NULL);
  EXPECT_STREQ(TF_Message(s), "Must supply at least one variable");
  EXPECT_EQ(capi_num_ops(m.g), n0); /* nothing added */
  EXPECT_TRUE(TFC_SyncReplicasApplyGradients(sync, m.worker, m.grads, vars, 2, &m.gs, s) != NULL);
  OK(s);
  /* 3 to aggregate of 2 replicas: the first step needs one token more than the workers bring. */
  EXPECT_TRUE(TFC_SyncReplicasInitTokensOp(sync, m.worker, 0, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "Too few tokens to finish the first step: 0 (given) vs 1 (needed)");
  TF_Operation *none = TFC_SyncReplicasInitTokensOp(sync, m.worker, 1, s);
  OK(s);
  EXPECT_STREQ(TF_OperationOpType(none), "QueueEnqueueManyV2");
  /* variable_averages' update after the sync op becomes the chief queue runner's op. */
  TFC_SyncReplicasSetSyncOp(sync, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  TFC_SyncReplicasSetSyncOp(sync, none, s);
  OK(s);
  EXPECT_TRUE(TFC_SyncReplicasSyncOp(sync) == none);
  TFC_DeleteSyncReplicasOptimizer(sync);
  sync = TFC_NewSyncReplicasOptimizer(m.opt, 1, 1, "other", s);
  EXPECT_TRUE(TFC_SyncReplicasApplyGradients(sync, m.worker, m.grads, vars, 2, &m.gs, s) != NULL);
  OK(s);
  TF_Operation *no = TFC_SyncReplicasInitTokensOp(sync, m.worker, 0, s);
  OK(s);
  EXPECT_STREQ(TF_OperationName(no), "no_init_tokens");
  EXPECT_TRUE(TFC_SyncReplicasApplyGradients(sync, m.worker, m.grads, vars, 2, &m.gs, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);
  TFC_DeleteSyncReplicasOptimizer(sync);
  TF_DeleteStatus(s);
  model_free(&m);
}

/* ---------------- training on an in-process cluster ---------------- */

static TF_Server *start_task(const char *cluster, const char *job, int task) {
  TF_Status *s = TF_NewStatus();
  TF_Buffer *def = TFC_NewServerDef(cluster, job, task, 0, NULL, 0, s);
  OK(s);
  TF_Server *srv = TF_NewServer(def->data, def->length, s);
  OK(s);
  TF_DeleteBuffer(def);
  TF_ServerStart(srv, s);
  OK(s);
  TF_DeleteStatus(s);
  return srv;
}

typedef struct replica {
  const char *target;
  int task, is_chief, to_aggregate, total, last_step;
  int64_t final_step;
  float w[2], b;
  int steps;
  char error[512];
} replica;

/* One worker's program: its own graph (between-graph replication), a monitored session on
 * its own task's master, steps until the stop-at-step hook stops it. */
static void *replica_main(void *arg) {
  replica *r = arg;
  char dev[64];
  snprintf(dev, sizeof dev, "/job:worker/task:%d", r->task);
  model m = build("/job:ps/task:0", "/job:ps/task:0", dev, (float[]){3, 4}, 0.1);
  TF_Status *s = TF_NewStatus();
  TFC_SyncReplicasOptimizer *sync = TFC_NewSyncReplicasOptimizer(m.opt, r->to_aggregate, r->total, NULL, s);
  TFC_Variable vars[2] = {m.w, m.b};
  TF_Operation *train = TFC_SyncReplicasApplyGradients(sync, m.worker, m.grads, vars, 2, &m.gs, s);
  TFC_SessionRunHook hook = {0};
  if (TF_GetCode(s) == TF_OK) hook = TFC_SyncReplicasHook(sync, m.worker, (unsigned char)r->is_chief, -1, s);
  TFC_MonitoredSession *ms = NULL;
  if (TF_GetCode(s) == TF_OK) {
    TFC_MonitoredSessionOptions o = {0};
    o.master = r->target;
    o.is_chief = (unsigned char)r->is_chief;
    o.last_step = r->last_step;
    o.recovery_wait_secs = 0.05;
    o.max_wait_secs = 60;
    o.log_step_count_steps = -1;
    o.hooks = &hook;
    o.num_hooks = 1;
    ms = TFC_NewMonitoredSession(m.g, &o, s);
  }
  while (TF_GetCode(s) == TF_OK && !TFC_MonitoredSessionShouldStop(ms) && r->steps < 1000) {
    const TF_Operation *t[] = {train};
    TFC_MonitoredSessionRun(ms, NULL, NULL, NULL, 0, NULL, NULL, 0, t, 1, NULL, s);
    if (TF_GetCode(s) == TF_OK) r->steps++;
  }
  if (TF_GetCode(s) == TF_OK) {
    TF_Output outs[3] = {m.gs.value, m.w.value, m.b.value};
    TF_Tensor *v[3] = {NULL, NULL, NULL};
    TF_SessionRun(TFC_MonitoredSessionRawSession(ms), NULL, NULL, NULL, 0, outs, v, 3, NULL, 0, NULL, s);
    if (TF_GetCode(s) == TF_OK) {
      r->final_step = *(const int64_t *)TF_TensorData(v[0]);
      memcpy(r->w, TF_TensorData(v[1]), 8);
      r->b = *(const float *)TF_TensorData(v[2]);
    }
    for (int i = 0; i < 3; i++) TF_DeleteTensor(v[i]);
  }
  if (TF_GetCode(s) != TF_OK) snprintf(r->error, sizeof r->error, "%s", TF_Message(s));
  TFC_DeleteMonitoredSession(ms);
  TFC_DeleteSyncReplicasOptimizer(sync);
  TF_DeleteStatus(s);
  model_free(&m);
  return NULL;
}

/* A ps and `workers` worker tasks in this process; `running` of the workers train (task 0 is
 * the chief) with replicas_to_aggregate `to_aggregate` of `workers` replicas, to last_step. */
static void train_sync(int workers, int running, int to_aggregate, int last_step) {
  int ports[8];
  dist_free_ports(workers + 1, ports);
  char cluster[256];
  int len = snprintf(cluster, sizeof cluster, "ps=localhost:%d;worker=", ports[0]);
  for (int i = 0; i < workers; i++)
    len += snprintf(cluster + len, sizeof cluster - (size_t)len, "%slocalhost:%d", i ? "," : "", ports[1 + i]);
  TF_Server *servers[8];
  servers[0] = start_task(cluster, "ps", 0);
  for (int i = 0; i < workers; i++) servers[1 + i] = start_task(cluster, "worker", i);
  replica r[8];
  pthread_t th[8];
  char targets[8][64];
  for (int i = 0; i < running; i++) {
    snprintf(targets[i], sizeof targets[i], "grpc://localhost:%d", ports[1 + i]);
    r[i] = (replica){.target = targets[i], .task = i, .is_chief = i == 0, .to_aggregate = to_aggregate,
                     .total = workers, .last_step = last_step};
    if (pthread_create(&th[i], NULL, replica_main, &r[i]) != 0) tfc_test_fail(__FILE__, __LINE__, "pthread_create");
  }
  for (int i = 0; i < running; i++) pthread_join(th[i], NULL);
  for (int i = 0; i < running; i++) {
    if (r[i].error[0]) tfc_test_fail(__FILE__, __LINE__, "worker %d: %s", i, r[i].error);
    /* Every step applied the mean of equal gradients: dw = x = [3, 4], db = 1. */
    EXPECT_EQ(r[i].final_step, last_step);
    EXPECT_NEAR(r[i].w[0], 1 - 0.3 * last_step, 1e-5);
    EXPECT_NEAR(r[i].w[1], 2 - 0.4 * last_step, 1e-5);
    EXPECT_NEAR(r[i].b, 0.5 - 0.1 * last_step, 1e-5);
    EXPECT_TRUE(r[i].steps >= 1);
  }
  TF_Status *s = TF_NewStatus();
  for (int i = 0; i <= workers; i++) {
    TF_ServerStop(servers[i], s);
    TF_ServerJoin(servers[i], s);
    TF_DeleteServer(servers[i]);
  }
  TF_DeleteStatus(s);
}

static void two_workers_train_in_lockstep(void) { train_sync(2, 2, 2, 6); }

/* A backup worker: 2 of 3 replicas are aggregated, all three train. */
static void backup_worker_is_not_waited_for(void) { train_sync(3, 3, 2, 6); }

/* One of three workers never trains: the two others still make every step. */
static void a_missing_worker_does_not_stall_the_steps(void) { train_sync(3, 2, 2, 6); }

static const tfc_test tests[] = {
    TFC_TEST(graph_is_tensorflows_node_for_node),
    TFC_TEST(errors_are_tensorflows),
    TFC_TEST(two_workers_train_in_lockstep),
    TFC_TEST(backup_worker_is_not_waited_for),
    TFC_TEST(a_missing_worker_does_not_stall_the_steps),
    {0},
};
TFC_TEST_MAIN(tests)
