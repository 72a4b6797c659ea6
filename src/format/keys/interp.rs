//! Interpolation between keys, shared bit-for-bit by the encoder, the stateless sampler and the
//! playback cursor (so all three reconstruct exactly the same values).
//!
//! Linear: lerp for vectors, nlerp on the shortest arc for rotations. Catmull-Rom: a cubic
//! Hermite span whose tangents are the non-uniform three-point derivatives at the key times
//! (exact for quadratics; one-sided at the clip ends); rotations are interpolated as 4D vectors
//! after putting every neighbour on the same hemisphere, then normalised.

use crate::math::dot4;
use glam::Vec4;

/// How a track interpolates between its keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Interp {
    /// Linear (nlerp for rotations); a key is needed from the time of the key before it.
    Linear = 0,
    /// Catmull-Rom over key times; a key is needed from the time of the key two before it.
    CatmullRom = 1,
}

impl Interp {
    /// How many keys before key `k` one must be at to need key `k`.
    #[inline]
    pub fn lookbehind(self) -> usize {
        match self {
            Interp::Linear => 1,
            Interp::CatmullRom => 2,
        }
    }
    /// Name for descriptions.
    pub fn name(self) -> &'static str {
        match self {
            Interp::Linear => "linear",
            Interp::CatmullRom => "catmull-rom",
        }
    }
}

/// Puts `q` on the same hemisphere as `reference`.
#[inline]
fn align(q: Vec4, reference: Vec4) -> Vec4 {
    if dot4(q, reference) < 0.0 {
        -q
    } else {
        q
    }
}

#[inline]
fn normalize_or(q: Vec4, fallback: Vec4) -> Vec4 {
    let l2 = dot4(q, q);
    if l2 > 0.0 && l2.is_finite() {
        q * l2.sqrt().recip()
    } else {
        fallback
    }
}

/// Linear interpolation between keys `(t0, v0)` and `(t1, v1)` at time `t`.
#[inline]
pub fn linear(t0: f32, v0: Vec4, t1: f32, v1: Vec4, t: f32, rotation: bool) -> Vec4 {
    let h = t1 - t0;
    let u = if h > 0.0 {
        ((t - t0) / h).clamp(0.0, 1.0)
    } else {
        0.0
    };
    if rotation {
        let v1 = align(v1, v0);
        normalize_or(v0 + (v1 - v0) * u, v0)
    } else {
        v0 + (v1 - v0) * u
    }
}

/// Derivative at the middle key from its neighbours (non-uniform three-point formula).
#[inline]
fn tangent(ta: f32, a: Vec4, tb: f32, b: Vec4, tc: f32, c: Vec4) -> Vec4 {
    let h0 = tb - ta;
    let h1 = tc - tb;
    match (h0 > 0.0, h1 > 0.0) {
        (true, true) => ((b - a) * (h1 / h0) + (c - b) * (h0 / h1)) / (h0 + h1),
        (true, false) => (b - a) / h0,
        (false, true) => (c - b) / h1,
        (false, false) => Vec4::ZERO,
    }
}

/// Catmull-Rom at time `t` within the span from key 1 to key 2 of `ts`/`vs` (keys 0 and 3 are the
/// neighbours; at the clip ends pass the end key twice).
#[inline]
pub fn catmull(ts: [f32; 4], vs: [Vec4; 4], t: f32, rotation: bool) -> Vec4 {
    let [t0, t1, t2, t3] = ts;
    let mut v = vs;
    if rotation {
        v[0] = align(v[0], v[1]);
        v[2] = align(v[2], v[1]);
        v[3] = align(v[3], v[2]);
    }
    let h = t2 - t1;
    if h <= 0.0 {
        return v[1];
    }
    let u = ((t - t1) / h).clamp(0.0, 1.0);
    let m1 = tangent(t0, v[0], t1, v[1], t2, v[2]) * h;
    let m2 = tangent(t1, v[1], t2, v[2], t3, v[3]) * h;
    let u2 = u * u;
    let u3 = u2 * u;
    let h00 = 2.0 * u3 - 3.0 * u2 + 1.0;
    let h10 = u3 - 2.0 * u2 + u;
    let h01 = -2.0 * u3 + 3.0 * u2;
    let h11 = u3 - u2;
    let r = v[1] * h00 + m1 * h10 + v[2] * h01 + m2 * h11;
    if rotation {
        normalize_or(r, v[1])
    } else {
        r
    }
}

/// Evaluates a track at time `t` from the keys `k-1, k, k+1, k+2` (clamped to the track's keys)
/// around the span `[k, k+1]` that contains `t`. Linear interpolation uses only keys `k` and `k+1`.
#[inline]
pub fn eval(interp: Interp, ts: [f32; 4], vs: [Vec4; 4], t: f32, rotation: bool) -> Vec4 {
    match interp {
        Interp::Linear => linear(ts[1], vs[1], ts[2], vs[2], t, rotation),
        Interp::CatmullRom => catmull(ts, vs, t, rotation),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catmull_hits_keys_and_reproduces_quadratics() {
        let f = |t: f32| Vec4::new(t * t * 0.5 - t, 3.0 * t, 1.0, 0.0);
        let ts = [0.0, 2.0, 5.0, 9.0];
        let vs = ts.map(f);
        for i in 0..=30 {
            let t = 2.0 + 3.0 * i as f32 / 30.0;
            let r = catmull(ts, vs, t, false);
            assert!((r - f(t)).length() < 1e-4, "{t} {r} {}", f(t));
        }
        assert_eq!(catmull(ts, vs, 2.0, false), vs[1]);
        assert!((catmull(ts, vs, 5.0, false) - vs[2]).length() < 1e-6);
    }

    #[test]
    fn linear_rotation_takes_short_arc() {
        let a = Vec4::new(0.0, 0.0, 0.0, 1.0);
        let b = -Vec4::new(0.0, (0.1f32).sin(), 0.0, (0.1f32).cos());
        let m = linear(0.0, a, 2.0, b, 1.0, true);
        assert!(m.w > 0.99);
    }
}
