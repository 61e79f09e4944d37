/*
 * grad_nn_tail — gradient builders of the space <-> batch rearrangements, Einsum, ClipByValue
 * and Tan, as TF's Python gradients build them:
 *   - SpaceToBatchND and BatchToSpaceND are each other's inverse (block_shape and the
 *     paddings / crops pass through; they get no gradient), likewise the legacy SpaceToBatch
 *     and BatchToSpace with their block_size;
 *   - Einsum: each operand's gradient is an Einsum of the output gradient with the other
 *     operand ("o,b->a" for operand a), reduced over broadcast ellipsis dims with
 *     BroadcastGradientArgs + Sum + Reshape; a label the operand sums alone comes back by
 *     ExpandDims + BroadcastTo. Equations whose operand takes a diagonal, or sums a label
 *     alone beside an ellipsis, are refused with UNIMPLEMENTED;
 *   - ClipByValue: the gradient passes where lo <= t <= hi; lo and hi get the rest, reduced to
 *     their shapes;
 *   - Tan: dy * (1 / cos(x))^2 (conjugated for complex x).
 */
#include <stdio.h>
#include <string.h>

#include "grad/grad_internal.h"
#include "ops/opdef.h"

/* ---- space <-> batch ---- */

static int inverse_of(tfc_grad_ctx *c, const char *type, int n_ins) {
  tfc_endpoint ins[3] = {c->dy[0], tfc_grad_in(c, 1), n_ins == 3 ? tfc_grad_in(c, 2) : tfc_grad_none()};
  tfc_grad_attr a[1];
  int n_a = 0;
  const tfc_attr_value *bs = tfc_node_attr(c->op, "block_size");
  if (bs) {
    a[0].name = "block_size";
    if (tfc_attr_value_copy(bs, &a[0].v, c->s) != TFC_OK) return c->s->code;
    n_a = 1;
  }
  c->dx[0] = tfc_grad_op(c, type, NULL, ins, n_ins, a, n_a);
  return c->s->code;
}

static int space_to_batch_nd_grad(tfc_grad_ctx *c) { return inverse_of(c, "BatchToSpaceND", 3); }
static int batch_to_space_nd_grad(tfc_grad_ctx *c) { return inverse_of(c, "SpaceToBatchND", 3); }
static int space_to_batch_grad(tfc_grad_ctx *c) { return inverse_of(c, "BatchToSpace", 2); }
static int batch_to_space_grad(tfc_grad_ctx *c) { return inverse_of(c, "SpaceToBatch", 2); }

/* ---- Einsum ---- */

#define EQ_MAX 160

/* 1 when every letter of `a` is distinct, an ellipsis in a appears in o too, and a has no
 * lone label (one in neither o nor b; b may be NULL) next to an ellipsis. */
static int expressible(const char *a, const char *o, const char *b) {
  int has_ell = strstr(a, "...") != NULL, lone = 0;
  if (has_ell && !strstr(o, "...")) return 0;
  for (const char *p = a; *p; p++) {
    if (*p == '.') continue;
    if (strchr(p + 1, *p)) return 0;
    lone |= !strchr(o, *p) && !(b && strchr(b, *p));
  }
  return !(lone && has_ell);
}

/* The gradient of operand `a` (its tensor `like`): Einsum(x, y) (y none: one operand) with
 * "<xs>,<ys>->a'", where a' is a without its lone labels; each lone label's axis comes back
 * through ExpandDims and BroadcastTo(Shape(like)). With an ellipsis in a, the result is
 * reduced to like's shape (its dims may have been broadcast). */
static tfc_endpoint operand_grad(tfc_grad_ctx *c, const char *ins_eq, const char *a, const char *o, const char *b,
                                 tfc_endpoint x, tfc_endpoint y, int n, tfc_endpoint like) {
  char kept[EQ_MAX], eq[3 * EQ_MAX + 8];
  int64_t lone_axes[EQ_MAX];
  int n_kept = 0, n_lone = 0, axis = 0;
  for (const char *p = a; *p; p++, axis++) {
    if (*p == '.') { /* an ellipsis: no lone label in a (expressible) */
      memcpy(kept + n_kept, "...", 3);
      n_kept += 3, p += 2;
      continue;
    }
    if (!strchr(o, *p) && !(b && strchr(b, *p))) lone_axes[n_lone++] = axis;
    else kept[n_kept++] = *p;
  }
  kept[n_kept] = 0;
  snprintf(eq, sizeof eq, "%s->%s", ins_eq, kept);
  tfc_grad_attr at[1] = {{.name = "equation"}};
  if (tfc_attr_string(eq, strlen(eq), &at[0].v, c->s) != TFC_OK) return tfc_grad_none();
  tfc_endpoint ins[2] = {x, y};
  tfc_node *e = tfc_grad_node(c, "Einsum", NULL, ins, n, 0, n, at, 1, NULL);
  if (!e) return tfc_grad_none();
  tfc_endpoint r = {e, 0};
  if (strstr(a, "...")) {
    tfc_grad_bcast bc;
    tfc_grad_bcast_args(c, like, r, &bc);
    return tfc_grad_bcast_reduce(c, r, bc.rx, bc.sx);
  }
  if (!n_lone) return r;
  for (int i = 0; i < n_lone; i++) {
    tfc_endpoint ed[2] = {r, tfc_grad_const_scalar(c, "axis", TFC_DT_INT32, (double)lone_axes[i], NULL)};
    r = tfc_grad_op(c, "ExpandDims", NULL, ed, 2, NULL, 0);
  }
  tfc_endpoint bt[2] = {r, tfc_grad_shape(c, like)};
  return tfc_grad_op(c, "BroadcastTo", NULL, bt, 2, NULL, 0);
}

