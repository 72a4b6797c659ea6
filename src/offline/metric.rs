//! The error metric: virtual vertices at each joint's shell distance, in object space.
//!
//! This is ACL's metric. For every joint and every sample, the raw and the lossy local poses are
//! composed down the hierarchy into object space; vertices at `shell_distance` along the joint's
//! local X, Y (and Z when the clip has scale) axes are transformed by both, and the joint's error is
//! the largest distance between the two positions of a vertex. A clip's error is the largest
//! joint error over all samples. Every codec and every test judges error with this module and
//! nothing else.
//!
//! An additive clip is judged where players see it: [`Metric::with_base`] binds the metric to the
//! additive clip *and* its base, and every local transform (raw or lossy) has the base applied
//! ([`crate::runtime::additive::apply`]) before it is composed into object space. Codecs that measure
//! local-space estimates use [`Metric::to_player`], [`Metric::player_clip`] and
//! [`Metric::dominant_shells`] so that a near-identity additive track is judged by the pose it
//! produces, not as a pose of its own.

use crate::format::AdditiveFormat;
use crate::math::{Transform, Vec3};
use crate::offline::additive::BasePoses;
use crate::offline::clip::RawClip;
use crate::runtime::additive::apply;

/// Scale tolerance below which a clip is treated as having no scale (two vertices suffice).
pub const SCALE_TOLERANCE: f32 = 1.0e-5;

/// Largest distance between the raw and lossy positions of a joint's virtual vertices.
///
/// `raw` and `lossy` are object-space (or, for local estimates, local-space) transforms.
#[inline]
pub fn vertex_error(raw: &Transform, lossy: &Transform, shell: f32, has_scale: bool) -> f32 {
    let vx = Vec3::new(shell, 0.0, 0.0);
    let vy = Vec3::new(0.0, shell, 0.0);
    let ex = (raw.transform_point(vx) - lossy.transform_point(vx)).length_squared();
    let ey = (raw.transform_point(vy) - lossy.transform_point(vy)).length_squared();
    let mut e = ex.max(ey);
    if has_scale {
        let vz = Vec3::new(0.0, 0.0, shell);
        e = e.max((raw.transform_point(vz) - lossy.transform_point(vz)).length_squared());
    }
    e.sqrt()
}

/// Composes a local pose into object space (`out[j] = out[parent] * local[j]`).
pub fn local_to_object(clip: &RawClip, local: &[Transform], out: &mut [Transform]) {
    for (j, joint) in clip.skeleton.joints.iter().enumerate() {
        out[j] = match joint.parent {
            Some(p) => Transform::mul(&out[p as usize], &local[j]),
            None => local[j],
        };
    }
}

/// Per-joint settings for local-space error estimates: the joint's own precision and shell,
/// widened to cover everything hanging below it (ACL's "dominant shell").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DominantShell {
    /// Smallest precision in the joint's subtree.
    pub precision: f32,
    /// Shell distance that covers the joint's own vertices and its descendants' vertices.
    pub shell_distance: f32,
}

/// Computes each joint's dominant shell: a child's reach (its dominant shell plus the longest
/// length of its translation over the clip) is carried up into its parent.
pub fn dominant_shells(clip: &RawClip) -> Vec<DominantShell> {
    let mut out: Vec<DominantShell> = clip
        .skeleton
        .joints
        .iter()
        .map(|j| DominantShell {
            precision: j.precision,
            shell_distance: j.shell_distance,
        })
        .collect();
    for j in (0..clip.num_joints()).rev() {
        if let Some(p) = clip.skeleton.parent(j) {
            let t = &clip.tracks[j];
            let max_len = t
                .translations
                .iter()
                .zip(&t.scales)
                .map(|(v, _)| v.length())
                .fold(0.0f32, f32::max);
            let reach = out[j].shell_distance + max_len;
            out[p].shell_distance = out[p].shell_distance.max(reach);
            out[p].precision = out[p].precision.min(out[j].precision);
        }
    }
    out
}

/// Summary of a clip's error.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorStats {
    /// Largest error of any joint at any sample.
    pub max_error: f32,
    /// The joint where `max_error` occurs.
    pub worst_joint: usize,
    /// The sample where `max_error` occurs.
    pub worst_sample: usize,
    /// 99th percentile of the per-joint, per-sample errors.
    pub p99_error: f32,
    /// Largest error of each joint over the clip.
    pub per_joint_max: Vec<f32>,
    /// Largest error of any joint at each sample.
    pub per_sample_max: Vec<f32>,
}

/// An additive clip's base, its format and the clip players see (base with the additive applied).
struct AdditiveSpace {
    format: AdditiveFormat,
    base: BasePoses,
    player: RawClip,
}

/// The metric bound to one raw clip, with its object-space poses computed once.
pub struct Metric<'a> {
    clip: &'a RawClip,
    has_scale: bool,
    raw_object: Vec<Transform>,
    additive: Option<Box<AdditiveSpace>>,
}

