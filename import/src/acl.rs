//! Importer for ACL's raw clip text format (`*.acl.sjson`), versions 1 to 5.
//!
//! Layout (see ACL's `tools/format_reference.acl.sjson`):
//! - `version = N`;
//! - `clip = { name, num_samples, sample_rate, error_threshold (version 1 only), is_binary_exact,
//!   additive_format, additive_base_name, additive_base_num_samples, additive_base_sample_rate }`;
//! - `settings = { ..., error_threshold }` (optional, version 2 and later);
//! - `bones = [ { name, parent ("" for a root; an index, -1 for a root, is accepted too),
//!   vertex_distance, bind_rotation, bind_translation, bind_scale } ]`, parents before children;
//! - `tracks = [ { name, rotations = [[x,y,z,w] ...], translations = [[x,y,z] ...],
//!   scales = [[x,y,z] ...] } ]`, every channel optional;
//! - `base_tracks = [ ... ]` (additive clips, version 3 and later): the base clip's tracks, as
//!   `tracks`, `clip.additive_base_num_samples` samples (default 1) at
//!   `clip.additive_base_sample_rate` (default 30).
//!
//! Additive clips (`additive_format` = `relative`, `additive0` or `additive1`, any case):
//! [`parse`] returns the clip players see, the base with the additive applied
//! ([`animcomp::offline::additive`]), so every caller of [`crate::load`] gets a plain clip;
//! [`parse_additive`] returns the additive clip, its format and its base clip separately (for
//! [`animcomp::compress_additive`]).
//!
//! Mapping: `vertex_distance` becomes the joint's shell distance, the error threshold (clip or
//! settings) becomes every joint's precision (0.01 when absent) and [`parse`]'s second result.
//! A missing channel or track holds the bone's bind value (bind values default to identity).
//! With `is_binary_exact = true` numbers are hexadecimal strings of the 64-bit IEEE pattern.
//! Values are imported as they are: a 1e25 translation imports fine and is rejected later by
//! [`animcomp::RawClip::validate`].

use crate::error::ParseError;
use crate::sjson::{self, Node, Value};
use animcomp::clip::{Joint, Skeleton, Track, DEFAULT_PRECISION, MAX_JOINTS, MAX_SAMPLES};
use animcomp::math::{Quat, Transform, Vec3};
use animcomp::RawClip;
use animcomp::{
    offline::additive::{AdditiveBase, BasePoses},
    AdditiveFormat,
};

/// Highest format version understood.
pub const MAX_VERSION: f64 = 5.0;

fn err(node: &Node, field: &str, what: impl std::fmt::Display) -> ParseError {
    ParseError::at(node.line, format!("field {field}: {what}"))
}

fn missing(field: &str) -> ParseError {
    ParseError::general(format!("field {field}: missing"))
}

/// Reads numbers that may be written as hex strings (binary exact files).
struct Reader {
    binary_exact: bool,
}

impl Reader {
    fn number(&self, node: &Node, field: &str) -> Result<f64, ParseError> {
        match &node.value {
            Value::Number(n) => Ok(*n),
            Value::String(s) => {
                let hex = s.trim_start_matches("0x").trim_start_matches("0X");
                match u64::from_str_radix(hex, 16) {
                    Ok(bits) if hex.len() <= 16 => Ok(f64::from_bits(bits)),
                    _ if self.binary_exact => Err(err(
                        node,
                        field,
                        format!("\"{s}\" is not a 64-bit hex float"),
                    )),
                    _ => Err(err(
                        node,
                        field,
                        format!("expected a number, found \"{s}\""),
                    )),
                }
            }
            _ => Err(err(node, field, "expected a number")),
        }
    }

    fn array<const N: usize>(&self, node: &Node, field: &str) -> Result<[f64; N], ParseError> {
        let items = node
            .as_array()
            .ok_or_else(|| err(node, field, format!("expected an array of {N} numbers")))?;
        if items.len() != N {
            return Err(err(
                node,
                field,
                format!("expected {N} numbers, found {}", items.len()),
            ));
        }
        let mut out = [0.0; N];
        for (o, it) in out.iter_mut().zip(items) {
            *o = self.number(it, field)?;
        }
        Ok(out)
    }

    fn quat(&self, node: &Node, field: &str) -> Result<Quat, ParseError> {
        let [x, y, z, w] = self.array::<4>(node, field)?;
        Ok(Quat::from_xyzw(x as f32, y as f32, z as f32, w as f32))
    }

    fn vec3(&self, node: &Node, field: &str) -> Result<Vec3, ParseError> {
        let [x, y, z] = self.array::<3>(node, field)?;
        Ok(Vec3::new(x as f32, y as f32, z as f32))
    }
}

