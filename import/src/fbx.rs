//! FBX (binary 6.x–7.x and ASCII) through the [`ufbx`] crate, which compiles the ufbx C library
//! with `cc`: no FBX SDK, nothing fetched at build time. Only this tools crate links it.
//!
//! What a file becomes (docs/formats.md, "FBX", says the same for users):
//! - **One clip per animation stack** (take), named after the stack, in file order.
//! - **Joints**: every node that is a bone (LimbNode / Limb / Root attribute) or that a skin
//!   cluster binds, plus all their ancestors below the scene root (the armature `Null` of a Blender
//!   export, the group nodes of a Maya rig), so that every joint's parent is a joint and the roots'
//!   tracks carry everything above them. Order: parents before children, siblings in file order.
//! - **Local transforms**: at each sample ufbx evaluates the whole scene ([`ufbx::evaluate_scene`]),
//!   which applies pre/post rotations, rotation and scaling pivots and offsets, rotation orders and
//!   the three scale-inheritance modes (`RrSs`, `RSrs` = Maya segment-scale-compensate, `Rrs`) and
//!   gives each node's world matrix. Each joint's world matrix is split into rotation, translation
//!   and scale, and its local track is `inverse(parent world) · world` in animcomp's
//!   rotation/translation/scale algebra ([`animcomp::math::Transform::mul`]). Composing the tracks
//!   back therefore reproduces every joint's world position exactly (to float rounding) whatever
//!   the inheritance mode; where the file's world matrix has shear (non-uniform scale on a parent
//!   of a rotated child), rotation and scale are the nearest rotation + axis scale, which is all a
//!   rotation/translation/scale pose can hold (as in ACL, ozz and game engines).
//! - **Units and axes**: ufbx converts the scene to right-handed Y-up (glTF's and BVH's
//!   convention) by a rotation of the scene root, and to the unit asked for ([`FbxUnits`]:
//!   centimetres by default) by a scale of it; the roots' tracks include both. The file's own unit
//!   (`UnitScaleFactor`, as metres per unit) and up axis are reported in the clip's notes.
//! - **Sampling**: at the file's frame rate (`GlobalSettings` `TimeMode` / `CustomFrameRate`, e.g.
//!   14.985 fps) or at [`crate::ImportOptions::sample_rate`] when given, from the stack's start,
//!   `round((stop - start) · rate) + 1` samples (rounded, not truncated, so that key or stop times
//!   a tick (1/46186158000 s) off the frame grid, as Blender writes them, still give the frame).
//!   - Keys **beyond the stack's end** (Maya's playback range shorter than the keys, ozz's
//!     `walk.fbx`) are not sampled: the stack's range is what the authoring tool plays and what an
//!     engine importing the take gets. A note says so.
//!   - A stack whose **start and stop are equal** (0 and 0 in some exporters) is sampled over the
//!     range of its keys instead (a note says so); with no keys either it is a one-sample clip.
//! - **Blend shapes**: every blend-shape channel becomes a curve named after the channel (its
//!   weight 0–1, FBX's `DeformPercent` / 100), with `magnitude` = the largest vertex offset of its
//!   target shapes in the converted unit, so `--morph-position-precision` works as for glTF.
//!
//! Bad input (not FBX, truncated, no animation stack, no joints and no blend shapes) is an error
//! naming the problem; ufbx itself is fuzzed upstream and this crate's `import_fbx` fuzz target
//! exercises the path through it.

use crate::curves::CurveSet;
use crate::error::ParseError;
use animcomp::clip::{Joint, Skeleton, Track, MAX_SAMPLES};
use animcomp::math::Transform;
use animcomp::{Curve, RawClip};
use glam::{DQuat, DVec3, Quat, Vec3};

/// Length unit FBX positions are converted to.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum FbxUnits {
    /// Centimetres (the default: the unit the default precision 0.01 is meant for).
    #[default]
    Centimetres,
    /// Metres.
    Metres,
    /// The file's own unit, unconverted (`UnitScaleFactor` centimetres).
    File,
}

