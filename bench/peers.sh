#!/bin/sh
# bench/peers.sh — installs the peers the benchmarks compare tfc against: today's TensorFlow
# (CPU), PyTorch and onnxruntime from PyPI, into a virtual environment of the build tree, so
# every benchmark runs against the releases users install rather than whatever the system's
# Python happens to hold.
#
# Usage: bench/peers.sh VENV        (make bench runs it with VENV = $(BUILD)/bench-venv)
#
# The environment is made with `python3 -m venv` (no system site packages: the peers are the
# ones listed below, nothing else) and each requirement is installed by its own pip call, so a
# package that cannot be installed is named and the others still come. A stamp file records
# the requirement list once everything installed: with the same list, a second run does
# nothing; a changed list (or an earlier failure) installs again. A failure never fails
# `make bench`: the benchmarks then print "n/a (why)" for the missing peer.
#
# PyTorch comes from PyPI's default wheel (it runs on the CPU). tf-keras gives TensorFlow its
# TF 1.x RNN cells (bench/rnn_python.py); tf2onnx and onnx convert bench_models' GraphDefs for
# onnxruntime (bench/gen_models.py).
set -u

venv=${1:?usage: bench/peers.sh VENV}
# Pinned at least to the releases the benchmarks were last measured against (README).
REQUIREMENTS="numpy>=2.0 tensorflow-cpu>=2.21 tf-keras>=2.21 torch>=2.15 onnxruntime>=1.31 onnx>=1.17 tf2onnx>=1.17"
stamp="$venv/peers.stamp"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$REQUIREMENTS" ]; then
  exit 0
fi
if [ ! -x "$venv/bin/python" ]; then
  echo "bench peers: making $venv (python3 -m venv)"
  if ! python3 -m venv "$venv"; then
    echo "bench peers: python3 -m venv failed (Debian: apt-get install python3-venv); the benchmarks run without peers" >&2
    exit 0
  fi
fi
log="$venv/pip.log"
: >"$log"
failed=""
for req in $REQUIREMENTS; do
  echo "bench peers: pip install $req"
  if ! "$venv/bin/python" -m pip install -q "$req" >"$log.last" 2>&1; then
    cat "$log.last" >>"$log"
    echo "bench peers: pip could not install $req: $(grep ERROR "$log.last" | tail -n 1)" >&2
    echo "bench peers: (pip's output: $log); benchmarks that need $req print its peer as n/a" >&2
    failed="$failed $req"
  else
    cat "$log.last" >>"$log"
  fi
done
rm -f "$log.last"
if [ -z "$failed" ]; then
  echo "$REQUIREMENTS" >"$stamp"
else
  rm -f "$stamp"
  echo "bench peers: not installed:$failed (make bench tries again next time)" >&2
fi
exit 0
