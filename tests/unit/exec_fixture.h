/*
 * exec_fixture — the graph, thread pool and CPU device that the executor unit tests
 * (test_executor.c, test_cf_exec.c) build graphs on through the internal API, and the end of
 * an asynchronous step that a test waits for (header-only: static helpers).
 *
 * Every helper fails the test (tfc_test_fail) on an error; nothing returns a status.
 */
#ifndef TFC_TESTS_EXEC_FIXTURE_H
#define TFC_TESTS_EXEC_FIXTURE_H

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "device/device.h"
#include "exec/executor.h"
#include "graph/graph.h"
#include "harness.h"

typedef struct fixture {
  tfc_graph *g;
  tfc_threadpool *pool;
  tfc_device *dev;
  tfc_status s;
} fixture;

/* A new graph, a pool of 4 threads and a CPU device with id `device_id` (released by
 * fixture_fini). */
static void fixture_init_dev(fixture *f, int device_id) {
  tfc_status_init(&f->s);
  if (tfc_ops_init(&f->s) != TFC_OK) tfc_test_fail(__FILE__, __LINE__, "ops: %s", tfc_status_msg(&f->s));
  f->g = tfc_graph_new();
  f->pool = tfc_threadpool_new(4, "exec-test");
  f->dev = tfc_cpu_device_new("localhost", 0, 0, device_id, f->pool, 2, &f->s);
  if (!f->dev) tfc_test_fail(__FILE__, __LINE__, "device: %s", tfc_status_msg(&f->s));
}

static void fixture_fini(fixture *f) {
  tfc_device_free(f->dev);
  tfc_graph_free(f->g);
  tfc_threadpool_free(f->pool);
  tfc_status_fini(&f->s);
}

/* tfc_node_desc_finish(d), failing the test at the caller's `line` when it fails. */
static tfc_node *finish_or_fail(tfc_node_desc *d, tfc_status *s, int line) {
  tfc_node *n = tfc_node_desc_finish(d, s);
  if (!n) tfc_test_fail(__FILE__, line, "node: %s", tfc_status_msg(s));
  return n;
}

/* The end of one async step (tfc_executor_run_async's callback: on_step_end with the
 * step_end as its argument), waited on by the test. */
typedef struct step_end {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
  int code;
  char msg[512];
} step_end;

static __attribute__((unused)) void step_end_init(step_end *e) {
  memset(e, 0, sizeof *e);
  pthread_mutex_init(&e->mu, NULL);
  pthread_cond_init(&e->cv, NULL);
}

static __attribute__((unused)) void on_step_end(void *arg, const tfc_status *s) {
  step_end *e = arg;
  pthread_mutex_lock(&e->mu);
  e->done++;
  e->code = s->code;
  snprintf(e->msg, sizeof e->msg, "%s", tfc_status_msg(s));
  pthread_cond_broadcast(&e->cv);
  pthread_mutex_unlock(&e->mu);
}

/* Waits for the step's end (a hang fails by the harness's timeout), then releases e. */
static __attribute__((unused)) void step_end_wait(step_end *e) {
  pthread_mutex_lock(&e->mu);
  while (!e->done) pthread_cond_wait(&e->cv, &e->mu);
  pthread_mutex_unlock(&e->mu);
  pthread_mutex_destroy(&e->mu);
  pthread_cond_destroy(&e->cv);
}

#endif