fn string_field<'a>(obj: &'a Node, key: &str, field: &str) -> Result<Option<&'a str>, ParseError> {
    match obj.get(key) {
        None => Ok(None),
        Some(n) => n
            .as_str()
            .map(Some)
            .ok_or_else(|| err(n, field, "expected a string")),
    }
}

/// Parses a `.acl.sjson` clip. Returns the clip and the error threshold the file asks for.
/// The clip is named `name` (callers pass the file name, since several regression files share
/// one `clip.name`), or the file's `clip.name` when `name` is empty.
pub fn parse(text: &str, name: &str) -> Result<(RawClip, Option<f32>), ParseError> {
    let (clip, threshold, additive) = parse_additive(text, name)?;
    let Some(a) = additive else {
        return Ok((clip, threshold));
    };
    let base = a.base.ok_or_else(|| {
        ParseError::at(
            1,
            "additive clip without base_tracks: its base is unknown (use parse_additive)",
        )
    })?;
    let poses = BasePoses::new(
        &AdditiveBase::Clip(&base),
        clip.num_joints(),
        clip.num_samples,
    )
    .map_err(|e| ParseError::at(1, format!("base_tracks: {e}")))?;
    Ok((poses.apply_to_clip(a.format, &clip), threshold))
}

/// An ACL clip file's additive data.
#[derive(Debug, Clone, PartialEq)]
pub struct AclAdditive {
    /// The format (`relative`, `additive0` or `additive1`).
    pub format: AdditiveFormat,
    /// The base clip from `base_tracks` (same bones; bind values where a track or channel is
    /// missing), or `None` when the file has no `base_tracks`.
    pub base: Option<RawClip>,
}

