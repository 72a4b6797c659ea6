//! Scalar curves in the CLI: `bench` measures every curve file among its paths (Live Link Face
//! `.csv`, NumPy `.npy`, glTF `weights` channels) and `compress` compresses one. Each curve set is
//! compressed as a face-only clip, decoded at EVERY sample through the runtime decompressor, and
//! reported beside the plain segmented baseline ([`crate::curves_baseline`]) and, with
//! `--curve-peers`, ACL's figures (`../shared/peers/acl_curves.tsv`).

use crate::curves_baseline;
use crate::CliError;
use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::{AlignedBlob, CompressSettings};
use animcomp_import::curves::{is_curve_file, CurveSet};
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Curve options shared by `bench` and `compress`.
#[derive(Debug, Clone, clap::Args)]
pub struct CurveArgs {
    /// Absolute precision of every scalar curve (curve units).
    #[arg(long, default_value_t = 0.001, value_parser = crate::measure::positive_f32, value_name = "P")]
    pub curve_precision: f32,
    /// Precision in displacement units for morph-target curves with a known magnitude (glTF
    /// weights): each such curve gets the precision P / (its target's largest displacement).
    #[arg(long, value_parser = crate::measure::positive_f32, value_name = "P")]
    pub morph_position_precision: Option<f32>,
    /// ACL scalar-track results TSV (e.g. ../shared/peers/acl_curves.tsv): adds ACL's size
    /// per curve set, matched by path.
    #[arg(long, value_name = "FILE.tsv")]
    pub curve_peers: Option<PathBuf>,
}

/// One curve set's measurements.
#[derive(Debug, Clone, Serialize)]
pub struct CurveResult {
    /// Set name.
    pub name: String,
    /// File.
    pub path: String,
    /// Curves.
    pub curves: usize,
    /// Samples per curve.
    pub samples: usize,
    /// Sample rate (Hz).
    pub sample_rate: f32,
    /// 4 bytes per value.
    pub raw_bytes: u64,
    /// Our blob size (header included).
    pub compressed_bytes: u64,
    /// raw / compressed.
    pub ratio: f64,
    /// Largest absolute error over every sample of every curve (runtime decoder).
    pub max_error: f32,
    /// 99th percentile of all (sample, curve) absolute errors.
    pub p99_error: f32,
    /// Name of the curve with the largest error.
    pub worst_curve: String,
    /// Curves whose max error exceeds their precision (must be 0).
    pub curves_over_precision: usize,
    /// Plain segmented baseline bytes.
    pub baseline_bytes: u64,
    /// raw / baseline.
    pub baseline_ratio: f64,
    /// Baseline max error.
    pub baseline_max_error: f32,
    /// ACL bytes at this precision (from `--curve-peers`).
    pub acl_bytes: Option<u64>,
    /// What the importer did (resampling, holes filled).
    pub notes: Vec<String>,
}

/// Curve totals (added to `--json` totals).
#[derive(Debug, Clone, Default, Serialize)]
pub struct CurveTotals {
    /// Curve sets measured.
    pub curve_sets: usize,
    /// Curves.
    pub curves: usize,
    /// Raw bytes.
    pub curve_raw_bytes: u64,
    /// Our bytes.
    pub curve_compressed_bytes: u64,
    /// raw / ours.
    pub curve_ratio: f64,
    /// Max error over every set.
    pub curve_max_error: f32,
    /// Pooled p99 error.
    pub curve_p99_error: f32,
    /// Baseline bytes.
    pub curve_baseline_bytes: u64,
    /// raw / baseline.
    pub curve_baseline_ratio: f64,
    /// ACL bytes over the sets ACL figures exist for.
    pub curve_acl_bytes: Option<u64>,
    /// Raw bytes of those sets.
    pub curve_acl_raw_bytes: Option<u64>,
}

/// The curve benchmark's results.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CurveReport {
    /// Per set.
    pub sets: Vec<CurveResult>,
    /// Every set.
    pub totals: CurveTotals,
    /// The Live Link Face takes at 30 Hz (the issue-12 target group).
    pub llf_30hz_totals: CurveTotals,
    /// Files that failed: one line each.
    pub failed: Vec<String>,
}

/// The curve files (`.csv`, `.npy`) inside the folders of `paths`, sorted per folder (files given
/// by name are the caller's: `animcomp_import::collect_files` keeps them).
pub fn curve_files_in_folders(paths: &[PathBuf]) -> Vec<PathBuf> {
    fn walk(p: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(p) else { return };
        let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for e in entries {
            if e.is_dir() {
                walk(&e, out);
            } else if is_curve_file(&e) {
                out.push(e);
            }
        }
    }
    let mut out = Vec::new();
    paths
        .iter()
        .filter(|p| p.is_dir())
        .for_each(|p| walk(p, &mut out));
    out
}

