//! `animcomp._native`: the compiled half of the `animcomp` Python package (PyO3 + numpy).
//!
//! The Python half (`python/animcomp/`) holds the user-facing classes (`Clip`, `Blob`) and checks
//! arguments; this module converts between numpy arrays and the library's types and calls the
//! library: the importers' dispatcher ([`animcomp_import::load`]), the compressor, the runtime
//! decompressor and the error metric. Long calls release the GIL. Library errors become the
//! exception classes of `animcomp._errors`, carrying the C status code.

use animcomp::clip::{Joint, Skeleton, Track};
use animcomp::decompress::{
    DecompressOptions, Decompressor, Element, Looping, OpenBlob, PoseLayout, Rounding, TierSet,
};
use animcomp::format::header::TierInfo;
use animcomp::format::{AdditiveFormat, Header};
use animcomp::math::{Quat, Transform, Vec3, FLOATS_PER_JOINT};
use animcomp::metric::Metric;
use animcomp::offline::additive::BasePoses;
use animcomp::offline::Level;
use animcomp::{
    AdditiveBase, AlignedBlob, CodecChoice, CompressSettings, Curve, RawClip, Status, TierSettings,
    VbrLayout,
};
use animcomp_import::judge64::{max_p99, Reference};
use numpy::ndarray::{Array1, Array2, Array3};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArray3, PyReadonlyArray1, PyReadonlyArray2,
    PyReadonlyArray3, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::Path;
use std::sync::RwLock;

/// Builds an exception of class `class` from `animcomp._errors` with `(message, status)`.
fn py_error(py: Python<'_>, class: &str, status: i32, message: String) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let cls = py.import("animcomp._errors")?.getattr(class)?;
        Ok(PyErr::from_value(cls.call1((message, status))?))
    })();
    made.unwrap_or_else(|e| e)
}

/// The exception class for a library status: clip (6-17), blob (18-22, and 28: a tier blob of
/// another clip or compression), internal (27), else argument errors.
fn class_of(status: Status) -> &'static str {
    match status as i32 {
        6..=17 => "ClipError",
        18..=22 | 28 => "BlobError",
        27 => "InternalError",
        _ => "ArgumentError",
    }
}

fn lib_error(py: Python<'_>, e: animcomp::Error) -> PyErr {
    let s = e.status();
    py_error(py, class_of(s), s as i32, e.to_string())
}

fn input_error(py: Python<'_>, message: impl Into<String>) -> PyErr {
    py_error(
        py,
        "InputError",
        Status::InvalidArgument as i32,
        message.into(),
    )
}

/// The library's version (the `animcomp` crate's).
fn library_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

// ---------------------------------------------------------------------------------------------
// Clips: numpy arrays <-> RawClip

/// A clip as numpy arrays, borrowed from Python for the duration of a call.
#[derive(FromPyObject)]
struct ClipArrays<'py> {
    #[pyo3(attribute("name"))]
    name: String,
    #[pyo3(attribute("sample_rate"))]
    sample_rate: f64,
    #[pyo3(attribute("rotations"))]
    rotations: PyReadonlyArray3<'py, f32>,
    #[pyo3(attribute("translations"))]
    translations: PyReadonlyArray3<'py, f32>,
    #[pyo3(attribute("scales"))]
    scales: PyReadonlyArray3<'py, f32>,
    #[pyo3(attribute("parents"))]
    parents: PyReadonlyArray1<'py, i32>,
    #[pyo3(attribute("joint_names"))]
    joint_names: Vec<String>,
    #[pyo3(attribute("curves"))]
    curves: PyReadonlyArray2<'py, f32>,
    #[pyo3(attribute("curve_names"))]
    curve_names: Vec<String>,
}

fn contiguous<'a, T: numpy::Element, D: numpy::ndarray::Dimension>(
    py: Python<'_>,
    a: &'a numpy::PyReadonlyArray<'_, T, D>,
    what: &str,
) -> PyResult<&'a [T]> {
    a.as_slice().map_err(|_| {
        input_error(
            py,
            format!("{what}: the array is not C-contiguous (pass numpy.ascontiguousarray(...))"),
        )
    })
}

/// Builds the library's clip (joints with `precision` and `shell`) and curves from the arrays.
/// Shapes are checked here; values by the library's validation when compressing.
fn build_clip(
    py: Python<'_>,
    c: &ClipArrays<'_>,
    precision: f32,
    shell: f32,
    curve_precision: f32,
) -> PyResult<(RawClip, Vec<Curve>)> {
    let shape = c.rotations.shape();
    let (s, j) = (shape[0], shape[1]);
    if shape[2] != 4 {
        return Err(input_error(
            py,
            format!("rotations: shape {shape:?}, expected (samples, joints, 4)"),
        ));
    }
    for (what, a) in [("translations", &c.translations), ("scales", &c.scales)] {
        if a.shape() != [s, j, 3] {
            return Err(input_error(
                py,
                format!("{what}: shape {:?}, expected ({s}, {j}, 3)", a.shape()),
            ));
        }
    }
    if c.parents.shape() != [j] || c.joint_names.len() != j {
        return Err(input_error(
            py,
            format!(
                "parents {:?} and joint_names ({}) must hold one entry per joint ({j})",
                c.parents.shape(),
                c.joint_names.len()
            ),
        ));
    }
    let cs = c.curves.shape();
    if cs[0] != s && cs[1] != 0 {
        return Err(input_error(
            py,
            format!("curves: shape {cs:?}, expected ({s}, curves)"),
        ));
    }
    if c.curve_names.len() != cs[1] {
        return Err(input_error(
            py,
            format!(
                "curve_names holds {} names for {} curves",
                c.curve_names.len(),
                cs[1]
            ),
        ));
    }
    let rot = contiguous(py, &c.rotations, "rotations")?;
    let tra = contiguous(py, &c.translations, "translations")?;
    let sca = contiguous(py, &c.scales, "scales")?;
    let par = contiguous(py, &c.parents, "parents")?;
    let cur = contiguous(py, &c.curves, "curves")?;
    let joints = (0..j)
        .map(|k| {
            let p = par[k];
            let mut joint = Joint::new(c.joint_names[k].clone(), (p >= 0).then_some(p as u32));
            joint.precision = precision;
            joint.shell_distance = shell;
            joint
        })
        .collect();
    let tracks = (0..j)
        .map(|k| {
            let at = |i: usize| i * j + k;
            Track {
                rotations: (0..s)
                    .map(|i| Quat::from_slice(&rot[at(i) * 4..at(i) * 4 + 4]))
                    .collect(),
                translations: (0..s)
                    .map(|i| Vec3::from_slice(&tra[at(i) * 3..at(i) * 3 + 3]))
                    .collect(),
                scales: (0..s)
                    .map(|i| Vec3::from_slice(&sca[at(i) * 3..at(i) * 3 + 3]))
                    .collect(),
            }
        })
        .collect();
    let clip = RawClip {
        name: c.name.clone(),
        skeleton: Skeleton {
            joints,
            bind_pose: None,
        },
        sample_rate: c.sample_rate as f32,
        num_samples: s,
        tracks,
    };
    let nc = cs[1];
    let curves = (0..nc)
        .map(|k| {
            let mut curve = Curve::new(
                c.curve_names[k].clone(),
                k as u32,
                (0..s).map(|i| cur[i * nc + k]).collect(),
            );
            curve.precision = curve_precision;
            curve
        })
        .collect();
    Ok((clip, curves))
}

