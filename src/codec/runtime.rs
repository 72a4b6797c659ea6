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
}

impl Defaults<'_> {
    /// The default transform of joint `j`.
    #[inline]
    pub fn get(&self, j: usize) -> Transform {
        match self.bind_pose {
            Some(b) => Transform::read_from(&b[j * FLOATS_PER_JOINT..(j + 1) * FLOATS_PER_JOINT]),
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

    /// Writes the channels of `channels` (a `decompress::CHANNEL_*` mask) of `t` at slot `j`.
    #[inline]
    pub fn write_channels(&mut self, j: usize, t: &Transform, channels: u32) {
        if channels == crate::decompress::CHANNELS_ALL {
            return self.write(j, t);
        }
        let o = j * self.stride;
        let d = &mut self.data[o..o + FLOATS_PER_JOINT];
        if channels & crate::decompress::CHANNEL_ROTATION != 0 {
            d[0..4].copy_from_slice(&t.rotation.to_array());
        }
        if channels & crate::decompress::CHANNEL_TRANSLATION != 0 {
            d[4..7].copy_from_slice(&t.translation.to_array());
        }
        if channels & crate::decompress::CHANNEL_SCALE != 0 {
            d[7..10].copy_from_slice(&t.scale.to_array());
        }
    }

    /// Floats a buffer needs for `joints` joints at `stride` (`None` when that overflows).
    pub fn required_len(joints: usize, stride: usize) -> Option<usize> {
        if joints == 0 {
            Some(0)
        } else {
            (joints - 1)
                .checked_mul(stride)?
                .checked_add(FLOATS_PER_JOINT)
        }
    }
}

/// Which joints [`crate::decompress::Decompressor::sample_joints`] writes, where, and which
/// channels (all checked by the caller: joints in range, slots within the buffer, mask valid).
pub struct JointSelection<'a> {
    /// Joint indices.
    pub joints: &'a [u32],
    /// Output slot of each joint (`None`: joint `i` of the list goes to slot `i`).
    pub slots: Option<&'a [u32]>,
    /// `decompress::CHANNEL_*` mask.
    pub channels: u32,
}

impl JointSelection<'_> {
    /// The output slot of list entry `i`.
    #[inline(always)]
    pub fn slot(&self, i: usize) -> usize {
        self.slots.map_or(i, |s| s[i] as usize)
    }
}
