//! Per-track range reduction: values are stored as `min + u * extent` with `u` in [0, 1].

use crate::math::Vec3;

/// Per-component slack (relative to the magnitude of the range) for `f32` rounding in
/// [`Range3::normalize`] / [`Range3::denormalize`]: a few ulps.
pub const RANGE_F32_SLOP: f32 = 1.0 / (1u32 << 21) as f32;

/// The range of a track's values, per component.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Range3 {
    /// Smallest value of each component.
    pub min: Vec3,
    /// Largest minus smallest value of each component (>= 0).
    pub extent: Vec3,
}

impl Range3 {
    /// The range of `values` (an empty iterator gives the zero range).
    #[cfg(feature = "compress")]
    pub fn from_values(values: impl IntoIterator<Item = Vec3>) -> Range3 {
        let mut lo = Vec3::splat(f32::INFINITY);
        let mut hi = Vec3::splat(f32::NEG_INFINITY);
        let mut any = false;
        for v in values {
            lo = lo.min(v);
            hi = hi.max(v);
            any = true;
        }
        if !any {
            return Range3::default();
        }
        Range3 {
            min: lo,
            extent: (hi - lo).max(Vec3::ZERO),
        }
    }

    /// Maps `v` into [0, 1] per component (0 where the extent is zero).
    #[inline]
    #[cfg(feature = "compress")]
    pub fn normalize(&self, v: Vec3) -> Vec3 {
        let mut u = Vec3::ZERO;
        for i in 0..3 {
            if self.extent[i] > 0.0 {
                u[i] = ((v[i] - self.min[i]) / self.extent[i]).clamp(0.0, 1.0);
            }
        }
        u
    }

    /// Inverse of [`normalize`](Self::normalize): `min + u * extent`.
    #[inline(always)]
    pub fn denormalize(&self, u: Vec3) -> Vec3 {
        self.min + u * self.extent
    }

    /// Worst-case `f32` rounding error of a normalise/denormalise round trip, per component.
    pub fn f32_slop(&self) -> Vec3 {
        (self.min.abs() + self.extent.abs()) * RANGE_F32_SLOP
    }
}

#[cfg(all(test, feature = "compress"))] // round trips through the encoder's packing
mod tests {
    use super::*;

    #[test]
    fn zero_extent_maps_to_min() {
        let r = Range3::from_values([Vec3::new(1.0, 2.0, 3.0); 4]);
        assert_eq!(r.extent, Vec3::ZERO);
        let u = r.normalize(Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(u, Vec3::ZERO);
        assert_eq!(r.denormalize(u), Vec3::new(1.0, 2.0, 3.0));
    }

    #[test]
    fn normalize_roundtrips() {
        let vals = [
            Vec3::new(-5.0, 0.0, 100.0),
            Vec3::new(3.0, 0.5, 120.0),
            Vec3::new(1.0, 0.25, 110.0),
        ];
        let r = Range3::from_values(vals);
        for v in vals {
            let u = r.normalize(v);
            assert!(u.min_element() >= 0.0 && u.max_element() <= 1.0);
            assert!((r.denormalize(u) - v).abs().max_element() <= r.f32_slop().max_element());
        }
    }
}
