//! Issue 24, item 1: validation is linear in the blob's bytes, whatever its header's counts say.
//! For each section, forged blobs grow over several sizes; the work validation reports
//! (`validate_blob_counting`: one unit per loop iteration, per part) must stay within a fixed
//! multiple of the blob's size at every size. Work is counted, not timed; the time per byte of
//! the largest blob of each section is printed (`--nocapture`) for the record only.
//!
//! Each forged shape is one the earlier validator walked in work the bytes did not pay for:
//! `fixed` with a float format and 0-byte frames (samples x joints), `keys` slots sharing one
//! pool region (slots x region), curves that store nothing walked in every segment (curves x
//! segments).

use std::time::Instant;

use animcomp::format::curves::{Descriptor, Kind as CurveKind};
use animcomp::format::fixed::layout::{kind_byte, Kind, Layout, CODEC_HEADER_SIZE};
use animcomp::format::quantize::{RotationFormat, VectorFormat};
use animcomp::format::{validate_blob_counting, BlobFlags, CodecId, ValidationWork};
use animcomp::offline::blob_writer::{assemble_blob_with, BlobExtras, EncodedBody};
use animcomp::{AlignedBlob, Error};

/// Validates `blob` (checksum on), returning the outcome, the work and the seconds taken.
fn run(blob: &AlignedBlob) -> (Result<(), Error>, ValidationWork, f64) {
    let mut work = ValidationWork::default();
    let t = Instant::now();
    let r = validate_blob_counting(blob.as_bytes(), true, &mut work).map(|_| ());
    (r, work, t.elapsed().as_secs_f64())
}

/// Checks `work <= limit x bytes` for every blob, and that the work per byte does not grow.
fn assert_linear(what: &str, blobs: &[AlignedBlob], ok: bool, limit: f64) {
    let mut last = None;
    for blob in blobs {
        let (r, work, secs) = run(blob);
        assert_eq!(r.is_ok(), ok, "{what}: {r:?}");
        let per_byte = work.total() as f64 / blob.len() as f64;
        assert!(
            per_byte <= limit,
            "{what}: {} work units for {} bytes ({work:?})",
            work.total(),
            blob.len()
        );
        last = Some((blob.len(), work.total(), secs));
    }
    let (bytes, work, secs) = last.unwrap();
    eprintln!(
        "{what}: largest blob {bytes} bytes, {work} work units, {:.3} ms, {:.2} ns per byte",
        secs * 1e3,
        secs * 1e9 / bytes as f64
    );
}

fn blob(
    codec: CodecId,
    flags: u32,
    body: Vec<u8>,
    joints: usize,
    samples: usize,
    curves: (u32, Vec<u8>),
) -> AlignedBlob {
    let enc = EncodedBody { codec, flags, body };
    let extras = BlobExtras {
        additive: 0,
        num_curves: curves.0,
        curves: curves.1,
        segments: false,
    };
    AlignedBlob::from_bytes(&assemble_blob_with(&enc, joints, samples, 30.0, &extras).unwrap())
}

/// A `fixed` body with float formats: `animated` joints with an animated Float128 rotation, the
/// others default (they store nothing), over `samples` samples.
fn fixed_body(joints: usize, animated: usize, samples: usize) -> Vec<u8> {
    let kinds_offset = CODEC_HEADER_SIZE;
    let constants_offset = (kinds_offset + joints).div_ceil(16) * 16;
    let frame_bits = 128 * animated;
    let l = Layout {
        rotation: RotationFormat::Float128,
        translation: VectorFormat::Float96,
        scale: VectorFormat::Float96,
        num_joints: joints,
        num_samples: samples,
        kinds_offset,
        constants_offset,
        num_constant_floats: 0,
        ranges_offset: constants_offset,
        num_range_floats: 0,
        frames_offset: constants_offset,
        frame_size: frame_bits / 8,
        frame_bits,
    };
    // The frames, their 8 bytes of read-ahead padding, then zero padding to 16 bytes.
    let mut body = vec![0u8; (constants_offset + samples * frame_bits / 8 + 8).div_ceil(16) * 16];
    l.write(&mut body);
    for j in 0..joints {
        body[kinds_offset + j] = if j < animated {
            kind_byte(Kind::Animated, Kind::Default, Kind::Default)
        } else {
            kind_byte(Kind::Default, Kind::Default, Kind::Default)
        };
    }
    // Identity rotations in every frame.
    for i in 0..samples * animated {
        let o = constants_offset + 16 * i + 12;
        body[o..o + 4].copy_from_slice(&1.0f32.to_le_bytes());
    }
    body
}

