//! glTF 2.0 / GLB importer: one clip per animation, resampled at a uniform rate.
//!
//! - Skeleton: the first skin's joints, plus any non-joint node lying between two joints (so
//!   that local transforms still chain). Without a skin: every node targeted by an animation's
//!   translation/rotation/scale channel, plus its ancestors. Parents come from the node tree and
//!   joints are ordered depth-first so that parents precede children.
//! - Each animation becomes a clip sampled at `opts.sample_rate` (30 Hz by default) from its
//!   first to its last key time: `n = ceil(duration * rate) + 1` samples at `t0 + i / rate`, the
//!   last one clamped to the final key (so a duration that is not a whole number of frames holds
//!   the last pose for under one frame). STEP, LINEAR (slerp for rotations) and CUBICSPLINE
//!   (Hermite, tangents scaled by the key interval) samplers are honoured.
//! - Channels that an animation does not drive hold the node's rest TRS, which is also the bind
//!   pose. Morph-target weight channels are ignored. Images are never loaded.
//! - Buffers: the GLB `BIN` chunk, `data:` URIs (base64) and files relative to `base_dir`.

mod sampler;

pub use sampler::{Interp, Keys};

use crate::error::ParseError;
use crate::ImportOptions;
use animcomp::clip::{Joint, Skeleton, Track, MAX_SAMPLES};
use animcomp::math::{Quat, Transform, Vec3};
use animcomp::RawClip;
use base64::Engine as _;
use gltf::animation::util::ReadOutputs;
use gltf::animation::{Interpolation, Property};
use std::path::Path;

/// Default resampling rate in Hz.
pub const DEFAULT_RATE: f32 = 30.0;

pub(crate) fn gerr(msg: impl Into<String>) -> ParseError {
    ParseError::general(msg)
}

