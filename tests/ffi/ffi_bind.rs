//! Validate once, bind many (`animcomp_blob_open` + `animcomp_decompressor_bind`), the bind pose
//! checks, and joint subsets (`animcomp_sample_joints`) through the C ABI, for every codec.

use std::ptr::{null, null_mut};

use animcomp::clip::{generate_clip, GenerateOptions, RawClip};
use animcomp::ffi::*;
use animcomp::offline::DefaultMode;
use animcomp::{compress, AlignedBlob, CodecChoice, CompressSettings, Status};

const CODECS: [CodecChoice; 3] = [CodecChoice::Fixed, CodecChoice::Vbr, CodecChoice::Keys];

fn clip() -> RawClip {
    clip_of(if crate::emulated::emulated() { 35 } else { 70 })
}

/// [`clip`] for the tests of arguments and statuses: under qemu (`ANIMCOMP_TEST_EMULATED=1`,
/// docs/ci.md) 20 samples instead of 70 (the same joints), the compression being most of their
/// time there. The tests that compare poses use [`clip`], 35 samples there (three `vbr` segments).
fn args_clip() -> RawClip {
    clip_of(if crate::emulated::emulated() { 20 } else { 70 })
}

fn clip_of(samples: usize) -> RawClip {
    generate_clip(&GenerateOptions {
        joints: 61,
        samples,
        scale: true,
        animated_translation: true,
        ..Default::default()
    })
}

pub(crate) fn blob(clip: &RawClip, codec: CodecChoice, default_mode: DefaultMode) -> AlignedBlob {
    let settings = CompressSettings {
        codec,
        default_mode,
        ..Default::default()
    };
    AlignedBlob::from_bytes(&compress(clip, &settings).expect("compress"))
}

pub(crate) fn bind_floats(clip: &RawClip) -> Vec<f32> {
    clip.bind_pose_floats().unwrap()
}

pub(crate) fn options(bind: Option<&[f32]>) -> AnimcompDecompressOptions {
    let mut o = AnimcompDecompressOptions {
        verify_checksum: 0,
        reserved0: 0,
        bind_pose: null(),
        bind_pose_len: 0,
        reserved: [0; 1],
    };
    unsafe { animcomp_decompress_options_default(&mut o) };
    if let Some(b) = bind {
        o.bind_pose = b.as_ptr();
        o.bind_pose_len = b.len() as u64;
    }
    o
}

fn open(blob: &AlignedBlob, bind: Option<&[f32]>) -> (Status, AnimcompBlob) {
    let mut h = AnimcompBlob {
        opaque: [7; ANIMCOMP_BLOB_WORDS],
    };
    let b = blob.as_bytes();
    let o = options(bind);
    let st = unsafe { animcomp_blob_open(&mut h, b.as_ptr().cast(), b.len(), &o) };
    (st, h)
}

pub(crate) fn new_ctx() -> AnimcompDecompressor {
    AnimcompDecompressor {
        opaque: [0; ANIMCOMP_DECOMPRESSOR_WORDS],
    }
}

fn pose(ctx: &AnimcompDecompressor, nj: usize) -> Vec<f32> {
    let mut p = vec![0.0f32; nj * 10];
    assert_eq!(
        unsafe { animcomp_sample_pose(ctx, p.as_mut_ptr(), p.len(), 10) },
        Status::Ok
    );
    p
}

#[test]
fn bound_contexts_sample_what_init_samples() {
    let clip = clip();
    let nj = clip.num_joints();
    for codec in CODECS {
        let blob = blob(&clip, codec, DefaultMode::Identity);
        let (st, handle) = open(&blob, None);
        assert_eq!(st, Status::Ok);
        let mut init = new_ctx();
        let b = blob.as_bytes();
        assert_eq!(
            unsafe { animcomp_decompressor_init(&mut init, b.as_ptr().cast(), b.len(), null()) },
            Status::Ok
        );
        // Many contexts from one handle; the handle itself may be copied.
        let copy = handle;
        for h in [&handle, &copy] {
            let mut ctx = new_ctx();
            assert_eq!(
                unsafe { animcomp_decompressor_bind(&mut ctx, h) },
                Status::Ok
            );
            for t in [0.0f32, 0.37, 1.0, 5.0] {
                unsafe {
                    assert_eq!(animcomp_seek(&mut ctx, t, 1, 0), Status::Ok);
                    assert_eq!(animcomp_seek(&mut init, t, 1, 0), Status::Ok);
                }
                assert_eq!(pose(&ctx, nj), pose(&init, nj), "{codec:?} at {t}");
            }
        }
    }
}

