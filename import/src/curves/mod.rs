//! Scalar-curve importers: Live Link Face CSV takes ([`livelink`]), NumPy `.npy` arrays of
//! frames × curves ([`npy`]) and glTF morph-target `weights` channels ([`gltf_weights`]).
//!
//! Each gives [`CurveSet`]s: curves on a uniform grid at one rate, ready for
//! [`animcomp::compress_with_curves`] with a clip of zero joints ([`CurveSet::face_clip`]).

pub mod gltf_weights;
pub mod livelink;
pub mod npy;

use crate::error::{ImportError, ParseError};
use animcomp::clip::Skeleton;
use animcomp::{Curve, RawClip};
use std::path::{Path, PathBuf};

/// Curves read from one file (or one glTF animation), uniformly sampled.
#[derive(Debug, Clone)]
pub struct CurveSet {
    /// Name (file name, `file:animation` for glTF).
    pub name: String,
    /// Samples per second.
    pub sample_rate: f32,
    /// Samples per curve.
    pub num_samples: usize,
    /// The curves (each with `num_samples` values, the default precision 0.001).
    pub curves: Vec<Curve>,
    /// The file read.
    pub source: PathBuf,
    /// What the reader did to the data beyond parsing (resampling, holes filled), one line each.
    pub notes: Vec<String>,
}

impl CurveSet {
    /// A clip with no joints carrying this set's sample count and rate.
    pub fn face_clip(&self) -> RawClip {
        RawClip {
            name: self.name.clone(),
            skeleton: Skeleton::default(),
            sample_rate: self.sample_rate,
            num_samples: self.num_samples,
            tracks: vec![],
        }
    }

    /// Raw size: 4 bytes per value.
    pub fn raw_bytes(&self) -> usize {
        self.curves.len() * self.num_samples * 4
    }
}

/// True for the curve file kinds [`load_curves`] reads by extension alone (`.csv`, `.npy`).
/// glTF files may carry both joints and morph weights: [`load_curves`] reads their weights.
pub fn is_curve_file(path: &Path) -> bool {
    let lower = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    lower.ends_with(".csv") || lower.ends_with(".npy")
}

fn file_stem(path: &Path) -> String {
    path.file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> ImportError + '_ {
    move |source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Loads the curve sets of a curve file: `.csv` (Live Link Face), `.npy` (frames × curves; names
/// from a `bsname.txt` beside it when its count matches; `rate` Hz, 30 when `None`), `.gltf`/`.glb`
/// (one set per animation with a `weights` channel; none when there is none). FBX blend shapes:
/// [`crate::load_curves`], which reads every kind.
pub fn load_curves(path: &Path, rate: Option<f32>) -> Result<Vec<CurveSet>, ImportError> {
    let lower = path.to_string_lossy().to_ascii_lowercase();
    let name = file_stem(path);
    let wrap = |e: ParseError| e.in_file(path);
    let sets = if lower.ends_with(".csv") {
        let text = std::fs::read(path).map_err(io(path))?;
        let text = String::from_utf8_lossy(&text);
        vec![livelink::parse(&text, &name).map_err(wrap)?]
    } else if lower.ends_with(".npy") {
        let bytes = std::fs::read(path).map_err(io(path))?;
        let names = path
            .parent()
            .map(|d| d.join("bsname.txt"))
            .and_then(|p| std::fs::read_to_string(p).ok());
        vec![
            npy::parse_curves(&bytes, &name, names.as_deref(), rate.unwrap_or(30.0))
                .map_err(wrap)?,
        ]
    } else if lower.ends_with(".gltf") || lower.ends_with(".glb") {
        let bytes = std::fs::read(path).map_err(io(path))?;
        gltf_weights::load_bytes(&bytes, path.parent(), &name, rate).map_err(wrap)?
    } else {
        return Err(ImportError::Unsupported {
            path: path.to_path_buf(),
        });
    };
    Ok(sets
        .into_iter()
        .map(|mut s| {
            s.source = path.to_path_buf();
            s
        })
        .collect())
}
