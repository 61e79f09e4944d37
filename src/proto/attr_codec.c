/*
 * attr_codec — see attr_codec.h.
 *
 * Recursion (func attrs inside lists inside func attrs) is bounded by the nesting depth that
 * tfc_pb_unpack admits, so decoding never goes deeper than TFC_PB_MAX_DEPTH.
 */
#include "proto/attr_codec.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "proto/tensor_codec.h"
#include "tensorflow/node_def.pb-c.h"

/* NodeDef.AttrEntry and NameAttrList.AttrEntry have the same layout (base, key, value). */
typedef struct attr_entry {
  ProtobufCMessage base;
  char *key;
  Tensorflow__AttrValue *value;
} attr_entry;
_Static_assert(sizeof(attr_entry) == sizeof(Tensorflow__NodeDef__AttrEntry), "entry layout");
_Static_assert(sizeof(attr_entry) == sizeof(Tensorflow__NameAttrList__AttrEntry), "entry layout");

static int func_from_proto(const Tensorflow__NameAttrList *p, tfc_attr_value *out, tfc_status *s) {
  tfc_func_attr *f = calloc(1, sizeof *f);
  if (!f) return TFC_OOM(s);
  f->name = tfc_strdup(p->name ? p->name : "");
  if (!f->name) {
    free(f);
    return TFC_OOM(s);
  }
  if (tfc_attrs_from_proto_map((void *const *)p->attr, p->n_attr, &f->attrs, &f->n_attrs, s)) {
    free(f->name);
    free(f);
    return s->code;
  }
  memset(out, 0, sizeof *out);
  out->kind = TFC_ATTR_FUNC;
  out->u.func = f;
  return TFC_OK;
}

static int shape_value(const Tensorflow__TensorShapeProto *p, tfc_attr_value *out, tfc_status *s) {
  tfc_shape sh;
  TFC_TRY(tfc_shape_from_proto(p, &sh, s));
  return tfc_attr_shape(&sh, out, s);
}

static int tensor_value(const Tensorflow__TensorProto *p, tfc_attr_value *out, tfc_status *s) {
  tfc_tensor *t;
  static const Tensorflow__TensorProto empty = TENSORFLOW__TENSOR_PROTO__INIT;
  TFC_TRY(tfc_tensor_from_proto(p ? p : &empty, &t, s));
  *out = tfc_attr_tensor(t);
  return TFC_OK;
}

static int list_from_proto(const Tensorflow__AttrValue__ListValue *l, tfc_attr_value *out, tfc_status *s) {
  size_t counts[8] = {l->n_s, l->n_i, l->n_f, l->n_b, l->n_type, l->n_shape, l->n_tensor, l->n_func};
  static const int kinds[8] = {TFC_ATTR_STRING, TFC_ATTR_INT,   TFC_ATTR_FLOAT,  TFC_ATTR_BOOL,
                               TFC_ATTR_TYPE,   TFC_ATTR_SHAPE, TFC_ATTR_TENSOR, TFC_ATTR_FUNC};
  int which = -1;
  for (int k = 0; k < 8; k++) {
    if (!counts[k]) continue;
    if (which >= 0)
      return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                            "AttrValue list has values of two kinds (list(%s) and list(%s))",
                            tfc_attr_kind_name(kinds[which]), tfc_attr_kind_name(kinds[k]));
    which = k;
  }
  tfc_attr_value list = tfc_attr_list(which < 0 ? TFC_ATTR_NONE : kinds[which]);
  if (which < 0) {
    *out = list;
    return TFC_OK;
  }
  size_t n = counts[which];
  if (n > INT32_MAX) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "AttrValue list is too long");
  list.u.list.items = calloc(n, sizeof *list.u.list.items);
  if (!list.u.list.items) return TFC_OOM(s);
  for (size_t i = 0; i < n; i++) {
    tfc_attr_value *v = &list.u.list.items[i];
    int r = TFC_OK;
    switch (kinds[which]) {
      case TFC_ATTR_STRING: r = tfc_attr_string(l->s[i].data, l->s[i].len, v, s); break;
      case TFC_ATTR_INT: *v = tfc_attr_int(l->i[i]); break;
      case TFC_ATTR_FLOAT: *v = tfc_attr_float(l->f[i]); break;
      case TFC_ATTR_BOOL: *v = tfc_attr_bool(l->b[i]); break;
      case TFC_ATTR_TYPE: *v = tfc_attr_type((int)l->type[i]); break;
      case TFC_ATTR_SHAPE: r = shape_value(l->shape[i], v, s); break;
      case TFC_ATTR_TENSOR: r = tensor_value(l->tensor[i], v, s); break;
      case TFC_ATTR_FUNC: r = func_from_proto(l->func[i], v, s); break;
    }
    list.u.list.n = (int)i + (r == TFC_OK);
    if (r) {
      tfc_attr_value_fini(&list);
      return r;
    }
  }
  *out = list;
  return TFC_OK;
}