/// The arrays of a library clip and its curves, as a dict of numpy arrays and lists.
fn clip_dict<'py>(
    py: Python<'py>,
    clip: &RawClip,
    curves: &[Curve],
    units: &str,
) -> PyResult<Bound<'py, PyDict>> {
    let (s, j) = (clip.num_samples, clip.num_joints());
    let mut rot = Array3::<f32>::zeros((s, j, 4));
    let mut tra = Array3::<f32>::zeros((s, j, 3));
    let mut sca = Array3::<f32>::zeros((s, j, 3));
    for (k, t) in clip.tracks.iter().enumerate() {
        for i in 0..s {
            let x = t.get(i);
            for (n, v) in x.rotation.to_array().into_iter().enumerate() {
                rot[[i, k, n]] = v;
            }
            for (n, v) in x.translation.to_array().into_iter().enumerate() {
                tra[[i, k, n]] = v;
            }
            for (n, v) in x.scale.to_array().into_iter().enumerate() {
                sca[[i, k, n]] = v;
            }
        }
    }
    let parents: Array1<i32> = clip
        .skeleton
        .joints
        .iter()
        .map(|jt| jt.parent.map_or(-1, |p| p as i32))
        .collect();
    let mut cur = Array2::<f32>::zeros((s, curves.len()));
    for (k, c) in curves.iter().enumerate() {
        for (i, &v) in c.values.iter().enumerate().take(s) {
            cur[[i, k]] = v;
        }
    }
    let d = PyDict::new(py);
    d.set_item("name", &clip.name)?;
    d.set_item("sample_rate", clip.sample_rate as f64)?;
    d.set_item("rotations", rot.into_pyarray(py))?;
    d.set_item("translations", tra.into_pyarray(py))?;
    d.set_item("scales", sca.into_pyarray(py))?;
    d.set_item("parents", parents.into_pyarray(py))?;
    let names: Vec<&str> = clip
        .skeleton
        .joints
        .iter()
        .map(|jt| jt.name.as_str())
        .collect();
    d.set_item("joint_names", names)?;
    d.set_item("curves", cur.into_pyarray(py))?;
    let cnames: Vec<&str> = curves.iter().map(|c| c.name.as_str()).collect();
    d.set_item("curve_names", cnames)?;
    d.set_item("units", units)?;
    Ok(d)
}

/// What a file holds: per take its clip, curves and length units.
type Takes = Vec<(RawClip, Vec<Curve>, String)>;

fn load_takes(path: &Path, resample: Option<f32>) -> Result<Takes, String> {
    use animcomp_import::{curves::is_curve_file, load_curves};
    if !path.is_file() {
        return Err(format!("{}: no such file", path.display()));
    }
    let curve_sets = |p: &Path| load_curves(p, resample).map_err(|e| e.to_string());
    if is_curve_file(path) {
        return Ok(curve_sets(path)?
            .into_iter()
            .map(|set| (set.face_clip(), set.curves, String::new()))
            .collect());
    }
    let opts = animcomp_import::ImportOptions {
        sample_rate: resample,
        unit_scale: 1.0,
        ..Default::default()
    };
    let clips = animcomp_import::load(path, &opts).map_err(|e| e.to_string())?;
    // glTF files may carry morph weights as well: a weights animation of the same name and
    // sample count becomes the take's curves.
    let lower = path.to_string_lossy().to_ascii_lowercase();
    let weights = if lower.ends_with(".gltf") || lower.ends_with(".glb") {
        curve_sets(path).unwrap_or_default()
    } else {
        Vec::new()
    };
    let mut out = Vec::with_capacity(clips.len());
    for imported in clips {
        let mut clip = imported.clip;
        if let Some(hz) = resample {
            if hz != clip.sample_rate {
                clip.validate().map_err(|e| format!("{}: {e}", clip.name))?;
                clip = clip
                    .resample(hz)
                    .map_err(|e| format!("{}: {e}", clip.name))?;
            }
        }
        let curves = weights
            .iter()
            .find(|w| w.name == clip.name && w.num_samples == clip.num_samples)
            .map(|w| w.curves.clone())
            .unwrap_or_default();
        out.push((clip, curves, imported.units));
    }
    Ok(out)
}

