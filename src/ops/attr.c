/* attr — see attr.h. */
#include "ops/attr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/strbuf.h"

void tfc_attr_value_fini(tfc_attr_value *v) {
  switch (v->kind) {
    case TFC_ATTR_STRING:
    case TFC_ATTR_PLACEHOLDER: free(v->u.s.data); break;
    case TFC_ATTR_SHAPE: free(v->u.shape); break;
    case TFC_ATTR_TENSOR: tfc_tensor_unref(v->u.tensor); break;
    case TFC_ATTR_FUNC:
      if (v->u.func) {
        free(v->u.func->name);
        tfc_attrs_free(v->u.func->attrs, v->u.func->n_attrs);
        free(v->u.func);
      }
      break;
    case TFC_ATTR_LIST:
      for (int i = 0; i < v->u.list.n; i++) tfc_attr_value_fini(&v->u.list.items[i]);
      free(v->u.list.items);
      break;
    default: break;
  }
  memset(v, 0, sizeof *v);
}

int tfc_attr_value_copy(const tfc_attr_value *src, tfc_attr_value *dst, tfc_status *s) {
  tfc_attr_value r = *src;
  switch (src->kind) {
    case TFC_ATTR_STRING:
    case TFC_ATTR_PLACEHOLDER:
      r.u.s.data = tfc_strndup(src->u.s.data, src->u.s.len);
      if (!r.u.s.data) return TFC_OOM(s);
      break;
    case TFC_ATTR_SHAPE:
      r.u.shape = malloc(sizeof *r.u.shape);
      if (!r.u.shape) return TFC_OOM(s);
      *r.u.shape = *src->u.shape;
      break;
    case TFC_ATTR_TENSOR: tfc_tensor_ref(r.u.tensor); break;
    case TFC_ATTR_FUNC: {
      tfc_func_attr *f = calloc(1, sizeof *f);
      if (!f) return TFC_OOM(s);
      f->name = tfc_strdup(src->u.func->name ? src->u.func->name : "");
      if (!f->name || tfc_attrs_copy(src->u.func->attrs, src->u.func->n_attrs, &f->attrs, s)) {
        free(f->name);
        free(f);
        return TFC_OOM(s);
      }
      f->n_attrs = src->u.func->n_attrs;
      r.u.func = f;
      break;
    }
    case TFC_ATTR_LIST:
      r.u.list.items = NULL;
      if (src->u.list.n) {
        r.u.list.items = calloc((size_t)src->u.list.n, sizeof *r.u.list.items);
        if (!r.u.list.items) return TFC_OOM(s);
        for (int i = 0; i < src->u.list.n; i++)
          if (tfc_attr_value_copy(&src->u.list.items[i], &r.u.list.items[i], s)) {
            r.u.list.n = i;
            tfc_attr_value_fini(&r);
            return s->code;
          }
      }
      break;
    default: break;
  }
  *dst = r;
  return TFC_OK;
}

static int tensor_equal(const tfc_tensor *a, const tfc_tensor *b) {
  if (a->dtype != b->dtype || !tfc_tensor_same_shape(a, b)) return 0;
  if (a->dtype != TFC_DT_STRING) return memcmp(a->data, b->data, a->n_bytes) == 0;
  const tfc_tstring *x = tfc_tensor_strings(a), *y = tfc_tensor_strings(b);
  for (int64_t i = 0; i < a->n_elems; i++)
    if (x[i].len != y[i].len || (x[i].len && memcmp(x[i].data, y[i].data, x[i].len))) return 0;
  return 1;
}

