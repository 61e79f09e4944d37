#!/bin/sh
# The kill matrix: the main job (fashion_mnist, 1 ps + 2 workers, worker 0 the chief) under
# `tfc cluster`, synchronous or asynchronous, with one task — a worker, the chief or the ps —
# killed with SIGKILL between two steps, during a step, or during a checkpoint save (after
# step 12 of 30; checkpoints every 5 steps). Every run must end as an undisturbed one does:
#   - the supervisor logged one death, the victim's (signal 9), and its one restart, and
#     exits 0 (every trainer exited 0);
#   - the final global step, the newest checkpoint's (the chief saves at its close), is the
#     planned one: exactly in sync mode (where the chief also ends there), at it or up to 3
#     past it in async mode (the other worker's last steps race the chief's stop, undisturbed
#     too), at it or one past it with a backup worker (the other worker's last gradient races
#     the close of the chief's queue runner);
#   - every checkpoint the `checkpoint` file lists is whole (cluster_probe checkpoints), no
#     other is on disk and no temporary is left;
#   - after a ps's or the chief's death the chief restored ("Restoring parameters from") the
#     newest checkpoint listed at the kill, or a newer one: at most the steps since the last
#     checkpoint are done again.
#
# How each kill point is made, and why it hits:
#   between  the workers sleep --step-pause-ms after each step, after their step's log line. A
#            worker (or the chief) is killed as soon as its line for step >= 12 appears:
#            the shell's 20 ms poll lands in the pause, long before the next step starts. For
#            the ps, each worker is frozen (SIGSTOP) right after its next step line, i.e. in its
#            pause; with both frozen no training step is in flight, the ps is killed, and the
#            workers are let go (SIGCONT). (In sync mode the chief's sync op, which waits on the
#            ps for the next step's gradients, is always in flight: that is the design.)
#   step     no pause: a worker's loop is in TF_SessionRun all but microseconds of the time,
#            so a kill 50 ms after a step line of the victim (of the chief, for the ps) falls
#            in the next step, with its RPCs to the ps in flight.
#   save     the chief logs "Saving checkpoints for N into ..." before a save of ~40 MB
#            (weights, momentum slots, moving averages: read from the ps, then written). The
#            ps or the other worker is killed as soon as that line (N >= 12) appears, while the
#            chief reads the variables; the chief once the save's temporary files
#            ("*.tempstate*") exist, i.e. while it writes them. Whether temporaries were on disk
#            at the kill is printed; the checks above show no half-written checkpoint listed.
# The time from the kill to the first step completed after the restart (the victim's own, or
# any worker's once the new ps is up) is printed per cell: "TIMING: CELL recovered in S s".
#
# Usage: kill_matrix.sh TFC_TOOL FASHION_MNIST CLUSTER_PROBE WORKDIR MODE VICTIM [POINT...]
#   MODE sync|async, or backup: sync with a backup worker (--replicas-to-aggregate 1), where
#   the chief must go on stepping while a killed worker is away; VICTIM worker|chief|ps, or
#   none for the undisturbed reference run;
#   POINT between|step|save (default: all three).
name=kill_matrix
a_tool=$1 fm=$2 a_probe=$3 a_work=$4 mode=$5 victim=$6
shift 6
points="$*"
set -- "$a_tool" "$a_probe" "$a_work" # the library's arguments: TFC_TOOL CLUSTER_PROBE WORKDIR
. "$(dirname "$0")/tfc_cluster_lib.sh"
name="kill_matrix_${mode}_${victim}"
[ -n "$points" ] || points="between step save"
[ "$victim" = none ] && points=none

steps=30     # the planned global step
save_every=5 # checkpoints at 0, 5, 10, ...
kill_at=12   # the kill comes at step 12 or later: two checkpoints exist
pause_ms=700 # --step-pause-ms of the "between" cells
sync_flag=""
[ "$mode" = sync ] && sync_flag=--sync
# backup: synchronous with a backup worker (each step aggregates 1 of the 2 workers' gradients).
[ "$mode" = backup ] && sync_flag="--sync --replicas-to-aggregate 1"

