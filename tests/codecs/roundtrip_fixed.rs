//! Round trips through the `fixed` codec: every format on generated clips (deep chains, scale
//! on/off, looping on/off), errors within the bound derived from the formats' documented
//! worst cases; constant/default detection; determinism; tiny clips; property tests.

use crate::support_fixed;

use animcomp::clip::{generate_clip, GenerateOptions, RawClip};
use animcomp::format::quantize::{RotationFormat, VectorFormat};
use animcomp::format::validate_blob;
use animcomp::math::{Quat, Transform, Vec3};
use animcomp::offline::{describe, DefaultMode};
use animcomp::{compress, CodecChoice, CompressSettings};
use proptest::prelude::*;
use support_fixed::{channel_bounds, is_looping, propagated_bounds, roundtrip};

fn settings(rf: RotationFormat, tf: VectorFormat, sf: VectorFormat) -> CompressSettings {
    CompressSettings {
        codec: CodecChoice::Fixed,
        rotation_format: rf,
        translation_format: tf,
        scale_format: sf,
        ..Default::default()
    }
}

/// Compresses, measures, and checks every joint against its derived bound. Returns (size,
/// measured max, bound at the worst joint).
fn check_within_bound(clip: &RawClip, s: &CompressSettings) -> (usize, f32, f32) {
    let (blob, stats) = roundtrip(clip, s);
    let mut bounds = propagated_bounds(clip, &channel_bounds(clip, s, &blob));
    if is_looping(&blob) {
        // The dropped last sample is replaced by the first, equal within half the precision.
        for (b, j) in bounds.iter_mut().zip(&clip.skeleton.joints) {
            *b += 0.5 * j.precision;
        }
    }
    for (j, (&e, &b)) in stats.per_joint_max.iter().zip(&bounds).enumerate() {
        assert!(
            e <= b,
            "{} / {} / {}: joint {j} error {e} > bound {b}",
            s.rotation_format.name(),
            s.translation_format.name(),
            s.scale_format.name()
        );
    }
    (blob.len(), stats.max_error, bounds[stats.worst_joint])
}

#[test]
fn every_format_within_its_derived_bound() {
    for (k, rf) in RotationFormat::ALL.into_iter().enumerate() {
        for scale in [false, true] {
            let looping = k % 2 == 1;
            let opts = GenerateOptions {
                joints: 60,
                samples: 90,
                max_depth: 12,
                scale,
                looping,
                animated_translation: k % 3 == 0,
                seed: 7 + k as u64,
                ..Default::default()
            };
            let clip = generate_clip(&opts);
            let tf = VectorFormat::ALL[k % 3];
            let sf = VectorFormat::ALL[(k + 1) % 3];
            let mut s = settings(rf, tf, sf);
            s.optimize_loops = looping;
            let (size, err, bound) = check_within_bound(&clip, &s);
            println!("{:22} {:8} {:8} scale {scale:5} loop {looping:5}: {size:7} B, max {err:.5} (bound there {bound:.5})",
                rf.name(), tf.name(), sf.name());
        }
    }
}

#[test]
fn bind_pose_defaults_roundtrip_within_bound() {
    let clip = generate_clip(&GenerateOptions {
        joints: 40,
        samples: 50,
        max_depth: 12,
        ..Default::default()
    });
    let mut s = settings(
        RotationFormat::SmallestThree48,
        VectorFormat::RangeReduced48,
        VectorFormat::RangeReduced48,
    );
    s.default_mode = DefaultMode::BindPose;
    let bind: Vec<f32> = clip
        .skeleton
        .bind_pose
        .as_ref()
        .unwrap()
        .iter()
        .flat_map(|t| {
            let mut v = [0.0; 10];
            t.write_to(&mut v);
            v
        })
        .collect();
    let blob = animcomp::AlignedBlob::from_bytes(&compress(&clip, &s).unwrap());
    let opts = animcomp::decompress::DecompressOptions {
        bind_pose: Some(&bind),
        ..Default::default()
    };
    let mut d = animcomp::decompress::Decompressor::new(blob.as_bytes(), &opts).unwrap();
    let metric = animcomp::metric::Metric::new(&clip);
    let stats = metric.measure(|i, out: &mut [Transform]| d.pose_at_sample(i as u32, out).unwrap());
    let bounds = propagated_bounds(&clip, &channel_bounds(&clip, &s, &blob));
    for (e, b) in stats.per_joint_max.iter().zip(&bounds) {
        assert!(e <= b, "{e} > {b}");
    }
    // Joints that rest at their bind rotation are "default" here but "constant" with identity
    // defaults.
    let with_bind = storage(blob.as_bytes());
    s.default_mode = DefaultMode::Identity;
    let with_identity = storage(&compress(&clip, &s).unwrap());
    let at_rest: Vec<usize> = with_bind
        .iter()
        .filter(|(_, c, st)| *c == "rotation" && st == "default")
        .filter(|(j, _, _)| {
            let bind = clip.skeleton.bind_pose.as_ref().unwrap()[*j].rotation;
            animcomp::math::angle_between(bind, Quat::IDENTITY) > 0.05
        })
        .map(|(j, _, _)| *j)
        .collect();
    assert!(!at_rest.is_empty(), "the generated clip has still joints");
    for j in at_rest {
        let st = &with_identity
            .iter()
            .find(|(jj, c, _)| *jj == j && *c == "rotation")
            .unwrap()
            .2;
        assert_eq!(st, "constant", "joint {j}");
    }
}

