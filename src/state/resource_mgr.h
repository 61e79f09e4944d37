/*
 * resource_mgr — the resources of one device (TF's ResourceMgr): variables, and generic
 * refcounted resources (queues, readers) keyed by (kind, container, name). VariableV2 uses
 * container "" → "localhost" and its shared_name or node name; VarHandleOp the same. Queues
 * and readers use their shared_name, or a private per-node name when they have none (TF's
 * "_<id>_<node name>", tfc_resource_mgr_next_id gives the id).
 *
 * A device owns one manager; resources live until the device goes (for a direct session:
 * until the session closes), so every run of a session sees the same variables and queues.
 *
 * Generic resources start with a tfc_resource header whose kind names TF's type (for
 * messages) and gives the free function and an optional cancel function. Kinds are keyed
 * apart, as TF keys resources by C++ type: a queue and a reader may share a name.
 * Cancellation: tfc_resource_mgr_cancel_all (the session closes) calls every resource's
 * cancel once, and cancels resources created later at creation, so operations blocked on a
 * queue wake with CANCELLED and none blocks again.
 *
 * Resources travel in a step as DT_RESOURCE scalars (tfc_resource_handle_new) whose element
 * is the resource pointer, holding a reference. A handle of another kind given to an op is
 * TF's INVALID_ARGUMENT "Trying to access resource using the wrong type. Expected <kind of
 * the handle> got <kind asked for>".
 *
 * Ownership: lookups return a new reference. Thread-safety: all functions are thread-safe.
 */
#ifndef TFC_STATE_RESOURCE_MGR_H
#define TFC_STATE_RESOURCE_MGR_H

#include <stdatomic.h>
#include <stdint.h>

#include "base/status.h"
#include "state/variable.h"

typedef struct tfc_resource_mgr tfc_resource_mgr;

/* TF's default container for a direct session. */
#define TFC_DEFAULT_CONTAINER "localhost"

typedef struct tfc_resource tfc_resource;

/* What a kind of resource is: TF's type name (e.g. "N10tensorflow14QueueInterfaceE"), how to
 * free one (at the last unref) and, optionally, how to cancel its blocked operations (called
 * without any manager lock held; must be idempotent). Kinds are static constants. */
typedef struct tfc_resource_kind {
  const char *type_name;
  void (*free)(tfc_resource *r);
  void (*cancel)(tfc_resource *r);
} tfc_resource_kind;

/* The header every generic resource starts with. */
struct tfc_resource {
  atomic_int refs;
  const tfc_resource_kind *kind;
};

/* Sets the header of a new resource (one reference, the caller's). */
void tfc_resource_init(tfc_resource *r, const tfc_resource_kind *kind);
static inline tfc_resource *tfc_resource_ref(tfc_resource *r) {
  atomic_fetch_add_explicit(&r->refs, 1, memory_order_relaxed);
  return r;
}
void tfc_resource_unref(tfc_resource *r); /* NULL: no-op; frees at the last reference */

tfc_resource_mgr *tfc_resource_mgr_new(void);
void tfc_resource_mgr_free(tfc_resource_mgr *m); /* NULL: no-op; drops every resource */

/* The variable container/name, created (uninitialized, with dtype and shape) when absent.
 * container "" means the default. An existing variable of another dtype is an
 * INVALID_ARGUMENT ("Trying to share variable <name>, but specified dtype float and found
 * dtype double"). Returns a new reference, or NULL with status. */
tfc_var *tfc_resource_mgr_var(tfc_resource_mgr *m, const char *container, const char *name, int dtype,
                              const tfc_shape *shape, tfc_status *s);

/* Makes a new resource for lookup_or_create: returns it with one reference (the manager takes
 * it), or NULL with status. Runs under the manager's lock: it must not call the manager. */
typedef tfc_resource *(*tfc_resource_create_fn)(void *arg, tfc_status *s);

/* The resource (kind, container, name), created by create(arg) when absent (container "":
 * the default). Returns a new reference, or NULL with status (create's error, or
 * RESOURCE_EXHAUSTED). The caller checks an existing resource's attributes against its own
 * (TF's "Shared queue '...' has capacity ..." texts are the queue's). */
tfc_resource *tfc_resource_mgr_lookup_or_create(tfc_resource_mgr *m, const char *container, const char *name,
                                                const tfc_resource_kind *kind, tfc_resource_create_fn create,
                                                void *arg, tfc_status *s);
/* The resource (kind, container, name) as a new reference, or NULL with TF's NOT_FOUND
 * "Resource <container>/<name>/<type name> does not exist." */
tfc_resource *tfc_resource_mgr_lookup(tfc_resource_mgr *m, const char *container, const char *name,
                                      const tfc_resource_kind *kind, tfc_status *s);
/* A fresh id for private names (TF's ResourceMgr::GenerateUniqueId): 0, 1, 2, ... Lock-free,
 * so a create function may call it. */
int64_t tfc_resource_mgr_next_id(tfc_resource_mgr *m);
/* The lookup name of a resource private to node node_name (a queue or reader without a
 * shared_name): a heap string (caller frees) no shared name a graph builder chooses clashes
 * with; NULL on out of memory. Every executor built for the node finds the same resource. */
char *tfc_resource_private_name(const char *node_name);
/* Cancels every generic resource that has a cancel function, now and at later creation. */
void tfc_resource_mgr_cancel_all(tfc_resource_mgr *m);
/* Drops every variable and resource of `container` (NULL or "": the default one), as TF's
 * ResourceMgr::Cleanup: later lookups create them anew; steps holding one keep it until they
 * let go; queues dropped are cancelled (their blocked operations wake with CANCELLED).
 * RESOURCE_EXHAUSTED on out of memory. */
int tfc_resource_mgr_clear(tfc_resource_mgr *m, const char *container, tfc_status *s);

/* A DT_RESOURCE scalar handing out r (the tensor keeps a reference). NULL with status. */
tfc_tensor *tfc_resource_handle_new(tfc_resource *r, tfc_status *s);
/* The resource of kind behind handle t (borrowed for as long as t lives), or NULL with
 * INVALID_ARGUMENT: not a resource handle, or the wrong kind (TF's text). */
tfc_resource *tfc_resource_from_handle(const tfc_tensor *t, const tfc_resource_kind *kind, tfc_status *s);

#endif
