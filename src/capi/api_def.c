/*
 * api_def — TF_ApiDefMap: the ApiDef of each op of an OpList, as TF's ApiDefMap keeps them
 * for language binding generators.
 *
 * TF_NewApiDefMap starts each op's ApiDef from its OpDef as TF does: graph_op_name, VISIBLE,
 * one endpoint named as the op, an in_arg / out_arg per argument (rename_to its own name, its
 * description), arg_order the inputs' names, an attr per attr (rename_to, default_value when
 * the attr has one, description), summary and description. TF_ApiDefMapPut merges ApiDefs
 * given as text (proto/pb_text.h) into the ops they name (ops not in the map are skipped, as
 * TF skips them): a visibility other than DEFAULT_VISIBILITY replaces, endpoints replace,
 * args and attrs are matched by name (an unknown one is INVALID_ARGUMENT) and take a
 * non-empty rename_to / description and a given default_value, arg_order must be a
 * permutation of the inputs, summary and description replace when not empty,
 * description_prefix / _suffix join the description with a newline, and the deprecation
 * fields replace when set; TF's texts for what does not match the op (FAILED_PRECONDITION).
 * TF_ApiDefMapGet returns one op's ApiDef serialized (NULL and OK for an op not in the map,
 * as TF); the first Get finalizes the docs as TF's UpdateDocs does ("`x`" becomes "`input`"
 * where x is renamed, and the op's name its first endpoint's), and Put is then
 * FAILED_PRECONDITION.
 *
 * Ownership: the map owns its ApiDefs; Get's buffer is the caller's. Not thread-safe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/mem.h"
#include "base/strbuf.h"
#include "capi/capi_internal.h"
#include "proto/pb_text.h"
#include "proto/pb_util.h"
#include "tensorflow/api_def.pb-c.h"
#include "tensorflow/op_def.pb-c.h"

struct TF_ApiDefMap {
  Tensorflow__ApiDef **defs; /* heap messages (protobuf_c_message_free_unpacked) */
  size_t n;
  tfc_hashmap by_name;       /* graph_op_name -> index + 1 */
  int finalized;
};

static char *dup_text(const char *t) { return tfc_strdup(t ? t : ""); }

static void set_text(char **field, const char *v) {
  char *n = dup_text(v);
  if (!n) return;
  if (*field && *field != (char *)protobuf_c_empty_string) free(*field);
  *field = n;
}

static Tensorflow__ApiDef__Arg *new_arg(const Tensorflow__OpDef__ArgDef *a) {
  Tensorflow__ApiDef__Arg *r = malloc(sizeof *r);
  if (!r) return NULL;
  tensorflow__api_def__arg__init(r);
  set_text(&r->name, a->name);
  set_text(&r->rename_to, a->name);
  set_text(&r->description, a->description);
  return r;
}

/* A copy of an AttrValue through its wire bytes (heap, free_unpacked). */
static Tensorflow__AttrValue *copy_attr_value(const Tensorflow__AttrValue *v) {
  size_t len = tensorflow__attr_value__get_packed_size(v);
  uint8_t *buf = malloc(len ? len : 1);
  if (!buf) return NULL;
  tensorflow__attr_value__pack(v, buf);
  Tensorflow__AttrValue *c = tensorflow__attr_value__unpack(NULL, len, buf);
  free(buf);
  return c;
}

static Tensorflow__ApiDef *from_opdef(const Tensorflow__OpDef *op) {
  Tensorflow__ApiDef *d = malloc(sizeof *d);
  if (!d) return NULL;
  tensorflow__api_def__init(d);
  set_text(&d->graph_op_name, op->name);
  d->visibility = TENSORFLOW__API_DEF__VISIBILITY__VISIBLE;
  d->endpoint = calloc(1, sizeof *d->endpoint);
  d->in_arg = calloc(op->n_input_arg + 1, sizeof *d->in_arg);
  d->arg_order = calloc(op->n_input_arg + 1, sizeof *d->arg_order);
  d->out_arg = calloc(op->n_output_arg + 1, sizeof *d->out_arg);
  d->attr = calloc(op->n_attr + 1, sizeof *d->attr);
  if (!d->endpoint || !d->in_arg || !d->arg_order || !d->out_arg || !d->attr) goto oom;
  Tensorflow__ApiDef__Endpoint *e = malloc(sizeof *e);
  if (!e) goto oom;
  tensorflow__api_def__endpoint__init(e);
  set_text(&e->name, op->name);
  d->endpoint[d->n_endpoint++] = e;
  for (size_t i = 0; i < op->n_input_arg; i++) {
    if (!(d->in_arg[d->n_in_arg] = new_arg(op->input_arg[i]))) goto oom;
    d->n_in_arg++;
    if (!(d->arg_order[d->n_arg_order] = dup_text(op->input_arg[i]->name))) goto oom;
    d->n_arg_order++;
  }
  for (size_t i = 0; i < op->n_output_arg; i++) {
    if (!(d->out_arg[d->n_out_arg] = new_arg(op->output_arg[i]))) goto oom;
    d->n_out_arg++;
  }
  for (size_t i = 0; i < op->n_attr; i++) {
    Tensorflow__ApiDef__Attr *a = malloc(sizeof *a);
    if (!a) goto oom;
    tensorflow__api_def__attr__init(a);
    d->attr[d->n_attr++] = a;
    set_text(&a->name, op->attr[i]->name);
    set_text(&a->rename_to, op->attr[i]->name);
    set_text(&a->description, op->attr[i]->description);
    if (op->attr[i]->default_value && !(a->default_value = copy_attr_value(op->attr[i]->default_value))) goto oom;
  }
  set_text(&d->summary, op->summary);
  set_text(&d->description, op->description);
  return d;
oom:
  tensorflow__api_def__free_unpacked(d, NULL);
  return NULL;
}

