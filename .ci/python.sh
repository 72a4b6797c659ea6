#!/usr/bin/env bash
# The Python package's tests (issue 22): a virtualenv under target/pyenv with maturin, numpy,
# dask[distributed], fsspec and pytest from PyPI; builds the package from ./python with maturin
# and installs the wheel; runs pytest on python/tests (the cluster tests start Dask processes on
# 127.0.0.1 only). Called by .ci/test.sh after the cargo tests.
#
# The extension is built with the settings of cargo's `test` profile (ANIMCOMP_PY_PROFILE=test, the
# default), so that it reuses what `cargo test --workspace` compiled just before (.ci/test.sh):
# only pyo3, numpy and the extension crate itself are compiled here. ANIMCOMP_PY_PROFILE=release
# builds what `pip install ./python` builds (release, no debug info), any other value that cargo
# profile. docs/ci.md has the details.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-python3}"
VENV="${ANIMCOMP_PYENV:-$PWD/target/pyenv}"
PROFILE="${ANIMCOMP_PY_PROFILE:-test}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
VENV="$(cd "$VENV" && pwd)"
export PATH="$VENV/bin:$PATH"
# The packages from PyPI, once per virtualenv (a stamp file records what was installed).
# `.ci/python.sh --prepare-only` stops after them: .ci/test.sh runs that from its first second,
# beside the Rust build (it needs no Rust), and this script later, on the extension and the tests.
requirements=("maturin>=1.5,<2" numpy "dask[distributed]" fsspec pytest)
stamp="$VENV/.animcomp-ci-requirements"
if [ "$(cat "$stamp" 2>/dev/null)" != "${requirements[*]}" ]; then
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${requirements[@]}"
  echo "${requirements[*]}" >"$stamp"
fi
if [ "${1:-}" = --prepare-only ]; then
  exit 0
fi

if [ "$PROFILE" = test ]; then
  # Not `--profile test`: maturin runs `cargo rustc --profile <p>`, and cargo compiles a crate
  # under the test profile as a test harness (rustc --test), so the .so has no PyInit__native and
  # Python cannot import it. The `dev` profile with the test profile's settings (Cargo.toml,
  # [profile.test]) is the same profile to cargo: same units, same target/debug directory.
  # `workspace-units` gives the shared dependencies the features `cargo test --workspace`
  # resolved (python/Cargo.toml). Keep these lines equal to [profile.test] (the per-package
  # settings of the crates the extension uses).
  cargo_args=(--profile dev --features workspace-units
    --config 'profile.dev.opt-level=2'
    --config 'profile.dev.debug="line-tables-only"'
    --config 'profile.dev.lto="off"'
    --config 'profile.dev.package."*".debug=false'
    --config 'profile.dev.package.gltf.opt-level=0'
    --config 'profile.dev.package.gltf-json.opt-level=0'
    --config 'profile.dev.package.glam.opt-level=0'
    --config 'profile.dev.package.base64.opt-level=0'
    --config 'profile.dev.package.animcomp.codegen-units=1'
    --config 'profile.dev.package.animcomp-import.codegen-units=1'
    --config 'profile.dev.package.animcomp-import.opt-level=1'
    # Only the extension uses these, so their settings change no shared unit: the binding glue
    # (argument conversion, array views) does no work worth optimising in the tests.
    --config 'profile.dev.package.pyo3.opt-level=0'
    --config 'profile.dev.package.pyo3-ffi.opt-level=0'
    --config 'profile.dev.package.numpy.opt-level=0'
    --config 'profile.dev.package.ndarray.opt-level=1')
else
  cargo_args=(--profile "$PROFILE")
  # The root profile's debug = 1 only slows a release build of the wheel down.
  export CARGO_PROFILE_RELEASE_DEBUG="${CARGO_PROFILE_RELEASE_DEBUG:-0}"
fi
rm -rf target/pywheels
"$VENV/bin/maturin" build --quiet --manifest-path python/Cargo.toml "${cargo_args[@]}" \
  --interpreter "$VENV/bin/python" --out target/pywheels
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall \
  --no-deps target/pywheels/animcomp-*.whl

# The C library the bit-identity test loads with ctypes: cargo test built it
# (target/debug/deps/libanimcomp.so).
# pytest exits 5 when it collected no test: a failure here, not a pass.
status=0
"$VENV/bin/python" -m pytest -q python/tests "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo ".ci/python.sh: pytest collected no tests" >&2
  exit 1
fi
exit "$status"
