"""Clips, blobs, compression and error measurement: the compiled library seen from Python."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence, Union

import numpy as np

from . import _native
from ._errors import BlobError, InputError

PathLike = Union[str, "os.PathLike[str]"]

#: The codecs :func:`compress` accepts.
CODECS = ("auto", "fixed", "vbr", "keys")
#: The search levels (``None`` means ``"auto"``).
LEVELS = ("auto", "fast", "default", "best")
#: The additive formats (``None`` means a plain clip).
ADDITIVE_FORMATS = ("relative", "additive0", "additive1")


def _float_array(value: Any, name: str, ndim: int, last: Optional[int]) -> np.ndarray:
    """``value`` as a C-contiguous float32 array of ``ndim`` dimensions (last one ``last``).

    Floating dtypes are converted; other dtypes, a wrong shape, a non-contiguous array and
    non-finite values are refused with a message that names the array.
    """
    a = np.asarray(value)
    if a.dtype.kind != "f":
        raise InputError(f"{name}: dtype {a.dtype} is not a floating type (use float32)", 2)
    if a.ndim != ndim or (last is not None and a.shape[-1] != last):
        want = "(samples, joints, %d)" % last if ndim == 3 else "(samples, curves)"
        raise InputError(f"{name}: shape {a.shape}, expected {want}", 2)
    if not a.flags.c_contiguous:
        raise InputError(
            f"{name}: the array is not C-contiguous (pass numpy.ascontiguousarray({name}))", 2
        )
    a = a.astype(np.float32, copy=False)
    if a.size and not np.isfinite(a).all():
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
        raise InputError(f"{name}: non-finite value {a[bad]} at index {bad}", 2)
    return a


@dataclass(eq=False)
class Clip:
    """An animation clip: uniformly sampled local transforms of a skeleton, plus scalar curves.

    Arrays (numpy, C-contiguous):

    * ``rotations``: (samples, joints, 4) float32 quaternions, x y z w
    * ``translations``, ``scales``: (samples, joints, 3) float32
    * ``parents``: (joints,) int32, -1 for a root; parents come before their children
    * ``curves``: (samples, curves) float32 (blend-shape weights...), may have 0 columns

    and ``joint_names``, ``curve_names`` (lists of str), ``sample_rate`` (Hz), ``name``,
    ``units`` (what the importer guessed the length unit to be: "cm", "m", "unknown" or "").

    Make one with :func:`animcomp.load` or :meth:`Clip.from_arrays`.
    """

    name: str
    sample_rate: float
    rotations: np.ndarray
    translations: np.ndarray
    scales: np.ndarray
    parents: np.ndarray
    joint_names: List[str]
    curves: np.ndarray
    curve_names: List[str]
    units: str = ""
    source: Optional[str] = field(default=None, repr=False)
    take: int = 0

    @classmethod
    def from_arrays(
        cls,
        rotations: Any,
        translations: Any,
        parents: Sequence[int],
        *,
        sample_rate: float,
        scales: Any = None,
        joint_names: Optional[Sequence[str]] = None,
        curves: Any = None,
        curve_names: Optional[Sequence[str]] = None,
        name: str = "clip",
    ) -> "Clip":
        """A clip from in-memory arrays (e.g. from a DCC).

        ``rotations`` (S, J, 4) and ``translations`` (S, J, 3) are required; ``scales``
        defaults to ones, ``joint_names`` to ``joint0``..., ``curves`` to none. Floating dtypes
        are converted to float32; other dtypes, wrong shapes, non-contiguous arrays and NaN or
        infinite values raise :class:`animcomp.InputError` naming the array. Values (unit
        quaternions, parent order) are checked by the library when compressing.
        """
        rot = _float_array(rotations, "rotations", 3, 4)
        s, j = rot.shape[0], rot.shape[1]
        tra = _float_array(translations, "translations", 3, 3)
        if scales is None:
            sca = np.ones((s, j, 3), np.float32)
        else:
            sca = _float_array(scales, "scales", 3, 3)
        for nm, a in (("translations", tra), ("scales", sca)):
            if a.shape[:2] != (s, j):
                raise InputError(f"{nm}: shape {a.shape}, expected ({s}, {j}, 3)", 2)
        par = np.asarray(parents)
        if par.dtype.kind not in "iu" or par.shape != (j,):
            raise InputError(
                f"parents: dtype {par.dtype} shape {par.shape}, expected ({j},) integers", 2
            )
        par = np.ascontiguousarray(par, dtype=np.int32)
        names = [f"joint{i}" for i in range(j)] if joint_names is None else list(joint_names)
        if len(names) != j or not all(isinstance(n, str) for n in names):
            raise InputError(f"joint_names: expected {j} strings, got {len(names)}", 2)
        if curves is None:
            cur = np.zeros((s, 0), np.float32)
        else:
            cur = _float_array(curves, "curves", 2, None)
            if cur.shape[0] != s:
                raise InputError(f"curves: shape {cur.shape}, expected ({s}, curves)", 2)
        cn = [f"curve{i}" for i in range(cur.shape[1])] if curve_names is None else list(curve_names)
        if len(cn) != cur.shape[1]:
            raise InputError(f"curve_names: {len(cn)} names for {cur.shape[1]} curves", 2)
        rate = float(sample_rate)
        if not np.isfinite(rate) or rate <= 0:
            raise InputError(f"sample_rate must be finite and > 0, got {sample_rate}", 2)
        return cls(str(name), rate, rot, tra, sca, par, names, cur, cn)

    @property
    def num_samples(self) -> int:
        """Samples per track."""
        return int(self.rotations.shape[0])

    @property
    def num_joints(self) -> int:
        """Joints of the skeleton."""
        return int(self.rotations.shape[1])

    @property
    def duration(self) -> float:
        """Seconds from the first sample to the last."""
        return max(self.num_samples - 1, 0) / self.sample_rate

    @property
    def raw_bytes(self) -> int:
        """Uncompressed size: 10 floats per joint and sample, 1 per curve value."""
        return 4 * (self.num_samples * self.num_joints * 10 + self.curves.size)

    def _checked(self) -> "Clip":
        """This clip with its arrays checked (dtype, shape, layout, finite), as the compiled
        module expects them."""
        c = Clip.from_arrays(
            self.rotations,
            self.translations,
            self.parents,
            sample_rate=self.sample_rate,
            scales=self.scales,
            joint_names=self.joint_names,
            curves=self.curves,
            curve_names=self.curve_names,
            name=self.name,
        )
        c.units, c.source, c.take = self.units, self.source, self.take
        return c

    def __repr__(self) -> str:
        return (
            f"Clip({self.name!r}, {self.num_joints} joints, {self.num_samples} samples at "
            f"{self.sample_rate:g} Hz, {len(self.curve_names)} curves)"
        )


def _clip_from_dict(d: dict, source: str, take: int) -> Clip:
    return Clip(
        name=d["name"],
        sample_rate=d["sample_rate"],
        rotations=d["rotations"],
        translations=d["translations"],
        scales=d["scales"],
        parents=d["parents"],
        joint_names=list(d["joint_names"]),
        curves=d["curves"],
        curve_names=list(d["curve_names"]),
        units=d["units"],
        source=source,
        take=take,
    )


def load_all(path: PathLike, *, resample: Optional[float] = None) -> List[Clip]:
    """Every take of a file: one :class:`Clip` per animation / stack / take.

    Formats are those of the ``animcomp-import`` crate's dispatcher (BVH, glTF/GLB, ACL
    ``.acl.sjson``, and every format added to it later, e.g. FBX), plus curve files (Live Link
    Face ``.csv``, ``.npy`` frames x curves) which give clips of zero joints. ``resample`` (Hz)
    resamples every take (glTF is always resampled: to this rate, else 30 Hz).
    Raises :class:`animcomp.LoadError` when the file cannot be read.
    """
    p = os.fspath(path)
    return [_clip_from_dict(d, p, i) for i, d in enumerate(_native.load(p, resample))]


def load(
    path: PathLike, *, stack: Union[int, str, None] = None, resample: Optional[float] = None
) -> Clip:
    """One take of a file as a :class:`Clip` (see :func:`load_all` for the formats).

    ``stack`` chooses the take (animation, FBX stack) of a file with several: its index or its
    name (the clip name, e.g. ``"Fox:Run"`` for a glTF animation, or the part after the
    colon). ``None`` takes the first.
    """
    clips = load_all(path, resample=resample)
    if not clips:
        raise InputError(f"{os.fspath(path)}: the file holds no clip", 2)
    if stack is None:
        return clips[0]
    if isinstance(stack, int):
        if not -len(clips) <= stack < len(clips):
            raise InputError(
                f"{os.fspath(path)}: stack {stack} out of range ({len(clips)} takes)", 2
            )
        return clips[stack]
    for c in clips:
        if c.name == stack or c.name.split(":", 1)[-1] == stack:
            return c
    names = ", ".join(c.name for c in clips)
    raise InputError(f"{os.fspath(path)}: no take named {stack!r} (takes: {names})", 2)


class Blob(bytes):
    """A compressed clip: the blob's bytes (a ``bytes`` subclass, so bytes-like everywhere:
    buffer protocol, hashing, ``open(...).write(blob)``), validated on creation.

    A validated copy in 16-byte aligned memory (:attr:`aligned_address`) is kept for sampling
    (:meth:`sample`, :meth:`sample_many`, :meth:`sample_curves`), so sampling never validates
    again and never depends on where Python put the bytes. Pickles as its bytes (validated again
    when unpickled).
    """

    def __new__(cls, data: Any) -> "Blob":
        b = super().__new__(cls, data)
        b._h = _native.Handle(bytes(b))
        return b

    @classmethod
    def from_bytes(cls, data: Any) -> "Blob":
        """A blob from bytes-like ``data``; raises :class:`animcomp.BlobError` (with the C
        status) when it is not a valid blob (magic, version, size, checksum, layout)."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise InputError(f"Blob.from_bytes expects bytes-like data, got {type(data).__name__}", 2)
        return cls(bytes(data))

    def __reduce__(self):
        return (Blob.from_bytes, (bytes(self),))

    @property
    def info(self) -> dict:
        """The header: codec, size, joints, samples, rate, duration, curves, flags, version."""
        return self._h.info()

    def regrouped(self) -> "Blob":
        """This ``vbr`` blob in the grouped layout (format version 5), without recompressing:
        the bytes ``compress`` writes. A blob already grouped comes back unchanged; a blob of
        another codec raises :class:`animcomp.ArgumentError`.

        A ``vbr`` blob of format version 2 (the segments layout) does not load: this library
        no longer samples it (:class:`animcomp.BlobError`, status ``UNSUPPORTED_VERSION``).
        Convert its bytes by calling the method on the class: ``Blob.regrouped(data)``."""
        return Blob(_native.regroup(bytes(self)))

    @property
    def num_joints(self) -> int:
        """Joints."""
        return int(self._h.info()["num_joints"])

    def sample(self, t: float, *, looping: str = "clamp", dtype: Any = np.float32) -> np.ndarray:
        """The local pose at time ``t`` (seconds): (joints, 10) float32, per joint rotation
        x y z w, translation x y z, scale x y z: exactly what the C ABI's
        ``animcomp_seek`` + ``animcomp_sample_pose`` write. ``looping``: "clamp" or "wrap".
        ``dtype=np.float64`` gives the exact widening of those floats, decoded by the library
        straight into the float64 array (``animcomp_sample_pose_layout``)."""
        if _wide(dtype):
            return self._h.sample64(float(t), looping)
        return self._h.sample(float(t), looping)

    def sample_many(
        self, times: Any, *, looping: str = "clamp", dtype: Any = np.float32
    ) -> np.ndarray:
        """Poses at each time of the 1-D ``times``: (N, joints, 10), in one call with the GIL
        released; ``dtype`` as for :meth:`sample`."""
        wide = _wide(dtype)
        ts = np.asarray(times)
        if ts.dtype.kind not in "fiu" or ts.ndim != 1:
            raise InputError(f"times: expected a 1-D array of numbers, got {ts.dtype} {ts.shape}", 2)
        ts = np.ascontiguousarray(ts, dtype=np.float64)
        if not np.isfinite(ts).all():
            raise InputError("times: NaN or infinite time", 24)
        if wide:
            return self._h.sample_many64(ts, looping)
        return self._h.sample_many(ts, looping)

    def sample_curves(self, t: float, *, looping: str = "clamp") -> np.ndarray:
        """Every curve's value at time ``t``: (curves,) float32."""
        return self._h.sample_curves(float(t), looping)

    # Quality tiers (a resident blob from :func:`compress_tiered`). The tiers attached belong to
    # this object, not to its bytes: they are not pickled, and a copy made from the bytes has
    # none.

    def attach(self, tier: Any) -> int:
        """Validates the tier blob ``tier`` (bytes from :func:`compress_tiered`) against this
        resident blob and attaches it: sampling then reads its samples. Returns its level.

        Raises :class:`animcomp.BlobError` for a corrupt tier or one of another clip or
        compression (status ``TIER_MISMATCH``), :class:`animcomp.ArgumentError` for a blob
        without tiers or a level already attached. Each sampling call binds the tiers attached
        when it starts (validating them again, in time linear in their bytes: sample many poses
        with :meth:`sample_many`); attaching or detaching while another thread samples is safe."""
        if not isinstance(tier, (bytes, bytearray, memoryview)):
            raise InputError(f"attach expects bytes-like data, got {type(tier).__name__}", 2)
        return int(self._h.attach(bytes(tier)))

    def detach(self, level: int) -> Optional[bytes]:
        """Detaches the tier of ``level`` and returns its bytes (``None`` when none was
        attached). Sampling calls already running finish with it."""
        return self._h.detach(int(level))

    @property
    def attached_levels(self) -> List[int]:
        """The tier levels attached, in order (``[]`` for a blob without tiers)."""
        return list(self._h.attached())

    @property
    def tier_levels(self) -> int:
        """The resident blob's count of tier levels (0: a blob compressed without tiers)."""
        return int(self._h.info()["tier_levels"])

    @property
    def aligned_address(self) -> int:
        """Address of the aligned copy the sampling functions read (a multiple of 16)."""
        return self._h.address()

    def __repr__(self) -> str:
        i = self.info
        return (
            f"Blob({i['size']} bytes, codec {i['codec']}, {i['num_joints']} joints, "
            f"{i['num_samples']} samples at {i['sample_rate']:g} Hz, {i['num_curves']} curves)"
        )

    __str__ = __repr__