TFC_EXPORT void TF_DeleteApiDefMap(TF_ApiDefMap *m) {
  if (!m) return;
  for (size_t i = 0; i < m->n; i++) tensorflow__api_def__free_unpacked(m->defs[i], NULL);
  free(m->defs);
  tfc_hashmap_fini(&m->by_name);
  free(m);
}

TFC_EXPORT TF_ApiDefMap *TF_NewApiDefMap(TF_Buffer *op_list_buffer, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!op_list_buffer) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_NewApiDefMap: op_list_buffer is NULL");
    return NULL;
  }
  Tensorflow__OpList *ol = (Tensorflow__OpList *)tfc_pb_unpack(&tensorflow__op_list__descriptor, op_list_buffer->data,
                                                               op_list_buffer->length, "OpList", s);
  if (!ol) return NULL;
  TF_ApiDefMap *m = calloc(1, sizeof *m);
  if (m) {
    tfc_hashmap_init(&m->by_name);
    m->defs = calloc(ol->n_op + 1, sizeof *m->defs);
  }
  for (size_t i = 0; m && m->defs && i < ol->n_op; i++) {
    Tensorflow__ApiDef *d = from_opdef(ol->op[i]);
    if (!d || tfc_hashmap_put(&m->by_name, d->graph_op_name, (void *)(uintptr_t)(m->n + 1)) != 0) {
      if (d) tensorflow__api_def__free_unpacked(d, NULL);
      TF_DeleteApiDefMap(m);
      m = NULL;
      break;
    }
    m->defs[m->n++] = d;
  }
  if (m && !m->defs) {
    TF_DeleteApiDefMap(m);
    m = NULL;
  }
  if (!m) TFC_OOM(s);
  protobuf_c_message_free_unpacked(&ol->base, NULL);
  return m;
}

static int nonempty(const char *t) { return t && *t; }

static Tensorflow__ApiDef__Arg *find_arg(Tensorflow__ApiDef__Arg **args, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(args[i]->name, name)) return args[i];
  return NULL;
}

static int merge_args(Tensorflow__ApiDef__Arg **base, size_t n_base, Tensorflow__ApiDef__Arg *const *add,
                      size_t n_add, const char *op, tfc_status *s) {
  for (size_t i = 0; i < n_add; i++) {
    Tensorflow__ApiDef__Arg *b = find_arg(base, n_base, add[i]->name);
    if (!b)
      return tfc_status_set(s, TFC_FAILED_PRECONDITION, "Argument %s not defined in base api for %s", add[i]->name,
                            op);
    if (nonempty(add[i]->rename_to)) set_text(&b->rename_to, add[i]->rename_to);
    if (nonempty(add[i]->description)) set_text(&b->description, add[i]->description);
  }
  return TFC_OK;
}

