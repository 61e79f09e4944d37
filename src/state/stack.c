/*
 * stack — see stack.h. A growable array of tensor references behind one mutex; pushes and pops
 * are O(1) amortized and never wait.
 */
#include "state/stack.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct tfc_stack {
  tfc_resource base; /* first: the stack is a resource */
  pthread_mutex_t mu;
  char *name;
  int elem_type;
  int64_t max_size; /* < 0: unlimited */
  /* guarded by mu */
  tfc_tensor **items;
  int64_t n, cap;
  int closed;
};

/* TF's Stack::stack_counter: one sequence for every stack of the process. */
static atomic_llong stack_counter;

static void drop_items(tfc_stack *st) {
  for (int64_t i = 0; i < st->n; i++) tfc_tensor_unref(st->items[i]);
  free(st->items);
  st->items = NULL;
  st->n = st->cap = 0;
}

static void stack_free(tfc_resource *r) {
  tfc_stack *st = (tfc_stack *)r;
  drop_items(st);
  pthread_mutex_destroy(&st->mu);
  free(st->name);
  free(st);
}

const tfc_resource_kind tfc_stack_kind = {"N10tensorflow5StackE", stack_free, NULL};

tfc_stack *tfc_stack_new(int elem_type, const char *base_name, int64_t max_size, tfc_status *s) {
  tfc_stack *st = calloc(1, sizeof *st);
  long long id = atomic_fetch_add(&stack_counter, 1);
  if (!st || asprintf(&st->name, "%s_%lld", base_name, id) < 0) {
    free(st);
    TFC_OOM(s);
    return NULL;
  }
  tfc_resource_init(&st->base, &tfc_stack_kind);
  pthread_mutex_init(&st->mu, NULL);
  st->elem_type = elem_type;
  st->max_size = max_size;
  return st;
}

tfc_resource *tfc_stack_resource(tfc_stack *st) { return &st->base; }
tfc_stack *tfc_stack_from_resource(tfc_resource *r) { return (tfc_stack *)r; }
const char *tfc_stack_name(const tfc_stack *st) { return st->name; }
int tfc_stack_elem_type(const tfc_stack *st) { return st->elem_type; }

/* Lock held. */
static int check_open(const tfc_stack *st, tfc_status *s) {
  if (st->closed) return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Stack[%s] has already been closed.", st->name);
  return TFC_OK;
}

int tfc_stack_push(tfc_stack *st, tfc_tensor *t, tfc_status *s) {
  /* TF prints DataType enums with StrCat, i.e. as their numbers. */
  if (t->dtype != st->elem_type)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Must have type %d but got %d", st->elem_type, t->dtype);
  pthread_mutex_lock(&st->mu);
  int rc = check_open(st, s);
  if (rc == TFC_OK && st->max_size >= 0 && st->n >= st->max_size)
    rc = tfc_status_set(s, TFC_INVALID_ARGUMENT, "Stack[%s] overflowed its max_size (%lld)", st->name,
                        (long long)st->max_size);
  if (rc == TFC_OK && st->n == st->cap) {
    int64_t cap = st->cap ? st->cap * 2 : 8;
    tfc_tensor **items = realloc(st->items, sizeof *items * (size_t)cap);
    if (!items) {
      rc = TFC_OOM(s);
    } else {
      st->items = items;
      st->cap = cap;
    }
  }
  if (rc == TFC_OK) st->items[st->n++] = tfc_tensor_ref(t);
  pthread_mutex_unlock(&st->mu);
  return rc;
}

int tfc_stack_pop(tfc_stack *st, tfc_tensor **out, tfc_status *s) {
  pthread_mutex_lock(&st->mu);
  int rc = check_open(st, s);
  if (rc == TFC_OK && st->n == 0)
    rc = tfc_status_set(s, TFC_INVALID_ARGUMENT, "Stack[%s] is empty when calling Pop().", st->name);
  if (rc == TFC_OK) *out = st->items[--st->n];
  pthread_mutex_unlock(&st->mu);
  return rc;
}

void tfc_stack_close(tfc_stack *st) {
  pthread_mutex_lock(&st->mu);
  drop_items(st);
  st->closed = 1;
  pthread_mutex_unlock(&st->mu);
}
