#!/usr/bin/env bash
# gpu_check — the one command to run on a machine with an NVIDIA GPU: builds tfc with CUDA,
# runs every GPU test and the GPU benchmarks, and writes a summary and one combined log.
#
#   0. with --deps DIR: unpack the carried Debian packages (tests/scripts/gpu_deps.sh install)
#      and build against them alone;
#   1. configure a Release CUDA build with -DTFC_WERROR=ON (CUDA architectures: the GPU's own,
#      from nvidia-smi, so nvcc compiles one; Ninja when installed) and build, one job per core,
#      only what the steps below run (--full-build: everything), fully strict: every warning
#      fails the build. GPU_CHECK_C_FLAGS adds C flags to the configure (empty by default),
#      GPU_CHECK_CMAKE_FLAGS more configure arguments (words; e.g. a compiler launcher);
#   2. ctest -R 'gpu|example_matpow' (--tests REGEX: another selection; not the valgrind copies: the CUDA driver does not run under
#      valgrind), one test at a time (each GPU test process may claim most of the GPU's
#      memory, as TF does), 120 s at most each, and list every test case that skipped: on a
#      GPU machine none should. The tests run with TF_FORCE_GPU_ALLOW_GROWTH=true unless the
#      caller set it: reserving an 80 GB card's memory takes seconds per test process (the
#      default path keeps its own tests on the fake platform);
#   3. examples/matpow --size 10000 --n 10, and again with --virtual (two logical GPUs on GPU 0);
#   4. the GPU benchmarks: bench_gpu_matmul, bench_cnn --gpu, bench_gpu_matpow.
# With --budget SECONDS the whole run ends within that time: each step gets at most what is left
# (less a reserve for the summary), and a step that no longer fits is not started and is named
# in the summary. Whatever happens (a failed build included), OUTDIR ends with two files:
# summary.txt (tests passed/failed/skipped, benchmark figures, each step's time) and all.log
# (every step's full output, in order). The per-step logs stay in BUILD-DIR-logs.
#
# Usage (from the repository root):
#   bash tests/scripts/gpu_check.sh [OUTDIR] [--build-dir DIR] [--no-build] [--full-build]
#        [--tests-only] [--bench-only] [--python PATH] [--deps DIR] [--budget SECONDS]
#        [--tests REGEX] [--allow-no-gpu]
#   OUTDIR        summary.txt and all.log (default ./gpu-check-logs)
#   --build-dir   the build folder (default ./build-gpu-check)
#   --no-build    use the build folder as it is
#   --full-build  build every target, not only the GPU tests, matpow and the benchmarks
#   --tests-only  skip steps 3 and 4;  --bench-only skip step 2
#   --python      the Python the benchmarks' PyTorch peers use (default: python3 on PATH); it
#                 runs with the machine's own library path, not the carried packages'
#   --deps        a folder of .deb files (tests/scripts/gpu_deps.sh fetch, on a Debian 12 machine):
#                 for a GPU machine without Debian's libraries and without a package registry,
#                 they are unpacked under BUILD-DIR-deps and the build and tests use them
#   --budget      seconds the whole run may take (default: no limit)
#   --tests       the ctest regular expression of step 2 (default 'gpu|example_matpow')
#   --allow-no-gpu  run on a machine without a GPU (to try the script itself: the GPU tests
#                 skip, so the summary says FAILED)
# Exit status: 0 when everything ran and passed; 1 otherwise (the summary says what failed);
# 2 for bad usage, no nvcc, or no GPU.
set -u

