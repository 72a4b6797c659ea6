//! `animcomp bench`: compress, decompress and measure every clip of files and folders (or of the
//! built-in set), per codec; print tables and optionally write JSON.
//!
//! Phases, for each codec: (1) clips are imported and prepared in parallel (once for all
//! codecs); (2) clips are compressed and their error measured in parallel (rayon, `--jobs`); the
//! compression time is the wall time of `animcomp::compress` on its worker thread, so with more
//! than one job it includes contention with the other jobs; (3) decompression is timed on the
//! main thread, one clip after another, after the parallel phase has finished, so no other work
//! of ours runs meanwhile. See [`crate::bench_output`] for the printed and JSON results.

use crate::bench_output::{self, ClipResult, Failure, Run};
use crate::measure::{self, Input, Measured, SettingsArgs};
use crate::peers::{self, PeerRow};
use crate::{sample_set, CliError};
use animcomp::{AlignedBlob, CodecChoice};
use animcomp_import::curves::{is_curve_file, CurveSet};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `animcomp bench`.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "\
Every clip is compressed, then EVERY sample is decompressed through the runtime decompressor and \
measured with the library's metric (virtual vertices at --shell, object space).

Columns: raw size is ACL's definition (10 floats x 4 bytes x joints x samples); ratio = raw / \
compressed; p99 is the 99th percentile of all per-joint, per-sample errors of the clip; \
compress time is the wall time of one compress call (on a worker thread); ns/pose is the median, \
over repeated forward passes \
(at least 3 passes and at least --timing-ms per clip and codec; warm cache), of the time to seek \
and decompress one whole pose, measured on the main thread after all compression finished. With \
several codecs, a clip's passes alternate between the codecs (one pass of each per round), so a \
slow spell of a shared machine slows every codec alike and the ns ratios stay comparable.

TOTAL row: raw and compressed sizes are sums, ratio is their quotient, max error is the max over \
clips, p99 is the 99th percentile of the POOLED per-joint, per-sample errors of all clips, ns/pose \
is the median of the clips' figures, compress time is the sum.

Exit status: 0 when every requested codec compressed at least one clip (failed clips are listed \
at the end and under \"failed\" in the JSON); 1 when an input path does not exist, no clip could \
be loaded, or a codec failed on every clip.

JSON (--json): {\"codec\", \"precision\", \"shell\", \"clips\": [...], \"failed\": [...], \"totals\": {...}}; \
with several codecs the top level is the first codec's run and \"runs\" lists every codec's run.")]
pub struct Args {
    /// Clip files and folders (searched recursively for .bvh, .gltf, .glb, .fbx, .acl.sjson,
    /// and curve files .csv / .npy). An FBX file gives one row per animation stack.
    /// Without any, the built-in procedurally generated clip set is used.
    pub paths: Vec<PathBuf>,
    /// Codec(s), comma-separated (auto, fixed, vbr, keys): one table per codec and a summary
    /// against the first [default: the library's default codec].
    #[arg(long, value_delimiter = ',', value_parser = measure::codec_choice, value_name = "C[,C...]")]
    pub codec: Vec<CodecChoice>,
    #[command(flatten)]
    pub settings: SettingsArgs,
    /// Write the results as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Parallel compression jobs [default: one per CPU].
    #[arg(allow_negative_numbers = true, long, short, value_name = "N")]
    pub jobs: Option<usize>,
    /// A peer results TSV (e.g. acl_cmu-cc_60hz.tsv from the shared peers folder): adds the peer's
    /// bytes and max error per clip (matched by clip name) and a totals comparison.
    #[arg(long, value_name = "FILE.tsv")]
    pub peers: Option<PathBuf>,
    /// Least time spent timing the decompression of each clip, in milliseconds.
    #[arg(
        allow_negative_numbers = true,
        long,
        default_value_t = 20,
        value_name = "MS"
    )]
    pub timing_ms: u64,
    #[command(flatten)]
    pub additive: crate::additive::AdditiveArgs,
    #[command(flatten)]
    pub curves: crate::curves::CurveArgs,
}

/// Most `--jobs` (each is a thread with its own stack).
const MAX_JOBS: usize = 1024;

fn progress(len: usize, what: &str) -> ProgressBar {
    let pb = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::hidden());
    if std::io::stderr().is_terminal() {
        pb.set_draw_target(ProgressDrawTarget::stderr());
        if let Ok(style) =
            ProgressStyle::with_template("{msg:>24} [{bar:40}] {pos}/{len} {elapsed}")
        {
            pb.set_style(style.progress_chars("=> "));
        }
    }
    pb.set_message(what.to_string());
    pb
}

