/*
 * Seeds 003 and 004 train the same on the GPU as on the CPU: one graph, two sessions — one
 * with device_count {"GPU": 0} (everything on CPU:0), one with the GPU visible (every op with
 * a GPU kernel goes to GPU:0 by default, TF's device priority) — the same graph-level and op
 * seeds, the same fed data; the losses of every step must agree.
 *
 * Seed 003: the MLP TensorFlow's Python wrote (fixtures/train_mlp_adam.pb: tanh layers, sum of
 * squares, Adam 0.01), 20 steps on 100 fixed rows. Seed 004: its CNN (conv 5x5x32, pool,
 * conv 5x5x64, pool, fc 1024, fc 10, sparse softmax cross-entropy, SGD) built with
 * tfc/train.h, 5 steps on a fixed batch of 8 synthetic images; deterministic: no dropout, and
 * the initializers are seeded. Its learning rate is 0.0005, not the seed's 0.01: on one small
 * random batch 0.01 makes the loss jump (11 -> 21 -> 9), and such a run amplifies rounding
 * differences step after step; at 0.0005 the loss falls smoothly (11.1 -> 3.1 in 5 steps).
 *
 * Each step fetches the loss in one run and then runs the train op in another, so the loss is
 * always that of the weights before the step, on both devices.
 *
 * Tolerances, and why they are not zero: the GPU's random normals match the CPU's within two
 * ulps (kernels_random_gpu.c), and its reductions, GEMMs and cuDNN convolutions sum in
 * another order (float, FMA, no TF32), so values differ in the last bits. The initial
 * weights must agree within 1e-6 (relative), the loss before any update within 1e-5 (a few
 * ulps through a few hundred-term sums). Later losses: the MLP within 1e-3 — Adam's first
 * updates are lr * m / sqrt(v), about ±lr whatever the gradient's size, so a gradient near
 * zero whose last bits differ can move one weight by up to 2 lr; its effect on the cost is
 * second order, but it is not bounded by rounding — the CNN within 1e-4 — SGD's update is
 * linear in the gradient, so rounding differences stay rounding-sized. A real kernel fault (a
 * wrong transpose, a missing bias, a stale input) moves a loss by far more than either.
 *
 * Skipped without a GPU (build without CUDA, no GPU, or another GPU platform), and under
 * valgrind (the CUDA driver is not valgrind-clean).
 *
 * The same two programs also run everywhere with one fake GPU (device/gpu/gpu_fake.h), which
 * has no arithmetic kernels: the float work stays on the CPU, while the shape math, Reshape and
 * the gradients' shape ops go to GPU:0 and their data crosses into fake device memory, which
 * host code cannot touch. The losses must then equal the CPU-only run's exactly: the mixed
 * placement, partitioning and transfers of real training graphs are checked without a GPU.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../kernels/gpu_compare.c"
#include "device/gpu/gpu_fake.h"
#include "capi_util.h"
#include "tfc/tfc.h"
#include "tfc/train.h"

#define MLP_STEPS 20
#define CNN_STEPS 5
#define CNN_BATCH 8

/* 1 while a test runs with the fake GPU: float ops stay on the CPU, losses agree exactly. */
static int fake;

static void need_gpu(void) {
  if (getenv("TFC_TEST_VALGRIND")) tfc_test_skip("the CUDA driver does not run under valgrind");
  gc_need_gpu();
}

static void install_fake_gpu(void) {
  static const tfc_gpu_fake_spec spec = {"Fake GPU", NULL, 8, 0, (int64_t)4 << 30, 0};
  tfc_status st;
  tfc_status_init(&st);
  if (tfc_gpu_fake_configure(&spec, 1, &st)) tfc_test_fail(__FILE__, __LINE__, "%s", tfc_status_msg(&st));
  tfc_status_fini(&st);
  tfc_gpu_platform_set_for_testing(tfc_gpu_fake_platform());
  fake = 1;
}

