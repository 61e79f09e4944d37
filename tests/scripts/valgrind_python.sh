#!/usr/bin/env bash
# The Python package's C paths under valgrind: the extension (python/_pywrap/) and libtfc as the
# pytest suite drives them (graph building, sessions, feeds and fetches, the op table, errors,
# Ctrl-C, variables, gradients and optimizers, records, queues and runners, summaries, servers, control flow, savers and meta graphs,
# TensorArrays and RNNs, the long tail with py_func's script callback, SyncReplicasOptimizer and
# its hook in a monitored session;
# TFC_NO_TENSORFLOW keeps the tests from importing TensorFlow there). The interpreter itself is
# not clean under valgrind (its own uninitialised reads and objects kept until exit), so the test fails on every error or definite leak whose stack
# passes through the extension or libtfc, and on nothing else.
#
# Usage: valgrind_python.sh <build dir> <source dir> <valgrind> <python>
set -u
build=$1 src=$2 valgrind=$3 python=$4
real=$("$python" -c 'import sys; print(sys.executable)') # not a launcher script
log=$(mktemp)
trap 'rm -f "$log"' EXIT
PYTHONMALLOC=malloc PYTHONPATH="$build/python" PYTHONDONTWRITEBYTECODE=1 TFC_NO_TENSORFLOW=1 \
  "$valgrind" --quiet --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
  --num-callers=60 --fullpath-after= --log-file="$log" \
  "$real" -m pytest -q -p no:cacheprovider "$src/python/tests/test_session.py" "$src/python/tests/test_graph.py" \
  "$src/python/tests/test_raw_ops.py" "$src/python/tests/test_math.py" "$src/python/tests/test_train.py" \
  "$src/python/tests/test_io.py" "$src/python/tests/test_cf.py" "$src/python/tests/test_saver.py" "$src/python/tests/test_rnn.py" \
  "$src/python/tests/test_opstail.py" "$src/python/tests/test_sync_replicas.py"
rc=$?
if [ $rc -ne 0 ]; then
  echo "the tests failed under valgrind (exit $rc)"
  exit 1
fi
"$real" - "$log" <<'PY'
import re
import sys

text = open(sys.argv[1]).read()
# valgrind's records are separated by lines holding only the pid prefix
blocks = re.split(r"\n==\d+== *\n", text)
# a frame of ours, other than the module's init importing numpy (numpy's and CPython's own
# import-time allocations show it as their caller)
OURS = re.compile(r"/python/_pywrap/[a-z_]+\.c|/src/[a-z_]+/[a-z_0-9]+\.[ch]:")


def ours_frame(line):
    return OURS.search(line) and "PyInit__pywrap" not in line and "__multiarray_api.h" not in line


ours = [b for b in blocks if any(ours_frame(line) for line in b.split("\n"))
        and re.search(r"Invalid|uninitialised|definitely lost|Mismatched|overlap|Source and destination", b)]
for b in ours:
    print(b)
    print()
print("valgrind: %d error record(s) in the extension or libtfc" % len(ours))
sys.exit(1 if ours else 0)
PY
