//! The float64 judge: the library's error metric (virtual vertices at each joint's shell
//! distance along its local axes, in object space; ACL's definition, as docs/vbr.md states it)
//! written again from the definition in float64, not calling `animcomp::metric`, so that a
//! decoded pose is judged independently of the float32 arithmetic the compressor measures with.
//!
//! The error-bound tests (`import/tests/importers/error_bound_f64.rs`), `animcomp tiers build`
//! and Python's `measure_tiered` judge with it. [`Reference`] binds it to one clip (its raw
//! poses composed into object space once); [`Reference::errors_at`] judges a lossy local pose.

use animcomp::decompress::{Decompressor, Looping, Rounding};
use animcomp::math::{Transform, FLOATS_PER_JOINT};
use animcomp::RawClip;
use glam::{DQuat, DVec3};

/// A transform in float64.
#[derive(Clone, Copy)]
struct T64 {
    r: DQuat,
    t: DVec3,
    s: DVec3,
}

impl T64 {
    fn from(t: &Transform) -> T64 {
        T64 {
            r: t.rotation.as_dquat().normalize(),
            t: t.translation.as_dvec3(),
            s: t.scale.as_dvec3(),
        }
    }

    /// `parent * child`: the child's frame expressed in the parent's parent frame.
    fn then(parent: &T64, child: &T64) -> T64 {
        T64 {
            r: (parent.r * child.r).normalize(),
            t: parent.r * (parent.s * child.t) + parent.t,
            s: parent.s * child.s,
        }
    }

    /// Scale, rotate, translate.
    fn point(&self, p: DVec3) -> DVec3 {
        self.r * (self.s * p) + self.t
    }
}

/// The float64 reference metric bound to one clip: object-space raw poses, precomputed.
pub struct Reference {
    parents: Vec<Option<usize>>,
    shells: Vec<f64>,
    precisions: Vec<f64>,
    /// Three vertices per joint when any scale differs from 1 by more than 1e-5, else two.
    axes: usize,
    raw: Vec<Vec<T64>>,
    sample_rate: f32,
}

impl Reference {
    /// Binds the judge to `clip` (its skeleton's shell distances and precisions).
    pub fn new(clip: &RawClip) -> Reference {
        let parents: Vec<Option<usize>> = clip
            .skeleton
            .joints
            .iter()
            .map(|j| j.parent.map(|p| p as usize))
            .collect();
        let scaled = clip.tracks.iter().any(|t| {
            t.scales
                .iter()
                .any(|s| s.to_array().iter().any(|c| (c - 1.0).abs() > 1.0e-5))
        });
        let raw = (0..clip.num_samples)
            .map(|i| {
                let local: Vec<T64> = clip.tracks.iter().map(|t| T64::from(&t.get(i))).collect();
                object(&parents, &local)
            })
            .collect();
        Reference {
            shells: clip
                .skeleton
                .joints
                .iter()
                .map(|j| j.shell_distance as f64)
                .collect(),
            precisions: clip
                .skeleton
                .joints
                .iter()
                .map(|j| j.precision as f64)
                .collect(),
            parents,
            axes: if scaled { 3 } else { 2 },
            raw,
            sample_rate: clip.sample_rate,
        }
    }

    /// The clip's sample count.
    pub fn num_samples(&self) -> usize {
        self.raw.len()
    }

    /// Each joint's error (object-space distance, NaN as infinity) at `sample` for a lossy local
    /// pose, written to `out` (one per joint).
    pub fn errors_at(&self, sample: usize, lossy: &[Transform], out: &mut [f64]) {
        let local: Vec<T64> = lossy.iter().map(T64::from).collect();
        let obj = object(&self.parents, &local);
        for (j, (a, b)) in self.raw[sample].iter().zip(&obj).enumerate() {
            let e = (0..self.axes)
                .map(|k| {
                    let mut v = DVec3::ZERO;
                    v[k] = self.shells[j];
                    a.point(v).distance(b.point(v))
                })
                .fold(0.0f64, f64::max);
            out[j] = if e.is_nan() { f64::INFINITY } else { e };
        }
    }

    /// Every joint-sample error (sample-major) of what `d` decodes at the clip's samples.
    /// Samples the blob stores are read with `seek_sample`, later ones (a looping blob's
    /// dropped repeated last sample) by time, clamped, as a player would.
    pub fn errors_of(&self, d: &mut Decompressor<'_>) -> animcomp::Result<Vec<f64>> {
        let nj = self.parents.len();
        if d.num_joints() != nj {
            return Err(animcomp::Error::InvalidArgument(
                "blob and clip have different joint counts",
            ));
        }
        let stored = d.header().num_samples as usize;
        let mut floats = vec![0.0f32; nj * FLOATS_PER_JOINT];
        let mut local = vec![Transform::IDENTITY; nj];
        let mut errs = vec![0.0f64; nj];
        let mut out = Vec::with_capacity(nj * self.raw.len());
        for i in 0..self.raw.len() {
            if i < stored {
                d.seek_sample(i as u32);
            } else {
                d.seek(i as f32 / self.sample_rate, Looping::Clamp, Rounding::None)?;
            }
            d.sample_pose(&mut floats, FLOATS_PER_JOINT)?;
            for (j, l) in local.iter_mut().enumerate() {
                *l =
                    Transform::read_from(&floats[j * FLOATS_PER_JOINT..(j + 1) * FLOATS_PER_JOINT]);
            }
            self.errors_at(i, &local, &mut errs);
            out.extend_from_slice(&errs);
        }
        Ok(out)
    }

    /// Largest error / precision over the joints at `sample` for a lossy local pose, with the
    /// joint where it occurs.
    pub fn worst_at(&self, sample: usize, lossy: &[Transform]) -> (f64, usize) {
        let mut errs = vec![0.0f64; self.parents.len()];
        self.errors_at(sample, lossy, &mut errs);
        let mut worst = (0.0f64, 0usize);
        for (j, e) in errs.iter().enumerate() {
            let rel = e / self.precisions[j];
            if rel > worst.0 || rel.is_nan() {
                worst = (rel, j);
            }
        }
        worst
    }
}

/// Composes local transforms into object space (parents come before their children).
fn object(parents: &[Option<usize>], local: &[T64]) -> Vec<T64> {
    let mut out: Vec<T64> = Vec::with_capacity(local.len());
    for (j, l) in local.iter().enumerate() {
        let o = match parents[j] {
            Some(p) => T64::then(&out[p], l),
            None => *l,
        };
        out.push(o);
    }
    out
}

/// (max, p99) of a set of errors, p99 as the nearest rank (`(n - 1) * 0.99`, rounded); (0, 0)
/// for none. Reorders `errors`.
pub fn max_p99(errors: &mut [f64]) -> (f64, f64) {
    if errors.is_empty() {
        return (0.0, 0.0);
    }
    let max = errors.iter().copied().fold(0.0, f64::max);
    let k = ((errors.len() - 1) as f64 * 0.99).round() as usize;
    let (_, p, _) = errors.select_nth_unstable_by(k, |a, b| a.total_cmp(b));
    (max, *p)
}
