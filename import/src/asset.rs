//! One file read once: its clips and its curve sets together ([`Asset`]), for tools that need
//! both (a glTF with skin and morph weights, an FBX with bones and blend shapes, a curve file).

use crate::curves::{self, CurveSet};
use crate::{clips_from_bytes, fbx, fbx_clips, fbx_options, kind_of, read_bytes};
use crate::{ImportError, ImportOptions, ImportedClip, Kind};
use std::path::{Path, PathBuf};

/// What one file holds, read once.
#[derive(Debug)]
pub struct Asset {
    /// The file.
    pub path: PathBuf,
    /// Its clips (joints), as [`crate::load`] gives them; empty for curve files, and for files
    /// whose joints could not be read but whose curves could (`clip_error` says why).
    pub clips: Vec<ImportedClip>,
    /// Why the file gave no clips, when it has curves instead (a glTF of morph weights without a
    /// skin, an FBX of blend shapes without bones); `None` otherwise.
    pub clip_error: Option<ImportError>,
    /// Its curve sets, as [`load_curves`] gives them (each named `stem:take` for files of
    /// several, with `source` set): one for a `.csv` or `.npy` file, one per glTF animation with
    /// `weights` channels, one per FBX stack with blend-shape channels.
    pub curve_sets: Vec<CurveSet>,
    /// The file's bytes as read (empty for `.csv` and `.npy` curve files), for a tool that
    /// writes the source document back (export keeps a glTF's meshes, an FBX's blend shapes)
    /// without reading the file again.
    pub bytes: Vec<u8>,
}

impl Asset {
    /// Whether the file holds curves and no joints (a face take, blend shapes without bones).
    pub fn is_curve_only(&self) -> bool {
        self.clips.is_empty() && !self.curve_sets.is_empty()
    }
}

/// Reads `path` once and imports its clips and its curve sets (glTF weights and FBX blend shapes
/// at `opts.sample_rate`, the rate the clips use). Fails when the file gives neither: with the
/// clip importer's error, or the curve reader's for curve files.
pub fn load_asset(path: &Path, opts: &ImportOptions) -> Result<Asset, ImportError> {
    if curves::is_curve_file(path) {
        return Ok(Asset {
            path: path.to_path_buf(),
            clips: Vec::new(),
            clip_error: None,
            curve_sets: curves::load_curves(path, opts.sample_rate)?,
            bytes: Vec::new(),
        });
    }
    let kind = kind_of(path).ok_or_else(|| ImportError::Unsupported {
        path: path.to_path_buf(),
    })?;
    let bytes = read_bytes(path)?;
    let stem = file_stem(path);
    let (clips, curve_sets) = match kind {
        Kind::Fbx => {
            let file = fbx::load_bytes(&bytes, &fbx_options(opts)).map_err(|e| e.in_file(path))?;
            let sets = fbx::curve_sets(&file, &stem);
            (fbx_clips(path, file, opts), sets)
        }
        Kind::Gltf => {
            // The weights reader's errors matter only when the joints gave nothing either.
            let sets =
                curves::gltf_weights::load_bytes(&bytes, path.parent(), &stem, opts.sample_rate)
                    .unwrap_or_default();
            (clips_from_bytes(kind, path, &bytes, opts), sets)
        }
        kind => (clips_from_bytes(kind, path, &bytes, opts), Vec::new()),
    };
    let curve_sets = with_source(curve_sets, path);
    match clips {
        Ok(clips) => Ok(Asset {
            path: path.to_path_buf(),
            clips,
            clip_error: None,
            curve_sets,
            bytes,
        }),
        Err(e) if !curve_sets.is_empty() => Ok(Asset {
            path: path.to_path_buf(),
            clips: Vec::new(),
            clip_error: Some(e),
            curve_sets,
            bytes,
        }),
        Err(e) => Err(e),
    }
}

/// Loads the curve sets of a file: `.csv` (Live Link Face), `.npy` (frames × curves; names from a
/// `bsname.txt` beside it when its count matches; `rate` Hz, 30 when `None`), `.gltf`/`.glb`
/// (one set per animation with a `weights` channel; none when there is none), `.fbx` (one set per
/// animation stack of a file with blend-shape channels, sampled like its joints).
pub fn load_curves(path: &Path, rate: Option<f32>) -> Result<Vec<CurveSet>, ImportError> {
    if kind_of(path) != Some(Kind::Fbx) {
        return curves::load_curves(path, rate);
    }
    let opts = fbx::FbxOptions {
        sample_rate: rate,
        ..Default::default()
    };
    let file = fbx::load_bytes(&read_bytes(path)?, &opts).map_err(|e| e.in_file(path))?;
    Ok(with_source(fbx::curve_sets(&file, &file_stem(path)), path))
}

fn with_source(sets: Vec<CurveSet>, path: &Path) -> Vec<CurveSet> {
    sets.into_iter()
        .map(|mut s| {
            s.source = path.to_path_buf();
            s
        })
        .collect()
}

/// The name curve sets are given after (the file name without its last extension).
fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
