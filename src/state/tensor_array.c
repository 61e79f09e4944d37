/*
 * tensor_array — see tensor_array.h. One mutex per array guards a growable vector of entries
 * {value, shape, written, read, cleared, local_copy}; an entry written without a value (a
 * gradient array's copy of a forward shape, or a zero read) holds only its shape, and reading
 * it makes the zeros then. A summing write into an entry whose value is shared (the first
 * value written is the writer's tensor) makes a private sum first (local_copy) and adds in
 * place after that: no reader can hold it, since writes after a read fail.
 */
#include "state/tensor_array.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ta_entry {
  tfc_tensor *value; /* NULL: none stored (unwritten, cleared, or a shape only) */
  tfc_shape shape;   /* of the value written (or copied from the forward array) */
  int written, read, cleared, local_copy;
} ta_entry;

typedef struct ta_grad {
  char *source;
  tfc_tensor_array *ta; /* a reference */
} ta_grad;

struct tfc_tensor_array {
  tfc_resource base; /* first: the array is a resource */
  pthread_mutex_t mu;
  char *name;
  int dtype;
  int clear_after_read, identical_element_shapes, multiple_writes_aggregate, is_grad;
  /* guarded by mu */
  tfc_shape element_shape;
  int dynamic_size, closed, gradients_disallowed;
  int32_t marked_size; /* -1: no Split yet */
  ta_entry *entries;
  int64_t n, cap;
  ta_grad *grads;
  int n_grads;
};

/* TF's TensorArray::tensor_array_counter: one sequence for every array of the process. */
static atomic_llong tensor_array_counter;

static void drop_entries(tfc_tensor_array *ta) {
  for (int64_t i = 0; i < ta->n; i++) tfc_tensor_unref(ta->entries[i].value);
  free(ta->entries);
  ta->entries = NULL;
  ta->n = ta->cap = 0;
}

static void ta_free(tfc_resource *r) {
  tfc_tensor_array *ta = (tfc_tensor_array *)r;
  drop_entries(ta);
  for (int i = 0; i < ta->n_grads; i++) {
    free(ta->grads[i].source);
    tfc_resource_unref(&ta->grads[i].ta->base);
  }
  free(ta->grads);
  pthread_mutex_destroy(&ta->mu);
  free(ta->name);
  free(ta);
}

const tfc_resource_kind tfc_tensor_array_kind = {"N10tensorflow11TensorArrayE", ta_free, NULL};

/* Makes n entries exist (new ones unwritten). Lock held (or not yet shared). */
static int resize(tfc_tensor_array *ta, int64_t n, tfc_status *s) {
  if (n <= ta->n) return TFC_OK;
  if (n > ta->cap) {
    int64_t cap = ta->cap ? ta->cap : 4;
    while (cap < n) cap *= 2;
    ta_entry *e = realloc(ta->entries, sizeof *e * (size_t)cap);
    if (!e) return TFC_OOM(s);
    ta->entries = e;
    ta->cap = cap;
  }
  memset(ta->entries + ta->n, 0, sizeof *ta->entries * (size_t)(n - ta->n));
  for (int64_t i = ta->n; i < n; i++) ta->entries[i].shape = tfc_shape_scalar();
  ta->n = n;
  return TFC_OK;
}

static tfc_tensor_array *ta_alloc(const char *name, int dtype, int32_t size, const tfc_shape *element_shape,
                                  tfc_status *s) {
  tfc_tensor_array *ta = calloc(1, sizeof *ta);
  if (!ta || !(ta->name = strdup(name))) {
    free(ta);
    TFC_OOM(s);
    return NULL;
  }
  tfc_resource_init(&ta->base, &tfc_tensor_array_kind);
  pthread_mutex_init(&ta->mu, NULL);
  ta->dtype = dtype;
  ta->element_shape = *element_shape;
  ta->marked_size = -1;
  if (resize(ta, size, s)) {
    ta_free(&ta->base);
    return NULL;
  }
  return ta;
}

