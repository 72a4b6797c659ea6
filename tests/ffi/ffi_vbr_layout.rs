//! `vbr` blobs through the C ABI: every value of the reserved `AnimcompCompressSettings::
//! vbr_layout` writes the same grouped blob (format version 4; an out-of-range value is still
//! refused); its poses (whole, one joint, subsets, through the playback cache) are bit for bit
//! the reference decode of the body the encoder wrote (`offline::vbr::reference`); a format
//! version 2 `vbr` blob is refused by validation, `animcomp_blob_open` and
//! `animcomp_decompressor_init`, and `animcomp_regroup_blob` converts it.

use std::ptr::null_mut;

use animcomp::clip::{generate_clip, GenerateOptions, RawClip};
use animcomp::decompress::seek::resolve;
use animcomp::decompress::{Looping, Rounding};
use animcomp::ffi::*;
use animcomp::offline::compress::compress_segments;
use animcomp::offline::vbr::reference::Reference;
use animcomp::offline::DefaultMode;
use animcomp::{AlignedBlob, CodecChoice, CompressSettings, Status, VbrLayout};

use super::ffi_api::{compress, CClip};
use super::ffi_bind::bind_floats;
use super::ffi_playback::{cache_size, open, pose_bits};

/// The clip of the tests of statuses, of the conversion's bytes and of poses: 133 samples, under
/// qemu (`ANIMCOMP_TEST_EMULATED=1`, docs/ci.md) 45, the compression being most of their time
/// there (the bit-for-bit test's times then wrap the clip several times).
fn small_clip(seed: u64) -> RawClip {
    clip_of(seed, if crate::emulated::emulated() { 45 } else { 133 })
}

fn clip_of(seed: u64, samples: usize) -> RawClip {
    generate_clip(&GenerateOptions {
        joints: 41,
        samples,
        scale: seed.is_multiple_of(2),
        animated_translation: true,
        seed,
        ..Default::default()
    })
}

fn settings(layout: u32) -> AnimcompCompressSettings {
    let mut s = unsafe { std::mem::zeroed() };
    assert_eq!(
        unsafe { animcomp_compress_settings_default(&mut s) },
        Status::Ok
    );
    s.vbr_layout = layout;
    s
}

fn format_version(blob: &AlignedBlob) -> u32 {
    let mut info = AnimcompBlobInfo::default();
    let b = blob.as_bytes();
    assert_eq!(
        unsafe { animcomp_blob_info(b.as_ptr().cast(), b.len(), &mut info) },
        Status::Ok
    );
    info.format_version
}

/// The segments blob (format version 2) the encoder writes before regrouping.
fn segments(c: &RawClip, s: &CompressSettings) -> AlignedBlob {
    AlignedBlob::from_bytes(&compress_segments(c, &[], s).unwrap())
}

/// Every layout value writes one blob, grouped (format version 4), on rigs small and large; an
/// out-of-range value is refused; another codec's blob stays format version 2.
#[test]
fn every_layout_value_writes_the_grouped_blob() {
    let s = settings(0);
    assert_eq!(s.vbr_layout, VbrLayout::Segments as u32);
    assert_eq!(CompressSettings::default().vbr_layout, VbrLayout::Segments);
    let c = CClip::new(&small_clip(1));
    let mut size = 0usize;
    let bad = settings(3);
    assert_eq!(
        unsafe { animcomp_compress(&c.c(), &bad, null_mut(), 0, &mut size) },
        Status::InvalidEnum
    );
    // Under qemu (docs/ci.md) each rig 20 samples long instead of 40: the same rigs.
    let samples = if crate::emulated::emulated() { 20 } else { 40 };
    for joints in [2, 9, 15, 16, 41] {
        let c = generate_clip(&GenerateOptions {
            joints,
            samples,
            animated_translation: true,
            seed: joints as u64,
            ..Default::default()
        });
        let cc = CClip::new(&c);
        let grouped = compress(&cc.c(), &settings(0));
        assert_eq!(
            format_version(&grouped),
            ANIMCOMP_BLOB_FORMAT_VERSION_GROUPED,
            "{joints} joints"
        );
        for layout in [1, 2] {
            let other = compress(&cc.c(), &settings(layout));
            assert_eq!(other.as_bytes(), grouped.as_bytes(), "{joints} joints");
        }
    }
    // Another codec: its blob stays version 2.
    let mut fixed = settings(VbrLayout::Grouped as u32);
    fixed.codec = CodecChoice::Fixed as u32;
    assert_eq!(
        format_version(&compress(&c.c(), &fixed)),
        ANIMCOMP_BLOB_FORMAT_VERSION
    );
}

