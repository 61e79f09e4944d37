/*
 * GPU loss and check kernel tests (src/device/cuda/kernels_loss_gpu.c): SoftmaxCrossEntropy-
 * WithLogits (with its broadcasting), SparseSoftmaxCrossEntropyWithLogits, L2Loss, ArgMax /
 * ArgMin, InTopKV2 and CheckNumerics, each against its CPU kernel on the same inputs through a
 * session (gpu_compare.h: data fed through CPU placeholders, the GPU copy pinned without soft
 * placement). Batches of 1, 7 and 129 rows, 1, 10, 1000 and 4099 classes (short rows take a
 * warp, long ones a block), ties and NaNs for ArgMax, half against the float CPU kernel within
 * a loose tolerance. Bad shapes fail on both devices with the CPU kernel's code and text; the
 * two documented differences (an out-of-range sparse label is a NaN row, an out-of-range
 * InTopKV2 target answers false) are checked on the GPU alone. The gradient of a softmax
 * cross-entropy loss built on the GPU (TFC_Gradients) equals the one built on the CPU.
 *
 * Without a CUDA build or a GPU every test skips with the reason.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_compare.c"
#include "tfc/train.h"

/* A float or double tensor of small integers in [0, k): many exact ties, exact in half. */
static TF_Tensor *ties(TF_DataType dt, int nd, const int64_t *dims, int k) {
  TF_Tensor *t = gc_rand(dt, nd, dims, 0, k);
  int64_t n = TF_TensorElementCount(t);
  for (int64_t i = 0; i < n; i++) {
    if (dt == TF_FLOAT) ((float *)TF_TensorData(t))[i] = floorf(((float *)TF_TensorData(t))[i]);
    else ((double *)TF_TensorData(t))[i] = floor(((double *)TF_TensorData(t))[i]);
  }
  return t;
}

static void set_f(TF_Tensor *t, int64_t i, double v) {
  if (TF_TensorType(t) == TF_FLOAT) ((float *)TF_TensorData(t))[i] = (float)v;
  else ((double *)TF_TensorData(t))[i] = v;
}

/* Runs o on the GPU alone (inputs as gc_check's) and returns its n_out outputs (caller
 * deletes them). The op must succeed and run on GPU:0. */
