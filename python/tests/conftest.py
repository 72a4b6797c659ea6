"""Shared fixtures: where the shared clips are, and small generated clip files."""

from __future__ import annotations

import math
import os
import pathlib
import random

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = pathlib.Path(os.environ.get("ANIMCOMP_SHARED_DATA", REPO.parent / "shared" / "data"))


def shared(*parts: str) -> pathlib.Path:
    """A path under ../shared/data; skips the test (with a message) when it is absent."""
    p = DATA.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"shared data {p} not present (tests on generated clips still run)")
    return p


def write_bvh(path, joints: int = 12, frames: int = 90, seed: int = 0, rate: float = 30.0):
    """A BVH file: a branching skeleton (root with position channels, 10 cm bones), smooth
    random ZYX rotations."""
    rng = random.Random(seed)
    parents = [-1] + [rng.randrange(0, i) for i in range(1, joints)]
    children = {i: [c for c in range(joints) if parents[c] == i] for i in range(joints)}
    lines = ["HIERARCHY"]

    def emit(j, depth):
        ind = "  " * depth
        kw = "ROOT" if j == 0 else "JOINT"
        lines.append(f"{ind}{kw} j{j}")
        lines.append(f"{ind}{{")
        off = (0.0, 0.0, 0.0) if j == 0 else (rng.uniform(-3, 3), 10.0, rng.uniform(-3, 3))
        lines.append(f"{ind}  OFFSET {off[0]:.4f} {off[1]:.4f} {off[2]:.4f}")
        if j == 0:
            lines.append(
                f"{ind}  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation"
            )
        else:
            lines.append(f"{ind}  CHANNELS 3 Zrotation Yrotation Xrotation")
        for c in children[j]:
            emit(c, depth + 1)
        if not children[j]:
            lines.append(f"{ind}  End Site")
            lines.append(f"{ind}  {{")
            lines.append(f"{ind}    OFFSET 0 5 0")
            lines.append(f"{ind}  }}")
        lines.append(f"{ind}}}")

    emit(0, 0)
    lines.append("MOTION")
    lines.append(f"Frames: {frames}")
    lines.append(f"Frame Time: {1.0 / rate:.6f}")
    phases = [[rng.uniform(0, 6.28) for _ in range(3)] for _ in range(joints)]
    amps = [[rng.uniform(5, 40) for _ in range(3)] for _ in range(joints)]
    for f in range(frames):
        t = f / rate
        vals = [10 * math.sin(t), 90 + 2 * math.sin(3 * t), 20 * t]
        for j in range(joints):
            a, p = amps[j], phases[j]
            vals += [a[k] * math.sin(1.7 * t * (k + 1) + p[k]) for k in range(3)]
        lines.append(" ".join(f"{v:.4f}" for v in vals))
    pathlib.Path(path).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(path).write_text("\n".join(lines) + "\n")
    return pathlib.Path(path)


@pytest.fixture(scope="session")
def client():
    """One LocalCluster (two single-threaded worker processes) for the batch and cache tests."""
    distributed = pytest.importorskip("dask.distributed")
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture
def bvh(tmp_path):
    return write_bvh(tmp_path / "gen.bvh")


@pytest.fixture
def library(tmp_path):
    """Five generated BVH files in two folders, two file names in both."""
    for i in range(3):
        write_bvh(tmp_path / "lib" / "a" / f"clip{i}.bvh", seed=i)
    for i in range(2):
        write_bvh(tmp_path / "lib" / "b" / f"clip{i}.bvh", seed=10 + i, frames=60)
    return tmp_path / "lib"


def generated_clip(joints=5, samples=40, seed=1):
    import animcomp

    rng = np.random.default_rng(seed)
    q = rng.normal(size=(joints, 4))
    w = rng.normal(size=(joints, 4)) * 0.05
    t = np.arange(samples)[:, None, None]
    rot = q[None] + w[None] * t
    rot /= np.linalg.norm(rot, axis=-1, keepdims=True)
    tra = np.tile(np.array([0.0, 10.0, 0.0]), (samples, joints, 1)) + rng.normal(
        size=(samples, joints, 3)
    ) * 0.01
    parents = [-1] + list(range(joints - 1))
    curves = np.sin(np.linspace(0, 3, samples))[:, None] * np.array([[0.5, 1.0]])
    return animcomp.Clip.from_arrays(
        rot.astype(np.float32),
        tra.astype(np.float32),
        parents,
        sample_rate=30.0,
        curves=curves.astype(np.float32),
        curve_names=["blink", "smile"],
        name="gen",
    )
