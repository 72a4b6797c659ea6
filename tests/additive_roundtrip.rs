//! Additive clips end to end: build additive clips from generated clips (relative to their first
//! sample, and relative to another clip), compress them with their base, decode every sample and
//! measure the error of base ⊕ decoded additive in f64, independently of the library's metric
//! and of its `apply` (the formulas are written out again here from docs/additive.md).

use animcomp::additive::{make_additive_clip, AdditiveBase, AdditiveFormat};
use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::math::Transform;
use animcomp::{compress, compress_additive, AlignedBlob, CodecChoice, CompressSettings, RawClip};
use glam::{DQuat, DVec3};

const FORMATS: [AdditiveFormat; 3] = [
    AdditiveFormat::Relative,
    AdditiveFormat::Additive0,
    AdditiveFormat::Additive1,
];

#[derive(Clone, Copy)]
struct T64 {
    r: DQuat,
    t: DVec3,
    s: DVec3,
}

fn t64(t: &Transform) -> T64 {
    let q = t.rotation;
    T64 {
        r: DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64).normalize(),
        t: t.translation.as_dvec3(),
        s: t.scale.as_dvec3(),
    }
}

fn mul(p: &T64, c: &T64) -> T64 {
    T64 {
        r: p.r * c.r,
        t: p.r * (p.s * c.t) + p.t,
        s: p.s * c.s,
    }
}

fn apply64(f: AdditiveFormat, b: &T64, a: &T64) -> T64 {
    match f {
        AdditiveFormat::None => *a,
        AdditiveFormat::Relative => mul(b, a),
        AdditiveFormat::Additive0 => T64 {
            r: b.r * a.r,
            t: b.t + a.t,
            s: b.s * a.s,
        },
        AdditiveFormat::Additive1 => T64 {
            r: b.r * a.r,
            t: b.t + a.t,
            s: b.s * (DVec3::ONE + a.s),
        },
    }
}

fn point(x: &T64, p: DVec3) -> DVec3 {
    x.r * (x.s * p) + x.t
}

/// Object-space pose (f64) of base ⊕ local.
fn object(clip: &RawClip, f: AdditiveFormat, base: &[Transform], local: &[Transform]) -> Vec<T64> {
    let mut out: Vec<T64> = Vec::with_capacity(local.len());
    for (j, joint) in clip.skeleton.joints.iter().enumerate() {
        let l = apply64(f, &t64(&base[j]), &t64(&local[j]));
        let o = match joint.parent {
            Some(p) => mul(&out[p as usize], &l),
            None => l,
        };
        out.push(o);
    }
    out
}

/// Largest virtual-vertex error over every joint and sample between base ⊕ raw additive and
/// base ⊕ decoded additive, in f64.
fn applied_error(
    additive: &RawClip,
    f: AdditiveFormat,
    base_at: &dyn Fn(usize) -> Vec<Transform>,
    blob: &[u8],
) -> f64 {
    let blob = AlignedBlob::from_bytes(blob);
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
    assert_eq!(d.header().additive, f as u8);
    let nj = additive.num_joints();
    let mut decoded = vec![Transform::IDENTITY; nj];
    let mut raw = vec![Transform::IDENTITY; nj];
    // Three vertices when the applied clip has scale (as the metric does).
    let mut has_scale = false;
    let mut poses = Vec::new();
    for i in 0..additive.num_samples {
        additive.local_pose(i, &mut raw);
        d.pose_at_sample(i as u32, &mut decoded).unwrap();
        let b = base_at(i);
        let ro = object(additive, f, &b, &raw);
        let lo = object(additive, f, &b, &decoded);
        for j in 0..nj {
            let s = apply64(f, &t64(&b[j]), &t64(&raw[j])).s;
            has_scale |= (s - DVec3::ONE).abs().max_element() > 1e-5;
        }
        poses.push((ro, lo));
    }
    let mut worst = 0.0f64;
    for (ro, lo) in &poses {
        for (j, joint) in additive.skeleton.joints.iter().enumerate() {
            let d = joint.shell_distance as f64;
            let mut verts = vec![DVec3::new(d, 0.0, 0.0), DVec3::new(0.0, d, 0.0)];
            if has_scale {
                verts.push(DVec3::new(0.0, 0.0, d));
            }
            for v in verts {
                let e = (point(&ro[j], v) - point(&lo[j], v)).length();
                worst = worst.max(if e.is_nan() { f64::INFINITY } else { e });
            }
        }
    }
    worst
}

fn clips() -> Vec<RawClip> {
    [(1, false, false), (2, true, false), (3, false, true)]
        .into_iter()
        .map(|(seed, scale, animated_translation)| {
            generate_clip(&GenerateOptions {
                joints: 24,
                samples: 50,
                seed,
                scale,
                animated_translation,
                ..Default::default()
            })
        })
        .collect()
}

fn settings(codec: CodecChoice) -> CompressSettings {
    CompressSettings {
        codec,
        ..Default::default()
    }
}

fn first_pose(clip: &RawClip) -> Vec<Transform> {
    let mut p = vec![Transform::IDENTITY; clip.num_joints()];
    clip.local_pose(0, &mut p);
    p
}

