"""Compressing a whole clip library on Dask.

:func:`compress_library` runs one Dask task per clip (take) of the input files, on the cluster
of a given ``client``, of a ``scheduler`` address (``dask scheduler`` + ``dask worker`` on any
machines, Kubernetes, SLURM via dask-jobqueue...) or, by default, of a local
``dask.distributed.LocalCluster`` with one single-threaded worker process per core. Each task
loads its file, compresses its take (or takes it from the :mod:`animcomp.cache`), measures the
error with the library's metric and writes the blob atomically; the driver writes one line per
take to ``manifest.jsonl`` as results arrive.

Output names (stable, collision-free): ``<stem>.<take>.<h>.acmp`` where ``<stem>`` is the file
name without its extension (characters other than letters, digits, ``._-`` become ``_``),
``<take>`` the take's index in its file and ``<h>`` the first 16 hex digits of the SHA-256 of
the input's absolute path, a NUL and the take index. The same input path always gives the same
name; two inputs never share one (short of a 64-bit hash collision).

Failures: a file that cannot be read, or a take the library rejects, gives a manifest line with
``"status": "error"`` and its message; the others go on. A worker that dies mid-task has its
tasks rerun by Dask elsewhere; blobs are written under a temporary name and renamed, so no
partial blob ever carries a final name. Rerunning over the same ``out_dir`` reuses every take
whose blob is there, valid, and was made from the same input content with the same settings
(``"reused": true``); only the rest is compressed.

Workers must be able to import ``animcomp`` and read the input paths (a shared file system);
``out_dir`` and the cache may be any fsspec URL reachable from every worker.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

from ._core import (
    Blob,
    compress,
    compress_tiered,
    load_all,
    measure,
    measure_tiers,
    plan_tier_budget,
    tier_candidates,
)
from ._errors import Error
from .cache import BlobCache, _is_local, atomic_write, cache_key

#: The manifest's file name in ``out_dir``.
MANIFEST = "manifest.jsonl"
#: With a shared tier budget: the plan's file name in ``out_dir``.
BUDGET = "budget.json"


@dataclass
class Settings:
    """Compression settings of a batch (the keyword arguments of :func:`animcomp.compress`,
    plus ``resample``, a rate in Hz every take is resampled to before compressing)."""

    codec: str = "auto"
    precision: float = 0.01
    shell: float = 3.0
    level: Optional[str] = None
    curve_precision: float = 0.001
    resample: Optional[float] = None
    layout: str = "segments"
    #: Quality tiers: ``None`` (plain blobs), else the count of tier levels (1 or 2); each take
    #: is then compressed by :func:`animcomp.compress_tiered` (the ``vbr`` codec, whatever
    #: ``codec`` says) with these factors.
    tiers: Optional[int] = None
    resident_factor: float = 10.0
    medium_factor: float = 3.0

    def record(self) -> Dict[str, Any]:
        """The fields as the manifest records them. The default layout and, without tiers,
        the tier fields are left out, so manifests and cache keys written before those settings
        existed still match."""
        d = asdict(self)
        if d["layout"] == "segments":
            d.pop("layout")
        if d["tiers"] is None:
            for k in ("tiers", "resident_factor", "medium_factor"):
                d.pop(k)
        else:
            d["codec"] = "vbr"
        return d

    def compress_kwargs(self) -> Dict[str, Any]:
        """What :func:`animcomp.compress` takes (and what the cache key covers)."""
        d = self.record()
        d.pop("resample")
        return d

    def tiered_kwargs(self) -> Dict[str, Any]:
        """What :func:`animcomp.compress_tiered` takes."""
        return dict(
            precision=self.precision,
            shell=self.shell,
            level=self.level,
            levels=self.tiers,
            resident_factor=self.resident_factor,
            medium_factor=self.medium_factor,
        )


def _file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


_EXTENSIONS = (".acl.sjson", ".sjson", ".bvh", ".gltf", ".glb", ".fbx", ".csv", ".npy")


def output_name(path: str, take: int) -> str:
    """The blob's file name for take ``take`` of input ``path`` (see the module's doc)."""
    ap = os.path.abspath(path)
    base = os.path.basename(ap)
    lower = base.lower()
    for ext in _EXTENSIONS:
        if lower.endswith(ext):
            base = base[: -len(ext)]
            break
    else:
        base = os.path.splitext(base)[0]
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", base)[:80] or "clip"
    h = hashlib.sha256(f"{ap}\0{take}".encode()).hexdigest()[:16]
    return f"{stem}.{take}.{h}.acmp"


def expand_inputs(inputs: Iterable[Union[str, "os.PathLike[str]"]]) -> List[str]:
    """Absolute paths: files as given (even unsupported ones, which then fail in the manifest),
    folders walked recursively for the files :func:`animcomp.load` reads, sorted."""
    from . import is_supported

    out: List[str] = []
    for p in inputs:
        p = os.path.abspath(os.fspath(p))
        if os.path.isdir(p):
            found = []
            for root, dirs, files in os.walk(p):
                dirs.sort()
                found.extend(os.path.join(root, f) for f in files if is_supported(f))
            out.extend(sorted(found))
        else:
            out.append(p)
    seen = set()
    return [p for p in out if not (p in seen or seen.add(p))]


def _join(root: str, name: str) -> str:
    return f"{root.rstrip('/')}/{name}"


def tier_names(name: str, levels: int) -> List[str]:
    """The tier blobs' file names beside the resident blob ``name`` (``<...>.acmp``):
    ``<...>.tier1``, ``<...>.tier2``."""
    stem = name[: -len(".acmp")] if name.endswith(".acmp") else name
    return [f"{stem}.tier{k}" for k in range(1, levels + 1)]


def _compress_plain_take(
    clip: Any, s: Settings, kwargs: Dict[str, Any], cache_url: Optional[str], rec: Dict[str, Any]
) -> Blob:
    """A take's blob from the cache, else compressed, measured and cached, into ``rec``."""
    cache = BlobCache(cache_url) if cache_url else None
    got = None
    if cache is not None:
        key = cache_key(clip, kwargs)
        got = cache.get(key)
        rec["cache_key"] = key
        if cache.corrupt:
            rec["cache_corrupt"] = True
    if got is not None:
        blob, meta = got
        rec.update(cache="hit", max_error=meta.get("max_error"), p99_error=meta.get("p99_error"))
        return blob
    blob = compress(clip, **kwargs)
    if clip.num_joints:
        m = measure(clip, blob, precision=s.precision, shell=s.shell)
        rec.update(max_error=m.max_error, p99_error=m.p99_error)
    else:
        rec.update(max_error=0.0, p99_error=0.0)
    if cache is not None:
        meta = {k: rec[k] for k in ("max_error", "p99_error")}
        cache.put(rec["cache_key"], blob, meta)
        rec["cache"] = "miss"
    else:
        rec["cache"] = "off"
    return blob


