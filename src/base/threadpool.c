/*
 * threadpool — see threadpool.h.
 *
 * Waking a sleeping thread costs tens of microseconds on a virtual machine (a futex wake, then
 * the scheduler), as long as a recurrent cell's whole GEMM: split over two threads, the
 * product would finish later than on one. So an idle worker spins a little (SPIN_NS) on the
 * queue's length before it sleeps on the condition variable, and a task queued while one
 * spins is taken without a wake-up; schedule signals only when a worker sleeps. The caller of
 * parallel_for waits for its helpers the same way. The spin is short and bounded, so a
 * machine shared with other work loses at most that much per idle period.
 *
 * parallel_for keeps its shared state on the heap with a reference count: helpers queued on a
 * busy pool may start after the caller has finished every shard itself and returned, and
 * then only drop their reference.
 */
#include "base/threadpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define CPU_RELAX() __asm__ __volatile__("yield")
#else
#define CPU_RELAX() ((void)0)
#endif

/* How long an idle thread spins before it sleeps. */
#define SPIN_NS 50000

typedef struct task {
  void (*fn)(void *);
  void *arg;
  struct task *next;
} task;

struct tfc_threadpool {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  task *head, *tail;
  atomic_int n_queued;   /* tasks in the queue, read by spinning workers without the lock */
  atomic_long n_tasks;   /* tasks ever queued (tfc_threadpool_tasks) */
  int n_sleeping;        /* workers waiting on cv (under mu) */
  int stopping;
  int n_threads;
  pthread_t *threads;
};

int tfc_num_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Spins until *v is nonzero (returns 1) or SPIN_NS have passed (returns 0). */
static int spin_until_nonzero(atomic_int *v) {
  int64_t deadline = 0;
  for (int k = 0;; k++) {
    if (atomic_load_explicit(v, memory_order_acquire)) return 1;
    CPU_RELAX();
    if ((k & 63) == 63) { /* the clock now and then: a pause costs from 10 to 150 cycles */
      int64_t t = now_ns();
      if (!deadline) deadline = t + SPIN_NS;
      else if (t >= deadline) return 0;
    }
  }
}

static void *worker(void *arg) {
  tfc_threadpool *p = arg;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    if (!p->head && !p->stopping) {
      pthread_mutex_unlock(&p->mu);
      spin_until_nonzero(&p->n_queued);
      pthread_mutex_lock(&p->mu);
      if (!p->head && !p->stopping) {
        /* Sleep; woken without a task (tfc_threadpool_wake), spin again first. */
        p->n_sleeping++;
        pthread_cond_wait(&p->cv, &p->mu);
        p->n_sleeping--;
        continue;
      }
    }
    task *t = p->head;
    if (!t) break; /* stopping and drained */
    p->head = t->next;
    if (!p->head) p->tail = NULL;
    atomic_fetch_sub_explicit(&p->n_queued, 1, memory_order_relaxed);
    pthread_mutex_unlock(&p->mu);
    t->fn(t->arg);
    free(t);
    pthread_mutex_lock(&p->mu);
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

tfc_threadpool *tfc_threadpool_new(int n_threads, const char *name) {
  (void)name;
  if (n_threads <= 0) n_threads = tfc_num_cores();
  tfc_threadpool *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->threads = calloc((size_t)n_threads, sizeof *p->threads);
  if (!p->threads) { free(p); return NULL; }
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  atomic_init(&p->n_queued, 0);
  atomic_init(&p->n_tasks, 0);
  for (int i = 0; i < n_threads; i++) {
    if (pthread_create(&p->threads[i], NULL, worker, p) != 0) break;
    p->n_threads++;
  }
  if (p->n_threads == 0) { tfc_threadpool_free(p); return NULL; }
  return p;
}

void tfc_threadpool_free(tfc_threadpool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stopping = 1;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->n_threads; i++) pthread_join(p->threads[i], NULL);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->cv);
  free(p->threads);
  free(p);
}

int tfc_threadpool_size(const tfc_threadpool *p) { return p ? p->n_threads : 1; }

