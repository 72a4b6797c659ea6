//! Small transform and quaternion helpers on top of `glam`.
//!
//! A [`Transform`] is a QVV: rotation quaternion, translation, non-uniform scale. Composition follows
//! ACL's convention: `parent * child` rotates, then scales, then translates the child.

pub use glam::{Quat, Vec3, Vec3A, Vec4};

mod exact;
pub mod trig;

pub use exact::{
    dot4, quat_dot, quat_length, quat_length_squared, quat_mul, quat_normalize, quat_rotate,
    quat_rotate_a, vec4_try_normalize,
};

/// Floats per joint in a sampled pose: `qx qy qz qw tx ty tz sx sy sz`.
pub const FLOATS_PER_JOINT: usize = 10;
/// Where each channel starts in a joint's ten floats: rotation (4 floats), translation (3),
/// scale (3).
pub const CHANNEL_OFFSETS: [usize; 3] = [0, 4, 7];

/// A local or object-space joint transform (rotation, translation, scale).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// Unit rotation quaternion.
    pub rotation: Quat,
    /// Translation.
    pub translation: Vec3,
    /// Per-axis scale.
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// The identity transform.
    pub const IDENTITY: Transform = Transform {
        rotation: Quat::IDENTITY,
        translation: Vec3::ZERO,
        scale: Vec3::ONE,
    };

    /// `parent * child`: the child's transform expressed in the parent's space.
    #[inline]
    pub fn mul(parent: &Transform, child: &Transform) -> Transform {
        Transform {
            rotation: quat_normalize(quat_mul(parent.rotation, child.rotation)),
            translation: quat_rotate(parent.rotation, parent.scale * child.translation)
                + parent.translation,
            scale: parent.scale * child.scale,
        }
    }

    /// Transforms a point: scale, then rotate, then translate.
    #[inline]
    pub fn transform_point(&self, p: Vec3) -> Vec3 {
        quat_rotate(self.rotation, self.scale * p) + self.translation
    }

    /// Writes the transform as 10 floats (`qx qy qz qw tx ty tz sx sy sz`).
    #[inline]
    pub fn write_to(&self, out: &mut [f32]) {
        out[..4].copy_from_slice(&self.rotation.to_array());
        out[4..7].copy_from_slice(&self.translation.to_array());
        out[7..10].copy_from_slice(&self.scale.to_array());
    }

    /// Reads a transform from 10 floats (`qx qy qz qw tx ty tz sx sy sz`).
    #[inline]
    pub fn read_from(v: &[f32]) -> Transform {
        Transform {
            rotation: Quat::from_xyzw(v[0], v[1], v[2], v[3]),
            translation: Vec3::new(v[4], v[5], v[6]),
            scale: Vec3::new(v[7], v[8], v[9]),
        }
    }
}

/// Normalised linear interpolation on the shortest arc.
#[inline]
pub fn nlerp_shortest(a: Quat, b: Quat, t: f32) -> Quat {
    // Component-wise lerp then one normalisation (glam's `Quat::lerp` normalises too, which
    // would make this normalise twice on the hot path).
    let (va, vb) = (Vec4::from(a), Vec4::from(b));
    let vb = if dot4(va, vb) < 0.0 { -vb } else { vb };
    let v = va + (vb - va) * t;
    let len2 = dot4(v, v);
    if len2 > 0.0 {
        Quat::from_vec4(v * len2.sqrt().recip())
    } else {
        a
    }
}

/// Flips quaternions so each is on the same hemisphere as its predecessor (sign continuity).
pub fn make_continuous(qs: &mut [Quat]) {
    for i in 1..qs.len() {
        if quat_dot(qs[i - 1], qs[i]) < 0.0 {
            qs[i] = -qs[i];
        }
    }
}

/// Returns `q` with a non-negative W component (the same rotation).
#[inline]
pub fn positive_w(q: Quat) -> Quat {
    if q.w < 0.0 {
        -q
    } else {
        q
    }
}

/// Angle in radians of the rotation taking `a` to `b` (0..=pi).
#[inline]
pub fn angle_between(a: Quat, b: Quat) -> f32 {
    let d = quat_dot(a, b).abs().min(1.0);
    2.0 * d.acos()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mul_composes_like_matrices_without_scale() {
        let p = Transform {
            rotation: Quat::from_rotation_z(0.7),
            translation: Vec3::new(1.0, 2.0, 3.0),
            scale: Vec3::ONE,
        };
        let c = Transform {
            rotation: Quat::from_rotation_x(-0.3),
            translation: Vec3::new(0.5, -1.0, 2.0),
            scale: Vec3::ONE,
        };
        let pc = Transform::mul(&p, &c);
        let pt = Vec3::new(0.3, 0.2, -0.9);
        let a = pc.transform_point(pt);
        let b = p.transform_point(c.transform_point(pt));
        assert!((a - b).length() < 1e-5, "{a} vs {b}");
    }

    #[test]
    fn nlerp_takes_short_arc() {
        let a = Quat::from_rotation_y(0.1);
        let b = -Quat::from_rotation_y(0.3);
        let m = nlerp_shortest(a, b, 0.5);
        assert!(angle_between(m, Quat::from_rotation_y(0.2)) < 1e-3);
    }

    #[test]
    fn roundtrip_floats() {
        let t = Transform {
            rotation: Quat::from_rotation_x(0.4),
            translation: Vec3::new(1.0, 2.0, 3.0),
            scale: Vec3::new(1.0, 2.0, 0.5),
        };
        let mut v = [0.0; 10];
        t.write_to(&mut v);
        assert_eq!(Transform::read_from(&v), t);
    }
}
