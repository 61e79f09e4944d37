/*
 * ops_api — include/tensorflow/c/ops.h: op definitions built and registered at run time, and
 * the shape-inference context their shape functions see.
 *
 * A builder collects the spec texts; TF_RegisterOpDefinition joins them into the op table's
 * row syntax, parses them with the table's own parser (tfc_opdef_parse) and hands the op def
 * to the runtime registry (ops/user_ops.h). From then on every lookup of the name finds it.
 * A user op's shape_fn is the bridge below, which calls the user's function with the node's
 * tfc_shape_ctx cast to TF_ShapeInferenceContext, and turns its status into TF's shape error
 * ("<msg> for 'node' (op: 'Op') with input shapes: ...").
 *
 * Registration errors inside TF_LoadLibrary's load are also reported to the load
 * (capi/library.c) so that it fails with the first of them, as TF's loader does.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/strbuf.h"
#include "capi/capi_internal.h"
#include "capi/library.h"
#include "ops/opdef.h"
#include "ops/user_ops.h"
#include "tensorflow/c/ops.h"

struct TF_OpDefinitionBuilder {
  char *name;
  tfc_strbuf ins, outs, attrs;
  int flags;
  void (*shape_fn)(TF_ShapeInferenceContext *, TF_Status *);
};

struct TF_ShapeHandle {
  tfc_shape sh;
};

struct TF_DimensionHandle {
  int64_t v; /* -1: unknown */
};

static tfc_shape_ctx *ctx_of(TF_ShapeInferenceContext *c) { return (tfc_shape_ctx *)c; }

TFC_EXPORT TF_OpDefinitionBuilder *TF_NewOpDefinitionBuilder(const char *op_name) {
  TF_OpDefinitionBuilder *b = calloc(1, sizeof *b);
  if (!b) return NULL;
  if (!(b->name = tfc_strdup(op_name ? op_name : ""))) {
    free(b);
    return NULL;
  }
  tfc_strbuf_init(&b->ins);
  tfc_strbuf_init(&b->outs);
  tfc_strbuf_init(&b->attrs);
  return b;
}

TFC_EXPORT void TF_DeleteOpDefinitionBuilder(TF_OpDefinitionBuilder *b) {
  if (!b) return;
  free(b->name);
  tfc_strbuf_fini(&b->ins);
  tfc_strbuf_fini(&b->outs);
  tfc_strbuf_fini(&b->attrs);
  free(b);
}

static void add_spec(tfc_strbuf *to, const char *sep, const char *spec) {
  if (to->len) tfc_strbuf_puts(to, sep);
  tfc_strbuf_puts(to, spec ? spec : "");
}

/* TF's named type groups (TF 1.15's lists, in its order), which attr specs may use alone
 * ("T: numbertype", "list(realnumbertype)") or inside a union ("{numbertype, string}"). */
static const struct {
  const char *name, *types;
} type_groups[] = {
    {"numbertype", "float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, qint32, bfloat16, "
                   "uint16, complex128, half, uint32, uint64"},
    {"realnumbertype", "float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64"},
    {"quantizedtype", "qint8, quint8, qint32, qint16, quint16"},
};

/* Appends spec to out with the type groups of its type part spelled out. */
static void expand_type_groups(const char *spec, tfc_strbuf *out) {
  const char *colon = strchr(spec, ':');
  if (!colon) {
    tfc_strbuf_puts(out, spec);
    return;
  }
  tfc_strbuf_append(out, spec, (size_t)(colon - spec));
  char prev = ':';
  for (const char *p = colon; *p;) {
    int hit = -1;
    if (isalpha((unsigned char)*p) && !isalnum((unsigned char)p[-1]) && p[-1] != '_' && p[-1] != '\'')
      for (int g = 0; g < (int)(sizeof type_groups / sizeof type_groups[0]); g++) {
        size_t n = strlen(type_groups[g].name);
        if (!strncmp(p, type_groups[g].name, n) && !isalnum((unsigned char)p[n]) && p[n] != '_') hit = g;
      }
    if (hit < 0) {
      if (!isspace((unsigned char)*p)) prev = *p;
      tfc_strbuf_append(out, p++, 1);
      continue;
    }
    int in_union = prev == '{' || prev == ',';
    tfc_strbuf_printf(out, in_union ? "%s" : "{%s}", type_groups[hit].types);
    p += strlen(type_groups[hit].name);
    prev = 'x';
  }
}

