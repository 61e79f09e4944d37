/*
 * tensor_codec — see tensor_codec.h.
 */
#include "proto/tensor_codec.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t max_bytes = (size_t)16 << 30;

void tfc_tensor_proto_set_max_bytes(size_t n) { max_bytes = n; }
size_t tfc_tensor_proto_max_bytes(void) { return max_bytes; }

/* ---------------- shapes ---------------- */

int tfc_shape_from_proto(const Tensorflow__TensorShapeProto *p, tfc_shape *out, tfc_status *s) {
  tfc_shape sh;
  sh.rank = 0;
  if (!p) {
    *out = sh;
    return TFC_OK;
  }
  if (p->unknown_rank) {
    if (p->n_dim)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "Unknown-rank TensorShapeProto has %zu dims (it must have none)", p->n_dim);
    *out = tfc_shape_unknown();
    return TFC_OK;
  }
  if (p->n_dim > TFC_MAX_DIMS)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape has %zu dimensions; at most %d are supported",
                          p->n_dim, TFC_MAX_DIMS);
  sh.rank = (int)p->n_dim;
  for (size_t i = 0; i < p->n_dim; i++) {
    int64_t d = p->dim[i]->size;
    if (d < -1)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "Shape has dimension %zu of size %lld; sizes must be >= -1 (-1 means unknown)",
                            i, (long long)d);
    sh.dims[i] = d;
  }
  *out = sh;
  return TFC_OK;
}

int tfc_shape_to_proto(const tfc_shape *shape, tfc_pb_arena *a, Tensorflow__TensorShapeProto *out,
                       tfc_status *s) {
  tensorflow__tensor_shape_proto__init(out);
  if (shape->rank < 0) {
    out->unknown_rank = 1;
    return TFC_OK;
  }
  if (shape->rank == 0) return TFC_OK;
  out->dim = tfc_pb_alloc(a, sizeof *out->dim * (size_t)shape->rank);
  Tensorflow__TensorShapeProto__Dim *dims = tfc_pb_alloc(a, sizeof *dims * (size_t)shape->rank);
  if (!out->dim || !dims) return tfc_pb_arena_status(a, s);
  out->n_dim = (size_t)shape->rank;
  for (int i = 0; i < shape->rank; i++) {
    tensorflow__tensor_shape_proto__dim__init(&dims[i]);
    dims[i].size = shape->dims[i];
    out->dim[i] = &dims[i];
  }
  return TFC_OK;
}

int tfc_shape_from_proto_bytes(const void *data, size_t len, tfc_shape *out, tfc_status *s) {
  ProtobufCMessage *m =
      tfc_pb_unpack(&tensorflow__tensor_shape_proto__descriptor, data, len, "TensorShapeProto", s);
  if (!m) return s->code;
  int r = tfc_shape_from_proto((Tensorflow__TensorShapeProto *)m, out, s);
  protobuf_c_message_free_unpacked(m, NULL);
  return r;
}

int tfc_shape_to_proto_bytes(const tfc_shape *shape, void **out, size_t *out_len, tfc_status *s) {
  tfc_pb_arena a;
  tfc_pb_arena_init(&a);
  Tensorflow__TensorShapeProto p;
  int r = tfc_shape_to_proto(shape, &a, &p, s);
  if (r == TFC_OK) r = tfc_pb_pack(&p.base, out, out_len, s);
  tfc_pb_arena_fini(&a);
  return r;
}

/* ---------------- tensors: decode ---------------- */

/* The typed value list a dtype reads: element count (pairs for complex) and a reader. */
typedef struct val_field {
  size_t n;       /* number of values in the list (for complex: scalars, i.e. 2 per element) */
  int per_elem;   /* list values per element */
  const char *name;
} val_field;

