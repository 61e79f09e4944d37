#!/bin/sh
# `tfc inspect DIR` and `tfc run DIR` on SavedModel directories (tests/fixtures/saved_model_*):
#   1. for each model of tests/fixtures/saved_model_cli/ (written by gen_saved_model.py and
#      gen_saved_model_assets.py (a text-form saved_model.pbtxt) with
#      TensorFlow's saved_model_cli): `tfc inspect DIR` prints what `saved_model_cli show --all`
#      printed up to its op list, and `tfc run DIR --feed KEY=VALUE` prints what
#      `saved_model_cli run` printed for the same input;
#   2. mistakes: a tag-set or signature the SavedModel lacks, an unknown input key (each named,
#      with the available ones listed), a missing variables directory (the load succeeds as in
#      TF, with TF's note; the run fails), --signature on a GraphDef file.
# Usage: tool_saved_model.sh TFC_TOOL FIXTURE_DIR WORKDIR
set -u
tool=$1 fix=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# 1. What TF's saved_model_cli printed.
for show in "$fix"/saved_model_cli/*.show; do
  name=$(basename "$show" .show)
  dir=$fix/$name
  "$tool" inspect "$dir" > "$work/$name.inspect" 2> "$work/$name.inspect.err" || fail "$name: inspect failed: $(cat "$work/$name.inspect.err")"
  sed '/^The MetaGraph with tag set/,$d' "$work/$name.inspect" > "$work/$name.show"
  cmp -s "$work/$name.show" "$show" || fail "$name: inspect differs from saved_model_cli show --all:
$(diff "$show" "$work/$name.show")"
  grep -q "^The MetaGraph with tag set \['serve'\] contains the following ops: {" "$work/$name.inspect" ||
    fail "$name: inspect lacks the op list"
  "$tool" run "$dir" --feed "$(cat "$fix/saved_model_cli/$name.feed")" > "$work/$name.run" 2> "$work/$name.run.err" ||
    fail "$name: run failed: $(cat "$work/$name.run.err")"
  cmp -s "$work/$name.run" "$fix/saved_model_cli/$name.run" || fail "$name: run differs from saved_model_cli run:
$(diff "$fix/saved_model_cli/$name.run" "$work/$name.run")"
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
m=$fix/saved_model_tf2_module
expect no_tag_set 2 "tfc run: NOT_FOUND: MetaGraphDef associated with tag-set serve,gpu could not be found in the SavedModel. Please use one of the following tag-sets: ['serve']" -- run "$m" --tag serve,gpu --feed 'x=[[1,2]]'
expect no_signature 2 'tfc run: NOT_FOUND: Could not find signature "predict". Please choose from: __saved_model_init_op, serving_default' -- run "$m" --signature predict --feed 'x=[[1,2]]'
expect no_input_key 2 'tfc run: INVALID_ARGUMENT: "z" is not a valid input key. Please choose from "x", or use tfc inspect.' -- run "$m" --feed 'z=[[1,2]]'
expect signature_on_graph_file 2 "--signature given, but $fix/seed_matmul.pb is not a SavedModel directory" -- run "$fix/seed_matmul.pb" --signature serving_default --fetch c
expect inspect_missing 1 "tfc inspect: NOT_FOUND: Could not find SavedModel .pb or .pbtxt at supplied export directory path: $work" -- inspect "$work"
expect run_missing 1 "tfc run: NOT_FOUND: Could not find SavedModel .pb or .pbtxt at supplied export directory path: $work" -- run "$work" --feed 'x=[1]'
cp -r "$m" "$work/no_variables" && rm -rf "$work/no_variables/variables"
expect no_variables 1 "FAILED_PRECONDITION: Error while reading resource variable" -- run "$work/no_variables" --feed 'x=[[1,2]]'
grep -qF "The specified SavedModel has no variables; no checkpoints were restored. File does not exist: $work/no_variables/variables/variables.index" "$work/no_variables.err" ||
  fail "no_variables: stderr lacks TF's note: $(cat "$work/no_variables.err")"

if [ $failures -eq 0 ]; then echo "PASS: tool_saved_model"; else echo "$failures failure(s)"; exit 1; fi