def _compress_tiered_take(clip: Any, s: Settings, rec: Dict[str, Any]) -> Tuple[Blob, List[bytes]]:
    """A take compressed with tiers and each fidelity measured (float64), into ``rec``."""
    if clip.curve_names:
        raise Error("tiered blobs hold joints only: the take has curves")
    resident, tiers = compress_tiered(clip, **s.tiered_kwargs())
    rows = measure_tiers(clip, resident, tiers, precision=s.precision, shell=s.shell)
    rec.update(
        tier_bytes=[len(t) for t in tiers],
        fidelities=[
            {"levels": m.levels, "bytes": m.bytes, "max_error": m.max_error, "p99_error": m.p99_error}
            for m in rows
        ],
        # Every tier attached: the fidelity the take's plain vbr blob has.
        max_error=rows[-1].max_error,
        p99_error=rows[-1].p99_error,
        cache="off",
    )
    return resident, tiers


def compress_take(
    path: str,
    take: int,
    settings: Dict[str, Any],
    out_url: str,
    cache_url: Optional[str] = None,
    prior: Optional[Dict[str, Any]] = None,
) -> Dict[str, Any]:
    """One task: take ``take`` of ``path`` compressed into ``out_url`` (runs on a worker).

    Never raises for a bad input: returns the manifest record, ``status`` "ok" or "error".
    """
    import fsspec

    t0 = time.perf_counter()
    s = Settings(**settings)
    rec: Dict[str, Any] = {
        "input": path,
        "input_sha256": None,
        "take": take,
        "status": "error",
        "settings": s.record(),
    }
    try:
        rec["input_sha256"] = _file_sha256(path)
        fs, out_root = fsspec.core.url_to_fs(out_url)
        name = output_name(path, take)
        target = _join(out_root, name)
        if (
            prior
            and prior.get("status") == "ok"
            and prior.get("input_sha256") == rec["input_sha256"]
            and prior.get("settings") == rec["settings"]
            and prior.get("output") == name
        ):
            try:
                resident = Blob.from_bytes(fs.cat_file(target))
                if s.tiers is not None:
                    for t in tier_names(name, s.tiers):
                        resident.attach(fs.cat_file(_join(out_root, t)))
                reused = dict(prior)
                reused.update(reused=True, seconds=time.perf_counter() - t0)
                return reused
            except (OSError, Error):
                pass  # missing or damaged: made again below
        clips = load_all(path, resample=s.resample)
        rec["takes"] = len(clips)
        if take >= len(clips):
            raise Error(f"take {take} out of range: the file holds {len(clips)}")
        clip = clips[take]
        rec.update(
            take_name=clip.name,
            joints=clip.num_joints,
            samples=clip.num_samples,
            curves=len(clip.curve_names),
            sample_rate=clip.sample_rate,
            raw_bytes=clip.raw_bytes,
        )
        kwargs = s.compress_kwargs()
        tiers: List[bytes] = []
        if s.tiers is not None:
            # Tiered takes are not cached (the cache holds one blob per key).
            blob, tiers = _compress_tiered_take(clip, s, rec)
        else:
            blob = _compress_plain_take(clip, s, kwargs, cache_url, rec)
        for t_name, t in zip(tier_names(name, len(tiers)), tiers):
            atomic_write(fs, _join(out_root, t_name), t)
        # The resident blob last: a reuse check finds it only with its tiers written.
        atomic_write(fs, target, bytes(blob))
        rec.update(
            status="ok",
            output=name,
            codec=blob.info["codec"],
            blob_bytes=len(blob),
            ratio=clip.raw_bytes / len(blob),
            reused=False,
        )
    except (Error, OSError, ValueError) as e:
        rec["error"] = f"{type(e).__name__}: {e}"
    rec["seconds"] = time.perf_counter() - t0
    return rec


