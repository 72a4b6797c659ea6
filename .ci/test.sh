#!/usr/bin/env bash
# Every test: the cargo tests of the workspace, then the C++ harness (CMake + GoogleTest + ctest).
# This is the README's test command; .ci/run installs what it needs and calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test --workspace
# The CMake build links the library `cargo test` just built (profile `test`, opt-level 2, same
# workspace feature resolution): cargo finds it up to date instead of compiling it a second time.
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DANIMCOMP_CARGO_REUSE_WORKSPACE_TESTS=ON
cmake --build build -j2
ctest --test-dir build --output-on-failure

# The runtime-only library (no compressor, what a game ships) builds and passes its own tests:
# golden blobs decode, mutated blobs are refused or sample finite (debug build: cheap); run after
# the CMake build, which reuses the workspace's test-profile library.
cargo test -p animcomp --no-default-features
bash .ci/python.sh  # the Python package (issue 22): virtualenv, maturin build, pytest

# Second configuration: the C/C++ tests under AddressSanitizer + UBSan, and the bad-input tests
# under valgrind memcheck (issue 5).
bash .ci/sanitize.sh