TFC_EXPORT void TF_OpDefinitionBuilderAddAttr(TF_OpDefinitionBuilder *b, const char *spec) {
  if (b->attrs.len) tfc_strbuf_puts(&b->attrs, "; ");
  expand_type_groups(spec ? spec : "", &b->attrs);
}
TFC_EXPORT void TF_OpDefinitionBuilderAddInput(TF_OpDefinitionBuilder *b, const char *spec) {
  add_spec(&b->ins, ", ", spec);
}
TFC_EXPORT void TF_OpDefinitionBuilderAddOutput(TF_OpDefinitionBuilder *b, const char *spec) {
  add_spec(&b->outs, ", ", spec);
}

static void set_flag(TF_OpDefinitionBuilder *b, int flag, bool on) {
  b->flags = on ? b->flags | flag : b->flags & ~flag;
}
TFC_EXPORT void TF_OpDefinitionBuilderSetIsCommutative(TF_OpDefinitionBuilder *b, bool v) {
  set_flag(b, TFC_OPF_COMMUTATIVE, v);
}
TFC_EXPORT void TF_OpDefinitionBuilderSetIsAggregate(TF_OpDefinitionBuilder *b, bool v) {
  set_flag(b, TFC_OPF_AGGREGATE, v);
}
TFC_EXPORT void TF_OpDefinitionBuilderSetIsStateful(TF_OpDefinitionBuilder *b, bool v) {
  set_flag(b, TFC_OPF_STATEFUL, v);
}
TFC_EXPORT void TF_OpDefinitionBuilderSetAllowsUninitializedInput(TF_OpDefinitionBuilder *b, bool v) {
  set_flag(b, TFC_OPF_ALLOW_UNINIT, v);
}

/* Op defs in tfc carry no OpDeprecation: accepted and not recorded (docs/COMPAT.md). */
TFC_EXPORT void TF_OpDefinitionBuilderDeprecated(TF_OpDefinitionBuilder *b, int version, const char *explanation) {
  (void)b;
  (void)version;
  (void)explanation;
}

TFC_EXPORT void TF_OpDefinitionBuilderSetShapeInferenceFunction(TF_OpDefinitionBuilder *b,
                                                                void (*fn)(TF_ShapeInferenceContext *, TF_Status *)) {
  b->shape_fn = fn;
}

/* What the registry keeps for a user op's shape function (a function pointer may not travel
 * as a void *). Lives as long as the op: for the process. */
typedef struct shape_data {
  void (*fn)(TF_ShapeInferenceContext *, TF_Status *);
} shape_data;

/* The shape function of every user op that has one. */
static int user_shape_bridge(tfc_shape_ctx *c) {
  const shape_data *d = tfc_user_op_shape_data(c->op);
  if (!d) return TFC_OK;
  void (*fn)(TF_ShapeInferenceContext *, TF_Status *) = d->fn;
  TF_Status st;
  tfc_status_init(&st.s);
  fn((TF_ShapeInferenceContext *)c, &st);
  int r = TFC_OK;
  if (!tfc_status_ok(&st.s)) {
    int code = st.s.code;
    tfc_shape_ctx_error(c, "%s", tfc_status_msg(&st.s));
    c->status->code = code; /* the user's code, with TF's shape-error text */
    r = code;
  }
  tfc_status_fini(&st.s);
  return r;
}

TFC_EXPORT void TF_RegisterOpDefinition(TF_OpDefinitionBuilder *b, TF_Status *status) {
  tfc_status scratch;
  tfc_status *s = tfc_capi_status_or(status, &scratch);
  if (!b) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_RegisterOpDefinition: builder is NULL");
  } else if (!tfc_strbuf_ok(&b->ins) || !tfc_strbuf_ok(&b->outs) || !tfc_strbuf_ok(&b->attrs)) {
    TFC_OOM(s);
  } else {
    shape_data *d = NULL;
    if (b->shape_fn && (d = malloc(sizeof *d))) d->fn = b->shape_fn;
    tfc_opdef *op = b->shape_fn && !d ? NULL
                                      : tfc_opdef_parse(b->name, tfc_strbuf_str(&b->ins), tfc_strbuf_str(&b->outs),
                                                        tfc_strbuf_str(&b->attrs), b->flags,
                                                        d ? user_shape_bridge : NULL, s);
    if (b->shape_fn && !d) TFC_OOM(s);
    if (!op || tfc_user_op_register(op, d, s) != TFC_OK) {
      tfc_opdef_free(op);
      free(d);
    }
  }
  if (!tfc_status_ok(s)) tfc_capi_library_note_error(s);
  TF_DeleteOpDefinitionBuilder(b);
  tfc_status_fini(&scratch);
}

