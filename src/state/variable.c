/* variable — see variable.h. */
#include "state/variable.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct tfc_var_undo {
  tfc_var *var;           /* a reference */
  tfc_tensor *old;        /* the value before this step's first write (a reference; may be NULL) */
  tfc_tensor *installed;  /* what this step wrote last (not counted: compared, never used) */
};

tfc_var *tfc_var_new(const char *name, int dtype, const tfc_shape *shape, tfc_status *s) {
  tfc_var *v = calloc(1, sizeof *v);
  if (!v || !(v->name = strdup(name))) goto oom;
  /* The ref tensor carries no data: an empty buffer keeps every tensor path valid. */
  tfc_buffer *b = tfc_buffer_new(0);
  if (!b) goto oom;
  int64_t zero = 0;
  /* (a string tensor owns its strings, so its empty ref is made, not wrapped) */
  v->ref = dtype == TFC_DT_STRING ? tfc_tensor_new(dtype, &zero, 1, s) : tfc_tensor_from_buffer(dtype, &zero, 1, b, s);
  tfc_buffer_unref(b);
  if (!v->ref) goto fail;
  v->ref->var = v;
  atomic_init(&v->refs, 1);
  pthread_mutex_init(&v->mu, NULL);
  v->dtype = dtype;
  v->shape = *shape;
  return v;
oom:
  TFC_OOM(s);
fail:
  if (v) free(v->name);
  free(v);
  return NULL;
}

void tfc_var_unref(tfc_var *v) {
  if (!v || atomic_fetch_sub_explicit(&v->refs, 1, memory_order_acq_rel) != 1) return;
  tfc_tensor_unref(v->value);
  tfc_tensor_unref(v->ref);
  pthread_mutex_destroy(&v->mu);
  free(v->name);
  free(v);
}

int tfc_var_read(tfc_var *v, tfc_tensor **out, tfc_status *s) {
  pthread_mutex_lock(&v->mu);
  *out = tfc_tensor_ref(v->value);
  pthread_mutex_unlock(&v->mu);
  if (!*out)
    return tfc_status_set(s, TFC_FAILED_PRECONDITION, "Attempting to use uninitialized value %s", v->name);
  return TFC_OK;
}

int tfc_var_is_initialized(tfc_var *v) {
  pthread_mutex_lock(&v->mu);
  int r = v->value != NULL;
  pthread_mutex_unlock(&v->mu);
  return r;
}

void tfc_var_lock(tfc_var *v) { pthread_mutex_lock(&v->mu); }
void tfc_var_unlock(tfc_var *v) { pthread_mutex_unlock(&v->mu); }

/* Sorts a small copy by address; n is at most a handful (Apply* takes three variables). */
static int sorted_unique(tfc_var *const *vars, int n, tfc_var **out) {
  int m = 0;
  for (int i = 0; i < n; i++) {
    int dup = 0;
    for (int j = 0; j < m; j++) dup |= out[j] == vars[i];
    if (dup) continue;
    int k = m++;
    while (k > 0 && (uintptr_t)out[k - 1] > (uintptr_t)vars[i]) {
      out[k] = out[k - 1];
      k--;
    }
    out[k] = vars[i];
  }
  return m;
}

#define LOCK_MANY_MAX 16

void tfc_var_lock_many(tfc_var *const *vars, int n) {
  tfc_var *u[LOCK_MANY_MAX];
  int m = sorted_unique(vars, n < LOCK_MANY_MAX ? n : LOCK_MANY_MAX, u);
  for (int i = 0; i < m; i++) pthread_mutex_lock(&u[i]->mu);
}

void tfc_var_unlock_many(tfc_var *const *vars, int n) {
  tfc_var *u[LOCK_MANY_MAX];
  int m = sorted_unique(vars, n < LOCK_MANY_MAX ? n : LOCK_MANY_MAX, u);
  for (int i = m - 1; i >= 0; i--) pthread_mutex_unlock(&u[i]->mu);
}