/// load(path, resample=None) -> list[dict]
///
/// Reads every take of a file with the importers (dispatch by extension) and returns one dict of
/// arrays per take.
#[pyfunction]
#[pyo3(signature = (path, resample=None))]
fn load<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    resample: Option<f64>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    if let Some(hz) = resample {
        if !(hz.is_finite() && hz > 0.0) {
            return Err(input_error(
                py,
                format!("resample must be a finite rate > 0, got {hz}"),
            ));
        }
    }
    let takes = py
        .allow_threads(|| load_takes(&path, resample.map(|h| h as f32)))
        .map_err(|m| py_error(py, "LoadError", 0, m))?;
    takes
        .iter()
        .map(|(clip, curves, units)| clip_dict(py, clip, curves, units))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Compression

/// The value named `name` in `table` (`what` names the argument in the error message).
fn pick<T: Copy>(py: Python<'_>, what: &str, name: &str, table: &[(&str, T)]) -> PyResult<T> {
    table
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| *v)
        .ok_or_else(|| {
            let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
            input_error(
                py,
                format!(
                    "unknown {what} '{name}' (expected one of: {})",
                    names.join(", ")
                ),
            )
        })
}

fn parse_level(py: Python<'_>, level: Option<&str>) -> PyResult<Level> {
    let table = [
        ("auto", Level::Automatic),
        ("fast", Level::Fast),
        ("default", Level::Default),
        ("best", Level::Best),
    ];
    pick(py, "level", level.unwrap_or("auto"), &table)
}

fn parse_additive(py: Python<'_>, additive: Option<&str>) -> PyResult<AdditiveFormat> {
    let table = [
        ("none", AdditiveFormat::None),
        ("relative", AdditiveFormat::Relative),
        ("additive0", AdditiveFormat::Additive0),
        ("additive1", AdditiveFormat::Additive1),
    ];
    pick(py, "additive format", additive.unwrap_or("none"), &table)
}

fn positive(py: Python<'_>, name: &str, v: f64) -> PyResult<f32> {
    if v.is_finite() && v > 0.0 && (v as f32) > 0.0 {
        Ok(v as f32)
    } else {
        Err(input_error(
            py,
            format!("{name} must be finite and > 0, got {v}"),
        ))
    }
}

/// A base pose as transforms from a (joints, 10) float32 array.
fn pose_of(
    py: Python<'_>,
    pose: &PyReadonlyArray2<'_, f32>,
    joints: usize,
) -> PyResult<Vec<Transform>> {
    if pose.shape() != [joints, FLOATS_PER_JOINT] {
        return Err(input_error(
            py,
            format!(
                "base pose: shape {:?}, expected ({joints}, 10)",
                pose.shape()
            ),
        ));
    }
    let v = contiguous(py, pose, "base pose")?;
    Ok(v.chunks_exact(FLOATS_PER_JOINT)
        .map(Transform::read_from)
        .collect())
}

/// The base of an additive clip: another clip or one (joints, 10) pose.
enum Base {
    Clip(RawClip),
    Pose(Vec<Transform>),
}

impl Base {
    fn extract(
        py: Python<'_>,
        base: &Bound<'_, PyAny>,
        joints: usize,
        precision: f32,
        shell: f32,
    ) -> PyResult<Base> {
        if let Ok(pose) = base.extract::<PyReadonlyArray2<'_, f32>>() {
            return Ok(Base::Pose(pose_of(py, &pose, joints)?));
        }
        let arrays: ClipArrays<'_> = base.extract().map_err(|e| {
            input_error(
                py,
                format!("base must be a Clip or a (joints, 10) float32 pose ({e})"),
            )
        })?;
        let (mut clip, _) = build_clip(py, &arrays, precision, shell, 1.0)?;
        clip.validate().map_err(|e| lib_error(py, e))?;
        Ok(Base::Clip(clip))
    }

    fn as_base(&self) -> AdditiveBase<'_> {
        match self {
            Base::Clip(c) => AdditiveBase::Clip(c),
            Base::Pose(p) => AdditiveBase::Pose(p),
        }
    }
}

/// regroup(data) -> bytes
///
/// The blob `data` (a `vbr` blob of format version 2, which does not load, or one already
/// grouped) in the grouped layout, without recompressing (`animcomp::offline::regroup_blob`:
/// validated first, checksum included). Releases the GIL.
#[pyfunction]
fn regroup<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let blob = AlignedBlob::from_bytes(data);
    let b = py
        .allow_threads(|| animcomp::offline::regroup_blob(blob.as_bytes()))
        .map_err(|e| lib_error(py, e))?;
    Ok(PyBytes::new(py, &b))
}

