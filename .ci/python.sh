#!/usr/bin/env bash
# The Python package's tests (issue 22): a virtualenv under target/pyenv with maturin, numpy,
# dask[distributed], fsspec and pytest from PyPI; builds the package from ./python with maturin
# and installs the wheel; runs pytest on python/tests (the cluster tests start Dask processes on
# 127.0.0.1 only). Called by .ci/test.sh after the cargo tests.
#
# The wheel is built with the release profile without debug info (what `pip install ./python`
# builds; the root profile's debug = 1 only slows the build down). ANIMCOMP_PY_PROFILE picks
# another cargo profile.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-python3}"
VENV="${ANIMCOMP_PYENV:-$PWD/target/pyenv}"
PROFILE="${ANIMCOMP_PY_PROFILE:-release}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
VENV="$(cd "$VENV" && pwd)"
export PATH="$VENV/bin:$PATH"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
  "maturin>=1.5,<2" numpy "dask[distributed]" fsspec pytest

rm -rf target/pywheels
CARGO_PROFILE_RELEASE_DEBUG="${CARGO_PROFILE_RELEASE_DEBUG:-0}" "$VENV/bin/maturin" build --quiet --manifest-path python/Cargo.toml --profile "$PROFILE" \
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
