//! The same bits on every CPU (docs/determinism.md): generated clips, the blobs compressed from
//! them and the poses decoded from those blobs hash to values pinned in
//! `tests/determinism/hashes.txt`, for every codec (fixed, vbr, keys, curves, additive; `vbr`
//! also with the reserved layout setting, which writes the same blob). CI runs this on x86-64, on aarch64 under qemu and on wasm32 under Node's WASI
//! (.ci/cross.sh); a hash that differs on one target is a pose or blob that differs there.
//!
//! After a deliberate change of a blob format or of an encoder's choices, re-pin the hashes with
//! `ANIMCOMP_BLESS=1 cargo test -p animcomp --test determinism` (it rewrites the file and passes)
//! and commit the file; pose hashes change only when decoded poses do.

#![cfg(feature = "compress")]

use animcomp::clip::{generate_clip, GenerateOptions, RawClip};
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::format::quantize::{RotationFormat, VectorFormat};
use animcomp::offline::additive::make_additive_clip;
use animcomp::offline::DefaultMode;
use animcomp::runtime::additive::apply_pose;
use animcomp::{
    compress, compress_additive, compress_with_curves, AdditiveBase, AdditiveFormat, AlignedBlob,
    CodecChoice, CompressSettings, Curve, VbrLayout,
};

#[cfg(not(target_os = "wasi"))]
#[path = "support/emulated.rs"]
mod emulated;

const PINNED: &str = include_str!("determinism/hashes.txt");
const PINNED_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/determinism/hashes.txt");

/// 64-bit FNV-1a.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xCBF2_9CE4_8422_2325)
    }
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 = (self.0 ^ x as u64).wrapping_mul(0x0000_0100_0000_01B3);
        }
    }
    fn floats(&mut self, v: &[f32]) {
        for f in v {
            self.bytes(&f.to_bits().to_le_bytes());
        }
    }
}

fn hash_bytes(b: &[u8]) -> u64 {
    let mut h = Fnv::new();
    h.bytes(b);
    h.0
}

fn hash_floats(v: &[f32]) -> u64 {
    let mut h = Fnv::new();
    h.floats(v);
    h.0
}

/// The clips: a 24-joint clip with animated translation and scale, and a looping 9-joint clip
/// with a bind pose (the generator's trigonometry is `animcomp::math::trig`).
fn clips() -> Vec<(&'static str, RawClip)> {
    let walk = generate_clip(&GenerateOptions {
        joints: 24,
        samples: 61,
        sample_rate: 30.0,
        scale: true,
        animated_translation: true,
        seed: 45,
        ..Default::default()
    });
    let looping = generate_clip(&GenerateOptions {
        joints: 9,
        samples: 33,
        sample_rate: 24.0,
        max_depth: 4,
        seed: 7,
        looping: true,
        ..Default::default()
    });
    vec![("walk", walk), ("loop", looping)]
}

fn clip_floats(c: &RawClip) -> Vec<f32> {
    let mut v = vec![c.sample_rate];
    for t in c.skeleton.bind_pose.iter().flatten() {
        let mut f = [0.0; 10];
        t.write_to(&mut f);
        v.extend(f);
    }
    for t in &c.tracks {
        for i in 0..c.num_samples {
            v.extend(t.rotations[i].to_array());
            v.extend(t.translations[i].to_array());
            v.extend(t.scales[i].to_array());
        }
    }
    v
}

/// Curves beside the walk clip's joints: a smooth one, a constant, a sawtooth, a wide one (no
/// platform math: polynomials of the sample index).
fn curves(samples: usize) -> Vec<Curve> {
    (0..4u32)
        .map(|c| {
            let values = (0..samples)
                .map(|i| {
                    let u = i as f32 / samples as f32;
                    match c {
                        0 => u * u * (3.0 - 2.0 * u),
                        1 => 0.25,
                        2 => (i % 7) as f32 / 7.0,
                        _ => 500.0 * u * (1.0 - u) - 40.0,
                    }
                })
                .collect();
            Curve::new(format!("curve{c}"), 10 + c, values)
        })
        .collect()
}

