//! `animcomp_compress_tiered`: the query-then-write protocol of `animcomp_compress`, the same
//! bytes as the Rust API, and its refusals (codec, settings, pointers, alignment).

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use super::ffi_api::CClip;
use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::ffi::*;
use animcomp::{compress_tiered, AlignedBlob, CompressSettings, Status, TierSettings};

fn clip() -> (animcomp::RawClip, CClip) {
    let clip = generate_clip(&GenerateOptions {
        joints: 12,
        samples: 70,
        sample_rate: 120.0,
        bone_length: 1.0,
        ..Default::default()
    });
    let c = CClip::new(&clip);
    (clip, c)
}

fn defaults() -> (AnimcompCompressSettings, AnimcompTierSettings) {
    let mut s = unsafe { std::mem::zeroed() };
    let mut t = unsafe { std::mem::zeroed() };
    unsafe {
        assert_eq!(animcomp_compress_settings_default(&mut s), Status::Ok);
        assert_eq!(animcomp_tier_settings_default(&mut t), Status::Ok);
    }
    (s, t)
}

#[test]
fn tiered_blobs_through_the_c_abi_are_the_rust_ones() {
    let (raw, c) = clip();
    let cc = c.c();
    let (s, t) = defaults();
    assert_eq!(t.levels, 2);
    assert_eq!(t.resident_factor, 10.0);
    let want =
        compress_tiered(&raw, &CompressSettings::default(), &TierSettings::default()).unwrap();
    // Query: every size, BUFFER_TOO_SMALL, nothing else written.
    let mut sizes = [7usize; 3];
    let st = unsafe {
        animcomp_compress_tiered(
            &cc,
            &s,
            &t,
            null_mut(),
            0,
            null(),
            null(),
            sizes.as_mut_ptr(),
        )
    };
    assert_eq!(st, Status::BufferTooSmall);
    assert_eq!(
        sizes,
        [
            want.resident.len(),
            want.tiers[0].len(),
            want.tiers[1].len()
        ]
    );
    // One buffer short: BUFFER_TOO_SMALL, every buffer untouched.
    let mut resident = AlignedBlob::from_bytes(&vec![0xAAu8; sizes[0]]);
    let mut t1 = AlignedBlob::from_bytes(&vec![0xAAu8; sizes[1]]);
    let mut t2 = AlignedBlob::from_bytes(&vec![0xAAu8; sizes[2]]);
    let outs: [*mut c_void; 2] = [
        t1.as_bytes_mut().as_mut_ptr().cast(),
        t2.as_bytes_mut().as_mut_ptr().cast(),
    ];
    let short = [sizes[1], sizes[2] - 16];
    let st = unsafe {
        animcomp_compress_tiered(
            &cc,
            null(),
            null(),
            resident.as_bytes_mut().as_mut_ptr().cast(),
            sizes[0],
            outs.as_ptr(),
            short.as_ptr(),
            sizes.as_mut_ptr(),
        )
    };
    assert_eq!(st, Status::BufferTooSmall);
    assert!(resident.as_bytes().iter().all(|&b| b == 0xAA));
    assert!(t1.as_bytes().iter().all(|&b| b == 0xAA));
    // Exact sizes: the Rust API's bytes.
    let caps = [sizes[1], sizes[2]];
    let st = unsafe {
        animcomp_compress_tiered(
            &cc,
            &s,
            &t,
            resident.as_bytes_mut().as_mut_ptr().cast(),
            sizes[0],
            outs.as_ptr(),
            caps.as_ptr(),
            sizes.as_mut_ptr(),
        )
    };
    assert_eq!(st, Status::Ok);
    assert_eq!(resident.as_bytes(), &want.resident[..]);
    assert_eq!(t1.as_bytes(), &want.tiers[0][..]);
    assert_eq!(t2.as_bytes(), &want.tiers[1][..]);
    // The resident blob opens through the C ABI.
    let mut ctx = AnimcompDecompressor {
        opaque: [0; ANIMCOMP_DECOMPRESSOR_WORDS],
    };
    let st = unsafe {
        animcomp_decompressor_init(
            &mut ctx,
            resident.as_bytes().as_ptr().cast(),
            resident.len(),
            null(),
        )
    };
    assert_eq!(st, Status::Ok);
    // One level: the third size is 0 and the second buffer is not read.
    let one = AnimcompTierSettings { levels: 1, ..t };
    let want1 = compress_tiered(
        &raw,
        &CompressSettings::default(),
        &TierSettings {
            levels: 1,
            ..Default::default()
        },
    )
    .unwrap();
    let mut r1 = AlignedBlob::from_bytes(&vec![0u8; want1.resident.len()]);
    let mut l1 = AlignedBlob::from_bytes(&vec![0u8; want1.tiers[0].len()]);
    // The second entries are past the levels: never read or written.
    let outs1: [*mut c_void; 2] = [
        l1.as_bytes_mut().as_mut_ptr().cast(),
        std::ptr::dangling_mut::<u8>().wrapping_add(3).cast(),
    ];
    let caps1 = [l1.len(), 99];
    let st = unsafe {
        animcomp_compress_tiered(
            &cc,
            &s,
            &one,
            r1.as_bytes_mut().as_mut_ptr().cast(),
            r1.len(),
            outs1.as_ptr(),
            caps1.as_ptr(),
            sizes.as_mut_ptr(),
        )
    };
    assert_eq!(st, Status::Ok);
    assert_eq!(sizes, [want1.resident.len(), want1.tiers[0].len(), 0]);
    assert_eq!(r1.as_bytes(), &want1.resident[..]);
    assert_eq!(l1.as_bytes(), &want1.tiers[0][..]);
}