/* Moves the repeated message field (array + count) from `from` to `to`, freeing to's old. */
#define MOVE_REPEATED(to, from, field, free_fn)                                                   \
  do {                                                                                            \
    for (size_t k_ = 0; k_ < (to)->n_##field; k_++) free_fn((to)->field[k_], NULL);              \
    free((to)->field);                                                                            \
    (to)->field = (from)->field;                                                                  \
    (to)->n_##field = (from)->n_##field;                                                          \
    (from)->field = NULL;                                                                         \
    (from)->n_##field = 0;                                                                        \
  } while (0)

static void free_msg(void *m, void *unused) {
  (void)unused;
  protobuf_c_message_free_unpacked(m, NULL);
}

static void free_str(char *p, void *unused) {
  (void)unused;
  free(p);
}

static int merge(Tensorflow__ApiDef *base, Tensorflow__ApiDef *add, tfc_status *s) {
  const char *op = base->graph_op_name;
  if (add->visibility != TENSORFLOW__API_DEF__VISIBILITY__DEFAULT_VISIBILITY) base->visibility = add->visibility;
  if (add->n_endpoint) MOVE_REPEATED(base, add, endpoint, free_msg);
  TFC_TRY(merge_args(base->in_arg, base->n_in_arg, add->in_arg, add->n_in_arg, op, s));
  TFC_TRY(merge_args(base->out_arg, base->n_out_arg, add->out_arg, add->n_out_arg, op, s));
  if (add->n_arg_order) {
    if (add->n_arg_order != base->n_arg_order)
      return tfc_status_set(s, TFC_FAILED_PRECONDITION, "Invalid number of arguments %zu for %s. Expected: %zu",
                            add->n_arg_order, op, base->n_arg_order);
    /* the same names in another order: compare as sorted multisets */
    int ok = 1;
    for (size_t i = 0; ok && i < add->n_arg_order; i++) {
      size_t in_add = 0, in_base = 0;
      for (size_t j = 0; j < add->n_arg_order; j++) in_add += !strcmp(add->arg_order[i], add->arg_order[j]);
      for (size_t j = 0; j < base->n_arg_order; j++) in_base += !strcmp(add->arg_order[i], base->arg_order[j]);
      ok = in_add == in_base;
    }
    if (!ok) {
      tfc_strbuf m;
      tfc_strbuf_init(&m);
      tfc_strbuf_puts(&m, "Invalid arg_order: ");
      for (size_t i = 0; i < add->n_arg_order; i++) tfc_strbuf_printf(&m, "%s%s", i ? ", " : "", add->arg_order[i]);
      tfc_strbuf_printf(&m, " for %s. All elements in arg_order override must match base arg_order: ", op);
      for (size_t i = 0; i < base->n_arg_order; i++) tfc_strbuf_printf(&m, "%s%s", i ? ", " : "", base->arg_order[i]);
      tfc_status_set(s, TFC_FAILED_PRECONDITION, "%s", tfc_strbuf_str(&m));
      tfc_strbuf_fini(&m);
      return s->code;
    }
    MOVE_REPEATED(base, add, arg_order, free_str);
  }
  for (size_t i = 0; i < add->n_attr; i++) {
    Tensorflow__ApiDef__Attr *b = NULL;
    for (size_t j = 0; j < base->n_attr && !b; j++)
      if (!strcmp(base->attr[j]->name, add->attr[i]->name)) b = base->attr[j];
    if (!b)
      return tfc_status_set(s, TFC_FAILED_PRECONDITION, "Attribute %s not defined in base api for %s",
                            add->attr[i]->name, op);
    if (nonempty(add->attr[i]->rename_to)) set_text(&b->rename_to, add->attr[i]->rename_to);
    if (nonempty(add->attr[i]->description)) set_text(&b->description, add->attr[i]->description);
    if (add->attr[i]->default_value) {
      if (b->default_value) tensorflow__attr_value__free_unpacked(b->default_value, NULL);
      b->default_value = add->attr[i]->default_value;
      add->attr[i]->default_value = NULL;
    }
  }
  if (nonempty(add->summary)) set_text(&base->summary, add->summary);
  if (nonempty(add->description)) set_text(&base->description, add->description);
  tfc_strbuf b;
  if (nonempty(add->description_prefix) || nonempty(add->description_suffix)) {
    tfc_strbuf_init(&b);
    if (nonempty(add->description_prefix)) tfc_strbuf_printf(&b, "%s\n", add->description_prefix);
    tfc_strbuf_puts(&b, base->description ? base->description : "");
    if (nonempty(add->description_suffix)) tfc_strbuf_printf(&b, "\n%s", add->description_suffix);
    set_text(&base->description, tfc_strbuf_str(&b));
    tfc_strbuf_fini(&b);
  }
  if (nonempty(add->deprecation_message)) set_text(&base->deprecation_message, add->deprecation_message);
  if (add->deprecation_version > 0) base->deprecation_version = add->deprecation_version;
  return TFC_OK;
}

TFC_EXPORT void TF_ApiDefMapPut(TF_ApiDefMap *m, const char *text, size_t text_len, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!m || (!text && text_len)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_ApiDefMapPut: %s is NULL", !m ? "api_def_map" : "text");
    return;
  }
  if (m->finalized) {
    tfc_status_set(s, TFC_FAILED_PRECONDITION, "TF_ApiDefMapPut cannot be called after TF_ApiDefMapGet has been called.");
    return;
  }
  Tensorflow__ApiDefs *defs =
      (Tensorflow__ApiDefs *)tfc_pb_text_read(&tensorflow__api_defs__descriptor, text ? text : "", text_len, s);
  if (!defs) return;
  for (size_t i = 0; i < defs->n_op && tfc_status_ok(s); i++) {
    uintptr_t k = (uintptr_t)tfc_hashmap_get(&m->by_name, defs->op[i]->graph_op_name);
    if (k) merge(m->defs[k - 1], defs->op[i], s);
  }
  tensorflow__api_defs__free_unpacked(defs, NULL);
}

