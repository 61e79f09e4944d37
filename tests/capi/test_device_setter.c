/*
 * test_device_setter — TFC_ReplicaDeviceSetter and scope device functions: the graphs of
 * tests/fixtures/gen_device_setter.py rebuilt with tfc's C builders under the setter, every
 * node's device compared with the one TensorFlow's replica_device_setter gave it (fixture
 * device_setter.txt); then the setter's own rules and errors, and device functions on scopes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capi_util.h"
#include "tensorflow/c/c_api.h"
#include "tfc/device_setter.h"
#include "tfc/train.h"

/* ---- building the fixture's graphs ---- */

static TF_Output placeholder(const TFC_Scope *sc, const char *name, const int64_t *dims, int nd) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Placeholder", name);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", dims, nd);
  return (TF_Output){capi_finish(d), 0};
}

static TF_Output binop(const TFC_Scope *sc, const char *type, const char *name, TF_Output a, TF_Output b) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, type, name);
  TF_AddInput(d, a);
  TF_AddInput(d, b);
  return (TF_Output){capi_finish(d), 0};
}

static TF_Output int_vector(const TFC_Scope *sc, const char *name, const int32_t *v, int n) {
  int64_t dims[1] = {n};
  TF_Status *s = TF_NewStatus();
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, dims, 1, sizeof *v * (size_t)n);
  memcpy(TF_TensorData(t), v, sizeof *v * (size_t)n);
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Const", name);
  TF_SetAttrTensor(d, "value", t, s);
  OK(s);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_DeleteTensor(t);
  TF_DeleteStatus(s);
  return (TF_Output){capi_finish(d), 0};
}

/* tf.Variable(tf.zeros([n...]), name=name) under sc. */
static TFC_Variable zeros_variable(const TFC_Scope *sc, const char *name, const int64_t *dims, int nd) {
  TF_Status *s = TF_NewStatus();
  TF_Output z = TFC_Zeros(sc, dims, nd, TF_FLOAT, s);
  OK(s);
  TFC_Variable v = TFC_NewVariable(sc, name, z, 1, s);
  OK(s);
  TF_DeleteStatus(s);
  return v;
}

static TFC_Variable zeros_variable1(const TFC_Scope *sc, const char *name, int64_t n) {
  return zeros_variable(sc, name, &n, 1);
}

/* The fixture's model(): x [4, 3] @ w [3, 2] + b [2], summed as "loss". */
static TF_Output model(const TFC_Scope *sc) {
  int64_t xd[2] = {4, 3}, wd[2] = {3, 2}, bd[1] = {2};
  TF_Output x = placeholder(sc, "x", xd, 2);
  TFC_Variable w = zeros_variable(sc, "w", wd, 2);
  TF_Output y = binop(sc, "MatMul", NULL, x, w.value);
  TFC_Variable b = zeros_variable(sc, "b", bd, 1);
  y = binop(sc, "AddV2", "Add", y, b.value);
  int32_t axes[2] = {0, 1};
  TF_Output ax = int_vector(sc, "Const", axes, 2);
  return binop(sc, "Sum", "loss", y, ax);
}

/* ---- comparing with the fixture ---- */

/* Every node of the fixture section `title` exists in g with TF's op type and device, and g
 * has no other node. Nodes under `loose` (a name prefix, or NULL) are compared only when g has
 * them with TF's type: tfc's gradient walk builds some shapes differently from TF 2.x's (a Shape
 * op where TF folds a Const), which is not the setter's business; their devices still are. */