def compress(
    clip: Clip,
    *,
    codec: str = "auto",
    precision: float = 0.01,
    shell: float = 3.0,
    level: Optional[str] = None,
    curve_precision: float = 0.001,
    additive: Optional[str] = None,
    base: Union[Clip, np.ndarray, None] = None,
    layout: str = "segments",
) -> Blob:
    """Compresses ``clip`` into a :class:`Blob` (the GIL is released while it runs).

    * ``codec``: "auto" (the smaller of vbr and keys), "fixed", "vbr" or "keys"
    * ``precision``: largest virtual-vertex error of every joint, in clip units
    * ``shell``: distance of the virtual vertices from every joint, in clip units
    * ``level``: search effort, "auto" (``None``), "fast", "default" or "best"
    * ``curve_precision``: largest absolute error of every curve value
    * ``additive``: "relative", "additive0" or "additive1" for an additive clip, applied to
      ``base`` (a :class:`Clip` of the same skeleton, or one (joints, 10) float32 pose)
    * ``layout``: reserved; every vbr blob is written in the grouped layout (format version
      4). "segments", "grouped" and "auto" are accepted for compatibility and write the same
      blob; another name raises :class:`animcomp.InputError`

    Raises :class:`animcomp.ClipError` when the library rejects the clip (the message and
    ``status`` say why), :class:`animcomp.InputError` for unusable arguments.
    """
    if not isinstance(clip, Clip):
        raise InputError(f"compress expects a Clip, got {type(clip).__name__}", 2)
    if codec not in CODECS:
        raise InputError(f"unknown codec {codec!r} (expected one of {', '.join(CODECS)})", 2)
    clip = clip._checked()
    base = _checked_base(base)
    data = _native.compress(
        clip,
        codec,
        float(precision),
        float(shell),
        level,
        float(curve_precision),
        additive,
        base,
        layout,
    )
    return Blob(data)


