"""Benchmark (not a test): clips per second of `animcomp.batch` on Dask against the Rust CLI's
`animcomp bench -j N` on the same clips, in the same run, and a cached rerun.

    python python/bench/batch_bench.py [--data ../shared/data/cmu-cc] [--cli target/release/animcomp]

Each configuration compresses every clip with codec auto at precision 0.01 / shell 3.0 and
measures its error with the library's metric (the CLI also times decompression: --timing-ms 0
keeps that to one pass per clip). Rows run in the order CLI -j1, batch 1 worker, CLI -j2,
batch 2 workers, cached rerun (2 workers), twice, so a busy spell of a shared machine hits both
kinds alike; the table gives the best of the two rounds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def cli_run(cli: str, data: str, jobs: int) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [cli, "bench", data, "--codec", "auto", "-j", str(jobs), "--timing-ms", "0"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - t0


def batch_run(data: str, workers: int, cache: str | None, tmp: str) -> tuple[float, float, int]:
    from dask.distributed import Client, LocalCluster

    from animcomp.batch import compress_library

    t0 = time.perf_counter()
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    client = Client(cluster)
    t1 = time.perf_counter()
    out = tempfile.mkdtemp(dir=tmp)
    res = compress_library([data], out, client=client, cache=cache,
                           settings={"codec": "auto"}, progress=False)
    t2 = time.perf_counter()
    client.close()
    cluster.close()
    assert not res.failed, res.summary()
    return t2 - t1, t2 - t0, res.compressed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(REPO, "..", "shared", "data", "cmu-cc"))
    ap.add_argument("--cli", default=os.path.join(REPO, "target", "release", "animcomp"))
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    data = os.path.abspath(a.data)
    n = len([f for f in os.listdir(data) if f.lower().endswith(".bvh")])
    tmp = tempfile.mkdtemp(prefix="animcomp-bench-")
    rows: dict[str, list[float]] = {}
    try:
        for _ in range(a.rounds):
            cache = os.path.join(tmp, f"cache-{time.time_ns()}")
            rows.setdefault("CLI bench -j 1", []).append(cli_run(a.cli, data, 1))
            b, w, c = batch_run(data, 1, None, tmp)
            rows.setdefault("batch, 1 worker (cluster start excluded)", []).append(b)
            rows.setdefault("batch, 1 worker (cluster start included)", []).append(w)
            rows.setdefault("CLI bench -j 2", []).append(cli_run(a.cli, data, 2))
            b, w, c = batch_run(data, 2, cache, tmp)
            rows.setdefault("batch, 2 workers, cache filled (start excluded)", []).append(b)
            b, w, c = batch_run(data, 2, cache, tmp)
            assert c == 0, "the cached rerun compressed something"
            rows.setdefault("batch, 2 workers, cached rerun (start excluded)", []).append(b)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{n} clips from {data}; best of {a.rounds} rounds, wall seconds")
    print("| run | seconds (each round) | best | clips/s |")
    print("|---|---|---|---|")
    for k, v in rows.items():
        best = min(v)
        print(f"| {k} | {', '.join(f'{x:.2f}' for x in v)} | {best:.2f} | {n / best:.2f} |")


if __name__ == "__main__":
    sys.exit(main())
