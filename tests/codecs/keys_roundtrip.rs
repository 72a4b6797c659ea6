//! Round trips of generated clips through the keys codec: max error at sample times stays within
//! every joint's precision (the codec's guarantee), and encoding is deterministic.

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::math::{Transform, FLOATS_PER_JOINT};
use animcomp::metric::Metric;
use animcomp::{compress, AlignedBlob, CodecChoice, CompressSettings, RawClip};

fn settings() -> CompressSettings {
    CompressSettings {
        codec: CodecChoice::Keys,
        ..Default::default()
    }
}

fn bind_floats(clip: &RawClip) -> Vec<f32> {
    clip.bind_pose_floats()
        .unwrap_or_else(|| vec![0.0; clip.num_joints() * FLOATS_PER_JOINT])
}

fn max_error(clip: &RawClip, blob: &[u8]) -> f32 {
    let aligned = AlignedBlob::from_bytes(blob);
    let bind = bind_floats(clip);
    let opts = DecompressOptions {
        bind_pose: Some(&bind),
        ..Default::default()
    };
    let mut d = Decompressor::new(aligned.as_bytes(), &opts).unwrap();
    let metric = Metric::new(clip);
    let mut pose = vec![Transform::IDENTITY; clip.num_joints()];
    let stats = metric.measure(|s, out| {
        d.pose_at_sample(s as u32, &mut pose).unwrap();
        out.copy_from_slice(&pose);
    });
    stats.max_error
}

#[test]
fn generated_clips_round_trip_within_precision() {
    // Under qemu (.ci/cross.sh) every configuration with one second of samples instead of three:
    // this test was 8 s of CPU there.
    let seconds = if crate::emulated::emulated() {
        1.0
    } else {
        3.0
    };
    for (rate, joints, scale, anim_t, seed) in [
        (60.0, 60, false, false, 1),
        (120.0, 80, false, true, 2),
        (60.0, 100, true, false, 3),
        (30.0, 40, true, true, 4),
    ] {
        let clip = generate_clip(&GenerateOptions {
            joints,
            samples: (rate * seconds) as usize,
            sample_rate: rate,
            max_depth: 12,
            scale,
            animated_translation: anim_t,
            seed,
            ..Default::default()
        });
        let blob = compress(&clip, &settings()).unwrap();
        let err = max_error(&clip, &blob);
        let raw = clip.raw_size_bytes();
        println!(
            "{}: {} -> {} bytes ({:.1}:1), max error {err:.5}",
            clip.name,
            raw,
            blob.len(),
            raw as f32 / blob.len() as f32
        );
        assert!(err <= 0.01, "{}: max error {err}", clip.name);
        assert!(blob.len() < raw, "{}: {} bytes", clip.name, blob.len());
    }
}

#[test]
fn encoding_is_deterministic() {
    let clip = generate_clip(&GenerateOptions {
        joints: 30,
        samples: 90,
        sample_rate: 60.0,
        seed: 9,
        ..Default::default()
    });
    let a = compress(&clip, &settings()).unwrap();
    let b = compress(&clip, &settings()).unwrap();
    assert_eq!(a, b);
}

#[test]
fn every_encoder_variant_keeps_the_guarantee() {
    use animcomp::offline::compress_keys_with as compress_with;
    use animcomp::offline::keys::{InterpChoice, KeysOptions, Split, ToleranceMode};
    // Under qemu (.ci/cross.sh) every variant on 60 samples instead of 150: this test was 8 s of
    // CPU there.
    let clip = generate_clip(&GenerateOptions {
        joints: 40,
        samples: if crate::emulated::emulated() { 60 } else { 150 },
        sample_rate: 60.0,
        max_depth: 10,
        animated_translation: true,
        seed: 11,
        ..Default::default()
    });
    let d = KeysOptions::default();
    let variants = [
        KeysOptions {
            interp: InterpChoice::Linear,
            ..d
        },
        KeysOptions {
            interp: InterpChoice::CatmullRom,
            ..d
        },
        KeysOptions {
            tolerance: ToleranceMode::DominantShell,
            ..d
        },
        KeysOptions {
            tolerance: ToleranceMode::ChainHalving,
            ..d
        },
        KeysOptions {
            split: Split::Worst,
            ..d
        },
        KeysOptions {
            joint_first: false,
            initial_budget: 1.0,
            ..d
        },
        KeysOptions {
            every_nth: Some((2, 3)),
            ..d
        },
    ];
    for (i, v) in variants.iter().enumerate() {
        let (blob, stats) = compress_with(&clip, &settings(), v).unwrap();
        let err = max_error(&clip, &blob);
        assert!(err <= 0.01, "variant {i}: max error {err}");
        // The encoder's own final check measured the same thing.
        assert!(
            (stats.max_error - err).abs() <= 1e-6,
            "variant {i}: {} vs {err}",
            stats.max_error
        );
    }
}

#[test]
fn clips_longer_than_65536_samples_are_rejected_clearly() {
    let clip = generate_clip(&GenerateOptions {
        joints: 1,
        samples: 65_537,
        sample_rate: 120.0,
        ..Default::default()
    });
    match compress(&clip, &settings()) {
        Err(animcomp::Error::Unsupported(msg)) => assert!(msg.contains("65536"), "{msg}"),
        other => panic!("expected Unsupported, got {:?}", other.map(|b| b.len())),
    }
}
