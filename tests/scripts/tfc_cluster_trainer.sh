#!/bin/sh
# tfc cluster with trainers: each worker task runs the trainer command (its placeholders
# replaced, TF_CONFIG set) instead of a server; a trainer that fails is restarted with a
# doubling backoff, one that exits 0 is done, and when all are done the ps is stopped and the
# supervisor exits 0. Then: a trainer that never succeeds runs out of --max-restarts (exit 1,
# the reason on stderr); a trainer that cannot be executed stops the cluster (exit 1); and
# the command line's mistakes (exit 2).
# Usage: tfc_cluster_trainer.sh TFC_TOOL CLUSTER_PROBE WORKDIR
name=tfc_cluster_trainer
. "$(dirname "$0")/tfc_cluster_lib.sh"

set -- $("$probe" ports 3)
spec="ps=127.0.0.1:$1;worker=127.0.0.1:$2,127.0.0.1:$3"
w1=$3

# 1. Worker 1's trainer fails twice (exit status 3), worker 0's is killed once by SIGKILL; then
# both record what they were given (TF_CONFIG replaced) and succeed. (The ps may get its SIGTERM before it has
# caught the signal: then it is stopped by the signal itself.)
cat > "$work/train.sh" <<'SH'
# train.sh WORKDIR JOB TASK TARGET CLUSTER
n=$(cat "$1/count.$3" 2>/dev/null || echo 0)
n=$((n + 1))
echo $n > "$1/count.$3"
if [ "$3" = 1 ] && [ $n -le 2 ]; then exit 3; fi
if [ "$3" = 0 ] && [ $n -le 1 ]; then kill -9 $$; fi
printf '%s|%s|%s|%s\n' "$2" "$3" "$4" "$5" > "$1/args.$3"
printf '%s\n' "$TF_CONFIG" > "$1/tf_config.$3"
exit 0
SH
log=$work/sup.err
TF_CONFIG=stale "$tool" cluster --cluster "$spec" --backoff-ms 100 --max-restarts 5 -- sh "$work/train.sh" "$work" {job} {task} {target} \
  {cluster} > "$work/sup.out" 2> "$log" &
sup=$!
supervisors=$sup
sup_wait $sup 0 "trainers that end well"
supervisors=""
t1=/job:worker/replica:0/task:1
t0=/job:worker/replica:0/task:0
grep -qx "tfc cluster: supervising 3 tasks here (1 server, 2 trainers) of cluster $spec" "$log" || fail "first line: $(head -n 1 "$log")"
grep -qE "^tfc cluster: /job:ps/replica:0/task:0 server started \(pid [0-9]+\)\$" "$log" || fail "ps not started"
grep -qE "^tfc cluster: $t1 trainer started \(pid [0-9]+\): sh $work/train.sh $work worker 1 grpc://127.0.0.1:$w1 $spec\$" "$log" ||
  fail "trainer 1's start line: $(cat "$log")"
grep -qE "^tfc cluster: $t1 \(pid [0-9]+\) exited with status 3; restart 1 of 5 in 100 ms\$" "$log" || fail "restart 1: $(cat "$log")"
grep -qE "^tfc cluster: $t1 \(pid [0-9]+\) exited with status 3; restart 2 of 5 in 200 ms\$" "$log" || fail "restart 2: $(cat "$log")"
grep -qE "^tfc cluster: $t0 \(pid [0-9]+\) killed by signal 9 \(SIGKILL\); restart 1 of 5 in 100 ms\$" "$log" || fail "t0 kill: $(cat "$log")"
[ "$(grep -c "$t1 trainer started" "$log")" -eq 3 ] || fail "trainer 1 should start 3 times: $(cat "$log")"
[ "$(grep -c "$t0 trainer started" "$log")" -eq 2 ] || fail "trainer 0 should start 2 times: $(cat "$log")"
grep -qE "^tfc cluster: $t1 \(pid [0-9]+\) finished \(exit status 0\)\$" "$log" || fail "trainer 1 not finished"
grep -qE "^tfc cluster: $t0 \(pid [0-9]+\) finished \(exit status 0\)\$" "$log" || fail "trainer 0 not finished"
grep -qx "tfc cluster: all 2 trainers finished: stopping the cluster" "$log" || fail "no all-finished line: $(cat "$log")"
grep -qE "^tfc cluster: /job:ps/replica:0/task:0 \(pid [0-9]+\) stopped \((exit status 0|killed by signal 15 \(SIGTERM\))\)\$" "$log" || fail "ps not stopped: $(cat "$log")"
[ "$(cat "$work/args.1")" = "worker|1|grpc://127.0.0.1:$w1|$spec" ] || fail "trainer 1's arguments: $(cat "$work/args.1")"
set -- $(echo "$spec" | tr ';=,' '   ')
want="{\"cluster\": {\"ps\": [\"$2\"], \"worker\": [\"$4\", \"$5\"]}, \"task\": {\"type\": \"worker\", \"index\": 0}}"
[ "$(cat "$work/tf_config.0")" = "$want" ] || fail "TF_CONFIG: $(cat "$work/tf_config.0"), want $want"

