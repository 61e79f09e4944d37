/*
 * bench/fashion_mnist — the main job's training speed: examples per second of the fashion_mnist
 * program (seed 004's CNN fed by its TFRecord input pipeline: reader threads, parsing,
 * shuffle_batch; dropout on the fully connected layer) with one tower and with one tower per
 * core, beside TensorFlow running seed 004's own Python program (examples/python/fashion_mnist.py,
 * changed only in its import line: the same queues, towers and TFRecords; target: ratio >= 1.5)
 * and the same network in PyTorch on the same data (the Debian idx files, decoded into
 * memory, shuffled batches) with the same thread count and global batch, in the same
 * invocation. It also prints the fraction
 * of step time the towers spent waiting on the input queue: the pipeline must not be the
 * bottleneck. Ratios > 1 mean tfc is faster.
 *
 * Usage (from the build directory): bench_fashion_mnist [steps] [python]
 *   defaults: 60 timed steps after 20 warm-up steps, bench_python's choice (the build
 *   tree's bench-venv when there).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

#define GLOBAL_BATCH 100
#define IDX_DIR "/usr/share/datasets/fashion-mnist"
#define WARM_STEPS 20

/* The median of the "step N, loss = L (R examples/sec; ...)" lines after the warm-up steps
 * that a training program prints on p (the C program and the Python one print the same line);
 * with wait_pct, also the C program's queue-wait figure. Returns examples/sec, or -1. */
static double median_rate(FILE *p, double *wait_pct) {
  char line[1024];
  double rates[64];
  int n = 0;
  if (wait_pct) *wait_pct = -1;
  while (fgets(line, sizeof line, p)) {
    const char *at = strstr(line, ": step ");
    long step;
    double loss, rate;
    if (at && sscanf(at, ": step %ld, loss = %lf (%lf examples/sec", &step, &loss, &rate) == 3) {
      if (step > WARM_STEPS && n < 64) rates[n++] = rate;
      continue;
    }
    const char *w = strstr(line, "waiting on the input queue");
    if (w && wait_pct) {
      const char *pct = strrchr(line, '%');
      while (pct && pct > line && pct[-1] != ' ') pct--;
      if (pct) *wait_pct = atof(pct);
    }
    if (strstr(line, "fashion_mnist:")) fputs(line, stderr);
  }
  return n ? bench_median(rates, n) : -1;
}

/* Runs cmd, reads its median rate (median_rate), then removes its output folder `dir`. */
static double run_program(const char *cmd, const char *dir, double *wait_pct) {
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  double r = median_rate(p, wait_pct);
  pclose(p);
  char rm[256];
  snprintf(rm, sizeof rm, "rm -rf %s", dir);
  if (system(rm) != 0) fprintf(stderr, "bench_fashion_mnist: could not remove %s\n", dir);
  return r;
}

/* Runs the program for warm + steps steps and reads its "examples/sec" and queue-wait figures
 * from the lines after the warm-up. Returns examples/sec (median of the logged windows), or -1. */
static double run_tfc(int devices, int threads, int steps, double *wait_pct) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "rm -rf bench_fashion_mnist_out && ./fashion_mnist --data bench_fashion_mnist_data "
           "--out bench_fashion_mnist_out --devices %d --batch %d --threads %d --max-steps %d --log-every 10 "
           "--save-every 0 --summary-every 0 --no-eval 2>&1",
           devices, GLOBAL_BATCH / devices, threads, WARM_STEPS + steps);
  return run_program(cmd, "bench_fashion_mnist_out", wait_pct);
}

/* TensorFlow running seed 004's own Python program (examples/python/fashion_mnist.py: queue
 * runners, shuffle_batch, towers on virtual CPU devices, tf.compat.v1) on the same TFRecords,
 * changed only in its import line, with the same towers, global batch and steps. TensorFlow
 * sizes its thread pools to the machine's cores, as tfc's program does by default. Returns
 * examples/sec, or -1 (no TensorFlow for python). */
static double run_tf(const char *python, int devices, int steps) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "rm -rf bench_fashion_mnist_tf && mkdir -p bench_fashion_mnist_tf && "
           "sed 's/^import tfc.compat.v1 as tf.*/import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()/' "
           "%s/../examples/python/fashion_mnist.py > bench_fashion_mnist_tf/program.py && "
           "TF_CPP_MIN_LOG_LEVEL=3 %s bench_fashion_mnist_tf/program.py --data bench_fashion_mnist_data "
           "--out bench_fashion_mnist_tf/out --devices %d --batch_size %d --max_steps %d --log_every 10 "
           "--save_every 0 --summary_every 0 --eval=false 2>/dev/null",
           TFC_BENCH_DIR, python, devices, GLOBAL_BATCH / devices, WARM_STEPS + steps);
  return run_program(cmd, "bench_fashion_mnist_tf", NULL);
}

