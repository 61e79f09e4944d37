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

/* The stateless ops (TF's StatelessShape): seed rank 1 of length 2, then as tfc_shape_random. */
int tfc_shape_stateless_random(tfc_shape_ctx *c);
/* StatelessRandomUniformInt: minval and maxval scalars, then as tfc_shape_stateless_random. */
int tfc_shape_stateless_random_int(tfc_shape_ctx *c);
/* The V2 ops: key and counter rank 1, alg rank 0, key of length 1, then as tfc_shape_random. */
int tfc_shape_stateless_random_v2(tfc_shape_ctx *c);
/* StatelessRandomUniformIntV2: minval and maxval scalars, then as the V2 ops. */
int tfc_shape_stateless_random_int_v2(tfc_shape_ctx *c);
/* StatelessRandomGetKeyCounter[Alg]: seed as above; key [1], counter [2][, alg []]. */
int tfc_shape_stateless_key_counter(tfc_shape_ctx *c);

#endif
