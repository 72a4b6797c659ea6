//! `animcomp bench` results: the per-clip and totals records, their tables and their JSON.
//!
//! JSON shape (one codec): `{"codec", "precision", "shell", "clips": [...], "failed": [...],
//! "totals": {...}}` plus extra fields. With several codecs the top level is the first codec's
//! run and `"runs"` holds every codec's run (the first included) in the same shape.

use crate::measure::{self, SettingsArgs};
use crate::peers::PeerRow;
use crate::table::{thousands, Table};
use crate::CliError;
use animcomp::metric::percentile;
use animcomp::CodecChoice;
use serde::Serialize;
use std::collections::HashMap;

/// One successfully benchmarked clip.
#[derive(Debug, Clone, Serialize)]
pub struct ClipResult {
    /// Display name (file stem; `stem/animation` for multi-clip files).
    pub name: String,
    /// Source file.
    pub path: String,
    /// Joints.
    pub joints: usize,
    /// Samples (after `--resample`).
    pub samples: usize,
    /// Sample rate in Hz.
    pub sample_rate: f32,
    /// The importer's guess of the length unit ("cm", "m" or "unknown"); errors are in it.
    pub units: String,
    /// ACL's raw size: 10 x 4 bytes x joints x samples.
    pub raw_bytes: u64,
    /// Blob size.
    pub compressed_bytes: u64,
    /// `raw_bytes / compressed_bytes`.
    pub ratio: f64,
    /// Largest error of any joint at any sample.
    pub max_error: f32,
    /// 99th percentile of the per-joint, per-sample errors.
    pub p99_error: f32,
    /// Name of the joint with the largest error.
    pub worst_joint: String,
    /// Its index.
    pub worst_joint_index: usize,
    /// The sample where the largest error occurs.
    pub worst_sample: usize,
    /// Wall time of the compress call.
    pub compress_seconds: f64,
    /// Median ns to seek and decompress one whole pose.
    pub ns_per_pose: f64,
    /// The peer's figures for this clip (`--peers`), when matched by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peer: Option<PeerRow>,
}

/// A file or clip that could not be benchmarked.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    /// The file.
    pub path: String,
    /// The clip, when the file loaded but one of its clips failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clip: Option<String>,
    /// The codec, when compression (not import) failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub codec: Option<String>,
    /// One line: file, line or field, what is wrong.
    pub error: String,
}

/// Totals over the clips that succeeded, and the comparison with the peer on matched clips.
#[derive(Debug, Clone, Serialize)]
pub struct Totals {
    /// Clips benchmarked.
    pub clips: usize,
    /// Failures (files or clips).
    pub failed: usize,
    /// Sum of raw sizes.
    pub raw_bytes: u64,
    /// Sum of blob sizes.
    pub compressed_bytes: u64,
    /// `raw_bytes / compressed_bytes`.
    pub ratio: f64,
    /// Max of the clips' max errors.
    pub max_error: f32,
    /// 99th percentile of the pooled per-joint, per-sample errors of every clip.
    pub p99_error: f32,
    /// Largest of the clips' own p99 errors.
    pub max_clip_p99_error: f32,
    /// Sum of compression times.
    pub compress_seconds: f64,
    /// Median of the clips' ns per pose.
    pub ns_per_pose_median: f64,
    /// Comparison with the peer (`--peers`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peer: Option<PeerTotals>,
}

/// Ours against the peer, over the clips both have.
#[derive(Debug, Clone, Serialize)]
pub struct PeerTotals {
    /// Clips matched by name.
    pub matched_clips: usize,
    /// Our clips the peer file does not list.
    pub unmatched_clips: usize,
    /// Our raw bytes on matched clips.
    pub raw_bytes: u64,
    /// The peer's raw bytes on matched clips (when the file lists them).
    pub peer_raw_bytes: u64,
    /// Our compressed bytes on matched clips.
    pub compressed_bytes: u64,
    /// The peer's compressed bytes on matched clips.
    pub peer_compressed_bytes: u64,
    /// `compressed_bytes / peer_compressed_bytes` (below 1: we are smaller).
    pub size_ratio_ours_over_peer: f64,
    /// Our max error on matched clips.
    pub max_error: f32,
    /// The peer's max error on matched clips.
    pub peer_max_error: f64,
    /// Our median ns/pose on matched clips.
    pub ns_per_pose_median: f64,
    /// The peer's median ns/pose on matched clips (measured on another machine).
    pub peer_ns_per_pose_median: f64,
}

/// One codec's results.
#[derive(Debug, Clone, Serialize)]
pub struct Run {
    /// Codec name.
    pub codec: String,
    /// Precision given to every joint.
    pub precision: f32,
    /// Shell distance given to every joint.
    pub shell: f32,
    /// `--resample`, when given.
    pub resample_hz: Option<f32>,
    /// `--decimate`, when given.
    pub decimate: Option<u32>,
    /// Clips that succeeded.
    pub clips: Vec<ClipResult>,
    /// Files and clips that failed (import failures appear in every codec's run).
    pub failed: Vec<Failure>,
    /// Totals.
    pub totals: Totals,
    /// Runtime figures (warm, cold, bind, subset), measured after the timing phase.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<crate::runtime_bench::Runtime>,
}

