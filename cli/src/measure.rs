//! What the commands share: settings arguments, loading and preparing clips, compressing with a
//! timer, measuring error through the real decompressor, and timing pose decompression.

use crate::CliError;
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::format::quantize::{RotationFormat, VectorFormat};
use animcomp::math::{Transform, FLOATS_PER_JOINT};
use animcomp::metric::{percentile, Metric};
use animcomp::offline::{Level, VbrLayout};
use animcomp::{AlignedBlob, CodecChoice, CompressSettings, RawClip};
use animcomp_import::{ImportOptions, ImportedClip};
use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

/// `--level` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LevelArg {
    /// The codec picks from the clip's size.
    Auto,
    /// Quickest.
    Fast,
    /// Balanced.
    Default,
    /// Smallest output.
    Best,
}

impl LevelArg {
    fn level(self) -> Level {
        match self {
            LevelArg::Auto => Level::Automatic,
            LevelArg::Fast => Level::Fast,
            LevelArg::Default => Level::Default,
            LevelArg::Best => Level::Best,
        }
    }
}

/// `--layout` (reserved: every value writes the grouped layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LayoutArg {
    Segments,
    Grouped,
    Auto,
}

/// Error, shell, format and import options shared by `compress`, `bench` and `report`.
#[derive(Debug, Clone, clap::Args)]
pub struct SettingsArgs {
    /// Precision: largest acceptable virtual-vertex error of every joint, in clip units.
    #[arg(allow_negative_numbers = true, long, default_value_t = 0.01, value_parser = positive_f32, value_name = "E")]
    pub error: f32,
    /// Shell distance: distance of the virtual vertices from every joint, in clip units.
    #[arg(allow_negative_numbers = true, long, default_value_t = 3.0, value_parser = positive_f32, value_name = "S")]
    pub shell: f32,
    /// Search effort of codecs that search.
    #[arg(long, value_enum, default_value_t = LevelArg::Auto)]
    pub level: LevelArg,
    /// Reserved; every vbr blob is written in the grouped layout (format version 5). Kept for
    /// compatibility: every value writes the same blob.
    #[arg(long, value_enum, default_value_t = LayoutArg::Segments)]
    pub layout: LayoutArg,
    /// `fixed` codec rotation format (float128, float96-now, fixed48-now, fixed32-now,
    /// interval-fixed32-now, float32-now, smallest3-48, smallest3-32).
    #[arg(long, value_parser = rotation_format, value_name = "NAME")]
    pub rotation_format: Option<RotationFormat>,
    /// `fixed` codec translation format (float96, range48, range32).
    #[arg(long, value_parser = vector_format, value_name = "NAME")]
    pub translation_format: Option<VectorFormat>,
    /// `fixed` codec scale format (float96, range48, range32).
    #[arg(long, value_parser = vector_format, value_name = "NAME")]
    pub scale_format: Option<VectorFormat>,
    /// Resample every clip to this rate (Hz) before compressing; errors are measured against
    /// the resampled clip. glTF animations are always resampled (to this rate, else 30 Hz).
    #[arg(allow_negative_numbers = true, long, value_parser = positive_f32, value_name = "HZ", conflicts_with = "decimate")]
    pub resample: Option<f32>,
    /// Keep every N-th sample (rate / N) before compressing, without interpolation: how ACL's
    /// 30 Hz peer figures were made from 60 Hz data ("every second frame").
    #[arg(allow_negative_numbers = true, long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub decimate: Option<u32>,
    /// Multiply every imported position by this factor (e.g. 100 for metres to centimetres).
    #[arg(allow_negative_numbers = true, long, default_value_t = 1.0, value_parser = positive_f32, value_name = "F")]
    pub unit_scale: f32,
    /// FBX: the unit positions are converted to: cm, m, or file (the file's own unit, its
    /// UnitScaleFactor). Applied before --unit-scale.
    #[arg(long, default_value = "cm", value_parser = fbx_units, value_name = "U")]
    pub units: animcomp_import::fbx::FbxUnits,
    /// Only this clip of a file holding several: an FBX animation stack or glTF animation, by
    /// name or by index from 0.
    #[arg(long, value_name = "NAME|INDEX")]
    pub stack: Option<String>,
}