static void expect_devices_loose(TF_Graph *g, const char *title, const char *loose) {
  char header[256];
  snprintf(header, sizeof header, "# %s\n", title);
  char *sec = capi_fixture_section("device_setter.txt", header);
  int n_want = 0, bad = 0;
  char report[8192] = "";
  size_t used = 0;
  for (char *line = strtok(sec, "\n"); line; line = strtok(NULL, "\n")) {
    char name[256], type[128], dev[256];
    if (sscanf(line, "%255s %127s %255s", name, type, dev) != 3) continue;
    if (!strcmp(dev, "-")) dev[0] = 0;
    n_want++;
    TF_Operation *op = TF_GraphOperationByName(g, name);
    const char *got = op ? TF_OperationDevice(op) : "(missing)";
    const char *got_type = op ? TF_OperationOpType(op) : "(missing)";
    if (loose && !strncmp(name, loose, strlen(loose)) && (!op || strcmp(got_type, type))) continue;
    if (!op || strcmp(got, dev) || strcmp(got_type, type)) {
      bad++;
      if (used < sizeof report - 300)
        used += (size_t)snprintf(report + used, sizeof report - used, "  %s: want %s '%s', got %s '%s'\n", name, type,
                                 dev, got_type, got);
    }
  }
  free(sec);
  if (bad) tfc_test_fail(__FILE__, __LINE__, "%s: %d of %d nodes differ:\n%s", title, bad, n_want, report);
  if (!loose) EXPECT_EQ(capi_num_ops(g), n_want);
}

static void expect_devices(TF_Graph *g, const char *title) { expect_devices_loose(g, title, NULL); }

/* A setter over ps_tasks tasks with the given worker device (NULL: the default). */
static TFC_ReplicaDeviceSetter *setter(int ps_tasks, const char *worker) {
  TF_Status *s = TF_NewStatus();
  TFC_ReplicaDeviceSetter *r = TFC_NewReplicaDeviceSetter(ps_tasks, NULL, worker, 1, NULL, NULL, NULL, 0, s);
  OK(s);
  EXPECT_TRUE(r != NULL);
  TF_DeleteStatus(s);
  return r;
}

static TFC_Scope *under(TF_Graph *g, TFC_ReplicaDeviceSetter *r) {
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Scope *sc = TFC_ScopeWithDeviceFunction(root, TFC_ReplicaDeviceSetterFunction, r);
  TFC_DeleteScope(root);
  EXPECT_TRUE(sc != NULL);
  return sc;
}

static void round_robin_places_variables_on_ps_tasks_in_turn(void) {
  TF_Graph *g = TF_NewGraph();
  TFC_ReplicaDeviceSetter *r = setter(2, NULL);
  TFC_Scope *sc = under(g, r);
  model(sc);
  zeros_variable1(sc, "c", 5);
  expect_devices(g, "round_robin ps_tasks=2");
  TFC_DeleteScope(sc);
  TFC_DeleteReplicaDeviceSetter(r);
  TF_DeleteGraph(g);
}

static void adam_slots_and_global_step_follow_their_variables(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_ReplicaDeviceSetter *r = setter(2, "/job:worker/task:1");
  TFC_Scope *sc = under(g, r);
  TF_Output loss = model(sc);
  TFC_Variable gs = TFC_GetOrCreateGlobalStep(sc, s);
  OK(s);
  TFC_Optimizer *opt = TFC_NewAdamOptimizer(0.1, 0.9, 0.999, 1e-8, NULL);
  TFC_Minimize(opt, sc, loss, &gs, NULL, s);
  OK(s);
  expect_devices_loose(g, "adam worker_device=/job:worker/task:1", "gradients/");
  TFC_DeleteOptimizer(opt);
  TFC_DeleteScope(sc);
  TFC_DeleteReplicaDeviceSetter(r);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void partial_devices_inside_the_setter_merge_over_its_choice(void) {
  TF_Graph *g = TF_NewGraph();
  TFC_ReplicaDeviceSetter *r = setter(3, NULL);
  TFC_Scope *sc = under(g, r);
  const char *reqs[4] = {"/gpu:0", "/job:worker/task:3", "/job:ps/task:2", "/task:1"};
  const char *names[4] = {"v_gpu", "v_worker", "v_ps2", "v_task1"};
  for (int i = 0; i < 4; i++) {
    TFC_Scope *d = TFC_ScopeWithDevice(sc, reqs[i]);
    zeros_variable1(d, names[i], 2);
    TFC_DeleteScope(d);
  }
  zeros_variable1(sc, "v_next", 2);
  TFC_Scope *cpu = TFC_ScopeWithDevice(sc, "/cpu:0");
  TF_Status *s = TF_NewStatus();
  int64_t three = 3;
  /* tf.zeros([3], name="z_cpu"): the Const takes the name. */
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, &three, 1, 3 * sizeof(float));
  memset(TF_TensorData(t), 0, 3 * sizeof(float));
  TF_OperationDescription *desc = TFC_ScopeNewOperation(cpu, "Const", "z_cpu");
  TF_SetAttrTensor(desc, "value", t, s);
  OK(s);
  TF_SetAttrType(desc, "dtype", TF_FLOAT);
  capi_finish(desc);
  TF_DeleteTensor(t);
  expect_devices(g, "partial devices ps_tasks=3");
  TF_DeleteStatus(s);
  TFC_DeleteScope(cpu);
  TFC_DeleteScope(sc);
  TFC_DeleteReplicaDeviceSetter(r);
  TF_DeleteGraph(g);
}

