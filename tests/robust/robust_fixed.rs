//! Hostile `fixed` bodies: with the checksum check off (as if forged), every corrupted or
//! truncated body is either rejected by validation or samples safely to finite poses.

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::format::quantize::{RotationFormat, VectorFormat};
use animcomp::format::HEADER_SIZE;
use animcomp::{compress, AlignedBlob, CodecChoice, CompressSettings};

fn blobs() -> Vec<Vec<u8>> {
    let clip = generate_clip(&GenerateOptions {
        joints: 9,
        samples: 12,
        scale: true,
        max_depth: 4,
        ..Default::default()
    });
    let combos = [
        (RotationFormat::Float128, VectorFormat::Float96),
        (RotationFormat::Float96NoW, VectorFormat::RangeReduced32),
        (
            RotationFormat::IntervalFixed32NoW,
            VectorFormat::RangeReduced48,
        ),
        (RotationFormat::SmallestThree48, VectorFormat::Float96),
    ];
    combos
        .iter()
        .map(|&(rf, vf)| {
            let s = CompressSettings {
                codec: CodecChoice::Fixed,
                rotation_format: rf,
                translation_format: vf,
                scale_format: vf,
                ..Default::default()
            };
            compress(&clip, &s).unwrap()
        })
        .collect()
}

/// Inits without checksum; if accepted, samples everything and checks the output is finite.
/// Returns whether the blob was accepted.
fn exercise(bytes: &[u8]) -> bool {
    let blob = AlignedBlob::from_bytes(bytes);
    let opts = DecompressOptions {
        verify_checksum: false,
        bind_pose: None,
    };
    let Ok(mut d) = Decompressor::new(blob.as_bytes(), &opts) else {
        return false;
    };
    let nj = d.num_joints();
    let mut pose = vec![0.0f32; nj * 10];
    for (t, l) in [
        (0.0, Looping::Clamp),
        (0.13, Looping::Clamp),
        (0.37, Looping::Wrap),
        (1e6, Looping::Wrap),
    ] {
        d.seek(t, l, Rounding::None).unwrap();
        d.sample_pose(&mut pose, 10).unwrap();
        assert!(
            pose.iter().all(|v| v.is_finite()),
            "non-finite pose from an accepted blob"
        );
        for j in 0..nj as u32 {
            let t = d.sample_joint(j).unwrap();
            assert!(t.rotation.is_finite() && t.translation.is_finite() && t.scale.is_finite());
        }
    }
    true
}

#[test]
fn flipped_bytes_are_rejected_or_safe() {
    let mut rng = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for blob in blobs() {
        assert!(exercise(&blob));
        let body_len = blob.len() - HEADER_SIZE;
        let mut rejected = 0;
        // Every byte of the codec header and kinds, then random positions everywhere.
        let positions: Vec<usize> = (0..64.min(body_len))
            .chain((0..3000).map(|_| (next() as usize) % body_len))
            .collect();
        for p in positions {
            let mut b = blob.clone();
            b[HEADER_SIZE + p] ^= 1 << (next() % 8);
            if next() % 4 == 0 {
                b[HEADER_SIZE + p] = next() as u8;
            }
            if !exercise(&b) {
                rejected += 1;
            }
        }
        assert!(rejected > 0, "no corruption was ever detected");
    }
}

#[test]
fn truncated_bodies_are_rejected() {
    for blob in blobs() {
        let body_len = blob.len() - HEADER_SIZE;
        for cut in 1..body_len.min(200) {
            let mut b = blob.clone();
            let size = (body_len - cut) as u32;
            b[36..40].copy_from_slice(&size.to_le_bytes());
            // Only the 8 read-ahead padding bytes and section alignment may be cut and still
            // validate; whatever validates must sample safely.
            exercise(&b);
        }
        let mut b = blob.clone();
        b[36..40].copy_from_slice(&40u32.to_le_bytes());
        assert!(
            !exercise(&b),
            "a body shorter than the codec header was accepted"
        );
    }
}

#[test]
fn header_counts_must_match() {
    for blob in blobs() {
        for (offset, value) in [(20usize, 10u32), (24, 13), (24, 11)] {
            let mut b = blob.clone();
            b[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
            assert!(!exercise(&b), "joint/sample count mismatch accepted");
        }
    }
}
