/*
 * kernels_regex — CPU kernels of the regex string ops, over RE2 through base/regex.h (TF's
 * engine, with its default options, so patterns mean what they mean in TF):
 *   - StaticRegexFullMatch (pattern attr) / RegexFullMatch (pattern a scalar input): whether
 *     each string matches the whole pattern; bool output of the input's shape.
 *   - StaticRegexReplace (pattern, rewrite attrs) / RegexReplace (scalar inputs): the first or
 *     (replace_global) every match replaced; "\1" names a group in the rewrite.
 * The Static* forms compile the pattern once, when the kernel is made (a bad pattern fails
 * there, as TF's constructor does); the input forms compile it at each run. A bad pattern is
 * INVALID_ARGUMENT "Invalid pattern: <pattern>, error: <RE2's reason>", TF's text.
 */
#include <stdlib.h>
#include <string.h>

#include "base/regex.h"
#include "device/cpu/cpu_kernels.h"
#include "graph/graph.h"
#include "ops/opdef.h"

/* Compiles p[0..len) or sets TF's error in s. */
static tfc_regex *compile(const char *p, size_t len, tfc_status *s) {
  char *err = NULL;
  tfc_regex *re = tfc_regex_new(p, len, &err);
  if (re) return re;
  if (err)
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Invalid pattern: %.*s, error: %s", (int)len, p ? p : "", err);
  else
    TFC_OOM(s);
  free(err);
  return NULL;
}

typedef struct regex_state {
  tfc_regex *re;        /* the Static* forms' compiled pattern */
  const char *rewrite;  /* StaticRegexReplace's rewrite (borrowed from the node) */
  size_t rewrite_len;
  int global;           /* replace_global */
} regex_state;

static void regex_state_free(void *p) {
  regex_state *st = p;
  if (!st) return;
  tfc_regex_free(st->re);
  free(st);
}

static int string_attr(const tfc_node *n, const char *name, const char **out, size_t *out_len, tfc_status *s) {
  const tfc_attr_value *v = tfc_node_attr(n, name);
  if (!v || v->kind != TFC_ATTR_STRING)
    return tfc_status_set(s, TFC_INTERNAL, "node '%s' (%s) lacks its string attr '%s'", n->name, n->op->name, name);
  *out = v->u.s.data;
  *out_len = v->u.s.len;
  return TFC_OK;
}

/* Static*: the pattern attr compiled; StaticRegexReplace also reads rewrite and replace_global.
 * RegexReplace keeps only replace_global. */
static int regex_init(const tfc_node *n, void **state, tfc_status *s) {
  regex_state *st = calloc(1, sizeof *st);
  if (!st) return TFC_OOM(s);
  int is_static = n->op->id == TFC_OP_StaticRegexFullMatch || n->op->id == TFC_OP_StaticRegexReplace;
  int is_replace = n->op->id == TFC_OP_StaticRegexReplace || n->op->id == TFC_OP_RegexReplace;
  const char *p = NULL;
  size_t len = 0;
  int rc = TFC_OK;
  if (is_static && !(rc = string_attr(n, "pattern", &p, &len, s)) && !(st->re = compile(p, len, s))) rc = s->code;
  if (!rc && n->op->id == TFC_OP_StaticRegexReplace) rc = string_attr(n, "rewrite", &st->rewrite, &st->rewrite_len, s);
  if (!rc && is_replace) rc = tfc_kernel_attr_bool(n, "replace_global", &st->global, s);
  if (rc) {
    regex_state_free(st);
    return rc;
  }
  *state = st;
  return TFC_OK;
}

static const tfc_tstring *str_at(const tfc_tensor *t, int64_t i) { return &tfc_tensor_strings(t)[i]; }

/* The scalar string input i (its shape was checked by the shape function, again here since
 * a kernel may run on an unchecked graph). */
static int scalar_input(tfc_kernel_ctx *c, int i, const char *what, const tfc_tstring **out) {
  if (c->inputs[i]->ndims != 0) {
    char a[TFC_SHAPE_STR_MAX];
    return tfc_kernel_error(c, TFC_INVALID_ARGUMENT, "%s must be scalar, but received %s", what,
                            tfc_tensor_shape_str(c->inputs[i], a, sizeof a));
  }
  *out = str_at(c->inputs[i], 0);
  return TFC_OK;
}

static int full_match_compute(tfc_kernel_ctx *c) {
  regex_state *st = c->state;
  tfc_regex *re = st->re;
  if (!re) {
    const tfc_tstring *p;
    TFC_TRY(scalar_input(c, 1, "Pattern", &p));
    if (!(re = compile(p->data, p->len, c->status))) return c->status->code;
  }
  const tfc_tensor *x = c->inputs[0];
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_BOOL, x->dims, x->ndims);
  if (out)
    for (int64_t i = 0; i < x->n_elems; i++)
      ((uint8_t *)out->data)[i] = (uint8_t)tfc_regex_full_match(re, str_at(x, i)->data, str_at(x, i)->len);
  if (re != st->re) tfc_regex_free(re);
  return out ? TFC_OK : c->status->code;
}

static int replace_compute(tfc_kernel_ctx *c) {
  regex_state *st = c->state;
  tfc_regex *re = st->re;
  const char *rw = st->rewrite;
  size_t rw_len = st->rewrite_len;
  if (!re) {
    const tfc_tstring *p, *r;
    TFC_TRY(scalar_input(c, 1, "Pattern", &p));
    TFC_TRY(scalar_input(c, 2, "Rewrite", &r));
    rw = r->data;
    rw_len = r->len;
    if (!(re = compile(p->data, p->len, c->status))) return c->status->code;
  }
  const tfc_tensor *x = c->inputs[0];
  tfc_tensor *out = tfc_kernel_alloc_output(c, 0, TFC_DT_STRING, x->dims, x->ndims);
  int rc = out ? TFC_OK : c->status->code;
  for (int64_t i = 0; !rc && i < x->n_elems; i++) {
    char *buf;
    size_t len;
    if (tfc_regex_replace(re, str_at(x, i)->data, str_at(x, i)->len, rw, rw_len, st->global, &buf, &len))
      rc = TFC_OOM(c->status);
    else
      rc = tfc_tstring_assign(&tfc_tensor_strings(out)[i], buf, len, c->status), free(buf);
  }
  if (re != st->re) tfc_regex_free(re);
  return rc;
}

#define HOST_ALL .host_memory_in = TFC_TYPES_ALL, .host_memory_out = TFC_TYPES_ALL
#define STATE .init = regex_init, .free_state = regex_state_free

static const tfc_kernel_def defs[] = {
    {.op = TFC_OP_StaticRegexFullMatch, HOST_ALL, STATE, .compute = full_match_compute},
    {.op = TFC_OP_RegexFullMatch, HOST_ALL, STATE, .compute = full_match_compute},
    {.op = TFC_OP_StaticRegexReplace, HOST_ALL, STATE, .compute = replace_compute},
    {.op = TFC_OP_RegexReplace, HOST_ALL, STATE, .compute = replace_compute},
};

int tfc_cpu_kernels_regex(tfc_kernel_table *t, tfc_status *s) {
  return tfc_kernel_table_add(t, defs, (int)(sizeof defs / sizeof *defs), s);
}
