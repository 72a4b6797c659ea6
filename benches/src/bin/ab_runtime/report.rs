//! Results of `ab_runtime`: per clip, per set (medians over clips), printed as tables, a
//! one-line summary, and JSON.

use animcomp_bench::timing::median;
use serde::Serialize;

/// Every figure of one clip (ns unless named otherwise).
#[derive(Debug, Clone, Serialize)]
pub struct ClipRow {
    /// Clip name.
    pub name: String,
    /// Joints.
    pub joints: usize,
    /// Samples.
    pub samples: usize,
    /// Baseline blob size.
    pub base_bytes: usize,
    /// New blob size.
    pub new_bytes: usize,
    /// Warm ns per pose, baseline.
    pub warm_base_ns: f64,
    /// Warm ns per pose, new.
    pub warm_new_ns: f64,
    /// Cold ns per pose, baseline.
    pub cold_base_ns: f64,
    /// Cold ns per pose, new.
    pub cold_new_ns: f64,
    /// Bytes of the new blob in the format version 4 prototype layout.
    pub proto_bytes: Option<usize>,
    /// Warm ns per pose of the prototype (new blob converted, Rust API).
    pub warm_proto_ns: Option<f64>,
    /// Cold ns per pose of the prototype.
    pub cold_proto_ns: Option<f64>,
    /// Every tenth joint, ns per call: baseline, new, prototype (interleaved).
    pub even10_3_ns: Option<[f64; 3]>,
    /// Baseline `animcomp_decompressor_init`.
    pub init_base_ns: f64,
    /// New `animcomp_decompressor_init`.
    pub init_new_ns: f64,
    /// New `animcomp_blob_open`.
    pub open_new_ns: Option<f64>,
    /// New `animcomp_decompressor_bind`.
    pub bind_new_ns: Option<f64>,
    /// New `animcomp_sample_pose` in the subset rounds (warm).
    pub full_new_ns: Option<f64>,
    /// New `animcomp_sample_joints`, every joint.
    pub all_joints_new_ns: Option<f64>,
    /// New `animcomp_sample_joints`, 10 % of the joints evenly spread.
    pub even10_new_ns: Option<f64>,
    /// New `animcomp_sample_joints`, 10 % of the joints contiguous.
    pub contiguous10_new_ns: Option<f64>,
    /// New `animcomp_sample_joints`, every joint, rotations only.
    pub rotation_only_new_ns: Option<f64>,
    /// Whether both 10 % subsets wrote `sample_pose`'s floats for those joints (16 times).
    pub subset_matches_pose: Option<bool>,
    /// Hot `memcpy` of a raw pose (joints x 10 floats).
    pub memcpy_ns: f64,
    /// Largest float difference between the two builds' poses (rotations up to sign).
    pub max_pose_difference: f32,
}

/// Medians over the clips of a set.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    /// Clips measured.
    pub clips: usize,
    /// Median of per-clip warm ratios base / new (above 1: new is faster).
    pub warm_ratio: f64,
    /// Median of per-clip cold ratios base / new.
    pub cold_ratio: f64,
    /// Median warm ns per pose, baseline.
    pub warm_base_ns: f64,
    /// Median warm ns per pose, new.
    pub warm_new_ns: f64,
    /// Median cold ns per pose, baseline.
    pub cold_base_ns: f64,
    /// Median cold ns per pose, new.
    pub cold_new_ns: f64,
    /// Median baseline `animcomp_decompressor_init`.
    pub init_base_ns: f64,
    /// Median new `animcomp_decompressor_init`.
    pub init_new_ns: f64,
    /// Median new `animcomp_blob_open`.
    pub open_new_ns: Option<f64>,
    /// Median new `animcomp_decompressor_bind`.
    pub bind_new_ns: Option<f64>,
    /// Median per-clip ratio of 10 % evenly spread joints to the whole pose.
    pub even10_over_full: Option<f64>,
    /// Median per-clip ratio of 10 % contiguous joints to the whole pose.
    pub contiguous10_over_full: Option<f64>,
    /// Median per-clip ratio of rotation-only to the whole pose.
    pub rotation_only_over_full: Option<f64>,
    /// Clips whose 10 % subset did not equal the whole pose's floats for those joints.
    pub subset_mismatches: usize,
    /// Median hot `memcpy` of a raw pose.
    pub memcpy_ns: f64,
    /// Median per-clip ratio of new warm ns to memcpy ns.
    pub warm_new_over_memcpy: f64,
    /// Sum of baseline blob sizes.
    pub base_bytes: usize,
    /// Sum of new blob sizes.
    pub new_bytes: usize,
    /// Largest pose difference between the builds over the set.
    pub max_pose_difference: f32,
    /// Median per-clip warm ratio base / prototype.
    pub warm_proto_ratio: Option<f64>,
    /// Median per-clip cold ratio base / prototype.
    pub cold_proto_ratio: Option<f64>,
    /// Median prototype warm ns per pose.
    pub warm_proto_ns: Option<f64>,
    /// Median prototype cold ns per pose.
    pub cold_proto_ns: Option<f64>,
    /// Sum of prototype sizes and of the new blob sizes of the same clips.
    pub proto_bytes: Option<(usize, usize)>,
    /// Clips whose prototype poses were not the new build's bit for bit.
    pub proto_mismatches: usize,
    /// Median every-tenth-joint ns per call: baseline, new, prototype.
    pub even10_3_ns: Option<[f64; 3]>,
}