impl<'a> Metric<'a> {
    /// Prepares the metric for `clip` (which must be valid).
    pub fn new(clip: &'a RawClip) -> Self {
        Self::build(clip, None)
    }

    /// Prepares the metric for the additive clip `clip` in `format`, applied to `base` (built for
    /// this clip's joint and sample counts). Errors are measured on the applied result.
    pub fn with_base(clip: &'a RawClip, format: AdditiveFormat, base: BasePoses) -> Self {
        if format == AdditiveFormat::None {
            return Self::new(clip);
        }
        let player = base.apply_to_clip(format, clip);
        Self::build(
            clip,
            Some(Box::new(AdditiveSpace {
                format,
                base,
                player,
            })),
        )
    }

    fn build(clip: &'a RawClip, additive: Option<Box<AdditiveSpace>>) -> Self {
        let player = additive.as_ref().map_or(clip, |a| &a.player);
        let nj = clip.num_joints();
        let mut raw_object = vec![Transform::IDENTITY; nj * clip.num_samples];
        let mut local = vec![Transform::IDENTITY; nj];
        for (i, obj) in raw_object.chunks_exact_mut(nj).enumerate() {
            player.local_pose(i, &mut local);
            local_to_object(clip, &local, obj);
        }
        Metric {
            clip,
            has_scale: player.has_scale(SCALE_TOLERANCE),
            raw_object,
            additive,
        }
    }

    /// The clip this metric judges (the additive clip itself for an additive metric).
    pub fn clip(&self) -> &RawClip {
        self.clip
    }

    /// The clip players see: the base with the additive clip applied, or the clip itself.
    pub fn player_clip(&self) -> &RawClip {
        self.additive.as_ref().map_or(self.clip, |a| &a.player)
    }

    /// The additive format ([`AdditiveFormat::None`] for a plain clip).
    pub fn additive_format(&self) -> AdditiveFormat {
        self.additive
            .as_ref()
            .map_or(AdditiveFormat::None, |a| a.format)
    }

    /// The base pose at `sample` (additive metrics only).
    pub fn base_pose(&self, sample: usize) -> Option<&[Transform]> {
        self.additive.as_ref().map(|a| a.base.pose(sample))
    }

    /// A local transform of `joint` at `sample` as players see it: with the base applied for an
    /// additive clip, unchanged otherwise.
    #[inline]
    pub fn to_player(&self, sample: usize, joint: usize, local: &Transform) -> Transform {
        match &self.additive {
            None => *local,
            Some(a) => apply(a.format, a.base.get(sample, joint), local),
        }
    }

    /// Dominant shells of the clip players see ([`dominant_shells`] of [`Self::player_clip`]):
    /// an additive translation near zero does not shrink the reach of a joint's children.
    pub fn dominant_shells(&self) -> Vec<DominantShell> {
        dominant_shells(self.player_clip())
    }

    /// Whether the clip players see has scale (three vertices instead of two).
    pub fn has_scale(&self) -> bool {
        self.has_scale
    }

    /// Composes a lossy local pose (of the judged clip) at `sample` into object space as players
    /// see it (base applied first for an additive clip).
    pub fn compose(&self, sample: usize, lossy_local: &[Transform], out: &mut [Transform]) {
        if self.additive.is_none() {
            return local_to_object(self.clip, lossy_local, out);
        }
        for (j, joint) in self.clip.skeleton.joints.iter().enumerate() {
            let l = self.to_player(sample, j, &lossy_local[j]);
            out[j] = match joint.parent {
                Some(p) => Transform::mul(&out[p as usize], &l),
                None => l,
            };
        }
    }

    /// Raw object-space pose at `sample`.
    pub fn raw_object_pose(&self, sample: usize) -> &[Transform] {
        let nj = self.clip.num_joints();
        &self.raw_object[sample * nj..(sample + 1) * nj]
    }

    /// Errors of every joint at `sample` for a lossy local pose. `scratch` and `errors` hold one
    /// entry per joint.
    pub fn errors_at(
        &self,
        sample: usize,
        lossy_local: &[Transform],
        scratch: &mut [Transform],
        errors: &mut [f32],
    ) {
        self.compose(sample, lossy_local, scratch);
        let raw = self.raw_object_pose(sample);
        for (j, joint) in self.clip.skeleton.joints.iter().enumerate() {
            errors[j] = vertex_error(&raw[j], &scratch[j], joint.shell_distance, self.has_scale);
        }
    }

