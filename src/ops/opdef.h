/*
 * opdef — THE op table: every op tfc knows, with TF's names, argument specs, attrs and
 * defaults, flags and shape function.
 *
 * The rows live in ops_*.def (one file per op family, all included by op_table.h in one
 * X-macro list, so there is one enum and one table). A row gives TF's own signature in a
 * compact spec text that mirrors REGISTER_OP:
 *
 *   TFC_OP(MatMul, "a: T, b: T", "product: T",
 *          "transpose_a: bool = false; transpose_b: bool = false; T: {half, float, double, int32}",
 *          TFC_OPF_NONE, tfc_shape_matmul)
 *
 * inputs/outputs: comma-separated "name: T" | "name: float" | "name: N * T" |
 *   "name: Tlist" (list(type) attr) | "name: Ref(T)".
 * attrs: semicolon-separated "name: kind [= default]" where kind is string, int, float, bool,
 *   type, shape, tensor, func, list(<kind>), or {a, b} (allowed types or strings); "int >= 1"
 *   sets a minimum. Defaults: true/false, numbers, 'text', DT_FLOAT or a type name, [] lists,
 *   [1, 2], "?" (unknown-rank shape), "[2, -1]" shapes. A leading '+' on an attr's name
 *   ("+grad_a: bool = false") marks an attr that TF added after 1.15 (see tfc_attr_def.added_later).
 *
 * The texts are parsed once (tfc_ops_init, thread-safe, idempotent) into tfc_opdef structs.
 * Op defs are immutable after that and live for the process.
 */
#ifndef TFC_OPS_OPDEF_H
#define TFC_OPS_OPDEF_H

#include <stdint.h>

#include "base/status.h"
#include "ops/attr.h"
#include "tensor/shape.h"

enum tfc_op_flag {
  TFC_OPF_NONE = 0,
  TFC_OPF_STATEFUL = 1 << 0,     /* may not be folded or deduplicated; random, variables */
  TFC_OPF_COMMUTATIVE = 1 << 1,
  TFC_OPF_AGGREGATE = 1 << 2,
  TFC_OPF_INTERNAL = 1 << 3,     /* _Arg, _Retval, _Send, _Recv: not in TF_GetAllOpList */
  TFC_OPF_ALLOW_UNINIT = 1 << 4  /* TF's SetAllowsUninitializedInput */
};

typedef struct tfc_arg_def {
  char *name;
  int type;              /* fixed dtype, or 0 */
  char *type_attr;       /* "T" or NULL */
  char *number_attr;     /* "N" or NULL: N inputs of type `type`/`type_attr` */
  char *type_list_attr;  /* "Tlist" or NULL */
  int is_ref;
} tfc_arg_def;

typedef struct tfc_attr_def {
  char *name;
  char *type_text;        /* TF's attr type text: "type", "list(int)", ... */
  int kind;               /* scalar kind, or element kind for lists */
  int is_list;
  int has_default;
  tfc_attr_value default_value;
  int has_minimum;
  int64_t minimum;
  int n_allowed;          /* allowed values: dtypes for type attrs, strings otherwise */
  int *allowed_types;
  char **allowed_strings;
  /* Added by TF after 1.15 (newer writers put it in every NodeDef): a NodeDef may set it and
   * keeps it (export writes it back, the getters see it), but nodes without it are not given
   * the default, and exported OpDefs and the Op<...> text in messages leave it out, so what
   * tfc writes stays readable by TF 1.15. Readers take the default when it is absent. */
  int added_later;
} tfc_attr_def;

typedef struct tfc_shape_ctx tfc_shape_ctx;
typedef int (*tfc_shape_fn)(tfc_shape_ctx *ctx);

typedef struct tfc_opdef {
  int id;
  const char *name;
  int flags;
  int n_inputs, n_outputs, n_attrs;
  tfc_arg_def *inputs, *outputs;
  tfc_attr_def *attrs;
  tfc_shape_fn shape_fn; /* NULL: outputs unknown */
} tfc_opdef;

/* The op enum: TFC_OP_MatMul, ..., TFC_OP_COUNT. */
enum tfc_op_id {
#define TFC_OP(name, ins, outs, attrs, flags, shape_fn) TFC_OP_##name,
#include "ops/op_table.h"
#undef TFC_OP
  TFC_OP_COUNT
};

/* Op defs registered at run time (ops/user_ops.h: TF_RegisterOpDefinition) have ids from
 * TFC_OP_USER_BASE up; TFC_OP_COUNT itself marks a library function's op def. Tables indexed
 * by op id stop at TFC_OP_COUNT, so a user op has no row in them. */
#define TFC_OP_USER_BASE (TFC_OP_COUNT + 1)

/* Parses the table once. Errors only on a malformed row (our bug): INTERNAL naming the op. */
int tfc_ops_init(tfc_status *s);
/* NULL when unknown (or before init). Both see the table's ops and then the ops registered
 * at run time (ops/user_ops.h). */
const tfc_opdef *tfc_op_lookup(const char *name);
const tfc_opdef *tfc_op_by_id(int id);
/* Parses a user's op definition, given in the table's spec syntax (see the top of this file),
 * into a new heap op def with id -1 (the caller sets it). Returns NULL with INVALID_ARGUMENT
 * naming the op and the piece at fault on a malformed spec. Free with tfc_opdef_free. */
tfc_opdef *tfc_opdef_parse(const char *name, const char *ins, const char *outs, const char *attrs, int flags,
                           tfc_shape_fn shape_fn, tfc_status *s);