static double torch_examples_per_sec(const char *python, int threads, int steps) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "%s -c \"import gzip, time, numpy as np, torch\n"
           "torch.set_num_threads(%d)\n"
           "torch.manual_seed(4)\n"
           "raw = gzip.open('%s/train-images-idx3-ubyte.gz').read()[16:]\n"
           "x = torch.from_numpy(np.frombuffer(raw, np.uint8).reshape(-1, 1, 28, 28).astype(np.float32) / 255)\n"
           "y = torch.from_numpy(np.frombuffer(gzip.open('%s/train-labels-idx1-ubyte.gz').read()[8:], np.uint8)"
           ".astype(np.int64))\n"
           "nn = torch.nn\n"
           "m = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),\n"
           "                  nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),\n"
           "                  nn.Linear(7 * 7 * 64, 1024), nn.ReLU(), nn.Dropout(0.5), nn.Linear(1024, 10))\n"
           "opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9, weight_decay=0.0001)\n"
           "lossf = nn.CrossEntropyLoss()\n"
           "perm = torch.randperm(x.shape[0])\n"
           "def step(i):\n"
           "    idx = perm[(i * %d) %% 59900:][:%d]\n"
           "    opt.zero_grad(); l = lossf(m(x[idx]), y[idx]); l.backward(); opt.step()\n"
           "for i in range(20): step(i)\n"
           "rates = []\n"
           "for r in range(%d):\n"
           "    t0 = time.perf_counter()\n"
           "    for i in range(10): step(20 + 10 * r + i)\n"
           "    rates.append(10 * %d / (time.perf_counter() - t0))\n"
           "print(sorted(rates)[len(rates) // 2])\" 2>/dev/null",
           python, threads, IDX_DIR, IDX_DIR, GLOBAL_BATCH, GLOBAL_BATCH, steps / 10, GLOBAL_BATCH);
  return bench_peer_number(cmd);
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 60;
  const char *python = bench_python(argc > 2 ? argv[2] : NULL);
  int cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
  if (steps < 10) steps = 10;
  if (access("bench_fashion_mnist_data/train.tfrecords", R_OK) != 0 &&
      system("./tfc data fashion-mnist --out bench_fashion_mnist_data >/dev/null") != 0) {
    fprintf(stderr, "bench_fashion_mnist: cannot convert the dataset (install dataset-fashion-mnist)\n");
    return 1;
  }
  printf("fashion_mnist: seed 004's CNN on Fashion-MNIST from TFRecord files, global batch %d, momentum SGD, "
         "%d threads, %d timed steps\n",
         GLOBAL_BATCH, cores, steps);
  bench_print_peers(RTLD_DEFAULT, cores, cores, python, "torch=%d tensorflow", cores);
  double torch = torch_examples_per_sec(python, cores, steps);
  if (torch > 0)
    printf("PyTorch (in-memory tensors):      %8.1f examples/s\n", torch);
  else
    printf("PyTorch: n/a (no torch or numpy for %s)\n", python);
  int configs[2] = {1, cores};
  for (int k = 0; k < (cores > 1 ? 2 : 1); k++) {
    const char *towers = configs[k] > 1 ? "s" : " ";
    double tf = run_tf(python, configs[k], steps);
    if (tf > 0)
      printf("TensorFlow, seed 004's Python program, %d tower%s: %8.1f examples/s\n", configs[k], towers, tf);
    else
      printf("TensorFlow, %d tower%s: n/a (no tensorflow for %s)\n", configs[k], towers, python);
    double wait = -1;
    double ours = run_tfc(configs[k], cores, steps, &wait);
    if (ours < 0) {
      printf("tfc, %d tower%s: failed\n", configs[k], towers);
      continue;
    }
    printf("tfc, %d tower%s on %d device%s:       %8.1f examples/s  (input queue wait %.1f%% of step time)",
           configs[k], towers, configs[k], towers, ours, wait);
    if (tf > 0) printf("  ratio tfc/TensorFlow %.2f (target >= 1.5)", ours / tf);
    if (torch > 0) printf("  ratio tfc/PyTorch %.2f", ours / torch);
    printf("\n");
  }
  return 0;
}
