//! Rotation storage formats: full float, Unreal's NoW formats, smallest-three.
//!
//! Bit layouts and worst-case errors are documented in `docs/formats.md`; the error bounds are
//! computed in `offline/rotation_error.rs`.
#![cfg_attr(not(feature = "compress"), allow(unused_imports))]

use super::bits::{pack_snorm, pack_unorm, read_bits, unpack_snorm, unpack_unorm, BitWriter};
use super::range::Range3;
use super::{small_float, smallest_three};
use crate::math::{positive_w, Quat, Vec3};

/// Bit widths of the x, y, z fields of the 32-bit drop-W formats.
pub const BITS_11_11_10: [u32; 3] = [11, 11, 10];
/// Mantissa bits of the x, y, z small floats of [`RotationFormat::Float32NoW`].
pub const FLOAT32_NOW_MANTISSA: [u32; 3] = [7, 7, 6];

/// How a rotation sub-track's samples are stored by the `fixed` codec.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RotationFormat {
    /// x y z w as four f32 (128 bits).
    Float128 = 0,
    /// x y z as f32, w reconstructed non-negative (Unreal Float96NoW, 96 bits).
    Float96NoW = 1,
    /// x y z in [-1, 1] on 16 bits each (Unreal Fixed48NoW).
    Fixed48NoW = 2,
    /// x y z in [-1, 1] on 11/11/10 bits (Unreal Fixed32NoW).
    Fixed32NoW = 3,
    /// x y z range-reduced per track on 11/11/10 bits (Unreal IntervalFixed32NoW).
    IntervalFixed32NoW = 4,
    /// x y z as small floats on 11/11/10 bits (Unreal Float32NoW).
    Float32NoW = 5,
    /// Smallest three: 2-bit index of the dropped largest component + 3 x 15 bits (48 bits).
    SmallestThree48 = 6,
    /// Smallest three: 2-bit index + 10/10/10 bits (32 bits).
    SmallestThree32 = 7,
}

impl RotationFormat {
    /// Every format, in id order.
    pub const ALL: [RotationFormat; 8] = [
        RotationFormat::Float128,
        RotationFormat::Float96NoW,
        RotationFormat::Fixed48NoW,
        RotationFormat::Fixed32NoW,
        RotationFormat::IntervalFixed32NoW,
        RotationFormat::Float32NoW,
        RotationFormat::SmallestThree48,
        RotationFormat::SmallestThree32,
    ];

    /// Format from its integer id.
    pub fn from_u32(v: u32) -> Option<Self> {
        Self::ALL.get(v as usize).copied()
    }

    /// Short lowercase name (CLI and docs).
    pub fn name(self) -> &'static str {
        match self {
            RotationFormat::Float128 => "float128",
            RotationFormat::Float96NoW => "float96-now",
            RotationFormat::Fixed48NoW => "fixed48-now",
            RotationFormat::Fixed32NoW => "fixed32-now",
            RotationFormat::IntervalFixed32NoW => "interval-fixed32-now",
            RotationFormat::Float32NoW => "float32-now",
            RotationFormat::SmallestThree48 => "smallest3-48",
            RotationFormat::SmallestThree32 => "smallest3-32",
        }
    }

    /// Format from its [`name`](Self::name).
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|f| f.name() == s)
    }
}

impl RotationFormat {
    /// Stored bits per sample.
    pub fn bits_per_sample(self) -> u32 {
        match self {
            RotationFormat::Float128 => 128,
            RotationFormat::Float96NoW => 96,
            RotationFormat::Fixed48NoW | RotationFormat::SmallestThree48 => 48,
            RotationFormat::Fixed32NoW
            | RotationFormat::IntervalFixed32NoW
            | RotationFormat::Float32NoW
            | RotationFormat::SmallestThree32 => 32,
        }
    }

    /// Whether the format stores x y z only and rebuilds a non-negative w.
    pub fn drops_w(self) -> bool {
        matches!(
            self,
            RotationFormat::Float96NoW
                | RotationFormat::Fixed48NoW
                | RotationFormat::Fixed32NoW
                | RotationFormat::IntervalFixed32NoW
                | RotationFormat::Float32NoW
        )
    }

    /// Whether the format needs a per-track [`Range3`] (of the positive-w x y z).
    pub fn uses_range(self) -> bool {
        self == RotationFormat::IntervalFixed32NoW
    }

    /// The quaternion as the format stores it: w made non-negative for the drop-W formats.
    #[inline]
    pub fn prepare(self, q: Quat) -> Quat {
        if self.drops_w() {
            positive_w(q)
        } else {
            q
        }
    }