#[test]
fn bind_refuses_handles_that_were_never_opened() {
    let clip = args_clip();
    let good = blob(&clip, CodecChoice::Vbr, DefaultMode::Identity);
    let mut bad = good.clone();
    bad.as_bytes_mut()[100] ^= 0x55;
    let (st, failed) = open(&bad, None);
    assert_eq!(st, Status::ChecksumMismatch);
    let mut ctx = new_ctx();
    unsafe {
        assert_eq!(
            animcomp_decompressor_bind(&mut ctx, &failed),
            Status::NotInitialized
        );
        let zeroed = AnimcompBlob {
            opaque: [0; ANIMCOMP_BLOB_WORDS],
        };
        assert_eq!(
            animcomp_decompressor_bind(&mut ctx, &zeroed),
            Status::NotInitialized
        );
        assert_eq!(
            animcomp_decompressor_bind(&mut ctx, null()),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_decompressor_bind(null_mut(), &failed),
            Status::NullPointer
        );
        let b = good.as_bytes();
        assert_eq!(
            animcomp_blob_open(null_mut(), b.as_ptr().cast(), b.len(), null()),
            Status::NullPointer
        );
    }
}

#[test]
fn bind_pose_is_validated_like_clip_input() {
    let clip = args_clip();
    let bind = bind_floats(&clip);
    for codec in CODECS {
        let blob = blob(&clip, codec, DefaultMode::BindPose);
        assert_eq!(open(&blob, Some(&bind)).0, Status::Ok, "{codec:?}");
        assert_eq!(open(&blob, None).0, Status::BindPoseRequired);
        let mut nan = bind.clone();
        nan[3 * 10 + 5] = f32::NAN;
        assert_eq!(open(&blob, Some(&nan)).0, Status::NonFiniteValue);
        let mut huge = bind.clone();
        huge[2 * 10 + 8] = 1e9;
        assert_eq!(open(&blob, Some(&huge)).0, Status::NonFiniteValue);
        let mut stretched = bind.clone();
        for v in &mut stretched[10..14] {
            *v *= 1.01;
        }
        assert_eq!(open(&blob, Some(&stretched)).0, Status::NonUnitQuaternion);
        let mut ctx = new_ctx();
        let b = blob.as_bytes();
        let o = options(Some(&stretched));
        assert_eq!(
            unsafe { animcomp_decompressor_init(&mut ctx, b.as_ptr().cast(), b.len(), &o) },
            Status::NonUnitQuaternion
        );
    }
}