impl FbxUnits {
    /// Parses `cm`, `m` or `file`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "cm" => Some(FbxUnits::Centimetres),
            "m" => Some(FbxUnits::Metres),
            "file" => Some(FbxUnits::File),
            _ => None,
        }
    }

    /// The unit's name as reported: "cm", "m", or the file's unit (e.g. "1 m").
    fn label(self, file_unit_meters: f64) -> String {
        match self {
            FbxUnits::Centimetres => "cm".into(),
            FbxUnits::Metres => "m".into(),
            FbxUnits::File => unit_name(file_unit_meters),
        }
    }
}

fn unit_name(m: f64) -> String {
    if (m - 0.01).abs() < 1e-9 {
        "cm".into()
    } else if (m - 1.0).abs() < 1e-9 {
        "m".into()
    } else if (m - 0.001).abs() < 1e-9 {
        "mm".into()
    } else {
        format!("{m} m")
    }
}

/// One animation stack of an FBX file.
#[derive(Debug, Clone)]
pub struct FbxTake {
    /// The joints' clip (zero joints when the file has none), named after the stack.
    pub clip: RawClip,
    /// The blend-shape channels' weights over the same samples (empty when there are none).
    pub curves: Vec<Curve>,
    /// What the importer did beyond reading (range used, keys ignored), one line each.
    pub notes: Vec<String>,
}

/// What an FBX file holds.
#[derive(Debug, Clone)]
pub struct FbxFile {
    /// One per animation stack, in file order (or the one asked for).
    pub takes: Vec<FbxTake>,
    /// The file's unit in metres (0.01 for centimetres).
    pub file_unit_meters: f64,
    /// The unit of the clips' positions ("cm", "m" or the file's unit).
    pub units: String,
    /// The file's frame rate (fps).
    pub frame_rate: f64,
    /// File-level facts (version, creator, unit, up axis), one line each.
    pub notes: Vec<String>,
}

/// Options of the FBX reader.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FbxOptions {
    /// Sampling rate (Hz); `None`: the file's frame rate.
    pub sample_rate: Option<f32>,
    /// Unit of the output positions.
    pub units: FbxUnits,
    /// Only this stack (index in file order); `None`: every stack.
    pub stack: Option<usize>,
    /// Refuse stacks of more samples than this (checked before anything is evaluated or
    /// allocated); `None`: the library's limits (`MAX_SAMPLES`, [`crate::MAX_JOINT_SAMPLES`]).
    pub max_samples: Option<usize>,
}

/// The items of a ufbx list. ufbx leaves an empty list's pointer null, and the crate's `Deref`
/// builds a slice from it (undefined behaviour, caught by debug assertions): empty lists are
/// never dereferenced here.
fn items<T>(l: &ufbx::List<T>) -> &[T] {
    if l.count == 0 {
        &[]
    } else {
        l
    }
}

/// [`items`] for lists of references.
fn refs<T>(l: &ufbx::RefList<T>) -> &[ufbx::Ref<T>] {
    if l.count == 0 {
        &[]
    } else {
        l
    }
}

fn err(m: impl Into<String>) -> ParseError {
    ParseError::general(m)
}