tfc_tensor_array *tfc_tensor_array_new(const tfc_tensor_array_options *o, tfc_status *s) {
  char *name = NULL;
  if (asprintf(&name, "%s_%lld", o->base_name, (long long)atomic_fetch_add(&tensor_array_counter, 1)) < 0) {
    TFC_OOM(s);
    return NULL;
  }
  tfc_tensor_array *ta = ta_alloc(name, o->dtype, o->size, &o->element_shape, s);
  free(name);
  if (!ta) return NULL;
  ta->dynamic_size = o->dynamic_size;
  ta->clear_after_read = o->clear_after_read;
  ta->identical_element_shapes = o->identical_element_shapes;
  return ta;
}

tfc_resource *tfc_tensor_array_resource(tfc_tensor_array *ta) { return &ta->base; }
tfc_tensor_array *tfc_tensor_array_from_resource(tfc_resource *r) { return (tfc_tensor_array *)r; }
const char *tfc_tensor_array_name(const tfc_tensor_array *ta) { return ta->name; }
int tfc_tensor_array_dtype(const tfc_tensor_array *ta) { return ta->dtype; }

/* Lock held. */
static int check_open(const tfc_tensor_array *ta, tfc_status *s) {
  if (ta->closed) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "TensorArray %s has already been closed.", ta->name);
  return TFC_OK;
}

/* ---------------- gradients ---------------- */

tfc_tensor_array *tfc_tensor_array_grad(tfc_tensor_array *fwd, const char *source, const tfc_shape *prepend,
                                        tfc_status *s) {
  tfc_tensor_array *g = NULL;
  pthread_mutex_lock(&fwd->mu);
  if (fwd->is_grad) {
    /* TF finds forward arrays in its "_tensor_arrays" container only. */
    pthread_mutex_unlock(&fwd->mu);
    tfc_status_set(s, TFC_INVALID_ARGUMENT, "Wrong input container. _tensor_array_grads%s", fwd->name);
    return NULL;
  }
  /* Once gradients are being computed, writes may no longer grow the forward array. */
  fwd->dynamic_size = 0;
  if (check_open(fwd, s)) goto out;
  if (fwd->gradients_disallowed) {
    tfc_status_set(s, TFC_INVALID_ARGUMENT,
                   "Unable to create a gradients TensorArray for %s.  Perhaps you used the multiple_writes_aggregate "
                   "flag on a previous write?  Gradient calculation is impossible when multiple writes are performed "
                   "to the same index.",
                   fwd->name);
    goto out;
  }
  for (int i = 0; i < fwd->n_grads; i++)
    if (!strcmp(fwd->grads[i].source, source)) {
      g = fwd->grads[i].ta;
      tfc_resource_ref(&g->base);
      goto out;
    }
  tfc_shape es = fwd->element_shape;
  int np = prepend ? prepend->rank : 0;
  if (prepend && es.rank >= 0) {
    if (np + es.rank > TFC_MAX_DIMS) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape of rank %d is too large", np + es.rank);
      goto out;
    }
    memmove(es.dims + np, es.dims, sizeof es.dims[0] * (size_t)es.rank);
    memcpy(es.dims, prepend->dims, sizeof es.dims[0] * (size_t)np);
    es.rank += np;
  } else if (prepend) {
    es = tfc_shape_unknown();
  }
  char *name = NULL;
  ta_grad *grads = realloc(fwd->grads, sizeof *grads * (size_t)(fwd->n_grads + 1));
  if (!grads || asprintf(&name, "%s@%s", fwd->name, source) < 0) {
    if (grads) fwd->grads = grads;
    TFC_OOM(s);
    goto out;
  }
  fwd->grads = grads;
  g = ta_alloc(name, fwd->dtype, (int32_t)fwd->n, &es, s);
  free(name);
  if (!g) goto out;
  g->identical_element_shapes = fwd->identical_element_shapes;
  g->multiple_writes_aggregate = 1;
  g->is_grad = 1;
  g->clear_after_read = 1;
  g->marked_size = fwd->marked_size;
  /* A "soft copy" of the forward shapes: each written index reads as zeros of its shape until
   * backprop writes it. */
  for (int64_t i = 0; i < fwd->n; i++) {
    if (!fwd->entries[i].written) continue;
    tfc_shape sh = fwd->entries[i].shape;
    if (np + sh.rank > TFC_MAX_DIMS) {
      tfc_status_set(s, TFC_INVALID_ARGUMENT, "Shape of rank %d is too large", np + sh.rank);
      tfc_resource_unref(&g->base);
      g = NULL;
      goto out;
    }
    memmove(sh.dims + np, sh.dims, sizeof sh.dims[0] * (size_t)sh.rank);
    if (np) memcpy(sh.dims, prepend->dims, sizeof sh.dims[0] * (size_t)np);
    sh.rank += np;
    g->entries[i].shape = sh;
    g->entries[i].written = 1;
  }
  fwd->grads[fwd->n_grads].source = strdup(source);
  if (!fwd->grads[fwd->n_grads].source) {
    TFC_OOM(s);
    tfc_resource_unref(&g->base);
    g = NULL;
    goto out;
  }
  fwd->grads[fwd->n_grads++].ta = g;
  tfc_resource_ref(&g->base); /* one for the forward array, one for the caller */