out=./gpu-check-logs
build=./build-gpu-check
do_build=1 do_tests=1 do_bench=1 full_build=0 allow_no_gpu=0 have_out=0 deps='' budget=0
test_re='gpu|example_matpow'
python=$(command -v python3 || echo /usr/bin/python3)
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) [ $# -ge 2 ] || { echo "gpu_check: --build-dir needs a folder" >&2; exit 2; }; build=$2; shift ;;
    --python) [ $# -ge 2 ] || { echo "gpu_check: --python needs a path" >&2; exit 2; }; python=$2; shift ;;
    --deps) [ $# -ge 2 ] || { echo "gpu_check: --deps needs a folder" >&2; exit 2; }; deps=$2; shift ;;
    --tests) [ $# -ge 2 ] || { echo "gpu_check: --tests needs a regular expression" >&2; exit 2; }; test_re=$2; shift ;;
    --budget)
      case "${2-}" in ''|*[!0-9]*) echo "gpu_check: --budget needs a number of seconds" >&2; exit 2 ;; esac
      budget=$2; shift ;;
    --no-build) do_build=0 ;;
    --full-build) full_build=1 ;;
    --tests-only) do_bench=0 ;;
    --bench-only) do_tests=0 ;;
    --allow-no-gpu) allow_no_gpu=1 ;;
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
start=$(date +%s)

mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
summary=$out/summary.txt
all=$out/all.log
: > "$summary"
: > "$all"
mkdir -p "$build" || exit 2
build=$(cd "$build" && pwd)
logs=$build-logs
rm -rf "$logs"
mkdir -p "$logs" || exit 2
note() { echo "$*" | tee -a "$summary"; }
failed=0
steps=() # every step's log, in order, for all.log

# all.log: the summary, then each step's log (a log over 3 MB keeps its first 1 MB and last
# 2 MB, so the file stays far below 16 MB). Rewritten after each step and at exit, so a run
# killed from outside still leaves the logs of the steps it finished.
# shellcheck disable=SC2317 # run by the EXIT trap
finish() {
  local f size
  {
    echo "===== summary.txt"
    cat "$summary"
    for f in "${steps[@]}"; do
      [ -f "$logs/$f" ] || continue
      size=$(stat -c %s "$logs/$f")
      echo
      echo "===== $f ($size bytes)"
      if [ "$size" -gt 3000000 ]; then
        head -c 1000000 "$logs/$f"
        echo
        echo "===== ... $f: $((size - 3000000)) bytes left out ..."
        tail -c 2000000 "$logs/$f"
      else
        cat "$logs/$f"
      fi
    done
  } > "$all" 2>&1
}
trap finish EXIT

# left: seconds of the budget still free after a 15 s reserve for the summary (a large number
# without --budget).
left() {
  if [ "$budget" = 0 ]; then echo 100000; else echo $(( start + budget - 15 - $(date +%s) )); fi
}
# limit WANT: WANT, or what is left of the budget when that is less.
limit() {
  local l
  l=$(left)
  [ "$l" -lt "$1" ] && echo "$l" || echo "$1"
}
# fits NAME MIN: whether MIN seconds are left; if not, notes that NAME was not started.
fits() {
  [ "$(left)" -ge "$2" ] && return 0
  note "$1: NOT RUN: the budget (${budget} s) ran out after $(( $(date +%s) - start )) s"
  failed=1
  return 1
}
finish_line() {
  note "total: $(( $(date +%s) - start )) s; $([ $failed = 0 ] && echo PASSED || echo FAILED)"
}

# ---- preconditions: nvcc and a GPU ----
nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; }
if [ $do_build = 1 ] && [ -z "$nvcc" ]; then
  note "gpu_check: FAILED: no nvcc (neither on PATH nor /usr/local/cuda/bin): install the CUDA toolkit"
  exit 2
