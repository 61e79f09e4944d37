/*
 * bench/cluster — the main job across processes on this machine, against one process and
 * against TensorFlow's own between-graph program, in one invocation:
 *
 *   1. one process with two towers (`fashion_mnist --devices 2`, BATCH per tower): examples/s
 *      and the test-set precision of its moving averages;
 *   2. 1 ps + 2 workers under `tfc cluster`, synchronous (SyncReplicas, 2 of 2 aggregated:
 *      the same global batch and learning-rate schedule as 1.) and asynchronous, BATCH per
 *      worker: the sum of the workers' examples/s, its ratio to 1. (target for the synchronous
 *      run >= 0.8) and the precision of the synchronous run against 1.'s (target: within 0.5%);
 *      Beside the rates, the CPU time per global step of every process of each run in the
 *      steady state (sampled from /proc at the logged steps), and the ceiling this machine puts
 *      on the synchronous ratio: the workers compute at least what the single process does, and
 *      each byte crossing loopback costs at least what raw gRPC spends on it (bench_dist's CPU
 *      per MiB, run here), so with every core busy no gRPC transport gets past
 *      cores / (one process's CPU + bytes x raw gRPC's CPU per byte) global steps per second;
 *   3. TensorFlow (PyPI's tensorflow, when bench_python's Python has it) running seed 004's Python
 *      program (examples/python/fashion_mnist.py, its import line switched to
 *      tensorflow.compat.v1 by bench/cluster_tf.py) as the same cluster under the same
 *      supervisor, synchronous: tfc's ratio to it (target >= 2); tfc running that very Python
 *      program is printed too. These compare steady states: global steps per second while
 *      both workers run (from the first step the later worker logs to the last step the
 *      earlier-finishing one logs), as the Python program's workers, like TF's, check the
 *      chief's model every 30 s and so start late (in the meantime the chief's gradients alone
 *      fill the accumulators, as TF's SyncReplicasOptimizer allows); at least 900 global steps
 *      each, so that the window is long; and their CPU per global step;
 *   4. the synchronous run with the ps killed with SIGKILL half way (a checkpoint every sixth
 *      of the run): its final global step and precision against the undisturbed run's;
 *      recovery: a worker's trainer killed with SIGKILL mid-training, from the kill to the first
 *      step its restarted process completes (target <= 5 s);
 *   5. the per-step costs docs/SCALING.md's model takes (one worker's compute, measured in one
 *      process with one tower; the parameter bytes each worker moves each way, from the
 *      loopback interface's byte count during the synchronous run; the ps task's CPU time per
 *      global step in its steady state), then the model's examples/s for 8 and 64 workers (bench/scaling_model.py).
 *
 * The Python programs run in bench_python's Python (the build tree's bench-venv, with PyPI's
 * TensorFlow, when there), tfc's and TensorFlow's alike.
 *
 * Usage (from the build directory, where tfc and fashion_mnist are): bench_cluster [steps]
 *   default 600 global steps per run (one epoch of Fashion-MNIST at a global batch of 100, so
 *   that precisions compare); the data is Debian's Fashion-MNIST converted once into
 *   bench_cluster_data by `tfc data fashion-mnist`. Nothing is asserted on time.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#define BATCH 50
#define MIB (1024.0 * 1024.0)
#define DATA "bench_cluster_data"
#define PY_PROGRAM TFC_BENCH_DIR "/../examples/python/fashion_mnist.py"

/* What one run printed and cost. */
typedef struct run {
  double rate;      /* examples/s: the single process's, or the sum over the workers */
  int workers;      /* workers that reported their rate */
  double precision; /* the chief's evaluation (-1: none) */
  long global_step; /* the last one a worker reported */
  double lo_bytes;  /* bytes received on the loopback interface during the run */
  double steady;    /* examples/s while every worker runs (steady_state; -1: unknown) */
  double cpu_ms;    /* CPU ms per global step of all its processes, steady state (-1: unknown) */
  double ps_cpu_ms; /* the same, of the ps task alone */
} run;

#define MAX_WORKERS 8
#define MAX_LOGS 256
#define MAX_PIDS 16

/* The cluster spec of 1 ps and 2 workers on ports from `base`. */
static void spec(char *out, size_t n, int base) {
  snprintf(out, n, "ps=127.0.0.1:%d;worker=127.0.0.1:%d,127.0.0.1:%d", base, base + 1, base + 2);
}

static int pick_base(void) { return 20000 + (int)((unsigned)getpid() * 7919u % 30000u); }

