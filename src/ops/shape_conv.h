/*
 * shape_conv — shape functions of the convolution and pooling family (see shape_conv.c), following TF 1.15's shape
 * functions and error texts.
 */
#ifndef TFC_OPS_SHAPE_CONV_H
#define TFC_OPS_SHAPE_CONV_H

typedef struct tfc_shape_ctx tfc_shape_ctx;

int tfc_shape_conv2d(tfc_shape_ctx *c);                 /* Conv2D: [N, OH, OW, OC] (or NCHW) */
int tfc_shape_conv2d_backprop_input(tfc_shape_ctx *c);  /* the const input_sizes, rank 4 */
int tfc_shape_conv2d_backprop_filter(tfc_shape_ctx *c); /* the const filter_sizes, rank 4 */
int tfc_shape_pool(tfc_shape_ctx *c);                   /* MaxPool, AvgPool */
int tfc_shape_pool_with_workspace(tfc_shape_ctx *c);    /* the pooled shape, twice */
int tfc_shape_max_pool_grad(tfc_shape_ctx *c);          /* orig_input's shape (rank 4) */
int tfc_shape_avg_pool_grad(tfc_shape_ctx *c);          /* the const orig_input_shape, rank 4 */
/* The 3-D family (ops_conv3d.def), after TF's Conv3DShape, Pool3DShape and the V2 backprops'. */
int tfc_shape_conv3d(tfc_shape_ctx *c);                 /* Conv3D: [N, OD, OH, OW, OC] (or NCDHW) */
int tfc_shape_conv3d_backprop_input(tfc_shape_ctx *c);  /* the const input_sizes, rank 5 */
int tfc_shape_conv3d_backprop_filter(tfc_shape_ctx *c); /* the const filter_sizes, rank 5 */
int tfc_shape_pool3d(tfc_shape_ctx *c);                 /* MaxPool3D, AvgPool3D */
int tfc_shape_max_pool3d_grad(tfc_shape_ctx *c);        /* orig_input's shape (rank 5) */
int tfc_shape_avg_pool3d_grad(tfc_shape_ctx *c);        /* the const orig_input_shape, rank 5 */

#endif
