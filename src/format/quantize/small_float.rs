//! Tiny unsigned-magnitude floats for Unreal-style `Float32NoW` rotation components.
//!
//! A value `v` in [-1, 1] is stored on `1 + 3 + m` bits: sign (bit `m + 3`), a 3-bit exponent
//! `E` (bits `m..m + 3`) and an `m`-bit mantissa `M` (bits `0..m`):
//!
//! - `E = 0`: denormal, `|v| = M / 2^m * 2^-6` (covers [0, 2^-6));
//! - `E = 1..=7`: `|v| = (1 + M / 2^m) * 2^(E - 7)` (`E = 6` covers [0.5, 1); `E = 7, M = 0` is 1.0).
//!
//! Encoding rounds to nearest and saturates at 1.0. The absolute error of a component is at
//! most `max(|v|, 2^-6) * 2^-(m + 1)`, i.e. at most `2^-(m + 2)` for `|v| <= 1`.

/// Exponent bits.
pub const EXPONENT_BITS: u32 = 3;

/// Total bits of a small float with `m` mantissa bits.
#[inline(always)]
pub const fn total_bits(m: u32) -> u32 {
    1 + EXPONENT_BITS + m
}

/// Encodes `v` (clamped to [-1, 1]; NaN encodes as 0) with `m` mantissa bits (1..=20).
#[cfg(feature = "compress")]
pub fn encode(v: f32, m: u32) -> u32 {
    let sign = if v < 0.0 { 1u32 } else { 0 };
    let a = if v.is_nan() { 0.0 } else { v.abs().min(1.0) };
    let scale = (1u32 << m) as f32;
    let (e, mant) = if a >= 1.0 {
        (7u32, 0u32)
    } else if a < 1.0 / 64.0 {
        // Denormal range: step 2^-6 / 2^m.
        let q = (a * 64.0 * scale).round() as u32;
        if q >= 1 << m {
            (1, 0)
        } else {
            (0, q)
        }
    } else {
        // a in [2^k, 2^(k+1)), k in -6..=-1: E = k + 7.
        // floor(log2 a) from the exponent bits (a is normal here): exact on every target, where
        // `log2` is the platform's and may round up just below a power of two.
        let k = ((a.to_bits() >> 23) & 0xFF) as i32 - 127;
        let k = k.clamp(-6, -1);
        let p = 2f32.powi(k);
        let (k, p) = if a < p {
            (k - 1, p * 0.5)
        } else if a >= 2.0 * p {
            (k + 1, p * 2.0)
        } else {
            (k, p)
        };
        let q = ((a / p - 1.0) * scale).round() as u32;
        let e = (k + 7) as u32;
        if q >= 1 << m {
            (e + 1, 0)
        } else {
            (e, q)
        }
    };
    (sign << (m + EXPONENT_BITS)) | (e << m) | mant
}

/// Decodes a value written by [`encode`] with `m` mantissa bits. Every bit pattern decodes to a
/// finite value in [-2, 2].
#[inline(always)]
pub fn decode(bits: u32, m: u32) -> f32 {
    let mant = bits & ((1u32 << m) - 1);
    let e = (bits >> m) & 7;
    let neg = (bits >> (m + EXPONENT_BITS)) & 1 != 0;
    let frac = mant as f32 / (1u32 << m) as f32;
    let a = if e == 0 {
        frac * (1.0 / 64.0)
    } else {
        (1.0 + frac) * f32::from_bits(((e as i32 - 7 + 127) as u32) << 23)
    };
    if neg {
        -a
    } else {
        a
    }
}

/// Worst-case absolute error of one component of magnitude `a` (<= 1) with `m` mantissa bits.
#[inline]
pub fn max_error(a: f32, m: u32) -> f32 {
    a.abs().clamp(1.0 / 64.0, 1.0) * 2f32.powi(-(m as i32 + 1))
}

#[cfg(all(test, feature = "compress"))] // round trips through the encoder's packing
mod tests {
    use super::*;

    #[test]
    fn error_within_bound_and_bound_is_reached() {
        for m in [6u32, 7] {
            let mut worst_ratio = 0.0f32;
            for i in -200_000..=200_000 {
                let v = i as f32 / 200_000.0;
                let d = decode(encode(v, m), m);
                let err = (d - v).abs();
                let b = max_error(v, m) * (1.0 + 1e-5) + 1e-9;
                assert!(err <= b, "m {m} v {v} d {d} err {err} bound {b}");
                assert!(encode(v, m) < 1 << total_bits(m));
                worst_ratio = worst_ratio.max(err / b);
            }
            assert!(worst_ratio > 0.9, "bound is loose: {worst_ratio}");
        }
    }

    #[test]
    fn exact_values_and_extremes() {
        for m in [6u32, 7] {
            for v in [0.0f32, 1.0, -1.0, 0.5, -0.25, 1.0 / 64.0, 0.75] {
                assert_eq!(decode(encode(v, m), m), v, "m {m} v {v}");
            }
            assert_eq!(decode(encode(5.0, m), m), 1.0);
            assert_eq!(decode(encode(f32::NAN, m), m), 0.0);
            for bits in 0..(1u32 << total_bits(m)) {
                let d = decode(bits, m);
                assert!(d.is_finite() && d.abs() < 2.0);
            }
        }
    }
}