/* Replaces every "`from`" with "`to`" in *text. */
static void rename_in(char **text, const char *from, const char *to) {
  if (!*text || !**text) return;
  size_t fl = strlen(from) + 2;
  char *fq = malloc(fl + 1), *tq = malloc(strlen(to) + 3);
  if (!fq || !tq) {
    free(fq);
    free(tq);
    return;
  }
  snprintf(fq, fl + 1, "`%s`", from);
  snprintf(tq, strlen(to) + 3, "`%s`", to);
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  const char *p = *text, *hit;
  while ((hit = strstr(p, fq))) {
    tfc_strbuf_append(&b, p, (size_t)(hit - p));
    tfc_strbuf_puts(&b, tq);
    p = hit + fl;
  }
  tfc_strbuf_puts(&b, p);
  if (tfc_strbuf_ok(&b)) set_text(text, tfc_strbuf_str(&b));
  tfc_strbuf_fini(&b);
  free(fq);
  free(tq);
}

/* TF's RenameInDocs: the docs of d name `from` as `to`. */
static void rename_in_docs(Tensorflow__ApiDef *d, const char *from, const char *to) {
  for (size_t i = 0; i < d->n_in_arg; i++) rename_in(&d->in_arg[i]->description, from, to);
  for (size_t i = 0; i < d->n_out_arg; i++) rename_in(&d->out_arg[i]->description, from, to);
  for (size_t i = 0; i < d->n_attr; i++) rename_in(&d->attr[i]->description, from, to);
  rename_in(&d->summary, from, to);
  rename_in(&d->description, from, to);
}

/* TF's UpdateDocs, once, at the first Get: the docs follow the renames (the op to its first
 * endpoint, args and attrs to rename_to). */
static void update_docs(TF_ApiDefMap *m) {
  for (size_t k = 0; k < m->n; k++) {
    Tensorflow__ApiDef *d = m->defs[k];
    if (d->n_endpoint && strcmp(d->graph_op_name, d->endpoint[0]->name) != 0)
      rename_in_docs(d, d->graph_op_name, d->endpoint[0]->name);
    for (size_t i = 0; i < d->n_in_arg; i++)
      if (strcmp(d->in_arg[i]->name, d->in_arg[i]->rename_to) != 0)
        rename_in_docs(d, d->in_arg[i]->name, d->in_arg[i]->rename_to);
    for (size_t i = 0; i < d->n_out_arg; i++)
      if (strcmp(d->out_arg[i]->name, d->out_arg[i]->rename_to) != 0)
        rename_in_docs(d, d->out_arg[i]->name, d->out_arg[i]->rename_to);
    for (size_t i = 0; i < d->n_attr; i++)
      if (strcmp(d->attr[i]->name, d->attr[i]->rename_to) != 0)
        rename_in_docs(d, d->attr[i]->name, d->attr[i]->rename_to);
  }
}

TFC_EXPORT TF_Buffer *TF_ApiDefMapGet(TF_ApiDefMap *m, const char *name, size_t name_len, TF_Status *status) {
  tfc_status *s = tfc_capi_status(status);
  if (!m || (!name && name_len)) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "TF_ApiDefMapGet: %s is NULL", !m ? "api_def_map" : "name");
    return NULL;
  }
  if (!m->finalized) update_docs(m);
  m->finalized = 1;
  char *key = tfc_strndup(name ? name : "", name_len);
  uintptr_t k = key ? (uintptr_t)tfc_hashmap_get(&m->by_name, key) : 0;
  free(key);
  if (!k) return NULL; /* TF: no ApiDef, and no error */
  void *data = NULL;
  size_t len = 0;
  if (tfc_pb_pack(&m->defs[k - 1]->base, &data, &len, s)) return NULL;
  TF_Buffer *b = TF_NewBuffer();
  if (!b) {
    free(data);
    TFC_OOM(s);
    return NULL;
  }
  if (tfc_capi_fill_buffer(b, data, len, s)) {
    TF_DeleteBuffer(b);
    return NULL;
  }
  return b;
}
