/*
 * regex — the C shim over RE2 (see regex.h). Every entry point catches C++ exceptions
 * (std::bad_alloc from the strings RE2 builds) so none crosses into C. RE2 is told not to log
 * bad patterns to stderr: the kernels report them through their status.
 */
#include "base/regex.h"

#include <re2/re2.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

struct tfc_regex {
  explicit tfc_regex(const re2::StringPiece &p, const RE2::Options &o) : re(p, o) {}
  RE2 re;
};

static char *dup_string(const std::string &s) {
  char *p = static_cast<char *>(std::malloc(s.size() + 1));
  if (p) {
    std::memcpy(p, s.data(), s.size());
    p[s.size()] = 0;
  }
  return p;
}

extern "C" tfc_regex *tfc_regex_new(const char *pattern, size_t len, char **out_error) {
  *out_error = nullptr;
  try {
    RE2::Options opts;
    opts.set_log_errors(false);
    tfc_regex *r = new tfc_regex(re2::StringPiece(pattern ? pattern : "", len), opts);
    if (r->re.ok()) return r;
    *out_error = dup_string(r->re.error());
    delete r;
    return nullptr;
  } catch (...) {
    return nullptr;
  }
}

extern "C" void tfc_regex_free(tfc_regex *re) { delete re; }

extern "C" int tfc_regex_full_match(const tfc_regex *re, const char *s, size_t len) {
  try {
    return RE2::FullMatch(re2::StringPiece(s ? s : "", len), re->re) ? 1 : 0;
  } catch (...) {
    return 0;
  }
}

extern "C" int tfc_regex_replace(const tfc_regex *re, const char *s, size_t len, const char *rewrite,
                                 size_t rewrite_len, int global, char **out, size_t *out_len) {
  try {
    std::string str(s ? s : "", len);
    re2::StringPiece rw(rewrite ? rewrite : "", rewrite_len);
    if (global)
      RE2::GlobalReplace(&str, re->re, rw);
    else
      RE2::Replace(&str, re->re, rw);
    *out = dup_string(str);
    *out_len = str.size();
    return *out ? 0 : -1;
  } catch (...) {
    return -1;
  }
}
