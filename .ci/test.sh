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

# The host tests compiled first (both cores), then the aarch64 and wasm32 tests (.ci/cross.sh)
# started in the background: they build into target directories of their own (no cargo lock
# shared with the steps below) and leave cores idle at times (qemu runs two tests at a time, Node
# one), as do the steps below (test runs, Python waiting on Dask, valgrind), so the two fill each
# other's gaps. Their logs are printed at the end; either failing fails this script.
step "cargo test --workspace --no-run" cargo test --workspace --no-run
mkdir -p target
a64_log=target/ci-aarch64.log
wasm_log=target/ci-wasm32.log
cross_start=$SECONDS
bash .ci/cross.sh aarch64 >"$a64_log" 2>&1 &
a64_pid=$!
bash .ci/cross.sh wasm32 >"$wasm_log" 2>&1 &
wasm_pid=$!
trap 'kill "$a64_pid" "$wasm_pid" 2>/dev/null || true' EXIT
step "cargo test --workspace" cargo test --workspace
# The CMake build links the library `cargo test` just built (profile `test`, opt-level 2, same
# workspace feature resolution): cargo finds it up to date instead of compiling it a second time.
# The C/C++ tests at -O1 instead of Release's -O3: GoogleTest's test bodies are most of this
# build, and -O3 took about 40 % more CPU for them (docs/ci.md).
step "cmake configure" cmake -S . -B build -DCMAKE_BUILD_TYPE=Release \
  "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELEASE=-O1 -DNDEBUG" \
  -DANIMCOMP_CARGO_REUSE_WORKSPACE_TESTS=ON
step "cmake build" cmake --build build -j2
step "ctest" ctest --test-dir build --output-on-failure

# Side by side, each with its own log (printed when both are done; either failing fails this):
# - the Python package (issue 22): virtualenv, extension built on what `cargo test` compiled, pytest
#   (which mostly waits on its Dask processes);
# - the second configuration: the C/C++ tests under AddressSanitizer + UBSan, and the bad-input
#   tests under valgrind memcheck (issue 5), a C++ build. Its cargo run waits for maturin's (one
#   cargo at a time per target directory) and then finds the test-profile library up to date.
python_log=target/ci-python.log
python_start=$SECONDS
bash .ci/python.sh >"$python_log" 2>&1 &
python_pid=$!
trap 'kill "$python_pid" "$a64_pid" "$wasm_pid" 2>/dev/null || true' EXIT
sanitize_status=0
step "sanitize" bash .ci/sanitize.sh || sanitize_status=$?
python_status=0
wait "$python_pid" || python_status=$?
trap 'kill "$a64_pid" "$wasm_pid" 2>/dev/null || true' EXIT
echo "----- .ci/python.sh (ran beside .ci/sanitize.sh) -----"
cat "$python_log"
echo ".ci/test.sh: python: done $((SECONDS - python_start)) s after its start" >&2
if [ "$python_status" -ne 0 ] || [ "$sanitize_status" -ne 0 ]; then
  echo ".ci/test.sh: failed: python.sh exit $python_status, sanitize.sh exit $sanitize_status" >&2
  exit 1
fi

# The runtime-only library (no compressor, what a game ships) builds and passes its own tests:
# golden blobs decode, mutated blobs are refused or sample finite. Last, because this build writes
# the runtime-only library over the full one in target/debug/deps/ (cargo names a cdylib and
# staticlib without a hash): run before the CMake builds above, it made them compile the full
# library and everything above it again.
step "cargo test runtime-only" cargo test -p animcomp --no-default-features

# The aarch64 and wasm32 tests, started after the host build (the determinism test's pinned
# hashes on each, docs/determinism.md).
a64_status=0
wait "$a64_pid" || a64_status=$?
echo "----- .ci/cross.sh aarch64 (started after the host build) -----"
cat "$a64_log"
wasm_status=0
wait "$wasm_pid" || wasm_status=$?
trap - EXIT
echo "----- .ci/cross.sh wasm32 (started after the host build) -----"
cat "$wasm_log"
echo ".ci/test.sh: cross (aarch64, wasm32): done $((SECONDS - cross_start)) s after their start" >&2
if [ "$a64_status" -ne 0 ] || [ "$wasm_status" -ne 0 ]; then
  echo ".ci/test.sh: failed: cross.sh aarch64 exit $a64_status, cross.sh wasm32 exit $wasm_status" >&2
  exit 1
fi
echo ".ci/test.sh: every test passed in $((SECONDS / 60)) min $((SECONDS % 60)) s" >&2