/// Builds a run's totals. `pooled` holds every per-joint, per-sample error of every clip.
pub fn make_run(
    codec: CodecChoice,
    s: &SettingsArgs,
    clips: Vec<ClipResult>,
    failed: Vec<Failure>,
    pooled: &mut [f32],
    with_peers: bool,
) -> Run {
    let raw: u64 = clips.iter().map(|c| c.raw_bytes).sum();
    let comp: u64 = clips.iter().map(|c| c.compressed_bytes).sum();
    let mut ns: Vec<f64> = clips.iter().map(|c| c.ns_per_pose).collect();
    let peer = with_peers.then(|| {
        let m: Vec<&ClipResult> = clips.iter().filter(|c| c.peer.is_some()).collect();
        let p = |c: &&ClipResult| c.peer.clone().unwrap();
        let mut ours_ns: Vec<f64> = m.iter().map(|c| c.ns_per_pose).collect();
        let mut peer_ns: Vec<f64> = m.iter().filter_map(|c| p(c).ns_per_pose).collect();
        let comp: u64 = m.iter().map(|c| c.compressed_bytes).sum();
        let peer_comp: u64 = m.iter().map(|c| p(c).compressed_bytes).sum();
        PeerTotals {
            matched_clips: m.len(),
            unmatched_clips: clips.len() - m.len(),
            raw_bytes: m.iter().map(|c| c.raw_bytes).sum(),
            peer_raw_bytes: m.iter().filter_map(|c| p(c).raw_bytes).sum(),
            compressed_bytes: comp,
            peer_compressed_bytes: peer_comp,
            size_ratio_ours_over_peer: comp as f64 / peer_comp.max(1) as f64,
            max_error: m.iter().map(|c| c.max_error).fold(0.0, f32::max),
            peer_max_error: m.iter().map(|c| p(c).max_error).fold(0.0, f64::max),
            ns_per_pose_median: measure::median(&mut ours_ns),
            peer_ns_per_pose_median: measure::median(&mut peer_ns),
        }
    });
    let totals = Totals {
        clips: clips.len(),
        failed: failed.len(),
        raw_bytes: raw,
        compressed_bytes: comp,
        ratio: if comp > 0 {
            raw as f64 / comp as f64
        } else {
            0.0
        },
        max_error: clips.iter().map(|c| c.max_error).fold(0.0, f32::max),
        p99_error: percentile(pooled, 0.99),
        max_clip_p99_error: clips.iter().map(|c| c.p99_error).fold(0.0, f32::max),
        compress_seconds: clips.iter().map(|c| c.compress_seconds).sum::<f64>() + 0.0,
        ns_per_pose_median: measure::median(&mut ns),
        peer,
    };
    Run {
        codec: codec.name().to_string(),
        precision: s.error,
        shell: s.shell,
        resample_hz: s.resample,
        decimate: s.decimate,
        clips,
        failed,
        totals,
        runtime: None,
    }
}

fn err(e: f32) -> String {
    if e.is_finite() {
        format!("{e:.4}")
    } else {
        "inf".into()
    }
}

