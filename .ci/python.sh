#!/usr/bin/env bash
# The Python package's tests (issue 22): a virtualenv under target/pyenv with maturin, numpy,
# dask[distributed], fsspec and pytest from PyPI; builds and installs ./python (release build,
# no debug info: the benchmark-grade library in about the time of a plain release build); runs
# pytest on python/tests. Called by .ci/test.sh after the cargo tests (which build
# target/debug/libanimcomp.so, the C library the bit-identity test loads with ctypes).
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-python3}"
VENV="${ANIMCOMP_PYENV:-target/pyenv}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
# maturin's build backend runs `maturin` from PATH.
export PATH="$PWD/$VENV/bin:$PATH"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade \
  "pip>=23" "maturin>=1.5,<2" numpy "dask[distributed]" fsspec pytest

# The extension module links no libpython (pyo3 abi3 + extension-module): one wheel for CPython
# 3.9 and later. Release profile without debug info (the root profile's debug = 1 only slows
# this build down).
CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-2}" \
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
  --no-build-isolation --force-reinstall --no-deps ./python

# pytest exits 5 when it collects no test: that is a failure of this script, not a pass.
status=0
"$VENV/bin/python" -m pytest -q python/tests "$@" || status=$?
if [ "$status" -eq 5 ]; then
  echo ".ci/python.sh: pytest collected no tests" >&2
  exit 1
fi
exit "$status"
