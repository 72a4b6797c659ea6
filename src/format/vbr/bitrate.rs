//! The bit-rate table and the scalar quantisation shared by the encoder and the decoder.
//!
//! Every animated component is first normalised by its clip range (`f32` min and extent), then by
//! its segment range (8-bit min and extent, fractions of the clip range), then stored on the
//! number of bits its bit rate gives. Two rates are special: [`RATE_CONSTANT`] stores nothing per
//! sample (the segment's 16-bit range field holds the value, in the clip range) and [`RATE_RAW`]
//! stores the `f32` bits themselves (ranges unused). The encoder measures error through exactly
//! these functions, so what it judges is what the decoder produces.

/// Bits per component for each rate index. Index 0 is "constant in the segment"; the last index
/// is a raw `f32`.
pub const RATE_BITS: [u8; 24] = [
    0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 32,
];
/// Number of rate indices.
pub const NUM_RATES: usize = RATE_BITS.len();
/// Rate index of a component held constant over a segment.
pub const RATE_CONSTANT: u8 = 0;
/// Rate index of raw `f32` components.
pub const RATE_RAW: u8 = (NUM_RATES - 1) as u8;
/// Bits used to store one rate index in a segment.
pub const RATE_FIELD_BITS: u32 = 5;

/// Bits per component of rate index `r` (which must be valid; an invalid one gives 0, without a
/// bounds check on the decoder's path).
#[inline(always)]
pub const fn rate_bits(r: u8) -> u32 {
    RATE_BITS_32[r as usize & 31] as u32
}

/// [`RATE_BITS`] padded with zeros to 32 entries (any 5-bit index).
const RATE_BITS_32: [u8; 32] = {
    let mut t = [0u8; 32];
    let mut r = 0;
    while r < NUM_RATES {
        t[r] = RATE_BITS[r];
        r += 1;
    }
    t
};

/// `1 / (2^bits - 1)` of rate index `r` (5 bits): 0 for [`RATE_CONSTANT`], [`RATE_RAW`] and
/// invalid indices. The multiplier [`coefficients`] applies.
#[inline(always)]
pub fn inv_max_q(r: u8) -> f32 {
    INV_MAX_Q[r as usize & 31]
}

/// Largest quantised value at `bits` bits (1..=24).
#[inline(always)]
fn max_q(bits: u32) -> f32 {
    ((1u32 << bits) - 1) as f32
}

/// `1 / max_q(bits)` per rate index (0 for the constant and raw rates), so decoding multiplies.
const INV_MAX_Q: [f32; 32] = {
    let mut t = [0.0f32; 32];
    let mut r = 1;
    while r < NUM_RATES - 1 {
        t[r] = 1.0 / ((1u32 << RATE_BITS[r]) - 1) as f32;
        r += 1;
    }
    t
};

/// A component's clip range: `value = norm * extent + min`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ClipRange {
    /// Smallest value over the clip.
    pub min: f32,
    /// Largest minus smallest value.
    pub extent: f32,
}

impl ClipRange {
    /// The range covering `values`.
    pub fn of(values: impl Iterator<Item = f32>) -> ClipRange {
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for v in values {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            return ClipRange::default();
        }
        ClipRange {
            min: lo,
            extent: hi - lo,
        }
    }

    /// `v` normalised into [0, 1] (0 when the extent is zero).
    #[inline]
    pub fn normalize(&self, v: f32) -> f32 {
        if self.extent > 0.0 {
            ((v - self.min) / self.extent).clamp(0.0, 1.0)
        } else {
            0.0
        }
    }

    /// Inverse of [`normalize`](Self::normalize).
    #[inline(always)]
    pub fn denormalize(&self, n: f32) -> f32 {
        n * self.extent + self.min
    }
}

/// A rotation component's clip range as stored: 16-bit min and extent over [-1, 1], the min
/// rounded down and the max rounded up so the range still covers every value.
pub fn rotation_range_fields(r: &ClipRange) -> (u16, u16) {
    let to = |v: f32| (v + 1.0) * 0.5 * 65535.0;
    let lo = to(r.min).floor().clamp(0.0, 65535.0) as u32;
    let hi = (to(r.min + r.extent).ceil().clamp(0.0, 65535.0) as u32).max(lo);
    (lo as u16, (hi - lo) as u16)
}

/// The clip range of stored rotation range fields (see [`rotation_range_fields`]).
#[inline(always)]
pub fn rotation_range(min_q: u16, extent_q: u16) -> ClipRange {
    ClipRange {
        min: min_q as f32 * (2.0 / 65535.0) - 1.0,
        extent: extent_q as f32 * (2.0 / 65535.0),
    }
}

/// A segment range field as stored: 8-bit min and 8-bit extent (fractions of 255 of the clip
/// range), packed as `min | extent << 8`. For [`RATE_CONSTANT`] the 16 bits are the value.
#[inline(always)]
pub fn segment_min_extent(field: u16) -> (f32, f32) {
    (
        EIGHT_BIT_FRACTION[(field & 0xFF) as usize],
        EIGHT_BIT_FRACTION[(field >> 8) as usize],
    )
}

/// `i / 255` for every 8-bit `i` (a table lookup is cheaper than converting and multiplying,
/// and gives the same values: they are computed the same way).
const EIGHT_BIT_FRACTION: [f32; 256] = {
    let mut t = [0.0f32; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = i as f32 * (1.0 / 255.0);
        i += 1;
    }
    t
};