/// Where poses are sampled: times inside, at and past the ends, clamped and wrapped, and one
/// rounded to the nearest sample.
fn entries(duration: f32) -> Vec<(f32, Looping, Rounding)> {
    let mut e: Vec<_> = [0.0, 0.013, 0.25, 1.0 / 3.0, 0.5, 0.77, 0.999, 1.0, 1.37]
        .iter()
        .map(|&f| (f * duration, Looping::Clamp, Rounding::None))
        .collect();
    e.push((0.61 * duration, Looping::Wrap, Rounding::None));
    e.push((1.3 * duration, Looping::Wrap, Rounding::None));
    e.push((0.4 * duration, Looping::Clamp, Rounding::Nearest));
    e
}

/// One blob's decoded poses (and curves) at [`entries`], every entry point checked against
/// `sample_pose` bit for bit on the way: the playback cache, one joint at a time, all joints as a
/// subset.
fn decode(blob: &[u8], bind: Option<&[f32]>) -> Vec<f32> {
    let blob = AlignedBlob::from_bytes(blob);
    let opts = DecompressOptions {
        bind_pose: bind,
        ..Default::default()
    };
    let mut d = Decompressor::new(blob.as_bytes(), &opts).expect("the blob opens");
    let h = *d.header();
    let nj = d.num_joints();
    let duration = if h.num_samples > 1 {
        (h.num_samples - 1) as f32 / h.sample_rate
    } else {
        0.0
    };
    let mut cache = AlignedBlob::from_bytes(&vec![0u8; d.playback_cache_size()]);
    let all: Vec<u32> = (0..nj as u32).collect();
    let mut out = Vec::new();
    for (t, looping, rounding) in entries(duration) {
        d.seek(t, looping, rounding).unwrap();
        let mut pose = vec![0.0f32; nj * 10];
        d.sample_pose(&mut pose, 10).unwrap();
        let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        let mut cached = vec![0.0f32; nj * 10];
        d.sample_pose_cached(cache.as_bytes_mut(), &mut cached, 10)
            .unwrap();
        assert_eq!(bits(&cached), bits(&pose), "cached pose at {t}");
        let mut subset = vec![0.0f32; nj * 10];
        d.sample_joints(&all, None, 7, &mut subset, 10).unwrap();
        assert_eq!(bits(&subset), bits(&pose), "all joints as a subset at {t}");
        for j in 0..nj {
            let mut one = [0.0f32; 10];
            d.sample_joint(j as u32).unwrap().write_to(&mut one);
            assert_eq!(bits(&one), bits(&pose[j * 10..][..10]), "joint {j} at {t}");
        }
        out.extend(pose);
        let mut c = vec![0.0f32; d.num_curves()];
        d.sample_curves(&mut c).unwrap();
        out.extend(c);
    }
    out
}

/// One case: a blob, what it decodes with, and extra floats to hash with its poses.
struct Case {
    name: String,
    blob: Vec<u8>,
    bind: Option<Vec<f32>>,
    poses: Vec<f32>,
}

fn settings(codec: CodecChoice) -> CompressSettings {
    CompressSettings {
        codec,
        ..Default::default()
    }
}

/// A case's name, its blob, and the bind pose it decodes with (if its defaults are the bind pose).
type NamedBlob = (String, Vec<u8>, Option<Vec<f32>>);

