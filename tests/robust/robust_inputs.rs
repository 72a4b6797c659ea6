//! Hostile raw clips: each is either compressed (by every built codec, and its blob decodes to
//! finite poses) or rejected with the named [`Error`] variant. The table in
//! `docs/robustness.md` lists the same cases.

use animcomp::clip::{
    generate_clip, GenerateOptions, Joint, RawClip, Skeleton, Track, MAX_ABS_VALUE, MAX_JOINTS,
    MAX_SAMPLES, MAX_SAMPLE_RATE, MIN_SAMPLE_RATE,
};
use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::math::{Quat, Transform, Vec3, FLOATS_PER_JOINT};
use animcomp::{compress, AlignedBlob, CodecChoice, CompressSettings, Error};

/// The codecs every case is compressed with.
const CODECS: [CodecChoice; 4] = [
    CodecChoice::Fixed,
    CodecChoice::Vbr,
    CodecChoice::Keys,
    CodecChoice::Auto,
];

/// Whether `codec` is built in this tree (unbuilt codecs answer `Unsupported` to any clip).
fn built(codec: CodecChoice) -> bool {
    let clip = generate_clip(&GenerateOptions {
        joints: 3,
        samples: 4,
        ..Default::default()
    });
    match compress(&clip, &settings(codec)) {
        Ok(_) => true,
        Err(Error::Unsupported(m)) => {
            println!("skipping codec {}: {m}", codec.name());
            false
        }
        Err(e) => panic!("{} rejects a plain clip: {e}", codec.name()),
    }
}

fn settings(codec: CodecChoice) -> CompressSettings {
    CompressSettings {
        codec,
        ..Default::default()
    }
}