/// Loads an FBX file held in `bytes`.
pub fn load_bytes(bytes: &[u8], opts: &FbxOptions) -> Result<FbxFile, ParseError> {
    if let Some(r) = opts.sample_rate {
        if !(r.is_finite() && r > 0.0) {
            return Err(err(format!("invalid sampling rate {r}")));
        }
    }
    let scene = load_scene(bytes, opts.units)?;
    let s = &*scene;
    let file_unit = if s.settings.original_unit_meters > 0.0 {
        s.settings.original_unit_meters
    } else {
        0.01
    };
    let fps = s.settings.frames_per_second;
    let mut notes = vec![
        format!(
            "FBX {} {}, created by \"{}\"",
            s.metadata.version,
            if s.metadata.ascii { "ASCII" } else { "binary" },
            s.metadata.creator.as_ref() as &str
        ),
        format!(
            "file unit {} (UnitScaleFactor {}){}, {} fps; positions converted to {}, axes to \
             right-handed Y-up",
            unit_name(file_unit),
            file_unit / 0.01,
            match s.settings.original_axis_up {
                ufbx::CoordinateAxis::Unknown => String::new(),
                a => format!(", up axis {a:?}"),
            },
            (fps * 1000.0).round() / 1000.0,
            opts.units.label(file_unit)
        ),
    ];
    if refs(&s.anim_stacks).is_empty() {
        return Err(err("no animation: the file has no animation stack (take)"));
    }
    let joints = find_joints(s);
    let channels: Vec<&ufbx::BlendChannel> = refs(&s.blend_channels).iter().map(|c| &**c).collect();
    if joints.is_empty() && channels.is_empty() {
        return Err(err(
            "no skeleton: the file has no bones (LimbNode/Root nodes or skin-cluster bones) and \
             no blend shapes to animate",
        ));
    }
    let rate = match opts.sample_rate {
        Some(r) => r as f64,
        None if fps.is_finite() && fps > 0.0 => fps,
        None => {
            notes.push(format!(
                "the file's frame rate ({fps}) is unusable: sampled at 30 fps"
            ));
            30.0
        }
    };
    let unscale = root_scales(s, &joints);
    if let Some(k) = unscale.iter().copied().find(|&k| k != 1.0) {
        notes.push(format!(
            "the skeleton's root carries a uniform scale {k} (an exporter's unit conversion): \
             taken out of the joints' scales, joint positions unchanged"
        ));
    }
    let skeleton = skeleton_of(s, &joints, &unscale);
    let mags = magnitudes(s);
    let curve_meta: Vec<(String, f32, f32)> = curve_names(&channels)
        .into_iter()
        .zip(&channels)
        .map(|(name, c)| {
            let m = mags
                .get(c.element.typed_id as usize)
                .copied()
                .flatten()
                .unwrap_or_else(|| magnitude(c, None));
            (name, m as f32, c.weight as f32)
        })
        .collect();
    let rig = Rig {
        joints: &joints,
        skeleton: &skeleton,
        unscale: &unscale,
        curve_meta: &curve_meta,
    };
    let mut takes = Vec::new();
    for (si, stack) in refs(&s.anim_stacks).iter().enumerate() {
        if opts.stack.is_some_and(|k| k != si) {
            continue;
        }
        takes.push(bake_stack(s, stack, rate, &rig, opts.max_samples)?);
    }
    if let Some(k) = opts.stack {
        if takes.is_empty() {
            return Err(err(format!(
                "stack {k} out of range (the file has {} stack{})",
                refs(&s.anim_stacks).len(),
                if refs(&s.anim_stacks).len() == 1 {
                    ""
                } else {
                    "s"
                }
            )));
        }
    }
    Ok(FbxFile {
        takes,
        file_unit_meters: file_unit,
        units: opts.units.label(file_unit),
        frame_rate: fps,
        notes,
    })
}

/// Names of the stacks of an FBX file, in file order, without baking anything.
pub fn stack_names(bytes: &[u8]) -> Result<Vec<String>, ParseError> {
    let scene = load_scene(bytes, FbxUnits::File)?;
    Ok(refs(&scene.anim_stacks)
        .iter()
        .map(|s| s.element.name.to_string())
        .collect())
}

/// Bytes ufbx may allocate (each of its temporary and result allocators) for a file of `len`
/// bytes: 64 times the file, at least 1 GiB. A binary FBX array declares its element count before
/// its (possibly deflated) data, and ufbx sizes the array from that count: a 77 KB file declaring
/// 3 billion doubles asked for 24 GB (found by the `import_fbx` fuzzer). Real files stay far
/// below: the largest shared-data file (3.5 MB) is also within 64 times its size.
pub fn memory_limit(len: usize) -> usize {
    len.saturating_mul(64).max(1 << 30)
}

