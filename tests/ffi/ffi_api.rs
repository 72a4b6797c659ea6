//! The C ABI called directly from Rust: argument checking (null pointers, enum ranges, reserved
//! fields, alignment), the BUFFER_TOO_SMALL protocol, and a round trip through every function.

use std::ffi::CStr;
use std::ptr::{null, null_mut};

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::ffi::*;
use animcomp::{AlignedBlob, RawClip, Status};

/// A generated clip held as C arrays (sample-major, interleaved 10-float transforms).
pub(crate) struct CClip {
    pub(crate) parents: Vec<i32>,
    pub(crate) data: Vec<f32>,
    joints: u32,
    samples: u32,
    rate: f32,
}

impl CClip {
    pub(crate) fn new(src: &RawClip) -> Self {
        let parents = src
            .skeleton
            .joints
            .iter()
            .map(|j| j.parent.map_or(-1, |p| p as i32))
            .collect();
        let mut data = Vec::new();
        for i in 0..src.num_samples {
            for t in &src.tracks {
                let mut v = [0.0; 10];
                t.get(i).write_to(&mut v);
                data.extend_from_slice(&v);
            }
        }
        CClip {
            parents,
            data,
            joints: src.num_joints() as u32,
            samples: src.num_samples as u32,
            rate: src.sample_rate,
        }
    }

    pub(crate) fn generated(joints: usize, samples: usize) -> Self {
        Self::new(&generate_clip(&GenerateOptions {
            joints,
            samples,
            scale: true,
            ..Default::default()
        }))
    }

    pub(crate) fn c(&self) -> AnimcompRawClip {
        AnimcompRawClip {
            num_joints: self.joints,
            num_samples: self.samples,
            sample_rate: self.rate,
            layout: AnimcompLayout::SampleMajor as u32,
            parents: self.parents.as_ptr(),
            precisions: null(),
            shell_distances: null(),
            bind_pose: null(),
            rotations: self.data.as_ptr(),
            translations: self.data[4..].as_ptr(),
            scales: self.data[7..].as_ptr(),
            rotation_stride: 10,
            translation_stride: 10,
            scale_stride: 10,
            reserved0: 0,
            num_curves: 0,
            curve_stride: 0,
            curve_values: null(),
            curves: null(),
            reserved: [0; 2],
        }
    }
}

fn fixed_settings() -> AnimcompCompressSettings {
    let mut s = unsafe { std::mem::zeroed() };
    assert_eq!(
        unsafe { animcomp_compress_settings_default(&mut s) },
        Status::Ok
    );
    s.codec = animcomp::CodecChoice::Fixed as u32;
    s
}

/// Compresses through the C API (query, then exact-size buffer).
pub(crate) fn compress(clip: &AnimcompRawClip, s: &AnimcompCompressSettings) -> AlignedBlob {
    let mut size = 0usize;
    let st = unsafe { animcomp_compress(clip, s, null_mut(), 0, &mut size) };
    assert_eq!(st, Status::BufferTooSmall);
    assert!(size >= 64 && size.is_multiple_of(16), "{size}");
    let mut blob = AlignedBlob::from_bytes(&vec![0u8; size]);
    let mut written = 0usize;
    let st = unsafe {
        animcomp_compress(
            clip,
            s,
            blob.as_bytes_mut().as_mut_ptr().cast(),
            size,
            &mut written,
        )
    };
    assert_eq!(st, Status::Ok);
    assert_eq!(written, size);
    blob
}

#[test]
fn messages_and_versions() {
    for s in Status::ALL {
        let m = unsafe { CStr::from_ptr(animcomp_status_message(s as i32)) }
            .to_str()
            .unwrap();
        assert!(!m.is_empty() && m != "unknown status");
    }
    let m = unsafe { CStr::from_ptr(animcomp_status_message(1000)) };
    assert_eq!(m.to_str().unwrap(), "unknown status");
    let (mut a, mut b, mut c) = (9, 9, 9);
    assert_eq!(
        unsafe { animcomp_version(&mut a, &mut b, &mut c) },
        Status::Ok
    );
    assert_eq!(format!("{a}.{b}.{c}"), env!("CARGO_PKG_VERSION"));
    assert_eq!(
        unsafe { animcomp_version(null_mut(), &mut b, &mut c) },
        Status::NullPointer
    );
    assert_eq!(
        unsafe { animcomp_blob_format_version() },
        ANIMCOMP_BLOB_FORMAT_VERSION
    );
}