/* Bytes received so far on the loopback interface (-1: no /proc/net/dev). */
static double lo_rx_bytes(void) {
  FILE *f = fopen("/proc/net/dev", "r");
  if (!f) return -1;
  char line[512];
  double r = -1;
  while (fgets(line, sizeof line, f)) {
    char *c = strchr(line, ':');
    if (!c) continue;
    *c = 0;
    if (!strcmp(line + strspn(line, " "), "lo")) r = atof(c + 1);
  }
  fclose(f);
  return r;
}

/* A process's CPU seconds (user + system), or -1 once it is gone. */
static double proc_cpu_s(int pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')'); /* the command name may hold spaces */
  unsigned long ut = 0, st = 0;
  if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2) return -1;
  return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* CPU seconds of the processes pids[0, n) together; -1 when one is gone. */
static double procs_cpu_s(const int *pids, int n) {
  double sum = 0;
  for (int i = 0; i < n; i++) {
    double c = proc_cpu_s(pids[i]);
    if (c < 0) return -1;
    sum += c;
  }
  return sum;
}

/* One logged step: when it was read, by whom (worker K, or 0 for a single process), the global
 * step it reports, and the CPU seconds of every process started so far and of the ps then
 * (-1: one of them is gone). */
typedef struct sample {
  double t;
  int k;
  long step;
  double cpu_all, cpu_ps;
} sample;

#define MAX_SAMPLES 8192

/* The steady state of a run from its samples: the window in which every worker logs (from the
 * first line of the last worker to start to the last line of the first worker to stop; the
 * Python program's non-chief workers wait for the chief's model, so they start late), its
 * examples/s (global steps x examples_per_step / seconds) and CPU per global step. */
static void steady_state(run *r, const sample *v, int n, int examples_per_step) {
  double first[MAX_WORKERS], last[MAX_WORKERS];
  for (int k = 0; k < MAX_WORKERS; k++) first[k] = last[k] = -1;
  for (int i = 0; i < n; i++) {
    if (first[v[i].k] < 0) first[v[i].k] = v[i].t;
    last[v[i].k] = v[i].t;
  }
  double t0 = -1, t1 = -1;
  for (int k = 0; k < MAX_WORKERS; k++)
    if (first[k] >= 0) {
      if (t0 < 0 || first[k] > t0) t0 = first[k];
      if (t1 < 0 || last[k] < t1) t1 = last[k];
    }
  const sample *a = NULL, *b = NULL;
  for (int i = 0; i < n; i++)
    if (v[i].t >= t0 && v[i].t <= t1 && v[i].cpu_all >= 0) {
      if (!a) a = &v[i];
      b = &v[i];
    }
  if (!a || b->step <= a->step || b->t <= a->t) return;
  double steps = (double)(b->step - a->step);
  r->steady = steps * examples_per_step / (b->t - a->t);
  r->cpu_ms = 1e3 * (b->cpu_all - a->cpu_all) / steps;
  r->ps_cpu_ms = 1e3 * (b->cpu_ps - a->cpu_ps) / steps;
}

/* Runs a shell command and reads its lines: the single process's "trained ... s: R
 * examples/sec", each worker's "worker K: ran S steps in T s (R examples/sec), global step G",
 * the chief's "precision @ 1 = P", and the supervisor's "/job:ps/... started (pid N)".
 * kill_ps_at_step > 0: the ps is killed with SIGKILL once worker 0 logs a step at or past it. At each step a worker (or the
 * single process) logs, the CPU time of every process started (the supervisor's "started (pid
 * N)" lines, or a single process's "bench pid N") is sampled, for the steady state
 * (steady_state; a global step is examples_per_step examples). */
