#!/usr/bin/env bash
# gpu_check — the one command to run on a machine with an NVIDIA GPU: builds tfc with CUDA,
# runs every GPU test and the GPU benchmarks, and writes all logs plus a summary to one folder.
#
#   1. configure a Release CUDA build with -DTFC_WERROR=ON (CUDA architectures: the GPU's own,
#      from nvidia-smi, so nvcc compiles one) and build it with one job per core, fully strict:
#      every warning, the flow-based ones that only -O3 inlining exposes included, fails the
#      build. GPU_CHECK_C_FLAGS adds C flags to the configure (empty by default);
#   2. ctest -R 'gpu|example_matpow' (not the valgrind copies: the CUDA driver does not run under
#      valgrind), one test at a time (each GPU test process may claim most of the GPU's
#      memory, as TF does), 180 s at most each, and list every test case that skipped: on a
#      GPU machine none should;
#   3. examples/matpow --size 10000 --n 10, and again with --virtual (two logical GPUs on GPU 0);
#   4. the GPU benchmarks: bench_gpu_matmul, bench_gpu_matpow, bench_cnn --gpu;
#   5. a summary (tests passed/failed/skipped, benchmark ratios) in OUTDIR/summary.txt, printed.
#
# Usage (from the repository root):
#   bash tests/scripts/gpu_check.sh [OUTDIR] [--build-dir DIR] [--no-build] [--tests-only]
#                                   [--bench-only] [--python PATH] [--deps DIR]
#   OUTDIR       logs and summary (default ./gpu-check-logs)
#   --build-dir  the build folder (default ./build-gpu-check)
#   --no-build   use the build folder as it is
#   --tests-only skip steps 3 and 4;  --bench-only skip step 2
#   --python     the Python the benchmarks' PyTorch peers use (default: python3 on PATH)
#   --deps       a folder of .deb files (tests/scripts/gpu_deps.sh fetch, on a Debian 12 machine):
#                for a GPU machine without Debian's libraries and without a package registry,
#                they are unpacked under BUILD-DIR-deps and the build and tests use them
# Exit status: 0 when everything ran and passed; 1 otherwise (the summary says what failed);
# 2 for bad usage, no nvcc, or no GPU.
set -u

out=./gpu-check-logs
build=./build-gpu-check
do_build=1 do_tests=1 do_bench=1 python=$(command -v python3 || echo /usr/bin/python3) have_out=0 deps=
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) [ $# -ge 2 ] || { echo "gpu_check: --build-dir needs a folder" >&2; exit 2; }; build=$2; shift ;;
    --python) [ $# -ge 2 ] || { echo "gpu_check: --python needs a path" >&2; exit 2; }; python=$2; shift ;;
    --deps) [ $# -ge 2 ] || { echo "gpu_check: --deps needs a folder" >&2; exit 2; }; deps=$2; shift ;;
    --no-build) do_build=0 ;;
    --tests-only) do_bench=0 ;;
    --bench-only) do_tests=0 ;;
    -h|--help) sed -n '2,/^[^#]/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu_check: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) [ $have_out = 0 ] || { echo "gpu_check: one OUTDIR only" >&2; exit 2; }; out=$1; have_out=1 ;;
  esac
  shift
done
if [ ! -f CMakeLists.txt ] || [ ! -d src/device/cuda ]; then
  echo "gpu_check: run it from tfc's repository root" >&2
  exit 2
fi

# ---- preconditions: nvcc and a GPU ----
nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; }
if [ $do_build = 1 ] && [ -z "$nvcc" ]; then
  echo "gpu_check: FAILED: no nvcc (neither on PATH nor /usr/local/cuda/bin): install the CUDA toolkit" >&2
  exit 2
