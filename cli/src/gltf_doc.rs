//! Reading a glTF source's JSON document (`gltf-json`): its animations by clip name and their
//! first key times. Shared by the input reader (do a glTF's weights share its joints' samples?)
//! and `export` (the source document written back).

use gltf_json as json;
use json::validation::Checked;

/// Whether a clip or curve set named `name` (`file:animation`, or the animation alone) comes
/// from the animation named `anim`.
pub fn same_animation(name: &str, anim: &str) -> bool {
    name == anim || name.ends_with(&format!(":{anim}")) || anim.ends_with(&format!(":{name}"))
}

/// The first key time of the joint channels and of the weight channels of the animation of a
/// glTF (its file's `bytes`) that clip `clip_name` came from (the input accessors' `min`, which
/// glTF requires).
pub fn start_times(bytes: &[u8], clip_name: &str) -> Option<(Option<f64>, Option<f64>)> {
    let root = json::Root::from_slice(json_text(bytes)).ok()?;
    let anim = clip_animation(&root, clip_name)?;
    let (mut joints, mut weights) = (None::<f64>, None::<f64>);
    for ch in &anim.channels {
        let sampler = anim.samplers.get(ch.sampler.value())?;
        let t0 = root
            .accessors
            .get(sampler.input.value())?
            .min
            .as_ref()
            .and_then(|v| v.get(0))
            .and_then(|x| x.as_f64())?;
        let slot =
            if ch.target.path == Checked::Valid(json::animation::Property::MorphTargetWeights) {
                &mut weights
            } else {
                &mut joints
            };
        *slot = Some(slot.map_or(t0, |t| t.min(t0)));
    }
    Some((joints, weights))
}

/// The JSON text of a glTF (its JSON chunk when the bytes are a GLB).
pub fn json_text(bytes: &[u8]) -> &[u8] {
    if bytes.starts_with(b"glTF") && bytes.len() >= 20 {
        let len = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
        bytes.get(20..20 + len).unwrap_or_default()
    } else {
        bytes
    }
}

/// The animation of `root` that the clip (or curve set) named `clip_name` was imported from
/// (named `animation<i>` when unnamed, as the importers name them); the longest name matching.
pub fn clip_animation<'r>(root: &'r json::Root, clip_name: &str) -> Option<&'r json::Animation> {
    root.animations
        .iter()
        .enumerate()
        .map(|(i, a)| (a.name.clone().unwrap_or_else(|| format!("animation{i}")), a))
        .filter(|(n, _)| same_animation(clip_name, n))
        .max_by_key(|(n, _)| n.len())
        .map(|(_, a)| a)
}
