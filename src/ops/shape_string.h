/* shape_string — shape functions of the string rows appended to ops_string.def (the regex ops,
 * the split, hash and format ops) and of ops_lookup.def's lookup tables (shape_string.c). */
#ifndef TFC_OPS_SHAPE_STRING_H
#define TFC_OPS_SHAPE_STRING_H

typedef struct tfc_shape_ctx tfc_shape_ctx;

int tfc_shape_unchanged_scalar_rest(tfc_shape_ctx *c); /* input 0's shape; every other input a scalar */

#endif
