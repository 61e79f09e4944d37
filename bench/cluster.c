/*
 * bench/cluster — the main job across processes on this machine: examples per second of
 * `fashion_mnist` as one process with two towers, and as 1 ps + 2 workers under `tfc cluster`
 * (synchronous and asynchronous), with the same per-worker batch; the ratio of each cluster
 * run to the single process (the target for the synchronous one is >= 0.8); and the recovery
 * time: a worker's trainer killed with SIGKILL mid-training, from the kill to the first step
 * its restarted process completes (target <= 5 s).
 *
 * Usage (from the build directory, where tfc and fashion_mnist are): bench_cluster [steps]
 *   default 150 global steps per run; the data is Debian's Fashion-MNIST converted once into
 *   bench_cluster_data by `tfc data fashion-mnist`.
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
#define DATA "bench_cluster_data"

/* The cluster spec of 1 ps and 2 workers on ports from `base`. */
static void spec(char *out, size_t n, int base) {
  snprintf(out, n, "ps=127.0.0.1:%d;worker=127.0.0.1:%d,127.0.0.1:%d", base, base + 1, base + 2);
}

static int pick_base(void) { return 20000 + (int)((unsigned)getpid() * 7919u % 30000u); }

/* One process, two towers of BATCH each: examples/sec from its "trained ..." line. */
static double run_single(int steps) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "rm -rf bench_cluster_single && ./fashion_mnist --data " DATA " --out bench_cluster_single --devices 2 "
           "--batch %d --max-steps %d --save-every 0 --summary-every 0 --no-eval --log-every 50 2>&1",
           BATCH, steps);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  char line[1024];
  double rate = -1;
  while (fgets(line, sizeof line, p)) {
    const char *at = strstr(line, " s: ");
    if (!strncmp(line, "trained ", 8) && at) rate = atof(at + 4);
  }
  pclose(p);
  return rate;
}

/* 1 ps + 2 workers under the supervisor: the sum of the workers' examples/sec. */
static double run_cluster(int steps, int sync) {
  char sp[128], cmd[2048];
  spec(sp, sizeof sp, pick_base());
  snprintf(cmd, sizeof cmd,
           "rm -rf bench_cluster_out && ./tfc cluster --cluster '%s' -- ./fashion_mnist --cluster {cluster} --job {job} "
           "--task {task} %s --data " DATA " --out bench_cluster_out --batch %d --max-steps %d --save-every 0 "
           "--summary-every 0 --no-eval --log-every 50 2>&1",
           sp, sync ? "--sync" : "", BATCH, steps);
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  char line[1024];
  double sum = 0;
  int workers = 0;
  while (fgets(line, sizeof line, p)) {
    const char *at = strstr(line, " s (");
    if (!strncmp(line, "worker ", 7) && strstr(line, ": ran ") && at) {
      sum += atof(at + 4);
      workers++;
    }
  }
  pclose(p);
  return workers == 2 ? sum : -1;
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

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 150;
  struct stat st;
  if (stat(DATA "/train.tfrecords", &st) != 0 &&
      system("./tfc data fashion-mnist --out " DATA " > /dev/null") != 0) {
    fprintf(stderr, "bench_cluster: cannot convert Fashion-MNIST into " DATA "\n");
    return 1;
  }
  printf("bench_cluster: fashion_mnist, batch %d per worker (per tower in one process), %d global steps\n", BATCH,
         steps);
  double single = run_single(steps);
  printf("one process, 2 towers:          %8.1f examples/s\n", single);
  double sync = run_cluster(steps, 1);
  printf("1 ps + 2 workers, synchronous:  %8.1f examples/s   ratio %.2f (target >= 0.8)\n", sync,
         single > 0 ? sync / single : 0);
  double async = run_cluster(steps, 0);
  printf("1 ps + 2 workers, asynchronous: %8.1f examples/s   ratio %.2f\n", async, single > 0 ? async / single : 0);
  double rec = run_recovery(15);
  printf("worker killed (SIGKILL) -> its first step after the restart: %.2f s (target <= 5)\n", rec);
  return single > 0 && sync > 0 && async > 0 && rec > 0 ? 0 : 1;
}