static void an_outer_device_string_merges_under_the_setter(void) {
  TF_Graph *g = TF_NewGraph();
  TFC_ReplicaDeviceSetter *r = setter(2, "/job:worker");
  TFC_Scope *root = TFC_NewRootScope(g), *outer = TFC_ScopeWithDevice(root, "/job:worker/task:7/cpu:0");
  TFC_Scope *sc = TFC_ScopeWithDeviceFunction(outer, TFC_ReplicaDeviceSetterFunction, r);
  zeros_variable1(sc, "v0", 2);
  zeros_variable1(sc, "v1", 2);
  expect_devices(g, "nested outer=/job:worker/task:7/cpu:0");
  TFC_DeleteScope(sc);
  TFC_DeleteScope(outer);
  TFC_DeleteScope(root);
  TFC_DeleteReplicaDeviceSetter(r);
  TF_DeleteGraph(g);
}

static void cluster_spec_gives_the_number_of_ps_tasks(void) {
  const char *clusters[2] = {"ps=ps0:2222,ps1:2222;worker=w0:2222,w1:2222",
                             "worker=w0:2222,w1:2222;ps=ps0:2222,ps1:2222,ps2:2222"};
  for (int k = 0; k < 2; k++) {
    TF_Graph *g = TF_NewGraph();
    TF_Status *s = TF_NewStatus();
    /* ps_tasks 9 is ignored: the cluster says. */
    TFC_ReplicaDeviceSetter *r = TFC_NewReplicaDeviceSetter(9, NULL, NULL, 1, NULL, clusters[k], NULL, 0, s);
    OK(s);
    EXPECT_EQ(TFC_ReplicaDeviceSetterPsTasks(r), k + 2);
    TFC_Scope *sc = under(g, r);
    const char *names[4] = {"v0", "v1", "v2", "v3"};
    for (int i = 0; i < 4; i++) zeros_variable1(sc, names[i], 2);
    expect_devices(g, k == 0 ? "cluster ps=2" : "cluster ps=3");
    TFC_DeleteScope(sc);
    TFC_DeleteReplicaDeviceSetter(r);
    TF_DeleteStatus(s);
    TF_DeleteGraph(g);
  }
}