/// Parses a `.acl.sjson` clip like [`parse`], but returns an additive clip as it is stored (the
/// additive tracks) together with its format and base clip. For a plain clip the third result
/// is `None`.
pub fn parse_additive(
    text: &str,
    name: &str,
) -> Result<(RawClip, Option<f32>, Option<AclAdditive>), ParseError> {
    let root = sjson::parse(text)?;
    let version_node = root.get("version").ok_or_else(|| missing("version"))?;
    let version = version_node
        .as_f64()
        .ok_or_else(|| err(version_node, "version", "expected a number"))?;
    if !(1.0..=MAX_VERSION).contains(&version) || version.fract() != 0.0 {
        return Err(err(
            version_node,
            "version",
            format!("unsupported version {version} (1 to 5 are supported)"),
        ));
    }
    if root.get("clip").is_none() && root.get("track_list").is_some() {
        return Err(ParseError::at(
            root.get("track_list").map_or(1, |n| n.line),
            "this is an ACL track list, not a clip (track lists are not supported)",
        ));
    }
    let clip = root.get("clip").ok_or_else(|| missing("clip"))?;
    if !matches!(clip.value, Value::Object(_)) {
        return Err(err(clip, "clip", "expected an object"));
    }
    let binary_exact = match clip.get("is_binary_exact") {
        None => false,
        Some(n) => n
            .as_bool()
            .ok_or_else(|| err(n, "clip.is_binary_exact", "expected true or false"))?,
    };
    let rd = Reader { binary_exact };
    let additive_format = match string_field(clip, "additive_format", "clip.additive_format")? {
        None => AdditiveFormat::None,
        Some(fmt) => AdditiveFormat::from_name(fmt).ok_or_else(|| {
            err(
                clip.get("additive_format").unwrap_or(clip),
                "clip.additive_format",
                format!("unknown additive format \"{fmt}\" (none, relative, additive0, additive1)"),
            )
        })?,
    };
    let file_clip_name = string_field(clip, "name", "clip.name")?.unwrap_or("");
    let clip_name = if name.is_empty() {
        file_clip_name
    } else {
        name
    }
    .to_string();

    let ns_node = clip
        .get("num_samples")
        .ok_or_else(|| missing("clip.num_samples"))?;
    let ns = rd.number(ns_node, "clip.num_samples")?;
    if !(ns >= 1.0 && ns.fract() == 0.0 && ns <= MAX_SAMPLES as f64) {
        return Err(err(
            ns_node,
            "clip.num_samples",
            format!("expected a whole number from 1 to {MAX_SAMPLES}, found {ns}"),
        ));
    }
    let num_samples = ns as usize;
    let sr_node = clip
        .get("sample_rate")
        .ok_or_else(|| missing("clip.sample_rate"))?;
    let sample_rate = rd.number(sr_node, "clip.sample_rate")?;
    if !(sample_rate.is_finite() && sample_rate > 0.0) {
        return Err(err(
            sr_node,
            "clip.sample_rate",
            format!("must be positive, found {sample_rate}"),
        ));
    }

    let mut error_threshold = None;
    let threshold_node = root
        .get("settings")
        .and_then(|s| {
            s.get("error_threshold")
                .map(|n| (n, "settings.error_threshold"))
        })
        .or_else(|| {
            clip.get("error_threshold")
                .map(|n| (n, "clip.error_threshold"))
        });
    if let Some((n, field)) = threshold_node {
        let t = rd.number(n, field)?;
        if !(t.is_finite() && t > 0.0) {
            return Err(err(n, field, format!("must be positive, found {t}")));
        }
        error_threshold = Some(t as f32);
    }
    let precision = error_threshold.unwrap_or(DEFAULT_PRECISION);

    // Bones.
    let bones_node = root.get("bones").ok_or_else(|| missing("bones"))?;
    let bones = bones_node
        .as_array()
        .ok_or_else(|| err(bones_node, "bones", "expected an array"))?;
    if bones.is_empty() {
        return Err(err(bones_node, "bones", "no bones"));
    }
    if bones.len() > MAX_JOINTS {
        return Err(err(
            bones_node,
            "bones",
            format!("{} bones, at most {MAX_JOINTS} are supported", bones.len()),
        ));
    }
    let mut joints: Vec<Joint> = Vec::with_capacity(bones.len());
    let mut bind: Vec<Transform> = Vec::with_capacity(bones.len());
    for (i, b) in bones.iter().enumerate() {
        let f = |k: &str| format!("bones[{i}].{k}");
        if !matches!(b.value, Value::Object(_)) {
            return Err(err(b, &format!("bones[{i}]"), "expected an object"));
        }
        let bname =
            string_field(b, "name", &f("name"))?.ok_or_else(|| err(b, &f("name"), "missing"))?;
        if joints.iter().any(|j| j.name == bname) {
            return Err(err(
                b,
                &f("name"),
                format!("bone \"{bname}\" is listed twice"),
            ));
        }
        let parent_node = b
            .get("parent")
            .ok_or_else(|| err(b, &f("parent"), "missing"))?;
        let parent = match &parent_node.value {
            Value::String(p) if p.is_empty() => None,
            Value::String(p) => {
                let idx = joints.iter().position(|j| j.name == *p).ok_or_else(|| {
                    err(
                        parent_node,
                        &f("parent"),
                        format!("no bone named \"{p}\" is listed before this one"),
                    )
                })?;
                Some(idx as u32)
            }
            Value::Number(n) if *n < 0.0 => None,
            Value::Number(n) if n.fract() == 0.0 && (*n as usize) < i => Some(*n as u32),
            Value::Number(n) => {
                return Err(err(
                    parent_node,
                    &f("parent"),
                    format!("parent index {n} is not an earlier bone"),
                ))
            }
            _ => return Err(err(parent_node, &f("parent"), "expected a bone name")),
        };
        let mut joint = Joint::new(bname, parent);
        joint.precision = precision;
        if let Some(vd) = b.get("vertex_distance") {
            joint.shell_distance = rd.number(vd, &f("vertex_distance"))? as f32;
        }
        let mut t = Transform::IDENTITY;
        if let Some(n) = b.get("bind_rotation") {
            t.rotation = rd.quat(n, &f("bind_rotation"))?;
        }
        if let Some(n) = b.get("bind_translation") {
            t.translation = rd.vec3(n, &f("bind_translation"))?;
        }
        if let Some(n) = b.get("bind_scale") {
            t.scale = rd.vec3(n, &f("bind_scale"))?;
        }
        joints.push(joint);
        bind.push(t);
    }

    if num_samples.saturating_mul(joints.len()) > crate::MAX_JOINT_SAMPLES {
        return Err(err(
            ns_node,
            "clip.num_samples",
            format!(
                "{num_samples} samples x {} bones is more than this importer accepts",
                joints.len()
            ),
        ));
    }

    let tracks = read_tracks(&root, "tracks", &joints, &bind, num_samples, &rd)?;
    let additive = if additive_format == AdditiveFormat::None {
        None
    } else {
        Some(AclAdditive {
            format: additive_format,
            base: read_base(&root, clip, &joints, &bind, &rd)?,
        })
    };

    let raw = RawClip {
        name: clip_name,
        skeleton: Skeleton {
            joints,
            bind_pose: Some(bind),
        },
        sample_rate: sample_rate as f32,
        num_samples,
        tracks,
    };
    Ok((raw, error_threshold, additive))
}