#[test]
fn fixed_float_formats_with_empty_frames_validate_in_linear_work() {
    // The blob: 16,383 joints, 262,144 samples, 0-byte frames (about 16.5 kB), and
    // smaller ones of the same shape (samples = 16 x joints), then the largest count the header
    // allows (2^24 samples).
    let shapes = [(1024, 16 * 1024), (4096, 16 * 4096), (16_383, 262_144)];
    let blobs: Vec<_> = shapes
        .iter()
        .map(|&(j, s)| blob(CodecId::Fixed, 0, fixed_body(j, 0, s), j, s, (0, vec![])))
        .collect();
    assert_linear("fixed, 0-byte frames", &blobs, true, 4.0);
    let max = blob(
        CodecId::Fixed,
        0,
        fixed_body(16_383, 0, 1 << 24),
        16_383,
        1 << 24,
        (0, vec![]),
    );
    assert_linear("fixed, 0-byte frames, 2^24 samples", &[max], true, 4.0);
    // Frames that do store floats: the check runs over them, paid by their bytes.
    let blobs: Vec<_> = [(64, 1, 1000), (1024, 4, 8000), (16_383, 16, 20_000)]
        .iter()
        .map(|&(j, a, s)| blob(CodecId::Fixed, 0, fixed_body(j, a, s), j, s, (0, vec![])))
        .collect();
    assert_linear("fixed, float frames", &blobs, true, 4.0);
}

/// A `keys` body of `joints` joints (rotation default, translation animated with one key and
/// fine key ranges: 6 x ceil(samples / 8) pool floats each), every translation slot's ranges at
/// pool offset 0 when `shared` (the attack), else each at its own offset.
fn keys_body(joints: usize, samples: usize, shared: bool) -> Vec<u8> {
    use animcomp::format::keys::layout::{BODY_HEADER, ENTRY_SIZE, SLOT_SIZE, TAG};
    let slots = 2 * joints;
    let need = 6 * samples.div_ceil(8);
    let pool_len = if shared { need } else { need * joints };
    let index_len = 4 * joints;
    let mut b = Vec::new();
    b.extend_from_slice(&TAG);
    for v in [slots, joints, pool_len, index_len] {
        b.extend_from_slice(&(v as u32).to_le_bytes());
    }
    for j in 0..joints {
        let pool = if shared { 0 } else { j * need };
        // Rotation: default (its pool offset is where the next slot's ranges start).
        b.extend_from_slice(&((pool as u32) << 7).to_le_bytes());
        b.extend_from_slice(&[0u8; SLOT_SIZE - 4]);
        let w0 = 2u32 | 2 << 4 | 64 | (pool as u32) << 7;
        for v in [w0, 4 * j as u32, 1] {
            b.extend_from_slice(&v.to_le_bytes());
        }
    }
    assert_eq!(b.len(), BODY_HEADER + slots * SLOT_SIZE);
    // Ranges: min 0, extent 0 (bounded).
    b.extend(std::iter::repeat_n(0u8, 4 * pool_len));
    for j in 0..joints {
        b.extend_from_slice(&(j as u32).to_le_bytes()); // wide index: key 0 at entry j
    }
    for j in 0..joints {
        let mut e = [0u8; ENTRY_SIZE];
        e[2..4].copy_from_slice(&((j | 1 << 14) as u16).to_le_bytes());
        b.extend_from_slice(&e);
    }
    b.resize(b.len().div_ceil(4) * 4, 0);
    b
}

