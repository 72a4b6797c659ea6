//! `animcomp export`: look at what compression did. Compresses a clip (or takes it raw with
//! `--raw`), decodes it through the runtime decompressor at each of the clip's own sample times,
//! and writes a glTF 2.0 file (`.glb`, or `.gltf` with the buffer embedded) holding the source
//! skeleton (joint names, hierarchy, bind pose as the nodes' rest transforms, a skin whose inverse
//! bind matrices come from that pose) and one animation with the decoded poses (LINEAR
//! translation / rotation / scale channels per joint, one key per sample). When the source is a
//! glTF/GLB, its document is kept instead (mesh, skin, materials, scene; every buffer merged into
//! one) and only its animations are replaced by the decoded one. Curves go out as morph weights:
//! a glTF source's weight channels (the curves its importer read, on the nodes they drove; with
//! joints, when they share the joints' samples), an FBX source's blend-shape meshes are written with their targets (unindexed triangles at
//! rest, not skinned; targets named after the curves in `extras.targetNames`); curves without
//! meshes (face takes) drive a placeholder triangle with empty targets named after them.
//!
//! The JSON side is built with `gltf-json` (the `gltf` crate family); the GLB container is
//! written here (a 12-byte header, the JSON chunk, the binary chunk).

use crate::input;
use crate::measure;
use crate::CliError;
use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::math::{Transform, FLOATS_PER_JOINT};
use animcomp::{AlignedBlob, Curve, RawClip};
use glam::{Mat4, Quat};
use gltf_json as json;
use json::validation::{Checked, USize64};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `animcomp export`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The clip file: .bvh, .gltf/.glb, .fbx, .acl.sjson, or curves (.csv Live Link Face,
    /// .npy frames x curves).
    pub input: PathBuf,
    /// The glTF to write: `.glb` (binary) or `.gltf` (JSON, buffer embedded); a folder receives
    /// `<input stem>.preview.glb`.
    #[arg(short, long, value_name = "OUT.glb")]
    pub output: PathBuf,
    /// Write the uncompressed clip instead of the decoded one (for a side-by-side look).
    #[arg(long)]
    pub raw: bool,
    #[command(flatten)]
    pub opts: input::ClipArgs,
    #[command(flatten)]
    pub additive: crate::additive::AdditiveArgs,
}

/// The precisions the blob was made with, in words: the joints' (`--error`) when there are
/// joints, the curves' when there are curves (each curve's own, set from `--curve-precision` or
/// `--morph-position-precision`).
fn precision_words(clip: &RawClip, curves: &[Curve], a: &Args) -> String {
    let mut words = Vec::new();
    if clip.num_joints() > 0 {
        words.push(format!("precision {}", a.opts.settings.error));
    }
    if let Some(c) = curves.first() {
        let same = curves.iter().all(|x| x.precision == c.precision);
        words.push(if same {
            format!("curve precision {}", c.precision)
        } else {
            "curve precision per curve".to_string()
        });
    }
    words.join(", ")
}

