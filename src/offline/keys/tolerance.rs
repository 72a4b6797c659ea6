//! Per-joint error tolerances for key selection, and the local error estimate they bound.
//!
//! Key selection judges a track alone, in the joint's local space, with an estimate that covers
//! what the whole hierarchy below the joint will see. Two estimates are available:
//!
//! - [`ToleranceMode::DominantShell`] (default): the joint's error is measured at its *dominant
//!   shell* ([`crate::offline::metric::dominant_shells`]): a distance that reaches the virtual vertices of
//!   every descendant, with the smallest precision in the subtree. A rotation error `θ` at the
//!   joint moves those vertices by at most `shell · 2 sin(θ/2)` in object space.
//! - [`ToleranceMode::ChainHalving`]: the error is measured at the joint's own shell and the
//!   budget halves for each joint of the longest chain hanging below it (a parent gets half of
//!   its child's budget), so errors near the root, which move whole limbs, are kept small.
//!
//! Both share a per-joint `budget` factor (starting at [`INITIAL_BUDGET`]) that the encoder's final
//! check halves on joints (and their ancestors) whose measured error exceeds their precision.

use glam::Vec4;

use crate::offline::clip::RawClip;
use crate::offline::metric::dominant_shells;

use crate::format::keys::layout::{CH_ROTATION, CH_TRANSLATION};

/// First budget factor: the share of a joint's precision its own tracks may use before errors
/// of the joints above it are added on the way to the end effectors.
pub const INITIAL_BUDGET: f32 = 0.5;

/// How per-joint tolerances are derived from the skeleton.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToleranceMode {
    /// Measure at the dominant shell (reaches every descendant's vertices).
    DominantShell,
    /// Own shell, budget halved per joint of the longest chain below.
    ChainHalving,
    /// Encode with both of the above and keep the smaller body (the encoder's default).
    Smaller,
}

/// The tolerance of one joint: where to measure and how much error to accept.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointTolerance {
    /// Shell distance used by [`local_error`].
    pub shell: f32,
    /// Largest accepted [`local_error`] before the budget factor.
    pub precision: f32,
}

/// Per-joint tolerances of a clip under `mode`.
pub fn joint_tolerances(clip: &RawClip, mode: ToleranceMode) -> Vec<JointTolerance> {
    match mode {
        ToleranceMode::DominantShell | ToleranceMode::Smaller => dominant_shells(clip)
            .into_iter()
            .map(|d| JointTolerance {
                shell: d.shell_distance,
                precision: d.precision,
            })
            .collect(),
        ToleranceMode::ChainHalving => {
            let nj = clip.num_joints();
            let mut height = vec![0u32; nj];
            let mut precision: Vec<f32> =
                clip.skeleton.joints.iter().map(|j| j.precision).collect();
            for j in (0..nj).rev() {
                if let Some(p) = clip.skeleton.parent(j) {
                    height[p] = height[p].max(height[j] + 1);
                    precision[p] = precision[p].min(precision[j]);
                }
            }
            (0..nj)
                .map(|j| JointTolerance {
                    shell: clip.skeleton.joints[j].shell_distance,
                    precision: precision[j] * 0.5f32.powi(height[j].min(60) as i32),
                })
                .collect()
        }
    }
}

/// Local error estimate of a channel value: the largest displacement of a point at `shell` from
/// the joint (rotations, scales), or of the joint itself (translations).
#[inline]
pub fn local_error(channel: usize, raw: Vec4, lossy: Vec4, shell: f32) -> f32 {
    match channel {
        CH_ROTATION => 2.0 * shell * half_angle_sin(raw, lossy),
        CH_TRANSLATION => (raw - lossy).truncate().length(),
        _ => (raw - lossy).truncate().abs().max_element() * shell,
    }
}

/// `sin(θ/2)` of the rotation between two unit quaternions: the length of the vector part of
/// `conj(a) * b`, computed without the cancellation of `1 - dot²` (exact for tiny angles).
#[inline]
pub fn half_angle_sin(a: Vec4, b: Vec4) -> f32 {
    let av = a.truncate();
    let bv = b.truncate();
    (bv * a.w - av * b.w - av.cross(bv)).length().min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Quat, Transform};
    use crate::offline::clip::{generate_clip, GenerateOptions};
    use crate::offline::metric::vertex_error;

    #[test]
    fn rotation_estimate_bounds_vertex_error() {
        for i in 0..50 {
            let a = Quat::from_rotation_x(i as f32 * 0.13) * Quat::from_rotation_z(0.2);
            let b = a * Quat::from_rotation_y(0.01 + i as f32 * 1e-3);
            let ta = Transform {
                rotation: a,
                ..Transform::IDENTITY
            };
            let tb = Transform {
                rotation: b,
                ..Transform::IDENTITY
            };
            let exact = vertex_error(&ta, &tb, 3.0, true);
            let est = local_error(CH_ROTATION, Vec4::from(a), Vec4::from(b), 3.0);
            assert!(
                est >= exact - 1e-5 && est <= exact * 1.5 + 1e-5,
                "{est} {exact}"
            );
        }
    }

    #[test]
    fn chain_halving_shrinks_towards_the_root() {
        let c = generate_clip(&GenerateOptions {
            joints: 12,
            max_depth: 12,
            ..Default::default()
        });
        let t = joint_tolerances(&c, ToleranceMode::ChainHalving);
        for j in 1..12 {
            let p = c.skeleton.parent(j).unwrap();
            assert!(t[p].precision <= t[j].precision * 0.5 + 1e-12);
        }
    }
}
