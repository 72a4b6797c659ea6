"""The content-addressed cache: keys, hits and misses across runs, corrupt entries, two batches
writing one cache at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import animcomp
from animcomp.batch import compress_library
from animcomp.cache import ENTRY_MAGIC, BlobCache, cache_key
from conftest import generated_clip, write_bvh

pytest.importorskip("fsspec")


def entries(root):
    return sorted(p for p in root.rglob("*.acmp-entry"))


def test_key_covers_content_and_settings_not_names():
    c = generated_clip()
    s = {"codec": "auto", "precision": 0.01}
    k = cache_key(c, s)
    assert len(k) == 64
    renamed = generated_clip()
    renamed.name = "other"
    renamed.joint_names = [f"n{i}" for i in range(renamed.num_joints)]
    assert cache_key(renamed, s) == k
    assert cache_key(c, {"codec": "auto", "precision": 0.02}) != k
    assert cache_key(c, {"precision": 0.01, "codec": "auto"}) == k  # key order is canonical
    moved = generated_clip()
    moved.translations = moved.translations.copy()
    moved.translations[5, 2, 0] += 1e-3
    assert cache_key(moved, s) != k
    reparented = generated_clip()
    reparented.parents = np.array([-1, 0, 0, 1, 2], np.int32)
    assert cache_key(reparented, s) != k


def test_get_put_and_corrupt_entries(tmp_path):
    cache = BlobCache(str(tmp_path / "c"))
    c = generated_clip()
    blob = animcomp.compress(c)
    k = cache_key(c, {})
    assert cache.get(k) is None and cache.misses == 1
    cache.put(k, blob, {"max_error": 0.005})
    got, meta = cache.get(k)
    assert got == blob and meta["max_error"] == 0.005 and cache.hits == 1
    path = cache.path(k)
    assert os.path.dirname(path).endswith(k[:2]) and os.listdir(os.path.dirname(path)) == [os.path.basename(path)]
    # A flipped byte in the blob: reported, deleted, never returned.
    data = bytearray(open(path, "rb").read())
    data[-20] ^= 0xFF
    open(path, "wb").write(bytes(data))
    with pytest.warns(UserWarning, match="corrupt entry"):
        assert cache.get(k) is None
    assert cache.corrupt == 1 and not os.path.exists(path)
    # The entry of another key copied under this key's name: its key does not match.
    other = generated_clip(seed=2)
    k2 = cache_key(other, {})
    cache.put(k2, animcomp.compress(other))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "wb").write(open(cache.path(k2), "rb").read())
    with pytest.warns(UserWarning, match="key"):
        assert cache.get(k) is None
    # Truncated and foreign files.
    for junk in (ENTRY_MAGIC + k.encode(), b"hello", ENTRY_MAGIC + k.encode() + b"\n{}\n" + bytes(blob)[:64]):
        open(path, "wb").write(junk)
        with pytest.warns(UserWarning):
            assert cache.get(k) is None
    assert cache.corrupt == 5


def test_default_location(monkeypatch, tmp_path):
    monkeypatch.setenv("ANIMCOMP_CACHE", str(tmp_path / "env"))
    assert BlobCache().url == str(tmp_path / "env")
    monkeypatch.delenv("ANIMCOMP_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if sys.platform.startswith("linux"):
        assert BlobCache().url == str(tmp_path / "xdg" / "animcomp")


def test_hits_and_misses_across_runs(library, tmp_path, client):
    cache = str(tmp_path / "cache")
    run = lambda out, **s: compress_library(  # noqa: E731
        [library], tmp_path / out, client=client, cache=cache, settings=s, progress=False
    )
    first = run("o1")
    assert first.count("miss") == 5 and first.count("hit") == 0 and first.compressed == 5
    assert len(entries(tmp_path / "cache")) == 5
    second = run("o2")
    assert second.count("hit") == 5 and second.compressed == 0
    for a, b in zip(first.records, second.records):
        assert (tmp_path / "o1" / a["output"]).read_bytes() == (tmp_path / "o2" / b["output"]).read_bytes()
        assert a["max_error"] == b["max_error"]
    changed_setting = run("o3", precision=0.02)
    assert changed_setting.count("miss") == 5 and changed_setting.compressed == 5
    one = second.records[1]["input"]
    write_bvh(one, seed=1234)
    one_clip_changed = run("o4")
    assert one_clip_changed.compressed == 1 and one_clip_changed.count("hit") == 4
    assert [r["input"] for r in one_clip_changed.records if r["cache"] == "miss"] == [one]


def test_batch_replaces_a_corrupt_entry(library, tmp_path, client):
    cache = tmp_path / "cache"
    first = compress_library([library], tmp_path / "o1", client=client, cache=str(cache), progress=False)
    victim = first.records[3]
    path = BlobCache(str(cache)).path(victim["cache_key"])
    data = bytearray(open(path, "rb").read())
    data[len(data) - 8] ^= 0x01
    open(path, "wb").write(bytes(data))
    second = compress_library([library], tmp_path / "o2", client=client, cache=str(cache), progress=False)
    rec = second.records[3]
    assert rec["cache"] == "miss" and rec.get("cache_corrupt") is True
    assert second.count("hit") == 4
    animcomp.Blob.from_bytes((tmp_path / "o2" / rec["output"]).read_bytes())
    got = BlobCache(str(cache)).get(victim["cache_key"])
    assert got is not None and bytes(got[0]) == (tmp_path / "o1" / victim["output"]).read_bytes()


def test_two_concurrent_batches_on_one_cache(library, tmp_path):
    cache = tmp_path / "cache"
    env = dict(os.environ, ANIMCOMP_CACHE=str(cache))
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "animcomp", "batch", str(library), "-o", str(tmp_path / f"o{i}"),
             "--workers", "1", "--cache", "--no-progress"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        for i in range(2)
    ]
    try:
        outs = [p.communicate(timeout=300) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    for p, (o, e) in zip(procs, outs):
        assert p.returncode == 0, o + e
    assert len(entries(cache)) == 5
    assert not [f for f in cache.rglob("*") if ".tmp-" in f.name]
    c = BlobCache(str(cache))
    for i in range(2):
        for line in (tmp_path / f"o{i}" / "manifest.jsonl").read_text().splitlines():
            r = json.loads(line)
            assert r["status"] == "ok" and r["cache"] in ("hit", "miss")
            blob, _ = c.get(r["cache_key"])
            assert bytes(blob) == (tmp_path / f"o{i}" / r["output"]).read_bytes()
    assert c.corrupt == 0
