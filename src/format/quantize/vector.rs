//! Translation and scale storage formats: full float or per-track range reduction.
//!
//! Bit layouts and worst-case errors are documented in `docs/formats.md`.
#![cfg_attr(not(feature = "compress"), allow(unused_imports))]

use super::bits::{max_value, pack_unorm, read_bits, unpack_unorm, BitWriter};
use super::range::Range3;
use crate::math::Vec3;

/// How a translation or scale sub-track's samples are stored by the `fixed` codec.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VectorFormat {
    /// x y z as f32 (96 bits).
    Float96 = 0,
    /// Range-reduced per track, 16/16/16 bits.
    RangeReduced48 = 1,
    /// Range-reduced per track, 11/11/10 bits.
    RangeReduced32 = 2,
}

impl VectorFormat {
    /// Every format, in id order.
    pub const ALL: [VectorFormat; 3] = [
        VectorFormat::Float96,
        VectorFormat::RangeReduced48,
        VectorFormat::RangeReduced32,
    ];

    /// Format from its integer id.
    pub fn from_u32(v: u32) -> Option<Self> {
        Self::ALL.get(v as usize).copied()
    }

    /// Short lowercase name (CLI and docs).
    pub fn name(self) -> &'static str {
        match self {
            VectorFormat::Float96 => "float96",
            VectorFormat::RangeReduced48 => "range48",
            VectorFormat::RangeReduced32 => "range32",
        }
    }

    /// Format from its [`name`](Self::name).
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|f| f.name() == s)
    }
}

impl VectorFormat {
    /// Stored bits per sample.
    pub fn bits_per_sample(self) -> u32 {
        match self {
            VectorFormat::Float96 => 96,
            VectorFormat::RangeReduced48 => 48,
            VectorFormat::RangeReduced32 => 32,
        }
    }

    /// Bit widths of the x y z fields.
    pub fn component_bits(self) -> [u32; 3] {
        match self {
            VectorFormat::Float96 => [32; 3],
            VectorFormat::RangeReduced48 => [16; 3],
            VectorFormat::RangeReduced32 => [11, 11, 10],
        }
    }

    /// Whether the format needs a per-track [`Range3`].
    pub fn uses_range(self) -> bool {
        self != VectorFormat::Float96
    }

    /// Appends `v` as exactly [`bits_per_sample`](Self::bits_per_sample) bits.
    #[cfg(feature = "compress")]
    pub fn pack(self, v: Vec3, range: &Range3, w: &mut BitWriter) {
        match self {
            VectorFormat::Float96 => {
                for c in v.to_array() {
                    w.write(c.to_bits(), 32);
                }
            }
            _ => {
                let u = range.normalize(v);
                for (c, b) in u.to_array().into_iter().zip(self.component_bits()) {
                    w.write(pack_unorm(c, b), b);
                }
            }
        }
    }

    /// Reads one sample written by [`pack`](Self::pack) at bit offset `bit` of `data`. Never
    /// panics or reads out of bounds (short data reads as zero bits).
    #[inline(always)]
    pub fn unpack(self, data: &[u8], bit: usize, range: &Range3) -> Vec3 {
        match self {
            VectorFormat::Float96 => Vec3::new(
                f32::from_bits(read_bits(data, bit, 32)),
                f32::from_bits(read_bits(data, bit + 32, 32)),
                f32::from_bits(read_bits(data, bit + 64, 32)),
            ),
            VectorFormat::RangeReduced48 => range.denormalize(Vec3::new(
                unpack_unorm(read_bits(data, bit, 16), 16),
                unpack_unorm(read_bits(data, bit + 16, 16), 16),
                unpack_unorm(read_bits(data, bit + 32, 16), 16),
            )),
            VectorFormat::RangeReduced32 => range.denormalize(Vec3::new(
                unpack_unorm(read_bits(data, bit, 11), 11),
                unpack_unorm(read_bits(data, bit + 11, 11), 11),
                unpack_unorm(read_bits(data, bit + 22, 10), 10),
            )),
        }
    }

    /// Worst-case absolute error of each component of a decoded sample of a track whose values
    /// span `range`: half a quantisation step of the range plus `f32` rounding; 0 for `Float96`.
    pub fn max_error(self, range: &Range3) -> Vec3 {
        match self {
            VectorFormat::Float96 => Vec3::ZERO,
            _ => {
                let b = self.component_bits();
                let steps = Vec3::new(
                    max_value(b[0]) as f32,
                    max_value(b[1]) as f32,
                    max_value(b[2]) as f32,
                );
                range.extent / (2.0 * steps) + range.f32_slop()
            }
        }
    }
}

#[cfg(all(test, feature = "compress"))] // round trips through the encoder's packing
mod tests {
    use super::*;

    struct Rng(u64);
    impl Rng {
        fn f(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    #[test]
    fn every_format_within_bound_and_bound_is_tight() {
        let mut rng = Rng(99);
        for format in VectorFormat::ALL {
            for (lo, hi) in [
                (-1.0f32, 1.0f32),
                (100.0, 180.0),
                (-5000.0, -3000.0),
                (0.0, 1e-3),
            ] {
                let mut vals: Vec<Vec3> = (0..50_000)
                    .map(|_| Vec3::new(rng.f(), rng.f(), rng.f()) * (hi - lo) + Vec3::splat(lo))
                    .collect();
                vals.push(Vec3::splat(lo));
                vals.push(Vec3::splat(hi));
                let range = Range3::from_values(vals.iter().copied());
                let bound = format.max_error(&range);
                let mut w = BitWriter::new();
                for &v in &vals {
                    format.pack(v, &range, &mut w);
                }
                let data = w.finish();
                let mut worst = Vec3::ZERO;
                for (i, &v) in vals.iter().enumerate() {
                    let d = format.unpack(&data, i * format.bits_per_sample() as usize, &range);
                    let err = (d - v).abs();
                    assert!(
                        err.cmple(bound).all(),
                        "{format:?} {v} -> {d}, bound {bound}"
                    );
                    worst = worst.max(err);
                }
                if format != VectorFormat::Float96 {
                    assert!(
                        worst.cmpge(bound * 0.25).all(),
                        "{format:?} loose: {worst} vs {bound}"
                    );
                } else {
                    assert_eq!(worst, Vec3::ZERO);
                }
            }
        }
    }

    #[test]
    fn zero_extent_is_exact() {
        let v = Vec3::new(3.0, -2.0, 7.5);
        let range = Range3::from_values([v; 3]);
        for format in VectorFormat::ALL {
            let mut w = BitWriter::new();
            format.pack(v, &range, &mut w);
            let data = w.finish();
            assert_eq!(format.unpack(&data, 0, &range), v);
        }
    }
}
