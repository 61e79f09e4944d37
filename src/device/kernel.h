/*
 * kernel — the kernel table of a device type and the context a kernel runs in.
 *
 * One table per device type: rows {op, dtype constraints, host-memory masks, flags, init,
 * compute}, registered by an explicit call at device init. The same table answers the placer
 * ("can this device type run node N?", tfc_kernel_find) and the executor ("which function?").
 *
 * A kernel's init runs once per node per executor (parse attrs into a state); compute runs
 * once per step, possibly concurrently in several steps, so state is read-only in compute —
 * unless the kernel guards it itself (a random op's generator behind a mutex, a variable op's
 * cached variable behind an atomic).
 *
 * Inputs are borrowed for the duration of compute. A kernel may write into an input buffer
 * only through tfc_kernel_forward_input (which checks it holds the sole reference). Outputs
 * are new references the kernel hands to the executor.
 *
 * Async kernels (TFC_KF_ASYNC, e.g. _Recv) implement compute_async instead of compute: it
 * starts the work and returns; the kernel then calls c->done(c) exactly once, from any thread
 * (possibly before compute_async returns), after setting its outputs or c->status. The
 * context, its inputs and its outputs array stay valid until done is called, and not after.
 */
#ifndef TFC_DEVICE_KERNEL_H
#define TFC_DEVICE_KERNEL_H

#include <stdint.h>

#include "base/status.h"
#include "base/threadpool.h"
#include "graph/graph.h"
#include "tensor/tensor.h"

typedef struct tfc_device tfc_device;
typedef struct tfc_kernel_ctx tfc_kernel_ctx;
struct tfc_rendezvous;
struct tfc_var;
struct tfc_var_txn;

/* Dtype masks for constraints: bit (1 << dtype). */
#define TFC_T(dt) (1u << (dt))
#define TFC_TYPES_FLOAT (TFC_T(TFC_DT_FLOAT) | TFC_T(TFC_DT_DOUBLE))
#define TFC_TYPES_INT (TFC_T(TFC_DT_INT32) | TFC_T(TFC_DT_INT64))
#define TFC_TYPES_REAL                                                                             \
  (TFC_TYPES_FLOAT | TFC_TYPES_INT | TFC_T(TFC_DT_UINT8) | TFC_T(TFC_DT_INT8) |                    \
   TFC_T(TFC_DT_INT16) | TFC_T(TFC_DT_UINT16))
#define TFC_TYPES_ALL 0xffffffffu
/* Host-memory masks: bit (1 << flat argument index); a variadic op's trailing host input is
 * the flag TFC_KF_HOST_LAST_INPUT instead, and DynamicStitch's leading list of N indices the
 * flag TFC_KF_HOST_FIRST_HALF. tfc_kernel_host_input answers for one input. */
#define TFC_HOST(i) (1u << (i))
/* Every argument in host memory, however many a variadic op has (Pack's 40 values too). */
#define TFC_HOST_ALL 0xffffffffu

enum tfc_kernel_flag {
  TFC_KF_NONE = 0,
  TFC_KF_EXPENSIVE = 1 << 0, /* worth a hop to the inter-op pool when others are ready too */
  TFC_KF_ASYNC = 1 << 1,     /* completes by callback (_Recv); see compute_async */
  /* May wait for another step (queue and reader ops): its step always gets a rendezvous, so
   * an error elsewhere in the step, a deadline or a close wakes it (state/queue.h). */
  TFC_KF_BLOCKING = 1 << 2,
  /* The node's last input lives in host memory (ConcatV2's axis, whose flat index moves with
   * N, so host_memory_in cannot name it). */
  TFC_KF_HOST_LAST_INPUT = 1 << 3,
  /* The node's state is one per session, shared by all the session's executors (the random
   * ops' generators: exec/segment.h), as TF's OpSegment shares stateful kernels. */
  TFC_KF_SHARED_STATE = 1 << 4,
  /* The first half of the node's inputs live in host memory (DynamicStitch's N indices before
   * its N data tensors, whose flat indexes move with N). */
  TFC_KF_HOST_FIRST_HALF = 1 << 5
};

typedef struct tfc_kernel_def {
  int op;                  /* TFC_OP_* */
  const char *type_attr;   /* constrained attr, e.g. "T"; NULL: none */
  uint32_t types;          /* allowed dtypes of type_attr */
  const char *type_attr2;  /* a second constraint (Cast: SrcT and DstT) */
  uint32_t types2;
  uint32_t host_memory_in; /* flat input indexes kept in host memory (bits: TFC_HOST(i)) */
  uint32_t host_memory_out;
  int flags;
  /* Optional: parse attrs once. *state is passed to compute; free_state releases it. */
  int (*init)(const tfc_node *n, void **state, tfc_status *s);
  int (*compute)(tfc_kernel_ctx *c);
  void (*compute_async)(tfc_kernel_ctx *c); /* instead of compute when flags has TFC_KF_ASYNC */
  void (*free_state)(void *state);
  /* Optional (CPU rows): the work on host-memory scalar inputs without a kernel context, which
   * the control-flow executor runs inline for the loop counters and predicates of while
   * loops. Sets *out (a new reference: allocated from `a`, or an input taken over from in[],
   * whose slot is then NULL) and returns 0; or returns nonzero with nothing changed, and
   * compute runs instead (and gives any error). */
  int (*compute_scalar)(tfc_tensor **in, tfc_tensor **out, struct tfc_allocator *a);
} tfc_kernel_def;