/* A ClusterDef by hand: job "ps" with three tasks, job "worker" with one. */
static void cluster_def_bytes_give_the_number_of_ps_tasks(void) {
  /* ClusterDef{job: [{name: "ps", tasks: {0: "a:1", 1: "b:1", 2: "c:1"}}, {name: "worker",
   * tasks: {0: "w:1"}}]}: field 1 (JobDef) = name (1), tasks map entries (2: key 1, value 2). */
  unsigned char buf[128];
  size_t n = 0;
  const char *jobs[2] = {"ps", "worker"};
  const char *addrs[2][3] = {{"a:1", "b:1", "c:1"}, {"w:1", NULL, NULL}};
  for (int j = 0; j < 2; j++) {
    unsigned char job[64];
    size_t m = 0;
    job[m++] = 0x0a;
    job[m++] = (unsigned char)strlen(jobs[j]);
    memcpy(job + m, jobs[j], strlen(jobs[j]));
    m += strlen(jobs[j]);
    for (int t = 0; t < 3 && addrs[j][t]; t++) {
      size_t al = strlen(addrs[j][t]);
      job[m++] = 0x12;
      job[m++] = (unsigned char)(2 + 2 + al);
      job[m++] = 0x08;
      job[m++] = (unsigned char)t;
      job[m++] = 0x12;
      job[m++] = (unsigned char)al;
      memcpy(job + m, addrs[j][t], al);
      m += al;
    }
    buf[n++] = 0x0a;
    buf[n++] = (unsigned char)m;
    memcpy(buf + n, job, m);
    n += m;
  }
  TF_Buffer *b = TF_NewBufferFromString(buf, n);
  TF_Status *s = TF_NewStatus();
  TFC_ReplicaDeviceSetter *r = TFC_NewReplicaDeviceSetter(0, NULL, NULL, 1, b, NULL, NULL, 0, s);
  OK(s);
  EXPECT_EQ(TFC_ReplicaDeviceSetterPsTasks(r), 3);
  TFC_DeleteReplicaDeviceSetter(r);
  /* A ps_device naming a job the cluster lacks: no ps tasks, no setter (TF's None). */
  r = TFC_NewReplicaDeviceSetter(0, "/job:params", NULL, 1, b, NULL, NULL, 0, s);
  OK(s);
  EXPECT_TRUE(r == NULL);
  TF_DeleteBuffer(b);
  TF_DeleteStatus(s);
}

static void merge_devices_off_keeps_a_requested_device(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_ReplicaDeviceSetter *r = TFC_NewReplicaDeviceSetter(2, NULL, NULL, 0, NULL, NULL, NULL, 0, s);
  OK(s);
  TFC_Scope *sc = under(g, r), *gpu = TFC_ScopeWithDevice(sc, "/gpu:0");
  zeros_variable1(gpu, "a", 2);
  int64_t two = 2;
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, &two, 1, 2 * sizeof(float));
  memset(TF_TensorData(t), 0, 2 * sizeof(float));
  TF_OperationDescription *d = TFC_ScopeNewOperation(gpu, "Const", "z");
  TF_SetAttrTensor(d, "value", t, s);
  OK(s);
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  capi_finish(d);
  TF_DeleteTensor(t);
  zeros_variable1(sc, "b", 2);
  expect_devices(g, "merge_devices=False");
  TFC_DeleteScope(gpu);
  TFC_DeleteScope(sc);
  TFC_DeleteReplicaDeviceSetter(r);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

static void greedy_strategy_balances_bytes(void) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_ReplicaDeviceSetter *r = setter(3, NULL);
  TFC_ReplicaDeviceSetterUseGreedyStrategy(r, 3, NULL, NULL, s);
  OK(s);
  TFC_Scope *sc = under(g, r);
  const char *names[5] = {"g0", "g1", "g2", "g3", "g4"};
  int64_t sizes[5] = {10, 2, 4, 1, 6};
  for (int i = 0; i < 5; i++) zeros_variable1(sc, names[i], sizes[i]);
  expect_devices(g, "greedy ps_tasks=3");
  TFC_DeleteScope(sc);
  TFC_DeleteReplicaDeviceSetter(r);
  TF_DeleteStatus(s);
  TF_DeleteGraph(g);
}

/* ---- the setter's rules, called directly ---- */

static char *device_of(TFC_ReplicaDeviceSetter *r, const char *type, const char *name, const char *req,
                       TF_Status *s) {
  TF_Buffer *b = TFC_ReplicaDeviceSetterFunction(r, type, name, req, NULL, s);
  if (!b) return NULL;
  char *out = strndup(b->data, b->length);
  TF_DeleteBuffer(b);
  return out;
}

