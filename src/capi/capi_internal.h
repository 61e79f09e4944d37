/*
 * capi_internal — the structs behind the C API's opaque types and the conversions between
 * them and the runtime's. The C API layer is thin: check arguments, translate, call in.
 *
 *   TF_Status      wraps a tfc_status.
 *   TF_Tensor      a dtype, dims and a refcounted tfc_buffer holding the bytes exactly as the
 *                  C API defines them (for TF_STRING: 1.x's uint64 offset table followed by
 *                  varint-length-prefixed bytes). Numeric tensors cross into and out of the
 *                  runtime without copying (the buffer is shared); strings are converted.
 *   TF_Graph       a tfc_graph plus the number of sessions using it: TF_DeleteGraph of a graph
 *                  that a session still uses only marks it; the last session frees it. It
 *                  also carries the training builders' per-graph state (include/tfc/train.h).
 *   TF_Operation   is a tfc_node: pointers are cast, never dereferenced as TF_Operation.
 *   TF_Session     a tfc_session and its TF_Graph.
 */
#ifndef TFC_CAPI_INTERNAL_H
#define TFC_CAPI_INTERNAL_H

#include <pthread.h>

#include "base/status.h"
#include "graph/graph.h"
#include "session/config.h"
#include "tensor/tensor.h"
#include "tensorflow/c/c_api.h"

/* Export marker for the public API (the library builds with -fvisibility=hidden). */
#define TFC_EXPORT __attribute__((visibility("default")))

struct TF_Status {
  tfc_status s;
};

struct TF_Tensor {
  int dtype;
  int ndims;
  int64_t dims[TFC_MAX_DIMS];
  tfc_buffer *buf;
};

struct TF_Graph {
  tfc_graph *g;
  pthread_mutex_t mu;   /* guards the two fields below */
  int n_sessions;
  int delete_requested;
  /* The training builders' per-graph state (src/builders: names in use, seed, variable
   * collections), created by them on first use under the graph lock and freed with the graph
   * through builders_free. NULL when no builder touched the graph. */
  void *builders;
  void (*builders_free)(void *builders);
  /* Set on the cond graph of a TF_NewWhile only (capi/while.c): the graph the loop goes into
   * and a malloc'd copy of its loop inputs (while_ninputs of them), owned by the params. */
  TF_Graph *while_parent;
  TF_Output *while_inputs;
};

struct TF_OperationDescription {
  tfc_node_desc *d;
  TF_Graph *graph;
};

struct TF_SessionOptions {
  tfc_session_config config;
  char *target; /* "" for in-process */
};

static inline tfc_node *tfc_capi_node(const TF_Operation *o) { return (tfc_node *)o; }
static inline TF_Operation *tfc_capi_oper(const tfc_node *n) { return (TF_Operation *)n; }
static inline tfc_endpoint tfc_capi_endpoint(TF_Output o) {
  tfc_endpoint e = {tfc_capi_node(o.oper), o.index};
  return e;
}
/* The session behind a TF_Session (borrowed; capi/session.c). For tfc's own C additions that
 * reach into a session's devices (the queue runners' wait figures). */
struct tfc_session *tfc_capi_session(TF_Session *s);
/* The graph a TF_Session runs (borrowed; the session keeps it alive). */
TF_Graph *tfc_capi_session_graph(TF_Session *s);
/* Clears a caller's status at the start of a call (NULL-safe). */
static inline tfc_status *tfc_capi_status(TF_Status *s) {
  if (!s) return NULL;
  tfc_status_clear(&s->s);
  return &s->s;
}

/* The caller's status (cleared), or `scratch` when the caller passed NULL, for functions TF
 * lets be called without a status. scratch is always initialized: tfc_status_fini it. */
static inline tfc_status *tfc_capi_status_or(TF_Status *status, tfc_status *scratch) {
  tfc_status_init(scratch);
  return status ? tfc_capi_status(status) : scratch;
}

/* A runtime tensor for a C API tensor: numeric shares the buffer, TF_STRING is decoded
 * (INVALID_ARGUMENT on a malformed offset table). New reference; NULL on error. */
tfc_tensor *tfc_capi_tensor_in(const TF_Tensor *t, tfc_status *s);
/* A new TF_Tensor for a runtime tensor: numeric shares the buffer, strings are encoded. */
TF_Tensor *tfc_capi_tensor_out(tfc_tensor *t, tfc_status *s);
/* A new scalar TF_STRING tensor holding text (a path fed to a saver's filename tensor). NULL on
 * error (s set). */
TF_Tensor *tfc_capi_string_scalar(const char *text, tfc_status *s);

/* An output TF_Buffer must exist and be empty (TF: "Passing non-empty TF_Buffer is invalid.").
 * Callers check before making the bytes, so no work is wasted on a bad buffer. */
int tfc_capi_check_out_buffer(const TF_Buffer *out, tfc_status *s);
/* Hands malloc'd bytes to an output TF_Buffer (which then frees them with free). A buffer
 * failing tfc_capi_check_out_buffer is that error, and the bytes are freed. */
int tfc_capi_fill_buffer(TF_Buffer *out, void *data, size_t len, tfc_status *s);

/* A node's attr as TF's GetNodeAttr finds it for the typed getters (TF_OperationGetAttrInt,
 * the kernel and shape-function attr getters): NOT_FOUND "No attr named 'a' in NodeDef: ..."
 * when absent, INVALID_ARGUMENT "AttrValue had value with type ..." when of another kind
 * (is_list: a list of kind). Borrowed from attrs. */
const tfc_attr_value *tfc_capi_typed_attr(const tfc_attr *attrs, int n_attrs, const char *node_name,
                                          const char *attr_name, int kind, int is_list, tfc_status *s);

/* Session bookkeeping on a graph (see TF_Graph above). */
void tfc_capi_graph_retain(TF_Graph *g);
void tfc_capi_graph_release(TF_Graph *g); /* frees when deleted and unused */

#endif