/// What the inputs gave: clips ready to compress, clip failures, curve sets and curve failures.
type Gathered = (Vec<Input>, Vec<Failure>, Vec<CurveSet>, Vec<String>);

/// Reads one file once and prepares its clips; its curve sets go to the curve benchmark.
fn load_file(path: &Path, args: &SettingsArgs) -> Gathered {
    let shown = path.display().to_string();
    let asset = match animcomp_import::load_asset(path, &args.import_options()) {
        Ok(a) => a,
        Err(e) if is_curve_file(path) => return (vec![], vec![], vec![], vec![e.to_string()]),
        Err(e) => {
            let failure = Failure {
                path: shown,
                clip: None,
                codec: None,
                error: e.to_string(),
            };
            return (vec![], vec![failure], vec![], vec![]);
        }
    };
    let sets = asset.curve_sets;
    if asset.clips.is_empty() {
        return (vec![], vec![], sets, vec![]); // measured by the curve benchmark
    }
    let clips = match measure::pick_clips(path, asset.clips, args.stack.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            let failure = Failure {
                path: shown,
                clip: None,
                codec: None,
                error: e.0,
            };
            return (vec![], vec![failure], sets, vec![]);
        }
    };
    let stem = measure::file_stem(path);
    let several = clips.len() > 1;
    let (mut ok, mut failed) = (Vec::new(), Vec::new());
    if clips.is_empty() {
        failed.push(Failure {
            path: shown.clone(),
            clip: None,
            codec: None,
            error: format!("{shown}: the file holds no clip"),
        });
    }
    for c in clips {
        let name = match several {
            false => stem.clone(),
            true if c.clip.name.starts_with(&stem) => c.clip.name.clone(),
            true => format!("{stem}/{}", c.clip.name),
        };
        let units = c.units;
        match measure::prepare_clip(c.clip, args) {
            Ok(clip) => ok.push(Input {
                name,
                path: shown.clone(),
                clip,
                units,
            }),
            Err(e) => failed.push(Failure {
                path: shown.clone(),
                clip: Some(name.clone()),
                codec: None,
                error: format!("{shown}: clip '{name}': {e}"),
            }),
        }
    }
    (ok, failed, sets, vec![])
}

/// The inputs: the given paths expanded (clip and curve files, each read once), or the built-in
/// set.
fn gather(a: &Args) -> Result<Gathered, CliError> {
    if a.paths.is_empty() {
        let mut inputs = Vec::new();
        let mut failed = Vec::new();
        for clip in sample_set::clips() {
            let name = clip.name.clone();
            match measure::prepare_clip(clip, &a.settings) {
                Ok(clip) => inputs.push(Input {
                    name,
                    path: "<built-in>".into(),
                    clip,
                    units: "cm".into(),
                }),
                Err(e) => failed.push(Failure {
                    path: "<built-in>".into(),
                    clip: Some(name),
                    codec: None,
                    error: e.to_string(),
                }),
            }
        }
        return Ok((inputs, failed, vec![], vec![]));
    }
    for p in &a.paths {
        if !p.exists() {
            return Err(CliError(format!(
                "{}: no such file or directory",
                p.display()
            )));
        }
    }
    let mut files = animcomp_import::collect_files(&a.paths);
    files.extend(crate::curves::curve_files_in_folders(&a.paths));
    if files.is_empty() {
        return Err(CliError(
            "no supported files (.bvh, .gltf, .glb, .fbx, .acl.sjson; curves .csv, .npy) in the \
             given paths"
                .into(),
        ));
    }
    let pb = progress(files.len(), "loading");
    let per_file: Vec<Gathered> = files
        .par_iter()
        .map(|f| {
            let r = load_file(f, &a.settings);
            pb.inc(1);
            r
        })
        .collect();
    pb.finish_and_clear();
    let mut all: Gathered = Default::default();
    for (i, f, s, c) in per_file {
        all.0.extend(i);
        all.1.extend(f);
        all.2.extend(s);
        all.3.extend(c);
    }
    Ok(all)
}

/// Blob, compression seconds and measured errors of one clip, or why it failed.
type Done = Result<(AlignedBlob, f64, Measured), String>;