fn load_scene(bytes: &[u8], units: FbxUnits) -> Result<ufbx::SceneRoot, ParseError> {
    let limit = memory_limit(bytes.len());
    let allocator = || ufbx::AllocatorOpts {
        memory_limit: limit,
        ..Default::default()
    };
    let target_unit = match units {
        FbxUnits::Centimetres => 0.01,
        FbxUnits::Metres => 1.0,
        FbxUnits::File => 0.0,
    };
    let opts = ufbx::LoadOpts {
        // Only FBX: ufbx also reads OBJ, which would make a text file "import" as a scene.
        file_format: ufbx::FileFormat::Fbx,
        no_format_from_content: true,
        no_format_from_extension: true,
        load_external_files: false,
        target_axes: ufbx::CoordinateAxes::right_handed_y_up(),
        target_unit_meters: target_unit,
        space_conversion: ufbx::SpaceConversion::TransformRoot,
        // Keep the file's inheritance modes: the world matrices below honour them.
        inherit_mode_handling: ufbx::InheritModeHandling::Preserve,
        temp_allocator: allocator(),
        result_allocator: allocator(),
        ..Default::default()
    };
    ufbx::load_memory(bytes, opts).map_err(|e| {
        let what = match e.type_ {
            ufbx::ErrorType::MemoryLimit | ufbx::ErrorType::AllocationLimit => format!(
                "not a readable FBX file: it needs more than {} MiB of memory for {} bytes \
                 (a corrupted array length?)",
                limit >> 20,
                bytes.len()
            ),
            ufbx::ErrorType::TruncatedFile => "truncated file".to_string(),
            ufbx::ErrorType::UnrecognizedFileFormat => "not an FBX file".to_string(),
            ufbx::ErrorType::EmptyFile => "empty file".to_string(),
            _ => format!(
                "not a readable FBX file: {}",
                e.description.as_ref() as &str
            ),
        };
        let info = e.info();
        if info.is_empty() {
            err(what)
        } else {
            err(format!("{what} ({info})"))
        }
    })
}

/// Node indices (into `scene.nodes`) of the joints: bones, skin-cluster bones and their
/// ancestors below the root, parents before children.
fn find_joints(s: &ufbx::Scene) -> Vec<usize> {
    let n = refs(&s.nodes).len();
    let mut is_joint = vec![false; n];
    let mark = |node: &ufbx::Node, is_joint: &mut Vec<bool>| {
        let mut cur = Some(node);
        while let Some(nd) = cur {
            if nd.is_root {
                break;
            }
            let i = nd.element.typed_id as usize;
            if i >= n || is_joint[i] {
                break;
            }
            is_joint[i] = true;
            cur = nd.parent.as_deref();
        }
    };
    for node in refs(&s.nodes).iter() {
        if node.bone.is_some() || node.attrib_type == ufbx::ElementType::Bone {
            mark(node, &mut is_joint);
        }
    }
    for cl in refs(&s.skin_clusters).iter() {
        if let Some(b) = cl.bone_node.as_deref() {
            mark(b, &mut is_joint);
        }
    }
    // Depth-first from the root: parents before children, siblings in file order.
    let mut order = Vec::new();
    let mut stack: Vec<&ufbx::Node> = vec![&*s.root_node];
    while let Some(nd) = stack.pop() {
        let i = nd.element.typed_id as usize;
        if !nd.is_root && i < n && is_joint[i] {
            order.push(i);
        }
        for c in refs(&nd.children).iter().rev() {
            stack.push(c);
        }
    }
    order
}

/// Per joint, the uniform world scale of its root joint in the file's rest pose when that scale
/// is uniform and not 1 (Blender's armature `Null` with scale 100, the unit conversion ufbx adds at
/// the scene root), else 1. Dividing every joint's world scale by it keeps joint positions and
/// rotations as they are and gives the joints a scale of 1 where the file's had 100: without it
/// the shell distance and precision, which the error metric scales by the joints' world scale,
/// would mean 100 times their size.
fn root_scales(s: &ufbx::Scene, joints: &[usize]) -> Vec<f32> {
    let parents = index_of_parents(s, joints);
    let mut out: Vec<f32> = Vec::with_capacity(joints.len());
    for (j, &n) in joints.iter().enumerate() {
        let k = match parents[j] {
            Some(p) => out[p],
            None => {
                let w = world_of(&refs(&s.nodes)[n]).scale;
                let k = (w.x + w.y + w.z) / 3.0;
                let uniform = (w - Vec3::splat(k)).abs().max_element() <= 1e-4 * k.abs();
                if uniform && k.is_finite() && k > 0.0 && (k - 1.0).abs() > 1e-6 {
                    k
                } else {
                    1.0
                }
            }
        };
        out.push(k);
    }
    out
}