def _checked_base(base: Union[Clip, np.ndarray, None]) -> Union[Clip, np.ndarray, None]:
    if base is None:
        return None
    if isinstance(base, Clip):
        return base._checked()
    return _float_array(np.asarray(base)[None], "base", 3, 10)[0]


@dataclass(frozen=True)
class Measurement:
    """The error of a blob against its clip, by the library's metric (virtual vertices at the
    shell distance, in object space, at every sample, through the runtime decompressor)."""

    max_error: float
    p99_error: float
    per_joint: np.ndarray
    worst_joint: int
    worst_sample: int

    @property
    def max(self) -> float:
        """Same as :attr:`max_error`."""
        return self.max_error

    @property
    def p99(self) -> float:
        """Same as :attr:`p99_error`."""
        return self.p99_error


def measure(
    clip: Clip,
    blob: Blob,
    *,
    precision: float = 0.01,
    shell: float = 3.0,
    base: Union[Clip, np.ndarray, None] = None,
) -> Measurement:
    """The error of ``blob`` against ``clip``: max, 99th percentile and per-joint max.

    ``shell`` must be the one the blob was compressed with (it defines the metric; ``precision``
    is recorded in the clip's joints but does not change the measurement). An additive blob
    needs the ``base`` it was compressed with.
    """
    if not isinstance(blob, Blob):
        raise InputError(f"measure expects a Blob, got {type(blob).__name__}", 2)
    if not isinstance(clip, Clip):
        raise InputError(f"measure expects a Clip, got {type(clip).__name__}", 2)
    clip = clip._checked()
    base = _checked_base(base)
    mx, p99, per_joint, wj, ws = _native.measure(clip, blob._h, float(precision), float(shell), base)
    return Measurement(float(mx), float(p99), per_joint, int(wj), int(ws))