int tfc_threadpool_schedule(tfc_threadpool *p, void (*fn)(void *), void *arg) {
  task *t = malloc(sizeof *t);
  if (!t) return -1;
  t->fn = fn;
  t->arg = arg;
  t->next = NULL;
  pthread_mutex_lock(&p->mu);
  if (p->tail) p->tail->next = t; else p->head = t;
  p->tail = t;
  atomic_fetch_add_explicit(&p->n_queued, 1, memory_order_release);
  atomic_fetch_add_explicit(&p->n_tasks, 1, memory_order_relaxed);
  if (p->n_sleeping) pthread_cond_signal(&p->cv);
  pthread_mutex_unlock(&p->mu);
  return 0;
}

long tfc_threadpool_tasks(const tfc_threadpool *p) {
  return p ? atomic_load_explicit(&((tfc_threadpool *)p)->n_tasks, memory_order_relaxed) : 0;
}

void tfc_threadpool_wake(tfc_threadpool *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  if (p->n_sleeping) pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
}

typedef struct pfor {
  atomic_int refs;
  atomic_llong next_shard;
  atomic_llong shards_done;
  atomic_int all_done; /* shards_done reached n_shards */
  int64_t n, shard_size, n_shards;
  void (*fn)(int64_t, int64_t, void *);
  void *arg;
  pthread_mutex_t mu;
  pthread_cond_t cv;
} pfor;

static void pfor_unref(pfor *f) {
  if (atomic_fetch_sub(&f->refs, 1) == 1) {
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->cv);
    free(f);
  }
}

/* Claims and runs shards until none are left. */
static void pfor_drain(pfor *f) {
  for (;;) {
    int64_t s = atomic_fetch_add(&f->next_shard, 1);
    if (s >= f->n_shards) return;
    int64_t b = s * f->shard_size, e = b + f->shard_size;
    if (e > f->n) e = f->n;
    f->fn(b, e, f->arg);
    if (atomic_fetch_add(&f->shards_done, 1) + 1 == f->n_shards) {
      atomic_store_explicit(&f->all_done, 1, memory_order_release);
      pthread_mutex_lock(&f->mu);
      pthread_cond_broadcast(&f->cv);
      pthread_mutex_unlock(&f->mu);
    }
  }
}

static void pfor_helper(void *arg) {
  pfor *f = arg;
  pfor_drain(f);
  pfor_unref(f);
}

void tfc_threadpool_parallel_for(tfc_threadpool *p, int64_t n, int64_t min_shard, int max_parallel,
                                 void (*fn)(int64_t, int64_t, void *), void *arg) {
  if (n <= 0) return;
  if (min_shard < 1) min_shard = 1;
  int limit = max_parallel > 0 ? max_parallel : tfc_threadpool_size(p) + 1;
  int64_t n_shards = n / min_shard;
  if (n_shards > limit) n_shards = limit;
  if (!p || n_shards <= 1) { fn(0, n, arg); return; }
  pfor *f = malloc(sizeof *f);
  if (!f) { fn(0, n, arg); return; }
  f->shard_size = (n + n_shards - 1) / n_shards;
  f->n_shards = (n + f->shard_size - 1) / f->shard_size;
  f->n = n;
  f->fn = fn;
  f->arg = arg;
  atomic_init(&f->next_shard, 0);
  atomic_init(&f->shards_done, 0);
  atomic_init(&f->all_done, 0);
  atomic_init(&f->refs, 1);
  pthread_mutex_init(&f->mu, NULL);
  pthread_cond_init(&f->cv, NULL);
  for (int64_t i = 1; i < f->n_shards; i++) {
    atomic_fetch_add(&f->refs, 1);
    if (tfc_threadpool_schedule(p, pfor_helper, f) != 0) { atomic_fetch_sub(&f->refs, 1); break; }
  }
  pfor_drain(f);
  if (atomic_load(&f->shards_done) < f->n_shards) spin_until_nonzero(&f->all_done);
  pthread_mutex_lock(&f->mu);
  while (atomic_load(&f->shards_done) < f->n_shards) pthread_cond_wait(&f->cv, &f->mu);
  pthread_mutex_unlock(&f->mu);
  pfor_unref(f);
}
