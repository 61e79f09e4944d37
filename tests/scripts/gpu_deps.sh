#!/usr/bin/env bash
# gpu_deps — tfc's build dependencies as Debian 12 packages, for a GPU machine that has the CUDA
# toolkit but not Debian's libraries and cannot reach a package registry.
#
#   bash tests/scripts/gpu_deps.sh fetch DIR
#       On a Debian 12 machine with apt: downloads (no install, no root needed) the .deb files
#       of OpenBLAS, oneDNN, protobuf-c and its compiler, zlib, gRPC core and their libraries
#       (abseil, re2, c-ares, OpenSSL, gfortran/quadmath/gomp runtimes, OpenCL ICD loader),
#       libjpeg-turbo, libpng, giflib, FFTW (single and double precision) and
#       pkgconf into DIR, those with static libraries rebuilt without them: about 27 MB. The C
#       library, the C++ runtime and the rest of a base system are assumed present on the target.
#       cuDNN's, cuFFT's and cuSOLVER's headers, where the local CUDA toolkit has them, go to
#       DIR/cuda-include.
#   bash tests/scripts/gpu_deps.sh install DIR PREFIX
#       On the GPU machine: unpacks every DIR/*.deb under PREFIX (never into /), points the
#       pkg-config files at PREFIX, and writes PREFIX/env.sh, which exports PATH,
#       LD_LIBRARY_PATH, PKG_CONFIG_LIBDIR (only PREFIX's .pc files are seen, so a build cannot
#       silently mix in the machine's own) and TFC_DEPS_CMAKE_FLAGS (the oneDNN and protoc-c
#       paths, and pkgconf as CMake's pkg-config). Source it, then configure with
#       $TFC_DEPS_CMAKE_FLAGS; tests/scripts/gpu_check.sh --deps DIR does all of this.
# Exit status: 0, or 1 with a message naming what failed; 2 for bad usage.
set -euo pipefail

PACKAGES="libopenblas-dev libopenblas-pthread-dev libopenblas0 libopenblas0-pthread libgfortran5 libquadmath0
libgomp1 libdnnl-dev libdnnl2 ocl-icd-libopencl1 libprotobuf-c-dev libprotobuf-c1 protobuf-c-compiler libprotoc32
libprotobuf32 zlib1g zlib1g-dev libgrpc-dev libgrpc29 libabsl-dev libabsl20220623 libre2-dev libre2-9 libc-ares-dev
libc-ares2 libssl-dev libssl3 libjpeg62-turbo-dev libjpeg62-turbo libpng-dev libpng16-16 libgif-dev libgif7
libfftw3-dev libfftw3-single3 libfftw3-double3 pkgconf pkgconf-bin libpkgconf3"

usage() {
  echo "usage: gpu_deps.sh fetch DIR | gpu_deps.sh install DIR PREFIX" >&2
  exit 2
}