/// The table of one codec's run, with a TOTAL row (and the peer comparison line).
pub fn render_run(run: &Run, with_peers: bool) -> String {
    let mut h = vec![
        "clip",
        "joints",
        "samples",
        "rate",
        "raw bytes",
        "bytes",
        "ratio",
        "max err",
        "p99 err",
        "worst joint",
        "comp s",
        "ns/pose",
    ];
    if with_peers {
        h.extend(["ACL bytes", "ACL err", "ours/ACL"]);
    }
    let mut t = Table::new(&h);
    for c in &run.clips {
        let mut r = vec![
            c.name.clone(),
            c.joints.to_string(),
            c.samples.to_string(),
            format!("{}", c.sample_rate),
            thousands(c.raw_bytes),
            thousands(c.compressed_bytes),
            format!("{:.2}", c.ratio),
            err(c.max_error),
            err(c.p99_error),
            c.worst_joint.clone(),
            format!("{:.3}", c.compress_seconds),
            format!("{:.0}", c.ns_per_pose),
        ];
        if with_peers {
            match &c.peer {
                Some(p) => r.extend([
                    thousands(p.compressed_bytes),
                    format!("{:.4}", p.max_error),
                    format!(
                        "{:.3}",
                        c.compressed_bytes as f64 / p.compressed_bytes.max(1) as f64
                    ),
                ]),
                None => r.extend(["-".into(), "-".into(), "-".into()]),
            }
        }
        t.row(r);
    }
    t.separator();
    let tt = &run.totals;
    let mut r = vec![
        format!("TOTAL({})", tt.clips),
        String::new(),
        String::new(),
        String::new(),
        thousands(tt.raw_bytes),
        thousands(tt.compressed_bytes),
        format!("{:.2}", tt.ratio),
        err(tt.max_error),
        err(tt.p99_error),
        String::new(),
        format!("{:.3}", tt.compress_seconds),
        format!("{:.0}", tt.ns_per_pose_median),
    ];
    if let Some(p) = &tt.peer {
        r.extend([
            thousands(p.peer_compressed_bytes),
            format!("{:.4}", p.peer_max_error),
            format!("{:.3}", p.size_ratio_ours_over_peer),
        ]);
    }
    t.row(r);
    let mut out = format!(
        "\ncodec {} | precision {} | shell {}{}\n",
        run.codec,
        run.precision,
        run.shell,
        run.resample_hz
            .map(|r| format!(" | resampled to {r} Hz"))
            .unwrap_or_default()
    );
    out.push_str(&t.render());
    out.push_str("TOTAL: p99 over all clips' pooled per-joint per-sample errors; ns/pose = median of clips\n");
    if let Some(p) = &tt.peer {
        out.push_str(&format!(
            "vs ACL on {} matched clips ({} unmatched): raw {} vs ACL {}; bytes {} vs ACL {} \
             (ours/ACL {:.3}); max error {} vs ACL {:.4}; median ns/pose {:.0} vs ACL {:.0} (ACL's on another machine)\n",
            p.matched_clips,
            p.unmatched_clips,
            thousands(p.raw_bytes),
            thousands(p.peer_raw_bytes),
            thousands(p.compressed_bytes),
            thousands(p.peer_compressed_bytes),
            p.size_ratio_ours_over_peer,
            err(p.max_error),
            p.peer_max_error,
            p.ns_per_pose_median,
            p.peer_ns_per_pose_median
        ));
    }
    if let Some(r) = &run.runtime {
        out.push_str(&crate::runtime_bench::render(&run.codec, r));
    }
    out
}

/// Side-by-side totals of several codecs; size and speed ratios against the first codec are over
/// the clips both succeeded on.
pub fn render_summary(runs: &[Run]) -> String {
    let first: HashMap<&str, &ClipResult> =
        runs[0].clips.iter().map(|c| (c.name.as_str(), c)).collect();
    let mut t = Table::new(&[
        "codec",
        "clips",
        "failed",
        "bytes",
        "ratio",
        "max err",
        "p99 err",
        "ns/pose",
        "comp s",
        &format!("size/{}", runs[0].codec),
        &format!("ns/{}", runs[0].codec),
    ]);
    for r in runs {
        let (mut ours, mut base) = (0u64, 0u64);
        let mut speed = Vec::new();
        for c in &r.clips {
            if let Some(b) = first.get(c.name.as_str()) {
                ours += c.compressed_bytes;
                base += b.compressed_bytes;
                if b.ns_per_pose > 0.0 {
                    speed.push(c.ns_per_pose / b.ns_per_pose);
                }
            }
        }
        let tt = &r.totals;
        t.row(vec![
            r.codec.clone(),
            tt.clips.to_string(),
            tt.failed.to_string(),
            thousands(tt.compressed_bytes),
            format!("{:.2}", tt.ratio),
            err(tt.max_error),
            err(tt.p99_error),
            format!("{:.0}", tt.ns_per_pose_median),
            format!("{:.3}", tt.compress_seconds),
            if base > 0 {
                format!("{:.3}", ours as f64 / base as f64)
            } else {
                "-".into()
            },
            if speed.is_empty() {
                "-".into()
            } else {
                format!("{:.3}", measure::median(&mut speed))
            },
        ]);
    }
    format!("\nsummary (ratios against {} over clips both compressed; ns ratio = median of per-clip ratios)\n{}", runs[0].codec, t.render())
}

/// The failures of all runs: import failures once, then each codec's compression failures.
pub fn render_failures(load_failed: &[Failure], runs: &[Run]) -> String {
    let mut lines: Vec<String> = load_failed.iter().map(|f| f.error.clone()).collect();
    for r in runs {
        lines.extend(
            r.failed
                .iter()
                .filter(|f| f.codec.is_some())
                .map(|f| f.error.clone()),
        );
    }
    if lines.is_empty() {
        return String::new();
    }
    let mut out = format!("\nFAILED ({}):\n", lines.len());
    for l in lines {
        out.push_str("  ");
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// The JSON document for `--json`.
pub fn to_json(runs: &[Run]) -> Result<String, CliError> {
    let mut v = serde_json::to_value(&runs[0])?;
    if runs.len() > 1 {
        if let serde_json::Value::Object(m) = &mut v {
            m.insert("runs".into(), serde_json::to_value(runs)?);
        }
    }
    Ok(serde_json::to_string_pretty(&v)?)
}
