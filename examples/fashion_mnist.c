/*
 * fashion_mnist — seed 004's program in C: the convolutional network trained on Fashion-MNIST
 * in one tower per device, fed by a TF 1.x input pipeline, with checkpoints, TensorBoard event
 * files and an evaluation of the moving-averaged weights. TensorFlow's cifar10_multi_gpu_train,
 * written against the TensorFlow 1.15 C API and tfc's builders (include/tfc/).
 *
 *   tfc data fashion-mnist --out data          # once: Debian's idx files -> TFRecord
 *   fashion_mnist --data data --out train_dir [--epochs 1] [--devices 2] [--batch 50]
 *   (installed as the command tfc-fashion-mnist)
 *
 * The graph, as the Python program builds it:
 *   /cpu:0    the input pipeline — string_input_producer over train.tfrecords, a TFRecordReader,
 *             parse_single_example (image_raw, label), decode_raw, scaling to [0, 1],
 *             shuffle_batch of devices x batch examples filled by queue-runner threads — split
 *             into one slice per tower; the variables; the global step, the exponentially
 *             decaying learning rate, the averaged tower gradients applied with momentum, and
 *             the exponential moving average of the weights;
 *   tower_i   on device i (every GPU, or N virtual CPU devices): conv 5x5x32 + ReLU + max-pool,
 *             conv 5x5x64 + ReLU + max-pool, fc 1024 + ReLU + dropout, fc 10; softmax
 *             cross-entropy plus the L2 regularizer on the fully connected weights; the tower's
 *             gradients.
 * Before building anything it checks its inputs: train.tfrecords (and test.tfrecords unless
 * --no-eval) must exist and hold records whose framing is sound; an epoch is the number of
 * training records counted there. Every few steps it prints the seed's line ("step 10, loss =
 * 0.87 (1523.4 examples/sec; 0.066 sec/batch)"), writes summaries (losses, learning rate, weight
 * histograms) to an event file in the output directory and checkpoints there. At the end it
 * evaluates the moving averages of the weights on the test images and prints the accuracy.
 *
 * Clusters: with --cluster SPEC --job ps|worker --task N it is one task of a between-graph
 * replicated job (train_cluster below): a ps serves the variables, each worker builds its own
 * graph (variables on the ps tasks through a replica device setter) and trains in a monitored
 * session, asynchronously or, with --sync, through SyncReplicasOptimizer; worker 0 is the chief.
 *
 * Failures: every error is printed with TF's code name first, and the exit status is 1 (2 for
 * a bad flag, naming it). When the input pipeline fails (a corrupt record: DATA_LOSS naming the
 * file and offset), that first error is what is printed, not the closed queue it leaves behind.
 *
 * Resuming: a run started again with the same output directory restores the newest intact
 * checkpoint listed in the directory's "checkpoint" file (TFC_LatestIntactCheckpoint; each
 * damaged or missing one passed over is named with the reason) and continues from its global
 * step; killed at any moment, it loses at most the steps since that checkpoint (saves are
 * atomic, and temporaries of a killed save are removed by the next). It never overwrites a
 * checkpoint it did not restore from: the files of any checkpoint newer than the one restored
 * (damaged, or written but never listed) are renamed "<name>.aside.*" first, since training
 * would reach that step and save over them; with no intact checkpoint listed, or checkpoints
 * present but no state file naming them, it refuses to start. --restart starts over from step
 * 0 instead, replacing the directory's checkpoints as it saves.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tensorflow/c/c_api.h"
#include "tfc/device_setter.h"
#include "tfc/input.h"
#include "tfc/monitored_session.h"
#include "tfc/queue_runner.h"
#include "tfc/record.h"
#include "tfc/saver.h"
#include "tfc/server.h"
#include "tfc/summary.h"
#include "tfc/sync_replicas.h"
#include "tfc/tfc.h"
#include "tfc/train.h"

#define IMAGE 28
#define PIXELS (IMAGE * IMAGE)
#define CLASSES 10
#define MAX_DEVICES 16

typedef struct flags {
  const char *data, *out;
  double epochs;
  int devices, batch, threads, log_every, save_every, summary_every;
  long max_steps;
  int64_t seed;
  double lr, lr_decay, momentum, weight_decay, ema_decay, keep_prob;
  int eval, train, restart;
  long train_records; /* counted in train.tfrecords before training */
  /* between-graph replication: this process is one task of `cluster` */
  const char *cluster, *job;
  int task, sync, replicas_to_aggregate, workers;
  int step_pause_ms; /* a worker sleeps this long after each step (0: none) */
} flags;

static TF_Status *status;
static const char *prog = "fashion_mnist"; /* argv[0]'s base name */

/* Prints "<prog>: <CODE>: <message>" and exits 1. */
static void fail(TF_Code code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void fail(TF_Code code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: %s: ", prog, TFC_CodeName(code));
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

static void check(const char *what) {
  if (TF_GetCode(status) != TF_OK) fail(TF_GetCode(status), "%s: %s", what, TF_Message(status));
}

static void usage(FILE *to, int code) __attribute__((noreturn));
static void usage(FILE *to, int code) {
  fprintf(to,
          "usage: %s [--data DIR] [--out DIR] [--epochs E] [--devices N] [--batch B]\n"
          "         [--max-steps S] [--lr LR] [--lr-decay D] [--keep-prob P] [--seed N]\n"
          "         [--threads T] [--log-every K] [--save-every K] [--summary-every K]\n"
          "         [--eval-only] [--no-eval] [--restart] [--help]\n"
          "         [--cluster SPEC --job ps|worker [--task N] [--sync] [--replicas-to-aggregate K]\n"
          "          [--step-pause-ms MS]]\n",
          prog);
  exit(code);
}

/* ---------------------------------------------------------------- graph helpers */

static TF_Output finish(TF_OperationDescription *d, const char *what) {
  TF_Output o = {TF_FinishOperation(d, status), 0};
  check(what);
  return o;
}

static TF_Output op1(const TFC_Scope *sc, const char *type, const char *name, TF_Output a) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, type, name);
  TF_AddInput(d, a);
  return finish(d, type);
}

static TF_Output op2(const TFC_Scope *sc, const char *type, const char *name, TF_Output a, TF_Output b) {
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, type, name);
  TF_AddInput(d, a);
  TF_AddInput(d, b);
  return finish(d, type);
}

static TF_Output int_const(const TFC_Scope *sc, const char *name, const int32_t *v, int64_t n) {
  TF_Tensor *t = TF_AllocateTensor(TF_INT32, &n, 1, (size_t)n * sizeof(int32_t));
  memcpy(TF_TensorData(t), v, (size_t)n * sizeof(int32_t));
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Const", name);
  TF_SetAttrTensor(d, "value", t, status);
  TF_SetAttrType(d, "dtype", TF_INT32);
  TF_DeleteTensor(t);
  return finish(d, "Const");
}

static TF_Output float_const(const TFC_Scope *sc, const char *name, double v) {
  TF_Output o = TFC_ScalarConst(sc, name, TF_FLOAT, v, status);
  check(name);
  return o;
}

/* ---------------------------------------------------------------- the network */

/* The trainable variables, created once on the variables' device and shared by the towers
 * (cifar10's _variable_on_cpu). */
typedef struct net {
  TFC_Variable conv1_w, conv1_b, conv2_w, conv2_b, local3_w, local3_b, softmax_w, softmax_b;
} net;