/// Resolves every buffer's bytes.
pub(crate) fn load_buffers(
    doc: &gltf::Gltf,
    base_dir: Option<&Path>,
) -> Result<Vec<Vec<u8>>, ParseError> {
    let mut out = Vec::new();
    for b in doc.buffers() {
        let mut data = match b.source() {
            gltf::buffer::Source::Bin => doc.blob.clone().ok_or_else(|| {
                gerr(format!(
                    "buffer {} refers to a missing GLB BIN chunk",
                    b.index()
                ))
            })?,
            gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                let comma = uri
                    .find(',')
                    .ok_or_else(|| gerr(format!("buffer {}: malformed data URI", b.index())))?;
                if !uri[..comma].ends_with(";base64") {
                    return Err(gerr(format!(
                        "buffer {}: only base64 data URIs are supported",
                        b.index()
                    )));
                }
                base64::engine::general_purpose::STANDARD
                    .decode(uri[comma + 1..].trim())
                    .map_err(|e| gerr(format!("buffer {}: bad base64 data: {e}", b.index())))?
            }
            gltf::buffer::Source::Uri(uri) => {
                let dir = base_dir.ok_or_else(|| {
                    gerr(format!(
                        "buffer {} refers to the external file \"{uri}\" but no folder was given",
                        b.index()
                    ))
                })?;
                let path = dir.join(percent_decode(uri));
                std::fs::read(&path).map_err(|e| {
                    gerr(format!(
                        "buffer {}: cannot read \"{}\": {e}",
                        b.index(),
                        path.display()
                    ))
                })?
            }
        };
        if data.len() < b.length() {
            return Err(gerr(format!(
                "buffer {} has {} bytes, the file declares {}",
                b.index(),
                data.len(),
                b.length()
            )));
        }
        // GLB chunks are padded to 4 bytes; keep exactly what is declared plus padding.
        while data.len() % 4 != 0 {
            data.push(0);
        }
        out.push(data);
    }
    Ok(out)
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("");
            if let Ok(v) = u8::from_str_radix(hex, 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn node_rest(node: &gltf::Node) -> Transform {
    let (t, r, s) = node.transform().decomposed();
    Transform {
        rotation: Quat::from_array(r),
        translation: Vec3::from_array(t),
        scale: Vec3::from_array(s),
    }
}

/// Chooses the skeleton's nodes; returns them ordered parents-first with parent indices.
fn skeleton_nodes(doc: &gltf::Document) -> Vec<(usize, Option<u32>)> {
    let n = doc.nodes().len();
    let mut parent_of: Vec<Option<usize>> = vec![None; n];
    for node in doc.nodes() {
        for c in node.children() {
            parent_of[c.index()] = Some(node.index());
        }
    }
    let mut selected = vec![false; n];
    if let Some(skin) = doc.skins().next() {
        for j in skin.joints() {
            selected[j.index()] = true;
        }
        // Non-joint nodes between two joints keep the chain of local transforms intact.
        let joints: Vec<usize> = skin.joints().map(|j| j.index()).collect();
        for &j in &joints {
            let mut chain = Vec::new();
            let mut p = parent_of[j];
            let mut guard = 0;
            while let Some(pi) = p {
                guard += 1;
                if selected[pi] || guard > n {
                    break;
                }
                chain.push(pi);
                p = parent_of[pi];
            }
            if p.is_some_and(|pi| selected[pi]) {
                for c in chain {
                    selected[c] = true;
                }
            }
        }
    } else {
        for anim in doc.animations() {
            for ch in anim.channels() {
                if ch.target().property() == Property::MorphTargetWeights {
                    continue;
                }
                let mut p = Some(ch.target().node().index());
                let mut guard = 0;
                while let Some(pi) = p {
                    guard += 1;
                    if selected[pi] || guard > n {
                        break;
                    }
                    selected[pi] = true;
                    p = parent_of[pi];
                }
            }
        }
    }
    // Depth-first from the tree roots, in node order: parents before children.
    let mut order: Vec<(usize, Option<u32>)> = Vec::new();
    let mut slot: Vec<Option<u32>> = vec![None; n];
    let mut visited = vec![false; n];
    let mut stack: Vec<(usize, Option<u32>)> = Vec::new();
    for root in (0..n).filter(|&i| parent_of[i].is_none()).rev() {
        stack.push((root, None));
    }
    while let Some((i, nearest)) = stack.pop() {
        if visited[i] {
            continue;
        }
        visited[i] = true;
        let mut here = nearest;
        if selected[i] {
            slot[i] = Some(order.len() as u32);
            order.push((i, nearest));
            here = slot[i];
        }
        let node = doc.nodes().nth(i).expect("node index in range");
        let children: Vec<usize> = node.children().map(|c| c.index()).collect();
        for c in children.into_iter().rev() {
            stack.push((c, here));
        }
    }
    order
}

enum ChannelKeys {
    Translation(Keys<3>),
    Rotation(Keys<4>),
    Scale(Keys<3>),
}

/// Checks what `gltf`'s own validation leaves out and its readers would panic on: channel target
/// indices and accessor types.
fn check_document(doc: &gltf::Document) -> Result<(), ParseError> {
    use gltf::accessor::{DataType, Dimensions};
    use gltf::json::validation::Checked;
    let json = doc.as_json();
    let num_nodes = json.nodes.len();
    for (ai, anim) in doc.animations().enumerate() {
        let janim = &json.animations[ai];
        for (ci, jch) in janim.channels.iter().enumerate() {
            let where_ = format!("animation {ai} channel {ci}");
            if jch.target.node.value() >= num_nodes {
                return Err(gerr(format!(
                    "{where_}: target node {} does not exist",
                    jch.target.node.value()
                )));
            }
            if !matches!(jch.target.path, Checked::Valid(_)) {
                return Err(gerr(format!("{where_}: unknown target path")));
            }
            let Some(jsampler) = janim.samplers.get(jch.sampler.value()) else {
                return Err(gerr(format!(
                    "{where_}: sampler {} does not exist",
                    jch.sampler.value()
                )));
            };
            if !matches!(jsampler.interpolation, Checked::Valid(_)) {
                return Err(gerr(format!(
                    "{where_}: unknown interpolation (expected LINEAR, STEP or CUBICSPLINE)"
                )));
            }
            let Some(ch) = anim.channels().nth(ci) else {
                continue;
            };
            let sampler = ch.sampler();
            let input = sampler.input();
            if input.dimensions() != Dimensions::Scalar || input.data_type() != DataType::F32 {
                return Err(gerr(format!("{where_}: key times must be SCALAR floats")));
            }
            let out = sampler.output();
            let ok = match ch.target().property() {
                Property::Translation | Property::Scale => {
                    out.dimensions() == Dimensions::Vec3 && out.data_type() == DataType::F32
                }
                Property::Rotation => {
                    out.dimensions() == Dimensions::Vec4 && out.data_type() != DataType::U32
                }
                Property::MorphTargetWeights => out.data_type() != DataType::U32,
            };
            if !ok {
                return Err(gerr(format!(
                    "{where_}: output accessor has the wrong type for its target"
                )));
            }
        }
    }
    Ok(())
}

fn read_channel(
    ch: &gltf::animation::Channel,
    buffers: &[Vec<u8>],
    where_: &str,
) -> Result<Option<ChannelKeys>, ParseError> {
    let reader = ch.reader(|b| buffers.get(b.index()).map(|v| v.as_slice()));
    let interp = match ch.sampler().interpolation() {
        Interpolation::Step => Interp::Step,
        Interpolation::Linear => Interp::Linear,
        Interpolation::CubicSpline => Interp::CubicSpline,
    };
    let times: Vec<f32> = reader
        .read_inputs()
        .ok_or_else(|| gerr(format!("{where_}: cannot read the key times")))?
        .collect();
    let outputs = reader
        .read_outputs()
        .ok_or_else(|| gerr(format!("{where_}: cannot read the key values")))?;
    let keys = match outputs {
        ReadOutputs::Translations(it) => ChannelKeys::Translation(Keys {
            times,
            values: it.collect(),
            interp,
        }),
        ReadOutputs::Scales(it) => ChannelKeys::Scale(Keys {
            times,
            values: it.collect(),
            interp,
        }),
        ReadOutputs::Rotations(r) => ChannelKeys::Rotation(Keys {
            times,
            values: r.into_f32().collect(),
            interp,
        }),
        ReadOutputs::MorphTargetWeights(_) => return Ok(None),
    };
    let check = match &keys {
        ChannelKeys::Translation(k) | ChannelKeys::Scale(k) => k.check(),
        ChannelKeys::Rotation(k) => k.check(),
    };
    check.map_err(|m| gerr(format!("{where_}: {m}")))?;
    Ok(Some(keys))
}

/// Loads every animation of a glTF (JSON) or GLB file held in `bytes`. External buffers are
/// read relative to `base_dir`. Clips are named after the animations (`animation<i>` when
/// unnamed) and returned in file order.
pub fn load_bytes(
    bytes: &[u8],
    base_dir: Option<&Path>,
    opts: &ImportOptions,
) -> Result<Vec<RawClip>, ParseError> {
    // Last line of defence: the `gltf` crate asserts on some malformed inputs (e.g. a buffer
    // view stride smaller than its element); turn such a panic into an error.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        load_bytes_inner(bytes, base_dir, opts)
    }))
    .unwrap_or_else(|_| Err(gerr("malformed glTF (the glTF reader rejected it)")))
}