def compress_tiered(
    clip: Clip,
    *,
    precision: float = 0.01,
    shell: float = 3.0,
    level: Optional[str] = None,
    levels: int = 2,
    resident_factor: float = 10.0,
    medium_factor: float = 3.0,
) -> "tuple[Blob, List[bytes]]":
    """Compresses ``clip`` with quality tiers (the ``vbr`` codec): returns the resident
    :class:`Blob`, which samples on its own at the lowest fidelity, and the tier blobs as
    ``bytes``, level 1 first (``levels`` of them: 1 or 2).

    * ``resident_factor``: the resident blob's error bound, a multiple of ``precision``
      (default 10: within 0.1 at the default precision)
    * ``medium_factor``: with two levels, the bound with level 1 attached (at most
      ``resident_factor``)

    With every tier attached (:meth:`Blob.attach`) poses decode bit for bit like
    ``compress(clip, codec="vbr", ...)``. The clip must not carry curves. The GIL is released
    while it runs.
    """
    if not isinstance(clip, Clip):
        raise InputError(f"compress_tiered expects a Clip, got {type(clip).__name__}", 2)
    if levels not in (1, 2):
        raise InputError(f"levels: {levels!r}, expected 1 or 2", 2)
    clip = clip._checked()
    resident, tiers = _native.compress_tiered(
        clip,
        float(precision),
        float(shell),
        level,
        int(levels),
        float(resident_factor),
        float(medium_factor),
    )
    return Blob(resident), [bytes(t) for t in tiers]


