#!/usr/bin/env bash
# Builds the C library (libanimcomp.so) of a baseline commit side by side with the working tree,
# for the A/B runtime benchmark (benches/src/bin/ab_runtime.rs), and prints the .so path.
#
#   bash benches/ab/build_baseline.sh [COMMIT]     (default 612727e, the commit issue 10 compares against)
#
# The commit is checked out as a detached git worktree under target/ab-baseline-<commit> (target/ is
# ignored, nothing tracked changes) and built there with its own target dir. Idempotent: an existing
# worktree at the right commit is reused and cargo rebuilds nothing when it is up to date.
# Progress goes to stderr; the only line on stdout is the .so path.
set -euo pipefail

commit="${1:-612727e}"
repo="$(git -C "$(dirname "${BASH_SOURCE[0]}")" rev-parse --show-toplevel)"
full="$(git -C "$repo" rev-parse --verify "${commit}^{commit}")"
short="$(git -C "$repo" rev-parse --short=7 "$full")"
dir="$repo/target/ab-baseline-$short"

if [ -d "$dir" ] && [ "$(git -C "$dir" rev-parse HEAD 2>/dev/null)" = "$full" ]; then
    echo "build_baseline: reusing worktree $dir" >&2
else
    if [ -e "$dir" ]; then
        echo "build_baseline: $dir exists but is not a worktree of $short; remove it first" >&2
        exit 1
    fi
    mkdir -p "$repo/target"
    git -C "$repo" worktree prune
    git -C "$repo" worktree add --detach "$dir" "$full" >&2
fi

# Its own target dir (inside the baseline worktree), release profile, the library crate only.
(cd "$dir" && CARGO_TARGET_DIR="$dir/target" cargo build --release -p animcomp -j "${CARGO_BUILD_JOBS:-1}" >&2)

so="$dir/target/release/libanimcomp.so"
if [ ! -f "$so" ]; then
    echo "build_baseline: $so was not built" >&2
    exit 1
fi
echo "$so"