/// compress(clip, codec, precision, shell, level, curve_precision, additive, base, layout) -> bytes
///
/// Compresses a clip (an object with the `Clip` attributes) into a blob. Releases the GIL.
/// `layout` is reserved (every `vbr` blob is written in the grouped layout); an unknown name is
/// refused.
#[pyfunction]
#[pyo3(signature = (clip, codec="auto", precision=0.01, shell=3.0, level=None, curve_precision=0.001, additive=None, base=None, layout="segments"))]
#[allow(clippy::too_many_arguments)]
fn compress<'py>(
    py: Python<'py>,
    clip: ClipArrays<'py>,
    codec: &str,
    precision: f64,
    shell: f64,
    level: Option<&str>,
    curve_precision: f64,
    additive: Option<&str>,
    base: Option<Bound<'py, PyAny>>,
    layout: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let codec = CodecChoice::from_name(codec).ok_or_else(|| {
        input_error(
            py,
            format!("unknown codec '{codec}' (expected auto, fixed, vbr or keys)"),
        )
    })?;
    let precision = positive(py, "precision", precision)?;
    let shell = positive(py, "shell", shell)?;
    let curve_precision = positive(py, "curve_precision", curve_precision)?;
    let vbr_layout = VbrLayout::from_name(layout).ok_or_else(|| {
        input_error(
            py,
            format!("unknown layout '{layout}' (expected segments, grouped or auto)"),
        )
    })?;
    let settings = CompressSettings {
        codec,
        level: parse_level(py, level)?,
        vbr_layout,
        ..CompressSettings::default()
    };
    let format = parse_additive(py, additive)?;
    let (raw, curves) = build_clip(py, &clip, precision, shell, curve_precision)?;
    let base = match (&base, format) {
        (Some(b), AdditiveFormat::None) if !b.is_none() => {
            return Err(input_error(py, "base is given but additive is None"))
        }
        (_, AdditiveFormat::None) => None,
        (Some(b), _) if !b.is_none() => {
            Some(Base::extract(py, b, raw.num_joints(), precision, shell)?)
        }
        _ => {
            return Err(input_error(
                py,
                "an additive clip needs base= (a Clip or a pose)",
            ))
        }
    };
    if base.is_some() && !curves.is_empty() {
        return Err(input_error(py, "an additive clip cannot carry curves"));
    }
    let bytes = py
        .allow_threads(|| match &base {
            Some(b) => animcomp::compress_additive(&raw, &b.as_base(), format, &settings),
            None => animcomp::compress_with_curves(&raw, &curves, &settings),
        })
        .map_err(|e| lib_error(py, e))?;
    Ok(PyBytes::new(py, &bytes))
}

// ---------------------------------------------------------------------------------------------
// Blobs

/// A validated blob, copied to 16-byte aligned memory, that samples poses and curves.
#[pyclass(module = "animcomp._native", frozen)]
struct Handle {
    blob: AlignedBlob,
    header: Header,
    /// Quality tiers attached (a resident blob's; index = level - 1), validated when attached.
    /// Every sampling call binds those attached when it starts (a [`TierSet`] of its own).
    tiers: RwLock<Vec<Option<AlignedBlob>>>,
}

fn parse_looping(py: Python<'_>, looping: &str) -> PyResult<Looping> {
    let table = [("clamp", Looping::Clamp), ("wrap", Looping::Wrap)];
    pick(py, "looping", looping, &table)
}

impl Handle {
    /// Calls `f` with a decompressor of the blob, bound to the tiers attached now (a resident
    /// blob's: each is validated against it again, in time linear in its bytes).
    fn with_decompressor<R>(
        &self,
        f: impl FnOnce(&mut Decompressor<'_>) -> animcomp::Result<R>,
    ) -> animcomp::Result<R> {
        // Validated in full (checksum included) when the handle was made.
        let opts = DecompressOptions {
            verify_checksum: false,
            bind_pose: None,
        };
        let tiers = self.tiers.read().unwrap_or_else(|e| e.into_inner());
        let attached: Vec<&AlignedBlob> = tiers.iter().flatten().collect();
        with_tiers(self.blob.as_bytes(), &attached, &opts, f)
    }

    fn pose_at(
        &self,
        d: &mut Decompressor<'_>,
        t: f32,
        looping: Looping,
        out: &mut [f32],
    ) -> animcomp::Result<()> {
        d.seek(t, looping, Rounding::None)?;
        d.sample_pose(out, FLOATS_PER_JOINT)
    }

    /// [`Handle::pose_at`] in float64 (the exact widening of the float32 pose), decoded by the
    /// library straight into `out` (its packed f64 layout).
    fn pose_at64(
        &self,
        d: &mut Decompressor<'_>,
        t: f32,
        looping: Looping,
        out: &mut [f64],
    ) -> animcomp::Result<()> {
        d.seek(t, looping, Rounding::None)?;
        // SAFETY: the doubles viewed as bytes (any bytes are valid doubles).
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(
                out.as_mut_ptr().cast::<u8>(),
                std::mem::size_of_val(out),
            )
        };
        d.sample_pose_layout(&PACKED_F64, &mut [bytes])
    }
}

/// Calls `f` with a decompressor of `blob` bound to `tiers` (none: a plain decompressor).
fn with_tiers<R>(
    blob: &[u8],
    tiers: &[&AlignedBlob],
    opts: &DecompressOptions<'_>,
    f: impl FnOnce(&mut Decompressor<'_>) -> animcomp::Result<R>,
) -> animcomp::Result<R> {
    if tiers.is_empty() {
        return f(&mut Decompressor::new(blob, opts)?);
    }
    let open = OpenBlob::open(blob, opts)?;
    let set = TierSet::new(&open)?;
    for t in tiers {
        set.attach(t.as_bytes())?;
    }
    f(&mut Decompressor::bind_tiers(&set))
}

/// Ten doubles per joint: rotation, translation, scale at bytes 0, 32, 56, stride 80.
const PACKED_F64: PoseLayout = PoseLayout::aos(Element::F64, [0, 32, 56], 80);

/// A pose element type Python asks for: float32 (the decoder's) or float64 (its exact widening).
trait PoseElement: numpy::Element + Copy + Default + Send {
    /// [`Handle::pose_at`] into this type.
    fn pose_at(
        h: &Handle,
        d: &mut Decompressor<'_>,
        t: f32,
        looping: Looping,
        out: &mut [Self],
    ) -> animcomp::Result<()>;
}

impl PoseElement for f32 {
    fn pose_at(
        h: &Handle,
        d: &mut Decompressor<'_>,
        t: f32,
        looping: Looping,
        out: &mut [f32],
    ) -> animcomp::Result<()> {
        h.pose_at(d, t, looping, out)
    }
}

impl PoseElement for f64 {
    fn pose_at(
        h: &Handle,
        d: &mut Decompressor<'_>,
        t: f32,
        looping: Looping,
        out: &mut [f64],
    ) -> animcomp::Result<()> {
        h.pose_at64(d, t, looping, out)
    }
}

impl Handle {
    /// The local pose at time `t` as (joints, 10) elements of `T`.
    fn sample_as<'py, T: PoseElement>(
        &self,
        py: Python<'py>,
        t: f64,
        looping: &str,
    ) -> PyResult<Bound<'py, PyArray2<T>>> {
        let looping = parse_looping(py, looping)?;
        let nj = self.header.num_joints as usize;
        let mut out = vec![T::default(); nj * FLOATS_PER_JOINT];
        self.with_decompressor(|d| T::pose_at(self, d, t as f32, looping, &mut out))
            .map_err(|e| lib_error(py, e))?;
        let a = Array2::from_shape_vec((nj, FLOATS_PER_JOINT), out).expect("shape");
        Ok(a.into_pyarray(py))
    }

    /// Poses at every time of `times` as (N, joints, 10) elements of `T`, GIL released.
    fn sample_many_as<'py, T: PoseElement>(
        &self,
        py: Python<'py>,
        times: PyReadonlyArray1<'py, f64>,
        looping: &str,
    ) -> PyResult<Bound<'py, PyArray3<T>>> {
        let looping = parse_looping(py, looping)?;
        let ts = contiguous(py, &times, "times")?.to_vec();
        let nj = self.header.num_joints as usize;
        let per = nj * FLOATS_PER_JOINT;
        let out = py
            .allow_threads(|| -> animcomp::Result<Vec<T>> {
                let mut out = vec![T::default(); ts.len() * per];
                self.with_decompressor(|d| {
                    if per > 0 {
                        for (t, o) in ts.iter().zip(out.chunks_exact_mut(per)) {
                            T::pose_at(self, d, *t as f32, looping, o)?;
                        }
                    } else {
                        for t in &ts {
                            d.seek(*t as f32, looping, Rounding::None)?;
                        }
                    }
                    Ok(())
                })?;
                Ok(out)
            })
            .map_err(|e| lib_error(py, e))?;
        let a = Array3::from_shape_vec((ts.len(), nj, FLOATS_PER_JOINT), out).expect("shape");
        Ok(a.into_pyarray(py))
    }
}