/// The segment range field covering normalised values in `[lo, hi]`.
pub fn segment_field(lo: f32, hi: f32) -> u16 {
    let lo8 = (lo.clamp(0.0, 1.0) * 255.0).floor().min(255.0) as u32;
    let hi8 = (hi.clamp(0.0, 1.0) * 255.0).ceil().clamp(lo8 as f32, 255.0) as u32;
    (lo8 | ((hi8 - lo8) << 8)) as u16
}

/// The [`RATE_CONSTANT`] field for a normalised value.
pub fn constant_field(n: f32) -> u16 {
    (n.clamp(0.0, 1.0) * 65535.0 + 0.5).floor().min(65535.0) as u16
}

/// Quantises a clip-normalised value `n` at a rate in `1..RATE_RAW` given the segment field.
#[inline]
pub fn quantize(n: f32, field: u16, bits: u32) -> u32 {
    let (smin, sext) = segment_min_extent(field);
    let t = if sext > 0.0 {
        ((n - smin) / sext).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let m = max_q(bits);
    // t * m + 0.5 is non-negative, so truncation is the floor.
    ((t * m + 0.5) as u32).min(m as u32)
}

/// A quantised component's decode as `q * mul + add`, for a rate in `0..RATE_RAW` (for
/// [`RATE_CONSTANT`] `q` is 0 and `add` is the value). The decoder computes this once per
/// sub-track and segment and applies it to every sample it reads; [`dequantize`] is built on it,
/// so encoder and decoder round identically.
#[inline(always)]
pub fn coefficients(rate: u8, field: u16, range: &ClipRange) -> (f32, f32) {
    if rate == RATE_CONSTANT {
        (0.0, range.denormalize(field as f32 * (1.0 / 65535.0)))
    } else {
        let (smin, sext) = segment_min_extent(field);
        (
            INV_MAX_Q[rate as usize & 31] * sext * range.extent,
            smin * range.extent + range.min,
        )
    }
}

/// `if c { a } else { b }` on the bits, without a branch.
#[inline(always)]
pub fn select(c: bool, a: f32, b: f32) -> f32 {
    let m = (c as u32).wrapping_neg();
    f32::from_bits((a.to_bits() & m) | (b.to_bits() & !m))
}

/// Decodes a stored component. `q` is the stored field (0 for [`RATE_CONSTANT`], the `f32`
/// bits for [`RATE_RAW`]).
#[inline(always)]
pub fn dequantize(q: u32, rate: u8, field: u16, range: &ClipRange) -> f32 {
    if rate == RATE_RAW {
        return f32::from_bits(q);
    }
    let (mul, add) = coefficients(rate, field, range);
    // Quantised fields have at most 24 bits: the signed conversion is exact (the decoder's too).
    (q as i32) as f32 * mul + add
}

/// Encodes raw value `v` at `rate` and returns (stored field, decoded value).
#[inline]
pub fn encode_value(v: f32, rate: u8, field: u16, range: &ClipRange) -> (u32, f32) {
    let q = if rate == RATE_CONSTANT {
        0
    } else if rate == RATE_RAW {
        v.to_bits()
    } else {
        quantize(range.normalize(v), field, rate_bits(rate))
    };
    (q, dequantize(q, rate, field, range))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coefficients_follow_the_rate_cases() {
        let range = ClipRange {
            min: -3.0,
            extent: 10.0,
        };
        for field in [0u16, 1, 255, 0x80FF, 0xFFFF] {
            let (m, a) = coefficients(RATE_CONSTANT, field, &range);
            assert_eq!(m.to_bits(), 0f32.to_bits());
            assert_eq!(a, range.denormalize(field as f32 * (1.0 / 65535.0)));
            for rate in 1..RATE_RAW {
                let (smin, sext) = segment_min_extent(field);
                let (m, a) = coefficients(rate, field, &range);
                assert_eq!(m, INV_MAX_Q[rate as usize] * sext * range.extent);
                assert_eq!(a, smin * range.extent + range.min);
            }
        }
        assert_eq!(select(true, 1.5, f32::NAN), 1.5);
        assert!(select(false, 1.5, f32::NAN).is_nan());
    }

    #[test]
    fn error_shrinks_with_bits() {
        let range = ClipRange {
            min: -3.0,
            extent: 10.0,
        };
        let values: Vec<f32> = (0..50).map(|i| -1.0 + i as f32 * 0.05).collect();
        let lo = values
            .iter()
            .map(|&v| range.normalize(v))
            .fold(1.0f32, f32::min);
        let hi = values
            .iter()
            .map(|&v| range.normalize(v))
            .fold(0.0f32, f32::max);
        let field = segment_field(lo, hi);
        let mut last = f32::INFINITY;
        for r in 1..RATE_RAW {
            let err = values
                .iter()
                .map(|&v| (encode_value(v, r, field, &range).1 - v).abs())
                .fold(0.0f32, f32::max);
            // Half a step of the segment extent (which is at most 2.5 + 2/255 of 10).
            let step = (2.5 + 20.0 / 255.0) / max_q(rate_bits(r));
            assert!(err <= step * 0.5 + 1e-5, "rate {r}: {err} > {step}");
            assert!(err <= last + 1e-6);
            last = err;
        }
        assert_eq!(encode_value(1.2345, RATE_RAW, 0, &range).1, 1.2345);
    }

    #[test]
    fn constant_field_roundtrips() {
        let range = ClipRange {
            min: 2.0,
            extent: 4.0,
        };
        let v = 3.3;
        let f = constant_field(range.normalize(v));
        assert!((dequantize(0, RATE_CONSTANT, f, &range) - v).abs() <= 4.0 / 65535.0);
    }
}