int tfc_attr_from_proto(const Tensorflow__AttrValue *p, tfc_attr_value *out, tfc_status *s) {
  memset(out, 0, sizeof *out);
  if (!p) return TFC_OK;
  switch (p->value_case) {
    case TENSORFLOW__ATTR_VALUE__VALUE_LIST: {
      static const Tensorflow__AttrValue__ListValue empty = TENSORFLOW__ATTR_VALUE__LIST_VALUE__INIT;
      return list_from_proto(p->list ? p->list : &empty, out, s);
    }
    case TENSORFLOW__ATTR_VALUE__VALUE_S: return tfc_attr_string(p->s.data, p->s.len, out, s);
    case TENSORFLOW__ATTR_VALUE__VALUE_I: *out = tfc_attr_int(p->i); return TFC_OK;
    case TENSORFLOW__ATTR_VALUE__VALUE_F: *out = tfc_attr_float(p->f); return TFC_OK;
    case TENSORFLOW__ATTR_VALUE__VALUE_B: *out = tfc_attr_bool(p->b); return TFC_OK;
    case TENSORFLOW__ATTR_VALUE__VALUE_TYPE: *out = tfc_attr_type((int)p->type); return TFC_OK;
    case TENSORFLOW__ATTR_VALUE__VALUE_SHAPE: return shape_value(p->shape, out, s);
    case TENSORFLOW__ATTR_VALUE__VALUE_TENSOR: return tensor_value(p->tensor, out, s);
    case TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER: {
      const char *ph = p->placeholder ? p->placeholder : "";
      TFC_TRY(tfc_attr_string(ph, strlen(ph), out, s));
      out->kind = TFC_ATTR_PLACEHOLDER;
      return TFC_OK;
    }
    case TENSORFLOW__ATTR_VALUE__VALUE_FUNC: {
      static const Tensorflow__NameAttrList empty = TENSORFLOW__NAME_ATTR_LIST__INIT;
      return func_from_proto(p->func ? p->func : &empty, out, s);
    }
    default: return TFC_OK; /* nothing set: kind NONE */
  }
}

int tfc_attrs_from_proto_map(void *const *entries, size_t n, tfc_attr **out, int *n_out, tfc_status *s) {
  tfc_attr *attrs = NULL;
  int na = 0;
  for (size_t i = 0; i < n; i++) {
    const attr_entry *e = entries[i];
    tfc_attr_value v;
    if (tfc_attr_from_proto(e->value, &v, s) ||
        tfc_attrs_set(&attrs, &na, e->key ? e->key : "", &v, s)) {
      tfc_status_prefix(s, "attr '%s': ", e->key ? e->key : "");
      tfc_attrs_free(attrs, na);
      return s->code;
    }
  }
  *out = attrs;
  *n_out = na;
  return TFC_OK;
}

int tfc_attr_from_proto_bytes(const void *data, size_t len, tfc_attr_value *out, tfc_status *s) {
  memset(out, 0, sizeof *out);
  ProtobufCMessage *m = tfc_pb_unpack(&tensorflow__attr_value__descriptor, data, len, "AttrValue", s);
  if (!m) return s->code;
  int r = tfc_attr_from_proto((Tensorflow__AttrValue *)m, out, s);
  protobuf_c_message_free_unpacked(m, NULL);
  return r;
}

