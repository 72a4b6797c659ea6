//! The playback cache through the C ABI (`animcomp_blob_playback_cache_size`,
//! `animcomp_decompressor_playback_cache_size`, `animcomp_decompressor_attach_cache`): sizes,
//! argument statuses, poses bit for bit those without a cache for every codec and bind pose mode,
//! and what binding again does to an attached cache.

use std::ptr::{null, null_mut};

use animcomp::clip::{generate_clip, GenerateOptions, RawClip};
use animcomp::ffi::*;
use animcomp::offline::DefaultMode;
use animcomp::{AlignedBlob, CodecChoice, Status};

use super::ffi_bind::{bind_floats, blob, new_ctx, options};

/// The clip of every test here: under qemu (`ANIMCOMP_TEST_EMULATED=1`, docs/ci.md) 33 samples
/// instead of 97 (the same rig), the compression being most of their time there. The bit-for-bit
/// test plays it past its end many times over (three segments of `vbr`, wrapped).
fn small_clip() -> RawClip {
    clip_of(if crate::emulated::emulated() { 33 } else { 97 })
}

fn clip_of(samples: usize) -> RawClip {
    generate_clip(&GenerateOptions {
        joints: 33,
        samples,
        scale: true,
        animated_translation: true,
        seed: 11,
        ..Default::default()
    })
}

/// An opened handle and a context bound to it.
pub(crate) fn open(
    blob: &AlignedBlob,
    bind: Option<&[f32]>,
) -> (AnimcompBlob, AnimcompDecompressor) {
    let mut o = options(bind);
    o.verify_checksum = 1;
    let mut h = AnimcompBlob {
        opaque: [0; ANIMCOMP_BLOB_WORDS],
    };
    let b = blob.as_bytes();
    assert_eq!(
        unsafe { animcomp_blob_open(&mut h, b.as_ptr().cast(), b.len(), &o) },
        Status::Ok
    );
    let mut ctx = new_ctx();
    assert_eq!(
        unsafe { animcomp_decompressor_bind(&mut ctx, &h) },
        Status::Ok
    );
    (h, ctx)
}

pub(crate) fn pose_bits(ctx: &AnimcompDecompressor, nj: usize) -> Vec<u32> {
    let mut p = vec![0.0f32; nj * 10];
    assert_eq!(
        unsafe { animcomp_sample_pose(ctx, p.as_mut_ptr(), p.len(), 10) },
        Status::Ok
    );
    p.iter().map(|f| f.to_bits()).collect()
}

pub(crate) fn cache_size(ctx: &AnimcompDecompressor) -> usize {
    let mut n = usize::MAX;
    assert_eq!(
        unsafe { animcomp_decompressor_playback_cache_size(ctx, &mut n) },
        Status::Ok
    );
    n
}

#[test]
fn cached_poses_through_the_c_abi_are_the_plain_poses() {
    let clip = small_clip();
    let nj = clip.num_joints();
    let bind = bind_floats(&clip);
    for codec in [CodecChoice::Vbr, CodecChoice::Fixed, CodecChoice::Keys] {
        for mode in [DefaultMode::Identity, DefaultMode::BindPose] {
            let b = blob(&clip, codec, mode);
            let bp = (mode == DefaultMode::BindPose).then_some(&bind[..]);
            let (h, mut plain) = open(&b, bp);
            let mut cached = new_ctx();
            assert_eq!(
                unsafe { animcomp_decompressor_bind(&mut cached, &h) },
                Status::Ok
            );
            let n = cache_size(&cached);
            let mut from_handle = usize::MAX;
            assert_eq!(
                unsafe { animcomp_blob_playback_cache_size(&h, &mut from_handle) },
                Status::Ok
            );
            assert_eq!(n, from_handle);
            // Only vbr has a cache; attaching one elsewhere is allowed and changes nothing.
            assert_eq!(n > 0, codec == CodecChoice::Vbr, "{codec:?}");
            let mut mem = vec![0xA5A5_A5A5_A5A5_A5A5_A5A5_A5A5_A5A5_A5A5u128; n.div_ceil(16) + 1];
            assert_eq!(
                unsafe {
                    animcomp_decompressor_attach_cache(&mut cached, mem.as_mut_ptr().cast(), n)
                },
                Status::Ok
            );
            // Playback at 60 fps looping past the end, then at 24 fps, then random jumps.
            let mut times: Vec<f32> = (0..300).map(|i| 0.21 + i as f32 / 60.0).collect();
            times.extend((0..100).map(|i| 1.9 - i as f32 / 24.0));
            times.extend((0..64).map(|i| ((i * 7919) % 97) as f32 / 29.0));
            for &t in &times {
                unsafe {
                    assert_eq!(animcomp_seek(&mut plain, t, 1, 0), Status::Ok);
                    assert_eq!(animcomp_seek(&mut cached, t, 1, 0), Status::Ok);
                }
                assert_eq!(
                    pose_bits(&cached, nj),
                    pose_bits(&plain, nj),
                    "{codec:?} {mode:?} at {t}"
                );
            }
            // Playback went through the cache (the context passed its whole length): it holds
            // the grouped `vbr` cache's tag. The cache is the AVX2 decoder's: without AVX2
            // (other CPUs) it keeps the zero head attaching wrote (unfilled).
            if codec == CodecChoice::Vbr {
                #[cfg(target_arch = "x86_64")]
                let avx2 = std::is_x86_feature_detected!("avx2");
                #[cfg(not(target_arch = "x86_64"))]
                let avx2 = false;
                let tag = if avx2 { *b"ACP3" } else { [0; 4] };
                assert_eq!(&mem[0].to_le_bytes()[..4], &tag, "{mode:?}");
            }
            // The cache wrote nothing past its size.
            let tail = &mem[n.div_ceil(16)..];
            assert!(tail
                .iter()
                .all(|&w| w == 0xA5A5_A5A5_A5A5_A5A5_A5A5_A5A5_A5A5_A5A5));
        }
    }
}