/* Where the float work runs in the GPU session. */
static const char *work_device(int gpu) { return gpu && !fake ? "GPU:0" : "CPU:0"; }

/* A session on g: gpu 0 hides the GPUs (device_count {"GPU": 0}); gpu 1 shows them, with
 * GPUOptions.allow_growth so that several GPU tests may share the GPU. */
static TF_Session *new_session(TF_Graph *g, int gpu, TF_Status *s) {
  TF_SessionOptions *o = TF_NewSessionOptions();
  if (gpu) {
    static const unsigned char allow_growth[] = {0x32, 0x02, 0x20, 0x01}; /* gpu_options { allow_growth: true } */
    TF_SetConfig(o, allow_growth, sizeof allow_growth, s);
  } else {
    TFC_SetDeviceCount(o, "GPU", 0, s);
  }
  OK(s);
  TF_Session *sess = TF_NewSession(g, o, s);
  OK(s);
  TF_DeleteSessionOptions(o);
  return sess;
}

static void close_session(TF_Session *sess, TF_Status *s) {
  TF_CloseSession(sess, s);
  OK(s);
  TF_DeleteSession(sess, s);
  OK(s);
}

static TF_Operation *must_op(TF_Graph *g, const char *name) {
  TF_Operation *op = TF_GraphOperationByName(g, name);
  if (!op) tfc_test_fail(__FILE__, __LINE__, "the graph has no operation '%s'", name);
  return op;
}

/* The session placed `op` on a device whose name ends in `want` ("GPU:0", "CPU:0"). */
static void expect_placed(TF_Session *sess, TF_Operation *op, const char *want, TF_Status *s) {
  const char *dev = TFC_SessionOperationDevice(sess, op, s);
  OK(s);
  size_t n = strlen(dev), k = strlen(want);
  if (n < k || strcmp(dev + n - k, want) != 0)
    tfc_test_fail(__FILE__, __LINE__, "%s was placed on %s, not %s", TF_OperationName(op), dev, want);
}

static TF_Tensor *fetch1(TF_Session *sess, TF_Output out, TF_Status *s) {
  TF_Tensor *t = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &out, &t, 1, NULL, 0, NULL, s);
  OK(s);
  return t;
}

/* `steps` times: fetch the loss (fed), then run `train` (fed); losses[i] before step i. */
static void train(TF_Session *sess, const TF_Output *feeds, TF_Tensor *const *vals, int n_feeds, TF_Output loss,
                  TF_Operation *train_op, int steps, double *losses, TF_Status *s) {
  for (int i = 0; i < steps; i++) {
    TF_Tensor *l = NULL;
    TF_SessionRun(sess, NULL, feeds, (TF_Tensor *const *)vals, n_feeds, &loss, &l, 1, NULL, 0, NULL, s);
    OK(s);
    EXPECT_EQ(TF_TensorType(l), TF_FLOAT);
    EXPECT_EQ(TF_NumDims(l), 0);
    losses[i] = *(const float *)TF_TensorData(l);
    TF_DeleteTensor(l);
    TF_SessionRun(sess, NULL, feeds, (TF_Tensor *const *)vals, n_feeds, NULL, NULL, 0,
                  (const TF_Operation *const *)&train_op, 1, NULL, s);
    OK(s);
  }
}

static void expect_losses_agree(const char *model, const double *gpu, const double *cpu, int steps, double tol0,
                                double tol) {
  for (int i = 0; i < steps; i++) {
    double t = i == 0 ? tol0 : tol, scale = fabs(cpu[i]) > 1 ? fabs(cpu[i]) : 1;
    if (!isfinite(cpu[i]) || !(fabs(gpu[i] - cpu[i]) <= t * scale))
      tfc_test_fail(__FILE__, __LINE__, "%s: loss before step %d is %.9g on the GPU, %.9g on the CPU (tolerance %g)",
                    model, i, gpu[i], cpu[i], t);
  }
  /* Training does something: the loss falls on both. */
  if (!(cpu[steps - 1] < cpu[0]) || !(gpu[steps - 1] < gpu[0]))
    tfc_test_fail(__FILE__, __LINE__, "%s: the loss did not fall: %.9g -> %.9g (CPU), %.9g -> %.9g (GPU)", model,
                  cpu[0], cpu[steps - 1], gpu[0], gpu[steps - 1]);
}