static TFC_Variable variable(const TFC_Scope *sc, const char *name, const int64_t *dims, int nd, double bias) {
  TF_Output init;
  if (bias != 0) {
    int64_t n = dims[0];
    TF_Tensor *t = TF_AllocateTensor(TF_FLOAT, &n, 1, (size_t)n * sizeof(float));
    for (int64_t i = 0; i < n; i++) ((float *)TF_TensorData(t))[i] = (float)bias;
    TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Const", NULL);
    TF_SetAttrTensor(d, "value", t, status);
    TF_SetAttrType(d, "dtype", TF_FLOAT);
    TF_DeleteTensor(t);
    init = finish(d, "Const");
  } else {
    init = TFC_TruncatedNormal(sc, dims, nd, 0.0, 0.1, TF_FLOAT, 0, status);
    check("truncated_normal");
  }
  TFC_Variable v = TFC_NewVariable(sc, name, init, 1, status);
  check(name);
  return v;
}

static void layer_vars(const TFC_Scope *root, const char *name, const int64_t *dims, int nd, TFC_Variable *w,
                       TFC_Variable *b) {
  TFC_Scope *sc = TFC_NewSubScope(root, name);
  *w = variable(sc, "weights", dims, nd, 0);
  int64_t n = dims[nd - 1];
  *b = variable(sc, "biases", &n, 1, 0.1);
  TFC_DeleteScope(sc);
}

static void make_vars(const TFC_Scope *root, net *n) {
  layer_vars(root, "conv1", (int64_t[]){5, 5, 1, 32}, 4, &n->conv1_w, &n->conv1_b);
  layer_vars(root, "conv2", (int64_t[]){5, 5, 32, 64}, 4, &n->conv2_w, &n->conv2_b);
  layer_vars(root, "local3", (int64_t[]){7 * 7 * 64, 1024}, 2, &n->local3_w, &n->local3_b);
  layer_vars(root, "softmax_linear", (int64_t[]){1024, CLASSES}, 2, &n->softmax_w, &n->softmax_b);
}

/* conv 5x5 SAME + bias + ReLU, then max-pool 2x2 SAME, under "<scope>/<name>". */
static TF_Output conv_pool(const TFC_Scope *root, const char *name, TF_Output x, TFC_Variable w, TFC_Variable b) {
  TFC_Scope *sc = TFC_NewSubScope(root, name);
  static const int64_t ones[4] = {1, 1, 1, 1}, two[4] = {1, 2, 2, 1};
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Conv2D", NULL);
  TF_AddInput(d, x);
  TF_AddInput(d, w.value);
  TF_SetAttrIntList(d, "strides", ones, 4);
  TF_SetAttrString(d, "padding", "SAME", 4);
  TF_Output c = finish(d, "Conv2D");
  TF_Output r = op1(sc, "Relu", NULL, op2(sc, "BiasAdd", NULL, c, b.value));
  TFC_DeleteScope(sc);
  char pool[64];
  snprintf(pool, sizeof pool, "pool%c", name[strlen(name) - 1]);
  d = TFC_ScopeNewOperation(root, "MaxPool", pool);
  TF_AddInput(d, r);
  TF_SetAttrIntList(d, "ksize", two, 4);
  TF_SetAttrIntList(d, "strides", two, 4);
  TF_SetAttrString(d, "padding", "SAME", 4);
  return finish(d, "MaxPool");
}

static TF_Output dense(const TFC_Scope *root, const char *name, TF_Output x, TFC_Variable w, TFC_Variable b,
                       int relu) {
  TFC_Scope *sc = TFC_NewSubScope(root, name);
  TF_Output y = op2(sc, "BiasAdd", NULL, op2(sc, "MatMul", NULL, x, w.value), b.value);
  if (relu) y = op1(sc, "Relu", NULL, y);
  TFC_DeleteScope(sc);
  return y;
}

/* tf.nn.dropout(x, keep) for x [batch, width]: x / keep * floor(keep + uniform[0, 1)). */
static TF_Output dropout(const TFC_Scope *root, TF_Output x, int64_t batch, int64_t width, double keep) {
  TFC_Scope *sc = TFC_NewSubScope(root, "dropout");
  int64_t dims[2] = {batch, width};
  TF_Output u = TFC_RandomUniform(sc, dims, 2, 0.0, 1.0, TF_FLOAT, 0, status);
  check("dropout");
  TF_Output keep_t = float_const(sc, "keep_prob", keep);
  TF_Output mask = op1(sc, "Floor", NULL, op2(sc, "Add", "add", keep_t, u));
  TF_Output y = op2(sc, "Mul", "mul", op2(sc, "RealDiv", "div", x, keep_t), mask);
  TFC_DeleteScope(sc);
  return y;
}

/* cifar10.inference: images [batch, 28, 28, 1] -> logits [batch, 10]; in training (batch > 0)
 * the fully connected layer's output goes through dropout with keep probability `keep`. */
static TF_Output inference(const TFC_Scope *sc, const net *n, TF_Output images, int64_t batch, double keep) {
  TF_Output h = conv_pool(sc, "conv1", images, n->conv1_w, n->conv1_b);
  h = conv_pool(sc, "conv2", h, n->conv2_w, n->conv2_b);
  h = op2(sc, "Reshape", NULL, h, int_const(sc, "Reshape/shape", (int32_t[]){-1, 7 * 7 * 64}, 2));
  h = dense(sc, "local3", h, n->local3_w, n->local3_b, 1);
  if (batch > 0 && keep < 1) h = dropout(sc, h, batch, 1024, keep);
  return dense(sc, "softmax_linear", h, n->softmax_w, n->softmax_b, 0);
}

/* The input pipeline on the scope's device: (images [batch, 28, 28, 1] in [0, 1], labels
 * [batch] int64). Training shuffles files and examples, forever; evaluation reads the file
 * once in order (num_epochs 1, smaller final batch). */
static void inputs(const TFC_Scope *sc, const char *file, int train, int batch, TF_Output *images,
                   TF_Output *labels) {
  TF_Output queue =
      TFC_StringInputProducer(sc, &file, 1, train ? 0 : 1, train, 0, 32, NULL, status);
  check("string_input_producer");
  TF_Output key, value;
  TFC_TFRecordReaderRead(sc, queue, "", NULL, &key, &value, status);
  check("TFRecordReader");
  TFC_FixedLenFeature features[2] = {{"image_raw", TF_STRING, NULL, 0, NULL}, {"label", TF_INT64, NULL, 0, NULL}};
  TF_Output parsed[2];
  TFC_ParseSingleExample(sc, value, features, 2, parsed, status);
  check("parse_single_example");
  TF_Output image = TFC_DecodeRaw(sc, parsed[0], TF_UINT8, 1, status);
  check("decode_raw");
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "Cast", NULL);
  TF_AddInput(d, image);
  TF_SetAttrType(d, "DstT", TF_FLOAT);
  image = finish(d, "Cast");
  image = op2(sc, "Reshape", NULL, image, int_const(sc, "Reshape/shape", (int32_t[]){IMAGE, IMAGE, 1}, 3));
  image = op2(sc, "Mul", NULL, image, float_const(sc, "Const", 1.0 / 255.0));
  TF_Output pair[2] = {image, parsed[1]}, batched[2];
  if (train) {
    /* cifar10's 40% of an epoch in the queue, bounded: enough to mix the classes well. */
    int min_after = 4 * batch > 2000 ? 4 * batch : 2000;
    TFC_ShuffleBatch(sc, pair, 2, batch, min_after + 3 * batch, min_after, 2, 0, NULL, batched, status);
  } else {
    TFC_Batch(sc, pair, 2, batch, 2 * batch, 1, 1, NULL, batched, status);
  }
  check(train ? "shuffle_batch" : "batch");
  *images = batched[0];
  *labels = batched[1];
}

/* ---------------------------------------------------------------- sessions */