typedef struct tfc_kernel_table {
  int n_defs;
  tfc_kernel_def *defs;
  const char *device_type;
} tfc_kernel_table;

void tfc_kernel_table_init(tfc_kernel_table *t, const char *device_type);
void tfc_kernel_table_fini(tfc_kernel_table *t);
/* Appends rows. Returns 0 or RESOURCE_EXHAUSTED. */
int tfc_kernel_table_add(tfc_kernel_table *t, const tfc_kernel_def *defs, int n, tfc_status *s);
/* The row that runs node n, or NULL with NOT_FOUND / INVALID_ARGUMENT listing what is
 * registered (TF's "No OpKernel was registered to support Op ..." text). s may be NULL to
 * just ask. */
const tfc_kernel_def *tfc_kernel_find(const tfc_kernel_table *t, const tfc_node *n, tfc_status *s);
/* Whether row k keeps flat input i (of n_inputs) or output i in host memory on a device with
 * its own memory: the row's masks and flags, and string, resource and variant tensors. */
int tfc_kernel_host_input(const tfc_kernel_def *k, int i, int n_inputs, int dtype);
int tfc_kernel_host_output(uint32_t host_memory_out, int i, int dtype);

/* Runs row k for node n once on the host with no device, pool or frame: build-time
 * evaluation (constant folding, shape inference). ins: n->n_inputs tensors, borrowed (each gets
 * a reference of its own for the call, so no kernel forwards a buffer the caller keeps); outs:
 * n->n_outputs slots. TFC_OK with a new reference in every slot; otherwise the error (the
 * kernel's, or INTERNAL when it left an output unset) in s, with every slot NULL. Outputs
 * live on the host heap (no allocator outlives them). */
int tfc_kernel_run_host(const tfc_kernel_def *k, const tfc_node *n, tfc_tensor *const *ins, tfc_tensor **outs,
                        tfc_status *s);

/* Frame of one call: feeds in, fetches out (the _Arg / _Retval kernels use it). */
typedef struct tfc_call_frame {
  int n_args;
  tfc_tensor *const *args;   /* borrowed */
  int n_rets;
  tfc_tensor **rets;         /* _Retval stores new references */
} tfc_call_frame;

struct tfc_kernel_ctx {
  const tfc_node *node;
  void *state;
  int n_inputs;
  tfc_tensor **inputs;
  int n_outputs;
  tfc_tensor **outputs;
  tfc_device *device;
  tfc_threadpool *pool;      /* intra-op parallelism; may be NULL */
  int max_parallel;          /* intra-op width (<= 0: pool size + 1) */
  tfc_call_frame *frame;
  int64_t step_id;
  struct tfc_rendezvous *rendezvous; /* the step's, for _Send/_Recv (borrowed); may be NULL */
  /* The step's journal of variable writes (borrowed); may be NULL (nothing to undo). Kernels
   * write variables only through tfc_kernel_update_* below, which journal here. */
  struct tfc_var_txn *txn;
  tfc_status *status;
  /* The row's host_memory_out: on a device with its own memory, tfc_kernel_alloc_output gives
   * these outputs host memory (Shape's output on a GPU), as does every string, resource and
   * variant output. */
  uint32_t host_memory_out;
  /* Async kernels only (NULL for the others): signals completion; see the top comment. */
  void (*done)(tfc_kernel_ctx *c);
  /* Control flow (exec/frame.c): the frame instance and iteration the node runs in, as
   * rendezvous keys carry them ("<frame_id>:<iter_id>"); both 0 outside loops. */
  uint64_t frame_id;
  int64_t iter_id;
  /* _Send only: its input is dead, so it sends a dead token (the rendezvous is_dead flag)
   * instead of a value. Set by the executor. */
  int is_input_dead;
  /* _Recv only: the kernel sets it when what arrived was dead; the executor then treats every
   * output as dead. */
  int is_output_dead;
};

/* Allocates output i with dims, in the device's memory or, for a host-memory output (see
 * host_memory_out), in host memory; NULL on error (status set, node named by the executor). */
tfc_tensor *tfc_kernel_alloc_output(tfc_kernel_ctx *c, int i, int dtype, const int64_t *dims,
                                    int ndims);
