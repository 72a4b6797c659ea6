//! Key selection by removal: trivial (constant / default) tracks, every-Nth keys, and Unreal-style
//! linear key removal.

use crate::math::dot4;
use glam::Vec4;

use super::tolerance::local_error;
use crate::format::keys::interp::{eval, linear, Interp};
use crate::format::keys::layout::CH_ROTATION;

/// One track as the key selectors see it.
pub struct FitInput<'a> {
    /// Raw values per sample (rotations as x y z w; vectors with w = 0).
    pub raw: &'a [Vec4],
    /// Values each sample would decode to if stored as a key (quantised).
    pub quant: &'a [Vec4],
    /// Channel number (rotation, translation, scale).
    pub channel: usize,
    /// Shell distance for [`local_error`].
    pub shell: f32,
    /// Largest accepted [`local_error`] at any sample.
    pub tol: f32,
}

impl FitInput<'_> {
    /// Error of `v` against raw sample `s`.
    #[inline]
    pub fn err(&self, s: usize, v: Vec4) -> f32 {
        local_error(self.channel, self.raw[s], v, self.shell)
    }

    /// Whether this is a rotation track.
    #[inline]
    pub fn rotation(&self) -> bool {
        self.channel == CH_ROTATION
    }

    /// The reconstruction of sample `s` from the chosen keys (sorted sample indices, first 0 and
    /// last n-1) where `k` is the span containing `s`.
    #[inline]
    pub fn reconstruct(&self, keys: &[u32], k: usize, s: usize, interp: Interp) -> Vec4 {
        let n = keys.len() as isize;
        let at = |d: isize| keys[(k as isize + d).clamp(0, n - 1) as usize] as usize;
        let idx = [at(-1), at(0), at(1), at(2)];
        let ts = idx.map(|i| i as f32);
        let vs = idx.map(|i| self.quant[i]);
        eval(interp, ts, vs, s as f32, self.rotation())
    }

    /// Largest error over the samples strictly inside span `k` of `keys`.
    pub fn span_error(&self, keys: &[u32], k: usize, interp: Interp) -> f32 {
        let (a, b) = (keys[k] as usize, keys[k + 1] as usize);
        let mut worst = 0.0f32;
        for s in a + 1..b {
            worst = worst.max(self.err(s, self.reconstruct(keys, k, s, interp)));
        }
        worst
    }

    /// Largest error over every sample (keys included: they carry quantisation error).
    pub fn max_error(&self, keys: &[u32], interp: Interp) -> f32 {
        let mut worst = 0.0f32;
        for k in 0..keys.len() {
            worst = worst.max(self.err(keys[k] as usize, self.quant[keys[k] as usize]));
            if k + 1 < keys.len() {
                worst = worst.max(self.span_error(keys, k, interp));
            }
        }
        worst
    }
}

/// A single value that represents the whole track within tolerance, if there is one: the middle
/// of the range for vectors, the normalised mean for rotations.
pub fn constant_fit(inp: &FitInput) -> Option<Vec4> {
    let v = if inp.rotation() {
        let first = inp.raw[0];
        let sum = inp.raw.iter().fold(Vec4::ZERO, |acc, q| {
            acc + if dot4(*q, first) < 0.0 { -*q } else { *q }
        });
        let l = dot4(sum, sum).sqrt();
        if l <= 0.0 {
            return None;
        }
        sum / l
    } else {
        let (lo, hi) = inp.raw.iter().fold(
            (Vec4::splat(f32::INFINITY), Vec4::splat(f32::NEG_INFINITY)),
            |(lo, hi), v| (lo.min(*v), hi.max(*v)),
        );
        (lo + hi) * 0.5
    };
    fits_value(inp, v).then_some(v)
}

/// Whether `v` is within tolerance of every raw sample.
pub fn fits_value(inp: &FitInput, v: Vec4) -> bool {
    (0..inp.raw.len()).all(|s| inp.err(s, v) <= inp.tol)
}

/// Every-Nth key selection: sample 0, then `start`, `start + interval`, ..., and the last sample.
pub fn every_nth(num_samples: usize, start: usize, interval: usize) -> Vec<u32> {
    let last = num_samples.saturating_sub(1);
    let mut keys = vec![0u32];
    let mut s = start.max(1);
    let step = interval.max(1);
    while s < last {
        keys.push(s as u32);
        s += step;
    }
    if last > 0 {
        keys.push(last as u32);
    }
    keys
}

/// Whether linear interpolation between samples `lo` and `hi` reconstructs every sample in
/// between within tolerance.
fn linear_span_ok(inp: &FitInput, lo: usize, hi: usize) -> bool {
    let (t0, t1) = (lo as f32, hi as f32);
    let (v0, v1) = (inp.quant[lo], inp.quant[hi]);
    (lo + 1..hi).all(|s| inp.err(s, linear(t0, v0, t1, v1, s as f32, inp.rotation())) <= inp.tol)
}

/// Unreal-style linear key removal: from each kept key, binary-search the furthest later sample
/// whose linear (nlerp for rotations) interpolation reconstructs every skipped sample within
/// tolerance, keep it, and continue from there. Returns sorted sample indices (first and last
/// sample always kept).
pub fn linear_keys(inp: &FitInput) -> Vec<u32> {
    let n = inp.raw.len();
    let mut keys = vec![0u32];
    if n < 2 {
        return keys;
    }
    let mut lo = 0usize;
    while lo < n - 1 {
        // Invariant: `ok` is a reconstructible end (lo + 1 always is).
        let mut ok = lo + 1;
        if linear_span_ok(inp, lo, n - 1) {
            ok = n - 1;
        } else {
            let mut bad = n - 1;
            while bad - ok > 1 {
                let mid = ok + (bad - ok) / 2;
                if linear_span_ok(inp, lo, mid) {
                    ok = mid;
                } else {
                    bad = mid;
                }
            }
        }
        keys.push(ok as u32);
        lo = ok;
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_nth_keeps_ends() {
        assert_eq!(every_nth(10, 2, 3), vec![0, 2, 5, 8, 9]);
        assert_eq!(every_nth(1, 1, 1), vec![0]);
        assert_eq!(every_nth(2, 5, 5), vec![0, 1]);
    }

    #[test]
    fn linear_data_reduces_to_end_keys() {
        let raw: Vec<Vec4> = (0..100)
            .map(|i| Vec4::new(i as f32 * 0.5, 2.0 - i as f32 * 0.1, 3.0, 0.0))
            .collect();
        let inp = FitInput {
            raw: &raw,
            quant: &raw,
            channel: 1,
            shell: 3.0,
            tol: 1e-4,
        };
        assert_eq!(linear_keys(&inp), vec![0, 99]);
        assert!(constant_fit(&inp).is_none());
    }

    #[test]
    fn kink_is_kept() {
        let raw: Vec<Vec4> = (0..50)
            .map(|i| Vec4::new((i as f32 - 20.0).abs(), 0.0, 0.0, 0.0))
            .collect();
        let inp = FitInput {
            raw: &raw,
            quant: &raw,
            channel: 1,
            shell: 3.0,
            tol: 1e-3,
        };
        assert_eq!(linear_keys(&inp), vec![0, 20, 49]);
    }
}
