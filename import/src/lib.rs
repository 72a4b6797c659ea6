//! Importers that turn animation files into [`animcomp::RawClip`]s: BVH, ACL's `.acl.sjson` clip
//! format, glTF 2.0 / GLB and FBX ([`fbx`], through ufbx).
//!
//! Use [`load`] for one file (dispatch by extension) and [`collect_files`] to expand folders.
//! The clips are returned as read: call [`animcomp::RawClip::validate`] before compressing (a clip
//! whose values are out of range, like ACL's `_with_inf_error` regression clip, imports fine and is
//! rejected there with a clear status).

pub mod acl;
mod asset;
pub mod bvh;
pub mod curves;
mod error;
pub mod fbx;
pub mod gltf_import;
pub mod judge64;
pub mod sjson;
mod units;

pub use asset::{load_asset, load_curves, Asset};
pub use error::{ImportError, ParseError};
pub use units::{guess_units, pose_extent};

use animcomp::RawClip;
use std::path::{Path, PathBuf};

/// Largest clip (joints x samples) an importer builds: 32 Mi joint-samples, about 1.3 GB of
/// transforms. Larger files are rejected with an error instead of exhausting memory.
pub const MAX_JOINT_SAMPLES: usize = 32 << 20;

/// Options shared by all importers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImportOptions {
    /// Rate (Hz) at which keyframed formats (glTF) are resampled; `None` means 30 Hz.
    /// Formats that are already uniformly sampled (BVH, ACL) keep their own rate.
    pub sample_rate: Option<f32>,
    /// Every position / translation (tracks and bind pose) is multiplied by this. Default 1.
    pub unit_scale: f32,
    /// The unit FBX positions are converted to (centimetres by default), before `unit_scale`.
    pub fbx_units: fbx::FbxUnits,
    /// FBX only: import just this animation stack (index in file order); `None`: all stacks.
    pub fbx_stack: Option<usize>,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            sample_rate: None,
            unit_scale: 1.0,
            fbx_units: fbx::FbxUnits::Centimetres,
            fbx_stack: None,
        }
    }
}

/// One clip read from a file.
#[derive(Debug, Clone)]
pub struct ImportedClip {
    /// The clip (not yet validated). Joints carry the default precision 0.01 and shell
    /// distance 3.0 unless the file specifies them (ACL clips).
    pub clip: RawClip,
    /// What the file's length unit appears to be: "cm", "m" or "unknown" (before `unit_scale`).
    pub units: String,
    /// The file the clip came from.
    pub source: PathBuf,
    /// The error threshold the file asks for (ACL clips), in clip units.
    pub error_threshold: Option<f32>,
    /// What the importer did beyond reading (FBX: units, range sampled, keys ignored).
    pub notes: Vec<String>,
}

/// File kinds this crate reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bvh,
    Acl,
    Gltf,
    Fbx,
}

fn kind_of(path: &Path) -> Option<Kind> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    if name.ends_with(".bvh") {
        Some(Kind::Bvh)
    } else if name.ends_with(".sjson") {
        Some(Kind::Acl)
    } else if name.ends_with(".gltf") || name.ends_with(".glb") {
        Some(Kind::Gltf)
    } else if name.ends_with(".fbx") {
        Some(Kind::Fbx)
    } else {
        None
    }
}

/// True when [`load`] knows the file's extension (`.bvh`, `.gltf`, `.glb`, `.sjson`, `.fbx`).
pub fn is_supported(path: &Path) -> bool {
    kind_of(path).is_some()
}

/// Clip name from a file name: the name without its (double, for `.acl.sjson`) extension.
fn clip_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let lower = name.to_ascii_lowercase();
    for ext in [".acl.sjson", ".sjson", ".bvh", ".gltf", ".glb", ".fbx"] {
        if lower.ends_with(ext) {
            return name[..name.len() - ext.len()].to_string();
        }
    }
    name
}

fn read_bytes(path: &Path) -> Result<Vec<u8>, ImportError> {
    std::fs::read(path).map_err(|source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn as_text<'a>(path: &Path, bytes: &'a [u8]) -> Result<&'a str, ImportError> {
    std::str::from_utf8(bytes).map_err(|e| ImportError::Parse {
        path: path.to_path_buf(),
        line: None,
        message: format!(
            "not UTF-8 text (invalid byte at offset {})",
            e.valid_up_to()
        ),
    })
}