/// Runs the command.
pub fn run(a: &Args) -> Result<ExitCode, CliError> {
    let default_name = format!("{}.preview.glb", measure::file_stem(&a.input));
    let out = crate::output::check(&a.output, &default_name, &[&a.input], "glTF")?;
    let mut asset = input::read(&a.input, &a.opts.settings)?;
    let (clip, curve_set) = if asset.is_curve_only() {
        input::refuse_on_curves(&a.input, &input::curve_only_refusals())?;
        // Curves and no skeleton (a face take, blend shapes without bones): a clip of no joints.
        let set = input::take_curve_set(&mut asset, &a.opts)?;
        (set.face_clip(), Some(set))
    } else {
        let clip = input::take_clip(&mut asset, &a.opts)?;
        let set = input::take_clip_curves(&mut asset, &clip, &a.opts.curves);
        (clip, set)
    };
    // The source document is written back from the bytes read once above.
    let source_bytes = std::mem::take(&mut asset.bytes);
    crate::output::refuse_existing(&out, a.opts.force)?;
    let curves: Vec<Curve> = curve_set.map(|s| s.curves).unwrap_or_default();
    let (poses, weights, what) = if a.raw {
        let poses = (0..clip.num_samples)
            .map(|i| {
                let mut p = vec![Transform::IDENTITY; clip.num_joints()];
                clip.local_pose(i, &mut p);
                p
            })
            .collect();
        let weights = (0..clip.num_samples)
            .map(|i| curves.iter().map(|c| c.values[i]).collect())
            .collect();
        (poses, weights, "raw clip".to_string())
    } else {
        let codec = a.opts.codec.unwrap_or_else(measure::default_codec);
        let fail = |e: animcomp::Error| {
            CliError(format!(
                "{}: {} codec: {e}",
                a.input.display(),
                codec.name()
            ))
        };
        let settings = a.opts.settings.settings(codec);
        let (blob, ncurves) = if a.additive.additive.is_some() {
            // Additive blobs hold joints only; the curves go out raw.
            let (b, _) = a
                .additive
                .compress_timed(&clip, &settings, &a.opts.settings)
                .map_err(fail)?;
            (b, 0)
        } else {
            let b = animcomp::compress_with_curves(&clip, &curves, &settings).map_err(fail)?;
            (AlignedBlob::from_bytes(&b), curves.len())
        };
        let (mut poses, mut weights) = decode(&clip, ncurves, &blob)?;
        if ncurves < curves.len() {
            weights = (0..clip.num_samples)
                .map(|i| curves.iter().map(|c| c.values[i]).collect())
                .collect();
        }
        // An additive blob decodes to additive poses: the base is applied, as a player would.
        a.additive
            .applied_poses(&clip, &a.opts.settings, &mut poses)
            .map_err(fail)?;
        let chosen = measure::blob_codec(&blob);
        (
            poses,
            weights,
            format!(
                "decoded {} blob ({} bytes, {})",
                chosen,
                blob.len(),
                precision_words(&clip, &curves, a)
            ),
        )
    };
    let glb = !matches!(out.extension(), Some(e) if e.eq_ignore_ascii_case("gltf"));
    let mut source = gltf_source(&a.input, &source_bytes, &clip)?;
    if let Some(src) = &mut source {
        // The source's morph weights go out again (decoded) on the nodes that had them, when
        // its weight channels are the curves that were compressed, one per target in order.
        let targets: usize = src.weight_nodes.iter().map(|(_, c)| c.len()).sum();
        if targets != curves.len() {
            if !curves.is_empty() {
                eprintln!(
                    "animcomp: warning: {}: {} curves but {targets} morph targets in the \
                     source's weight channels: the weights are not written",
                    a.input.display(),
                    curves.len()
                );
            }
            src.weight_nodes.clear();
        }
    }
    let morph = if !curves.is_empty()
        && a.input
            .to_string_lossy()
            .to_ascii_lowercase()
            .ends_with(".fbx")
    {
        animcomp_import::fbx::morph_meshes(&source_bytes, a.opts.settings.units)
            .map_err(|e| e.in_file(&a.input))?
    } else {
        Vec::new()
    };
    let bytes = write_gltf(&clip, &poses, &curves, &weights, &morph, source, glb)?;
    std::fs::write(&out, bytes)
        .map_err(|e| CliError(format!("{}: cannot write: {e}", out.display())))?;
    println!("wrote {}", out.display());
    println!(
        "clip {}: {} joints, {} curves, {} samples at {} Hz; {what}",
        clip.name,
        clip.num_joints(),
        curves.len(),
        clip.num_samples,
        clip.sample_rate
    );
    Ok(ExitCode::SUCCESS)
}

/// The nodes whose morph weights the animation drives, with the curves of their targets.
type WeightNodes = Vec<(json::Index<json::Node>, Vec<usize>)>;

/// One local pose per sample.
pub type Poses = Vec<Vec<Transform>>;
/// One set of curve values per sample.
pub type Weights = Vec<Vec<f32>>;

