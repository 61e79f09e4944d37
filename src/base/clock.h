/*
 * clock — monotonic time and deadlines for every blocking wait.
 *
 * Deadlines are absolute microseconds on the monotonic clock (tfc_now_us); 0 means none.
 * Thread-safe.
 */
#ifndef TFC_BASE_CLOCK_H
#define TFC_BASE_CLOCK_H

#include <pthread.h>
#include <stdint.h>

/* Microseconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
int64_t tfc_now_us(void);
/* The deadline timeout_ms from now; timeout_ms <= 0 gives 0 (none). */
int64_t tfc_deadline_after_ms(int64_t timeout_ms);
/* Initializes a condition variable that waits on the monotonic clock. */
void tfc_cond_init_monotonic(pthread_cond_t *cv);
/* Waits on cv until signalled or deadline_us passes (0: no deadline). Returns 0 when
 * signalled (or spuriously woken), ETIMEDOUT when the deadline passed. cv must come from
 * tfc_cond_init_monotonic. */
int tfc_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t deadline_us);

#endif