    /// Measures every sample. `lossy(sample, out)` writes the lossy local pose of a sample.
    pub fn measure(&self, mut lossy: impl FnMut(usize, &mut [Transform])) -> ErrorStats {
        let nj = self.clip.num_joints();
        let n = self.clip.num_samples;
        let mut local = vec![Transform::IDENTITY; nj];
        let mut scratch = vec![Transform::IDENTITY; nj];
        let mut errors = vec![0.0f32; nj];
        let mut all = Vec::with_capacity(nj * n);
        let mut stats = ErrorStats {
            max_error: 0.0,
            worst_joint: 0,
            worst_sample: 0,
            p99_error: 0.0,
            per_joint_max: vec![0.0; nj],
            per_sample_max: vec![0.0; n],
        };
        for i in 0..n {
            lossy(i, &mut local);
            self.errors_at(i, &local, &mut scratch, &mut errors);
            for (j, &e) in errors.iter().enumerate() {
                // NaN counts as infinitely wrong.
                let e = if e.is_nan() { f32::INFINITY } else { e };
                if e > stats.max_error {
                    stats.max_error = e;
                    stats.worst_joint = j;
                    stats.worst_sample = i;
                }
                stats.per_joint_max[j] = stats.per_joint_max[j].max(e);
                stats.per_sample_max[i] = stats.per_sample_max[i].max(e);
                all.push(e);
            }
        }
        stats.p99_error = percentile(&mut all, 0.99);
        stats
    }
}

/// The `q` quantile (0..=1) of `values` (reorders them).
pub fn percentile(values: &mut [f32], q: f64) -> f32 {
    if values.is_empty() {
        return 0.0;
    }
    let k = ((values.len() - 1) as f64 * q).round() as usize;
    let (_, v, _) = values.select_nth_unstable_by(k, |a, b| a.total_cmp(b));
    *v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;
    use crate::offline::clip::{generate_clip, GenerateOptions};

    #[test]
    fn identical_poses_have_zero_error() {
        let c = generate_clip(&GenerateOptions {
            joints: 30,
            samples: 20,
            ..Default::default()
        });
        let m = Metric::new(&c);
        let s = m.measure(|i, out| c.local_pose(i, out));
        assert_eq!(s.max_error, 0.0);
        assert_eq!(s.p99_error, 0.0);
    }

    #[test]
    fn root_rotation_error_grows_with_distance() {
        // A 3-joint chain along Y, 10 units apart. Rotating the root by a small angle moves the
        // end joint's Y vertex (at y = 23) by angle * 23.
        let mut c = generate_clip(&GenerateOptions {
            joints: 3,
            samples: 2,
            max_depth: 3,
            ..Default::default()
        });
        for (j, t) in c.tracks.iter_mut().enumerate() {
            c.skeleton.joints[j].parent = if j == 0 { None } else { Some(j as u32 - 1) };
            for i in 0..2 {
                t.rotations[i] = Quat::IDENTITY;
                t.translations[i] = Vec3::new(0.0, if j == 0 { 0.0 } else { 10.0 }, 0.0);
                t.scales[i] = Vec3::ONE;
            }
        }
        let m = Metric::new(&c);
        let angle = 1e-3f32;
        let s = m.measure(|i, out| {
            c.local_pose(i, out);
            out[0].rotation = Quat::from_rotation_z(angle);
        });
        assert_eq!(s.worst_joint, 2);
        let expected = angle * 23.0;
        assert!(
            (s.max_error - expected).abs() < 1e-4,
            "{} vs {expected}",
            s.max_error
        );
        assert!((s.per_joint_max[0] - angle * 3.0).abs() < 1e-5);
    }

    #[test]
    fn translation_error_is_exact() {
        let c = generate_clip(&GenerateOptions {
            joints: 4,
            samples: 5,
            ..Default::default()
        });
        let m = Metric::new(&c);
        let s = m.measure(|i, out| {
            c.local_pose(i, out);
            if i == 3 {
                out[0].translation += Vec3::new(0.0, 0.25, 0.0);
            }
        });
        assert!((s.max_error - 0.25).abs() < 1e-4);
        assert_eq!(s.worst_sample, 3);
        assert_eq!(s.per_sample_max[2], 0.0);
    }

    #[test]
    fn scale_uses_third_vertex() {
        let a = Transform::IDENTITY;
        let b = Transform {
            scale: Vec3::new(1.0, 1.0, 1.1),
            ..a
        };
        assert_eq!(vertex_error(&a, &b, 3.0, false), 0.0);
        assert!((vertex_error(&a, &b, 3.0, true) - 0.3).abs() < 1e-5);
    }

    #[test]
    fn dominant_shell_covers_children() {
        let c = generate_clip(&GenerateOptions {
            joints: 10,
            samples: 5,
            ..Default::default()
        });
        let d = dominant_shells(&c);
        for j in 1..10 {
            let p = c.skeleton.parent(j).unwrap();
            assert!(
                d[p].shell_distance
                    >= d[j].shell_distance + c.tracks[j].translations[0].length() - 1e-4
            );
        }
    }

    #[test]
    fn percentile_picks_rank() {
        let mut v: Vec<f32> = (0..101).map(|i| i as f32).collect();
        assert_eq!(percentile(&mut v, 0.99), 99.0);
        assert_eq!(percentile(&mut [], 0.5), 0.0);
    }
}
