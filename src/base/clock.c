/* clock — see clock.h. */
#include "base/clock.h"

#include <errno.h>
#include <time.h>

int64_t tfc_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t tfc_deadline_after_ms(int64_t timeout_ms) {
  return timeout_ms > 0 ? tfc_now_us() + timeout_ms * 1000 : 0;
}

void tfc_cond_init_monotonic(pthread_cond_t *cv) {
  pthread_condattr_t a;
  pthread_condattr_init(&a);
  pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  pthread_cond_init(cv, &a);
  pthread_condattr_destroy(&a);
}

int tfc_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t deadline_us) {
  if (deadline_us <= 0) return pthread_cond_wait(cv, mu);
  if (tfc_now_us() >= deadline_us) return ETIMEDOUT;
  struct timespec ts = {(time_t)(deadline_us / 1000000), (long)(deadline_us % 1000000) * 1000};
  return pthread_cond_timedwait(cv, mu, &ts) == ETIMEDOUT ? ETIMEDOUT : 0;
}