#[test]
fn attach_checks_its_arguments() {
    let clip = small_clip();
    let b = blob(&clip, CodecChoice::Vbr, DefaultMode::Identity);
    let (h, mut ctx) = open(&b, None);
    let n = cache_size(&ctx);
    assert!(n > 0 && n.is_multiple_of(16));
    let mut mem = vec![0u128; n / 16 + 1];
    let p = mem.as_mut_ptr().cast::<std::ffi::c_void>();
    unsafe {
        assert_eq!(
            animcomp_decompressor_attach_cache(&mut ctx, p, n - 1),
            Status::BufferTooSmall
        );
        let misaligned = p.cast::<u8>().add(4).cast();
        assert_eq!(
            animcomp_decompressor_attach_cache(&mut ctx, misaligned, n),
            Status::Misaligned
        );
        assert_eq!(
            animcomp_decompressor_attach_cache(&mut ctx, p, n),
            Status::Ok
        );
        // NULL detaches, whatever the size.
        assert_eq!(
            animcomp_decompressor_attach_cache(&mut ctx, null_mut(), 0),
            Status::Ok
        );
        assert_eq!(
            animcomp_decompressor_attach_cache(null_mut(), p, n),
            Status::NullPointer
        );
        let mut out = 0usize;
        assert_eq!(
            animcomp_decompressor_playback_cache_size(&ctx, null_mut()),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_blob_playback_cache_size(null(), &mut out),
            Status::NullPointer
        );
        // A context and a handle that were never set up.
        let fresh = new_ctx();
        assert_eq!(
            animcomp_decompressor_playback_cache_size(&fresh, &mut out),
            Status::NotInitialized
        );
        let mut fresh = new_ctx();
        assert_eq!(
            animcomp_decompressor_attach_cache(&mut fresh, p, n),
            Status::NotInitialized
        );
        let never = AnimcompBlob {
            opaque: [0; ANIMCOMP_BLOB_WORDS],
        };
        assert_eq!(
            animcomp_blob_playback_cache_size(&never, &mut out),
            Status::NotInitialized
        );
        let _ = h;
    }
}

/// One cache memory attached back and forth between contexts on two blobs gives each its own
/// poses, and binding a context again detaches its cache.
#[test]
fn a_cache_moved_between_blobs_is_refilled() {
    let (c1, c2) = (small_clip(), {
        let mut c = small_clip();
        for t in &mut c.tracks {
            for x in t.translations.iter_mut() {
                x.x += 0.5;
            }
        }
        c
    });
    let (b1, b2) = (
        blob(&c1, CodecChoice::Vbr, DefaultMode::Identity),
        blob(&c2, CodecChoice::Vbr, DefaultMode::Identity),
    );
    let nj = c1.num_joints();
    let (h1, mut x1) = open(&b1, None);
    let (_h2, mut x2) = open(&b2, None);
    let (_, mut p2) = open(&b2, None);
    let n = cache_size(&x1).max(cache_size(&x2));
    let mut mem = vec![0u128; n.div_ceil(16)];
    let p = mem.as_mut_ptr().cast();
    for (i, t) in [0.5f32, 0.5 + 1.0 / 60.0, 0.5 + 2.0 / 60.0]
        .into_iter()
        .enumerate()
    {
        unsafe {
            assert_eq!(
                animcomp_decompressor_attach_cache(&mut x1, p, n),
                Status::Ok
            );
            assert_eq!(animcomp_seek(&mut x1, t, 0, 0), Status::Ok);
            pose_bits(&x1, nj);
            // The same memory, now filled for the first blob, on the other blob's context.
            assert_eq!(
                animcomp_decompressor_attach_cache(&mut x2, p, n),
                Status::Ok
            );
            assert_eq!(animcomp_seek(&mut x2, t, 0, 0), Status::Ok);
            assert_eq!(animcomp_seek(&mut p2, t, 0, 0), Status::Ok);
        }
        assert_eq!(pose_bits(&x2, nj), pose_bits(&p2, nj), "step {i}");
    }
    // Rebinding detaches: the context samples without touching the memory.
    unsafe {
        assert_eq!(animcomp_decompressor_bind(&mut x1, &h1), Status::Ok);
    }
    mem.iter_mut().for_each(|w| *w = u128::MAX);
    pose_bits(&x1, nj);
    assert!(mem.iter().all(|&w| w == u128::MAX));
}

