/*
 * regex — RE2 regular expressions behind a C interface, for the regex string ops
 * (StaticRegexFullMatch, RegexFullMatch, StaticRegexReplace, RegexReplace). TensorFlow's
 * kernels use RE2 with its default options (UTF-8, longest-match off), so tfc links Debian's
 * libre2 and calls it the same way; regex.cc is the project's only C++ file, a thin shim that
 * turns RE2's C++ API (and its exceptions) into plain calls and return codes.
 *
 * A compiled tfc_regex is immutable and safe to use from many threads at once (RE2 objects
 * are), so a Static* kernel compiles its pattern once at construction and shares it.
 */
#ifndef TFC_BASE_REGEX_H
#define TFC_BASE_REGEX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tfc_regex tfc_regex;

/* Compiles pattern[0..len) (may hold NUL bytes). Returns the regex (caller frees with
 * tfc_regex_free), or NULL: then *out_error is RE2's description of what is wrong (e.g.
 * "missing ): a(b"), a heap string the caller frees, or NULL when memory ran out. */
tfc_regex *tfc_regex_new(const char *pattern, size_t len, char **out_error);
void tfc_regex_free(tfc_regex *re);

/* Whether the whole of s[0..len) matches re. */
int tfc_regex_full_match(const tfc_regex *re, const char *s, size_t len);

/* s[0..len) with the first (global = 0) or every non-overlapping (global != 0) match of re
 * replaced by rewrite, where \0..\9 name the match and its groups and \\ is a backslash (RE2's
 * rewrite syntax; a rewrite naming a group re lacks replaces nothing, as RE2 does). On success
 * returns 0 with *out (heap, caller frees, NUL-terminated) and *out_len; -1 when memory ran
 * out. */
int tfc_regex_replace(const tfc_regex *re, const char *s, size_t len, const char *rewrite, size_t rewrite_len,
                      int global, char **out, size_t *out_len);

#ifdef __cplusplus
}
#endif

#endif