fi
if command -v nvidia-smi > /dev/null 2>&1; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
else
  gpus=$(find /proc/driver/nvidia/gpus -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
fi
if [ "${gpus:-0}" -lt 1 ]; then
  echo "gpu_check: FAILED: no NVIDIA GPU visible (nvidia-smi -L lists none, or the driver is not loaded)" >&2
  exit 2
fi

mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
failed=0
jobs=$(nproc 2>/dev/null || echo 16)
start=$(date +%s)

note "gpu_check $(date -u '+%Y-%m-%d %H:%M:%S UTC') on $(hostname)"
if command -v nvidia-smi > /dev/null 2>&1; then
  nvidia-smi --query-gpu=index,name,memory.total,driver_version,compute_cap --format=csv,noheader \
    2>/dev/null | sed 's/^/  GPU /' | tee -a "$summary"
fi

# ---- 0. carried dependencies ----
deps_flags=()
if [ -n "$deps" ]; then
  echo "== dependencies from $deps"
  if ! bash tests/scripts/gpu_deps.sh install "$deps" "$build-deps" > "$out/deps.log" 2>&1; then
    note "deps: FAILED (see deps.log)"; cat "$out/deps.log"; exit 1
  fi
  # shellcheck disable=SC1090,SC1091
  . "$build-deps/env.sh"
  read -r -a deps_flags <<< "$TFC_DEPS_CMAKE_FLAGS"
  note "deps: $(tail -1 "$out/deps.log")"
fi

# ---- 1. build ----
if [ $do_build = 1 ]; then
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  archflag=()
  case "$arch" in [0-9][0-9]|[0-9][0-9][0-9]) archflag=(-DCMAKE_CUDA_ARCHITECTURES="$arch") ;; esac
  cflags=${GPU_CHECK_C_FLAGS-}
  echo "== configure and build in $build (-j$jobs${arch:+, CUDA arch $arch})"
  if ! cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTFC_WERROR=ON -DCMAKE_CUDA_COMPILER="$nvcc" \
      -DCMAKE_C_FLAGS="$cflags" "${archflag[@]}" "${deps_flags[@]}" > "$out/configure.log" 2>&1; then
    note "build: FAILED to configure (see configure.log)"; tail -20 "$out/configure.log"; exit 1
  fi
  if ! grep -q "tfc: CUDA .*building the CUDA device" "$out/configure.log"; then
    note "build: FAILED: cmake did not enable CUDA (see configure.log)"; grep "tfc:" "$out/configure.log"; exit 1
  fi
  if ! cmake --build "$build" -j"$jobs" > "$out/build.log" 2>&1; then
    note "build: FAILED (see build.log)"; grep -E "error|Error" "$out/build.log" | head -20; exit 1
  fi
  note "build: ok ($(( $(date +%s) - start )) s; $(grep -c 'warning:' "$out/build.log") compiler warnings in build.log)"
fi
[ -d "$build" ] || { note "build: FAILED: no build folder $build (drop --no-build)"; exit 1; }

# ---- 2. tests ----
if [ $do_tests = 1 ]; then
  echo "== GPU tests"
  (cd "$build" && ctest -R 'gpu|example_matpow' -E '^valgrind_' --output-on-failure -V --timeout 180) \
    > "$out/ctest.log" 2>&1
  rc=$?
  # ctest -V prefixes a test's lines with "N: "; the harness prints "SKIP name" and, on stderr,
  # "    skipped: why" for each test case that skipped.
  cases_ok=$(grep -cE '^[0-9]+: ok ' "$out/ctest.log" || true)
  cases_fail=$(grep -cE '^[0-9]+: FAIL ' "$out/ctest.log" || true)
  cases_skip=$(grep -cE '^[0-9]+: SKIP ' "$out/ctest.log" || true)
  line=$(grep -E 'tests passed, [0-9]+ tests failed out of [0-9]+' "$out/ctest.log" | tail -1)
  note "tests: ${line:-ctest gave no result line (see ctest.log)}; test cases: $cases_ok ok, $cases_fail failed, $cases_skip skipped"
  if [ "$cases_skip" -gt 0 ]; then
    note "  skipped on this GPU machine (none should be):"
    # The child prints the reason (stderr) before the runner's SKIP line (stdout): pair them.
    awk '/^[0-9]+:     skipped: / { sub(/^[0-9]+:     skipped: /, ""); why = $0; next }
         /^[0-9]+: SKIP / { sub(/^[0-9]+: SKIP +/, ""); sub(/ \([0-9.]+ ms\)$/, "");
                            print "    " $0 (why != "" ? ": " why : ""); why = "" }' "$out/ctest.log" |
      tee -a "$summary"
    failed=1
  fi
  if [ $rc != 0 ] || [ "$cases_fail" -gt 0 ]; then
    note "  failed:"
    grep -E '^[0-9]+: FAIL |\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception' "$out/ctest.log" | sed 's/^/    /' | tee -a "$summary"
    failed=1
  fi
