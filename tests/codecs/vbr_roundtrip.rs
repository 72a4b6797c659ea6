//! Round trips of the `vbr` codec on generated clips, determinism, description and hostile bodies.
//!
//! The guarantee tested (see docs/vbr.md): at every sample time, every joint's error measured by
//! the metric is within its precision (times 1.0001 for float rounding between the encoder's and
//! the metric's composition order).

use animcomp::clip::{generate_clip, GenerateOptions, RawClip};
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::math::{nlerp_shortest, Transform, Vec3};
use animcomp::metric::{ErrorStats, Metric};
use animcomp::offline::{CodecChoice, CompressSettings, Level};
use animcomp::{compress, AlignedBlob};

fn settings(level: Level) -> CompressSettings {
    CompressSettings {
        codec: CodecChoice::Vbr,
        level,
        ..Default::default()
    }
}

/// Compresses and measures through the real decompressor. Returns (blob, stats).
fn roundtrip(clip: &RawClip, level: Level) -> (Vec<u8>, ErrorStats) {
    let blob = compress(clip, &settings(level)).expect("compress");
    let aligned = AlignedBlob::from_bytes(&blob);
    let bind: Vec<f32> = Vec::new();
    let opts = DecompressOptions {
        bind_pose: if bind.is_empty() { None } else { Some(&bind) },
        ..Default::default()
    };
    let mut d = Decompressor::new(aligned.as_bytes(), &opts).expect("valid blob");
    let mut c = clip.clone();
    c.validate().unwrap();
    let metric = Metric::new(&c);
    let nj = c.num_joints();
    let stats = metric.measure(|i, out| {
        d.pose_at_sample(i as u32, out).unwrap();
        // Single-joint sampling must agree with whole-pose sampling.
        for j in [0, nj / 2, nj - 1] {
            let t = d.sample_joint(j as u32).unwrap();
            assert_eq!(t, out[j], "joint {j} sample {i}");
        }
    });
    (blob, stats)
}

fn check(opts: GenerateOptions) {
    for level in [Level::Fast, Level::Default, Level::Best] {
        let clip = generate_clip(&opts);
        let (_, s) = roundtrip(&clip, level);
        let prec = clip.skeleton.joints[0].precision;
        assert!(
            s.max_error <= prec * 1.0001,
            "{:?} {level:?}: max error {} at joint {} sample {}",
            opts,
            s.max_error,
            s.worst_joint,
            s.worst_sample
        );
    }
}

#[test]
fn generated_clips_within_precision() {
    // Under qemu (.ci/cross.sh) the clips are shorter (34 samples instead of 100: still two
    // segments; 160 instead of 1000 for the long one): at full size this test was 67 s of CPU
    // there, the longest of the root crate's tests. Every option and level is still checked.
    let emulated = crate::emulated::emulated();
    let base = GenerateOptions {
        joints: 40,
        samples: if emulated { 34 } else { 100 },
        sample_rate: 60.0,
        max_depth: 10,
        ..Default::default()
    };
    check(base.clone());
    check(GenerateOptions {
        scale: true,
        seed: 2,
        ..base.clone()
    });
    check(GenerateOptions {
        animated_translation: true,
        seed: 3,
        ..base.clone()
    });
    check(GenerateOptions {
        looping: true,
        seed: 4,
        ..base.clone()
    });
    check(GenerateOptions {
        samples: 1,
        ..base.clone()
    });
    check(GenerateOptions {
        samples: 2,
        ..base.clone()
    });
    check(GenerateOptions {
        samples: 17,
        ..base.clone()
    });
    check(GenerateOptions {
        joints: 1,
        ..base.clone()
    });
    // Many segments (under qemu 160 samples: still 5 or more).
    check(GenerateOptions {
        samples: if emulated { 160 } else { 1000 },
        joints: 20,
        seed: 5,
        ..base.clone()
    });
}

