//! Quality tiers within their bounds, judged in float64 (`animcomp_import::judge64`, not the
//! library's metric): on generated clips smooth enough that samples go to the tiers (two levels
//! at 10x and 3x the precision, one level at 5x with the default level and `Best`, short clips)
//! and on the first clips of cmu-cc and bandai (skipped when the shared sets
//! are absent): the resident blob opens and samples on its own within its bound, level 1
//! attached within its own, and every level attached is the blob compressed without tiers.

use crate::error_bound_f64::{clips, data_dir, Reference};
use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::math::Transform;
use animcomp::offline::tiers::compress_tiered_fidelities;
use animcomp::offline::Level;
use animcomp::{compress, AlignedBlob, CompressSettings, RawClip, TierSettings};

/// Clips of each set checked (the whole sets are measured by the `tiers_table` bench).
const CLIPS: usize = 4;

fn worst(clip: &RawClip, reference: &Reference, blob: &[u8]) -> f64 {
    let blob = AlignedBlob::from_bytes(blob);
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
    let mut local = vec![Transform::IDENTITY; clip.num_joints()];
    let mut w = 0.0f64;
    for i in 0..d.header().num_samples as usize {
        d.pose_at_sample(i as u32, &mut local).unwrap();
        let (e, _) = reference.worst_at(i, &local);
        assert!(!e.is_nan());
        w = w.max(e);
    }
    w
}

fn run(set: &str) {
    let Some(clips) = clips(set, None) else {
        println!(
            "skipping {set}: {} not found",
            data_dir().join(set).display()
        );
        return;
    };
    let settings = CompressSettings::default();
    let tiers = TierSettings::default();
    for (name, clip) in clips.iter().take(CLIPS) {
        let b = compress_tiered_fidelities(clip, &settings, &tiers).unwrap();
        assert_eq!(b.full, compress(clip, &settings).unwrap(), "{name}");
        assert_eq!(b.fidelities[2], b.full, "{name}: every level attached");
        let reference = Reference::new(clip);
        let resident = worst(clip, &reference, &b.blobs.resident);
        let medium = worst(clip, &reference, &b.fidelities[1]);
        println!(
            "{set} {name}: resident {} of {} bytes, {:?} samples stored, float64 error / \
             precision {resident:.3} (resident), {medium:.3} (level 1 attached)",
            b.blobs.resident.len(),
            b.full.len(),
            b.stored
        );
        assert!(resident <= 10.0, "{name}: resident {resident}");
        assert!(medium <= 3.0, "{name}: level 1 attached {medium}");
    }
}

/// Generated clips whose motion (up to 5 Hz over chains of short bones, at 120 Hz) leaves
/// samples to the tiers: with and without scale, translation animated on the root or every joint.
fn generated() -> Vec<RawClip> {
    [
        (1, false, false, 90),
        (2, true, false, 61),
        (3, false, true, 200),
        (4, true, true, 33),
    ]
    .into_iter()
    .map(|(seed, scale, animated_translation, samples)| {
        generate_clip(&GenerateOptions {
            joints: 24,
            samples,
            sample_rate: 120.0,
            bone_length: 1.0,
            scale,
            animated_translation,
            seed,
            ..Default::default()
        })
    })
    .collect()
}

#[test]
fn generated_tiers_within_their_bounds_in_f64() {
    let (settings, tiers) = (CompressSettings::default(), TierSettings::default());
    let mut moved = 0;
    for clip in generated() {
        let b = compress_tiered_fidelities(&clip, &settings, &tiers).unwrap();
        let reference = Reference::new(&clip);
        let resident = worst(&clip, &reference, &b.blobs.resident);
        let medium = worst(&clip, &reference, &b.fidelities[1]);
        let full = worst(&clip, &reference, &b.full);
        assert!(resident <= 10.0, "resident {resident}");
        assert!(medium <= 3.0, "level 1 attached {medium}");
        assert!(full <= 1.0, "every level {full}");
        moved += b.stored[2] - b.stored[0];
    }
    assert!(
        moved > 0,
        "no sample left the resident blobs: the bounds proved nothing"
    );
}

#[test]
fn one_level_and_short_clips_within_their_bounds_in_f64() {
    let one = TierSettings {
        levels: 1,
        resident_factor: 5.0,
        ..Default::default()
    };
    for level in [Level::Default, Level::Best] {
        let settings = CompressSettings {
            level,
            ..Default::default()
        };
        for clip in generated().into_iter().take(3) {
            let b = compress_tiered_fidelities(&clip, &settings, &one).unwrap();
            let resident = worst(&clip, &Reference::new(&clip), &b.blobs.resident);
            assert!(resident <= 5.0, "{level:?}: resident {resident}");
        }
    }
    // Short clips, and a clip at 30 Hz whose samples all stay resident.
    for (samples, rate) in [
        (1, 120.0),
        (2, 120.0),
        (3, 120.0),
        (17, 120.0),
        (33, 120.0),
        (40, 30.0),
    ] {
        let clip = generate_clip(&GenerateOptions {
            joints: 9,
            samples,
            sample_rate: rate,
            bone_length: if rate > 60.0 { 1.0 } else { 10.0 },
            seed: samples as u64,
            ..Default::default()
        });
        let b = compress_tiered_fidelities(
            &clip,
            &CompressSettings::default(),
            &TierSettings::default(),
        )
        .unwrap();
        let resident = worst(&clip, &Reference::new(&clip), &b.blobs.resident);
        assert!(resident <= 10.0, "{samples} samples: resident {resident}");
    }
}

#[test]
fn cmu_cc_tiers_within_their_bounds_in_f64() {
    run("cmu-cc");
}

#[test]
fn bandai_tiers_within_their_bounds_in_f64() {
    run("bandai");
}
