/* shape_tail — shape functions of the rows of ops_math_tail.def, ops_string.def, ops_array_tail.def
 * and ops_image.def (shape_tail.c). */
#ifndef TFC_OPS_SHAPE_TAIL_H
#define TFC_OPS_SHAPE_TAIL_H

typedef struct tfc_shape_ctx tfc_shape_ctx;

int tfc_shape_segment(tfc_shape_ctx *c);            /* [?] + data.shape[1:] (ids' length unchecked, as TF) */
int tfc_shape_diag(tfc_shape_ctx *c);               /* rank 1..3: shape + shape */
int tfc_shape_diag_part(tfc_shape_ctx *c);          /* even rank <= 6: the first half */
int tfc_shape_matrix_diag(tfc_shape_ctx *c);        /* shape + [last] */
int tfc_shape_matrix_diag_part(tfc_shape_ctx *c);   /* batch + [min(rows, cols)] */
int tfc_shape_matrix_set_diag(tfc_shape_ctx *c);    /* input's, checked against the diagonal */
int tfc_shape_matrix_band_part(tfc_shape_ctx *c);   /* input's; the bounds are scalars */
int tfc_shape_square_matrix(tfc_shape_ctx *c);      /* batch + [n, n] */
int tfc_shape_matrix_determinant(tfc_shape_ctx *c); /* batch */
int tfc_shape_matrix_solve(tfc_shape_ctx *c);       /* batch + [n, rhs columns] */

/* ops_string.def */
int tfc_shape_scalar_input(tfc_shape_ctx *c); /* input 0 a scalar; output 0 a scalar */
int tfc_shape_write_file(tfc_shape_ctx *c);   /* both inputs scalars */
int tfc_shape_substr(tfc_shape_ctx *c);       /* pos and len alike; input broadcast with pos */
int tfc_shape_string_split(tfc_shape_ctx *c); /* [?, 2], [?], [2] */
/* ops_array_tail.def */
int tfc_shape_unique(tfc_shape_ctx *c);     /* x a vector: y [?], idx like x, count [?] */
int tfc_shape_list_diff(tfc_shape_ctx *c);  /* vectors: [?], [?] */
int tfc_shape_scatter_nd(tfc_shape_ctx *c); /* the shape input's value */
int tfc_shape_bincount(tfc_shape_ctx *c);   /* size a scalar: [size] */
int tfc_shape_dense_bincount(tfc_shape_ctx *c); /* [size] or [rows, size] */
int tfc_shape_sparse_to_dense(tfc_shape_ctx *c); /* the output_shape input's value */
/* ops_image.def */
int tfc_shape_resize(tfc_shape_ctx *c); /* images rank 4, size [2]: [batch, h, w, channels] */
int tfc_shape_depthwise_conv2d(tfc_shape_ctx *c); /* Conv2D's, with in_channels * multiplier channels */

#endif
