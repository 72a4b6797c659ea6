//! The keys encoder: per-track key selection, body assembly and the final whole-clip check.
//!
//! 1. Every joint gets a tolerance ([`super::tolerance`]) scaled by a per-joint budget.
//! 2. Every channel is quantised sample by sample (the candidates for keys), then classified:
//!    default, constant, or animated with keys chosen by linear key removal and by Catmull-Rom
//!    fitting; the variant with fewer keys wins (per track).
//! 3. The body is decoded through the real sampler at every sample and judged with
//!    [`crate::offline::metric::Metric`]. Joints whose error exceeds their precision have their budget (and
//!    their ancestors') halved and their tracks are selected again, until the clip passes. If it
//!    still fails with every sample kept as a key (quantisation alone is too coarse), encoding
//!    fails with [`Error::Unsupported`].

use glam::Vec4;

use crate::format::{BlobFlags, CodecId, Header, HEADER_SIZE};
use crate::math::{positive_w, Transform};
use crate::offline::blob_writer::EncodedBody;
use crate::offline::{EncodeContext, Level};
use crate::runtime::{Defaults, SampleKey};

use super::catmull::{self, Split};
use super::reduce::{self, constant_fit, FitInput};
use super::stream::{write_body, SlotPlan};
use super::tolerance::{half_angle_sin, joint_tolerances, ToleranceMode, INITIAL_BUDGET};
use crate::format::keys::interp::Interp;
use crate::format::keys::layout::{segment_len, CH_ROTATION, CH_TRANSLATION};
use crate::format::keys::quant::{
    pack_rotation, pack_rotation_rr, pack_vector, range_ext, range_min, rotation_range,
    unpack_rotation, unpack_rotation_rr, unpack_vector, vector_range_flat,
};
use crate::runtime::keys as decode;
use crate::{Error, Result};

/// Which interpolations the encoder may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InterpChoice {
    /// Linear key removal only.
    Linear,
    /// Catmull-Rom fitting only.
    CatmullRom,
    /// Both, per track, keeping the one with fewer keys.
    Best,
}

/// Encoder options of the keys codec (`compress` uses [`KeysOptions::for_level`]; [`Default`]
/// is the most thorough setting, as at `Level::Best`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeysOptions {
    /// How per-joint tolerances are derived.
    pub tolerance: ToleranceMode,
    /// Interpolation family.
    pub interp: InterpChoice,
    /// Where Catmull-Rom fitting splits the worst span.
    pub split: Split,
    /// Every-Nth keys `(start, interval)`: used for a track when it meets the tolerance with
    /// fewer keys than the other selectors.
    pub every_nth: Option<(u32, u32)>,
    /// Starting budget factor (share of the precision a joint's own tracks may use).
    pub initial_budget: f32,
    /// Most refinement rounds of the final check before giving up.
    pub max_rounds: u32,
    /// When a joint fails the final check, first tighten only that joint (until its budget is
    /// an eighth of the initial one), instead of the joint and all its ancestors at once.
    pub joint_first: bool,
}

impl Default for KeysOptions {
    fn default() -> Self {
        KeysOptions {
            tolerance: ToleranceMode::Smaller,
            interp: InterpChoice::Best,
            split: Split::Middle,
            every_nth: None,
            initial_budget: INITIAL_BUDGET,
            max_rounds: 24,
            joint_first: false,
        }
    }
}

impl KeysOptions {
    /// The options `compress` uses at a [`Level`]: `Fast` runs linear key removal only with
    /// dominant-shell tolerances; `Automatic` and `Default` run both selectors per track with
    /// dominant-shell tolerances; `Best` also encodes with chain-halving tolerances and keeps
    /// the smaller body (about twice the encoding time, 0-3 % smaller).
    pub fn for_level(level: Level) -> Self {
        let d = KeysOptions::default();
        match level {
            Level::Fast => KeysOptions {
                tolerance: ToleranceMode::DominantShell,
                interp: InterpChoice::Linear,
                ..d
            },
            Level::Automatic | Level::Default => KeysOptions {
                tolerance: ToleranceMode::DominantShell,
                ..d
            },
            Level::Best => d,
        }
    }
}

/// Statistics of one encode (for measurement tools).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EncodeStats {
    /// Refinement rounds run by the final check (0 when the first body passed).
    pub rounds: u32,
    /// Keys in the stream.
    pub keys: usize,
    /// Animated tracks using linear interpolation.
    pub linear_tracks: usize,
    /// Animated tracks using Catmull-Rom.
    pub catmull_tracks: usize,
    /// Constant tracks.
    pub constant_tracks: usize,
    /// Default tracks.
    pub default_tracks: usize,
    /// Max error measured by the final check.
    pub max_error: f32,
    /// Joint where the final check measured `max_error`.
    pub worst_joint: usize,
    /// Sample where the final check measured `max_error`.
    pub worst_sample: usize,
}