static TF_Session *new_session(TF_Graph *g, const flags *f, int cpus) {
  TF_SessionOptions *o = TF_NewSessionOptions();
  TFC_SetDeviceCount(o, "CPU", cpus, status);
  check("device_count");
  if (f->threads > 0) TFC_SetThreads(o, f->threads, f->threads);
  TFC_SetAllowSoftPlacement(o, 1);
  TF_Session *s = TF_NewSession(g, o, status);
  TF_DeleteSessionOptions(o);
  check("TF_NewSession");
  return s;
}

static void run_targets(TF_Session *s, TF_Operation *const *ops, int n, const char *what) {
  TF_SessionRun(s, NULL, NULL, NULL, 0, NULL, NULL, 0, (const TF_Operation *const *)ops, n, NULL, status);
  check(what);
}

/* The GPUs of this process (towers go there when there are any). */
static int count_gpus(void) {
  TF_Graph *g = TF_NewGraph();
  TF_SessionOptions *o = TF_NewSessionOptions();
  TF_Session *s = TF_NewSession(g, o, status);
  check("TF_NewSession");
  TF_DeviceList *l = TF_SessionListDevices(s, status);
  check("TF_SessionListDevices");
  int gpus = 0;
  for (int i = 0; i < TF_DeviceListCount(l); i++)
    if (strcmp(TF_DeviceListType(l, i, status), "GPU") == 0) gpus++;
  TF_DeleteDeviceList(l);
  TF_CloseSession(s, status);
  TF_DeleteSession(s, status);
  TF_DeleteSessionOptions(o);
  TF_DeleteGraph(g);
  return gpus;
}

/* "Device mapping:" — each device, how many operations went there, and the first twelve top
 * name scopes among them (a bare op name counts as its own scope), in order of appearance. */
#define MAX_SCOPES_SHOWN 12
static void print_device_mapping(TF_Session *s, TF_Graph *g) {
  TF_DeviceList *l = TF_SessionListDevices(s, status);
  check("TF_SessionListDevices");
  printf("Device mapping:\n");
  for (int d = 0; d < TF_DeviceListCount(l); d++) {
    const char *dev = TF_DeviceListName(l, d, status);
    char scopes[MAX_SCOPES_SHOWN][64];
    int n = 0, n_scopes = 0, more = 0;
    TF_Operation *op;
    for (size_t it = 0; (op = TF_GraphNextOperation(g, &it));) {
      const char *where = TFC_SessionOperationDevice(s, op, status);
      if (TF_GetCode(status) != TF_OK) { /* not placed (never run): not on any device */
        TF_SetStatus(status, TF_OK, "");
        continue;
      }
      if (strcmp(where, dev) != 0) continue;
      n++;
      char top[64];
      const char *name = TF_OperationName(op);
      snprintf(top, sizeof top, "%.*s", (int)strcspn(name, "/"), name);
      int seen = 0;
      for (int k = 0; k < n_scopes && !seen; k++) seen = strcmp(scopes[k], top) == 0;
      if (seen) continue;
      if (n_scopes < MAX_SCOPES_SHOWN)
        memcpy(scopes[n_scopes++], top, sizeof top);
      else
        more = 1;
    }
    printf("%s -> %d ops:", dev, n);
    for (int k = 0; k < n_scopes; k++) printf("%s %s", k ? "," : "", scopes[k]);
    printf("%s\n", n == 0 ? " (none)" : more ? ", ..." : "");
  }
  TF_DeleteDeviceList(l);
}

/* ---------------------------------------------------------------- training */

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void timestamp(char *buf, size_t n) {
  time_t t = time(NULL);
  struct tm tm;
  localtime_r(&t, &tm);
  strftime(buf, n, "%Y-%m-%d %H:%M:%S", &tm);
}

static int64_t scalar_i64(TF_Tensor *t) { return *(int64_t *)TF_TensorData(t); }

/* Ends the run after a failed step: asks the queue runners to stop, waits for them, and
 * prints the first error that stopped the input pipeline (a corrupt record, an unreadable
 * file) when there is one — the step's own error is then only its consequence (the queue it
 * dequeues from was closed) — else the step's error. step_error may be NULL (the coordinator
 * was asked to stop before the step). */
static void stop_and_fail(TFC_Coordinator *coord, const TF_Status *step_error, long step, const char *what) {
  TF_Status *cause = TF_NewStatus();
  TFC_CoordinatorRequestStop(coord, step_error);
  TFC_CoordinatorJoin(coord, cause);
  if (TF_GetCode(cause) != TF_OK)
    fail(TF_GetCode(cause), "%s (the input pipeline stopped; %s ends at step %ld)", TF_Message(cause), what, step);
  if (step_error && TF_GetCode(step_error) != TF_OK)
    fail(TF_GetCode(step_error), "%s at step %ld: %s", what, step, TF_Message(step_error));
  fail(TF_INTERNAL, "%s stopped at step %ld without an error", what, step);
}

/* ---------------------------------------------------------------- checkpoints */

/* "<dir>/model.ckpt-<step>" files: 1 with *step and *suffix (".index", ".data-00000-of-00001",
 * ".meta") when name is one, else 0. */
static int ckpt_file(const char *name, long *step, const char **suffix) {
  if (strncmp(name, "model.ckpt-", 11) != 0) return 0;
  char *end;
  errno = 0;
  long n = strtol(name + 11, &end, 10);
  if (end == name + 11 || errno || n < 0) return 0;
  size_t len = strlen(end);
  int data = len == 20 && strncmp(end, ".data-", 6) == 0 && strncmp(end + 11, "-of-", 4) == 0 &&
             strspn(end + 6, "0123456789") == 5 && strspn(end + 15, "0123456789") == 5;
  if (!data && strcmp(end, ".index") != 0 && strcmp(end, ".meta") != 0) return 0;
  *step = n;
  *suffix = end;
  return 1;
}

/* The step of a checkpoint path ("<dir>/model.ckpt-400" -> 400), -1 for another name. */
static long ckpt_step(const char *path) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  char name[4200];
  if (strlen(base) >= 4096) return -1;
  snprintf(name, sizeof name, "%s.index", base);
  long step;
  const char *suffix;
  return ckpt_file(name, &step, &suffix) ? step : -1;
}

/* Renames the files of every checkpoint in dir with a step above `above` (all when -1) to
 * "model.ckpt-<step>.aside[N]<suffix>", saying so; returns how many checkpoints moved. */
static int move_aside_newer(const char *dir, long above) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int moved = 0;
  long last = -1;
  struct dirent *e;
  while ((e = readdir(d))) {
    long step;
    const char *suffix;
    if (!ckpt_file(e->d_name, &step, &suffix) || step <= above) continue;
    char from[4096], to[4096];
    snprintf(from, sizeof from, "%s/%s", dir, e->d_name);
    for (int k = 0;; k++) { /* a free name: .aside, .aside1, ... */
      char tag[32];
      snprintf(tag, sizeof tag, k ? ".aside%d" : ".aside", k);
      snprintf(to, sizeof to, "%s/model.ckpt-%ld%s%s", dir, step, tag, suffix);
      if (access(to, F_OK) != 0) break;
    }
    if (rename(from, to) != 0) fail(TF_PERMISSION_DENIED, "cannot move %s aside to %s: %s", from, to, strerror(errno));
    if (step != last) {
      printf("moved the files of checkpoint model.ckpt-%ld aside (%s/model.ckpt-%ld.aside*): training from "
             "step %ld would save over them\n",
             step, dir, step, above < 0 ? 0 : above);
      moved++;
      last = step;
    }
  }
  closedir(d);
  return moved;
}

static void say_skipped(void *arg, const char *path, const TF_Status *why) {
  ++*(int *)arg;
  fprintf(stderr, "%s: checkpoint %s cannot be restored: %s: %s\n", prog, path, TFC_CodeName(TF_GetCode(why)),
          TF_Message(why));
}

