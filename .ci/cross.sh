#!/usr/bin/env bash
# The root crate on other CPUs (issue 45; docs/determinism.md, docs/ci.md), called by .ci/test.sh:
# - aarch64-unknown-linux-gnu: the root crate's tests, cross-compiled (aarch64-linux-gnu-gcc links)
#   and run under qemu-aarch64;
# - wasm32-wasip1: the runtime-only library's tests and the determinism test (which needs the
#   compressor), run under Node's WASI (.ci/wasi-run.mjs); the determinism test and the
#   runtime-only library built with `-C target-feature=+simd128` (the simd128 decoder).
# The determinism test (tests/determinism.rs) checks the same pinned hashes on each, so a pose or
# blob that differs on a CPU fails here. `.ci/run` installs the cross linker, qemu and the two
# Rust targets; a missing one fails this script in one line (nothing is skipped).
set -euo pipefail
cd "$(dirname "$0")/.."

A64=aarch64-unknown-linux-gnu
WASM=wasm32-wasip1

STEP_PREFIX=.ci/cross.sh
# shellcheck source=.ci/step.sh
source .ci/step.sh

sysroot="$(rustc --print sysroot)"
missing=()
for t in "$A64" "$WASM"; do
  [ -d "$sysroot/lib/rustlib/$t/lib" ] || missing+=("Rust target $t (rustup target add $t)")
done
command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 || missing+=("aarch64-linux-gnu-gcc (apt package gcc-aarch64-linux-gnu)")
command -v qemu-aarch64 >/dev/null 2>&1 || missing+=("qemu-aarch64 (apt package qemu-user)")
command -v node >/dev/null 2>&1 || missing+=("node (Node.js 20 or later, for WASI)")
if [ "${#missing[@]}" -gt 0 ]; then
  echo ".ci/cross.sh: cannot test other CPUs, missing: $(IFS=';'; echo "${missing[*]}")" >&2
  exit 1
fi

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
export CARGO_TARGET_WASM32_WASIP1_RUNNER="node --no-warnings $PWD/.ci/wasi-run.mjs"
# cc-rs (a dev-dependency's build) picks the cross C compiler for the target by itself; CC set
# for the host build (.ci/test.sh) must not be used for aarch64 objects.
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
# No debug info at all here: the test profile's line tables for the workspace's crates serve the
# sanitizer and valgrind reports of the host build (a panic's message names its file:line without
# them); in both parts they were compile and link time that nothing read (docs/ci.md).
export CARGO_PROFILE_TEST_DEBUG=false

# Under qemu, floating-point code runs 20-40 times slower than natively (qemu emulates it in
# software). Five tests are left out here: sweeps over forged, mutated and oversized inputs whose
# assertions are about refusals and bounds (integer validation, the same on every 64-bit CPU),
# together 80 % of the root crate's test time; x86-64 runs them (docs/ci.md).
a64_skip=(
  runtime::vbr::grouped::tests::forged_bodies_are_refused_or_decode_in_bounds
  robust_mutation::mutated_blobs_never_crash
  robust_mutation::every_header_bit_flip
  robust_inputs::very_long_clip
  linear_validation::vbr_bodies_validate_in_linear_work
)
skip_args=()
for t in "${a64_skip[@]}"; do skip_args+=(--skip "$t"); done

# Each part builds into target directories of its own, so that it can run beside the other part
# and beside the steps of .ci/test.sh that use target/ (cargo holds a lock on a whole target
# directory, host units included: a second cargo waits for the first). The price is the host
# units (build scripts, proc-macros) compiled once more in each directory.
#
# aarch64: target/cross-aarch64/. Under qemu the heaviest generated sweeps run fewer cases
# (ANIMCOMP_TEST_EMULATED=1, tests/support/emulated.rs); x86-64 runs them in full. Without the
# `header` feature (the default features but it): its build script runs cbindgen for the host,
# whose crates (cbindgen, two syns, serde, toml) were about 45 s of CPU here, and only
# `header_fresh` (the generated header against the committed one: text, the same on every CPU)
# needs it. The C99 header test reads the committed include/animcomp.h and runs here.
aarch64_part() {
  step "aarch64 cargo test (qemu)" env ANIMCOMP_TEST_EMULATED=1 \
    cargo test -p animcomp --no-default-features --features compress --target "$A64" \
    --target-dir target/cross-aarch64 --no-fail-fast \
    -- --exact "${skip_args[@]}"
}

