"""The Python API: loading, clips from arrays, compression, sampling, errors, measurement."""

from __future__ import annotations

import ctypes
import pickle
import threading

import numpy as np
import pytest

import animcomp
from conftest import REPO, generated_clip, shared, write_bvh


def test_load_bvh_gives_numpy_views(bvh):
    clip = animcomp.load(bvh)
    assert clip.num_joints == 12 and clip.num_samples == 90
    assert clip.rotations.shape == (90, 12, 4) and clip.rotations.dtype == np.float32
    assert clip.translations.shape == (90, 12, 3) and clip.scales.shape == (90, 12, 3)
    assert clip.parents.dtype == np.int32 and clip.parents[0] == -1
    assert all(clip.parents[1:] < np.arange(1, 12))
    assert clip.joint_names[:2] == ["j0", "j1"]
    assert clip.sample_rate == pytest.approx(30.0, rel=1e-4)
    assert clip.curves.shape == (90, 0) and clip.curve_names == []
    norms = np.linalg.norm(clip.rotations, axis=-1)
    assert np.allclose(norms, 1.0, atol=1e-4)
    # The root's position channels are its translations.
    assert clip.translations[0, 0, 1] == pytest.approx(90.0, abs=1e-3)


def test_load_resample(bvh):
    clip = animcomp.load(bvh, resample=60.0)
    assert clip.sample_rate == 60.0
    assert clip.num_samples == 179


def test_load_errors(tmp_path):
    with pytest.raises(animcomp.LoadError, match="no such file"):
        animcomp.load(tmp_path / "missing.bvh")
    bad = tmp_path / "bad.bvh"
    bad.write_text("HIERARCHY\nROOT x\n{ OFFSET 0 0")
    with pytest.raises(animcomp.LoadError) as e:
        animcomp.load(bad)
    assert "bad.bvh" in str(e.value)
    assert isinstance(e.value, animcomp.Error)
    other = tmp_path / "x.unknown"
    other.write_text("hello")
    with pytest.raises(animcomp.LoadError):
        animcomp.load(other)


def test_load_gltf_takes_by_index_and_name():
    fox = shared("gltf", "Fox.glb") if (shared("gltf") / "Fox.glb").exists() else None
    if fox is None:
        found = sorted(shared("gltf").rglob("Fox*.gl*"))
        if not found:
            pytest.skip("no Fox glTF in the shared data")
        fox = found[0]
    takes = animcomp.load_all(fox)
    assert len(takes) == 3
    names = [t.name for t in takes]
    second = animcomp.load(fox, stack=1)
    assert second.name == names[1]
    by_name = animcomp.load(fox, stack=names[2].split(":")[-1])
    assert by_name.name == names[2]
    with pytest.raises(animcomp.InputError, match="out of range"):
        animcomp.load(fox, stack=5)
    with pytest.raises(animcomp.InputError, match="no take named"):
        animcomp.load(fox, stack="nope")


def test_load_curves_file():
    csvs = sorted(shared("curves").rglob("*.csv"))
    if not csvs:
        pytest.skip("no Live Link CSV in the shared data")
    clip = animcomp.load(csvs[0])
    assert clip.num_joints == 0
    assert clip.curves.shape[1] == len(clip.curve_names) > 50
    blob = animcomp.compress(clip)
    assert blob.info["num_curves"] == len(clip.curve_names)
    t = 1.0
    i = int(round(t * clip.sample_rate))
    got = blob.sample_curves(i / clip.sample_rate)
    assert np.max(np.abs(got - clip.curves[i])) <= 0.001 * 1.0001


def test_load_acl_sjson():
    files = sorted(shared("acl-regression").glob("*.sjson"))
    clip = animcomp.load(files[0])
    assert clip.num_joints == 44