out:
  pthread_mutex_unlock(&fwd->mu);
  return g;
}

/* ---------------- writes ---------------- */

#define ADD_LOOP(T)                                                                                \
  do {                                                                                             \
    T *o_ = (T *)out->data;                                                                        \
    const T *a_ = (const T *)a->data, *b_ = (const T *)b->data;                                    \
    for (int64_t i_ = 0; i_ < out->n_elems; i_++) o_[i_] = a_[i_] + b_[i_];                        \
  } while (0)

/* out = a + b, all of one dtype and size (TF's tensor_array::AddToTensor). */
static int add_into(tfc_tensor *out, const tfc_tensor *a, const tfc_tensor *b, tfc_status *s) {
  switch (out->dtype) {
    case TFC_DT_FLOAT: ADD_LOOP(float); break;
    case TFC_DT_DOUBLE: ADD_LOOP(double); break;
    case TFC_DT_INT32: ADD_LOOP(int32_t); break;
    case TFC_DT_INT64: ADD_LOOP(int64_t); break;
    case TFC_DT_INT16: ADD_LOOP(int16_t); break;
    case TFC_DT_INT8: ADD_LOOP(int8_t); break;
    case TFC_DT_UINT8: ADD_LOOP(uint8_t); break;
    case TFC_DT_UINT16: ADD_LOOP(uint16_t); break;
    default:
      return tfc_status_set(s, TFC_INVALID_ARGUMENT, "tensor_array::AddToTensor type not supported: %s",
                            tfc_dtype_name(out->dtype));
  }
  return TFC_OK;
}

