//! The `keys` playback cursor through the C ABI: argument checking (null pointers, short and
//! misaligned state, uninitialised state, enum ranges, blobs of other codecs) and poses
//! bit-identical to `animcomp_sample_pose` at the same times, playing forward, backward, at random
//! and across the loop point.

use std::ptr::{null, null_mut};

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::ffi::*;
use animcomp::{compress, AlignedBlob, CodecChoice, CompressSettings, Status};

const ROUNDINGS: [u32; 4] = [0, 1, 2, 3];

/// A keys (or other codec) blob of a generated clip.
fn blob(codec: CodecChoice, joints: usize, samples: usize) -> AlignedBlob {
    let clip = generate_clip(&GenerateOptions {
        joints,
        samples,
        scale: true,
        ..Default::default()
    });
    let settings = CompressSettings {
        codec,
        ..Default::default()
    };
    let bytes = compress(&clip, &settings).expect("compress");
    AlignedBlob::from_bytes(&bytes)
}

fn decompressor(blob: &AlignedBlob) -> AnimcompDecompressor {
    let mut ctx = AnimcompDecompressor { opaque: [0; 16] };
    let b = blob.as_bytes();
    let st = unsafe { animcomp_decompressor_init(&mut ctx, b.as_ptr().cast(), b.len(), null()) };
    assert_eq!(st, Status::Ok);
    ctx
}

fn state_bytes(ctx: &AnimcompDecompressor) -> usize {
    let mut n = usize::MAX;
    assert_eq!(
        unsafe { animcomp_key_cursor_state_size(ctx, &mut n) },
        Status::Ok
    );
    n
}

/// An initialised cursor state for `ctx` (u32 words, so 4-byte aligned).
fn cursor(ctx: &AnimcompDecompressor) -> Vec<u32> {
    let bytes = state_bytes(ctx);
    assert!(bytes > 0 && bytes.is_multiple_of(4));
    let mut st = vec![0xDEAD_BEEFu32; bytes / 4];
    assert_eq!(
        unsafe { animcomp_key_cursor_init(ctx, st.as_mut_ptr().cast(), bytes) },
        Status::Ok
    );
    st
}

fn joints(ctx: &AnimcompDecompressor) -> usize {
    let mut info = AnimcompBlobInfo::default();
    assert_eq!(
        unsafe { animcomp_decompressor_info(ctx, &mut info) },
        Status::Ok
    );
    info.num_joints as usize
}

/// Seeks both the decompressor and the cursor to `time` and checks that the pose and every single
/// joint are bit-identical.
fn check_at(
    ctx: &mut AnimcompDecompressor,
    state: &mut [u32],
    time: f32,
    looping: u32,
    rounding: u32,
) {
    let nj = joints(ctx);
    let (mut a, mut b) = (vec![0f32; nj * 10], vec![1f32; nj * 10]);
    let bytes = state.len() * 4;
    let sp = state.as_mut_ptr().cast();
    unsafe {
        assert_eq!(animcomp_seek(ctx, time, looping, rounding), Status::Ok);
        assert_eq!(
            animcomp_sample_pose(ctx, a.as_mut_ptr(), a.len(), 10),
            Status::Ok
        );
        assert_eq!(
            animcomp_key_cursor_seek(ctx, sp, bytes, time, looping, rounding),
            Status::Ok
        );
        assert_eq!(
            animcomp_key_cursor_sample_pose(ctx, sp, bytes, b.as_mut_ptr(), b.len(), 0),
            Status::Ok
        );
    }
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(&a),
        bits(&b),
        "time {time} looping {looping} rounding {rounding}"
    );
    for j in 0..nj {
        let mut o = [2f32; 10];
        let st =
            unsafe { animcomp_key_cursor_sample_joint(ctx, sp, bytes, j as u32, o.as_mut_ptr()) };
        assert_eq!(st, Status::Ok);
        assert_eq!(
            bits(&o),
            bits(&a[j * 10..j * 10 + 10]),
            "joint {j} time {time}"
        );
    }
}

