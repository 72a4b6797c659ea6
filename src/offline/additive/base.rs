//! The base an additive clip is applied to: another clip or one pose, expanded once into one base
//! pose per additive sample.

use super::to_additive;
use crate::format::AdditiveFormat;
use crate::math::{nlerp_shortest, Transform};
use crate::offline::clip::{RawClip, Track};
use crate::runtime::additive::apply;
use crate::{Error, Result};

/// What an additive clip is applied to.
#[derive(Debug, Clone, Copy)]
pub enum AdditiveBase<'a> {
    /// A clip with the same skeleton. When its sample count differs from the additive clip's,
    /// it is stretched over the additive clip's duration (ACL's mapping: additive sample `i` of
    /// `n` reads the base at normalised time `i / (n - 1)`) and interpolated linearly (nlerp for
    /// rotations) between its samples.
    Clip(&'a RawClip),
    /// One local pose (one transform per joint), used at every sample.
    Pose(&'a [Transform]),
}

/// The base expanded for one additive clip: one pose per sample, or one pose for all.
#[derive(Debug, Clone, PartialEq)]
pub struct BasePoses {
    poses: Vec<Transform>,
    num_joints: usize,
    per_sample: bool,
}

/// Checks one base transform by the rules of clip input (`offline::clip::validate`): a
/// rotation that is not finite gives [`Error::NonFiniteValue`], one too far from unit length
/// [`Error::NonUnitQuaternion`]; translations and scales must be finite and within the input
/// limit [`crate::format::limits::MAX_ABS_VALUE`] ([`Error::NonFiniteValue`]). Returns the
/// transform with its rotation normalised.
fn check_transform(t: &Transform, joint: usize, sample: usize) -> Result<Transform> {
    let bad = |channel| Error::NonFiniteValue {
        joint,
        sample,
        channel,
    };
    let len = crate::math::quat_length(t.rotation);
    if !len.is_finite() || !t.rotation.is_finite() {
        return Err(bad("base rotation"));
    }
    if (len - 1.0).abs() > crate::offline::clip::QUAT_LENGTH_TOLERANCE {
        return Err(Error::NonUnitQuaternion {
            joint,
            sample,
            length: len,
        });
    }
    let within = |v: crate::math::Vec3| {
        v.is_finite() && v.abs().max_element() <= crate::format::limits::MAX_ABS_VALUE
    };
    if !within(t.translation) {
        return Err(bad("base translation"));
    }
    if !within(t.scale) {
        return Err(bad("base scale"));
    }
    Ok(Transform {
        rotation: crate::math::quat_normalize(t.rotation),
        ..*t
    })
}

impl BasePoses {
    /// Expands `base` for an additive clip of `num_joints` joints and `num_samples` samples.
    /// Checks the joint counts, and the base as clip input is checked (a base clip in full, with
    /// its parents, by [`RawClip::check`]; every base value within the input limit, rotations of
    /// unit length, with a clip's statuses; rotations normalised).
    pub fn new(base: &AdditiveBase, num_joints: usize, num_samples: usize) -> Result<Self> {
        match base {
            AdditiveBase::Pose(p) => {
                if p.len() != num_joints {
                    return Err(Error::InvalidArgument(
                        "base pose must hold one transform per joint of the additive clip",
                    ));
                }
                let poses = p
                    .iter()
                    .enumerate()
                    .map(|(j, t)| check_transform(t, j, 0))
                    .collect::<Result<_>>()?;
                Ok(BasePoses {
                    poses,
                    num_joints,
                    per_sample: false,
                })
            }
            AdditiveBase::Clip(c) => {
                if c.num_joints() != num_joints {
                    return Err(Error::InvalidArgument(
                        "base clip must have the additive clip's joint count",
                    ));
                }
                if c.num_samples == 0 || c.tracks.iter().any(|t| !track_len_ok(t, c.num_samples)) {
                    return Err(Error::InvalidArgument(
                        "base clip tracks must hold num_samples values each",
                    ));
                }
                // The same rules and statuses as a clip: counts, sample rate, parents, error
                // settings, every value (input limit, unit rotations).
                c.check()?;
                let mut poses = Vec::with_capacity(num_samples * num_joints);
                for i in 0..num_samples {
                    let pos = if num_samples > 1 {
                        i as f64 / (num_samples - 1) as f64 * (c.num_samples - 1) as f64
                    } else {
                        0.0
                    };
                    let i0 = pos.floor() as usize;
                    let i1 = (i0 + 1).min(c.num_samples - 1);
                    let a = (pos - i0 as f64) as f32;
                    for (j, t) in c.tracks.iter().enumerate() {
                        let v = if a == 0.0 {
                            t.get(i0)
                        } else {
                            Transform {
                                rotation: nlerp_shortest(t.rotations[i0], t.rotations[i1], a),
                                translation: t.translations[i0].lerp(t.translations[i1], a),
                                scale: t.scales[i0].lerp(t.scales[i1], a),
                            }
                        };
                        poses.push(check_transform(&v, j, i)?);
                    }
                }
                Ok(BasePoses {
                    poses,
                    num_joints,
                    per_sample: true,
                })
            }
        }
    }

    /// The base transform of `joint` at additive sample `sample`.
    #[inline]
    pub fn get(&self, sample: usize, joint: usize) -> &Transform {
        let s = if self.per_sample { sample } else { 0 };
        &self.poses[s * self.num_joints + joint]
    }

    /// The base pose at additive sample `sample` (one transform per joint).
    pub fn pose(&self, sample: usize) -> &[Transform] {
        let s = if self.per_sample { sample } else { 0 };
        &self.poses[s * self.num_joints..(s + 1) * self.num_joints]
    }

    /// `additive` with the base applied at every sample: the clip a player sees.
    pub fn apply_to_clip(&self, format: AdditiveFormat, additive: &RawClip) -> RawClip {
        self.map_clip(additive, |i, j, t| apply(format, self.get(i, j), t))
    }

    /// The additive clip (in `format`) that gives `clip` when applied to this base.
    pub fn additive_of(&self, format: AdditiveFormat, clip: &RawClip) -> RawClip {
        self.map_clip(clip, |i, j, t| to_additive(format, self.get(i, j), t))
    }

    fn map_clip(
        &self,
        clip: &RawClip,
        f: impl Fn(usize, usize, &Transform) -> Transform,
    ) -> RawClip {
        let tracks = clip
            .tracks
            .iter()
            .enumerate()
            .map(|(j, t)| {
                let mut out = Track {
                    rotations: Vec::with_capacity(clip.num_samples),
                    translations: Vec::with_capacity(clip.num_samples),
                    scales: Vec::with_capacity(clip.num_samples),
                };
                for i in 0..clip.num_samples {
                    let v = f(i, j, &t.get(i));
                    out.rotations.push(v.rotation);
                    out.translations.push(v.translation);
                    out.scales.push(v.scale);
                }
                out
            })
            .collect();
        RawClip {
            name: clip.name.clone(),
            skeleton: clip.skeleton.clone(),
            sample_rate: clip.sample_rate,
            num_samples: clip.num_samples,
            tracks,
        }
    }
}

fn track_len_ok(t: &Track, n: usize) -> bool {
    t.rotations.len() == n && t.translations.len() == n && t.scales.len() == n
}

/// Turns `clip` into an additive clip in `format` relative to `base` (the inverse of applying
/// it: `apply(format, base, result) = clip` up to float rounding). The skeleton, rate and
/// sample count are kept; the bind pose is dropped (additive clips default to the identity).
pub fn make_additive_clip(
    clip: &RawClip,
    base: &AdditiveBase,
    format: AdditiveFormat,
) -> Result<RawClip> {
    let poses = BasePoses::new(base, clip.num_joints(), clip.num_samples)?;
    let mut out = poses.additive_of(format, clip);
    out.skeleton.bind_pose = None;
    Ok(out)
}
