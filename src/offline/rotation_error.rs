//! Worst-case rotation error of each [`RotationFormat`], as an angle in radians.
//!
//! Derivation (see `docs/formats.md`): a format decodes `q` (unit, as prepared for the format) to
//! `p`. If `|p - q| <= c < 1` then the rotation angle between `p` and `q` is at most
//! `2 * asin(c)` (a ball of radius `c` around a unit 4-vector spans a cone of half-angle
//! `asin(c)`, and a rotation angle is twice the 4D angle).
//!
//! For formats that drop a component and rebuild it from the unit norm (drop-W formats rebuild
//! `w >= 0`, smallest-three rebuilds the dropped largest component), let `e` be the Euclidean norm
//! of the stored components' error and `r <= r_max` the norm of the stored part. Then
//! `| |v'|^2 - |v|^2 | <= D = e (2 r_max + e)`, and the rebuilt component, whose true value is at
//! least `w_min`, is off by at most
//! `sqrt(D)` when `w_min <= sqrt(D)`, else `w_min - sqrt(w_min^2 - D)` (about `D / (2 w_min)`).
//! So `c = sqrt(e^2 + dw^2)`. Drop-W formats lose precision as `w_min` goes to 0; smallest-three
//! always has `w_min >= 1/2` (the largest of four unit components).
//!
//! `f32` rounding is covered by [`COMPONENT_F32_SLOP`] per stored component and
//! [`NORM_F32_SLOP`] added to `D` (input quaternions are unit only to `f32` precision).

use crate::format::quantize::range::Range3;
use crate::format::quantize::rotation::{RotationFormat, BITS_11_11_10, FLOAT32_NOW_MANTISSA};
use crate::format::quantize::smallest_three::KEPT_RANGE;
use crate::math::{positive_w, Quat, Vec3};

/// Per-component allowance for `f32` rounding when decoding (a few ulps of 1).
pub const COMPONENT_F32_SLOP: f32 = 1.0 / (1u32 << 22) as f32;
/// Allowance added to `D` for `f32` rounding of `|q|^2` and of `1 - |v|^2`.
pub const NORM_F32_SLOP: f32 = 1.0 / (1u32 << 20) as f32;

/// What a rotation error bound depends on: the smallest |w| of the track and, for range-reduced
/// formats, the range of the positive-w x y z.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RotationStats {
    /// Smallest |w| over the track's samples (0 gives the global worst case).
    pub w_min: f32,
    /// Range of x y z after making w non-negative.
    pub range: Range3,
}

impl RotationStats {
    /// Worst case over all unit quaternions (w anywhere in [0, 1], x y z anywhere in [-1, 1]).
    pub const GLOBAL: RotationStats = RotationStats {
        w_min: 0.0,
        range: Range3 {
            min: Vec3::splat(-1.0),
            extent: Vec3::splat(2.0),
        },
    };

    /// Statistics of a track of unit quaternions.
    pub fn from_quats(qs: &[Quat]) -> RotationStats {
        let w_min = qs.iter().map(|q| q.w.abs()).fold(1.0f32, f32::min);
        let range = Range3::from_values(qs.iter().map(|&q| {
            let p = positive_w(q);
            Vec3::new(p.x, p.y, p.z)
        }));
        RotationStats { w_min, range }
    }
}

/// Error of the rebuilt component given its smallest true value and the bound `d` on the change
/// of the squared norm of the stored part.
fn rebuilt_error(w_min: f32, d: f32) -> f32 {
    let w = w_min.clamp(0.0, 1.0);
    if w * w <= d {
        d.sqrt()
    } else {
        d / (w + (w * w - d).sqrt())
    }
}

fn angle_from_chord(c: f32) -> f32 {
    2.0 * crate::math::trig::asin(c.min(1.0))
}