fn unscaled(mut w: Transform, k: f32) -> Transform {
    if k != 1.0 {
        w.scale /= k;
    }
    w
}

fn skeleton_of(s: &ufbx::Scene, joints: &[usize], unscale: &[f32]) -> Skeleton {
    let mut index_of = vec![u32::MAX; refs(&s.nodes).len()];
    for (j, &n) in joints.iter().enumerate() {
        index_of[n] = j as u32;
    }
    let mut names: Vec<String> = Vec::new();
    let mut out = Vec::with_capacity(joints.len());
    for &n in joints {
        let node = &refs(&s.nodes)[n];
        let parent = node
            .parent
            .as_deref()
            .map(|p| index_of[p.element.typed_id as usize])
            .filter(|&p| p != u32::MAX);
        let mut name = node.element.name.to_string();
        if name.is_empty() {
            name = format!("node{n}");
        }
        if names.contains(&name) {
            name = format!("{name}#{n}");
        }
        names.push(name.clone());
        out.push(Joint::new(name, parent));
    }
    let world: Vec<Transform> = joints
        .iter()
        .zip(unscale)
        .map(|(&n, &k)| unscaled(world_of(&refs(&s.nodes)[n]), k))
        .collect();
    let bind = locals(s, joints, &index_of_parents(s, joints), &world);
    Skeleton {
        joints: out,
        bind_pose: Some(bind),
    }
}

fn index_of_parents(s: &ufbx::Scene, joints: &[usize]) -> Vec<Option<usize>> {
    let mut index_of = vec![usize::MAX; refs(&s.nodes).len()];
    for (j, &n) in joints.iter().enumerate() {
        index_of[n] = j;
    }
    joints
        .iter()
        .map(|&n| {
            refs(&s.nodes)[n]
                .parent
                .as_deref()
                .map(|p| index_of[p.element.typed_id as usize])
                .filter(|&p| p != usize::MAX)
        })
        .collect()
}

/// A node's world matrix as rotation / translation / scale (f64 inside ufbx, f32 here).
fn world_of(node: &ufbx::Node) -> Transform {
    let t = ufbx::matrix_to_transform(&node.node_to_world);
    to_transform(&t)
}

fn to_transform(t: &ufbx::Transform) -> Transform {
    Transform {
        rotation: Quat::from_xyzw(
            t.rotation.x as f32,
            t.rotation.y as f32,
            t.rotation.z as f32,
            t.rotation.w as f32,
        )
        .normalize(),
        translation: Vec3::new(
            t.translation.x as f32,
            t.translation.y as f32,
            t.translation.z as f32,
        ),
        scale: Vec3::new(t.scale.x as f32, t.scale.y as f32, t.scale.z as f32),
    }
}

/// Local transforms such that `Transform::mul(world[parent], local) == world` (in f64).
fn locals(
    s: &ufbx::Scene,
    joints: &[usize],
    parents: &[Option<usize>],
    world: &[Transform],
) -> Vec<Transform> {
    joints
        .iter()
        .enumerate()
        .map(|(j, &n)| match parents[j] {
            None => world[j],
            Some(p) => relative(&world[p], &world[j], &refs(&s.nodes)[n]),
        })
        .collect()
}

fn relative(parent: &Transform, world: &Transform, node: &ufbx::Node) -> Transform {
    let pr = parent.rotation.as_dquat();
    let ps = parent.scale.as_dvec3();
    let inv_r: DQuat = pr.conjugate();
    let d: DVec3 = inv_r * (world.translation.as_dvec3() - parent.translation.as_dvec3());
    let safe = |a: f64, b: f64, fallback: f64| {
        if b.abs() > 1e-12 {
            a / b
        } else {
            fallback
        }
    };
    let lt = node.local_transform.translation;
    let ls = node.local_transform.scale;
    let t = DVec3::new(
        safe(d.x, ps.x, lt.x),
        safe(d.y, ps.y, lt.y),
        safe(d.z, ps.z, lt.z),
    );
    let ws = world.scale.as_dvec3();
    let sc = DVec3::new(
        safe(ws.x, ps.x, ls.x),
        safe(ws.y, ps.y, ls.y),
        safe(ws.z, ps.z, ls.z),
    );
    let r = (inv_r * world.rotation.as_dquat()).normalize();
    Transform {
        rotation: r.as_quat().normalize(),
        translation: t.as_vec3(),
        scale: sc.as_vec3(),
    }
}

