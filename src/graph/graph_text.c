/*
 * graph_text — the canonical one-line-per-node text of a graph (see graph_text.h).
 *
 * Golden tests compare these texts byte for byte, so every choice here is about being
 * deterministic and stable: nodes in id order, attrs in their stored (sorted) order, floats
 * in the shortest %g form that reads back to the same value (0.1, not 0.100000001), and
 * nothing that is not in the graph itself (no addresses). Tensors and shapes are written
 * without spaces (float[2,3]{1,2,3,4,5,6}) so that ", " only separates attrs or inputs.
 */
#include "graph/graph_text.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/attr.h"
#include "tensor/tensor.h"

/* Enough values to recognise a constant at a glance without flooding the line. */
#define TEXT_MAX_TENSOR_VALUES 6

/* A quoted string with C escapes for quotes, backslashes and non-printable bytes. */
static void put_quoted(tfc_strbuf *b, const char *data, size_t len) {
  tfc_strbuf_puts(b, "\"");
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)data[i];
    if (c == '"' || c == '\\') tfc_strbuf_printf(b, "\\%c", c);
    else if (c == '\n') tfc_strbuf_puts(b, "\\n");
    else if (c < 0x20 || c >= 0x7f) tfc_strbuf_printf(b, "\\x%02x", c);
    else tfc_strbuf_append(b, &data[i], 1);
  }
  tfc_strbuf_puts(b, "\"");
}

static void put_shape(tfc_strbuf *b, const tfc_shape *shape) {
  char tmp[TFC_SHAPE_STR_MAX];
  tfc_strbuf_puts(b, tfc_shape_str(shape, tmp, sizeof tmp));
}

/* The shortest %g text that round-trips: digits from 6 up to the type's exact 9 or 17. */
static void put_float(tfc_strbuf *b, double v, bool is_double) {
  char buf[40];
  for (int digits = 6;; digits++) {
    snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (digits >= (is_double ? 17 : 9)) break;
    if (is_double ? strtod(buf, NULL) == v : strtof(buf, NULL) == (float)v) break;
  }
  tfc_strbuf_puts(b, buf);
}

/* Element i of t, or false for dtypes whose values are not printed (half, complex, ...). */
static bool put_element(tfc_strbuf *b, const tfc_tensor *t, int64_t i) {
  const void *p = t->data;
  switch (t->dtype) {
    case TFC_DT_FLOAT: put_float(b, ((const float *)p)[i], false); return true;
    case TFC_DT_DOUBLE: put_float(b, ((const double *)p)[i], true); return true;
    case TFC_DT_INT8: tfc_strbuf_printf(b, "%d", ((const int8_t *)p)[i]); return true;
    case TFC_DT_INT16: tfc_strbuf_printf(b, "%d", ((const int16_t *)p)[i]); return true;
    case TFC_DT_INT32: tfc_strbuf_printf(b, "%" PRId32, ((const int32_t *)p)[i]); return true;
    case TFC_DT_INT64: tfc_strbuf_printf(b, "%" PRId64, ((const int64_t *)p)[i]); return true;
    case TFC_DT_UINT8: tfc_strbuf_printf(b, "%u", ((const uint8_t *)p)[i]); return true;
    case TFC_DT_UINT16: tfc_strbuf_printf(b, "%u", ((const uint16_t *)p)[i]); return true;
    case TFC_DT_UINT32: tfc_strbuf_printf(b, "%" PRIu32, ((const uint32_t *)p)[i]); return true;
    case TFC_DT_UINT64: tfc_strbuf_printf(b, "%" PRIu64, ((const uint64_t *)p)[i]); return true;
    case TFC_DT_BOOL: tfc_strbuf_puts(b, ((const uint8_t *)p)[i] ? "true" : "false"); return true;
    case TFC_DT_STRING: {
      const tfc_tstring *str = &((const tfc_tstring *)p)[i];
      put_quoted(b, str->data ? str->data : "", str->len);
      return true;
    }
    default: return false;
  }
}

/* dtype[dims]{v,v,...}: the first TEXT_MAX_TENSOR_VALUES values then ",..."; just "{...}"
 * for dtypes whose values are not printed. */