#[test]
fn keys_slots_sharing_pool_ranges_are_refused_in_linear_work() {
    let samples = 65_536;
    let shapes = [64, 256, 1024, 4096];
    // Valid: every slot its own ranges (the pool pays for each).
    let valid: Vec<_> = shapes[..3]
        .iter()
        .map(|&j| {
            let body = keys_body(j, 1024, false);
            blob(CodecId::Keys, 0, body, j, 1024, (0, vec![]))
        })
        .collect();
    assert_linear("keys, own ranges", &valid, true, 4.0);
    // The attack: every slot names the same 196 kB of ranges.
    let shared: Vec<_> = shapes
        .iter()
        .map(|&j| {
            let body = keys_body(j, samples, true);
            blob(CodecId::Keys, 0, body, j, samples, (0, vec![]))
        })
        .collect();
    assert_linear("keys, shared ranges", &shared, false, 4.0);
    let (r, _, _) = run(&shared[0]);
    assert_eq!(
        r,
        Err(Error::CorruptBlob(
            "keys body: pool ranges not contiguous in slot order"
        ))
    );
}

/// A curves section of `curves` curves over `samples` samples, one sample per segment: every
/// curve default except those of `stored` (quantised, grid width 0, flat: 7 bits per segment).
fn curves_section(curves: usize, samples: usize, stored: &[usize]) -> Vec<u8> {
    let mut s = Vec::new();
    for v in [1u32, samples as u32, 0, 0] {
        s.extend_from_slice(&v.to_le_bytes());
    }
    for c in 0..curves {
        let quantized = stored.binary_search(&c).is_ok();
        Descriptor {
            id: c as u32,
            kind: if quantized {
                CurveKind::Quantized
            } else {
                CurveKind::Default
            },
            gw: 0,
            value: 0.25,
            step: if quantized { 0.5 } else { 0.0 },
        }
        .write(&mut s);
    }
    let per_segment = (7 * stored.len()).div_ceil(8);
    let data_start = s.len() + 4 * samples;
    for i in 0..samples {
        s.extend_from_slice(&((data_start + i * per_segment) as u32).to_le_bytes());
    }
    s.extend(std::iter::repeat_n(0u8, samples * per_segment));
    s
}

fn curves_blob(curves: usize, samples: usize, stored: &[usize]) -> AlignedBlob {
    let section = curves_section(curves, samples, stored);
    blob(
        CodecId::Fixed,
        0,
        vec![],
        0,
        samples,
        (curves as u32, section),
    )
}

#[test]
fn curves_that_store_nothing_cost_nothing_per_segment() {
    // No stored curve, empty segments: the 65,535 curves x 65,536 samples (1.3 MB).
    let sizes = [(1024, 1024), (8192, 8192), (65_535, 65_536)];
    let blobs: Vec<_> = sizes.iter().map(|&(c, s)| curves_blob(c, s, &[])).collect();
    assert_linear("curves, none stored", &blobs, true, 4.0);
    // One stored curve, last, behind all the default ones (a walk over every curve per segment
    // would cost curves x segments).
    let blobs: Vec<_> = sizes
        .iter()
        .map(|&(c, s)| curves_blob(c, s, &[c - 1]))
        .collect();
    assert_linear("curves, one stored", &blobs, true, 4.0);
    // More stored curves than the validator lists on its stack (2048): every descriptor is
    // walked per segment, paid by the segment's bytes (7 bits per stored curve).
    let many: Vec<usize> = (0..65_535).step_by(20).collect(); // 3,277 stored
    let blobs: Vec<_> = [16, 64, 256]
        .iter()
        .map(|&s| curves_blob(65_535, s, &many))
        .collect();
    assert_linear("curves, 3277 stored of 65535", &blobs, true, 40.0);
    // And the same segments one byte short: refused before the walk.
    let mut short = curves_section(8192, 8192, &[8191]);
    short.truncate(short.len() - 1);
    let b = blob(CodecId::Fixed, 0, vec![], 0, 8192, (8192, short));
    let (r, work, _) = run(&b);
    assert!(r.is_err());
    assert!(work.total() <= 2 * b.len(), "{work:?}");
}