#[test]
fn compresses_below_raw() {
    // Under qemu (.ci/cross.sh) 150 samples instead of 300.
    let clip = generate_clip(&GenerateOptions {
        joints: 60,
        samples: if crate::emulated::emulated() {
            150
        } else {
            300
        },
        sample_rate: 60.0,
        ..Default::default()
    });
    let (blob, _) = roundtrip(&clip, Level::Default);
    assert!(
        blob.len() * 8 < clip.raw_size_bytes(),
        "{} vs raw {}",
        blob.len(),
        clip.raw_size_bytes()
    );
}

#[test]
fn deterministic_bytes() {
    // Under qemu (.ci/cross.sh) 45 samples instead of 90: this test was 9 s of CPU there (the
    // `Best` level's search); tests/determinism.rs pins the blobs' bytes on every target besides.
    let clip = generate_clip(&GenerateOptions {
        joints: 30,
        samples: if crate::emulated::emulated() { 45 } else { 90 },
        scale: true,
        ..Default::default()
    });
    for level in [Level::Fast, Level::Best] {
        let a = compress(&clip, &settings(level)).unwrap();
        let b = compress(&clip, &settings(level)).unwrap();
        assert_eq!(a, b);
    }
}

/// Poses at samples `i0` and `i0 + 1`, and the whole pose (10 floats per joint) half-way
/// between them, sampled at `rate` Hz.
fn around(d: &mut Decompressor, rate: f32, i0: u32) -> (Vec<Transform>, Vec<Transform>, Vec<f32>) {
    let nj = d.num_joints();
    let mut a = vec![Transform::IDENTITY; nj];
    let mut b = vec![Transform::IDENTITY; nj];
    let mut pose = vec![0.0f32; nj * 10];
    d.pose_at_sample(i0, &mut a).unwrap();
    d.pose_at_sample(i0 + 1, &mut b).unwrap();
    d.seek((i0 as f32 + 0.5) / rate, Looping::Clamp, Rounding::None)
        .unwrap();
    d.sample_pose(&mut pose, 10).unwrap();
    (a, b, pose)
}

#[test]
fn interpolated_times_are_between_samples() {
    let clip = generate_clip(&GenerateOptions {
        joints: 10,
        samples: 40,
        ..Default::default()
    });
    let blob = AlignedBlob::from_bytes(&compress(&clip, &settings(Level::Default)).unwrap());
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
    // 7 -> 8 lies inside one segment (paired read), 15 -> 16 crosses a segment boundary.
    for i0 in [7u32, 15] {
        let (a, b, pose) = around(&mut d, clip.sample_rate, i0);
        for j in 0..10u32 {
            let m = d.sample_joint(j).unwrap();
            assert_eq!(
                m,
                Transform::read_from(&pose[j as usize * 10..]),
                "joint {j}"
            );
            let mid = (a[j as usize].translation + b[j as usize].translation) * 0.5;
            assert!((m.translation - mid).length() < 1e-3);
            let ang = animcomp::math::angle_between(
                m.rotation,
                animcomp::math::nlerp_shortest(a[j as usize].rotation, b[j as usize].rotation, 0.5),
            );
            assert!(ang < 1e-3);
        }
    }
}