/// A curves-only blob (no joints) has no cache: size 0, attaching is allowed, sampling works.
#[test]
fn curves_only_blobs_have_no_cache() {
    for codec in [CodecChoice::Vbr, CodecChoice::Fixed, CodecChoice::Keys] {
        let b = super::ffi_curves_only::curves_only_blob(codec);
        let (h, mut ctx) = open(&b, None);
        let mut n = usize::MAX;
        assert_eq!(
            unsafe { animcomp_blob_playback_cache_size(&h, &mut n) },
            Status::Ok
        );
        assert_eq!(n, 0, "{codec:?}");
        let mut mem = [0u128; 1];
        unsafe {
            assert_eq!(
                animcomp_decompressor_attach_cache(&mut ctx, mem.as_mut_ptr().cast(), 0),
                Status::Ok
            );
            assert_eq!(animcomp_seek(&mut ctx, 0.1, 1, 0), Status::Ok);
            let mut out = [0f32; 10];
            assert_eq!(
                animcomp_sample_pose(&ctx, out.as_mut_ptr(), out.len(), 10),
                Status::Ok
            );
        }
        assert_eq!(mem[0], 0, "nothing written into a cache of size 0");
    }
}

/// `animcomp_sample_pose` checks the pose buffer once, in the C layer or in the call it wraps
/// (`Decompressor::sample_pose` without a cache); with and without a cache, and for every codec,
/// each bad buffer gets its status and nothing is written.
#[test]
fn pose_buffers_are_refused_with_and_without_a_cache() {
    let clip = small_clip();
    let nj = clip.num_joints();
    let need = (nj - 1) * 12 + 10;
    for codec in [CodecChoice::Vbr, CodecChoice::Fixed, CodecChoice::Keys] {
        let b = blob(&clip, codec, DefaultMode::Identity);
        let (_h, mut ctx) = open(&b, None);
        let mut mem = vec![0u128; cache_size(&ctx).div_ceil(16) + 1];
        for cached in [false, true] {
            if cached {
                assert_eq!(
                    unsafe {
                        animcomp_decompressor_attach_cache(
                            &mut ctx,
                            mem.as_mut_ptr().cast(),
                            mem.len() * 16,
                        )
                    },
                    Status::Ok
                );
            }
            assert_eq!(unsafe { animcomp_seek(&mut ctx, 0.4, 1, 0) }, Status::Ok);
            let mut p = vec![7.0f32; need + 1];
            let o = p.as_mut_ptr();
            let call = |out: *mut f32, len: usize, stride: usize| unsafe {
                animcomp_sample_pose(&ctx, out, len, stride)
            };
            let what = format!("{codec:?}, cache {cached}");
            assert_eq!(call(o, need - 1, 12), Status::BufferTooSmall, "{what}");
            assert_eq!(call(o, nj * 10 - 1, 0), Status::BufferTooSmall, "{what}");
            assert_eq!(call(o, need, 9), Status::InvalidArgument, "{what}");
            assert_eq!(
                call(o, need, usize::MAX / 2),
                Status::InvalidArgument,
                "{what}"
            );
            assert_eq!(
                call(o, usize::MAX / 2, 12),
                Status::InvalidArgument,
                "{what}"
            );
            assert_eq!(call(null_mut(), need, 12), Status::NullPointer, "{what}");
            let odd = unsafe { o.cast::<u8>().add(1).cast::<f32>() };
            assert_eq!(call(odd, need - 1, 12), Status::Misaligned, "{what}");
            assert!(p.iter().all(|&v| v == 7.0), "nothing written: {what}");
            assert_eq!(call(o, need, 12), Status::Ok, "{what}");
            assert_eq!(p[need], 7.0, "nothing past the last joint: {what}");
            let mut uninit = new_ctx();
            uninit.opaque[0] = 1;
            assert_eq!(
                unsafe { animcomp_sample_pose(&uninit, o, need, 12) },
                Status::NotInitialized
            );
        }
    }
}