#[pymethods]
impl Handle {
    /// Copies and validates `data` (checksum, offsets, bit widths).
    #[new]
    fn new(py: Python<'_>, data: &[u8]) -> PyResult<Self> {
        let blob = AlignedBlob::from_bytes(data);
        let header = py
            .allow_threads(|| {
                animcomp::runtime::OpenBlob::open(blob.as_bytes(), &DecompressOptions::default())
                    .map(|o| *o.header())
            })
            .map_err(|e| lib_error(py, e))?;
        if header.total_size as usize != data.len() {
            return Err(py_error(
                py,
                "BlobError",
                Status::BadSize as i32,
                format!(
                    "{} bytes given, the blob's header says {}",
                    data.len(),
                    header.total_size
                ),
            ));
        }
        let levels = TierInfo::read(&header, blob.as_bytes()).map_or(0, |i| i.levels);
        Ok(Handle {
            blob,
            header,
            tiers: RwLock::new((0..levels).map(|_| None).collect()),
        })
    }

    /// Validates a tier blob against this resident blob and attaches it at its level (which it
    /// returns). Refused: a blob without tiers, a tier of another clip or compression, a
    /// corrupt tier, a level already attached.
    fn attach(&self, py: Python<'_>, data: &[u8]) -> PyResult<u8> {
        let tier = AlignedBlob::from_bytes(data);
        let opts = DecompressOptions {
            verify_checksum: false,
            bind_pose: None,
        };
        let level = py
            .allow_threads(|| -> animcomp::Result<u8> {
                let open = OpenBlob::open(self.blob.as_bytes(), &opts)?;
                TierSet::new(&open)?.attach(tier.as_bytes())
            })
            .map_err(|e| lib_error(py, e))?;
        let mut tiers = self.tiers.write().unwrap_or_else(|e| e.into_inner());
        let slot = &mut tiers[level as usize - 1];
        if slot.is_some() {
            return Err(lib_error(
                py,
                animcomp::Error::InvalidArgument("a tier of this level is attached"),
            ));
        }
        *slot = Some(tier);
        Ok(level)
    }