/* Whether dir holds any "model.ckpt-<step>.index". */
static int has_checkpoint_files(const char *dir) {
  DIR *d = opendir(dir);
  int any = 0;
  struct dirent *e;
  while (d && !any && (e = readdir(d))) {
    long step;
    const char *suffix;
    any = ckpt_file(e->d_name, &step, &suffix) && strcmp(suffix, ".index") == 0;
  }
  if (d) closedir(d);
  return any;
}

/* The checkpoint to resume from: 1 with its path in ckpt, or 0 to start from step 0. Refuses
 * (exits 1) when the directory holds checkpoints none of which can be restored, unless
 * --restart. Moves aside the checkpoints newer than the one chosen. */
static int checkpoint_to_resume(const flags *f, char *ckpt, size_t n) {
  int skipped = 0;
  int found = TFC_LatestIntactCheckpoint(f->out, ckpt, n, say_skipped, &skipped, status);
  if (f->restart) {
    TF_SetStatus(status, TF_OK, "");
    printf("starting over from step 0 (--restart): checkpoints in %s are replaced as training saves\n", f->out);
    return 0;
  }
  if (found < 0)
    fail(TF_GetCode(status), "%s (pass --restart to start over from step 0)", TF_Message(status));
  if (found == 0 && skipped > 0)
    fail(TF_FAILED_PRECONDITION,
         "none of the %d checkpoint%s listed in %s/checkpoint can be restored (see above); refusing to start over "
         "and overwrite them: pass --restart to train from step 0",
         skipped, skipped > 1 ? "s" : "", f->out);
  if (found == 0 && has_checkpoint_files(f->out))
    fail(TF_FAILED_PRECONDITION,
         "%s holds model.ckpt-* checkpoints but no checkpoint state file naming them; refusing to start over and "
         "overwrite them: pass --restart to train from step 0",
         f->out);
  if (found == 0) return 0;
  if (skipped > 0) printf("falling back to %s, the newest checkpoint that can be restored\n", ckpt);
  move_aside_newer(f->out, ckpt_step(ckpt));
  return 1;
}