static run run_cmd_kill(const char *cmd, long kill_ps_at_step, int examples_per_step) {
  run r = {-1, 0, -1, -1, -1, -1, -1, -1};
  int pids[MAX_PIDS], n_pids = 0;
  int killed = 0;
  static sample samples[MAX_SAMPLES];
  int n_samples = 0;
  double lo0 = lo_rx_bytes();
  FILE *p = popen(cmd, "r");
  if (!p) return r;
  char line[2048];
  int ps = 0;
  double sum = 0;
  while (fgets(line, sizeof line, p)) {
    const char *at;
    if (!strncmp(line, "trained ", 8) && (at = strstr(line, " s: "))) r.rate = atof(at + 4);
    if (!strncmp(line, "worker ", 7) && strstr(line, ": ran ") && (at = strstr(line, " s ("))) {
      sum += atof(at + 4);
      r.workers++;
      if ((at = strstr(line, "global step "))) r.global_step = atol(at + 12);
    }
    if ((at = strstr(line, "precision @ 1 = "))) r.precision = atof(at + 16);
    if (strstr(line, "/job:ps/replica:0/task:0 ") && (at = strstr(line, "started (pid "))) ps = atoi(at + 13);
    if (((at = strstr(line, "started (pid ")) && (at += 13)) || (!strncmp(line, "bench pid ", 10) && (at = line + 10)))
      if (n_pids < MAX_PIDS) pids[n_pids++] = atoi(at);
    /* "<time>: worker K: step N, loss = ..." (a cluster) or "<time>: step N, loss = ..." (one
     * process); N is the global step. */
    int k = -1;
    long step = -1;
    if ((at = strstr(line, ": worker "))) {
      if (sscanf(at + 9, "%d: step %ld, loss", &k, &step) != 2) step = -1;
    } else if ((at = strstr(line, ": step ")) && strstr(at, ", loss")) {
      k = 0;
      step = atol(at + 7);
    }
    if (step >= 0 && k >= 0 && k < MAX_WORKERS && n_samples < MAX_SAMPLES) {
      double c = procs_cpu_s(pids, n_pids), cp = ps > 0 ? proc_cpu_s(ps) : 0;
      samples[n_samples++] = (sample){bench_now(), k, step, c < 0 || cp < 0 ? -1 : c, cp};
    }
    if (kill_ps_at_step > 0 && !killed && ps > 0 && (at = strstr(line, "worker 0: step ")) &&
        atol(at + 15) >= kill_ps_at_step) {
      kill(ps, SIGKILL);
      killed = 1;
    }
  }
  pclose(p);
  if (r.workers) r.rate = sum;
  if (lo0 >= 0) r.lo_bytes = lo_rx_bytes() - lo0;
  steady_state(&r, samples, n_samples, examples_per_step);
  return r;
}

static run run_cmd(const char *cmd, int examples_per_step) { return run_cmd_kill(cmd, 0, examples_per_step); }

/* One process, `towers` towers of BATCH each, `steps` steps, evaluated at the end. */
static run run_single(int steps, int towers, int eval) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "rm -rf bench_cluster_single && echo \"bench pid $$\" && exec ./fashion_mnist --data " DATA " --out bench_cluster_single --devices %d "
           "--batch %d --max-steps %d --save-every 0 --summary-every 0 %s --log-every 100 2>&1",
           towers, BATCH, steps, eval ? "" : "--no-eval");
  return run_cmd(cmd, towers * BATCH);
}

/* 1 ps + 2 workers under the supervisor, running the C main job. kill_ps: synchronous, with
 * a checkpoint every steps/6 steps and the ps killed with SIGKILL half way (the supervisor
 * restarts it, the chief restores the last checkpoint, the job goes on to its planned step). */
static run run_cluster(int steps, int sync, int kill_ps) {
  char sp[128], cmd[2048];
  spec(sp, sizeof sp, pick_base() + (kill_ps ? 30 : 0));
  int save = kill_ps ? (steps / 6 > 0 ? steps / 6 : 1) : 0;
  snprintf(cmd, sizeof cmd,
           "rm -rf bench_cluster_out && ./tfc cluster --cluster '%s' --backoff-ms 100 -- ./fashion_mnist --cluster "
           "{cluster} --job {job} --task {task} %s --data " DATA " --out bench_cluster_out --batch %d --max-steps %d "
           "--save-every %d --summary-every 0 %s --log-every 20 2>&1",
           sp, sync ? "--sync" : "", BATCH, steps, save, sync ? "" : "--no-eval");
  return run_cmd_kill(cmd, kill_ps ? steps / 2 : 0, sync ? 2 * BATCH : BATCH);
}

/* The same cluster running seed 004's Python program, under tfc (tf = 0) or under TensorFlow
 * (tf = 1, through bench/cluster_tf.py); every task, the ps too, runs the program. */
static run run_py_cluster(int steps, int tf) {
  char sp[128], cmd[4096];
  spec(sp, sizeof sp, pick_base() + 20);
  snprintf(cmd, sizeof cmd,
           "rm -rf bench_cluster_py && PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} ./tfc cluster --cluster '%s' "
           "--trainer-jobs ps,worker -- %s %s --cluster {cluster} --job {job} --task {task} --sync "
           "--data " DATA " --out bench_cluster_py --batch_size %d --max_steps %d --save_every 0 --summary_every 0 "
           "--log_every 20 --noeval 2>&1",
           sp, bench_python(NULL), tf ? TFC_BENCH_DIR "/cluster_tf.py" : PY_PROGRAM, BATCH, steps);
  return run_cmd(cmd, 2 * BATCH);
}

