#!/bin/sh
# The main job when something is wrong, on the 5 train / 3 test records of
# tests/fixtures/example_idx (each run builds the graph, and trains at most a few steps):
#   corrupt      train.tfrecords with one flipped data byte, a bad length, cut short; a flipped
#                byte in test.tfrecords: each ends the job non-zero with the reader's DATA_LOSS
#                (file and offset), never the closed queue it leaves behind;
#   inputs       an empty train.tfrecords, a missing test.tfrecords, a directory in place of
#                the train file: refused before training, naming the file;
#   steps        steps per epoch come from the records counted, not a constant;
#   flags        bad flags are named; --help exits 0;
#   checkpoints  a damaged newest checkpoint: the job falls back to the newest intact one,
#                names the bad one and why, moves it aside instead of saving over it, and the
#                temporaries a killed save left are removed; nothing intact, or checkpoints
#                without a state file: it refuses to start unless --restart.
# Usage: fashion_mnist_failures.sh MODE TFC_TOOL FASHION_MNIST_PROGRAM WORKDIR
set -eu
mode=$1 tool=$2 prog=$3 work=$4
fixtures=$(cd "$(dirname "$0")/../fixtures" && pwd)
rm -rf "$work" && mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }

"$tool" data fashion-mnist --from "$fixtures/example_idx" --out "$work/data" > "$work/convert.log" ||
  fail "convert: $(cat "$work/convert.log")"

# A copy of the data with one file changed by a shell command run in the copy.
variant() {
  rm -rf "$work/$1" && cp -r "$work/data" "$work/$1" && (cd "$work/$1" && eval "$2")
}
# Flips the byte at offset $2 of file $1.
flip() {
  byte=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "\\$(printf '%03o' $((byte ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
# Runs the job (60 s at most: a hang is a failure); its status in $rc, output in $work/$1.log.
run() {
  log=$1
  shift
  rc=0
  timeout 60 "$prog" --devices 1 --batch 1 --log-every 1 "$@" > "$work/$log.log" 2>&1 || rc=$?
}
expect_fail() { # log, code, text
  [ "$rc" != 0 ] && [ "$rc" != 124 ] || fail "$1: exit status $rc: $(cat "$work/$1.log")"
  grep -qF -- "$2" "$work/$1.log" || fail "$1: no '$2' in: $(cat "$work/$1.log")"
  if grep -q "is closed and has insufficient elements" "$work/$1.log"; then
    fail "$1: the closed queue is reported instead of its cause: $(cat "$work/$1.log")"
  fi
  return 0
}

# Each train record of the fixture is 2030 bytes (12 header + 2014 data + 4 footer).
case $mode in
corrupt)
  variant flipped "flip train.tfrecords $((2030 + 12 + 100))"
  run flipped --data "$work/flipped" --out "$work/o_flipped" --max-steps 20
  expect_fail flipped \
    "fashion_mnist: DATA_LOSS: corrupted record at 2030 in file $work/flipped/train.tfrecords: the data's checksum does not match"
  variant length "flip train.tfrecords 2031"
  run length --data "$work/length" --out "$work/o_length" --max-steps 20
  expect_fail length \
    "DATA_LOSS: checking the input: corrupted record at 2030 in file $work/length/train.tfrecords: the length's checksum does not match"
  variant cut "truncate -s 10000 train.tfrecords"
  run cut --data "$work/cut" --out "$work/o_cut" --max-steps 20
  expect_fail cut \
    "DATA_LOSS: checking the input: truncated record at 8120 in file $work/cut/train.tfrecords: the file ends inside the record (1880 of 2030 bytes)"
  # The test file's records are read at evaluation, after training: same rule.
  variant test_flipped "flip test.tfrecords $((2030 + 12 + 100))"
  run test_flipped --data "$work/test_flipped" --out "$work/o_test_flipped" --max-steps 1
  expect_fail test_flipped \
    "DATA_LOSS: corrupted record at 2030 in file $work/test_flipped/test.tfrecords: the data's checksum does not match"
  grep -q "precision @ 1" "$work/test_flipped.log" && fail "an evaluation of part of the test file was reported"
  echo "PASS: flipped byte, bad length, cut file, flipped test byte: DATA_LOSS with file and offset"
  ;;
