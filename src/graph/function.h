/*
 * function — a graph's function library (TF's FunctionLibraryDefinition as data): functions by
 * name, each kept as its FunctionDef's canonical serialized bytes (src/proto/function_codec.c
 * validates and canonicalizes at the edge: map entries sorted by key), and the gradient links
 * of GradientDef (function name -> gradient function name).
 *
 * Bytes rather than decoded structs: canonical bytes make TF's "same definition" test a byte
 * comparison and the export byte-for-byte what was imported (up to map order). A run lowers
 * each call (session/function_call.h), decoding the body once per run signature.
 *
 * Rules (TF's): adding a function whose name is taken by a different definition, or by an op,
 * is INVALID_ARGUMENT; the same definition again is a no-op. A gradient link to a function that
 * already has a different gradient is INVALID_ARGUMENT; the same link again is a no-op.
 *
 * A node may name a function as its op (TF's library is an op registry over the ops):
 * tfc_funclib_opdef gives the function's signature as an op def for it.
 *
 * Ownership: the library owns copies of every name and byte string it is given, and the op
 * defs it makes.
 * Thread-safety: none of its own; a graph's library is guarded by the graph lock.
 */
#ifndef TFC_GRAPH_FUNCTION_H
#define TFC_GRAPH_FUNCTION_H

#include <stddef.h>

#include "base/status.h"

struct tfc_opdef;

typedef struct tfc_function {
  char *name;
  unsigned char *def; /* canonical FunctionDef bytes */
  size_t len;
  struct tfc_opdef *opdef; /* its signature as an op def, made when a node first names it; NULL before */
} tfc_function;

typedef struct tfc_function_grad {
  char *func;
  char *grad;
} tfc_function_grad;

typedef struct tfc_funclib {
  int n_funcs, cap_funcs;
  tfc_function *funcs; /* in the order added */
  int n_grads, cap_grads;
  tfc_function_grad *grads;
} tfc_funclib;

/* A rollback point: the counts at some moment (adds only append). */
typedef struct tfc_funclib_mark {
  int n_funcs, n_grads;
} tfc_funclib_mark;

void tfc_funclib_init(tfc_funclib *lib);
void tfc_funclib_fini(tfc_funclib *lib);

/* The function named `name`, or NULL (borrowed; valid until the library changes). */
const tfc_function *tfc_funclib_find(const tfc_funclib *lib, const char *name);
/* The gradient function's name of `func`, or NULL (borrowed). */
const char *tfc_funclib_grad(const tfc_funclib *lib, const char *func);

/* Adds a function (copies name and bytes). Errors: INVALID_ARGUMENT "Cannot add function
 * '<f>' because a different function with the same name already exists." or "... because an
 * op with the same name already exists."; RESOURCE_EXHAUSTED. */
int tfc_funclib_add(tfc_funclib *lib, const char *name, const void *def, size_t len, tfc_status *s);
/* Links func -> grad. INVALID_ARGUMENT "Cannot assign gradient function '<g>' to '<f>' because
 * it already has gradient function '<h>'" when a different link exists. */
int tfc_funclib_add_grad(tfc_funclib *lib, const char *func, const char *grad, tfc_status *s);

/* The op def of function `name` (its signature; see proto/function_opdef.c), made on first use
 * and kept with the function: borrowed, valid while the function stays in the library. NULL
 * without status when there is no such function; NULL with status when its signature is bad. */
const struct tfc_opdef *tfc_funclib_opdef(tfc_funclib *lib, const char *name, tfc_status *s);
/* proto/function_opdef.c: a new op def from FunctionDef bytes (NULL with status on error), and
 * its release (NULL is a no-op). */
struct tfc_opdef *tfc_function_opdef_new(const void *def, size_t len, tfc_status *s);
void tfc_function_opdef_free(struct tfc_opdef *op);

tfc_funclib_mark tfc_funclib_get_mark(const tfc_funclib *lib);
/* Drops everything added after the mark. */
void tfc_funclib_rollback(tfc_funclib *lib, tfc_funclib_mark m);

#endif