static void train(const flags *f) {
  int gpus = count_gpus();
  int towers = gpus > 0 ? gpus : f->devices;
  int cpus = gpus > 0 ? 1 : f->devices;
  char path[4096];
  snprintf(path, sizeof path, "%s/train.tfrecords", f->data);

  TF_Graph *g = TF_NewGraph();
  if (f->seed) TFC_SetRandomSeed(g, f->seed); /* tf.set_random_seed: initializers, shuffling */
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Scope *cpu = TFC_ScopeWithDevice(root, "/cpu:0");

  /* The step counter, learning rate, optimizer and variables live on /cpu:0. */
  TFC_Variable global_step = TFC_GetOrCreateGlobalStep(cpu, status);
  check("global_step");
  long steps_per_epoch = f->train_records / ((long)f->batch * towers);
  if (steps_per_epoch < 1) steps_per_epoch = 1;
  TF_Output lr = TFC_ExponentialDecay(cpu, f->lr, global_step.value, (double)steps_per_epoch, f->lr_decay, 1, status);
  check("exponential_decay");
  TFC_Optimizer *opt = TFC_NewMomentumOptimizer(f->lr, f->momentum, 0, NULL);
  TFC_OptimizerSetLearningRate(opt, lr);
  net n;
  make_vars(cpu, &n);
  TFC_Variable *vars = &n.conv1_w;
  enum { NV = 8 };

  /* One shuffled batch of towers x batch examples, split into one slice per tower. */
  TF_Output images, labels;
  inputs(cpu, path, 1, f->batch * towers, &images, &labels);
  TF_Output image_split[MAX_DEVICES], label_split[MAX_DEVICES];
  if (towers == 1) {
    image_split[0] = images;
    label_split[0] = labels;
  } else {
    TF_Output dim = int_const(cpu, "split/split_dim", (int32_t[]){0}, 1);
    for (int k = 0; k < 2; k++) {
      TF_OperationDescription *d = TFC_ScopeNewOperation(cpu, "Split", k ? "split_1" : "split");
      TF_AddInput(d, (TF_Output){dim.oper, 0});
      TF_AddInput(d, k ? labels : images);
      TF_SetAttrInt(d, "num_split", towers);
      TF_Output s = finish(d, "Split");
      for (int i = 0; i < towers; i++) (k ? label_split : image_split)[i] = (TF_Output){s.oper, i};
    }
  }

  /* The towers: loss and gradients on each device. */
  TF_Output tower_grads[MAX_DEVICES][NV], tower_loss[MAX_DEVICES];
  for (int i = 0; i < towers; i++) {
    char dev[32], name[32];
    snprintf(dev, sizeof dev, gpus > 0 ? "/gpu:%d" : "/cpu:%d", i);
    snprintf(name, sizeof name, "tower_%d", i);
    TFC_Scope *on = TFC_ScopeWithDevice(root, dev);
    TFC_Scope *sc = TFC_NewSubScope(on, name);
    TF_Output logits = inference(sc, &n, image_split[i], f->batch, f->keep_prob);
    TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "SparseSoftmaxCrossEntropyWithLogits", "cross_entropy_per_example");
    TF_AddInput(d, logits);
    TF_AddInput(d, label_split[i]);
    TF_Output xent = finish(d, "cross_entropy");
    TF_Output loss = op2(sc, "Mean", "cross_entropy", xent, int_const(sc, "Const", (int32_t[]){0}, 1));
    TF_Output terms[3] = {loss};
    terms[1] = TFC_L2Regularizer(sc, f->weight_decay, n.local3_w.value, status);
    check("l2_regularizer");
    terms[2] = TFC_L2Regularizer(sc, f->weight_decay, n.softmax_w.value, status);
    check("l2_regularizer");
    d = TFC_ScopeNewOperation(sc, "AddN", "total_loss");
    TF_AddInputList(d, terms, terms[1].oper ? 3 : 1);
    tower_loss[i] = finish(d, "total_loss");
    TFC_ComputeGradients(opt, sc, tower_loss[i], vars, NV, tower_grads[i], status);
    check("compute_gradients");
    char tag[64];
    snprintf(tag, sizeof tag, "%s/total_loss", name);
    TFC_ScalarSummary(cpu, tag, tower_loss[i], status);
    check("scalar summary");
    TFC_DeleteScope(sc);
    TFC_DeleteScope(on);
  }

  /* Average the towers' gradients on /cpu:0 and apply them; keep moving averages. */
  TF_Output grads[NV];
  for (int v = 0; v < NV; v++) {
    if (towers == 1) {
      grads[v] = tower_grads[0][v];
      continue;
    }
    TF_Output list[MAX_DEVICES];
    for (int i = 0; i < towers; i++) list[i] = tower_grads[i][v];
    TF_OperationDescription *d = TFC_ScopeNewOperation(cpu, "AddN", "average_gradients/AddN");
    TF_AddInputList(d, list, towers);
    TF_Output sum = finish(d, "AddN");
    grads[v] = op2(cpu, "Mul", "average_gradients/mul", sum, float_const(cpu, "average_gradients/Const", 1.0 / towers));
  }
  TF_Operation *apply = TFC_ApplyGradients(opt, cpu, grads, vars, NV, &global_step, NULL, status);
  check("apply_gradients");
  TF_Operation *ema = TFC_ExponentialMovingAverage(cpu, f->ema_decay, global_step.value, vars, NV, NULL, status);
  check("moving averages");
  TF_Operation *deps[2] = {apply, ema};
  TFC_Scope *grouped = TFC_ScopeWithControlDependencies(cpu, deps, 2);
  TF_Operation *train_op = TF_FinishOperation(TFC_ScopeNewOperation(grouped, "NoOp", "train_op"), status);
  check("train_op");
  TFC_DeleteScope(grouped);
  TFC_ScalarSummary(cpu, "learning_rate", lr, status);
  check("summary");
  static const char *const hist[NV] = {"conv1/weights", "conv1/biases", "conv2/weights", "conv2/biases",
                                       "local3/weights", "local3/biases", "softmax_linear/weights",
                                       "softmax_linear/biases"};
  for (int v = 0; v < NV; v++) {
    TFC_HistogramSummary(cpu, hist[v], vars[v].value, status);
    check("histogram summary");
  }
  TF_Output summary = TFC_MergeAllSummaries(cpu, status);
  check("merge_all");
  TFC_Saver *saver = TFC_NewSaver(cpu, NULL, NULL, 0, 5, status);
  check("saver");
  TF_Operation *init[2];
  init[0] = TFC_GlobalVariablesInitializer(cpu, "init", status);
  check("init");
  init[1] = TFC_LocalVariablesInitializer(cpu, NULL, status);
  check("local init");

  /* Start fresh or resume from the output directory's newest intact checkpoint. */
  char ckpt[4096];
  int found = checkpoint_to_resume(f, ckpt, sizeof ckpt);
  TF_Session *sess = new_session(g, f, cpus);
  if (found) {
    /* The saver takes over the directory's checkpoint list, so max_to_keep keeps counting. */
    run_targets(sess, &init[1], 1, "local init");
    TFC_SaverRestore(saver, sess, ckpt, status);
    check("restore");
    TFC_SaverRecoverLastCheckpoints(saver, f->out, status);
    check("recover_last_checkpoints");
    printf("restored %s\n", ckpt);
  } else {
    run_targets(sess, init, 2, "init");
  }
  TF_Tensor *gs = NULL;
  TF_SessionRun(sess, NULL, NULL, NULL, 0, &global_step.value, &gs, 1, NULL, 0, NULL, status);
  check("global_step");
  long step = (long)scalar_i64(gs), first_step = step;
  TF_DeleteTensor(gs);
  long max_steps = f->max_steps > 0 ? f->max_steps : (long)(f->epochs * (double)steps_per_epoch + 0.5);
  print_device_mapping(sess, g);
  printf("%d tower%s x %d examples per step, %ld steps per epoch; from step %ld to %ld\n", towers,
         towers > 1 ? "s" : "", f->batch, steps_per_epoch, step, max_steps);
  fflush(stdout);

  TFC_EventWriter *events = TFC_NewEventWriter(f->out, status);
  check("event writer");
  TFC_EventWriterAddGraph(events, g, sess, status);
  check("event graph");
  TFC_EventWriterAddSessionLog(events, TFC_SESSION_LOG_START, "", step, status);
  check("event session log");
  TFC_Coordinator *coord = TFC_NewCoordinator();
  TFC_StartQueueRunners(sess, g, coord, status);
  check("start_queue_runners");
  TF_Operation *queue_op = TF_GraphOperationByName(g, "shuffle_batch/random_shuffle_queue");

  double t_start = now_s(), t_window = t_start, busy = 0;
  long window_steps = 0;
  char saved[4096] = "";
  while (step < max_steps) {
    if (TFC_CoordinatorShouldStop(coord)) stop_and_fail(coord, NULL, step, "training");
    int want_summary = f->summary_every > 0 && (step + 1) % f->summary_every == 0;
    TF_Output fetches[2] = {tower_loss[0], summary};
    TF_Tensor *out[2] = {NULL, NULL};
    double t0 = now_s();
    TF_SessionRun(sess, NULL, NULL, NULL, 0, fetches, out, want_summary && summary.oper ? 2 : 1,
                  (const TF_Operation *const *)&train_op, 1,
                  NULL, status);
    if (TF_GetCode(status) != TF_OK) stop_and_fail(coord, status, step, "training");
    busy += now_s() - t0;
    step++;
    window_steps++;
    float loss = *(float *)TF_TensorData(out[0]);
    if (loss != loss) {
      fprintf(stderr, "fashion_mnist: model diverged with loss = NaN at step %ld\n", step);
      exit(1);
    }
    if (out[1]) {
      TFC_EventWriterAddSummaryTensor(events, out[1], step, status);
      check("event summary");
    }
    TF_DeleteTensor(out[0]);
    TF_DeleteTensor(out[1]);
    if (step % f->log_every == 0 || step == max_steps) {
      double t = now_s(), per_batch = (t - t_window) / (double)window_steps;
      char ts[32];
      timestamp(ts, sizeof ts);
      printf("%s: step %ld, loss = %.2f (%.1f examples/sec; %.3f sec/batch)\n", ts, step, loss,
             (double)f->batch * towers / per_batch, per_batch);
      fflush(stdout);
      t_window = t;
      window_steps = 0;
    }
    if ((f->save_every > 0 && step % f->save_every == 0) || step == max_steps) {
      char prefix[4096];
      snprintf(prefix, sizeof prefix, "%s/model.ckpt", f->out);
      TFC_SaverSave(saver, sess, prefix, step, saved, sizeof saved, status);
      check("save");
      TFC_EventWriterAddSessionLog(events, TFC_SESSION_LOG_CHECKPOINT, saved, step, status);
      check("event session log");
      TFC_EventWriterFlush(events, status);
      check("event flush");
    }
  }
  double wall = now_s() - t_start;
  double waited = queue_op ? TFC_QueueDequeueWaitSeconds(sess, queue_op, status) : 0;
  check("queue wait");
  long trained = step - first_step;
  if (trained > 0)
    printf("trained %ld steps in %.1f s: %.1f examples/sec; waiting on the input queue %.2f s, %.1f%% of step "
           "time\n",
           trained, wall, (double)trained * f->batch * towers / wall, waited, busy > 0 ? 100 * waited / busy : 0.0);
  if (saved[0]) printf("checkpoint %s\n", saved);

  TFC_CoordinatorRequestStop(coord, NULL);
  TFC_CoordinatorJoin(coord, status);
  check("queue runners");
  TFC_DeleteCoordinator(coord);
  TFC_EventWriterAddSessionLog(events, TFC_SESSION_LOG_STOP, "", step, status);
  check("event session log");
  TFC_CloseEventWriter(events, status);
  check("event close");
  TFC_DeleteEventWriter(events);
  TF_CloseSession(sess, status);
  TF_DeleteSession(sess, status);
  TFC_DeleteSaver(saver);
  TFC_DeleteOptimizer(opt);
  TFC_DeleteScope(cpu);
  TFC_DeleteScope(root);
  TF_DeleteGraph(g);
}

/* ---------------------------------------------------------------- a cluster's task */

/* The workers of the cluster spec (TFC_NewServerDef checks the spec and this task's place in
 * it): the number of addresses of its "worker" job. */
static int cluster_workers(const flags *f) {
  TF_Buffer *def = TFC_NewServerDef(f->cluster, f->job, f->task, 0, NULL, 0, status);
  check("--cluster");
  TF_DeleteBuffer(def);
  const char *w = strstr(f->cluster, "worker=");
  while (w && w != f->cluster && w[-1] != ';') w = strstr(w + 1, "worker=");
  if (!w) fail(TF_INVALID_ARGUMENT, "--cluster: the cluster has no worker job: %s", f->cluster);
  int n = 1;
  for (const char *c = w; *c && *c != ';'; c++) n += *c == ',';
  return n;
}

static int stop_pipe[2] = {-1, -1};

static void on_stop_signal(int sig) {
  unsigned char b = (unsigned char)sig;
  if (write(stop_pipe[1], &b, 1) < 0) {
  }
}