#[test]
fn rotations_through_180_degrees_stay_within_bound() {
    // Drop-W formats are weakest at w = 0; spin a few joints through half and full turns.
    let mut clip = generate_clip(&GenerateOptions {
        joints: 8,
        samples: 121,
        max_depth: 8,
        ..Default::default()
    });
    for (j, t) in clip.tracks.iter_mut().enumerate() {
        let axis = Vec3::new(1.0, 0.3 * j as f32, -0.5).normalize();
        for (i, q) in t.rotations.iter_mut().enumerate() {
            *q = Quat::from_axis_angle(
                axis,
                std::f32::consts::TAU * i as f32 / 120.0 + 0.1 * j as f32,
            );
        }
    }
    for rf in RotationFormat::ALL {
        let s = settings(
            rf,
            VectorFormat::RangeReduced48,
            VectorFormat::RangeReduced48,
        );
        let (_, err, bound) = check_within_bound(&clip, &s);
        println!("{:22} max {err:.5} bound {bound:.5}", rf.name());
    }
}

/// Storage of every track as described by the codec.
fn storage(blob: &[u8]) -> Vec<(usize, &'static str, String)> {
    let aligned = animcomp::AlignedBlob::from_bytes(blob);
    let (h, body) = validate_blob(aligned.as_bytes(), true).unwrap();
    describe(&h, body)
        .unwrap()
        .tracks
        .into_iter()
        .map(|t| (t.joint, t.channel, t.storage))
        .collect()
}

#[test]
fn still_joints_are_default_or_constant() {
    let mut clip = generate_clip(&GenerateOptions {
        joints: 12,
        samples: 40,
        ..Default::default()
    });
    // Joint 3 sits at identity: default. Joint 5 holds a non-identity pose: constant.
    let held = Transform {
        rotation: Quat::from_rotation_x(0.7),
        translation: Vec3::new(1.0, 8.0, 2.0),
        scale: Vec3::ONE,
    };
    clip.tracks[3] = animcomp::clip::Track::constant(&Transform::IDENTITY, 40);
    clip.tracks[5] = animcomp::clip::Track::constant(&held, 40);
    // Joint 7 wobbles by far less than the precision allows: still constant.
    for (i, q) in clip.tracks[7].rotations.iter_mut().enumerate() {
        *q = Quat::from_rotation_y(0.4 + 1e-6 * (i % 2) as f32);
    }
    let s = settings(
        RotationFormat::Fixed48NoW,
        VectorFormat::RangeReduced48,
        VectorFormat::RangeReduced48,
    );
    let st = storage(&compress(&clip, &s).unwrap());
    let get = |j: usize, c: &str| {
        st.iter()
            .find(|(jj, cc, _)| *jj == j && *cc == c)
            .unwrap()
            .2
            .clone()
    };
    assert_eq!(get(3, "rotation"), "default");
    assert_eq!(get(3, "translation"), "default");
    assert_eq!(get(5, "rotation"), "constant");
    assert_eq!(get(5, "translation"), "constant");
    assert_eq!(get(7, "rotation"), "constant");
    // A joint that turns a lot is animated; the root's drifting translation is animated.
    let moving = (0..12)
        .find(|&j| {
            let r = &clip.tracks[j].rotations;
            r.iter()
                .any(|q| animcomp::math::angle_between(*q, r[0]) > 0.2)
        })
        .unwrap();
    assert_eq!(get(moving, "rotation"), "fixed48-now");
    assert_eq!(get(0, "translation"), "range48");
    assert!(
        st.iter().all(|(_, c, _)| *c != "scale"),
        "no scale tracks in a clip without scale"
    );
    let (blob, stats) = roundtrip(&clip, &s);
    let bounds = propagated_bounds(&clip, &channel_bounds(&clip, &s, &blob));
    assert!(stats.per_joint_max.iter().zip(&bounds).all(|(e, b)| e <= b));
}

