"""A content-addressed blob cache, stored through fsspec (a local folder, a shared drive, an
object store), in the spirit of Unreal's derived-data cache.

Key: SHA-256 over the clip's canonical content as the compressor sees it (sample rate, sample
and joint counts, parents, rotations, translations, scales and curves as little-endian float32;
not the file's bytes, not names, which a blob does not store), the compression settings
(canonical JSON), the library version and the blob format version. See :func:`cache_key`.

Layout under the cache root (``ANIMCOMP_CACHE``, else the platform's cache folder, e.g.
``~/.cache/animcomp``)::

    v1/<key[:2]>/<key>.acmp-entry

An entry is ``ENTRY_MAGIC``, the key (64 hex digits), a newline, one line of JSON metadata
(codec chosen, error measured, compression seconds), a newline, then the blob. A read checks
the magic, the key and the blob (checksum, layout); an entry that fails is reported (a warning
and :attr:`BlobCache.corrupt`), deleted and treated as a miss, never returned.

Writes are atomic: on a local file system the entry is written under a unique temporary name in
its folder, then renamed over the final name (``os.replace`` semantics: readers see the old
entry or the new one, never a part); on object stores a single PUT is already atomic. Many
writers may store the same key at once: they write the same content.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import uuid
import warnings
from typing import Any, Dict, Optional, Tuple

import numpy as np

from . import _native
from ._core import Blob, Clip
from ._errors import BlobError

#: Every entry starts with this.
ENTRY_MAGIC = b"ANIMCOMP-CACHE-ENTRY-1\n"
#: Version of the key derivation and layout (part of every path).
LAYOUT = "v1"


def default_cache_url() -> str:
    """``ANIMCOMP_CACHE`` when set, else the platform's per-user cache folder + ``animcomp``."""
    env = os.environ.get("ANIMCOMP_CACHE")
    if env:
        return env
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or os.path.expanduser("~\\AppData\\Local")
    elif sys.platform == "darwin":
        base = os.path.expanduser("~/Library/Caches")
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(base, "animcomp")


def canonical_settings(settings: Dict[str, Any]) -> str:
    """The settings as canonical JSON (sorted keys, no spaces, floats as Python prints them)."""
    return json.dumps(settings, sort_keys=True, separators=(",", ":"))


def cache_key(clip: Clip, settings: Dict[str, Any]) -> str:
    """The SHA-256 (hex) of a clip's canonical content, the settings, the library version and
    the blob format versions (a `vbr` blob's and the others')."""
    c = clip._checked()
    h = hashlib.sha256()
    h.update(b"animcomp-cache-key-1\0")
    h.update(f"library={_native.LIBRARY_VERSION}\0".encode())
    h.update(f"format={_native.BLOB_FORMAT_VERSION},{_native.BLOB_FORMAT_VERSION_GROUPED}\0".encode())
    h.update(f"settings={canonical_settings(settings)}\0".encode())
    h.update(np.array([c.sample_rate], "<f4").tobytes())
    h.update(np.array([c.num_samples, c.num_joints, c.curves.shape[1]], "<u8").tobytes())
    h.update(np.ascontiguousarray(c.parents, "<i4").tobytes())
    for a in (c.rotations, c.translations, c.scales, c.curves):
        h.update(np.ascontiguousarray(a, "<f4").tobytes())
    return h.hexdigest()


def _is_local(fs) -> bool:
    protocol = fs.protocol if isinstance(fs.protocol, str) else fs.protocol[0]
    return protocol in ("file", "local")


def atomic_write(fs, path: str, data: bytes) -> None:
    """Writes ``data`` to ``path`` on ``fs`` so that no reader ever sees a part of it: on a
    local file system under a unique temporary name in the same folder, then renamed; elsewhere
    (object stores) with one PUT, atomic there."""
    parent = path.rsplit("/", 1)[0]
    if _is_local(fs):
        fs.makedirs(parent, exist_ok=True)
        tmp = f"{parent}/.{path.rsplit('/', 1)[1]}.tmp-{uuid.uuid4().hex}"
        try:
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
    else:
        fs.pipe_file(path, data)


class BlobCache:
    """The cache at ``url`` (any fsspec URL or a local path; ``None``: :func:`default_cache_url`).

    Counts :attr:`hits`, :attr:`misses`, :attr:`corrupt` entries found and :attr:`writes` in
    this process.
    """

    def __init__(self, url: Optional[str] = None) -> None:
        import fsspec

        self.url = url or default_cache_url()
        self.fs, root = fsspec.core.url_to_fs(self.url)
        self.root = root.rstrip("/")
        if _is_local(self.fs):
            self.root = os.path.abspath(self.root)
        self.hits = self.misses = self.corrupt = self.writes = 0

    def __reduce__(self):
        return (BlobCache, (self.url,))

    def path(self, key: str) -> str:
        """Where the entry of ``key`` lives."""
        return f"{self.root}/{LAYOUT}/{key[:2]}/{key}.acmp-entry"

    def get(self, key: str) -> Optional[Tuple[Blob, Dict[str, Any]]]:
        """The blob and metadata stored under ``key``, or ``None`` (a miss, or a corrupt entry,
        which is reported, counted and deleted)."""
        p = self.path(key)
        try:
            data = self.fs.cat_file(p)
        except FileNotFoundError:
            self.misses += 1
            return None
        try:
            blob, meta = self._parse(key, data)
        except ValueError as e:
            self.corrupt += 1
            self.misses += 1
            warnings.warn(f"animcomp cache: corrupt entry {p} ({e}); it is replaced", stacklevel=2)
            try:
                self.fs.rm_file(p)
            except (FileNotFoundError, OSError):
                pass
            return None
        self.hits += 1
        return blob, meta

    @staticmethod
    def _parse(key: str, data: bytes) -> Tuple[Blob, Dict[str, Any]]:
        if not data.startswith(ENTRY_MAGIC):
            raise ValueError("bad magic")
        rest = data[len(ENTRY_MAGIC) :]
        stored, sep, rest = rest.partition(b"\n")
        if not sep or stored.decode("ascii", "replace") != key:
            raise ValueError("the entry's key is not the key asked for")
        line, sep, body = rest.partition(b"\n")
        if not sep:
            raise ValueError("truncated entry")
        try:
            meta = json.loads(line)
        except json.JSONDecodeError as e:
            raise ValueError(f"bad metadata: {e}") from None
        try:
            blob = Blob.from_bytes(body)
        except BlobError as e:
            raise ValueError(f"invalid blob: {e}") from None
        return blob, meta

    def put(self, key: str, blob: Blob, meta: Optional[Dict[str, Any]] = None) -> None:
        """Stores ``blob`` (and small JSON ``meta``) under ``key``, atomically."""
        line = json.dumps(meta or {}, sort_keys=True, separators=(",", ":")).encode()
        data = ENTRY_MAGIC + key.encode("ascii") + b"\n" + line + b"\n" + bytes(blob)
        atomic_write(self.fs, self.path(key), data)
        self.writes += 1

    def __repr__(self) -> str:
        return f"BlobCache({self.url!r})"


__all__ = ["BlobCache", "cache_key", "canonical_settings", "default_cache_url", "atomic_write"]