/* ---- seed 003: the MLP TensorFlow wrote ---- */

static void mlp_adam_run(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = capi_load_fixture("train_mlp_adam.pb");
  TF_Output feeds[2] = {{must_op(g, "x"), 0}, {must_op(g, "y"), 0}};
  TF_Output cost = {must_op(g, "cost"), 0}, w1 = {must_op(g, "w1"), 0}, w2 = {must_op(g, "w2"), 0};
  TF_Operation *init = must_op(g, "init_all_vars_op"), *train_op = must_op(g, "train");
  TF_Tensor *vals[2] = {gc_rand(TF_FLOAT, 2, (int64_t[]){100, 32}, -1, 1),
                        gc_rand(TF_FLOAT, 2, (int64_t[]){100, 8}, -1, 1)};
  double losses[2][MLP_STEPS];
  TF_Tensor *w0[2][2];
  for (int gpu = 0; gpu < 2; gpu++) {
    TF_Session *sess = new_session(g, gpu, s);
    TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&init, 1, NULL, s);
    OK(s);
    /* The weights and Adam's update, GEMMs and activations run where the test says. */
    const char *dev = work_device(gpu);
    expect_placed(sess, must_op(g, "w1"), dev, s);
    expect_placed(sess, must_op(g, "MatMul"), dev, s);
    expect_placed(sess, must_op(g, "Tanh"), dev, s);
    expect_placed(sess, must_op(g, "train/update_w1/ApplyAdam"), dev, s);
    expect_placed(sess, must_op(g, "truncated_normal/TruncatedNormal"), dev, s);
    w0[gpu][0] = fetch1(sess, w1, s);
    w0[gpu][1] = fetch1(sess, w2, s);
    train(sess, feeds, vals, 2, cost, train_op, MLP_STEPS, losses[gpu], s);
    close_session(sess, s);
  }
  gc_compare("initial w1 (seeded truncated normal)", w0[1][0], w0[0][0], fake ? 0 : 1e-6);
  gc_compare("initial w2 (seeded truncated normal)", w0[1][1], w0[0][1], fake ? 0 : 1e-6);
  expect_losses_agree("seed 003 MLP, Adam", losses[1], losses[0], MLP_STEPS, fake ? 0 : 1e-5, fake ? 0 : 1e-3);
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 2; k++) TF_DeleteTensor(w0[i][k]);
  TF_DeleteTensor(vals[0]);
  TF_DeleteTensor(vals[1]);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void mlp_adam_trains_the_same_on_gpu_and_cpu(void) {
  need_gpu();
  mlp_adam_run();
}

static void mlp_adam_trains_the_same_beside_a_fake_gpu(void) {
  install_fake_gpu();
  mlp_adam_run();
}

/* ---- seed 004: the CNN, built with tfc/train.h ---- */

static TF_Output finish(TF_OperationDescription *d, TF_Status *s) {
  TF_Operation *op = TF_FinishOperation(d, s);
  OK(s);
  return (TF_Output){op, 0};
}

static TF_Output op2(const TFC_Scope *sc, const char *type, const char *name, TF_Output a, TF_Output b,
                     TF_Status *s) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, type, name);
  TF_AddInput(d, a);
  if (b.oper) TF_AddInput(d, b);
  return finish(d, s);
}

static TF_Output const_of(const TFC_Scope *sc, TF_Tensor *t, TF_Status *s) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Const", NULL);
  TF_SetAttrTensor(d, "value", t, s);
  OK(s);
  TF_SetAttrType(d, "dtype", TF_TensorType(t));
  TF_DeleteTensor(t);
  return finish(d, s);
}