def read_manifest(path: str) -> Dict[Tuple[str, int], Dict[str, Any]]:
    """The last record of every (input, take) in a manifest; unreadable lines (a line cut by an
    interrupted run) are skipped."""
    import fsspec

    out: Dict[Tuple[str, int], Dict[str, Any]] = {}
    try:
        with fsspec.open(path, "rt") as f:
            for line in f:
                try:
                    r = json.loads(line)
                    out[(r["input"], int(r["take"]))] = r
                except (ValueError, KeyError, TypeError):
                    continue
    except FileNotFoundError:
        pass
    return out


@dataclass
class BatchResult:
    """What a batch did: every record (one per take, in manifest order), wall seconds and the
    number of compressions run."""

    records: List[Dict[str, Any]]
    seconds: float
    out_dir: str
    manifest: str
    workers: int = 0
    extra: Dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> List[Dict[str, Any]]:
        """Records of takes that failed."""
        return [r for r in self.records if r["status"] != "ok"]

    @property
    def ok(self) -> List[Dict[str, Any]]:
        """Records of takes that have a blob."""
        return [r for r in self.records if r["status"] == "ok"]

    def count(self, cache: str) -> int:
        """Takes whose ``cache`` field is ``cache`` ("hit", "miss", "off")."""
        return sum(1 for r in self.ok if r.get("cache") == cache and not r.get("reused"))

    @property
    def compressed(self) -> int:
        """Takes compressed in this run (neither reused nor a cache hit)."""
        return sum(1 for r in self.ok if not r.get("reused") and r.get("cache") != "hit")

    @property
    def reused(self) -> int:
        """Takes whose blob from an earlier run was kept."""
        return sum(1 for r in self.ok if r.get("reused"))

    @staticmethod
    def _tier_rows(ok: List[Dict[str, Any]]) -> List[Tuple[str, str]]:
        """Totals of the tiered takes: bytes and worst error per fidelity."""
        tiered = [r for r in ok if r.get("fidelities")]
        if not tiered:
            return []
        rows = []
        top = max(len(r["fidelities"]) for r in tiered)
        names = ["resident", "+ level 1", "+ level 2"]
        full = sum(r["fidelities"][-1]["bytes"] for r in tiered)
        for k in range(top):
            fs = [r["fidelities"][min(k, len(r["fidelities"]) - 1)] for r in tiered]
            b = sum(f["bytes"] for f in fs)
            worst = max(f["max_error"] for f in fs)
            rows.append(
                (
                    f"{names[k]} bytes",
                    f"{b:,} ({b / full:.3f} of all tiers), worst max error {worst:.5f}",
                )
            )
        return rows

    def _budget_rows(self) -> List[Tuple[str, str]]:
        """A shared tier budget's plan (``extra["budget"]``): thresholds and whether met."""
        b = self.extra.get("budget")
        if not b:
            return []

        def factor(f: float) -> str:
            return "every removable sample" if f > 1e38 else f"{f:g}x the precision"

        met = "met" if b["resident_reached"] and b["medium_reached"] else "NOT reachable"
        return [
            (
                "shared budget",
                f"resident <= {b['resident_budget']} of the bytes without tiers: {met}, "
                f"resident threshold {factor(b['resident_factor'])}",
            )
        ]

    def summary(self) -> str:
        """A table of totals: takes, failures, reuse and cache, bytes, ratio, worst error."""
        ok = self.ok
        raw = sum(r.get("raw_bytes", 0) for r in ok)
        out = sum(r.get("blob_bytes", 0) for r in ok)
        errs = [(r.get("max_error") or 0.0, r) for r in ok]
        worst = max(errs, key=lambda x: x[0]) if errs else (0.0, None)
        rows = [
            ("takes", f"{len(self.records)}"),
            ("ok", f"{len(ok)}"),
            ("failed", f"{len(self.failed)}"),
            ("compressed", f"{self.compressed}"),
            ("cache hits", f"{self.count('hit')}"),
            ("reused from out_dir", f"{self.reused}"),
            ("raw bytes", f"{raw:,}"),
            ("blob bytes", f"{out:,}"),
            ("ratio", f"{raw / out:.2f} : 1" if out else "-"),
            (
                "worst max error",
                f"{worst[0]:.5f} ({worst[1]['take_name']})" if worst[1] else "-",
            ),
            *self._tier_rows(ok),
            *self._budget_rows(),
            ("workers", f"{self.workers}"),
            ("wall seconds", f"{self.seconds:.2f}"),
            ("takes / s", f"{len(self.records) / self.seconds:.2f}" if self.seconds else "-"),
        ]
        w = max(len(k) for k, _ in rows)
        lines = [f"{k:<{w}}  {v}" for k, v in rows]
        for r in self.failed[:20]:
            lines.append(f"FAILED {r['input']} take {r['take']}: {r.get('error')}")
        if len(self.failed) > 20:
            lines.append(f"... and {len(self.failed) - 20} more failures (see the manifest)")
        return "\n".join(lines)


