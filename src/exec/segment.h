/*
 * segment — the kernel states a session's executors share, as TensorFlow's OpSegment shares
 * the kernels of stateful ops: a session builds one executor per run signature, and a random
 * op fetched by two of them must draw one stream (TF's run k of the op gives its k-th draw
 * whichever fetches ask for it), not restart it in each. Kernel rows with
 * TFC_KF_SHARED_STATE get their state here, keyed by device and node name, made by the row's
 * init on first use and kept until the segment is freed.
 *
 * Ownership: the segment owns the shared states (freed with the kernel's free_state by
 * tfc_kernel_segment_free, after every executor using it is freed). Thread-safety: acquire may
 * be called from any thread; the states themselves must be safe for concurrent compute, as
 * every kernel state already is (concurrent steps of one executor share it).
 */
#ifndef TFC_EXEC_SEGMENT_H
#define TFC_EXEC_SEGMENT_H

#include "base/status.h"
#include "device/kernel.h"

typedef struct tfc_kernel_segment tfc_kernel_segment;

/* NULL when out of memory. */
tfc_kernel_segment *tfc_kernel_segment_new(void);
/* Frees the segment and its states; NULL is a no-op. */
void tfc_kernel_segment_free(tfc_kernel_segment *seg);
/* The state of row k for node n on `device` (borrowed from the segment): the one made earlier
 * for the same device and node name, else k->init's, made now. Returns 0, or init's error. */
int tfc_kernel_segment_acquire(tfc_kernel_segment *seg, const char *device, const tfc_node *n,
                               const tfc_kernel_def *k, void **state, tfc_status *s);

#endif