/// Applies the precision arguments to a set's curves.
pub fn prepare(set: &mut CurveSet, a: &CurveArgs) {
    for c in &mut set.curves {
        c.precision = a.curve_precision;
    }
    if let Some(p) = a.morph_position_precision {
        animcomp::offline::curves::apply_position_precision(&mut set.curves, p);
    }
}

/// Compresses a set (as a face-only clip) into an aligned blob.
pub fn compress_set(set: &CurveSet, settings: &CompressSettings) -> Result<AlignedBlob, CliError> {
    let bytes = animcomp::compress_with_curves(&set.face_clip(), &set.curves, settings)
        .map_err(|e| CliError(format!("{}: {e}", set.name)))?;
    Ok(AlignedBlob::from_bytes(&bytes))
}

/// Every (sample, curve) absolute error through the runtime decoder, curve-major per sample.
pub fn errors(set: &CurveSet, blob: &AlignedBlob) -> Result<Vec<f32>, CliError> {
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default())?;
    let nc = set.curves.len();
    let mut v = vec![0.0f32; nc];
    let mut out = Vec::with_capacity(nc * set.num_samples);
    for i in 0..set.num_samples {
        d.seek_sample(i as u32);
        d.sample_curves(&mut v)?;
        out.extend(
            set.curves
                .iter()
                .zip(&v)
                .map(|(c, x)| (x - c.values[i]).abs()),
        );
    }
    Ok(out)
}

fn p99(errs: &mut [f32]) -> f32 {
    if errs.is_empty() {
        return 0.0;
    }
    errs.sort_by(f32::total_cmp);
    errs[((errs.len() - 1) as f64 * 0.99).round() as usize]
}

/// Measures one set.
pub fn measure_set(
    set: &CurveSet,
    settings: &CompressSettings,
    acl: Option<u64>,
) -> Result<(CurveResult, Vec<f32>), CliError> {
    let blob = compress_set(set, settings)?;
    let errs = errors(set, &blob)?;
    let nc = set.curves.len();
    let mut per_curve = vec![0.0f32; nc];
    errs.iter()
        .enumerate()
        .for_each(|(i, &e)| per_curve[i % nc] = per_curve[i % nc].max(e));
    let worst = (0..nc)
        .max_by(|&a, &b| per_curve[a].total_cmp(&per_curve[b]))
        .unwrap_or(0);
    let over = (0..nc)
        .filter(|&c| per_curve[c] > set.curves[c].precision)
        .count();
    let base = curves_baseline::measure(&set.curves);
    let raw = set.raw_bytes() as u64;
    let mut sorted = errs.clone();
    Ok((
        CurveResult {
            name: set.name.clone(),
            path: set.source.display().to_string(),
            curves: nc,
            samples: set.num_samples,
            sample_rate: set.sample_rate,
            raw_bytes: raw,
            compressed_bytes: blob.len() as u64,
            ratio: raw as f64 / blob.len() as f64,
            max_error: per_curve.iter().copied().fold(0.0, f32::max),
            p99_error: p99(&mut sorted),
            worst_curve: set
                .curves
                .get(worst)
                .map_or(String::new(), |c| c.name.clone()),
            curves_over_precision: over,
            baseline_bytes: base.bytes,
            baseline_ratio: raw as f64 / base.bytes.max(1) as f64,
            baseline_max_error: base.max_error,
            acl_bytes: acl,
            notes: set.notes.clone(),
        },
        errs,
    ))
}

fn totals(sets: &[&CurveResult], pooled: &mut [f32]) -> CurveTotals {
    let raw: u64 = sets.iter().map(|s| s.raw_bytes).sum();
    let ours: u64 = sets.iter().map(|s| s.compressed_bytes).sum();
    let base: u64 = sets.iter().map(|s| s.baseline_bytes).sum();
    let with_acl: Vec<_> = sets.iter().filter(|s| s.acl_bytes.is_some()).collect();
    let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    CurveTotals {
        curve_sets: sets.len(),
        curves: sets.iter().map(|s| s.curves).sum(),
        curve_raw_bytes: raw,
        curve_compressed_bytes: ours,
        curve_ratio: ratio(raw, ours),
        curve_max_error: sets.iter().map(|s| s.max_error).fold(0.0, f32::max),
        curve_p99_error: p99(pooled),
        curve_baseline_bytes: base,
        curve_baseline_ratio: ratio(raw, base),
        curve_acl_bytes: (!with_acl.is_empty())
            .then(|| with_acl.iter().filter_map(|s| s.acl_bytes).sum()),
        curve_acl_raw_bytes: (!with_acl.is_empty())
            .then(|| with_acl.iter().map(|s| s.raw_bytes).sum()),
    }
}

