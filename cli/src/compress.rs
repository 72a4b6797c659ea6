//! `animcomp compress`: one clip in, one blob out, with its size, ratio and measured error.

use crate::measure::{self, SettingsArgs};
use crate::CliError;
use animcomp::CodecChoice;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `animcomp compress`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The clip file: .bvh, .gltf/.glb, .fbx, .acl.sjson, or curves (.csv Live Link Face,
    /// .npy frames x curves).
    pub input: PathBuf,
    /// Where to write the blob [default: the input's name with the extension .acmp]; a folder
    /// receives `<input stem>.acmp`. Never the input itself; `-` is refused.
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Codec: auto, fixed, vbr or keys [default: the library's default codec].
    #[arg(long, value_parser = measure::codec_choice, value_name = "C")]
    pub codec: Option<CodecChoice>,
    /// Which clip of a file holding several (glTF animations), counting from 0.
    #[arg(
        allow_negative_numbers = true,
        long,
        default_value_t = 0,
        value_name = "N"
    )]
    pub clip_index: usize,
    /// Overwrite the output file if it exists.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub settings: SettingsArgs,
    #[command(flatten)]
    pub curves: crate::curves::CurveArgs,
    #[command(flatten)]
    pub additive: crate::additive::AdditiveArgs,
}

/// The blob path used when `-o` is not given: next to the input, `<stem>.acmp`.
pub fn default_output(input: &Path) -> PathBuf {
    input.with_file_name(format!("{}.acmp", measure::file_stem(input)))
}

/// Loads clip `index` of `path` and prepares it with `args` (shared with `report`).
pub fn load_one(
    path: &Path,
    index: usize,
    args: &SettingsArgs,
) -> Result<animcomp::RawClip, CliError> {
    if path.is_dir() {
        return Err(CliError(format!(
            "{}: is a directory (give one clip file; `animcomp bench` takes folders)",
            path.display()
        )));
    }
    let mut clips = measure::load_file(path, args)?;
    let count = clips.len();
    if index >= count {
        return Err(CliError(format!(
            "{}: --clip-index {index} out of range (the file holds {count} clip{})",
            path.display(),
            if count == 1 { "" } else { "s" }
        )));
    }
    if count > 1 {
        let names: Vec<_> = clips.iter().map(|c| c.clip.name.clone()).collect();
        eprintln!(
            "{}: {count} clips ({}), using clip {index}",
            path.display(),
            names.join(", ")
        );
    }
    let imported = clips.swap_remove(index);
    for n in &imported.notes {
        eprintln!("{}: {n}", path.display());
    }
    let clip = imported.clip;
    let name = clip.name.clone();
    measure::prepare_clip(clip, args)
        .map_err(|e| CliError(format!("{}: clip '{name}': {e}", path.display())))
}

/// The blend-shape curves of an FBX take that has joints too, prepared with the curve options,
/// when their samples line up with the prepared clip's (not after `--decimate`).
pub fn fbx_curves(
    input: &Path,
    clip: &animcomp::RawClip,
    settings: &SettingsArgs,
    args: &crate::curves::CurveArgs,
) -> Option<animcomp_import::curves::CurveSet> {
    if !input
        .to_string_lossy()
        .to_ascii_lowercase()
        .ends_with(".fbx")
    {
        return None;
    }
    let sets = animcomp_import::curves::load_curves(input, settings.resample).ok()?;
    let mut set = sets
        .into_iter()
        .find(|s| s.name.ends_with(&format!(":{}", clip.name)))?;
    if set.num_samples != clip.num_samples {
        eprintln!(
            "animcomp: warning: {}: the blend-shape curves are not compressed with the joints \
             ({} curve samples, {} joint samples after --decimate)",
            input.display(),
            set.num_samples,
            clip.num_samples
        );
        return None;
    }
    crate::curves::prepare(&mut set, args);
    Some(set)
}

/// Warns about options that have no effect with the chosen codec.
fn warn_ignored(a: &Args) {
    let fixed = matches!(a.codec, Some(CodecChoice::Fixed));
    let s = &a.settings;
    for (set, name) in [
        (s.rotation_format.is_some(), "--rotation-format"),
        (s.translation_format.is_some(), "--translation-format"),
        (s.scale_format.is_some(), "--scale-format"),
    ] {
        if set && !fixed {
            eprintln!("animcomp: warning: {name} only applies to --codec fixed; ignored");
        }
    }
}

/// Joint options that mean nothing for a curve-only input are refused rather than ignored,
/// whenever they are given on the command line (also at their default value: `--error 0.01`).
fn refuse_joint_options_on_curves(a: &Args) -> Result<(), CliError> {
    let s = &a.settings;
    let mut given = Vec::new();
    if a.codec.is_some() {
        given.push("--codec");
    }
    given.extend(curve_only_refusals());
    if s.rotation_format.is_some() || s.translation_format.is_some() || s.scale_format.is_some() {
        given.push("--rotation-format/--translation-format/--scale-format");
    }
    refuse_on_curves(&a.input, &given)
}

/// The joint precision options given on the command line (`--error`, `--shell`): they mean
/// nothing for curves, which have `--curve-precision` and `--morph-position-precision`.
pub fn curve_only_refusals() -> Vec<&'static str> {
    [("error", "--error"), ("shell", "--shell")]
        .into_iter()
        .filter(|(id, _)| crate::given(id))
        .map(|(_, flag)| flag)
        .collect()
}

