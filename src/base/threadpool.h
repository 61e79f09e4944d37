/*
 * threadpool — a fixed set of worker threads with a FIFO task queue, plus a parallel-for.
 *
 * One pool serves both inter-op scheduling (the executor hands it ready nodes) and intra-op
 * sharding (kernels split loops with tfc_threadpool_parallel_for). The caller of parallel_for
 * claims shards itself while pool threads help, so a kernel running on a pool thread never
 * waits on work that no thread will pick up: no deadlock, and at most `n_threads` pool
 * threads plus the callers are ever busy (no oversubscription).
 *
 * Thread-safety: every function may be called from any thread, including pool threads.
 */
#ifndef TFC_BASE_THREADPOOL_H
#define TFC_BASE_THREADPOOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct tfc_threadpool tfc_threadpool;

/* Starts n_threads workers (n_threads <= 0: the number of online cores). NULL on failure. */
tfc_threadpool *tfc_threadpool_new(int n_threads, const char *name);
/* Runs every queued task, then joins the workers. NULL is a no-op. */
void tfc_threadpool_free(tfc_threadpool *p);
int tfc_threadpool_size(const tfc_threadpool *p);
/* Queues fn(arg). Returns 0, or -1 on out of memory (then fn was not queued). */
int tfc_threadpool_schedule(tfc_threadpool *p, void (*fn)(void *arg), void *arg);

/* Wakes the sleeping workers, each to spin a while for work before it sleeps again: a step
 * about to run expensive kernels calls it first, so the wake-up (tens of microseconds on a
 * virtual machine, sometimes far more) overlaps the step's cheap start instead of delaying its
 * first split kernel. NULL is a no-op. */
void tfc_threadpool_wake(tfc_threadpool *p);
/* How many tasks were ever queued on p (0 for NULL): comparing two readings says whether any
 * work went to the pool in between. */
long tfc_threadpool_tasks(const tfc_threadpool *p);

/* Calls fn(begin, end, arg) over [0, n) split into shards of at least `min_shard` items and
 * at most `max_parallel` shards (<= 0: pool size + 1). Returns when all shards are done.
 * With p NULL, or a small n, runs inline. */
void tfc_threadpool_parallel_for(tfc_threadpool *p, int64_t n, int64_t min_shard, int max_parallel,
                                 void (*fn)(int64_t begin, int64_t end, void *arg), void *arg);

/* Number of online CPU cores (at least 1). */
int tfc_num_cores(void);

#endif
