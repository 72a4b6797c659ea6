//! What every codec's decoder receives: where to sample, what defaults are, where to write.

use crate::math::{Transform, FLOATS_PER_JOINT};
use crate::{Error, Result};

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

/// Where a codec's first dependent reads lie in a validated body, found when the blob is opened:
/// with it a pose starts loading that data at once instead of after the body header (a cache
/// miss less in a cold pose's chain). A hint only: `vbr` prefetches its segment table entries
/// (`first`: the table's offset, `stride`: samples per segment) and, on a grouped body, the
/// body before the table and the lines of its segment when `segments` places it; other codecs
/// ignore it. 28 bytes: it lives in every decompressor.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BodyHint {
    /// Byte offset in the body.
    pub first: u32,
    /// A codec's unit of indexing at `first`.
    pub stride: u8,
    /// The first segments' lines.
    pub segments: super::SegmentLines,
}

// The hint lives in every decompressor, which fits in the C context's 128 bytes.
const _: () = assert!(std::mem::size_of::<BodyHint>() == 28);

/// The values of default (unstored) sub-tracks.
#[derive(Debug, Clone, Copy, Default)]
pub struct Defaults<'a> {
    /// Bind pose, 10 floats per joint with stride 10, when the blob's defaults are the bind pose.
    pub bind_pose: Option<&'a [f32]>,
    /// The blob is an `additive1` clip: unstored scales are 0 (its identity), not 1.
    pub zero_scale: bool,
    /// The tiers attached to a resident blob when the call started (none by default).
    pub tiers: Option<&'a crate::runtime::tiers::Attached<'a>>,
}

impl<'a> Defaults<'a> {
    /// The defaults of a blob: its bind pose (when its defaults are the bind pose) and its
    /// additive format's identity scale.
    #[inline(always)]
    pub fn for_header(h: &crate::format::Header, bind_pose: Option<&'a [f32]>) -> Self {
        Defaults {
            bind_pose,
            zero_scale: h.additive == crate::format::AdditiveFormat::Additive1 as u8,
            tiers: None,
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

    /// Writes the channels of `channels` (a `decompress::CHANNEL_*` mask) of `t` at slot `j`.
    #[inline]
    pub fn write_channels(&mut self, j: usize, t: &Transform, channels: u32) {
        if channels == crate::runtime::CHANNELS_ALL {
            return self.write(j, t);
        }
        let o = j * self.stride;
        let d = &mut self.data[o..o + FLOATS_PER_JOINT];
        if channels & crate::runtime::CHANNEL_ROTATION != 0 {
            d[0..4].copy_from_slice(&t.rotation.to_array());
        }
        if channels & crate::runtime::CHANNEL_TRANSLATION != 0 {
            d[4..7].copy_from_slice(&t.translation.to_array());
        }
        if channels & crate::runtime::CHANNEL_SCALE != 0 {
            d[7..10].copy_from_slice(&t.scale.to_array());
        }
    }

    /// Floats a buffer needs for `joints` joints at `stride`, saturating at `usize::MAX` (a caller
    /// that may see huge strides checks with [`PoseOut::check_len`] first).
    #[inline]
    pub fn required_len(joints: usize, stride: usize) -> usize {
        Self::checked_len(joints, stride).unwrap_or(usize::MAX)
    }

    /// Floats a buffer needs for `joints` joints at `stride`, or `None` when it overflows.
    #[inline]
    fn checked_len(joints: usize, stride: usize) -> Option<usize> {
        match joints {
            0 => Some(0),
            _ => (joints - 1)
                .checked_mul(stride)
                .and_then(|n| n.checked_add(FLOATS_PER_JOINT)),
        }
    }

    /// Checks a caller's buffer of `len` floats for `joints` joints at `stride` floats: a stride
    /// below 10, or a required length whose byte count overflows the address space, is
    /// [`Error::InvalidArgument`]; a buffer shorter than required is [`Error::BufferTooSmall`]
    /// (with the bytes required).
    #[inline]
    pub fn check_len(len: usize, joints: usize, stride: usize) -> Result<()> {
        if stride < FLOATS_PER_JOINT {
            return Err(Error::InvalidArgument("stride must be at least 10 floats"));
        }
        let need = Self::checked_len(joints, stride)
            .filter(|n| *n <= isize::MAX as usize / std::mem::size_of::<f32>())
            .ok_or(Error::InvalidArgument(
                "(joints - 1) x stride + 10 floats overflows the address space",
            ))?;
        if len < need {
            return Err(Error::BufferTooSmall {
                required: need * std::mem::size_of::<f32>(),
            });
        }
        Ok(())
    }
}

/// Where a decoder writes each channel's row: channel `c` (rotation 4 floats, translation and
/// scale 3) of joint `j` at `base[c] + j * stride[c]` floats. The ten-float pose is
/// [`PoseRows::ten`]; the f32 layouts of `runtime::layout` are others. Made only for buffers
/// checked to hold every joint's rows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PoseRows {
    /// Each channel's row of joint 0.
    pub base: [*mut f32; 3],
    /// Floats from one joint's row to the next, per channel.
    pub stride: [usize; 3],
}

impl PoseRows {
    /// Ten floats per joint at `stride` floats from `out`.
    #[inline(always)]
    pub fn ten(out: *mut f32, stride: usize) -> Self {
        PoseRows {
            base: [out, out.wrapping_add(4), out.wrapping_add(7)],
            stride: [stride; 3],
        }
    }

    /// ozz blocks of four joints from `out` (`SoaTransform`: translation, rotation, scale, each
    /// component four lanes): each channel's first float in block 0, for the decoders that
    /// write blocks (no stride: see `grouped::common::row_at`).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub fn soa4(out: *mut f32) -> Self {
        let at = crate::runtime::layout::SOA4_AT;
        PoseRows {
            base: at.map(|a| out.wrapping_add(a)),
            stride: [0; 3],
        }
    }

    /// Channel `ch`'s row of joint `j`.
    ///
    /// # Safety
    /// `j` is a joint of the checked buffer, `ch < 3`.
    #[inline(always)]
    pub unsafe fn at(&self, j: usize, ch: usize) -> *mut f32 {
        self.base[ch].add(j * self.stride[ch])
    }
}

/// Which joints [`crate::runtime::Decompressor::sample_joints`] writes, where, and which
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_len_rejects_overflowing_strides_as_arguments() {
        let (top, next) = (1usize << (usize::BITS - 1), 1usize << (usize::BITS - 2));
        for stride in [usize::MAX, top, next, usize::MAX / 4 + 1] {
            assert!(matches!(
                PoseOut::check_len(usize::MAX, 2, stride),
                Err(Error::InvalidArgument(_))
            ));
            assert_eq!(PoseOut::required_len(5, stride), usize::MAX);
        }
        // One joint never multiplies the stride.
        assert_eq!(PoseOut::check_len(10, 1, usize::MAX), Ok(()));
        assert_eq!(
            PoseOut::check_len(29, 3, 10),
            Err(Error::BufferTooSmall { required: 120 })
        );
        assert_eq!(PoseOut::check_len(30, 3, 10), Ok(()));
        assert!(matches!(
            PoseOut::check_len(30, 3, 9),
            Err(Error::InvalidArgument(_))
        ));
    }
}