/// Between samples the decoder returns what a player expects, exactly: every joint's rotation is
/// `nlerp_shortest` of the rotations the decoder gives at the two samples (or that rotation when
/// both are the same), and its translation
/// and scale their `lerp`, bit for bit, at every pair of samples (inside a segment, across
/// segment boundaries, around dropped keyframes at level Best). The metric measures at the
/// samples only; this ties the poses in between to them (docs/vbr.md, "Guarantee": between samples). A
/// decoder that interpolated the three stored components before one rebuild, faster but up to
/// ten times the precision away in object space, failed it.
#[test]
fn poses_between_samples_blend_the_samples() {
    // Under qemu (docs/ci.md) each clip half as long (the same rigs, levels and fractions).
    let emulated = crate::emulated::emulated();
    let clips = [
        GenerateOptions {
            joints: 40,
            samples: if emulated { 50 } else { 100 },
            max_depth: 10,
            animated_translation: true,
            ..Default::default()
        },
        GenerateOptions {
            joints: 30,
            samples: if emulated { 32 } else { 64 },
            scale: true,
            seed: 7,
            ..Default::default()
        },
    ];
    for opts in clips {
        let clip = generate_clip(&opts);
        for level in [Level::Default, Level::Best] {
            let blob = AlignedBlob::from_bytes(&compress(&clip, &settings(level)).unwrap());
            let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
            let nj = clip.num_joints();
            let samples: Vec<Vec<Transform>> = (0..clip.num_samples as u32)
                .map(|i| {
                    let mut p = vec![Transform::IDENTITY; nj];
                    d.pose_at_sample(i, &mut p).unwrap();
                    p
                })
                .collect();
            let mut pose = vec![0.0f32; nj * 10];
            for i in 0..clip.num_samples - 1 {
                for frac in [0.25f32, 0.5, 0.75] {
                    d.seek(
                        (i as f32 + frac) / clip.sample_rate,
                        Looping::Clamp,
                        Rounding::None,
                    )
                    .unwrap();
                    let k = d.key();
                    assert_eq!((k.i0, k.i1), (i as u32, i as u32 + 1));
                    d.sample_pose(&mut pose, 10).unwrap();
                    for j in 0..nj {
                        let (a, b) = (&samples[i][j], &samples[i + 1][j]);
                        // A vector the same at both samples is returned as it is; a rotation
                        // is too when its lane is constant over the segment, else the blend of
                        // the two (one normalisation: equal samples may move by an ulp).
                        let vector = |a: Vec3, b: Vec3| if a == b { a } else { a.lerp(b, k.alpha) };
                        let want = Transform {
                            rotation: nlerp_shortest(a.rotation, b.rotation, k.alpha),
                            translation: vector(a.translation, b.translation),
                            scale: vector(a.scale, b.scale),
                        };
                        let got = Transform::read_from(&pose[j * 10..]);
                        let unblended = Transform {
                            rotation: a.rotation,
                            ..want
                        };
                        assert!(
                            got == want || (a.rotation == b.rotation && got == unblended),
                            "{level:?} {opts:?}: joint {j} at sample {i} + {frac}: {got:?} vs {want:?}"
                        );
                    }
                }
            }
        }
    }
}

/// A rotation held still over a whole segment, animated elsewhere: the decoder's shortcut for
/// segment-constant sub-tracks (no unpacking, no blend) must give exactly the stored value between
/// samples of that segment, agree with single-joint sampling, and still interpolate in segments
/// where the track moves.
#[test]
fn segment_constant_rotation_between_samples() {
    let mut clip = generate_clip(&GenerateOptions {
        joints: 6,
        samples: 48,
        ..Default::default()
    });
    let held = clip.tracks[3].rotations[0];
    for q in &mut clip.tracks[3].rotations[..16] {
        *q = held;
    }
    let blob = AlignedBlob::from_bytes(&compress(&clip, &settings(Level::Default)).unwrap());
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
    for i0 in [2u32, 9, 30] {
        let (at, next, pose) = around(&mut d, clip.sample_rate, i0);
        let mid = Transform::read_from(&pose[30..40]);
        assert_eq!(d.sample_joint(3).unwrap(), mid, "sample {i0}");
        if i0 < 16 {
            assert_eq!(at[3].rotation, next[3].rotation, "held at sample {i0}");
            assert_eq!(
                mid.rotation,
                at[3].rotation,
                "between samples {i0} and {}",
                i0 + 1
            );
        } else {
            assert_ne!(at[3].rotation, next[3].rotation, "moving at sample {i0}");
            let blended = animcomp::math::nlerp_shortest(at[3].rotation, next[3].rotation, 0.5);
            assert!(animcomp::math::angle_between(mid.rotation, blended) < 1e-4);
        }
    }
}

