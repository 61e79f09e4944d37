/*
 * function_text — TF's human-readable text of a FunctionDef (what TF_FunctionDebugString
 * returns; TF's function.cc DebugString), written from the decoded proto:
 *
 *   \n<name>[<attr>:<type or {allowed types}>, ...](<arg>:<type>, ...) -> (<out>:<type>, ...) {
 *     <node> = <Op>[<k>=<v>, ..., device=<TYPE>:<id>](<data inputs>) @ <control inputs>
 *     @return <control output> = <node>
 *     return <output> = <tensor>
 *   }
 *
 * Args print as name:[Ref(][N*]<dtype or type attr>[)]. Node attrs are "k=v" entries sorted as
 * strings ("f2=.." before "f=..") with the device's parsed TYPE:id after them; "[...]" only
 * when the node has attrs. Values follow TF's summaries: dtypes by name (float), lists of
 * dtypes in braces, functions by name (with their attrs in [...] when they have some); the rest
 * as TF's SummarizeAttrValue: strings C-escaped in quotes (80 escaped characters or more: the
 * first and last 10 around "..."), floats in the shortest of %.6g / %.9g that reads back,
 * shapes [2,?] / <unknown>, placeholders $T, dtypes inside lists of other kinds as DT_FLOAT,
 * tensors as Tensor<type: T shape: [d] values: v> with at most 3 values (TF's nesting:
 * "[1 2][3...]..."), functions in lists as name[...]. return / @return lines come in key
 * order (TF prints its map's order, which is unspecified).
 *
 * Ownership: the text goes into the caller's strbuf. Errors: INVALID_ARGUMENT when the bytes
 * are not a FunctionDef; RESOURCE_EXHAUSTED on out of memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_name.h"
#include "proto/function_codec.h"
#include "proto/tensor_codec.h"
#include "tensor/tensor.h"

#define MAX_TENSOR_VALUES 3
#define MAX_STRING_SUMMARY 80

static void put_float(tfc_strbuf *b, double v, int is_double) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.*g", is_double ? 15 : 6, v);
  if (is_double ? strtod(buf, NULL) != v : strtof(buf, NULL) != (float)v)
    snprintf(buf, sizeof buf, "%.*g", is_double ? 17 : 9, v);
  tfc_strbuf_puts(b, buf);
}

/* C escapes: \n \r \t \" \' \\ and octal \ooo for other bytes outside printable ASCII. */
static void put_escaped(tfc_strbuf *b, const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    unsigned char c = p[i];
    switch (c) {
      case '\n': tfc_strbuf_puts(b, "\\n"); break;
      case '\r': tfc_strbuf_puts(b, "\\r"); break;
      case '\t': tfc_strbuf_puts(b, "\\t"); break;
      case '"': tfc_strbuf_puts(b, "\\\""); break;
      case '\'': tfc_strbuf_puts(b, "\\'"); break;
      case '\\': tfc_strbuf_puts(b, "\\\\"); break;
      default:
        if (c < 0x20 || c >= 0x7f)
          tfc_strbuf_printf(b, "\\%03o", c);
        else
          tfc_strbuf_append(b, &c, 1);
    }
  }
}

static void put_string_summary(tfc_strbuf *b, const unsigned char *p, size_t n) {
  tfc_strbuf e;
  tfc_strbuf_init(&e);
  put_escaped(&e, p, n);
  const char *s = tfc_strbuf_str(&e);
  size_t len = strlen(s);
  tfc_strbuf_puts(b, "\"");
  if (len >= MAX_STRING_SUMMARY) {
    tfc_strbuf_append(b, s, 10);
    tfc_strbuf_puts(b, "...");
    tfc_strbuf_append(b, s + len - 10, 10);
  } else {
    tfc_strbuf_puts(b, s);
  }
  tfc_strbuf_puts(b, "\"");
  if (!tfc_strbuf_ok(&e)) b->oom = 1;
  tfc_strbuf_fini(&e);
}

static void put_dtype_enum(tfc_strbuf *b, int dt) {
  tfc_strbuf_puts(b, "DT_");
  for (const char *n = tfc_dtype_name(dt); *n; n++) tfc_strbuf_printf(b, "%c", *n >= 'a' && *n <= 'z' ? *n - 32 : *n);
}

static void put_shape(tfc_strbuf *b, const Tensorflow__TensorShapeProto *p) {
  tfc_shape sh;
  tfc_status s;
  tfc_status_init(&s);
  char buf[TFC_SHAPE_STR_MAX];
  if (p && tfc_shape_from_proto(p, &sh, &s) == TFC_OK)
    tfc_strbuf_puts(b, tfc_shape_str(&sh, buf, sizeof buf));
  else
    tfc_strbuf_puts(b, p ? "<invalid shape>" : "[]");
  tfc_status_fini(&s);
}