/// Every joint's floats, one `animcomp_sample_joint` call each.
fn joints_one_by_one(ctx: &AnimcompDecompressor, nj: usize) -> Vec<u32> {
    let mut out = Vec::new();
    for j in 0..nj {
        let mut p = [0.0f32; 10];
        assert_eq!(
            unsafe { animcomp_sample_joint(ctx, j as u32, p.as_mut_ptr()) },
            Status::Ok
        );
        out.extend(p.iter().map(|f| f.to_bits()));
    }
    out
}

/// `joints` with `channels` into slots in reverse order (floats of unrequested channels stay
/// NaN).
fn subset(ctx: &AnimcompDecompressor, joints: &[u32], channels: u32) -> Vec<u32> {
    let slots: Vec<u32> = (0..joints.len() as u32).rev().collect();
    let mut p = vec![f32::NAN; joints.len() * 12];
    let st = unsafe {
        animcomp_sample_joints(
            ctx,
            joints.as_ptr(),
            slots.as_ptr(),
            joints.len(),
            channels,
            p.as_mut_ptr(),
            p.len(),
            12,
        )
    };
    assert_eq!(st, Status::Ok);
    p.iter().map(|f| f.to_bits()).collect()
}

/// The reference's floats of `joints` with `channels` into slots in reverse order, as
/// [`subset`] writes them (NaN where a channel is not requested).
fn reference_subset(pose: &[u32], joints: &[u32], channels: u32) -> Vec<u32> {
    let mut p = vec![f32::NAN.to_bits(); joints.len() * 12];
    let ranges = [(1, 0..4), (2, 4..7), (4, 7..10)];
    for (i, &j) in joints.iter().enumerate() {
        let slot = joints.len() - 1 - i;
        for (bit, r) in &ranges {
            if channels & bit != 0 {
                for k in r.clone() {
                    p[slot * 12 + k] = pose[j as usize * 10 + k];
                }
            }
        }
    }
    p
}

#[test]
fn grouped_blobs_sample_bit_for_bit_like_the_reference() {
    for (seed, mode) in [
        (2, DefaultMode::Identity),
        (3, DefaultMode::BindPose),
        (4, DefaultMode::BindPose),
    ] {
        let c = small_clip(seed);
        let nj = c.num_joints();
        let bind = bind_floats(&c);
        let bp = (mode == DefaultMode::BindPose).then_some(&bind[..]);
        let s = CompressSettings {
            codec: CodecChoice::Vbr,
            default_mode: mode,
            ..Default::default()
        };
        let seg = segments(&c, &s);
        // The segments blob regrouped: the reference's samples (a blob compressed grouped may
        // keep another segment length).
        let grp =
            AlignedBlob::from_bytes(&animcomp::offline::regroup_blob(seg.as_bytes()).unwrap());
        assert_eq!(format_version(&grp), ANIMCOMP_BLOB_FORMAT_VERSION_GROUPED);
        let reference = Reference::new(seg.as_bytes(), bp).unwrap();
        let (_hg, mut b) = open(&grp, bp);
        // A second context on the grouped blob with a playback cache.
        let mut cached = b;
        let n = cache_size(&cached);
        assert!(n > 0 && n.is_multiple_of(16));
        let mut mem = vec![0u128; n / 16];
        assert_eq!(
            unsafe { animcomp_decompressor_attach_cache(&mut cached, mem.as_mut_ptr().cast(), n) },
            Status::Ok
        );
        let every_third: Vec<u32> = (0..nj as u32).step_by(3).collect();
        let backwards: Vec<u32> = (0..nj as u32).rev().step_by(5).collect();
        let mut times: Vec<f32> = (0..200).map(|i| 0.13 + i as f32 / 60.0).collect();
        times.extend((0..60).map(|i| ((i * 7919) % 131) as f32 / 29.0));
        times.extend([0.0, 4.4, 100.0, -1.0]);
        for &t in &times {
            for ctx in [&mut b, &mut cached] {
                assert_eq!(unsafe { animcomp_seek(ctx, t, 1, 0) }, Status::Ok);
            }
            let key = resolve(reference.header(), t, Looping::Wrap, Rounding::None).unwrap();
            let mut want = vec![0.0f32; nj * 10];
            reference.sample_pose(&key, &mut want, 10);
            let want: Vec<u32> = want.iter().map(|f| f.to_bits()).collect();
            assert_eq!(pose_bits(&b, nj), want, "seed {seed} at {t}");
            assert_eq!(pose_bits(&cached, nj), want, "cached, seed {seed} at {t}");
            assert_eq!(
                joints_one_by_one(&b, nj),
                want,
                "joints, seed {seed} at {t}"
            );
            for (list, channels) in [(&every_third, 7), (&backwards, 1), (&backwards, 6)] {
                assert_eq!(
                    subset(&b, list, channels),
                    reference_subset(&want, list, channels),
                    "subset {channels}, seed {seed} at {t}"
                );
            }
        }
        // The poses above went through the cache (the context passed its whole length): it
        // holds the grouped cache's tag. The cache is the AVX2 decoder's: without AVX2 (other
        // CPUs) it is left as it was.
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let avx2 = false;
        let tag = if avx2 { *b"ACP3" } else { [0; 4] };
        assert_eq!(&mem[0].to_le_bytes()[..4], &tag, "seed {seed}");
    }
}

