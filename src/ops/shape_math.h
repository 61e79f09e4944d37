/*
 * shape_math — shape functions of the math family (see shape_math.c). Each follows TF 1.15's
 * shape function for the op of the same name, including its error texts; tfc_shape_matmul is
 * declared in shape_fns.h.
 */
#ifndef TFC_OPS_SHAPE_MATH_H
#define TFC_OPS_SHAPE_MATH_H

typedef struct tfc_shape_ctx tfc_shape_ctx;

int tfc_shape_batch_matmul(tfc_shape_ctx *c);    /* BatchMatMul: batch dims merge */
int tfc_shape_batch_matmul_v2(tfc_shape_ctx *c); /* BatchMatMulV2: batch dims broadcast */
int tfc_shape_addn(tfc_shape_ctx *c);            /* all inputs merge into one shape */
int tfc_shape_equality(tfc_shape_ctx *c);        /* broadcast; unknown on mismatch if allowed */
int tfc_shape_select(tfc_shape_ctx *c);          /* TF 1.x Select: cond scalar/vector/same */
int tfc_shape_select_v2(tfc_shape_ctx *c);       /* three-way broadcast */
int tfc_shape_reduction(tfc_shape_ctx *c);       /* Sum, Mean, ...: const axes, keep_dims */
int tfc_shape_argop(tfc_shape_ctx *c);           /* ArgMax/ArgMin: drops one axis */

#endif