static void gpu_only(const gc_op *o, const gc_arg *args, int n_args, TF_Tensor **outs, int n_out, const char *label) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  gc_inputs in;
  gc_make_inputs(g, o, args, n_args, &in, s, label);
  TF_Operation *op = gc_add_op(g, o, "op", GC_GPU, in.gpu_in, n_args, s, 0, label);
  TF_Output fetch[GC_MAX_OUTPUTS];
  for (int k = 0; k < n_out; k++) fetch[k] = (TF_Output){op, k};
  TF_SessionOptions *opts = TF_NewSessionOptions();
  TF_Session *sess = TF_NewSession(g, opts, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  TF_SessionRun(sess, NULL, in.feeds, in.vals, in.n_feeds, fetch, outs, n_out, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", label, TF_Message(s));
  const char *dev = TFC_SessionOperationDevice(sess, op, s);
  if (!dev || !strstr(dev, "GPU:0")) tfc_test_fail(__FILE__, __LINE__, "%s: placed on %s", label, dev ? dev : "?");
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static const int64_t batches[] = {1, 7, 129};
static const int64_t classes[] = {1, 10, 1000, 4099};

/* ---- SoftmaxCrossEntropyWithLogits ---- */

static void xent_matches_cpu_on_odd_sizes(void) {
  gc_need_gpu();
  static const TF_DataType dts[] = {TF_FLOAT, TF_DOUBLE};
  for (int t = 0; t < 2; t++)
    for (int b = 0; b < 3; b++)
      for (int k = 0; k < 4; k++) {
        int64_t dims[2] = {batches[b], classes[k]};
        gc_arg a[2] = {gc_fed(dts[t], 2, dims, -8, 8), gc_fed(dts[t], 2, dims, 0, 1)};
        gc_op o = {.type = "SoftmaxCrossEntropyWithLogits", .n_outputs = 2};
        char label[96];
        snprintf(label, sizeof label, "xent %s [%lld,%lld]", dts[t] == TF_FLOAT ? "float" : "double",
                 (long long)dims[0], (long long)dims[1]);
        gc_check(&o, a, 2, dts[t] == TF_FLOAT ? 1e-4 : 1e-10, label);
        gc_free_args(a, 2);
      }
}

static void xent_half_matches_float_cpu(void) {
  gc_need_gpu();
  for (int b = 0; b < 3; b++)
    for (int k = 0; k < 4; k++) {
      int64_t dims[2] = {batches[b], classes[k]};
      /* 0/1 labels (exact in half) keep the loss within half's range. */
      gc_arg a[2] = {gc_fed(TF_FLOAT, 2, dims, -3, 3), GC_FED(ties(TF_FLOAT, 2, dims, 2))};
      gc_op o = {.type = "SoftmaxCrossEntropyWithLogits", .n_outputs = 2, .half = 1};
      char label[96];
      snprintf(label, sizeof label, "xent half [%lld,%lld]", (long long)dims[0], (long long)dims[1]);
      gc_check(&o, a, 2, 2e-2, label);
      gc_free_args(a, 2);
    }
}

static void xent_broadcasts_like_cpu(void) {
  gc_need_gpu();
  /* logits dims, labels dims (rank, then dims) */
  static const struct {
    int xn;
    int64_t xd[2];
    int ln;
    int64_t ld[2];
  } cases[] = {
      {2, {7, 10}, 1, {10}},   {2, {7, 10}, 2, {1, 10}}, {2, {7, 10}, 2, {7, 1}},    {2, {1, 1000}, 2, {129, 1000}},
      {1, {1000}, 2, {7, 1000}}, {2, {7, 4099}, 0, {0}},  {2, {129, 1}, 2, {129, 10}}, {2, {7, 1}, 2, {1, 1000}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (int t = 0; t < 2; t++) {
      TF_DataType dt = t ? TF_DOUBLE : TF_FLOAT;
      gc_arg a[2] = {gc_fed(dt, cases[i].xn, cases[i].xd, -5, 5), gc_fed(dt, cases[i].ln, cases[i].ld, 0, 1)};
      gc_op o = {.type = "SoftmaxCrossEntropyWithLogits", .n_outputs = 2};
      char label[64];
      snprintf(label, sizeof label, "xent broadcast case %zu %s", i, t ? "double" : "float");
      gc_check(&o, a, 2, t ? 1e-10 : 1e-4, label);
      gc_free_args(a, 2);
    }
}

static void xent_empty_batch_and_no_classes_match_cpu(void) {
  gc_need_gpu();
  static const int64_t shapes[][2] = {{0, 10}, {7, 0}, {0, 0}};
  for (int i = 0; i < 3; i++) {
    gc_arg a[2] = {gc_fed(TF_FLOAT, 2, shapes[i], -1, 1), gc_fed(TF_FLOAT, 2, shapes[i], 0, 1)};
    gc_op o = {.type = "SoftmaxCrossEntropyWithLogits", .n_outputs = 2};
    gc_check(&o, a, 2, 0, "xent empty");
    gc_free_args(a, 2);
  }
}

static void xent_reports_cpu_errors(void) {
  gc_need_gpu();
  gc_op o = {.type = "SoftmaxCrossEntropyWithLogits", .n_outputs = 2};
  gc_arg a[2] = {gc_fed(TF_FLOAT, 2, (int64_t[]){7, 10}, -1, 1), gc_fed(TF_FLOAT, 2, (int64_t[]){7, 9}, 0, 1)};
  gc_check_error(&o, a, 2, TF_INVALID_ARGUMENT,
                 "logits and labels must be broadcastable: logits_size=[7,10] labels_size=[7,9]",
                 "xent [7,10] vs [7,9]");
  gc_free_args(a, 2);
  gc_arg b[2] = {gc_fed(TF_FLOAT, 3, (int64_t[]){2, 3, 4}, -1, 1), gc_fed(TF_FLOAT, 3, (int64_t[]){2, 3, 4}, 0, 1)};
  gc_check_error(&o, b, 2, TF_INVALID_ARGUMENT,
                 "logits and labels must be either 2-dimensional, or broadcasted to be 2-dimensional", "xent rank 3");
  gc_free_args(b, 2);
}

/* ---- SparseSoftmaxCrossEntropyWithLogits ---- */

static void sparse_xent_matches_cpu_on_odd_sizes(void) {
  gc_need_gpu();
  for (int half = 0; half < 2; half++)
    for (int lt = 0; lt < 2; lt++)
      for (int b = 0; b < 3; b++)
        for (int k = 0; k < 4; k++) {
          int64_t dims[2] = {batches[b], classes[k]};
          gc_arg a[2] = {gc_fed(TF_FLOAT, 2, dims, -8, 8),
                         gc_fed(lt ? TF_INT64 : TF_INT32, 1, dims, 0, (double)classes[k])};
          gc_op o = {.type = "SparseSoftmaxCrossEntropyWithLogits", .n_outputs = 2, .half = half};
          char label[96];
          snprintf(label, sizeof label, "sparse xent %s/%s [%lld,%lld]", half ? "half" : "float",
                   lt ? "int64" : "int32", (long long)dims[0], (long long)dims[1]);
          gc_check(&o, a, 2, half ? 2e-2 : 1e-4, label);
          gc_free_args(a, 2);
        }
}

static void sparse_xent_reports_cpu_shape_errors(void) {
  gc_need_gpu();
  gc_op o = {.type = "SparseSoftmaxCrossEntropyWithLogits", .n_outputs = 2};
  gc_arg a[2] = {gc_fed(TF_FLOAT, 1, (int64_t[]){7}, -1, 1), gc_fed(TF_INT32, 1, (int64_t[]){7}, 0, 1)};
  gc_check_error(&o, a, 2, TF_INVALID_ARGUMENT, "logits must be 2-D, but got shape [7]", "sparse rank 1 logits");
  gc_free_args(a, 2);
  gc_arg b[2] = {gc_fed(TF_FLOAT, 2, (int64_t[]){7, 10}, -1, 1), gc_fed(TF_INT64, 1, (int64_t[]){6}, 0, 10)};
  gc_check_error(&o, b, 2, TF_INVALID_ARGUMENT,
                 "logits and labels must have the same first dimension, got logits shape [7,10] and labels shape [6]",
                 "sparse batch mismatch");
  gc_free_args(b, 2);
  gc_arg c[2] = {gc_fed(TF_FLOAT, 2, (int64_t[]){7, 0}, -1, 1), gc_fed(TF_INT32, 1, (int64_t[]){7}, 0, 1)};
  gc_check_error(&o, c, 2, TF_INVALID_ARGUMENT, "Must have at least one class, but got logits shape [7,0]",
                 "sparse no classes");
  gc_free_args(c, 2);
  gc_arg d[2] = {gc_fed(TF_FLOAT, 2, (int64_t[]){7, 10}, -1, 1), gc_fed(TF_INT32, 2, (int64_t[]){7, 1}, 0, 10)};
  gc_check_error(&o, d, 2, TF_INVALID_ARGUMENT, "labels must be 1-D, but got shape [7,1]", "sparse rank 2 labels");
  gc_free_args(d, 2);
}

/* The CPU refuses a label outside [0, classes); the GPU (as TF's) makes that row NaN. */
static void sparse_xent_bad_label_is_nan_row_on_gpu(void) {
  gc_need_gpu();
  static const int64_t ncls[] = {10, 4099};
  for (int k = 0; k < 2; k++) {
    int64_t dims[2] = {3, ncls[k]};
    gc_arg a[2] = {gc_fed(TF_FLOAT, 2, dims, -2, 2), GC_FED(gc_int64s((int64_t[]){1, ncls[k], 0}, 3))};
    gc_op o = {.type = "SparseSoftmaxCrossEntropyWithLogits", .n_outputs = 2};
    TF_Tensor *out[2] = {NULL, NULL};
    gpu_only(&o, a, 2, out, 2, "sparse bad label");
    for (int r = 0; r < 3; r++) {
      double loss = gc_value_at(out[0], r);
      if ((r == 1) != (isnan(loss) != 0))
        tfc_test_fail(__FILE__, __LINE__, "row %d: loss %g (only row 1 should be NaN)", r, loss);
      for (int64_t j = 0; j < ncls[k]; j++) {
        double g = gc_value_at(out[1], r * ncls[k] + j);
        if ((r == 1) != (isnan(g) != 0))
          tfc_test_fail(__FILE__, __LINE__, "row %d: backprop[%lld] = %g", r, (long long)j, g);
      }
    }
    TF_DeleteTensor(out[0]);
    TF_DeleteTensor(out[1]);
    /* The CPU's answer to the same input. */
    char msg[1024];
    TF_Code code = gc_run_alone(&o, a, 2, GC_CPU, msg, sizeof msg, "sparse bad label on CPU");
    char want[160];
    snprintf(want, sizeof want, "Received a label value of %lld which is outside the valid range of [0, %lld)",
             (long long)ncls[k], (long long)ncls[k]);
    if (code != TF_INVALID_ARGUMENT || !strstr(msg, want))
      tfc_test_fail(__FILE__, __LINE__, "CPU: code %d: %s", (int)code, msg);
    gc_free_args(a, 2);
  }
}

/* ---- L2Loss ---- */

static void l2loss_matches_cpu(void) {
  gc_need_gpu();
  static const int64_t sizes[] = {0, 1, 7, 1023, 4099 * 129, 3000001};
  for (int t = 0; t < 3; t++)
    for (int i = 0; i < 6; i++) {
      TF_DataType dt = t == 1 ? TF_DOUBLE : TF_FLOAT;
      /* Half: small values, so that the sum of 3M squares stays below half's largest value. */
      double r = t == 2 ? 0.1 : 2;
      gc_arg a[1] = {gc_fed(dt, 1, &sizes[i], -r, r)};
      gc_op o = {.type = "L2Loss", .half = t == 2};
      char label[64];
      snprintf(label, sizeof label, "L2Loss %s n=%lld", t == 0 ? "float" : t == 1 ? "double" : "half",
               (long long)sizes[i]);
      gc_check(&o, a, 1, t == 0 ? 1e-5 : t == 1 ? 1e-12 : 1e-2, label);
      gc_free_args(a, 1);
    }
  /* A matrix and a scalar. */
  gc_arg m[1] = {gc_fed(TF_FLOAT, 2, (int64_t[]){129, 10}, -1, 1)};
  gc_check(&(gc_op){.type = "L2Loss"}, m, 1, 1e-5, "L2Loss [129,10]");
  gc_free_args(m, 1);
  gc_arg s[1] = {gc_fed(TF_DOUBLE, 0, NULL, -3, 3)};
  gc_check(&(gc_op){.type = "L2Loss"}, s, 1, 1e-12, "L2Loss scalar");
  gc_free_args(s, 1);
}

/* ---- ArgMax / ArgMin ---- */

static void arg_check(TF_Tensor *x, int32_t dim, TF_DataType out_type, int half, const char *label) {
  static const char *const ops[2] = {"ArgMax", "ArgMin"};
  for (int m = 0; m < 2; m++) {
    gc_arg a[2] = {GC_FED(x), GC_CONST(gc_ints(&dim, -1))};
    gc_op o = {.type = ops[m], .attrs = {GC_TYPE("output_type", out_type)}, .half = half};
    char l[128];
    snprintf(l, sizeof l, "%s %s dim %d", ops[m], label, (int)dim);
    gc_check(&o, a, 2, 0, l);
    TF_DeleteTensor(a[1].t);
  }
}

static void argmax_matches_cpu_with_ties(void) {
  gc_need_gpu();
  /* Thread per output (short axes, wide inner dims) and block per output (long axes). */
  static const struct {
    int nd;
    int64_t dims[3];
  } shapes[] = {{3, {7, 129, 10}}, {2, {3, 5000}}, {2, {5000, 3}}, {2, {300, 64}}, {1, {4099}}, {2, {129, 1}}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (int32_t d = -1; d < shapes[s].nd; d++)
      for (int t = 0; t < 3; t++) {
        TF_DataType dt = t == 1 ? TF_DOUBLE : TF_FLOAT;
        char label[64];
        snprintf(label, sizeof label, "shape %zu %s", s, t == 0 ? "float" : t == 1 ? "double" : "half");
        /* Few distinct values: every row has ties, and the first index must win. */
        TF_Tensor *x = ties(dt, shapes[s].nd, shapes[s].dims, 3);
        arg_check(x, d, t == 1 ? TF_INT32 : TF_INT64, t == 2, label);
        TF_DeleteTensor(x);
        if (t < 2) {
          x = gc_rand(dt, shapes[s].nd, shapes[s].dims, -1e3, 1e3);
          arg_check(x, d, TF_INT64, 0, label);
          TF_DeleteTensor(x);
        }
      }
}

static void argmax_handles_nan_like_cpu(void) {
  gc_need_gpu();
  static const int64_t shapes[][2] = {{7, 10}, {3, 5000}};
  for (int s = 0; s < 2; s++)
    for (int t = 0; t < 2; t++) {
      TF_DataType dt = t ? TF_DOUBLE : TF_FLOAT;
      int64_t rows = shapes[s][0], n = shapes[s][1];
      TF_Tensor *x = gc_rand(dt, 2, shapes[s], -10, 10);
      set_f(x, 0, NAN);                   /* row 0: a NaN start */
      set_f(x, n + 3, NAN);               /* row 1: a NaN inside */
      set_f(x, 2 * n + n - 1, NAN);       /* row 2: a NaN at the end */
      if (rows > 3)
        for (int64_t j = 0; j < n; j++) set_f(x, 3 * n + j, NAN); /* row 3: all NaN */
      char label[64];
      snprintf(label, sizeof label, "NaN [%lld,%lld] %s", (long long)rows, (long long)n, t ? "double" : "float");
      arg_check(x, 1, TF_INT64, 0, label);
      arg_check(x, 0, TF_INT32, 0, label);
      TF_DeleteTensor(x);
    }
}

static void argmax_reports_cpu_errors(void) {
  gc_need_gpu();
  gc_op o = {.type = "ArgMax", .attrs = {GC_TYPE("output_type", TF_INT64)}};
  int32_t three = 3;
  gc_arg a[2] = {gc_fed(TF_FLOAT, 3, (int64_t[]){2, 3, 4}, -1, 1), GC_FED(gc_ints(&three, -1))};
  gc_check_error(&o, a, 2, TF_INVALID_ARGUMENT, "Expected dimension in the range [-3, 3), but got 3", "ArgMax dim 3");
  gc_free_args(a, 2);
  int32_t one = 1;
  gc_arg b[2] = {gc_fed(TF_FLOAT, 2, (int64_t[]){7, 0}, -1, 1), GC_FED(gc_ints(&one, -1))};
  gc_check_error(&o, b, 2, TF_INVALID_ARGUMENT, "Reduction axis 1 is empty in shape [7,0]", "ArgMax empty axis");
  gc_free_args(b, 2);
  int32_t two[2] = {0, 1};
  gc_arg c[2] = {gc_fed(TF_FLOAT, 2, (int64_t[]){7, 3}, -1, 1), GC_FED(gc_ints(two, 2))};
  gc_check_error(&o, c, 2, TF_INVALID_ARGUMENT, "dim must be a scalar, but received tensor of shape: [2]",
                 "ArgMax vector dim");
  gc_free_args(c, 2);
  /* An empty output (a zero-size kept dim) is fine. */
  TF_Tensor *x = gc_rand(TF_FLOAT, 2, (int64_t[]){0, 5}, -1, 1);
  arg_check(x, 1, TF_INT64, 0, "[0,5]");
  TF_DeleteTensor(x);
}

/* ---- InTopKV2 ---- */

static void in_top_k_matches_cpu(void) {
  gc_need_gpu();
  for (int lt = 0; lt < 2; lt++)
    for (int b = 0; b < 3; b++)
      for (int k = 0; k < 4; k++)
        for (int kv = 0; kv < 3; kv++) {
          static const int64_t ks[] = {1, 3, 0};
          int64_t dims[2] = {batches[b], classes[k]};
          TF_DataType it = lt ? TF_INT64 : TF_INT32;
          /* Integer scores: ties with the target count in its favour. */
          TF_Tensor *p = ties(TF_FLOAT, 2, dims, 5);
          if (dims[0] > 2) {
            set_f(p, 1 * dims[1], INFINITY); /* row 1: cannot say */
            set_f(p, 2 * dims[1] + dims[1] - 1, NAN);
          }
          int32_t k32 = (int32_t)ks[kv];
          gc_arg a[3] = {GC_FED(p), gc_fed(it, 1, dims, 0, (double)dims[1]),
                         GC_FED(lt ? gc_int64s(&ks[kv], -1) : gc_ints(&k32, -1))};
          gc_op o = {.type = "InTopKV2"};
          char label[96];
          snprintf(label, sizeof label, "InTopKV2 %s [%lld,%lld] k=%lld", lt ? "int64" : "int32", (long long)dims[0],
                   (long long)dims[1], (long long)ks[kv]);
          gc_check(&o, a, 3, 0, label);
          gc_free_args(a, 3);
        }
}

static void in_top_k_bad_target_is_false_on_gpu(void) {
  gc_need_gpu();
  int64_t dims[2] = {4, 10};
  int32_t k = 10;
  gc_arg a[3] = {gc_fed(TF_FLOAT, 2, dims, -1, 1), GC_FED(gc_ints((int32_t[]){0, 10, -1, 9}, 4)),
                 GC_FED(gc_ints(&k, -1))};
  gc_op o = {.type = "InTopKV2"};
  TF_Tensor *out = NULL;
  gpu_only(&o, a, 3, &out, 1, "InTopKV2 bad target");
  const uint8_t *v = TF_TensorData(out);
  /* k = classes: every valid target is in; the out-of-range ones are not. */
  if (!(v[0] == 1 && v[1] == 0 && v[2] == 0 && v[3] == 1))
    tfc_test_fail(__FILE__, __LINE__, "got %d %d %d %d, want 1 0 0 1", v[0], v[1], v[2], v[3]);
  TF_DeleteTensor(out);
  char msg[1024];
  TF_Code code = gc_run_alone(&o, a, 3, GC_CPU, msg, sizeof msg, "InTopKV2 bad target on CPU");
  if (code != TF_INVALID_ARGUMENT || !strstr(msg, "targets[1] is out of range"))
    tfc_test_fail(__FILE__, __LINE__, "CPU: code %d: %s", (int)code, msg);
  gc_free_args(a, 3);
  /* Shape errors are the same on both devices. */
  gc_arg b[3] = {gc_fed(TF_FLOAT, 1, (int64_t[]){4}, -1, 1), GC_FED(gc_ints((int32_t[]){0, 1, 2, 3}, 4)),
                 GC_FED(gc_ints(&k, -1))};
  gc_check_error(&o, b, 3, TF_INVALID_ARGUMENT, "predictions must be 2-dimensional", "InTopKV2 rank 1");
  gc_free_args(b, 3);
  gc_arg c[3] = {gc_fed(TF_FLOAT, 2, dims, -1, 1), GC_FED(gc_ints((int32_t[]){0, 1, 2}, 3)), GC_FED(gc_ints(&k, -1))};
  gc_check_error(&o, c, 3, TF_INVALID_ARGUMENT, "First dimension of predictions 4 must match length of targets 3",
                 "InTopKV2 length");
  gc_free_args(c, 3);
  gc_arg d[3] = {gc_fed(TF_FLOAT, 2, dims, -1, 1), GC_FED(gc_ints((int32_t[]){0, 1, 2, 3}, 4)),
                 GC_FED(gc_ints((int32_t[]){1, 2}, 2))};
  gc_check_error(&o, d, 3, TF_INVALID_ARGUMENT, "k must be 0-D, got shape [2]", "InTopKV2 vector k");
  gc_free_args(d, 3);
}

/* ---- CheckNumerics ---- */

static void check_numerics_passes_finite_values(void) {
  gc_need_gpu();
  static const int64_t sizes[] = {0, 1, 7, 4099 * 129};
  for (int t = 0; t < 3; t++)
    for (int i = 0; i < 4; i++) {
      TF_DataType dt = t == 1 ? TF_DOUBLE : TF_FLOAT;
      gc_arg a[1] = {gc_fed(dt, 1, &sizes[i], -1e4, 1e4)};
      gc_op o = {.type = "CheckNumerics", .attrs = {GC_STR("message", "finite")}, .half = t == 2};
      char label[64];
      snprintf(label, sizeof label, "CheckNumerics %d n=%lld", t, (long long)sizes[i]);
      /* Half: the GPU's output is the input rounded to half. */
      gc_check(&o, a, 1, t == 2 ? 1e-3 : 0, label);
      gc_free_args(a, 1);
    }
}

static void check_numerics_reports_nan_and_inf_like_cpu(void) {
  gc_need_gpu();
  static const struct {
    double v1, v2;
    const char *want;
  } cases[] = {{NAN, 0, "bad tensor : Tensor had NaN values"},
               {INFINITY, 0, "bad tensor : Tensor had Inf values"},
               {-INFINITY, NAN, "bad tensor : Tensor had Inf and NaN values"}};
  static const int64_t sizes[] = {1, 7, 4099 * 129};
  for (int t = 0; t < 3; t++)
    for (int c = 0; c < 3; c++)
      for (int i = 0; i < 3; i++) {
        TF_DataType dt = t == 1 ? TF_DOUBLE : TF_FLOAT;
        if (sizes[i] == 1 && cases[c].v2 != 0) continue; /* two bad values need two elements */
        TF_Tensor *x = gc_rand(dt, 1, &sizes[i], -1, 1);
        set_f(x, sizes[i] - 1, cases[c].v1); /* the last element: the end of the grid loop */
        if (cases[c].v2 != 0) set_f(x, 0, cases[c].v2);
        gc_arg a[1] = {GC_FED(x)};
        gc_op o = {.type = "CheckNumerics", .attrs = {GC_STR("message", "bad tensor")}, .half = t == 2};
        char label[64];
        snprintf(label, sizeof label, "CheckNumerics case %d type %d n=%lld", c, t, (long long)sizes[i]);
        gc_check_error(&o, a, 1, TF_INVALID_ARGUMENT, cases[c].want, label);
        gc_free_args(a, 1);
      }
}

/* ---- gradients ---- */

/* Builds loss = mean(xent(x @ w, labels)) on dev and its gradients to x, w and labels; returns
 * the four values for the fed x, w, labels. */
static void xent_grads_on(const char *dev, int sparse, TF_Tensor *x, TF_Tensor *w, TF_Tensor *labels, TF_Tensor **out) {
  TF_Graph *g = TF_NewGraph();
  TF_Status *s = TF_NewStatus();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Scope *sc = TFC_ScopeWithDevice(root, dev);
  TF_Output in[3];
  TF_Tensor *vals[3] = {x, w, labels};
  for (int i = 0; i < 3; i++) {
    char name[16];
    snprintf(name, sizeof name, "in%d", i);
    in[i] = gc_unary(g, "Placeholder", name, (TF_Output){NULL, 0}, "dtype", TF_TensorType(vals[i]), s, dev);
  }
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "MatMul", "logits");
  TF_AddInput(d, in[0]);
  TF_AddInput(d, in[1]);
  TF_Output logits = {gc_finish(d, s, 0, dev), 0};
  d = TFC_ScopeNewOperation(sc, sparse ? "SparseSoftmaxCrossEntropyWithLogits" : "SoftmaxCrossEntropyWithLogits",
                            "xent");
  TF_AddInput(d, logits);
  TF_AddInput(d, in[2]);
  TF_Operation *xent = gc_finish(d, s, 0, dev);
  int32_t zero = 0;
  TF_Tensor *axis = gc_ints(&zero, -1);
  TF_Output ax = gc_const(g, "axis", axis, s, dev);
  TF_DeleteTensor(axis);
  d = TFC_ScopeNewOperation(sc, "Mean", "loss");
  TF_AddInput(d, (TF_Output){xent, 0});
  TF_AddInput(d, ax);
  TF_Output loss = {gc_finish(d, s, 0, dev), 0};
  int nx = sparse ? 2 : 3;
  TF_Output dx[3] = {{0}};
  TFC_Gradients(sc, &loss, 1, in, nx, NULL, 0, dx, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: gradients: %s", dev, TF_Message(s));
  /* Soft placement lets gradient helpers without a GPU kernel run on the CPU; the loss op
   * itself must run where it was asked. */
  TF_SessionOptions *opts = TF_NewSessionOptions();
  static const unsigned char allow_soft[] = {0x38, 0x01}; /* ConfigProto.allow_soft_placement = true */
  TF_SetConfig(opts, allow_soft, sizeof allow_soft, s);
  TF_Session *sess = TF_NewSession(g, opts, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", dev, TF_Message(s));
  TF_Output fetch[4] = {loss, dx[0], dx[1], dx[2]};
  TF_SessionRun(sess, NULL, in, vals, 3, fetch, out, 1 + nx, NULL, 0, NULL, s);
  if (TF_GetCode(s) != TF_OK) tfc_test_fail(__FILE__, __LINE__, "%s: %s", dev, TF_Message(s));
  const char *where = TFC_SessionOperationDevice(sess, xent, s);
  if (!where || !strstr(where, strstr(dev, "GPU") ? "GPU:0" : "CPU:0"))
    tfc_test_fail(__FILE__, __LINE__, "the loss asked for %s ran on %s", dev, where ? where : "?");
  TF_CloseSession(sess, s);
  TF_DeleteSession(sess, s);
  TF_DeleteSessionOptions(opts);
  TFC_DeleteScope(sc);
  TFC_DeleteScope(root);
  TF_DeleteGraph(g);
  TF_DeleteStatus(s);
}

static void xent_gradients_on_gpu_match_cpu(void) {
  gc_need_gpu();
  static const int64_t shapes[][3] = {{7, 13, 10}, {129, 31, 1000}, {1, 5, 4099}}; /* batch, features, classes */
  for (int sparse = 0; sparse < 2; sparse++)
    for (int i = 0; i < 3; i++) {
      const int64_t *sh = shapes[i];
      TF_Tensor *x = gc_rand(TF_FLOAT, 2, (int64_t[]){sh[0], sh[1]}, -1, 1);
      TF_Tensor *w = gc_rand(TF_FLOAT, 2, (int64_t[]){sh[1], sh[2]}, -1, 1);
      TF_Tensor *l = sparse ? gc_rand(TF_INT32, 1, &sh[0], 0, (double)sh[2])
                            : gc_rand(TF_FLOAT, 2, (int64_t[]){sh[0], sh[2]}, 0, 1);
      TF_Tensor *cpu[4] = {0}, *gpu[4] = {0};
      xent_grads_on(GC_CPU, sparse, x, w, l, cpu);
      xent_grads_on(GC_GPU, sparse, x, w, l, gpu);
      static const char *const names[4] = {"loss", "d/dx", "d/dw", "d/dlabels"};
      for (int k = 0; k < (sparse ? 3 : 4); k++) {
        char what[96];
        snprintf(what, sizeof what, "%s xent [%lld,%lld,%lld] %s", sparse ? "sparse" : "dense", (long long)sh[0],
                 (long long)sh[1], (long long)sh[2], names[k]);
        gc_compare(what, gpu[k], cpu[k], 1e-4);
        TF_DeleteTensor(gpu[k]);
        TF_DeleteTensor(cpu[k]);
      }
      TF_DeleteTensor(x);
      TF_DeleteTensor(w);
      TF_DeleteTensor(l);
    }
}

static const tfc_test tests[] = {
    TFC_TEST(xent_matches_cpu_on_odd_sizes),
    TFC_TEST(xent_half_matches_float_cpu),
    TFC_TEST(xent_broadcasts_like_cpu),
    TFC_TEST(xent_empty_batch_and_no_classes_match_cpu),
    TFC_TEST(xent_reports_cpu_errors),
    TFC_TEST(sparse_xent_matches_cpu_on_odd_sizes),
    TFC_TEST(sparse_xent_reports_cpu_shape_errors),
    TFC_TEST(sparse_xent_bad_label_is_nan_row_on_gpu),
    TFC_TEST(l2loss_matches_cpu),
    TFC_TEST(argmax_matches_cpu_with_ties),
    TFC_TEST(argmax_handles_nan_like_cpu),
    TFC_TEST(argmax_reports_cpu_errors),
    TFC_TEST(in_top_k_matches_cpu),
    TFC_TEST(in_top_k_bad_target_is_false_on_gpu),
    TFC_TEST(check_numerics_passes_finite_values),
    TFC_TEST(check_numerics_reports_nan_and_inf_like_cpu),
    TFC_TEST(xent_gradients_on_gpu_match_cpu),
    {0},
};

TFC_TEST_MAIN(tests)