/// `bytes` with `f` applied and the checksum sealed again: only the structural checks stand.
fn forged(bytes: &[u8], f: impl Fn(&mut [u8])) -> AlignedBlob {
    let mut b = bytes.to_vec();
    f(&mut b);
    crate::reseal::reseal(&mut b);
    AlignedBlob::from_bytes(&b)
}

fn validate(blob: &AlignedBlob) -> Status {
    let b = blob.as_bytes();
    unsafe { animcomp_validate_blob(b.as_ptr().cast(), b.len()) }
}

/// A format version 2 `vbr` blob (the segments layout) is refused with `UNSUPPORTED_VERSION`
/// by validation, `animcomp_blob_info`, `animcomp_blob_open` and `animcomp_decompressor_init`,
/// with a message naming the conversion; a grouped body under version 2 too. A segments body
/// under version 5 is refused by the grouped validator, as are version 5 with another codec;
/// the retired versions 3 and 4 and versions past 5 get `UNSUPPORTED_VERSION`. Format version 2
/// blobs of the other codecs stay valid.
#[test]
fn a_format_version_2_vbr_blob_is_refused() {
    let c = small_clip(5);
    let s = CompressSettings {
        codec: CodecChoice::Vbr,
        ..Default::default()
    };
    let seg = segments(&c, &s);
    let grp = AlignedBlob::from_bytes(&animcomp::compress(&c, &s).unwrap());
    assert_eq!(validate(&grp), Status::Ok);
    assert_eq!(validate(&seg), Status::UnsupportedVersion);
    let b = seg.as_bytes();
    let mut info = AnimcompBlobInfo::default();
    assert_eq!(
        unsafe { animcomp_blob_info(b.as_ptr().cast(), b.len(), &mut info) },
        Status::UnsupportedVersion
    );
    let o = super::ffi_bind::options(None);
    let mut h = AnimcompBlob {
        opaque: [0; ANIMCOMP_BLOB_WORDS],
    };
    assert_eq!(
        unsafe { animcomp_blob_open(&mut h, b.as_ptr().cast(), b.len(), &o) },
        Status::UnsupportedVersion
    );
    let mut ctx = super::ffi_bind::new_ctx();
    assert_eq!(
        unsafe { animcomp_decompressor_init(&mut ctx, b.as_ptr().cast(), b.len(), &o) },
        Status::UnsupportedVersion
    );
    let message = unsafe {
        std::ffi::CStr::from_ptr(animcomp_status_message(Status::UnsupportedVersion as i32))
    };
    let message = message.to_str().unwrap();
    for name in [
        "animcomp regroup",
        "animcomp_regroup_blob",
        "Blob.regrouped()",
    ] {
        assert!(message.contains(name), "{message}");
    }
    let version = |v: u16| move |b: &mut [u8]| b[4..6].copy_from_slice(&v.to_le_bytes());
    assert_eq!(
        validate(&forged(grp.as_bytes(), version(2))),
        Status::UnsupportedVersion
    );
    assert_eq!(
        validate(&forged(seg.as_bytes(), version(5))),
        Status::CorruptBlob
    );
    for retired in [3, 4, 6] {
        assert_eq!(
            validate(&forged(grp.as_bytes(), version(retired))),
            Status::UnsupportedVersion
        );
    }
    let fixed = |b: &mut [u8]| b[6] = animcomp::format::CodecId::Fixed as u8;
    assert_eq!(
        validate(&forged(grp.as_bytes(), fixed)),
        Status::CorruptBlob
    );
    for codec in [CodecChoice::Fixed, CodecChoice::Keys] {
        let s = CompressSettings {
            codec,
            ..Default::default()
        };
        let other = AlignedBlob::from_bytes(&animcomp::compress(&c, &s).unwrap());
        assert_eq!(format_version(&other), ANIMCOMP_BLOB_FORMAT_VERSION);
        assert_eq!(validate(&other), Status::Ok, "{codec:?}");
        let b = other.as_bytes();
        assert_eq!(
            unsafe { animcomp_decompressor_init(&mut ctx, b.as_ptr().cast(), b.len(), &o) },
            Status::Ok,
            "{codec:?}"
        );
    }
}