/// For writing a glTF back over its source (`animcomp export`): the node index of each joint of
/// the clips [`load_bytes`] gives (same order), and the document's buffers resolved (GLB binary
/// chunk, data URIs, files relative to `base_dir`).
pub fn joint_nodes_and_buffers(
    bytes: &[u8],
    base_dir: Option<&Path>,
) -> Result<(Vec<usize>, Vec<Vec<u8>>), ParseError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let doc = gltf::Gltf::from_slice(bytes)
            .map_err(|e| gerr(format!("not a valid glTF file: {e}")))?;
        let buffers = load_buffers(&doc, base_dir)?;
        let nodes = skeleton_nodes(&doc).into_iter().map(|(n, _)| n).collect();
        Ok((nodes, buffers))
    }))
    .unwrap_or_else(|_| Err(gerr("malformed glTF (the glTF reader rejected it)")))
}

fn load_bytes_inner(
    bytes: &[u8],
    base_dir: Option<&Path>,
    opts: &ImportOptions,
) -> Result<Vec<RawClip>, ParseError> {
    let rate = opts.sample_rate.unwrap_or(DEFAULT_RATE);
    if !(rate.is_finite() && rate > 0.0) {
        return Err(gerr(format!("invalid resampling rate {rate}")));
    }
    let doc = gltf::Gltf::from_slice(bytes).map_err(|e| {
        gerr(format!(
            "not a valid glTF file: {}",
            e.to_string()
                .trim_end()
                .replace('\n', "; ")
                .trim_end_matches("; ")
        ))
    })?;
    if doc.animations().len() == 0 {
        return Err(gerr("the file has no animation"));
    }
    check_document(&doc)?;
    let buffers = load_buffers(&doc, base_dir)?;
    let skel = skeleton_nodes(&doc);
    if skel.is_empty() {
        return Err(gerr("no skin and no animated node: nothing to import"));
    }
    let nodes: Vec<gltf::Node> = doc.nodes().collect();
    let mut joint_of_node = vec![None; nodes.len()];
    for (j, &(ni, _)) in skel.iter().enumerate() {
        joint_of_node[ni] = Some(j);
    }
    let rest: Vec<Transform> = skel.iter().map(|&(ni, _)| node_rest(&nodes[ni])).collect();
    let joints: Vec<Joint> = skel
        .iter()
        .map(|&(ni, parent)| {
            Joint::new(
                nodes[ni]
                    .name()
                    .map_or_else(|| format!("node{ni}"), str::to_string),
                parent,
            )
        })
        .collect();

    let mut clips = Vec::new();
    for anim in doc.animations() {
        let aname = anim
            .name()
            .map_or_else(|| format!("animation{}", anim.index()), str::to_string);
        let mut per_joint: Vec<[Option<ChannelKeys>; 3]> =
            (0..skel.len()).map(|_| [None, None, None]).collect();
        let (mut t0, mut t1) = (f32::INFINITY, f32::NEG_INFINITY);
        for ch in anim.channels() {
            let where_ = format!(
                "animation {} (\"{aname}\") channel {}",
                anim.index(),
                ch.index()
            );
            let Some(keys) = read_channel(&ch, &buffers, &where_)? else {
                continue;
            };
            let Some(j) = joint_of_node[ch.target().node().index()] else {
                continue;
            };
            let times = match &keys {
                ChannelKeys::Translation(k) | ChannelKeys::Scale(k) => &k.times,
                ChannelKeys::Rotation(k) => &k.times,
            };
            t0 = t0.min(times[0]);
            t1 = t1.max(times[times.len() - 1]);
            let slot = match keys {
                ChannelKeys::Translation(_) => 0,
                ChannelKeys::Rotation(_) => 1,
                ChannelKeys::Scale(_) => 2,
            };
            per_joint[j][slot] = Some(keys);
        }
        if !t0.is_finite() {
            // Only channels outside the skeleton (or morph weights): a one-sample rest pose.
            t0 = 0.0;
            t1 = 0.0;
        }
        let frames = ((t1 - t0) as f64 * rate as f64 - 1e-3).ceil().max(0.0);
        if frames + 1.0 > MAX_SAMPLES as f64 {
            return Err(gerr(format!(
                "animation \"{aname}\" is too long to resample at {rate} Hz"
            )));
        }
        let n = frames as usize + 1;
        if n.saturating_mul(skel.len()) > crate::MAX_JOINT_SAMPLES {
            return Err(gerr(format!(
                "animation \"{aname}\": {n} samples x {} joints is more than this importer accepts",
                skel.len()
            )));
        }
        let times: Vec<f32> = (0..n)
            .map(|i| (t0 as f64 + i as f64 / rate as f64).min(t1 as f64) as f32)
            .collect();
        let tracks = per_joint
            .iter()
            .zip(&rest)
            .map(|(chs, r)| {
                let mut tr = Track::constant(r, n);
                if let Some(ChannelKeys::Translation(k)) = &chs[0] {
                    tr.translations = times.iter().map(|&t| sampler::eval_vec3(k, t)).collect();
                }
                if let Some(ChannelKeys::Rotation(k)) = &chs[1] {
                    tr.rotations = times
                        .iter()
                        .map(|&t| sampler::eval_rotation(k, t))
                        .collect();
                }
                if let Some(ChannelKeys::Scale(k)) = &chs[2] {
                    tr.scales = times.iter().map(|&t| sampler::eval_vec3(k, t)).collect();
                }
                tr
            })
            .collect();
        clips.push(RawClip {
            name: aname,
            skeleton: Skeleton {
                joints: joints.clone(),
                bind_pose: Some(rest.clone()),
            },
            sample_rate: rate,
            num_samples: n,
            tracks,
        });
    }
    Ok(clips)
}