/// A clip ready to compress.
pub struct Input {
    /// Display name (file stem, `stem/animation` for multi-clip files).
    pub name: String,
    /// Source path (`<built-in>` for the sample set).
    pub path: String,
    /// The prepared clip (error settings applied, resampled, validated).
    pub clip: RawClip,
    /// The importer's guess of the length unit ("cm", "m" or "unknown").
    pub units: String,
}

/// The settings with every option at its default (as if none were given).
#[cfg(test)]
pub fn default_settings() -> SettingsArgs {
    use clap::Parser;
    #[derive(Parser)]
    struct W {
        #[command(flatten)]
        s: SettingsArgs,
    }
    W::parse_from(["animcomp"]).s
}

fn fbx_units(s: &str) -> Result<animcomp_import::fbx::FbxUnits, String> {
    animcomp_import::fbx::FbxUnits::parse(s)
        .ok_or_else(|| format!("unknown unit '{s}' (expected cm, m or file)"))
}

impl SettingsArgs {
    /// The compression settings for `codec` with these arguments.
    pub fn settings(&self, codec: CodecChoice) -> CompressSettings {
        let d = CompressSettings::default();
        CompressSettings {
            codec,
            level: self.level.level(),
            rotation_format: self.rotation_format.unwrap_or(d.rotation_format),
            translation_format: self.translation_format.unwrap_or(d.translation_format),
            scale_format: self.scale_format.unwrap_or(d.scale_format),
            vbr_layout: match self.layout {
                LayoutArg::Segments => VbrLayout::Segments,
                LayoutArg::Grouped => VbrLayout::Grouped,
                LayoutArg::Auto => VbrLayout::Auto,
            },
            ..d
        }
    }

    /// The importer options.
    pub fn import_options(&self) -> ImportOptions {
        ImportOptions {
            sample_rate: self.resample,
            unit_scale: self.unit_scale,
            fbx_units: self.units,
            fbx_stack: None,
        }
    }
}

/// The name of the codec that wrote `blob` (what `--codec auto` chose).
pub fn blob_codec(blob: &AlignedBlob) -> &'static str {
    animcomp::format::Header::parse(blob.as_bytes()).map_or("unknown", |h| h.codec.name())
}

/// Parses a finite, strictly positive number.
pub fn positive_f32(s: &str) -> Result<f32, String> {
    let v: f32 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number"))?;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!("{s} must be finite and greater than 0"))
    }
}

/// Parses a codec name (auto, fixed, vbr, keys).
pub fn codec_choice(s: &str) -> Result<CodecChoice, String> {
    CodecChoice::from_name(s.trim()).ok_or_else(|| {
        let names: Vec<_> = CodecChoice::ALL.iter().map(|c| c.name()).collect();
        format!(
            "unknown codec '{s}' (expected one of: {})",
            names.join(", ")
        )
    })
}

fn rotation_format(s: &str) -> Result<RotationFormat, String> {
    RotationFormat::from_name(s).ok_or_else(|| {
        let names: Vec<_> = RotationFormat::ALL.iter().map(|f| f.name()).collect();
        format!(
            "unknown rotation format '{s}' (expected one of: {})",
            names.join(", ")
        )
    })
}

fn vector_format(s: &str) -> Result<VectorFormat, String> {
    VectorFormat::from_name(s).ok_or_else(|| {
        let names: Vec<_> = VectorFormat::ALL.iter().map(|f| f.name()).collect();
        format!(
            "unknown vector format '{s}' (expected one of: {})",
            names.join(", ")
        )
    })
}