    /// Detaches the tier of `level` and returns its bytes (`None` when none was attached).
    /// Sampling calls that started with it finish with it.
    fn detach<'py>(&self, py: Python<'py>, level: u8) -> Option<Bound<'py, PyBytes>> {
        let mut tiers = self.tiers.write().unwrap_or_else(|e| e.into_inner());
        let t = tiers.get_mut((level as usize).wrapping_sub(1))?.take()?;
        Some(PyBytes::new(py, t.as_bytes()))
    }

    /// The levels attached, in order.
    fn attached(&self) -> Vec<u8> {
        let tiers = self.tiers.read().unwrap_or_else(|e| e.into_inner());
        (1..=tiers.len() as u8)
            .filter(|l| tiers[*l as usize - 1].is_some())
            .collect()
    }

    /// The header's fields as a dict.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let h = &self.header;
        let d = PyDict::new(py);
        d.set_item("format_version", h.version)?;
        d.set_item("codec", h.codec.name())?;
        d.set_item("size", h.total_size)?;
        d.set_item("checksum", h.checksum)?;
        d.set_item("num_joints", h.num_joints)?;
        d.set_item("num_samples", h.num_samples)?;
        d.set_item("sample_rate", h.sample_rate as f64)?;
        let duration = if h.num_samples > 1 {
            (h.num_samples - 1) as f64 / h.sample_rate as f64
        } else {
            0.0
        };
        d.set_item("duration", duration)?;
        d.set_item("num_curves", h.num_curves)?;
        let tiers = TierInfo::read(h, self.blob.as_bytes());
        d.set_item("tier_levels", tiers.map_or(0, |t| t.levels))?;
        d.set_item("tier_key", tiers.map(|t| t.key))?;
        d.set_item("has_scale", h.has(animcomp::format::BlobFlags::HAS_SCALE))?;
        d.set_item("looping", h.has(animcomp::format::BlobFlags::LOOPING))?;
        d.set_item(
            "additive",
            match AdditiveFormat::from_u8(h.additive) {
                Some(AdditiveFormat::Relative) => "relative",
                Some(AdditiveFormat::Additive0) => "additive0",
                Some(AdditiveFormat::Additive1) => "additive1",
                _ => "none",
            },
        )?;
        Ok(d)
    }

    /// The local pose at time `t`: (joints, 10) float32 (rotation xyzw, translation, scale).
    #[pyo3(signature = (t, looping="clamp"))]
    fn sample<'py>(
        &self,
        py: Python<'py>,
        t: f64,
        looping: &str,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        self.sample_as(py, t, looping)
    }

    /// Poses at every time of `times` (1-D float32 or float64): (N, joints, 10), GIL released.
    #[pyo3(signature = (times, looping="clamp"))]
    fn sample_many<'py>(
        &self,
        py: Python<'py>,
        times: PyReadonlyArray1<'py, f64>,
        looping: &str,
    ) -> PyResult<Bound<'py, PyArray3<f32>>> {
        self.sample_many_as(py, times, looping)
    }

    /// [`Handle::sample`] in float64: (joints, 10), the exact widening of the float32 pose.
    #[pyo3(signature = (t, looping="clamp"))]
    fn sample64<'py>(
        &self,
        py: Python<'py>,
        t: f64,
        looping: &str,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        self.sample_as(py, t, looping)
    }

    /// [`Handle::sample_many`] in float64: (N, joints, 10), GIL released.
    #[pyo3(signature = (times, looping="clamp"))]
    fn sample_many64<'py>(
        &self,
        py: Python<'py>,
        times: PyReadonlyArray1<'py, f64>,
        looping: &str,
    ) -> PyResult<Bound<'py, PyArray3<f64>>> {
        self.sample_many_as(py, times, looping)
    }

    /// Every curve's value at time `t`: (curves,) float32.
    #[pyo3(signature = (t, looping="clamp"))]
    fn sample_curves<'py>(
        &self,
        py: Python<'py>,
        t: f64,
        looping: &str,
    ) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let looping = parse_looping(py, looping)?;
        let mut out = vec![0.0f32; self.header.num_curves as usize];
        self.with_decompressor(|d| {
            d.seek(t as f32, looping, Rounding::None)?;
            d.sample_curves(&mut out)
        })
        .map_err(|e| lib_error(py, e))?;
        Ok(Array1::from_vec(out).into_pyarray(py))
    }

    /// The blob's bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.blob.as_bytes())
    }

    /// Address of the first byte of the aligned copy (for alignment checks).
    fn address(&self) -> usize {
        self.blob.as_bytes().as_ptr() as usize
    }
}

// ---------------------------------------------------------------------------------------------
// Error measurement

/// measure(clip, handle, precision, shell, base) -> (max, p99, per_joint, worst_joint, worst_sample)
///
/// Decompresses every sample of the blob through the runtime decompressor and judges it with the
/// library's metric (virtual vertices at the shell distance, in object space); an additive blob
/// is judged with `base` applied. GIL released.
#[pyfunction]
#[pyo3(signature = (clip, handle, precision=0.01, shell=3.0, base=None))]
#[allow(clippy::type_complexity)]
fn measure<'py>(
    py: Python<'py>,
    clip: ClipArrays<'py>,
    handle: PyRef<'py, Handle>,
    precision: f64,
    shell: f64,
    base: Option<Bound<'py, PyAny>>,
) -> PyResult<(f32, f32, Bound<'py, PyArray1<f32>>, usize, usize)> {
    let precision = positive(py, "precision", precision)?;
    let shell = positive(py, "shell", shell)?;
    let (mut raw, _) = build_clip(py, &clip, precision, shell, 1.0)?;
    raw.validate().map_err(|e| lib_error(py, e))?;
    let h = handle.header;
    if h.num_joints as usize != raw.num_joints() {
        return Err(input_error(
            py,
            format!(
                "the blob has {} joints, the clip {}",
                h.num_joints,
                raw.num_joints()
            ),
        ));
    }
    let format = AdditiveFormat::from_u8(h.additive).unwrap_or(AdditiveFormat::None);
    let base = match (&base, format) {
        (_, AdditiveFormat::None) => None,
        (Some(b), _) if !b.is_none() => {
            Some(Base::extract(py, b, raw.num_joints(), precision, shell)?)
        }
        _ => {
            return Err(input_error(
                py,
                "the blob is additive: measure needs base= (the base it was compressed with)",
            ))
        }
    };
    let handle: &Handle = &handle;
    let stats = py
        .allow_threads(|| -> animcomp::Result<_> {
            let metric = match &base {
                Some(b) => {
                    let poses = BasePoses::new(&b.as_base(), raw.num_joints(), raw.num_samples)?;
                    Metric::with_base(&raw, format, poses)
                }
                None => Metric::new(&raw),
            };
            handle.with_decompressor(|d| {
                let stored = h.num_samples as usize;
                let nj = raw.num_joints();
                let mut floats = vec![0.0f32; nj * FLOATS_PER_JOINT];
                let mut failed = None;
                let stats = metric.measure(|i, local| {
                    // Samples the blob stores are read exactly; a dropped repeated last sample
                    // (looping blob) is read by time, as a player would.
                    let r = if i < stored {
                        d.seek_sample(i as u32);
                        Ok(())
                    } else {
                        d.seek(i as f32 / raw.sample_rate, Looping::Clamp, Rounding::None)
                    };
                    let r = r.and_then(|_| d.sample_pose(&mut floats, FLOATS_PER_JOINT));
                    if let Err(e) = r {
                        failed.get_or_insert(e);
                    }
                    for (j, l) in local.iter_mut().enumerate() {
                        *l = Transform::read_from(&floats[j * FLOATS_PER_JOINT..]);
                    }
                });
                match failed {
                    Some(e) => Err(e),
                    None => Ok(stats),
                }
            })
        })
        .map_err(|e| lib_error(py, e))?;
    Ok((
        stats.max_error,
        stats.p99_error,
        Array1::from_vec(stats.per_joint_max).into_pyarray(py),
        stats.worst_joint,
        stats.worst_sample,
    ))
}