static int einsum_grad(tfc_grad_ctx *c) {
  const tfc_attr_value *v = tfc_node_attr(c->op, "equation");
  if (!v || v->kind != TFC_ATTR_STRING || v->u.s.len >= EQ_MAX / 2)
    return tfc_status_set(c->s, TFC_UNIMPLEMENTED, "Einsum gradient: no usable equation");
  char buf[EQ_MAX], ins_eq[2 * EQ_MAX + 4]; /* ins_eq: two parts of buf and a comma */
  snprintf(buf, sizeof buf, "%s", v->u.s.data);
  char *arrow = strstr(buf, "->");
  if (!arrow) return tfc_status_set(c->s, TFC_INVALID_ARGUMENT, "Einsum gradient: no '->' in %s", v->u.s.data);
  *arrow = 0;
  const char *o = arrow + 2, *a = buf;
  char *comma = strchr(buf, ',');
  const char *b = NULL;
  if (comma) *comma = 0, b = comma + 1;
  if (!expressible(a, o, b) || (b && !expressible(b, o, a)))
    return tfc_status_set(c->s, TFC_UNIMPLEMENTED,
                          "Einsum gradient for equation %s: an operand takes a diagonal, or sums a label alone "
                          "beside an ellipsis",
                          v->u.s.data);
  tfc_endpoint x = tfc_grad_in(c, 0), g = c->dy[0];
  if (!b) {
    c->dx[0] = operand_grad(c, o, a, o, NULL, g, tfc_grad_none(), 1, x);
    return c->s->code;
  }
  tfc_endpoint y = tfc_grad_in(c, 1);
  snprintf(ins_eq, sizeof ins_eq, "%s,%s", o, b);
  c->dx[0] = operand_grad(c, ins_eq, a, o, b, g, y, 2, x);
  snprintf(ins_eq, sizeof ins_eq, "%s,%s", a, o);
  c->dx[1] = operand_grad(c, ins_eq, b, o, a, x, g, 2, y);
  return c->s->code;
}

/* ---- ClipByValue, Tan ---- */

static int clip_by_value_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0), lo = tfc_grad_in(c, 1), hi = tfc_grad_in(c, 2), g = c->dy[0];
  tfc_endpoint zeros = tfc_grad_unary(c, "ZerosLike", "zeros_like", g);
  tfc_endpoint below = tfc_grad_binary(c, "Less", NULL, x, lo), above = tfc_grad_binary(c, "Greater", NULL, x, hi);
  tfc_endpoint outside = tfc_grad_binary(c, "LogicalOr", NULL, below, above);
  tfc_endpoint s0[3] = {outside, zeros, g}, s1[3] = {below, g, zeros}, s2[3] = {above, g, zeros};
  c->dx[0] = tfc_grad_op(c, "Select", NULL, s0, 3, NULL, 0);
  tfc_grad_bcast bl, bh;
  tfc_grad_bcast_args(c, x, lo, &bl);
  c->dx[1] = tfc_grad_bcast_reduce(c, tfc_grad_op(c, "Select", NULL, s1, 3, NULL, 0), bl.ry, bl.sy);
  tfc_grad_bcast_args(c, x, hi, &bh);
  c->dx[2] = tfc_grad_bcast_reduce(c, tfc_grad_op(c, "Select", NULL, s2, 3, NULL, 0), bh.ry, bh.sy);
  return c->s->code;
}

static int tan_grad(tfc_grad_ctx *c) {
  tfc_endpoint x = tfc_grad_in(c, 0);
  tfc_node *after = c->dy[0].node; /* computed once the gradient arrives, as TF's control dependency */
  tfc_endpoint cs = {tfc_grad_node(c, "Cos", NULL, &x, 1, -1, 0, NULL, 0, after), 0};
  tfc_endpoint sec = tfc_grad_unary(c, "Reciprocal", NULL, cs);
  tfc_endpoint sec2 = tfc_grad_unary(c, "Square", NULL, sec);
  int dt = tfc_grad_dtype(sec2);
  if (dt == TFC_DT_COMPLEX64 || dt == TFC_DT_COMPLEX128) sec2 = tfc_grad_unary(c, "Conj", NULL, sec2);
  c->dx[0] = tfc_grad_binary(c, "Mul", "mul", c->dy[0], sec2);
  return c->s->code;
}

const tfc_grad_entry tfc_grad_nn_tail_entries[] = {
    {"SpaceToBatchND", space_to_batch_nd_grad}, {"BatchToSpaceND", batch_to_space_nd_grad},
    {"SpaceToBatch", space_to_batch_grad},      {"BatchToSpace", batch_to_space_grad},
    {"Einsum", einsum_grad},                    {"ClipByValue", clip_by_value_grad},
    {"Tan", tan_grad},                          {NULL, NULL}};