"$tool" data fashion-mnist --out "$work/data" --limit 400 > "$work/convert.log" || fail "convert: $(cat "$work/convert.log")"

now_ms() { date +%s%3N; }

# lines FILE REGEX: how many lines of FILE match REGEX (0 without the file).
lines() { grep -cE -- "$2" "$1" 2>/dev/null || true; }

# poll_for FILE REGEX SECS: until a line matching REGEX is in FILE (20 ms polls); 1 after SECS.
poll_for() {
  _end=$(($(now_ms) + $3 * 1000))
  until grep -qE -- "$2" "$1" 2>/dev/null; do
    [ "$(now_ms)" -lt $_end ] || return 1
    sleep 0.02
  done
}

# at_least N: a regex for the numbers N and above (10 <= N < 90).
at_least() {
  _tens=$(($1 / 10)) _ones=$(($1 % 10))
  echo "(${_tens}[${_ones}-9]|[$((_tens + 1))-9][0-9]|[0-9]{3,})"
}

# step_at_least WORKER N: a regex for that worker's step lines of step N or later.
step_at_least() { echo ": worker $1: step $(at_least "$2"),"; }

# bounded_wait PID SECS WHAT: the supervisor's exit code, or SIGTERM (then SIGKILL) after SECS.
bounded_wait() {
  _end=$(($(now_ms) + $2 * 1000))
  while alive "$1" && [ "$(now_ms)" -lt $_end ]; do sleep 0.2; done
  if alive "$1"; then
    fail "$3 still runs after $2 s: $(tail -n 30 "$dir/sup.err"; tail -n 10 "$dir/sup.out")"
    kill -TERM "$1"
    sleep 3
    kill -9 "$1" 2>/dev/null
  fi
  wait "$1"
}

task_of() {
  case $1 in
    worker) echo "/job:worker/replica:0/task:1" ;;
    chief) echo "/job:worker/replica:0/task:0" ;;
    ps) echo "/job:ps/replica:0/task:0" ;;
  esac
}

