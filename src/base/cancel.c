/* cancel — see cancel.h. Registrations are a small array: a manager serves one run, or the
 * handful of runs a program cancels together. */
#include "base/cancel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct reg {
  int64_t token;
  void (*fn)(void *);
  void *arg;
} reg;

struct tfc_cancel {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  atomic_int cancelled;
  int running;    /* callbacks are running on the cancelling thread */
  int64_t next_token;
  reg *regs;
  int n, cap;
};

tfc_cancel *tfc_cancel_new(void) {
  tfc_cancel *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->cv, NULL);
  atomic_init(&c->cancelled, 0);
  c->next_token = 1;
  return c;
}

void tfc_cancel_free(tfc_cancel *c) {
  if (!c) return;
  pthread_mutex_destroy(&c->mu);
  pthread_cond_destroy(&c->cv);
  free(c->regs);
  free(c);
}

int tfc_cancel_is_cancelled(tfc_cancel *c) { return atomic_load(&c->cancelled); }

void tfc_cancel_start(tfc_cancel *c) {
  pthread_mutex_lock(&c->mu);
  if (atomic_load(&c->cancelled)) {
    pthread_mutex_unlock(&c->mu);
    return;
  }
  atomic_store(&c->cancelled, 1);
  c->running = 1;
  /* No registration can be added now, and one removed meanwhile waits for running == 0: the
   * array may be read without the lock. */
  reg *regs = c->regs;
  int n = c->n;
  pthread_mutex_unlock(&c->mu);
  for (int i = 0; i < n; i++)
    if (regs[i].fn) regs[i].fn(regs[i].arg);
  pthread_mutex_lock(&c->mu);
  c->running = 0;
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
}

int64_t tfc_cancel_register(tfc_cancel *c, void (*fn)(void *), void *arg) {
  pthread_mutex_lock(&c->mu);
  if (atomic_load(&c->cancelled)) {
    pthread_mutex_unlock(&c->mu);
    return 0;
  }
  int slot = -1;
  for (int i = 0; i < c->n && slot < 0; i++)
    if (!c->regs[i].fn) slot = i;
  if (slot < 0) {
    if (c->n == c->cap) {
      int cap = c->cap ? 2 * c->cap : 4;
      reg *r = realloc(c->regs, sizeof *r * (size_t)cap);
      if (!r) {
        pthread_mutex_unlock(&c->mu);
        return -1;
      }
      c->regs = r;
      c->cap = cap;
    }
    slot = c->n++;
  }
  int64_t token = c->next_token++;
  c->regs[slot] = (reg){token, fn, arg};
  pthread_mutex_unlock(&c->mu);
  return token;
}

void tfc_cancel_deregister(tfc_cancel *c, int64_t token) {
  if (token <= 0) return;
  pthread_mutex_lock(&c->mu);
  while (c->running) pthread_cond_wait(&c->cv, &c->mu);
  for (int i = 0; i < c->n; i++)
    if (c->regs[i].token == token) c->regs[i] = (reg){0, NULL, NULL};
  pthread_mutex_unlock(&c->mu);
}
