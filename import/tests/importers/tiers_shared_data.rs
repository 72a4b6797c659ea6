//! Quality tiers on real motion (skipped when the shared sets are absent): on the first clips of
//! cmu-cc and bandai at the default settings (precision 0.01, shell distance 3), the resident
//! blob opens and samples on its own within 10 times the precision, level 1 attached within 3
//! times, and every level attached is the blob compressed without tiers, judged in float64
//! (`error_bound_f64`'s reference, not the library's metric).

use crate::error_bound_f64::{clips, data_dir, Reference};
use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::math::Transform;
use animcomp::offline::tiers::compress_tiered_fidelities;
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

#[test]
fn cmu_cc_tiers_within_their_bounds_in_f64() {
    run("cmu-cc");
}

#[test]
fn bandai_tiers_within_their_bounds_in_f64() {
    run("bandai");
}
