//! Hostile curves sections: every single-byte corruption of a valid section (checksum not
//! verified) is either refused at validation or decodes, at every sample and between samples,
//! to finite values within the input limit of 1e7. Truncated or oversized counts are refused.

use animcomp::clip::Skeleton;
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::format::Header;
use animcomp::{compress_with_curves, AlignedBlob, CompressSettings, Curve, RawClip};

fn blob() -> Vec<u8> {
    let n = 40;
    let clip = RawClip {
        name: "h".into(),
        skeleton: Skeleton::default(),
        sample_rate: 30.0,
        num_samples: n,
        tracks: vec![],
    };
    let curves = vec![
        Curve::new("a", 1, (0..n).map(|i| (i as f32 * 0.3).sin()).collect()),
        Curve::new("b", 2, vec![0.5; n]),
        Curve {
            precision: 1e-7,
            ..Curve::new(
                "c",
                3,
                (0..n).map(|i| (i as f32 * 977.0).sin() * 5e5).collect(),
            )
        },
        Curve::new("d", 4, (0..n).map(|i| (i % 7) as f32 * 0.1).collect()),
    ];
    compress_with_curves(&clip, &curves, &CompressSettings::default()).unwrap()
}

fn decode_everything(bytes: &[u8]) -> bool {
    let opts = DecompressOptions {
        verify_checksum: false,
        ..Default::default()
    };
    let Ok(mut d) = Decompressor::new(bytes, &opts) else {
        return false;
    };
    let nc = d.num_curves();
    let mut v = vec![0.0f32; nc];
    for i in 0..d.header().num_samples * 2 {
        d.seek(i as f32 / 60.0, Looping::Wrap, Rounding::None)
            .unwrap();
        d.sample_curves(&mut v).unwrap();
        for (c, x) in v.iter().enumerate() {
            assert!(x.is_finite() && x.abs() <= 1e7, "curve {c}: {x}");
            let one = d.sample_curve(c as u32).unwrap();
            assert!(one.is_finite() && one.abs() <= 1e7);
        }
    }
    true
}

#[test]
fn every_byte_corruption_is_refused_or_bounded() {
    let good = blob();
    let h = Header::parse(AlignedBlob::from_bytes(&good).as_bytes()).unwrap();
    assert!(decode_everything(AlignedBlob::from_bytes(&good).as_bytes()));
    let (mut refused, mut accepted) = (0, 0);
    for pos in h.curves_range() {
        for flip in [0x01u8, 0x10, 0x80, 0xFF] {
            let mut b = AlignedBlob::from_bytes(&good);
            b.as_bytes_mut()[pos] ^= flip;
            if decode_everything(b.as_bytes()) {
                accepted += 1;
            } else {
                refused += 1;
            }
        }
    }
    // Both outcomes occur: structure bytes are checked, payload bytes are bounded.
    assert!(refused > 0 && accepted > 0, "{refused} {accepted}");
}

#[test]
fn header_counts_that_disagree_with_the_section_are_refused() {
    let good = blob();
    for (offset, value) in [(40usize, 5u32), (40, 0), (24, 41), (48, 8), (44, 16)] {
        let mut b = AlignedBlob::from_bytes(&good);
        b.as_bytes_mut()[offset..offset + 4].copy_from_slice(&value.to_le_bytes());
        let opts = DecompressOptions {
            verify_checksum: false,
            ..Default::default()
        };
        assert!(
            Decompressor::new(b.as_bytes(), &opts).is_err(),
            "offset {offset} = {value} accepted"
        );
    }
}