static void put_element(tfc_strbuf *b, const tfc_tensor *t, int64_t i) {
  switch (t->dtype) {
    case TFC_DT_FLOAT: put_float(b, ((const float *)t->data)[i], 0); break;
    case TFC_DT_DOUBLE: put_float(b, ((const double *)t->data)[i], 1); break;
    case TFC_DT_HALF: put_float(b, tfc_half_to_float(((const uint16_t *)t->data)[i]), 0); break;
    case TFC_DT_BFLOAT16: put_float(b, tfc_bfloat16_to_float(((const uint16_t *)t->data)[i]), 0); break;
    case TFC_DT_STRING: {
      const tfc_tstring *ts = &tfc_tensor_strings(t)[i];
      put_escaped(b, (const unsigned char *)ts->data, ts->len);
      break;
    }
    case TFC_DT_UINT64: tfc_strbuf_printf(b, "%llu", (unsigned long long)((const uint64_t *)t->data)[i]); break;
    default: tfc_strbuf_printf(b, "%lld", (long long)tfc_tensor_get_i64(t, i)); break;
  }
}

/* TF's PrintOneDim: the innermost dim as space-separated values, outer dims in brackets,
 * stopping at the limit with "..." inside an unfinished inner dim. */
static void put_dim(tfc_strbuf *b, const tfc_tensor *t, int d, int64_t limit, int64_t *at) {
  if (*at >= limit) return;
  if (d == t->ndims - 1) {
    for (int64_t i = 0; i < t->dims[d]; i++) {
      if (*at >= limit) {
        if (d != 0) tfc_strbuf_puts(b, "...");
        return;
      }
      if (i > 0) tfc_strbuf_puts(b, " ");
      put_element(b, t, (*at)++);
    }
    return;
  }
  for (int64_t i = 0; i < t->dims[d]; i++) {
    int open = 0;
    if (*at < limit) {
      tfc_strbuf_puts(b, "[");
      open = 1;
    }
    put_dim(b, t, d + 1, limit, at);
    if (*at < limit || open) tfc_strbuf_puts(b, "]");
  }
}

static void put_tensor(tfc_strbuf *b, const Tensorflow__TensorProto *p) {
  tfc_tensor *t = NULL;
  tfc_status s;
  tfc_status_init(&s);
  if (!p || tfc_tensor_from_proto(p, &t, &s) != TFC_OK) {
    tfc_strbuf_puts(b, "<Invalid TensorProto>");
    tfc_status_fini(&s);
    return;
  }
  tfc_status_fini(&s);
  char buf[TFC_SHAPE_STR_MAX];
  tfc_strbuf_printf(b, "Tensor<type: %s shape: %s values: ", tfc_dtype_name(t->dtype),
                    tfc_tensor_shape_str(t, buf, sizeof buf));
  int64_t limit = t->n_elems < MAX_TENSOR_VALUES ? t->n_elems : MAX_TENSOR_VALUES, at = 0;
  if (t->ndims == 0) {
    for (int64_t i = 0; i < limit; i++) put_element(b, t, i);
  } else {
    put_dim(b, t, 0, limit, &at);
  }
  if (t->n_elems > limit) tfc_strbuf_puts(b, "...");
  tfc_strbuf_puts(b, ">");
  tfc_tensor_unref(t);
}

static void put_value(tfc_strbuf *b, const Tensorflow__AttrValue *v, int in_node);

static int strcmp_ptr(const void *a, const void *b) {
  const char *x = *(char *const *)a, *y = *(char *const *)b;
  return strcmp(x ? x : "", y ? y : "");
}

/* name[k=v, ...] with the entries sorted as strings; the brackets always (TF's SummarizeFunc)
 * or only when there are attrs (a node attr's function). */
static void put_func(tfc_strbuf *b, const Tensorflow__NameAttrList *f, int in_node) {
  tfc_strbuf_puts(b, f->name);
  if (in_node && f->n_attr == 0) return;
  char **entries = calloc(f->n_attr + 1, sizeof *entries);
  if (!entries) {
    b->oom = 1;
    return;
  }
  for (size_t i = 0; i < f->n_attr; i++) {
    tfc_strbuf e;
    tfc_strbuf_init(&e);
    tfc_strbuf_printf(&e, "%s=", f->attr[i]->key);
    put_value(&e, f->attr[i]->value, in_node);
    entries[i] = tfc_strbuf_take(&e);
    tfc_strbuf_fini(&e);
  }
  qsort(entries, f->n_attr, sizeof *entries, strcmp_ptr);
  tfc_strbuf_puts(b, "[");
  for (size_t i = 0; i < f->n_attr; i++) {
    if (i) tfc_strbuf_puts(b, ", ");
    tfc_strbuf_puts(b, entries[i] ? entries[i] : "");
    free(entries[i]);
  }
  tfc_strbuf_puts(b, "]");
  free(entries);
}