/// Every sample's local pose and curve values through the runtime decompressor.
pub fn decode(
    clip: &RawClip,
    num_curves: usize,
    blob: &AlignedBlob,
) -> Result<(Poses, Weights), CliError> {
    let bind: Option<Vec<f32>> = clip.skeleton.bind_pose.as_ref().map(|b| {
        let mut v = vec![0.0; b.len() * FLOATS_PER_JOINT];
        for (j, t) in b.iter().enumerate() {
            t.write_to(&mut v[j * FLOATS_PER_JOINT..]);
        }
        v
    });
    let opts = DecompressOptions {
        bind_pose: bind.as_deref(),
        ..Default::default()
    };
    let mut d = Decompressor::new(blob.as_bytes(), &opts)?;
    let stored = d.header().num_samples as usize;
    let mut poses = Vec::with_capacity(clip.num_samples);
    let mut weights = Vec::with_capacity(clip.num_samples);
    for i in 0..clip.num_samples {
        let mut p = vec![Transform::IDENTITY; clip.num_joints()];
        let mut w = vec![0.0f32; num_curves];
        if i < stored {
            d.seek_sample(i as u32);
        } else {
            // A looping blob that dropped its repeated last sample: read it by time.
            d.seek(
                i as f32 / clip.sample_rate,
                animcomp::decompress::Looping::Clamp,
                animcomp::decompress::Rounding::None,
            )?;
        }
        if clip.num_joints() > 0 {
            let mut floats = vec![0.0f32; clip.num_joints() * FLOATS_PER_JOINT];
            d.sample_pose(&mut floats, FLOATS_PER_JOINT)?;
            for (j, t) in p.iter_mut().enumerate() {
                *t = Transform::read_from(&floats[j * FLOATS_PER_JOINT..]);
            }
        }
        if num_curves > 0 {
            d.sample_curves(&mut w)?;
        }
        poses.push(p);
        weights.push(w);
    }
    Ok((poses, weights))
}

/// Little-endian floats appended to the binary buffer, 4-byte aligned.
struct Bin {
    bytes: Vec<u8>,
}

impl Bin {
    fn push(&mut self, floats: &[f32]) -> (u64, u64) {
        while self.bytes.len() & 3 != 0 {
            self.bytes.push(0);
        }
        let offset = self.bytes.len() as u64;
        for f in floats {
            self.bytes.extend_from_slice(&f.to_le_bytes());
        }
        (offset, (floats.len() * 4) as u64)
    }
}

fn accessor(
    root: &mut json::Root,
    bin: &mut Bin,
    floats: &[f32],
    type_: json::accessor::Type,
    minmax: bool,
) -> json::Index<json::Accessor> {
    let width = match type_ {
        json::accessor::Type::Scalar => 1,
        json::accessor::Type::Vec3 => 3,
        json::accessor::Type::Vec4 => 4,
        json::accessor::Type::Mat4 => 16,
        _ => unreachable!("only the types written here"),
    };
    let (offset, len) = bin.push(floats);
    let view = root.push(json::buffer::View {
        buffer: json::Index::new(0),
        byte_length: USize64(len),
        byte_offset: Some(USize64(offset)),
        byte_stride: None,
        name: None,
        target: None,
        extensions: None,
        extras: Default::default(),
    });
    let (min, max) = if minmax {
        let mut lo = vec![f32::INFINITY; width];
        let mut hi = vec![f32::NEG_INFINITY; width];
        for c in floats.chunks(width) {
            for k in 0..width {
                lo[k] = lo[k].min(c[k]);
                hi[k] = hi[k].max(c[k]);
            }
        }
        (Some(json::Value::from(lo)), Some(json::Value::from(hi)))
    } else {
        (None, None)
    };
    root.push(json::Accessor {
        buffer_view: Some(view),
        byte_offset: None,
        count: USize64((floats.len() / width) as u64),
        component_type: Checked::Valid(json::accessor::GenericComponentType(
            json::accessor::ComponentType::F32,
        )),
        extensions: None,
        extras: Default::default(),
        type_: Checked::Valid(type_),
        min,
        max,
        name: None,
        normalized: false,
        sparse: None,
    })
}

/// A glTF source to write the animation over: its document (animations and buffers removed,
/// every buffer view moved into one buffer), that buffer's bytes, the node of each joint, and
/// the nodes whose morph weights the clip's animation drove, with the curves of their targets.
pub struct Source {
    root: json::Root,
    bin: Vec<u8>,
    nodes: Vec<usize>,
    weight_nodes: WeightNodes,
}

/// The nodes whose morph weights the animation of `clip_name` drives, in channel order, each
/// with its curves: as many as its mesh has targets (the most of any primitive), numbered on
/// from the previous channel's, as `gltf_weights` numbers the curves it reads.
fn source_weight_nodes(root: &json::Root, clip_name: &str) -> WeightNodes {
    let Some(anim) = crate::gltf_doc::clip_animation(root, clip_name) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut next = 0usize;
    for ch in &anim.channels {
        if ch.target.path != Checked::Valid(json::animation::Property::MorphTargetWeights) {
            continue;
        }
        let targets = root
            .nodes
            .get(ch.target.node.value())
            .and_then(|n| n.mesh)
            .and_then(|m| root.meshes.get(m.value()))
            .map_or(0, |m| {
                m.primitives
                    .iter()
                    .map(|p| p.targets.as_ref().map_or(0, Vec::len))
                    .max()
                    .unwrap_or(0)
            });
        out.push((ch.target.node, (next..next + targets).collect()));
        next += targets;
    }
    out
}

