//! Issue 24, item 2: every C entry point on blobs without joints (curves-only clips, 0 joints),
//! written by each codec, works or returns a documented status, never `INTERNAL`. The `keys`
//! codec's curves-only blob used to make `animcomp_key_cursor_init` panic (caught) on its empty
//! joint body.

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use animcomp::clip::Skeleton;
use animcomp::ffi::curves::{animcomp_curve_id, animcomp_sample_curve, animcomp_sample_curves};
use animcomp::ffi::*;
use animcomp::format::Header;
use animcomp::Status;
use animcomp::{compress_with_curves, AlignedBlob, CodecChoice, CompressSettings, Curve, RawClip};

pub(crate) fn curves_only_blob(codec: CodecChoice) -> AlignedBlob {
    let samples = 70;
    let clip = RawClip {
        name: "face".into(),
        skeleton: Skeleton::default(),
        sample_rate: 30.0,
        num_samples: samples,
        tracks: vec![],
    };
    let curves: Vec<Curve> = (0..4)
        .map(|c| {
            let values = (0..samples)
                .map(|i| match c {
                    0 => 0.5,
                    _ => (i as f32 * 0.1 * c as f32).sin(),
                })
                .collect();
            Curve::new(format!("c{c}"), 10 + c as u32, values)
        })
        .collect();
    let settings = CompressSettings {
        codec,
        ..Default::default()
    };
    let blob = AlignedBlob::from_bytes(&compress_with_curves(&clip, &curves, &settings).unwrap());
    let h = Header::parse(blob.as_bytes()).unwrap();
    assert_eq!((h.num_joints, h.num_curves, h.body_size), (0, 4, 0));
    blob
}

fn ok_or_documented(s: Status, allowed: &[Status], what: &str) {
    assert_ne!(s, Status::Internal, "{what}: INTERNAL");
    assert!(
        s == Status::Ok || allowed.contains(&s),
        "{what}: {s:?} (allowed: Ok, {allowed:?})"
    );
}