/* This task's server, started; prints "<prog>: <task> listening on <target>". */
static TF_Server *start_server(const flags *f) {
  TF_Buffer *def = TFC_NewServerDef(f->cluster, f->job, f->task, 0, NULL, 0, status);
  check("ServerDef");
  TF_Server *srv = TF_NewServer(def->data, def->length, status);
  TF_DeleteBuffer(def);
  check("TF_NewServer");
  TF_ServerStart(srv, status);
  check("TF_ServerStart");
  printf("%s: /job:%s/replica:0/task:%d listening on %s\n", prog, f->job, f->task, TF_ServerTarget(srv));
  fflush(stdout);
  return srv;
}

/* --job ps: serves the variables until SIGTERM or SIGINT, then stops and exits 0. */
static void serve_ps(const flags *f) {
  if (pipe(stop_pipe) != 0) fail(TF_INTERNAL, "pipe: %s", strerror(errno));
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  TF_Server *srv = start_server(f);
  struct pollfd p = {stop_pipe[0], POLLIN, 0};
  while (poll(&p, 1, -1) < 0 && errno == EINTR) {
  }
  TF_ServerStop(srv, status);
  TF_ServerJoin(srv, status);
  TF_DeleteServer(srv);
  printf("%s: stopped\n", prog);
}

/* The ConfigProto of a worker's sessions: device_filters "/job:ps" and "/job:worker/task:N",
 * as TF's between-graph programs set them, so that a session needs only the ps tasks and this
 * worker: one made while another worker is down (restarting) does not wait for it. Written
 * by hand (field 4, length-delimited): the C API takes the serialized bytes. Returns the
 * length. */
static size_t worker_config(int task, unsigned char *buf, size_t cap) {
  char mine[64];
  snprintf(mine, sizeof mine, "/job:worker/task:%d", task);
  const char *filters[2] = {"/job:ps", mine};
  size_t n = 0;
  for (int i = 0; i < 2; i++) {
    size_t len = strlen(filters[i]);
    if (n + 2 + len > cap || len > 127) return 0;
    buf[n++] = 0x22; /* field 4, wire type 2 */
    buf[n++] = (unsigned char)len;
    memcpy(buf + n, filters[i], len);
    n += len;
  }
  return n;
}

/* --job worker: between-graph replication, as TF's distributed cifar10 and seed 004's cluster
 * program do it. This task serves, builds its own graph with the variables placed on the ps
 * tasks by a replica device setter, and trains in a monitored session on its own master:
 * task 0 is the chief (initializes or restores, saves checkpoints and summaries, keeps the
 * moving averages the evaluation reads); with --sync the gradients of --replicas-to-aggregate
 * workers are averaged per step (SyncReplicasOptimizer), else each worker applies its own.
 * A task that dies and comes back (under `tfc cluster`) rejoins: the monitored sessions
 * recover. --step-pause-ms leaves the worker idle for a while after each step (after its log
 * line): the cluster's tests use it to stop a task between two steps for sure. */
static void train_cluster(const flags *f) {
  char path[4096], worker_dev[64], cpu_dev[80];
  snprintf(path, sizeof path, "%s/train.tfrecords", f->data);
  snprintf(worker_dev, sizeof worker_dev, "/job:worker/task:%d", f->task);
  snprintf(cpu_dev, sizeof cpu_dev, "%s/cpu:0", worker_dev);
  int chief = f->task == 0;
  TF_Server *srv = start_server(f);

  TF_Graph *g = TF_NewGraph();
  if (f->seed) TFC_SetRandomSeed(g, f->seed);
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_ReplicaDeviceSetter *rds = TFC_NewReplicaDeviceSetter(0, NULL, worker_dev, 1, NULL, f->cluster, NULL, 0, status);
  check("replica_device_setter");
  TFC_Scope *sc = TFC_ScopeWithDeviceFunction(root, TFC_ReplicaDeviceSetterFunction, rds);
  TFC_Scope *cpu = TFC_ScopeWithDevice(sc, cpu_dev);

  TFC_Variable global_step = TFC_GetOrCreateGlobalStep(sc, status);
  check("global_step");
  long steps_per_epoch = f->train_records / ((long)f->batch * f->replicas_to_aggregate);
  if (steps_per_epoch < 1) steps_per_epoch = 1;
  long max_steps = f->max_steps > 0 ? f->max_steps : (long)(f->epochs * (double)steps_per_epoch + 0.5);
  TF_Output lr = TFC_ExponentialDecay(sc, f->lr, global_step.value, (double)steps_per_epoch, f->lr_decay, 1, status);
  check("exponential_decay");
  TFC_Optimizer *opt = TFC_NewMomentumOptimizer(f->lr, f->momentum, 0, NULL);
  TFC_OptimizerSetLearningRate(opt, lr);
  net n;
  make_vars(sc, &n);
  TFC_Variable *vars = &n.conv1_w;
  enum { NV = 8 };

  TF_Output images, labels;
  inputs(cpu, path, 1, f->batch, &images, &labels);
  TF_Output logits = inference(sc, &n, images, f->batch, f->keep_prob);
  TF_OperationDescription *d = TFC_ScopeNewOperation(sc, "SparseSoftmaxCrossEntropyWithLogits", "cross_entropy_per_example");
  TF_AddInput(d, logits);
  TF_AddInput(d, labels);
  TF_Output xent = finish(d, "cross_entropy");
  TF_Output terms[3] = {op2(sc, "Mean", "cross_entropy", xent, int_const(sc, "Const", (int32_t[]){0}, 1))};
  terms[1] = TFC_L2Regularizer(sc, f->weight_decay, n.local3_w.value, status);
  check("l2_regularizer");
  terms[2] = TFC_L2Regularizer(sc, f->weight_decay, n.softmax_w.value, status);
  check("l2_regularizer");
  d = TFC_ScopeNewOperation(sc, "AddN", "total_loss");
  TF_AddInputList(d, terms, terms[1].oper ? 3 : 1);
  TF_Output loss = finish(d, "total_loss");
  TF_Output grads[NV];
  TFC_ComputeGradients(opt, sc, loss, vars, NV, grads, status);
  check("compute_gradients");

  TFC_SyncReplicasOptimizer *sync = NULL;
  TFC_SessionRunHook hooks[1];
  int n_hooks = 0;
  TF_Operation *apply;
  if (f->sync) {
    sync = TFC_NewSyncReplicasOptimizer(opt, f->replicas_to_aggregate, f->workers, NULL, status);
    check("SyncReplicasOptimizer");
    apply = TFC_SyncReplicasApplyGradients(sync, sc, grads, vars, NV, &global_step, status);
    check("sync apply_gradients");
    hooks[n_hooks++] = TFC_SyncReplicasHook(sync, sc, (unsigned char)chief, -1, status);
    check("sync hook");
  } else {
    apply = TFC_ApplyGradients(opt, sc, grads, vars, NV, &global_step, NULL, status);
    check("apply_gradients");
  }
  TF_Operation *train_op = apply;
  if (chief) {
    /* The chief keeps the moving averages (one update per chief step). */
    TFC_Scope *after = TFC_ScopeWithControlDependencies(sc, &apply, 1);
    TF_Operation *ema = TFC_ExponentialMovingAverage(after, f->ema_decay, global_step.value, vars, NV, NULL, status);
    check("moving averages");
    TF_Operation *deps[2] = {apply, ema};
    TFC_Scope *grouped = TFC_ScopeWithControlDependencies(sc, deps, 2);
    train_op = TF_FinishOperation(TFC_ScopeNewOperation(grouped, "NoOp", "train_op"), status);
    check("train_op");
    TFC_DeleteScope(grouped);
    TFC_DeleteScope(after);
    TFC_ScalarSummary(sc, "total_loss", loss, status);
    check("summary");
    TFC_ScalarSummary(sc, "learning_rate", lr, status);
    check("summary");
  }

  TFC_MonitoredSessionOptions o = {0};
  o.master = TF_ServerTarget(srv);
  o.is_chief = (unsigned char)chief;
  o.checkpoint_dir = f->out;
  o.save_checkpoint_steps = f->save_every > 0 ? f->save_every : 0;
  o.save_checkpoint_secs = f->save_every > 0 ? 0 : 600;
  o.save_summaries_steps = f->summary_every > 0 ? f->summary_every : -1;
  o.log_step_count_steps = -1;
  o.last_step = max_steps;
  o.recovery_wait_secs = 1;
  o.hooks = hooks;
  o.num_hooks = n_hooks;
  unsigned char config[160];
  o.config = config;
  o.config_len = worker_config(f->task, config, sizeof config);
  TFC_MonitoredSession *ms = TFC_NewMonitoredSession(g, &o, status);
  check("monitored session");
  printf("worker %d of %d%s, %d examples per step each; to step %ld\n", f->task, f->workers,
         f->sync ? " (synchronous)" : " (asynchronous)", f->batch, max_steps);
  fflush(stdout);
  double t_window = now_s(), t_start = t_window;
  long mine = 0, window = 0;
  while (!TFC_MonitoredSessionShouldStop(ms)) {
    TF_Tensor *out = NULL;
    const TF_Operation *t[] = {train_op};
    TFC_MonitoredSessionRun(ms, NULL, NULL, NULL, 0, &loss, &out, 1, t, 1, NULL, status);
    if (TF_GetCode(status) == TF_OUT_OF_RANGE) break;
    check("training");
    float l = *(float *)TF_TensorData(out);
    TF_DeleteTensor(out);
    if (l != l) fail(TF_INVALID_ARGUMENT, "model diverged with loss = NaN at step %lld",
                     (long long)TFC_MonitoredSessionGlobalStep(ms));
    mine++;
    window++;
    if (mine % f->log_every == 0) {
      double t = now_s(), per_batch = (t - t_window) / (double)window;
      char ts[32];
      timestamp(ts, sizeof ts);
      printf("%s: worker %d: step %lld, loss = %.2f (%.1f examples/sec; %.3f sec/batch)\n", ts, f->task,
             (long long)TFC_MonitoredSessionGlobalStep(ms) + 1, l, (double)f->batch / per_batch, per_batch);
      fflush(stdout);
      t_window = t;
      window = 0;
    }
    if (f->step_pause_ms > 0) {
      struct timespec pause = {f->step_pause_ms / 1000, (long)(f->step_pause_ms % 1000) * 1000000L};
      while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
      }
    }
  }
  double wall = now_s() - t_start;
  int64_t last = TFC_MonitoredSessionGlobalStep(ms);
  TFC_MonitoredSessionClose(ms, status);
  check("close");
  printf("worker %d: ran %ld steps in %.1f s (%.1f examples/sec), global step %lld\n", f->task, mine, wall,
         wall > 0 ? (double)mine * f->batch / wall : 0.0, (long long)last);
  fflush(stdout);
  TFC_DeleteMonitoredSession(ms);
  TFC_DeleteSyncReplicasOptimizer(sync);
  TFC_DeleteOptimizer(opt);
  TFC_DeleteScope(cpu);
  TFC_DeleteScope(sc);
  TFC_DeleteScope(root);
  TFC_DeleteReplicaDeviceSetter(rds);
  TF_DeleteGraph(g);
  TF_ServerStop(srv, status);
  TF_DeleteServer(srv);
}

