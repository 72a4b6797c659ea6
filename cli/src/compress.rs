//! `animcomp compress`: one clip in, one blob out, with its size, ratio and measured error.

use crate::input;
use crate::measure;
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
    #[command(flatten)]
    pub opts: input::ClipArgs,
    #[command(flatten)]
    pub additive: crate::additive::AdditiveArgs,
}

/// The blob path used when `-o` is not given: next to the input, `<stem>.acmp`.
pub fn default_output(input: &Path) -> PathBuf {
    input.with_file_name(format!("{}.acmp", measure::file_stem(input)))
}

/// Warns about options that have no effect with the chosen codec.
fn warn_ignored(a: &Args) {
    let fixed = matches!(a.opts.codec, Some(CodecChoice::Fixed));
    let s = &a.opts.settings;
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
    let s = &a.opts.settings;
    let mut given = Vec::new();
    if a.opts.codec.is_some() {
        given.push("--codec");
    }
    given.extend(input::curve_only_refusals());
    if s.rotation_format.is_some() || s.translation_format.is_some() || s.scale_format.is_some() {
        given.push("--rotation-format/--translation-format/--scale-format");
    }
    input::refuse_on_curves(&a.input, &given)
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
    let mut asset = input::read(&a.input, &a.opts.settings)?;
    if asset.is_curve_only() {
        crate::output::refuse_existing(&out, a.opts.force)?;
        refuse_joint_options_on_curves(a)?;
        let set = input::take_curve_set(&mut asset, &a.opts)?;
        return crate::curves::compress_file(&set, &out);
    }
    let clip = input::take_clip(&mut asset, &a.opts)?;
    crate::output::refuse_existing(&out, a.opts.force)?;
    let codec = a.opts.codec.unwrap_or_else(measure::default_codec);
    let settings = a.opts.settings.settings(codec);
    let mut curve_set = input::take_clip_curves(&mut asset, &clip, &a.opts.curves);
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
            .compress_timed(&clip, &settings, &a.opts.settings)
            .map_err(fail)?
    } else {
        let t0 = std::time::Instant::now();
        let b = animcomp::compress_with_curves(&clip, curves, &settings).map_err(fail)?;
        (animcomp::AlignedBlob::from_bytes(&b), t0.elapsed())
    };
    let m = a
        .additive
        .measure_blob(&clip, &blob, &a.opts.settings)
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
        a.opts.settings.error, a.opts.settings.shell
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
    if m.max_error > a.opts.settings.error {
        eprintln!(
            "animcomp: warning: max error {:.5} is above the requested precision {} \
             (codec {chosen} does not reach it on this clip)",
            m.max_error, a.opts.settings.error
        );
    }
    Ok(ExitCode::SUCCESS)
}