fetch() {
  local dir=$1
  command -v apt-get > /dev/null || { echo "gpu_deps: fetch needs apt-get (a Debian 12 machine)" >&2; exit 1; }
  mkdir -p "$dir"
  # shellcheck disable=SC2086 # the list is words on purpose
  (cd "$dir" && apt-get download $PACKAGES) || { echo "gpu_deps: apt-get download failed" >&2; exit 1; }
  # The folder travels to the GPU machine beside the source tree, within a size limit: a
  # package with static libraries (never read by tfc's shared build) is rebuilt without them,
  # which takes the folder from about 40 MB to about 27.
  local d tmp
  tmp=$(mktemp -d)
  for d in "$dir"/*.deb; do
    dpkg-deb -c "$d" > "$tmp/list" || { echo "gpu_deps: cannot read $d" >&2; rm -rf "$tmp"; exit 1; }
    grep -q '\.a$' "$tmp/list" || continue
    rm -rf "$tmp/p"
    dpkg-deb -R "$d" "$tmp/p" || { echo "gpu_deps: cannot unpack $d" >&2; rm -rf "$tmp"; exit 1; }
    find "$tmp/p" -name '*.a' -type f -delete
    rm -f "$tmp/p/DEBIAN/md5sums"
    dpkg-deb --root-owner-group -Zxz -b "$tmp/p" "$d" > /dev/null ||
      { echo "gpu_deps: cannot repack $d" >&2; rm -rf "$tmp"; exit 1; }
  done
  rm -rf "$tmp"
  # cuDNN's, cuFFT's and cuSOLVER's headers, for a GPU machine whose CUDA toolkit lacks them and
  # whose Python has no NVIDIA wheels (gpu_check.sh --deps looks for them in DIR/cuda-include
  # last).
  local cuda_inc=/usr/local/cuda/include h
  for h in cudnn cufft cusolver; do
    if ls "$cuda_inc/$h"*.h > /dev/null 2>&1; then
      mkdir -p "$dir/cuda-include" && cp "$cuda_inc/$h"*.h "$dir/cuda-include/"
    fi
  done
  echo "gpu_deps: $(find "$dir" -name '*.deb' | wc -l) packages, $(du -sh "$dir" | cut -f1), in $dir"
}

# A .deb is an ar archive whose data.tar.* holds the files: dpkg-deb where there is one, else
# ar and tar (which know xz and zstd where their tools are installed).
unpack() {
  if command -v dpkg-deb > /dev/null; then
    dpkg-deb -x "$1" "$2"
  else
    local member flag
    member=$(ar t "$1" | grep '^data\.tar') || return 1
    case "$member" in
      *.xz) flag=-J ;;
      *.zst) flag=--zstd ;;
      *.gz) flag=-z ;;
      *) flag= ;;
    esac
    ar p "$1" "$member" | tar -x $flag -f - -C "$2"
  fi
}

install_deps() {
  local dir=$1 prefix=$2
  command -v dpkg-deb > /dev/null || command -v ar > /dev/null ||
    { echo "gpu_deps: install needs dpkg-deb, or ar and tar" >&2; exit 1; }
  local debs
  debs=$(find "$dir" -maxdepth 1 -name '*.deb' | sort)
  [ -n "$debs" ] || { echo "gpu_deps: no .deb files in $dir (run fetch first)" >&2; exit 1; }
  mkdir -p "$prefix"
  prefix=$(cd "$prefix" && pwd -P)
  for d in $debs; do unpack "$d" "$prefix" || { echo "gpu_deps: cannot unpack $d" >&2; exit 1; }; done
  local lib=$prefix/usr/lib/x86_64-linux-gnu blas=$prefix/usr/lib/x86_64-linux-gnu/openblas-pthread
  # Debian makes libopenblas.so, its pkg-config file and libblas through update-alternatives,
  # which dpkg-deb -x does not run: the pthread variant's own files stand in for them.
  ln -sf "$blas/pkgconfig/openblas.pc" "$lib/pkgconfig/openblas.pc"
  ln -sf "$blas/libopenblas.so" "$lib/libopenblas.so"
  ln -sf "$blas/libopenblas.so.0" "$lib/libopenblas.so.0"
  # pkg-config files say /usr: make every absolute /usr path point under PREFIX (prefix=/usr,
  # and /usr/... after "=", a space, a quote, -I or -L).
  find "$prefix" -name '*.pc' -type f -print0 |
    xargs -0 sed -i -E -e "s#^prefix=/usr\$#prefix=$prefix/usr#" -e "s#(^|[=[:space:]\"']|-I|-L)/usr/#\1$prefix/usr/#g"
  cat > "$prefix/env.sh" << EOF
# written by tests/scripts/gpu_deps.sh install: tfc's build dependencies under $prefix
export PATH="$prefix/usr/bin:\$PATH"
export LD_LIBRARY_PATH="$lib:$blas\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export PKG_CONFIG_LIBDIR="$lib/pkgconfig:$blas/pkgconfig:$prefix/usr/share/pkgconfig"
export TFC_DEPS_CMAKE_FLAGS="-DCMAKE_PREFIX_PATH=$prefix/usr -DPKG_CONFIG_EXECUTABLE=$prefix/usr/bin/pkgconf -DPROTOC_C=$prefix/usr/bin/protoc-c -DDNNL_INCLUDE_DIR=$prefix/usr/include -DDNNL_LIBRARY=$lib/libdnnl.so"
EOF
  # shellcheck disable=SC1090,SC1091
  . "$prefix/env.sh"
  "$prefix/usr/bin/pkgconf" --exists openblas libprotobuf-c zlib grpc ||
    { echo "gpu_deps: pkg-config cannot resolve openblas, libprotobuf-c, zlib and grpc under $prefix" >&2; exit 1; }
  "$prefix/usr/bin/protoc-c" --version > /dev/null 2>&1 ||
    { echo "gpu_deps: $prefix/usr/bin/protoc-c does not run here (missing system libraries?)" >&2; exit 1; }
  echo "gpu_deps: installed $(echo "$debs" | wc -l) packages under $prefix; source $prefix/env.sh"
}

[ $# -ge 1 ] || usage
case "$1" in
  fetch) [ $# -eq 2 ] || usage; fetch "$2" ;;
  install) [ $# -eq 3 ] || usage; install_deps "$2" "$3" ;;
  *) usage ;;
esac
