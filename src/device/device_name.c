/*
 * device_name — TF device names (see device_name.h).
 *
 * The parser follows DeviceNameUtils::ParseFullName: a loop that consumes one "/<key>:<value>"
 * component at a time, in any order (a repeated key overwrites), where a value may be "*" for
 * "unset". Legacy "/cpu:N" and "/gpu:N" (either case) become type CPU/GPU. A string that does
 * not start with '/' is read as TF's local name "TYPE:ID" (ParseLocalName). Anything else,
 * including a trailing '/', an empty value, a sign or a non-digit in a number, is malformed.
 *
 * Merging copies the target first, so a failed merge leaves it unchanged, and words its error
 * from the copy as TF does (TF prints the half-merged target).
 */
#include "device/device_name.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* ---------------- parse ---------------- */

/* Consumes a "*" value; returns whether there was one. */
static int consume_star(const char **p) {
  if (**p != '*') return 0;
  (*p)++;
  return 1;
}

/* A job or device-type name: a letter, then [A-Za-z0-9_]*, shorter than cap. */
static int consume_ident(const char **p, char *out, size_t cap) {
  const char *s = *p;
  if (!isalpha((unsigned char)*s)) return -1;
  size_t n = 1;
  while (isalnum((unsigned char)s[n]) || s[n] == '_') n++;
  if (n >= cap) return -1;
  memcpy(out, s, n);
  out[n] = '\0';
  *p = s + n;
  return 0;
}

/* A decimal number in [0, INT_MAX]: digits only, so "-1" and "x" are malformed. */
static int consume_number(const char **p, int *out) {
  const char *s = *p;
  if (!isdigit((unsigned char)*s)) return -1;
  long long v = 0;
  for (; isdigit((unsigned char)*s); s++) {
    v = v * 10 + (*s - '0');
    if (v > INT_MAX) return -1;
  }
  *out = (int)v;
  *p = s;
  return 0;
}

/* "<number>" or "*" after a key; *has says which. */
static int consume_number_or_star(const char **p, int *has, int *out) {
  *has = !consume_star(p);
  return *has ? consume_number(p, out) : 0;
}

/* Consumes s's prefix when it matches. */
static int consume(const char **p, const char *prefix) {
  size_t n = strlen(prefix);
  if (strncmp(*p, prefix, n) != 0) return 0;
  *p += n;
  return 1;
}

/* "/device:" then TYPE or "*", then optionally ":" and ID or "*". */
static int parse_device(const char **p, tfc_devname *out) {
  out->has_type = !consume_star(p);
  if (out->has_type && consume_ident(p, out->type, sizeof out->type) != 0) return -1;
  out->has_id = 0;
  if (!consume(p, ":")) return 0;
  return consume_number_or_star(p, &out->has_id, &out->id);
}

/* Legacy "/cpu:N" or "/gpu:N": the type is upper-cased. */
static int parse_legacy(const char **p, const char *type, tfc_devname *out) {
  out->has_type = 1;
  snprintf(out->type, sizeof out->type, "%s", type);
  return consume_number_or_star(p, &out->has_id, &out->id);
}

/* TF's ParseLocalName: exactly "TYPE:ID". */
static int parse_local(const char *p, tfc_devname *out) {
  if (consume_ident(&p, out->type, sizeof out->type) != 0 || !consume(&p, ":")) return -1;
  if (consume_number(&p, &out->id) != 0 || *p) return -1;
  out->has_type = out->has_id = 1;
  return 0;
}

static int parse_component(const char **p, tfc_devname *out) {
  if (consume(p, "/job:")) {
    out->has_job = !consume_star(p);
    return out->has_job ? consume_ident(p, out->job, sizeof out->job) : 0;
  }
  if (consume(p, "/replica:")) return consume_number_or_star(p, &out->has_replica, &out->replica);
  if (consume(p, "/task:")) return consume_number_or_star(p, &out->has_task, &out->task);
  if (consume(p, "/device:")) return parse_device(p, out);
  if (consume(p, "/cpu:") || consume(p, "/CPU:")) return parse_legacy(p, "CPU", out);
  if (consume(p, "/gpu:") || consume(p, "/GPU:")) return parse_legacy(p, "GPU", out);
  return -1;
}

int tfc_devname_parse(const char *s, tfc_devname *out) {
  memset(out, 0, sizeof *out);
  if (!s || strcmp(s, "/") == 0) return 0;
  if (*s && *s != '/') {
    if (parse_local(s, out) == 0) return 0;
    memset(out, 0, sizeof *out);
    return -1;
  }
  while (*s) {
    if (parse_component(&s, out) != 0) {
      memset(out, 0, sizeof *out);
      return -1;
    }
  }
  return 0;
}

/* ---------------- print, match ---------------- */