// ---------------------------------------------------------------------------------------------
// Quality tiers

/// compress_tiered(clip, precision, shell, level, levels, resident_factor, medium_factor)
///     -> (resident bytes, [tier bytes, level 1 first])
///
/// Compresses a clip with quality tiers (the `vbr` codec): a resident blob that samples on its
/// own within `resident_factor` x each joint's precision, and one tier blob per level (with
/// level 1 attached: within `medium_factor` x; with every level: the blob `compress` writes
/// with codec "vbr", bit for bit). Releases the GIL.
#[pyfunction]
#[pyo3(signature = (clip, precision=0.01, shell=3.0, level=None, levels=2, resident_factor=10.0, medium_factor=3.0))]
#[allow(clippy::too_many_arguments)]
fn compress_tiered<'py>(
    py: Python<'py>,
    clip: ClipArrays<'py>,
    precision: f64,
    shell: f64,
    level: Option<&str>,
    levels: u8,
    resident_factor: f64,
    medium_factor: f64,
) -> PyResult<(Bound<'py, PyBytes>, Vec<Bound<'py, PyBytes>>)> {
    let (raw, settings, tiers) = tiered_inputs(
        py,
        &clip,
        (precision, shell, level),
        (levels, resident_factor, medium_factor),
    )?;
    let b = py
        .allow_threads(|| animcomp::compress_tiered(&raw, &settings, &tiers))
        .map_err(|e| lib_error(py, e))?;
    Ok((
        PyBytes::new(py, &b.resident),
        b.tiers.iter().map(|t| PyBytes::new(py, t)).collect(),
    ))
}

/// The clip, settings and tier settings of a tiered compression's arguments (checked as
/// `compress` checks them; a clip with curves is refused: tiered blobs hold joints only).
fn tiered_inputs(
    py: Python<'_>,
    clip: &ClipArrays<'_>,
    (precision, shell, level): (f64, f64, Option<&str>),
    (levels, resident_factor, medium_factor): (u8, f64, f64),
) -> PyResult<(RawClip, CompressSettings, TierSettings)> {
    let precision = positive(py, "precision", precision)?;
    let shell = positive(py, "shell", shell)?;
    let settings = CompressSettings {
        codec: CodecChoice::Vbr,
        level: parse_level(py, level)?,
        ..CompressSettings::default()
    };
    let tiers = TierSettings {
        levels,
        resident_factor: resident_factor as f32,
        medium_factor: medium_factor as f32,
    };
    let (raw, curves) = build_clip(py, clip, precision, shell, 1.0)?;
    if !curves.is_empty() {
        return Err(input_error(
            py,
            "tiered blobs hold joints only: the clip has curves (drop them first)",
        ));
    }
    Ok((raw, settings, tiers))
}

/// tier_candidates(clip, precision, shell, level, levels, resident_factor, medium_factor)
///     -> bytes
///
/// A shared budget's first step, per clip (`animcomp::offline::tiers::tier_candidates`): every
/// removable sample of the clip compressed with these settings, in removal order with the error
/// its removal adds, and the bytes it saves; serialised for `plan_tier_budget`. Releases the GIL.
#[pyfunction]
#[pyo3(signature = (clip, precision=0.01, shell=3.0, level=None, levels=2, resident_factor=10.0, medium_factor=3.0))]
#[allow(clippy::too_many_arguments)]
fn tier_candidates<'py>(
    py: Python<'py>,
    clip: ClipArrays<'py>,
    precision: f64,
    shell: f64,
    level: Option<&str>,
    levels: u8,
    resident_factor: f64,
    medium_factor: f64,
) -> PyResult<Bound<'py, PyBytes>> {
    let (raw, settings, tiers) = tiered_inputs(
        py,
        &clip,
        (precision, shell, level),
        (levels, resident_factor, medium_factor),
    )?;
    let c = py
        .allow_threads(|| animcomp::offline::tiers::tier_candidates(&raw, &settings, &tiers))
        .map_err(|e| lib_error(py, e))?;
    Ok(PyBytes::new(py, &c.to_bytes()))
}

/// plan_tier_budget(candidates, levels, resident_factor, medium_factor, resident_budget,
///     medium_budget) -> dict
///
/// A shared budget's second step (`animcomp::offline::tiers::plan_budget`) over every clip's
/// `tier_candidates`: the thresholds (`resident_factor`, `medium_factor`: what
/// `compress_tiered` takes for every clip of the set; 3.4e38 takes every removable sample),
/// `resident_reached`, `medium_reached`, the set's `full_bytes`, `resident_bytes` and
/// `medium_bytes` (counted: upper bounds of what is written), and `bounds`: per clip, each
/// fidelity's largest error by the compressor's metric, as a multiple of the precision.
#[pyfunction]
#[pyo3(signature = (candidates, levels=2, resident_factor=10.0, medium_factor=3.0, resident_budget=0.5, medium_budget=None))]
fn plan_tier_budget<'py>(
    py: Python<'py>,
    candidates: Vec<Vec<u8>>,
    levels: u8,
    resident_factor: f64,
    medium_factor: f64,
    resident_budget: f64,
    medium_budget: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    use animcomp::offline::tiers::{plan_budget, TierBudget, TierCandidates};
    let tiers = TierSettings {
        levels,
        resident_factor: resident_factor as f32,
        medium_factor: medium_factor as f32,
    };
    let cands = candidates
        .iter()
        .map(|b| TierCandidates::from_bytes(b))
        .collect::<animcomp::Result<Vec<_>>>()
        .map_err(|e| lib_error(py, e))?;
    let refs: Vec<&TierCandidates> = cands.iter().collect();
    let budget = TierBudget {
        resident: resident_budget,
        medium: medium_budget,
    };
    let plan = py
        .allow_threads(|| plan_budget(&refs, &tiers, &budget))
        .map_err(|e| lib_error(py, e))?;
    let d = PyDict::new(py);
    d.set_item("levels", plan.tiers.levels)?;
    d.set_item("resident_factor", plan.tiers.resident_factor as f64)?;
    d.set_item("medium_factor", plan.tiers.medium_factor as f64)?;
    d.set_item("resident_reached", plan.resident_reached)?;
    d.set_item("medium_reached", plan.medium_reached)?;
    d.set_item("full_bytes", plan.full_bytes)?;
    d.set_item("resident_bytes", plan.resident_bytes)?;
    d.set_item("medium_bytes", plan.medium_bytes)?;
    let bounds: Vec<Vec<f64>> = cands
        .iter()
        .map(|c| c.bounds(&plan.tiers).iter().map(|&b| b as f64).collect())
        .collect();
    d.set_item("bounds", bounds)?;
    Ok(d)
}