static val_field field_for(const Tensorflow__TensorProto *p, int dtype) {
  val_field f = {0, 1, "?"};
  switch (dtype) {
    case TFC_DT_FLOAT: f.n = p->n_float_val; f.name = "float_val"; break;
    case TFC_DT_DOUBLE: f.n = p->n_double_val; f.name = "double_val"; break;
    case TFC_DT_INT32:
    case TFC_DT_INT16:
    case TFC_DT_INT8:
    case TFC_DT_UINT8:
    case TFC_DT_UINT16:
    case TFC_DT_QINT8:
    case TFC_DT_QUINT8:
    case TFC_DT_QINT16:
    case TFC_DT_QUINT16:
    case TFC_DT_QINT32: f.n = p->n_int_val; f.name = "int_val"; break;
    case TFC_DT_INT64: f.n = p->n_int64_val; f.name = "int64_val"; break;
    case TFC_DT_BOOL: f.n = p->n_bool_val; f.name = "bool_val"; break;
    case TFC_DT_HALF:
    case TFC_DT_BFLOAT16: f.n = p->n_half_val; f.name = "half_val"; break;
    case TFC_DT_UINT32: f.n = p->n_uint32_val; f.name = "uint32_val"; break;
    case TFC_DT_UINT64: f.n = p->n_uint64_val; f.name = "uint64_val"; break;
    case TFC_DT_COMPLEX64: f.n = p->n_scomplex_val; f.per_elem = 2; f.name = "scomplex_val"; break;
    case TFC_DT_COMPLEX128: f.n = p->n_dcomplex_val; f.per_elem = 2; f.name = "dcomplex_val"; break;
    case TFC_DT_STRING: f.n = p->n_string_val; f.name = "string_val"; break;
    default: break;
  }
  return f;
}

/* Stores list value i (already known to exist) as element `dst` of the tensor data. */
static void store_value(const Tensorflow__TensorProto *p, int dtype, size_t i, void *data, int64_t dst) {
  switch (dtype) {
    case TFC_DT_FLOAT: ((float *)data)[dst] = p->float_val[i]; break;
    case TFC_DT_DOUBLE: ((double *)data)[dst] = p->double_val[i]; break;
    case TFC_DT_INT32:
    case TFC_DT_QINT32: ((int32_t *)data)[dst] = p->int_val[i]; break;
    case TFC_DT_INT16:
    case TFC_DT_QINT16: ((int16_t *)data)[dst] = (int16_t)p->int_val[i]; break;
    case TFC_DT_UINT16:
    case TFC_DT_QUINT16: ((uint16_t *)data)[dst] = (uint16_t)p->int_val[i]; break;
    case TFC_DT_INT8:
    case TFC_DT_QINT8: ((int8_t *)data)[dst] = (int8_t)p->int_val[i]; break;
    case TFC_DT_UINT8:
    case TFC_DT_QUINT8: ((uint8_t *)data)[dst] = (uint8_t)p->int_val[i]; break;
    case TFC_DT_INT64: ((int64_t *)data)[dst] = p->int64_val[i]; break;
    case TFC_DT_BOOL: ((uint8_t *)data)[dst] = p->bool_val[i] != 0; break;
    case TFC_DT_HALF:
    case TFC_DT_BFLOAT16: ((uint16_t *)data)[dst] = (uint16_t)p->half_val[i]; break;
    case TFC_DT_UINT32: ((uint32_t *)data)[dst] = p->uint32_val[i]; break;
    case TFC_DT_UINT64: ((uint64_t *)data)[dst] = p->uint64_val[i]; break;
    case TFC_DT_COMPLEX64:
      ((float *)data)[2 * dst] = p->scomplex_val[2 * i];
      ((float *)data)[2 * dst + 1] = p->scomplex_val[2 * i + 1];
      break;
    case TFC_DT_COMPLEX128:
      ((double *)data)[2 * dst] = p->dcomplex_val[2 * i];
      ((double *)data)[2 * dst + 1] = p->dcomplex_val[2 * i + 1];
      break;
    default: break;
  }
}