/// ACL bytes by TSV `file` key for this precision.
fn read_peers(path: &Path, precision: f32) -> Result<HashMap<String, u64>, CliError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| CliError(format!("{}: {e}", path.display())))?;
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let head: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    let want = format!("acl_bytes_p{precision}");
    let (Some(fc), Some(bc)) = (
        head.iter().position(|h| *h == "file"),
        head.iter().position(|h| *h == want),
    ) else {
        return Err(CliError(format!(
            "{}: no `file` and `{want}` columns",
            path.display()
        )));
    };
    Ok(lines
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Some((f.get(fc)?.to_string(), f.get(bc)?.parse().ok()?))
        })
        .collect())
}

/// The peer key a set matches: `file` a suffix of its path, `#animation` its glTF animation.
fn peer_for(peers: &HashMap<String, u64>, set: &CurveSet) -> Option<u64> {
    let path = set.source.to_string_lossy().replace('\\', "/");
    peers.iter().find_map(|(k, &v)| {
        let (file, anim) = k
            .split_once('#')
            .map_or((k.as_str(), None), |(f, a)| (f, Some(a)));
        let anim_ok = match anim {
            Some(a) => set.name.ends_with(&format!(":{a}")),
            None => true,
        };
        (path.ends_with(file) && anim_ok && !k.contains('[')).then_some(v)
    })
}

/// Runs the curve benchmark over the curve sets the inputs gave (`failed`: the curve files that
/// could not be read, one line each).
pub fn bench(
    mut sets: Vec<CurveSet>,
    failed: Vec<String>,
    a: &CurveArgs,
) -> Result<CurveReport, CliError> {
    let peers = a
        .curve_peers
        .as_deref()
        .map(|p| read_peers(p, a.curve_precision))
        .transpose()?;
    let settings = CompressSettings::default();
    let mut results = Vec::new();
    let mut pooled = Vec::new();
    let mut llf_pooled = Vec::new();
    let mut failed = failed;
    for set in &mut sets {
        prepare(set, a);
        let acl = peers.as_ref().and_then(|p| peer_for(p, set));
        match measure_set(set, &settings, acl) {
            Ok((r, errs)) => {
                if is_llf_30(&r) {
                    llf_pooled.extend_from_slice(&errs);
                }
                pooled.extend(errs);
                results.push(r);
            }
            Err(e) => failed.push(e.0),
        }
    }
    let all: Vec<&CurveResult> = results.iter().collect();
    let llf: Vec<&CurveResult> = results.iter().filter(|r| is_llf_30(r)).collect();
    Ok(CurveReport {
        totals: totals(&all, &mut pooled),
        llf_30hz_totals: totals(&llf, &mut llf_pooled),
        sets: results,
        failed,
    })
}

fn is_llf_30(r: &CurveResult) -> bool {
    r.path.to_ascii_lowercase().ends_with(".csv") && (r.sample_rate - 30.0).abs() < 0.5
}

/// The printed table.
pub fn render(r: &CurveReport, precision: f32) -> String {
    let mut s = format!(
        "\nscalar curves (precision {precision}; error at every sample through the runtime decoder; \
         raw = 4 bytes per value; baseline = plain 16-sample segmented scheme)\n"
    );
    s += &format!(
        "{:<44} {:>6} {:>6} {:>6} {:>9} {:>9} {:>7} {:>9} {:>7} {:>9} {:>7} {:>9} {:>9}  worst curve\n",
        "curve set", "curves", "samples", "Hz", "raw", "ours", "ratio", "baseline", "ratio", "ACL", "ratio", "max err", "p99 err"
    );
    let acl = |b: Option<u64>, raw: u64| match b {
        Some(b) => (b.to_string(), format!("{:.2}", raw as f64 / b as f64)),
        None => ("-".into(), "-".into()),
    };
    for x in &r.sets {
        let (ab, ar) = acl(x.acl_bytes, x.raw_bytes);
        s += &format!(
            "{:<44} {:>6} {:>6} {:>6.2} {:>9} {:>9} {:>7.2} {:>9} {:>7.2} {:>9} {:>7} {:>9.6} {:>9.6}  {}\n",
            x.name, x.curves, x.samples, x.sample_rate, x.raw_bytes, x.compressed_bytes, x.ratio,
            x.baseline_bytes, x.baseline_ratio, ab, ar, x.max_error, x.p99_error, x.worst_curve
        );
        for n in &x.notes {
            s += &format!("    note: {n}\n");
        }
    }
    for (label, t) in [
        ("TOTAL", &r.totals),
        ("TOTAL Live Link Face 30 Hz", &r.llf_30hz_totals),
    ] {
        if t.curve_sets == 0 {
            continue;
        }
        let (ab, ar) = acl(t.curve_acl_bytes, t.curve_acl_raw_bytes.unwrap_or(0));
        s += &format!(
            "{:<44} {:>6} {:>6} {:>6} {:>9} {:>9} {:>7.2} {:>9} {:>7.2} {:>9} {:>7} {:>9.6} {:>9.6}\n",
            label, t.curves, "", "", t.curve_raw_bytes, t.curve_compressed_bytes, t.curve_ratio,
            t.curve_baseline_bytes, t.curve_baseline_ratio, ab, ar, t.curve_max_error, t.curve_p99_error
        );
    }
    for f in &r.failed {
        s += &format!("failed: {f}\n");
    }
    s
}

