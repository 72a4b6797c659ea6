//! Procedural clips: deterministic, realistic-looking motion for tests, fuzzing and the CLI's
//! built-in sample set. Joint lengths and angular speeds resemble a human rig in centimetres.

use super::{Joint, RawClip, Skeleton, Track};
use crate::math::trig::{cos, sin, sin_cos};
use crate::math::{quat_mul, quat_normalize, Quat, Transform, Vec3};

/// What [`generate_clip`] builds.
#[derive(Debug, Clone)]
pub struct GenerateOptions {
    /// Joint count (at least 1).
    pub joints: usize,
    /// Sample count (at least 1).
    pub samples: usize,
    /// Sample rate in Hz.
    pub sample_rate: f32,
    /// Longest parent chain: joints are laid out in chains of at most this depth.
    pub max_depth: usize,
    /// Animate non-uniform scale on some joints.
    pub scale: bool,
    /// Animate translation on every joint (as mocap with 6 channels does), not only the root.
    pub animated_translation: bool,
    /// Seed of the deterministic generator.
    pub seed: u64,
    /// Bone length in clip units.
    pub bone_length: f32,
    /// Make the last sample equal the first (a looping clip).
    pub looping: bool,
}

impl Default for GenerateOptions {
    fn default() -> Self {
        GenerateOptions {
            joints: 20,
            samples: 60,
            sample_rate: 30.0,
            max_depth: 8,
            scale: false,
            animated_translation: false,
            seed: 1,
            bone_length: 10.0,
            looping: false,
        }
    }
}

/// The rotation by `angle` about the unit `axis` (glam's `from_axis_angle`, with the same bits on
/// every target: `crate::math::trig`).
fn axis_angle(axis: Vec3, angle: f32) -> Quat {
    let (s, c) = sin_cos(angle * 0.5);
    let v = axis * s;
    Quat::from_xyzw(v.x, v.y, v.z, c)
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f32 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let v = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (v >> 40) as f32 / (1u64 << 24) as f32
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
}

/// Builds a clip from `opts`. The result is valid (passes [`RawClip::validate`]).
pub fn generate_clip(opts: &GenerateOptions) -> RawClip {
    let nj = opts.joints.max(1);
    let n = opts.samples.max(1);
    let mut rng = Rng(opts.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let depth = opts.max_depth.max(1);
    let mut joints = Vec::with_capacity(nj);
    let mut depth_of: Vec<usize> = Vec::with_capacity(nj);
    for j in 0..nj {
        let parent = if j == 0 {
            None
        } else {
            // Continue the previous chain until it reaches max depth, then branch from near the root.
            let prev = j - 1;
            if depth_of[prev] + 1 < depth && rng.next() < 0.8 {
                Some(prev as u32)
            } else {
                Some((rng.next() * (j.min(3)) as f32) as u32)
            }
        };
        depth_of.push(parent.map_or(0, |p| depth_of[p as usize] + 1));
        joints.push(Joint::new(format!("joint_{j}"), parent));
    }
    let mut bind = Vec::with_capacity(nj);
    let mut tracks = Vec::with_capacity(nj);
    let period = if opts.looping {
        (n.max(2) - 1) as f32
    } else {
        f32::NAN
    };
    for j in 0..nj {
        let axis = Vec3::new(
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        )
        .try_normalize()
        .unwrap_or(Vec3::X);
        let offset = if j == 0 {
            Vec3::new(0.0, opts.bone_length * 9.0, 0.0)
        } else {
            Vec3::new(rng.range(-0.3, 0.3), 1.0, rng.range(-0.3, 0.3)).normalize()
                * opts.bone_length
        };
        let rest = axis_angle(axis, rng.range(-0.5, 0.5));
        bind.push(Transform {
            rotation: rest,
            translation: offset,
            scale: Vec3::ONE,
        });
        // A few joints stay still (constant or at rest) to exercise track removal.
        let kind = rng.next();
        let amp = if kind < 0.15 {
            0.0
        } else {
            rng.range(0.05, 0.9)
        };
        let freq = rng.range(0.2, 2.5); // Hz
        let freq2 = rng.range(1.0, 5.0);
        let phase = rng.range(0.0, std::f32::consts::TAU);
        let t_amp = if opts.animated_translation || j == 0 {
            rng.range(0.2, 3.0)
        } else {
            0.0
        };
        let s_amp = if opts.scale && rng.next() < 0.5 {
            rng.range(0.05, 0.5)
        } else {
            0.0
        };
        let mut track = Track::default();
        for i in 0..n {
            let t = i as f32 / opts.sample_rate;
            let (w, w2) = if opts.looping {
                // Whole periods over the clip so the last sample equals the first.
                let u = i as f32 / period;
                (std::f32::consts::TAU * u, std::f32::consts::TAU * 2.0 * u)
            } else {
                (
                    std::f32::consts::TAU * freq * t,
                    std::f32::consts::TAU * freq2 * t,
                )
            };
            let angle = amp * sin(w + phase) + 0.1 * amp * sin(w2 + phase);
            let (s2, c2) = sin_cos(0.3 * amp * cos(w + 2.0 * phase) * 0.5);
            let axis2 = Quat::from_xyzw(0.0, s2, 0.0, c2);
            let q = quat_mul(quat_mul(rest, axis_angle(axis, angle)), axis2);
            track.rotations.push(quat_normalize(q));
            let root_drift = if j == 0 && !opts.looping {
                Vec3::new(20.0 * t, 0.0, 5.0 * t)
            } else {
                Vec3::ZERO
            };
            track.translations.push(
                offset + root_drift + Vec3::new(sin(w + phase), cos(w2), sin(w + 1.0)) * t_amp,
            );
            track.scales.push(if s_amp > 0.0 {
                Vec3::new(1.0 + s_amp * sin(w), 1.0 + 0.5 * s_amp * cos(w2), 1.0)
            } else {
                Vec3::ONE
            });
        }
        tracks.push(track);
    }
    RawClip {
        name: format!("generated_{nj}j_{n}s_seed{}", opts.seed),
        skeleton: Skeleton {
            joints,
            bind_pose: Some(bind),
        },
        sample_rate: opts.sample_rate,
        num_samples: n,
        tracks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_clips_are_valid_and_deterministic() {
        for scale in [false, true] {
            let o = GenerateOptions {
                joints: 60,
                samples: 120,
                scale,
                max_depth: 12,
                ..Default::default()
            };
            let mut a = generate_clip(&o);
            let b = generate_clip(&o);
            assert_eq!(a, b);
            a.validate().unwrap();
            assert_eq!(a.has_scale(1e-4), scale);
            let max_depth = (0..a.num_joints())
                .map(|mut j| {
                    let mut d = 0;
                    while let Some(p) = a.skeleton.parent(j) {
                        j = p;
                        d += 1;
                    }
                    d
                })
                .max()
                .unwrap();
            assert!((5..12).contains(&max_depth), "{max_depth}");
        }
    }

    #[test]
    fn looping_clip_ends_where_it_starts() {
        let c = generate_clip(&GenerateOptions {
            looping: true,
            samples: 31,
            ..Default::default()
        });
        for t in &c.tracks {
            assert!(crate::math::angle_between(t.rotations[0], t.rotations[30]) < 1e-3);
            assert!((t.translations[0] - t.translations[30]).length() < 1e-3);
        }
    }
}