/// Curve names: the channel's name, made unique with the deformer's name or an index.
fn curve_names(channels: &[&ufbx::BlendChannel]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, c) in channels.iter().enumerate() {
        let mut name = c.element.name.to_string();
        if name.is_empty() {
            name = format!("channel{i}");
        }
        if out.contains(&name) {
            name = format!("{name}#{i}");
        }
        out.push(name);
    }
    out
}

/// Largest vertex offset over the channel's target shapes, through `m` (a mesh instance's
/// geometry-to-world matrix, which holds the unit conversion) when given.
fn magnitude(c: &ufbx::BlendChannel, m: Option<&ufbx::Matrix>) -> f64 {
    items(&c.keyframes)
        .iter()
        .flat_map(|k| items(&k.shape.position_offsets).iter())
        .map(|&v| {
            let v = match m {
                Some(m) => ufbx::transform_direction(m, v),
                None => v,
            };
            (v.x * v.x + v.y * v.y + v.z * v.z).sqrt()
        })
        .fold(0.0, f64::max)
}

/// Per blend channel (by its index in the scene), its magnitude in the converted unit: the
/// largest displacement of its targets as placed by the first node instancing a mesh it deforms.
fn magnitudes(s: &ufbx::Scene) -> Vec<Option<f64>> {
    let mut out = vec![None; refs(&s.blend_channels).len()];
    for mesh in refs(&s.meshes).iter() {
        let Some(node) = refs(&mesh.element.instances).first() else {
            continue;
        };
        for d in refs(&mesh.blend_deformers) {
            for ch in refs(&d.channels) {
                let i = ch.element.typed_id as usize;
                if let Some(slot) = out.get_mut(i) {
                    if slot.is_none() {
                        *slot = Some(magnitude(ch, Some(&node.geometry_to_world)));
                    }
                }
            }
        }
    }
    out
}

/// First and last key time of the stack's curves.
fn key_range(stack: &ufbx::AnimStack) -> Option<(f64, f64)> {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for layer in refs(&stack.layers).iter() {
        for v in refs(&layer.anim_values).iter() {
            for c in v.curves.iter().flatten() {
                if c.keyframes.count > 0 {
                    lo = lo.min(c.min_time);
                    hi = hi.max(c.max_time);
                }
            }
        }
    }
    (lo.is_finite() && hi.is_finite()).then_some((lo, hi))
}

/// What every stack of a file shares: the joints (node indices), their skeleton, the scale
/// taken out of each joint, and the curves' (name, magnitude, default).
struct Rig<'a> {
    joints: &'a [usize],
    skeleton: &'a Skeleton,
    unscale: &'a [f32],
    curve_meta: &'a [(String, f32, f32)],
}