class _Progress:
    """A one-line progress bar on stderr (redrawn in place on a terminal, every 10 % else)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.tty = enabled and sys.stderr.isatty()
        self.t0 = time.perf_counter()
        self.last_decile = -1

    def update(self, done: int, total: int, failed: int) -> None:
        if not self.enabled or total == 0:
            return
        frac = done / total
        decile = int(frac * 10)
        if not self.tty and decile == self.last_decile and done != total:
            return
        self.last_decile = decile
        rate = done / max(time.perf_counter() - self.t0, 1e-9)
        bar = "#" * int(frac * 30)
        line = f"[{bar:<30}] {done}/{total} takes, {failed} failed, {rate:.1f}/s"
        sys.stderr.write(("\r" + line) if self.tty else (line + "\n"))
        if self.tty and done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _cache_url(cache: Union[None, bool, str, BlobCache]) -> Optional[str]:
    if cache is None or cache is False:
        return None
    if cache is True:
        return BlobCache().url
    if isinstance(cache, BlobCache):
        return cache.url
    return os.fspath(cache)


def compress_library(
    inputs: Iterable[Union[str, "os.PathLike[str]"]],
    out_dir: Union[str, "os.PathLike[str]"],
    *,
    settings: Union[Settings, Dict[str, Any], None] = None,
    client: Any = None,
    cache: Union[None, bool, str, BlobCache] = None,
    scheduler: Optional[str] = None,
    workers: Optional[int] = None,
    progress: bool = True,
) -> BatchResult:
    """Compresses every take of ``inputs`` (files and folders) into ``out_dir``.

    * ``settings``: a :class:`Settings` or a dict of its fields (default: the library's).
    * ``client``: a ``dask.distributed.Client`` to run on; else ``scheduler`` (an address such
      as ``tcp://host:8786``); else a ``LocalCluster`` of ``workers`` single-threaded worker
      processes (default: one per core), closed at the end.
    * ``cache``: ``None``/``False`` for none, ``True`` for the default cache
      (``ANIMCOMP_CACHE`` or the platform cache folder), a URL or a :class:`BlobCache`.

    Writes ``out_dir/manifest.jsonl`` (one JSON object per take: input, input_sha256, take,
    take_name, settings, codec, raw_bytes, blob_bytes, ratio, max_error, p99_error, seconds,
    cache ("hit", "miss", "off"), reused, status and, for a failure, error) and returns a
    :class:`BatchResult`.
    """
    import fsspec
    from dask.distributed import Client, LocalCluster, as_completed

    t0 = time.perf_counter()
    s = settings if isinstance(settings, Settings) else Settings(**(settings or {}))
    sd = s.record()
    files = expand_inputs(inputs)
    out_url = os.fspath(out_dir)
    fs, out_root = fsspec.core.url_to_fs(out_url)
    local = _is_local(fs)
    if local:
        out_root = os.path.abspath(out_root)
        out_url = out_root
    fs.makedirs(out_root, exist_ok=True)
    manifest = _join(out_root, MANIFEST)
    prior = read_manifest(manifest)
    cache_url = _cache_url(cache)

    own_cluster = None
    own_client = None
    if client is None:
        if scheduler:
            client = own_client = Client(scheduler)
        else:
            n = workers or os.cpu_count() or 1
            own_cluster = LocalCluster(
                n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None
            )
            client = own_client = Client(own_cluster)
    try:
        n_workers = len(client.scheduler_info().get("workers", {}))
        bar = _Progress(progress)
        records: Dict[Tuple[str, int], Dict[str, Any]] = {}
        where: Dict[str, Tuple[str, int]] = {}

        run = uuid.uuid4().hex[:8]  # task keys unique per run: a client may outlive a batch

        def submit(path: str, take: int):
            key = f"animcomp-{run}-{output_name(path, take)[:-5]}"
            fut = client.submit(
                compress_take,
                path,
                take,
                sd,
                out_url,
                cache_url,
                prior.get((path, take)),
                key=key,
                pure=False,
            )
            where[fut.key] = (path, take)
            return fut

        futures = [submit(p, 0) for p in files]
        total = len(futures)
        ac = as_completed(futures)
        # The manifest grows line by line while the batch runs (an interrupted run keeps what it
        # did); object stores cannot append: there it is written at the end only.
        with (open(manifest, "a") if local else open(os.devnull, "w")) as mf:
            for fut in ac:
                path, take = where[fut.key]
                try:
                    rec = fut.result()
                except Exception as e:  # e.g. KilledWorker: the task's workers kept dying
                    rec = {
                        "input": path,
                        "take": take,
                        "status": "error",
                        "settings": sd,
                        "error": f"{type(e).__name__}: {e}",
                    }
                fut.release()
                records[(path, take)] = rec
                mf.write(json.dumps(rec, sort_keys=True) + "\n")
                mf.flush()
                if take == 0 and int(rec.get("takes", 1)) > 1:
                    for t in range(1, int(rec["takes"])):
                        ac.add(submit(path, t))
                        total += 1
                bar.update(len(records), total, sum(r["status"] != "ok" for r in records.values()))
    finally:
        if own_client is not None:
            own_client.close()
        if own_cluster is not None:
            own_cluster.close()

    # One record per take, in input order, rewritten atomically over the appended log.
    order = {p: i for i, p in enumerate(files)}
    ordered = [records[k] for k in sorted(records, key=lambda k: (order[k[0]], k[1]))]
    text = "".join(json.dumps(r, sort_keys=True) + "\n" for r in ordered)
    atomic_write(fs, manifest, text.encode())
    return BatchResult(ordered, time.perf_counter() - t0, out_url, manifest, n_workers)


def file_candidates(path: str, settings: Dict[str, Any]) -> List[Dict[str, Any]]:
    """A shared budget's first step for one input file (runs on a worker): each take's
    :func:`animcomp.tier_candidates` (``{"input", "take", "candidates"}``), or its
    ``"error"``. Never raises for a bad input."""
    s = Settings(**settings)
    try:
        clips = load_all(path, resample=s.resample)
    except (Error, OSError, ValueError) as e:
        return [{"input": path, "take": 0, "error": f"{type(e).__name__}: {e}"}]
    out: List[Dict[str, Any]] = []
    for take, clip in enumerate(clips):
        rec: Dict[str, Any] = {"input": path, "take": take}
        try:
            if clip.curve_names:
                raise Error("tiered blobs hold joints only: the take has curves")
            rec["candidates"] = tier_candidates(clip, **s.tiered_kwargs())
        except (Error, OSError, ValueError) as e:
            rec["error"] = f"{type(e).__name__}: {e}"
        out.append(rec)
    return out


def plan_budget(
    per_file: List[List[Dict[str, Any]]],
    settings: Dict[str, Any],
    resident_budget: float,
    medium_budget: Optional[float],
) -> Dict[str, Any]:
    """A shared budget's second step (one task, over every file's :func:`file_candidates`): the
    set's :class:`animcomp.TierBudgetPlan` as a dict, its ``bounds`` as a list of ``{"input",
    "take", "bounds"}``. Takes whose candidates failed are left out of the set."""
    s = Settings(**settings)
    takes = [r for f in per_file for r in f if "candidates" in r]
    if not takes:
        raise Error("no take of the inputs could be ranked for the budget")
    plan = plan_tier_budget(
        [r["candidates"] for r in takes],
        resident_budget=resident_budget,
        medium_budget=medium_budget,
        levels=int(s.tiers or 2),
        resident_factor=s.resident_factor,
        medium_factor=s.medium_factor,
    )
    d = asdict(plan)
    d["bounds"] = [
        {"input": r["input"], "take": r["take"], "bounds": b} for r, b in zip(takes, plan.bounds)
    ]
    d["resident_budget"] = resident_budget
    d["medium_budget"] = medium_budget
    return d


def compress_library_tiered(
    inputs: Iterable[Union[str, "os.PathLike[str]"]],
    out_dir: Union[str, "os.PathLike[str]"],
    *,
    levels: int = 2,
    resident_factor: float = 10.0,
    medium_factor: float = 3.0,
    resident_budget: Optional[float] = None,
    medium_budget: Optional[float] = None,
    settings: Union[Settings, Dict[str, Any], None] = None,
    **kwargs: Any,
) -> BatchResult:
    """:func:`compress_library` with quality tiers: each take compressed by
    :func:`animcomp.compress_tiered` into its resident blob ``<name>.acmp`` and
    ``<name>.tier1`` (, ``.tier2``) beside it, each fidelity measured by
    :func:`animcomp.measure_tiers` (float64). The manifest's records add ``tier_bytes`` and
    ``fidelities`` (per fidelity: ``levels`` attached, ``bytes``, ``max_error``, ``p99_error``);
    ``blob_bytes`` is the resident blob's, ``max_error`` / ``p99_error`` those with every tier.
    Tiered takes bypass the blob cache. Other keyword arguments as :func:`compress_library`.

    Without ``resident_budget`` each take is split on its own (its fidelity never depends on
    the others). With it, every take of the inputs shares one byte budget: the resident blobs
    together take at most ``resident_budget`` of the bytes without tiers (and with two levels
    and ``medium_budget``, resident + level 1 at most that), in three Dask steps: each file's
    takes ranked on the workers (:func:`file_candidates`), one task choosing the set's
    thresholds (:func:`plan_budget`), then every take compressed at those thresholds (the
    factors, the least thresholds, are taken as they are when the budget allows). The plan is
    written to ``out_dir/budget.json`` and returned in ``result.extra["budget"]``; a budget that
    cannot be met (``resident_reached`` false) still writes every take, with every removable
    sample out of the resident blobs."""
    s = settings if isinstance(settings, Settings) else Settings(**(settings or {}))
    s = Settings(
        **{
            **asdict(s),
            "tiers": int(levels),
            "resident_factor": float(resident_factor),
            "medium_factor": float(medium_factor),
        }
    )
    if resident_budget is None:
        if medium_budget is not None:
            raise Error("medium_budget needs resident_budget")
        return compress_library(inputs, out_dir, settings=s, **kwargs)
    inputs = list(inputs)  # read twice: ranked, then compressed

    import fsspec
    from dask.distributed import Client, LocalCluster

    client = kwargs.pop("client", None)
    scheduler = kwargs.pop("scheduler", None)
    workers = kwargs.pop("workers", None)
    own_cluster = own_client = None
    if client is None:
        if scheduler:
            client = own_client = Client(scheduler)
        else:
            own_cluster = LocalCluster(
                n_workers=workers or os.cpu_count() or 1,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
            )
            client = own_client = Client(own_cluster)
    try:
        run = uuid.uuid4().hex[:8]
        sd = asdict(s)
        files = expand_inputs(inputs)
        ranked = [
            client.submit(file_candidates, p, sd, key=f"animcomp-rank-{run}-{i}", pure=False)
            for i, p in enumerate(files)
        ]
        plan = client.submit(
            plan_budget,
            ranked,
            sd,
            float(resident_budget),
            None if medium_budget is None else float(medium_budget),
            key=f"animcomp-plan-{run}",
            pure=False,
        ).result()
        del ranked
        at = Settings(
            **{
                **sd,
                "resident_factor": plan["resident_factor"],
                "medium_factor": plan["medium_factor"],
            }
        )
        result = compress_library(inputs, out_dir, settings=at, client=client, **kwargs)
    finally:
        if own_client is not None:
            own_client.close()
        if own_cluster is not None:
            own_cluster.close()
    fs, root = fsspec.core.url_to_fs(result.out_dir)
    atomic_write(fs, _join(root, BUDGET), (json.dumps(plan, sort_keys=True) + "\n").encode())
    result.extra["budget"] = plan
    return result


__all__ = [
    "MANIFEST",
    "BatchResult",
    "Settings",
    "compress_library",
    "compress_take",
    "compress_library_tiered",
    "file_candidates",
    "plan_budget",
    "tier_names",
    "expand_inputs",
    "output_name",
    "read_manifest",
]
