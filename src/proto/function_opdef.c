/*
 * function_opdef — the op def of a library function (its FunctionDef's signature), so that a
 * graph node may name a function as its op, as TF's graphs do: TF's function library is an op
 * registry layered over the ops. graph/function.c asks for it the first time a node names the
 * function and keeps it with the function (graph/function.h, tfc_funclib_opdef).
 *
 * The op def has id TFC_OP_COUNT (no kernel, no gradient, no row in the op table), no shape
 * function (outputs unknown, as TF infers a call's shapes only by instantiating it) and the
 * signature's args and attrs: fixed dtypes, type / number / type-list attrs, refs; attr kinds
 * from their type text ("type", "list(int)", ...), defaults, minimums and allowed dtypes. The
 * call itself runs by lowering (session/function_call.h).
 *
 * Ownership: tfc_function_opdef_new returns a heap op def the caller frees with
 * tfc_function_opdef_free. Errors: INVALID_ARGUMENT when the bytes are not a FunctionDef or an
 * attr's type text is not one of TF's; RESOURCE_EXHAUSTED on out of memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "graph/function.h"
#include "ops/opdef.h"
#include "proto/attr_codec.h"
#include "proto/function_codec.h"

static int kind_of_word(const char *w) {
  static const char *words[] = {"string", "int", "float", "bool", "type", "shape", "tensor", "placeholder", "func"};
  static const int kinds[] = {TFC_ATTR_STRING, TFC_ATTR_INT,    TFC_ATTR_FLOAT,       TFC_ATTR_BOOL, TFC_ATTR_TYPE,
                              TFC_ATTR_SHAPE,  TFC_ATTR_TENSOR, TFC_ATTR_PLACEHOLDER, TFC_ATTR_FUNC};
  for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
    if (strcmp(w, words[k]) == 0) return kinds[k];
  return -1;
}

static char *dup_or_null(const char *s) { return s && s[0] ? tfc_strdup(s) : NULL; }

static int args_of(Tensorflow__OpDef__ArgDef *const *in, size_t n, tfc_arg_def **out, tfc_status *s) {
  *out = calloc(n + 1, sizeof **out);
  if (!*out) return TFC_OOM(s);
  for (size_t i = 0; i < n; i++) {
    tfc_arg_def *a = &(*out)[i];
    a->name = tfc_strdup(in[i]->name);
    a->type = (int)in[i]->type;
    a->type_attr = dup_or_null(in[i]->type_attr);
    a->number_attr = dup_or_null(in[i]->number_attr);
    a->type_list_attr = dup_or_null(in[i]->type_list_attr);
    a->is_ref = in[i]->is_ref;
    if (!a->name) return TFC_OOM(s);
  }
  return TFC_OK;
}

static int attr_of(const char *fname, const Tensorflow__OpDef__AttrDef *in, tfc_attr_def *ad, tfc_status *s) {
  ad->name = tfc_strdup(in->name);
  ad->type_text = tfc_strdup(in->type);
  if (!ad->name || !ad->type_text) return TFC_OOM(s);
  char word[64];
  const char *t = in->type;
  size_t len = strlen(t);
  if (strncmp(t, "list(", 5) == 0 && len > 6 && t[len - 1] == ')' && len - 6 < sizeof word) {
    ad->is_list = 1;
    memcpy(word, t + 5, len - 6);
    word[len - 6] = '\0';
  } else {
    snprintf(word, sizeof word, "%s", t);
  }
  ad->kind = kind_of_word(word);
  if (ad->kind < 0)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Function '%s': attr '%s' has unknown type '%s'", fname, in->name,
                          in->type);
  ad->has_minimum = in->has_minimum;
  ad->minimum = in->minimum;
  if (in->default_value) {
    TFC_TRY(tfc_attr_from_proto(in->default_value, &ad->default_value, s));
    ad->has_default = 1;
  }
  const Tensorflow__AttrValue *allowed = in->allowed_values;
  if (ad->kind == TFC_ATTR_TYPE && allowed && allowed->value_case == TENSORFLOW__ATTR_VALUE__VALUE_LIST &&
      allowed->list && allowed->list->n_type) {
    ad->allowed_types = calloc(allowed->list->n_type, sizeof *ad->allowed_types);
    if (!ad->allowed_types) return TFC_OOM(s);
    for (size_t k = 0; k < allowed->list->n_type; k++) ad->allowed_types[k] = (int)allowed->list->type[k];
    ad->n_allowed = (int)allowed->list->n_type;
  }
  return TFC_OK;
}

void tfc_function_opdef_free(tfc_opdef *op) {
  if (!op) return;
  tfc_arg_def *lists[2] = {op->inputs, op->outputs};
  int counts[2] = {op->n_inputs, op->n_outputs};
  for (int l = 0; l < 2; l++) {
    for (int i = 0; lists[l] && i < counts[l]; i++) {
      free(lists[l][i].name);
      free(lists[l][i].type_attr);
      free(lists[l][i].number_attr);
      free(lists[l][i].type_list_attr);
    }
    free(lists[l]);
  }
  for (int i = 0; op->attrs && i < op->n_attrs; i++) {
    free(op->attrs[i].name);
    free(op->attrs[i].type_text);
    free(op->attrs[i].allowed_types);
    tfc_attr_value_fini(&op->attrs[i].default_value);
  }
  free(op->attrs);
  free((char *)op->name);
  free(op);
}

tfc_opdef *tfc_function_opdef_new(const void *def, size_t len, tfc_status *s) {
  Tensorflow__FunctionDef *fd = tensorflow__function_def__unpack(NULL, len, def);
  if (!fd || !fd->signature) {
    if (fd) tensorflow__function_def__free_unpacked(fd, NULL);
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Invalid FunctionDef");
    return NULL;
  }
  const Tensorflow__OpDef *sig = fd->signature;
  tfc_opdef *op = calloc(1, sizeof *op);
  int r = op ? TFC_OK : TFC_OOM(s);
  if (r == TFC_OK) {
    op->id = TFC_OP_COUNT;
    op->name = tfc_strdup(sig->name);
    op->flags = TFC_OPF_NONE;
    op->n_inputs = (int)sig->n_input_arg;
    op->n_outputs = (int)sig->n_output_arg;
    r = op->name ? TFC_OK : TFC_OOM(s);
  }
  if (r == TFC_OK) r = args_of(sig->input_arg, sig->n_input_arg, &op->inputs, s);
  if (r == TFC_OK) r = args_of(sig->output_arg, sig->n_output_arg, &op->outputs, s);
  if (r == TFC_OK && !(op->attrs = calloc(sig->n_attr + 1, sizeof *op->attrs))) r = TFC_OOM(s);
  for (size_t i = 0; r == TFC_OK && i < sig->n_attr; i++) {
    op->n_attrs = (int)i + 1;
    r = attr_of(sig->name, sig->attr[i], &op->attrs[i], s);
  }
  tensorflow__function_def__free_unpacked(fd, NULL);
  if (r != TFC_OK) {
    tfc_function_opdef_free(op);
    return NULL;
  }
  return op;
}