/// The codec used when `--codec` is not given: the library's default.
pub fn default_codec() -> CodecChoice {
    CompressSettings::default().codec
}

/// A file's clip name: its name without the (double, for `.acl.sjson`) extension.
pub fn file_stem(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let lower = name.to_ascii_lowercase();
    for ext in [
        ".acl.sjson",
        ".sjson",
        ".bvh",
        ".gltf",
        ".glb",
        ".fbx",
        ".acmp",
    ] {
        if lower.ends_with(ext) {
            return name[..name.len() - ext.len()].to_string();
        }
    }
    name
}

/// Loads every clip of a file; the error is the importer's one-line message.
pub fn load_file(path: &Path, args: &SettingsArgs) -> Result<Vec<ImportedClip>, CliError> {
    if !path.exists() {
        return Err(CliError(format!(
            "{}: no such file or directory",
            path.display()
        )));
    }
    let clips = animcomp_import::load(path, &args.import_options())?;
    pick_clips(path, clips, args.stack.as_deref())
}

/// The clip `--stack` names among the clips of `path` (all of them without `--stack`).
pub fn pick_clips(
    path: &Path,
    clips: Vec<ImportedClip>,
    stack: Option<&str>,
) -> Result<Vec<ImportedClip>, CliError> {
    match stack {
        None => Ok(clips),
        Some(want) => {
            let names: Vec<String> = clips.iter().map(|c| c.clip.name.clone()).collect();
            let k = pick_stack(&names, want)
                .map_err(|e| CliError(format!("{}: {e}", path.display())))?;
            Ok(clips.into_iter().skip(k).take(1).collect())
        }
    }
}

