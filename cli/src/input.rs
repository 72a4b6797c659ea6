//! One input file, read once ([`animcomp_import::load_asset`]): the clip a command works on, the
//! curves that go with it, or the curve set of a curve-only file. Shared by `compress`, `export`
//! and `report`.

use crate::curves::CurveArgs;
use crate::gltf_doc::{same_animation, start_times};
use crate::measure::{self, SettingsArgs};
use crate::CliError;
use animcomp::{CodecChoice, RawClip};
use animcomp_import::curves::CurveSet;
use animcomp_import::Asset;
use std::path::Path;

/// The options `compress`, `export` and `report` share: which clip of the input, how to compress
/// and prepare it, its curves' precision, overwriting.
#[derive(Debug, clap::Args)]
pub struct ClipArgs {
    /// Codec: auto, fixed, vbr or keys [default: the library's default codec].
    #[arg(long, value_parser = measure::codec_choice, value_name = "C")]
    pub codec: Option<CodecChoice>,
    /// Which clip of a file holding several (FBX animation stacks, glTF animations), counting
    /// from 0 (see also --stack).
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
    pub curves: CurveArgs,
}

/// Reads `path` once: its clips and its curve sets (a directory or a missing file is refused).
pub fn read(path: &Path, settings: &SettingsArgs) -> Result<Asset, CliError> {
    if path.is_dir() {
        return Err(CliError(format!(
            "{}: is a directory (give one clip file; `animcomp bench` takes folders)",
            path.display()
        )));
    }
    if !path.exists() {
        return Err(CliError(format!(
            "{}: no such file or directory",
            path.display()
        )));
    }
    Ok(animcomp_import::load_asset(
        path,
        &settings.import_options(),
    )?)
}

/// Takes clip `--clip-index` of `asset` (of the clip `--stack` names, when given: then the index
/// counts within that one) and prepares it with the settings.
pub fn take_clip(asset: &mut Asset, opts: &ClipArgs) -> Result<RawClip, CliError> {
    let (index, settings) = (opts.clip_index, &opts.settings);
    let path = asset.path.clone();
    asset.clips = measure::pick_clips(
        &path,
        std::mem::take(&mut asset.clips),
        settings.stack.as_deref(),
    )?;
    let count = asset.clips.len();
    if index >= count {
        return Err(CliError(format!(
            "{}: --clip-index {index} out of range (the file holds {count} clip{})",
            path.display(),
            if count == 1 { "" } else { "s" }
        )));
    }
    if count > 1 {
        let names: Vec<_> = asset.clips.iter().map(|c| c.clip.name.clone()).collect();
        eprintln!(
            "{}: {count} clips ({}), using clip {index}",
            path.display(),
            names.join(", ")
        );
    }
    let imported = asset.clips.swap_remove(index);
    for n in &imported.notes {
        eprintln!("{}: {n}", path.display());
    }
    let clip = imported.clip;
    let name = clip.name.clone();
    measure::prepare_clip(clip, settings)
        .map_err(|e| CliError(format!("{}: clip '{name}': {e}", path.display())))
}

/// The curves that go with the prepared `clip` (an FBX take's blend shapes, a glTF animation's
/// morph weights), when their samples line up with the clip's (not after `--decimate`, nor for
/// glTF weights keyed from another time), prepared with the curve options.
pub fn take_clip_curves(asset: &mut Asset, clip: &RawClip, args: &CurveArgs) -> Option<CurveSet> {
    let lower = asset.path.to_string_lossy().to_ascii_lowercase();
    let mut set = if lower.ends_with(".fbx") {
        fbx_curves(asset, clip)
    } else if lower.ends_with(".gltf") || lower.ends_with(".glb") {
        gltf_curves(asset, clip)
    } else {
        None
    }?;
    crate::curves::prepare(&mut set, args);
    Some(set)
}

/// The blend-shape curves of the FBX take of `clip`, when they have its samples.
fn fbx_curves(asset: &mut Asset, clip: &RawClip) -> Option<CurveSet> {
    let k = asset
        .curve_sets
        .iter()
        .position(|s| s.name.ends_with(&format!(":{}", clip.name)))?;
    let set = asset.curve_sets.swap_remove(k);
    if set.num_samples != clip.num_samples {
        eprintln!(
            "animcomp: warning: {}: the blend-shape curves are not compressed with the joints \
             ({} curve samples, {} joint samples after --decimate)",
            asset.path.display(),
            set.num_samples,
            clip.num_samples
        );
        return None;
    }
    Some(set)
}

/// The curves of a glTF's morph weights (`animcomp_import::curves::gltf_weights`) for the clip
/// `clip` of its joints: the curve set of the same animation, when it has the joints' samples
/// (same rate, same first key time and count; else a warning and none).
fn gltf_curves(asset: &mut Asset, clip: &RawClip) -> Option<CurveSet> {
    let input = asset.path.as_path();
    let k = asset
        .curve_sets
        .iter()
        .position(|s| same_animation(&s.name, &clip.name))?;
    let set = asset.curve_sets.swap_remove(k);
    let starts = start_times(&asset.bytes, &clip.name);
    let aligned = match starts {
        Some((Some(j), Some(w))) => (j - w).abs() <= 1e-6,
        _ => true,
    };
    if set.num_samples != clip.num_samples || !aligned {
        eprintln!(
            "animcomp: warning: {}: the morph weights of \"{}\" are not on the joints' samples \
             ({} weight samples from {:?} s, {} joint samples from {:?} s): not written",
            input.display(),
            clip.name,
            set.num_samples,
            starts.and_then(|s| s.1),
            clip.num_samples,
            starts.and_then(|s| s.0),
        );
        return None;
    }
    Some(set)
}

/// Takes the curve set of a curve-only `asset`: number `--clip-index`, or the one `--stack`
/// names, prepared with the curve options.
pub fn take_curve_set(asset: &mut Asset, opts: &ClipArgs) -> Result<CurveSet, CliError> {
    let mut index = opts.clip_index;
    let path = asset.path.clone();
    if let Some(want) = &opts.settings.stack {
        let names: Vec<String> = asset.curve_sets.iter().map(|s| s.name.clone()).collect();
        index = measure::pick_stack(&names, want)
            .map_err(|e| CliError(format!("{}: {e}", path.display())))?;
    }
    if index >= asset.curve_sets.len() {
        return Err(CliError(format!(
            "{}: --clip-index {index} out of range (the file holds {} curve sets)",
            path.display(),
            asset.curve_sets.len()
        )));
    }
    let mut set = asset.curve_sets.swap_remove(index);
    crate::curves::prepare(&mut set, &opts.curves);
    Ok(set)
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