/* ---------------------------------------------------------------- evaluation */

/* cifar10_eval: the moving averages of the last checkpoint's weights, restored into a fresh
 * inference graph, classify the 10,000 test images once. */
static double evaluate(const flags *f) {
  char path[4096], ckpt[4096];
  snprintf(path, sizeof path, "%s/test.tfrecords", f->data);
  int skipped = 0;
  int found = TFC_LatestIntactCheckpoint(f->out, ckpt, sizeof ckpt, say_skipped, &skipped, status);
  check("latest_checkpoint");
  if (!found) fail(TF_NOT_FOUND, "no checkpoint in %s to evaluate%s", f->out, skipped ? " that can be restored" : "");
  TF_Graph *g = TF_NewGraph();
  TFC_Scope *root = TFC_NewRootScope(g);
  TFC_Scope *cpu = TFC_ScopeWithDevice(root, "/cpu:0");
  TF_Output images, labels;
  inputs(cpu, path, 0, 100, &images, &labels);
  net n;
  make_vars(cpu, &n);
  TF_Output logits = inference(cpu, &n, images, 0, 1);
  TF_OperationDescription *d = TFC_ScopeNewOperation(cpu, "InTopKV2", NULL);
  TF_AddInput(d, logits);
  TF_AddInput(d, labels);
  TF_AddInput(d, (TF_Output){TFC_ScalarConst(cpu, "k", TF_INT64, 1, status).oper, 0});
  TF_Output correct = finish(d, "in_top_k");
  /* Each weight takes its moving average's value (variables_to_restore). */
  const TFC_Variable *vars = &n.conv1_w;
  char names[8][128];
  const char *name_ptrs[8];
  TF_Output refs[8];
  for (int v = 0; v < 8; v++) {
    snprintf(names[v], sizeof names[v], "%s/ExponentialMovingAverage", TF_OperationName(vars[v].variable));
    name_ptrs[v] = names[v];
    refs[v] = (TF_Output){vars[v].variable, 0};
  }
  TFC_Saver *saver = TFC_NewSaver(cpu, name_ptrs, refs, 8, 0, status);
  check("saver");
  TF_Operation *local_init = TFC_LocalVariablesInitializer(cpu, NULL, status);
  check("local init");
  TF_Session *sess = new_session(g, f, 1);
  run_targets(sess, &local_init, 1, "local init");
  TFC_SaverRestore(saver, sess, ckpt, status);
  check("restore");
  TFC_Coordinator *coord = TFC_NewCoordinator();
  TFC_StartQueueRunners(sess, g, coord, status);
  check("start_queue_runners");
  long right = 0, total = 0;
  for (;;) {
    if (TFC_CoordinatorShouldStop(coord)) stop_and_fail(coord, NULL, total, "evaluation");
    TF_Tensor *out = NULL;
    TF_SessionRun(sess, NULL, NULL, NULL, 0, &correct, &out, 1, NULL, 0, NULL, status);
    /* The test file is done — or the pipeline failed, closing the queue early. */
    if (TF_GetCode(status) == TF_OUT_OF_RANGE) break;
    if (TF_GetCode(status) != TF_OK) stop_and_fail(coord, status, total, "evaluation");
    const unsigned char *ok = TF_TensorData(out);
    int64_t k = TF_Dim(out, 0);
    for (int64_t i = 0; i < k; i++) right += ok[i] != 0;
    total += k;
    TF_DeleteTensor(out);
  }
  TF_SetStatus(status, TF_OK, "");
  TFC_CoordinatorRequestStop(coord, NULL);
  TFC_CoordinatorJoin(coord, status);
  if (TF_GetCode(status) != TF_OK) /* a corrupt test record ends the file early */
    fail(TF_GetCode(status), "%s (the input pipeline stopped; evaluation ends after %ld test images)",
         TF_Message(status), total);
  TFC_DeleteCoordinator(coord);
  double acc = total ? (double)right / (double)total : 0;
  char ts[32];
  timestamp(ts, sizeof ts);
  printf("%s: precision @ 1 = %.4f (%ld of %ld test images, moving averages of %s)\n", ts, acc, right, total, ckpt);
  TF_CloseSession(sess, status);
  TF_DeleteSession(sess, status);
  TFC_DeleteSaver(saver);
  TFC_DeleteScope(cpu);
  TFC_DeleteScope(root);
  TF_DeleteGraph(g);
  return acc;
}