# run_cell POINT: one run of the job with the victim killed at POINT (none: no kill).
run_cell() {
  point=$1 cell="${mode}/${victim}/$1"
  dir=$work/$1
  mkdir -p "$dir"
  out=$dir/sup.out err=$dir/sup.err
  pause=""
  [ "$point" = between ] && pause="--step-pause-ms $pause_ms"
  set -- $("$probe" ports 3)
  spec="ps=127.0.0.1:$1;worker=127.0.0.1:$2,127.0.0.1:$3"
  "$tool" cluster --cluster "$spec" --backoff-ms 200 -- "$fm" --cluster "{cluster}" --job "{job}" --task "{task}" \
    --data "$work/data" --batch 25 --log-every 1 --summary-every 0 --max-steps $steps --save-every $save_every \
    --no-eval $sync_flag $pause --out "$dir/train" > "$out" 2> "$err" &
  sup=$!
  supervisors=$sup
  task=$(task_of "$victim")
  t_kill=""
  case $point in
    between)
      if [ "$victim" = ps ]; then
        poll_for "$out" "$(step_at_least 0 $kill_at)" 120 || fail "$cell: no step $kill_at"
        # Each worker is frozen right after its next step line (in sync mode both need the
        # other for that step: neither may be frozen before both finished it).
        w0=$(pid_of "$err" "task:0 trainer started") w1=$(pid_of "$err" "task:1 trainer started")
        n0=$(lines "$out" ": worker 0: step ") n1=$(lines "$out" ": worker 1: step ")
        s0="" s1=""
        _end=$(($(now_ms) + 60000))
        until [ -n "$s0" ] && [ -n "$s1" ] || [ "$(now_ms)" -ge $_end ]; do
          [ -z "$s0" ] && [ "$(lines "$out" ": worker 0: step ")" -gt "$n0" ] && kill -STOP "$w0" && s0=1
          [ -z "$s1" ] && [ "$(lines "$out" ": worker 1: step ")" -gt "$n1" ] && kill -STOP "$w1" && s1=1
          sleep 0.01
        done
        [ -n "$s0" ] && [ -n "$s1" ] || fail "$cell: the workers did not both finish a step in 60 s"
        pid=$(pid_of "$err" "$task server started")
        kill -9 "$pid"
        t_kill=$(now_ms)
        kill -CONT "$w0" "$w1"
      else
        t=${task##*:}
        poll_for "$out" "$(step_at_least "$t" $kill_at)" 120 || fail "$cell: no step $kill_at"
        pid=$(pid_of "$err" "$task trainer started")
        kill -9 "$pid"
        t_kill=$(now_ms)
      fi
      ;;
    step)
      t=0
      [ "$victim" = worker ] && t=1
      poll_for "$out" "$(step_at_least $t $kill_at)" 120 || fail "$cell: no step $kill_at"
      sleep 0.05
      pid=$(pid_of "$err" "$task (trainer|server) started")
      kill -9 "$pid"
      t_kill=$(now_ms)
      ;;
    save)
      poll_for "$err" "Saving checkpoints for $(at_least $kill_at) into" 120 || fail "$cell: no save at step >= $kill_at"
      # The chief dies once the save has begun writing (its temporary files exist), the ps
      # and the other worker while the chief is still gathering the variables.
      if [ "$victim" = chief ]; then
        _end=$(($(now_ms) + 2000))
        until ls "$dir/train" | grep -q tempstate || [ "$(now_ms)" -ge $_end ]; do sleep 0.005; done
      fi
      pid=$(pid_of "$err" "$task (trainer|server) started")
      kill -9 "$pid"
      t_kill=$(now_ms)
      temps=$(ls "$dir/train" | grep -c tempstate)
      echo "$cell: killed $task with $temps temporary checkpoint file(s) on disk"
      ;;
  esac
  if [ -n "$t_kill" ]; then
    listed=$(sed -n 's/^model_checkpoint_path: ".*model.ckpt-\([0-9]*\)"$/\1/p' "$dir/train/checkpoint")
    # The first step completed after the restart: the victim's own (a new process), or for
    # the ps any worker's once the new ps is up (a step may end after the kill whose work on
    # the ps was done before it).
    if [ "$victim" = ps ]; then
      who="[01]"
      poll_for "$err" "$task \(pid [0-9]+\) killed by signal 9.*" 60
      _end=$((t_kill + 60000))
      while [ "$(lines "$err" "$task server started")" -lt 2 ] && [ "$(now_ms)" -lt $_end ]; do sleep 0.02; done
    else
      who=${task##*:}
    fi
    mark=$(wc -l < "$out")
    chief_steps=$(lines "$out" ": worker 0: step ")
    _end=$((t_kill + 120000))
    until tail -n +$((mark + 1)) "$out" | grep -qE ": worker $who: step [0-9]+,"; do
      [ "$(now_ms)" -lt $_end ] || break
      sleep 0.02
    done
    echo "TIMING: $cell recovered in $(awk "BEGIN { printf \"%.2f\", ($(now_ms) - $t_kill) / 1000 }") s"
    # A backup worker's death does not stall the chief: it stepped while the victim was away
    # (not checked between steps, where a step and its pause outlast the restart).
    if [ "$mode" = backup ] && [ "$victim" = worker ] && [ "$point" != between ] &&
      [ "$(lines "$out" ": worker 0: step ")" -le "$chief_steps" ]; then
      fail "$cell: the chief made no step while worker 1 was away"
    fi
  fi
  bounded_wait $sup 150 "$cell: supervisor"
  rc=$?
  supervisors=""
  [ $rc -eq 0 ] || fail "$cell: supervisor exit code $rc: $(tail -n 40 "$err")"
  check_cell
}