/* ---- shape inference context ---- */

TFC_EXPORT int64_t TF_ShapeInferenceContextNumInputs(TF_ShapeInferenceContext *ctx) {
  return ctx_of(ctx)->n_inputs;
}

TFC_EXPORT TF_ShapeHandle *TF_NewShapeHandle(void) {
  TF_ShapeHandle *h = malloc(sizeof *h);
  if (h) h->sh = tfc_shape_unknown();
  return h;
}

TFC_EXPORT void TF_DeleteShapeHandle(TF_ShapeHandle *h) { free(h); }

TFC_EXPORT TF_DimensionHandle *TF_NewDimensionHandle(void) {
  TF_DimensionHandle *h = malloc(sizeof *h);
  if (h) h->v = -1;
  return h;
}

TFC_EXPORT void TF_DeleteDimensionHandle(TF_DimensionHandle *h) { free(h); }

TFC_EXPORT void TF_ShapeInferenceContextGetInput(TF_ShapeInferenceContext *ctx, int i, TF_ShapeHandle *handle,
                                                 TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_shape_ctx *c = ctx_of(ctx);
  if (i < 0 || i >= c->n_inputs) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "input index out of range");
    return;
  }
  handle->sh = c->input_shapes[i];
}

TFC_EXPORT void TF_ShapeInferenceContextSetOutput(TF_ShapeInferenceContext *ctx, int i, TF_ShapeHandle *handle,
                                                  TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_shape_ctx *c = ctx_of(ctx);
  if (i < 0 || i >= c->n_outputs) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "output index out of range");
    return;
  }
  c->output_shapes[i] = handle->sh;
}

TFC_EXPORT TF_ShapeHandle *TF_ShapeInferenceContextVectorFromSize(TF_ShapeInferenceContext *ctx, size_t size) {
  (void)ctx;
  TF_ShapeHandle *h = TF_NewShapeHandle();
  if (h) h->sh = tfc_shape_vector((int64_t)size);
  return h;
}

TFC_EXPORT void TF_ShapeInferenceContext_GetAttrType(TF_ShapeInferenceContext *ctx, const char *attr_name,
                                                     TF_DataType *val, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  tfc_shape_ctx *c = ctx_of(ctx);
  const tfc_attr_value *v = tfc_capi_typed_attr(c->attrs, c->n_attrs, c->node_name, attr_name, TFC_ATTR_TYPE, 0, s);
  if (v) *val = (TF_DataType)v->u.type;
}

TFC_EXPORT int64_t TF_ShapeInferenceContextRank(TF_ShapeInferenceContext *ctx, TF_ShapeHandle *handle) {
  (void)ctx;
  return handle->sh.rank;
}

TFC_EXPORT int TF_ShapeInferenceContextRankKnown(TF_ShapeInferenceContext *ctx, TF_ShapeHandle *handle) {
  (void)ctx;
  return handle->sh.rank >= 0;
}

/* TF's WithRank family: cmp 0 exact, 1 at least, -1 at most. */
static void with_rank(TF_ShapeHandle *handle, int64_t rank, int cmp, TF_ShapeHandle *result, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  const tfc_shape *sh = &handle->sh;
  if (rank > TFC_MAX_DIMS) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Rank cannot exceed %d; was %lld", TFC_MAX_DIMS, (long long)rank);
    return;
  }
  if (sh->rank < 0) {
    result->sh = tfc_shape_unknown();
    if (cmp == 0) {
      result->sh.rank = (int)rank;
      for (int i = 0; i < (int)rank; i++) result->sh.dims[i] = -1;
    }
    return;
  }
  int ok = cmp == 0 ? sh->rank == rank : cmp > 0 ? sh->rank >= rank : sh->rank <= rank;
  if (!ok) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape must be %srank %lld but is rank %d",
                   cmp == 0 ? "" : cmp > 0 ? "at least " : "at most ", (long long)rank, sh->rank);
    return;
  }
  result->sh = *sh;
}