/* Output i reuses input `in`'s buffer when the kernel holds its only reference and dtype and
 * byte size match; otherwise allocates. */
tfc_tensor *tfc_kernel_forward_or_alloc(tfc_kernel_ctx *c, int in, int i, int dtype,
                                        const int64_t *dims, int ndims);
/* Sets output i to t (takes the reference). */
void tfc_kernel_set_output(tfc_kernel_ctx *c, int i, tfc_tensor *t);
int tfc_kernel_error(tfc_kernel_ctx *c, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Work (items times cost per item) below which tfc_kernel_parallel_for runs fn on the calling
 * thread: a hop to another thread costs more than it saves. A kernel may test it first and skip
 * its setup for the pool. */
#define TFC_KERNEL_SMALL_WORK 65536
/* Splits [0, n) over the intra-op pool when n * cost_per_item is large enough to pay off. */
void tfc_kernel_parallel_for(tfc_kernel_ctx *c, int64_t n, int64_t cost_per_item,
                             void (*fn)(int64_t begin, int64_t end, void *arg), void *arg);
/*
 * Variables. A ref input (VariableV2's output, TF's Ref(T) args) or a DT_RESOURCE input
 * (VarHandleOp's) stands for a variable; tfc_kernel_input_var returns it (borrowed for the
 * compute), or NULL with INVALID_ARGUMENT when input i is neither.
 *
 * Kernels that write variables (Assign*, Apply*, Scatter*) do it in one locked update:
 *
 *   tfc_var_update u;
 *   if (tfc_kernel_update_begin(c, (int[]){0, 1, 2}, 3, 1, &u)) return c->status->code;
 *   tfc_tensor *var = tfc_kernel_update_alloc(c, &u, 0);   // new value, old one's dtype/shape
 *   ... compute var from u.old[0], u.old[1], ..., c->inputs[...] ...
 *   return tfc_kernel_update_end(c, &u);                    // installs, journals, unlocks
 *
 * begin locks the variables behind the listed inputs (in address order) and reads their
 * values into old[k] (borrowed; NULL when uninitialized, which is a FAILED_PRECONDITION
 * "Attempting to use uninitialized value <name>" when require_init). alloc (or set, for a
 * tensor the kernel made) stages variable k's new value; end installs every staged value when
 * c->status is OK (else drops them: nothing changes), journals the old ones in c->txn, and
 * unlocks. end must follow a successful begin exactly once; it returns c->status->code.
 * A ref output then forwards the ref input: tfc_kernel_forward_ref(c, in, out).
 */
#define TFC_MAX_UPDATE_VARS 8
typedef struct tfc_var_update {
  int n;
  struct tfc_var *vars[TFC_MAX_UPDATE_VARS];
  tfc_tensor *old[TFC_MAX_UPDATE_VARS];   /* borrowed, valid until end */
  tfc_tensor *staged[TFC_MAX_UPDATE_VARS]; /* owned until end */
} tfc_var_update;

struct tfc_var *tfc_kernel_input_var(tfc_kernel_ctx *c, int i);
int tfc_kernel_update_begin(tfc_kernel_ctx *c, const int *inputs, int n, int require_init, tfc_var_update *u);
tfc_tensor *tfc_kernel_update_alloc(tfc_kernel_ctx *c, tfc_var_update *u, int k);
/* Stages t (reference taken) as variable k's new value. */
void tfc_kernel_update_set(tfc_var_update *u, int k, tfc_tensor *t);
int tfc_kernel_update_end(tfc_kernel_ctx *c, tfc_var_update *u);
/* Output `out` is ref input `in` passed through (Assign's output_ref, Apply*'s out). */
void tfc_kernel_forward_ref(tfc_kernel_ctx *c, int in, int out);

/* Attr helpers for init functions (return 0, or an INTERNAL error naming the node). */
int tfc_kernel_attr_type(const tfc_node *n, const char *name, int *out, tfc_status *s);
int tfc_kernel_attr_int(const tfc_node *n, const char *name, int64_t *out, tfc_status *s);
int tfc_kernel_attr_bool(const tfc_node *n, const char *name, int *out, tfc_status *s);
/* *out borrows the node's string (valid while the graph lives). */
int tfc_kernel_attr_string(const tfc_node *n, const char *name, const char **out, tfc_status *s);
/* The bad_indices_policy attr of GatherNd, ScatterNd and the like (TF 2.17+): *out_ignore is 1
 * for "IGNORE" (an out-of-range index reads zeros or is skipped), 0 for "", "DEFAULT" and
 * "ERROR" (an error, as TF's CPU kernels); any other value is INVALID_ARGUMENT with TF's text.
 * A node without the attr has the default. */
int tfc_kernel_bad_indices_ignore(const tfc_node *n, int *out_ignore, tfc_status *s);

#endif
