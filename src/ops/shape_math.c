/* shape_math — shape functions of the math family (ops_math.def). */
#include "ops/opdef.h"

int tfc_shape_matmul(tfc_shape_ctx *c) {
  const tfc_shape *a = &c->input_shapes[0], *b = &c->input_shapes[1];
  int ta = tfc_shape_ctx_attr_bool(c, "transpose_a", 0);
  int tb = tfc_shape_ctx_attr_bool(c, "transpose_b", 0);
  if (a->rank >= 0 && a->rank != 2)
    return tfc_shape_ctx_error(c, "Shape must be rank 2 but is rank %d", a->rank);
  if (b->rank >= 0 && b->rank != 2)
    return tfc_shape_ctx_error(c, "Shape must be rank 2 but is rank %d", b->rank);
  int64_t m = a->rank == 2 ? a->dims[ta ? 1 : 0] : -1;
  int64_t ka = a->rank == 2 ? a->dims[ta ? 0 : 1] : -1;
  int64_t kb = b->rank == 2 ? b->dims[tb ? 1 : 0] : -1;
  int64_t n = b->rank == 2 ? b->dims[tb ? 0 : 1] : -1;
  if (ka >= 0 && kb >= 0 && ka != kb) {
    return tfc_shape_ctx_error(c, "Dimensions must be equal, but are %lld and %lld", (long long)ka,
                               (long long)kb);
  }
  tfc_shape r;
  r.rank = 2;
  r.dims[0] = m;
  r.dims[1] = n;
  c->output_shapes[0] = r;
  return TFC_OK;
}