#[test]
fn refusals_write_zero_sizes() {
    let (_, c) = clip();
    let cc = c.c();
    let (s, t) = defaults();
    let mut sizes = [7usize; 3];
    let run = |s: &AnimcompCompressSettings, t: &AnimcompTierSettings, sizes: &mut [usize; 3]| unsafe {
        animcomp_compress_tiered(&cc, s, t, null_mut(), 0, null(), null(), sizes.as_mut_ptr())
    };
    let fixed = AnimcompCompressSettings {
        codec: animcomp::CodecChoice::Fixed as u32,
        ..s
    };
    assert_eq!(run(&fixed, &t, &mut sizes), Status::Unsupported);
    assert_eq!(sizes, [0; 3]);
    for bad in [
        AnimcompTierSettings { levels: 3, ..t },
        AnimcompTierSettings { levels: 0, ..t },
        AnimcompTierSettings {
            reserved: [1, 0, 0, 0],
            ..t
        },
        AnimcompTierSettings {
            resident_factor: f32::INFINITY,
            ..t
        },
        AnimcompTierSettings {
            medium_factor: 0.5,
            ..t
        },
    ] {
        sizes = [7; 3];
        assert_eq!(run(&s, &bad, &mut sizes), Status::InvalidArgument);
        assert_eq!(sizes, [0; 3]);
    }
    unsafe {
        assert_eq!(
            animcomp_compress_tiered(&cc, &s, &t, null_mut(), 0, null(), null(), null_mut()),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_compress_tiered(
                &cc,
                &s,
                &t,
                null_mut(),
                16,
                null(),
                null(),
                sizes.as_mut_ptr()
            ),
            Status::NullPointer
        );
        let caps = [0usize; 2];
        assert_eq!(
            animcomp_compress_tiered(
                &cc,
                &s,
                &t,
                null_mut(),
                0,
                null(),
                caps.as_ptr(),
                sizes.as_mut_ptr()
            ),
            Status::NullPointer
        );
        let mut buf = AlignedBlob::from_bytes(&[0u8; 64]);
        let p = buf.as_bytes_mut().as_mut_ptr().add(4);
        assert_eq!(
            animcomp_compress_tiered(
                &cc,
                &s,
                &t,
                p.cast(),
                32,
                null(),
                null(),
                sizes.as_mut_ptr()
            ),
            Status::Misaligned
        );
        assert_eq!(sizes, [0; 3]);
        assert_eq!(
            animcomp_tier_settings_default(null_mut()),
            Status::NullPointer
        );
    }
}
