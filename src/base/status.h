/*
 * status — TensorFlow status codes and messages for every internal call.
 *
 * Every fallible internal function returns an int (a tfc_code; 0 is OK) and takes a
 * tfc_status * last. The first error wins: tfc_status_set on a status that already holds
 * an error keeps the old one, so cleanup paths cannot mask the cause. Each layer adds its
 * context in front with tfc_status_prefix ("node 'x' (MatMul): ...").
 *
 * Ownership: a tfc_status is caller storage (init/fini); the message is owned by it.
 * Thread-safety: none; one status per thread of work.
 */
#ifndef TFC_BASE_STATUS_H
#define TFC_BASE_STATUS_H

#include <stdarg.h>

/* Values equal TF_Code / error_codes.proto. */
enum tfc_code {
  TFC_OK = 0,
  TFC_CANCELLED = 1,
  TFC_UNKNOWN = 2,
  TFC_INVALID_ARGUMENT = 3,
  TFC_DEADLINE_EXCEEDED = 4,
  TFC_NOT_FOUND = 5,
  TFC_ALREADY_EXISTS = 6,
  TFC_PERMISSION_DENIED = 7,
  TFC_RESOURCE_EXHAUSTED = 8,
  TFC_FAILED_PRECONDITION = 9,
  TFC_ABORTED = 10,
  TFC_OUT_OF_RANGE = 11,
  TFC_UNIMPLEMENTED = 12,
  TFC_INTERNAL = 13,
  TFC_UNAVAILABLE = 14,
  TFC_DATA_LOSS = 15,
  TFC_UNAUTHENTICATED = 16,
  TFC_CODE_COUNT = 17
};

typedef struct tfc_status {
  int code;
  char *msg; /* NULL when OK; heap string otherwise */
} tfc_status;

void tfc_status_init(tfc_status *s);
void tfc_status_fini(tfc_status *s);
/* Resets to OK. */
void tfc_status_clear(tfc_status *s);
static inline int tfc_status_ok(const tfc_status *s) { return s->code == TFC_OK; }
static inline const char *tfc_status_msg(const tfc_status *s) { return s->msg ? s->msg : ""; }

/* Records code + formatted message unless an error is already held; returns the held code.
 * code == TFC_OK clears. Never fails (falls back to a static text on out of memory). */
int tfc_status_set(tfc_status *s, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int tfc_status_setv(tfc_status *s, int code, const char *fmt, va_list ap);
/* Overwrites whatever is held (used by the C API's TF_SetStatus). */
void tfc_status_assign(tfc_status *s, int code, const char *msg);
/* Puts formatted context in front of the message of an error status; no-op when OK. */
int tfc_status_prefix(tfc_status *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Moves src's error into dst (dst first-error-wins); clears src. Returns dst's code. */
int tfc_status_move(tfc_status *dst, tfc_status *src);
/* The canonical TF name of a code ("INVALID_ARGUMENT"). */
const char *tfc_code_name(int code);

/* Returns early with the code when a call fails. */
#define TFC_TRY(expr)                                                                              \
  do {                                                                                             \
    int tfc_try_code_ = (expr);                                                                    \
    if (tfc_try_code_ != TFC_OK) return tfc_try_code_;                                             \
  } while (0)

#define TFC_OOM(s) tfc_status_set((s), TFC_RESOURCE_EXHAUSTED, "out of memory at %s:%d", __FILE__, __LINE__)

#endif
