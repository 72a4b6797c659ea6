//! Shared helpers of the `fixed` codec tests: round trip, and the worst-case error bound derived
//! from the formats' documented per-sample bounds, propagated through the hierarchy.
#![allow(dead_code)]

use animcomp::clip::RawClip;
use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::format::{validate_blob, BlobFlags};
use animcomp::math::{Transform, Vec3};
use animcomp::metric::{dominant_shells, ErrorStats, Metric, SCALE_TOLERANCE};
use animcomp::offline::describe;
use animcomp::offline::fixed::SUBSTITUTION_FRACTION;
use animcomp::{compress, AlignedBlob, CompressSettings};
use animcomp::{format::quantize::Range3, offline::RotationStats};

/// Compresses, decompresses every sample and measures. Returns the blob and the stats.
pub fn roundtrip(clip: &RawClip, s: &CompressSettings) -> (AlignedBlob, ErrorStats) {
    let blob = AlignedBlob::from_bytes(&compress(clip, s).expect("compress"));
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).expect("init");
    let stored = d.header().num_samples;
    let metric = Metric::new(clip);
    let stats = metric.measure(|i, out: &mut [Transform]| {
        // A looping blob dropped its repeated last sample: the first one stands for it.
        let i = if i as u32 >= stored { 0 } else { i as u32 };
        d.pose_at_sample(i, out).unwrap()
    });
    (blob, stats)
}

/// Whether the blob was stored as a loop (its last raw sample replaced by the first).
pub fn is_looping(blob: &AlignedBlob) -> bool {
    let d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
    d.header().has(BlobFlags::LOOPING)
}

/// Per-channel worst-case local error of one joint.
#[derive(Debug, Clone, Copy)]
pub struct ChannelBounds {
    /// Rotation angle (radians).
    pub angle: f32,
    /// Translation error length.
    pub translation: f32,
    /// Scale error, largest component.
    pub scale: f32,
}

/// Which channels (rotation, translation, scale) of each joint the blob stores per sample, as
/// reported by the codec's `describe`.
pub fn animated_channels(blob: &AlignedBlob) -> Vec<[bool; 3]> {
    let (h, body) = validate_blob(blob.as_bytes(), true).unwrap();
    let mut out = vec![[false; 3]; h.num_joints as usize];
    for t in describe(&h, body).unwrap().tracks {
        let c = match t.channel {
            "rotation" => 0,
            "translation" => 1,
            _ => 2,
        };
        out[t.joint][c] = t.bits_per_sample > 0.0;
    }
    out
}

/// Worst-case local error of each joint: an animated channel has its format's bound (from the
/// track's own data); a default or constant one is off by at most the substitution tolerance at
/// the joint's dominant shell.
pub fn channel_bounds(
    clip: &RawClip,
    s: &CompressSettings,
    blob: &AlignedBlob,
) -> Vec<ChannelBounds> {
    let has_scale = clip.has_scale(SCALE_TOLERANCE);
    let shells = dominant_shells(clip);
    let animated = animated_channels(blob);
    clip.tracks
        .iter()
        .zip(&shells)
        .zip(&animated)
        .map(|((t, sh), anim)| {
            let tol = SUBSTITUTION_FRACTION * sh.precision;
            let d = sh.shell_distance;
            let q_angle = s
                .rotation_format
                .max_angle_error(&RotationStats::from_quats(&t.rotations));
            let s_angle = 2.0 * (tol / (2.0 * d)).min(1.0).asin();
            let q_trans = s
                .translation_format
                .max_error(&Range3::from_values(t.translations.iter().copied()))
                .length();
            let scale = if has_scale {
                let q = s
                    .scale_format
                    .max_error(&Range3::from_values(t.scales.iter().copied()))
                    .max_element();
                if anim[2] {
                    q
                } else {
                    tol / d
                }
            } else {
                // Decoded as exactly one; the raw scale is one within the metric's tolerance.
                t.scales
                    .iter()
                    .map(|v| (*v - Vec3::ONE).abs().max_element())
                    .fold(0.0, f32::max)
            };
            ChannelBounds {
                angle: q_angle.max(s_angle),
                translation: q_trans.max(tol),
                scale,
            }
        })
        .collect()
}

/// Worst-case object-space vertex error of each joint, from per-joint local bounds.
///
/// With `T_k(x) = R_k (s_k * x) + t_k`, a joint's object translation is
/// `T_0(T_1(...T_{m-1}(t_m)))` and its vertex at `p` (|p| = shell) is
/// `t_obj + R_0..R_m (s_0 * .. * s_m * p)`. Telescoping the translation part over the chain gives,
/// for each ancestor `a`, `prefix'(a) * (angle_a * s'_a * rho_a + ds_a * rho_a + dt_a)` where
/// `prefix'` is the product of the decoded ancestors' largest scales and `rho_a` bounds the raw
/// child point in `a`'s frame; the vertex part adds
/// `(sum angle) * prod(s') * shell + (prod(s') - prod(s)) * shell`. Without scale this reduces to
/// `sum_a angle_a * (reach from a to the vertex) + sum_a dt_a`.
pub fn propagated_bounds(clip: &RawClip, b: &[ChannelBounds]) -> Vec<f32> {
    let nj = clip.num_joints();
    let smax: Vec<f32> = clip
        .tracks
        .iter()
        .map(|t| {
            t.scales
                .iter()
                .map(|v| v.abs().max_element())
                .fold(0.0, f32::max)
        })
        .collect();
    let tmax: Vec<f32> = clip
        .tracks
        .iter()
        .map(|t| {
            t.translations
                .iter()
                .map(|v| v.length())
                .fold(0.0, f32::max)
        })
        .collect();
    (0..nj)
        .map(|j| {
            let mut chain = vec![j];
            while let Some(p) = clip.skeleton.parent(*chain.last().unwrap()) {
                chain.push(p);
            }
            chain.reverse(); // root .. j
            let m = chain.len() - 1;
            // rho[i]: bound on |T_{chain[i]} .. T_{chain[m-1]} (t_j)|, rho[m] = |t_j|.
            let mut rho = vec![0.0f32; m + 1];
            rho[m] = tmax[j];
            for i in (0..m).rev() {
                rho[i] = smax[chain[i]] * rho[i + 1] + tmax[chain[i]];
            }
            let mut prefix = 1.0f32; // product of decoded largest scales of chain[..i]
            let mut raw_prefix = 1.0f32;
            let mut total = 0.0f32;
            let mut angles = 0.0f32;
            for (i, &a) in chain.iter().enumerate() {
                let cb = &b[a];
                let s_dec = smax[a] + cb.scale;
                if i < m {
                    let q = rho[i + 1];
                    total += prefix * (cb.angle * s_dec * q + cb.scale * q + cb.translation);
                } else {
                    total += prefix * cb.translation;
                }
                angles += cb.angle;
                prefix *= s_dec;
                raw_prefix *= smax[a];
            }
            let shell = clip.skeleton.joints[j].shell_distance;
            total += angles * prefix * shell + (prefix - raw_prefix) * shell;
            // f32 rounding of composing the hierarchy (positions of magnitude `rho[0] + shell`).
            let slack = 1e-3 * total + 1e-5 * (rho[0] + shell);
            total + slack
        })
        .collect()
}