/// `sample_joints` writes exactly the floats `sample_pose` writes for the joints and channels
/// asked for, at the slots asked for, and nothing else; when slots repeat, the last write to a
/// slot stays (slot lists ascending, descending, repeating and shuffled).
#[test]
fn joint_subsets_match_the_full_pose() {
    let clip = clip();
    let nj = clip.num_joints() as u32;
    let lists: Vec<Vec<u32>> = vec![
        (0..nj).collect(),
        (0..nj).step_by(10).collect(),
        vec![nj - 1, 3, 0, 17, 3],
        vec![0, 11],
        vec![2, 9, 30, 31, 58],
        (0..nj).step_by(7).collect(),
        vec![5],
        (0..nj).rev().collect(),
    ];
    for codec in CODECS {
        let blob = blob(&clip, codec, DefaultMode::Identity);
        let mut ctx = new_ctx();
        let b = blob.as_bytes();
        unsafe {
            assert_eq!(
                animcomp_decompressor_init(&mut ctx, b.as_ptr().cast(), b.len(), null()),
                Status::Ok
            );
        }
        for t in [0.0f32, 0.41, 0.9] {
            unsafe { assert_eq!(animcomp_seek(&mut ctx, t, 0, 0), Status::Ok) };
            let full = pose(&ctx, nj as usize);
            for list in &lists {
                let n = list.len() as u32;
                let slot_lists: [Vec<u32>; 4] = [
                    (0..n).map(|i| 2 * i + 1).collect(),
                    (0..n).rev().collect(),
                    (0..n).map(|i| i % 3).collect(),
                    (0..n).map(|i| (i * 7 + 3) % n.max(2)).collect(),
                ];
                for channels in 1..=7u32 {
                    for (with_slots, slots) in [(false, &slot_lists[0])]
                        .into_iter()
                        .chain(slot_lists.iter().map(|s| (true, s)))
                    {
                        let stride = 12usize;
                        let n_slots = if with_slots {
                            2 * list.len() + 1
                        } else {
                            list.len()
                        };
                        let mut out = vec![-9.0f32; n_slots * stride];
                        let st = unsafe {
                            animcomp_sample_joints(
                                &ctx,
                                list.as_ptr(),
                                if with_slots { slots.as_ptr() } else { null() },
                                list.len(),
                                channels,
                                out.as_mut_ptr(),
                                out.len(),
                                stride,
                            )
                        };
                        assert_eq!(st, Status::Ok);
                        let mut expect = vec![-9.0f32; out.len()];
                        for (i, &j) in list.iter().enumerate() {
                            let s = if with_slots { slots[i] as usize } else { i };
                            let src = &full[j as usize * 10..j as usize * 10 + 10];
                            let dst = &mut expect[s * stride..s * stride + 10];
                            for (ch, range) in [(1, 0..4), (2, 4..7), (4, 7..10)] {
                                if channels & ch != 0 {
                                    dst[range.clone()].copy_from_slice(&src[range]);
                                }
                            }
                        }
                        assert_eq!(
                            out, expect,
                            "{codec:?} t {t} list {list:?} slots {with_slots} {slots:?} ch {channels}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn joint_subset_arguments_are_checked() {
    let clip = args_clip();
    let blob = blob(&clip, CodecChoice::Vbr, DefaultMode::Identity);
    let mut ctx = new_ctx();
    let b = blob.as_bytes();
    unsafe {
        assert_eq!(
            animcomp_decompressor_init(&mut ctx, b.as_ptr().cast(), b.len(), null()),
            Status::Ok
        );
    }
    let joints = [1u32, 2, 3];
    let mut out = vec![0.0f32; 30];
    let call = |joints: &[u32], slots: *const u32, ch: u32, len: usize, stride: usize| unsafe {
        let mut out = vec![0.0f32; 30];
        animcomp_sample_joints(
            &ctx,
            joints.as_ptr(),
            slots,
            joints.len(),
            ch,
            out.as_mut_ptr(),
            len,
            stride,
        )
    };
    assert_eq!(call(&joints, null(), 7, 30, 10), Status::Ok);
    assert_eq!(call(&joints, null(), 0, 30, 10), Status::InvalidEnum);
    assert_eq!(call(&joints, null(), 8, 30, 10), Status::InvalidEnum);
    assert_eq!(call(&joints, null(), 7, 29, 10), Status::BufferTooSmall);
    assert_eq!(call(&[1, 61], null(), 7, 30, 10), Status::JointOutOfRange);
    assert_eq!(call(&joints, null(), 7, 30, 9), Status::InvalidArgument);
    let far = [0u32, 1, 4];
    assert_eq!(
        call(&joints, far.as_ptr(), 7, 30, 10),
        Status::BufferTooSmall
    );
    for stride in [usize::MAX, 1 << 63, 1 << 62] {
        // Slot 2 of 3: 2 * stride + 10 floats (or its byte count) overflows the address space.
        assert_eq!(
            call(&joints, null(), 7, 30, stride),
            Status::InvalidArgument
        );
        assert_eq!(
            unsafe { animcomp_sample_pose(&ctx, out.as_mut_ptr(), out.len(), stride) },
            Status::InvalidArgument
        );
    }
    let huge_slot = [0u32, 1, u32::MAX];
    assert_eq!(
        call(&joints, huge_slot.as_ptr(), 7, 30, 1 << 40),
        Status::InvalidArgument
    );
    unsafe {
        assert_eq!(
            animcomp_sample_joints(&ctx, null(), null(), 3, 7, out.as_mut_ptr(), 30, 10),
            Status::NullPointer
        );
    }
}