/* A list as TF's SummarizeAttrValue: the first non-empty field wins. */
static void put_list(tfc_strbuf *b, const Tensorflow__AttrValue__ListValue *l) {
  tfc_strbuf_puts(b, "[");
  if (l->n_s) {
    for (size_t i = 0; i < l->n_s; i++) {
      if (i) tfc_strbuf_puts(b, ", ");
      put_string_summary(b, l->s[i].data, l->s[i].len);
    }
  } else if (l->n_i) {
    for (size_t i = 0; i < l->n_i; i++) tfc_strbuf_printf(b, "%s%lld", i ? ", " : "", (long long)l->i[i]);
  } else if (l->n_f) {
    for (size_t i = 0; i < l->n_f; i++) {
      if (i) tfc_strbuf_puts(b, ", ");
      put_float(b, l->f[i], 0);
    }
  } else if (l->n_b) {
    for (size_t i = 0; i < l->n_b; i++) tfc_strbuf_printf(b, "%s%s", i ? ", " : "", l->b[i] ? "true" : "false");
  } else if (l->n_type) {
    for (size_t i = 0; i < l->n_type; i++) {
      if (i) tfc_strbuf_puts(b, ", ");
      put_dtype_enum(b, (int)l->type[i]);
    }
  } else if (l->n_shape) {
    for (size_t i = 0; i < l->n_shape; i++) {
      if (i) tfc_strbuf_puts(b, ", ");
      put_shape(b, l->shape[i]);
    }
  } else if (l->n_tensor) {
    for (size_t i = 0; i < l->n_tensor; i++) {
      if (i) tfc_strbuf_puts(b, ", ");
      put_tensor(b, l->tensor[i]);
    }
  } else if (l->n_func) {
    for (size_t i = 0; i < l->n_func; i++) {
      if (i) tfc_strbuf_puts(b, ", ");
      put_func(b, l->func[i], 0);
    }
  }
  tfc_strbuf_puts(b, "]");
}

/* in_node: a node attr's value (TF's Print: dtypes by name, lists of dtypes in braces,
 * functions bare when they have no attrs); else TF's SummarizeAttrValue. */
static void put_value(tfc_strbuf *b, const Tensorflow__AttrValue *v, int in_node) {
  if (!v) {
    tfc_strbuf_puts(b, "<Unknown AttrValue type>");
    return;
  }
  switch (v->value_case) {
    case TENSORFLOW__ATTR_VALUE__VALUE_S: put_string_summary(b, v->s.data, v->s.len); break;
    case TENSORFLOW__ATTR_VALUE__VALUE_I: tfc_strbuf_printf(b, "%lld", (long long)v->i); break;
    case TENSORFLOW__ATTR_VALUE__VALUE_F: put_float(b, v->f, 0); break;
    case TENSORFLOW__ATTR_VALUE__VALUE_B: tfc_strbuf_puts(b, v->b ? "true" : "false"); break;
    case TENSORFLOW__ATTR_VALUE__VALUE_TYPE:
      if (in_node)
        tfc_strbuf_puts(b, tfc_dtype_name((int)v->type));
      else
        put_dtype_enum(b, (int)v->type);
      break;
    case TENSORFLOW__ATTR_VALUE__VALUE_SHAPE: put_shape(b, v->shape); break;
    case TENSORFLOW__ATTR_VALUE__VALUE_TENSOR: put_tensor(b, v->tensor); break;
    case TENSORFLOW__ATTR_VALUE__VALUE_PLACEHOLDER: tfc_strbuf_printf(b, "$%s", v->placeholder); break;
    case TENSORFLOW__ATTR_VALUE__VALUE_FUNC: put_func(b, v->func, in_node); break;
    case TENSORFLOW__ATTR_VALUE__VALUE_LIST:
      if (in_node && v->list && v->list->n_type) {
        tfc_strbuf_puts(b, "{");
        for (size_t i = 0; i < v->list->n_type; i++)
          tfc_strbuf_printf(b, "%s%s", i ? ", " : "", tfc_dtype_name((int)v->list->type[i]));
        tfc_strbuf_puts(b, "}");
      } else if (v->list) {
        put_list(b, v->list);
      } else {
        tfc_strbuf_puts(b, "[]");
      }
      break;
    default: tfc_strbuf_puts(b, "<Unknown AttrValue type>"); break;
  }
}