static void put_tensor(tfc_strbuf *b, const tfc_tensor *t) {
  char tmp[TFC_SHAPE_STR_MAX];
  tfc_strbuf_printf(b, "%s%s{", tfc_dtype_name(t->dtype),
                    tfc_dims_str(t->dims, t->ndims, tmp, sizeof tmp));
  if (t->n_elems > 0 && !put_element(b, t, 0)) {
    tfc_strbuf_puts(b, "...}");
    return;
  }
  int64_t n = t->n_elems < TEXT_MAX_TENSOR_VALUES ? t->n_elems : TEXT_MAX_TENSOR_VALUES;
  for (int64_t i = 1; i < n; i++) {
    tfc_strbuf_puts(b, ",");
    put_element(b, t, i);
  }
  tfc_strbuf_puts(b, n < t->n_elems ? ",...}" : "}");
}

static void put_attrs(tfc_strbuf *b, const tfc_attr *attrs, int n_attrs);

static void put_value(tfc_strbuf *b, const tfc_attr_value *v) {
  switch (v->kind) {
    case TFC_ATTR_STRING: put_quoted(b, v->u.s.data, v->u.s.len); break;
    case TFC_ATTR_PLACEHOLDER: tfc_strbuf_printf(b, "$%s", v->u.s.data); break;
    case TFC_ATTR_INT: tfc_strbuf_printf(b, "%" PRId64, v->u.i); break;
    case TFC_ATTR_FLOAT: put_float(b, v->u.f, false); break;
    case TFC_ATTR_BOOL: tfc_strbuf_puts(b, v->u.b ? "true" : "false"); break;
    case TFC_ATTR_TYPE: tfc_strbuf_puts(b, tfc_dtype_name(v->u.type)); break;
    case TFC_ATTR_SHAPE: put_shape(b, v->u.shape); break;
    case TFC_ATTR_TENSOR: put_tensor(b, v->u.tensor); break;
    case TFC_ATTR_FUNC:
      tfc_strbuf_puts(b, v->u.func->name);
      put_attrs(b, v->u.func->attrs, v->u.func->n_attrs);
      break;
    case TFC_ATTR_LIST:
      tfc_strbuf_puts(b, "[");
      for (int i = 0; i < v->u.list.n; i++) {
        if (i) tfc_strbuf_puts(b, ", ");
        put_value(b, &v->u.list.items[i]);
      }
      tfc_strbuf_puts(b, "]");
      break;
    default: tfc_strbuf_puts(b, "<unset>"); break;
  }
}

/* [name=value, ...], nothing when there are no attrs. */
static void put_attrs(tfc_strbuf *b, const tfc_attr *attrs, int n_attrs) {
  if (n_attrs == 0) return;
  tfc_strbuf_puts(b, "[");
  for (int i = 0; i < n_attrs; i++) {
    tfc_strbuf_printf(b, "%s%s=", i ? ", " : "", attrs[i].name);
    put_value(b, &attrs[i].value);
  }
  tfc_strbuf_puts(b, "]");
}

static void put_node(tfc_strbuf *b, const tfc_node *n) {
  tfc_strbuf_printf(b, "%s = %s", n->name, n->op->name);
  put_attrs(b, n->attrs, n->n_attrs);
  tfc_strbuf_puts(b, "(");
  for (int i = 0; i < n->n_inputs; i++) {
    tfc_strbuf_printf(b, "%s%s", i ? ", " : "", n->inputs[i].node->name);
    if (n->inputs[i].index) tfc_strbuf_printf(b, ":%d", n->inputs[i].index);
  }
  for (int i = 0; i < n->n_control_inputs; i++)
    tfc_strbuf_printf(b, "%s^%s", n->n_inputs + i ? ", " : "", n->control_inputs[i]->name);
  tfc_strbuf_puts(b, ")");
  for (int i = 0; i < n->n_outputs; i++) {
    tfc_strbuf_printf(b, "%s%s", i ? ", " : " -> ", tfc_dtype_name(n->output_types[i]));
    put_shape(b, &n->output_shapes[i]);
  }
  const char *dev = n->assigned_device && n->assigned_device[0] ? n->assigned_device : n->device;
  if (dev && dev[0]) tfc_strbuf_printf(b, " @%s", dev);
  tfc_strbuf_puts(b, "\n");
}

void tfc_graph_to_text(const tfc_graph *g, tfc_strbuf *out) {
  for (int i = 0; i < g->n_nodes; i++) put_node(out, g->nodes[i]);
}
