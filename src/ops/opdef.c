/*
 * opdef — parses the op table's spec texts (see opdef.h) into tfc_opdef structs, once.
 *
 * A malformed row is a bug in tfc, caught by the unit tests: parsing reports INTERNAL with the
 * op and the offending text rather than aborting.
 */
#include "ops/opdef.h"

#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "ops/user_ops.h"

typedef struct op_row {
  const char *name, *ins, *outs, *attrs;
  int flags;
  tfc_shape_fn shape_fn;
} op_row;

static const op_row rows[] = {
#define TFC_OP(name, ins, outs, attrs, flags, shape_fn) {#name, ins, outs, attrs, flags, shape_fn},
#include "ops/op_table.h"
#undef TFC_OP
};
_Static_assert(sizeof rows / sizeof rows[0] == TFC_OP_COUNT, "op table rows and enum disagree");

static tfc_opdef defs[TFC_OP_COUNT];
static tfc_hashmap by_name;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static tfc_status init_status;

/* ---- tiny tokenizer over one spec piece ---- */

static const char *skip_ws(const char *p, const char *end) {
  while (p < end && isspace((unsigned char)*p)) p++;
  return p;
}

static char *trimmed(const char *b, const char *e) {
  b = skip_ws(b, e);
  while (e > b && isspace((unsigned char)e[-1])) e--;
  return tfc_strndup(b, (size_t)(e - b));
}

/* Splits `text` at top-level `sep` (not inside {} [] () or quotes); calls fn on each piece. */
static int split_top(const char *text, char sep, int (*fn)(const char *b, const char *e, void *arg),
                     void *arg) {
  int depth = 0, quote = 0;
  const char *start = text;
  for (const char *p = text;; p++) {
    char c = *p;
    if (c == '\0' || (c == sep && depth == 0 && !quote)) {
      const char *b = skip_ws(start, p);
      if (b < p) {
        int r = fn(b, p, arg);
        if (r) return r;
      }
      if (c == '\0') return 0;
      start = p + 1;
      continue;
    }
    if (c == '\'') quote = !quote;
    else if (!quote && (c == '{' || c == '[' || c == '(')) depth++;
    else if (!quote && (c == '}' || c == ']' || c == ')')) depth--;
  }
}

typedef struct parse_state {
  tfc_opdef *op;
  tfc_status *s;
  int outputs; /* parsing outputs, not inputs */
  int user;    /* a user's op definition (tfc_opdef_parse): its mistakes are INVALID_ARGUMENT */
} parse_state;

static int bad(parse_state *ps, const char *b, const char *e, const char *why) {
  if (ps->user)
    return tfc_status_set(ps->s, TFC_INVALID_ARGUMENT, "Op %s: %s in '%.*s'", ps->op->name, why, (int)(e - b), b);
  return tfc_status_set(ps->s, TFC_INTERNAL, "op table row %s: %s in '%.*s'", ps->op->name, why,
                        (int)(e - b), b);
}

static int parse_arg(const char *b, const char *e, void *arg) {
  parse_state *ps = arg;
  const char *colon = memchr(b, ':', (size_t)(e - b));
  if (!colon) return bad(ps, b, e, "missing ':'");
  tfc_arg_def a = {0};
  a.name = trimmed(b, colon);
  char *t = trimmed(colon + 1, e);
  char *type = t;
  if (strncmp(type, "Ref(", 4) == 0) {
    a.is_ref = 1;
    type += 4;
    char *close = strchr(type, ')');
    if (close) *close = '\0';
  }
  char *star = strchr(type, '*');
  if (star) {
    char *n = type;
    *star = '\0';
    char *tt = star + 1;
    while (*tt == ' ') tt++;
    a.number_attr = trimmed(n, n + strlen(n));
    type = tt;
  }
  int dt = tfc_dtype_from_name(type, strlen(type));
  if (dt > 0) {
    a.type = dt;
  } else {
    const tfc_attr_def *ad = NULL;
    for (int i = 0; i < ps->op->n_attrs; i++)
      if (strcmp(ps->op->attrs[i].name, type) == 0) ad = &ps->op->attrs[i];
    if (!ad) {
      free(t);
      free(a.name);
      free(a.number_attr);
      return bad(ps, b, e, "type names no attr");
    }
    if (ad->is_list) a.type_list_attr = tfc_strdup(type);
    else a.type_attr = tfc_strdup(type);
  }
  free(t);
  tfc_arg_def **list = ps->outputs ? &ps->op->outputs : &ps->op->inputs;
  int *n = ps->outputs ? &ps->op->n_outputs : &ps->op->n_inputs;
  tfc_arg_def *nl = realloc(*list, sizeof *nl * (size_t)(*n + 1));
  if (!nl) return TFC_OOM(ps->s);
  nl[(*n)++] = a;
  *list = nl;
  return 0;
}