int tfc_attr_value_equal(const tfc_attr_value *a, const tfc_attr_value *b) {
  if (a->kind != b->kind) return 0;
  switch (a->kind) {
    case TFC_ATTR_STRING:
    case TFC_ATTR_PLACEHOLDER:
      return a->u.s.len == b->u.s.len && memcmp(a->u.s.data, b->u.s.data, a->u.s.len) == 0;
    case TFC_ATTR_INT: return a->u.i == b->u.i;
    case TFC_ATTR_FLOAT: return a->u.f == b->u.f || (isnan(a->u.f) && isnan(b->u.f));
    case TFC_ATTR_BOOL: return !a->u.b == !b->u.b;
    case TFC_ATTR_TYPE: return a->u.type == b->u.type;
    case TFC_ATTR_SHAPE: return tfc_shape_equal(a->u.shape, b->u.shape);
    case TFC_ATTR_TENSOR: return tensor_equal(a->u.tensor, b->u.tensor);
    case TFC_ATTR_FUNC:
      if (strcmp(a->u.func->name, b->u.func->name) || a->u.func->n_attrs != b->u.func->n_attrs)
        return 0;
      for (int i = 0; i < a->u.func->n_attrs; i++)
        if (strcmp(a->u.func->attrs[i].name, b->u.func->attrs[i].name) ||
            !tfc_attr_value_equal(&a->u.func->attrs[i].value, &b->u.func->attrs[i].value))
          return 0;
      return 1;
    case TFC_ATTR_LIST:
      if (a->u.list.n != b->u.list.n) return 0;
      for (int i = 0; i < a->u.list.n; i++)
        if (!tfc_attr_value_equal(&a->u.list.items[i], &b->u.list.items[i])) return 0;
      return 1;
    default: return 1;
  }
}

tfc_attr_value tfc_attr_int(int64_t i) {
  tfc_attr_value v = {.kind = TFC_ATTR_INT};
  v.u.i = i;
  return v;
}
tfc_attr_value tfc_attr_float(float f) {
  tfc_attr_value v = {.kind = TFC_ATTR_FLOAT};
  v.u.f = f;
  return v;
}
tfc_attr_value tfc_attr_bool(int b) {
  tfc_attr_value v = {.kind = TFC_ATTR_BOOL};
  v.u.b = b != 0;
  return v;
}
tfc_attr_value tfc_attr_type(int dtype) {
  tfc_attr_value v = {.kind = TFC_ATTR_TYPE};
  v.u.type = dtype;
  return v;
}
int tfc_attr_string(const void *data, size_t len, tfc_attr_value *out, tfc_status *s) {
  memset(out, 0, sizeof *out);
  out->kind = TFC_ATTR_STRING;
  out->u.s.data = tfc_strndup(data, len);
  if (!out->u.s.data) return TFC_OOM(s);
  out->u.s.len = len;
  return TFC_OK;
}
int tfc_attr_shape(const tfc_shape *shape, tfc_attr_value *out, tfc_status *s) {
  memset(out, 0, sizeof *out);
  out->kind = TFC_ATTR_SHAPE;
  out->u.shape = malloc(sizeof *out->u.shape);
  if (!out->u.shape) return TFC_OOM(s);
  *out->u.shape = *shape;
  return TFC_OK;
}
tfc_attr_value tfc_attr_tensor(tfc_tensor *t) {
  tfc_attr_value v = {.kind = TFC_ATTR_TENSOR};
  v.u.tensor = t;
  return v;
}
tfc_attr_value tfc_attr_list(int list_kind) {
  tfc_attr_value v = {.kind = TFC_ATTR_LIST, .list_kind = list_kind};
  return v;
}
int tfc_attr_list_append(tfc_attr_value *list, tfc_attr_value *v, tfc_status *s) {
  tfc_attr_value *items = realloc(list->u.list.items, sizeof *items * (size_t)(list->u.list.n + 1));
  if (!items) {
    tfc_attr_value_fini(v);
    return TFC_OOM(s);
  }
  list->u.list.items = items;
  items[list->u.list.n++] = *v;
  if (list->list_kind == TFC_ATTR_NONE) list->list_kind = v->kind;
  memset(v, 0, sizeof *v);
  return TFC_OK;
}

static int find_index(const tfc_attr *attrs, int n, const char *name, int *found) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    int c = strcmp(attrs[mid].name, name);
    if (c == 0) { *found = 1; return mid; }
    if (c < 0) lo = mid + 1; else hi = mid;
  }
  *found = 0;
  return lo;
}

const tfc_attr_value *tfc_attrs_find(const tfc_attr *attrs, int n, const char *name) {
  int found;
  int i = find_index(attrs, n, name, &found);
  return found ? &attrs[i].value : NULL;
}