int tfc_var_install_locked(tfc_var *v, tfc_var_txn *txn, tfc_tensor *value, tfc_status *s) {
  if (!txn) {
    tfc_tensor_unref(v->value);
    v->value = value;
    return TFC_OK;
  }
  pthread_mutex_lock(&txn->mu);
  struct tfc_var_undo *u = NULL;
  for (int i = 0; i < txn->n; i++)
    if (txn->undo[i].var == v) u = &txn->undo[i];
  if (!u) {
    if (txn->n == txn->cap) {
      int cap = txn->cap ? txn->cap * 2 : 8;
      struct tfc_var_undo *nu = realloc(txn->undo, sizeof *nu * (size_t)cap);
      if (!nu) {
        pthread_mutex_unlock(&txn->mu);
        tfc_tensor_unref(value);
        return TFC_OOM(s);
      }
      txn->undo = nu;
      txn->cap = cap;
    }
    u = &txn->undo[txn->n++];
    u->var = tfc_var_ref(v);
    u->old = v->value; /* the journal takes the variable's reference */
  } else {
    tfc_tensor_unref(v->value);
  }
  u->installed = value;
  v->value = value;
  pthread_mutex_unlock(&txn->mu);
  return TFC_OK;
}

void tfc_var_txn_init(tfc_var_txn *t) {
  pthread_mutex_init(&t->mu, NULL);
  t->n = t->cap = 0;
  t->undo = NULL;
}

/* Forgets the journal: the replaced values go. */
static void txn_commit(tfc_var_txn *t) {
  pthread_mutex_lock(&t->mu);
  for (int i = 0; i < t->n; i++) {
    tfc_tensor_unref(t->undo[i].old);
    tfc_var_unref(t->undo[i].var);
  }
  t->n = 0;
  pthread_mutex_unlock(&t->mu);
}

void tfc_var_txn_rollback(tfc_var_txn *t) {
  /* Take the entries out first: installs lock a variable, then the journal, so the journal's
   * lock is never held while a variable's is taken. */
  pthread_mutex_lock(&t->mu);
  struct tfc_var_undo *undo = t->undo;
  int n = t->n;
  t->undo = NULL;
  t->n = t->cap = 0;
  pthread_mutex_unlock(&t->mu);
  for (int i = 0; i < n; i++) {
    struct tfc_var_undo *u = &undo[i];
    pthread_mutex_lock(&u->var->mu);
    if (u->var->value == u->installed) {
      tfc_tensor_unref(u->var->value);
      u->var->value = u->old;
      u->old = NULL;
    }
    pthread_mutex_unlock(&u->var->mu);
    tfc_tensor_unref(u->old);
    tfc_var_unref(u->var);
  }
  free(undo);
}

void tfc_var_txn_fini(tfc_var_txn *t) {
  txn_commit(t);
  free(t->undo);
  pthread_mutex_destroy(&t->mu);
}

/* A resource handle's element: the variable pointer, released with the tensor. */
static void handle_release(void *data, size_t size, void *arg) {
  (void)size;
  (void)arg;
  tfc_var *v;
  memcpy(&v, data, sizeof v);
  tfc_var_unref(v);
  free(data);
}

tfc_tensor *tfc_var_handle_new(tfc_var *v, tfc_status *s) {
  tfc_var **cell = malloc(sizeof *cell);
  if (!cell) {
    TFC_OOM(s);
    return NULL;
  }
  *cell = tfc_var_ref(v);
  return tfc_tensor_wrap(TFC_DT_RESOURCE, NULL, 0, cell, sizeof *cell, handle_release, NULL, s);
}

tfc_var *tfc_var_from_handle(const tfc_tensor *t) {
  if (!t || t->dtype != TFC_DT_RESOURCE || t->n_bytes != sizeof(tfc_var *) || t->buf->release != handle_release)
    return NULL;
  tfc_var *v;
  memcpy(&v, t->data, sizeof v);
  return v;
}