/// The base clip of an additive file (`base_tracks`), or `None` when there is none.
fn read_base(
    root: &Node,
    clip: &Node,
    joints: &[Joint],
    bind: &[Transform],
    rd: &Reader,
) -> Result<Option<RawClip>, ParseError> {
    if root.get("base_tracks").is_none() {
        return Ok(None);
    }
    let num_samples = match clip.get("additive_base_num_samples") {
        None => 1,
        Some(n) => {
            let v = rd.number(n, "clip.additive_base_num_samples")?;
            if !(v >= 1.0 && v.fract() == 0.0 && v <= MAX_SAMPLES as f64)
                || (v as usize).saturating_mul(joints.len()) > crate::MAX_JOINT_SAMPLES
            {
                return Err(err(
                    n,
                    "clip.additive_base_num_samples",
                    format!("expected a whole number from 1 to {MAX_SAMPLES}, found {v}"),
                ));
            }
            v as usize
        }
    };
    let sample_rate = match clip.get("additive_base_sample_rate") {
        None => 30.0,
        Some(n) => {
            let v = rd.number(n, "clip.additive_base_sample_rate")?;
            if !(v.is_finite() && v > 0.0) {
                return Err(err(
                    n,
                    "clip.additive_base_sample_rate",
                    format!("must be positive, found {v}"),
                ));
            }
            v as f32
        }
    };
    let name = string_field(clip, "additive_base_name", "clip.additive_base_name")?.unwrap_or("");
    Ok(Some(RawClip {
        name: name.to_string(),
        skeleton: Skeleton {
            joints: joints.to_vec(),
            bind_pose: Some(bind.to_vec()),
        },
        sample_rate,
        num_samples,
        tracks: read_tracks(root, "base_tracks", joints, bind, num_samples, rd)?,
    }))
}

/// Reads the track array `key` (`tracks` or `base_tracks`): one track per bone, bind values for
/// missing tracks and channels.
fn read_tracks(
    root: &Node,
    key: &str,
    joints: &[Joint],
    bind: &[Transform],
    num_samples: usize,
    rd: &Reader,
) -> Result<Vec<Track>, ParseError> {
    let mut tracks: Vec<Option<Track>> = vec![None; joints.len()];
    let tracks_node = root.get(key).ok_or_else(|| missing(key))?;
    let track_nodes = tracks_node
        .as_array()
        .ok_or_else(|| err(tracks_node, key, "expected an array"))?;
    for (i, tn) in track_nodes.iter().enumerate() {
        let f = |k: &str| format!("{key}[{i}].{k}");
        let tname =
            string_field(tn, "name", &f("name"))?.ok_or_else(|| err(tn, &f("name"), "missing"))?;
        let j = joints
            .iter()
            .position(|jt| jt.name == tname)
            .ok_or_else(|| err(tn, &f("name"), format!("no bone named \"{tname}\"")))?;
        if tracks[j].is_some() {
            return Err(err(
                tn,
                &f("name"),
                format!("second track for bone \"{tname}\""),
            ));
        }
        let b = bind[j];
        let samples = |key: &str| -> Result<Option<&[Node]>, ParseError> {
            match tn.get(key) {
                None => Ok(None),
                Some(n) => {
                    let a = n
                        .as_array()
                        .ok_or_else(|| err(n, &f(key), "expected an array"))?;
                    if a.len() != num_samples {
                        return Err(err(
                            n,
                            &f(key),
                            format!("{} samples, clip.num_samples is {num_samples}", a.len()),
                        ));
                    }
                    Ok(Some(a))
                }
            }
        };
        let rotations = match samples("rotations")? {
            None => vec![b.rotation; num_samples],
            Some(a) => a
                .iter()
                .map(|n| rd.quat(n, &f("rotations")))
                .collect::<Result<_, _>>()?,
        };
        let translations = match samples("translations")? {
            None => vec![b.translation; num_samples],
            Some(a) => a
                .iter()
                .map(|n| rd.vec3(n, &f("translations")))
                .collect::<Result<_, _>>()?,
        };
        let scales = match samples("scales")? {
            None => vec![b.scale; num_samples],
            Some(a) => a
                .iter()
                .map(|n| rd.vec3(n, &f("scales")))
                .collect::<Result<_, _>>()?,
        };
        tracks[j] = Some(Track {
            rotations,
            translations,
            scales,
        });
    }
    Ok(tracks
        .into_iter()
        .zip(bind)
        .map(|(t, b)| t.unwrap_or_else(|| Track::constant(b, num_samples)))
        .collect())
}
