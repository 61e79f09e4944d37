/*
 * bench_util — what the benchmarks share: a monotonic clock, the median of repeated rounds,
 * and running a Python peer that prints one number (header-only: each benchmark stays one
 * program).
 */
#ifndef TFC_BENCH_BENCH_UTIL_H
#define TFC_BENCH_BENCH_UTIL_H

#include <stdio.h>
#include <time.h>

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

#endif