/// The source document when `path` (whose bytes are `bytes`) is a glTF/GLB whose skeleton
/// matches `clip` (the mesh, skin, materials and scene are kept; its animations are replaced by
/// the decoded one).
pub fn gltf_source(
    path: &std::path::Path,
    bytes: &[u8],
    clip: &RawClip,
) -> Result<Option<Source>, CliError> {
    let lower = path.to_string_lossy().to_ascii_lowercase();
    if !(lower.ends_with(".gltf") || lower.ends_with(".glb")) {
        return Ok(None);
    }
    let (nodes, buffers) =
        animcomp_import::gltf_import::joint_nodes_and_buffers(bytes, path.parent())
            .map_err(|e| e.in_file(path))?;
    if nodes.len() != clip.num_joints() {
        return Ok(None);
    }
    let text = crate::gltf_doc::json_text(bytes);
    let mut root =
        json::Root::from_slice(text).map_err(|e| CliError(format!("{}: {e}", path.display())))?;
    let mut bin = Vec::new();
    let mut base = Vec::new();
    for b in &buffers {
        while bin.len() & 3 != 0 {
            bin.push(0);
        }
        base.push(bin.len() as u64);
        bin.extend_from_slice(b);
    }
    for v in &mut root.buffer_views {
        let b = base.get(v.buffer.value()).copied().unwrap_or(0);
        v.byte_offset = Some(USize64(b + v.byte_offset.map_or(0, |o| o.0)));
        v.buffer = json::Index::new(0);
    }
    let weight_nodes = source_weight_nodes(&root, &clip.name);
    root.buffers.clear();
    root.animations.clear();
    root.asset.generator = Some(format!("animcomp {}", env!("CARGO_PKG_VERSION")));
    Ok(Some(Source {
        root,
        bin,
        nodes,
        weight_nodes,
    }))
}