def tier_candidates(
    clip: Clip,
    *,
    precision: float = 0.01,
    shell: float = 3.0,
    level: Optional[str] = None,
    levels: int = 2,
    resident_factor: float = 10.0,
    medium_factor: float = 3.0,
) -> bytes:
    """A shared budget's first step, per clip: every removable sample of ``clip`` compressed
    with these settings (those of :func:`compress_tiered`), ranked by the error its removal
    adds, with the bytes it saves, as ``bytes`` for :func:`plan_tier_budget`. The GIL is
    released while it runs."""
    if not isinstance(clip, Clip):
        raise InputError(f"tier_candidates expects a Clip, got {type(clip).__name__}", 2)
    if levels not in (1, 2):
        raise InputError(f"levels: {levels!r}, expected 1 or 2", 2)
    clip = clip._checked()
    return bytes(
        _native.tier_candidates(
            clip,
            float(precision),
            float(shell),
            level,
            int(levels),
            float(resident_factor),
            float(medium_factor),
        )
    )


@dataclass(frozen=True)
class TierBudgetPlan:
    """The thresholds a shared budget gives a set of clips (:func:`plan_tier_budget`).

    ``resident_factor`` and ``medium_factor`` are what :func:`compress_tiered` takes for every
    clip of the set (3.4e38: every removable sample leaves); ``resident_reached`` /
    ``medium_reached`` whether the budgets are met (if not, every removable sample left and the
    set is still above); bytes of the whole set: ``full_bytes`` without tiers, ``resident_bytes``
    and ``medium_bytes`` (resident + level 1, as blobs storing those samples) as counted, upper
    bounds of what is written; ``bounds``: per clip, each fidelity's largest error (resident,
    + level 1, all) by the compressor's metric, as a multiple of the precision."""

    levels: int
    resident_factor: float
    medium_factor: float
    resident_reached: bool
    medium_reached: bool
    full_bytes: int
    resident_bytes: int
    medium_bytes: int
    bounds: List[List[float]]

    def tiered_kwargs(self) -> dict:
        """The tier keyword arguments of :func:`compress_tiered` for every clip of the set."""
        return dict(
            levels=self.levels,
            resident_factor=self.resident_factor,
            medium_factor=self.medium_factor,
        )


