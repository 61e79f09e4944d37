#!/bin/sh
# The tfc command end to end:
#   1. every case of tests/fixtures/tool_cases/ (written by gen_tool.py with TensorFlow): the
#      arguments in NAME.args, and stdout must equal NAME.out, what TF's Python printed for the
#      same runs; exit code 0;
#   2. the command line's mistakes: exit code 2 (1 for files and failed runs) and a message that
#      names what is wrong.
# Usage: tool_run.sh TFC_TOOL FIXTURE_DIR WORKDIR
set -u
tool=$1 fix=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# 1. Cases with TF's output.
for argsfile in "$fix"/tool_cases/*.args; do
  name=$(basename "$argsfile" .args)
  set --
  while IFS= read -r line; do
    set -- "$@" "$(printf '%s' "$line" | sed "s|@FIX@|$fix|g")"
  done < "$argsfile"
  "$tool" "$@" > "$work/$name.out" 2> "$work/$name.err"
  rc=$?
  [ $rc -eq 0 ] || fail "$name: exit code $rc: $(cat "$work/$name.err")"
  cmp -s "$work/$name.out" "$fix/tool_cases/$name.out" ||
    fail "$name: output differs from TF's:
$(diff "$fix/tool_cases/$name.out" "$work/$name.out")"
done

# 2. Mistakes. expect NAME RC MESSAGE -- ARGS...: stderr must contain MESSAGE (a fixed string).
expect() {
  name=$1 want_rc=$2 want=$3
  shift 4
  "$tool" "$@" > "$work/$name.out" 2> "$work/$name.err"
  rc=$?
  [ $rc -eq "$want_rc" ] || fail "$name: exit code $rc, want $want_rc: $(cat "$work/$name.err")"
  grep -qF -- "$want" "$work/$name.err" || fail "$name: stderr lacks '$want': $(cat "$work/$name.err")"
}
g=$fix/tool_steps.pb
# Feeds that crashed or were misread: each names the feed, the value and the dtype.
expect feed_empty 2 "tfc run: INVALID_ARGUMENT: --feed x:0: empty value" -- run "$g" --feed x= --fetch y
expect feed_ragged 2 "--feed x:0: ragged value" -- run "$g" --feed 'x=[1,2,[3,4]]' --fetch y
expect feed_ragged_rows 2 "--feed x:0: ragged value: lists of 2 and 1 elements at depth 2" -- run "$g" --feed 'x=[[1,2],[3]]' --fetch y
expect feed_unbracketed 2 "--feed x:0: unexpected ',2,3,4' after the first element (a list needs brackets: [1,2,3,4])" -- run "$g" --feed x=1,2,3,4 --fetch y
expect feed_shape 2 "INVALID_ARGUMENT: Cannot feed value of shape (4,) for Tensor 'x:0', which has shape '(?, 2)'" -- run "$g" --feed 'x=[1,2,3,4]' --fetch y
expect feed_rank 2 "Cannot feed value of shape () for Tensor 'i:0', which has shape '(3,)'" -- run "$g" --feed i=1 --fetch i_out
expect feed_float_to_int 2 "--feed i:0: 1.5 is not an integer (the feed is int32)" -- run "$g" --feed 'i=[1.5,2,3]' --fetch i_out
expect feed_int32_range 2 "--feed i:0: 2147483648 is out of range for int32 [-2147483648, 2147483647]" -- run "$g" --feed 'i=[2147483648,0,0]' --fetch i_out
expect feed_uint8_range 2 "--feed u:0: 256 is out of range for uint8 [0, 255]" -- run "$g" --feed 'u=[1,256]' --fetch u_out
expect feed_uint8_negative 2 "--feed u:0: -1 is out of range for uint8 [0, 255]" -- run "$g" --feed u=-1 --fetch u_out
expect feed_half_range 2 "--feed h:0: 70000 is out of range for half" -- run "$g" --feed h=70000 --fetch h_out
expect feed_float_range 2 "--feed x:0: 1e39 is out of range for float" -- run "$g" --feed 'x=[[1e39,0]]' --fetch y
expect feed_not_number 2 "--feed x:0: abc is not a number (the feed is float)" -- run "$g" --feed 'x=[[abc,0]]' --fetch y
expect feed_not_bool 2 "--feed b:0: 2 is not a bool (true, false, 1 or 0)" -- run "$g" --feed b=2 --fetch b_out
expect feed_string_unquoted 2 "--feed s:0: abc is not a quoted string (the feed is string)" -- run "$g" --feed 's=[abc]' --fetch s_out
expect feed_string_open 2 "--feed s:0: unterminated string \"ab] (no closing \")" -- run "$g" --feed 's=["ab]' --fetch s_out
expect feed_string_escape 2 "--feed s:0: unknown escape \\q in string" -- run "$g" --feed 's=["a\q"]' --fetch s_out
expect feed_no_equals 2 "--feed x: wants NAME[:K]=VALUE" -- run "$g" --feed x --fetch y
expect feed_no_node 2 "NOT_FOUND: --feed nope=1: the graph has no node named 'nope'" -- run "$g" --feed nope=1 --fetch y
# The command line.
expect cpus_abc 2 "tfc run: --cpus takes a count from 1 to 1024, not 'abc'" -- run "$g" --cpus abc --fetch v
expect timeout_abc 2 "tfc run: --timeout-ms takes a whole number of milliseconds (0: none), not 'abc'" -- run "$g" --timeout-ms abc --fetch v
expect fetch_index_overflow 2 "output index 99999999999999999999 is out of range" -- run "$g" --fetch y:99999999999999999999
expect fetch_index 2 "INVALID_ARGUMENT: --fetch y:1: node 'y' (Mul) has 1 output" -- run "$g" --fetch y:1
expect fetch_no_value 2 "tfc run: --fetch needs a value" -- run "$g" --fetch
expect bogus_flag 2 "tfc run: unknown option '--bogus'" -- run "$g" --bogus
expect nothing_to_run 2 "tfc run: nothing to run: give a --fetch, a --target or a --restore" -- run "$g"
expect empty_step 2 "tfc run: --then after an empty step (step 1 has nothing to run)" -- run "$g" --then --fetch v
expect restore_mixed 2 "step 1: --restore is a step of its own" -- run "$g" --restore x --fetch v
expect restore_no_saver 2 "NOT_FOUND: --restore: the graph has no saver" -- run "$fix/seed_matmul.pb" --restore x
expect restore_missing 1 "NOT_FOUND: " -- run "$g" --target init --then --restore "$work/no_such_ckpt"
expect unknown_command 2 "tfc: unknown command 'bogus'" -- bogus
expect no_model 2 "tfc run: no MODEL.pb given" -- run --fetch v
# Files and runs.
# a directory is taken for a SavedModel directory (tests/scripts/tool_saved_model.sh)
expect file_is_dir 1 "tfc run: NOT_FOUND: Could not find SavedModel .pb or .pbtxt at supplied export directory path: $fix" -- run "$fix" --fetch c
expect file_missing 1 "tfc run: cannot read $work/nope.pb: No such file or directory" -- run "$work/nope.pb" --fetch c
expect run_unfed 1 "tfc run: INVALID_ARGUMENT: You must feed a value for placeholder tensor 's' with dtype string and shape [?]" -- run "$g" --fetch s_out
expect run_uninitialized 1 "FAILED_PRECONDITION: " -- run "$g" --fetch v
expect inspect_missing 1 "tfc inspect: cannot read $work/nope.pb: No such file or directory" -- inspect "$work/nope.pb"

# Help and version go to stdout with exit code 0.
"$tool" run --help > "$work/help.out" 2>&1 || fail "run --help: exit code $?"
grep -q -- "--then STEP" "$work/help.out" || fail "run --help: $(cat "$work/help.out")"
"$tool" --version > "$work/version.out" 2>&1 || fail "--version: exit code $?"
grep -qE '^tfc [0-9]+\.[0-9]+\.[0-9]+ \(TensorFlow C API 1\.15\.0\)$' "$work/version.out" || fail "--version: $(cat "$work/version.out")"
# --print-all prints every element of a large tensor.
"$tool" run "$g" --fetch p_big_int --print-all > "$work/all.out" 2>&1 || fail "--print-all: exit code $?"
grep -q '\.\.\.' "$work/all.out" && fail "--print-all still summarizes"
grep -q ' 500 ' "$work/all.out" || fail "--print-all lacks element 500"

# tfc inspect lists a graph with an op tfc does not know, marks it and sums up.
"$tool" inspect "$fix/tool_unknown_op.pb" > "$work/inspect.out" 2> "$work/inspect.err" || fail "inspect unknown op: exit code $?"
grep -qx 'svd = Svd(c)  # unknown op: tfc has no op named Svd' "$work/inspect.out" || fail "inspect: no mark on svd: $(cat "$work/inspect.out")"
grep -qx 'c = MatMul(a, b)' "$work/inspect.out" || fail "inspect: c is not listed plainly"
grep -qx '4 nodes' "$work/inspect.out" || fail "inspect: node count"
grep -qx 'ops without a kernel here: Svd (unknown op, 1 node)' "$work/inspect.out" || fail "inspect: summary line"
"$tool" inspect "$g" > "$work/inspect2.out" 2>&1 || fail "inspect tool_steps.pb: exit code $?"
grep -qx 'every op has a kernel here' "$work/inspect2.out" || fail "inspect: summary of a runnable graph"

# tfc data on a truncated .gz: zlib's reason, and no output directory left behind.
mkdir -p "$work/idx"
cp "$fix"/example_idx/*.gz "$work/idx/"
head -c 200 "$fix/example_idx/train-images-idx3-ubyte.gz" > "$work/idx/train-images-idx3-ubyte.gz"
expect data_truncated 1 "tfc data: $work/idx/train-images-idx3-ubyte.gz: truncated: 153 of 3920 data bytes: unexpected end of file" \
  -- data fashion-mnist --from "$work/idx" --out "$work/data_out/sub"
[ "$(tail -c 1 "$work/data_truncated.err" | od -An -c | tr -d ' ')" = '\n' ] || fail "data_truncated: message not one clean line"
[ "$(wc -l < "$work/data_truncated.err")" -eq 1 ] || fail "data_truncated: $(cat "$work/data_truncated.err")"
[ -e "$work/data_out" ] && fail "data_truncated: left $(find "$work/data_out")"

[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "PASS: tool_run"