static int kind_from_word(const char *w) {
  static const char *words[] = {"", "string", "int", "float", "bool", "type", "shape", "tensor",
                                "placeholder", "func"};
  for (int k = 1; k < (int)TFC_ARRAY_SIZE(words); k++)
    if (strcmp(w, words[k]) == 0) return k;
  return -1;
}

/* Parses one scalar default of `kind` from text. */
static int parse_scalar(parse_state *ps, int kind, const char *txt, tfc_attr_value *out) {
  memset(out, 0, sizeof *out);
  switch (kind) {
    case TFC_ATTR_INT: *out = tfc_attr_int(strtoll(txt, NULL, 10)); return 0;
    case TFC_ATTR_FLOAT: *out = tfc_attr_float(strtof(txt, NULL)); return 0;
    case TFC_ATTR_BOOL: *out = tfc_attr_bool(strcmp(txt, "true") == 0); return 0;
    case TFC_ATTR_TYPE: {
      const char *n = txt;
      char low[32];
      if (strncmp(n, "DT_", 3) == 0) {
        size_t i = 0;
        for (n += 3; *n && i + 1 < sizeof low; n++) low[i++] = (char)tolower((unsigned char)*n);
        low[i] = '\0';
        n = low;
      }
      int dt = tfc_dtype_from_name(n, strlen(n));
      if (dt <= 0) return bad(ps, txt, txt + strlen(txt), "bad type default");
      *out = tfc_attr_type(dt);
      return 0;
    }
    case TFC_ATTR_STRING: {
      size_t len = strlen(txt);
      if (len < 2 || txt[0] != '\'' || txt[len - 1] != '\'')
        return bad(ps, txt, txt + len, "string default needs quotes");
      return tfc_attr_string(txt + 1, len - 2, out, ps->s);
    }
    case TFC_ATTR_SHAPE: {
      tfc_shape sh = tfc_shape_unknown();
      if (strcmp(txt, "?") != 0) {
        if (txt[0] != '[') return bad(ps, txt, txt + strlen(txt), "bad shape default");
        sh.rank = 0;
        const char *p = txt + 1;
        while (*p && *p != ']') {
          char *endp;
          long long d = strtoll(p, &endp, 10);
          if (endp == p) break;
          sh.dims[sh.rank++] = d;
          p = endp;
          while (*p == ',' || *p == ' ') p++;
        }
      }
      return tfc_attr_shape(&sh, out, ps->s);
    }
    default: return bad(ps, txt, txt + strlen(txt), "kind has no default syntax");
  }
}

typedef struct list_parse {
  parse_state *ps;
  int kind;
  tfc_attr_value *list;
} list_parse;

static int list_item(const char *b, const char *e, void *arg) {
  list_parse *lp = arg;
  char *t = trimmed(b, e);
  tfc_attr_value v;
  int r = parse_scalar(lp->ps, lp->kind, t, &v);
  free(t);
  if (r) return r;
  return tfc_attr_list_append(lp->list, &v, lp->ps->s);
}

