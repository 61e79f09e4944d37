#!/bin/sh
# The main job across processes, on a few hundred Fashion-MNIST records:
#   1. synchronous: a ps and two workers started by hand (`fashion_mnist --cluster SPEC --job
#      ps|worker --task N --sync`) train to step 30; both workers end at global step 30, the
#      chief (worker 0) checkpoints every 10 steps and evaluates the moving averages above
#      chance;
#   2. asynchronous under the supervisor (`tfc cluster ... -- fashion_mnist ...`): the ps is
#      killed with SIGKILL once a checkpoint of step 20 or later exists; the supervisor restarts
#      it, the workers' monitored sessions recover (the chief restores the newest checkpoint
#      into the new ps) and the job still ends at its planned step 80 (or a step or two
#      past it: asynchronous workers race), checkpoint and evaluation included, and the
#      supervisor exits 0.
# Usage: fashion_mnist_cluster.sh TFC_TOOL FASHION_MNIST_PROGRAM CLUSTER_PROBE WORKDIR
name=fashion_mnist_cluster
fm=$2
set -- "$1" "$3" "$4" # the library's arguments: TFC_TOOL CLUSTER_PROBE WORKDIR
. "$(dirname "$0")/tfc_cluster_lib.sh"

"$tool" data fashion-mnist --out "$work/data" --limit 600 > "$work/convert.log" || fail "convert: $(cat "$work/convert.log")"
common="--data $work/data --batch 25 --log-every 10"

# 1. Synchronous, by hand.
set -- $("$probe" ports 3)
spec="ps=127.0.0.1:$1;worker=127.0.0.1:$2,127.0.0.1:$3"
"$fm" --cluster "$spec" --job ps > "$work/ps.log" 2>&1 &
ps=$!
supervisors="$ps"
"$fm" --cluster "$spec" --job worker --task 1 --sync $common --out "$work/sync" --max-steps 30 > "$work/w1.log" 2>&1 &
w1=$!
supervisors="$ps $w1"
"$fm" --cluster "$spec" --job worker --task 0 --sync $common --out "$work/sync" --max-steps 30 --save-every 10 \
  > "$work/w0.log" 2>&1 || fail "sync chief: $(cat "$work/w0.log")"
wait $w1 || fail "sync worker 1: $(cat "$work/w1.log")"
kill -TERM $ps
wait $ps || fail "ps after SIGTERM: $(cat "$work/ps.log")"
supervisors=""
cat "$work/w0.log" "$work/w1.log"
grep -q "^worker 0 of 2 (synchronous)" "$work/w0.log" || fail "chief's header: $(cat "$work/w0.log")"
grep -q "^worker 0: ran [0-9]* steps .* global step 30$" "$work/w0.log" || fail "chief's end: $(cat "$work/w0.log")"
grep -q "^worker 1: ran [0-9]* steps .* global step 30$" "$work/w1.log" || fail "worker 1's end: $(cat "$work/w1.log")"
grep -q '^model_checkpoint_path: "model.ckpt-30"' "$work/sync/checkpoint" || fail "sync checkpoint state"
acc=$(sed -n 's/.*precision @ 1 = \([0-9.]*\) .*/\1/p' "$work/w0.log")
[ -n "$acc" ] && awk "BEGIN { exit !($acc > 0.3) }" || fail "sync accuracy '$acc' is not above chance"
ls "$work/sync"/events.out.tfevents.* > /dev/null 2>&1 || fail "no event file from the chief"

# 2. Asynchronous under the supervisor; the ps dies mid-training.
set -- $("$probe" ports 3)
spec="ps=127.0.0.1:$1;worker=127.0.0.1:$2,127.0.0.1:$3"
"$tool" cluster --cluster "$spec" --backoff-ms 200 -- "$fm" --cluster "{cluster}" --job "{job}" --task "{task}" \
  $common --out "$work/async" --max-steps 80 --save-every 10 > "$work/sup.out" 2> "$work/sup.err" &
sup=$!
supervisors=$sup
wait_for "$work/sup.err" "/job:ps/replica:0/task:0 server started"
i=0
until grep -qE '^model_checkpoint_path: "model.ckpt-([2-7][0-9])"' "$work/async/checkpoint" 2>/dev/null; do
  i=$((i + 1))
  [ $i -lt 1200 ] || { fail "no checkpoint of step 20 within 120 s: $(cat "$work/sup.out" "$work/sup.err")"; break; }
  sleep 0.1
done
killed=$(pid_of "$work/sup.err" "/job:ps/replica:0/task:0 server started")
kill -9 "$killed"
wait_for "$work/sup.err" "/job:ps/replica:0/task:0 \(pid $killed\) killed by signal 9"
sup_wait $sup 0 "supervisor"
supervisors=""
cat "$work/sup.out"
grep -q "A new session will be created" "$work/sup.err" || fail "no recovery logged: $(cat "$work/sup.err")"
grep -q "Restoring parameters from $work/async/model.ckpt-" "$work/sup.err" || fail "no restore: $(cat "$work/sup.err")"
# Asynchronous workers step the global step each on their own: the chief stops at the first
# step it sees at or past 80, which the other worker may have passed by a step or two.
last=$(sed -n 's/^worker 0: ran [0-9]* steps .* global step \([0-9]*\)$/\1/p' "$work/sup.out")
[ -n "$last" ] && [ "$last" -ge 80 ] && [ "$last" -le 84 ] || fail "chief's end: $(cat "$work/sup.out")"
# The chief's final save reads the global step then, which the other worker may have stepped
# once more since the chief's last step.
ckpt=$(sed -n 's/^model_checkpoint_path: "model.ckpt-\([0-9]*\)"$/\1/p' "$work/async/checkpoint")
[ -n "$ckpt" ] && [ "$ckpt" -ge "$last" ] && [ "$ckpt" -le 84 ] ||
  fail "async checkpoint state: $(cat "$work/async/checkpoint")"
acc=$(sed -n 's/.*precision @ 1 = \([0-9.]*\) .*/\1/p' "$work/sup.out")
[ -n "$acc" ] && awk "BEGIN { exit !($acc > 0.3) }" || fail "async accuracy '$acc' is not above chance"
finish
