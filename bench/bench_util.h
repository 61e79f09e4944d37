/*
 * bench_util — what the benchmarks share: a monotonic clock, the median of repeated rounds,
 * the Python their peers run in, running a Python peer that prints one number, and the
 * "peers:" block each benchmark that compares prints once (header-only: each benchmark stays
 * one program).
 *
 * The peers (TensorFlow, PyTorch, onnxruntime) are PyPI's current releases, installed by
 * bench/peers.sh into the build tree's bench-venv (make bench does it); bench_python finds
 * that environment's interpreter. The block names the versions, the thread counts set for the
 * run and the kernels each side runs: tfc's line from inside this process (its OpenBLAS and
 * oneDNN, looked up by name so that no benchmark needs their headers at link time), the
 * peers' from bench/peers.py, which says how each is read.
 */
#ifndef TFC_BENCH_BENCH_UTIL_H
#define TFC_BENCH_BENCH_UTIL_H

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Seconds on the monotonic clock. */
static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds of CPU time used by this process, all threads (on a loaded machine a fairer measure
 * of the work done than the wall clock). */
static inline double bench_cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The median of v[0, n) (sorts v in place; the upper middle for even n). */
static inline double bench_median(double *v, int n) {
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
      double x = v[j];
      v[j] = v[j - 1];
      v[j - 1] = x;
    }
  return v[n / 2];
}

/* Runs a shell command (a Python peer) and reads the first number it prints; -1 when it could
 * not run or printed none (no torch for that Python, say). */
static inline double bench_peer_number(const char *cmd) {
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  double r;
  if (fscanf(p, "%lf", &r) != 1) r = -1;
  pclose(p);
  return r;
}

/* The Python the peers run in: `arg` when given (a benchmark's python argument), else
 * $TFC_BENCH_PYTHON, else the build tree's bench-venv (bench/peers.sh) when it is there, else
 * python3 on PATH. The result is `arg`, the environment's string or a literal: borrowed. */
static inline const char *bench_python(const char *arg) {
  if (arg && *arg) return arg;
  const char *env = getenv("TFC_BENCH_PYTHON");
  if (env && *env) return env;
#ifdef TFC_BENCH_VENV
  if (access(TFC_BENCH_VENV "/bin/python", X_OK) == 0) return TFC_BENCH_VENV "/bin/python";
#endif
  return "python3";
}

/* oneDNN's version record (dnnl_version_t: the same fields in oneDNN 2.x and 3.x). */
typedef struct bench_dnnl_version {
  int major, minor, patch;
  const char *hash;
  unsigned cpu_runtime, gpu_runtime;
} bench_dnnl_version;

/* The name oneDNN gives a dnnl_cpu_isa_t value (the ones x86-64 CPUs report). */
static inline const char *bench_dnnl_isa_name(int isa) {
  switch (isa) {
    case 0x1: return "sse41";
    case 0x3: return "avx";
    case 0x7: return "avx2";
    case 0x407: return "avx2_vnni";
    case 0x27: return "avx512_core";
    case 0x67: return "avx512_core_vnni";
    case 0xe7: return "avx512_core_bf16";
    case 0x3e7: return "avx512_core_amx";
    default: return "unknown";
  }
}

/* Prints tfc's line of the peers block: the thread counts the benchmark gives its sessions and
 * the kernels behind them (the words bench/peers.py's tfc_line prints for the Python
 * benchmarks; its ISA names are this file's too); a count <= 0 is the session's default, one thread per core. `lib` is where
 * libtfc's OpenBLAS and oneDNN are looked up: RTLD_DEFAULT in a program linked with libtfc, or
 * a dlopen handle of libtfc (its dependencies are searched). */
static inline void bench_print_tfc_line(void *lib, int intra, int inter) {
  char *(*corename)(void) = NULL, *(*config)(void) = NULL;
  const bench_dnnl_version *(*version)(void) = NULL;
  int (*isa)(void) = NULL;
  *(void **)&corename = dlsym(lib, "openblas_get_corename");
  *(void **)&config = dlsym(lib, "openblas_get_config");
  *(void **)&version = dlsym(lib, "dnnl_version");
  *(void **)&isa = dlsym(lib, "dnnl_get_effective_cpu_isa");
  char counts[2][32];
  for (int i = 0; i < 2; i++) {
    int n = i ? inter : intra;
    if (n > 0) snprintf(counts[i], sizeof counts[i], "%d", n);
    else snprintf(counts[i], sizeof counts[i], "default (%ld)", sysconf(_SC_NPROCESSORS_ONLN));
  }
  printf("  %-12s threads: intra-op %s, inter-op %s; ", "tfc", counts[0], counts[1]);
  if (!corename || !config || !version || !isa) {
    printf("kernels n/a (OpenBLAS or oneDNN not found in the process)\n");
    return;
  }
  const bench_dnnl_version *v = version();
  static const char *runtimes[] = {"?", "sequential", "OpenMP", "?", "TBB", "?", "?", "?", "threadpool"};
  const char *rt = v->cpu_runtime < 9 ? runtimes[v->cpu_runtime] : "?";
  char cfg[320];
  const char *forced = getenv("OPENBLAS_CORETYPE"); /* a core chosen by hand, not by OpenBLAS */
  snprintf(cfg, sizeof cfg, "%s%s%s", forced ? "OPENBLAS_CORETYPE=" : "", forced ? forced : "", forced ? "; " : "");
  snprintf(cfg + strlen(cfg), sizeof cfg - strlen(cfg), "%s", config());
  cfg[strcspn(cfg, "\n")] = 0;
  for (size_t n = strlen(cfg); n > 0 && cfg[n - 1] == ' '; n--) cfg[n - 1] = 0;
  printf("GEMM: oneDNN %d.%d.%d sgemm from 32768 multiply-adds, else OpenBLAS %s (%s), one thread per call, sharded "
         "over the intra-op pool; convolution and pooling: oneDNN %d.%d.%d (%s runtime, one thread per shard), ISA %s\n",
         v->major, v->minor, v->patch, corename(), cfg, v->major, v->minor, v->patch, rt,
         bench_dnnl_isa_name(isa()));
}

/* Prints the "peers:" block: tfc's line (bench_print_tfc_line), then one line per peer the
 * benchmark runs, from `python` running bench/peers.py. `peers_fmt` and what follows make
 * peers.py's arguments: each peer as NAME[=INTRA[,INTER]] with the thread counts the benchmark
 * sets for it (torch, tensorflow, onnxruntime), e.g. ("torch=%d", threads); NULL for none. A
 * peer that is not installed prints "n/a (why)"; so does the whole Python side when `python`
 * cannot run. Costs a few seconds (peers.py imports each peer and probes its kernels). */
static inline void bench_print_peers(void *lib, int intra, int inter, const char *python, const char *peers_fmt,
                                     ...) {
  printf("peers:\n");
  bench_print_tfc_line(lib, intra, inter);
  fflush(stdout);
  if (!peers_fmt) return;
  char peers[512], cmd[1024];
  va_list ap;
  va_start(ap, peers_fmt);
  vsnprintf(peers, sizeof peers, peers_fmt, ap);
  va_end(ap);
  snprintf(cmd, sizeof cmd, "%s %s/peers.py --no-header %s 2>/dev/null", python, TFC_BENCH_DIR, peers);
  int rc = system(cmd);
  if (rc != 0) printf("  %-12s n/a (%s could not run bench/peers.py: exit %d)\n", "peers", python, rc);
  fflush(stdout);
}

#endif