static void put_arg(tfc_strbuf *b, const Tensorflow__OpDef__ArgDef *a) {
  tfc_strbuf_printf(b, "%s:%s", a->name, a->is_ref ? "Ref(" : "");
  if (a->number_attr && a->number_attr[0]) tfc_strbuf_printf(b, "%s*", a->number_attr);
  if (a->type != TENSORFLOW__DATA_TYPE__DT_INVALID)
    tfc_strbuf_puts(b, tfc_dtype_name((int)a->type));
  else
    tfc_strbuf_puts(b, a->type_attr && a->type_attr[0] ? a->type_attr : a->type_list_attr ? a->type_list_attr : "");
  if (a->is_ref) tfc_strbuf_puts(b, ")");
}

static void put_node(tfc_strbuf *b, const Tensorflow__NodeDef *n) {
  tfc_strbuf_printf(b, "  %s = %s", n->name, n->op);
  if (n->n_attr) {
    char **entries = calloc(n->n_attr + 1, sizeof *entries);
    if (!entries) {
      b->oom = 1;
      return;
    }
    for (size_t i = 0; i < n->n_attr; i++) {
      tfc_strbuf e;
      tfc_strbuf_init(&e);
      tfc_strbuf_printf(&e, "%s=", n->attr[i]->key);
      put_value(&e, n->attr[i]->value, 1);
      entries[i] = tfc_strbuf_take(&e);
      tfc_strbuf_fini(&e);
    }
    qsort(entries, n->n_attr, sizeof *entries, strcmp_ptr);
    tfc_strbuf_puts(b, "[");
    for (size_t i = 0; i < n->n_attr; i++) {
      tfc_strbuf_printf(b, "%s%s", i ? ", " : "", entries[i] ? entries[i] : "");
      free(entries[i]);
    }
    free(entries);
    if (n->device && n->device[0]) {
      tfc_devname d;
      if (tfc_devname_parse(n->device, &d) == 0)
        tfc_strbuf_printf(b, ", device=%s:%d", d.has_type ? d.type : "", d.has_id ? d.id : 0);
      else
        tfc_strbuf_puts(b, ", device=<FAILED_TO_PARSE>");
    }
    tfc_strbuf_puts(b, "]");
  }
  tfc_strbuf_puts(b, "(");
  int first = 1;
  for (size_t i = 0; i < n->n_input; i++) {
    if (n->input[i][0] == '^') continue;
    tfc_strbuf_printf(b, "%s%s", first ? "" : ", ", n->input[i]);
    first = 0;
  }
  tfc_strbuf_puts(b, ")");
  first = 1;
  for (size_t i = 0; i < n->n_input; i++) {
    if (n->input[i][0] != '^') continue;
    tfc_strbuf_printf(b, "%s%s", first ? " @ " : ", ", n->input[i] + 1);
    first = 0;
  }
  tfc_strbuf_puts(b, "\n");
}

int tfc_functiondef_debug_string(const void *def, size_t len, tfc_strbuf *out, tfc_status *s) {
  Tensorflow__FunctionDef *fd = tensorflow__function_def__unpack(NULL, len, def);
  if (!fd) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Invalid FunctionDef");
  const Tensorflow__OpDef *sig = fd->signature;
  tfc_strbuf_printf(out, "\n%s", sig ? sig->name : "");
  if (sig && sig->n_attr) {
    tfc_strbuf_puts(out, "[");
    for (size_t i = 0; i < sig->n_attr; i++) {
      const Tensorflow__OpDef__AttrDef *a = sig->attr[i];
      tfc_strbuf_printf(out, "%s%s:", i ? ", " : "", a->name);
      if (strcmp(a->type, "type") == 0)
        put_value(out, a->allowed_values, 1);
      else
        tfc_strbuf_puts(out, a->type);
    }
    tfc_strbuf_puts(out, "]");
  }
  tfc_strbuf_puts(out, "(");
  for (size_t i = 0; sig && i < sig->n_input_arg; i++) {
    if (i) tfc_strbuf_puts(out, ", ");
    put_arg(out, sig->input_arg[i]);
  }
  tfc_strbuf_puts(out, ") -> (");
  for (size_t i = 0; sig && i < sig->n_output_arg; i++) {
    if (i) tfc_strbuf_puts(out, ", ");
    put_arg(out, sig->output_arg[i]);
  }
  tfc_strbuf_puts(out, ") {\n");
  for (size_t i = 0; i < fd->n_node_def; i++) put_node(out, fd->node_def[i]);
  for (size_t i = 0; i < fd->n_control_ret; i++)
    tfc_strbuf_printf(out, "  @return %s = %s\n", fd->control_ret[i]->key, fd->control_ret[i]->value);
  for (size_t i = 0; i < fd->n_ret; i++) tfc_strbuf_printf(out, "  return %s = %s\n", fd->ret[i]->key, fd->ret[i]->value);
  tfc_strbuf_puts(out, "}\n");
  tensorflow__function_def__free_unpacked(fd, NULL);
  return tfc_strbuf_ok(out) ? TFC_OK : TFC_OOM(s);
}
