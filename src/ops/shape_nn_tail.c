/*
 * shape_nn_tail — shape functions of the space <-> batch rearrangements (SpaceToBatchND,
 * BatchToSpaceND and the legacy 4-D SpaceToBatch / BatchToSpace), Einsum and ClipByValue.
 *
 * The rearrangements keep the input's rank and trailing dims; with const block shapes and
 * paddings / crops they compute the rest, otherwise those dims stay unknown. As TF's shape
 * functions, a const block shape must be positive and divide the padded spatial dims (and,
 * backwards, the batch), with TF's graph-time texts; the rest is the kernels' to check. Einsum's shape comes
 * from the parsed equation (tfc_einsum_parse, shared with the kernel), so the graph and the
 * kernel agree on every label's size and on the errors.
 */
#include "ops/shape_nn_tail.h"

#include <string.h>

#include "ops/einsum_spec.h"
#include "ops/opdef.h"

/* The const int vector / matrix in input i, or NULL. */
static const tfc_tensor *const_input(const tfc_shape_ctx *c, int i) {
  return tfc_shape_ctx_input_tensor(c, i);
}

/* Shared by the four ops: `to_batch` picks the direction; block_in < 0 means the legacy
 * form (block_size attr, rank 4); pads_in is the paddings / crops input. */
static int space_batch_shape(tfc_shape_ctx *c, int to_batch, int block_in, int pads_in) {
  const tfc_shape *in = &c->input_shapes[0];
  int64_t block[TFC_MAX_DIMS];
  int m = -1, block_const = 0;
  if (block_in < 0) {
    int64_t size = tfc_shape_ctx_attr_int(c, "block_size", 2);
    if (in->rank >= 0 && in->rank != 4) return tfc_shape_ctx_error(c, "Shape must be rank 4 but is rank %d", in->rank);
    m = 2, block_const = 1;
    block[0] = block[1] = size;
  } else {
    const tfc_shape *bs = &c->input_shapes[block_in];
    if (bs->rank >= 0 && bs->rank != 1) return tfc_shape_ctx_error(c, "Shape must be rank 1 but is rank %d", bs->rank);
    const tfc_tensor *b = const_input(c, block_in);
    if (b && b->ndims == 1 && b->n_elems < TFC_MAX_DIMS) {
      m = (int)b->n_elems, block_const = 1;
      for (int i = 0; i < m; i++) block[i] = tfc_tensor_get_i64(b, i);
    } else if (bs->rank == 1 && bs->dims[0] >= 0) {
      m = (int)bs->dims[0];
      for (int i = 0; i < m && i < TFC_MAX_DIMS; i++) block[i] = -1;
    }
  }
  const tfc_shape *ps = &c->input_shapes[pads_in];
  if (ps->rank >= 0 && ps->rank != 2) return tfc_shape_ctx_error(c, "Shape must be rank 2 but is rank %d", ps->rank);
  if (in->rank < 0) return TFC_OK;
  if (m >= 0 && in->rank < 1 + m)
    return tfc_shape_ctx_error(c, "Shape must be at least rank %d but is rank %d", 1 + m, in->rank);
  tfc_shape r = *in;
  if (m < 0) {
    for (int d = 0; d < r.rank; d++) r.dims[d] = -1;
    c->output_shapes[0] = r;
    return TFC_OK;
  }
  const tfc_tensor *p = const_input(c, pads_in);
  int have_pads = p && p->ndims == 2 && p->dims[0] == m && p->dims[1] == 2;
  /* TF's graph-time checks of const block shapes: positive, and dividing what they split. */
  for (int i = 0; i < m && block_const; i++)
    if (block[i] <= 0) return tfc_shape_ctx_error(c, "block_shape must be positive");
  int64_t prod = 1, batch = in->dims[0];
  for (int i = 0; i < m; i++) prod = block[i] > 0 && prod >= 0 ? prod * block[i] : -1;
  if (to_batch) {
    r.dims[0] = batch >= 0 && prod > 0 ? batch * prod : -1;
  } else {
    for (int i = 0; i < m && batch >= 0 && block[i] > 0; i++) {
      if (batch % block[i])
        return tfc_shape_ctx_error(c, "Dimension size must be evenly divisible by %lld but is %lld",
                                   (long long)block[i], (long long)batch);
      batch /= block[i];
    }
    r.dims[0] = prod > 0 ? batch : -1;
  }
  for (int i = 0; i < m; i++) {
    int64_t d = in->dims[1 + i], b = block[i], out = -1;
    if (d >= 0 && b > 0 && have_pads) {
      int64_t before = tfc_tensor_get_i64(p, 2 * i), after = tfc_tensor_get_i64(p, 2 * i + 1);
      if (before < 0 || after < 0) {
        out = -1; /* the kernel's "Paddings must be non-negative" / "Crops ..." */
      } else if (to_batch) {
        int64_t padded = d + before + after;
        if (padded % b)
          return tfc_shape_ctx_error(c, "Dimension size must be evenly divisible by %lld but is %lld", (long long)b,
                                     (long long)padded);
        out = padded / b;
      } else if (d * b - before - after >= 0) {
        out = d * b - before - after;
      }
    }
    r.dims[1 + i] = out;
  }
  c->output_shapes[0] = r;
  return TFC_OK;
}

int tfc_shape_space_to_batch_nd(tfc_shape_ctx *c) { return space_batch_shape(c, 1, 1, 2); }
int tfc_shape_batch_to_space_nd(tfc_shape_ctx *c) { return space_batch_shape(c, 0, 1, 2); }
int tfc_shape_space_to_batch(tfc_shape_ctx *c) { return space_batch_shape(c, 1, -1, 1); }
int tfc_shape_batch_to_space(tfc_shape_ctx *c) { return space_batch_shape(c, 0, -1, 1); }

/* ---- Einsum ---- */

int tfc_shape_einsum(tfc_shape_ctx *c) {
  const tfc_attr_value *eq = tfc_shape_ctx_attr(c, "equation");
  if (!eq || eq->kind != TFC_ATTR_STRING) return TFC_OK;
  const tfc_shape *shapes[TFC_EINSUM_MAX_OPS];
  for (int i = 0; i < c->n_inputs && i < TFC_EINSUM_MAX_OPS; i++) {
    if (c->input_shapes[i].rank < 0) return TFC_OK; /* unknown until the inputs are */
    shapes[i] = &c->input_shapes[i];
  }
  tfc_einsum_spec sp;
  tfc_status st;
  tfc_status_init(&st);
  if (tfc_einsum_parse(eq->u.s.data, shapes, c->n_inputs, 1, &sp, &st) != TFC_OK) {
    int rc = tfc_shape_ctx_error(c, "%s", tfc_status_msg(&st));
    tfc_status_fini(&st);
    return rc;
  }
  tfc_status_fini(&st);
  tfc_shape r = {.rank = sp.n_out};
  for (int i = 0; i < sp.n_out; i++) r.dims[i] = sp.size[sp.out[i]];
  c->output_shapes[0] = r;
  return TFC_OK;
}

/* ---- ClipByValue ---- */

int tfc_shape_clip_by_value(tfc_shape_ctx *c) {
  c->output_shapes[0] = c->input_shapes[0];
  return TFC_OK;
}
