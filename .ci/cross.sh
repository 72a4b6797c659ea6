#!/usr/bin/env bash
# The root crate on other CPUs (issue 45; docs/determinism.md, docs/ci.md), called by .ci/test.sh:
# - aarch64-unknown-linux-gnu: the root crate's tests, cross-compiled (aarch64-linux-gnu-gcc links)
#   and run under qemu-aarch64;
# - wasm32-wasip1: the runtime-only library's tests and the determinism test (which needs the
#   compressor), run under Node's WASI (.ci/wasi-run.mjs); the runtime-only library built again
#   with `-C target-feature=+simd128`, and the determinism test with it (the simd128 decoder).
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
step "aarch64 cargo test (qemu)" \
  cargo test -p animcomp --target "$A64" --no-fail-fast -- --exact "${skip_args[@]}"
step "wasm32 cargo test runtime-only (node WASI)" \
  cargo test -p animcomp --no-default-features --target "$WASM" --no-fail-fast
step "wasm32 cargo test determinism (node WASI)" \
  cargo test -p animcomp --target "$WASM" --test determinism
# Its own target directory: RUSTFLAGS would otherwise make cargo rebuild the units above.
step "wasm32 simd128 build runtime-only" env RUSTFLAGS="-C target-feature=+simd128" \
  cargo build -p animcomp --no-default-features --target "$WASM" --target-dir target/wasm-simd128
# The simd128 decoder against the pinned hashes (the grouped decoder's own tests need the
# compressor, so this is where a simd128 pose that differs shows).
step "wasm32 simd128 cargo test determinism (node WASI)" env RUSTFLAGS="-C target-feature=+simd128" \
  cargo test -p animcomp --target "$WASM" --target-dir target/wasm-simd128 --test determinism
