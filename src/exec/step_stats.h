/*
 * step_stats — what a traced step records about each node it runs (RunOptions.trace_level
 * SOFTWARE_TRACE or FULL_TRACE), for RunMetadata.step_stats.
 *
 * One tfc_step_stats per partition (device) of a step. The executor claims one record per
 * node execution with an atomic increment into an array sized for one execution of every
 * node (the dataflow path never needs more); a node that runs again (a while loop's body)
 * gets a heap record pushed on a lock-free list. A record is written only by the thread that
 * runs its node (an async kernel's end by whichever thread finishes it, after the start was
 * published through the kernel's done), and read only after the step is over, so the hot
 * path takes no lock. An untraced step passes NULL and pays one branch per node.
 *
 * Times are microseconds of the real-time clock (TF's all_start_micros is epoch micros);
 * the relative fields are offsets from start_us.
 *
 * Ownership: the caller owns a tfc_step_stats (init/fini) and borrows it to the executor
 * through tfc_exec_args.stats for the step. Node pointers in records are borrowed from the
 * executor's graph, which must outlive the read. Thread-safety: claim and the record setters
 * may be called from any thread; reading is for after the step.
 */
#ifndef TFC_EXEC_STEP_STATS_H
#define TFC_EXEC_STEP_STATS_H

#include <stdatomic.h>
#include <stdint.h>

#include "graph/graph.h"
#include "tensor/tensor.h"

/* RunOptions.TraceLevel values. */
enum { TFC_TRACE_NONE = 0, TFC_TRACE_SOFTWARE = 1, TFC_TRACE_HARDWARE = 2, TFC_TRACE_FULL = 3 };

/* One output of a node under FULL_TRACE: its type, shape and bytes. */
typedef struct tfc_output_desc {
  int dtype;
  int ndims;
  int64_t dims[TFC_MAX_DIMS];
  int64_t bytes;
} tfc_output_desc;

typedef struct tfc_node_stats {
  const tfc_node *node; /* NULL: claimed but the node did not run (the step stopped) */
  int64_t start_us;     /* all_start_micros (and scheduled_micros) */
  int64_t op_start_us, op_end_us, end_us; /* absolute; made relative on export */
  uint32_t thread_id;
  int n_outputs;            /* FULL_TRACE: outputs recorded */
  tfc_output_desc *outputs; /* owned; NULL when not recorded */
  struct tfc_node_stats *next; /* overflow list */
} tfc_node_stats;

typedef struct tfc_step_stats {
  const char *device; /* full device name (borrowed) */
  int level;          /* TFC_TRACE_* */
  int cap;
  atomic_int n;       /* records claimed from recs (may exceed cap: the rest overflowed) */
  tfc_node_stats *recs;
  _Atomic(tfc_node_stats *) overflow;
} tfc_step_stats;

/* Prepares stats for `cap` node executions on `device` (borrowed). Returns 0, or -1 on out
 * of memory (then fini is still safe). */
int tfc_step_stats_init(tfc_step_stats *ss, const char *device, int level, int cap);
void tfc_step_stats_fini(tfc_step_stats *ss);

/* A zeroed record for one node execution, or NULL on out of memory (that execution goes
 * unrecorded). Lock-free. */
tfc_node_stats *tfc_step_stats_claim(tfc_step_stats *ss);

/* Microseconds of the real-time clock. */
int64_t tfc_step_stats_now_us(void);
/* A small per-thread id (the kernel's thread id, cached per thread). */
uint32_t tfc_step_stats_thread_id(void);

/* Starts record r for node n: start time and thread. */
void tfc_node_stats_start(tfc_node_stats *r, const tfc_node *n);
/* Under FULL_TRACE, copies the type, shape and size of outs[0..n) (NULL entries give
 * DT_INVALID) into r. Out of memory leaves them unrecorded. */
void tfc_node_stats_outputs(const tfc_step_stats *ss, tfc_node_stats *r, tfc_tensor *const *outs, int n);

/* Calls fn for every record of a node that ran, in claim order (array first, then the
 * overflow list). For after the step. */
void tfc_step_stats_each(const tfc_step_stats *ss, void (*fn)(void *arg, const tfc_node_stats *r), void *arg);

#endif
