/*
 * step_stats — see step_stats.h.
 */
#include "exec/step_stats.h"

#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int tfc_step_stats_init(tfc_step_stats *ss, const char *device, int level, int cap) {
  memset(ss, 0, sizeof *ss);
  ss->device = device;
  ss->level = level;
  atomic_init(&ss->n, 0);
  atomic_init(&ss->overflow, NULL);
  ss->recs = calloc((size_t)(cap > 0 ? cap : 1), sizeof *ss->recs);
  if (!ss->recs) return -1;
  ss->cap = cap;
  return 0;
}

void tfc_step_stats_fini(tfc_step_stats *ss) {
  if (!ss) return;
  int n = atomic_load(&ss->n);
  for (int i = 0; i < n && i < ss->cap; i++) free(ss->recs[i].outputs);
  free(ss->recs);
  for (tfc_node_stats *r = atomic_load(&ss->overflow), *next; r; r = next) {
    next = r->next;
    free(r->outputs);
    free(r);
  }
  memset(ss, 0, sizeof *ss);
}

tfc_node_stats *tfc_step_stats_claim(tfc_step_stats *ss) {
  int i = atomic_fetch_add_explicit(&ss->n, 1, memory_order_relaxed);
  if (i < ss->cap) return &ss->recs[i];
  tfc_node_stats *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->next = atomic_load_explicit(&ss->overflow, memory_order_relaxed);
  while (!atomic_compare_exchange_weak_explicit(&ss->overflow, &r->next, r, memory_order_release,
                                                memory_order_relaxed)) {
  }
  return r;
}

int64_t tfc_step_stats_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

uint32_t tfc_step_stats_thread_id(void) {
  static _Thread_local uint32_t tid;
  if (!tid) tid = (uint32_t)syscall(SYS_gettid);
  return tid;
}

void tfc_node_stats_start(tfc_node_stats *r, const tfc_node *n) {
  r->node = n;
  r->start_us = tfc_step_stats_now_us();
  r->thread_id = tfc_step_stats_thread_id();
}

void tfc_node_stats_outputs(const tfc_step_stats *ss, tfc_node_stats *r, tfc_tensor *const *outs, int n) {
  if (ss->level < TFC_TRACE_FULL || n <= 0) return;
  r->outputs = calloc((size_t)n, sizeof *r->outputs);
  if (!r->outputs) return;
  r->n_outputs = n;
  for (int j = 0; j < n; j++) {
    const tfc_tensor *t = outs[j];
    tfc_output_desc *d = &r->outputs[j];
    if (!t) continue;
    d->dtype = t->dtype;
    d->ndims = t->ndims;
    memcpy(d->dims, t->dims, sizeof(int64_t) * (size_t)t->ndims);
    d->bytes = (int64_t)t->n_bytes;
  }
}

void tfc_step_stats_each(const tfc_step_stats *ss, void (*fn)(void *arg, const tfc_node_stats *r), void *arg) {
  int n = atomic_load(&ss->n);
  for (int i = 0; i < n && i < ss->cap; i++)
    if (ss->recs[i].node) fn(arg, &ss->recs[i]);
  /* the list is newest first: collect and visit oldest first */
  int k = 0;
  for (tfc_node_stats *r = atomic_load_explicit(&ss->overflow, memory_order_acquire); r; r = r->next) k++;
  if (!k) return;
  const tfc_node_stats **v = malloc(sizeof *v * (size_t)k);
  if (!v) { /* out of memory: newest first */
    for (tfc_node_stats *r = atomic_load(&ss->overflow); r; r = r->next)
      if (r->node) fn(arg, r);
    return;
  }
  int i = k;
  for (tfc_node_stats *r = atomic_load(&ss->overflow); r; r = r->next) v[--i] = r;
  for (i = 0; i < k; i++)
    if (v[i]->node) fn(arg, v[i]);
  free(v);
}
