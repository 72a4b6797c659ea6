//! The lone-lane arithmetic of the selections (`subset/lane.rs`): one sub-track's three components
//! at once, in lanes 0..2 of a [`Vec4`] (lane 3 is ignored): SSE2 on x86-64, elsewhere the same
//! IEEE operations lane by lane. Each function performs its scalar definition's operations in the
//! same order ([`bitrate::coefficients`], [`bitrate::rotation_range`], [`rotation::from_stored`]),
//! so the results are bit for bit what the encoder measured (tests below compare every function
//! with its definition).

use crate::format::limits::MAX_ABS_VALUE;
#[cfg(test)]
use crate::format::vbr::bitrate;
use crate::format::vbr::bitrate::{NUM_RATES, RATE_BITS};
#[cfg(test)]
use crate::format::vbr::rotation;
use crate::math::{Quat, Vec3, Vec4};

/// Bits of one frame taken by sub-tracks whose 5-bit rate pairs are indexed by 10 bits.
pub(super) const PAIR_BITS: [u8; 1024] = {
    let mut t = [0u8; 1024];
    let mut i = 0;
    while i < 1024 {
        let (a, b) = (i & 31, i >> 5);
        let ba = if a < NUM_RATES { RATE_BITS[a] } else { 0 };
        let bb = if b < NUM_RATES { RATE_BITS[b] } else { 0 };
        t[i] = ba + bb;
        i += 1;
    }
    t
};

/// A decoded translation or scale within the clip value limits. Quantised values of a hostile
/// blob may overshoot them (a validated clip range and 8-bit segment fractions bound them to
/// three times the limit); values the encoder wrote are within them already, so this never moves
/// them. Packed `min`/`max` (one instruction each on SSE2).
#[inline(always)]
pub(super) fn clamp_value(v: Vec4) -> Vec3 {
    let m = Vec4::splat(MAX_ABS_VALUE);
    v.max(-m).min(m).truncate()
}

/// The clip ranges (min, extent) of a rotation's three stored slots, each stored as `u16` min
/// and `u16` extent over [-1, 1] in the 32-bit lane of `block` with the slot's index:
/// [`bitrate::rotation_range`] per lane.
#[inline(always)]
pub fn rotation_ranges(block: u128) -> (Vec4, Vec4) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
        unsafe {
            let x = _mm_set_epi64x((block >> 64) as i64, block as i64);
            let k = _mm_set1_ps(2.0 / 65535.0);
            let lo = _mm_cvtepi32_ps(_mm_and_si128(x, _mm_set1_epi32(0xFFFF)));
            let hi = _mm_cvtepi32_ps(_mm_srli_epi32::<16>(x));
            (
                _mm_sub_ps(_mm_mul_ps(lo, k), _mm_set1_ps(1.0)).into(),
                _mm_mul_ps(hi, k).into(),
            )
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let lane = |i: u32| {
            let w = (block >> (32 * i)) as u32;
            crate::format::vbr::bitrate::rotation_range(w as u16, (w >> 16) as u16)
        };
        let r = [lane(0), lane(1), lane(2), lane(3)];
        (
            Vec4::from_array(r.map(|r| r.min)),
            Vec4::from_array(r.map(|r| r.extent)),
        )
    }
}

/// [`bitrate::coefficients`] of three components: `inv_q` holds each rate's reciprocal of its
/// largest quantised value (0 for a segment-constant or raw component), `fields` the three 16-bit
/// segment range fields (component `c` at bit `16 c`), `min` and `extent` the clip ranges.
/// Returns (`mul`, `add`). No branch on the rates: a constant component's `mul` is 0 through
/// `inv_q` and its `add` is selected.
#[inline(always)]
pub fn coefficients(inv_q: Vec4, fields: u64, min: Vec4, extent: Vec4) -> (Vec4, Vec4) {
    #[cfg(target_arch = "x86_64")]
    let (smin, sext, cfrac) = {
        use core::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
        unsafe {
            let f = _mm_unpacklo_epi16(_mm_cvtsi64_si128(fields as i64), _mm_setzero_si128());
            let k8 = _mm_set1_ps(1.0 / 255.0);
            let smin = _mm_mul_ps(_mm_cvtepi32_ps(_mm_and_si128(f, _mm_set1_epi32(0xFF))), k8);
            let sext = _mm_mul_ps(_mm_cvtepi32_ps(_mm_srli_epi32::<8>(f)), k8);
            let cfrac = _mm_mul_ps(_mm_cvtepi32_ps(f), _mm_set1_ps(1.0 / 65535.0));
            (Vec4::from(smin), Vec4::from(sext), Vec4::from(cfrac))
        }
    };
    #[cfg(not(target_arch = "x86_64"))]
    let (smin, sext, cfrac) = {
        let f = [0, 1, 2, 3].map(|c| (fields >> (16 * c)) as u16);
        (
            Vec4::from_array(f.map(|f| (f & 0xFF) as f32 * (1.0 / 255.0))),
            Vec4::from_array(f.map(|f| (f >> 8) as f32 * (1.0 / 255.0))),
            Vec4::from_array(f.map(|f| f as f32 * (1.0 / 65535.0))),
        )
    };
    let frac = Vec4::select(inv_q.cmpeq(Vec4::ZERO), cfrac, smin);
    (inv_q * sext * extent, frac * extent + min)
}