impl RotationFormat {
    /// Worst-case absolute error of each stored component (x y z for drop-W formats; for
    /// smallest-three, the same for each of the three kept components; for `Float128` the
    /// `f32` slop).
    pub fn component_error(self, stats: &RotationStats) -> Vec3 {
        let slop = Vec3::splat(COMPONENT_F32_SLOP);
        let half_snorm = |b: u32| 1.0 / ((1u32 << b) - 1) as f32;
        match self {
            RotationFormat::Float128 | RotationFormat::Float96NoW => slop,
            RotationFormat::Fixed48NoW => slop + Vec3::splat(half_snorm(16)),
            RotationFormat::Fixed32NoW => {
                slop + Vec3::new(
                    half_snorm(BITS_11_11_10[0]),
                    half_snorm(BITS_11_11_10[1]),
                    half_snorm(BITS_11_11_10[2]),
                )
            }
            RotationFormat::IntervalFixed32NoW => {
                let r = &stats.range;
                let steps = Vec3::new(
                    ((1u32 << BITS_11_11_10[0]) - 1) as f32,
                    ((1u32 << BITS_11_11_10[1]) - 1) as f32,
                    ((1u32 << BITS_11_11_10[2]) - 1) as f32,
                );
                slop + r.extent / (2.0 * steps) + r.f32_slop()
            }
            RotationFormat::Float32NoW => {
                let m = FLOAT32_NOW_MANTISSA;
                slop + Vec3::new(
                    crate::format::quantize::small_float::max_error(1.0, m[0]),
                    crate::format::quantize::small_float::max_error(1.0, m[1]),
                    crate::format::quantize::small_float::max_error(1.0, m[2]),
                )
            }
            RotationFormat::SmallestThree48 => {
                slop + Vec3::splat(KEPT_RANGE / ((1u32 << 15) - 1) as f32)
            }
            RotationFormat::SmallestThree32 => {
                slop + Vec3::splat(KEPT_RANGE / ((1u32 << 10) - 1) as f32)
            }
        }
    }

    /// Worst-case rotation angle error in radians of one decoded sample of a track described by
    /// `stats` (use [`RotationStats::GLOBAL`] for a data-independent bound).
    pub fn max_angle_error(self, stats: &RotationStats) -> f32 {
        match self {
            RotationFormat::Float128 => angle_from_chord(2.0 * COMPONENT_F32_SLOP),
            RotationFormat::SmallestThree48 | RotationFormat::SmallestThree32 => {
                let e = self.component_error(stats).length();
                let r_max = 0.75f32.sqrt();
                let d = e * (2.0 * r_max + e) + NORM_F32_SLOP;
                let dw = rebuilt_error(0.5, d);
                angle_from_chord((e * e + dw * dw).sqrt())
            }
            _ => {
                let w_min = stats.w_min.clamp(0.0, 1.0);
                let r_max = (1.0 - w_min * w_min).max(0.0).sqrt();
                let e = if self == RotationFormat::Float32NoW {
                    // Small floats have relative error: |err_i| <= max(|x_i|, 2^-6) 2^-(m_i+1), so
                    // e^2 <= r_max^2 max_i k_i + 2^-12 sum_i k_i with k_i = 4^-(m_i+1).
                    let k = FLOAT32_NOW_MANTISSA.map(|m| 4f32.powi(-(m as i32 + 1)));
                    let kmax = k.iter().copied().fold(0.0, f32::max);
                    let ksum: f32 = k.iter().sum();
                    (r_max * r_max * kmax + ksum / 4096.0).sqrt() + 3f32.sqrt() * COMPONENT_F32_SLOP
                } else {
                    self.component_error(stats).length()
                };
                let d = e * (2.0 * r_max + e) + NORM_F32_SLOP;
                let dw = rebuilt_error(w_min, d);
                angle_from_chord((e * e + dw * dw).sqrt())
            }
        }
    }
}

#[cfg(test)]
#[path = "rotation_error_tests.rs"]
mod tests;
