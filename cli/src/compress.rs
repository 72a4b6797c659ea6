//! `animcomp compress`: one clip in, one blob out, with its size, ratio and measured error.

use crate::measure::{self, SettingsArgs};
use crate::CliError;
use animcomp::CodecChoice;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `animcomp compress`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The clip file (.bvh, .gltf, .glb, .acl.sjson).
    pub input: PathBuf,
    /// Where to write the blob [default: the input's name with the extension .acmp].
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
    let clip = clips.swap_remove(index).clip;
    let name = clip.name.clone();
    measure::prepare_clip(clip, args)
        .map_err(|e| CliError(format!("{}: clip '{name}': {e}", path.display())))
}

/// Runs the command.
pub fn run(a: &Args) -> Result<ExitCode, CliError> {
    let loaded = load_one(&a.input, a.clip_index, &a.settings);
    let out = a.output.clone().unwrap_or_else(|| default_output(&a.input));
    let curves_only = loaded.is_err()
        && (crate::curves::is_curve_only(&a.input) || crate::curves::has_weights(&a.input));
    if (loaded.is_ok() || curves_only) && out.exists() && !a.force {
        return Err(CliError(format!(
            "{}: already exists (pass --force to overwrite it)",
            out.display()
        )));
    }
    if curves_only {
        return crate::curves::compress_file(&a.input, a.clip_index, &out, &a.curves);
    }
    let clip = loaded?;
    let codec = a.codec.unwrap_or_else(measure::default_codec);
    let settings = a.settings.settings(codec);
    let (blob, elapsed) = measure::compress_timed(&clip, &settings).map_err(|e| {
        CliError(format!(
            "{}: {} codec: {e}",
            a.input.display(),
            codec.name()
        ))
    })?;
    let m = measure::measure_blob(&clip, &blob).map_err(|e| {
        CliError(format!(
            "{}: decompressing the new blob failed: {e}",
            a.input.display()
        ))
    })?;
    std::fs::write(&out, blob.as_bytes())
        .map_err(|e| CliError(format!("{}: cannot write: {e}", out.display())))?;
    let raw = clip.raw_size_bytes();
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
    if m.max_error > a.settings.error {
        eprintln!(
            "animcomp: warning: max error {:.5} is above the requested precision {} \
             (codec {chosen} does not reach it on this clip)",
            m.max_error, a.settings.error
        );
    }
    Ok(ExitCode::SUCCESS)
}
