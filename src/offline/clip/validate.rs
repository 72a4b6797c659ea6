//! Validation of a [`RawClip`]: every bad input gets its own [`Error`].

use super::QUAT_LENGTH_TOLERANCE;
use super::{RawClip, MAX_ABS_VALUE, MAX_JOINTS, MAX_SAMPLES, MAX_SAMPLE_RATE, MIN_SAMPLE_RATE};
use crate::math::{quat_length, Vec3};
use crate::{Error, Result};

fn vec_ok(v: Vec3) -> bool {
    v.is_finite() && v.abs().max_element() <= MAX_ABS_VALUE
}

/// Quaternions whose length is within this of 1 are used as they are by [`check`]'s callers that
/// avoid copying the clip (the resulting error is far below any codec's precision).
pub(crate) const UNIT_TOLERANCE: f32 = 1.0e-6;

/// Checks counts, hierarchy, error settings and values; normalises quaternions within
/// [`QUAT_LENGTH_TOLERANCE`] of unit length and flips none of them.
pub(crate) fn validate(clip: &mut RawClip) -> Result<()> {
    check(clip)?;
    if let Some(bind) = &mut clip.skeleton.bind_pose {
        for b in bind {
            b.rotation /= quat_length(b.rotation);
        }
    }
    for t in &mut clip.tracks {
        for q in &mut t.rotations {
            *q /= quat_length(*q);
        }
    }
    Ok(())
}

/// Everything [`validate`] checks, without modifying the clip. Returns whether any quaternion's
/// length differs from 1 by more than [`UNIT_TOLERANCE`] (so normalising would matter).
pub(crate) fn check(clip: &RawClip) -> Result<bool> {
    check_with(clip, false)
}

/// [`check`], accepting a clip without joints when `allow_no_joints` (a clip carrying only
/// scalar curves).
pub(crate) fn check_with(clip: &RawClip, allow_no_joints: bool) -> Result<bool> {
    let mut needs_normalising = false;
    let nj = clip.skeleton.joints.len();
    if nj == 0 && !allow_no_joints {
        return Err(Error::NoJoints);
    }
    if nj > MAX_JOINTS {
        return Err(Error::TooManyJoints(nj));
    }
    if clip.num_samples == 0 {
        return Err(Error::NoSamples);
    }
    if clip.num_samples > MAX_SAMPLES {
        return Err(Error::TooManySamples(clip.num_samples));
    }
    let r = clip.sample_rate;
    if !r.is_finite() || !(MIN_SAMPLE_RATE..=MAX_SAMPLE_RATE).contains(&r) {
        return Err(Error::InvalidSampleRate(r));
    }
    if clip.tracks.len() != nj {
        return Err(Error::InconsistentClip("one track per joint is required"));
    }
    for (j, joint) in clip.skeleton.joints.iter().enumerate() {
        if let Some(p) = joint.parent {
            if p as usize >= j {
                return Err(Error::InvalidParent {
                    joint: j,
                    parent: p as i64,
                });
            }
        }
        if !(joint.precision.is_finite() && joint.precision > 0.0) {
            return Err(Error::InvalidPrecision(j));
        }
        if !(joint.shell_distance.is_finite() && joint.shell_distance > 0.0) {
            return Err(Error::InvalidShellDistance(j));
        }
    }
    if let Some(bind) = &clip.skeleton.bind_pose {
        if bind.len() != nj {
            return Err(Error::InconsistentClip(
                "bind pose needs one transform per joint",
            ));
        }
        for (j, b) in bind.iter().enumerate() {
            if !vec_ok(b.translation) {
                return Err(Error::NonFiniteValue {
                    joint: j,
                    sample: 0,
                    channel: "bind translation",
                });
            }
            if !vec_ok(b.scale) {
                return Err(Error::NonFiniteValue {
                    joint: j,
                    sample: 0,
                    channel: "bind scale",
                });
            }
            let len = quat_length(b.rotation);
            if !len.is_finite() {
                return Err(Error::NonFiniteValue {
                    joint: j,
                    sample: 0,
                    channel: "bind rotation",
                });
            }
            if (len - 1.0).abs() > QUAT_LENGTH_TOLERANCE {
                return Err(Error::NonUnitQuaternion {
                    joint: j,
                    sample: 0,
                    length: len,
                });
            }
            needs_normalising |= (len - 1.0).abs() > UNIT_TOLERANCE;
        }
    }
    let n = clip.num_samples;
    for (j, t) in clip.tracks.iter().enumerate() {
        if t.rotations.len() != n || t.translations.len() != n || t.scales.len() != n {
            return Err(Error::InconsistentClip(
                "every track needs num_samples values per channel",
            ));
        }
        for (i, q) in t.rotations.iter().enumerate() {
            let len = quat_length(*q);
            if !len.is_finite() || !q.is_finite() {
                return Err(Error::NonFiniteValue {
                    joint: j,
                    sample: i,
                    channel: "rotation",
                });
            }
            if (len - 1.0).abs() > QUAT_LENGTH_TOLERANCE {
                return Err(Error::NonUnitQuaternion {
                    joint: j,
                    sample: i,
                    length: len,
                });
            }
            needs_normalising |= (len - 1.0).abs() > UNIT_TOLERANCE;
        }
        for (i, v) in t.translations.iter().enumerate() {
            if !vec_ok(*v) {
                return Err(Error::NonFiniteValue {
                    joint: j,
                    sample: i,
                    channel: "translation",
                });
            }
        }
        for (i, v) in t.scales.iter().enumerate() {
            if !vec_ok(*v) {
                return Err(Error::NonFiniteValue {
                    joint: j,
                    sample: i,
                    channel: "scale",
                });
            }
        }
    }
    Ok(needs_normalising)
}

