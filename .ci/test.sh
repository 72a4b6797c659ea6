#!/usr/bin/env bash
# Every test: the cargo tests of the workspace, then the C++ harness (CMake + GoogleTest + ctest).
# This is the README's test command; .ci/run installs what it needs and calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --workspace
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j2
ctest --test-dir build --output-on-failure

# Second configuration: the C/C++ tests under AddressSanitizer + UBSan, and the bad-input tests
# under valgrind memcheck (issue 5).
bash .ci/sanitize.sh