# The checks of one run (globals from run_cell).
check_cell() {
  if [ -n "$t_kill" ]; then
    grep -qE "^tfc cluster: $task \(pid $pid\) killed by signal 9 \(SIGKILL\); restart 1 of 10 in " "$err" ||
      fail "$cell: no kill of $task (pid $pid) logged: $(grep '^tfc cluster' "$err")"
    [ "$(lines "$err" "^tfc cluster: $task (trainer|server) started ")" -eq 2 ] ||
      fail "$cell: $task not started twice: $(grep '^tfc cluster' "$err")"
  fi
  deaths=$(lines "$err" "^tfc cluster: .*(killed by signal|exited with status [1-9])")
  want=1
  [ -z "$t_kill" ] && want=0
  [ "$deaths" -eq $want ] || fail "$cell: $deaths deaths logged, want $want: $(grep '^tfc cluster' "$err")"
  # The final global step is the last checkpoint's (the chief saves at its close): the
  # planned one, or in async mode up to a few past it (the other worker's last steps race
  # the chief's stop), as in an undisturbed run. In sync mode the chief also ends there.
  grep -qE "^worker 0: ran [0-9]+ steps .* global step [0-9]+$" "$out" || fail "$cell: the chief did not finish"
  grep -qE "^worker 1: ran [0-9]+ steps .* global step [0-9]+$" "$out" || fail "$cell: worker 1 did not finish"
  "$probe" checkpoints "$dir/train" > "$dir/checkpoints.txt" 2>&1 || fail "$cell: checkpoints: $(cat "$dir/checkpoints.txt")"
  # The name is the step the chief read before saving; in async mode the other worker, and with
  # a backup worker the last gradient in flight, may step once more before the save reads the
  # variables (as in TF), so the stored step may pass it.
  ckpt_name=$(sed -n 's/^latest .*\/model.ckpt-\([0-9]*\) global_step [0-9]*$/\1/p' "$dir/checkpoints.txt")
  last=$(sed -n 's/^latest .*\/model.ckpt-[0-9]* global_step \([0-9]*\)$/\1/p' "$dir/checkpoints.txt")
  [ -n "$ckpt_name" ] && [ -n "$last" ] && { [ "$ckpt_name" -eq "$last" ] || { [ "$mode" != sync ] && [ "$ckpt_name" -lt "$last" ]; }; } ||
    fail "$cell: the latest checkpoint's name and global step disagree: $(cat "$dir/checkpoints.txt")"
  hi=$steps
  [ "$mode" = async ] && hi=$((steps + 3))
  # With one gradient per step, the other worker's gradient in flight when the chief stops may
  # make one more step before the chief's queue runner is closed (as in TF).
  [ "$mode" = backup ] && hi=$((steps + 1))
  [ -n "$last" ] && [ "$last" -ge $steps ] && [ "$last" -le $hi ] ||
    fail "$cell: final checkpoint's global step '$last', want $steps$([ $hi -gt $steps ] && echo "..$hi"): $(cat "$dir/checkpoints.txt")"
  [ "$mode" = sync ] && ! grep -qE "^worker 0: ran [0-9]+ steps .* global step $steps$" "$out" &&
    fail "$cell: the chief did not end at global step $steps: $(tail -n 3 "$out")"
  # Nothing left behind: the checkpoints on disk are those listed (a killed save's files are
  # temporaries, swept by the next save; a restarted chief takes over the list it finds).
  on_disk=$(cd "$dir/train" && ls | sed -n 's/^\(model.ckpt-[0-9]*\).index$/\1/p' | sort | tr '\n' ' ')
  in_list=$(sed -n 's|^.*/\(model.ckpt-[0-9]*\) intact$|\1|p' "$dir/checkpoints.txt" | sort | tr '\n' ' ')
  [ "$on_disk" = "$in_list" ] || fail "$cell: checkpoints on disk '$on_disk', listed '$in_list'"
  ls "$dir/train" | grep -q tempstate && fail "$cell: temporaries left: $(ls "$dir/train")"
  case $victim in
    ps | chief)
      # The restore is of the newest checkpoint listed at the kill, or of a newer one (a save
      # whose variables were all read before the ps died completes): at most the steps since
      # the last checkpoint are done again.
      restored=$(sed -n "s|^Restoring parameters from $dir/train/model.ckpt-\([0-9]*\)$|\1|p" "$err" | tail -n 1)
      [ -n "$restored" ] && [ "$restored" -ge "${listed:-0}" ] ||
        fail "$cell: restored '$restored', the newest checkpoint at the kill was $listed: $(grep -v '^tfc cluster' "$err" | tail -n 20)"
      ;;
  esac
}

for p in $points; do run_cell "$p"; done
finish