#[cfg(test)]
mod tests {
    use crate::math::{Quat, Vec3};
    use crate::offline::clip::{generate_clip, GenerateOptions, Joint};
    use crate::Error;

    fn clip() -> crate::RawClip {
        generate_clip(&GenerateOptions {
            joints: 5,
            samples: 10,
            ..Default::default()
        })
    }

    #[test]
    fn valid_clip_passes() {
        clip().validate().unwrap();
    }

    #[test]
    fn every_error_is_reachable() {
        let mut c = clip();
        c.skeleton.joints.clear();
        c.tracks.clear();
        assert_eq!(c.validate(), Err(Error::NoJoints));

        let mut c = clip();
        c.num_samples = 0;
        assert_eq!(c.validate(), Err(Error::NoSamples));

        let mut c = clip();
        c.num_samples = super::MAX_SAMPLES + 1;
        assert!(matches!(c.validate(), Err(Error::TooManySamples(_))));

        let mut c = clip();
        let extra = super::MAX_JOINTS + 1 - c.skeleton.joints.len();
        for _ in 0..extra {
            c.skeleton.joints.push(Joint::new("x", Some(0)));
        }
        assert!(matches!(c.validate(), Err(Error::TooManyJoints(_))));

        for rate in [0.0, -1.0, f32::NAN, f32::INFINITY, 1e-5, 1e6] {
            let mut c = clip();
            c.sample_rate = rate;
            assert!(
                matches!(c.validate(), Err(Error::InvalidSampleRate(_))),
                "{rate}"
            );
        }

        let mut c = clip();
        c.tracks.pop();
        assert!(matches!(c.validate(), Err(Error::InconsistentClip(_))));

        let mut c = clip();
        c.tracks[2].scales.pop();
        assert!(matches!(c.validate(), Err(Error::InconsistentClip(_))));

        let mut c = clip();
        c.skeleton.joints[2].parent = Some(2);
        assert_eq!(
            c.validate(),
            Err(Error::InvalidParent {
                joint: 2,
                parent: 2
            })
        );
        let mut c = clip();
        c.skeleton.joints[1].parent = Some(4);
        assert!(matches!(
            c.validate(),
            Err(Error::InvalidParent { joint: 1, .. })
        ));

        for bad in [0.0, -0.1, f32::NAN] {
            let mut c = clip();
            c.skeleton.joints[3].precision = bad;
            assert_eq!(c.validate(), Err(Error::InvalidPrecision(3)));
            let mut c = clip();
            c.skeleton.joints[3].shell_distance = bad;
            assert_eq!(c.validate(), Err(Error::InvalidShellDistance(3)));
        }

        let mut c = clip();
        c.tracks[1].rotations[4] = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
        assert!(matches!(
            c.validate(),
            Err(Error::NonUnitQuaternion {
                joint: 1,
                sample: 4,
                ..
            })
        ));
        let mut c = clip();
        c.tracks[1].rotations[4] = Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
        assert!(matches!(
            c.validate(),
            Err(Error::NonFiniteValue {
                channel: "rotation",
                ..
            })
        ));
        let mut c = clip();
        c.tracks[0].translations[9] = Vec3::new(1e25, 0.0, 0.0);
        assert!(matches!(
            c.validate(),
            Err(Error::NonFiniteValue {
                channel: "translation",
                ..
            })
        ));
        let mut c = clip();
        c.tracks[0].scales[9] = Vec3::splat(f32::INFINITY);
        assert!(matches!(
            c.validate(),
            Err(Error::NonFiniteValue {
                channel: "scale",
                ..
            })
        ));

        let mut c = clip();
        c.skeleton.bind_pose = Some(vec![Default::default(); 2]);
        assert!(matches!(c.validate(), Err(Error::InconsistentClip(_))));
    }

    #[test]
    fn near_unit_quaternions_are_normalised() {
        let mut c = clip();
        c.tracks[1].rotations[3] = Quat::from_xyzw(0.0, 0.0, 0.0, 1.03);
        c.validate().unwrap();
        assert!((c.tracks[1].rotations[3].length() - 1.0).abs() < 1e-6);
    }
}