# 2. The restart limit: a trainer that always fails, --max-restarts 2.
set -- $("$probe" ports 2)
spec2="ps=127.0.0.1:$1;worker=127.0.0.1:$2"
log=$work/limit.err
"$tool" cluster --cluster "$spec2" --backoff-ms 50 --max-restarts 2 -- sh -c 'exit 7' > "$work/limit.out" 2> "$log" &
sup=$!
supervisors=$sup
sup_wait $sup 1 "restart limit"
supervisors=""
grep -qE "^tfc cluster: $t0 \(pid [0-9]+\) exited with status 7; restart 1 of 2 in 50 ms\$" "$log" || fail "limit restart 1: $(cat "$log")"
grep -qE "^tfc cluster: $t0 \(pid [0-9]+\) exited with status 7; restart 2 of 2 in 100 ms\$" "$log" || fail "limit restart 2: $(cat "$log")"
grep -qE "^tfc cluster: $t0 \(pid [0-9]+\) exited with status 7; no restarts left \(--max-restarts 2\): stopping the cluster\$" "$log" ||
  fail "no limit line: $(cat "$log")"
grep -qx "tfc cluster: UNAVAILABLE: $t0 failed 3 times in a row: the cluster is stopped" "$log" || fail "no reason: $(cat "$log")"
grep -qE "^tfc cluster: /job:ps/replica:0/task:0 \(pid [0-9]+\) stopped \((exit status 0|killed by signal 15 \(SIGTERM\))\)\$" "$log" || fail "limit: ps not stopped"

# 3. A trainer that cannot be executed: no restarts, exit 1.
log=$work/noexec.err
"$tool" cluster --cluster "$spec2" --tasks worker -- "$work/no_such_trainer" {task} > "$work/noexec.out" 2> "$log"
rc=$?
[ $rc -eq 1 ] || fail "missing trainer: exit code $rc"
grep -qx "tfc cluster: $t0 cannot run '$work/no_such_trainer': No such file or directory" "$log" || fail "missing trainer: $(cat "$log")"
grep -q "started" "$log" && fail "missing trainer: something started: $(cat "$log")"

# 3b. Trainers of job ps serve until stopped (TF programs' ps tasks sit in server.join()): the
# cluster ends when the workers' trainers are done, and stops the ps trainer then.
log=$work/psjoin.err
"$tool" cluster --cluster "$spec2" --trainer-jobs ps,worker --grace-ms 2000 -- sh -c \
  'if [ "$1" = ps ]; then exec sleep 600; fi' trainer {job} > "$work/psjoin.out" 2> "$log" &
sup=$!
supervisors="$supervisors $sup"
wait_for "$log" "^tfc cluster: the trainer finished: stopping the cluster\$"
wait_for "$log" "^tfc cluster: /job:ps/replica:0/task:0 \(pid [0-9]+\) stopped \(killed by signal 15 \(SIGTERM\)\)\$"
sup_wait $sup 0 "the supervisor of a cluster with a ps trainer"

# 4. The command line's mistakes.
expect() {
  _what=$1 _rc=$2 _msg=$3
  shift 4
  "$tool" cluster "$@" > "$work/e.out" 2> "$work/e.err"
  _got=$?
  [ $_got -eq "$_rc" ] || fail "$_what: exit code $_got, want $_rc: $(cat "$work/e.err")"
  grep -qF -- "$_msg" "$work/e.err" || fail "$_what: stderr lacks '$_msg': $(cat "$work/e.err")"
}
expect bad_spec 2 "tfc cluster: INVALID_ARGUMENT: --cluster: TFC_NewServerDef: job 'worker' task 0: 'nope' is not host:port" -- --cluster "worker=nope"
expect bad_job 2 "tfc cluster: INVALID_ARGUMENT: --tasks: job 'chief' is not in the cluster" -- --cluster "$spec" --tasks chief:0
expect bad_task 2 "tfc cluster: INVALID_ARGUMENT: --tasks: 'worker:2' is not a task of job 'worker' (tasks 0 to 1)" -- --cluster "$spec" --tasks ps,worker:2
expect not_here 2 "tfc cluster: NOT_FOUND: no task of the cluster lives on " -- --cluster "ps=192.0.2.1:2222"
expect no_host 2 "tfc cluster: NOT_FOUND: no task of the cluster lives on 127.0.0.9" -- --cluster "$spec" --host 127.0.0.9
expect both 2 "--tasks and --host both pick the tasks: give one" -- --cluster "$spec" --tasks ps --host 127.0.0.1
expect neither 2 "give --cluster SPEC (run the tasks) or --k8s SPEC (write manifests)" -- --tasks ps
expect backoff 2 "tfc cluster: --backoff-ms wants a whole number from 0 to" -- --cluster "$spec" --backoff-ms soon
expect empty_trainer 2 "'--' is not followed by a trainer command" -- --cluster "$spec" --
expect unknown 2 "tfc cluster: unknown option '--bogus'" -- --cluster "$spec" --bogus 1
"$tool" cluster --help > "$work/help.out" 2> "$work/help.err" || fail "--help: exit code $?"
grep -qF "tfc cluster --k8s SPEC" "$work/help.out" || fail "--help (on stdout): $(cat "$work/help.out")"
[ -s "$work/help.err" ] && fail "--help wrote to stderr: $(cat "$work/help.err")"
finish
