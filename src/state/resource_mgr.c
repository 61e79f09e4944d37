/*
 * resource_mgr — see resource_mgr.h. One map from "container/name" to the variable and one
 * from "type name|container/name" to generic resources (a reference each), guarded by one
 * mutex; entries live until their container is cleared or the manager is freed.
 */
#include "state/resource_mgr.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"

struct tfc_resource_mgr {
  pthread_mutex_t mu;
  tfc_hashmap vars;
  tfc_hashmap res;  /* generic resources */
  atomic_llong next_id; /* lock-free: create functions run under mu and may ask for ids */
  int cancelled;
};

void tfc_resource_init(tfc_resource *r, const tfc_resource_kind *kind) {
  atomic_init(&r->refs, 1);
  r->kind = kind;
}

void tfc_resource_unref(tfc_resource *r) {
  if (!r || atomic_fetch_sub_explicit(&r->refs, 1, memory_order_acq_rel) != 1) return;
  r->kind->free(r);
}

tfc_resource_mgr *tfc_resource_mgr_new(void) {
  tfc_resource_mgr *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  pthread_mutex_init(&m->mu, NULL);
  tfc_hashmap_init(&m->vars);
  tfc_hashmap_init(&m->res);
  atomic_init(&m->next_id, 0);
  return m;
}

void tfc_resource_mgr_free(tfc_resource_mgr *m) {
  if (!m) return;
  for (size_t i = 0; i < m->vars.cap; i++)
    if (m->vars.slots[i].key) tfc_var_unref(m->vars.slots[i].value);
  for (size_t i = 0; i < m->res.cap; i++)
    if (m->res.slots[i].key) tfc_resource_unref(m->res.slots[i].value);
  tfc_hashmap_fini(&m->vars);
  tfc_hashmap_fini(&m->res);
  pthread_mutex_destroy(&m->mu);
  free(m);
}

static const char *container_or_default(const char *container) {
  return container && *container ? container : TFC_DEFAULT_CONTAINER;
}

static char *key_of(const char *container, const char *name) {
  char *k = NULL;
  if (asprintf(&k, "%s/%s", container_or_default(container), name) < 0) return NULL;
  return k;
}

tfc_var *tfc_resource_mgr_var(tfc_resource_mgr *m, const char *container, const char *name, int dtype,
                              const tfc_shape *shape, tfc_status *s) {
  char *key = key_of(container, name);
  if (!key) {
    TFC_OOM(s);
    return NULL;
  }
  pthread_mutex_lock(&m->mu);
  tfc_var *v = tfc_hashmap_get(&m->vars, key);
  if (v && v->dtype != dtype) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT,
                   "Trying to share variable %s, but specified dtype %s and found dtype %s", name,
                   tfc_dtype_name(dtype), tfc_dtype_name(v->dtype));
    v = NULL;
  } else if (v) {
    tfc_var_ref(v);
  } else if ((v = tfc_var_new(name, dtype, shape, s))) {
    if (tfc_hashmap_put(&m->vars, key, v) != 0) {
      tfc_var_unref(v);
      v = NULL;
      TFC_OOM(s);
    } else {
      tfc_var_ref(v);
    }
  }
  pthread_mutex_unlock(&m->mu);
  free(key);
  return v;
}

static char *res_key(const char *container, const char *name, const tfc_resource_kind *kind) {
  char *k = NULL;
  if (asprintf(&k, "%s|%s/%s", kind->type_name, container_or_default(container), name) < 0) return NULL;
  return k;
}

tfc_resource *tfc_resource_mgr_lookup_or_create(tfc_resource_mgr *m, const char *container, const char *name,
                                                const tfc_resource_kind *kind, tfc_resource_create_fn create,
                                                void *arg, tfc_status *s) {
  char *key = res_key(container, name, kind);
  if (!key) {
    TFC_OOM(s);
    return NULL;
  }
  int cancel_new = 0;
  pthread_mutex_lock(&m->mu);
  tfc_resource *r = tfc_hashmap_get(&m->res, key);
  if (r) {
    tfc_resource_ref(r);
  } else if ((r = create(arg, s))) {
    if (tfc_hashmap_put(&m->res, key, r) != 0) {
      tfc_resource_unref(r);
      r = NULL;
      TFC_OOM(s);
    } else {
      tfc_resource_ref(r);
      cancel_new = m->cancelled && kind->cancel;
    }
  }
  pthread_mutex_unlock(&m->mu);
  free(key);
  /* Created after the session closed (a step that started before): born cancelled. */
  if (cancel_new) kind->cancel(r);
  return r;
}

tfc_resource *tfc_resource_mgr_lookup(tfc_resource_mgr *m, const char *container, const char *name,
                                      const tfc_resource_kind *kind, tfc_status *s) {
  char *key = res_key(container, name, kind);
  if (!key) {
    TFC_OOM(s);
    return NULL;
  }
  pthread_mutex_lock(&m->mu);
  tfc_resource *r = tfc_hashmap_get(&m->res, key);
  if (r) tfc_resource_ref(r);
  pthread_mutex_unlock(&m->mu);
  free(key);
  if (!r)
    tfc_status_set(s, TFC_NOT_FOUND, "Resource %s/%s/%s does not exist.", container_or_default(container), name,
                   kind->type_name);
  return r;
}

int64_t tfc_resource_mgr_next_id(tfc_resource_mgr *m) { return atomic_fetch_add(&m->next_id, 1); }