typedef struct allowed_parse {
  tfc_attr_def *ad;
  parse_state *ps;
} allowed_parse;

static int allowed_item(const char *b, const char *e, void *arg) {
  allowed_parse *ap = arg;
  tfc_attr_def *ad = ap->ad;
  char *t = trimmed(b, e);
  if (!t) return TFC_OOM(ap->ps->s);
  if (t[0] == '\'') {
    char **a = realloc(ad->allowed_strings, sizeof *a * (size_t)(ad->n_allowed + 1));
    if (!a) { free(t); return TFC_OOM(ap->ps->s); }
    ad->allowed_strings = a;
    a[ad->n_allowed++] = tfc_strndup(t + 1, strlen(t) - 2);
    free(t);
    return 0;
  }
  int dt = tfc_dtype_from_name(t, strlen(t));
  free(t);
  if (dt <= 0) return bad(ap->ps, b, e, "unknown type in allowed list");
  int *a = realloc(ad->allowed_types, sizeof *a * (size_t)(ad->n_allowed + 1));
  if (!a) return TFC_OOM(ap->ps->s);
  ad->allowed_types = a;
  a[ad->n_allowed++] = dt;
  return 0;
}

/* Frees what a half-parsed attr def holds (a malformed user spec); returns rc. */
static int attr_def_drop(tfc_attr_def *ad, int rc) {
  free(ad->name);
  free(ad->type_text);
  /* n_allowed counts strings only when no types were given (a mix is malformed) */
  for (int k = 0; k < ad->n_allowed && ad->allowed_strings && !ad->allowed_types; k++) free(ad->allowed_strings[k]);
  free(ad->allowed_types);
  free(ad->allowed_strings);
  return rc;
}

static int parse_attr(const char *b, const char *e, void *arg) {
  parse_state *ps = arg;
  const char *colon = memchr(b, ':', (size_t)(e - b));
  if (!colon) return bad(ps, b, e, "missing ':'");
  tfc_attr_def ad = {0};
  b = skip_ws(b, colon);
  if (*b == '+') {
    ad.added_later = 1;
    b++;
  }
  ad.name = trimmed(b, colon);
  /* split "kind [>= min] [= default]" */
  const char *eq = NULL;
  for (const char *p = colon + 1; p < e; p++)
    if (*p == '=' && p[-1] != '>' && p[-1] != '<') { eq = p; break; }
  char *kt = trimmed(colon + 1, eq ? eq : e);
  char *ge = strstr(kt, ">=");
  if (ge) {
    ad.has_minimum = 1;
    ad.minimum = strtoll(ge + 2, NULL, 10);
    *ge = '\0';
    char *k2 = trimmed(kt, kt + strlen(kt));
    free(kt);
    kt = k2;
  }
  ad.type_text = tfc_strdup(kt);
  char *inner = kt;
  if (strncmp(kt, "list(", 5) == 0) {
    ad.is_list = 1;
    inner = kt + 5;
    char *close = strrchr(inner, ')');
    if (close) *close = '\0';
  }
  if (inner[0] == '{') {
    /* allowed values: types or strings */
    int is_str = strchr(inner, '\'') != NULL;
    ad.kind = is_str ? TFC_ATTR_STRING : TFC_ATTR_TYPE;
    char *close = strrchr(inner, '}');
    if (close) *close = '\0';
    allowed_parse ap = {&ad, ps};
    int r = split_top(inner + 1, ',', allowed_item, &ap);
    if (r) { free(kt); return attr_def_drop(&ad, r); }
    free(ad.type_text);
    ad.type_text = tfc_strdup(ad.is_list ? (is_str ? "list(string)" : "list(type)")
                                         : (is_str ? "string" : "type"));
  } else {
    ad.kind = kind_from_word(inner);
    if (ad.kind < 0) { free(kt); return attr_def_drop(&ad, bad(ps, b, e, "unknown attr kind")); }
  }
  free(kt);
  if (eq) {
    char *dt = trimmed(eq + 1, e);
    int r;
    if (ad.is_list) {
      ad.default_value = tfc_attr_list(ad.kind);
      size_t n = strlen(dt);
      if (n < 2 || dt[0] != '[') {
        free(dt);
        tfc_attr_value_fini(&ad.default_value);
        return attr_def_drop(&ad, bad(ps, b, e, "list default needs []"));
      }
      dt[n - 1] = '\0';
      list_parse lp = {ps, ad.kind, &ad.default_value};
      r = split_top(dt + 1, ',', list_item, &lp);
    } else {
      r = parse_scalar(ps, ad.kind, dt, &ad.default_value);
    }
    free(dt);
    if (r) {
      tfc_attr_value_fini(&ad.default_value);
      return attr_def_drop(&ad, r);
    }
    ad.has_default = 1;
  }
  tfc_attr_def *na = realloc(ps->op->attrs, sizeof *na * (size_t)(ps->op->n_attrs + 1));
  if (!na) return TFC_OOM(ps->s);
  na[ps->op->n_attrs++] = ad;
  ps->op->attrs = na;
  return 0;
}