/* Kills worker 1's trainer after `warm` seconds of asynchronous training; seconds from the
 * kill to the first step the restarted trainer logs. */
static double run_recovery(double warm) {
  char sp[128], cmd[2048];
  spec(sp, sizeof sp, pick_base() + 10);
  snprintf(cmd, sizeof cmd,
           "rm -rf bench_cluster_rec && exec ./tfc cluster --cluster '%s' --backoff-ms 100 -- ./fashion_mnist "
           "--cluster {cluster} --job {job} --task {task} --data " DATA " --out bench_cluster_rec --batch %d "
           "--max-steps 1000000 --save-every 100 --summary-every 0 --no-eval --log-every 1 2>&1",
           sp, BATCH);
  int fds[2];
  if (pipe(fds) != 0) return -1;
  pid_t sup = fork();
  if (sup < 0) return -1;
  if (sup == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  close(fds[1]);
  FILE *p = fdopen(fds[0], "r");
  char line[1024];
  int victim = 0, restarted = 0;
  double t0 = bench_now(), killed_at = 0, result = -1;
  while (p && fgets(line, sizeof line, p)) {
    const char *pid = strstr(line, "task:1 trainer started (pid ");
    if (pid) {
      if (killed_at > 0) restarted = 1;
      else victim = atoi(pid + strlen("task:1 trainer started (pid "));
    }
    if (!killed_at && victim && bench_now() - t0 > warm && strstr(line, "worker 1: step")) {
      kill(victim, SIGKILL);
      killed_at = bench_now();
    }
    if (restarted && strstr(line, "worker 1: step")) {
      result = bench_now() - killed_at;
      break;
    }
    if (killed_at > 0 && bench_now() - killed_at > 120) break;
  }
  kill(sup, SIGTERM); /* the supervisor stops its tasks */
  while (p && fgets(line, sizeof line, p)) {
  }
  if (p) fclose(p);
  waitpid(sup, NULL, 0);
  return result;
}

static double ratio(double a, double b) { return a > 0 && b > 0 ? a / b : 0; }

/* The CPU time raw gRPC spends moving one MiB across loopback, both ends together, as
 * bench_dist measures it for a 64 MiB pull (-1: bench_dist did not say). */
static double raw_grpc_cpu_ms_per_mib(void) {
  FILE *p = popen("./bench_dist 2>&1", "r");
  if (!p) return -1;
  char line[1024];
  double r = -1;
  while (fgets(line, sizeof line, p)) {
    const char *at;
    if (strstr(line, "CPU time per MiB moved, 64 MiB") && (at = strstr(line, "raw gRPC pull "))) r = atof(at + 14);
  }
  pclose(p);
  return r;
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 600;
  struct stat st;
  if (stat(DATA "/train.tfrecords", &st) != 0 &&
      system("./tfc data fashion-mnist --out " DATA " > /dev/null") != 0) {
    fprintf(stderr, "bench_cluster: cannot convert Fashion-MNIST into " DATA "\n");
    return 1;
  }
  printf("bench_cluster: fashion_mnist, batch %d per worker (per tower in one process), %d global steps\n", BATCH,
         steps);
  /* The C main job's sessions and the Python program's use the default thread counts, as
   * TensorFlow's does. */
  bench_print_peers(RTLD_DEFAULT, 0, 0, bench_python(NULL), "tensorflow");
  run single = run_single(steps, 2, 1);
  printf("one process, 2 towers:          %8.1f examples/s   precision %.4f\n", single.rate, single.precision);
  run sync = run_cluster(steps, 1, 0);
  printf("1 ps + 2 workers, synchronous:  %8.1f examples/s   ratio %.2f (target >= 0.8)   precision %.4f "
         "(%+.4f; target within 0.005)\n",
         sync.rate, ratio(sync.rate, single.rate), sync.precision, sync.precision - single.precision);
  /* Where the CPU goes, and the best ratio any gRPC transport allows on this machine: the
   * workers compute at least what the single process does, and every byte the cluster moves
   * costs at least what raw gRPC spends on it; with all cores busy, the cluster's global steps
   * per second are at most cores / (that CPU per step). */
  double grpc_ms = raw_grpc_cpu_ms_per_mib();
  double mib_per_step = sync.lo_bytes > 0 && sync.global_step > 0 ? sync.lo_bytes / sync.global_step / MIB : -1;
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  printf("CPU per global step, steady state: one process %.1f ms; synchronous cluster %.1f ms (ps %.1f ms, workers "
         "%.1f ms); %.1f MiB crosses loopback per global step\n",
         single.cpu_ms, sync.cpu_ms, sync.ps_cpu_ms, sync.cpu_ms - sync.ps_cpu_ms, mib_per_step);
  if (grpc_ms > 0 && mib_per_step > 0 && single.cpu_ms > 0 && single.rate > 0) {
    double floor_ms = single.cpu_ms + mib_per_step * grpc_ms;
    double ceiling = (double)cores * 1e3 / floor_ms / (single.rate / (2.0 * BATCH));
    printf("ceiling on this machine (%ld cores): raw gRPC spends %.3f ms CPU per MiB (bench_dist), %.1f ms per global "
           "step; one process's %.1f ms + %.1f ms -> at most %.2f of one process (the target 0.8 %s)\n",
           cores, grpc_ms, mib_per_step * grpc_ms, single.cpu_ms, mib_per_step * grpc_ms, ceiling,
           ceiling >= 0.8 ? "is within reach" : "is out of reach of any gRPC transport here");
  }
  run killed = run_cluster(steps, 1, 1);
  printf("synchronous, the ps killed (SIGKILL) half way: global step %ld (planned %d), precision %.4f (%+.4f against "
         "the undisturbed run; target within 0.005)\n",
         killed.global_step, steps, killed.precision, killed.precision - sync.precision);
  run async = run_cluster(steps, 0, 0);
  printf("1 ps + 2 workers, asynchronous: %8.1f examples/s   ratio %.2f\n", async.rate, ratio(async.rate, single.rate));

  /* TensorFlow's between-graph program, when the peers' Python has TensorFlow. */
  char has_tf[1024];
  snprintf(has_tf, sizeof has_tf, "%s -c 'import tensorflow' > /dev/null 2>&1", bench_python(NULL));
  if (system(has_tf) == 0) {
    /* Longer runs: the non-chief worker joins some 30 s late. */
    int py_steps = steps > 900 ? steps : 900;
    run tf = run_py_cluster(py_steps, 1);
    run py = run_py_cluster(py_steps, 0);
    printf("synchronous, steady state (examples/s while both workers run): TensorFlow running the Python program "
           "%.1f; tfc running it %.1f (ratio %.2f); tfc's C main job %.1f (ratio %.2f, target >= 2)\n",
           tf.steady, py.steady, ratio(py.steady, tf.steady), sync.steady, ratio(sync.steady, tf.steady));
    printf("CPU per global step, steady state: TensorFlow %.1f ms (ps %.1f ms); tfc running the Python program %.1f "
           "ms (ps %.1f ms); tfc's C main job %.1f ms (ps %.1f ms)\n",
           tf.cpu_ms, tf.ps_cpu_ms, py.cpu_ms, py.ps_cpu_ms, sync.cpu_ms, sync.ps_cpu_ms);
  } else {
    printf("TensorFlow: n/a (no tensorflow for %s; make bench installs it): no comparison\n", bench_python(NULL));
  }

  double rec = run_recovery(15);
  printf("worker killed (SIGKILL) -> its first step after the restart: %.2f s (target <= 5)\n", rec);

  /* The scaling model's inputs, measured here (docs/SCALING.md). */
  run one = run_single(steps / 3 > 0 ? steps / 3 : 1, 1, 0);
  double compute_ms = one.rate > 0 ? 1e3 * BATCH / one.rate : -1;
  double param_mb = sync.lo_bytes > 0 && sync.global_step > 0 ? sync.lo_bytes / (4.0 * sync.global_step) / 1e6 : -1;
  double update_ms = sync.ps_cpu_ms;
  printf("per-step costs: one worker's step %.1f ms (one process, one tower); %.2f MB each way per worker and step "
         "(loopback bytes / (2 workers x 2 ways x %ld steps)); ps CPU %.1f ms per global step\n",
         compute_ms, param_mb, sync.global_step, update_ms);
  if (compute_ms > 0 && param_mb > 0 && update_ms > 0) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "python3 %s/scaling_model.py --compute-ms %.2f --param-mb %.3f --update-ms %.2f --batch %d", TFC_BENCH_DIR,
             compute_ms, param_mb, update_ms, BATCH);
    fflush(stdout);
    if (system(cmd) != 0) printf("bench_cluster: the scaling model did not run\n");
  }
  return single.rate > 0 && sync.rate > 0 && async.rate > 0 && rec > 0 ? 0 : 1;
}