/// The index `--stack` names among `names`: an exact name, a name ending in `:NAME`, `/NAME`
/// (glTF clips are `file:animation`) or `|NAME` (Blender's FBX stacks are `Armature|Action`),
/// or an index.
pub fn pick_stack(names: &[String], want: &str) -> Result<usize, String> {
    let by_name = names.iter().position(|n| {
        n == want
            || n.ends_with(&format!(":{want}"))
            || n.ends_with(&format!("/{want}"))
            || n.ends_with(&format!("|{want}"))
    });
    if let Some(k) = by_name {
        return Ok(k);
    }
    match want.parse::<usize>() {
        Ok(k) if k < names.len() => Ok(k),
        _ => Err(format!(
            "--stack {want}: no such stack (the file holds {}: {})",
            names.len(),
            names
                .iter()
                .enumerate()
                .map(|(i, n)| format!("{i} \"{n}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// Applies the command's error settings (every joint), resamples if asked, and validates.
pub fn prepare_clip(mut clip: RawClip, args: &SettingsArgs) -> animcomp::Result<RawClip> {
    clip.skeleton.set_error_settings(args.error, args.shell);
    clip.validate()?;
    if let Some(hz) = args.resample {
        if hz != clip.sample_rate {
            // Checked before allocating: the clip's duration at the new rate, against the
            // library's limits (a typo such as --resample 100000000 would otherwise ask for
            // gigabytes before the library refused it).
            let samples = (clip.duration() as f64 * hz as f64).ceil() + 1.0;
            let total = samples * clip.num_joints().max(1) as f64;
            if samples > animcomp::format::limits::MAX_SAMPLES as f64
                || total > animcomp_import::MAX_JOINT_SAMPLES as f64
            {
                return Err(animcomp::Error::InvalidArgument(
                    "--resample: the clip would have too many samples at this rate",
                ));
            }
            clip = clip.resample(hz)?;
            clip.validate()?;
        }
    }
    if let Some(k) = args.decimate {
        if k as usize >= clip.num_samples && clip.num_samples > 1 {
            return Err(animcomp::Error::InvalidArgument(
                "--decimate: N is not smaller than the clip's sample count (it would keep one sample)",
            ));
        }
        clip = decimate(&clip, k as usize);
    }
    Ok(clip)
}

/// Keeps samples 0, k, 2k, … at `rate / k` Hz.
pub fn decimate(clip: &RawClip, k: usize) -> RawClip {
    let k = k.max(1);
    let mut out = clip.clone();
    for (o, t) in out.tracks.iter_mut().zip(&clip.tracks) {
        o.rotations = t.rotations.iter().step_by(k).copied().collect();
        o.translations = t.translations.iter().step_by(k).copied().collect();
        o.scales = t.scales.iter().step_by(k).copied().collect();
    }
    out.num_samples = clip.num_samples.div_ceil(k);
    out.sample_rate = clip.sample_rate / k as f32;
    out
}

/// Compresses and returns the aligned blob and the wall time `compress` took.
pub fn compress_timed(
    clip: &RawClip,
    settings: &CompressSettings,
) -> animcomp::Result<(AlignedBlob, Duration)> {
    let t0 = Instant::now();
    let bytes = animcomp::compress(clip, settings)?;
    let elapsed = t0.elapsed();
    Ok((AlignedBlob::from_bytes(&bytes), elapsed))
}

/// Error of a decompressed blob against its raw clip, measured with [`Metric`] at every sample.
#[derive(Debug, Clone)]
pub struct Measured {
    /// Largest error of any joint at any sample (NaN counts as infinite).
    pub max_error: f32,
    /// Where it occurs.
    pub worst_joint: usize,
    /// When it occurs.
    pub worst_sample: usize,
    /// 99th percentile of all per-joint, per-sample errors.
    pub p99_error: f32,
    /// Largest error of each joint.
    pub per_joint_max: Vec<f32>,
    /// Every error, sample-major: `errors[sample * joints + joint]`.
    pub errors: Vec<f32>,
}

/// Decompresses every sample of `blob` through [`Decompressor`] and measures it against `clip`.
///
/// Samples the blob stores are read with `seek_sample`; when the blob dropped a repeated last
/// sample (looping), the remaining raw samples are read by time, as a player would.
pub fn measure_blob(clip: &RawClip, blob: &AlignedBlob) -> animcomp::Result<Measured> {
    measure_blob_mapped(clip, blob, &|_, _| {})
}

/// [`measure_blob`] where each decoded local pose goes through `map(sample, pose)` before it is
/// judged against `clip` (e.g. an additive blob's pose with its base applied).
pub fn measure_blob_mapped(
    clip: &RawClip,
    blob: &AlignedBlob,
    map: &(dyn Fn(usize, &mut [Transform]) + Sync),
) -> animcomp::Result<Measured> {
    let metric = Metric::new(clip);
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default())?;
    let nj = clip.num_joints();
    if d.num_joints() != nj {
        return Err(animcomp::Error::InvalidArgument(
            "blob and clip have different joint counts",
        ));
    }
    let stored = d.header().num_samples as usize;
    let n = clip.num_samples;
    let mut floats = vec![0.0f32; nj * FLOATS_PER_JOINT];
    let mut local = vec![Transform::IDENTITY; nj];
    let mut scratch = vec![Transform::IDENTITY; nj];
    let mut errs = vec![0.0f32; nj];
    let mut m = Measured {
        max_error: 0.0,
        worst_joint: 0,
        worst_sample: 0,
        p99_error: 0.0,
        per_joint_max: vec![0.0; nj],
        errors: Vec::with_capacity(nj * n),
    };
    for i in 0..n {
        if i < stored {
            d.seek_sample(i as u32);
        } else {
            d.seek(i as f32 / clip.sample_rate, Looping::Clamp, Rounding::None)?;
        }
        d.sample_pose(&mut floats, FLOATS_PER_JOINT)?;
        for (j, l) in local.iter_mut().enumerate() {
            *l = Transform::read_from(&floats[j * FLOATS_PER_JOINT..(j + 1) * FLOATS_PER_JOINT]);
        }
        map(i, &mut local);
        metric.errors_at(i, &local, &mut scratch, &mut errs);
        for (j, &e) in errs.iter().enumerate() {
            let e = if e.is_nan() { f32::INFINITY } else { e };
            if e > m.max_error {
                m.max_error = e;
                m.worst_joint = j;
                m.worst_sample = i;
            }
            m.per_joint_max[j] = m.per_joint_max[j].max(e);
            m.errors.push(e);
        }
    }
    let mut all = m.errors.clone();
    m.p99_error = percentile(&mut all, 0.99);
    Ok(m)
}

/// Median time in nanoseconds to decompress one whole pose, in forward playback order, for
/// each of `blobs` (the same clip compressed by several codecs).
///
/// One pass seeks to every sample time in order (`seek` + `sample_pose`, clamp, interpolating)
/// and is timed as a whole. Passes run in rounds, one pass of every blob per round, so a slow
/// spell of a shared machine slows every codec alike; rounds repeat until `min_total` per blob
/// has elapsed (and at least 3 ran). Each blob's result is the median over its passes of pass
/// time / samples. Warm cache. Run it on one thread while nothing else of ours runs.
pub fn time_decompression(
    blobs: &[&AlignedBlob],
    min_total: Duration,
) -> animcomp::Result<Vec<f64>> {
    let mut ds = Vec::with_capacity(blobs.len());
    for b in blobs {
        ds.push(Decompressor::new(
            b.as_bytes(),
            &DecompressOptions::default(),
        )?);
    }
    let Some(first) = ds.first() else {
        return Ok(Vec::new());
    };
    let h = *first.header();
    let n = h.num_samples as usize;
    let times: Vec<f32> = (0..n).map(|i| i as f32 / h.sample_rate).collect();
    let mut pose = vec![0.0f32; first.num_joints() * FLOATS_PER_JOINT];
    let mut passes = vec![Vec::new(); ds.len()];
    let budget = min_total * ds.len() as u32;
    let start = Instant::now();
    loop {
        for (d, p) in ds.iter_mut().zip(&mut passes) {
            let t0 = Instant::now();
            for &t in &times {
                d.seek(black_box(t), Looping::Clamp, Rounding::None)?;
                d.sample_pose(&mut pose, FLOATS_PER_JOINT)?;
                black_box(&mut pose);
            }
            p.push(t0.elapsed().as_nanos() as f64 / n as f64);
        }
        if passes[0].len() >= 3 && start.elapsed() >= budget {
            break;
        }
    }
    Ok(passes.iter_mut().map(|p| median(p)).collect())
}

/// Median of `v` (0 when empty; mean of the two middle values for even lengths): the bench
/// crate's, shared with `ab_runtime`.
pub use animcomp_bench::timing::median;

/// Joint name for display (its index when unnamed).
pub fn joint_name(clip: &RawClip, j: usize) -> String {
    match clip.skeleton.joints.get(j) {
        Some(joint) if !joint.name.is_empty() => joint.name.clone(),
        _ => format!("#{j}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use animcomp::clip::{generate_clip, GenerateOptions};

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&mut []), 0.0);
    }

    #[test]
    fn stems_drop_double_extensions() {
        assert_eq!(file_stem(Path::new("/a/09_02.acl.sjson")), "09_02");
        assert_eq!(file_stem(Path::new("b/001_01.BVH")), "001_01");
        assert_eq!(file_stem(Path::new("Fox.glb")), "Fox");
    }

    #[test]
    fn settings_override_only_given_formats() {
        let a = SettingsArgs {
            error: 0.02,
            shell: 5.0,
            level: LevelArg::Best,
            layout: LayoutArg::Grouped,
            rotation_format: Some(RotationFormat::Float128),
            translation_format: None,
            scale_format: None,
            resample: None,
            decimate: None,
            unit_scale: 1.0,
            units: animcomp_import::fbx::FbxUnits::Centimetres,
            stack: None,
        };
        let s = a.settings(CodecChoice::Fixed);
        let d = CompressSettings::default();
        assert_eq!(s.codec, CodecChoice::Fixed);
        assert_eq!(s.level, Level::Best);
        assert_eq!(s.vbr_layout, VbrLayout::Grouped);
        assert_eq!(
            default_settings().settings(CodecChoice::Vbr).vbr_layout,
            d.vbr_layout
        );
        assert_eq!(s.rotation_format, RotationFormat::Float128);
        assert_eq!(s.translation_format, d.translation_format);
        let mut clip = generate_clip(&GenerateOptions {
            joints: 4,
            samples: 5,
            ..Default::default()
        });
        clip.sample_rate = 30.0;
        let p = prepare_clip(
            clip,
            &SettingsArgs {
                resample: Some(15.0),
                ..a
            },
        )
        .unwrap();
        assert_eq!(p.sample_rate, 15.0);
        assert_eq!(p.num_samples, 3);
        assert!(p
            .skeleton
            .joints
            .iter()
            .all(|j| j.precision == 0.02 && j.shell_distance == 5.0));
    }

    #[test]
    fn measure_blob_agrees_with_the_metric() {
        let clip = generate_clip(&GenerateOptions {
            joints: 12,
            samples: 40,
            scale: true,
            ..Default::default()
        });
        let s = CompressSettings {
            codec: CodecChoice::Fixed,
            rotation_format: RotationFormat::SmallestThree32,
            translation_format: VectorFormat::RangeReduced32,
            ..Default::default()
        };
        let blob = AlignedBlob::from_bytes(&animcomp::compress(&clip, &s).unwrap());
        let m = measure_blob(&clip, &blob).unwrap();
        let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
        let reference =
            Metric::new(&clip).measure(|i, out| d.pose_at_sample(i as u32, out).unwrap());
        assert_eq!(m.max_error, reference.max_error);
        assert_eq!(m.worst_joint, reference.worst_joint);
        assert_eq!(m.worst_sample, reference.worst_sample);
        assert_eq!(m.p99_error, reference.p99_error);
        assert_eq!(m.per_joint_max, reference.per_joint_max);
        assert_eq!(m.errors.len(), 12 * 40);
        assert!(m.max_error > 0.0, "a lossy format shows some error");
        let ns = time_decompression(&[&blob, &blob], Duration::from_millis(1)).unwrap();
        assert_eq!(ns.len(), 2);
        assert!(ns.iter().all(|&t| t > 0.0));
    }

    #[test]
    fn decimate_keeps_every_kth_sample() {
        let clip = generate_clip(&GenerateOptions {
            joints: 3,
            samples: 7,
            sample_rate: 60.0,
            ..Default::default()
        });
        let d = decimate(&clip, 2);
        assert_eq!((d.num_samples, d.sample_rate), (4, 30.0));
        for (a, b) in d.tracks.iter().zip(&clip.tracks) {
            assert_eq!(a.rotations.len(), 4);
            assert_eq!(a.translations[3], b.translations[6]);
            assert_eq!(a.rotations[1], b.rotations[2]);
            assert_eq!(a.scales.len(), 4);
        }
        // ACL's 30 Hz figures for 60 Hz clips: 1376 samples -> 688, 1305 -> 653.
        let long = generate_clip(&GenerateOptions {
            joints: 1,
            samples: 1376,
            ..Default::default()
        });
        assert_eq!(decimate(&long, 2).num_samples, 688);
    }

    #[test]
    fn parsers_reject_bad_values() {
        assert!(positive_f32("0").is_err());
        assert!(positive_f32("nan").is_err());
        assert!(positive_f32("x").is_err());
        assert_eq!(positive_f32("0.5"), Ok(0.5));
        assert!(codec_choice("zip").unwrap_err().contains("fixed"));
        assert_eq!(codec_choice("keys"), Ok(CodecChoice::Keys));
    }
}
