#!/usr/bin/env bash
# Every test: the cargo tests of the workspace, then the C++ harness (CMake + GoogleTest + ctest).
# This is the README's test command; .ci/run installs what it needs and calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

# First, in seconds: every tool the steps below need (the cargo tests alone take many minutes;
# a missing cmake must not be found only after them). `.ci/run` installs the Debian packages;
# valgrind is installed by .ci/sanitize.sh itself when absent.
missing=()
if ! command -v cargo >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/cargo" ]; then
  export PATH="$HOME/.cargo/bin:$PATH"
fi
command -v cargo >/dev/null 2>&1 || missing+=("cargo (https://rustup.rs)")
for t in cmake:cmake c++:g++ cc:gcc make:make pkg-config:pkg-config mcs:mono-mcs mono:mono-runtime \
         readelf:binutils nm:binutils objdump:binutils objcopy:binutils; do
  command -v "${t%%:*}" >/dev/null 2>&1 || missing+=("${t%%:*} (apt package ${t#*:})")
done
# GoogleTest: headers and a CMake package or library (Debian's libgtest-dev has both).
if ! { [ -f /usr/include/gtest/gtest.h ] || [ -f /usr/local/include/gtest/gtest.h ]; }; then
  missing+=("GoogleTest (apt package libgtest-dev)")
fi
# The aarch64 and wasm32 step (.ci/cross.sh, last): cross linker, qemu, Node, the Rust targets.
for t in aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu qemu-aarch64:qemu-user node:nodejs; do
  command -v "${t%%:*}" >/dev/null 2>&1 || missing+=("${t%%:*} (apt package ${t#*:})")
done
if command -v rustc >/dev/null 2>&1; then
  for t in aarch64-unknown-linux-gnu wasm32-wasip1; do
    [ -d "$(rustc --print sysroot)/lib/rustlib/$t/lib" ] ||
      missing+=("the Rust target $t (rustup target add $t)")
  done
fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo ".ci/test.sh: missing tools, nothing was run:" >&2
  printf '  - %s\n' "${missing[@]}" >&2
  echo "Install them with: bash .ci/run  (it apt-get installs the Debian packages, then runs this)," >&2
  echo "or: sudo apt-get install cmake g++ make pkg-config libgtest-dev mono-mcs mono-runtime binutils \\" >&2
  echo "      gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user nodejs" >&2
  echo "    rustup target add aarch64-unknown-linux-gnu wasm32-wasip1" >&2
  exit 1
fi

# Every cargo run below reuses what the one before compiled (docs/ci.md); two things keep it so:
# - ctest --build-and-test (the consumer tests) hands CC=<CMake's C compiler> to the builds it runs,
#   and the ufbx crate's build script (cc-rs) reruns when CC changes: with CC unset here, the FBX
#   importer and everything above it were compiled again twice. One value for every run instead.
# - A fresh checkout (CI) has nothing for incremental compilation to reuse; it only costs time.
if [ -z "${CC:-}" ] && command -v cc >/dev/null 2>&1; then export CC="$(command -v cc)"; fi
if [ -n "${CI:-}" ]; then export CARGO_INCREMENTAL=0; fi

STEP_PREFIX=.ci/test.sh
# shellcheck source=.ci/step.sh
source .ci/step.sh

# The order (docs/ci.md, "Order"): the run is CPU-bound on two cores, so what matters is that no
# core waits. cargo holds the lock of a target directory while it compiles, not while tests run,
# so the steps after the host build run side by side:
# - from the first second, beside the host build: the aarch64 tests (.ci/cross.sh aarch64: its
#   compile, then its tests under qemu, the longest chain of the run) in target directories of
#   their own, and the Python packages from PyPI (network, no Rust);
# - after the host build: `cargo test --workspace` (running the tests), the Python extension and
#   its tests, and, in the foreground, the CMake build, ctest and the sanitizer step; the wasm32
#   tests (.ci/cross.sh wasm32) beside them at the same priority (at `nice 10` they waited for
#   the others and then ran alone on one core, Node's one thread, at the end of the run);
# - last, the runtime-only tests, which write the runtime-only library over the full one.
# The background jobs' logs are printed when they are waited for; any failing fails this script.
mkdir -p target
a64_log=target/ci-aarch64.log
wasm_log=target/ci-wasm32.log
test_log=target/ci-cargo-test.log
python_log=target/ci-python.log
pyprep_log=target/ci-python-prepare.log
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
start_bg() { # start_bg PID_VAR LOG COMMAND...
  local var="$1" log="$2"
  shift 2
  "$@" >"$log" 2>&1 &
  printf -v "$var" '%s' "$!"
  pids+=("$!")
}
failed=()
# finish_bg NAME PID LOG: waits for a background job, prints its log, records a failure.
finish_bg() {
  local status=0
  wait "$2" || status=$?
  echo "----- $1 -----"
  cat "$3"
  if [ "$status" -ne 0 ]; then
    failed+=("$1 (exit $status)")
  fi
}