fi

# ---- 3 and 4. matpow and the benchmarks ----
# run NAME LIMIT_S COMMAND...: runs one program into OUTDIR/NAME.log, notes its result line.
run() {
  local name=$1 limit=$2
  shift 2
  echo "== $name: $*"
  local t0 rc secs
  t0=$(date +%s)
  timeout "$limit" "$@" > "$out/$name.log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - t0 ))
  cat "$out/$name.log"
  if [ $rc = 0 ]; then
    note "$name: ok (${secs} s)"
  elif [ $rc = 124 ]; then
    note "$name: FAILED: still running after ${limit} s"; failed=1
  else
    note "$name: FAILED (exit $rc; see $name.log)"; tail -3 "$out/$name.log" | sed 's/^/    /' | tee -a "$summary"; failed=1
  fi
  return $rc
}

if [ $do_bench = 1 ]; then
  for p in matpow bench_gpu_matmul bench_gpu_matpow bench_cnn; do
    [ -x "$build/$p" ] || { note "$p: FAILED: $build/$p was not built"; failed=1; }
  done
  if [ -x "$build/matpow" ]; then
    run matpow 120 "$build/matpow" --size 10000 --n 10 &&
      grep -E 'computation time|same result|DIFFERENT' "$out/matpow.log" | sed 's/^/    /' >> "$summary"
    grep -q "DIFFERENT" "$out/matpow.log" && { note "matpow: FAILED: the two runs differ"; failed=1; }
    run matpow_virtual 120 "$build/matpow" --size 10000 --n 10 --virtual 20000 &&
      grep -E 'computation time|same result|DIFFERENT' "$out/matpow_virtual.log" | sed 's/^/    /' >> "$summary"
    grep -q "DIFFERENT" "$out/matpow_virtual.log" && { note "matpow_virtual: FAILED: the two runs differ"; failed=1; }
  fi
  [ -x "$build/bench_gpu_matmul" ] && run bench_gpu_matmul 240 "$build/bench_gpu_matmul" &&
    grep -E '^ *[0-9]+ +(float|half) |worst ratio' "$out/bench_gpu_matmul.log" | sed 's/^/    /' >> "$summary"
  [ -x "$build/bench_gpu_matpow" ] && run bench_gpu_matpow 240 "$build/bench_gpu_matpow" --python "$python" &&
    grep -E '^(tfc|PyTorch|sum|gpu_matpow)' "$out/bench_gpu_matpow.log" | sed 's/^/    /' >> "$summary"
  [ -x "$build/bench_cnn" ] && run bench_cnn_gpu 180 "$build/bench_cnn" --gpu "$jobs" "$python" &&
    grep -E '^(placement|tfc|PyTorch|ratio)' "$out/bench_cnn_gpu.log" | sed 's/^/    /' >> "$summary"
  if grep -qh "needs a GPU" "$out"/bench_*.log 2>/dev/null; then
    note "benchmarks: FAILED: a benchmark found no GPU although nvidia-smi lists $gpus"; failed=1
  fi
fi

note "total: $(( $(date +%s) - start )) s; $([ $failed = 0 ] && echo PASSED || echo FAILED)"
echo "== summary (also in $summary)"
cat "$summary"
exit $failed