inputs)
  variant empty ": > train.tfrecords"
  run empty --data "$work/empty" --out "$work/o_empty" --no-eval
  expect_fail empty "fashion_mnist: INVALID_ARGUMENT: $work/empty/train.tfrecords holds no records (an empty file)"
  variant notest "rm test.tfrecords"
  run notest --data "$work/notest" --out "$work/o_notest"
  expect_fail notest "fashion_mnist: NOT_FOUND: $work/notest/test.tfrecords; No such file or directory"
  grep -q ": step " "$work/notest.log" && fail "trained before finding test.tfrecords missing"
  [ ! -e "$work/o_notest/checkpoint" ] || fail "trained before finding test.tfrecords missing"
  variant dir "rm train.tfrecords && mkdir train.tfrecords"
  run dir --data "$work/dir" --out "$work/o_dir" --no-eval
  expect_fail dir "fashion_mnist: FAILED_PRECONDITION: checking the input: $work/dir/train.tfrecords; Is a directory"
  echo "PASS: empty train file, missing test file, directory: refused before training"
  ;;
steps)
  run steps --data "$work/data" --out "$work/o_steps" --batch 2 --max-steps 1 --no-eval
  [ "$rc" = 0 ] || fail "run: $(cat "$work/steps.log")"
  grep -q "^1 tower x 2 examples per step, 2 steps per epoch; from step 0 to 1$" "$work/steps.log" ||
    fail "steps per epoch of 5 records in batches of 2: $(cat "$work/steps.log")"
  echo "PASS: 5 records, batch 2: 2 steps per epoch"
  ;;
flags)
  check_flag() { # expected message, flags...
    want=$1
    shift
    rc=0
    "$prog" "$@" > "$work/flag.log" 2>&1 || rc=$?
    [ "$rc" = 2 ] || fail "$*: exit status $rc (want 2): $(cat "$work/flag.log")"
    grep -qF -- "$want" "$work/flag.log" || fail "$*: no '$want' in: $(cat "$work/flag.log")"
    grep -q "^usage: " "$work/flag.log" || fail "$*: no usage"
  }
  check_flag "fashion_mnist: unknown flag '--epoch'" --epoch 2
  check_flag "fashion_mnist: --batch needs a value" --data x --batch
  check_flag "fashion_mnist: --batch: 'ten' is not an integer" --batch ten
  check_flag "fashion_mnist: --devices: 0 is out of range [1, 16]" --devices 0
  check_flag "fashion_mnist: --devices: 17 is out of range [1, 16]" --devices 17
  check_flag "fashion_mnist: --epochs: '1x' is not a number" --epochs 1x
  check_flag "fashion_mnist: --keep-prob: 1.5 is out of range (0, 1]" --keep-prob 1.5
  check_flag "fashion_mnist: --max-steps: -3 is out of range [0, " --max-steps -3
  "$prog" --help > "$work/help.log" 2>&1 || fail "--help: $(cat "$work/help.log")"
  grep -q "^usage: fashion_mnist " "$work/help.log" || fail "--help: $(cat "$work/help.log")"
  echo "PASS: unknown flag, missing value, not a number, out of range: named; --help"
  ;;