/// One way of quantising a track's samples.
struct QuantVariant {
    payloads: Vec<u64>,
    quant: Vec<Vec4>,
    ranges: Vec<f32>,
    segments: u8,
    /// Largest quantisation error in unit terms (rotations: sin of the half angle; vectors:
    /// largest component or length), see [`quant_error`].
    worst: f32,
}

/// One channel of one joint, prepared for selection.
struct Prepared {
    channel: usize,
    raw: Vec<Vec4>,
    /// Quantisations from cheapest to most precise.
    variants: Vec<QuantVariant>,
    default: Vec4,
}

/// Share of a track's tolerance its quantisation may use before a finer variant is chosen.
const QUANT_SHARE: f32 = 0.25;

/// Fine range segments become available to a joint once its budget is below this share of the
/// initial budget.
const FINE_AFTER: f32 = 1.0 / 64.0;

/// Local error of a variant's quantisation at `shell`.
fn quant_error(channel: usize, worst: f32, shell: f32) -> f32 {
    match channel {
        CH_ROTATION => 2.0 * shell * worst,
        CH_TRANSLATION => worst,
        _ => worst * shell,
    }
}

fn variant(
    raw: &[Vec4],
    channel: usize,
    segments: u8,
    pack: impl Fn(Vec4, &[f32]) -> u64,
    unpack: impl Fn(u64, &[f32]) -> Vec4,
    range: impl Fn(&[Vec4]) -> Vec<f32>,
) -> QuantVariant {
    let seg = if let Some(len) = segment_len(segments) {
        len
    } else {
        raw.len().max(1)
    };
    let mut v = QuantVariant {
        payloads: Vec::with_capacity(raw.len()),
        quant: Vec::with_capacity(raw.len()),
        ranges: Vec::new(),
        segments,
        worst: 0.0,
    };
    for chunk in raw.chunks(seg) {
        let r = range(chunk);
        v.ranges.extend_from_slice(&r);
        for x in chunk {
            let p = pack(*x, &r);
            let q = unpack(p, &r);
            v.payloads.push(p);
            v.quant.push(q);
            v.worst = v.worst.max(unit_error(channel, *x, q));
        }
    }
    v
}

fn unit_error(channel: usize, raw: Vec4, q: Vec4) -> f32 {
    match channel {
        CH_ROTATION => half_angle_sin(raw, q),
        CH_TRANSLATION => (raw - q).truncate().length(),
        _ => (raw - q).truncate().abs().max_element(),
    }
}

fn channel_values(ctx: &EncodeContext, j: usize, c: usize) -> Vec<Vec4> {
    let t = &ctx.clip.tracks[j];
    match c {
        CH_ROTATION => {
            let mut qs = t.rotations.clone();
            crate::math::make_continuous(&mut qs);
            qs.into_iter().map(Vec4::from).collect()
        }
        CH_TRANSLATION => t.translations.iter().map(|v| v.extend(0.0)).collect(),
        _ => t.scales.iter().map(|v| v.extend(0.0)).collect(),
    }
}

fn default_value(d: &Transform, c: usize) -> Vec4 {
    match c {
        CH_ROTATION => Vec4::from(d.rotation),
        CH_TRANSLATION => d.translation.extend(0.0),
        _ => d.scale.extend(0.0),
    }
}

fn prepare(ctx: &EncodeContext, j: usize, c: usize) -> Prepared {
    let raw = channel_values(ctx, j, c);
    let mut variants = Vec::new();
    if c == CH_ROTATION {
        let p: Vec<u64> = raw.iter().map(|v| pack_rotation(*v)).collect();
        let q: Vec<Vec4> = p.iter().map(|b| unpack_rotation(*b)).collect();
        let worst = raw
            .iter()
            .zip(&q)
            .map(|(a, b)| half_angle_sin(*a, *b))
            .fold(0.0f32, f32::max);
        let s3 = QuantVariant {
            payloads: p,
            quant: q,
            ranges: Vec::new(),
            segments: 0,
            worst,
        };
        // Cheapest first: smallest-three (no range), one range, coarse then fine segments.
        variants.push(s3);
        for segments in [0, 1, 2] {
            variants.push(variant(
                &raw,
                c,
                segments,
                pack_rotation_rr,
                unpack_rotation_rr,
                rotation_range,
            ));
        }
    } else {
        let pack = |v: Vec4, r: &[f32]| pack_vector(v, range_min(r), range_ext(r));
        let unpack = |b: u64, r: &[f32]| unpack_vector(b, range_min(r), range_ext(r));
        for segments in [0, 1, 2] {
            variants.push(variant(&raw, c, segments, pack, unpack, vector_range_flat));
        }
    }
    Prepared {
        channel: c,
        raw,
        variants,
        default: default_value(&ctx.defaults[j], c),
    }
}

