//! Issue 24 (papercut): `ANIMCOMP_STATUS_BUFFER_TOO_SMALL`'s message is true for every function
//! that returns it: the compressors write the required size to `*out_size`, every other function
//! writes nothing (its output buffer is left untouched).

use std::ffi::{c_void, CStr};
use std::ptr::null;

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::ffi::curves::animcomp_sample_curves;
use animcomp::ffi::*;
use animcomp::{compress_with_curves, AlignedBlob, CodecChoice, CompressSettings, Curve, Status};

#[test]
fn buffer_too_small_writes_nothing_outside_the_compressors() {
    let msg = unsafe { CStr::from_ptr(animcomp_status_message(Status::BufferTooSmall as i32)) };
    let msg = msg.to_str().unwrap();
    assert!(
        msg.contains("animcomp_compress") && msg.contains("other functions wrote nothing"),
        "{msg}"
    );
    let clip = generate_clip(&GenerateOptions {
        joints: 7,
        samples: 20,
        ..Default::default()
    });
    let curves = vec![Curve::new("w", 1, (0..20).map(|i| i as f32).collect())];
    let settings = CompressSettings {
        codec: CodecChoice::Keys,
        ..Default::default()
    };
    let blob = AlignedBlob::from_bytes(&compress_with_curves(&clip, &curves, &settings).unwrap());
    let (p, n) = (blob.as_bytes().as_ptr() as *const c_void, blob.len());
    let mut ctx = AnimcompDecompressor {
        opaque: [0; ANIMCOMP_DECOMPRESSOR_WORDS],
    };
    unsafe {
        assert_eq!(
            animcomp_decompressor_init(&mut ctx, p, n, null()),
            Status::Ok
        );
        let mut pose = [9.0f32; 69];
        assert_eq!(
            animcomp_sample_pose(&ctx, pose.as_mut_ptr(), 69, 0),
            Status::BufferTooSmall
        );
        assert!(pose.iter().all(|&v| v == 9.0), "sample_pose wrote nothing");
        let joints = [0u32, 6];
        let slots = [0u32, 6];
        assert_eq!(
            animcomp_sample_joints(
                &ctx,
                joints.as_ptr(),
                slots.as_ptr(),
                2,
                ANIMCOMP_CHANNEL_ALL,
                pose.as_mut_ptr(),
                69,
                0
            ),
            Status::BufferTooSmall
        );
        assert!(
            pose.iter().all(|&v| v == 9.0),
            "sample_joints wrote nothing"
        );
        let mut w = [9.0f32; 1];
        assert_eq!(
            animcomp_sample_curves(&ctx, w.as_mut_ptr(), 0),
            Status::BufferTooSmall
        );
        assert_eq!(w[0], 9.0);
        let mut need = 0usize;
        assert_eq!(animcomp_key_cursor_state_size(&ctx, &mut need), Status::Ok);
        let mut state = vec![0xAAAA_AAAAu32; need / 4];
        let short = need - 4;
        assert_eq!(
            animcomp_key_cursor_init(&ctx, state.as_mut_ptr().cast(), short),
            Status::BufferTooSmall
        );
        assert!(state.iter().all(|&v| v == 0xAAAA_AAAA), "state untouched");
        assert_eq!(
            animcomp_key_cursor_init(&ctx, state.as_mut_ptr().cast(), need),
            Status::Ok
        );
        assert_eq!(
            animcomp_key_cursor_sample_pose(
                &ctx,
                state.as_mut_ptr().cast(),
                need,
                pose.as_mut_ptr(),
                69,
                0
            ),
            Status::BufferTooSmall
        );
        assert!(pose.iter().all(|&v| v == 9.0), "cursor pose untouched");
    }
}
