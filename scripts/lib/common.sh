# Shared by the scripts: locations, dependency installation, the build.
# shellcheck shell=bash
set -euo pipefail

S2P_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
S2P_BUILD="${S2P_BUILD_DIR:-$S2P_ROOT/build}"
S2P_JOBS="${S2P_JOBS:-$(nproc 2>/dev/null || echo 2)}"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Debian packages seq2par needs; installed with apt-get when missing.
S2P_PACKAGES=(cmake make g++ clang-19 llvm-19-dev libclang-19-dev libclang-cpp19-dev libclang-rt-19-dev
              nlohmann-json3-dev libgtest-dev googletest ccache ninja-build
              libopenmpi-dev openmpi-bin libisl-dev)

install_missing_packages() {
  local missing=()
  for package in "${S2P_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing missing packages: ${missing[*]}"
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || die "need root (or sudo) to install: ${missing[*]}"
    sudo=(sudo)
  fi
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# configure <build-dir> [cmake args...]
# Configures with clang++-19 where it is installed, unless the arguments name a compiler
# (-DCMAKE_CXX_COMPILER=...), and always with warnings as errors: the scripts are the
# project's own checks (a plain CMake build leaves SEQ2PAR_WERROR off).
configure() {
  local dir="$1"; shift
  local cmake_args=(-DSEQ2PAR_WERROR=ON "$@")
  local compiler=()
  command -v clang++-19 >/dev/null && compiler=(-DCMAKE_CXX_COMPILER=clang++-19)
  [[ " ${cmake_args[*]} " == *" -DCMAKE_CXX_COMPILER="* ]] && compiler=()
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    say "configuring $dir"
    cmake -S "$S2P_ROOT" -B "$dir" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=Release "${compiler[@]}" "${cmake_args[@]}" >/dev/null
  else
    cmake "$dir" "${cmake_args[@]}" >/dev/null
  fi
}

# configure_and_build <build-dir> [cmake args...] -- [targets...]
# configure, then build (all targets unless some are named).
configure_and_build() {
  local dir="$1"; shift
  local cmake_args=() targets=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do cmake_args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  targets=("$@")
  configure "$dir" "${cmake_args[@]}"
  say "building $dir${targets:+ (${targets[*]})}"
  local target_args=()
  for t in "${targets[@]}"; do target_args+=(--target "$t"); done
  cmake --build "$dir" -j "$S2P_JOBS" "${target_args[@]}"
}
