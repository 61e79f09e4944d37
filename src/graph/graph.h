/*
 * graph — the graph store: nodes (op, name, inputs, requested device, typed attrs, output
 * types and inferred shapes) built through a node description that validates against the op
 * table, infers type attrs from inputs, fills attr defaults and runs shape inference.
 *
 * Graphs are append-only: nodes are never removed, except that a failed multi-node operation
 * (GraphDef import) rolls back to a mark taken under the same lock. Node pointers stay valid
 * until the graph is freed; node ids are dense, in creation order, so ids index side tables
 * (placement, pruning masks).
 *
 * TF's numbering: TF gives its nodes ids from 2 on (0 and 1 are its _SOURCE and _SINK), and a
 * node removed after it was made (TF_FinishOperation whose shape inference fails, a failed
 * GraphDef import) keeps its id unused for good. TF_GraphNextOperation's positions are those
 * ids, so each node also carries tf_id: 2 + every id TF would have handed out before it,
 * burned ones included. tf_id grows with id.
 *
 * Thread-safety: a graph has a mutex. tfc_node_desc_finish and the import take it; readers
 * that may race with writers (sessions extending, C API queries) take it with
 * tfc_graph_lock. Built nodes are immutable, except output shapes refined under the lock.
 */
#ifndef TFC_GRAPH_GRAPH_H
#define TFC_GRAPH_GRAPH_H

#include <pthread.h>

#include "base/hashmap.h"
#include "base/status.h"
#include "graph/function.h"
#include "ops/opdef.h"

typedef struct tfc_graph tfc_graph;
typedef struct tfc_node tfc_node;

typedef struct tfc_endpoint {
  tfc_node *node;
  int index; /* output index; -1 denotes a control edge where used */
} tfc_endpoint;

struct tfc_node {
  int id;
  int tf_id;             /* TF's node id (see the top of this file) */
  char *name;
  const tfc_opdef *op;
  char *device;          /* requested device, "" when unconstrained */
  char *assigned_device; /* set on partition graphs by the placer; NULL otherwise */
  int n_inputs;
  tfc_endpoint *inputs;
  int *input_types;      /* the arg's expected type (ref types for ref args) */
  int n_control_inputs;
  tfc_node **control_inputs;
  int n_attrs;
  tfc_attr *attrs;       /* sorted by name, complete (defaults filled) */
  int n_outputs;
  int *output_types;     /* ref types for ref outputs */
  tfc_shape *output_shapes;
  tfc_graph *graph;
  /* 1: no output can be known at build time (graph/shape_eval.h), so shape inference stops
   * there; 0: maybe (nodes added raw keep 0). Set once when the node is made. */
  unsigned char no_fold;
};

struct tfc_graph {
  pthread_mutex_t mu;
  tfc_node **nodes;
  int n_nodes, cap_nodes;
  int next_tf_id;             /* TF's num_node_ids: the next node's tf_id */
  tfc_hashmap by_name;
  int producer, min_consumer; /* VersionDef */
  int n_bad_consumers;
  int *bad_consumers;
  int n_gradient_scopes;      /* "gradients", "gradients_1", ... names handed out */
  /* Runtime-made graphs (a worker's partitions) hold internal nodes whose names start with
   * '_' (_arg_0, _retval_0); user graphs may not. */
  int internal_names;
  /* The function library (GraphDef.library; TF_GraphCopyFunction), under the lock. */
  tfc_funclib library;
};

/* TF_GRAPH_DEF_VERSION written on export (TF 1.15's producer). */
#define TFC_GRAPH_DEF_VERSION 134

/* New empty graph; NULL on out of memory. Free with tfc_graph_free (NULL ok). */
tfc_graph *tfc_graph_new(void);
void tfc_graph_free(tfc_graph *g);
void tfc_graph_lock(tfc_graph *g);
void tfc_graph_unlock(tfc_graph *g);
/* Node by name, or NULL. Caller holds the lock or knows no writer races. */
tfc_node *tfc_graph_find(const tfc_graph *g, const char *name);
int tfc_graph_num_nodes(tfc_graph *g); /* takes the lock */

/* TF's node-name rule: [A-Za-z0-9.][A-Za-z0-9_./-]* */
int tfc_node_name_valid(const char *name);
/* The rule for nodes of g: a leading '_' is also fine when g->internal_names is set. */
int tfc_graph_name_valid(const tfc_graph *g, const char *name);

/* ---- node descriptions (TF_OperationDescription) ---- */
typedef struct tfc_node_desc tfc_node_desc;

