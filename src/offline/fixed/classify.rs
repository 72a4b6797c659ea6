//! Default / constant / animated classification of each sub-track, judged by the error metric.
//!
//! A sub-track may be replaced by one value (the default or a stored constant) when, at every
//! sample, the displacement it causes to any point within the joint's dominant shell (which
//! covers the joint's own virtual vertices and everything below it) stays within
//! [`SUBSTITUTION_FRACTION`] of the joint's dominant precision:
//!
//! - rotation: `2 * shell * sin(angle / 2)`, the largest displacement of any point at distance
//!   `shell` (the metric's two or three vertices see at least `1/sqrt2` of it);
//! - translation: [`vertex_error`] of the local transforms, which is exactly `|delta t|`;
//! - scale: [`vertex_error`] with three vertices, which is exactly `shell * max |delta s_i|`.

use crate::format::fixed::layout::Kind;
use crate::math::{
    make_continuous, quat_dot, quat_length, quat_length_squared, quat_normalize, Quat, Transform,
    Vec3,
};
use crate::offline::clip::Track;
use crate::offline::metric::{vertex_error, DominantShell};

/// Fraction of the dominant precision each replaced channel may use. Rotation, translation and
/// scale errors add, so each gets a quarter.
pub const SUBSTITUTION_FRACTION: f32 = 0.25;

/// The plan for one joint: kind and value of each channel.
#[derive(Debug, Clone)]
pub(crate) struct JointPlan {
    /// Rotation kind.
    pub rot: Kind,
    /// Constant rotation (when `rot` is constant).
    pub rot_value: Quat,
    /// Sign-continuous rotations (the ones quantised when animated).
    pub rotations: Vec<Quat>,
    /// Translation kind.
    pub trans: Kind,
    /// Constant translation.
    pub trans_value: Vec3,
    /// Scale kind.
    pub scale: Kind,
    /// Constant scale.
    pub scale_value: Vec3,
}

/// Largest displacement of a point at distance `shell` rotated by `b` instead of `a`.
#[inline]
pub fn rotation_displacement(a: Quat, b: Quat, shell: f32) -> f32 {
    let b = if quat_dot(a, b) < 0.0 { -b } else { b };
    // Chord between the unit 4-vectors: c = 2 sin(phi / 2); the rotation angle is 2 phi and
    // sin(angle / 2) = sin(phi) = c * sqrt(1 - c^2 / 4). Precise for tiny angles, unlike acos.
    let c = quat_length(quat_normalize(a) - quat_normalize(b)).min(2.0);
    2.0 * shell * c * (1.0 - c * c * 0.25).max(0.0).sqrt()
}

fn rotation_fits(qs: &[Quat], v: Quat, shell: f32, tol: f32) -> bool {
    qs.iter()
        .all(|&q| rotation_displacement(q, v, shell) <= tol)
}

fn vector_fits(
    vs: &[Vec3],
    v: Vec3,
    tol: f32,
    make: impl Fn(Vec3) -> Transform,
    shell: f32,
) -> bool {
    let subst = make(v);
    vs.iter()
        .all(|&x| vertex_error(&make(x), &subst, shell, true) <= tol)
}

fn classify_vector(
    vs: &[Vec3],
    default: Vec3,
    tol: f32,
    shell: f32,
    make: impl Fn(Vec3) -> Transform + Copy,
) -> (Kind, Vec3) {
    if vector_fits(vs, default, tol, make, shell) {
        return (Kind::Default, default);
    }
    let (lo, hi) = vs.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(l, h), &v| (l.min(v), h.max(v)),
    );
    let mid = (lo + hi) * 0.5;
    for cand in [mid, vs[0]] {
        if vector_fits(vs, cand, tol, make, shell) {
            return (Kind::Constant, cand);
        }
    }
    (Kind::Animated, mid)
}

/// Classifies the three channels of one joint.
pub(crate) fn plan_joint(
    track: &Track,
    default: &Transform,
    shell: &DominantShell,
    has_scale: bool,
) -> JointPlan {
    let tol = shell.precision * SUBSTITUTION_FRACTION;
    let s = shell.shell_distance;
    let mut rotations = track.rotations.clone();
    make_continuous(&mut rotations);
    let (rot, rot_value) = if rotation_fits(&rotations, default.rotation, s, tol) {
        (Kind::Default, default.rotation)
    } else {
        let sum = rotations
            .iter()
            .fold(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0), |acc, &q| acc + q);
        let mean = if quat_length_squared(sum) > 1e-12 {
            quat_normalize(sum)
        } else {
            rotations[0]
        };
        if rotation_fits(&rotations, mean, s, tol) {
            (Kind::Constant, mean)
        } else if rotation_fits(&rotations, rotations[0], s, tol) {
            (Kind::Constant, rotations[0])
        } else {
            (Kind::Animated, mean)
        }
    };
    let (trans, trans_value) =
        classify_vector(&track.translations, default.translation, tol, s, |v| {
            Transform {
                translation: v,
                ..Transform::IDENTITY
            }
        });
    let (scale, scale_value) = if has_scale {
        classify_vector(&track.scales, default.scale, tol, s, |v| Transform {
            scale: v,
            ..Transform::IDENTITY
        })
    } else {
        (Kind::Default, Vec3::ONE)
    };
    JointPlan {
        rot,
        rot_value,
        rotations,
        trans,
        trans_value,
        scale,
        scale_value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displacement_matches_geometry() {
        let a = Quat::IDENTITY;
        let b = Quat::from_rotation_z(0.01);
        let d = rotation_displacement(a, b, 100.0);
        let expected = 2.0 * 100.0 * (0.005f32).sin();
        assert!((d - expected).abs() < 1e-4, "{d} vs {expected}");
        assert_eq!(rotation_displacement(a, -a, 5.0), 0.0);
    }

    #[test]
    fn still_joint_is_default_or_constant() {
        let t = Transform {
            rotation: Quat::from_rotation_x(0.3),
            translation: Vec3::new(0.0, 10.0, 0.0),
            scale: Vec3::ONE,
        };
        let track = Track::constant(&t, 20);
        let shell = DominantShell {
            precision: 0.01,
            shell_distance: 3.0,
        };
        let p = plan_joint(&track, &t, &shell, false);
        assert_eq!(
            (p.rot, p.trans, p.scale),
            (Kind::Default, Kind::Default, Kind::Default)
        );
        let p = plan_joint(&track, &Transform::IDENTITY, &shell, true);
        assert_eq!(
            (p.rot, p.trans, p.scale),
            (Kind::Constant, Kind::Constant, Kind::Default)
        );
        let mut moving = track.clone();
        moving.rotations[7] = Quat::from_rotation_x(0.31);
        moving.translations[3].y += 0.1;
        let p = plan_joint(&moving, &t, &shell, false);
        assert_eq!((p.rot, p.trans), (Kind::Animated, Kind::Animated));
    }
}