/* ---------------------------------------------------------------- inputs */

/* Counts path's records (TFC_CountRecords: the framing, cheaply) and fails when the file is
 * missing, unreadable, damaged or empty, naming it. An empty train file must not reach the
 * pipeline: with num_epochs None the file-name queue never ends, so the reader would open the
 * file, find no record and take the next name forever (TF's graph does the same). */
static long count_records(const flags *f, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", f->data, name);
  int64_t n = TFC_CountRecords(path, "", status);
  if (TF_GetCode(status) == TF_NOT_FOUND)
    fail(TF_NOT_FOUND, "%s; make the data with `tfc data fashion-mnist --out %s`", TF_Message(status), f->data);
  check("checking the input");
  if (n == 0)
    fail(TF_INVALID_ARGUMENT, "%s holds no records (an empty file); make the data again with `tfc data fashion-mnist "
         "--out %s`", path, f->data);
  return (long)n;
}

/* ---------------------------------------------------------------- flags */

static void bad_flag(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void bad_flag(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", prog);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  usage(stderr, 2);
}

static const char *arg(int argc, char **argv, int *i) {
  if (*i + 1 >= argc) bad_flag("%s needs a value", argv[*i]);
  ++*i;
  return argv[*i];
}

/* The next argument as an integer in [lo, hi], or a message naming the flag. */
static long int_arg(int argc, char **argv, int *i, long lo, long hi) {
  const char *flag = argv[*i], *v = arg(argc, argv, i);
  char *end;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (end == v || *end || errno == ERANGE) bad_flag("%s: '%s' is not an integer", flag, v);
  if (n < lo || n > hi) bad_flag("%s: %ld is out of range [%ld, %ld]", flag, n, lo, hi);
  return n;
}

/* The next argument as a number in (lo, hi] (lo_open) or [lo, hi]. */
static double num_arg(int argc, char **argv, int *i, double lo, int lo_open, double hi) {
  const char *flag = argv[*i], *v = arg(argc, argv, i);
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  if (end == v || *end || errno == ERANGE || x != x) bad_flag("%s: '%s' is not a number", flag, v);
  if ((lo_open ? x <= lo : x < lo) || x > hi)
    bad_flag("%s: %g is out of range %s%g, %g]", flag, x, lo_open ? "(" : "[", lo, hi);
  return x;
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv) {
  const char *base = argc > 0 ? strrchr(argv[0], '/') : NULL;
  if (argc > 0) prog = base ? base + 1 : argv[0];
  flags f = {.data = "fashion_mnist_data", .out = "fashion_mnist_train", .epochs = 1, .devices = 2, .batch = 50,
             .log_every = 10, .save_every = 200, .summary_every = 50, .lr = 0.01, .lr_decay = 0.9,
             .momentum = 0.9, .weight_decay = 0.0001, .ema_decay = 0.999, .keep_prob = 0.5, .eval = 1, .train = 1};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--data")) f.data = arg(argc, argv, &i);
    else if (!strcmp(a, "--out")) f.out = arg(argc, argv, &i);
    else if (!strcmp(a, "--epochs")) f.epochs = num_arg(argc, argv, &i, 0, 1, 1e6);
    else if (!strcmp(a, "--devices")) f.devices = (int)int_arg(argc, argv, &i, 1, MAX_DEVICES);
    else if (!strcmp(a, "--batch")) f.batch = (int)int_arg(argc, argv, &i, 1, 1 << 20);
    else if (!strcmp(a, "--max-steps")) f.max_steps = int_arg(argc, argv, &i, 0, LONG_MAX);
    else if (!strcmp(a, "--lr")) f.lr = num_arg(argc, argv, &i, 0, 1, 1e6);
    else if (!strcmp(a, "--lr-decay")) f.lr_decay = num_arg(argc, argv, &i, 0, 1, 1);
    else if (!strcmp(a, "--keep-prob")) f.keep_prob = num_arg(argc, argv, &i, 0, 1, 1);
    else if (!strcmp(a, "--seed")) f.seed = int_arg(argc, argv, &i, LONG_MIN, LONG_MAX);
    else if (!strcmp(a, "--threads")) f.threads = (int)int_arg(argc, argv, &i, 0, 4096);
    else if (!strcmp(a, "--log-every")) f.log_every = (int)int_arg(argc, argv, &i, 1, INT_MAX);
    else if (!strcmp(a, "--save-every")) f.save_every = (int)int_arg(argc, argv, &i, 0, INT_MAX);
    else if (!strcmp(a, "--summary-every")) f.summary_every = (int)int_arg(argc, argv, &i, 0, INT_MAX);
    else if (!strcmp(a, "--eval-only")) f.train = 0;
    else if (!strcmp(a, "--no-eval")) f.eval = 0;
    else if (!strcmp(a, "--restart")) f.restart = 1;
    else if (!strcmp(a, "--cluster")) f.cluster = arg(argc, argv, &i);
    else if (!strcmp(a, "--job")) f.job = arg(argc, argv, &i);
    else if (!strcmp(a, "--task")) f.task = (int)int_arg(argc, argv, &i, 0, 1 << 20);
    else if (!strcmp(a, "--sync")) f.sync = 1;
    else if (!strcmp(a, "--replicas-to-aggregate")) f.replicas_to_aggregate = (int)int_arg(argc, argv, &i, 1, 1 << 20);
    else if (!strcmp(a, "--step-pause-ms")) f.step_pause_ms = (int)int_arg(argc, argv, &i, 0, 3600 * 1000);
    else if (!strcmp(a, "--help") || !strcmp(a, "-h")) usage(stdout, 0);
    else bad_flag("unknown flag '%s'", a);
  }
  if (!f.train && !f.eval) bad_flag("--eval-only and --no-eval leave nothing to do");
  if ((f.job || f.sync || f.replicas_to_aggregate || f.step_pause_ms) && !f.cluster)
    bad_flag("--job, --sync, --replicas-to-aggregate and --step-pause-ms need --cluster");
  if (f.cluster && !f.job) bad_flag("--cluster needs --job ps or --job worker");
  if (f.job && strcmp(f.job, "ps") != 0 && strcmp(f.job, "worker") != 0)
    bad_flag("--job: '%s' is not ps or worker", f.job);
  status = TF_NewStatus();
  if (f.cluster) {
    f.workers = cluster_workers(&f);
    if (!strcmp(f.job, "ps")) {
      serve_ps(&f);
      TF_DeleteStatus(status);
      return 0;
    }
    if (f.replicas_to_aggregate > f.workers)
      bad_flag("--replicas-to-aggregate: %d is more than the cluster's %d workers", f.replicas_to_aggregate, f.workers);
    if (!f.replicas_to_aggregate) f.replicas_to_aggregate = f.workers;
  }
  /* The inputs, before anything is built: a missing, empty or damaged file stops here. */
  if (f.train) f.train_records = count_records(&f, "train.tfrecords");
  if (f.eval) count_records(&f, "test.tfrecords");
  if (mkdir(f.out, 0777) != 0 && errno != EEXIST)
    fail(TF_PERMISSION_DENIED, "cannot create %s: %s", f.out, strerror(errno));
  if (f.train) {
    if (f.cluster) train_cluster(&f);
    else train(&f);
  }
  /* In a cluster the chief evaluates what it saved. */
  if (f.eval && (!f.cluster || f.task == 0)) evaluate(&f);
  TF_DeleteStatus(status);
  return 0;
}