static void init_once(void) {
  tfc_status_init(&init_status);
  tfc_hashmap_init(&by_name);
  for (int i = 0; i < TFC_OP_COUNT && tfc_status_ok(&init_status); i++) {
    tfc_opdef *op = &defs[i];
    op->id = i;
    op->name = rows[i].name;
    op->flags = rows[i].flags;
    op->shape_fn = rows[i].shape_fn;
    parse_state ps = {op, &init_status, 0, 0};
    /* attrs first: arg specs refer to them */
    if (split_top(rows[i].attrs, ';', parse_attr, &ps)) break;
    if (split_top(rows[i].ins, ',', parse_arg, &ps)) break;
    ps.outputs = 1;
    if (split_top(rows[i].outs, ',', parse_arg, &ps)) break;
    if (tfc_hashmap_put(&by_name, op->name, op) != 0) TFC_OOM(&init_status);
  }
}

int tfc_ops_init(tfc_status *s) {
  pthread_once(&once, init_once);
  if (!tfc_status_ok(&init_status))
    return tfc_status_set(s, init_status.code, "%s", tfc_status_msg(&init_status));
  return TFC_OK;
}

const tfc_opdef *tfc_op_lookup(const char *name) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_ops_init(&s);
  tfc_status_fini(&s);
  const tfc_opdef *op = tfc_hashmap_get(&by_name, name);
  return op ? op : tfc_user_op_lookup(name);
}

const tfc_opdef *tfc_op_by_id(int id) {
  tfc_status s;
  tfc_status_init(&s);
  tfc_ops_init(&s);
  tfc_status_fini(&s);
  if (id >= TFC_OP_USER_BASE) return tfc_user_op_by_id(id);
  return id >= 0 && id < TFC_OP_COUNT ? &defs[id] : NULL;
}

void tfc_opdef_free(tfc_opdef *op) {
  if (!op) return;
  tfc_arg_def *lists[2] = {op->inputs, op->outputs};
  int counts[2] = {op->n_inputs, op->n_outputs};
  for (int l = 0; l < 2; l++) {
    for (int i = 0; i < counts[l]; i++) {
      free(lists[l][i].name);
      free(lists[l][i].type_attr);
      free(lists[l][i].number_attr);
      free(lists[l][i].type_list_attr);
    }
    free(lists[l]);
  }
  for (int i = 0; i < op->n_attrs; i++) {
    tfc_attr_def *ad = &op->attrs[i];
    free(ad->name);
    free(ad->type_text);
    if (ad->has_default) tfc_attr_value_fini(&ad->default_value);
    free(ad->allowed_types);
    for (int k = 0; k < ad->n_allowed && ad->allowed_strings; k++) free(ad->allowed_strings[k]);
    free(ad->allowed_strings);
  }
  free(op->attrs);
  free((char *)op->name);
  free(op);
}