/// Chooses keys for one prepared channel under tolerance `tol` measured at `shell`.
fn plan_slot(p: &Prepared, shell: f32, tol: f32, fine: bool, opts: &KeysOptions) -> SlotPlan {
    let allowed = |v: &&QuantVariant| fine || v.segments != 2;
    // The cheapest variant within a quarter of the tolerance, else within half of it, else
    // within it, else the most precise one.
    let qv = [QUANT_SHARE, 0.5, 1.0]
        .iter()
        .find_map(|share| {
            p.variants
                .iter()
                .filter(allowed)
                .find(|v| quant_error(p.channel, v.worst, shell) <= share * tol)
        })
        .unwrap_or_else(|| {
            p.variants
                .iter()
                .filter(allowed)
                .min_by(|a, b| a.worst.total_cmp(&b.worst))
                .expect("variants")
        });
    let inp = FitInput {
        raw: &p.raw,
        quant: &qv.quant,
        channel: p.channel,
        shell,
        tol,
    };
    if reduce::fits_value(&inp, p.default) {
        return SlotPlan::Default;
    }
    if let Some(v) = constant_fit(&inp) {
        let v = if p.channel == CH_ROTATION {
            Vec4::from(positive_w(glam::Quat::from_vec4(v)))
        } else {
            v
        };
        return SlotPlan::Constant(v);
    }
    let mut best: Option<(Interp, Vec<u32>)> = None;
    let mut consider = |interp: Interp, keys: Vec<u32>| {
        if best.as_ref().is_none_or(|(_, b)| keys.len() < b.len()) {
            best = Some((interp, keys));
        }
    };
    if matches!(opts.interp, InterpChoice::Linear | InterpChoice::Best) {
        consider(Interp::Linear, reduce::linear_keys(&inp));
    }
    if matches!(opts.interp, InterpChoice::CatmullRom | InterpChoice::Best) {
        consider(Interp::CatmullRom, catmull::fit(&inp, opts.split));
    }
    if let Some((start, interval)) = opts.every_nth {
        let keys = reduce::every_nth(p.raw.len(), start as usize, interval as usize);
        for interp in [Interp::Linear, Interp::CatmullRom] {
            let ok = (0..keys.len() - 1).all(|k| inp.span_error(&keys, k, interp) <= tol);
            if ok {
                consider(interp, keys.clone());
            }
        }
    }
    let (interp, keys) = best.expect("at least one selector runs");
    SlotPlan::Animated {
        interp,
        ranges: qv.ranges.clone(),
        segments: qv.segments,
        payloads: keys.iter().map(|&s| qv.payloads[s as usize]).collect(),
        times: keys,
    }
}

fn header_for(ctx: &EncodeContext, body_len: usize) -> Header {
    Header {
        version: crate::format::FORMAT_VERSION,
        codec: CodecId::Keys,
        total_size: (HEADER_SIZE + body_len) as u32,
        checksum: 0,
        flags: ctx.flags,
        num_joints: ctx.clip.num_joints() as u32,
        num_samples: ctx.clip.num_samples as u32,
        sample_rate: ctx.clip.sample_rate,
        body_offset: HEADER_SIZE as u32,
        body_size: body_len as u32,
        additive: ctx.metric.additive_format() as u8,
        num_curves: 0,
        curves_offset: 0,
        curves_size: 0,
    }
}

/// Encodes with explicit options. Returns the body and statistics.
pub fn encode_with(ctx: &EncodeContext, opts: &KeysOptions) -> Result<(EncodedBody, EncodeStats)> {
    if opts.tolerance != ToleranceMode::Smaller {
        return encode_mode(ctx, opts);
    }
    let a = encode_mode(
        ctx,
        &KeysOptions {
            tolerance: ToleranceMode::DominantShell,
            ..*opts
        },
    );
    let b = encode_mode(
        ctx,
        &KeysOptions {
            tolerance: ToleranceMode::ChainHalving,
            ..*opts
        },
    );
    match (a, b) {
        (Ok(a), Ok(b)) => Ok(if b.0.body.len() < a.0.body.len() {
            b
        } else {
            a
        }),
        (Ok(a), Err(_)) => Ok(a),
        (Err(_), Ok(b)) => Ok(b),
        (Err(e), Err(_)) => Err(e),
    }
}

