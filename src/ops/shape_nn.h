/*
 * shape_nn — shape functions of the neural-network family (see shape_nn.c), following TF 1.15's
 * shape functions and error texts.
 */
#ifndef TFC_OPS_SHAPE_NN_H
#define TFC_OPS_SHAPE_NN_H

typedef struct tfc_shape_ctx tfc_shape_ctx;

int tfc_shape_bias_add(tfc_shape_ctx *c);            /* BiasAdd, BiasAddV1 */
int tfc_shape_bias_add_grad(tfc_shape_ctx *c);       /* BiasAddGrad: vector of channels */
int tfc_shape_merge_both(tfc_shape_ctx *c);          /* *Grad(gradients, features): Merge */
int tfc_shape_softmax(tfc_shape_ctx *c);             /* unchanged, rank >= 1 */
int tfc_shape_softmax_xent(tfc_shape_ctx *c);        /* dense labels, may broadcast */
int tfc_shape_sparse_softmax_xent(tfc_shape_ctx *c); /* [batch, classes] and [batch] */
int tfc_shape_in_top_k(tfc_shape_ctx *c);            /* InTopK, InTopKV2 */
int tfc_shape_top_k(tfc_shape_ctx *c);
int tfc_shape_lrn(tfc_shape_ctx *c);                 /* LRN, LRNGrad: rank-4 inputs, merged */               /* TopKV2: last dim becomes k */
int tfc_shape_fused_batch_norm(tfc_shape_ctx *c);      /* FusedBatchNorm, V2, V3 */
int tfc_shape_fused_batch_norm_grad(tfc_shape_ctx *c); /* FusedBatchNormGrad, V2, V3 */

#endif
