//! Hostile `vbr` bodies in the segments layout (format version 2, which only the offline
//! conversion `regroup_blob` reads; the runtime refuses the version): validation is linear in the
//! body size (a segment table whose entries all point at one shared record is refused after one
//! record, at every size) and stored constants are value-checked. (Mutants in general:
//! `value_rule.rs`; grouped bodies: `runtime/vbr/grouped/tests.rs`.)

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::format::vbr::layout::{self, validate_counting, View};
use animcomp::format::{Header, HEADER_SIZE};
use animcomp::offline::compress::compress_segments;
use animcomp::offline::regroup_blob;
use animcomp::{AlignedBlob, CodecChoice, CompressSettings, Error};

use crate::harness::reseal;

/// The segments blob (format version 2) the encoder writes for a generated clip.
pub(crate) fn vbr_blob(joints: usize, samples: usize) -> AlignedBlob {
    let clip = generate_clip(&GenerateOptions {
        joints,
        samples,
        scale: true,
        animated_translation: true,
        ..Default::default()
    });
    let s = CompressSettings {
        codec: CodecChoice::Vbr,
        ..Default::default()
    };
    AlignedBlob::from_bytes(&compress_segments(&clip, &[], &s).unwrap())
}

fn body_of(blob: &AlignedBlob) -> (Header, std::ops::Range<usize>) {
    let h = Header::parse(blob.as_bytes()).unwrap();
    (h, h.body_range())
}

/// Every segment offset rewritten to point at segment 0's record: the old validator re-checked
/// that record once per segment (quadratic); now the second entry is refused and the work done
/// stays under the body size at every size.
#[test]
fn shared_segment_records_are_refused_in_linear_work() {
    let mut ratios = Vec::new();
    // Under qemu (.ci/cross.sh) bodies a quarter of the size (still 16 times apart): compressing
    // the clips was 28 s of CPU there; what is asserted is integer validation work.
    let sizes = if crate::emulated::emulated() {
        [16 * 5, 16 * 20, 16 * 80]
    } else {
        [16 * 20, 16 * 80, 16 * 320]
    };
    for samples in sizes {
        let mut blob = vbr_blob(6, samples);
        let (h, range) = body_of(&blob);
        let mut examined = 0;
        validate_counting(&h, &blob.as_bytes()[range.clone()], &mut examined).unwrap();
        assert!(
            examined <= range.len(),
            "valid body: {examined} > {}",
            range.len()
        );
        let body = &mut blob.as_bytes_mut()[range.clone()];
        let v = View::read(body);
        let first = v.segment_offset(body, 0) as u32;
        for s in 0..v.num_segments as usize {
            body[v.segments + 4 * s..v.segments + 4 * s + 4].copy_from_slice(&first.to_le_bytes());
        }
        let mut work = 0;
        let r = validate_counting(&h, &blob.as_bytes()[range.clone()], &mut work);
        assert!(matches!(r, Err(Error::CorruptBlob(_))), "{r:?}");
        assert!(work <= range.len());
        ratios.push(work as f64 / range.len() as f64);
        // And through the public entry point, checksum re-sealed so the codec validator is
        // reached; the runtime refuses the version first.
        reseal(blob.as_bytes_mut());
        assert!(matches!(
            regroup_blob(blob.as_bytes()),
            Err(Error::CorruptBlob(_))
        ));
        assert_eq!(
            Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).err(),
            Some(Error::UnsupportedVersion(2))
        );
    }
    // The work per body byte does not grow with the size (it shrinks: one record is examined).
    assert!(ratios[2] <= ratios[0] * 1.01, "{ratios:?}");
}

/// Constants that would decode to non-unit rotations or out-of-range vectors are refused.
#[test]
fn constants_are_value_checked() {
    let clip = generate_clip(&GenerateOptions {
        joints: 8,
        samples: 40,
        ..Default::default()
    });
    let blob = compress_segments(&clip, &[], &CompressSettings::default()).unwrap();
    let blob = AlignedBlob::from_bytes(&blob);
    assert!(regroup_blob(blob.as_bytes()).is_ok());
    let (h, range) = body_of(&blob);
    let body = &blob.as_bytes()[range.clone()];
    let v = View::read(body);
    let table = &body[v.tracks..v.tracks + h.num_joints as usize];
    // The first constant of the section: find its channel.
    let first = table
        .iter()
        .flat_map(|&b| (0..3).map(move |ch| (ch, layout::kind(b, ch))))
        .find(|&(_, k)| k == layout::KIND_CONSTANT)
        .map(|(ch, _)| ch)
        .expect("the generated clip has constant channels");
    let bad_values: Vec<[f32; 4]> = if first == 0 {
        vec![
            [0.0; 4],
            [1e30, 0.0, 0.0, 0.0],
            [0.5, 0.5, 0.5, 0.6],
            [f32::NAN; 4],
        ]
    } else {
        vec![
            [f32::MAX, 0.0, 0.0, 0.0],
            [2e7, 1.0, 1.0, 0.0],
            [f32::INFINITY; 4],
        ]
    };
    for bad in bad_values {
        let mut b = blob.clone();
        let at = HEADER_SIZE + v.constants;
        let n = if first == 0 { 4 } else { 3 };
        for (i, x) in bad.iter().take(n).enumerate() {
            b.as_bytes_mut()[at + 4 * i..at + 4 * i + 4].copy_from_slice(&x.to_le_bytes());
        }
        reseal(b.as_bytes_mut());
        let r = regroup_blob(b.as_bytes());
        assert!(
            matches!(r, Err(Error::CorruptBlob(_))),
            "{bad:?}: {:?}",
            r.err()
        );
    }
}