fn encode_mode(ctx: &EncodeContext, opts: &KeysOptions) -> Result<(EncodedBody, EncodeStats)> {
    let clip = ctx.clip;
    let n = clip.num_samples;
    let nj = clip.num_joints();
    if n > 65_536 {
        return Err(Error::Unsupported(
            "keys codec: key times are 16-bit sample indices, so clips are limited to 65536 samples (use vbr, or split the clip)",
        ));
    }
    if nj > crate::format::limits::MAX_JOINTS {
        return Err(Error::Unsupported("keys codec: at most 16383 joints"));
    }
    let nch = if ctx.has_scale { 3 } else { 2 };
    let flags = ctx.flags
        | if ctx.has_scale {
            BlobFlags::HAS_SCALE
        } else {
            0
        };
    let tols = joint_tolerances(ctx.metric.player_clip(), opts.tolerance);
    let prepared: Vec<Prepared> = (0..nj * nch)
        .map(|s| prepare(ctx, s / nch, s % nch))
        .collect();
    let mut budget = vec![opts.initial_budget; nj];
    let mut plans: Vec<SlotPlan> = vec![SlotPlan::Default; nj * nch];
    let mut dirty = vec![true; nj];
    let mut stats = EncodeStats::default();
    let bind: Vec<f32> = ctx
        .defaults
        .iter()
        .flat_map(|t| {
            let mut v = [0.0f32; 10];
            t.write_to(&mut v);
            v
        })
        .collect();
    let defaults = Defaults::for_header(
        &header_for(ctx, 0),
        (flags & BlobFlags::DEFAULTS_ARE_BIND_POSE != 0).then_some(&bind[..]),
    );
    let mut local = vec![Transform::IDENTITY; nj];
    let mut scratch = vec![Transform::IDENTITY; nj];
    let mut errors = vec![0.0f32; nj];
    for round in 0..=opts.max_rounds {
        for j in 0..nj {
            if dirty[j] {
                let tol = tols[j].precision * budget[j];
                // Fine range segments cost 7 floats per 8 samples: only once the final check
                // has tightened this joint a lot.
                let fine = budget[j] < opts.initial_budget * FINE_AFTER;
                for c in 0..nch {
                    plans[j * nch + c] =
                        plan_slot(&prepared[j * nch + c], tols[j].shell, tol, fine, opts);
                }
                dirty[j] = false;
            }
        }
        let body = write_body(&plans, nch);
        let h = header_for(ctx, body.len());
        debug_assert!(crate::format::keys::layout::validate(&h, &body).is_ok());
        // Final check through the real sampler.
        let mut worst = 0.0f32;
        let mut worst_at = (0usize, 0usize);
        for s in 0..n {
            let key = SampleKey {
                i0: s as u32,
                i1: s as u32,
                alpha: 0.0,
            };
            for (j, l) in local.iter_mut().enumerate() {
                *l = decode::sample_joint(&h, &body, &key, j, &defaults);
            }
            ctx.metric.errors_at(s, &local, &mut scratch, &mut errors);
            for j in 0..nj {
                let e = if errors[j].is_nan() {
                    f32::INFINITY
                } else {
                    errors[j]
                };
                if e > worst {
                    worst = e;
                    worst_at = (j, s);
                }
                if e > clip.skeleton.joints[j].precision && !dirty[j] {
                    // Tighten the joint and (unless only the joint is tightened first, and its
                    // budget is not yet small) every ancestor, each once per round.
                    let own_first =
                        opts.joint_first && budget[j] > opts.initial_budget * (1.0 / 8.0);
                    let mut a = Some(j);
                    if own_first {
                        dirty[j] = true;
                        budget[j] *= 0.5;
                        a = None;
                    }
                    while let Some(x) = a {
                        if !dirty[x] {
                            dirty[x] = true;
                            budget[x] *= 0.5;
                        }
                        a = clip.skeleton.parent(x);
                    }
                }
            }
        }
        stats.rounds = round;
        stats.max_error = worst;
        (stats.worst_joint, stats.worst_sample) = worst_at;
        if !dirty.iter().any(|&d| d) {
            for p in &plans {
                match p {
                    SlotPlan::Default => stats.default_tracks += 1,
                    SlotPlan::Constant(_) => stats.constant_tracks += 1,
                    SlotPlan::Animated {
                        interp: Interp::Linear,
                        times,
                        ..
                    } => {
                        stats.linear_tracks += 1;
                        stats.keys += times.len();
                    }
                    SlotPlan::Animated { times, .. } => {
                        stats.catmull_tracks += 1;
                        stats.keys += times.len();
                    }
                }
            }
            return Ok((
                EncodedBody {
                    codec: CodecId::Keys,
                    flags,
                    body,
                },
                stats,
            ));
        }
    }
    Err(Error::Unsupported(
        "keys codec: the clip's precision cannot be met even with every sample kept as a key (16-bit quantisation is too coarse for it)",
    ))
}