cross_start=$SECONDS
start_bg a64_pid "$a64_log" bash .ci/cross.sh aarch64
start_bg pyprep_pid "$pyprep_log" step "python packages" bash .ci/python.sh --prepare-only
step "cargo test --workspace --no-run" cargo test --workspace --no-run

start_bg wasm_pid "$wasm_log" bash .ci/cross.sh wasm32
start_bg test_pid "$test_log" step "cargo test --workspace" cargo test --workspace
finish_bg ".ci/python.sh --prepare-only (from the start)" "$pyprep_pid" "$pyprep_log"
python_start=$SECONDS
start_bg python_pid "$python_log" step "python" bash .ci/python.sh

# The CMake build links the library `cargo test` built (profile `test`, opt-level 2, same
# workspace feature resolution): cargo finds it up to date instead of compiling it a second time.
# The C/C++ tests at -O1 instead of Release's -O3: GoogleTest's test bodies are most of this
# build, and -O3 took about 40 % more CPU for them (docs/ci.md).
fg_status=0
{
  step "cmake configure" cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELEASE=-O1 -DNDEBUG" \
    -DANIMCOMP_CARGO_REUSE_WORKSPACE_TESTS=ON &&
    step "cmake build" cmake --build build -j2 &&
    step "ctest" ctest --test-dir build --output-on-failure &&
    # The second configuration: the C/C++ tests under AddressSanitizer + UBSan, and the bad-input
    # tests under valgrind memcheck, a C++ build of its own.
    step "sanitize" bash .ci/sanitize.sh
} || fg_status=$?
[ "$fg_status" -eq 0 ] || failed+=("cmake, ctest or sanitize (exit $fg_status)")

finish_bg "cargo test --workspace (beside the CMake steps)" "$test_pid" "$test_log"
finish_bg ".ci/python.sh (beside the CMake steps)" "$python_pid" "$python_log"
echo ".ci/test.sh: python: done $((SECONDS - python_start)) s after its start" >&2
if [ "${#failed[@]}" -gt 0 ]; then
  echo ".ci/test.sh: failed: ${failed[*]}" >&2
  exit 1
fi

# The runtime-only library (no compressor, what a game ships) builds and passes its own tests:
# golden blobs decode, mutated blobs are refused or sample finite. Last, because this build writes
# the runtime-only library over the full one in target/debug/deps/ (cargo names a cdylib and
# staticlib without a hash): run before the CMake builds and the Python tests (which load
# target/debug/deps/libanimcomp.so), it made them compile or load the wrong library.
# The root crate unoptimised here (its dependencies are the workspace build's): at opt-level 2 or 1
# its library and unit tests were 75 s of CPU, nearly all of it LLVM's passes over one codegen
# unit, for tests that ran in 2 s; unoptimised, 21 s to compile and 18 s to run (docs/ci.md).
step "cargo test runtime-only" cargo test -p animcomp --no-default-features \
  --config 'profile.test.package.animcomp.opt-level=0' || failed+=("cargo test runtime-only")

# The aarch64 and wasm32 tests (the determinism test's pinned hashes on each,
# docs/determinism.md).
finish_bg ".ci/cross.sh aarch64 (from the start)" "$a64_pid" "$a64_log"
finish_bg ".ci/cross.sh wasm32 (after the host build)" "$wasm_pid" "$wasm_log"
trap - EXIT
echo ".ci/test.sh: cross (aarch64, wasm32): done $((SECONDS - cross_start)) s after the start" >&2
if [ "${#failed[@]}" -gt 0 ]; then
  echo ".ci/test.sh: failed: ${failed[*]}" >&2
  exit 1
fi
echo ".ci/test.sh: every test passed in $((SECONDS / 60)) min $((SECONDS % 60)) s" >&2