/* TF's LockedWriteOrAggregate. Lock held. */
static int write_one(tfc_tensor_array *ta, int32_t index, tfc_tensor *value, tfc_status *s) {
  TFC_TRY(check_open(ta, s));
  if (index < 0 || (!ta->dynamic_size && index >= ta->n))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "TensorArray %s: Tried to write to index %d but array is not resizeable and size is: %lld",
                          ta->name, index, (long long)ta->n);
  if (ta->dynamic_size) TFC_TRY(resize(ta, (int64_t)index + 1, s));
  ta_entry *t = &ta->entries[index];
  if (value->dtype != ta->dtype)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "TensorArray %s: Could not write to TensorArray index %d because the value dtype is %s but "
                          "TensorArray dtype is %s.",
                          ta->name, index, tfc_dtype_name(value->dtype), tfc_dtype_name(ta->dtype));
  tfc_shape vs = tfc_tensor_shape(value);
  if (!tfc_shape_compatible(&ta->element_shape, &vs)) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "TensorArray %s: Could not write to TensorArray index %d because the value shape is %s which "
                          "is incompatible with the TensorArray's inferred element shape: %s (consider setting "
                          "infer_shape=False).",
                          ta->name, index, tfc_shape_str(&vs, a, sizeof a),
                          tfc_shape_str(&ta->element_shape, b, sizeof b));
  }
  if (ta->identical_element_shapes && !tfc_shape_fully_defined(&ta->element_shape)) ta->element_shape = vs;
  if (t->read)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "TensorArray %s: Could not write to TensorArray index %d because it has already been read.",
                          ta->name, index);
  if (!ta->multiple_writes_aggregate && t->written)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "TensorArray %s: Could not write to TensorArray index %d because it has already been written "
                          "to.",
                          ta->name, index);
  if (!t->written) {
    t->value = tfc_tensor_ref(value);
    t->shape = vs;
    t->written = 1;
    return TFC_OK;
  }
  /* A summing write. */
  if (!tfc_shape_equal(&vs, &t->shape)) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "TensorArray %s: Could not aggregate to TensorArray index %d because the existing shape is %s "
                          "but the new input shape is %s.",
                          ta->name, index, tfc_shape_str(&t->shape, a, sizeof a), tfc_shape_str(&vs, b, sizeof b));
  }
  if (!t->value || t->value->n_elems == 0) { /* only a shape so far: zeros + value = value */
    tfc_tensor_unref(t->value);
    t->value = tfc_tensor_ref(value);
    return TFC_OK;
  }
  if (t->local_copy) {
    TFC_TRY(add_into(t->value, t->value, value, s));
  } else {
    tfc_tensor *sum = tfc_tensor_new(ta->dtype, t->shape.dims, t->shape.rank, s);
    if (!sum) return s->code;
    if (add_into(sum, t->value, value, s)) {
      tfc_tensor_unref(sum);
      return s->code;
    }
    tfc_tensor_unref(t->value);
    t->value = sum;
    t->local_copy = 1;
  }
  /* Summed values have no single forward write to send gradients to. */
  ta->gradients_disallowed = 1;
  return TFC_OK;
}

int tfc_tensor_array_write(tfc_tensor_array *ta, const int32_t *indices, tfc_tensor *const *values, int n,
                           tfc_status *s) {
  int rc = TFC_OK;
  pthread_mutex_lock(&ta->mu);
  for (int k = 0; k < n && rc == TFC_OK; k++) rc = write_one(ta, indices[k], values[k], s);
  pthread_mutex_unlock(&ta->mu);
  return rc;
}

/* ---------------- reads ---------------- */

/* TF's LockedRead. Lock held. */
static int read_one(tfc_tensor_array *ta, int32_t index, tfc_tensor **out, tfc_status *s) {
  TFC_TRY(check_open(ta, s));
  if (index < 0 || (!ta->is_grad && index >= ta->n))
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Tried to read from index %d but array size is: %lld", index,
                          (long long)ta->n);
  if (index >= ta->n || !ta->entries[index].written) {
    /* Never written: zeros. A gradient array may be read where backprop wrote nothing (a
     * stop_gradient on a dynamic forward array); a forward one needs its element shape. */
    tfc_shape shape;
    if (ta->is_grad && index < ta->n && ta->entries[index].shape.rank > 0) {
      shape = ta->entries[index].shape;
    } else if (!tfc_shape_fully_defined(&ta->element_shape)) {
      char a[TFC_SHAPE_STR_MAX];
      return tfc_status_set(
          s, TFC_INVALID_ARGUMENT,
          "TensorArray %s: Could not read from TensorArray index %d.  Furthermore, the element shape is not fully "
          "defined: %s.  It is possible you are working with a resizeable TensorArray and stop_gradients is not "
          "allowing the gradients to be written.  If you set the full element_shape property on the forward "
          "TensorArray, the proper all-zeros tensor will be returned instead of incurring this error.",
          ta->name, index, tfc_shape_str(&ta->element_shape, a, sizeof a));
    } else {
      shape = ta->element_shape;
    }
    /* Past the end (a gradient array only): every new index up to it gets the shape. */
    int64_t first = index < ta->n ? index : ta->n;
    TFC_TRY(resize(ta, (int64_t)index + 1, s));
    for (int64_t i = first; i <= index; i++) {
      ta->entries[i].shape = shape;
      ta->entries[i].written = 1;
    }
  }
  ta_entry *t = &ta->entries[index];
  if (t->cleared)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "TensorArray %s: Could not read index %d twice because it was cleared after a previous read "
                          "(perhaps try setting clear_after_read = false?).",
                          ta->name, index);
  if (!t->value || t->value->n_elems == 0) { /* a shape only: its zeros */
    tfc_tensor *z = tfc_tensor_zeros(ta->dtype, t->shape.dims, t->shape.rank, s);
    if (!z) return s->code;
    tfc_tensor_unref(t->value);
    t->value = z;
  }
  *out = tfc_tensor_ref(t->value);
  if (ta->clear_after_read) {
    tfc_tensor_unref(t->value);
    t->value = NULL;
    t->cleared = 1;
  }
  t->read = 1;
  return TFC_OK;
}

