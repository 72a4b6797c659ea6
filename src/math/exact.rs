//! Quaternion and four-lane arithmetic in one written order, so every CPU and ISA path rounds the
//! same way (docs/determinism.md).
//!
//! `glam` picks its implementation per target: SSE2 on x86-64, NEON on aarch64, plain scalar code
//! on wasm32 without `simd128`. Element-wise operations round the same everywhere, but a
//! four-lane reduction (`dot`, `length`, `normalize`) sums its products in a different order on
//! each (`(x + z) + (y + w)` with SSE2, `(x + y) + (z + w)` with NEON's `vaddvq`, left to right
//! in scalar code), and quaternion products group their terms differently. These functions
//! spell out the x86-64 SSE2 order in scalar `f32` operations (no fused multiply-add: Rust never
//! contracts), so every other target gets x86-64's bits. On x86-64 they call glam's SSE2 code
//! itself (as fast as before, and bit for bit the spelled-out order: a test checks it there).
//! Every pose, metric or encoder computation on quaternions or `Vec4`s uses them instead of
//! glam's methods.

use super::{Quat, Vec3, Vec3A, Vec4};

/// Calls glam on x86-64 (`$glam`), the spelled-out order elsewhere (`$scalar`).
macro_rules! per_target {
    ($glam:expr, $scalar:expr) => {{
        #[cfg(target_arch = "x86_64")]
        {
            $glam
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            $scalar
        }
    }};
}

/// `a · b`, summed `(x + z) + (y + w)` (glam's SSE2 `dot4`).
#[inline(always)]
pub fn dot4(a: Vec4, b: Vec4) -> f32 {
    per_target!(a.dot(b), scalar::dot4(a, b))
}

/// `a · b` of two quaternions ([`dot4`]).
#[inline(always)]
pub fn quat_dot(a: Quat, b: Quat) -> f32 {
    dot4(a.into(), b.into())
}

/// Squared length of a quaternion ([`dot4`]).
#[inline(always)]
pub fn quat_length_squared(q: Quat) -> f32 {
    quat_dot(q, q)
}

/// Length of a quaternion.
#[inline(always)]
pub fn quat_length(q: Quat) -> f32 {
    quat_length_squared(q).sqrt()
}

/// `q / |q|`, each component divided by the length (glam's `normalize`, no check).
#[inline(always)]
pub fn quat_normalize(q: Quat) -> Quat {
    per_target!(q.normalize(), scalar::quat_normalize(q))
}

/// `a * b` (apply `b`, then `a`), each lane summed as glam's SSE2 product (after RTM's
/// `quat_mul`): two partial sums, then their sum.
#[inline(always)]
pub fn quat_mul(a: Quat, b: Quat) -> Quat {
    per_target!(a * b, scalar::quat_mul(a, b))
}

/// `q` applied to `v` (glam's SSE2 `Quat * Vec3A`): `v (w² - |b|²) + b (2 v·b) + (b × v) 2w`.
#[inline(always)]
pub fn quat_rotate(q: Quat, v: Vec3) -> Vec3 {
    per_target!(q * v, scalar::quat_rotate(q, v))
}

/// `v / |v|`, or `None` when that is not finite or `v` is zero (glam's `try_normalize`:
/// multiplied by `1 / sqrt(v · v)`).
#[inline(always)]
pub fn vec4_try_normalize(v: Vec4) -> Option<Vec4> {
    let rcp = 1.0 / dot4(v, v).sqrt();
    (rcp.is_finite() && rcp > 0.0).then(|| v * rcp)
}

/// [`quat_rotate`] on a 16-byte vector.
#[inline(always)]
pub fn quat_rotate_a(q: Quat, v: Vec3A) -> Vec3A {
    per_target!(q * v, scalar::quat_rotate(q, v.into()).into())
}

