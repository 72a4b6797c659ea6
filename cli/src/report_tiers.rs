//! `animcomp report` of a resident blob (docs/tiers.md): each fidelity (the resident blob alone,
//! with level 1, with every level) measured in float64 (`animcomp_import::judge64`, as
//! `tiers build` measures them), printed as a table, drawn as the error over time of each
//! fidelity, and the poses each fidelity decodes at the sample where the resident blob errs most,
//! side by side (joints and bones in object space, seen along the clip's z axis).
//!
//! The tier blobs are read beside the resident blob, named as `tiers build` writes them:
//! `<name>.tier1`, `<name>.tier2` for `<name>.blob`.

use crate::svg::{ticks, Svg};
use crate::table::{thousands, Table};
use crate::CliError;
use animcomp::decompress::{DecompressOptions, Decompressor, OpenBlob, TierSet};
use animcomp::math::{Transform, FLOATS_PER_JOINT};
use animcomp::{AlignedBlob, RawClip};
use animcomp_import::judge64::{max_p99, Reference};
use std::path::{Path, PathBuf};

/// One fidelity as measured.
pub struct Fidelity {
    /// "resident", "+ level 1", "+ level 2".
    pub label: String,
    /// The resident blob plus the tiers attached.
    pub bytes: usize,
    pub max: f64,
    pub p99: f64,
    /// The largest error over the joints at each sample.
    pub per_sample: Vec<f64>,
    /// Object-space joint positions at [`TierView::sample`].
    pub pose: Vec<[f32; 3]>,
}

/// What the tiers section shows.
pub struct TierView {
    pub fidelities: Vec<Fidelity>,
    /// The sample the poses are drawn at (the resident blob's worst).
    pub sample: usize,
    /// Levels of the set, and tier files not found beside the blob.
    pub levels: u8,
    pub missing: Vec<PathBuf>,
}

/// The tier files of resident blob `blob_path` with `levels` levels: those found, in level order
/// (stopping at the first missing one), and the missing ones.
pub fn tier_files(blob_path: &Path, levels: u8) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let (mut found, mut missing) = (Vec::new(), Vec::new());
    for l in 1..=levels {
        let p = blob_path.with_extension(format!("tier{l}"));
        if p.is_file() && missing.is_empty() {
            found.push(p);
        } else {
            missing.push(p);
        }
    }
    (found, missing)
}

/// Object-space positions of a local pose.
fn positions(clip: &RawClip, local: &[Transform]) -> Vec<[f32; 3]> {
    let mut obj: Vec<Transform> = Vec::with_capacity(local.len());
    for (j, l) in local.iter().enumerate() {
        let o = match clip.skeleton.joints[j].parent {
            Some(p) => Transform::mul(&obj[p as usize], l),
            None => *l,
        };
        obj.push(o);
    }
    obj.iter().map(|o| o.translation.to_array()).collect()
}