int tfc_attrs_set(tfc_attr **attrs, int *n, const char *name, tfc_attr_value *v, tfc_status *s) {
  int found;
  int i = find_index(*attrs, *n, name, &found);
  if (found) {
    tfc_attr_value_fini(&(*attrs)[i].value);
    (*attrs)[i].value = *v;
    memset(v, 0, sizeof *v);
    return TFC_OK;
  }
  char *nm = tfc_strdup(name);
  tfc_attr *a = nm ? realloc(*attrs, sizeof *a * (size_t)(*n + 1)) : NULL;
  if (!a) {
    free(nm);
    tfc_attr_value_fini(v);
    return TFC_OOM(s);
  }
  memmove(&a[i + 1], &a[i], sizeof *a * (size_t)(*n - i));
  a[i].name = nm;
  a[i].value = *v;
  memset(v, 0, sizeof *v);
  *attrs = a;
  (*n)++;
  return TFC_OK;
}

void tfc_attrs_free(tfc_attr *attrs, int n) {
  for (int i = 0; i < n; i++) {
    free(attrs[i].name);
    tfc_attr_value_fini(&attrs[i].value);
  }
  free(attrs);
}

int tfc_attrs_copy(const tfc_attr *src, int n, tfc_attr **out, tfc_status *s) {
  *out = NULL;
  if (n == 0) return TFC_OK;
  tfc_attr *a = calloc((size_t)n, sizeof *a);
  if (!a) return TFC_OOM(s);
  for (int i = 0; i < n; i++) {
    a[i].name = tfc_strdup(src[i].name);
    if (!a[i].name || tfc_attr_value_copy(&src[i].value, &a[i].value, s)) {
      if (a[i].name) free(a[i].name);
      tfc_attrs_free(a, i);
      return TFC_OOM(s);
    }
  }
  *out = a;
  return TFC_OK;
}

const char *tfc_attr_kind_name(int kind) {
  static const char *names[TFC_ATTR_KIND_COUNT] = {"none", "string", "int", "float", "bool",
                                                   "type", "shape", "tensor", "placeholder",
                                                   "func", "list"};
  return kind >= 0 && kind < TFC_ATTR_KIND_COUNT ? names[kind] : "unknown";
}

static void format_into(const tfc_attr_value *v, tfc_strbuf *b) {
  char tmp[TFC_SHAPE_STR_MAX];
  switch (v->kind) {
    case TFC_ATTR_STRING: tfc_strbuf_printf(b, "\"%.*s\"", (int)v->u.s.len, v->u.s.data); break;
    case TFC_ATTR_PLACEHOLDER: tfc_strbuf_printf(b, "$%s", v->u.s.data); break;
    case TFC_ATTR_INT: tfc_strbuf_printf(b, "%lld", (long long)v->u.i); break;
    case TFC_ATTR_FLOAT: tfc_strbuf_printf(b, "%g", (double)v->u.f); break;
    case TFC_ATTR_BOOL: tfc_strbuf_puts(b, v->u.b ? "true" : "false"); break;
    case TFC_ATTR_TYPE: {
      const char *n = tfc_dtype_name(v->u.type);
      tfc_strbuf_puts(b, "DT_");
      for (; *n; n++) tfc_strbuf_printf(b, "%c", *n >= 'a' && *n <= 'z' ? *n - 32 : *n);
      break;
    }
    case TFC_ATTR_SHAPE: tfc_strbuf_puts(b, tfc_shape_str(v->u.shape, tmp, sizeof tmp)); break;
    case TFC_ATTR_TENSOR:
      tfc_strbuf_printf(b, "Tensor<type: %s shape: %s>", tfc_dtype_name(v->u.tensor->dtype),
                        tfc_tensor_shape_str(v->u.tensor, tmp, sizeof tmp));
      break;
    case TFC_ATTR_FUNC: tfc_strbuf_printf(b, "%s[]", v->u.func->name); break;
    case TFC_ATTR_LIST:
      tfc_strbuf_puts(b, "[");
      for (int i = 0; i < v->u.list.n; i++) {
        if (i) tfc_strbuf_puts(b, ", ");
        format_into(&v->u.list.items[i], b);
      }
      tfc_strbuf_puts(b, "]");
      break;
    default: tfc_strbuf_puts(b, "<unset>"); break;
  }
}

void tfc_attr_value_format(const tfc_attr_value *v, char *buf, size_t n) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  format_into(v, &b);
  snprintf(buf, n, "%s", tfc_strbuf_str(&b));
  tfc_strbuf_fini(&b);
}