/// The glTF (GLB bytes when `glb`, else JSON text with the buffer as a data URI) of a clip's
/// skeleton and `poses` / `weights` (one per sample), or of `source` with its animations
/// replaced by `poses`.
pub fn write_gltf(
    clip: &RawClip,
    poses: &[Vec<Transform>],
    curves: &[Curve],
    weights: &[Vec<f32>],
    morph: &[animcomp_import::fbx::FbxMorphMesh],
    source: Option<Source>,
    glb: bool,
) -> Result<Vec<u8>, CliError> {
    let nj = clip.num_joints();
    let ns = poses.len();
    let (mut root, mut bin, node_of, weight_nodes) = match source {
        Some(src) => (
            src.root,
            Bin { bytes: src.bin },
            src.nodes,
            src.weight_nodes,
        ),
        None => {
            let mut root = json::Root {
                asset: json::Asset {
                    generator: Some(format!("animcomp {}", env!("CARGO_PKG_VERSION"))),
                    ..Default::default()
                },
                ..Default::default()
            };
            let mut bin = Bin { bytes: Vec::new() };
            let w = skeleton(&mut root, &mut bin, clip, poses, curves, morph)?;
            (root, bin, (0..nj).collect(), w)
        }
    };
    if ns > 0 {
        let times: Vec<f32> = (0..ns).map(|i| i as f32 / clip.sample_rate).collect();
        let input = accessor(
            &mut root,
            &mut bin,
            &times,
            json::accessor::Type::Scalar,
            true,
        );
        let mut samplers = Vec::new();
        let mut channels = Vec::new();
        let mut channel = |samplers: &mut Vec<json::animation::Sampler>,
                           output: json::Index<json::Accessor>,
                           node: json::Index<json::Node>,
                           path: json::animation::Property| {
            samplers.push(json::animation::Sampler {
                extensions: None,
                extras: Default::default(),
                input,
                interpolation: Checked::Valid(json::animation::Interpolation::Linear),
                output,
            });
            channels.push(json::animation::Channel {
                sampler: json::Index::new(samplers.len() as u32 - 1),
                target: json::animation::Target {
                    extensions: None,
                    extras: Default::default(),
                    node,
                    path: Checked::Valid(path),
                },
                extensions: None,
                extras: Default::default(),
            });
        };
        for j in 0..nj {
            let node = json::Index::new(node_of[j] as u32);
            let t: Vec<f32> = poses
                .iter()
                .flat_map(|p| p[j].translation.to_array())
                .collect();
            let r: Vec<f32> = poses
                .iter()
                .scan(Quat::IDENTITY, |prev, p| {
                    // Same hemisphere as the previous key, so LINEAR blends the short way.
                    let mut q = p[j].rotation.normalize();
                    if prev.dot(q) < 0.0 {
                        q = -q;
                    }
                    *prev = q;
                    Some(q.to_array())
                })
                .flatten()
                .collect();
            let s: Vec<f32> = poses.iter().flat_map(|p| p[j].scale.to_array()).collect();
            let ta = accessor(&mut root, &mut bin, &t, json::accessor::Type::Vec3, false);
            channel(
                &mut samplers,
                ta,
                node,
                json::animation::Property::Translation,
            );
            let ra = accessor(&mut root, &mut bin, &r, json::accessor::Type::Vec4, false);
            channel(&mut samplers, ra, node, json::animation::Property::Rotation);
            if s.iter().any(|&x| x != 1.0) {
                let sa = accessor(&mut root, &mut bin, &s, json::accessor::Type::Vec3, false);
                channel(&mut samplers, sa, node, json::animation::Property::Scale);
            }
        }
        for (node, used) in &weight_nodes {
            let node = *node;
            let w: Vec<f32> = weights
                .iter()
                .flat_map(|ws| used.iter().map(move |&c| ws[c]))
                .collect();
            let wa = accessor(&mut root, &mut bin, &w, json::accessor::Type::Scalar, false);
            channel(
                &mut samplers,
                wa,
                node,
                json::animation::Property::MorphTargetWeights,
            );
        }
        root.push(json::Animation {
            extensions: None,
            extras: Default::default(),
            channels,
            name: Some(clip.name.clone()),
            samplers,
        });
    }
    while bin.bytes.len() & 3 != 0 {
        bin.bytes.push(0);
    }
    let uri = (!glb).then(|| {
        use base64::Engine;
        format!(
            "data:application/octet-stream;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(&bin.bytes)
        )
    });
    root.push(json::Buffer {
        byte_length: USize64(bin.bytes.len() as u64),
        name: None,
        uri,
        extensions: None,
        extras: Default::default(),
    });
    // `Root::to_string`, compiled in gltf-json, not `serialize::to_string::<Root>`: the generic
    // one compiled gltf-json's whole serializer into this binary (docs/ci.md).
    let text = root.to_string().map_err(|e| CliError(e.to_string()))?;
    if !glb {
        return Ok(text.into_bytes());
    }
    let mut js = text.into_bytes();
    while js.len() & 3 != 0 {
        js.push(b' ');
    }
    let total = 12 + 8 + js.len() + 8 + bin.bytes.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(js.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&js);
    out.extend_from_slice(&(bin.bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&bin.bytes);
    Ok(out)
}

/// The skeleton's nodes (rest pose = bind pose, else the first pose), a skin, the curves'
/// placeholder mesh node (index = joints) and the scene.
fn skeleton(
    root: &mut json::Root,
    bin: &mut Bin,
    clip: &RawClip,
    poses: &[Vec<Transform>],
    curves: &[Curve],
    morph: &[animcomp_import::fbx::FbxMorphMesh],
) -> Result<WeightNodes, CliError> {
    let nj = clip.num_joints();
    let rest: Vec<Transform> = match &clip.skeleton.bind_pose {
        Some(b) if b.len() == nj => b.clone(),
        _ => poses.first().cloned().unwrap_or_default(),
    };
    let mut children: Vec<Vec<json::Index<json::Node>>> = vec![Vec::new(); nj];
    for j in 0..nj {
        if let Some(p) = clip.skeleton.parent(j) {
            children[p].push(json::Index::new(j as u32));
        }
    }
    for j in 0..nj {
        let t = rest[j];
        root.push(json::Node {
            name: Some(clip.skeleton.joints[j].name.clone()),
            translation: Some(t.translation.to_array()),
            rotation: Some(json::scene::UnitQuaternion(
                t.rotation.normalize().to_array(),
            )),
            scale: Some(t.scale.to_array()),
            children: (!children[j].is_empty()).then(|| children[j].clone()),
            camera: None,
            extensions: None,
            extras: Default::default(),
            matrix: None,
            mesh: None,
            skin: None,
            weights: None,
        });
    }
    let mut scene_nodes: Vec<json::Index<json::Node>> = (0..nj)
        .filter(|&j| clip.skeleton.parent(j).is_none())
        .map(|j| json::Index::new(j as u32))
        .collect();
    if nj > 0 {
        // Inverse bind matrices from the rest pose's object-space transforms.
        let mut world: Vec<Transform> = Vec::with_capacity(nj);
        let mut ibm = Vec::with_capacity(nj * 16);
        for (j, l) in rest.iter().enumerate() {
            let w = match clip.skeleton.parent(j) {
                Some(p) => Transform::mul(&world[p], l),
                None => *l,
            };
            let m = Mat4::from_scale_rotation_translation(w.scale, w.rotation, w.translation);
            ibm.extend_from_slice(&m.inverse().to_cols_array());
            world.push(w);
        }
        let ibm = accessor(root, bin, &ibm, json::accessor::Type::Mat4, false);
        root.push(json::Skin {
            extensions: None,
            extras: Default::default(),
            inverse_bind_matrices: Some(ibm),
            joints: (0..nj).map(|j| json::Index::new(j as u32)).collect(),
            name: Some(clip.name.clone()),
            skeleton: None,
        });
    }
    // Curves: the source's blend-shape meshes (FBX) with their targets, else a placeholder
    // triangle with one empty target per curve, so the weights have something to drive.
    let mut weight_nodes = Vec::new();
    if !curves.is_empty() {
        let meshes: Vec<animcomp_import::fbx::FbxMorphMesh> = if morph.is_empty() {
            vec![animcomp_import::fbx::FbxMorphMesh {
                name: "curves".into(),
                positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                targets: (0..curves.len()).map(|c| (c, vec![[0.0; 3]; 3])).collect(),
            }]
        } else {
            morph.to_vec()
        };
        for mm in &meshes {
            let flat = |v: &[[f32; 3]]| v.iter().flatten().copied().collect::<Vec<f32>>();
            let pos = accessor(
                root,
                bin,
                &flat(&mm.positions),
                json::accessor::Type::Vec3,
                true,
            );
            let mut targets = Vec::new();
            for (_, d) in &mm.targets {
                let d = accessor(root, bin, &flat(d), json::accessor::Type::Vec3, true);
                targets.push(json::mesh::MorphTarget {
                    positions: Some(d),
                    normals: None,
                    tangents: None,
                });
            }
            let used: Vec<usize> = mm.targets.iter().map(|(c, _)| *c).collect();
            let mut attributes = std::collections::BTreeMap::new();
            attributes.insert(Checked::Valid(json::mesh::Semantic::Positions), pos);
            let names: Vec<&str> = used.iter().map(|&c| curves[c].name.as_str()).collect();
            let extras =
                serde_json::value::to_raw_value(&serde_json::json!({ "targetNames": names }))
                    .map_err(|e| CliError(e.to_string()))?;
            let mesh = root.push(json::Mesh {
                extensions: None,
                extras: Some(extras),
                name: Some(mm.name.clone()),
                primitives: vec![json::mesh::Primitive {
                    attributes,
                    extensions: None,
                    extras: Default::default(),
                    indices: None,
                    material: None,
                    mode: Checked::Valid(json::mesh::Mode::Triangles),
                    targets: Some(targets),
                }],
                weights: Some(
                    used.iter()
                        .map(|&c| curves[c].default_value.unwrap_or(0.0))
                        .collect(),
                ),
            });
            let node = root.push(json::Node {
                name: Some(mm.name.clone()),
                mesh: Some(mesh),
                camera: None,
                children: None,
                extensions: None,
                extras: Default::default(),
                matrix: None,
                rotation: None,
                scale: None,
                translation: None,
                skin: None,
                weights: None,
            });
            scene_nodes.push(node);
            weight_nodes.push((node, used));
        }
    }
    let scene = root.push(json::Scene {
        extensions: None,
        extras: Default::default(),
        name: Some(clip.name.clone()),
        nodes: scene_nodes,
    });
    root.scene = Some(scene);
    Ok(weight_nodes)
}
