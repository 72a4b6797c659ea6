//! The `fixed` body layout: a 48-byte codec header, one kind byte per joint, constant values,
//! per-track ranges, then one byte-aligned frame per sample. See `docs/formats.md`.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 1 | rotation format id |
//! | 1 | 1 | translation format id |
//! | 2 | 1 | scale format id |
//! | 3 | 1 | layout version (1) |
//! | 4 | 4 | joint count |
//! | 8 | 4 | sample count |
//! | 12 | 4 | kinds offset |
//! | 16 | 4 | constants offset |
//! | 20 | 4 | constant float count |
//! | 24 | 4 | ranges offset |
//! | 28 | 4 | range float count |
//! | 32 | 4 | frames offset |
//! | 36 | 4 | frame size in bytes |
//! | 40 | 4 | used bits per frame |
//! | 44 | 4 | reserved, 0 |
//!
//! Sections are 16-byte aligned and in that order. The frames section is followed by 8 zero
//! bytes so the bit reader's 64-bit window never leaves the body.

use crate::format::bytes::{read_f32, read_u32};
use crate::format::quantize::{Range3, RotationFormat, VectorFormat};
use crate::math::{Quat, Vec3};

/// Size of the codec header.
pub const CODEC_HEADER_SIZE: usize = 48;
/// Layout version stored at byte 3.
pub const LAYOUT_VERSION: u8 = 1;
/// Zero bytes after the last frame (read-ahead of the bit reader).
pub const FRAME_PADDING: usize = 8;
/// Section alignment.
pub const SECTION_ALIGN: usize = 16;

/// How one sub-track (channel of a joint) is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Not stored: equals the blob's default (identity or bind pose).
    Default = 0,
    /// One stored `f32` value for every sample.
    Constant = 1,
    /// One quantised value per sample, in the frames.
    Animated = 2,
}

impl Kind {
    /// From 2 stored bits (3 is invalid).
    #[inline(always)]
    pub fn from_bits(b: u8) -> Option<Kind> {
        match b & 3 {
            0 => Some(Kind::Default),
            1 => Some(Kind::Constant),
            2 => Some(Kind::Animated),
            _ => None,
        }
    }
    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Default => "default",
            Kind::Constant => "constant",
            Kind::Animated => "animated",
        }
    }
}

/// Packs the three channel kinds of a joint into its kind byte.
pub fn kind_byte(rot: Kind, trans: Kind, scale: Kind) -> u8 {
    rot as u8 | (trans as u8) << 2 | (scale as u8) << 4
}

/// The three channel kinds of a kind byte (invalid bits read as `Default`; validation rejects
/// them before sampling).
#[inline(always)]
pub fn kinds_of(b: u8) -> [Kind; 3] {
    [0, 2, 4].map(|s| Kind::from_bits(b >> s).unwrap_or(Kind::Default))
}

/// The parsed codec header (cheap to read: sampling re-reads it on each call).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    /// Rotation format.
    pub rotation: RotationFormat,
    /// Translation format.
    pub translation: VectorFormat,
    /// Scale format.
    pub scale: VectorFormat,
    /// Joint count.
    pub num_joints: usize,
    /// Sample count.
    pub num_samples: usize,
    /// Offset of the kind bytes.
    pub kinds_offset: usize,
    /// Offset of the constants.
    pub constants_offset: usize,
    /// Number of constant floats.
    pub num_constant_floats: usize,
    /// Offset of the ranges.
    pub ranges_offset: usize,
    /// Number of range floats.
    pub num_range_floats: usize,
    /// Offset of the first frame.
    pub frames_offset: usize,
    /// Bytes per frame.
    pub frame_size: usize,
    /// Bits used per frame.
    pub frame_bits: usize,
}

