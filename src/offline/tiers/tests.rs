//! Tiers on generated clips: the resident blob opens on its own, the resident blob's and the
//! tiers' frames together are the full blob's bit for bit, the tier blobs follow their layout,
//! and the same input gives the same bytes. Each level's error bound is judged in float64 by
//! the import crate's `tiers_shared_data` test (with `animcomp_import::judge64`).

use super::*;
use crate::format::checksum::crc32c;
use crate::format::header::HEADER_SIZE;
use crate::format::quantize::bits::read_bits;
use crate::format::tier::{TIER_HEADER, TIER_MAGIC, TIER_PADDING, TIER_VERSION};
use crate::format::BlobFlags;
use crate::offline::clip::{generate_clip, GenerateOptions};
use crate::offline::settings::Level;
use crate::runtime::{DecompressOptions, Decompressor};
use crate::AlignedBlob;

fn clips() -> Vec<RawClip> {
    let mut out = Vec::new();
    // Under qemu (`ANIMCOMP_TEST_EMULATED=1`), where `one_level_and_level_best` alone was 17 s
    // of CPU, the two long clips are shorter, still several segments each; every kind of clip is
    // kept. x86-64 runs them at full length.
    let emulated = crate::emulated::emulated();
    for (seed, scale, translation, samples) in [
        (1, false, false, if emulated { 45 } else { 90 }),
        (2, true, false, 61),
        (3, false, true, if emulated { 50 } else { 200 }),
        (4, true, true, 33),
    ] {
        out.push(generate_clip(&GenerateOptions {
            joints: 24,
            samples,
            // Smooth enough that samples go to the tiers: the generator's motion of up to 5 Hz
            // over chains of short bones, sampled at 120 Hz.
            sample_rate: 120.0,
            bone_length: 1.0,
            scale,
            animated_translation: translation,
            seed,
            ..Default::default()
        }));
    }
    out
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// A tier blob's records: per segment (mask, first frame's byte from the frames' start; a
/// segment without a record stores nothing at its level, (0, 0)), and the count of records.
fn records(tier: &[u8]) -> (Vec<(u32, usize)>, usize) {
    let n = u32_at(tier, 32) as usize;
    let index = TIER_HEADER + u32_at(tier, 36) as usize;
    let entries = index + 4 * n.div_ceil(32);
    let mut at = entries + n;
    let mut out = vec![(0, 0); n];
    let (mut stored, mut in_run) = (0, 0);
    for (s, r) in out.iter_mut().enumerate() {
        if s % 32 == 0 {
            assert_eq!(u32_at(tier, index + s / 8) as usize, stored, "segment {s}");
            in_run = 0;
        }
        if tier[entries + s] != 0 {
            in_run += 1;
            assert_eq!(tier[entries + s], in_run, "segment {s}");
            *r = (u32_at(tier, at), u32_at(tier, at + 4) as usize);
            at += 8;
            stored += 1;
        }
    }
    (out, stored)
}

fn body(blob: &[u8]) -> &[u8] {
    let h = Header::parse(blob).unwrap();
    &blob[h.body_range()]
}

/// Every sample of the full blob is stored by exactly one of the resident blob and the tiers,
/// with the same frame bits; and each tier blob follows `format::tier`'s layout.
fn check_frames(b: &TieredBuild, samples: usize, levels: usize) {
    let full = write::segment_frames(body(&b.full), samples);
    let resident_body = body(&b.blobs.resident);
    let resident = write::segment_frames(resident_body, samples);
    assert_eq!(full.len(), resident.len());
    let rh = Header::parse(&b.blobs.resident).unwrap();
    let info = TierInfo::read(&rh, &b.blobs.resident).unwrap();
    assert_eq!(info.levels as usize, levels);
    assert_ne!(info.key, 0);
    assert_eq!(b.blobs.tiers.len(), levels);
    let seg_len = b.seg_len;
    for (li, tier) in b.blobs.tiers.iter().enumerate() {
        assert_eq!(tier[0..4], TIER_MAGIC);
        assert_eq!(u16::from_le_bytes([tier[4], tier[5]]), TIER_VERSION);
        assert_eq!(tier[6] as usize, li + 1);
        assert_eq!(tier[7] as usize, levels);
        let total = u32::from_le_bytes(tier[8..12].try_into().unwrap()) as usize;
        assert_eq!(total, tier.len());
        assert_eq!(total % 16, 0);
        assert_eq!(
            u32::from_le_bytes(tier[12..16].try_into().unwrap()),
            crc32c(&tier[16..])
        );
        assert_eq!(
            u64::from_le_bytes(tier[16..24].try_into().unwrap()),
            info.key
        );
        assert_eq!(tier[24..28], b.blobs.resident[12..16]);
        assert_eq!(tier[28..32], b.blobs.resident[8..12]);
        assert_eq!(
            u32::from_le_bytes(tier[32..36].try_into().unwrap()) as usize,
            full.len()
        );
        let frame_bytes = u32_at(tier, 36) as usize;
        let index = TIER_HEADER + frame_bytes;
        // Records: one per segment that stores samples, offsets following one another, each
        // segment's frames byte-rounded, filling the frame bytes.
        let (recs, stored) = records(tier);
        let mut at = 0;
        for (s, &(mask, off)) in recs.iter().enumerate() {
            if mask == 0 {
                continue;
            }
            assert_eq!(off, at, "segment {s}");
            let count = (samples - s * seg_len).min(seg_len);
            assert_eq!(mask & 1, 0);
            assert_eq!(mask >> (count - 1), 0, "no first, last or later sample");
            assert_eq!(mask & resident[s].mask, 0);
            at += (mask.count_ones() as usize * resident[s].fb).div_ceil(8);
        }
        assert_eq!(at, frame_bytes);
        assert_eq!(
            recs.iter().filter(|r| r.0 != 0).count(),
            stored,
            "a record per segment that stores samples"
        );
        let records_end = index + 4 * full.len().div_ceil(32) + full.len() + 8 * stored;
        let end = records_end.max(index + TIER_PADDING);
        assert!(total >= end && total - end < 16);
        assert!(tier[records_end..].iter().all(|&x| x == 0));
    }
    let tiers: Vec<Vec<(u32, usize)>> = b.blobs.tiers.iter().map(|t| records(t).0).collect();
    let full_body = body(&b.full);
    for (s, (f, r)) in full.iter().zip(&resident).enumerate() {
        assert_eq!(f.fb, r.fb, "segment {s}: the resident segment's frame bits");
        let count = (samples - s * seg_len).min(seg_len);
        for i in 0..count {
            if f.mask & (1 << i) == 0 {
                assert!(r.mask & (1 << i) == 0);
                assert!(tiers.iter().all(|t| t[s].0 & (1 << i) == 0));
                continue;
            }
            let k = (f.mask & ((1u32 << i) - 1)).count_ones() as usize;
            let want = f.bit + k * f.fb;
            let mut sources = Vec::new();
            if r.mask & (1 << i) != 0 {
                let k = (r.mask & ((1u32 << i) - 1)).count_ones() as usize;
                sources.push((resident_body, r.bit + k * r.fb));
            }
            for (tier, recs) in b.blobs.tiers.iter().zip(&tiers) {
                let (mask, off) = recs[s];
                if mask & (1 << i) != 0 {
                    let k = (mask & ((1u32 << i) - 1)).count_ones() as usize;
                    sources.push((&tier[..], (TIER_HEADER + off) * 8 + k * f.fb));
                }
            }
            assert_eq!(sources.len(), 1, "segment {s} sample {i}: stored once");
            let (src, bit) = sources[0];
            for b0 in (0..f.fb).step_by(32) {
                let w = (f.fb - b0).min(32) as u32;
                assert_eq!(
                    read_bits(src, bit + b0, w),
                    read_bits(full_body, want + b0, w),
                    "segment {s} sample {i}"
                );
            }
        }
    }
}

#[test]
fn resident_samples_alone_within_its_bound_and_the_tiers_complete_the_full_blob() {
    let settings = CompressSettings::default();
    let tiers = TierSettings::default();
    let mut moved = 0;
    for clip in clips() {
        let b = compress_tiered_fidelities(&clip, &settings, &tiers).unwrap();
        // The full blob is the one `compress` writes, and every level attached gives it.
        assert_eq!(b.full, crate::compress(&clip, &settings).unwrap());
        assert_eq!(b.fidelities.len(), 3);
        assert_eq!(b.fidelities[2], b.full);
        // The resident blob is the first fidelity's body under a tiered header.
        assert_eq!(body(&b.fidelities[0]), body(&b.blobs.resident));
        let h = Header::parse(&b.blobs.resident).unwrap();
        assert!(h.has(BlobFlags::HAS_TIERS));
        assert_eq!(h.total_size as usize, b.blobs.resident.len());
        assert!(b.blobs.resident.len() >= HEADER_SIZE);
        // Opens on its own (its bounds in float64: the import crate's `tiers_shared_data`).
        Decompressor::new(
            AlignedBlob::from_bytes(&b.blobs.resident).as_bytes(),
            &DecompressOptions::default(),
        )
        .unwrap();
        assert!(b.stored[0] <= b.stored[1] && b.stored[1] <= b.stored[2]);
        moved += b.stored[2] - b.stored[0];
        check_frames(&b, clip.num_samples, 2);
    }
    // The generated motion is smooth: most of it goes to the tiers.
    assert!(moved > 0);
}

#[test]
fn one_level_and_level_best() {
    let tiers = TierSettings {
        levels: 1,
        resident_factor: 5.0,
        ..Default::default()
    };
    for settings in [
        CompressSettings::default(),
        CompressSettings {
            level: Level::Best,
            ..Default::default()
        },
    ] {
        for clip in clips().into_iter().take(3) {
            let b = compress_tiered_fidelities(&clip, &settings, &tiers).unwrap();
            assert_eq!(b.full, crate::compress(&clip, &settings).unwrap());
            assert_eq!(b.fidelities.len(), 2);
            assert_eq!(b.fidelities[1], b.full);
            check_frames(&b, clip.num_samples, 1);
        }
    }
}

#[test]
fn the_same_input_gives_the_same_bytes() {
    let clip = &clips()[1];
    let a = compress_tiered(clip, &CompressSettings::default(), &TierSettings::default()).unwrap();
    let b = compress_tiered(clip, &CompressSettings::default(), &TierSettings::default()).unwrap();
    assert_eq!(a, b);
    // A tighter resident bound stores more, under another key.
    let c = compress_tiered(
        clip,
        &CompressSettings::default(),
        &TierSettings {
            resident_factor: 4.0,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(c.resident.len() > a.resident.len());
    assert_ne!(c.resident[52..60], a.resident[52..60]);
}

#[test]
fn other_codecs_and_bad_settings_are_refused() {
    let clip = &clips()[0];
    for codec in [CodecChoice::Fixed, CodecChoice::Keys, CodecChoice::Auto] {
        let s = CompressSettings {
            codec,
            ..Default::default()
        };
        assert!(matches!(
            compress_tiered(clip, &s, &TierSettings::default()),
            Err(Error::Unsupported(_))
        ));
    }
    for t in [
        TierSettings {
            levels: 0,
            ..Default::default()
        },
        TierSettings {
            levels: 3,
            ..Default::default()
        },
        TierSettings {
            resident_factor: f32::NAN,
            ..Default::default()
        },
        TierSettings {
            resident_factor: 0.5,
            ..Default::default()
        },
        TierSettings {
            medium_factor: 20.0,
            ..Default::default()
        },
    ] {
        assert!(matches!(
            compress_tiered(clip, &CompressSettings::default(), &t),
            Err(Error::InvalidArgument(_))
        ));
    }
}

#[test]
fn short_clips_and_clips_that_keep_every_sample() {
    // 1 to 3 samples (no interior sample, or one), a segment of one sample after a full one, and
    // a fast clip at 30 Hz whose samples all stay resident: the resident blob then stores no
    // masks and the tiers no frame.
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
        assert_eq!(b.fidelities[2], b.full, "{samples} samples");
        check_frames(&b, clip.num_samples, 2);
        if samples < 3 || rate < 60.0 {
            assert_eq!(b.stored[0], b.stored[2], "{samples} samples at {rate} Hz");
            assert_eq!(body(&b.blobs.resident), body(&b.full));
        }
    }
}

#[test]
fn a_looping_clip_with_optimize_loops_is_split_after_its_trim() {
    let clip = generate_clip(&GenerateOptions {
        joints: 10,
        samples: 81,
        sample_rate: 120.0,
        bone_length: 1.0,
        looping: true,
        ..Default::default()
    });
    let settings = CompressSettings {
        optimize_loops: true,
        ..Default::default()
    };
    let b = compress_tiered_fidelities(&clip, &settings, &TierSettings::default()).unwrap();
    let h = Header::parse(&b.blobs.resident).unwrap();
    assert!(h.has(BlobFlags::LOOPING) && h.has(BlobFlags::HAS_TIERS));
    assert_eq!(h.num_samples as usize, clip.num_samples - 1);
    assert_eq!(b.full, crate::compress(&clip, &settings).unwrap());
    assert_eq!(b.fidelities[2], b.full);
    assert!(b.stored[0] < b.stored[2]);
    check_frames(&b, clip.num_samples - 1, 2);
}