#[test]
fn null_pointers_are_rejected_everywhere() {
    let cc = CClip::generated(3, 5);
    let clip = cc.c();
    let s = fixed_settings();
    let mut size = 0usize;
    let mut info = AnimcompBlobInfo::default();
    let mut ctx = AnimcompDecompressor { opaque: [0; 16] };
    let mut out = [0f32; 30];
    unsafe {
        assert_eq!(
            animcomp_compress_settings_default(null_mut()),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_decompress_options_default(null_mut()),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_compress(null(), &s, null_mut(), 0, &mut size),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_compress(&clip, &s, null_mut(), 0, null_mut()),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_compress(&clip, &s, null_mut(), 64, &mut size),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_compress_bound(&clip, &s, null_mut()),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_compress_bound(null(), &s, &mut size),
            Status::NullPointer
        );
        for field in 0..3 {
            let mut c = clip;
            match field {
                0 => c.parents = null(),
                1 => c.rotations = null(),
                _ => c.translations = null(),
            }
            assert_eq!(
                animcomp_compress(&c, &s, null_mut(), 0, &mut size),
                Status::NullPointer,
                "{field}"
            );
            assert_eq!(size, 0);
        }
        assert_eq!(animcomp_validate_blob(null(), 64), Status::NullPointer);
        assert_eq!(
            animcomp_blob_info(null(), 64, &mut info),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_decompressor_init(null_mut(), null(), 0, null()),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_decompressor_init(&mut ctx, null(), 64, null()),
            Status::NullPointer
        );
        assert_eq!(animcomp_seek(null_mut(), 0.0, 0, 0), Status::NullPointer);
        assert_eq!(animcomp_seek_sample(null_mut(), 0), Status::NullPointer);
        assert_eq!(
            animcomp_sample_pose(null(), out.as_mut_ptr(), 30, 10),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_sample_joint(null(), 0, out.as_mut_ptr()),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_decompressor_info(null(), &mut info),
            Status::NullPointer
        );
    }
}

#[test]
fn enum_values_are_range_checked() {
    let cc = CClip::generated(3, 5);
    let clip = cc.c();
    let mut size = 0usize;
    let base = fixed_settings();
    type Setter = fn(&mut AnimcompCompressSettings, u32);
    let cases: [(&str, Setter); 7] = [
        ("codec", |s, v| s.codec = v),
        ("level", |s, v| s.level = v),
        ("rotation_format", |s, v| s.rotation_format = v),
        ("translation_format", |s, v| s.translation_format = v),
        ("scale_format", |s, v| s.scale_format = v),
        ("default_mode", |s, v| s.default_mode = v),
        ("optimize_loops", |s, v| s.optimize_loops = v),
    ];
    for (name, set) in cases {
        for v in [4u32 + 4 * (name == "rotation_format") as u32, 99, u32::MAX] {
            let mut s = base;
            set(&mut s, v);
            let st = unsafe { animcomp_compress(&clip, &s, null_mut(), 0, &mut size) };
            assert_eq!(st, Status::InvalidEnum, "{name} = {v}");
            let st = unsafe { animcomp_compress_bound(&clip, &s, &mut size) };
            assert_eq!(st, Status::InvalidEnum, "{name} = {v}");
        }
    }
    let mut c = clip;
    c.layout = 2;
    assert_eq!(
        unsafe { animcomp_compress(&c, &base, null_mut(), 0, &mut size) },
        Status::InvalidEnum
    );
    let mut s = base;
    s.reserved[3] = 1;
    assert_eq!(
        unsafe { animcomp_compress(&clip, &s, null_mut(), 0, &mut size) },
        Status::InvalidArgument
    );
    let mut s = base;
    s.precision = -1.0;
    assert_eq!(
        unsafe { animcomp_compress(&clip, &s, null_mut(), 0, &mut size) },
        Status::InvalidPrecision
    );
    let mut s = base;
    s.shell_distance = f32::NAN;
    assert_eq!(
        unsafe { animcomp_compress(&clip, &s, null_mut(), 0, &mut size) },
        Status::InvalidShellDistance
    );
}