/* weights [dims] from truncated_normal(stddev 0.1), biases 0.1, as the seed. */
static void cnn_weights(const TFC_Scope *sc, const int64_t *dims, int nd, TF_Output *w, TF_Output *b, TF_Status *s) {
  *w = TFC_NewVariable(sc, "weights", TFC_TruncatedNormal(sc, dims, nd, 0.0, 0.1, TF_FLOAT, 0, s), 1, s).value;
  OK(s);
  int64_t n = dims[nd - 1];
  TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, &n, 1, (size_t)n * sizeof(float));
  for (int64_t i = 0; i < n; i++) ((float *)TF_TensorData(t))[i] = 0.1f;
  *b = TFC_NewVariable(sc, "biases", const_of(sc, t, s), 1, s).value;
  OK(s);
}

/* conv 5x5 SAME + bias + ReLU + max-pool 2x2 stride 2 SAME, in scope `name`. */
static TF_Output cnn_conv(const TFC_Scope *root, const char *name, TF_Output x, int64_t cin, int64_t cout,
                          TF_Status *s) {
  TFC_Scope *sc = TFC_NewSubScope(root, name);
  TF_Output w, b;
  cnn_weights(sc, (int64_t[]){5, 5, cin, cout}, 4, &w, &b, s);
  static const int64_t ones[4] = {1, 1, 1, 1}, two[4] = {1, 2, 2, 1};
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Conv2D", NULL);
  TF_AddInput(d, x);
  TF_AddInput(d, w);
  TF_SetAttrIntList(d, "strides", ones, 4);
  TF_SetAttrString(d, "padding", "SAME", 4);
  TF_Output c = finish(d, s);
  TF_Output r = op2(sc, "Relu", NULL, op2(sc, "BiasAdd", NULL, c, b, s), (TF_Output){0}, s);
  d = TFC_ScopeNewOperation(sc, "MaxPool", NULL);
  TF_AddInput(d, r);
  TF_SetAttrIntList(d, "ksize", two, 4);
  TF_SetAttrIntList(d, "strides", two, 4);
  TF_SetAttrString(d, "padding", "SAME", 4);
  TF_Output p = finish(d, s);
  TFC_DeleteScope(sc);
  return p;
}

static TF_Output cnn_fc(const TFC_Scope *root, const char *name, TF_Output x, int64_t in, int64_t out, int relu,
                        TF_Status *s) {
  TFC_Scope *sc = TFC_NewSubScope(root, name);
  TF_Output w, b;
  cnn_weights(sc, (int64_t[]){in, out}, 2, &w, &b, s);
  TF_Output y = op2(sc, "BiasAdd", NULL, op2(sc, "MatMul", NULL, x, w, s), b, s);
  if (relu) y = op2(sc, "Relu", NULL, y, (TF_Output){0}, s);
  TFC_DeleteScope(sc);
  return y;
}