#[test]
fn arguments_are_checked() {
    let keys = blob(CodecChoice::Keys, 5, 40);
    let ctx = decompressor(&keys);
    let bytes = state_bytes(&ctx);
    let mut st = vec![0u32; bytes / 4 + 2];
    let sp: *mut std::ffi::c_void = st.as_mut_ptr().cast();
    let mut out = [0f32; 50];
    unsafe {
        // Null pointers.
        let mut n = 7usize;
        assert_eq!(
            animcomp_key_cursor_state_size(null(), &mut n),
            Status::NullPointer
        );
        assert_eq!(n, 0);
        assert_eq!(
            animcomp_key_cursor_state_size(&ctx, null_mut()),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_key_cursor_init(null(), sp, bytes),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_key_cursor_init(&ctx, null_mut(), bytes),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_key_cursor_seek(&ctx, null_mut(), bytes, 0.0, 0, 0),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_key_cursor_seek_sample(null(), sp, bytes, 0),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_key_cursor_sample_pose(&ctx, null_mut(), bytes, out.as_mut_ptr(), 50, 10),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_key_cursor_sample_joint(&ctx, null_mut(), bytes, 0, out.as_mut_ptr()),
            Status::NullPointer
        );

        // Not initialised: the marker word is missing.
        assert_eq!(
            animcomp_key_cursor_seek(&ctx, sp, bytes, 0.0, 0, 0),
            Status::NotInitialized
        );
        assert_eq!(
            animcomp_key_cursor_sample_pose(&ctx, sp, bytes, out.as_mut_ptr(), 50, 10),
            Status::NotInitialized
        );
        // An uninitialised decompressor.
        let raw = AnimcompDecompressor { opaque: [0; 16] };
        assert_eq!(
            animcomp_key_cursor_init(&raw, sp, bytes),
            Status::NotInitialized
        );

        // Short state: BUFFER_TOO_SMALL, and nothing is written.
        st.fill(0xAAAA_AAAA);
        let sp: *mut std::ffi::c_void = st.as_mut_ptr().cast();
        assert_eq!(
            animcomp_key_cursor_init(&ctx, sp, bytes - 1),
            Status::BufferTooSmall
        );
        assert_eq!(
            animcomp_key_cursor_init(&ctx, sp, 0),
            Status::BufferTooSmall
        );
        assert!(st.iter().all(|&w| w == 0xAAAA_AAAA));
        // Misaligned state.
        let odd = (sp as *mut u8).add(1).cast();
        assert_eq!(
            animcomp_key_cursor_init(&ctx, odd, bytes),
            Status::Misaligned
        );

        // Initialised: a larger buffer is accepted; the other calls then check the size too.
        assert_eq!(animcomp_key_cursor_init(&ctx, sp, bytes + 8), Status::Ok);
        assert_eq!(
            animcomp_key_cursor_seek(&ctx, sp, bytes - 4, 0.1, 0, 0),
            Status::BufferTooSmall
        );
        assert_eq!(
            animcomp_key_cursor_sample_joint(&ctx, sp, bytes - 4, 0, out.as_mut_ptr()),
            Status::BufferTooSmall
        );
        assert_eq!(
            animcomp_key_cursor_seek(&ctx, odd, bytes, 0.1, 0, 0),
            Status::Misaligned
        );
        // Enums, times, strides, joints.
        assert_eq!(
            animcomp_key_cursor_seek(&ctx, sp, bytes, 0.1, 2, 0),
            Status::InvalidEnum
        );
        assert_eq!(
            animcomp_key_cursor_seek(&ctx, sp, bytes, 0.1, 0, 4),
            Status::InvalidEnum
        );
        assert_eq!(
            animcomp_key_cursor_seek(&ctx, sp, bytes, f32::NAN, 0, 0),
            Status::InvalidTime
        );
        assert_eq!(
            animcomp_key_cursor_sample_pose(&ctx, sp, bytes, out.as_mut_ptr(), 50, 9),
            Status::InvalidArgument
        );
        assert_eq!(
            animcomp_key_cursor_sample_pose(&ctx, sp, bytes, out.as_mut_ptr(), 49, 10),
            Status::BufferTooSmall
        );
        assert_eq!(
            animcomp_key_cursor_sample_joint(&ctx, sp, bytes, 5, out.as_mut_ptr()),
            Status::JointOutOfRange
        );
        assert_eq!(
            animcomp_key_cursor_sample_joint(&ctx, sp, bytes, 0, null_mut()),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_key_cursor_sample_pose(&ctx, sp, bytes, out.as_mut_ptr(), 50, 10),
            Status::Ok
        );
    }
}

#[test]
fn other_codecs_are_unsupported() {
    for codec in [CodecChoice::Fixed, CodecChoice::Vbr] {
        let b = blob(codec, 4, 20);
        let ctx = decompressor(&b);
        let mut st = vec![0u32; 4096];
        let sp = st.as_mut_ptr().cast();
        let mut n = 7usize;
        unsafe {
            assert_eq!(
                animcomp_key_cursor_state_size(&ctx, &mut n),
                Status::Unsupported
            );
            assert_eq!(n, 0);
            assert_eq!(
                animcomp_key_cursor_init(&ctx, sp, 4096 * 4),
                Status::Unsupported
            );
            assert_eq!(
                animcomp_key_cursor_seek(&ctx, sp, 4096 * 4, 0.0, 0, 0),
                Status::Unsupported
            );
        }
        assert!(st.iter().all(|&w| w == 0), "{codec:?}: state untouched");
    }
}