impl Layout {
    /// Reads the header fields of a body at least [`CODEC_HEADER_SIZE`] long (unknown format
    /// ids read as the first format; validation rejects them).
    #[inline]
    pub fn read(body: &[u8]) -> Layout {
        let u = |o: usize| read_u32(body, o) as usize;
        Layout {
            rotation: RotationFormat::from_u32(body[0] as u32).unwrap_or(RotationFormat::Float128),
            translation: VectorFormat::from_u32(body[1] as u32).unwrap_or(VectorFormat::Float96),
            scale: VectorFormat::from_u32(body[2] as u32).unwrap_or(VectorFormat::Float96),
            num_joints: u(4),
            num_samples: u(8),
            kinds_offset: u(12),
            constants_offset: u(16),
            num_constant_floats: u(20),
            ranges_offset: u(24),
            num_range_floats: u(28),
            frames_offset: u(32),
            frame_size: u(36),
            frame_bits: u(40),
        }
    }

    /// Writes the header into the first [`CODEC_HEADER_SIZE`] bytes of `out`.
    pub fn write(&self, out: &mut [u8]) {
        out[..CODEC_HEADER_SIZE].fill(0);
        out[0] = self.rotation as u8;
        out[1] = self.translation as u8;
        out[2] = self.scale as u8;
        out[3] = LAYOUT_VERSION;
        let fields = [
            self.num_joints,
            self.num_samples,
            self.kinds_offset,
            self.constants_offset,
            self.num_constant_floats,
            self.ranges_offset,
            self.num_range_floats,
            self.frames_offset,
            self.frame_size,
            self.frame_bits,
        ];
        for (i, v) in fields.into_iter().enumerate() {
            out[4 + 4 * i..8 + 4 * i].copy_from_slice(&(v as u32).to_le_bytes());
        }
    }

    /// Constant floats, range floats and frame bits one joint's kind byte occupies.
    #[inline(always)]
    pub fn joint_sizes(&self, kind: u8) -> (usize, usize, usize) {
        let [r, t, s] = kinds_of(kind);
        let mut c = 0;
        let mut g = 0;
        let mut b = 0;
        match r {
            Kind::Default => {}
            Kind::Constant => c += 4,
            Kind::Animated => {
                b += self.rotation.bits_per_sample() as usize;
                if self.rotation.uses_range() {
                    g += 6;
                }
            }
        }
        for (k, f) in [(t, self.translation), (s, self.scale)] {
            match k {
                Kind::Default => {}
                Kind::Constant => c += 3,
                Kind::Animated => {
                    b += f.bits_per_sample() as usize;
                    if f.uses_range() {
                        g += 6;
                    }
                }
            }
        }
        (c, g, b)
    }
}

/// Where one joint's data starts: constant float index, range float index, bit in the frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    /// Index of the joint's first constant float.
    pub constant: usize,
    /// Index of the joint's first range float.
    pub range: usize,
    /// Bit offset of the joint's first animated value within a frame.
    pub bit: usize,
}

impl Cursor {
    /// Moves past a joint with kind byte `kind`.
    #[inline(always)]
    pub fn advance(&mut self, layout: &Layout, kind: u8) {
        let (c, g, b) = layout.joint_sizes(kind);
        self.constant += c;
        self.range += g;
        self.bit += b;
    }
}

/// Reads the `i`-th constant float.
#[inline(always)]
pub fn constant_f32(body: &[u8], layout: &Layout, i: usize) -> f32 {
    read_f32(body, layout.constants_offset + 4 * i)
}

/// Reads a constant quaternion at float index `i`.
#[inline(always)]
pub fn constant_quat(body: &[u8], layout: &Layout, i: usize) -> Quat {
    let f = |k| constant_f32(body, layout, i + k);
    Quat::from_xyzw(f(0), f(1), f(2), f(3))
}

/// Reads a constant vector at float index `i`.
#[inline(always)]
pub fn constant_vec3(body: &[u8], layout: &Layout, i: usize) -> Vec3 {
    let f = |k| constant_f32(body, layout, i + k);
    Vec3::new(f(0), f(1), f(2))
}

/// Reads a range (min xyz, extent xyz) at range float index `i`.
#[inline(always)]
pub fn range_at(body: &[u8], layout: &Layout, i: usize) -> Range3 {
    let f = |k: usize| read_f32(body, layout.ranges_offset + 4 * (i + k));
    Range3 {
        min: Vec3::new(f(0), f(1), f(2)),
        extent: Vec3::new(f(3), f(4), f(5)),
    }
}