static void cnn_sgd_run(void) {
  TF_Status *s = TF_NewStatus();
  TF_Graph *g = TF_NewGraph();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_SetRandomSeed(g, 4);
  TF_OperationDescription *d = TFC_ScopeNewOperation(root, "Placeholder", "images");
  TF_SetAttrType(d, "dtype", TF_FLOAT);
  TF_SetAttrShape(d, "shape", (int64_t[]){-1, 28, 28, 1}, 4);
  TF_Output x = finish(d, s);
  d = TFC_ScopeNewOperation(root, "Placeholder", "labels");
  TF_SetAttrType(d, "dtype", TF_INT64);
  TF_SetAttrShape(d, "shape", (int64_t[]){-1}, 1);
  TF_Output labels = finish(d, s);
  TF_Output h = cnn_conv(root, "conv1", x, 1, 32, s);
  h = cnn_conv(root, "conv2", h, 32, 64, s);
  h = op2(root, "Reshape", "flatten", h, const_of(root, gc_ints((const int32_t[]){-1, 7 * 7 * 64}, 2), s), s);
  h = cnn_fc(root, "local3", h, 7 * 7 * 64, 1024, 1, s);
  TF_Output logits = cnn_fc(root, "softmax_linear", h, 1024, 10, 0, s);
  TF_Output xent = op2(root, "SparseSoftmaxCrossEntropyWithLogits", "xent", logits, labels, s);
  TF_Output loss = op2(root, "Mean", "loss", xent, const_of(root, gc_ints((const int32_t[]){0}, 1), s), s);
  TFC_Optimizer *sgd = TFC_NewGradientDescentOptimizer(0.0005, NULL);
  TF_Operation *train_op = TFC_Minimize(sgd, root, loss, NULL, "train", s);
  OK(s);
  TF_Operation *init = TFC_GlobalVariablesInitializer(root, "init", s);
  OK(s);

  TF_Output feeds[2] = {x, labels};
  TF_Tensor *vals[2] = {gc_rand(TF_FLOAT, 4, (int64_t[]){CNN_BATCH, 28, 28, 1}, 0, 1),
                        gc_rand(TF_INT64, 1, (int64_t[]){CNN_BATCH}, 0, 10)};
  double losses[2][CNN_STEPS];
  TF_Tensor *w0[2];
  for (int gpu = 0; gpu < 2; gpu++) {
    TF_Session *sess = new_session(g, gpu, s);
    TF_SessionRun(sess, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)&init, 1, NULL, s);
    OK(s);
    const char *dev = work_device(gpu);
    expect_placed(sess, must_op(g, "conv1/Conv2D"), dev, s);
    expect_placed(sess, must_op(g, "conv2/MaxPool"), dev, s);
    expect_placed(sess, must_op(g, "local3/MatMul"), dev, s);
    expect_placed(sess, must_op(g, "conv1/weights"), dev, s);
    w0[gpu] = fetch1(sess, (TF_Output){must_op(g, "conv2/weights"), 0}, s);
    train(sess, feeds, vals, 2, loss, train_op, CNN_STEPS, losses[gpu], s);
    /* The backward pass ran where the forward did. */
    expect_placed(sess, must_op(g, "gradients/conv1/Conv2D_grad/Conv2DBackpropFilter"), dev, s);
    /* Reshape moves no data: it runs on the GPU in both GPU sessions, real or fake. */
    expect_placed(sess, must_op(g, "flatten"), gpu ? "GPU:0" : "CPU:0", s);
    close_session(sess, s);
  }
  gc_compare("initial conv2/weights (seeded truncated normal)", w0[1], w0[0], fake ? 0 : 1e-6);
  expect_losses_agree("seed 004 CNN, SGD", losses[1], losses[0], CNN_STEPS, fake ? 0 : 1e-5, fake ? 0 : 1e-4);
  TF_DeleteTensor(w0[0]);
  TF_DeleteTensor(w0[1]);
  TF_DeleteTensor(vals[0]);
  TF_DeleteTensor(vals[1]);
  TFC_DeleteOptimizer(sgd);
  TFC_DeleteScope(root);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void cnn_sgd_trains_the_same_on_gpu_and_cpu(void) {
  need_gpu();
  cnn_sgd_run();
}

static void cnn_sgd_trains_the_same_beside_a_fake_gpu(void) {
  /* Its convolutions take minutes under valgrind; the MLP's run covers the same paths there. */
  if (getenv("TFC_TEST_VALGRIND")) tfc_test_skip("the CNN's convolutions are too slow under valgrind");
  install_fake_gpu();
  cnn_sgd_run();
}

static const tfc_test tests[] = {
    TFC_TEST(mlp_adam_trains_the_same_on_gpu_and_cpu),
    TFC_TEST(cnn_sgd_trains_the_same_on_gpu_and_cpu),
    TFC_TEST(mlp_adam_trains_the_same_beside_a_fake_gpu),
    TFC_TEST(cnn_sgd_trains_the_same_beside_a_fake_gpu),
    {0},
};

TFC_TEST_MAIN(tests)
