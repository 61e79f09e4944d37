#!/bin/sh
# check_api_symbols — every function the installed headers declare is either exported by
# libtfc or named in docs/COMPAT.md's list of declared functions not yet in the library, and
# no function on that list is exported (so the list stays true as they land).
#
#   sh check_api_symbols.sh <cc> <source dir> <libtfc.so>
#
# The headers (include/tensorflow/c/*.h, include/tfc/*.h, what `make install` installs) are
# run through the C preprocessor together; only text from those files is kept (line markers
# tell which), attributes are dropped, brace bodies skipped, and each top-level declaration
# that is not a typedef or static and has a function declarator gives one name. The
# library's names are nm -D --defined-only's text symbols. Needs sh, awk, nm and the C
# compiler.
set -eu
CC=$1
SRC=$2
LIB=$3
COMPAT=$SRC/docs/COMPAT.md
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

for h in "$SRC"/include/tensorflow/c/*.h "$SRC"/include/tfc/*.h; do
  echo "#include \"$h\""
done >"$TMP/all.c"
$CC -E -I"$SRC/include" "$TMP/all.c" >"$TMP/all.i"

# Declared functions.
awk -v inc="$SRC/include/" '
  /^# [0-9]+ "/ {
    f = $3; gsub(/"/, "", f)
    keep = index(f, inc) == 1
    next
  }
  /^#/ { next }
  keep { text = text " " $0 }
  END {
    # One pass over the characters: drop __attribute__((...)), skip {...}, cut at ;.
    n = length(text); depth = 0; stmt = ""
    for (i = 1; i <= n; i++) {
      c = substr(text, i, 1)
      if (depth == 0 && substr(text, i, 13) == "__attribute__") {
        i += 13; while (substr(text, i, 1) != "(" && i <= n) i++
        p = 0
        for (; i <= n; i++) {
          c = substr(text, i, 1)
          if (c == "(") p++
          else if (c == ")" && --p == 0) break
        }
        stmt = stmt " "
        continue
      }
      if (c == "{") { depth++; continue }
      if (c == "}") {
        # The end of a function body (a definition: static inline) ends its statement.
        if (--depth == 0 && index(stmt, "(") && stmt !~ /^[ ]*typedef[ (]/) { emit(stmt); stmt = "" }
        continue
      }
      if (depth > 0) continue
      if (c == ";") { emit(stmt); stmt = ""; continue }
      stmt = stmt c
    }
  }
  function emit(s,   p, before, m) {
    gsub(/[ \t]+/, " ", s); sub(/^ /, "", s)
    # static functions (inline definitions) belong to the client, not to the library.
    if (s ~ /^typedef[ (]/ || s ~ /(^| )static /) return
    if ((p = index(s, "(")) == 0) return
    if (substr(s, p + 1) ~ /^ ?\*/) {
      # type (*name(args))(args) is a function returning a function pointer; type (*name)(args)
      # is a pointer variable.
      if (match(s, /\( ?\* ?[A-Za-z_][A-Za-z0-9_]* ?\(/) && RSTART == p) {
        m = substr(s, RSTART, RLENGTH); gsub(/[(* ]/, "", m); print m
      }
      return
    }
    before = substr(s, 1, p - 1); sub(/ $/, "", before)
    if (match(before, /[A-Za-z_][A-Za-z0-9_]*$/)) print substr(before, RSTART)
  }
' "$TMP/all.i" | sort -u >"$TMP/declared"

nm -D --defined-only "$LIB" | awk '$2 ~ /^[TWi]$/ { sub(/@.*/, "", $3); print $3 }' | sort -u >"$TMP/defined"

# The list: backquoted names between the two marker lines.
awk '
  /^<!-- declared-not-defined -->/ { on = 1; next }
  /^<!-- end declared-not-defined -->/ { on = 0; next }
  on {
    s = $0
    while (match(s, /`[A-Za-z_][A-Za-z0-9_]*`/)) {
      print substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH)
    }
  }
' "$COMPAT" | sort >"$TMP/listed_all"
sort -u "$TMP/listed_all" >"$TMP/listed"

fail=0
n_decl=$(wc -l <"$TMP/declared")
if ! grep -qx TF_NewGraph "$TMP/declared" || [ "$n_decl" -lt 300 ]; then
  echo "FAIL: the header parse found $n_decl functions (TF_NewGraph among them?)"; fail=1
fi
if ! grep -q '^<!-- declared-not-defined -->' "$COMPAT" || ! grep -q '^<!-- end declared-not-defined -->' "$COMPAT"; then
  echo "FAIL: docs/COMPAT.md lacks the <!-- declared-not-defined --> ... <!-- end declared-not-defined --> markers"; fail=1
fi
for name in $(uniq -d "$TMP/listed_all"); do echo "FAIL: $name is listed twice in docs/COMPAT.md"; fail=1; done
for name in $(comm -23 "$TMP/declared" "$TMP/defined" | comm -23 - "$TMP/listed"); do
  echo "FAIL: $name is declared in include/ but neither defined in libtfc nor listed in docs/COMPAT.md"; fail=1
done
for name in $(comm -12 "$TMP/listed" "$TMP/defined"); do
  echo "FAIL: $name is defined in libtfc but still listed as missing in docs/COMPAT.md"; fail=1
done
for name in $(comm -23 "$TMP/listed" "$TMP/declared"); do
  echo "FAIL: $name is listed in docs/COMPAT.md but declared in no installed header"; fail=1
done
n_missing=$(comm -23 "$TMP/declared" "$TMP/defined" | wc -l)
[ $fail = 0 ] && echo "$n_decl functions declared, $n_missing of them not in libtfc, all listed in docs/COMPAT.md"
[ -n "${KEEP_DECLARED:-}" ] && cp "$TMP/declared" "$KEEP_DECLARED"
exit $fail
