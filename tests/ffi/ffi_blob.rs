//! Corrupted, truncated and misaligned blobs are rejected by `animcomp_validate_blob`,
//! `animcomp_blob_info` and `animcomp_decompressor_init` with the right status, and a context
//! whose init failed stays unusable.

use std::ptr::{null, null_mut};

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::ffi::*;
use animcomp::format::CodecId;
use animcomp::offline::blob_writer::{assemble_blob, EncodedBody};
use animcomp::{AlignedBlob, CodecChoice, CompressSettings, Status};

/// A valid blob of the fixed codec (`true`), or a hand-assembled one with a valid header and
/// checksum whose body no codec accepts (`false`).
fn some_blob(real: bool) -> AlignedBlob {
    if real {
        let clip = generate_clip(&GenerateOptions {
            joints: 9,
            samples: 25,
            scale: true,
            ..Default::default()
        });
        let settings = CompressSettings {
            codec: CodecChoice::Fixed,
            ..Default::default()
        };
        AlignedBlob::from_bytes(&animcomp::compress(&clip, &settings).unwrap())
    } else {
        let body = EncodedBody {
            codec: CodecId::Fixed,
            flags: 0,
            body: vec![0x5A; 200],
        };
        AlignedBlob::from_bytes(&assemble_blob(&body, 9, 25, 30.0).unwrap())
    }
}

/// The status of validate, blob_info and init on `bytes` (all three must agree).
fn check(bytes: &[u8]) -> Status {
    let p = bytes.as_ptr().cast();
    let v = unsafe { animcomp_validate_blob(p, bytes.len()) };
    let mut info = AnimcompBlobInfo {
        num_joints: 77,
        ..Default::default()
    };
    let i = unsafe { animcomp_blob_info(p, bytes.len(), &mut info) };
    if i != Status::Ok {
        assert_eq!(info, AnimcompBlobInfo::default(), "info zeroed on failure");
    }
    let mut ctx = AnimcompDecompressor {
        opaque: [0xFFFF_FFFF; 16],
    };
    let d = unsafe { animcomp_decompressor_init(&mut ctx, p, bytes.len(), null()) };
    assert_eq!(v, i);
    assert_eq!(v, d);
    if d != Status::Ok {
        let mut pose = [0f32; 10];
        assert_eq!(
            unsafe { animcomp_seek(&mut ctx, 0.0, 0, 0) },
            Status::NotInitialized
        );
        assert_eq!(
            unsafe { animcomp_sample_joint(&ctx, 0, pose.as_mut_ptr()) },
            Status::NotInitialized
        );
    }
    v
}

#[test]
fn intact_blob_is_accepted_only_when_a_codec_reads_it() {
    assert_eq!(check(some_blob(true).as_bytes()), Status::Ok);
    assert_eq!(check(some_blob(false).as_bytes()), Status::CorruptBlob);
}

#[test]
fn header_corruption_gets_specific_statuses() {
    for real in [true, false] {
        header_corruption(some_blob(real));
    }
}

fn header_corruption(blob: AlignedBlob) {
    let n = blob.len();
    let flip = |at: usize, f: &dyn Fn(&mut [u8])| {
        let mut b = blob.clone();
        f(&mut b.as_bytes_mut()[at..]);
        check(b.as_bytes())
    };
    assert_eq!(flip(0, &|b| b[0] ^= 1), Status::BadMagic);
    assert_eq!(flip(4, &|b| b[0] = 1), Status::UnsupportedVersion);
    assert_eq!(flip(4, &|b| b[0] = 6), Status::UnsupportedVersion);
    // Versions 3 and 4 (the grouped layout's earlier forms) are no longer read.
    assert_eq!(flip(4, &|b| b[0] = 3), Status::UnsupportedVersion);
    assert_eq!(flip(4, &|b| b[0] = 4), Status::UnsupportedVersion);
    // Version 5 exists for `vbr` blobs only.
    assert_eq!(flip(4, &|b| b[0] = 5), Status::CorruptBlob);
    let grow = (n as u32 + 16).to_le_bytes();
    assert_eq!(flip(8, &|b| b[..4].copy_from_slice(&grow)), Status::BadSize); // claims more than given
    let odd = (n as u32 - 8).to_le_bytes();
    assert_eq!(flip(8, &|b| b[..4].copy_from_slice(&odd)), Status::BadSize); // not a multiple of 16
    assert_eq!(flip(32, &|b| b[0] ^= 1), Status::CorruptBlob); // body offset
    assert_eq!(flip(7, &|b| b[0] = 4), Status::CorruptBlob); // additive format
    assert_eq!(flip(52, &|b| b[0] = 1), Status::CorruptBlob); // reserved byte
    assert_eq!(flip(40, &|b| b[0] = 1), Status::CorruptBlob); // curves without a section
    assert_eq!(flip(6, &|b| b[0] = 9), Status::CorruptBlob); // codec id
    assert_eq!(flip(12, &|b| b[0] ^= 1), Status::ChecksumMismatch); // stored checksum
    assert_eq!(flip(20, &|b| b[0] ^= 1), Status::ChecksumMismatch); // joint count
    assert_eq!(flip(n - 17, &|b| b[0] ^= 0x40), Status::ChecksumMismatch); // body byte
    assert_eq!(check(&blob.as_bytes()[..n - 16]), Status::BadSize); // truncated
    assert_eq!(check(&blob.as_bytes()[..40]), Status::BadSize); // shorter than a header
    assert_eq!(check(&blob.as_bytes()[..0]), Status::BadSize); // empty, aligned
}