int tfc_tensor_array_read(tfc_tensor_array *ta, const int32_t *indices, int n, tfc_tensor **out, tfc_status *s) {
  int rc = TFC_OK, k;
  for (k = 0; k < n; k++) out[k] = NULL;
  pthread_mutex_lock(&ta->mu);
  for (k = 0; k < n && rc == TFC_OK; k++) rc = read_one(ta, indices[k], &out[k], s);
  pthread_mutex_unlock(&ta->mu);
  if (rc)
    for (k = 0; k < n; k++) {
      tfc_tensor_unref(out[k]);
      out[k] = NULL;
    }
  return rc;
}

/* ---------------- the rest ---------------- */

int tfc_tensor_array_size(tfc_tensor_array *ta, int32_t *out, tfc_status *s) {
  pthread_mutex_lock(&ta->mu);
  int rc = check_open(ta, s);
  if (rc == TFC_OK) *out = (int32_t)ta->n;
  pthread_mutex_unlock(&ta->mu);
  return rc;
}

int tfc_tensor_array_concat_size(tfc_tensor_array *ta, int32_t *out, tfc_status *s) {
  pthread_mutex_lock(&ta->mu);
  int rc = check_open(ta, s);
  if (rc == TFC_OK) *out = ta->is_grad ? ta->marked_size : (int32_t)ta->n;
  pthread_mutex_unlock(&ta->mu);
  return rc;
}

int tfc_tensor_array_set_marked_size(tfc_tensor_array *ta, int32_t size, tfc_status *s) {
  pthread_mutex_lock(&ta->mu);
  int rc = check_open(ta, s);
  if (rc == TFC_OK && !ta->is_grad) ta->marked_size = size;
  pthread_mutex_unlock(&ta->mu);
  return rc;
}

int tfc_tensor_array_merge_element_shape(tfc_tensor_array *ta, const tfc_shape *shape, tfc_status *s) {
  int rc = TFC_OK;
  pthread_mutex_lock(&ta->mu);
  tfc_shape merged;
  if (tfc_shape_merge(&ta->element_shape, shape, &merged)) {
    char a[TFC_SHAPE_STR_MAX], b[TFC_SHAPE_STR_MAX];
    rc = tfc_status_set(s, TFC_INVALID_ARGUMENT, "Incompatible shapes during merge: %s vs. %s",
                        tfc_shape_str(&ta->element_shape, a, sizeof a), tfc_shape_str(shape, b, sizeof b));
  } else {
    ta->element_shape = merged;
  }
  pthread_mutex_unlock(&ta->mu);
  return rc;
}

int tfc_tensor_array_has_dynamic_size(tfc_tensor_array *ta) {
  pthread_mutex_lock(&ta->mu);
  int d = ta->dynamic_size;
  pthread_mutex_unlock(&ta->mu);
  return d;
}

void tfc_tensor_array_close(tfc_tensor_array *ta) {
  pthread_mutex_lock(&ta->mu);
  drop_entries(ta);
  ta->closed = 1;
  pthread_mutex_unlock(&ta->mu);
}