#[test]
fn describe_lists_every_channel() {
    let clip = generate_clip(&GenerateOptions {
        joints: 12,
        samples: 50,
        ..Default::default()
    });
    // The grouped blob (its sections cover the body, padding included), and the segments blob
    // the encoder wrote before regrouping (8 bytes of read-ahead padding after its sections).
    let segments =
        animcomp::offline::compress::compress_segments(&clip, &[], &settings(Level::Default));
    for (bytes, padding) in [
        (compress(&clip, &settings(Level::Default)), 0),
        (segments, 8),
    ] {
        let blob = AlignedBlob::from_bytes(&bytes.unwrap());
        let h = animcomp::format::Header::parse(blob.as_bytes()).unwrap();
        let body = &blob.as_bytes()[h.body_range()];
        let desc = animcomp::offline::describe(&h, body).unwrap();
        assert_eq!(desc.tracks.len(), 24);
        let total: usize = desc.sections.iter().map(|s| s.1).sum();
        assert_eq!(total + padding, body.len(), "format version {}", h.version);
        assert!(desc
            .tracks
            .iter()
            .any(|t| t.storage.starts_with("variable")));
    }
}

#[test]
fn hostile_bodies_never_panic() {
    let clip = generate_clip(&GenerateOptions {
        joints: 20,
        samples: 70,
        scale: true,
        ..Default::default()
    });
    let blob = compress(&clip, &settings(Level::Default)).unwrap();
    let mut rng = 0x1234_5678_9ABC_DEF0u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let body_len = blob.len() - 64;
    let mut rejected = 0;
    for round in 0..600 {
        let mut b = blob.clone();
        let flips = 1 + (next() % 4) as usize;
        for _ in 0..flips {
            // Mostly the body's tables (the first 200 bytes), sometimes anywhere.
            let pos = if round % 2 == 0 {
                64 + (next() as usize % 200.min(body_len))
            } else {
                64 + next() as usize % body_len
            };
            b[pos] ^= 1 << (next() % 8);
        }
        let aligned = AlignedBlob::from_bytes(&b);
        let r = std::panic::catch_unwind(|| {
            let opts = DecompressOptions {
                verify_checksum: false,
                ..Default::default()
            };
            match Decompressor::new(aligned.as_bytes(), &opts) {
                Err(_) => true,
                Ok(mut d) => {
                    let mut pose = vec![0.0f32; 20 * 10];
                    for t in [0.0f32, 0.3, 1.1, 2.5] {
                        d.seek(t, Looping::Wrap, Rounding::None).unwrap();
                        d.sample_pose(&mut pose, 10).unwrap();
                        d.sample_joint(19).unwrap();
                    }
                    false
                }
            }
        });
        match r {
            Ok(true) => rejected += 1,
            Ok(false) => {}
            Err(_) => panic!("round {round}: decoding a mutated body panicked"),
        }
    }
    assert!(rejected > 0);
    // Truncations and garbage counts are rejected, down to the last byte of the read-ahead
    // padding (the decoder's 64-bit windows over the last fields end inside it).
    let aligned = AlignedBlob::from_bytes(&blob);
    let d = Decompressor::new(aligned.as_bytes(), &DecompressOptions::default()).unwrap();
    let h = *d.header();
    let body = &aligned.as_bytes()[64..64 + h.body_size as usize];
    assert!(animcomp::offline::describe(&h, body).is_ok());
    for cut in [
        0,
        1,
        16,
        31,
        40,
        body.len() / 2,
        body.len() - 9,
        body.len() - 8,
        body.len() - 1,
    ] {
        assert!(
            animcomp::offline::describe(&h, &body[..cut]).is_err(),
            "cut {cut}"
        );
    }
    let mut garbage = body.to_vec();
    garbage[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(animcomp::offline::describe(&h, &garbage).is_err());
}
