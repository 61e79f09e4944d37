/*
 * device_name — TF device names: parse, print, match, merge, canonicalize.
 *
 * A device name is a set of optional components /job:J/replica:R/task:T/device:TYPE:ID. Any
 * component may be missing (a partial spec matches every value) or be "*" (the same, written
 * out). Components may come in any order. Legacy and short forms are accepted: "/cpu:0",
 * "/GPU:1" (type upper-cased, as TF's parser does for cpu/gpu), "/device:GPU" (any id),
 * "CPU:0" and "/device:CPU:0" alone, "" and "/" (the empty spec). Full names print as
 * /job:J/replica:R/task:T/device:TYPE:ID (tensorflow/core/util/device_name_utils.cc).
 *
 * Rules (TF's MergeDevNames / IsSpecification):
 * - merge: unset fields are filled from the other name; set fields that differ are
 *   INVALID_ARGUMENT "Cannot merge devices with incompatible jobs: '<a>' and '<b>'" (replicas,
 *   tasks, types, ids likewise), except that with allow_soft the conflicting type and id are
 *   dropped instead (job/replica/task conflicts stay errors).
 * - merge_override: the other side wins every field it sets.
 * - matches(spec, full): every field set in spec equals full's.
 *
 * Plain values in caller storage; no allocation; thread-safe.
 */
#ifndef TFC_DEVICE_DEVICE_NAME_H
#define TFC_DEVICE_DEVICE_NAME_H

#include <stddef.h>

#include "base/status.h"
#include "base/strbuf.h"

#define TFC_DEVNAME_MAX_JOB 64
#define TFC_DEVNAME_MAX_TYPE 32

typedef struct tfc_devname {
  int has_job, has_replica, has_task, has_type, has_id;
  char job[TFC_DEVNAME_MAX_JOB];
  int replica, task;
  char type[TFC_DEVNAME_MAX_TYPE]; /* "CPU", "GPU", "FakeGPU"; legacy cpu/gpu upper-cased */
  int id;
} tfc_devname;

/* Parses s (NULL is the empty spec). Returns 0, or -1 when s is malformed (the caller words
 * the error: TF says "Malformed device specification '<s>' in node: <node>"). Job and type
 * names: a letter then [A-Za-z0-9_]*; numbers: decimal, >= 0. */
int tfc_devname_parse(const char *s, tfc_devname *out);
/* Appends the name: set components in job/replica/task/device order; an unset id prints as
 * "TYPE:*" and an unset type with a set id as "/device:*:ID". The empty spec prints "". */
void tfc_devname_print(const tfc_devname *n, tfc_strbuf *out);
/* The same into buf (truncated to cap); returns buf. */
char *tfc_devname_str(const tfc_devname *n, char *buf, size_t cap);
/* 1 when every set component of spec equals full's. */
int tfc_devname_matches(const tfc_devname *spec, const tfc_devname *full);
/* 1 when all five components are set. */
int tfc_devname_is_complete(const tfc_devname *n);
/* Merges other into *target (see rules above). On error *target is unchanged. */
int tfc_devname_merge(tfc_devname *target, const tfc_devname *other, int allow_soft,
                      tfc_status *s);
void tfc_devname_merge_override(tfc_devname *target, const tfc_devname *other);
/* Drops type and id (soft placement's relaxation keeps job/replica/task). */
void tfc_devname_clear_type_id(tfc_devname *n);
/* Parses `name` and fills its missing components from the complete `base`; prints the result
 * into out. INVALID_ARGUMENT naming the string when it is malformed. */
int tfc_devname_canonicalize(const char *name, const tfc_devname *base, tfc_strbuf *out,
                             tfc_status *s);

#endif
