"""``python -m animcomp batch INPUTS... -o OUT``: compress a clip library on Dask.

Prints a progress bar while it runs and a summary table at the end; exits 1 when a take
failed (its message is in ``OUT/manifest.jsonl``), 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional


def _parser() -> argparse.ArgumentParser:
    from . import CODECS, LEVELS

    p = argparse.ArgumentParser(prog="python -m animcomp", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser(
        "batch",
        help="compress every take of files and folders into a folder, on Dask",
        description="Compress every take of INPUTS (files, folders walked for the formats "
        "animcomp.load reads) into OUT, one Dask task per take, and write OUT/manifest.jsonl.",
    )
    b.add_argument("inputs", nargs="+", metavar="INPUTS")
    b.add_argument("-o", "--out", required=True, help="output folder (or fsspec URL)")
    b.add_argument("--scheduler", help="address of a running Dask scheduler, e.g. tcp://host:8786")
    b.add_argument(
        "--workers", type=int, help="worker processes of the local cluster (default: one per core)"
    )
    # Two options rather than one with an optional value: `--cache [URL]` followed by the inputs
    # would take the first input as the cache's URL.
    b.add_argument(
        "--cache",
        action="store_true",
        help="use the blob cache at ANIMCOMP_CACHE or the platform cache folder "
        "(~/.cache/animcomp)",
    )
    b.add_argument(
        "--cache-url", metavar="URL", help="use the blob cache at URL (any fsspec URL)"
    )
    b.add_argument("--codec", choices=CODECS, default="auto")
    b.add_argument("--precision", type=float, default=0.01, help="largest error, clip units")
    b.add_argument("--shell", type=float, default=3.0, help="shell distance, clip units")
    b.add_argument("--level", choices=LEVELS, default=None)
    b.add_argument("--curve-precision", type=float, default=0.001)
    b.add_argument("--resample", type=float, default=None, help="resample every take (Hz)")
    b.add_argument(
        "--layout",
        choices=("segments", "grouped", "auto"),
        default="segments",
        help="reserved; every vbr blob is written in the grouped layout "
        "(every value writes the same blob)",
    )
    b.add_argument(
        "--tiers",
        type=int,
        choices=(1, 2),
        default=None,
        help="quality tiers: a resident blob and this many tier blobs per take (vbr codec)",
    )
    b.add_argument(
        "--resident-factor",
        type=float,
        default=10.0,
        help="with --tiers: the resident blob's error bound, x the precision",
    )
    b.add_argument(
        "--medium-factor",
        type=float,
        default=3.0,
        help="with --tiers 2: the bound with level 1 attached, x the precision",
    )
    b.add_argument(
        "--resident-budget",
        type=float,
        default=None,
        metavar="F",
        help="with --tiers: one byte budget for every take: the resident blobs together at "
        "most this fraction of the bytes without tiers (samples leave cheapest first across "
        "the set; the plan is written to budget.json)",
    )
    b.add_argument(
        "--medium-budget",
        type=float,
        default=None,
        metavar="F",
        help="with --tiers 2 and --resident-budget: resident + level 1 at most this fraction",
    )
    b.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def _is_url(path: str) -> bool:
    return "://" in path


def _check_arguments(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuses bad arguments (exit 2) before anything starts: no cluster, no output folder."""
    import os

    for inp in args.inputs:
        if not _is_url(inp) and not os.path.exists(inp):
            hint = (
                " (--cache takes no value: give the cache's location with --cache-url URL)"
                if args.cache
                else ""
            )
            p.error(f"{inp}: no such file or directory{hint}")
    if not _is_url(args.out) and os.path.exists(args.out) and not os.path.isdir(args.out):
        p.error(f"-o {args.out}: is a file; give a folder (created if missing)")
    if args.cache and args.cache_url:
        p.error("--cache and --cache-url: give one (--cache-url names the cache's location)")
    if args.resident_budget is not None:
        if args.tiers is None:
            p.error("--resident-budget needs --tiers")
        if not args.resident_budget > 0:
            p.error("--resident-budget must be greater than 0")
    if args.medium_budget is not None:
        if args.resident_budget is None or args.tiers != 2:
            p.error("--medium-budget needs --tiers 2 and --resident-budget")
        if args.medium_budget < args.resident_budget:
            p.error("--medium-budget is below --resident-budget")


def main(argv: Optional[List[str]] = None) -> int:
    p = _parser()
    args = p.parse_args(argv)
    _check_arguments(p, args)
    from .batch import Settings, compress_library, compress_library_tiered

    settings = Settings(
        codec=args.codec,
        precision=args.precision,
        shell=args.shell,
        level=args.level,
        curve_precision=args.curve_precision,
        resample=args.resample,
        layout=args.layout,
        tiers=args.tiers,
        resident_factor=args.resident_factor,
        medium_factor=args.medium_factor,
    )
    common = dict(
        scheduler=args.scheduler,
        workers=args.workers,
        cache=args.cache_url or (True if args.cache else None),
        progress=not args.no_progress,
    )
    if args.resident_budget is not None:
        result = compress_library_tiered(
            args.inputs,
            args.out,
            levels=args.tiers,
            resident_factor=args.resident_factor,
            medium_factor=args.medium_factor,
            resident_budget=args.resident_budget,
            medium_budget=args.medium_budget,
            settings=settings,
            **common,
        )
    else:
        result = compress_library(args.inputs, args.out, settings=settings, **common)
    print(result.summary())
    print(f"manifest: {result.manifest}")
    budget = result.extra.get("budget")
    unmet = budget is not None and not (budget["resident_reached"] and budget["medium_reached"])
    return 1 if result.failed or unmet else 0


if __name__ == "__main__":
    sys.exit(main())