def test_from_arrays_checks_input():
    c = generated_clip()
    ok = dict(sample_rate=30.0)
    with pytest.raises(animcomp.InputError, match="rotations: dtype int64"):
        animcomp.Clip.from_arrays(np.zeros((4, 2, 4), np.int64), c.translations[:4, :2], [-1, 0], **ok)
    with pytest.raises(animcomp.InputError, match=r"rotations: shape \(4, 2, 3\)"):
        animcomp.Clip.from_arrays(np.zeros((4, 2, 3)), np.zeros((4, 2, 3)), [-1, 0], **ok)
    with pytest.raises(animcomp.InputError, match="translations: shape"):
        animcomp.Clip.from_arrays(c.rotations, np.ascontiguousarray(c.translations[:, :2]), c.parents, **ok)
    with pytest.raises(animcomp.InputError, match="not C-contiguous"):
        animcomp.Clip.from_arrays(c.rotations[::2], c.translations[::2], c.parents, **ok)
    rot = c.rotations.copy()
    rot[3, 1, 2] = np.nan
    with pytest.raises(animcomp.InputError, match=r"rotations: non-finite value nan at index \(3, 1, 2\)"):
        animcomp.Clip.from_arrays(rot, c.translations, c.parents, **ok)
    with pytest.raises(animcomp.InputError, match="parents"):
        animcomp.Clip.from_arrays(c.rotations, c.translations, [-1, 0], **ok)
    with pytest.raises(animcomp.InputError, match="sample_rate"):
        animcomp.Clip.from_arrays(c.rotations, c.translations, c.parents, sample_rate=0)
    # float64 input is converted, the result is float32.
    c64 = animcomp.Clip.from_arrays(
        c.rotations.astype(np.float64), c.translations.astype(np.float64), c.parents, **ok
    )
    assert c64.rotations.dtype == np.float32


def test_library_rejections_carry_the_c_status():
    c = generated_clip()
    bad_parents = animcomp.Clip.from_arrays(
        c.rotations, c.translations, [-1, 2, 0, 1, 3], sample_rate=30.0
    )
    with pytest.raises(animcomp.ClipError) as e:
        animcomp.compress(bad_parents)
    assert e.value.status == 12 and e.value.status_name == "InvalidParent"
    assert "parent" in str(e.value)
    not_unit = animcomp.Clip.from_arrays(c.rotations * 3, c.translations, c.parents, sample_rate=30.0)
    with pytest.raises(animcomp.ClipError) as e:
        animcomp.compress(not_unit)
    assert e.value.status == 13
    with pytest.raises(animcomp.InputError, match="unknown codec"):
        animcomp.compress(c, codec="zip")
    with pytest.raises(animcomp.InputError, match="precision"):
        animcomp.compress(c, precision=-1)
    with pytest.raises(animcomp.InputError, match="unknown level"):
        animcomp.compress(c, level="max")
    # A Clip whose arrays were replaced by bad ones after construction is checked again.
    c.rotations = c.rotations.astype(np.int32)
    with pytest.raises(animcomp.InputError, match="dtype int32"):
        animcomp.compress(c)
    # Exceptions keep their status through pickling (Dask ships them between processes).
    e2 = pickle.loads(pickle.dumps(animcomp.ClipError("x", 13)))
    assert type(e2) is animcomp.ClipError and e2.status == 13 and str(e2) == "x"


@pytest.mark.parametrize("codec", ["auto", "fixed", "vbr", "keys"])
def test_compress_sample_and_measure(codec, bvh):
    clip = animcomp.load(bvh)
    blob = animcomp.compress(clip, codec=codec, precision=0.01, shell=3.0)
    assert isinstance(blob, bytes) and len(blob) % 16 == 0
    assert blob.aligned_address % 16 == 0
    info = blob.info
    assert info["num_joints"] == 12 and info["num_samples"] == 90
    assert info["codec"] in ("fixed", "vbr", "keys")
    if codec != "auto":
        assert info["codec"] == codec
    want = {"vbr": animcomp.BLOB_FORMAT_VERSION_GROUPED}.get(info["codec"], animcomp.BLOB_FORMAT_VERSION)
    assert info["format_version"] == want
    pose = blob.sample(0.5)
    assert pose.shape == (12, 10) and pose.dtype == np.float32
    # Samples stored exactly at sample times: close to the raw clip.
    i = 15
    p = blob.sample(i / clip.sample_rate)
    assert np.allclose(p[:, 4:7], clip.translations[i], atol=0.05)
    dots = np.abs(np.sum(p[:, :4] * clip.rotations[i], axis=-1))
    assert np.all(dots > 0.999)
    m = animcomp.measure(clip, blob)
    assert 0 < m.max_error <= 0.01 and m.p99_error <= m.max_error
    assert m.per_joint.shape == (12,) and m.per_joint.max() == pytest.approx(m.max_error)
    assert m.max == m.max_error and m.p99 == m.p99_error


