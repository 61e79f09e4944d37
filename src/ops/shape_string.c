/*
 * shape_string — shape functions of the newer string ops (regex, split, hash, format) and of
 * the lookup-table ops, with TF's texts ("Shape must be rank 0 but is rank 1"). Unknown ranks
 * and dims stay unknown.
 */
#include <string.h>

#include "ops/opdef.h"
#include "ops/shape_fns.h"

static int rank_is(tfc_shape_ctx *c, const tfc_shape *s, int r) {
  if (s->rank >= 0 && s->rank != r) return tfc_shape_ctx_error(c, "Shape must be rank %d but is rank %d", r, s->rank);
  return TFC_OK;
}

int tfc_shape_unchanged_scalar_rest(tfc_shape_ctx *c) {
  for (int i = 1; i < c->n_inputs; i++) TFC_TRY(rank_is(c, &c->input_shapes[i], 0));
  c->output_shapes[0] = c->input_shapes[0];
  return TFC_OK;
}

int tfc_shape_string_format(tfc_shape_ctx *c) {
  const tfc_attr_value *t = tfc_shape_ctx_attr(c, "template"), *p = tfc_shape_ctx_attr(c, "placeholder");
  if (t && p && t->kind == TFC_ATTR_STRING && p->kind == TFC_ATTR_STRING && p->u.s.len) {
    int64_t n = 0;
    for (const char *q = t->u.s.data; (q = memmem(q, t->u.s.len - (size_t)(q - t->u.s.data), p->u.s.data, p->u.s.len));
         q += p->u.s.len)
      n++;
    if (n != c->n_inputs)
      return tfc_shape_ctx_error(c, "num placeholders in template and num inputs must match: %lld vs. %d", (long long)n,
                                 c->n_inputs);
  }
  c->output_shapes[0] = tfc_shape_make(NULL, 0);
  return TFC_OK;
}

int tfc_shape_print_v2(tfc_shape_ctx *c) { return rank_is(c, &c->input_shapes[0], 0); }

/* ---- ops_lookup.def ---- */

/* The table handle: a resource scalar (V2) or the string pair of a V1 ref edge. */
static int table_handle(tfc_shape_ctx *c) {
  return rank_is(c, &c->input_shapes[0], c->input_types[0] == TFC_DT_RESOURCE ? 0 : 1);
}

int tfc_shape_lookup_handle(tfc_shape_ctx *c) { return table_handle(c); }

int tfc_shape_lookup_ref_handle(tfc_shape_ctx *c) {
  c->output_shapes[0] = tfc_shape_vector(2);
  return TFC_OK;
}

int tfc_shape_lookup_find(tfc_shape_ctx *c) {
  TFC_TRY(table_handle(c));
  /* A scalar default means a table of scalars: one value per key. */
  c->output_shapes[0] = c->input_shapes[2].rank == 0 ? c->input_shapes[1] : tfc_shape_unknown();
  return TFC_OK;
}

int tfc_shape_lookup_import(tfc_shape_ctx *c) {
  TFC_TRY(table_handle(c));
  const tfc_shape *k = &c->input_shapes[1], *v = &c->input_shapes[2];
  TFC_TRY(rank_is(c, k, 1));
  if (k->rank == 1 && v->rank >= 1 && k->dims[0] >= 0 && v->dims[0] >= 0 && k->dims[0] != v->dims[0])
    return tfc_shape_ctx_error(c, "Dimensions must be equal, but are %lld and %lld", (long long)k->dims[0],
                               (long long)v->dims[0]);
  return TFC_OK;
}

int tfc_shape_lookup_export(tfc_shape_ctx *c) {
  TFC_TRY(table_handle(c));
  c->output_shapes[0] = tfc_shape_vector(-1);
  c->output_shapes[1] = tfc_shape_unknown();
  return TFC_OK;
}

int tfc_shape_lookup_size(tfc_shape_ctx *c) {
  TFC_TRY(table_handle(c));
  c->output_shapes[0] = tfc_shape_make(NULL, 0);
  return TFC_OK;
}

int tfc_shape_lookup_text_file(tfc_shape_ctx *c) {
  TFC_TRY(table_handle(c));
  return rank_is(c, &c->input_shapes[1], 0);
}

int tfc_shape_lookup_dense_table(tfc_shape_ctx *c) {
  for (int i = 0; i < 2; i++)
    if (c->input_shapes[i].rank > 1)
      return tfc_shape_ctx_error(c, "Shape must be at most rank 1 but is rank %d", c->input_shapes[i].rank);
  c->output_shapes[0] = tfc_shape_make(NULL, 0);
  return TFC_OK;
}

/* ---- ops_accumulator.def ---- */

/* TF's shape functions know nothing of the accumulator behind the handle: the step or
 * num_required must be a scalar, and what a take returns is unknown. (TF gives even
 * ResourceConditionalAccumulator's scalar handle the shape [2] of the ref forms; so do we.) */
int tfc_shape_accumulator_apply(tfc_shape_ctx *c) { return rank_is(c, &c->input_shapes[1], 0); }

int tfc_shape_accumulator_take(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, &c->input_shapes[1], 0));
  c->output_shapes[0] = tfc_shape_unknown();
  return TFC_OK;
}

int tfc_shape_accumulator_sparse_take(tfc_shape_ctx *c) {
  TFC_TRY(rank_is(c, &c->input_shapes[1], 0));
  for (int i = 0; i < 3; i++) c->output_shapes[i] = tfc_shape_unknown();
  return TFC_OK;
}
