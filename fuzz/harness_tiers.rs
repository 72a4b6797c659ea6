//! Hostile tier blobs and attach/detach sequences (docs/tiers.md, "Hostile tiers"), as a harness
//! shared by the cargo-fuzz target `tier_rule` and the property tests in
//! `tests/robust/tier_rule.rs`, which pull this file in next to `harness.rs` and
//! `harness_rule.rs` with `#[path = ...]`.
//!
//! A clip compressed with two tier levels is taken as the base; the input mutates its resident
//! blob and its tier blobs (checksums re-sealed, so the mutants reach the structural checks),
//! then runs a sequence of attaches, detaches and poses on a tier set. Whatever is attached,
//! every pose through `sample_pose`, `sample_joint`, `sample_joints` and the playback cache must
//! keep the value rule ([`crate::harness_rule::violation`]); a refused tier leaves the set as
//! it was; and the unmutated tiers of the base always attach.

#![allow(dead_code)]

use std::sync::OnceLock;

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, OpenBlob, Rounding};
use animcomp::format::checksum::crc32c;
use animcomp::runtime::{TierSet, CHANNELS_ALL};
use animcomp::{compress_tiered, AlignedBlob, CompressSettings, TierSettings};

use crate::harness::{mutate, reseal, Bytes};
use crate::harness_rule::violation;

/// The base: a smooth clip whose two tier levels both store samples, its resident blob and
/// tier blobs.
fn base() -> &'static (Vec<u8>, Vec<Vec<u8>>) {
    static BASE: OnceLock<(Vec<u8>, Vec<Vec<u8>>)> = OnceLock::new();
    BASE.get_or_init(|| {
        let clip = generate_clip(&GenerateOptions {
            joints: 23,
            samples: 97,
            sample_rate: 120.0,
            bone_length: 1.0,
            scale: true,
            seed: 2,
            ..Default::default()
        });
        let t = compress_tiered(
            &clip,
            &CompressSettings::default(),
            &TierSettings::default(),
        )
        .expect("the base clip compresses with tiers");
        (t.resident, t.tiers)
    })
}

/// Re-seals a tier blob's checksum (CRC-32C of bytes 16 to its declared size, or to the end).
pub fn reseal_tier(tier: &mut [u8]) {
    if tier.len() < 16 {
        return;
    }
    let total = u32::from_le_bytes([tier[8], tier[9], tier[10], tier[11]]) as usize;
    let end = if (16..=tier.len()).contains(&total) {
        total
    } else {
        tier.len()
    };
    let c = crc32c(&tier[16..end]);
    tier[12..16].copy_from_slice(&c.to_le_bytes());
}

/// Samples the set's blob at a few times through every entry point and checks the value rule.
fn check_poses(set: &TierSet, cache: &mut AlignedBlob, when: u8) {
    let mut d = Decompressor::bind_tiers(set);
    let nj = d.num_joints();
    let duration = d.header().duration();
    let mut out = vec![0.0f32; nj * 10];
    let joints: Vec<u32> = (0..nj as u32).step_by(3).collect();
    let mut some = vec![0.0f32; joints.len() * 10];
    for k in 0..6 {
        let t = duration * (when as f32 / 255.0 + k as f32 * 0.21);
        d.seek(t, Looping::Wrap, Rounding::None).unwrap();
        d.sample_pose(&mut out, 10).unwrap();
        for j in 0..nj {
            if let Some(v) = violation(&out[j * 10..j * 10 + 10]) {
                panic!("tiers {:?}, t {t}, joint {j}: {v}", set.attached());
            }
        }
        d.sample_pose_cached(cache.as_bytes_mut(), &mut out, 10)
            .unwrap();
        d.sample_joints(&joints, None, CHANNELS_ALL, &mut some, 10)
            .unwrap();
        for (i, &j) in joints.iter().enumerate() {
            let mut row = [0.0f32; 10];
            d.sample_joint(j).unwrap().write_to(&mut row);
            for v in [
                &row[..],
                &some[i * 10..i * 10 + 10],
                &out[j as usize * 10..][..10],
            ] {
                if let Some(v) = violation(v) {
                    panic!("tiers {:?}, t {t}, joint {j}: {v}", set.attached());
                }
            }
        }
    }
}

/// What one input did.
#[derive(Debug, Default, Clone, Copy)]
pub struct Outcome {
    /// The resident blob opened.
    pub opened: bool,
    /// Mutated tiers attached.
    pub attached: usize,
    /// Checks of the value rule with some tier attached.
    pub tiered_checks: usize,
}

/// Fuzz harness `tier_rule`: byte 0 says which of the resident blob, tier 1 and tier 2 the
/// mutations apply to (bit k: part k), byte 1 how many mutations of 4 bytes follow (at most 8),
/// then the sequence: each byte attaches (level 1 or 2, mutated or the base's), detaches, or
/// samples.
pub fn tier_rule(data: &[u8]) -> Outcome {
    let (resident, tiers) = base();
    let mut b = Bytes::new(data);
    let which = b.u8();
    let count = b.u8() % 9;
    let mut parts = [resident.clone(), tiers[0].clone(), tiers[1].clone()];
    let mut outcome = Outcome::default();
    for _ in 0..count {
        if b.exhausted() {
            break;
        }
        let (k, p, v) = (b.u8(), b.u16(), b.u8());
        let part = [0, 1, 2]
            .into_iter()
            .filter(|i| which & (1 << i) != 0)
            .nth(v as usize % 3)
            .unwrap_or(1);
        mutate(&mut parts[part], k, p, v);
    }
    reseal(&mut parts[0]);
    reseal_tier(&mut parts[1]);
    reseal_tier(&mut parts[2]);
    let blobs: Vec<AlignedBlob> = parts.iter().map(|p| AlignedBlob::from_bytes(p)).collect();
    let originals: Vec<AlignedBlob> = tiers.iter().map(|t| AlignedBlob::from_bytes(t)).collect();
    let Ok(open) = OpenBlob::open(blobs[0].as_bytes(), &DecompressOptions::default()) else {
        return outcome;
    };
    outcome.opened = true;
    let Ok(set) = TierSet::new(&open) else {
        return outcome;
    };
    let unchanged = blobs[0].as_bytes() == resident.as_slice();
    let mut cache = AlignedBlob::from_bytes(&vec![
        0u8;
        Decompressor::bind_tiers(&set)
            .playback_cache_size()
    ]);
    for &op in b.rest().iter().take(24) {
        let level = 1 + (op & 1) as usize;
        match (op >> 1) % 4 {
            0 => {
                let before = set.attached();
                if set.attach(blobs[level].as_bytes()).is_err() {
                    assert_eq!(set.attached(), before, "a refused tier changed the set");
                } else {
                    outcome.attached += 1;
                }
            }
            1 if unchanged => {
                // The base's own tier always attaches to the base's resident blob.
                let free = !set.attached()[level - 1];
                let r = set.attach(originals[level - 1].as_bytes());
                assert_eq!(r.is_ok(), free, "the base's tier {level}: {r:?}");
            }
            2 => {
                set.detach(level as u8);
            }
            _ => {
                outcome.tiered_checks += set.attached().contains(&true) as usize;
                check_poses(&set, &mut cache, op)
            }
        }
    }
    outcome.tiered_checks += set.attached().contains(&true) as usize;
    check_poses(&set, &mut cache, 7);
    outcome
}