/// Every codec on both clips (`vbr` also with `VbrLayout::Grouped`, reserved: the same blob);
/// curves; an additive clip applied to its base.
fn blobs(clips: &[(&'static str, RawClip)]) -> Vec<NamedBlob> {
    blobs_where(clips, |_| true)
}

/// The cases of [`blobs`] whose index `keep` accepts (the others are not compressed).
fn blobs_where(clips: &[(&'static str, RawClip)], keep: impl Fn(usize) -> bool) -> Vec<NamedBlob> {
    let mut v = Vec::new();
    let index = std::cell::Cell::new(0);
    let next = || {
        let i = index.get();
        index.set(i + 1);
        keep(i)
    };
    let fixed32 = CompressSettings {
        codec: CodecChoice::Fixed,
        rotation_format: RotationFormat::Float32NoW,
        translation_format: VectorFormat::RangeReduced32,
        scale_format: VectorFormat::Float96,
        ..Default::default()
    };
    let grouped = CompressSettings {
        vbr_layout: VbrLayout::Grouped,
        ..settings(CodecChoice::Vbr)
    };
    let bind_loop = |codec| CompressSettings {
        default_mode: DefaultMode::BindPose,
        optimize_loops: true,
        ..settings(codec)
    };
    for (clip_name, clip) in clips {
        let mut add = |name: &str, s: &CompressSettings| {
            if !next() {
                return;
            }
            let bind = (s.default_mode == DefaultMode::BindPose)
                .then(|| clip.bind_pose_floats().expect("a bind pose"));
            let blob = compress(clip, s).expect("compresses");
            v.push((format!("{name}-{clip_name}"), blob, bind));
        };
        add("fixed", &settings(CodecChoice::Fixed));
        add("fixed-float32now", &fixed32);
        add("vbr", &settings(CodecChoice::Vbr));
        add("vbr-grouped", &grouped);
        add("keys", &settings(CodecChoice::Keys));
        add("fixed-bind-loop", &bind_loop(CodecChoice::Fixed));
        add("vbr-bind-loop", &bind_loop(CodecChoice::Vbr));
        add("keys-bind-loop", &bind_loop(CodecChoice::Keys));
    }
    let walk = &clips[0].1;
    let c = curves(walk.num_samples);
    for codec in [CodecChoice::Vbr, CodecChoice::Keys] {
        if !next() {
            continue;
        }
        let blob = compress_with_curves(walk, &c, &settings(codec)).expect("compresses");
        v.push((format!("curves-{}", codec.name()), blob, None));
    }
    v
}

/// The additive case: the loop clip made additive (relative) to a second generated clip on the
/// same skeleton, compressed, decoded, and applied at weight 0.7 to the base's raw poses.
fn additive() -> (Vec<u8>, Vec<f32>) {
    let opts = GenerateOptions {
        joints: 9,
        samples: 33,
        sample_rate: 24.0,
        max_depth: 4,
        seed: 7,
        ..Default::default()
    };
    let base = generate_clip(&GenerateOptions {
        seed: 8,
        ..opts.clone()
    });
    let target = generate_clip(&opts);
    let format = AdditiveFormat::Relative;
    let additive = make_additive_clip(&target, &AdditiveBase::Clip(&base), format).unwrap();
    let blob = compress_additive(
        &additive,
        &AdditiveBase::Clip(&base),
        format,
        &settings(CodecChoice::Vbr),
    )
    .expect("compresses");
    let poses = decode(&blob, None);
    // Each decoded additive pose applied to the base's first sample (entries hold a pose of
    // 9 joints each; the blob has no curves).
    let mut base_pose = vec![0.0f32; 90];
    for (j, t) in base.tracks.iter().enumerate() {
        let f = &mut base_pose[j * 10..][..10];
        f[..4].copy_from_slice(&t.rotations[0].to_array());
        f[4..7].copy_from_slice(&t.translations[0].to_array());
        f[7..].copy_from_slice(&t.scales[0].to_array());
    }
    let mut applied = Vec::new();
    for pose in poses.chunks_exact(90) {
        let mut out = vec![0.0f32; 90];
        apply_pose(format, &base_pose, pose, 0.7, &mut out).unwrap();
        applied.extend(out);
    }
    let mut all = poses;
    all.extend(applied);
    (blob, all)
}

/// Every hash, as the lines of the pinned file (`kind name hex`).
fn hashes() -> Vec<String> {
    let clips = clips();
    let mut lines = Vec::new();
    for (name, clip) in &clips {
        lines.push(format!(
            "clip {name} {:016x}",
            hash_floats(&clip_floats(clip))
        ));
    }
    let mut cases: Vec<Case> = blobs(&clips)
        .into_iter()
        .map(|(name, blob, bind)| {
            let poses = decode(&blob, bind.as_deref());
            Case {
                name,
                blob,
                bind,
                poses,
            }
        })
        .collect();
    let (blob, poses) = additive();
    cases.push(Case {
        name: "additive-relative".into(),
        blob,
        bind: None,
        poses,
    });
    for c in &cases {
        lines.push(format!("blob {} {:016x}", c.name, hash_bytes(&c.blob)));
    }
    for c in &cases {
        let mut p = c.poses.clone();
        p.extend(c.bind.iter().flatten());
        lines.push(format!("pose {} {:016x}", c.name, hash_floats(&p)));
    }
    lines
}

#[test]
fn clips_blobs_and_poses_hash_to_the_pinned_values() {
    let got = hashes();
    if std::env::var("ANIMCOMP_BLESS").is_ok_and(|v| v == "1") {
        let mut text = String::from(
            "# Hashes (64-bit FNV-1a) of generated clips, their blobs and the poses decoded from\n\
             # them: tests/determinism.rs, docs/determinism.md. The same on every target.\n\
             # Rewrite: ANIMCOMP_BLESS=1 cargo test -p animcomp --test determinism\n",
        );
        for l in &got {
            text.push_str(l);
            text.push('\n');
        }
        std::fs::write(PINNED_PATH, text).expect("writes the pinned hashes");
        println!("wrote {} hashes to {PINNED_PATH}", got.len());
        return;
    }
    let pinned: Vec<&str> = PINNED
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .collect();
    let key = |l: &str| {
        l.rsplit_once(' ')
            .map(|(k, _)| k.to_string())
            .unwrap_or_default()
    };
    let mut wrong = Vec::new();
    for g in &got {
        match pinned.iter().find(|p| key(p) == key(g)) {
            Some(p) if *p == g.as_str() => {}
            Some(p) => wrong.push(format!("{g} (pinned: {p})")),
            None => wrong.push(format!("{g} (not pinned)")),
        }
    }
    for p in &pinned {
        if !got.iter().any(|g| key(g) == key(p)) {
            wrong.push(format!("{p} (pinned, no longer computed)"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} hashes differ from {PINNED_PATH} on this target; if a format or encoder \
         change was meant, re-pin with ANIMCOMP_BLESS=1 (docs/determinism.md):\n{}",
        wrong.len(),
        got.len(),
        wrong.join("\n")
    );
}

/// The compressor keeps no state between calls: the same clips compressed on several threads at
/// once give the blobs compressed one after the other (a tool may compress many clips in
/// parallel, as the CLI and the Python package do). Under qemu (.ci/cross.sh) two threads, one
/// per core of the CI machine, each compressing every other case at the same time as the other
/// thread, and the blobs compressed one after the other are not compressed again: each thread's
/// blobs hash to the pinned values, which `clips_blobs_and_poses_hash_to_the_pinned_values`
/// checks those against. Every case is compressed once instead of five times (this was the
/// longest test there, 35 s of CPU); x86-64 runs four threads, each compressing every case,
/// against a sequential run.
#[cfg(not(target_os = "wasi"))]
#[test]
fn blobs_do_not_depend_on_threads() {
    let clips = clips();
    let emulated = emulated::emulated();
    let threads = if emulated { 2 } else { 4 };
    let parallel: Vec<Vec<NamedBlob>> = std::thread::scope(|s| {
        let clips = &clips;
        let handles: Vec<_> = (0..threads)
            .map(|k| s.spawn(move || blobs_where(clips, |i| !emulated || i % threads == k)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    if emulated {
        let pinned_blob = |name: &str| {
            let prefix = format!("blob {name} ");
            PINNED
                .lines()
                .find(|l| l.starts_with(&prefix))
                .unwrap_or_else(|| panic!("{name}: no pinned blob hash"))
        };
        for p in &parallel {
            for (name, blob, _) in p {
                assert_eq!(
                    format!("blob {name} {:016x}", hash_bytes(blob)),
                    pinned_blob(name),
                    "{name}: blob differs when compressed on threads"
                );
            }
        }
        return;
    }
    let one = blobs(&clips);
    for p in parallel {
        assert_eq!(p.len(), one.len());
        for (a, b) in p.iter().zip(&one) {
            assert!(
                a.1 == b.1,
                "{}: blob differs when compressed on threads",
                a.0
            );
        }
    }
}
