//! Sampling the `fixed` codec between samples: interpolation, wrapping, and `sample_joint`
//! agreeing with `sample_pose`.

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::format::quantize::{RotationFormat, VectorFormat};
use animcomp::math::{angle_between, nlerp_shortest, Transform};
use animcomp::{compress, AlignedBlob, CodecChoice, CompressSettings};

#[test]
fn interpolates_between_decoded_samples_and_joint_matches_pose() {
    let clip = generate_clip(&GenerateOptions {
        joints: 20,
        samples: 31,
        scale: true,
        max_depth: 8,
        ..Default::default()
    });
    for rf in [
        RotationFormat::Fixed48NoW,
        RotationFormat::SmallestThree32,
        RotationFormat::Float128,
    ] {
        let s = CompressSettings {
            codec: CodecChoice::Fixed,
            rotation_format: rf,
            translation_format: VectorFormat::RangeReduced48,
            scale_format: VectorFormat::RangeReduced32,
            ..Default::default()
        };
        let blob = AlignedBlob::from_bytes(&compress(&clip, &s).unwrap());
        let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
        let nj = clip.num_joints();
        let mut a = vec![Transform::IDENTITY; nj];
        let mut b = vec![Transform::IDENTITY; nj];
        let mut first = vec![Transform::IDENTITY; nj];
        d.pose_at_sample(0, &mut first).unwrap();
        let mut pose = vec![0.0f32; nj * 12];
        for (i, alpha, looping) in [
            (4u32, 0.25f32, Looping::Clamp),
            (17, 0.5, Looping::Clamp),
            (30, 0.6, Looping::Wrap),
        ] {
            d.pose_at_sample(i, &mut a).unwrap();
            let next = if i + 1 < 31 { i + 1 } else { 0 };
            d.pose_at_sample(next, &mut b).unwrap();
            d.seek(
                (i as f32 + alpha) / clip.sample_rate,
                looping,
                Rounding::None,
            )
            .unwrap();
            d.sample_pose(&mut pose, 12).unwrap();
            for j in 0..nj {
                let got = Transform::read_from(&pose[j * 12..]);
                let want_r = nlerp_shortest(a[j].rotation, b[j].rotation, alpha);
                let want_t = a[j].translation.lerp(b[j].translation, alpha);
                let want_s = a[j].scale.lerp(b[j].scale, alpha);
                assert!(
                    angle_between(got.rotation, want_r) < 2e-3,
                    "{} joint {j}",
                    rf.name()
                );
                assert!((got.translation - want_t).length() < 1e-3);
                assert!((got.scale - want_s).length() < 1e-4);
                let single = d.sample_joint(j as u32).unwrap();
                assert_eq!(
                    single, got,
                    "sample_joint differs from sample_pose at joint {j}"
                );
            }
        }
    }
}