tfc_opdef *tfc_opdef_parse(const char *name, const char *ins, const char *outs, const char *attrs, int flags,
                           tfc_shape_fn shape_fn, tfc_status *s) {
  tfc_opdef *op = calloc(1, sizeof *op);
  if (!op || !(op->name = tfc_strdup(name))) {
    free(op);
    TFC_OOM(s);
    return NULL;
  }
  op->id = -1;
  op->flags = flags;
  op->shape_fn = shape_fn;
  parse_state ps = {op, s, 0, 1};
  if (split_top(attrs, ';', parse_attr, &ps) || split_top(ins, ',', parse_arg, &ps)) goto fail;
  ps.outputs = 1;
  if (split_top(outs, ',', parse_arg, &ps)) goto fail;
  return op;
fail:
  tfc_opdef_free(op);
  return NULL;
}

const tfc_attr_def *tfc_opdef_attr(const tfc_opdef *op, const char *name) {
  for (int i = 0; i < op->n_attrs; i++)
    if (strcmp(op->attrs[i].name, name) == 0) return &op->attrs[i];
  return NULL;
}

int tfc_opdef_arg_type_1_15(const tfc_opdef *op, const tfc_arg_def *a) {
  const tfc_attr_def *ad = a->type_attr ? tfc_opdef_attr(op, a->type_attr) : NULL;
  if (ad && ad->added_later && ad->has_default && ad->default_value.kind == TFC_ATTR_TYPE)
    return ad->default_value.u.type;
  return 0;
}

static void format_args(tfc_strbuf *b, const tfc_opdef *op, const tfc_arg_def *args, int n) {
  for (int i = 0; i < n; i++) {
    const tfc_arg_def *a = &args[i];
    int fixed = tfc_opdef_arg_type_1_15(op, a);
    tfc_strbuf_printf(b, "%s%s:", i ? ", " : "", a->name);
    if (a->is_ref) tfc_strbuf_puts(b, "Ref(");
    if (a->number_attr) tfc_strbuf_printf(b, "%s*", a->number_attr);
    if (fixed) tfc_strbuf_puts(b, tfc_dtype_name(fixed));
    else if (a->type) tfc_strbuf_puts(b, tfc_dtype_name(a->type));
    else tfc_strbuf_puts(b, a->type_attr ? a->type_attr : a->type_list_attr);
    if (a->is_ref) tfc_strbuf_puts(b, ")");
  }
}

void tfc_opdef_format(const tfc_opdef *op, char *buf, size_t n) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  tfc_strbuf_printf(&b, "Op<name=%s; signature=", op->name);
  format_args(&b, op, op->inputs, op->n_inputs);
  tfc_strbuf_puts(&b, " -> ");
  format_args(&b, op, op->outputs, op->n_outputs);
  for (int i = 0; i < op->n_attrs; i++) {
    const tfc_attr_def *a = &op->attrs[i];
    if (a->added_later) continue; /* TF 1.15's text */
    tfc_strbuf_printf(&b, "; attr=%s:%s", a->name, a->type_text);
    if (a->has_default) {
      char v[256];
      tfc_attr_value_format(&a->default_value, v, sizeof v);
      tfc_strbuf_printf(&b, ",default=%s", v);
    }
    if (a->n_allowed && a->allowed_types) {
      tfc_strbuf_puts(&b, ",allowed=[");
      for (int j = 0; j < a->n_allowed; j++) {
        char v[64];
        tfc_attr_value tv = tfc_attr_type(a->allowed_types[j]);
        tfc_attr_value_format(&tv, v, sizeof v);
        tfc_strbuf_printf(&b, "%s%s", j ? ", " : "", v);
      }
      tfc_strbuf_puts(&b, "]");
    }
  }
  tfc_strbuf_puts(&b, ">");
  snprintf(buf, n, "%s", tfc_strbuf_str(&b));
  tfc_strbuf_fini(&b);
}