#[test]
fn every_entry_point_on_curves_only_blobs_of_every_codec() {
    for codec in [CodecChoice::Fixed, CodecChoice::Vbr, CodecChoice::Keys] {
        let blob = curves_only_blob(codec);
        let (p, n) = (blob.as_bytes().as_ptr() as *const c_void, blob.len());
        unsafe {
            assert_eq!(animcomp_validate_blob(p, n), Status::Ok, "{codec:?}");
            let mut info = AnimcompBlobInfo::default();
            assert_eq!(animcomp_blob_info(p, n, &mut info), Status::Ok);
            assert_eq!((info.num_joints, info.num_curves), (0, 4));

            let mut ctx = AnimcompDecompressor { opaque: [0; 16] };
            assert_eq!(
                animcomp_decompressor_init(&mut ctx, p, n, null()),
                Status::Ok
            );
            let mut handle = AnimcompBlob {
                opaque: [0; ANIMCOMP_BLOB_WORDS],
            };
            assert_eq!(animcomp_blob_open(&mut handle, p, n, null()), Status::Ok);
            assert_eq!(animcomp_decompressor_bind(&mut ctx, &handle), Status::Ok);
            let mut dinfo = AnimcompBlobInfo::default();
            assert_eq!(animcomp_decompressor_info(&ctx, &mut dinfo), Status::Ok);
            assert_eq!(dinfo, info);

            assert_eq!(animcomp_seek(&mut ctx, 0.7, 1, 0), Status::Ok);
            assert_eq!(animcomp_seek_sample(&mut ctx, 3), Status::Ok);
            let mut pose = [7.0f32; 10];
            // No joints: an empty pose is written (nothing), whatever the buffer.
            ok_or_documented(
                animcomp_sample_pose(&ctx, pose.as_mut_ptr(), 0, 0),
                &[],
                "sample_pose",
            );
            assert_eq!(pose, [7.0; 10], "nothing written for 0 joints");
            assert_eq!(
                animcomp_sample_joint(&ctx, 0, pose.as_mut_ptr()),
                Status::JointOutOfRange
            );
            let joints = [0u32];
            assert_eq!(
                animcomp_sample_joints(
                    &ctx,
                    joints.as_ptr(),
                    null(),
                    1,
                    ANIMCOMP_CHANNEL_ALL,
                    pose.as_mut_ptr(),
                    10,
                    0
                ),
                Status::JointOutOfRange
            );
            assert_eq!(
                animcomp_sample_joints(
                    &ctx,
                    joints.as_ptr(),
                    null(),
                    0,
                    ANIMCOMP_CHANNEL_ALL,
                    pose.as_mut_ptr(),
                    10,
                    0
                ),
                Status::Ok
            );
            let mut w = [0f32; 4];
            assert_eq!(animcomp_sample_curves(&ctx, w.as_mut_ptr(), 4), Status::Ok);
            assert!(w.iter().all(|v| v.is_finite()));
            assert_eq!(w[0], 0.5);
            let mut one = 0f32;
            assert_eq!(animcomp_sample_curve(&ctx, 2, &mut one), Status::Ok);
            assert_eq!(one, w[2]);
            ok_or_documented(
                animcomp_sample_curve(&ctx, 4, &mut one),
                &[Status::InvalidArgument],
                "sample_curve out of range",
            );
            assert_ne!(animcomp_sample_curve(&ctx, 4, &mut one), Status::Ok);
            let mut id = 0u32;
            assert_eq!(animcomp_curve_id(&ctx, 3, &mut id), Status::Ok);
            assert_eq!(id, 13);

            // The key cursor: a keys blob gives a (small) state that works; other codecs
            // UNSUPPORTED, as documented.
            let mut bytes = 1usize;
            let s = animcomp_key_cursor_state_size(&ctx, &mut bytes);
            let mut state = [0u32; 64];
            let sp = state.as_mut_ptr() as *mut c_void;
            let ss = std::mem::size_of_val(&state);
            let calls = [
                animcomp_key_cursor_init(&ctx, sp, ss),
                animcomp_key_cursor_seek(&ctx, sp, ss, 0.5, 0, 0),
                animcomp_key_cursor_seek_sample(&ctx, sp, ss, 60),
                animcomp_key_cursor_sample_pose(&ctx, sp, ss, pose.as_mut_ptr(), 0, 0),
                animcomp_key_cursor_seek(&ctx, sp, ss, 0.0, 1, 0),
            ];
            if codec == CodecChoice::Keys {
                assert_eq!(s, Status::Ok);
                assert!(bytes <= ss, "{bytes}");
                for (i, c) in calls.iter().enumerate() {
                    assert_eq!(*c, Status::Ok, "keys cursor call {i}");
                }
                assert_eq!(
                    animcomp_key_cursor_sample_joint(&ctx, sp, ss, 0, pose.as_mut_ptr()),
                    Status::JointOutOfRange
                );
            } else {
                assert_eq!((s, bytes), (Status::Unsupported, 0));
                for c in calls {
                    assert_eq!(c, Status::Unsupported);
                }
            }
            // A bind pose given for a blob that needs none is ignored, once it has a length.
            let bind = [0f32; 10];
            let mut opts = AnimcompDecompressOptions {
                verify_checksum: 1,
                reserved0: 0,
                bind_pose: null(),
                bind_pose_len: 0,
                reserved: [0; 1],
            };
            animcomp_decompress_options_default(&mut opts);
            opts.bind_pose = bind.as_ptr();
            assert_eq!(
                animcomp_blob_open(&mut handle, p, n, &opts),
                Status::InvalidArgument
            );
            opts.bind_pose_len = 10;
            assert_eq!(animcomp_blob_open(&mut handle, p, n, &opts), Status::Ok);
        }
    }
    // Misuse that stays documented: null outputs.
    unsafe {
        assert_eq!(
            animcomp_key_cursor_state_size(null(), null_mut()),
            Status::NullPointer
        );
    }
}