fn bake_stack(
    s: &ufbx::Scene,
    stack: &ufbx::AnimStack,
    rate: f64,
    rig: &Rig,
    max_samples: Option<usize>,
) -> Result<FbxTake, ParseError> {
    let Rig {
        joints,
        skeleton,
        unscale,
        curve_meta,
    } = *rig;
    let name = stack.element.name.to_string();
    let mut notes = Vec::new();
    let keys = key_range(stack);
    let (mut t0, mut t1) = (stack.time_begin, stack.time_end);
    if !(t0.is_finite() && t1.is_finite()) || t1 <= t0 {
        match keys {
            Some((a, b)) if b > a => {
                notes.push(format!(
                    "stack \"{name}\" has start {t0} s = stop {t1} s: sampled over its keys, \
                     {a:.4} s to {b:.4} s"
                ));
                (t0, t1) = (a, b);
            }
            _ => {
                notes.push(format!(
                    "stack \"{name}\" has no length and no key range: one sample at {t0} s"
                ));
                t0 = if t0.is_finite() { t0 } else { 0.0 };
                t1 = t0;
            }
        }
    } else if let Some((a, b)) = keys {
        let tick = 0.5 / rate;
        if b > t1 + tick {
            notes.push(format!(
                "stack \"{name}\": keys run to {b:.4} s, past the stack's end {t1:.4} s; \
                 sampled to the end of the stack only"
            ));
        }
        if a < t0 - tick {
            notes.push(format!(
                "stack \"{name}\": keys start at {a:.4} s, before the stack's start {t0:.4} s; \
                 sampled from the start of the stack only"
            ));
        }
    }
    let frames = ((t1 - t0) * rate).round();
    let nj = joints.len().max(1);
    if !(frames.is_finite() && frames >= 0.0)
        || frames + 1.0 > MAX_SAMPLES as f64
        || max_samples.is_some_and(|m| frames + 1.0 > m as f64)
        || (frames + 1.0) * nj as f64 > crate::MAX_JOINT_SAMPLES as f64
    {
        return Err(err(format!(
            "stack \"{name}\": {:.3} s at {rate} Hz is too many samples for {} joints",
            t1 - t0,
            joints.len()
        )));
    }
    let n = frames as usize + 1;
    let parents = index_of_parents(s, joints);
    let mut tracks: Vec<Track> = (0..joints.len())
        .map(|_| Track {
            rotations: Vec::with_capacity(n),
            translations: Vec::with_capacity(n),
            scales: Vec::with_capacity(n),
        })
        .collect();
    let mut curves: Vec<Curve> = curve_meta
        .iter()
        .enumerate()
        .map(|(i, (cname, mag, default))| Curve {
            default_value: Some(*default),
            magnitude: Some(*mag),
            values: Vec::with_capacity(n),
            ..Curve::new(cname.clone(), i as u32, vec![])
        })
        .collect();
    let eval_opts = || ufbx::EvaluateOpts {
        evaluate_skinning: false,
        evaluate_caches: false,
        load_external_files: false,
        ..Default::default()
    };
    for i in 0..n {
        let t = if n == 1 {
            t0
        } else {
            (t0 + i as f64 / rate).min(t1)
        };
        let ev = ufbx::evaluate_scene(s, &stack.anim, t, eval_opts())
            .map_err(|e| err(format!("stack \"{name}\": cannot evaluate at {t} s: {e:?}")))?;
        if !joints.is_empty() {
            let world: Vec<Transform> = joints
                .iter()
                .zip(unscale)
                .map(|(&n, &k)| unscaled(world_of(&refs(&ev.nodes)[n]), k))
                .collect();
            let local = locals(&ev, joints, &parents, &world);
            for (tr, l) in tracks.iter_mut().zip(local) {
                tr.rotations.push(l.rotation);
                tr.translations.push(l.translation);
                tr.scales.push(l.scale);
            }
        }
        for (c, ch) in curves.iter_mut().zip(refs(&ev.blend_channels).iter()) {
            c.values.push(ch.weight as f32);
        }
    }
    notes.push(format!(
        "stack \"{name}\": {n} samples at {rate} Hz from {t0:.4} s to {t1:.4} s"
    ));
    Ok(FbxTake {
        clip: RawClip {
            name,
            skeleton: skeleton.clone(),
            sample_rate: rate as f32,
            num_samples: n,
            tracks,
        },
        curves,
        notes,
    })
}

/// The blend-shape curves of each take as [`CurveSet`]s (takes without curves give none).
pub fn curve_sets(file: &FbxFile, stem: &str) -> Vec<CurveSet> {
    file.takes
        .iter()
        .filter(|t| !t.curves.is_empty())
        .map(|t| CurveSet {
            name: format!("{stem}:{}", t.clip.name),
            sample_rate: t.clip.sample_rate,
            num_samples: t.clip.num_samples,
            curves: t.curves.clone(),
            source: Default::default(),
            notes: t.notes.clone(),
        })
        .collect()
}