/// Grouped `vbr` blobs (the runtime's validation) and the segments blobs the offline conversion
/// reads (`validate_blob_for_regroup`).
#[test]
fn vbr_bodies_validate_in_linear_work() {
    let shapes = [(8, 100), (32, 400), (64, 1600)];
    let segments: Vec<_> = shapes
        .iter()
        .map(|&(joints, samples)| super::vbr_hostile::vbr_blob(joints, samples))
        .collect();
    let grouped: Vec<_> = segments
        .iter()
        .map(|b| AlignedBlob::from_bytes(&animcomp::offline::regroup_blob(b.as_bytes()).unwrap()))
        .collect();
    assert_linear("vbr, compressed", &grouped, true, 4.0);
    for blob in &segments {
        let mut work = ValidationWork::default();
        let r =
            animcomp::format::validate::validate_blob_for_regroup(blob.as_bytes(), true, &mut work);
        assert!(r.is_ok(), "{r:?}");
        assert!(work.total() as f64 <= 4.0 * blob.len() as f64, "{work:?}");
        // The runtime refuses the version before reading the body.
        let (r, work, _) = run(blob);
        assert_eq!(r, Err(Error::UnsupportedVersion(2)));
        assert_eq!(work.total(), 0);
    }
    // The forged shared-segment case is `vbr_hostile::shared_segment_records_are_refused_in_linear_work`.
}

/// Non-zero bytes after the body, inside the declared size, are refused; zero padding (the
/// alignment to 16 bytes every blob the writer makes with a body or curves section whose size is
/// not a multiple of 16) is accepted.
#[test]
fn non_zero_padding_is_refused() {
    let reseal = |b: &mut AlignedBlob| crate::harness::reseal(b.as_bytes_mut());
    // Joints only: tail after a keys body (a multiple of 4 bytes, not of 16).
    let body = keys_body(1, 8, false);
    let body_len = body.len();
    let mut b = blob(CodecId::Keys, 0, body, 1, 8, (0, vec![]));
    let end = 64 + body_len;
    assert!(end < b.len(), "the writer pads to 16 bytes");
    assert!(run(&b).0.is_ok());
    for at in end..b.len() {
        let mut m = AlignedBlob::from_bytes(b.as_bytes());
        m.as_bytes_mut()[at] = 1;
        reseal(&mut m);
        assert_eq!(
            run(&m).0,
            Err(Error::CorruptBlob(
                "non-zero bytes in the padding after the body or the curves"
            )),
            "byte {at}"
        );
    }
    // Joints and curves: the gap between them, and the tail after the curves.
    let section = curves_section(3, 8, &[1]);
    let sec_len = section.len();
    b = blob(CodecId::Keys, 0, keys_body(1, 8, false), 1, 8, (3, section));
    assert!(run(&b).0.is_ok());
    let h = animcomp::format::Header::parse(b.as_bytes()).unwrap();
    let gap = h.body_range().end..h.curves_offset as usize;
    let tail = h.curves_offset as usize + sec_len..b.len();
    assert!(!gap.is_empty() && !tail.is_empty(), "{gap:?} {tail:?}");
    for at in gap.chain(tail) {
        let mut m = AlignedBlob::from_bytes(b.as_bytes());
        m.as_bytes_mut()[at] = 0x80;
        reseal(&mut m);
        assert!(matches!(run(&m).0, Err(Error::CorruptBlob(_))), "byte {at}");
    }
    let _ = BlobFlags::ALL;
}
