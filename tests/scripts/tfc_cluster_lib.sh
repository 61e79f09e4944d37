# Shared by tests/scripts/tfc_cluster_*.sh (sourced): arguments, failure counting, and waits
# with a hang guard on the supervisor's event lines and on processes.
# The sourcing script sets `name` first; its arguments are TFC_TOOL CLUSTER_PROBE WORKDIR.
set -u
tool=$1 probe=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
failures=0
fail() { echo "FAIL: $name: $*"; failures=$((failures + 1)); }

# Supervisors to SIGKILL if the script stops early (their tasks die with them: PR_SET_PDEATHSIG).
supervisors=""
trap 'for p in $supervisors; do kill -9 "$p" 2>/dev/null; done' EXIT

# wait_for FILE REGEX [COUNT]: until FILE has COUNT lines (default 1) matching REGEX (grep -E).
wait_for() {
  _n=0
  while :; do
    _got=$(grep -cE -- "$2" "$1" 2>/dev/null)
    [ "${_got:-0}" -ge "${3:-1}" ] && return 0
    _n=$((_n + 1))
    if [ $_n -gt 600 ]; then
      fail "no line matching '$2' (${3:-1} wanted) in $1 after 60 s:
$(cat "$1")"
      return 1
    fi
    sleep 0.1
  done
}

# pid_of FILE REGEX: the N of "(pid N)" on the last line matching REGEX.
pid_of() { grep -E -- "$2" "$1" | tail -n 1 | sed -n 's/.*(pid \([0-9][0-9]*\)).*/\1/p'; }

# alive PID: whether the process exists and is not a zombie.
alive() {
  [ -r "/proc/$1/stat" ] || return 1
  _st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
  [ -n "$_st" ] && [ "$_st" != Z ] && [ "$_st" != X ]
}

# gone PID WHAT: until the process is gone (60 s guard).
gone() {
  _n=0
  while alive "$1"; do
    _n=$((_n + 1))
    if [ $_n -gt 600 ]; then
      fail "$2 (pid $1) still runs after 60 s"
      return 1
    fi
    sleep 0.1
  done
}

# sup_wait PID WANT_RC WHAT: waits for a supervisor started with & and checks its exit code
# (the test's hang guard is ctest's TIMEOUT).
sup_wait() {
  wait "$1"
  _rc=$?
  [ $_rc -eq "$2" ] || fail "$3: exit code $_rc, want $2"
}

finish() {
  [ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
  echo "PASS: $name"
}