/// A mesh with blend shapes, for showing curves as morph weights (`animcomp export`): triangle
/// corners (not indexed) in object space at rest, in the converted unit, and for each blend
/// channel driving it, the per-corner displacement of its target shape.
#[derive(Debug, Clone)]
pub struct FbxMorphMesh {
    /// The mesh node's name.
    pub name: String,
    /// Three corners per triangle.
    pub positions: Vec<[f32; 3]>,
    /// (curve index in [`FbxTake::curves`], one displacement per corner).
    pub targets: Vec<(usize, Vec<[f32; 3]>)>,
}

/// Largest number of triangle corners [`morph_meshes`] writes (12 Mi), against hostile files.
const MAX_MORPH_CORNERS: usize = 12 << 20;

/// The meshes with blend shapes of an FBX file (see [`FbxMorphMesh`]); files without give none.
pub fn morph_meshes(bytes: &[u8], units: FbxUnits) -> Result<Vec<FbxMorphMesh>, ParseError> {
    // ufbx's Rust triangulation panics when the C side reports a broken face: an error here.
    std::panic::catch_unwind(|| morph_meshes_inner(bytes, units))
        .unwrap_or_else(|_| Err(err("malformed mesh (ufbx could not triangulate it)")))
}

fn morph_meshes_inner(bytes: &[u8], units: FbxUnits) -> Result<Vec<FbxMorphMesh>, ParseError> {
    let scene = load_scene(bytes, units)?;
    let s = &*scene;
    let mut out = Vec::new();
    let mut corners_total = 0usize;
    for mesh in refs(&s.meshes).iter() {
        let deformers = refs(&mesh.blend_deformers);
        if deformers.is_empty() {
            continue;
        }
        let Some(node) = refs(&mesh.element.instances).first() else {
            continue;
        };
        let m = &node.geometry_to_world;
        let verts = items(&mesh.vertices);
        let vidx = items(&mesh.vertex_indices);
        let mut corners: Vec<u32> = Vec::new();
        let mut tri = vec![0u32; mesh.max_face_triangles.clamp(1, 1 << 16) * 3];
        for &face in items(&mesh.faces) {
            if face.num_indices < 3 || (face.num_indices as usize) > tri.len() / 3 + 2 {
                continue;
            }
            let n = ufbx::triangulate_face(&mut tri, mesh, face) as usize;
            corners.extend_from_slice(&tri[..(n * 3).min(tri.len())]);
            if corners_total + corners.len() > MAX_MORPH_CORNERS {
                return Err(err("blend-shape meshes too large to export"));
            }
        }
        let vertex_of = |c: u32| vidx.get(c as usize).map(|&v| v as usize);
        let positions: Vec<[f32; 3]> = corners
            .iter()
            .map(|&c| {
                let p = vertex_of(c)
                    .and_then(|v| verts.get(v))
                    .copied()
                    .unwrap_or_default();
                let w = ufbx::transform_position(m, p);
                [w.x as f32, w.y as f32, w.z as f32]
            })
            .collect();
        let mut targets = Vec::new();
        for d in deformers {
            for ch in refs(&d.channels) {
                let ci = ch.element.typed_id as usize;
                let shape = ch
                    .target_shape
                    .as_deref()
                    .or_else(|| items(&ch.keyframes).last().map(|k| &*k.shape));
                let Some(shape) = shape else { continue };
                let mut delta = vec![ufbx::Vec3::default(); verts.len()];
                for (&v, &o) in items(&shape.offset_vertices)
                    .iter()
                    .zip(items(&shape.position_offsets))
                {
                    if let Some(slot) = delta.get_mut(v as usize) {
                        *slot = o;
                    }
                }
                let per_corner = corners
                    .iter()
                    .map(|&c| {
                        let o = vertex_of(c)
                            .and_then(|v| delta.get(v))
                            .copied()
                            .unwrap_or_default();
                        let w = ufbx::transform_direction(m, o);
                        [w.x as f32, w.y as f32, w.z as f32]
                    })
                    .collect();
                targets.push((ci, per_corner));
            }
        }
        corners_total += corners.len();
        out.push(FbxMorphMesh {
            name: node.element.name.to_string(),
            positions,
            targets,
        });
    }
    Ok(out)
}
