//! glTF morph-target `weights` channels as curves: one [`CurveSet`] per animation that has any,
//! one curve per morph target of each driven mesh, resampled like the joint importer (30 Hz by
//! default, from the animation's first to its last key; STEP, LINEAR and CUBICSPLINE honoured).
//! Each curve's magnitude is its target's largest vertex displacement (the length of the largest
//! `POSITION` delta over the mesh's primitives), and its default is the mesh's default weight.

use super::CurveSet;
use crate::error::ParseError;
use crate::gltf_import::{gerr, load_buffers, Interp, Keys, DEFAULT_RATE};
use animcomp::clip::MAX_SAMPLES;
use animcomp::Curve;
use gltf::animation::util::ReadOutputs;
use gltf::animation::{Interpolation, Property};
use std::path::Path;

/// Largest displacement of each morph target of `mesh`, over its primitives.
fn magnitudes(mesh: &gltf::Mesh, buffers: &[Vec<u8>]) -> Vec<f32> {
    let mut out: Vec<f32> = Vec::new();
    for prim in mesh.primitives() {
        let reader = prim.reader(|b| buffers.get(b.index()).map(|v| v.as_slice()));
        for (t, (positions, _, _)) in reader.read_morph_targets().enumerate() {
            let m = positions
                .map(|it| {
                    it.map(|p| (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt())
                        .fold(0.0f32, f32::max)
                })
                .unwrap_or(0.0);
            if out.len() <= t {
                out.resize(t + 1, 0.0);
            }
            out[t] = out[t].max(m);
        }
    }
    out
}

/// The morph target names of `mesh` from its `extras.targetNames` (the common convention, which
/// `animcomp export` and Blender write), when they are all non-empty strings; empty otherwise.
/// Used when there is one per target (else targets are named `<mesh>.target<t>`).
fn target_names(mesh: &gltf::Mesh) -> Vec<String> {
    let Some(raw) = mesh.extras() else {
        return Vec::new();
    };
    let names: Vec<String> = serde_json::from_str::<serde_json::Value>(raw.get())
        .ok()
        .and_then(|v| v.get("targetNames").cloned())
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    if names.iter().any(String::is_empty) {
        return Vec::new();
    }
    names
}

/// Loads the weights channels of every animation of a glTF / GLB file held in `bytes`.
pub fn load_bytes(
    bytes: &[u8],
    base_dir: Option<&Path>,
    name: &str,
    rate: Option<f32>,
) -> Result<Vec<CurveSet>, ParseError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        load_inner(bytes, base_dir, name, rate)
    }))
    .unwrap_or_else(|_| Err(gerr("malformed glTF (the glTF reader rejected it)")))
}

fn load_inner(
    bytes: &[u8],
    base_dir: Option<&Path>,
    name: &str,
    rate: Option<f32>,
) -> Result<Vec<CurveSet>, ParseError> {
    let rate = rate.unwrap_or(DEFAULT_RATE);
    if !(rate.is_finite() && rate > 0.0) {
        return Err(gerr(format!("invalid resampling rate {rate}")));
    }
    let doc =
        gltf::Gltf::from_slice(bytes).map_err(|e| gerr(format!("not a valid glTF file: {e}")))?;
    let buffers = load_buffers(&doc, base_dir)?;
    let mut sets = Vec::new();
    for anim in doc.animations() {
        let aname = anim
            .name()
            .map_or_else(|| format!("animation{}", anim.index()), str::to_string);
        let mut channels: Vec<(Keys<1>, Curve)> = Vec::new();
        for ch in anim.channels() {
            if ch.target().property() != Property::MorphTargetWeights {
                continue;
            }
            let where_ = format!("animation \"{aname}\" channel {}", ch.index());
            let node = ch.target().node();
            let mesh = node
                .mesh()
                .ok_or_else(|| gerr(format!("{where_}: weights target a node without a mesh")))?;
            let mags = magnitudes(&mesh, &buffers);
            let targets = mags.len();
            if targets == 0 {
                return Err(gerr(format!("{where_}: the mesh has no morph targets")));
            }
            let reader = ch.reader(|b| buffers.get(b.index()).map(|v| v.as_slice()));
            let times: Vec<f32> = reader
                .read_inputs()
                .ok_or_else(|| gerr(format!("{where_}: cannot read the key times")))?
                .collect();
            let Some(ReadOutputs::MorphTargetWeights(w)) = reader.read_outputs() else {
                return Err(gerr(format!("{where_}: cannot read the weights")));
            };
            let w: Vec<f32> = w.into_f32().collect();
            let interp = match ch.sampler().interpolation() {
                Interpolation::Step => Interp::Step,
                Interpolation::Linear => Interp::Linear,
                Interpolation::CubicSpline => Interp::CubicSpline,
            };
            let per_key = if interp == Interp::CubicSpline { 3 } else { 1 };
            if w.len() != times.len() * per_key * targets {
                return Err(gerr(format!(
                    "{where_}: {} weights for {} keys of {targets} targets",
                    w.len(),
                    times.len()
                )));
            }
            let defaults = mesh.weights().map(<[f32]>::to_vec).unwrap_or_default();
            let mesh_name = mesh
                .name()
                .map_or_else(|| format!("mesh{}", mesh.index()), str::to_string);
            let names = Some(target_names(&mesh))
                .filter(|n| n.len() == targets)
                .unwrap_or_default();
            for (t, &magnitude) in mags.iter().enumerate() {
                // Key k holds `per_key` blocks of `targets` floats (in-tangent, value, out-tangent).
                let values = (0..times.len() * per_key)
                    .map(|i| [w[i * targets + t]])
                    .collect();
                let keys = Keys {
                    times: times.clone(),
                    values,
                    interp,
                };
                keys.check().map_err(|m| gerr(format!("{where_}: {m}")))?;
                let curve = Curve {
                    default_value: Some(defaults.get(t).copied().unwrap_or(0.0)),
                    magnitude: Some(magnitude),
                    ..Curve::new(
                        names
                            .get(t)
                            .cloned()
                            .unwrap_or_else(|| format!("{mesh_name}.target{t}")),
                        channels.len() as u32,
                        vec![],
                    )
                };
                channels.push((keys, curve));
            }
        }
        if channels.is_empty() {
            continue;
        }
        let t0 = channels
            .iter()
            .map(|(k, _)| k.times[0])
            .fold(f32::INFINITY, f32::min);
        let t1 = channels
            .iter()
            .map(|(k, _)| k.times[k.times.len() - 1])
            .fold(f32::NEG_INFINITY, f32::max);
        let frames = ((t1 - t0) as f64 * rate as f64 - 1e-3).ceil().max(0.0);
        if frames + 1.0 > MAX_SAMPLES as f64 {
            return Err(gerr(format!(
                "animation \"{aname}\" is too long to resample at {rate} Hz"
            )));
        }
        let n = frames as usize + 1;
        let curves = channels
            .into_iter()
            .map(|(keys, mut c)| {
                c.values = (0..n)
                    .map(|i| keys.eval((t0 + i as f32 / rate).min(t1), false)[0])
                    .collect();
                c
            })
            .collect();
        sets.push(CurveSet {
            name: format!("{name}:{aname}"),
            sample_rate: rate,
            num_samples: n,
            curves,
            source: Default::default(),
            notes: vec![format!(
                "weights resampled at {rate} Hz from {t0} s to {t1} s"
            )],
        });
    }
    Ok(sets)
}