#[test]
fn misaligned_copy_is_rejected() {
    let blob = some_blob(true);
    let mut storage = AlignedBlob::from_bytes(&vec![0u8; blob.len() + 16]);
    for offset in [1usize, 4, 8] {
        let dst = &mut storage.as_bytes_mut()[offset..offset + blob.len()];
        dst.copy_from_slice(blob.as_bytes());
        assert_eq!(check(dst), Status::Misaligned, "offset {offset}");
    }
}

#[test]
fn checksum_can_be_skipped_but_bounds_cannot() {
    for real in [true, false] {
        checksum_skip(some_blob(real), real);
    }
}

fn checksum_skip(blob: AlignedBlob, real: bool) {
    let mut b = blob.clone();
    let n = b.len();
    b.as_bytes_mut()[n - 17] ^= 0x40;
    let mut opts = AnimcompDecompressOptions {
        verify_checksum: 7,
        reserved0: 0,
        bind_pose: null(),
        bind_pose_len: 0,
        reserved: [0; 1],
    };
    let mut ctx = AnimcompDecompressor { opaque: [0; 16] };
    let p = b.as_bytes().as_ptr().cast();
    assert_eq!(
        unsafe { animcomp_decompressor_init(&mut ctx, p, n, &opts) },
        Status::InvalidEnum
    );
    assert_eq!(
        unsafe { animcomp_decompress_options_default(&mut opts) },
        Status::Ok
    );
    assert_eq!(opts.verify_checksum, 1);
    opts.reserved[0] = 1;
    assert_eq!(
        unsafe { animcomp_decompressor_init(&mut ctx, p, n, &opts) },
        Status::InvalidArgument
    );
    opts.reserved[0] = 0;
    assert_eq!(
        unsafe { animcomp_decompressor_init(&mut ctx, p, n, &opts) },
        Status::ChecksumMismatch
    );
    opts.verify_checksum = 0;
    let st = unsafe { animcomp_decompressor_init(&mut ctx, p, n, &opts) };
    // The flipped byte is padding or data: without the checksum either the codec's own checks
    // reject the body or it decodes (values may differ, reads stay in bounds).
    if real {
        assert!(matches!(st, Status::Ok | Status::CorruptBlob), "{st:?}");
    } else {
        assert_eq!(st, Status::CorruptBlob);
    }
    let mut info = AnimcompBlobInfo::default();
    assert_eq!(
        unsafe { animcomp_blob_info(p, n, &mut info) },
        Status::ChecksumMismatch
    );
    assert_eq!(
        unsafe { animcomp_blob_info(p, n, null_mut()) },
        Status::NullPointer
    );
}

#[test]
fn misaligned_context_is_refused() {
    let blob = some_blob(true);
    let mut raw = [AnimcompDecompressor { opaque: [0; 16] }; 2];
    let p = unsafe { (raw.as_mut_ptr() as *mut u8).add(8) } as *mut AnimcompDecompressor;
    let st = unsafe {
        animcomp_decompressor_init(p, blob.as_bytes().as_ptr().cast(), blob.len(), null())
    };
    assert_eq!(st, Status::Misaligned);
}