/* Frees an op def from tfc_opdef_parse (NULL: no-op); never one of the table's. */
void tfc_opdef_free(tfc_opdef *op);
const tfc_attr_def *tfc_opdef_attr(const tfc_opdef *op, const char *name);
/* The fixed type arg `a` of op had in TF 1.15 when its type attr was added later (TopKV2's
 * k: Tk was k: int32), else 0: the type to show in TF 1.15's views of the op (Op<...> texts,
 * exported OpDefs), which leave such attrs out. */
int tfc_opdef_arg_type_1_15(const tfc_opdef *op, const tfc_arg_def *a);
/* TF's one-line signature for messages: "Op<name=MatMul; signature=a:T, b:T -> product:T; ...>"
 * (TF 1.15's: attrs added later are left out). */
void tfc_opdef_format(const tfc_opdef *op, char *buf, size_t n);

/*
 * Shape inference context, filled by the graph for one node. Inputs are the node's flat
 * input list. input_tensors[i] holds what is known of input i's value without running
 * anything (a Const node, or Shape/Size/Rank of a known shape), else NULL; the shape function
 * asks for more with tfc_shape_ctx_input_tensor (TF's input_tensor: small constant subgraphs
 * evaluated on demand) and tfc_shape_ctx_input_as_shape (TF's MakeShapeFromShapeTensor, with
 * the partial shapes a shape tensor gives: Shape, Pack, ConcatV2, StridedSlice, Cast). The
 * graph gives the hooks that compute these (graph/shape_eval.h); without hooks only
 * input_tensors is known. The shape function writes output_shapes (pre-set unknown).
 */
typedef struct tfc_shape_eval_hooks {
  /* Input i's value computed at build time: a new reference, or NULL (not constant). */
  tfc_tensor *(*tensor)(void *arg, int i);
  /* Input i read as a (partial) shape: TFC_OK with *out (rank -1 when nothing is known that
   * way), or the error code with s set (TF's texts, e.g. a bad StridedSlice of a shape). */
  int (*partial)(void *arg, int i, tfc_shape *out, tfc_status *s);
} tfc_shape_eval_hooks;

struct tfc_shape_ctx {
  const tfc_opdef *op;
  const char *node_name;
  const tfc_attr *attrs;
  int n_attrs;
  int n_inputs;
  const int *input_types;
  const tfc_shape *input_shapes;
  /* Owned by the graph's caller of the shape function: n_inputs slots each (references). */
  tfc_tensor **input_tensors;
  unsigned char *input_evaluated; /* per input: the hooks' tensor was asked for (NULL: never) */
  const tfc_shape_eval_hooks *eval;
  void *eval_arg;
  int n_outputs;
  const int *output_types;
  tfc_shape *output_shapes;
  tfc_status *status;
};

/* Helpers for shape functions. Attr getters return the default when absent (attrs are
 * complete after node validation). */
int64_t tfc_shape_ctx_attr_int(const tfc_shape_ctx *c, const char *name, int64_t dflt);
int tfc_shape_ctx_attr_bool(const tfc_shape_ctx *c, const char *name, int dflt);
int tfc_shape_ctx_attr_type(const tfc_shape_ctx *c, const char *name);
const tfc_attr_value *tfc_shape_ctx_attr(const tfc_shape_ctx *c, const char *name);
/* Reports a shape error as INVALID_ARGUMENT with TF's usual prefix naming the node/op. */
int tfc_shape_ctx_error(tfc_shape_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Output i gets input j's shape. */
int tfc_shape_same_as_input(tfc_shape_ctx *c);
/* The value of input i when the graph can compute it at build time (see above), else NULL.
 * Borrowed: valid while the context lives. Never an error: what cannot be computed is unknown. */
const tfc_tensor *tfc_shape_ctx_input_tensor(const tfc_shape_ctx *c, int i);
/* Input i read as a shape (TF's MakeShapeFromShapeTensor): the partial shape the graph knows
 * (a -1 or unknown value is an unknown dim), else from the input's value (a vector; the
 * scalar -1 is an unknown shape), else a known input length gives that rank with unknown
 * dims. Errors (INVALID_ARGUMENT): a non-int value, a value below -1, a bad rank, and the
 * partial-shape errors of the hooks. */
int tfc_shape_ctx_input_as_shape(tfc_shape_ctx *c, int input, tfc_shape *out);
/* A shape from an int32/int64 value: a vector (-1 is an unknown dim) or the scalar -1 (an
 * unknown shape). INVALID_ARGUMENT with TF's texts otherwise (a value below -1: "Invalid value
 * in tensor used for shape: -2"). */
int tfc_shape_from_value(const tfc_tensor *t, tfc_shape *out, tfc_status *s);
/* Numpy-style broadcast of two shapes with unknowns; error names both shapes. */
int tfc_shape_broadcast(tfc_shape_ctx *c, const tfc_shape *a, const tfc_shape *b, tfc_shape *out);

/* Shape functions shared by many rows (defined in shape_common.c; family files add theirs). */
int tfc_shape_unknown_fn(tfc_shape_ctx *c);
int tfc_shape_scalar_fn(tfc_shape_ctx *c);
int tfc_shape_unchanged(tfc_shape_ctx *c); /* every output = input 0 */
int tfc_shape_binary_broadcast(tfc_shape_ctx *c);
int tfc_shape_no_outputs(tfc_shape_ctx *c);

#include "ops/shape_fns.h"

#endif