/// Three stored fields decoded as `q * mul + add` (the signed conversion, exact for fields of at
/// most 24 bits).
#[inline(always)]
pub fn values(q: [u32; 3], mul: Vec4, add: Vec4) -> Vec4 {
    #[cfg(target_arch = "x86_64")]
    let v = {
        use core::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
        Vec4::from(unsafe {
            _mm_cvtepi32_ps(_mm_setr_epi32(q[0] as i32, q[1] as i32, q[2] as i32, 0))
        })
    };
    #[cfg(not(target_arch = "x86_64"))]
    let v = Vec4::new(
        q[0] as i32 as f32,
        q[1] as i32 as f32,
        q[2] as i32 as f32,
        0.0,
    );
    v * mul + add
}

/// `v` with the lanes of `raw` replaced by the `f32` whose bits are the stored field, clamped to
/// `[-limit, limit]` (a NaN to `-limit`).
#[inline(always)]
pub fn with_raw(v: Vec4, q: [u32; 3], raw: [bool; 3], limit: f32) -> Vec4 {
    let r = Vec4::new(
        f32::from_bits(q[0]),
        f32::from_bits(q[1]),
        f32::from_bits(q[2]),
        0.0,
    );
    // `max` with the limit second: a NaN lane gives the limit (SSE2 `maxps`, and glam's scalar
    // form alike).
    #[allow(clippy::manual_clamp)]
    let r = r.max(Vec4::splat(-limit)).min(Vec4::splat(limit));
    let m = glam::BVec4A::new(raw[0], raw[1], raw[2], false);
    Vec4::select(m, r, v)
}