/// Compresses and measures every input with one codec (parallel, on `pool`).
fn compress_all(
    pool: &rayon::ThreadPool,
    inputs: &[Input],
    codec: CodecChoice,
    a: &Args,
) -> Vec<Done> {
    let settings = a.settings.settings(codec);
    let pb = progress(inputs.len(), &format!("{}: compressing", codec.name()));
    let done: Vec<Done> = pool.install(|| {
        inputs
            .par_iter()
            .map(|inp| {
                let r = a
                    .additive
                    .compress_timed(&inp.clip, &settings, &a.settings)
                    .map_err(|e| {
                        format!(
                            "{}: clip '{}': {} codec: {e}",
                            inp.path,
                            inp.name,
                            codec.name()
                        )
                    })
                    .and_then(|(blob, t)| {
                        let m = a
                            .additive
                            .measure_blob(&inp.clip, &blob, &a.settings)
                            .map_err(|e| {
                                format!(
                                    "{}: clip '{}': decompressing the new blob failed: {e}",
                                    inp.path, inp.name
                                )
                            })?;
                        Ok((blob, t.as_secs_f64(), m))
                    });
                pb.inc(1);
                r
            })
            .collect()
    });
    pb.finish_and_clear();
    done
}

/// Times decompression of every clip on the calling (main) thread, all codecs of a clip
/// interleaved (see [`measure::time_decompression`]), and assembles one run per codec.
fn time_all(
    inputs: &[Input],
    codecs: &[CodecChoice],
    done: &[Vec<Done>],
    a: &Args,
    peers: Option<&HashMap<String, PeerRow>>,
) -> Vec<Run> {
    let pb = progress(inputs.len(), "timing");
    let min_time = Duration::from_millis(a.timing_ms);
    let mut clips: Vec<Vec<ClipResult>> = vec![Vec::new(); codecs.len()];
    let mut failed: Vec<Vec<Failure>> = vec![Vec::new(); codecs.len()];
    let mut pooled: Vec<Vec<f32>> = vec![Vec::new(); codecs.len()];
    for (i, inp) in inputs.iter().enumerate() {
        pb.inc(1);
        let fail = |c: usize, error: String| Failure {
            path: inp.path.clone(),
            clip: Some(inp.name.clone()),
            codec: Some(codecs[c].name().into()),
            error,
        };
        let mut ok = Vec::new();
        for c in 0..codecs.len() {
            match &done[c][i] {
                Ok(v) => ok.push((c, v)),
                Err(e) => failed[c].push(fail(c, e.clone())),
            }
        }
        let blobs: Vec<&AlignedBlob> = ok.iter().map(|(_, (blob, _, _))| blob).collect();
        let ns = match measure::time_decompression(&blobs, min_time) {
            Ok(ns) => ns,
            Err(e) => {
                for (c, _) in ok {
                    failed[c].push(fail(
                        c,
                        format!(
                            "{}: clip '{}': decompression failed: {e}",
                            inp.path, inp.name
                        ),
                    ));
                }
                continue;
            }
        };
        let raw = inp.clip.raw_size_bytes() as u64;
        for ((c, (blob, secs, m)), ns) in ok.into_iter().zip(ns) {
            clips[c].push(ClipResult {
                name: inp.name.clone(),
                path: inp.path.clone(),
                joints: inp.clip.num_joints(),
                samples: inp.clip.num_samples,
                sample_rate: inp.clip.sample_rate,
                units: inp.units.clone(),
                raw_bytes: raw,
                compressed_bytes: blob.len() as u64,
                ratio: raw as f64 / blob.len() as f64,
                max_error: m.max_error,
                p99_error: m.p99_error,
                worst_joint: measure::joint_name(&inp.clip, m.worst_joint),
                worst_joint_index: m.worst_joint,
                worst_sample: m.worst_sample,
                compress_seconds: *secs,
                ns_per_pose: ns,
                peer: peers.and_then(|p| p.get(&inp.name).cloned()),
            });
            pooled[c].extend_from_slice(&m.errors);
        }
    }
    pb.finish_and_clear();
    codecs
        .iter()
        .zip(clips.into_iter().zip(failed).zip(pooled))
        .map(|(&codec, ((clips, failed), mut pooled))| {
            bench_output::make_run(
                codec,
                &a.settings,
                clips,
                failed,
                &mut pooled,
                peers.is_some(),
            )
        })
        .collect()
}

