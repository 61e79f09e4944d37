/*
 * user_ops — the ops registered at run time, beside the compiled op table: what a program or
 * a loaded library defines with TF_RegisterOpDefinition (include/tensorflow/c/ops.h), as TF's
 * OpRegistry takes REGISTER_OP from a library's static initializers.
 *
 * tfc_op_lookup / tfc_op_by_id (ops/opdef.h) fall back to this registry, so graph building,
 * GraphDef import, placement, the executor and TF_GetAllOpList see a user op as any other.
 * A user op's id is TFC_OP_USER_BASE + its registration index; its shape function is the C
 * API's bridge (capi/ops_api.c), which finds the user's function with tfc_user_op_shape_data.
 * Kernels for user ops live in device/user_kernel.h.
 *
 * Ops are never unregistered (TF's registry has no removal either): an op def, once
 * registered, lives for the process and its pointer stays valid. Thread-safe: one mutex
 * guards the registry; lookups take it briefly.
 */
#ifndef TFC_OPS_USER_OPS_H
#define TFC_OPS_USER_OPS_H

#include "base/status.h"

struct tfc_opdef;

/* Registers op (from tfc_opdef_parse), taking it on success and setting its id; shape_data is
 * kept for the op's shape function. ALREADY_EXISTS "Op with name <name>" (TF's text) when the
 * table or the registry already has the name (op is then left to the caller). */
int tfc_user_op_register(struct tfc_opdef *op, void *shape_data, tfc_status *s);
/* The registered op of that name / id, or NULL. */
const struct tfc_opdef *tfc_user_op_lookup(const char *name);
const struct tfc_opdef *tfc_user_op_by_id(int id);
/* What tfc_user_op_register kept for the op's shape function; NULL for a table op. */
void *tfc_user_op_shape_data(const struct tfc_opdef *op);
/* How many ops have been registered: ids TFC_OP_USER_BASE .. TFC_OP_USER_BASE + count - 1. */
int tfc_user_op_count(void);

#endif