/// One set's report.
#[derive(Debug, Clone, Serialize)]
pub struct SetReport {
    /// The folder.
    pub set: String,
    /// Baseline library path and blob format version.
    pub base: String,
    /// New library path and blob format version.
    pub new: String,
    /// Clips that could not be measured, with why.
    pub skipped: Vec<String>,
    /// Medians.
    pub summary: Summary,
    /// Per clip.
    pub clips: Vec<ClipRow>,
    /// The playback pattern, per instance count (and with a flush per frame).
    pub playback: Vec<crate::playback::PlaybackRow>,
    /// Warm random access of the new build on the first clips without and with a cache attached
    /// (ns per pose, medians over those clips).
    pub random_cached: Option<(f64, f64)>,
}

fn med(rows: &[ClipRow], f: impl Fn(&ClipRow) -> Option<f64>) -> Option<f64> {
    let mut v: Vec<f64> = rows.iter().filter_map(f).collect();
    (!v.is_empty()).then(|| median(&mut v))
}

/// Medians over `rows`.
pub fn summarise(rows: &[ClipRow], proto_mismatches: usize) -> Summary {
    let m = |f: &dyn Fn(&ClipRow) -> f64| med(rows, |r| Some(f(r))).unwrap_or(0.0);
    Summary {
        clips: rows.len(),
        warm_ratio: m(&|r| r.warm_base_ns / r.warm_new_ns),
        cold_ratio: m(&|r| r.cold_base_ns / r.cold_new_ns),
        warm_base_ns: m(&|r| r.warm_base_ns),
        warm_new_ns: m(&|r| r.warm_new_ns),
        cold_base_ns: m(&|r| r.cold_base_ns),
        cold_new_ns: m(&|r| r.cold_new_ns),
        init_base_ns: m(&|r| r.init_base_ns),
        init_new_ns: m(&|r| r.init_new_ns),
        open_new_ns: med(rows, |r| r.open_new_ns),
        bind_new_ns: med(rows, |r| r.bind_new_ns),
        even10_over_full: med(rows, |r| Some(r.even10_new_ns? / r.full_new_ns?)),
        contiguous10_over_full: med(rows, |r| Some(r.contiguous10_new_ns? / r.full_new_ns?)),
        rotation_only_over_full: med(rows, |r| Some(r.rotation_only_new_ns? / r.full_new_ns?)),
        subset_mismatches: rows
            .iter()
            .filter(|r| r.subset_matches_pose == Some(false))
            .count(),
        memcpy_ns: m(&|r| r.memcpy_ns),
        warm_new_over_memcpy: m(&|r| r.warm_new_ns / r.memcpy_ns),
        base_bytes: rows.iter().map(|r| r.base_bytes).sum(),
        new_bytes: rows.iter().map(|r| r.new_bytes).sum(),
        max_pose_difference: rows
            .iter()
            .map(|r| r.max_pose_difference)
            .fold(0.0, f32::max),
        warm_proto_ratio: med(rows, |r| Some(r.warm_base_ns / r.warm_proto_ns?)),
        cold_proto_ratio: med(rows, |r| Some(r.cold_base_ns / r.cold_proto_ns?)),
        warm_proto_ns: med(rows, |r| r.warm_proto_ns),
        cold_proto_ns: med(rows, |r| r.cold_proto_ns),
        proto_bytes: rows.iter().any(|r| r.proto_bytes.is_some()).then(|| {
            rows.iter()
                .filter_map(|r| Some((r.proto_bytes?, r.new_bytes)))
                .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
        }),
        proto_mismatches,
        even10_3_ns: rows.iter().any(|r| r.even10_3_ns.is_some()).then(|| {
            [0, 1, 2].map(|k| {
                med(rows, |r| Some(r.even10_3_ns?[k]).filter(|x| !x.is_nan())).unwrap_or(f64::NAN)
            })
        }),
    }
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |x| format!("{x:.digits$}"))
}