    /// Appends `q` (unit, already [`prepare`](Self::prepare)d) as exactly
    /// [`bits_per_sample`](Self::bits_per_sample) bits. `range` is used by range-reduced formats.
    #[cfg(feature = "compress")]
    pub fn pack(self, q: Quat, range: &Range3, w: &mut BitWriter) {
        let q = self.prepare(q);
        let v = Vec3::new(q.x, q.y, q.z);
        match self {
            RotationFormat::Float128 => {
                for c in q.to_array() {
                    w.write(c.to_bits(), 32);
                }
            }
            RotationFormat::Float96NoW => {
                for c in v.to_array() {
                    w.write(c.to_bits(), 32);
                }
            }
            RotationFormat::Fixed48NoW => {
                for c in v.to_array() {
                    w.write(pack_snorm(c, 16), 16);
                }
            }
            RotationFormat::Fixed32NoW => {
                for (c, b) in v.to_array().into_iter().zip(BITS_11_11_10) {
                    w.write(pack_snorm(c, b), b);
                }
            }
            RotationFormat::IntervalFixed32NoW => {
                let u = range.normalize(v);
                for (c, b) in u.to_array().into_iter().zip(BITS_11_11_10) {
                    w.write(pack_unorm(c, b), b);
                }
            }
            RotationFormat::Float32NoW => {
                for (c, m) in v.to_array().into_iter().zip(FLOAT32_NOW_MANTISSA) {
                    w.write(small_float::encode(c, m), small_float::total_bits(m));
                }
            }
            RotationFormat::SmallestThree48 => {
                smallest_three::pack(q, 15, w);
                w.write(0, 1);
            }
            RotationFormat::SmallestThree32 => smallest_three::pack(q, 10, w),
        }
    }

    /// Reads one sample written by [`pack`](Self::pack) at bit offset `bit` of `data`.
    ///
    /// Never panics and never reads out of bounds (short data reads as zero bits). Quantised
    /// formats always return a finite unit quaternion; float formats return the stored floats
    /// (the codec's validation checks them).
    #[inline(always)]
    pub fn unpack(self, data: &[u8], bit: usize, range: &Range3) -> Quat {
        let f = |o: usize| f32::from_bits(read_bits(data, bit + o, 32));
        match self {
            RotationFormat::Float128 => Quat::from_xyzw(f(0), f(32), f(64), f(96)),
            RotationFormat::Float96NoW => rebuild_w(Vec3::new(f(0), f(32), f(64))),
            RotationFormat::Fixed48NoW => rebuild_w(Vec3::new(
                unpack_snorm(read_bits(data, bit, 16), 16),
                unpack_snorm(read_bits(data, bit + 16, 16), 16),
                unpack_snorm(read_bits(data, bit + 32, 16), 16),
            )),
            RotationFormat::Fixed32NoW => rebuild_w(Vec3::new(
                unpack_snorm(read_bits(data, bit, 11), 11),
                unpack_snorm(read_bits(data, bit + 11, 11), 11),
                unpack_snorm(read_bits(data, bit + 22, 10), 10),
            )),
            RotationFormat::IntervalFixed32NoW => rebuild_w(range.denormalize(Vec3::new(
                unpack_unorm(read_bits(data, bit, 11), 11),
                unpack_unorm(read_bits(data, bit + 11, 11), 11),
                unpack_unorm(read_bits(data, bit + 22, 10), 10),
            ))),
            RotationFormat::Float32NoW => rebuild_w(Vec3::new(
                small_float::decode(read_bits(data, bit, 11), 7),
                small_float::decode(read_bits(data, bit + 11, 11), 7),
                small_float::decode(read_bits(data, bit + 22, 10), 6),
            )),
            RotationFormat::SmallestThree48 => smallest_three::unpack(data, bit, 15),
            RotationFormat::SmallestThree32 => smallest_three::unpack(data, bit, 10),
        }
    }
}

/// Rebuilds `w = sqrt(max(0, 1 - |v|^2))` and renormalises (which only matters when `|v| > 1`).
/// Finite for every finite `v` with `|v| <= 2`; never NaN for finite input.
#[inline(always)]
pub fn rebuild_w(v: Vec3) -> Quat {
    let s = v.length_squared();
    let w = (1.0 - s).max(0.0).sqrt();
    let q = Quat::from_xyzw(v.x, v.y, v.z, w);
    if s > 1.0 {
        q * s.sqrt().recip()
    } else {
        q
    }
}