/// Loads every clip in a file, dispatching on its extension. A glTF file gives one clip per
/// animation, an FBX file one per animation stack; the other formats give exactly one.
pub fn load(path: &Path, opts: &ImportOptions) -> Result<Vec<ImportedClip>, ImportError> {
    let kind = kind_of(path).ok_or_else(|| ImportError::Unsupported {
        path: path.to_path_buf(),
    })?;
    clips_from_bytes(kind, path, &read_bytes(path)?, opts)
}

/// The clips of a file of kind `kind` held in `bytes`.
fn clips_from_bytes(
    kind: Kind,
    path: &Path,
    bytes: &[u8],
    opts: &ImportOptions,
) -> Result<Vec<ImportedClip>, ImportError> {
    let name = clip_name(path);
    let one = |clip: RawClip, error_threshold: Option<f32>| ImportedClip {
        units: String::new(),
        clip,
        source: path.to_path_buf(),
        error_threshold,
        notes: vec![],
    };
    let out = match kind {
        Kind::Bvh => {
            let clip = bvh::parse(as_text(path, bytes)?, &name).map_err(|e| e.in_file(path))?;
            vec![one(clip, None)]
        }
        Kind::Acl => {
            let (clip, error_threshold) =
                acl::parse(as_text(path, bytes)?, &name).map_err(|e| e.in_file(path))?;
            vec![one(clip, error_threshold)]
        }
        Kind::Gltf => {
            let clips =
                gltf_import::load_bytes(bytes, path.parent(), opts).map_err(|e| e.in_file(path))?;
            let single_unnamed = clips.len() == 1 && clips[0].name == "animation0";
            clips
                .into_iter()
                .map(|mut clip| {
                    // "file:animation" so clips from different files stay distinguishable.
                    clip.name = if single_unnamed {
                        name.clone()
                    } else {
                        format!("{name}:{}", clip.name)
                    };
                    ImportedClip {
                        units: "m".into(),
                        ..one(clip, None)
                    }
                })
                .collect()
        }
        Kind::Fbx => {
            let file = fbx::load_bytes(bytes, &fbx_options(opts)).map_err(|e| e.in_file(path))?;
            return fbx_clips(path, file, opts);
        }
    };
    Ok(finish(out, opts))
}

/// The clips of a read FBX file (an error when it has no bones: its blend shapes are curves).
fn fbx_clips(
    path: &Path,
    file: fbx::FbxFile,
    opts: &ImportOptions,
) -> Result<Vec<ImportedClip>, ImportError> {
    if file.takes.iter().all(|t| t.clip.num_joints() == 0) {
        let curves = file.takes.first().map_or(0, |t| t.curves.len());
        return Err(ParseError::general(format!(
            "no skeleton: the file has no bones (LimbNode/Root nodes or skin-cluster \
             bones); its {curves} blend-shape channel{} import as curves",
            if curves == 1 { "" } else { "s" }
        ))
        .in_file(path));
    }
    let units = file.units.clone();
    let out = file
        .takes
        .into_iter()
        .map(|t| {
            let mut notes = file.notes.clone();
            notes.extend(t.notes);
            ImportedClip {
                clip: t.clip,
                units: units.clone(),
                source: path.to_path_buf(),
                error_threshold: None,
                notes,
            }
        })
        .collect();
    Ok(finish(out, opts))
}

/// Units guessed where the format does not say, and `unit_scale` applied.
fn finish(mut out: Vec<ImportedClip>, opts: &ImportOptions) -> Vec<ImportedClip> {
    for c in &mut out {
        if c.units.is_empty() {
            c.units = guess_units(&c.clip).to_string();
        }
        if opts.unit_scale != 1.0 {
            c.clip.scale_translations(opts.unit_scale);
        }
    }
    out
}

/// The FBX reader's options from the shared ones.
pub fn fbx_options(opts: &ImportOptions) -> fbx::FbxOptions {
    fbx::FbxOptions {
        sample_rate: opts.sample_rate,
        units: opts.fbx_units,
        stack: opts.fbx_stack,
        max_samples: None,
    }
}

/// Expands `paths`: files are kept as given (even unsupported ones, so the caller can report
/// them), folders are walked recursively and contribute their supported files, sorted.
pub fn collect_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found);
            found.sort();
            out.extend(found);
        } else {
            out.push(p.clone());
        }
    }
    out
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if is_supported(&p) {
            out.push(p);
        }
    }
}