void tfc_devname_print(const tfc_devname *n, tfc_strbuf *out) {
  if (n->has_job) tfc_strbuf_printf(out, "/job:%s", n->job);
  if (n->has_replica) tfc_strbuf_printf(out, "/replica:%d", n->replica);
  if (n->has_task) tfc_strbuf_printf(out, "/task:%d", n->task);
  if (n->has_type || n->has_id) tfc_strbuf_printf(out, "/device:%s:", n->has_type ? n->type : "*");
  if (n->has_id)
    tfc_strbuf_printf(out, "%d", n->id);
  else if (n->has_type)
    tfc_strbuf_puts(out, "*");
}

char *tfc_devname_str(const tfc_devname *n, char *buf, size_t cap) {
  tfc_strbuf b;
  tfc_strbuf_init(&b);
  tfc_devname_print(n, &b);
  if (cap > 0) snprintf(buf, cap, "%s", tfc_strbuf_str(&b));
  tfc_strbuf_fini(&b);
  return buf;
}

int tfc_devname_matches(const tfc_devname *spec, const tfc_devname *full) {
  if (spec->has_job && (!full->has_job || strcmp(spec->job, full->job) != 0)) return 0;
  if (spec->has_replica && (!full->has_replica || spec->replica != full->replica)) return 0;
  if (spec->has_task && (!full->has_task || spec->task != full->task)) return 0;
  if (spec->has_type && (!full->has_type || strcmp(spec->type, full->type) != 0)) return 0;
  if (spec->has_id && (!full->has_id || spec->id != full->id)) return 0;
  return 1;
}

int tfc_devname_is_complete(const tfc_devname *n) {
  return n->has_job && n->has_replica && n->has_task && n->has_type && n->has_id;
}

/* ---------------- merge ---------------- */

static int merge_error(const tfc_devname *a, const tfc_devname *b, const char *what,
                       tfc_status *s) {
  char x[160], y[160];
  return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                        "Cannot merge devices with incompatible %s: '%s' and '%s'", what,
                        tfc_devname_str(a, x, sizeof x), tfc_devname_str(b, y, sizeof y));
}

/* One integer component: fills when unset, errors when both set and different. */
static int merge_int(int *has, int *v, int o_has, int o_v) {
  if (!o_has) return 0;
  if (*has && *v != o_v) return -1;
  *has = 1;
  *v = o_v;
  return 0;
}

int tfc_devname_merge(tfc_devname *target, const tfc_devname *other, int allow_soft,
                      tfc_status *s) {
  tfc_devname t = *target;
  if (other->has_job) {
    if (t.has_job && strcmp(t.job, other->job) != 0) return merge_error(&t, other, "jobs", s);
    t.has_job = 1;
    memcpy(t.job, other->job, sizeof t.job);
  }
  if (merge_int(&t.has_replica, &t.replica, other->has_replica, other->replica) != 0)
    return merge_error(&t, other, "replicas", s);
  if (merge_int(&t.has_task, &t.task, other->has_task, other->task) != 0)
    return merge_error(&t, other, "tasks", s);
  if (other->has_type) {
    if (t.has_type && strcmp(t.type, other->type) != 0) {
      if (!allow_soft) return merge_error(&t, other, "types", s);
      /* TF drops the type and the id together and stops there. */
      t.has_type = t.has_id = 0;
      *target = t;
      return TFC_OK;
    }
    t.has_type = 1;
    memcpy(t.type, other->type, sizeof t.type);
  }
  if (other->has_id && t.has_id && t.id != other->id) {
    if (!allow_soft) return merge_error(&t, other, "ids", s);
    t.has_id = 0;
  } else {
    merge_int(&t.has_id, &t.id, other->has_id, other->id);
  }
  *target = t;
  return TFC_OK;
}

void tfc_devname_merge_override(tfc_devname *target, const tfc_devname *other) {
  if (other->has_job) {
    target->has_job = 1;
    memcpy(target->job, other->job, sizeof target->job);
  }
  if (other->has_replica) target->has_replica = 1, target->replica = other->replica;
  if (other->has_task) target->has_task = 1, target->task = other->task;
  if (other->has_type) {
    target->has_type = 1;
    memcpy(target->type, other->type, sizeof target->type);
  }
  if (other->has_id) target->has_id = 1, target->id = other->id;
}

void tfc_devname_clear_type_id(tfc_devname *n) {
  n->has_type = n->has_id = 0;
  n->type[0] = '\0';
  n->id = 0;
}

int tfc_devname_canonicalize(const char *name, const tfc_devname *base, tfc_strbuf *out,
                             tfc_status *s) {
  if (!tfc_devname_is_complete(base)) {
    char b[160];
    return tfc_status_set(s, TFC_INVALID_ARGUMENT, "Basename: %s should be fully specified.",
                          tfc_devname_str(base, b, sizeof b));
  }
  tfc_devname n;
  if (tfc_devname_parse(name, &n) != 0)
    return tfc_status_set(s, TFC_INVALID_ARGUMENT,
                          "Could not parse %s into a device specification.", name);
  tfc_devname full = *base;
  tfc_devname_merge_override(&full, &n);
  tfc_devname_print(&full, out);
  return TFC_OK;
}
