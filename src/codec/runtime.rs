//! What every codec's decoder receives: where to sample, what defaults are, where to write.

use crate::math::{Transform, FLOATS_PER_JOINT};

/// A resolved sample position: interpolate `alpha` of the way from sample `i0` to sample `i1`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SampleKey {
    /// First sample index (always < sample count).
    pub i0: u32,
    /// Second sample index (always < sample count; equal to `i0` or `i0 + 1`, or 0 when wrapping).
    pub i1: u32,
    /// Interpolation weight in [0, 1].
    pub alpha: f32,
}

/// The values of default (unstored) sub-tracks.
#[derive(Debug, Clone, Copy, Default)]
pub struct Defaults<'a> {
    /// Bind pose, 10 floats per joint with stride 10, when the blob's defaults are the bind pose.
    pub bind_pose: Option<&'a [f32]>,
    /// The blob is an `additive1` clip: unstored scales are 0 (its identity), not 1.
    pub zero_scale: bool,
}

impl<'a> Defaults<'a> {
    /// The defaults of a blob: its bind pose (when its defaults are the bind pose) and its
    /// additive format's identity scale.
    pub fn for_header(h: &crate::blob::Header, bind_pose: Option<&'a [f32]>) -> Self {
        Defaults {
            bind_pose,
            zero_scale: h.additive == crate::blob::AdditiveFormat::Additive1 as u8,
        }
    }

    /// The default transform of joint `j`.
    #[inline]
    pub fn get(&self, j: usize) -> Transform {
        match self.bind_pose {
            Some(b) => Transform::read_from(&b[j * FLOATS_PER_JOINT..(j + 1) * FLOATS_PER_JOINT]),
            None if self.zero_scale => Transform {
                scale: crate::math::Vec3::ZERO,
                ..Transform::IDENTITY
            },
            None => Transform::IDENTITY,
        }
    }
}

/// A caller's pose buffer: 10 floats per joint at `stride` floats apart.
pub struct PoseOut<'a> {
    /// The buffer (at least `(joints - 1) * stride + 10` floats).
    pub data: &'a mut [f32],
    /// Floats from one joint to the next (>= 10).
    pub stride: usize,
}

impl PoseOut<'_> {
    /// Writes joint `j`.
    #[inline]
    pub fn write(&mut self, j: usize, t: &Transform) {
        let o = j * self.stride;
        t.write_to(&mut self.data[o..o + FLOATS_PER_JOINT]);
    }

    /// Floats a buffer needs for `joints` joints at `stride`.
    pub fn required_len(joints: usize, stride: usize) -> usize {
        if joints == 0 {
            0
        } else {
            (joints - 1) * stride + FLOATS_PER_JOINT
        }
    }
}