#[test]
fn forward_playback_matches_the_decompressor() {
    // 600 samples: long enough that playback crosses many keys of every track.
    let keys = blob(CodecChoice::Keys, 8, 600);
    let mut ctx = decompressor(&keys);
    let mut st = cursor(&ctx);
    let rate = 30.0f32;
    // Steps that are not multiples of the sample period, through the end (clamped) in both modes.
    for (looping, step) in [(0u32, 0.37f32), (1, 0.61)] {
        let mut st2 = cursor(&ctx);
        let mut s = 0.0f32;
        while s < 610.0 {
            check_at(&mut ctx, &mut st2, s / rate, looping, 0);
            s += step;
        }
    }
    // Every sample exactly, with each rounding mode, forward from the start.
    for r in ROUNDINGS {
        let mut st2 = cursor(&ctx);
        for i in 0..600 {
            check_at(&mut ctx, &mut st2, (i as f32 + 0.25) / rate, 0, r);
        }
    }
    // seek_sample moves the cursor like animcomp_seek_sample.
    let bytes = st.len() * 4;
    let nj = joints(&ctx);
    for i in [0u32, 5, 6, 300, 599, 10_000, 2] {
        let (mut a, mut b) = (vec![0f32; nj * 10], vec![1f32; nj * 10]);
        unsafe {
            assert_eq!(animcomp_seek_sample(&mut ctx, i), Status::Ok);
            assert_eq!(
                animcomp_sample_pose(&ctx, a.as_mut_ptr(), a.len(), 10),
                Status::Ok
            );
            let sp = st.as_mut_ptr().cast();
            assert_eq!(
                animcomp_key_cursor_seek_sample(&ctx, sp, bytes, i),
                Status::Ok
            );
            assert_eq!(
                animcomp_key_cursor_sample_pose(&ctx, sp, bytes, b.as_mut_ptr(), b.len(), 10),
                Status::Ok
            );
        }
        assert_eq!(a, b, "sample {i}");
    }
}

#[test]
fn backward_random_and_wrapping_seeks_match() {
    let keys = blob(CodecChoice::Keys, 6, 500);
    let mut ctx = decompressor(&keys);
    let mut st = cursor(&ctx);
    let rate = 30.0f32;
    // Backward.
    let mut s = 505.0f32;
    while s > -3.0 {
        check_at(&mut ctx, &mut st, s / rate, 0, 0);
        s -= 0.83;
    }
    // Random times (LCG), clamped and wrapped (including negative and beyond-the-end times), every
    // rounding mode; jumps both shorter and longer than the 256-sample rebuild distance.
    let mut x = 0x1234_5678u32;
    for _ in 0..400 {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let t = ((x >> 8) as f32 / (1u32 << 24) as f32) * 1400.0 - 200.0;
        let looping = x & 1;
        let rounding = (x >> 1) & 3;
        check_at(&mut ctx, &mut st, t / rate, looping, rounding);
    }
    // Wrapping playback across the loop point several times.
    let mut st2 = cursor(&ctx);
    let mut s = 480.0f32;
    while s < 1520.0 {
        check_at(&mut ctx, &mut st2, s / rate, 1, 0);
        s += 0.9;
    }
}

/// `(joints - 1) x stride` from a caller's stride is overflow-checked in both pose samplers: a
/// product (or its byte count) past the address space is an argument error, never `INTERNAL`; a
/// large stride that does not overflow asks for a bigger buffer.
#[test]
fn overflowing_strides_are_argument_errors() {
    for codec in [CodecChoice::Fixed, CodecChoice::Vbr, CodecChoice::Keys] {
        let b = blob(codec, 3, 20);
        let ctx = decompressor(&b);
        let mut pose = vec![0f32; 30];
        let (p, n) = (pose.as_mut_ptr(), pose.len());
        let mut state = (codec == CodecChoice::Keys).then(|| cursor(&ctx));
        for stride in [
            usize::MAX,
            1 << 63,
            1 << 62,
            usize::MAX / 4,
            usize::MAX / 2 + 1,
        ] {
            let st = unsafe { animcomp_sample_pose(&ctx, p, n, stride) };
            assert_eq!(st, Status::InvalidArgument, "{codec:?} stride {stride}");
            if let Some(s) = state.as_mut() {
                let st = unsafe {
                    animcomp_key_cursor_sample_pose(
                        &ctx,
                        s.as_mut_ptr().cast(),
                        s.len() * 4,
                        p,
                        n,
                        stride,
                    )
                };
                assert_eq!(st, Status::InvalidArgument, "cursor stride {stride}");
            }
        }
        let st = unsafe { animcomp_sample_pose(&ctx, p, n, 1 << 40) };
        assert_eq!(st, Status::BufferTooSmall);
        assert_eq!(unsafe { animcomp_sample_pose(&ctx, p, n, 0) }, Status::Ok);
        if let Some(s) = state.as_mut() {
            let (sp, sn) = (s.as_mut_ptr().cast(), s.len() * 4);
            let st = unsafe { animcomp_key_cursor_sample_pose(&ctx, sp, sn, p, n, 1 << 40) };
            assert_eq!(st, Status::BufferTooSmall);
            let st = unsafe { animcomp_key_cursor_sample_pose(&ctx, sp, sn, p, n, 10) };
            assert_eq!(st, Status::Ok);
        }
    }
}
