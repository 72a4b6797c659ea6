//! `animcomp_compress_bound` never under-estimates: for every fixed-codec format combination and
//! clips with and without scale, constant and animated channels, the bound is >= the real blob
//! size (and, for fully animated clips, close to it); for other codecs it is the exact size.

use std::ptr::null;

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::ffi::*;
use animcomp::format::quantize::{RotationFormat, VectorFormat};
use animcomp::math::{Quat, Vec3};
use animcomp::{CodecChoice, RawClip, Status};
use proptest::prelude::*;

/// `clip` as C arrays (joint-major, tightly packed) and the bound the C API gives for it.
fn bound_of(clip: &RawClip, s: &AnimcompCompressSettings) -> (Status, usize) {
    let parents: Vec<i32> = clip
        .skeleton
        .joints
        .iter()
        .map(|j| j.parent.map_or(-1, |p| p as i32))
        .collect();
    let (mut r, mut t, mut sc) = (Vec::new(), Vec::new(), Vec::new());
    for tr in &clip.tracks {
        for i in 0..clip.num_samples {
            r.extend_from_slice(&tr.rotations[i].to_array());
            t.extend_from_slice(&tr.translations[i].to_array());
            sc.extend_from_slice(&tr.scales[i].to_array());
        }
    }
    let c = AnimcompRawClip {
        num_joints: clip.num_joints() as u32,
        num_samples: clip.num_samples as u32,
        sample_rate: clip.sample_rate,
        layout: AnimcompLayout::JointMajor as u32,
        parents: parents.as_ptr(),
        precisions: null(),
        shell_distances: null(),
        bind_pose: null(),
        rotations: r.as_ptr(),
        translations: t.as_ptr(),
        scales: sc.as_ptr(),
        rotation_stride: 0,
        translation_stride: 0,
        scale_stride: 0,
        reserved0: 0,
        num_curves: 0,
        curve_stride: 0,
        curve_values: std::ptr::null(),
        curves: std::ptr::null(),
        reserved: [0; 2],
    };
    let mut bound = 0usize;
    let st = unsafe { animcomp_compress_bound(&c, s, &mut bound) };
    (st, bound)
}

fn settings(rf: RotationFormat, tf: VectorFormat, sf: VectorFormat) -> AnimcompCompressSettings {
    let mut s = unsafe { std::mem::zeroed() };
    assert_eq!(
        unsafe { animcomp_compress_settings_default(&mut s) },
        Status::Ok
    );
    s.codec = CodecChoice::Fixed as u32;
    (s.rotation_format, s.translation_format, s.scale_format) = (rf as u32, tf as u32, sf as u32);
    s
}

fn rust_settings(s: &AnimcompCompressSettings) -> animcomp::CompressSettings {
    animcomp::CompressSettings {
        codec: CodecChoice::from_u32(s.codec).unwrap(),
        rotation_format: RotationFormat::from_u32(s.rotation_format).unwrap(),
        translation_format: VectorFormat::from_u32(s.translation_format).unwrap(),
        scale_format: VectorFormat::from_u32(s.scale_format).unwrap(),
        ..Default::default()
    }
}

/// Every channel of every joint animated (nothing constant or default).
fn fully_animated(joints: usize, samples: usize) -> RawClip {
    let mut c = generate_clip(&GenerateOptions {
        joints,
        samples,
        scale: true,
        animated_translation: true,
        ..Default::default()
    });
    for (j, t) in c.tracks.iter_mut().enumerate() {
        for (i, (q, (tr, s))) in t
            .rotations
            .iter_mut()
            .zip(t.translations.iter_mut().zip(t.scales.iter_mut()))
            .enumerate()
        {
            let a = 0.3 * (i as f32 * 0.4 + j as f32).sin();
            *q = (*q * Quat::from_rotation_z(a)).normalize();
            *tr += Vec3::splat(2.0 * (i as f32 * 0.3).cos());
            *s = Vec3::new(1.0 + 0.3 * a, 1.0 - 0.2 * a, 1.0 + 0.1 * a);
        }
    }
    c
}

#[test]
fn bound_holds_for_every_format_combination() {
    let clips = [
        ("animated", fully_animated(9, 33)),
        (
            "generated+scale",
            generate_clip(&GenerateOptions {
                joints: 17,
                samples: 40,
                scale: true,
                ..Default::default()
            }),
        ),
        (
            "generated",
            generate_clip(&GenerateOptions {
                joints: 5,
                samples: 1,
                ..Default::default()
            }),
        ),
    ];
    let mut worst_slack = 0.0f64;
    for (name, clip) in &clips {
        for rf in RotationFormat::ALL {
            for tf in VectorFormat::ALL {
                for sf in VectorFormat::ALL {
                    let s = settings(rf, tf, sf);
                    let (st, bound) = bound_of(clip, &s);
                    assert_eq!(st, Status::Ok);
                    let size = animcomp::compress(clip, &rust_settings(&s)).unwrap().len();
                    assert!(
                        size <= bound,
                        "{name} {rf:?}/{tf:?}/{sf:?}: size {size} > bound {bound}"
                    );
                    if *name == "animated" {
                        let slack = bound as f64 / size as f64;
                        worst_slack = worst_slack.max(slack);
                        assert!(
                            bound <= size + size / 10 + 128,
                            "{name} {rf:?}/{tf:?}/{sf:?}: bound {bound} loose vs {size}"
                        );
                    }
                }
            }
        }
    }
    println!("worst bound/size on the fully animated clip: {worst_slack:.3}");
}

#[test]
fn other_codecs_give_the_exact_size_or_the_compress_status() {
    let clip = generate_clip(&GenerateOptions {
        joints: 6,
        samples: 20,
        ..Default::default()
    });
    for codec in [CodecChoice::Auto, CodecChoice::Vbr, CodecChoice::Keys] {
        let mut s = settings(
            RotationFormat::SmallestThree48,
            VectorFormat::RangeReduced48,
            VectorFormat::RangeReduced48,
        );
        s.codec = codec as u32;
        let (st, bound) = bound_of(&clip, &s);
        match animcomp::compress(&clip, &rust_settings(&s)) {
            Ok(b) => assert_eq!((st, bound), (Status::Ok, b.len()), "{codec:?}"),
            Err(e) => assert_eq!((st, bound), (e.status(), 0), "{codec:?}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn bound_holds_for_random_clips(
        joints in 1usize..40,
        samples in 1usize..50,
        scale in any::<bool>(),
        seed in any::<u64>(),
        rf in 0u32..8,
        tf in 0u32..3,
        sf in 0u32..3,
    ) {
        let clip = generate_clip(&GenerateOptions { joints, samples, scale, seed, animated_translation: seed % 2 == 0, ..Default::default() });
        let s = settings(RotationFormat::from_u32(rf).unwrap(), VectorFormat::from_u32(tf).unwrap(), VectorFormat::from_u32(sf).unwrap());
        let (st, bound) = bound_of(&clip, &s);
        prop_assert_eq!(st, Status::Ok);
        let size = animcomp::compress(&clip, &rust_settings(&s)).unwrap().len();
        prop_assert!(size <= bound, "size {} > bound {}", size, bound);
    }
}
