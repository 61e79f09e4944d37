/* shape_nn_tail — shape functions of SpaceToBatchND / BatchToSpaceND and the legacy
 * SpaceToBatch / BatchToSpace (ops_array_tail.def), Einsum and ClipByValue (ops_nn.def);
 * shape_nn_tail.c. */
#ifndef TFC_OPS_SHAPE_NN_TAIL_H
#define TFC_OPS_SHAPE_NN_TAIL_H

typedef struct tfc_shape_ctx tfc_shape_ctx;

int tfc_shape_space_to_batch_nd(tfc_shape_ctx *c); /* input's rank and trailing dims; the rest from consts */
int tfc_shape_batch_to_space_nd(tfc_shape_ctx *c);
int tfc_shape_space_to_batch(tfc_shape_ctx *c); /* rank 4, block_size for H and W */
int tfc_shape_batch_to_space(tfc_shape_ctx *c);
int tfc_shape_einsum(tfc_shape_ctx *c);          /* from the equation (einsum_spec.h) */
int tfc_shape_clip_by_value(tfc_shape_ctx *c);   /* t's */

#endif