/// What `--codec auto` chose, as one line (`auto chose: vbr for 40 clips, fixed for 9`), when
/// `auto` is among the codecs.
fn auto_choices(codecs: &[CodecChoice], done: &[Vec<Done>]) -> Option<String> {
    let c = codecs.iter().position(|&c| c == CodecChoice::Auto)?;
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for (blob, _, _) in done[c].iter().flatten() {
        let name = measure::blob_codec(blob);
        match counts.iter_mut().find(|(n, _)| *n == name) {
            Some((_, k)) => *k += 1,
            None => counts.push((name, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let parts: Vec<String> = counts
        .iter()
        .map(|(n, k)| format!("{n} for {k} clip{}", if *k == 1 { "" } else { "s" }))
        .collect();
    Some(format!("auto chose: {}", parts.join(", ")))
}

/// Warns on stderr about every codec whose error ended above the requested precision on some
/// clip (`fixed` has no search: its formats may not reach a small precision).
fn warn_above_precision(runs: &[Run], precision: f32) {
    for run in runs {
        let above: Vec<&ClipResult> = run
            .clips
            .iter()
            .filter(|c| c.max_error > precision || c.max_error.is_nan())
            .collect();
        if let Some(worst) = above.iter().map(|c| c.max_error).reduce(f32::max) {
            eprintln!(
                "animcomp: warning: codec {}: max error above the requested precision {precision} \
                 on {} of {} clips (worst {worst:.5})",
                run.codec,
                above.len(),
                run.clips.len()
            );
        }
    }
}

/// Runs the command.
pub fn run(a: &Args) -> Result<ExitCode, CliError> {
    if let Some(j) = &a.json {
        let inputs: Vec<&Path> = a.paths.iter().map(PathBuf::as_path).collect();
        crate::output::check_writable(j, &inputs)?;
    }
    let peers = a.peers.as_deref().map(peers::read).transpose()?;
    let pool = {
        let mut b = rayon::ThreadPoolBuilder::new();
        if let Some(j) = a.jobs {
            // A thread per job: checked before any is started.
            if j > MAX_JOBS {
                return Err(CliError(format!(
                    "--jobs {j}: at most {MAX_JOBS} parallel jobs"
                )));
            }
            b = b.num_threads(j.max(1));
        }
        b.build()
            .map_err(|e| CliError(format!("cannot start worker threads: {e}")))?
    };
    let (inputs, load_failed, curve_sets, curve_failed) = pool.install(|| gather(a))?;
    let curve_report = crate::curves::bench(curve_sets, curve_failed, &a.curves)?;
    let has_curves = !curve_report.sets.is_empty();
    if inputs.is_empty() && !load_failed.is_empty() && !has_curves {
        // Nothing to tabulate: the failures alone, not an empty table and a TOTAL(0) row.
        print!("{}", bench_output::render_failures(&load_failed, &[]));
        return Err(CliError(
            "no clip could be loaded (see the failures above)".into(),
        ));
    }
    if inputs.is_empty() && load_failed.is_empty() && has_curves {
        return crate::curves::finish_curves_only(
            &curve_report,
            a.curves.curve_precision,
            a.json.as_deref(),
        );
    }
    let codecs = if a.codec.is_empty() {
        vec![measure::default_codec()]
    } else {
        a.codec.clone()
    };
    let done: Vec<Vec<Done>> = codecs
        .iter()
        .map(|&codec| compress_all(&pool, &inputs, codec, a))
        .collect();
    let chosen = auto_choices(&codecs, &done);
    let mut runs = time_all(&inputs, &codecs, &done, a, peers.as_ref());
    for (run, d) in runs.iter_mut().zip(&done) {
        let blobs: Vec<_> = d.iter().map(|r| r.as_ref().ok().map(|v| &v.0)).collect();
        run.runtime = crate::runtime_bench::measure(&inputs, &blobs);
    }
    drop(done);
    for run in &mut runs {
        let mut all_failed = load_failed.clone();
        all_failed.append(&mut run.failed);
        run.failed = all_failed;
        run.totals.failed = run.failed.len();
    }
    if a.paths.is_empty() {
        println!("(no path given: benchmarking the built-in generated clip set)");
    }
    a.additive.print_banner();
    for run in &runs {
        print!("{}", bench_output::render_run(run, peers.is_some()));
    }
    if runs.len() > 1 {
        print!("{}", bench_output::render_summary(&runs));
    }
    print!("{}", bench_output::render_failures(&load_failed, &runs));
    if let Some(line) = chosen {
        println!("{line}");
    }
    warn_above_precision(&runs, a.settings.error);
    if has_curves {
        print!(
            "{}",
            crate::curves::render(&curve_report, a.curves.curve_precision)
        );
    }
    if let Some(path) = &a.json {
        let mut text = bench_output::to_json(&runs)?;
        if has_curves {
            text = crate::curves::json_with_curves(&text, &curve_report)?;
        }
        std::fs::write(path, text)
            .map_err(|e| CliError(format!("{}: cannot write: {e}", path.display())))?;
        println!("wrote {}", path.display());
    }
    if inputs.is_empty() {
        return Err(CliError(
            "no clip could be loaded (see the failures above)".into(),
        ));
    }
    let dead: Vec<&str> = runs
        .iter()
        .filter(|r| r.clips.is_empty())
        .map(|r| r.codec.as_str())
        .collect();
    if !dead.is_empty() {
        return Err(CliError(format!(
            "codec {} failed on every clip",
            dead.join(", ")
        )));
    }
    Ok(ExitCode::SUCCESS)
}
