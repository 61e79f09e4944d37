/* shape_string — shape functions of the string rows appended to ops_string.def (the regex ops,
 * the split, hash and format ops) and of ops_lookup.def's lookup tables and ops_accumulator.def's accumulators (shape_string.c). */
#ifndef TFC_OPS_SHAPE_STRING_H
#define TFC_OPS_SHAPE_STRING_H

typedef struct tfc_shape_ctx tfc_shape_ctx;

int tfc_shape_unchanged_scalar_rest(tfc_shape_ctx *c); /* input 0's shape; every other input a scalar */

int tfc_shape_string_format(tfc_shape_ctx *c); /* a scalar; placeholders as many as inputs */
int tfc_shape_print_v2(tfc_shape_ctx *c);      /* input a scalar */
/* ops_lookup.def */
int tfc_shape_lookup_handle(tfc_shape_ctx *c);     /* the handle a resource scalar or a V1 [2] */
int tfc_shape_lookup_ref_handle(tfc_shape_ctx *c); /* V1 table ops: [2] */
int tfc_shape_lookup_find(tfc_shape_ctx *c);       /* keys' shape when the default is a scalar */
int tfc_shape_lookup_import(tfc_shape_ctx *c);     /* keys a vector as long as values */
int tfc_shape_lookup_export(tfc_shape_ctx *c);     /* [?], unknown */
int tfc_shape_lookup_size(tfc_shape_ctx *c);       /* a scalar */
int tfc_shape_lookup_dense_table(tfc_shape_ctx *c); /* the keys at most rank 1; a scalar */
int tfc_shape_lookup_text_file(tfc_shape_ctx *c);  /* filename a scalar */
/* ops_accumulator.def (the accumulator ops reuse tfc_shape_lookup_ref_handle for their [2]) */
int tfc_shape_accumulator_apply(tfc_shape_ctx *c);       /* input 1 (the step) a scalar */
int tfc_shape_accumulator_take(tfc_shape_ctx *c);        /* num_required a scalar; unknown */
int tfc_shape_accumulator_sparse_take(tfc_shape_ctx *c); /* num_required a scalar; all unknown */

#endif