char *tfc_resource_private_name(const char *node_name) {
  char *k = NULL;
  /* \x1f (unit separator) never appears in a name a builder would choose; node names are
   * unique in a session's graph. */
  if (asprintf(&k, "\x1fnode:%s", node_name) < 0) return NULL;
  return k;
}

void tfc_resource_mgr_cancel_all(tfc_resource_mgr *m) {
  /* Collect under the lock, cancel outside it: a cancel takes the resource's own locks. */
  pthread_mutex_lock(&m->mu);
  m->cancelled = 1;
  size_t n = 0;
  tfc_resource **list = malloc(sizeof *list * (m->res.count + 1));
  for (size_t i = 0; list && i < m->res.cap; i++) {
    tfc_resource *r = m->res.slots[i].key ? m->res.slots[i].value : NULL;
    if (r && r->kind->cancel) list[n++] = tfc_resource_ref(r);
  }
  if (!list) { /* out of memory: cancel under the lock rather than not at all */
    for (size_t i = 0; i < m->res.cap; i++) {
      tfc_resource *r = m->res.slots[i].key ? m->res.slots[i].value : NULL;
      if (r && r->kind->cancel) r->kind->cancel(r);
    }
  }
  pthread_mutex_unlock(&m->mu);
  for (size_t i = 0; i < n; i++) {
    list[i]->kind->cancel(list[i]);
    tfc_resource_unref(list[i]);
  }
  free(list);
}


/* Whether a map key ("container/name", or "type|container/name" for generic resources) is in
 * container. */
static int in_container(const char *key, const char *container, size_t clen) {
  const char *bar = strchr(key, '|');
  const char *k = bar ? bar + 1 : key;
  return strncmp(k, container, clen) == 0 && k[clen] == '/';
}

/* Moves the entries of `from` outside container into a new map; the others' values go to
 * *dropped. Lock held. Returns -1 on out of memory (nothing changed). */
static int split_map(tfc_hashmap *from, const char *container, void ***dropped, size_t *n_dropped) {
  size_t clen = strlen(container);
  tfc_hashmap keep;
  tfc_hashmap_init(&keep);
  void **out = malloc(sizeof *out * (from->count + 1));
  size_t n = 0;
  if (!out) return -1;
  for (size_t i = 0; i < from->cap; i++) {
    tfc_hashmap_entry *e = &from->slots[i];
    if (!e->key) continue;
    if (in_container(e->key, container, clen)) {
      out[n++] = e->value;
    } else if (tfc_hashmap_put(&keep, e->key, e->value)) {
      tfc_hashmap_fini(&keep);
      free(out);
      return -1;
    }
  }
  tfc_hashmap_fini(from);
  *from = keep;
  *dropped = out;
  *n_dropped = n;
  return 0;
}

int tfc_resource_mgr_clear(tfc_resource_mgr *m, const char *container, tfc_status *s) {
  container = container_or_default(container);
  void **vars = NULL, **res = NULL;
  size_t n_vars = 0, n_res = 0;
  pthread_mutex_lock(&m->mu);
  int rc = split_map(&m->vars, container, &vars, &n_vars);
  if (rc == 0 && split_map(&m->res, container, &res, &n_res)) {
    rc = -1; /* the variables are gone already: drop them, report the rest */
  }
  pthread_mutex_unlock(&m->mu);
  for (size_t i = 0; i < n_vars; i++) tfc_var_unref(vars[i]);
  /* Operations still blocked on a dropped queue wake with CANCELLED instead of waiting on a
   * resource nobody can reach any more. */
  for (size_t i = 0; i < n_res; i++) {
    tfc_resource *r = res[i];
    if (r->kind->cancel) r->kind->cancel(r);
    tfc_resource_unref(r);
  }
  free(vars);
  free(res);
  return rc ? TFC_OOM(s) : TFC_OK;
}

/* A handle's element: the resource pointer, released with the tensor. */
static void handle_release(void *data, size_t size, void *arg) {
  (void)size;
  (void)arg;
  tfc_resource *r;
  memcpy(&r, data, sizeof r);
  tfc_resource_unref(r);
  free(data);
}

tfc_tensor *tfc_resource_handle_new(tfc_resource *r, tfc_status *s) {
  tfc_resource **cell = malloc(sizeof *cell);
  if (!cell) {
    TFC_OOM(s);
    return NULL;
  }
  *cell = tfc_resource_ref(r);
  return tfc_tensor_wrap(TFC_DT_RESOURCE, NULL, 0, cell, sizeof *cell, handle_release, NULL, s);
}

tfc_resource *tfc_resource_from_handle(const tfc_tensor *t, const tfc_resource_kind *kind, tfc_status *s) {
  const char *have = NULL;
  if (t && t->dtype == TFC_DT_RESOURCE && t->ndims == 0 && t->n_bytes == sizeof(tfc_resource *) &&
      t->buf->release == handle_release) {
    tfc_resource *r;
    memcpy(&r, t->data, sizeof r);
    if (r->kind == kind) return r;
    have = r->kind->type_name;
  } else if (tfc_var_from_handle(t)) {
    have = "N10tensorflow3VarE";
  }
  if (have)
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Trying to access resource using the wrong type. Expected %s got %s",
                   have, kind->type_name);
  else
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Expected a resource handle of type %s, got a %s tensor", kind->type_name,
                   t ? tfc_dtype_name(t->dtype) : "missing");
  return NULL;
}
