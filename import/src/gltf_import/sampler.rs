//! Evaluation of one glTF animation sampler (keyframes + interpolation) at arbitrary times.

use animcomp::math::{Quat, Vec3};

/// How values between keys are computed (glTF `interpolation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interp {
    /// Hold the previous key's value.
    Step,
    /// Linear for vectors, spherical linear for rotations.
    Linear,
    /// Cubic Hermite spline with per-key in/out tangents.
    CubicSpline,
}

/// A keyframed channel: `times[k]` with values of `N` components (3 for translation and scale,
/// 4 for rotations). For [`Interp::CubicSpline`], `values` holds three entries per key:
/// in-tangent, value, out-tangent (glTF layout).
#[derive(Debug, Clone)]
pub struct Keys<const N: usize> {
    /// Key times in seconds, non-decreasing.
    pub times: Vec<f32>,
    /// Key values (three per key for cubic splines).
    pub values: Vec<[f32; N]>,
    /// Interpolation mode.
    pub interp: Interp,
}

fn lerp<const N: usize>(a: &[f32; N], b: &[f32; N], s: f32) -> [f32; N] {
    std::array::from_fn(|i| a[i] + (b[i] - a[i]) * s)
}

impl<const N: usize> Keys<N> {
    /// Checks counts; returns a message on failure.
    pub fn check(&self) -> Result<(), String> {
        if self.times.is_empty() {
            return Err("sampler has no keys".into());
        }
        let per_key = if self.interp == Interp::CubicSpline {
            3
        } else {
            1
        };
        if self.values.len() != self.times.len() * per_key {
            return Err(format!(
                "sampler has {} keys but {} output values (expected {})",
                self.times.len(),
                self.values.len(),
                self.times.len() * per_key
            ));
        }
        if self.times.iter().any(|t| !t.is_finite()) {
            return Err("sampler has a non-finite key time".into());
        }
        if self.times.windows(2).any(|w| w[1] < w[0]) {
            return Err("sampler key times are not increasing".into());
        }
        Ok(())
    }

    fn value(&self, k: usize) -> [f32; N] {
        match self.interp {
            Interp::CubicSpline => self.values[3 * k + 1],
            _ => self.values[k],
        }
    }

    /// The value at time `t` (clamped to the first/last key outside the key range).
    /// `slerp` selects spherical interpolation for LINEAR rotations (N = 4).
    pub fn eval(&self, t: f32, slerp: bool) -> [f32; N] {
        let n = self.times.len();
        if t <= self.times[0] {
            return self.value(0);
        }
        if t >= self.times[n - 1] {
            return self.value(n - 1);
        }
        // First key strictly after t; k is the key at or before t.
        let k1 = self.times.partition_point(|&x| x <= t);
        let k = k1 - 1;
        let (t0, t1) = (self.times[k], self.times[k1]);
        let td = t1 - t0;
        let s = if td > 0.0 { (t - t0) / td } else { 0.0 };
        match self.interp {
            Interp::Step => self.value(k),
            Interp::Linear if slerp && N == 4 => {
                let a = self.values[k];
                let b = self.values[k1];
                let qa = Quat::from_xyzw(a[0], a[1], a[2], a[3]).normalize();
                let qb = Quat::from_xyzw(b[0], b[1], b[2], b[3]).normalize();
                let q = qa.slerp(qb, s).to_array();
                std::array::from_fn(|i| q[i])
            }
            Interp::Linear => lerp(&self.values[k], &self.values[k1], s),
            Interp::CubicSpline => {
                let v0 = self.values[3 * k + 1];
                let b0 = self.values[3 * k + 2]; // out-tangent of key k
                let a1 = self.values[3 * k1]; // in-tangent of key k+1
                let v1 = self.values[3 * k1 + 1];
                let (s2, s3) = (s * s, s * s * s);
                let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
                let h10 = s3 - 2.0 * s2 + s;
                let h01 = -2.0 * s3 + 3.0 * s2;
                let h11 = s3 - s2;
                std::array::from_fn(|i| {
                    h00 * v0[i] + h10 * td * b0[i] + h01 * v1[i] + h11 * td * a1[i]
                })
            }
        }
    }
}

/// Evaluates a rotation channel at `t` as a unit quaternion.
pub fn eval_rotation(keys: &Keys<4>, t: f32) -> Quat {
    let v = keys.eval(t, true);
    let q = Quat::from_xyzw(v[0], v[1], v[2], v[3]);
    let len = q.length();
    if len > 0.0 && len.is_finite() {
        q / len
    } else {
        q
    }
}

/// Evaluates a translation or scale channel at `t`.
pub fn eval_vec3(keys: &Keys<3>, t: f32) -> Vec3 {
    Vec3::from_array(keys.eval(t, false))
}