def test_compress_tighter_precision_is_bigger_and_measured_within(bvh):
    clip = animcomp.load(bvh)
    loose = animcomp.compress(clip, codec="vbr", precision=0.1)
    tight = animcomp.compress(clip, codec="vbr", precision=0.001)
    assert len(tight) > len(loose)
    assert animcomp.measure(clip, tight).max_error <= 0.001
    assert 0.001 < animcomp.measure(clip, loose).max_error <= 0.1


def test_sample_many_equals_sample_and_releases_the_gil(bvh):
    clip = animcomp.load(bvh)
    blob = animcomp.compress(clip)
    times = np.linspace(-0.5, 4.0, 57)
    many = blob.sample_many(times)
    assert many.shape == (57, 12, 10)
    for k in (0, 13, 56):
        assert np.array_equal(many[k], blob.sample(times[k]))
    wrapped = blob.sample_many(times, looping="wrap")
    assert np.array_equal(wrapped[20], blob.sample(times[20], looping="wrap"))
    with pytest.raises(animcomp.InputError):
        blob.sample_many(np.array([0.0, np.nan]))
    with pytest.raises(animcomp.InputError):
        blob.sample_many(np.zeros((2, 2)))
    # The GIL is released: another thread runs while a long sample_many call is in progress.
    big = np.linspace(0, 3, 400_000)
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(1)

    th = threading.Thread(target=ticker)
    th.start()
    try:
        before = len(ticks)
        blob.sample_many(big)
        during = len(ticks) - before
    finally:
        stop.set()
        th.join()
    assert during > 100


def test_curves_round_trip():
    clip = generated_clip()
    blob = animcomp.compress(clip, curve_precision=0.001)
    assert blob.info["num_curves"] == 2
    for i in (0, 17, 39):
        got = blob.sample_curves(i / clip.sample_rate)
        assert got.shape == (2,)
        assert np.max(np.abs(got - clip.curves[i])) <= 0.001 * 1.0001


def test_additive_with_base_clip_and_pose(bvh):
    clip = animcomp.load(bvh)
    base_pose = np.concatenate([clip.rotations[0], clip.translations[0], clip.scales[0]], axis=1)
    with pytest.raises(animcomp.InputError, match="needs base"):
        animcomp.compress(clip, additive="additive0")
    for base in (clip, base_pose):
        blob = animcomp.compress(clip, additive="additive0", base=base)
        assert blob.info["additive"] == "additive0"
        with pytest.raises(animcomp.InputError, match="base"):
            animcomp.measure(clip, blob)
        assert animcomp.measure(clip, blob, base=base).max_error <= 0.01