/// `animcomp_regroup_blob`: the segments blob rewritten is the Rust API's regrouped blob (the
/// reference's samples), through the size query; a grouped blob is copied; another codec, NULL
/// and misaligned pointers get statuses.
#[test]
fn regroup_blob_gives_the_grouped_blob() {
    let c = CClip::new(&small_clip(6));
    let s = CompressSettings {
        codec: CodecChoice::Vbr,
        ..Default::default()
    };
    let seg = segments(&small_clip(6), &s);
    let grp = AlignedBlob::from_bytes(&animcomp::offline::regroup_blob(seg.as_bytes()).unwrap());
    let regroup = |blob: &AlignedBlob, out: &mut AlignedBlob, cap: usize| {
        let mut size = usize::MAX;
        let b = blob.as_bytes();
        let st = unsafe {
            animcomp_regroup_blob(
                b.as_ptr().cast(),
                b.len(),
                out.as_bytes_mut().as_mut_ptr().cast(),
                cap,
                &mut size,
            )
        };
        (st, size)
    };
    let mut out = AlignedBlob::from_bytes(&vec![0u8; grp.len() + 32]);
    assert_eq!(
        regroup(&seg, &mut out, 16),
        (Status::BufferTooSmall, grp.len())
    );
    assert_eq!(regroup(&seg, &mut out, grp.len()), (Status::Ok, grp.len()));
    assert_eq!(&out.as_bytes()[..grp.len()], grp.as_bytes());
    // Already grouped: copied.
    assert_eq!(
        regroup(&grp, &mut out, grp.len() + 32),
        (Status::Ok, grp.len())
    );
    assert_eq!(&out.as_bytes()[..grp.len()], grp.as_bytes());
    let mut fixed = settings(0);
    fixed.codec = CodecChoice::Fixed as u32;
    let fixed = compress(&c.c(), &fixed);
    assert_eq!(
        regroup(&fixed, &mut out, grp.len()),
        (Status::InvalidArgument, 0)
    );
    let mut size = 1usize;
    unsafe {
        assert_eq!(
            animcomp_regroup_blob(std::ptr::null(), 64, null_mut(), 0, &mut size),
            Status::NullPointer
        );
        let b = seg.as_bytes();
        let misaligned = out.as_bytes_mut().as_mut_ptr().add(4).cast();
        assert_eq!(
            animcomp_regroup_blob(b.as_ptr().cast(), b.len(), misaligned, grp.len(), &mut size),
            Status::Misaligned
        );
    }
}
