/* log — see log.h. */
#include "base/log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static tfc_log_listener *listeners;
static int n_listeners;

int tfc_log_add_listener(tfc_log_listener fn) {
  if (!fn) return 0;
  pthread_mutex_lock(&mu);
  tfc_log_listener *n = realloc(listeners, sizeof *n * (size_t)(n_listeners + 1));
  if (n) {
    listeners = n;
    listeners[n_listeners++] = fn;
  }
  pthread_mutex_unlock(&mu);
  return n ? 0 : -1;
}

void tfc_log_print(const char *line) {
  pthread_mutex_lock(&mu);
  int n = n_listeners;
  tfc_log_listener *l = listeners;
  /* The array only grows by realloc under the lock: call through a snapshot. */
  tfc_log_listener small[8], *copy = n <= 8 ? small : malloc(sizeof *copy * (size_t)n);
  for (int i = 0; copy && i < n; i++) copy[i] = l[i];
  pthread_mutex_unlock(&mu);
  if (n == 0 || !copy) {
    fprintf(stderr, "%s\n", line);
    return;
  }
  for (int i = 0; i < n; i++) copy[i](line);
  if (copy != small) free(copy);
}