/* Never NULL-fails silently: on out of memory returns NULL. */
tfc_node_desc *tfc_node_desc_new(tfc_graph *g, const char *op_type, const char *name);
void tfc_node_desc_free(tfc_node_desc *d);
void tfc_node_desc_set_device(tfc_node_desc *d, const char *device);
/* One input for a single-tensor arg (TF_AddInput). */
void tfc_node_desc_add_input(tfc_node_desc *d, tfc_endpoint in);
/* A whole list arg (TF_AddInputList). */
void tfc_node_desc_add_input_list(tfc_node_desc *d, const tfc_endpoint *ins, int n);
/* A flat input as in NodeDef.input; args are grouped from the attrs at finish. Do not mix with
 * the two calls above. */
void tfc_node_desc_add_input_flat(tfc_node_desc *d, tfc_endpoint in);
void tfc_node_desc_add_control(tfc_node_desc *d, tfc_node *n);
/* Takes ownership of *v (leaves it NONE). Errors are kept and reported by finish. */
void tfc_node_desc_set_attr(tfc_node_desc *d, const char *name, tfc_attr_value *v);
/* Appends "loc:@<node>" to the _class attr (TF_ColocateWith). */
void tfc_node_desc_colocate_with(tfc_node_desc *d, tfc_node *n);
/* Records an error to be reported by finish (a setter that failed). */
void tfc_node_desc_fail(tfc_node_desc *d, int code, const char *msg);
/* Validates and adds the node; frees d in every case. On error returns NULL, the graph is
 * unchanged but for a used TF id where TF would have made the node first (its shape
 * inference failed; an importing desc's input types), and s holds INVALID_ARGUMENT (or
 * NOT_FOUND for an unknown op) naming the node.
 * The _locked form expects the caller to hold the graph lock. */
tfc_node *tfc_node_desc_finish(tfc_node_desc *d, tfc_status *s);
tfc_node *tfc_node_desc_finish_locked(tfc_node_desc *d, tfc_status *s);

/* The GraphDef importer's desc (TF's importer makes a node before it checks its inputs' types
 * against its attrs, so a node failing that check still uses a TF id; TF_FinishOperation
 * checks them first). */
void tfc_node_desc_set_importing(tfc_node_desc *d);

/* Rollback support for multi-node operations (caller holds the lock throughout). The rolled
 * back nodes' TF ids stay used, as in TF (see the top of this file). */
int tfc_graph_mark(const tfc_graph *g);
void tfc_graph_rollback(tfc_graph *g, int mark);
/* Marks n TF ids used by nodes TF would have made and removed (caller holds the lock). */
void tfc_graph_burn_tf_ids(tfc_graph *g, int n);
/* The first node whose tf_id is >= tf_id, or NULL (caller holds the lock). */
tfc_node *tfc_graph_node_at_tf_id(const tfc_graph *g, int tf_id);

/* Adds a node without op validation: for runtime-built graphs (client graphs, partitions)
 * whose nodes come from validated ones and are already placed. Copies name, requested
 * device, assigned device (NULL: none) and attrs; inputs are given. NULL on error. */
tfc_node *tfc_graph_add_raw(tfc_graph *g, const char *name, const tfc_opdef *op,
                            const char *device, const char *assigned,
                            const tfc_endpoint *inputs, int n_inputs,
                            tfc_node *const *controls, int n_controls, const tfc_attr *attrs,
                            int n_attrs, tfc_status *s);

/* Attr lookup on a node (attrs are complete, so absent means the op has no such attr, except
 * that an attr TF added after 1.15 which the node does not set gives its declared default). */
const tfc_attr_value *tfc_node_attr(const tfc_node *n, const char *name);
int tfc_node_attr_type(const tfc_node *n, const char *name, int *out);
int tfc_node_attr_int(const tfc_node *n, const char *name, int64_t *out);
int tfc_node_attr_bool(const tfc_node *n, const char *name, int *out);

/* The range of flat input (or output) indexes of a named arg; -1 if no such arg. */
/* 1 when input j of n is a loop's back edge (NextIteration into Merge): the only edge whose
 * source was made after its consumer (graphdef import sets it last), else 0. Copies of a
 * graph made in id order build such a consumer with a stand-in input and set the edge after. */
static inline int tfc_node_input_is_back_edge(const tfc_node *n, int j) { return n->inputs[j].node->id > n->id; }
/* 1 when n's op is a TF1 control-flow op (Switch, Merge, Enter, Exit, NextIteration, LoopCond,
 * their Ref forms, ControlTrigger), else 0. */
int tfc_node_is_control_flow(const tfc_node *n);
int tfc_node_input_range(const tfc_node *n, const char *arg, int *start, int *stop);
int tfc_node_output_range(const tfc_node *n, const char *arg, int *start, int *stop);

/* Merges a user-provided shape into output `index` (TF_GraphSetTensorShape). */
int tfc_graph_set_output_shape(tfc_graph *g, tfc_endpoint out, const tfc_shape *shape,
                               tfc_status *s);

/* The next unused name "<base>", "<base>_1", ... (TF's unique-name rule). Caller frees. */
char *tfc_graph_unique_name(tfc_graph *g, const char *base);

#endif