def test_blob_bytes_like_pickle_and_validation(bvh):
    clip = animcomp.load(bvh)
    blob = animcomp.compress(clip)
    assert memoryview(blob).nbytes == len(blob)
    assert np.frombuffer(blob, np.uint8).size == len(blob)
    again = pickle.loads(pickle.dumps(blob))
    assert type(again) is animcomp.Blob and again == blob
    assert np.array_equal(again.sample(1.0), blob.sample(1.0))
    assert animcomp.Blob.from_bytes(bytearray(blob)) == blob
    assert animcomp.Blob.from_bytes(memoryview(blob)) == blob
    broken = bytearray(blob)
    broken[len(broken) // 2] ^= 0x5A
    with pytest.raises(animcomp.BlobError) as e:
        animcomp.Blob.from_bytes(bytes(broken))
    assert e.value.status in (21, 22)
    with pytest.raises(animcomp.BlobError) as e:
        animcomp.Blob.from_bytes(b"nope" * 40)
    assert e.value.status == 18
    with pytest.raises(animcomp.BlobError):
        animcomp.Blob.from_bytes(bytes(blob[:-16]))
    with pytest.raises(animcomp.BlobError):
        animcomp.Blob.from_bytes(bytes(blob) + bytes(16))
    with pytest.raises(animcomp.InputError):
        animcomp.Blob.from_bytes("text")
    with pytest.raises(animcomp.ArgumentError) as e:
        blob.sample(float("nan"))
    assert e.value.status == 24
    with pytest.raises(animcomp.InputError, match="looping"):
        blob.sample(0.0, looping="bounce")


def test_measure_rejects_a_foreign_blob(bvh, tmp_path):
    clip = animcomp.load(bvh)
    other = animcomp.load(write_bvh(tmp_path / "o.bvh", joints=7))
    with pytest.raises(animcomp.InputError, match="joints"):
        animcomp.measure(clip, animcomp.compress(other))


def test_help_reads_well():
    for obj in (animcomp.load, animcomp.compress, animcomp.measure, animcomp.Blob.sample_many,
                animcomp.Clip.from_arrays, animcomp.Blob):
        assert obj.__doc__ and len(obj.__doc__) > 60


# --- Bit identity with the C ABI ---------------------------------------------------------------


def _c_library():
    """The C library: ANIMCOMP_C_LIBRARY, else what `cargo test --workspace` built
    (target/debug/deps/libanimcomp.so), else a `cargo build` of it."""
    import os

    env = os.environ.get("ANIMCOMP_C_LIBRARY")
    candidates = [env] if env else []
    candidates += [
        REPO / "target" / "debug" / "deps" / "libanimcomp.so",
        REPO / "target" / "debug" / "libanimcomp.so",
        REPO / "target" / "release" / "libanimcomp.so",
    ]
    for p in candidates:
        if p and os.path.exists(p):
            return ctypes.CDLL(str(p))
    pytest.skip("no libanimcomp.so under target/ (cargo test --workspace builds one)")


def _aligned(nbytes: int) -> np.ndarray:
    raw = np.zeros(nbytes + 16, np.uint8)
    off = (-raw.ctypes.data) % 16
    return raw[off : off + nbytes]


def _c_sample(lib, blob: bytes, joints: int, t: float) -> np.ndarray:
    buf = _aligned(len(blob))
    buf[:] = np.frombuffer(blob, np.uint8)
    ctx = _aligned(16 * 8)
    status = lib.animcomp_decompressor_init(
        ctypes.c_void_p(ctx.ctypes.data), ctypes.c_void_p(buf.ctypes.data), ctypes.c_size_t(len(blob)), None
    )
    assert status == 0
    assert lib.animcomp_seek(ctypes.c_void_p(ctx.ctypes.data), ctypes.c_float(t), 0, 0) == 0
    out = np.zeros((joints, 10), np.float32)
    status = lib.animcomp_sample_pose(
        ctypes.c_void_p(ctx.ctypes.data), ctypes.c_void_p(out.ctypes.data), ctypes.c_size_t(out.size), ctypes.c_size_t(10)
    )
    assert status == 0
    return out


def test_poses_bit_identical_to_the_c_abi(bvh):
    lib = _c_library()
    clips = [animcomp.load(bvh)]
    cmu = sorted(shared("cmu-cc").glob("*.bvh"))[:1] if (REPO.parent / "shared").exists() else []
    clips += [animcomp.load(p) for p in cmu]
    for clip in clips:
        for codec in ("fixed", "vbr", "keys"):
            blob = animcomp.compress(clip, codec=codec)
            times = np.linspace(-0.1, clip.duration + 0.1, 23)
            many = blob.sample_many(times)
            for k, t in enumerate(times):
                c = _c_sample(lib, bytes(blob), clip.num_joints, float(t))
                py = blob.sample(float(t))
                assert py.tobytes() == c.tobytes(), (clip.name, codec, t)
                assert many[k].tobytes() == c.tobytes()


GOLDEN = REPO / "tests" / "golden"


def test_every_layout_writes_the_grouped_blob(bvh, tmp_path):
    clip = animcomp.load(bvh)
    grp = animcomp.compress(clip, codec="vbr")
    assert grp.info["format_version"] == animcomp.BLOB_FORMAT_VERSION_GROUPED == 5
    assert grp.info["codec"] == "vbr"
    for layout in ("segments", "grouped", "auto"):
        assert animcomp.compress(clip, codec="vbr", layout=layout) == grp
    # Small rigs too.
    for joints in (3, 12, 16):
        small = animcomp.load(write_bvh(tmp_path / f"j{joints}.bvh", joints=joints))
        assert animcomp.compress(small, codec="vbr").info["format_version"] == 5, joints
    fixed = animcomp.compress(clip, codec="fixed")
    assert fixed.info["format_version"] == animcomp.BLOB_FORMAT_VERSION == 2
    with pytest.raises(animcomp.InputError, match="unknown layout"):
        animcomp.compress(clip, codec="vbr", layout="lanes")
    assert grp.regrouped() == grp
    with pytest.raises(animcomp.ArgumentError, match="only vbr blobs"):
        fixed.regrouped()
    # The batch settings' cache key leaves the default layout out.
    assert "layout" not in animcomp.batch.Settings().compress_kwargs()
    assert animcomp.batch.Settings(layout="grouped").compress_kwargs()["layout"] == "grouped"


def test_a_format_version_2_vbr_blob_is_refused_and_regrouped():
    data = (GOLDEN / "vbr_default_v2.blob").read_bytes()
    with pytest.raises(animcomp.BlobError, match="Blob.regrouped") as e:
        animcomp.Blob.from_bytes(data)
    assert e.value.status_name == "UnsupportedVersion"
    grp = animcomp.Blob.regrouped(data)
    assert grp.info["format_version"] == 5
    # The poses recorded for the golden (tests/codecs/golden_blobs.rs: u32 entries, u32 joints,
    # then per entry f32 time, u32 looping, u32 rounding and joints x 10 f32), bit for bit.
    poses = (GOLDEN / "vbr_default_v2.poses").read_bytes()
    entries, joints = np.frombuffer(poses[:8], dtype="<u4")
    assert joints == grp.num_joints
    at = 8
    for _ in range(entries):
        t = float(np.frombuffer(poses[at : at + 4], dtype="<f4")[0])
        looping, rounding = np.frombuffer(poses[at + 4 : at + 12], dtype="<u4")
        want = np.frombuffer(poses[at + 12 : at + 12 + 40 * joints], dtype="<f4")
        at += 12 + 40 * joints
        if rounding == 0:
            got = grp.sample(t, looping=("clamp", "wrap")[looping])
            assert got.tobytes() == want.tobytes(), (t, looping)
    assert at == len(poses)


def test_float64_poses_are_the_exact_widening(bvh):
    clip = animcomp.load(bvh)
    for codec in ("vbr", "fixed", "keys"):
        blob = animcomp.compress(clip, codec=codec)
        for t in (0.0, 0.37, 2.9):
            p32 = blob.sample(t)
            p64 = blob.sample(t, dtype=np.float64)
            assert p64.dtype == np.float64 and p64.shape == p32.shape
            assert np.array_equal(p64, p32.astype(np.float64))
        times = np.linspace(-0.5, 4.0, 9)
        m64 = blob.sample_many(times, looping="wrap", dtype="float64")
        assert m64.dtype == np.float64
        assert np.array_equal(m64, blob.sample_many(times, looping="wrap").astype(np.float64))
    with pytest.raises(animcomp.InputError):
        blob.sample(0.0, dtype=np.int32)
