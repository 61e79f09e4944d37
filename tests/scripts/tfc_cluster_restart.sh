#!/bin/sh
# tfc cluster keeps a cluster of servers up: 1 ps and 2 workers on 127.0.0.1 (the tasks of this
# host by default) start, serve, and a worker killed with SIGKILL is restarted, logged with its
# signal, and serves again (a step placed on it through the other worker's master); then
# SIGTERM stops every task and the supervisor exits 0.
# Usage: tfc_cluster_restart.sh TFC_TOOL CLUSTER_PROBE WORKDIR
name=tfc_cluster_restart
. "$(dirname "$0")/tfc_cluster_lib.sh"

set -- $("$probe" ports 3)
spec="ps=127.0.0.1:$1;worker=127.0.0.1:$2,127.0.0.1:$3"
w0=$2
log=$work/sup.err
"$tool" cluster --cluster "$spec" --backoff-ms 100 > "$work/sup.out" 2> "$log" &
sup=$!
supervisors=$sup
wait_for "$log" "^tfc cluster: supervising 3 tasks here \(3 servers, 0 trainers\) of cluster $spec\$"
for t in "ps/replica:0/task:0" "worker/replica:0/task:0" "worker/replica:0/task:1"; do
  wait_for "$log" "^tfc cluster: /job:$t server started \(pid [0-9]+\)\$"
done
# The servers' own lines reach the supervisor's stdout.
for t in "ps/replica:0/task:0" "worker/replica:0/task:0" "worker/replica:0/task:1"; do
  wait_for "$work/sup.out" "^tfc server: /job:$t listening on "
done

dev=/job:worker/replica:0/task:1/device:CPU:0
"$probe" run "grpc://127.0.0.1:$w0" $dev > "$work/probe1.out" 2>&1 || fail "probe before the kill: $(cat "$work/probe1.out")"
grep -qx "$dev: \[2 4 6\]" "$work/probe1.out" || fail "probe before the kill printed: $(cat "$work/probe1.out")"

old=$(pid_of "$log" "task:1 server started")
kill -9 "$old"
wait_for "$log" "^tfc cluster: /job:worker/replica:0/task:1 \(pid $old\) killed by signal 9 \(SIGKILL\); restart 1 of 10 in 100 ms\$"
wait_for "$log" "^tfc cluster: /job:worker/replica:0/task:1 server started \(pid [0-9]+\)\$" 2
new=$(pid_of "$log" "task:1 server started")
[ -n "$new" ] && [ "$new" != "$old" ] || fail "no new pid for task 1 (old $old, new '$new')"
"$probe" run "grpc://127.0.0.1:$w0" $dev > "$work/probe2.out" 2>&1 || fail "probe after the restart: $(cat "$work/probe2.out")"
wait_for "$work/sup.out" "^tfc server: /job:worker/replica:0/task:1 listening on " 2
grep -qx "$dev: \[2 4 6\]" "$work/probe2.out" || fail "probe after the restart printed: $(cat "$work/probe2.out")"

# The other tasks were not touched.
[ "$(grep -c 'server started' "$log")" -eq 4 ] || fail "want 4 starts: $(cat "$log")"

pids=$(sed -n 's/.* server started (pid \([0-9]*\))$/\1/p' "$log")
kill -TERM $sup
sup_wait $sup 0 "supervisor after SIGTERM"
supervisors=""
grep -qx "tfc cluster: SIGTERM: stopping 3 tasks" "$log" || fail "no SIGTERM line: $(cat "$log")"
for t in "ps/replica:0/task:0" "worker/replica:0/task:0" "worker/replica:0/task:1"; do
  grep -qE "^tfc cluster: /job:$t \(pid [0-9]+\) stopped \(exit status 0\)\$" "$log" || fail "$t not stopped cleanly: $(cat "$log")"
done
[ "$(tail -n 1 "$log")" = "tfc cluster: stopped" ] || fail "last line: $(tail -n 1 "$log")"
[ "$(grep -c '^tfc server: stopped$' "$work/sup.out")" -eq 3 ] || fail "servers' stop lines: $(cat "$work/sup.out")"
for p in $pids; do alive "$p" && fail "task pid $p still runs"; done
finish