/// The error for joint options `given` on the curve-only input `input` (none: `Ok`).
pub fn refuse_on_curves(input: &Path, given: &[&str]) -> Result<(), CliError> {
    if given.is_empty() {
        return Ok(());
    }
    Err(CliError(format!(
        "{}: holds curves only; {} {} to joints (use --curve-precision or \
         --morph-position-precision)",
        input.display(),
        given.join(", "),
        if given.len() == 1 { "applies" } else { "apply" }
    )))
}

/// Runs the command.
pub fn run(a: &Args) -> Result<ExitCode, CliError> {
    let default_name = format!("{}.acmp", measure::file_stem(&a.input));
    if a.input.is_dir() {
        return Err(CliError(format!(
            "{}: is a directory (give one clip file; `animcomp bench` takes folders)",
            a.input.display()
        )));
    }
    let out = match &a.output {
        Some(o) => crate::output::check(o, &default_name, &[&a.input], "blob")?,
        None => crate::output::check(
            &default_output(&a.input),
            &default_name,
            &[&a.input],
            "blob",
        )?,
    };
    warn_ignored(a);
    let loaded = load_one(&a.input, a.clip_index, &a.settings);
    let curves_only = loaded.is_err()
        && (crate::curves::is_curve_only(&a.input) || crate::curves::has_weights(&a.input));
    if loaded.is_ok() || curves_only {
        crate::output::refuse_existing(&out, a.force)?;
    }
    if curves_only {
        refuse_joint_options_on_curves(a)?;
        return crate::curves::compress_file(
            &a.input,
            a.clip_index,
            a.settings.stack.as_deref(),
            &out,
            &a.curves,
        );
    }
    let clip = loaded?;
    let codec = a.codec.unwrap_or_else(measure::default_codec);
    let settings = a.settings.settings(codec);
    let mut curve_set = fbx_curves(&a.input, &clip, &a.settings, &a.curves)
        .or_else(|| crate::export::gltf_curves(&a.input, &clip, &a.settings, &a.curves));
    if a.additive.additive.is_some() && curve_set.is_some() {
        eprintln!(
            "animcomp: warning: {}: additive blobs hold joints only; the blend-shape curves are \
             left out",
            a.input.display()
        );
        curve_set = None;
    }
    let curves: &[animcomp::Curve] = curve_set.as_ref().map_or(&[], |s| &s.curves);
    let fail = |e: animcomp::Error| {
        CliError(format!(
            "{}: {} codec: {e}",
            a.input.display(),
            codec.name()
        ))
    };
    let (blob, elapsed) = if a.additive.additive.is_some() {
        a.additive
            .compress_timed(&clip, &settings, &a.settings)
            .map_err(fail)?
    } else {
        let t0 = std::time::Instant::now();
        let b = animcomp::compress_with_curves(&clip, curves, &settings).map_err(fail)?;
        (animcomp::AlignedBlob::from_bytes(&b), t0.elapsed())
    };
    let m = a
        .additive
        .measure_blob(&clip, &blob, &a.settings)
        .map_err(|e| {
            CliError(format!(
                "{}: decompressing the new blob failed: {e}",
                a.input.display()
            ))
        })?;
    std::fs::write(&out, blob.as_bytes())
        .map_err(|e| CliError(format!("{}: cannot write: {e}", out.display())))?;
    let raw = clip.raw_size_bytes() + curves.len() * clip.num_samples * 4;
    println!("wrote {}", out.display());
    println!(
        "clip {}: {} joints, {} samples at {} Hz",
        clip.name,
        clip.num_joints(),
        clip.num_samples,
        clip.sample_rate
    );
    let chosen = match codec {
        CodecChoice::Auto => format!("auto (chose {})", measure::blob_codec(&blob)),
        c => c.name().to_string(),
    };
    println!(
        "codec {chosen}, precision {}, shell {}",
        a.settings.error, a.settings.shell
    );
    if let Some(f) = a.additive.additive {
        println!(
            "additive format {}, relative to {}; error of base ⊕ decoded against base ⊕ raw \
             additive",
            f.name(),
            match &a.additive.base {
                crate::additive::BaseChoice::FirstSample => "the first sample".to_string(),
                crate::additive::BaseChoice::Bind => "the bind pose".to_string(),
                crate::additive::BaseChoice::File(p) => p.display().to_string(),
            }
        );
    }
    println!(
        "size {} bytes (raw {} bytes), ratio {:.2} : 1, compressed in {:.3} s",
        blob.len(),
        raw,
        raw as f64 / blob.len() as f64,
        elapsed.as_secs_f64()
    );
    println!(
        "max error {:.5} (joint {}, sample {}), p99 error {:.5}",
        m.max_error,
        measure::joint_name(&clip, m.worst_joint),
        m.worst_sample,
        m.p99_error
    );
    if let Some(set) = &curve_set {
        let errs = crate::curves::errors(set, &blob)?;
        let nc = set.curves.len();
        let names: Vec<&str> = set.curves.iter().map(|c| c.name.as_str()).collect();
        println!(
            "curves {nc} ({}), ids 0..{}",
            names.join(", "),
            nc.saturating_sub(1)
        );
        let mut worst = (0.0f32, 0usize);
        for (k, e) in errs.iter().enumerate() {
            let c = k % nc;
            let rel = e / set.curves[c].precision;
            if rel > worst.0 {
                worst = (rel, c);
            }
        }
        println!(
            "curve max error {:.3} x its precision (curve {})",
            worst.0, set.curves[worst.1].name
        );
    }
    if m.max_error > a.settings.error {
        eprintln!(
            "animcomp: warning: max error {:.5} is above the requested precision {} \
             (codec {chosen} does not reach it on this clip)",
            m.max_error, a.settings.error
        );
    }
    Ok(ExitCode::SUCCESS)
}
