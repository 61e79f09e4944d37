/*
 * function — a graph's function library; see function.h. Linear lookups: libraries hold tens
 * of functions, and lookups happen at import and C API calls, not per step.
 */
#include "graph/function.h"

#include <stdlib.h>
#include <string.h>

#include "ops/opdef.h"

void tfc_funclib_init(tfc_funclib *lib) { memset(lib, 0, sizeof *lib); }

void tfc_funclib_fini(tfc_funclib *lib) {
  if (!lib) return;
  tfc_funclib_mark zero = {0, 0};
  tfc_funclib_rollback(lib, zero);
  free(lib->funcs);
  free(lib->grads);
  memset(lib, 0, sizeof *lib);
}

const tfc_function *tfc_funclib_find(const tfc_funclib *lib, const char *name) {
  for (int i = 0; i < lib->n_funcs; i++)
    if (strcmp(lib->funcs[i].name, name) == 0) return &lib->funcs[i];
  return NULL;
}

const tfc_opdef *tfc_funclib_opdef(tfc_funclib *lib, const char *name, tfc_status *s) {
  for (int i = 0; i < lib->n_funcs; i++) {
    tfc_function *f = &lib->funcs[i];
    if (strcmp(f->name, name) != 0) continue;
    if (!f->opdef) f->opdef = tfc_function_opdef_new(f->def, f->len, s);
    return f->opdef;
  }
  return NULL;
}

const char *tfc_funclib_grad(const tfc_funclib *lib, const char *func) {
  for (int i = 0; i < lib->n_grads; i++)
    if (strcmp(lib->grads[i].func, func) == 0) return lib->grads[i].grad;
  return NULL;
}

int tfc_funclib_add(tfc_funclib *lib, const char *name, const void *def, size_t len, tfc_status *s) {
  const tfc_function *old = tfc_funclib_find(lib, name);
  if (old) {
    if (old->len == len && memcmp(old->def, def, len) == 0) return TFC_OK;
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "Cannot add function '%s' because a different function with the same name "
                          "already exists.",
                          name);
  }
  if (tfc_ops_init(s)) return s->code;
  if (tfc_op_lookup(name))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "Cannot add function '%s' because an op with the same name already exists.", name);
  if (lib->n_funcs == lib->cap_funcs) {
    int cap = lib->cap_funcs ? 2 * lib->cap_funcs : 8;
    tfc_function *f = realloc(lib->funcs, sizeof *f * (size_t)cap);
    if (!f) return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "Out of memory adding function '%s'", name);
    lib->funcs = f;
    lib->cap_funcs = cap;
  }
  tfc_function f = {strdup(name), malloc(len ? len : 1), len, NULL};
  if (!f.name || !f.def) {
    free(f.name);
    free(f.def);
    return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "Out of memory adding function '%s'", name);
  }
  if (len) memcpy(f.def, def, len);
  lib->funcs[lib->n_funcs++] = f;
  return TFC_OK;
}

int tfc_funclib_add_grad(tfc_funclib *lib, const char *func, const char *grad, tfc_status *s) {
  const char *old = tfc_funclib_grad(lib, func);
  if (old) {
    if (strcmp(old, grad) == 0) return TFC_OK;
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "Cannot assign gradient function '%s' to '%s' because it already has gradient "
                          "function '%s'",
                          grad, func, old);
  }
  if (lib->n_grads == lib->cap_grads) {
    int cap = lib->cap_grads ? 2 * lib->cap_grads : 8;
    tfc_function_grad *g = realloc(lib->grads, sizeof *g * (size_t)cap);
    if (!g) return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "Out of memory adding gradient of '%s'", func);
    lib->grads = g;
    lib->cap_grads = cap;
  }
  tfc_function_grad e = {strdup(func), strdup(grad)};
  if (!e.func || !e.grad) {
    free(e.func);
    free(e.grad);
    return tfc_status_set(s, TFC_RESOURCE_EXHAUSTED, "Out of memory adding gradient of '%s'", func);
  }
  lib->grads[lib->n_grads++] = e;
  return TFC_OK;
}

tfc_funclib_mark tfc_funclib_get_mark(const tfc_funclib *lib) {
  tfc_funclib_mark m = {lib->n_funcs, lib->n_grads};
  return m;
}

void tfc_funclib_rollback(tfc_funclib *lib, tfc_funclib_mark m) {
  while (lib->n_funcs > m.n_funcs) {
    tfc_function *f = &lib->funcs[--lib->n_funcs];
    free(f->name);
    free(f->def);
    tfc_function_opdef_free(f->opdef);
  }
  while (lib->n_grads > m.n_grads) {
    tfc_function_grad *g = &lib->grads[--lib->n_grads];
    free(g->func);
    free(g->grad);
  }
}