fi
if command -v nvidia-smi > /dev/null 2>&1; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
else
  gpus=$(find /proc/driver/nvidia/gpus -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
fi
if [ "${gpus:-0}" -lt 1 ] && [ $allow_no_gpu = 0 ]; then
  note "gpu_check: FAILED: no NVIDIA GPU visible (nvidia-smi -L lists none, or the driver is not loaded)"
  exit 2
fi
jobs=$(nproc 2>/dev/null || echo 16)

note "gpu_check $(date -u '+%Y-%m-%d %H:%M:%S UTC') on ${HOSTNAME:-$(uname -n)}, $jobs cores, budget ${budget} s"
if command -v nvidia-smi > /dev/null 2>&1; then
  nvidia-smi --query-gpu=index,name,memory.total,driver_version,compute_cap --format=csv,noheader \
    2>/dev/null | sed 's/^/  GPU /' | tee -a "$summary"
fi
{ uname -a; grep PRETTY_NAME /etc/os-release; "${nvcc:-true}" --version | tail -2; cmake --version | head -1
  command -v ninja; gcc --version | head -1; nvidia-smi; } > "$logs/machine.log" 2>&1
steps+=(machine.log)

# ---- 0. carried dependencies ----
deps_flags=()
machine_ld=${LD_LIBRARY_PATH-}
if [ -n "$deps" ]; then
  echo "== dependencies from $deps"
  steps+=(deps.log)
  if ! bash tests/scripts/gpu_deps.sh install "$deps" "$build-deps" > "$logs/deps.log" 2>&1; then
    note "deps: FAILED (see deps.log in all.log)"; tail -5 "$logs/deps.log" | tee -a "$summary"; failed=1
    finish_line; exit 1
  fi
  # shellcheck disable=SC1090,SC1091
  . "$build-deps/env.sh"
  read -r -a deps_flags <<< "$TFC_DEPS_CMAKE_FLAGS"
  note "deps: $(tail -1 "$logs/deps.log")"
fi
# The PyTorch peers run with the machine's own libraries, not the carried ones.
pywrap=$logs/python
printf '#!/bin/sh\nLD_LIBRARY_PATH=%q exec %q "$@"\n' "$machine_ld" "$python" > "$pywrap"
[ -n "$machine_ld" ] || printf '#!/bin/sh\nunset LD_LIBRARY_PATH\nexec %q "$@"\n' "$python" > "$pywrap"
chmod +x "$pywrap"

# ---- CUDA's libraries: cuDNN, cuBLAS, cuFFT and cuSOLVER ----
# tfc includes cudnn.h, cublas_v2.h, cufft.h and cusolverDn.h and dlopens libcudnn.so.9 and the
# others' libraries (.so.<their major>) at run time. A toolkit without them (cuDNN is a separate
# download) borrows those of the Python's NVIDIA wheels (PyTorch's nvidia-cudnn, -cublas,
# -cufft and -cusolver: headers and libraries), or else the headers carried in
# DEPS/cuda-include; the toolkit's own libraries stay first.
cuda_cflags=() cuda_flags=()
if [ -n "$nvcc" ]; then
  cuda_root=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
  pip_nvidia=$("$python" -c 'import nvidia; print("\n".join(nvidia.__path__))' 2>/dev/null || true)
  for pair in cudnn.h:cudnn cublas_v2.h:cublas cufft.h:cufft cusolverDn.h:cusolver; do
    h=${pair%%:*} pkg=${pair#*:} found=
    for d in "$cuda_root/include" "$cuda_root/targets/x86_64-linux/include" /usr/include /usr/include/x86_64-linux-gnu; do
      [ -f "$d/$h" ] && { found=$d; break; }
    done
    if [ -z "$found" ]; then
      while read -r d; do
        [ -n "$d" ] && [ -f "$d/$pkg/include/$h" ] && { found=$d/$pkg/include; break; }
      done <<< "$pip_nvidia"
      [ -z "$found" ] && [ -n "$deps" ] && [ -f "$deps/cuda-include/$h" ] && found=$(cd "$deps/cuda-include" && pwd)
      [ -n "$found" ] && cuda_cflags+=("-I$found")
    fi
    note "cuda: $h in ${found:-NOWHERE (the build will fail)}"
  done
  cuda_lib=
  for d in "$cuda_root/lib64" "$cuda_root/targets/x86_64-linux/lib" "$cuda_root/lib"; do
    [ -d "$d" ] && cuda_lib=${cuda_lib:+$cuda_lib:}$d
  done
  pip_libs=
  while read -r d; do
    for pkg in cudnn cublas cufft cusolver; do
      [ -n "$d" ] && [ -d "$d/$pkg/lib" ] && pip_libs=${pip_libs:+$pip_libs:}$d/$pkg/lib
    done
  done <<< "$pip_nvidia"
  # No cuBLAS to link bench_gpu_matmul with in the toolkit: the wheel's.
  if ! ls "$cuda_root"/lib64/libcublas.so "$cuda_root"/targets/x86_64-linux/lib/libcublas.so > /dev/null 2>&1; then
    for l in cublas cublasLt; do
      f=
      while read -r d; do
        [ -n "$d" ] && [ -z "$f" ] && f=$(find "$d/cublas/lib" -maxdepth 1 -name "lib$l.so.*" 2>/dev/null | sort | head -1)
      done <<< "$pip_nvidia"
      [ -n "$f" ] && cuda_flags+=("-DCUDA_${l}_LIBRARY=$f")
    done
    note "cuda: no libcublas.so in the toolkit; linking ${cuda_flags[*]:-nothing (bench_gpu_matmul measures nothing)}"
  fi
  export LD_LIBRARY_PATH="${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$cuda_lib${pip_libs:+:$pip_libs}"
  { echo "== CUDA libraries"; echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"; ldconfig -p 2>/dev/null | grep -E 'cudnn|cublas|libcuda\.'
    ls -d "$cuda_root"/include/cudnn*.h "$cuda_root"/include/cublas*.h; echo "pip nvidia: $pip_nvidia"
    "$python" -c 'import torch; print("torch", torch.__version__, torch.version.cuda, torch.backends.cudnn.version(), torch.cuda.is_available())'
  } >> "$logs/machine.log" 2>&1
fi

# ---- 1. build ----
bench_targets="matpow bench_gpu_matmul bench_gpu_matpow bench_cnn"
if [ $do_build = 1 ]; then
  t0=$(date +%s)
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
  archflag=()
  case "$arch" in [0-9][0-9]|[0-9][0-9][0-9]) archflag=(-DCMAKE_CUDA_ARCHITECTURES="$arch") ;; esac
  gen=()
  [ -f "$build/CMakeCache.txt" ] || { command -v ninja > /dev/null 2>&1 && gen=(-G Ninja); }
  cflags="${GPU_CHECK_C_FLAGS-}${cuda_cflags[*]:+ ${cuda_cflags[*]}}"
  read -r -a extra <<< "${GPU_CHECK_CMAKE_FLAGS-}"
  echo "== configure in $build (${gen[*]:-default generator}${arch:+, CUDA arch $arch})"
  steps+=(configure.log)
  if ! timeout "$(limit 300)" cmake -S . -B "$build" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DTFC_WERROR=ON \
      -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_C_FLAGS="$cflags" -DTFC_PYTHON=OFF -DTFC_TEST_TIMEOUT=120 \
      "${archflag[@]}" "${deps_flags[@]}" "${cuda_flags[@]}" "${extra[@]}" > "$logs/configure.log" 2>&1; then
    note "build: FAILED to configure (see configure.log in all.log)"; tail -20 "$logs/configure.log" | tee -a "$summary"
    failed=1; finish_line; exit 1
  fi
  if ! grep -q "tfc: CUDA .*building the CUDA device" "$logs/configure.log"; then
    note "build: FAILED: cmake did not enable CUDA (see configure.log)"; grep "tfc:" "$logs/configure.log" | tee -a "$summary"
    failed=1; finish_line; exit 1
  fi
  # Only the programs the steps run: the test programs ctest would pick (tests/*/test_*.c, whose
  # target is the test's name), matpow (the example_matpow tests) and the benchmarks; a test of
  # another kind could need more, so then everything is built.
  targets=()
  if [ $full_build = 0 ]; then
    for t in $( (cd "$build" && ctest -N -R "$test_re" -E '^valgrind_') | sed -n -E 's/^ *Test +#[0-9]+: +//p'); do
      case "$t" in
        unit_test_*|capi_test_*|kernels_test_*|fixtures_test_*|distributed_runtime_test_*) targets+=("$t") ;;
        example_matpow*) ;;
        *) targets=(); echo "gpu_check: test $t is not a test program: building everything"; break ;;
      esac
    done
    if [ ${#targets[@]} -gt 0 ]; then
      read -r -a more <<< "$bench_targets"
      targets+=("${more[@]}")
    fi
  fi
  btarget=()
  [ ${#targets[@]} -gt 0 ] && btarget=(--target "${targets[@]}")
  # Keep going past a failed file, so that one file's error leaves the rest built.
  keep=(-k)
  grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja' "$build/CMakeCache.txt" && keep=(-k 0)
  steps+=(build.log)
  echo "== build (-j$jobs, ${targets[*]:-all targets})"
  timeout "$(limit 3600)" cmake --build "$build" -j"$jobs" "${btarget[@]}" -- "${keep[@]}" > "$logs/build.log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - t0 ))
  if [ $rc = 0 ]; then
    note "build: ok (${secs} s, ${#targets[@]} targets (0: all); $(grep -c 'warning:' "$logs/build.log") compiler warnings)"
  elif [ $rc = 124 ]; then
    note "build: FAILED: not done within the budget (${secs} s)"; failed=1
  else
    note "build: FAILED with -DTFC_WERROR=ON (${secs} s; the errors, all in build.log in all.log):"
    grep -E "error|FAILED:" "$logs/build.log" | head -30 | sed 's/^/    /' | tee -a "$summary"
    failed=1
    # This machine's compilers may warn where the CI's do not: the tests still run, on a build
    # without -Werror (only the C and C++ files rebuild; the CUDA ones never had -Werror), when
    # the budget leaves time for it.
    if fits "build without -Werror" $(( secs / 2 + 120 )); then
      t0=$(date +%s)
      steps+=(build-nowerror.log)
      { cmake -S . -B "$build" -DTFC_WERROR=OFF &&
        timeout "$(limit 3600)" cmake --build "$build" -j"$jobs" "${btarget[@]}" -- "${keep[@]}"; } > "$logs/build-nowerror.log" 2>&1
      rc=$?
      note "build without -Werror: $([ $rc = 0 ] && echo ok || echo "FAILED (exit $rc)") ($(( $(date +%s) - t0 )) s); the steps below use it"
      [ $rc = 0 ] || grep -E "error|FAILED:" "$logs/build-nowerror.log" | head -20 | sed 's/^/    /' | tee -a "$summary"
    fi
  fi
fi
[ -d "$build" ] || { note "build: FAILED: no build folder $build (drop --no-build)"; failed=1; finish_line; exit 1; }

finish

# ---- 2. tests ----
if [ $do_tests = 1 ] && fits tests 60; then
  echo "== GPU tests"
  steps+=(ctest.log)
  t0=$(date +%s)
  (cd "$build" && export TF_FORCE_GPU_ALLOW_GROWTH="${TF_FORCE_GPU_ALLOW_GROWTH-true}" &&
    timeout "$(limit 100000)" ctest -R "$test_re" -E '^valgrind_' --output-on-failure -V --timeout 120) \
    > "$logs/ctest.log" 2>&1
  rc=$?
  [ $rc = 124 ] && note "tests: FAILED: ctest stopped when the budget ran out (the tests not yet run did not run)"
  # ctest -V prefixes a test's lines with "N: "; the harness prints "SKIP name" and, on stderr,
  # "    skipped: why" for each test case that skipped.
  cases_ok=$(grep -cE '^[0-9]+: ok ' "$logs/ctest.log" || true)
  cases_fail=$(grep -cE '^[0-9]+: FAIL ' "$logs/ctest.log" || true)
  cases_skip=$(grep -cE '^[0-9]+: SKIP ' "$logs/ctest.log" || true)
  line=$(grep -E 'tests passed(, [0-9]+ tests failed)? out of [0-9]+' "$logs/ctest.log" | tail -1)
  note "tests: ${line:-ctest gave no result line (see ctest.log)}; test cases: $cases_ok ok, $cases_fail failed, $cases_skip skipped ($(( $(date +%s) - t0 )) s)"
  # Each test program's time.
  grep -E '^ *[0-9]+/[0-9]+ Test +#[0-9]+: ' "$logs/ctest.log" | sed 's/^/    /' | tee -a "$summary"
  if [ "$cases_skip" -gt 0 ]; then
    note "  skipped on this GPU machine (none should be):"
    # The child prints the reason (stderr) before the runner's SKIP line (stdout): pair them.
    awk '/^[0-9]+:     skipped: / { sub(/^[0-9]+:     skipped: /, ""); why = $0; next }
         /^[0-9]+: SKIP / { sub(/^[0-9]+: SKIP +/, ""); sub(/ \([0-9.]+ ms\)$/, "");
                            print "    " $0 (why != "" ? ": " why : ""); why = "" }' "$logs/ctest.log" |
      head -100 | tee -a "$summary"
    failed=1
  fi
  if [ $rc != 0 ] || [ "$cases_fail" -gt 0 ]; then
    note "  failed:"
    grep -E '^[0-9]+: FAIL |\*\*\*Failed|\*\*\*Timeout|\*\*\*Exception' "$logs/ctest.log" | head -100 |
      sed 's/^/    /' | tee -a "$summary"
    failed=1
  fi
fi

finish

# ---- 3 and 4. matpow and the benchmarks ----
# run NAME LIMIT_S MIN_S COMMAND...: runs one program into NAME.log, for LIMIT_S seconds at most
# (less when the budget has less left; not at all when less than MIN_S is left), and notes its
# result; returns the program's exit status (1 when it did not run).
run() {
  local name=$1 want=$2 min=$3
  shift 3
  fits "$name" "$min" || return 1
  local t0 rc secs lim
  lim=$(limit "$want")
  echo "== $name (at most $lim s): $*"
  steps+=("$name.log")
  t0=$(date +%s)
  timeout "$lim" "$@" > "$logs/$name.log" 2>&1
  rc=$?
  secs=$(( $(date +%s) - t0 ))
  cat "$logs/$name.log"
  if [ $rc = 0 ]; then
    note "$name: ok (${secs} s)"
  elif [ $rc = 124 ]; then
    note "$name: FAILED: still running after ${lim} s"; failed=1
  else
    note "$name: FAILED (exit $rc; see $name.log in all.log)"; tail -3 "$logs/$name.log" | sed 's/^/    /' | tee -a "$summary"; failed=1
  fi
  finish
  return $rc
}
# figures NAME REGEX: copies NAME.log's lines matching REGEX into the summary.
figures() { grep -E "$2" "$logs/$1.log" 2>/dev/null | sed 's/^/    /' >> "$summary"; }

if [ $do_bench = 1 ]; then
  for p in $bench_targets; do
    [ -x "$build/$p" ] || { note "$p: FAILED: $build/$p was not built"; failed=1; }
  done
  if [ -x "$build/matpow" ]; then
    # seed 000 places its second half on /gpu:1: a real second card, else only --virtual
    if [ "$gpus" -ge 2 ]; then
      run matpow 120 30 "$build/matpow" --size 10000 --n 10
      figures matpow 'computation time|same result|DIFFERENT'
      grep -q "DIFFERENT" "$logs/matpow.log" 2>/dev/null && { note "matpow: FAILED: the two runs differ"; failed=1; }
    else
      note "matpow: one GPU: only the run on two logical GPUs of GPU 0 (--virtual)"
    fi
    run matpow_virtual 120 30 "$build/matpow" --size 10000 --n 10 --virtual 20000
    figures matpow_virtual 'computation time|same result|DIFFERENT'
    grep -q "DIFFERENT" "$logs/matpow_virtual.log" 2>/dev/null && { note "matpow_virtual: FAILED: the two runs differ"; failed=1; }
  fi
  [ -x "$build/bench_gpu_matmul" ] && run bench_gpu_matmul 180 45 "$build/bench_gpu_matmul"
  figures bench_gpu_matmul '^ *[0-9]+ +(float|half) |worst ratio|bandwidth|copy|GB/s'
  [ -x "$build/bench_cnn" ] && run bench_cnn_gpu 150 45 "$build/bench_cnn" --gpu "$jobs" "$pywrap"
  figures bench_cnn_gpu '^(placement|tfc|PyTorch|ratio|overhead|kernel)'
  [ -x "$build/bench_gpu_matpow" ] && run bench_gpu_matpow 180 45 "$build/bench_gpu_matpow" --python "$pywrap"
  figures bench_gpu_matpow '^(tfc|PyTorch|sum|gpu_matpow)'
  if [ "${gpus:-0}" -ge 1 ] && grep -qh "needs a GPU" "$logs"/bench_*.log 2>/dev/null; then
    note "benchmarks: FAILED: a benchmark found no GPU although nvidia-smi lists $gpus"; failed=1
  fi
fi

finish_line
echo "== summary (also in $summary; every log in $all)"
cat "$summary"
exit $failed
