#!/usr/bin/env bash
# Every test: the cargo tests of the workspace, then the C++ harness (CMake + GoogleTest + ctest).
# This is the README's test command; .ci/run installs what it needs and calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --workspace
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2
ctest --test-dir build --output-on-failure

# Optional second configuration: the C/C++ tests under AddressSanitizer + UBSan.
if [ "${ANIMCOMP_SANITIZE:-0}" = "1" ]; then
  cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=Debug -DANIMCOMP_SANITIZE=ON
  cmake --build build/sanitize -j2
  ctest --test-dir build/sanitize --output-on-failure
fi
