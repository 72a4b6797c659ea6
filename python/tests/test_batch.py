"""Batch compression on Dask: manifest, names, failures, reruns, a real cluster with a worker
killed mid-run."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

import animcomp
from animcomp.batch import MANIFEST, compress_library, output_name, read_manifest
from conftest import DATA, write_bvh

pytest.importorskip("dask.distributed")


def manifest_lines(out):
    return [json.loads(line) for line in (out / MANIFEST).read_text().splitlines()]


def check_blobs(records, out, settings):
    for r in records:
        if r["status"] != "ok":
            continue
        blob = animcomp.Blob.from_bytes((out / r["output"]).read_bytes())
        assert len(blob) == r["blob_bytes"] and blob.info["codec"] == r["codec"]
        clip = animcomp.load(r["input"], stack=r["take"])
        local = animcomp.compress(clip, **settings)
        times = np.linspace(0, clip.duration, 7)
        assert np.array_equal(blob.sample_many(times), local.sample_many(times)), r["input"]


def test_batch_manifest_names_and_a_corrupt_clip(library, tmp_path, client):
    corrupt = tmp_path / "lib" / "a" / "zz_corrupt.bvh"
    corrupt.write_text("HIERARCHY\nROOT hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition\n")
    out = tmp_path / "out"
    res = compress_library([library], out, client=client, settings={"codec": "vbr"}, progress=False)
    assert len(res.records) == 6 and len(res.failed) == 1
    bad = res.failed[0]
    assert bad["input"] == str(corrupt) and "LoadError" in bad["error"]
    recs = manifest_lines(out)
    assert [r["input"] for r in recs] == [r["input"] for r in res.records]
    names = [r["output"] for r in recs if r["status"] == "ok"]
    assert len(set(names)) == 5  # clip0.bvh / clip1.bvh exist in both folders
    assert sorted(os.listdir(out)) == sorted(names + [MANIFEST])
    for r in recs:
        if r["status"] == "ok":
            assert r["output"] == output_name(r["input"], r["take"])
            for k in ("input_sha256", "take", "take_name", "settings", "codec", "raw_bytes",
                      "blob_bytes", "max_error", "seconds", "cache"):
                assert r[k] is not None, k
            assert r["cache"] == "off" and 0 < r["max_error"] <= 0.01
    check_blobs(recs, out, {"codec": "vbr"})
    assert "failed" in res.summary() and "zz_corrupt" in res.summary()


def test_rerun_recompresses_only_what_is_missing(library, tmp_path, client):
    out = tmp_path / "out"
    first = compress_library([library], out, client=client, progress=False)
    assert first.compressed == 5 and not first.failed
    # Interrupt: one blob never written, the manifest cut in the middle of a line.
    gone = first.records[2]
    (out / gone["output"]).unlink()
    text = (out / MANIFEST).read_text()
    (out / MANIFEST).write_text(text[: len(text) - 40])
    # and one input edited since.
    edited = first.records[4]["input"]
    write_bvh(edited, seed=99, frames=60)
    again = compress_library([library], out, client=client, progress=False)
    assert again.compressed == 2 and again.reused == 3 and not again.failed
    redone = {r["input"] for r in again.records if not r["reused"]}
    assert redone == {gone["input"], edited}
    assert len(manifest_lines(out)) == 5
    check_blobs(again.records, out, {})
    # A third run has nothing to do.
    third = compress_library([library], out, client=client, progress=False)
    assert third.compressed == 0 and third.reused == 5


def test_layout_is_a_setting_a_rerun_honours(library, tmp_path, client):
    out = tmp_path / "out"
    first = compress_library([library], out, client=client, settings={"codec": "vbr"},
                             progress=False)
    assert first.compressed == 5
    # The default layout is not recorded: manifests from before the setting still match.
    assert all("layout" not in r["settings"] for r in manifest_lines(out))
    grouped = {"codec": "vbr", "layout": "grouped"}
    again = compress_library([library], out, client=client, settings=grouped, progress=False)
    # Another layout is another blob: nothing is reused.
    assert again.compressed == 5 and again.reused == 0 and not again.failed
    for r in again.records:
        blob = animcomp.Blob.from_bytes((out / r["output"]).read_bytes())
        assert blob.info["format_version"] == 5
    assert all(r["settings"]["layout"] == "grouped" for r in manifest_lines(out)[-5:])
    check_blobs(again.records, out, grouped)


def test_multi_take_file_gives_one_blob_per_take(tmp_path, client):
    found = sorted(DATA.glob("gltf/**/Fox*.gl*"))
    if not found:
        pytest.skip("no Fox glTF in ../shared/data")
    res = compress_library([found[0]], tmp_path / "out", client=client, progress=False)
    assert [r["take"] for r in res.records] == [0, 1, 2]
    assert len({r["output"] for r in res.records}) == 3 and not res.failed


def test_cli_exit_status_and_summary(library, tmp_path):
    (tmp_path / "lib" / "broken.bvh").write_text("not a bvh")
    out = tmp_path / "out"
    p = subprocess.run(
        [sys.executable, "-m", "animcomp", "batch", str(library), "-o", str(out),
         "--workers", "1", "--codec", "fixed", "--precision", "0.02"],
        capture_output=True, text=True, timeout=300,
    )
    assert p.returncode == 1, p.stderr
    assert "failed      " in p.stdout or "failed " in p.stdout
    assert "broken.bvh" in p.stdout
    recs = manifest_lines(out)
    assert len(recs) == 6
    assert all(r["settings"]["codec"] == "fixed" and r["settings"]["precision"] == 0.02 for r in recs)
    assert "6/6 takes" in p.stderr  # the progress bar
    p = subprocess.run([sys.executable, "-m", "animcomp", "batch", "-o", str(out)],
                       capture_output=True, text=True)
    assert p.returncode == 2


def test_cli_checks_arguments_before_starting_anything(library, tmp_path):
    def batch(*args):
        return subprocess.run([sys.executable, "-m", "animcomp", "batch", *map(str, args)],
                              capture_output=True, text=True, timeout=60)

    out = tmp_path / "out"
    # A missing input: refused (exit 2, its name) before a cluster or the output folder exists.
    p = batch(library, tmp_path / "missing.bvh", "-o", out)
    assert p.returncode == 2 and "missing.bvh: no such file or directory" in p.stderr, p.stderr
    assert not out.exists()
    # `--cache` takes no value: what follows it is an input, not the cache's location.
    p = batch("--cache", tmp_path / "missing.bvh", "-o", out)
    assert p.returncode == 2, p.stderr
    assert "required: INPUTS" not in p.stderr and "--cache-url" in p.stderr
    # `-o` naming an existing file: a message, not a FileExistsError traceback.
    f = tmp_path / "file.txt"
    f.write_text("x")
    p = batch(library, "-o", f)
    assert p.returncode == 2 and "is a file" in p.stderr and "Traceback" not in p.stderr
    assert batch(library, "-o", out, "--cache", "--cache-url", tmp_path / "c").returncode == 2
    assert not out.exists()


# --- A real cluster on this machine -----------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, proc, timeout: float = 60.0) -> None:
    t0 = time.time()
    while time.time() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"process exited with {proc.returncode}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port}")


def stop(procs) -> None:
    for p in procs:
        if p.poll() is None:
            p.terminate()
    for p in procs:  # every process this test started is gone when it ends
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def cluster_inputs(tmp_path):
    """12 cmu-cc clips (100 joints) when present, else 16 generated clips big enough that the
    run lasts a few seconds."""
    cmu = sorted((DATA / "cmu-cc").glob("*.bvh"))
    if len(cmu) >= 12:
        return cmu[:12], 12
    for i in range(16):
        write_bvh(tmp_path / "gen" / f"g{i:02d}.bvh", joints=60, frames=600, seed=i, rate=60.0)
    return [tmp_path / "gen"], 16


def test_real_cluster_survives_a_killed_worker(tmp_path):
    bindir = os.path.dirname(sys.executable)
    dask_cli = os.path.join(bindir, "dask")
    if not os.path.exists(dask_cli):
        pytest.skip("the `dask` command is not installed beside this Python")
    inputs, n = cluster_inputs(tmp_path)
    port = free_port()
    addr = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ, DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="5")
    procs = []
    try:
        sched = subprocess.Popen(
            [dask_cli, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
        )
        procs.append(sched)
        wait_for_port(port, sched)
        workers = []
        for _ in range(2):
            w = subprocess.Popen(
                [dask_cli, "worker", addr, "--host", "127.0.0.1", "--nthreads", "1",
                 "--no-nanny", "--no-dashboard", "--death-timeout", "60"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
            )
            procs.append(w)
            workers.append(w)
        out = tmp_path / "out"
        batch = subprocess.Popen(
            [sys.executable, "-m", "animcomp", "batch", *map(str, inputs), "-o", str(out),
             "--scheduler", addr, "--codec", "vbr", "--no-progress"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        procs.append(batch)
        # Kill one worker once a few takes are done and most are not.
        t0 = time.time()
        done = 0
        while time.time() - t0 < 240:
            mf = out / MANIFEST
            done = len(mf.read_text().splitlines()) if mf.exists() else 0
            if done >= 2 or batch.poll() is not None:
                break
            time.sleep(0.05)
        assert batch.poll() is None and done < n, "the batch ended before a worker could be killed"
        os.kill(workers[0].pid, signal.SIGKILL)
        workers[0].wait(timeout=10)
        stdout, stderr = batch.communicate(timeout=600)
        assert batch.returncode == 0, stdout + stderr
    finally:
        stop(procs)
    recs = manifest_lines(out)
    assert len(recs) == n and all(r["status"] == "ok" for r in recs)
    assert len({r["output"] for r in recs}) == n
    blobs = [f for f in os.listdir(out) if f.endswith(".acmp")]
    assert sorted(blobs) == sorted(r["output"] for r in recs)
    for name in os.listdir(out):
        assert name == MANIFEST or name.endswith(".acmp") or ".tmp-" in name
    check_blobs(recs, out, {"codec": "vbr"})


def test_read_manifest_keeps_the_last_record(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text(
        json.dumps({"input": "a", "take": 0, "status": "error"}) + "\n"
        + json.dumps({"input": "a", "take": 0, "status": "ok"}) + "\n"
        + '{"input": "b", "ta'
    )
    m = read_manifest(str(p))
    assert list(m) == [("a", 0)] and m[("a", 0)]["status"] == "ok"