int tfc_tensor_from_proto(const Tensorflow__TensorProto *p, tfc_tensor **out, tfc_status *s) {
  *out = NULL;
  int dtype = (int)p->dtype;
  if (dtype == TFC_DT_RESOURCE || dtype == TFC_DT_VARIANT)
    return tfc_status_set(s, TFC_UNIMPLEMENTED, "TensorProto of dtype %s is not supported",
                          tfc_dtype_name(dtype));
  if (!tfc_dtype_valid(dtype))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "TensorProto has invalid dtype %d", dtype);
  tfc_shape sh;
  TFC_TRY(tfc_shape_from_proto(p->tensor_shape, &sh, s));
  char sbuf[TFC_SHAPE_STR_MAX];
  if (!tfc_shape_fully_defined(&sh))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "TensorProto has a partially known shape %s",
                          tfc_shape_str(&sh, sbuf, sizeof sbuf));
  int64_t n = tfc_dims_num_elements(sh.dims, sh.rank);
  size_t es = tfc_dtype_size(dtype);
  if (n < 0 || (uint64_t)n > max_bytes / es)
    return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED,
                          "TensorProto of dtype %s and shape %s is larger than the limit of %zu bytes",
                          tfc_dtype_name(dtype), tfc_shape_str(&sh, sbuf, sizeof sbuf), max_bytes);

  /* Raw content. */
  if (p->tensor_content.len > 0) {
    if (dtype == TFC_DT_STRING)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "TensorProto of dtype string must use string_val, not tensor_content");
    size_t want = (size_t)n * es;
    if (p->tensor_content.len != want)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "TensorProto tensor_content has %zu bytes, but dtype %s and shape %s need %zu",
                            p->tensor_content.len, tfc_dtype_name(dtype),
                            tfc_shape_str(&sh, sbuf, sizeof sbuf), want);
    tfc_tensor *t = tfc_tensor_new(dtype, sh.dims, sh.rank, s);
    if (!t) return s->code;
    memcpy(t->data, p->tensor_content.data, want);
    *out = t;
    return TFC_OK;
  }

  /* Typed values. */
  val_field f = field_for(p, dtype);
  if (f.n % (size_t)f.per_elem)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "TensorProto %s has %zu values, which is not a whole number of %s elements",
                          f.name, f.n, tfc_dtype_name(dtype));
  size_t m = f.n / (size_t)f.per_elem;
  /* More values than elements: TF's FromProtoField takes the first n (TF writes
   * tf.constant("", shape=[0]) as one string_val with shape [0]). */
  if (m > (uint64_t)n) m = (size_t)n;
  tfc_tensor *t = m ? tfc_tensor_new(dtype, sh.dims, sh.rank, s) : tfc_tensor_zeros(dtype, sh.dims, sh.rank, s);
  if (!t) return s->code;
  if (m && dtype == TFC_DT_STRING) {
    tfc_tstring *str = tfc_tensor_strings(t);
    for (int64_t i = 0; i < n; i++) {
      const ProtobufCBinaryData *v = &p->string_val[(uint64_t)i < m ? (size_t)i : m - 1];
      if (tfc_tstring_assign(&str[i], v->data, v->len, s)) {
        tfc_tensor_unref(t);
        return s->code;
      }
    }
  } else if (m) {
    for (size_t i = 0; i < m; i++) store_value(p, dtype, i, t->data, (int64_t)i);
    /* Pad with the last value: copy its bytes forward. */
    const char *last = (const char *)t->data + (m - 1) * es;
    for (int64_t i = (int64_t)m; i < n; i++) memcpy((char *)t->data + (size_t)i * es, last, es);
  }
  *out = t;
  return TFC_OK;
}

int tfc_tensor_from_proto_bytes(const void *data, size_t len, tfc_tensor **out, tfc_status *s) {
  *out = NULL;
  ProtobufCMessage *m = tfc_pb_unpack(&tensorflow__tensor_proto__descriptor, data, len, "TensorProto", s);
  if (!m) return s->code;
  int r = tfc_tensor_from_proto((Tensorflow__TensorProto *)m, out, s);
  protobuf_c_message_free_unpacked(m, NULL);
  return r;
}

/* ---------------- tensors: encode ---------------- */

int tfc_tensor_to_proto(const tfc_tensor *t, tfc_pb_arena *a, Tensorflow__TensorProto *out,
                        tfc_status *s) {
  tensorflow__tensor_proto__init(out);
  out->dtype = (Tensorflow__DataType)t->dtype;
  out->tensor_shape = tfc_pb_alloc(a, sizeof *out->tensor_shape);
  if (!out->tensor_shape) return tfc_pb_arena_status(a, s);
  tfc_shape sh = tfc_tensor_shape(t);
  TFC_TRY(tfc_shape_to_proto(&sh, a, out->tensor_shape, s));
  if (t->dtype == TFC_DT_STRING) {
    if (t->n_elems == 0) return TFC_OK;
    out->string_val = tfc_pb_alloc(a, sizeof *out->string_val * (size_t)t->n_elems);
    if (!out->string_val) return tfc_pb_arena_status(a, s);
    const tfc_tstring *str = tfc_tensor_strings(t);
    for (int64_t i = 0; i < t->n_elems; i++) {
      out->string_val[i].data = (uint8_t *)str[i].data;
      out->string_val[i].len = str[i].len;
    }
    out->n_string_val = (size_t)t->n_elems;
    return TFC_OK;
  }
  out->tensor_content.data = t->data;
  out->tensor_content.len = t->n_bytes;
  return TFC_OK;
}

int tfc_tensor_to_proto_bytes(const tfc_tensor *t, void **out, size_t *out_len, tfc_status *s) {
  tfc_pb_arena a;
  tfc_pb_arena_init(&a);
  Tensorflow__TensorProto p;
  int r = tfc_tensor_to_proto(t, &a, &p, s);
  if (r == TFC_OK) r = tfc_pb_pack(&p.base, out, out_len, s);
  tfc_pb_arena_fini(&a);
  return r;
}