#[test]
fn relative_to_first_sample_meets_precision_in_every_format() {
    for clip in clips() {
        let base = first_pose(&clip);
        for f in FORMATS {
            let additive = make_additive_clip(&clip, &AdditiveBase::Pose(&base), f).unwrap();
            // The conversion itself is exact up to rounding: base ⊕ additive is the clip.
            let mut local = vec![Transform::IDENTITY; clip.num_joints()];
            for i in 0..clip.num_samples {
                additive.local_pose(i, &mut local);
                for j in 0..clip.num_joints() {
                    let x = apply64(f, &t64(&base[j]), &t64(&local[j]));
                    let c = t64(&clip.tracks[j].get(i));
                    assert!((x.t - c.t).length() < 1e-3, "{f:?} joint {j}");
                    assert!((x.s - c.s).length() < 1e-4, "{f:?} joint {j}");
                    assert!(x.r.dot(c.r).abs() > 1.0 - 1e-6, "{f:?} joint {j}");
                }
            }
            for codec in [CodecChoice::Vbr, CodecChoice::Keys] {
                let blob =
                    compress_additive(&additive, &AdditiveBase::Pose(&base), f, &settings(codec))
                        .unwrap();
                let e = applied_error(&additive, f, &|_| base.clone(), &blob);
                assert!(e <= 0.01, "{} {f:?} {codec:?}: error {e}", clip.name);
            }
        }
    }
}

#[test]
fn relative_to_another_clip_meets_precision_in_every_format() {
    let clip = &clips()[1];
    // Same skeleton, other motion: the clip played backwards (equal length), and the same rig
    // at another length and rate (stretched over the additive clip's duration).
    let mut reversed = clip.clone();
    for t in &mut reversed.tracks {
        t.rotations.reverse();
        t.translations.reverse();
        t.scales.reverse();
    }
    let other_len = generate_clip(&GenerateOptions {
        joints: 24,
        samples: 80,
        sample_rate: 60.0,
        seed: 2,
        scale: true,
        ..Default::default()
    });
    assert_eq!(other_len.skeleton, clip.skeleton);
    for base_clip in [&reversed, &other_len] {
        let poses = animcomp::additive::BasePoses::new(
            &AdditiveBase::Clip(base_clip),
            clip.num_joints(),
            clip.num_samples,
        )
        .unwrap();
        for f in FORMATS {
            let base = AdditiveBase::Clip(base_clip);
            let additive = make_additive_clip(clip, &base, f).unwrap();
            let blob = compress_additive(&additive, &base, f, &settings(CodecChoice::Vbr)).unwrap();
            let e = applied_error(&additive, f, &|i| poses.pose(i).to_vec(), &blob);
            assert!(e <= 0.01, "{f:?}: error {e}");
        }
    }
}

/// Size against the naive alternative. Compressing the additive tracks as a plain clip judges
/// them as a pose of their own (near-zero translations, so tiny dominant shells), which does not
/// bound the error of base ⊕ additive. To compare at equal final error, the plain compression's
/// precision is lowered (halving from the target) until base ⊕ decoded meets the target at every
/// sample; the additive-aware blob must be no larger than that plain blob, and (stricter, since
/// size only grows as the precision tightens) no larger than the last plain blob that failed.
#[test]
fn additive_aware_is_no_larger_than_plain_at_equal_final_error() {
    let target = 0.01f64;
    let mut total = (0usize, 0usize);
    for clip in clips() {
        let base = first_pose(&clip);
        for f in FORMATS {
            let additive = make_additive_clip(&clip, &AdditiveBase::Pose(&base), f).unwrap();
            let aware = compress_additive(
                &additive,
                &AdditiveBase::Pose(&base),
                f,
                &settings(CodecChoice::Vbr),
            )
            .unwrap();
            assert!(applied_error(&additive, f, &|_| base.clone(), &aware) <= target);
            let mut p = target as f32;
            let mut failed_size = usize::MAX;
            let plain = loop {
                let mut c = additive.clone();
                for j in &mut c.skeleton.joints {
                    j.precision = p;
                }
                let mut blob = compress(&c, &settings(CodecChoice::Vbr)).unwrap();
                // Judge the plain blob as the additive clip it is (same decoder output).
                blob[7] = f as u8;
                let e = {
                    let fixed = reseal(&blob);
                    applied_error(&additive, f, &|_| base.clone(), &fixed)
                };
                if e <= target {
                    break Some(blob.len());
                }
                if p < 1e-5 {
                    break None;
                }
                failed_size = blob.len();
                p *= 0.5;
            };
            eprintln!(
                "{} {f:?}: additive-aware {} bytes, plain {plain:?} bytes at precision {p}",
                clip.name,
                aware.len()
            );
            match plain {
                Some(plain) => {
                    assert!(aware.len() <= plain.min(failed_size), "{} {f:?}", clip.name);
                    total.0 += aware.len();
                    total.1 += plain;
                }
                // A scale-0 additive1 clip is a collapsed pose on its own: the plain metric sees
                // no error anywhere and the plain blob never meets the target.
                None => assert_eq!(f, AdditiveFormat::Additive1),
            }
        }
    }
    eprintln!(
        "additive-aware {} bytes, plain at equal error {} bytes",
        total.0, total.1
    );
    assert!(total.0 < total.1);
}

/// Recomputes the checksum after editing a header byte.
fn reseal(blob: &[u8]) -> Vec<u8> {
    let mut b = blob.to_vec();
    let c = animcomp::blob::writer::blob_checksum(&b);
    b[12..16].copy_from_slice(&c.to_le_bytes());
    b
}