/// Adds the curve results to a bench JSON document: `curve_sets` at the top level, the totals'
/// fields inside `totals` (created when absent).
pub fn add_to_json(v: &mut serde_json::Value, r: &CurveReport) -> Result<(), CliError> {
    let serde_json::Value::Object(m) = v else {
        return Ok(());
    };
    m.insert("curve_sets".into(), serde_json::to_value(&r.sets)?);
    m.insert(
        "curve_llf_30hz_totals".into(),
        serde_json::to_value(&r.llf_30hz_totals)?,
    );
    let t = m.entry("totals").or_insert_with(|| serde_json::json!({}));
    if let (serde_json::Value::Object(t), serde_json::Value::Object(c)) =
        (t, serde_json::to_value(&r.totals)?)
    {
        t.extend(c);
    }
    Ok(())
}

/// Adds the curve results to a bench JSON text (see [`add_to_json`]).
pub fn json_with_curves(text: &str, r: &CurveReport) -> Result<String, CliError> {
    let mut v: serde_json::Value = serde_json::from_str(text)?;
    add_to_json(&mut v, r)?;
    Ok(serde_json::to_string_pretty(&v)?)
}

/// `bench` with curve inputs only: prints the curve table, writes `{"curve_sets", "totals"}`.
pub fn finish_curves_only(
    r: &CurveReport,
    precision: f32,
    json: Option<&Path>,
) -> Result<std::process::ExitCode, CliError> {
    print!("{}", render(r, precision));
    if let Some(path) = json {
        let text = json_with_curves("{}", r)?;
        std::fs::write(path, text)
            .map_err(|e| CliError(format!("{}: cannot write: {e}", path.display())))?;
        println!("wrote {}", path.display());
    }
    let over: usize = r.sets.iter().map(|s| s.curves_over_precision).sum();
    if over > 0 {
        return Err(CliError(format!("{over} curves exceed their precision")));
    }
    Ok(std::process::ExitCode::SUCCESS)
}

/// `animcomp compress` on a curve file (or a glTF with weights and no joints): writes the blob
/// of curve set `set` (prepared with the curve options) and prints its curve figures.
pub fn compress_file(set: &CurveSet, out: &Path) -> Result<std::process::ExitCode, CliError> {
    let (r, _) = measure_set(set, &CompressSettings::default(), None)?;
    let blob = compress_set(set, &CompressSettings::default())?;
    std::fs::write(out, blob.as_bytes())
        .map_err(|e| CliError(format!("{}: cannot write: {e}", out.display())))?;
    println!("wrote {}", out.display());
    for n in &r.notes {
        println!("note: {n}");
    }
    println!(
        "curves {}: {} curves, {} samples at {} Hz, precision {}",
        r.name,
        r.curves,
        r.samples,
        r.sample_rate,
        match set.curves.first() {
            Some(c) if set.curves.iter().all(|x| x.precision == c.precision) => {
                c.precision.to_string()
            }
            _ => "per curve".to_string(),
        }
    );
    println!(
        "size {} bytes (raw {} bytes), ratio {:.2} : 1",
        r.compressed_bytes, r.raw_bytes, r.ratio
    );
    println!(
        "plain segmented baseline {} bytes ({:.2} : 1): its coded curve data alone, without the \
         blob's header, curve descriptors and segment table, so not a file size",
        r.baseline_bytes, r.baseline_ratio
    );
    println!(
        "max error {:.6} (curve {}), p99 error {:.6}",
        r.max_error, r.worst_curve, r.p99_error
    );
    Ok(std::process::ExitCode::SUCCESS)
}
