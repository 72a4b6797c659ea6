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
    b.add_argument(
        "--cache",
        nargs="?",
        const=True,
        default=None,
        metavar="URL",
        help="use the blob cache: at URL (any fsspec URL), or without a value at ANIMCOMP_CACHE "
        "or the platform cache folder (~/.cache/animcomp)",
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
        help="vbr body layout: grouped (format version 4) samples whole poses faster; "
        "auto: grouped for rigs of 16 joints or more",
    )
    b.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def main(argv: Optional[List[str]] = None) -> int:
    args = _parser().parse_args(argv)
    from .batch import Settings, compress_library

    settings = Settings(
        codec=args.codec,
        precision=args.precision,
        shell=args.shell,
        level=args.level,
        curve_precision=args.curve_precision,
        resample=args.resample,
        layout=args.layout,
    )
    result = compress_library(
        args.inputs,
        args.out,
        settings=settings,
        scheduler=args.scheduler,
        workers=args.workers,
        cache=args.cache,
        progress=not args.no_progress,
    )
    print(result.summary())
    print(f"manifest: {result.manifest}")
    return 1 if result.failed else 0


if __name__ == "__main__":
    sys.exit(main())
