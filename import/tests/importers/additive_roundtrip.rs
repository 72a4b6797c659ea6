//! Additive clips end to end: build additive clips from generated clips (relative to their first
//! sample, and relative to another clip), compress them with their base, decode every sample and
//! measure the error of base ⊕ decoded additive in f64 ([`crate::common::additive_check`]).

use crate::common::additive_check::{applied_error, apply64, first_pose, t64, FORMATS};

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::math::Transform;
use animcomp::{compress, compress_additive, CodecChoice, CompressSettings, RawClip};
use animcomp::{
    offline::additive::{make_additive_clip, AdditiveBase},
    AdditiveFormat,
};

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
        let poses = animcomp::offline::additive::BasePoses::new(
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
    let c = animcomp::format::checksum::blob_checksum(&b);
    b[12..16].copy_from_slice(&c.to_le_bytes());
    b
}