/// [`rotation::from_stored`] with the stored components in lanes 0..2 of `v`.
#[inline(always)]
pub fn from_stored(v: Vec4, dropped: u8) -> Quat {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::*;
        let x: __m128 = v.into();
        // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
        unsafe {
            // (v0² + v1²) + v2², the scalar order.
            let sq = _mm_mul_ps(x, x);
            let s = _mm_add_ss(sq, _mm_shuffle_ps::<0b01>(sq, sq));
            let len2 = _mm_cvtss_f32(_mm_add_ss(s, _mm_movehl_ps(sq, sq)));
            let (x, d) = if len2 <= 1.0 {
                (x, (1.0 - len2).sqrt())
            } else {
                (_mm_mul_ps(x, _mm_set1_ps(len2.sqrt().recip())), 0.0)
            };
            let dv = _mm_set1_ps(d);
            let q = match dropped & 3 {
                0 => {
                    let t = _mm_shuffle_ps::<0b00_00_00_00>(dv, x); // d d v0 v0
                    _mm_shuffle_ps::<0b10_01_10_00>(t, x) // d v0 v1 v2
                }
                1 => {
                    let t = _mm_shuffle_ps::<0b00_00_00_00>(x, dv); // v0 v0 d d
                    _mm_shuffle_ps::<0b10_01_10_00>(t, x) // v0 d v1 v2
                }
                2 => {
                    let t = _mm_shuffle_ps::<0b00_00_10_10>(x, dv); // v2 v2 d d
                    _mm_shuffle_ps::<0b00_10_01_00>(x, t) // v0 v1 d v2
                }
                _ => {
                    let t = _mm_shuffle_ps::<0b00_00_10_10>(x, dv); // v2 v2 d d
                    _mm_shuffle_ps::<0b10_00_01_00>(x, t) // v0 v1 v2 d
                }
            };
            Quat::from_vec4(q.into())
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        crate::format::vbr::rotation::from_stored([v.x, v.y, v.z], dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::vbr::bitrate::{inv_max_q, ClipRange, NUM_RATES, RATE_RAW};

    fn rng(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    fn bits(v: Vec4) -> [u32; 3] {
        [v.x.to_bits(), v.y.to_bits(), v.z.to_bits()]
    }

    #[test]
    fn rotation_ranges_are_rotation_range() {
        let mut r = rng(1);
        for _ in 0..20_000 {
            let block = (r() as u128) << 64 | r() as u128;
            let (min, ext) = rotation_ranges(block);
            for i in 0..3 {
                let w = (block >> (32 * i)) as u32;
                let want = bitrate::rotation_range(w as u16, (w >> 16) as u16);
                assert_eq!(min[i].to_bits(), want.min.to_bits());
                assert_eq!(ext[i].to_bits(), want.extent.to_bits());
            }
        }
    }

    #[test]
    fn coefficients_and_values_are_the_scalar_decode() {
        let mut r = rng(2);
        for _ in 0..50_000 {
            let rates = [0, 1, 2].map(|_| (r() % NUM_RATES as u64) as u8);
            let fields = r() & 0xFFFF_FFFF_FFFF;
            let ranges = [0, 1, 2].map(|_| {
                let x = r();
                ClipRange {
                    min: (x as u16) as f32 * 0.01 - 300.0,
                    extent: ((x >> 16) as u16) as f32 * 0.003,
                }
            });
            let inv = Vec4::new(
                inv_max_q(rates[0]),
                inv_max_q(rates[1]),
                inv_max_q(rates[2]),
                0.0,
            );
            let min = Vec4::new(ranges[0].min, ranges[1].min, ranges[2].min, 0.0);
            let ext = Vec4::new(ranges[0].extent, ranges[1].extent, ranges[2].extent, 0.0);
            let (mul, add) = coefficients(inv, fields, min, ext);
            let q = [0, 1, 2].map(|c| {
                let b = bitrate::rate_bits(rates[c]);
                (r() as u32) & if b >= 32 { u32::MAX } else { (1u32 << b) - 1 }
            });
            let raw = rates.map(|x| x == RATE_RAW);
            let v = with_raw(values(q, mul, add), q, raw, 1.0e7);
            for c in 0..3 {
                let field = (fields >> (16 * c)) as u16;
                if rates[c] != RATE_RAW {
                    let (m, a) = bitrate::coefficients(rates[c], field, &ranges[c]);
                    assert_eq!(
                        (mul[c].to_bits(), add[c].to_bits()),
                        (m.to_bits(), a.to_bits())
                    );
                }
                let want = bitrate::dequantize(q[c], rates[c], field, &ranges[c]);
                // The decoder's clamp (NaN to the low limit), not `clamp` (NaN stays NaN).
                #[allow(clippy::manual_clamp)]
                let want = if rates[c] == RATE_RAW {
                    want.max(-1.0e7).min(1.0e7)
                } else {
                    want
                };
                assert_eq!(bits(v)[c], want.to_bits(), "rate {} q {}", rates[c], q[c]);
            }
        }
        // A raw NaN becomes -limit.
        let v = with_raw(
            Vec4::ZERO,
            [f32::NAN.to_bits(), 0, 0],
            [true, false, false],
            2.0,
        );
        assert_eq!(v.x, -2.0);
    }

    #[test]
    fn from_stored_is_the_scalar_rebuild() {
        let mut r = rng(3);
        for k in 0..100_000u32 {
            // Mostly inside the unit ball, some outside (renormalised), some exactly on it.
            let s = if k % 7 == 0 { 1.4 } else { 1.0 };
            let v = [0, 1, 2].map(|_| ((r() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * s);
            let v = if k % 101 == 0 { [1.0, 0.0, 0.0] } else { v };
            for c in 0..4u8 {
                let got = from_stored(Vec4::new(v[0], v[1], v[2], f32::NAN), c);
                let want = rotation::from_stored(v, c);
                assert_eq!(
                    got.to_array().map(f32::to_bits),
                    want.to_array().map(f32::to_bits),
                    "{v:?} {c}"
                );
            }
        }
    }
}
