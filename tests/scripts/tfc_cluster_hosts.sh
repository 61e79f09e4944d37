#!/bin/sh
# Hosts on loopback addresses: Linux routes all of 127.0.0.0/8 to the loopback interface, so a
# cluster whose ps is on 127.0.0.2 and whose workers are on 127.0.0.3 runs as on two machines,
# one supervisor per "host" (--host). A step placed on the ps runs through a worker's master
# (the hosts reach each other), and the ps killed with SIGKILL is restarted by its own host's
# supervisor alone and serves again. A task on a loopback address listens on that address
# alone, so the ps and worker 0 share one port number on their two "hosts". Also: which tasks the default selection takes (loopback,
# localhost, this host's name; not a foreign address).
# Usage: tfc_cluster_hosts.sh TFC_TOOL CLUSTER_PROBE WORKDIR
name=tfc_cluster_hosts
. "$(dirname "$0")/tfc_cluster_lib.sh"

set -- $("$probe" ports 3)
spec="ps=127.0.0.2:$1;worker=127.0.0.3:$1,127.0.0.3:$2"
w0=$1
"$tool" cluster --cluster "$spec" --host 127.0.0.2 --backoff-ms 100 > "$work/a.out" 2> "$work/a.err" &
sup_a=$!
"$tool" cluster --cluster "$spec" --host 127.0.0.3 --backoff-ms 100 > "$work/b.out" 2> "$work/b.err" &
sup_b=$!
supervisors="$sup_a $sup_b"
wait_for "$work/a.err" "^tfc cluster: supervising 1 task here \(1 server, 0 trainers\) of cluster "
wait_for "$work/b.err" "^tfc cluster: supervising 2 tasks here \(2 servers, 0 trainers\) of cluster "
wait_for "$work/a.err" "^tfc cluster: /job:ps/replica:0/task:0 server started \(pid [0-9]+\)\$"
wait_for "$work/b.err" "^tfc cluster: /job:worker/replica:0/task:1 server started \(pid [0-9]+\)\$"
wait_for "$work/b.err" "^tfc cluster: /job:worker/replica:0/task:0 server started \(pid [0-9]+\)\$"
wait_for "$work/a.out" "^tfc server: /job:ps/replica:0/task:0 listening on "
wait_for "$work/b.out" "^tfc server: /job:worker/replica:0/task:0 listening on "
wait_for "$work/b.out" "^tfc server: /job:worker/replica:0/task:1 listening on "
grep -q "/job:ps" "$work/b.err" && fail "the workers' host started the ps: $(cat "$work/b.err")"
grep -q "/job:worker" "$work/a.err" && fail "the ps's host started a worker: $(cat "$work/a.err")"

dev=/job:ps/replica:0/task:0/device:CPU:0
"$probe" run "grpc://127.0.0.3:$w0" $dev > "$work/probe1.out" 2>&1 || fail "probe: $(cat "$work/probe1.out")"
grep -qx "$dev: \[2 4 6\]" "$work/probe1.out" || fail "probe printed: $(cat "$work/probe1.out")"

old=$(pid_of "$work/a.err" "server started")
kill -9 "$old"
wait_for "$work/a.err" "^tfc cluster: /job:ps/replica:0/task:0 \(pid $old\) killed by signal 9 \(SIGKILL\); restart 1 of 10 in 100 ms\$"
wait_for "$work/a.err" "server started" 2
"$probe" run "grpc://127.0.0.3:$w0" $dev > "$work/probe2.out" 2>&1 || fail "probe after the restart: $(cat "$work/probe2.out")"
grep -qx "$dev: \[2 4 6\]" "$work/probe2.out" || fail "probe after the restart printed: $(cat "$work/probe2.out")"
wait_for "$work/a.out" "^tfc server: /job:ps/replica:0/task:0 listening on " 2
grep -q "restart" "$work/b.err" && fail "the workers' host restarted something: $(cat "$work/b.err")"

kill -TERM $sup_a $sup_b
sup_wait $sup_a 0 "the ps host's supervisor"
sup_wait $sup_b 0 "the workers' host's supervisor"
supervisors=""

# Which tasks are local by default: trainers that exit at once stand in for every task, so
# nothing binds the made-up ports.
me=$(uname -n)
sel="ps=127.0.0.2:1;worker=localhost:2,$me:3,192.0.2.1:4"
"$tool" cluster --cluster "$sel" --trainer-jobs ps,worker -- true > "$work/sel.out" 2> "$work/sel.err"
rc=$?
[ $rc -eq 0 ] || fail "selection: exit code $rc: $(cat "$work/sel.err")"
grep -qx "tfc cluster: supervising 3 tasks here (0 servers, 3 trainers) of cluster $sel" "$work/sel.err" ||
  fail "selection: $(cat "$work/sel.err")"
grep -q "/job:worker/replica:0/task:2" "$work/sel.err" && fail "selection took 192.0.2.1: $(cat "$work/sel.err")"
"$tool" cluster --cluster "$sel" --host 192.0.2.1 --trainer-jobs ps,worker -- true > "$work/sel2.out" 2> "$work/sel2.err" ||
  fail "--host 192.0.2.1: $(cat "$work/sel2.err")"
grep -qE "^tfc cluster: /job:worker/replica:0/task:2 \(pid [0-9]+\) finished \(exit status 0\)\$" "$work/sel2.err" ||
  fail "--host 192.0.2.1: $(cat "$work/sel2.err")"
finish