#[test]
fn compression_is_deterministic() {
    let clip = generate_clip(&GenerateOptions {
        joints: 30,
        samples: 64,
        scale: true,
        max_depth: 12,
        ..Default::default()
    });
    for rf in RotationFormat::ALL {
        let s = settings(
            rf,
            VectorFormat::RangeReduced32,
            VectorFormat::RangeReduced48,
        );
        assert_eq!(
            compress(&clip, &s).unwrap(),
            compress(&clip, &s).unwrap(),
            "{}",
            rf.name()
        );
    }
}

#[test]
fn one_sample_and_one_joint_clips() {
    for (joints, samples) in [(1, 1), (1, 30), (25, 1), (1, 2)] {
        for rf in RotationFormat::ALL {
            let clip = generate_clip(&GenerateOptions {
                joints,
                samples,
                scale: true,
                ..Default::default()
            });
            let s = settings(rf, VectorFormat::RangeReduced32, VectorFormat::Float96);
            check_within_bound(&clip, &s);
        }
    }
}

fn arb_clip() -> impl Strategy<Value = RawClip> {
    (1usize..20, 1usize..40, any::<u64>()).prop_flat_map(|(nj, n, _)| {
        let parents = proptest::collection::vec(any::<u32>(), nj);
        let quats = proptest::collection::vec(
            (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
            nj * n,
        );
        let trans =
            proptest::collection::vec((-50.0f32..50.0, -50.0f32..50.0, -50.0f32..50.0), nj * n);
        (Just((nj, n)), parents, quats, trans).prop_map(|((nj, n), parents, quats, trans)| {
            let mut clip = generate_clip(&GenerateOptions {
                joints: nj,
                samples: n,
                ..Default::default()
            });
            for j in 0..nj {
                clip.skeleton.joints[j].parent = if j == 0 {
                    None
                } else {
                    Some(parents[j] % j as u32)
                };
                let t = &mut clip.tracks[j];
                for i in 0..n {
                    let (x, y, z, w) = quats[j * n + i];
                    let q = Quat::from_xyzw(x, y, z, w);
                    t.rotations[i] = if q.length() > 0.1 {
                        q.normalize()
                    } else {
                        Quat::IDENTITY
                    };
                    let (a, b, c) = trans[j * n + i];
                    t.translations[i] = Vec3::new(a, b, c);
                }
            }
            clip.validate().unwrap();
            clip
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_clips_roundtrip_within_bound(clip in arb_clip(), k in 0usize..8) {
        // Float128 is lossless apart from sub-track substitution.
        let s = settings(RotationFormat::Float128, VectorFormat::Float96, VectorFormat::Float96);
        let (_, err, bound) = check_within_bound(&clip, &s);
        prop_assert!(err <= bound);
        // Every other format round-trips too, within its own bound.
        let s = settings(RotationFormat::ALL[k], VectorFormat::ALL[k % 3], VectorFormat::ALL[(k + 2) % 3]);
        check_within_bound(&clip, &s);
    }
}

#[test]
fn describe_accounts_for_every_byte_and_track() {
    let clip = generate_clip(&GenerateOptions {
        joints: 15,
        samples: 33,
        scale: true,
        ..Default::default()
    });
    for rf in RotationFormat::ALL {
        let s = settings(rf, VectorFormat::RangeReduced32, VectorFormat::Float96);
        let blob = animcomp::AlignedBlob::from_bytes(&compress(&clip, &s).unwrap());
        let (h, body) = validate_blob(blob.as_bytes(), true).unwrap();
        let d = describe(&h, body).unwrap();
        assert_eq!(d.sections.iter().map(|(_, n)| n).sum::<usize>(), body.len());
        assert_eq!(d.tracks.len(), 15 * 3);
        let frame_bits: f32 = d.tracks.iter().map(|t| t.bits_per_sample).sum();
        let frames = d.sections.iter().find(|(n, _)| n == "frames").unwrap().1;
        assert_eq!(frames, 33 * (frame_bits as usize).div_ceil(8));
        for t in &d.tracks {
            let expected = match (t.channel, t.storage.as_str()) {
                (_, "default" | "constant") => 0.0,
                ("rotation", name) => {
                    assert_eq!(name, rf.name());
                    rf.bits_per_sample() as f32
                }
                ("translation", name) => {
                    assert_eq!(name, "range32");
                    32.0
                }
                (_, name) => {
                    assert_eq!(name, "float96");
                    96.0
                }
            };
            assert_eq!(t.bits_per_sample, expected);
        }
    }
}
