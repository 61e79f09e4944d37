/*
 * status — see status.h. Messages are heap strings; on allocation failure a status still
 * carries its code with a static message so an error is never lost.
 */
#include "base/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char oom_text[] = "out of memory while formatting an error message";

void tfc_status_init(tfc_status *s) {
  s->code = TFC_OK;
  s->msg = NULL;
}

static void free_msg(tfc_status *s) {
  if (s->msg && s->msg != oom_text) free(s->msg);
  s->msg = NULL;
}

void tfc_status_fini(tfc_status *s) { free_msg(s); s->code = TFC_OK; }

void tfc_status_clear(tfc_status *s) { tfc_status_fini(s); }

int tfc_status_setv(tfc_status *s, int code, const char *fmt, va_list ap) {
  if (s->code != TFC_OK) return s->code;
  if (code == TFC_OK) { tfc_status_clear(s); return TFC_OK; }
  s->code = code;
  char *m = NULL;
  if (vasprintf(&m, fmt, ap) < 0) m = oom_text;
  s->msg = m;
  return code;
}

int tfc_status_set(tfc_status *s, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int c = tfc_status_setv(s, code, fmt, ap);
  va_end(ap);
  return c;
}

void tfc_status_assign(tfc_status *s, int code, const char *msg) {
  free_msg(s);
  s->code = code;
  if (code != TFC_OK) {
    s->msg = strdup(msg ? msg : "");
    if (!s->msg) s->msg = oom_text;
  }
}

int tfc_status_prefix(tfc_status *s, const char *fmt, ...) {
  if (s->code == TFC_OK) return TFC_OK;
  char *p = NULL, *m = NULL;
  va_list ap;
  va_start(ap, fmt);
  int n = vasprintf(&p, fmt, ap);
  va_end(ap);
  if (n < 0) return s->code;
  if (asprintf(&m, "%s%s", p, tfc_status_msg(s)) >= 0) {
    free_msg(s);
    s->msg = m;
  }
  free(p);
  return s->code;
}

int tfc_status_move(tfc_status *dst, tfc_status *src) {
  if (src->code != TFC_OK && dst->code == TFC_OK) {
    free_msg(dst);
    dst->code = src->code;
    dst->msg = src->msg;
    src->msg = NULL;
  }
  tfc_status_clear(src);
  return dst->code;
}

const char *tfc_code_name(int code) {
  static const char *names[TFC_CODE_COUNT] = {
      "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
      "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
      "UNAUTHENTICATED"};
  return (code >= 0 && code < TFC_CODE_COUNT) ? names[code] : "UNKNOWN_CODE";
}