#[test]
fn bad_clips_get_their_status() {
    let cc = CClip::generated(4, 6);
    let s = fixed_settings();
    let run = |c: &AnimcompRawClip| {
        let mut size = 123usize;
        let st = unsafe { animcomp_compress(c, &s, null_mut(), 0, &mut size) };
        assert_eq!(size, 0, "size is zeroed on error {st:?}");
        st
    };
    let mut c = cc.c();
    c.num_joints = 0;
    assert_eq!(run(&c), Status::NoJoints);
    let mut c = cc.c();
    c.num_samples = 0;
    assert_eq!(run(&c), Status::NoSamples);
    let mut c = cc.c();
    c.num_joints = ANIMCOMP_MAX_JOINTS + 1;
    assert_eq!(run(&c), Status::TooManyJoints);
    let mut c = cc.c();
    c.num_samples = ANIMCOMP_MAX_SAMPLES + 1;
    assert_eq!(run(&c), Status::TooManySamples);
    for rate in [0.0, -30.0, f32::NAN, f32::INFINITY, 1e-5, 1e6] {
        let mut c = cc.c();
        c.sample_rate = rate;
        assert_eq!(run(&c), Status::InvalidSampleRate, "{rate}");
    }
    let mut c = cc.c();
    c.rotation_stride = 3;
    assert_eq!(run(&c), Status::InconsistentClip);
    let mut c = cc.c();
    c.translation_stride = 1;
    assert_eq!(run(&c), Status::InconsistentClip);
    let mut c = cc.c();
    c.reserved0 = 7;
    assert_eq!(run(&c), Status::InvalidArgument);
    // count x stride overflowing (or past the address space) is an argument error in both
    // compress and compress_bound, never INTERNAL.
    let mut c = cc.c();
    (c.num_joints, c.num_samples) = (ANIMCOMP_MAX_JOINTS, ANIMCOMP_MAX_SAMPLES);
    c.rotation_stride = u32::MAX;
    assert_eq!(run(&c), Status::InvalidArgument);
    let mut bound = 7usize;
    assert_eq!(
        unsafe { animcomp_compress_bound(&c, &s, &mut bound) },
        Status::InvalidArgument
    );
    assert_eq!(bound, 0);
    let misaligned = unsafe { (cc.data.as_ptr() as *const u8).add(2) } as *const f32;
    let mut c = cc.c();
    c.translations = misaligned;
    assert_eq!(run(&c), Status::Misaligned);

    let mut bad = CClip::generated(4, 6);
    bad.parents[2] = 3;
    assert_eq!(run(&bad.c()), Status::InvalidParent);
    bad.parents[2] = -5;
    assert_eq!(run(&bad.c()), Status::InvalidParent);
    let mut bad = CClip::generated(4, 6);
    bad.data[10 * 5 + 4] = f32::NAN; // translation x of joint 1, sample 1
    assert_eq!(run(&bad.c()), Status::NonFiniteValue);
    let mut bad = CClip::generated(4, 6);
    bad.data[10 * 5 + 7] = 1e30; // scale
    assert_eq!(run(&bad.c()), Status::NonFiniteValue);
    let mut bad = CClip::generated(4, 6);
    bad.data[10 * 5..10 * 5 + 4].copy_from_slice(&[0.0, 0.0, 0.0, 2.0]);
    assert_eq!(run(&bad.c()), Status::NonUnitQuaternion);
    let precisions = [0.01f32, 0.01, -1.0, 0.01];
    let mut c = cc.c();
    c.precisions = precisions.as_ptr();
    assert_eq!(run(&c), Status::InvalidPrecision);
    let mut c = cc.c();
    c.shell_distances = precisions.as_ptr();
    assert_eq!(run(&c), Status::InvalidShellDistance);
}

#[test]
fn misaligned_output_buffer_is_refused() {
    let cc = CClip::generated(3, 5);
    let mut buf = AlignedBlob::from_bytes(&[0u8; 4096]);
    let mut size = 0usize;
    let p = unsafe { buf.as_bytes_mut().as_mut_ptr().add(8) };
    let st = unsafe { animcomp_compress(&cc.c(), &fixed_settings(), p.cast(), 4000, &mut size) };
    assert_eq!(st, Status::Misaligned);
    assert_eq!(size, 0);
}

