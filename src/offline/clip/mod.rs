//! The raw input: a skeleton and uniformly sampled local-space tracks.
//!
//! A [`RawClip`] is what every importer produces and every codec consumes. Build one, call
//! [`RawClip::validate`] (which also normalises near-unit quaternions), then hand it to
//! [`crate::compress()`].

mod generate;
mod resample;
mod validate;

pub use generate::{generate_clip, GenerateOptions};

use crate::math::{Quat, Transform, Vec3};

pub use crate::format::limits::{
    MAX_ABS_VALUE, MAX_JOINTS, MAX_SAMPLES, MAX_SAMPLE_RATE, MIN_SAMPLE_RATE,
};
/// Quaternions whose length differs from 1 by at most this are normalised; others are rejected.
pub const QUAT_LENGTH_TOLERANCE: f32 = 0.05;
/// ACL's default precision (clip units).
pub const DEFAULT_PRECISION: f32 = 0.01;
/// ACL's default shell distance (clip units).
pub const DEFAULT_SHELL_DISTANCE: f32 = 3.0;

/// One joint of a skeleton.
#[derive(Debug, Clone, PartialEq)]
pub struct Joint {
    /// Name (informational; may be empty).
    pub name: String,
    /// Parent joint index, `None` for a root. Parents come before their children.
    pub parent: Option<u32>,
    /// Largest acceptable error of this joint's virtual vertices, in clip units.
    pub precision: f32,
    /// Distance of the virtual vertices from the joint, in clip units.
    pub shell_distance: f32,
}

impl Joint {
    /// A joint with the default precision and shell distance.
    pub fn new(name: impl Into<String>, parent: Option<u32>) -> Self {
        Joint {
            name: name.into(),
            parent,
            precision: DEFAULT_PRECISION,
            shell_distance: DEFAULT_SHELL_DISTANCE,
        }
    }
}

/// A joint hierarchy with per-joint error settings and an optional bind pose.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Skeleton {
    /// Joints, parents before children.
    pub joints: Vec<Joint>,
    /// Optional bind (rest) pose, one local transform per joint.
    pub bind_pose: Option<Vec<Transform>>,
}

impl Skeleton {
    /// Number of joints.
    pub fn len(&self) -> usize {
        self.joints.len()
    }

    /// True when there are no joints.
    pub fn is_empty(&self) -> bool {
        self.joints.is_empty()
    }

    /// Parent of joint `j`.
    pub fn parent(&self, j: usize) -> Option<usize> {
        self.joints[j].parent.map(|p| p as usize)
    }

    /// Children lists, one per joint.
    pub fn children(&self) -> Vec<Vec<usize>> {
        let mut c = vec![Vec::new(); self.joints.len()];
        for (j, joint) in self.joints.iter().enumerate() {
            if let Some(p) = joint.parent {
                c[p as usize].push(j);
            }
        }
        c
    }

    /// Sets every joint's precision and shell distance.
    pub fn set_error_settings(&mut self, precision: f32, shell_distance: f32) {
        for j in &mut self.joints {
            j.precision = precision;
            j.shell_distance = shell_distance;
        }
    }
}

/// The samples of one joint: rotation, translation and scale, one value per sample each.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Track {
    /// Local rotations (unit quaternions).
    pub rotations: Vec<Quat>,
    /// Local translations.
    pub translations: Vec<Vec3>,
    /// Local scales.
    pub scales: Vec<Vec3>,
}

impl Track {
    /// A track holding `n` copies of `t`.
    pub fn constant(t: &Transform, n: usize) -> Self {
        Track {
            rotations: vec![t.rotation; n],
            translations: vec![t.translation; n],
            scales: vec![t.scale; n],
        }
    }

    /// The transform at sample `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Transform {
        Transform {
            rotation: self.rotations[i],
            translation: self.translations[i],
            scale: self.scales[i],
        }
    }
}

/// A uniformly sampled clip: skeleton plus one [`Track`] per joint.
#[derive(Debug, Clone, PartialEq)]
pub struct RawClip {
    /// Name (informational).
    pub name: String,
    /// The hierarchy and error settings.
    pub skeleton: Skeleton,
    /// Samples per second.
    pub sample_rate: f32,
    /// Samples per track.
    pub num_samples: usize,
    /// One track per joint.
    pub tracks: Vec<Track>,
}

impl RawClip {
    /// Number of joints.
    pub fn num_joints(&self) -> usize {
        self.skeleton.joints.len()
    }

    /// The bind pose as a decompressor takes it (10 floats per joint), if the skeleton has one.
    pub fn bind_pose_floats(&self) -> Option<Vec<f32>> {
        let bind = self.skeleton.bind_pose.as_ref()?;
        let mut v = vec![0.0f32; bind.len() * crate::math::FLOATS_PER_JOINT];
        for (t, o) in bind
            .iter()
            .zip(v.chunks_exact_mut(crate::math::FLOATS_PER_JOINT))
        {
            t.write_to(o);
        }
        Some(v)
    }

    /// Duration in seconds: `(num_samples - 1) / sample_rate` (0 for a one-sample clip).
    pub fn duration(&self) -> f32 {
        (self.num_samples.saturating_sub(1)) as f32 / self.sample_rate
    }

    /// ACL's raw size: 10 floats x 4 bytes x joints x samples.
    pub fn raw_size_bytes(&self) -> usize {
        10 * 4 * self.num_joints() * self.num_samples
    }

    /// Local pose at sample `i` written into `out` (one transform per joint).
    pub fn local_pose(&self, i: usize, out: &mut [Transform]) {
        for (o, t) in out.iter_mut().zip(&self.tracks) {
            *o = t.get(i);
        }
    }

    /// True when any scale differs from 1 by more than `tolerance`.
    pub fn has_scale(&self, tolerance: f32) -> bool {
        self.tracks.iter().any(|t| {
            t.scales
                .iter()
                .any(|s| (*s - Vec3::ONE).abs().max_element() > tolerance)
        })
    }

    /// Checks the clip and normalises near-unit quaternions in place. See [`validate`].
    pub fn validate(&mut self) -> crate::Result<()> {
        validate::validate(self)
    }

    /// Checks the clip like [`validate`](Self::validate) without modifying it; `Ok(true)` when a
    /// quaternion is far enough from unit length that normalising would change it.
    pub fn check(&self) -> crate::Result<bool> {
        validate::check(self)
    }

    /// [`check`](Self::check), accepting zero joints when the clip carries curves.
    pub(crate) fn check_with_curves(&self, has_curves: bool) -> crate::Result<bool> {
        validate::check_with(self, has_curves)
    }

    /// Resamples to `rate` Hz (linear, nlerp for rotations), keeping the duration.
    pub fn resample(&self, rate: f32) -> crate::Result<RawClip> {
        resample::resample(self, rate)
    }

    /// Scales every translation (e.g. to convert metres to centimetres).
    pub fn scale_translations(&mut self, factor: f32) {
        for t in &mut self.tracks {
            for v in &mut t.translations {
                *v *= factor;
            }
        }
        if let Some(bind) = &mut self.skeleton.bind_pose {
            for b in bind {
                b.translation *= factor;
            }
        }
    }
}
