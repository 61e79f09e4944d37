#!/bin/sh
# Stopping tfc cluster: a trainer that ignores SIGTERM gets SIGKILL after --grace-ms and the
# supervisor still exits 0 with every task gone, the trainer's own child included (each task
# is a process group); a second SIGINT kills at once; and a supervisor killed with SIGKILL
# leaves no task behind (PR_SET_PDEATHSIG); a finished trainer leaves no child behind.
# Usage: tfc_cluster_stop.sh TFC_TOOL CLUSTER_PROBE WORKDIR
name=tfc_cluster_stop
. "$(dirname "$0")/tfc_cluster_lib.sh"

# The trainer ignores SIGTERM and runs a child that writes its pid first.
cat > "$work/stubborn.sh" <<'SH'
trap '' TERM
sleep 600 &
echo $! > "$1/child.$2"
wait
SH

# 1. SIGTERM, a grace period of 300 ms, then SIGKILL for the stubborn trainer.
set -- $("$probe" ports 2)
spec="ps=127.0.0.1:$1;worker=127.0.0.1:$2"
log=$work/term.err
"$tool" cluster --cluster "$spec" --grace-ms 300 -- sh "$work/stubborn.sh" "$work" {task} > "$work/term.out" 2> "$log" &
sup=$!
supervisors=$sup
wait_for "$log" "server started"
wait_for "$log" "trainer started"
# A server stops cleanly once it has caught SIGTERM, which it has when it says it listens.
wait_for "$work/term.out" "^tfc server: /job:ps/replica:0/task:0 listening on "
n=0
while [ ! -s "$work/child.0" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
child=$(cat "$work/child.0")
ps_pid=$(pid_of "$log" "server started")
tr_pid=$(pid_of "$log" "trainer started")
kill -TERM $sup
sup_wait $sup 0 "SIGTERM with a stubborn trainer"
supervisors=""
t0=/job:worker/replica:0/task:0
grep -qx "tfc cluster: SIGTERM: stopping 2 tasks" "$log" || fail "no SIGTERM line: $(cat "$log")"
grep -qx "tfc cluster: $t0 (pid $tr_pid) still running 300 ms after SIGTERM: sending SIGKILL" "$log" || fail "no SIGKILL line: $(cat "$log")"
grep -qx "tfc cluster: $t0 (pid $tr_pid) stopped (killed by signal 9 (SIGKILL))" "$log" || fail "trainer's end: $(cat "$log")"
grep -qx "tfc cluster: /job:ps/replica:0/task:0 (pid $ps_pid) stopped (exit status 0)" "$log" || fail "ps's end: $(cat "$log")"
gone "$tr_pid" "the trainer"
gone "$child" "the trainer's child"
gone "$ps_pid" "the ps"

# 2. SIGINT twice: the second one does not wait for the grace period (10 minutes here).
rm -f "$work/child.0"
log=$work/int.err
"$tool" cluster --cluster "$spec" --grace-ms 600000 -- sh "$work/stubborn.sh" "$work" {task} > "$work/int.out" 2> "$log" &
sup=$!
supervisors=$sup
wait_for "$log" "trainer started"
kill -INT $sup
wait_for "$log" "^tfc cluster: SIGINT: stopping 2 tasks\$"
wait_for "$log" "/job:ps/replica:0/task:0 \(pid [0-9]+\) stopped"
kill -INT $sup
sup_wait $sup 0 "two SIGINTs"
supervisors=""
grep -qx "tfc cluster: $t0 (pid $(pid_of "$log" "trainer started")) still running at a second stop signal: sending SIGKILL" "$log" ||
  fail "second SIGINT: $(cat "$log")"

# 3. A trainer that finishes but leaves a child behind: the child goes with its process group.
set -- $("$probe" ports 1)
"$tool" cluster --cluster "worker=127.0.0.1:$1" -- sh -c 'sleep 600 & echo $! > "$0/left.$1"' "$work" {task} \
  > "$work/left.out" 2> "$work/left.err" || fail "leftover child: exit code $?: $(cat "$work/left.err")"
grep -qx "tfc cluster: the trainer finished: stopping the cluster" "$work/left.err" || fail "leftover: $(cat "$work/left.err")"
gone "$(cat "$work/left.0")" "a finished trainer's child"

# 4. The supervisor killed with SIGKILL: its tasks die with it.
set -- $("$probe" ports 3)
spec="ps=127.0.0.1:$1;worker=127.0.0.1:$2,127.0.0.1:$3"
log=$work/kill.err
"$tool" cluster --cluster "$spec" > "$work/kill.out" 2> "$log" &
sup=$!
supervisors=$sup
wait_for "$log" "server started" 3
pids=$(sed -n 's/.* server started (pid \([0-9]*\))$/\1/p' "$log")
kill -9 $sup
wait $sup
supervisors=""
for p in $pids; do gone "$p" "a task of a supervisor killed with SIGKILL"; done
finish
