"""The exception classes of animcomp. Every error the package raises is an :class:`Error`."""

from __future__ import annotations


class Error(Exception):
    """Base class of every animcomp error.

    ``status`` is the C ABI's status code (``ANIMCOMP_STATUS_*``; 0 for errors that have none,
    such as a file the importers cannot read), ``status_name`` its name.
    """

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = int(status)

    @property
    def status_name(self) -> str:
        """The name of :attr:`status` (e.g. ``"NonFiniteValue"``), ``"Ok"`` for 0."""
        from . import _native

        return _native.status_name(self.status)

    def __reduce__(self):  # keeps the status across pickling (Dask ships exceptions)
        return (type(self), (str(self), self.status))


class InputError(Error, ValueError):
    """An argument from Python is unusable: wrong dtype, shape, layout, NaN, unknown name."""


class ClipError(Error, ValueError):
    """The library rejected the clip (C statuses 6-17: no joints, NaN values, bad parents...)."""


class BlobError(Error, ValueError):
    """Not a valid animcomp blob (C statuses 18-22: magic, version, size, checksum, layout), or
    a tier blob of another clip or compression (28, TIER_MISMATCH)."""


class ArgumentError(Error, ValueError):
    """The library rejected an argument (C statuses 1-5 and 23-26)."""


class LoadError(Error):
    """A file could not be read or parsed by the importers."""


class InternalError(Error):
    """A bug in animcomp (C status 27: a panic was caught)."""


__all__ = [
    "Error",
    "InputError",
    "ClipError",
    "BlobError",
    "ArgumentError",
    "LoadError",
    "InternalError",
]

# Shown (and pickled) as animcomp.Error etc., where users import them from.
for _cls in (Error, InputError, ClipError, BlobError, ArgumentError, LoadError, InternalError):
    _cls.__module__ = "animcomp"
del _cls