/// A text table: header, then rows, columns right-aligned (the first left-aligned).
fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut w: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            w[i] = w[i].max(c.len());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i == 0 {
                s.push_str(&format!("{c:<width$}", width = w[0]));
            } else {
                s.push_str(&format!("  {c:>width$}", width = w[i]));
            }
        }
        s.push('\n');
        s
    };
    let mut out = line(header.to_vec());
    for r in rows {
        out.push_str(&line(r.iter().map(|s| s.as_str()).collect()));
    }
    out
}

/// The per-clip table.
pub fn render_clips(rows: &[ClipRow]) -> String {
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.name.clone(),
                r.joints.to_string(),
                r.base_bytes.to_string(),
                r.new_bytes.to_string(),
                format!("{:.0}", r.warm_base_ns),
                format!("{:.0}", r.warm_new_ns),
                format!("{:.2}", r.warm_base_ns / r.warm_new_ns),
                format!("{:.0}", r.cold_base_ns),
                format!("{:.0}", r.cold_new_ns),
                format!("{:.2}", r.cold_base_ns / r.cold_new_ns),
                format!("{:.0}", r.init_base_ns),
                opt(r.bind_new_ns, 1),
                opt(r.even10_new_ns, 0),
                format!("{:.0}", r.memcpy_ns),
            ]
        })
        .collect();
    table(
        &[
            "clip",
            "joints",
            "base B",
            "new B",
            "warm base",
            "warm new",
            "ratio",
            "cold base",
            "cold new",
            "ratio",
            "init base",
            "bind new",
            "10% new",
            "memcpy",
        ],
        &body,
    )
}

/// The set's summary table (medians over clips; ratios are medians of per-clip ratios).
pub fn render_summary(rep: &SetReport) -> String {
    let s = &rep.summary;
    let rows = vec![
        vec![
            "blob bytes (sum)".into(),
            s.base_bytes.to_string(),
            s.new_bytes.to_string(),
            format!(
                "new/base {:.3}",
                s.new_bytes as f64 / s.base_bytes.max(1) as f64
            ),
        ],
        vec![
            "warm ns/pose".into(),
            format!("{:.0}", s.warm_base_ns),
            format!("{:.0}", s.warm_new_ns),
            format!("base/new {:.2}x", s.warm_ratio),
        ],
        vec![
            "cold ns/pose".into(),
            format!("{:.0}", s.cold_base_ns),
            format!("{:.0}", s.cold_new_ns),
            format!("base/new {:.2}x", s.cold_ratio),
        ],
        vec![
            "decompressor_init ns".into(),
            format!("{:.0}", s.init_base_ns),
            format!("{:.0}", s.init_new_ns),
            String::new(),
        ],
        vec![
            "blob_open ns".into(),
            "-".into(),
            opt(s.open_new_ns, 0),
            String::new(),
        ],
        vec![
            "decompressor_bind ns".into(),
            "-".into(),
            opt(s.bind_new_ns, 1),
            String::new(),
        ],
        vec![
            "10% joints (even) / full".into(),
            "-".into(),
            opt(s.even10_over_full, 3),
            String::new(),
        ],
        vec![
            "10% joints (contiguous) / full".into(),
            "-".into(),
            opt(s.contiguous10_over_full, 3),
            String::new(),
        ],
        vec![
            "rotation only / full".into(),
            "-".into(),
            opt(s.rotation_only_over_full, 3),
            String::new(),
        ],
        vec![
            "memcpy raw pose ns".into(),
            format!("{:.0}", s.memcpy_ns),
            format!("{:.0}", s.memcpy_ns),
            format!("new warm/memcpy {:.1}", s.warm_new_over_memcpy),
        ],
    ];
    let mut out = format!(
        "\n{} ({} clips)\n  base: {}\n  new:  {}\n",
        rep.set, s.clips, rep.base, rep.new
    );
    out.push_str(&table(&["", "base", "new", "ratio"], &rows));
    if s.subset_mismatches > 0 {
        out.push_str(&format!(
            "WARNING: on {} clips animcomp_sample_joints did not write the floats animcomp_sample_pose writes\n",
            s.subset_mismatches
        ));
    }
    out.push_str(&format!(
        "max |base - new| pose float difference over the set: {:.4}\n",
        s.max_pose_difference
    ));
    if let Some((p, n)) = s.proto_bytes {
        out.push_str(&format!(
            "v3 prototype (new blobs converted, widest ISA or AB_PROTO_ISA, Rust API): warm {} ns base/proto {}x, cold {} ns base/proto {}x; bytes proto/new {:.4}; clips not bit for bit the new build's: {}\n",
            opt(s.warm_proto_ns, 0),
            opt(s.warm_proto_ratio, 2),
            opt(s.cold_proto_ns, 0),
            opt(s.cold_proto_ratio, 2),
            p as f64 / n.max(1) as f64,
            s.proto_mismatches
        ));
    }
    if let Some([b, n, p]) = s.even10_3_ns {
        out.push_str(&format!(
            "every tenth joint, ns per call (medians): base {b:.0}, new {n:.0} (base/new {:.2}x), v3 prototype {p:.0} (base/proto {:.2}x)\n",
            b / n,
            b / p
        ));
    }
    if !rep.playback.is_empty() {
        out.push_str(&render_playback(rep));
    }
    for sk in &rep.skipped {
        out.push_str(&format!("skipped: {sk}\n"));
    }
    out
}