# wasm32: target/wasm/, one directory for both builds: the `simd128` flags are given for the
# target only (CARGO_TARGET_WASM32_WASIP1_RUSTFLAGS), so the host units (build scripts,
# proc-macros) are compiled once, and cargo names the units built with other flags apart (the
# flags are part of a unit's hash), so neither build overwrites the other. The determinism test is
# built with the compressor and without the `header` feature: its build script regenerates
# include/animcomp.h with cbindgen, whose syn, serde and toml for the host took about 45 s of CPU,
# and no wasm32 test uses it. Every wasm32 unit at opt-level 1 (CARGO_PROFILE_TEST_OPT_LEVEL): the
# tests run in seconds under Node, the compile is what costs (docs/ci.md); the pinned hashes do not
# depend on it (Rust does not reassociate floating-point operations at any level). The two
# determinism builds compile the root crate unoptimised (`unopt`): the test runs in a second or
# two under Node either way, and the library with the compressor took 12 s of CPU more at
# opt-level 1 in each (the runtime-only tests stay at 1: unoptimised, the golden blobs' mutation
# sweep took 20 s under Node). Node runs a test binary on one thread.
wasm32_part() {
  export CARGO_PROFILE_TEST_OPT_LEVEL=1
  local unopt=(--config 'profile.test.package.animcomp.opt-level=0')
  step "wasm32 cargo test runtime-only (node WASI)" \
    cargo test -p animcomp --no-default-features --target "$WASM" --target-dir target/wasm \
    --no-fail-fast
  step "wasm32 cargo test determinism (node WASI)" \
    cargo test -p animcomp --no-default-features --features compress --target "$WASM" \
    --target-dir target/wasm --test determinism "${unopt[@]}"
  # The simd128 decoder against the pinned hashes (the grouped decoder's own tests need the
  # compressor, so this is where a simd128 pose that differs shows).
  step "wasm32 simd128 cargo test determinism (node WASI)" \
    env CARGO_TARGET_WASM32_WASIP1_RUSTFLAGS="-C target-feature=+simd128" \
    cargo test -p animcomp --no-default-features --features compress --target "$WASM" \
    --target-dir target/wasm --test determinism "${unopt[@]}"
  # The runtime-only library built with `simd128` (the configuration a game ships to the web):
  # after the step above, whose units it reuses (the test profile, the same flags: glam and
  # thiserror with `simd128`, the host units), so only the root crate is compiled. `cargo check`
  # would check every dependency again (its units are not the build's).
  step "wasm32 simd128 build runtime-only" \
    env CARGO_TARGET_WASM32_WASIP1_RUSTFLAGS="-C target-feature=+simd128" \
    cargo build --profile test -p animcomp --no-default-features --target "$WASM" \
    --target-dir target/wasm --lib "${unopt[@]}"
}

# `.ci/cross.sh aarch64` or `.ci/cross.sh wasm32` runs one part (.ci/test.sh starts both in the
# background once the host tests are compiled); without an argument both run side by side,
# the wasm32 part's output printed after the aarch64 part's. Either failing fails the script.
case "${1:-both}" in
  aarch64) aarch64_part ;;
  wasm32) wasm32_part ;;
  both)
    mkdir -p target
    wasm_log=target/ci-wasm32.log
    wasm32_part >"$wasm_log" 2>&1 &
    wasm_pid=$!
    trap 'kill "$wasm_pid" 2>/dev/null || true' EXIT
    a64_status=0
    aarch64_part || a64_status=$?
    wasm_status=0
    wait "$wasm_pid" || wasm_status=$?
    trap - EXIT
    echo "----- .ci/cross.sh wasm32 (ran beside the aarch64 part) -----"
    cat "$wasm_log"
    if [ "$a64_status" -ne 0 ] || [ "$wasm_status" -ne 0 ]; then
      echo ".ci/cross.sh: failed: aarch64 exit $a64_status, wasm32 exit $wasm_status" >&2
      exit 1
    fi
    ;;
  *)
    echo "usage: .ci/cross.sh [aarch64|wasm32]" >&2
    exit 2
    ;;
esac