/* ---------------- encode ---------------- */

static int func_to_proto(const tfc_func_attr *f, tfc_pb_arena *a, Tensorflow__NameAttrList **out,
                         tfc_status *s) {
  Tensorflow__NameAttrList *p = tfc_pb_alloc(a, sizeof *p);
  if (!p) return tfc_pb_arena_status(a, s);
  tensorflow__name_attr_list__init(p);
  p->name = tfc_pb_strdup(a, f->name);
  if (f->n_attrs) {
    p->attr = tfc_pb_alloc(a, sizeof *p->attr * (size_t)f->n_attrs);
    if (!p->attr) return tfc_pb_arena_status(a, s);
    for (int i = 0; i < f->n_attrs; i++) {
      Tensorflow__NameAttrList__AttrEntry *e = tfc_pb_alloc(a, sizeof *e);
      Tensorflow__AttrValue *v = tfc_pb_alloc(a, sizeof *v);
      if (!e || !v) return tfc_pb_arena_status(a, s);
      tensorflow__name_attr_list__attr_entry__init(e);
      e->key = tfc_pb_strdup(a, f->attrs[i].name);
      TFC_TRY(tfc_attr_to_proto(&f->attrs[i].value, a, v, s));
      e->value = v;
      p->attr[i] = e;
    }
    p->n_attr = (size_t)f->n_attrs;
  }
  *out = p;
  return tfc_pb_arena_status(a, s);
}

static int list_to_proto(const tfc_attr_value *v, tfc_pb_arena *a, Tensorflow__AttrValue__ListValue *l,
                         tfc_status *s) {
  tensorflow__attr_value__list_value__init(l);
  size_t n = (size_t)v->u.list.n;
  if (!n) return TFC_OK;
  const tfc_attr_value *it = v->u.list.items;
  switch (v->list_kind) {
    case TFC_ATTR_STRING:
      l->s = tfc_pb_alloc(a, sizeof *l->s * n);
      if (!l->s) break;
      for (size_t i = 0; i < n; i++) {
        l->s[i].data = (uint8_t *)it[i].u.s.data;
        l->s[i].len = it[i].u.s.len;
      }
      l->n_s = n;
      break;
    case TFC_ATTR_INT:
      l->i = tfc_pb_alloc(a, sizeof *l->i * n);
      if (!l->i) break;
      for (size_t i = 0; i < n; i++) l->i[i] = it[i].u.i;
      l->n_i = n;
      break;
    case TFC_ATTR_FLOAT:
      l->f = tfc_pb_alloc(a, sizeof *l->f * n);
      if (!l->f) break;
      for (size_t i = 0; i < n; i++) l->f[i] = it[i].u.f;
      l->n_f = n;
      break;
    case TFC_ATTR_BOOL:
      l->b = tfc_pb_alloc(a, sizeof *l->b * n);
      if (!l->b) break;
      for (size_t i = 0; i < n; i++) l->b[i] = it[i].u.b != 0;
      l->n_b = n;
      break;
    case TFC_ATTR_TYPE:
      l->type = tfc_pb_alloc(a, sizeof *l->type * n);
      if (!l->type) break;
      for (size_t i = 0; i < n; i++) l->type[i] = (Tensorflow__DataType)it[i].u.type;
      l->n_type = n;
      break;
    case TFC_ATTR_SHAPE:
      l->shape = tfc_pb_alloc(a, sizeof *l->shape * n);
      if (!l->shape) break;
      for (size_t i = 0; i < n; i++) {
        l->shape[i] = tfc_pb_alloc(a, sizeof *l->shape[i]);
        if (!l->shape[i]) return tfc_pb_arena_status(a, s);
        TFC_TRY(tfc_shape_to_proto(it[i].u.shape, a, l->shape[i], s));
      }
      l->n_shape = n;
      break;
    case TFC_ATTR_TENSOR:
      l->tensor = tfc_pb_alloc(a, sizeof *l->tensor * n);
      if (!l->tensor) break;
      for (size_t i = 0; i < n; i++) {
        l->tensor[i] = tfc_pb_alloc(a, sizeof *l->tensor[i]);
        if (!l->tensor[i]) return tfc_pb_arena_status(a, s);
        TFC_TRY(tfc_tensor_to_proto(it[i].u.tensor, a, l->tensor[i], s));
      }
      l->n_tensor = n;
      break;
    case TFC_ATTR_FUNC:
      l->func = tfc_pb_alloc(a, sizeof *l->func * n);
      if (!l->func) break;
      for (size_t i = 0; i < n; i++) TFC_TRY(func_to_proto(it[i].u.func, a, &l->func[i], s));
      l->n_func = n;
      break;
    default:
      return tfc_status_set(s, TFC_INTERNAL, "attr list of kind %s cannot be encoded",
                            tfc_attr_kind_name(v->list_kind));
  }
  return tfc_pb_arena_status(a, s);
}