static void no_ps_tasks_gives_no_setter(void) {
  TF_Status *s = TF_NewStatus();
  EXPECT_TRUE(TFC_NewReplicaDeviceSetter(0, NULL, NULL, 1, NULL, NULL, NULL, 0, s) == NULL);
  OK(s);
  /* A cluster without the ps job. */
  EXPECT_TRUE(TFC_NewReplicaDeviceSetter(4, NULL, NULL, 1, NULL, "worker=a:1", NULL, 0, s) == NULL);
  OK(s);
  TF_DeleteStatus(s);
}

static void bad_arguments_are_invalid_argument(void) {
  TF_Status *s = TF_NewStatus();
  EXPECT_TRUE(TFC_NewReplicaDeviceSetter(-1, NULL, NULL, 1, NULL, NULL, NULL, 0, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "ps_tasks must be 0 or more, got -1");
  EXPECT_TRUE(TFC_NewReplicaDeviceSetter(1, "/job:ps/bogus:1", NULL, 1, NULL, NULL, NULL, 0, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "ps_device: Malformed device specification '/job:ps/bogus:1'");
  EXPECT_TRUE(TFC_NewReplicaDeviceSetter(1, NULL, NULL, 1, NULL, "ps=nohost", NULL, 0, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "TFC_NewReplicaDeviceSetter: cluster_spec: job 'ps' task 0: 'nohost' is not host:port");
  TF_Buffer junk = {"\xff\xff\xff", 3, NULL};
  EXPECT_TRUE(TFC_NewReplicaDeviceSetter(1, NULL, NULL, 1, &junk, NULL, NULL, 0, s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "is not a valid serialized ClusterDef");
  TFC_ReplicaDeviceSetter *r = setter(2, NULL);
  TFC_ReplicaDeviceSetterUseStrategy(r, NULL, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_STREQ(TF_Message(s), "ps_strategy must be callable");
  TFC_ReplicaDeviceSetterUseGreedyStrategy(r, 0, NULL, NULL, s);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  /* A malformed requested device names the node. */
  EXPECT_TRUE(device_of(r, "VariableV2", "w", "/job:ps/what", s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "node 'w' (VariableV2): Malformed device specification '/job:ps/what'");
  /* The greedy byte size needs the op. */
  TFC_ReplicaDeviceSetterUseGreedyStrategy(r, 2, NULL, NULL, s);
  OK(s);
  EXPECT_TRUE(device_of(r, "VariableV2", "w", "", s) == NULL);
  EXPECT_EQ(TF_GetCode(s), TF_INVALID_ARGUMENT);
  EXPECT_CONTAINS(TF_Message(s), "op 'w' (VariableV2) is not built yet");
  TFC_DeleteReplicaDeviceSetter(r);
  TF_DeleteStatus(s);
}

static void ps_ops_and_devices_are_the_callers(void) {
  TF_Status *s = TF_NewStatus();
  const char *ops[1] = {"Const"};
  TFC_ReplicaDeviceSetter *r =
      TFC_NewReplicaDeviceSetter(2, "/job:params/cpu:0", "", 1, NULL, NULL, ops, 1, s);
  OK(s);
  char *d = device_of(r, "Const", "c", "", s);
  EXPECT_STREQ(d, "/job:params/task:0/device:CPU:0");
  free(d);
  d = device_of(r, "VariableV2", "v", "/gpu:1", s); /* not a ps op here; no worker device */
  EXPECT_STREQ(d, "/device:GPU:1");
  free(d);
  d = device_of(r, "Const", "c2", "/job:params", s);
  EXPECT_STREQ(d, "/job:params/task:1/device:CPU:0");
  free(d);
  TFC_DeleteReplicaDeviceSetter(r);
  /* An empty ps_device: nothing goes to ps. */
  r = TFC_NewReplicaDeviceSetter(2, "", NULL, 1, NULL, NULL, NULL, 0, s);
  OK(s);
  d = device_of(r, "VariableV2", "v", "", s);
  EXPECT_STREQ(d, "/job:worker");
  free(d);
  TFC_DeleteReplicaDeviceSetter(r);
  EXPECT_TRUE(TFC_ReplicaDeviceSetterStandardPsOp("VarHandleOp"));
  EXPECT_TRUE(TFC_ReplicaDeviceSetterStandardPsOp("ResourceConditionalAccumulator"));
  EXPECT_TRUE(!TFC_ReplicaDeviceSetterStandardPsOp("Assign"));
  TF_DeleteStatus(s);
}

/* A strategy that always picks task 5, counting its calls. */
static int calls;
static int task_five(void *ctx, const char *op_type, const char *op_name, TF_Operation *op, TF_Status *status) {
  (void)ctx, (void)op_type, (void)op_name, (void)op, (void)status;
  calls++;
  return 5;
}
static int failing(void *ctx, const char *op_type, const char *op_name, TF_Operation *op, TF_Status *status) {
  (void)ctx, (void)op_type, (void)op;
  TF_SetStatus(status, TF_FAILED_PRECONDITION, op_name);
  return 0;
}

static void custom_strategy_is_asked_only_for_ps_ops_on_the_ps_job(void) {
  TF_Status *s = TF_NewStatus();
  TFC_ReplicaDeviceSetter *r = setter(2, NULL);
  TFC_ReplicaDeviceSetterUseStrategy(r, task_five, NULL, s);
  OK(s);
  calls = 0;
  char *d = device_of(r, "VariableV2", "v", "", s);
  EXPECT_STREQ(d, "/job:ps/task:5");
  free(d);
  d = device_of(r, "VariableV2", "v", "/job:worker", s);
  EXPECT_STREQ(d, "/job:worker");
  free(d);
  d = device_of(r, "Add", "a", "", s);
  EXPECT_STREQ(d, "/job:worker");
  free(d);
  EXPECT_EQ(calls, 1);
  /* A failing strategy fails the builder call, which leaves the graph as it was. */
  TFC_ReplicaDeviceSetterUseStrategy(r, failing, NULL, s);
  TF_Graph *g = TF_NewGraph();
  TFC_Scope *sc = under(g, r);
  TF_Output z = TFC_Zeros(sc, (int64_t[]){2}, 1, TF_FLOAT, s);
  OK(s);
  TFC_Variable v = TFC_NewVariable(sc, "v", z, 1, s);
  EXPECT_EQ(TF_GetCode(s), TF_FAILED_PRECONDITION);
  EXPECT_CONTAINS(TF_Message(s), "device function for node 'v' (VariableV2): v");
  EXPECT_TRUE(v.variable == NULL);
  EXPECT_TRUE(TF_GraphOperationByName(g, "v") == NULL);
  EXPECT_EQ(capi_num_ops(g), 1);
  TFC_DeleteScope(sc);
  TF_DeleteGraph(g);
  TFC_DeleteReplicaDeviceSetter(r);
  TF_DeleteStatus(s);
}

/* ---- device functions on scopes ---- */

/* Gives "/job:<ctx>" for every op, recording "type:name:device:has_op" of each call. */
static char seen[512];
static TF_Buffer *job_fn(void *ctx, const char *op_type, const char *op_name, const char *device, TF_Operation *op,
                         TF_Status *status) {
  (void)status;
  size_t n = strlen(seen);
  snprintf(seen + n, sizeof seen - n, "%s%s:%s:%s:%d", n ? " " : "", op_type, op_name, device, op != NULL);
  char out[64];
  snprintf(out, sizeof out, "/job:%s", (const char *)ctx);
  return TF_NewBufferFromString(out, strlen(out));
}

static TF_Buffer *refusing_fn(void *ctx, const char *op_type, const char *op_name, const char *device,
                              TF_Operation *op, TF_Status *status) {
  (void)ctx, (void)op_type, (void)op_name, (void)device, (void)op;
  TF_SetStatus(status, TF_INVALID_ARGUMENT, "no device for you");
  return NULL;
}

static void a_failing_device_function_takes_no_name(void) {
  TF_Graph *g = TF_NewGraph();
  TFC_Scope *root = TFC_NewRootScope(g), *bad = TFC_ScopeWithDeviceFunction(root, refusing_fn, NULL);
  EXPECT_TRUE(TFC_ScopeNewOperation(bad, "NoOp", "n") == NULL);
  TF_OperationDescription *d = TFC_ScopeNewOperation(root, "NoOp", "n");
  TF_Operation *op = capi_finish(d);
  EXPECT_STREQ(TF_OperationName(op), "n");
  TFC_DeleteScope(bad);
  TFC_DeleteScope(root);
  TF_DeleteGraph(g);
}

static void scope_device_functions_apply_innermost_first(void) {
  TF_Graph *g = TF_NewGraph();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Scope *a = TFC_ScopeWithDevice(root, "/task:3/cpu:0");
  TFC_Scope *b = TFC_ScopeWithDeviceFunction(a, job_fn, "outer");
  TFC_Scope *c = TFC_ScopeWithDevice(b, "/gpu:1");
  TFC_Scope *d = TFC_ScopeWithDeviceFunction(c, job_fn, "inner");
  TFC_Scope *e = TFC_ScopeWithDevice(d, "/replica:2");
  seen[0] = 0;
  TF_Output p = placeholder(e, "p", NULL, 0);
  /* inner sees "/replica:2", gives /job:inner; "/gpu:1" merges under it; outer sees that and
   * gives /job:outer, under which "/task:3/cpu:0" merges. */
  EXPECT_STREQ(seen, "Placeholder:p:/replica:2:0 Placeholder:p:/job:inner/device:GPU:1:0");
  EXPECT_STREQ(TF_OperationDevice(p.oper), "/job:outer/task:3/device:CPU:0");
  /* Builder nodes are passed finished; a cleared device drops the functions. */
  seen[0] = 0;
  TF_Status *s = TF_NewStatus();
  TF_Output z = TFC_Zeros(d, (int64_t[]){2}, 1, TF_FLOAT, s);
  OK(s);
  EXPECT_STREQ(seen, "Const:zeros::1 Const:zeros:/job:inner/device:GPU:1:1");
  EXPECT_STREQ(TF_OperationDevice(z.oper), "/job:outer/task:3/device:CPU:0"); /* outer's result replaced GPU:1 */
  TFC_Scope *none = TFC_ScopeWithDevice(e, NULL);
  seen[0] = 0;
  TF_Output q = placeholder(none, "q", NULL, 0);
  EXPECT_STREQ(seen, "");
  EXPECT_STREQ(TF_OperationDevice(q.oper), "");
  EXPECT_TRUE(TFC_ScopeWithDeviceFunction(root, NULL, NULL) == NULL);
  TF_DeleteStatus(s);
  TFC_DeleteScope(none);
  TFC_DeleteScope(e);
  TFC_DeleteScope(d);
  TFC_DeleteScope(c);
  TFC_DeleteScope(b);
  TFC_DeleteScope(a);
  TFC_DeleteScope(root);
  TF_DeleteGraph(g);
}

static const tfc_test tests[] = {
    TFC_TEST(round_robin_places_variables_on_ps_tasks_in_turn),
    TFC_TEST(adam_slots_and_global_step_follow_their_variables),
    TFC_TEST(partial_devices_inside_the_setter_merge_over_its_choice),
    TFC_TEST(an_outer_device_string_merges_under_the_setter),
    TFC_TEST(cluster_spec_gives_the_number_of_ps_tasks),
    TFC_TEST(cluster_def_bytes_give_the_number_of_ps_tasks),
    TFC_TEST(merge_devices_off_keeps_a_requested_device),
    TFC_TEST(greedy_strategy_balances_bytes),
    TFC_TEST(no_ps_tasks_gives_no_setter),
    TFC_TEST(bad_arguments_are_invalid_argument),
    TFC_TEST(ps_ops_and_devices_are_the_callers),
    TFC_TEST(custom_strategy_is_asked_only_for_ps_ops_on_the_ps_job),
    TFC_TEST(scope_device_functions_apply_innermost_first),
    TFC_TEST(a_failing_device_function_takes_no_name),
    {0},
};

TFC_TEST_MAIN(tests)