checkpoints)
  out=$work/train
  run first --data "$work/data" --out "$out" --max-steps 6 --save-every 2 --no-eval
  [ "$rc" = 0 ] || fail "first run: $(cat "$work/first.log")"
  grep -q '^model_checkpoint_path: "model.ckpt-6"' "$out/checkpoint" || fail "state: $(cat "$out/checkpoint")"
  # The newest checkpoint damaged, the one before it half gone (its index deleted), and the
  # leftovers of a save killed midway.
  flip "$out/model.ckpt-6.data-00000-of-00001" 1000
  rm "$out/model.ckpt-4.index"
  echo partial > "$out/model.ckpt-6.data-00000-of-00001.tempstate123"
  echo partial > "$out/model.ckpt-8.index.tempstate456"
  run fallback --data "$work/data" --out "$out" --max-steps 8 --save-every 2 --no-eval
  [ "$rc" = 0 ] || fail "fallback run: $(cat "$work/fallback.log")"
  grep -qF "fashion_mnist: checkpoint $out/model.ckpt-6 cannot be restored: DATA_LOSS: Checksum does not match" \
    "$work/fallback.log" || fail "the damaged checkpoint is not named: $(cat "$work/fallback.log")"
  grep -qF "fashion_mnist: checkpoint $out/model.ckpt-4 cannot be restored: NOT_FOUND: $out/model.ckpt-4.index" \
    "$work/fallback.log" || fail "the missing checkpoint is not named: $(cat "$work/fallback.log")"
  grep -qF "falling back to $out/model.ckpt-2, the newest checkpoint that can be restored" "$work/fallback.log" ||
    fail "no fallback: $(cat "$work/fallback.log")"
  grep -q "^restored $out/model.ckpt-2$" "$work/fallback.log" || fail "did not restore 2: $(cat "$work/fallback.log")"
  grep -q "from step 2 to 8" "$work/fallback.log" || fail "did not continue from 2: $(cat "$work/fallback.log")"
  grep -qF "moved the files of checkpoint model.ckpt-6 aside" "$work/fallback.log" ||
    fail "not moved aside: $(cat "$work/fallback.log")"
  [ -e "$out/model.ckpt-6.aside.index" ] && [ -e "$out/model.ckpt-6.aside.data-00000-of-00001" ] &&
    [ -e "$out/model.ckpt-4.aside.data-00000-of-00001" ] || fail "aside files: $(ls "$out")"
  # The damaged bytes were kept (set aside), not saved over: step 6 is a new save.
  cmp -s "$out/model.ckpt-6.aside.data-00000-of-00001" "$out/model.ckpt-6.data-00000-of-00001" &&
    fail "model.ckpt-6 was not saved anew"
  ls "$out" | grep -q tempstate && fail "stale temporaries left: $(ls "$out")"
  grep -q '^model_checkpoint_path: "model.ckpt-8"' "$out/checkpoint" || fail "state: $(cat "$out/checkpoint")"
  # Nothing listed can be restored: refuse, touching nothing.
  for f in "$out"/model.ckpt-[0-9]*.data-00000-of-00001; do truncate -s 100 "$f"; done
  before=$(ls -l "$out" | md5sum)
  run refuse --data "$work/data" --out "$out" --max-steps 10 --save-every 2 --no-eval
  expect_fail refuse "FAILED_PRECONDITION: none of the 4 checkpoints listed in $out/checkpoint can be restored"
  grep -qF -- "pass --restart to train from step 0" "$work/refuse.log" || fail "no hint: $(cat "$work/refuse.log")"
  [ "$(ls -l "$out" | md5sum)" = "$before" ] || fail "the refused run changed $out"
  # Checkpoints but no state file: refuse too.
  mv "$out/checkpoint" "$work/state.saved"
  run nostate --data "$work/data" --out "$out" --max-steps 10 --no-eval
  expect_fail nostate "FAILED_PRECONDITION: $out holds model.ckpt-* checkpoints but no checkpoint state file naming them"
  # --restart starts over.
  mv "$work/state.saved" "$out/checkpoint"
  run restart --data "$work/data" --out "$out" --max-steps 2 --save-every 2 --no-eval --restart
  [ "$rc" = 0 ] || fail "restart: $(cat "$work/restart.log")"
  grep -q "from step 0 to 2" "$work/restart.log" || fail "restart: $(cat "$work/restart.log")"
  grep -q '^model_checkpoint_path: "model.ckpt-2"' "$out/checkpoint" || fail "state: $(cat "$out/checkpoint")"
  echo "PASS: damaged newest checkpoint passed over and set aside, stale temporaries removed, refusals, --restart"
  ;;
*) fail "unknown mode $mode" ;;
esac
rm -rf "$work"
