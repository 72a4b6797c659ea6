//! Every byte of a body (every codec, both `vbr` layouts) and of a curves section is accounted
//! for: each section's
//! size is exactly what its contents need, and any alignment padding is zero. Forged blobs grow
//! one section by 16 bytes (moving what follows, fixing the header's sizes and offsets, re-sealing
//! the checksum), with non-zero bytes and with zeros, and must be refused with `CORRUPT_BLOB`.
//! The unforged blobs validate, so the forging itself is sound.

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::format::{validate_blob, Header, HEADER_SIZE};
use animcomp::{
    compress_with_curves, AlignedBlob, CodecChoice, CompressSettings, Curve, Error, VbrLayout,
};

/// A blob of `codec` with a few joints and `curves` curves.
fn blob(codec: CodecChoice, curves: bool) -> Vec<u8> {
    blob_in(codec, curves, VbrLayout::Segments)
}

/// [`blob`] with the `vbr` body in `layout`.
fn blob_in(codec: CodecChoice, curves: bool, layout: VbrLayout) -> Vec<u8> {
    let clip = generate_clip(&GenerateOptions {
        joints: 6,
        samples: 40,
        scale: true,
        ..Default::default()
    });
    let n = clip.num_samples;
    let curves: Vec<Curve> = if curves {
        vec![
            Curve::new("a", 1, (0..n).map(|i| (i as f32 * 0.3).sin()).collect()),
            Curve::new("b", 2, (0..n).map(|i| (i % 7) as f32 * 0.1).collect()),
        ]
    } else {
        vec![]
    };
    let settings = CompressSettings {
        codec,
        vbr_layout: layout,
        ..Default::default()
    };
    compress_with_curves(&clip, &curves, &settings).unwrap()
}

fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// `blob` with `fill` x 16 inserted at the end of the body (`curves` false) or of the curves
/// section, the grown section's size, the curves offset and the total size moved to match,
/// checksum re-sealed.
fn grow(blob: &[u8], curves: bool, fill: u8) -> AlignedBlob {
    let h = Header::parse(blob).unwrap();
    let at = if curves {
        h.curves_range().end
    } else {
        h.body_range().end
    };
    let mut b = blob[..at].to_vec();
    b.extend_from_slice(&[fill; 16]);
    b.extend_from_slice(&blob[at..h.total_size as usize]);
    put_u32(&mut b, 8, h.total_size + 16);
    if curves {
        put_u32(&mut b, 48, h.curves_size + 16);
    } else {
        put_u32(&mut b, 36, h.body_size + 16);
        if h.num_curves != 0 {
            put_u32(&mut b, 44, h.curves_offset + 16);
        }
    }
    let mut b = AlignedBlob::from_bytes(&b);
    crate::harness::reseal(b.as_bytes_mut());
    b
}

fn assert_refused(b: &AlignedBlob, what: &str) {
    match validate_blob(b.as_bytes(), true) {
        Err(Error::CorruptBlob(_)) => {}
        other => panic!("{what}: {:?}", other.map(|_| ())),
    }
}

#[test]
fn grown_fixed_and_keys_bodies_are_refused() {
    for codec in [CodecChoice::Fixed, CodecChoice::Keys] {
        for with_curves in [false, true] {
            let b = blob(codec, with_curves);
            assert!(validate_blob(AlignedBlob::from_bytes(&b).as_bytes(), true).is_ok());
            assert!(Header::parse(&b).unwrap().body_size as usize > HEADER_SIZE);
            for fill in [0x5a, 0] {
                let what = format!("{codec:?} body, curves {with_curves}, fill {fill:#x}");
                assert_refused(&grow(&b, false, fill), &what);
            }
        }
    }
}

#[test]
fn grown_curves_sections_are_refused() {
    for codec in [CodecChoice::Fixed, CodecChoice::Keys] {
        let b = blob(codec, true);
        for fill in [0x5a, 0] {
            assert_refused(
                &grow(&b, true, fill),
                &format!("{codec:?} curves, fill {fill:#x}"),
            );
        }
    }
}

/// Extra whole blocks of zero padding (32 bytes where the alignment needs fewer than 16) are
/// refused too: the padding is exactly what the alignment needs.
#[test]
fn padding_longer_than_the_alignment_needs_is_refused() {
    let b = blob(CodecChoice::Fixed, true);
    let h = Header::parse(&b).unwrap();
    // Tail: 16 more zero bytes at the end.
    let mut t = b[..h.total_size as usize].to_vec();
    t.extend_from_slice(&[0; 16]);
    put_u32(&mut t, 8, h.total_size + 16);
    let mut t = AlignedBlob::from_bytes(&t);
    crate::harness::reseal(t.as_bytes_mut());
    assert_refused(&t, "tail");
    // Gap: the curves section moved 16 bytes further from the body.
    let c = h.curves_range();
    let mut g = b[..c.start].to_vec();
    g.extend_from_slice(&[0; 16]);
    g.extend_from_slice(&b[c.start..h.total_size as usize]);
    put_u32(&mut g, 8, h.total_size + 16);
    put_u32(&mut g, 44, h.curves_offset + 16);
    let mut g = AlignedBlob::from_bytes(&g);
    crate::harness::reseal(g.as_bytes_mut());
    assert_refused(&g, "gap");
}

/// The same for both `vbr` layouts: 16 bytes after a segments body (whose read-ahead padding is
/// exactly 8 bytes) or a grouped one (whose padding is the decoders' 32 bytes and the fewest that
/// end it on 16), with or without a curves section after it. (A gap between two grouped
/// segments and a non-zero padding byte: `bodies_are_canonical` in the library's tests.)
#[test]
fn grown_vbr_bodies_are_refused() {
    for layout in [VbrLayout::Segments, VbrLayout::Grouped] {
        for with_curves in [false, true] {
            let b = blob_in(CodecChoice::Vbr, with_curves, layout);
            assert!(validate_blob(AlignedBlob::from_bytes(&b).as_bytes(), true).is_ok());
            for fill in [0x5a, 0] {
                let what = format!("vbr {layout:?} body, curves {with_curves}, fill {fill:#x}");
                assert_refused(&grow(&b, false, fill), &what);
            }
        }
    }
}
