//! Issue 24, item 4: `animcomp_compress_additive` checks its base (a base pose or a base clip)
//! by the same rules and with the same statuses as a clip: the input limit on translations and
//! scales, `NON_UNIT_QUATERNION` for zero or non-unit rotations, `NON_FINITE_VALUE` for NaN and
//! infinities, and a base clip's parents. Each bad value is given once as the clip itself (to
//! learn the clip's status) and once as the base; the two statuses must be equal.

use std::ptr::{null, null_mut};

use super::ffi_api::CClip;
use animcomp::ffi::additive::ANIMCOMP_ADDITIVE_RELATIVE;
use animcomp::ffi::*;
use animcomp::Status;

fn compress_clip(clip: &CClip) -> Status {
    let mut size = 0;
    unsafe { animcomp_compress(&clip.c(), null(), null_mut(), 0, &mut size) }
}

fn additive(clip: &CClip, base_clip: Option<&CClip>, base_pose: Option<&[f32]>) -> Status {
    let mut size = 0;
    let bc = base_clip.map(CClip::c);
    unsafe {
        animcomp_compress_additive(
            &clip.c(),
            ANIMCOMP_ADDITIVE_RELATIVE,
            bc.as_ref().map_or(null(), |c| c as *const _),
            base_pose.map_or(null(), |p| p.as_ptr()),
            base_pose.map_or(0, |p| p.len()),
            null(),
            null_mut(),
            0,
            &mut size,
        )
    }
}

/// (name, float offset within a joint's 10, values to write there).
fn bad_values() -> Vec<(&'static str, usize, Vec<f32>)> {
    vec![
        ("translation 1e20", 4, vec![1e20]),
        ("translation 1e30", 5, vec![-1e30]),
        ("translation 2e7", 6, vec![2e7]),
        ("translation NaN", 4, vec![f32::NAN]),
        ("scale 1e20", 7, vec![1e20]),
        ("scale inf", 9, vec![f32::INFINITY]),
        ("zero rotation", 0, vec![0.0, 0.0, 0.0, 0.0]),
        ("rotation length 2", 0, vec![0.0, 0.0, 0.0, 2.0]),
        ("rotation NaN", 1, vec![f32::NAN]),
    ]
}

#[test]
fn base_values_get_the_statuses_of_clip_values() {
    let (joints, samples) = (6, 12);
    let good = CClip::generated(joints, samples);
    assert_eq!(additive(&good, Some(&good), None), Status::BufferTooSmall);
    for (name, at, vals) in bad_values() {
        // Joint 3 at sample 5 (clip) or in the pose.
        let mut bad = CClip::generated(joints, samples);
        let o = (5 * joints + 3) * 10 + at;
        bad.data[o..o + vals.len()].copy_from_slice(&vals);
        let as_clip = compress_clip(&bad);
        assert!(
            !matches!(as_clip, Status::Ok | Status::BufferTooSmall),
            "{name}: the clip itself is refused ({as_clip:?})"
        );
        assert_eq!(
            additive(&good, Some(&bad), None),
            as_clip,
            "{name} in a base clip"
        );
        let mut pose = good.data[..joints * 10].to_vec();
        pose[3 * 10 + at..3 * 10 + at + vals.len()].copy_from_slice(&vals);
        assert_eq!(
            additive(&good, None, Some(&pose)),
            as_clip,
            "{name} in a base pose"
        );
    }
}

#[test]
fn base_clip_parents_are_validated() {
    let good = CClip::generated(5, 8);
    for parents in [[-1, 0, 3, 1, 2], [-1, 0, 1, 2, 9], [-1, -5, 0, 1, 2]] {
        let mut bad = CClip::generated(5, 8);
        bad.parents = parents.to_vec();
        let as_clip = compress_clip(&bad);
        assert_eq!(as_clip, Status::InvalidParent, "{parents:?}");
        assert_eq!(additive(&good, Some(&bad), None), as_clip, "{parents:?}");
    }
}

#[test]
fn base_translation_at_the_limit_is_accepted() {
    let good = CClip::generated(4, 8);
    let mut pose = good.data[..40].to_vec();
    pose[4] = 1e7;
    assert_eq!(additive(&good, None, Some(&pose)), Status::BufferTooSmall);
    pose[4] = 1.01e7;
    assert_eq!(additive(&good, None, Some(&pose)), Status::NonFiniteValue);
}
