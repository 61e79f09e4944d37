/*
 * shape_random — shape functions of the random family (see shape_random.c), following TF
 * 1.15's shape functions and error texts.
 */
#ifndef TFC_OPS_SHAPE_RANDOM_H
#define TFC_OPS_SHAPE_RANDOM_H

typedef struct tfc_shape_ctx tfc_shape_ctx;

/* TF's RandomShape: output 0 is the shape held by input 0 (a vector of dims). */
int tfc_shape_random(tfc_shape_ctx *c);
/* RandomUniformInt: minval and maxval must be rank 0, then as tfc_shape_random. */
int tfc_shape_random_uniform_int(tfc_shape_ctx *c);
/* Multinomial: logits a matrix, num_samples a scalar; [batch, num_samples]. */
int tfc_shape_multinomial(tfc_shape_ctx *c);

#endif