TFC_EXPORT void TF_ShapeInferenceContextWithRank(TF_ShapeInferenceContext *ctx, TF_ShapeHandle *handle,
                                                 int64_t rank, TF_ShapeHandle *result, TF_Status *status) {
  (void)ctx;
  with_rank(handle, rank, 0, result, status);
}

TFC_EXPORT void TF_ShapeInferenceContextWithRankAtLeast(TF_ShapeInferenceContext *ctx, TF_ShapeHandle *handle,
                                                        int64_t rank, TF_ShapeHandle *result, TF_Status *status) {
  (void)ctx;
  with_rank(handle, rank, 1, result, status);
}

TFC_EXPORT void TF_ShapeInferenceContextWithRankAtMost(TF_ShapeInferenceContext *ctx, TF_ShapeHandle *handle,
                                                       int64_t rank, TF_ShapeHandle *result, TF_Status *status) {
  (void)ctx;
  with_rank(handle, rank, -1, result, status);
}

TFC_EXPORT void TF_ShapeInferenceContextDim(TF_ShapeInferenceContext *ctx, TF_ShapeHandle *shape_handle, int64_t i,
                                            TF_DimensionHandle *result) {
  (void)ctx;
  const tfc_shape *sh = &shape_handle->sh;
  if (i < 0) i += sh->rank;
  result->v = sh->rank >= 0 && i >= 0 && i < sh->rank ? sh->dims[i] : -1;
}

TFC_EXPORT void TF_ShapeInferenceContextSubshape(TF_ShapeInferenceContext *ctx, TF_ShapeHandle *shape_handle,
                                                 int64_t start, int64_t end, TF_ShapeHandle *result,
                                                 TF_Status *status) {
  (void)ctx;
  tfc_status *s = tfc_capi_status(status);
  const tfc_shape sh = shape_handle->sh;
  if (sh.rank < 0) {
    result->sh = tfc_shape_unknown();
    return;
  }
  int64_t r = sh.rank;
  if (start > r) start = r;
  if (end > r) end = r;
  if (start < 0) start += r;
  if (end < 0) end += r;
  if (start < 0 || end < 0 || start > end) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Subshape [%lld:%lld] is out of bounds for a shape of rank %lld",
                   (long long)start, (long long)end, (long long)r);
    return;
  }
  result->sh = tfc_shape_make(sh.dims + start, (int)(end - start));
}

TFC_EXPORT void TF_ShapeInferenceContextSetUnknownShape(TF_ShapeInferenceContext *ctx, TF_Status *status) {
  tfc_capi_status(status);
  tfc_shape_ctx *c = ctx_of(ctx);
  for (int i = 0; i < c->n_outputs; i++) c->output_shapes[i] = tfc_shape_unknown();
}

TFC_EXPORT int TF_DimensionHandleValueKnown(TF_DimensionHandle *h) { return h->v >= 0; }

TFC_EXPORT int64_t TF_DimensionHandleValue(TF_DimensionHandle *h) { return h->v; }

TFC_EXPORT void TF_ShapeInferenceContextConcatenateShapes(TF_ShapeInferenceContext *ctx, TF_ShapeHandle *first,
                                                          TF_ShapeHandle *second, TF_ShapeHandle *result,
                                                          TF_Status *status) {
  (void)ctx;
  tfc_status *s = tfc_capi_status(status);
  const tfc_shape a = first->sh, b = second->sh;
  if (a.rank < 0 || b.rank < 0) {
    result->sh = tfc_shape_unknown();
    return;
  }
  if (a.rank + b.rank > TFC_MAX_DIMS) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Rank cannot exceed %d; was %d", TFC_MAX_DIMS, a.rank + b.rank);
    return;
  }
  tfc_shape out = a;
  for (int i = 0; i < b.rank; i++) out.dims[a.rank + i] = b.dims[i];
  out.rank = a.rank + b.rank;
  result->sh = out;
}