/// Measures every fidelity of `resident` with `tiers` (level order) against `clip`.
pub fn measure(
    clip: &RawClip,
    resident: &AlignedBlob,
    tiers: &[PathBuf],
    levels: u8,
    missing: Vec<PathBuf>,
) -> Result<TierView, CliError> {
    let tier_blobs = tiers
        .iter()
        .map(|p| {
            std::fs::read(p)
                .map(|b| AlignedBlob::from_bytes(&b))
                .map_err(|e| CliError(format!("{}: cannot read: {e}", p.display())))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let opts = DecompressOptions::default();
    let open = OpenBlob::open(resident.as_bytes(), &opts).map_err(|e| CliError(e.to_string()))?;
    let set = TierSet::new(&open).map_err(|e| CliError(e.to_string()))?;
    let judge = Reference::new(clip);
    let nj = clip.num_joints();
    let names = ["resident", "+ level 1", "+ level 2"];
    let mut fids = Vec::new();
    let mut bytes = resident.len();
    for k in 0..=tier_blobs.len() {
        if k > 0 {
            set.attach(tier_blobs[k - 1].as_bytes()).map_err(|e| {
                CliError(format!("{}: does not attach: {e}", tiers[k - 1].display()))
            })?;
            bytes += tier_blobs[k - 1].len();
        }
        let mut d = Decompressor::bind_tiers(&set);
        let mut errs = judge
            .errors_of(&mut d)
            .map_err(|e| CliError(e.to_string()))?;
        let per_sample: Vec<f64> = errs
            .chunks(nj)
            .map(|c| c.iter().copied().fold(0.0, f64::max))
            .collect();
        let (max, p99) = max_p99(&mut errs);
        fids.push(Fidelity {
            label: names[k].to_string(),
            bytes,
            max,
            p99,
            per_sample,
            pose: Vec::new(),
        });
    }
    // The poses, each fidelity attached again on a set of its own.
    let sample = fids[0]
        .per_sample
        .iter()
        .enumerate()
        .fold(
            (0, -1.0),
            |(bi, be), (i, &e)| if e > be { (i, e) } else { (bi, be) },
        )
        .0;
    let mut floats = vec![0.0f32; nj * FLOATS_PER_JOINT];
    let set = TierSet::new(&open).map_err(|e| CliError(e.to_string()))?;
    for (k, f) in fids.iter_mut().enumerate() {
        if k > 0 {
            set.attach(tier_blobs[k - 1].as_bytes())
                .map_err(|e| CliError(e.to_string()))?;
        }
        let mut d = Decompressor::bind_tiers(&set);
        d.seek_sample(sample.min(clip.num_samples.saturating_sub(1)) as u32);
        d.sample_pose(&mut floats, FLOATS_PER_JOINT)
            .map_err(|e| CliError(e.to_string()))?;
        let local: Vec<Transform> = floats
            .chunks(FLOATS_PER_JOINT)
            .map(Transform::read_from)
            .collect();
        f.pose = positions(clip, &local);
    }
    Ok(TierView {
        fidelities: fids,
        sample,
        levels,
        missing,
    })
}

/// The table `report` prints.
pub fn table(v: &TierView) -> String {
    let full = v.fidelities.last().map_or(1, |f| f.bytes);
    let mut t = Table::new(&[
        "fidelity",
        "bytes",
        "of all tiers",
        "max error",
        "p99 error",
    ]);
    for f in &v.fidelities {
        t.row(vec![
            f.label.clone(),
            thousands(f.bytes as u64),
            format!("{:.3}", f.bytes as f64 / full.max(1) as f64),
            format!("{:.5}", f.max),
            format!("{:.5}", f.p99),
        ]);
    }
    let mut s = format!(
        "tiers: {} level{}, errors in float64 over every joint and sample\n",
        v.levels,
        if v.levels == 1 { "" } else { "s" }
    );
    s += &t.render();
    for m in &v.missing {
        s += &format!(
            "not found: {} (fidelities with it not measured)\n",
            m.display()
        );
    }
    s
}

const COLORS: [&str; 3] = ["#d62728", "#ff7f0e", "#1f77b4"];

/// Height of the section [`draw`] adds.
pub const HEIGHT: f64 = 760.0;

/// Draws the tiers section at `y0` of a document `width` wide: each fidelity's error over time
/// (a chart `plot_w` wide from `left`), then the poses.
#[allow(clippy::too_many_arguments)]
pub fn draw(
    s: &mut Svg,
    v: &TierView,
    clip: &RawClip,
    precision: f32,
    y0: f64,
    left: f64,
    plot_w: f64,
    width: f64,
) {
    let (plot_h, top_y) = (260.0, y0 + 40.0);
    let worst = v
        .fidelities
        .iter()
        .map(|f| f.max)
        .filter(|e| e.is_finite())
        .fold(precision as f64, f64::max);
    let y_max = ticks(worst * 1.05).last().copied().unwrap_or(1.0);
    let duration = clip.duration().max(1e-6) as f64;
    let x_of = |t: f64| left + plot_w * t / duration;
    let y_of = |e: f64| top_y + plot_h * (1.0 - (e.min(y_max) / y_max));
    s.text(
        left,
        y0 + 24.0,
        12.0,
        "start",
        "each fidelity's largest error over the joints, over time (float64, clip units)",
    );
    s.time_plot_frame((left, top_y), (plot_w, plot_h), y_max, duration);
    for (k, f) in v.fidelities.iter().enumerate().rev() {
        let pts: Vec<(f64, f64)> = f
            .per_sample
            .iter()
            .enumerate()
            .map(|(i, &e)| {
                let e = if e.is_finite() { e } else { y_max };
                (x_of(i as f64 / clip.sample_rate as f64), y_of(e))
            })
            .collect();
        s.polyline(&pts, COLORS[k % 3], 1.3);
        // Two lines an entry: the legend column is narrower than one.
        let ly = top_y + 14.0 + k as f64 * 32.0;
        s.line(
            (left + plot_w + 12.0, ly - 4.0),
            (left + plot_w + 32.0, ly - 4.0),
            COLORS[k % 3],
            3.0,
            None,
        );
        let at = left + plot_w + 38.0;
        let bytes = format!("{} ({} B)", f.label, thousands(f.bytes as u64));
        s.text(at, ly, 11.0, "start", &bytes);
        let errors = format!("max {:.4}, p99 {:.4}", f.max, f.p99);
        s.text(at, ly + 14.0, 11.0, "start", &errors);
    }
    let py = y_of(precision as f64);
    s.line((left, py), (left + plot_w, py), "#d00", 1.5, Some("6 4"));

    // The poses, side by side, one scale.
    let py0 = top_y + plot_h + 60.0;
    let ph = HEIGHT - (py0 - y0) - 20.0;
    s.text(
        left,
        py0 - 10.0,
        12.0,
        "start",
        &format!(
            "pose at sample {} ({:.3} s), where the resident blob errs most: each fidelity \
             (object space, x right, y up)",
            v.sample,
            v.sample as f64 / clip.sample_rate as f64
        ),
    );
    let all: Vec<[f32; 3]> = v
        .fidelities
        .iter()
        .flat_map(|f| f.pose.iter().copied())
        .filter(|p| p.iter().all(|c| c.is_finite()))
        .collect();
    if all.is_empty() {
        return;
    }
    let (mut lo, mut hi) = ([f32::MAX; 2], [f32::MIN; 2]);
    for p in &all {
        for c in 0..2 {
            lo[c] = lo[c].min(p[c]);
            hi[c] = hi[c].max(p[c]);
        }
    }
    let n = v.fidelities.len() as f64;
    let pw = (width - left - 10.0) / n;
    let span = ((hi[0] - lo[0]) as f64 / (pw - 40.0))
        .max((hi[1] - lo[1]) as f64 / (ph - 40.0))
        .max(1e-9);
    for (k, f) in v.fidelities.iter().enumerate() {
        let x0 = left + k as f64 * pw;
        s.rect(x0, py0, pw - 10.0, ph, "#fafafa", Some("#999"));
        s.text(x0 + 8.0, py0 + 16.0, 11.0, "start", &f.label);
        let at = |p: &[f32; 3]| {
            (
                x0 + 20.0 + (p[0] - lo[0]) as f64 / span,
                py0 + ph - 20.0 - (p[1] - lo[1]) as f64 / span,
            )
        };
        for (j, joint) in clip.skeleton.joints.iter().enumerate() {
            if let Some(p) = joint.parent {
                s.line(
                    at(&f.pose[p as usize]),
                    at(&f.pose[j]),
                    COLORS[k % 3],
                    2.0,
                    None,
                );
            }
        }
    }
}