/// measure_tiers(clip, handle, tiers, precision, shell) -> [(bytes, max, p99), ...]
///
/// Each fidelity of a resident blob: alone, then with tiers[0], tiers[0..2], ... attached (the
/// tiers in level order, from 1), decoded through the runtime at every sample and judged in
/// float64 (`animcomp_import::judge64`); bytes = resident + the tiers attached. The handle's
/// own attached tiers are not used. GIL released.
#[pyfunction]
#[pyo3(signature = (clip, handle, tiers, precision=0.01, shell=3.0))]
fn measure_tiers<'py>(
    py: Python<'py>,
    clip: ClipArrays<'py>,
    handle: PyRef<'py, Handle>,
    tiers: Vec<Vec<u8>>,
    precision: f64,
    shell: f64,
) -> PyResult<Vec<(usize, f64, f64)>> {
    let precision = positive(py, "precision", precision)?;
    let shell = positive(py, "shell", shell)?;
    let (mut raw, _) = build_clip(py, &clip, precision, shell, 1.0)?;
    raw.validate().map_err(|e| lib_error(py, e))?;
    let tiers: Vec<AlignedBlob> = tiers.iter().map(|t| AlignedBlob::from_bytes(t)).collect();
    let handle: &Handle = &handle;
    py.allow_threads(|| -> animcomp::Result<Vec<(usize, f64, f64)>> {
        let opts = DecompressOptions {
            verify_checksum: false,
            bind_pose: None,
        };
        let judge = Reference::new(&raw);
        let resident = handle.blob.as_bytes();
        // Each tier at its level (the order given).
        for (k, t) in tiers.iter().enumerate() {
            let open = OpenBlob::open(resident, &opts)?;
            if TierSet::new(&open)?.attach(t.as_bytes())? as usize != k + 1 {
                return Err(animcomp::Error::InvalidArgument(
                    "tiers must be given in level order, level 1 first",
                ));
            }
        }
        let mut out = Vec::new();
        for k in 0..=tiers.len() {
            let attached: Vec<&AlignedBlob> = tiers[..k].iter().collect();
            let mut errs = with_tiers(resident, &attached, &opts, |d| judge.errors_of(d))?;
            let (max, p99) = max_p99(&mut errs);
            let bytes = resident.len() + attached.iter().map(|t| t.len()).sum::<usize>();
            out.push((bytes, max, p99));
        }
        Ok(out)
    })
    .map_err(|e| lib_error(py, e))
}

/// is_supported(path) -> bool: whether `load` reads this file kind (by its extension): the
/// importers' formats and the curve files (`.csv`, `.npy`).
#[pyfunction]
fn is_supported(path: std::path::PathBuf) -> bool {
    animcomp_import::is_supported(&path) || animcomp_import::curves::is_curve_file(&path)
}

/// status_message(status) -> str: the C ABI's fixed message for a status code.
#[pyfunction]
fn status_message(status: i32) -> String {
    Status::from_i32(status)
        .map(|s| s.message().trim_end_matches('\0').to_string())
        .unwrap_or_else(|| format!("unknown status {status}"))
}

/// status_name(status) -> str: the status's name (e.g. `NonFiniteValue`).
#[pyfunction]
fn status_name(status: i32) -> String {
    Status::from_i32(status)
        .map(|s| format!("{s:?}"))
        .unwrap_or_else(|| format!("Unknown{status}"))
}

/// The compiled module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", library_version())?;
    m.add("LIBRARY_VERSION", library_version())?;
    m.add(
        "BLOB_FORMAT_VERSION",
        animcomp::format::header::FORMAT_VERSION,
    )?;
    m.add(
        "BLOB_FORMAT_VERSION_GROUPED",
        animcomp::format::header::GROUPED_FORMAT_VERSION,
    )?;
    m.add("BLOB_ALIGNMENT", animcomp::format::BLOB_ALIGNMENT)?;
    m.add_class::<Handle>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(compress, m)?)?;
    m.add_function(wrap_pyfunction!(regroup, m)?)?;
    m.add_function(wrap_pyfunction!(measure, m)?)?;
    m.add_function(wrap_pyfunction!(compress_tiered, m)?)?;
    m.add_function(wrap_pyfunction!(measure_tiers, m)?)?;
    m.add_function(wrap_pyfunction!(tier_candidates, m)?)?;
    m.add_function(wrap_pyfunction!(plan_tier_budget, m)?)?;
    m.add_function(wrap_pyfunction!(status_message, m)?)?;
    m.add_function(wrap_pyfunction!(is_supported, m)?)?;
    m.add_function(wrap_pyfunction!(status_name, m)?)?;
    Ok(())
}
