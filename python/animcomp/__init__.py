"""animcomp: skeletal animation compression, from Python.

Load a clip with :func:`load` (every format the ``animcomp-import`` crate reads) or build one
with :meth:`Clip.from_arrays`, compress it with :func:`compress` into a :class:`Blob`, sample
poses from the blob with :meth:`Blob.sample` / :meth:`Blob.sample_many`, and measure its error
with :func:`measure` (the library's metric). :mod:`animcomp.batch` compresses whole libraries
on Dask; :mod:`animcomp.cache` is the content-addressed blob cache it uses.

Every error is an :class:`Error` (subclasses carry the C ABI's status code).
"""

from . import _native
from ._core import (
    ADDITIVE_FORMATS,
    CODECS,
    LEVELS,
    Blob,
    Clip,
    Measurement,
    TierBudgetPlan,
    TierMeasurement,
    compress,
    compress_tiered,
    compress_tiered_budget,
    load,
    load_all,
    measure,
    measure_tiers,
    plan_tier_budget,
    tier_candidates,
)
from ._errors import (
    ArgumentError,
    BlobError,
    ClipError,
    Error,
    InputError,
    InternalError,
    LoadError,
)

from . import batch, cache  # noqa: E402  (need only the standard library until used)

#: The library's version (the Rust crate's).
__version__: str = _native.LIBRARY_VERSION
#: The blob format version this library writes and reads.
BLOB_FORMAT_VERSION: int = _native.BLOB_FORMAT_VERSION
#: The blob format version of every `vbr` blob with joints (the grouped layout).
BLOB_FORMAT_VERSION_GROUPED: int = _native.BLOB_FORMAT_VERSION_GROUPED


def is_supported(path) -> bool:
    """Whether :func:`load` reads this kind of file (by its extension)."""
    import os

    return bool(_native.is_supported(os.fspath(path)))


__all__ = [
    "ADDITIVE_FORMATS",
    "BLOB_FORMAT_VERSION",
    "BLOB_FORMAT_VERSION_GROUPED",
    "CODECS",
    "LEVELS",
    "ArgumentError",
    "Blob",
    "BlobError",
    "Clip",
    "ClipError",
    "Error",
    "InputError",
    "InternalError",
    "LoadError",
    "Measurement",
    "TierBudgetPlan",
    "TierMeasurement",
    "compress",
    "compress_tiered",
    "compress_tiered_budget",
    "is_supported",
    "load",
    "load_all",
    "measure",
    "measure_tiers",
    "plan_tier_budget",
    "tier_candidates",
]