/// What a case must produce.
enum Expect {
    /// Every built codec compresses it and the blob decodes to finite poses.
    Accept,
    /// Like `Accept`, except that the listed codecs may refuse with `Unsupported` (a documented
    /// limit of that codec); `Auto` must still compress it.
    AcceptExcept(&'static [CodecChoice]),
    /// Every codec rejects it with an error for which the predicate holds.
    Reject(&'static str, fn(&Error) -> bool),
}

/// Compresses `clip` with every built codec (inside `catch_unwind`) and checks `expect`.
fn check(name: &str, clip: &RawClip, expect: Expect) {
    for codec in CODECS {
        let r = std::panic::catch_unwind(|| compress(clip, &settings(codec)));
        let r = r.unwrap_or_else(|_| panic!("{name}: compress panicked ({})", codec.name()));
        match (&expect, r) {
            (Expect::Reject(what, pred), Err(e)) => {
                assert!(pred(&e), "{name}: expected {what}, got {e:?}")
            }
            (Expect::Reject(what, _), Ok(_)) => {
                panic!("{name}: expected {what}, {} accepted it", codec.name())
            }
            (_, Err(Error::Unsupported(m))) if m.contains("not built") => {}
            (Expect::AcceptExcept(allowed), Err(Error::Unsupported(m)))
                if allowed.contains(&codec) =>
            {
                println!("{name}: {} refuses (documented limit): {m}", codec.name());
            }
            (_, Err(e)) => panic!("{name}: {} rejected a valid clip: {e:?}", codec.name()),
            (_, Ok(blob)) => decode_all(name, codec, clip, &blob),
        }
    }
}

/// Decodes every sample (at most 2000, spread over the clip) and checks the poses are finite.
fn decode_all(name: &str, codec: CodecChoice, clip: &RawClip, blob: &[u8]) {
    let blob = AlignedBlob::from_bytes(blob);
    let nj = clip.num_joints();
    let mut bind = vec![0.0f32; nj * FLOATS_PER_JOINT];
    if let Some(bp) = &clip.skeleton.bind_pose {
        for (t, c) in bp.iter().zip(bind.chunks_exact_mut(FLOATS_PER_JOINT)) {
            t.normalize_rotation().write_to(c);
        }
    }
    let opts = DecompressOptions {
        verify_checksum: true,
        bind_pose: Some(&bind),
    };
    let mut d = Decompressor::new(blob.as_bytes(), &opts)
        .unwrap_or_else(|e| panic!("{name}: fresh {} blob rejected: {e}", codec.name()));
    assert_eq!(d.num_joints(), nj);
    let n = d.header().num_samples;
    let step = (n / 2000).max(1);
    let mut pose = vec![f32::NAN; nj * FLOATS_PER_JOINT];
    let mut i = 0;
    while i < n {
        d.seek_sample(i);
        pose.fill(f32::NAN);
        d.sample_pose(&mut pose, FLOATS_PER_JOINT).unwrap();
        if let Some(k) = pose.iter().position(|x| !x.is_finite()) {
            panic!(
                "{name}: {} decoded non-finite float {} at sample {i} joint {}",
                codec.name(),
                pose[k],
                k / 10
            );
        }
        i += step;
    }
}

trait NormalizeRotation {
    fn normalize_rotation(&self) -> Transform;
}
impl NormalizeRotation for Transform {
    fn normalize_rotation(&self) -> Transform {
        Transform {
            rotation: self.rotation.normalize(),
            ..*self
        }
    }
}

fn base(joints: usize, samples: usize) -> RawClip {
    generate_clip(&GenerateOptions {
        joints,
        samples,
        scale: true,
        animated_translation: true,
        ..Default::default()
    })
}

/// A clip of `joints` joints in one chain-less fan (every joint a child of the root), `samples`
/// samples, identity-ish data. Cheap to build at any size.
fn flat(joints: usize, samples: usize) -> RawClip {
    let joints_v: Vec<Joint> = (0..joints)
        .map(|j| Joint::new("", if j == 0 { None } else { Some(0) }))
        .collect();
    let tracks = (0..joints)
        .map(|j| {
            let mut t = Track::default();
            for i in 0..samples {
                let a = 0.01 * (i as f32) + 0.001 * (j % 17) as f32;
                t.rotations.push(Quat::from_rotation_z(a));
                t.translations.push(Vec3::new(0.0, 1.0 + a, 0.0));
                t.scales.push(Vec3::ONE);
            }
            t
        })
        .collect();
    RawClip {
        name: "flat".into(),
        skeleton: Skeleton {
            joints: joints_v,
            bind_pose: None,
        },
        sample_rate: 30.0,
        num_samples: samples,
        tracks,
    }
}

fn non_finite(channel: &'static str) -> fn(&Error) -> bool {
    match channel {
        "rotation" => |e| {
            matches!(
                e,
                Error::NonFiniteValue {
                    channel: "rotation",
                    ..
                }
            )
        },
        "translation" => |e| {
            matches!(
                e,
                Error::NonFiniteValue {
                    channel: "translation",
                    ..
                }
            )
        },
        "scale" => |e| {
            matches!(
                e,
                Error::NonFiniteValue {
                    channel: "scale",
                    ..
                }
            )
        },
        _ => |e| matches!(e, Error::NonFiniteValue { .. }),
    }
}

#[test]
fn codecs_under_test() {
    let built: Vec<_> = CODECS
        .iter()
        .filter(|c| built(**c))
        .map(|c| c.name())
        .collect();
    println!("built codecs: {built:?}");
}

#[test]
fn non_finite_values_are_rejected() {
    for (what, v) in [
        ("nan", f32::NAN),
        ("+inf", f32::INFINITY),
        ("-inf", f32::NEG_INFINITY),
    ] {
        let mut c = base(4, 6);
        c.tracks[2].rotations[3] = Quat::from_xyzw(v, 0.0, 0.0, 1.0);
        check(
            &format!("rotation {what}"),
            &c,
            Expect::Reject("NonFiniteValue(rotation)", non_finite("rotation")),
        );
        let mut c = base(4, 6);
        c.tracks[1].translations[5].y = v;
        check(
            &format!("translation {what}"),
            &c,
            Expect::Reject("NonFiniteValue(translation)", non_finite("translation")),
        );
        let mut c = base(4, 6);
        c.tracks[3].scales[0].z = v;
        check(
            &format!("scale {what}"),
            &c,
            Expect::Reject("NonFiniteValue(scale)", non_finite("scale")),
        );
        let mut c = base(4, 6);
        c.skeleton.bind_pose.as_mut().unwrap()[1].translation.x = v;
        check(
            &format!("bind pose {what}"),
            &c,
            Expect::Reject("NonFiniteValue(bind)", non_finite("any")),
        );
    }
}

#[test]
fn denormals_and_signed_zeros_are_accepted() {
    let mut c = base(4, 8);
    for t in &mut c.tracks {
        for (i, v) in t.translations.iter_mut().enumerate() {
            *v = Vec3::new(1.0e-40, -1.0e-45, if i % 2 == 0 { 0.0 } else { -0.0 });
        }
        for (i, q) in t.rotations.iter_mut().enumerate() {
            *q = Quat::from_xyzw(
                1.0e-40,
                -0.0,
                f32::MIN_POSITIVE / 2.0,
                if i % 2 == 0 { 1.0 } else { -1.0 },
            );
        }
        for s in &mut t.scales {
            *s = Vec3::new(1.0, 1.0 + f32::EPSILON, 1.0e-40);
        }
    }
    check("denormals", &c, Expect::Accept);
}

#[test]
fn quaternion_lengths() {
    let mut c = base(3, 5);
    c.tracks[1].rotations[2] = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    check(
        "zero-length quaternion",
        &c,
        Expect::Reject("NonUnitQuaternion", |e| {
            matches!(
                e,
                Error::NonUnitQuaternion {
                    joint: 1,
                    sample: 2,
                    ..
                }
            )
        }),
    );
    let mut c = base(3, 5);
    c.tracks[1].rotations[2] = Quat::from_xyzw(0.0, 0.0, 0.0, 1.06);
    check(
        "quaternion length 1.06",
        &c,
        Expect::Reject("NonUnitQuaternion", |e| {
            matches!(e, Error::NonUnitQuaternion { .. })
        }),
    );
    let mut c = base(3, 5);
    c.tracks[1].rotations[2] = Quat::from_xyzw(0.0, 0.0, 0.0, 1.04);
    c.tracks[2].rotations[0] = Quat::from_xyzw(0.0, 0.6, 0.0, 0.77);
    check(
        "quaternion length 1.04 and 0.97 (normalised)",
        &c,
        Expect::Accept,
    );
    // Alternating hemispheres: q and -q are the same rotation.
    let mut c = base(3, 9);
    for t in &mut c.tracks {
        for (i, q) in t.rotations.iter_mut().enumerate() {
            if i % 2 == 1 {
                *q = -*q;
            }
        }
    }
    check("alternating quaternion signs", &c, Expect::Accept);
}

#[test]
fn absurd_magnitudes() {
    let mut c = base(3, 5);
    c.tracks[2].scales[1] = Vec3::splat(1.0e30);
    check(
        "scale 1e30",
        &c,
        Expect::Reject("NonFiniteValue(scale)", non_finite("scale")),
    );
    let mut c = base(3, 5);
    c.tracks[0].translations[4].x = -1.0e30;
    check(
        "translation -1e30",
        &c,
        Expect::Reject("NonFiniteValue(translation)", non_finite("translation")),
    );
    let above = f32::from_bits(MAX_ABS_VALUE.to_bits() + 1);
    let mut c = base(3, 5);
    c.tracks[0].translations[4].x = above;
    check(
        "translation just above MAX_ABS_VALUE",
        &c,
        Expect::Reject("NonFiniteValue", non_finite("translation")),
    );
    let mut c = base(3, 5);
    for t in &mut c.tracks {
        t.translations[4].x = MAX_ABS_VALUE;
        t.translations[2].y = -MAX_ABS_VALUE;
    }
    // keys quantises key values on 16 bits within the clip's range: a 2e7 range cannot meet 0.01.
    check(
        "translation at +-MAX_ABS_VALUE",
        &c,
        Expect::AcceptExcept(&[CodecChoice::Keys]),
    );
    let mut c = base(3, 5);
    c.tracks[2].scales[3] = Vec3::splat(MAX_ABS_VALUE);
    check(
        "scale at MAX_ABS_VALUE",
        &c,
        Expect::AcceptExcept(&[CodecChoice::Keys]),
    );
    let mut c = base(3, 5);
    c.tracks[1].scales = vec![Vec3::ZERO; 5];
    check("zero scale", &c, Expect::Accept);
    let mut c = base(3, 5);
    c.tracks[1].scales = vec![Vec3::new(-1.0, 1.0, -2.0); 5];
    check("negative scale", &c, Expect::Accept);
}

#[test]
fn error_settings_extremes() {
    let mut c = base(4, 10);
    c.skeleton.set_error_settings(1.0e-12, 3.0);
    check(
        "precision 1e-12",
        &c,
        Expect::AcceptExcept(&[CodecChoice::Keys]),
    );
    let mut c = base(4, 10);
    c.skeleton.set_error_settings(1.0e30, 1.0e-30);
    check("precision 1e30, shell 1e-30", &c, Expect::Accept);
    let mut c = base(4, 10);
    c.skeleton.set_error_settings(0.01, 1.0e30);
    check(
        "shell distance 1e30",
        &c,
        Expect::AcceptExcept(&[CodecChoice::Keys]),
    );
    let mut c = base(4, 10);
    c.skeleton.joints[2].precision = f32::NAN;
    check(
        "precision NaN",
        &c,
        Expect::Reject("InvalidPrecision", |e| *e == Error::InvalidPrecision(2)),
    );
    let mut c = base(4, 10);
    c.skeleton.joints[3].shell_distance = -1.0;
    check(
        "shell distance -1",
        &c,
        Expect::Reject("InvalidShellDistance", |e| {
            *e == Error::InvalidShellDistance(3)
        }),
    );
}

#[test]
fn parent_cycles_and_forward_references() {
    let bad_parent = |joint: usize| -> fn(&Error) -> bool {
        match joint {
            1 => |e| matches!(e, Error::InvalidParent { joint: 1, .. }),
            2 => |e| matches!(e, Error::InvalidParent { joint: 2, .. }),
            _ => |e| matches!(e, Error::InvalidParent { .. }),
        }
    };
    let mut c = base(4, 3);
    c.skeleton.joints[2].parent = Some(2);
    check(
        "self parent",
        &c,
        Expect::Reject("InvalidParent(2)", bad_parent(2)),
    );
    let mut c = base(4, 3);
    c.skeleton.joints[1].parent = Some(3);
    check(
        "forward reference",
        &c,
        Expect::Reject("InvalidParent(1)", bad_parent(1)),
    );
    let mut c = base(4, 3);
    c.skeleton.joints[1].parent = Some(2);
    c.skeleton.joints[2].parent = Some(1);
    check(
        "two-joint cycle",
        &c,
        Expect::Reject("InvalidParent(1)", bad_parent(1)),
    );
    let mut c = base(4, 3);
    c.skeleton.joints[1].parent = Some(u32::MAX);
    check(
        "parent u32::MAX",
        &c,
        Expect::Reject("InvalidParent(1)", bad_parent(1)),
    );
    let mut c = base(4, 3);
    c.skeleton.joints[0].parent = Some(0);
    check(
        "root is its own parent",
        &c,
        Expect::Reject("InvalidParent(0)", bad_parent(0)),
    );
    // Several roots are fine.
    let mut c = base(5, 4);
    c.skeleton.joints[3].parent = None;
    check("two roots", &c, Expect::Accept);
}

#[test]
fn counts_at_and_beyond_limits() {
    let mut c = base(3, 4);
    c.skeleton.joints.clear();
    c.tracks.clear();
    check(
        "0 joints",
        &c,
        Expect::Reject("NoJoints", |e| *e == Error::NoJoints),
    );
    let mut c = base(3, 4);
    c.num_samples = 0;
    for t in &mut c.tracks {
        *t = Track::default();
    }
    check(
        "0 samples",
        &c,
        Expect::Reject("NoSamples", |e| *e == Error::NoSamples),
    );
    check("1 sample", &base(5, 1), Expect::Accept);
    check("1 joint", &base(1, 20), Expect::Accept);
    check("1 joint 1 sample", &base(1, 1), Expect::Accept);
    check("2 samples", &base(4, 2), Expect::Accept);
    let mut c = base(3, 4);
    c.tracks[1].translations.pop();
    check(
        "short track",
        &c,
        Expect::Reject("InconsistentClip", |e| {
            matches!(e, Error::InconsistentClip(_))
        }),
    );
    let mut c = base(3, 4);
    c.tracks.push(Track::constant(&Transform::IDENTITY, 4));
    check(
        "extra track",
        &c,
        Expect::Reject("InconsistentClip", |e| {
            matches!(e, Error::InconsistentClip(_))
        }),
    );
    // MAX_SAMPLES + 1: rejected on the count alone (the tracks are never read).
    let mut c = base(1, 1);
    c.num_samples = MAX_SAMPLES + 1;
    check(
        "MAX_SAMPLES + 1",
        &c,
        Expect::Reject("TooManySamples", |e| matches!(e, Error::TooManySamples(_))),
    );
}

#[test]
fn max_joints_both_sides() {
    // Under qemu (docs/ci.md) the one-sample clip alone at the limit: each codec compressing
    // 16,383 joints twice was most of this binary's time there; x86-64 runs both.
    if !crate::emulated::emulated() {
        check(
            "MAX_JOINTS joints x 2 samples",
            &flat(MAX_JOINTS, 2),
            Expect::Accept,
        );
    }
    check(
        "MAX_JOINTS joints x 1 sample",
        &flat(MAX_JOINTS, 1),
        Expect::Accept,
    );
    check(
        "MAX_JOINTS + 1 joints",
        &flat(MAX_JOINTS + 1, 1),
        Expect::Reject("TooManyJoints", |e| {
            *e == Error::TooManyJoints(MAX_JOINTS + 1)
        }),
    );
}

#[test]
fn very_long_clip() {
    let c = generate_clip(&GenerateOptions {
        joints: 2,
        samples: 100_000,
        sample_rate: 120.0,
        ..Default::default()
    });
    // keys stores key times as 16-bit sample indices: at most 65,536 samples.
    check(
        "100k samples x 2 joints",
        &c,
        Expect::AcceptExcept(&[CodecChoice::Keys]),
    );
    let c = generate_clip(&GenerateOptions {
        joints: 2,
        samples: 65_536,
        sample_rate: 120.0,
        ..Default::default()
    });
    check("65,536 samples x 2 joints (keys limit)", &c, Expect::Accept);
    let c = generate_clip(&GenerateOptions {
        joints: 2,
        samples: 65_537,
        sample_rate: 120.0,
        ..Default::default()
    });
    check(
        "65,537 samples x 2 joints (keys limit + 1)",
        &c,
        Expect::AcceptExcept(&[CodecChoice::Keys]),
    );
}

#[test]
fn sample_rates() {
    let down = |x: f32| f32::from_bits(x.to_bits() - 1);
    let up = |x: f32| f32::from_bits(x.to_bits() + 1);
    for rate in [1.0e-3, 1.0e4, MIN_SAMPLE_RATE, MAX_SAMPLE_RATE, 24.0, 29.97] {
        let mut c = base(3, 6);
        c.sample_rate = rate;
        check(&format!("sample rate {rate}"), &c, Expect::Accept);
    }
    for rate in [
        down(MIN_SAMPLE_RATE),
        up(MAX_SAMPLE_RATE),
        0.0,
        -0.0,
        -30.0,
        f32::NAN,
        f32::INFINITY,
        1.0e-40,
    ] {
        let mut c = base(3, 6);
        c.sample_rate = rate;
        check(
            &format!("sample rate {rate}"),
            &c,
            Expect::Reject("InvalidSampleRate", |e| {
                matches!(e, Error::InvalidSampleRate(_))
            }),
        );
    }
}