/// The playback table of a set: ns per pose and base/new ratios, without and with the cache.
fn render_playback(rep: &SetReport) -> String {
    let rows: Vec<Vec<String>> = rep
        .playback
        .iter()
        .map(|p| {
            vec![
                format!(
                    "playback {} instances{}",
                    p.instances,
                    if p.flush { ", flush/frame" } else { "" }
                ),
                format!("{:.0}", p.base_ns),
                format!("{:.0}", p.new_ns),
                p.new_cached_ns.map_or("-".into(), |c| format!("{c:.0}")),
                format!("{:.2}x", p.base_ns / p.new_ns),
                p.new_cached_ns
                    .map_or("-".into(), |c| format!("{:.2}x", p.base_ns / c)),
                match (p.base_cached_ns, p.new_cached_ns) {
                    (Some(b), Some(c)) => format!("{b:.0} ({:.2}x)", b / c),
                    _ => "-".into(),
                },
                p.proto_ns
                    .map_or("-".into(), |x| format!("{x:.0} ({:.2}x)", p.base_ns / x)),
                p.proto_cached_ns
                    .map_or("-".into(), |x| format!("{x:.0} ({:.2}x)", p.base_ns / x)),
            ]
        })
        .collect();
    let mut out = table(
        &[
            "ns/pose",
            "base",
            "new",
            "new+cache",
            "base/new",
            "base/new+cache",
            "base+cache (vs new+cache)",
            "v3 proto (base/proto)",
            "v3 proto+cache (base/it)",
        ],
        &rows,
    );
    if let Some((plain, cached)) = rep.random_cached {
        out.push_str(&format!(
            "random access, new build: {plain:.0} ns without a cache, {cached:.0} ns with one ({:.3}x)\n",
            plain / cached
        ));
    }
    out
}

/// The playback ratios of a set for its one-line summary.
fn playback_line(rep: &SetReport) -> String {
    rep.playback
        .iter()
        .map(|p| {
            format!(
                ", playback{}{} = {:.2}x",
                p.instances,
                if p.flush { "f" } else { "" },
                p.base_ns / p.new_cached_ns.unwrap_or(p.new_ns)
            )
        })
        .collect()
}

/// The one-line summary of a set.
pub fn one_line(rep: &SetReport) -> String {
    let s = &rep.summary;
    format!(
        "{}: warm base/new = {:.2}x, cold = {:.2}x, bind = {} ns (base {:.0} ns), subset10% = {} of full, memcpy = {:.0} ns, size new/base = {:.3}{}",
        rep.set,
        s.warm_ratio,
        s.cold_ratio,
        s.bind_new_ns.map_or_else(|| format!("{:.0} (init)", s.init_new_ns), |b| format!("{b:.1}")),
        s.init_base_ns,
        opt(s.even10_over_full, 2),
        s.memcpy_ns,
        s.new_bytes as f64 / s.base_bytes.max(1) as f64,
        playback_line(rep),
    )
}
