#!/usr/bin/env bash
# The C++ harness under AddressSanitizer + UndefinedBehaviorSanitizer (a second CMake build dir,
# -DANIMCOMP_SANITIZE=ON), then the bad-input and corrupt-blob tests under valgrind memcheck
# (an uninstrumented build: valgrind and ASan do not mix). Exits non-zero on any finding.
#
#   bash .ci/sanitize.sh          # from the repository root (or anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
if ! command -v valgrind >/dev/null 2>&1; then
  echo ".ci/sanitize.sh: installing valgrind"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends valgrind
fi

# 1. ASan + UBSan. The library comes from the same cargo target dir and profile (`test`) as the
#    normal build and `cargo test`, so cargo compiles nothing again.
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=Debug -DANIMCOMP_SANITIZE=ON -DANIMCOMP_CARGO_REUSE_WORKSPACE_TESTS=ON
cmake --build build-sanitize -j2
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir build-sanitize --output-on-failure
unset ASAN_OPTIONS UBSAN_OPTIONS

# 2. valgrind memcheck on the bad-input tests (uninstrumented build; reuses ./build when present).
if [ ! -x build/cpp_tests/animcomp_cpp_tests ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DANIMCOMP_CARGO_REUSE_WORKSPACE_TESTS=ON
fi
cmake --build build -j2 --target animcomp_cpp_tests
valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
  build/cpp_tests/animcomp_cpp_tests --gtest_filter='BadInput.*:CorruptBlob.*'
echo ".ci/sanitize.sh: ASan+UBSan ctest and valgrind memcheck passed"
