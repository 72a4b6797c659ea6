//! The plain segmented curve scheme, as a measurement-only baseline for `animcomp bench`: 16-sample
//! segments; a curve whose whole range fits within twice its precision is stored once (one f32);
//! every other curve stores its clip range (2 × f32) and, per segment, its range quantised to
//! 16 + 16 bits within the clip range (rounded outward), a 5-bit width, and every sample at the
//! smallest uniform width whose decoded values all meet the curve's precision (32-bit floats
//! when none does). Sizes are in bits, rounded up to bytes once per clip; errors are measured
//! through this scheme's own decode.

use animcomp::Curve;

/// Samples per segment.
pub const SEGMENT: usize = 16;

/// Size and worst error of the baseline on a set of curves.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Baseline {
    /// Bytes.
    pub bytes: u64,
    /// Largest absolute error over every sample of every curve.
    pub max_error: f32,
}

fn unorm(v: f32, bits: u32) -> u32 {
    let m = ((1u64 << bits) - 1) as f32;
    (v.clamp(0.0, 1.0) * m).round() as u32
}

fn from_unorm(q: u32, bits: u32) -> f32 {
    q as f32 / ((1u64 << bits) - 1) as f32
}

/// Segment range quantised outward to 16 bits within the clip range.
fn segment_range(seg: &[f32], cmin: f32, cext: f32) -> (f32, f32) {
    let lo = seg.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = seg.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let m = 65535.0;
    let q0 = (((lo - cmin) / cext) * m).floor().clamp(0.0, m);
    let q1 = (((hi - cmin) / cext) * m).ceil().clamp(q0, m);
    (cmin + q0 / m * cext, (q1 - q0) / m * cext)
}

/// Bits and worst error of one segment at the smallest width that meets `p`.
fn segment(seg: &[f32], smin: f32, sext: f32, p: f32) -> (u64, f32) {
    for bits in 0..=24u32 {
        let err = seg
            .iter()
            .map(|&v| {
                let d = if bits == 0 || sext == 0.0 {
                    smin
                } else {
                    smin + from_unorm(unorm((v - smin) / sext, bits), bits) * sext
                };
                (d - v).abs()
            })
            .fold(0.0f32, f32::max);
        if err <= p {
            return (32 + 5 + bits as u64 * seg.len() as u64, err);
        }
    }
    (32 + 5 + 32 * seg.len() as u64, 0.0)
}

/// Encodes (in size only) and measures the curves.
pub fn measure(curves: &[Curve]) -> Baseline {
    let mut bits = 0u64;
    let mut max_error = 0.0f32;
    for c in curves {
        let lo = c.values.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = c.values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mid = lo + (hi - lo) * 0.5;
        let const_err = c
            .values
            .iter()
            .map(|v| (v - mid).abs())
            .fold(0.0f32, f32::max);
        if const_err <= c.precision {
            bits += 32;
            max_error = max_error.max(const_err);
            continue;
        }
        bits += 64;
        for seg in c.values.chunks(SEGMENT) {
            let (smin, sext) = segment_range(seg, lo, hi - lo);
            let (b, e) = segment(seg, smin, sext, c.precision);
            bits += b;
            max_error = max_error.max(e);
        }
    }
    Baseline {
        bytes: bits.div_ceil(8),
        max_error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_curves_cost_one_float_and_others_meet_precision() {
        let flat = Curve::new("f", 0, vec![0.5; 100]);
        assert_eq!(measure(std::slice::from_ref(&flat)).bytes, 4);
        let wave = Curve::new("w", 1, (0..100).map(|i| (i as f32 * 0.1).sin()).collect());
        let b = measure(&[wave]);
        assert!(b.max_error <= 0.001, "{}", b.max_error);
        assert!(b.bytes > 8 && b.bytes < 100 * 4, "{}", b.bytes);
    }
}