def plan_tier_budget(
    candidates: Sequence[bytes],
    *,
    resident_budget: float,
    medium_budget: Optional[float] = None,
    levels: int = 2,
    resident_factor: float = 10.0,
    medium_factor: float = 3.0,
) -> TierBudgetPlan:
    """A shared budget's second step, over the :func:`tier_candidates` of every clip of a set
    (computed with the same ``levels`` and factors): the resident blobs together at most
    ``resident_budget`` of the bytes without tiers (and, with two levels and
    ``medium_budget``, resident + level 1 at most that), samples leaving cheapest first across
    the set. The factors are the least thresholds: a budget they already meet changes
    nothing."""
    d = _native.plan_tier_budget(
        [bytes(c) for c in candidates],
        int(levels),
        float(resident_factor),
        float(medium_factor),
        float(resident_budget),
        None if medium_budget is None else float(medium_budget),
    )
    return TierBudgetPlan(**d)


def compress_tiered_budget(
    clips: Sequence[Clip],
    *,
    resident_budget: float,
    medium_budget: Optional[float] = None,
    precision: float = 0.01,
    shell: float = 3.0,
    level: Optional[str] = None,
    levels: int = 2,
    resident_factor: float = 10.0,
    medium_factor: float = 3.0,
) -> "tuple[List[tuple[Blob, List[bytes]]], TierBudgetPlan]":
    """Compresses a set of clips with quality tiers sharing one byte budget per tier: the
    resident blobs together at most ``resident_budget`` of the bytes of the blobs without tiers
    (and, with ``medium_budget``, resident + level 1 at most that). Returns each clip's
    ``(resident Blob, [tier bytes])`` as :func:`compress_tiered` does, and the plan (its
    ``bounds``: each clip's bounds, which now depend on the set). The three steps
    (:func:`tier_candidates`, :func:`plan_tier_budget`, :func:`compress_tiered`) on this
    process; :func:`animcomp.batch.compress_library_tiered` runs them on Dask."""
    kw = dict(precision=precision, shell=shell, level=level)
    tiers = dict(levels=levels, resident_factor=resident_factor, medium_factor=medium_factor)
    cands = [tier_candidates(c, **kw, **tiers) for c in clips]
    plan = plan_tier_budget(
        cands, resident_budget=resident_budget, medium_budget=medium_budget, **tiers
    )
    out = [compress_tiered(c, **kw, **plan.tiered_kwargs()) for c in clips]
    return out, plan


@dataclass(frozen=True)
class TierMeasurement:
    """One fidelity of a resident blob: ``levels`` tier levels attached (0: the resident blob
    alone), the bytes it needs (resident + those tiers) and its error against the clip in
    float64 (every joint at every sample, through the runtime decompressor)."""

    levels: int
    bytes: int
    max_error: float
    p99_error: float


def measure_tiers(
    clip: Clip,
    resident: Blob,
    tiers: Sequence[Any],
    *,
    precision: float = 0.01,
    shell: float = 3.0,
) -> List[TierMeasurement]:
    """Each fidelity of ``resident`` against ``clip``: alone, with level 1, ..., with every tier
    of ``tiers`` (level order, level 1 first, as :func:`compress_tiered` returns them)
    attached. Errors are judged in float64 (the reference the library's error-bound tests use,
    not the float32 metric of :func:`measure`). The tiers attached to ``resident`` itself are
    not used. ``shell`` must be the one the blob was compressed with."""
    if not isinstance(resident, Blob):
        raise InputError(f"measure_tiers expects a Blob, got {type(resident).__name__}", 2)
    if not isinstance(clip, Clip):
        raise InputError(f"measure_tiers expects a Clip, got {type(clip).__name__}", 2)
    clip = clip._checked()
    rows = _native.measure_tiers(
        clip, resident._h, [bytes(t) for t in tiers], float(precision), float(shell)
    )
    return [TierMeasurement(k, int(b), float(mx), float(p)) for k, (b, mx, p) in enumerate(rows)]


def _blob_from_file(path: PathLike) -> Blob:
    with open(path, "rb") as f:
        data = f.read()
    try:
        return Blob(data)
    except BlobError as e:
        raise BlobError(f"{os.fspath(path)}: {e}", e.status) from None


def _wide(dtype: Any) -> bool:
    """Whether a pose dtype asks for float64 (float32 is the default; others are refused)."""
    d = np.dtype(dtype)
    if d == np.float64:
        return True
    if d == np.float32:
        return False
    raise InputError(f"dtype: expected float32 or float64, got {d}", 2)