#[test]
fn buffer_too_small_protocol_and_round_trip() {
    let src = generate_clip(&GenerateOptions {
        joints: 12,
        samples: 40,
        scale: true,
        ..Default::default()
    });
    let cc = CClip::new(&src);
    let clip = cc.c();
    let s = fixed_settings();
    let blob = compress(&clip, &s);
    let size = blob.len();

    // One byte short (rounded to a multiple of 16 so only the size is wrong): refused, buffer untouched.
    let mut short = AlignedBlob::from_bytes(&vec![0xAB; size - 16]);
    let mut reported = 0usize;
    let st = unsafe {
        animcomp_compress(
            &clip,
            &s,
            short.as_bytes_mut().as_mut_ptr().cast(),
            size - 16,
            &mut reported,
        )
    };
    assert_eq!(st, Status::BufferTooSmall);
    assert_eq!(reported, size);
    assert!(short.as_bytes().iter().all(|&b| b == 0xAB));
    let mut bound = 0usize;
    assert_eq!(
        unsafe { animcomp_compress_bound(&clip, &s, &mut bound) },
        Status::Ok
    );
    assert!(bound >= size, "bound {bound} < size {size}");
    // The C API gives the same bytes as the Rust API.
    let rust = animcomp::compress(
        &src,
        &animcomp::CompressSettings {
            codec: animcomp::CodecChoice::Fixed,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(blob.as_bytes(), &rust[..]);

    assert_eq!(
        unsafe { animcomp_validate_blob(blob.as_bytes().as_ptr().cast(), size) },
        Status::Ok
    );
    let mut info = AnimcompBlobInfo::default();
    assert_eq!(
        unsafe { animcomp_blob_info(blob.as_bytes().as_ptr().cast(), size, &mut info) },
        Status::Ok
    );
    assert_eq!((info.num_joints, info.num_samples, info.codec), (12, 40, 1));
    assert_eq!(info.blob_size, size as u64);
    assert_eq!(info.raw_size, 40 * 12 * 40);
    assert!((info.duration - 39.0 / 30.0).abs() < 1e-6);
    assert_ne!(info.flags & ANIMCOMP_BLOB_FLAG_HAS_SCALE, 0);

    let mut ctx = AnimcompDecompressor { opaque: [0; 16] };
    let mut pose = vec![0f32; 12 * 10];
    let mut joint = [0f32; 10];
    unsafe {
        assert_eq!(animcomp_seek(&mut ctx, 0.0, 0, 0), Status::NotInitialized);
        assert_eq!(
            animcomp_decompressor_init(&mut ctx, blob.as_bytes().as_ptr().cast(), size, null()),
            Status::Ok
        );
        let mut info2 = AnimcompBlobInfo::default();
        assert_eq!(animcomp_decompressor_info(&ctx, &mut info2), Status::Ok);
        assert_eq!(info2, info);
        assert_eq!(animcomp_seek(&mut ctx, f32::NAN, 0, 0), Status::InvalidTime);
        assert_eq!(animcomp_seek(&mut ctx, 0.1, 2, 0), Status::InvalidEnum);
        assert_eq!(animcomp_seek(&mut ctx, 0.1, 0, 4), Status::InvalidEnum);
        assert_eq!(
            animcomp_sample_pose(&ctx, pose.as_mut_ptr(), pose.len() - 1, 10),
            Status::BufferTooSmall
        );
        assert_eq!(
            animcomp_sample_pose(&ctx, pose.as_mut_ptr(), pose.len(), 9),
            Status::InvalidArgument
        );
        assert_eq!(
            animcomp_sample_joint(&ctx, 12, joint.as_mut_ptr()),
            Status::JointOutOfRange
        );
        for i in 0..40u32 {
            assert_eq!(animcomp_seek(&mut ctx, i as f32 / 30.0, 0, 3), Status::Ok);
            assert_eq!(
                animcomp_sample_pose(&ctx, pose.as_mut_ptr(), pose.len(), 0),
                Status::Ok
            );
            for j in 0..12usize {
                assert_eq!(
                    animcomp_sample_joint(&ctx, j as u32, joint.as_mut_ptr()),
                    Status::Ok
                );
                assert_eq!(
                    &joint[..],
                    &pose[j * 10..j * 10 + 10],
                    "sample_joint == sample_pose"
                );
                let raw = src.tracks[j].get(i as usize);
                let q = glam::Quat::from_slice(&joint[..4]);
                assert!(q.dot(raw.rotation).abs() > 0.999, "joint {j} sample {i}");
                let t = glam::Vec3::from_slice(&joint[4..7]);
                assert!(
                    (t - raw.translation).length() < 0.05 * (1.0 + raw.translation.length()),
                    "joint {j} sample {i}"
                );
            }
        }
        // A wider stride leaves the gaps alone.
        let mut wide = vec![-7f32; 11 * 12 + 10];
        assert_eq!(
            animcomp_sample_pose(&ctx, wide.as_mut_ptr(), wide.len(), 12),
            Status::Ok
        );
        assert_eq!(&wide[12..22], &pose[10..20]);
        assert_eq!((wide[10], wide[11]), (-7.0, -7.0));
    }
}