int tfc_attr_to_proto(const tfc_attr_value *v, tfc_pb_arena *a, Tensorflow__AttrValue *out,
                      tfc_status *s) {
  tensorflow__attr_value__init(out);
  switch (v->kind) {
    case TFC_ATTR_NONE: return TFC_OK;
    case TFC_ATTR_STRING:
      out->value_case = TENSORFLOW__ATTR_VALUE__VALUE_S;
      out->s.data = (uint8_t *)v->u.s.data;
      out->s.len = v->u.s.len;
      return TFC_OK;
    case TFC_ATTR_INT: out->value_case = TENSORFLOW__ATTR_VALUE__VALUE_I; out->i = v->u.i; return TFC_OK;
    case TFC_ATTR_FLOAT: out->value_case = TENSORFLOW__ATTR_VALUE__VALUE_F; out->f = v->u.f; return TFC_OK;
    case TFC_ATTR_BOOL: out->value_case = TENSORFLOW__ATTR_VALUE__VALUE_B; out->b = v->u.b != 0; return TFC_OK;
    case TFC_ATTR_TYPE:
      out->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TYPE;
      out->type = (Tensorflow__DataType)v->u.type;
      return TFC_OK;
    case TFC_ATTR_SHAPE:
      out->value_case = TENSORFLOW__ATTR_VALUE__VALUE_SHAPE;
      out->shape = tfc_pb_alloc(a, sizeof *out->shape);
      if (!out->shape) return tfc_pb_arena_status(a, s);
      return tfc_shape_to_proto(v->u.shape, a, out->shape, s);
    case TFC_ATTR_TENSOR:
      out->value_case = TENSORFLOW__ATTR_VALUE__VALUE_TENSOR;
      out->tensor = tfc_pb_alloc(a, sizeof *out->tensor);
      if (!out->tensor) return tfc_pb_arena_status(a, s);
      return tfc_tensor_to_proto(v->u.tensor, a, out->tensor, s);
    case TFC_ATTR_PLACEHOLDER:
      out->value_case = TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER;
      out->placeholder = tfc_pb_strndup(a, v->u.s.data, strnlen(v->u.s.data, v->u.s.len));
      return tfc_pb_arena_status(a, s);
    case TFC_ATTR_FUNC:
      out->value_case = TENSORFLOW__ATTR_VALUE__VALUE_FUNC;
      return func_to_proto(v->u.func, a, &out->func, s);
    case TFC_ATTR_LIST:
      out->value_case = TENSORFLOW__ATTR_VALUE__VALUE_LIST;
      out->list = tfc_pb_alloc(a, sizeof *out->list);
      if (!out->list) return tfc_pb_arena_status(a, s);
      return list_to_proto(v, a, out->list, s);
    default:
      return tfc_status_set(s, TFC_INTERNAL, "attr of kind %d cannot be encoded", v->kind);
  }
}

int tfc_attr_to_proto_bytes(const tfc_attr_value *v, void **out, size_t *out_len, tfc_status *s) {
  tfc_pb_arena a;
  tfc_pb_arena_init(&a);
  Tensorflow__AttrValue p;
  int r = tfc_attr_to_proto(v, &a, &p, s);
  if (r == TFC_OK) r = tfc_pb_pack(&p.base, out, out_len, s);
  tfc_pb_arena_fini(&a);
  return r;
}