/// The spelled-out order (what non-x86-64 targets run).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) mod scalar {
    use super::{Quat, Vec3, Vec4};

    /// `a · b`, `(x + z) + (y + w)`.
    #[inline(always)]
    pub fn dot4(a: Vec4, b: Vec4) -> f32 {
        (a.x * b.x + a.z * b.z) + (a.y * b.y + a.w * b.w)
    }

    /// `q / sqrt(q · q)`, component by component.
    #[inline(always)]
    pub fn quat_normalize(q: Quat) -> Quat {
        let l = dot4(q.into(), q.into()).sqrt();
        Quat::from_xyzw(q.x / l, q.y / l, q.z / l, q.w / l)
    }

    /// `a * b`: per lane `(p + q) + (r + s)` with glam's SSE2 operands and signs.
    #[inline(always)]
    pub fn quat_mul(a: Quat, b: Quat) -> Quat {
        let (x0, y0, z0, w0) = (a.x, a.y, a.z, a.w);
        let (x1, y1, z1, w1) = (b.x, b.y, b.z, b.w);
        Quat::from_xyzw(
            (x0 * w1 + w0 * x1) + (-(z0 * y1) + y0 * z1),
            (-(x0 * z1) + w0 * y1) + (z0 * x1 + y0 * w1),
            (x0 * y1 + w0 * z1) + (z0 * w1 + -(y0 * x1)),
            (-(x0 * x1) + w0 * w1) + (-(z0 * z1) + -(y0 * y1)),
        )
    }

    /// `q` applied to `v`: per lane `(v s + b d) + c w2` with glam's SSE2 cross product.
    #[inline(always)]
    pub fn quat_rotate(q: Quat, v: Vec3) -> Vec3 {
        let b = Vec3::new(q.x, q.y, q.z);
        let w = q.w;
        let b2 = (b.x * b.x + b.y * b.y) + b.z * b.z;
        let d2 = ((v.x * b.x + v.y * b.y) + v.z * b.z) * 2.0;
        let s = w * w - b2;
        let w2 = w * 2.0;
        let c = Vec3::new(
            b.y * v.z - v.y * b.z,
            b.z * v.x - v.z * b.x,
            b.x * v.y - v.x * b.y,
        );
        Vec3::new(
            (v.x * s + b.x * d2) + c.x * w2,
            (v.y * s + b.y * d2) + c.y * w2,
            (v.z * s + b.z * d2) + c.z * w2,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Awkward floats: unit-ish values, tiny, huge, zeros of both signs, NaN, infinities.
    #[cfg(target_arch = "x86_64")]
    fn floats(x: &mut u64) -> f32 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        match *x % 32 {
            0 => 0.0,
            1 => -0.0,
            2 => f32::NAN,
            3 => f32::INFINITY,
            4 => f32::from_bits((*x >> 32) as u32),
            5 => 1e-30,
            6 => -3e20,
            _ => ((*x >> 40) as f32 / (1u64 << 23) as f32) - 1.0,
        }
    }

    #[cfg(target_arch = "x86_64")]
    fn quat(x: &mut u64) -> Quat {
        Quat::from_xyzw(floats(x), floats(x), floats(x), floats(x))
    }

    #[cfg(target_arch = "x86_64")]
    fn same(a: &[f32], b: &[f32]) -> bool {
        a.iter()
            .zip(b)
            .all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()))
    }

    /// On x86-64 the spelled-out order is glam's SSE2 results bit for bit: what other targets run
    /// is what x86-64 computes.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn helpers_are_glam_sse2_bit_for_bit() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..200_000 {
            let (a, b) = (quat(&mut x), quat(&mut x));
            let v = Vec3::new(floats(&mut x), floats(&mut x), floats(&mut x));
            let (va, vb) = (Vec4::from(a), Vec4::from(b));
            assert!(same(&[scalar::dot4(va, vb)], &[va.dot(vb)]), "{a} {b}");
            assert!(same(&[quat_length(a)], &[a.length()]), "{a}");
            let (m, n) = (scalar::quat_mul(a, b), a * b);
            assert!(same(&m.to_array(), &n.to_array()), "{a} {b}");
            let (m, n) = (scalar::quat_normalize(a), a.normalize());
            assert!(same(&m.to_array(), &n.to_array()), "{a}");
            let (m, n) = (scalar::quat_rotate(a, v), a * v);
            assert!(same(&m.to_array(), &n.to_array()), "{a} {v}");
        }
    }

    /// The written order, checked on every target against one spelled-out case whose sums round
    /// differently in another order.
    #[test]
    fn the_order_is_x_plus_z_then_y_plus_w() {
        let a = Vec4::new(1.0, 1.0e-8, -1.0, 1.0e-8);
        // (1 - 1) + (1e-8 + 1e-8) = 2e-8; left to right, 1 + 1e-8 rounds to 1 and gives 1e-8.
        assert_eq!(dot4(a, Vec4::ONE), 2.0e-8);
        assert_eq!(scalar::dot4(a, Vec4::ONE), 2.0e-8);
        let q = Quat::from_xyzw(0.5, -0.5, 0.5, 0.5);
        let r = quat_mul(q, Quat::from_xyzw(0.0, 0.0, 0.0, 1.0));
        assert_eq!(r.to_array(), q.to_array());
        let h = core::f32::consts::FRAC_1_SQRT_2;
        let v = quat_rotate(Quat::from_xyzw(0.0, 0.0, h, h), Vec3::X);
        assert!((v - Vec3::Y).length() < 1e-6, "{v}");
    }
}
