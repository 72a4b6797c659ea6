//! `animcomp report`: an SVG picture of a compressed clip's error: error over time of the worst
//! joints (with the precision as a dashed line) and the ranking of the joints' max errors. For a
//! resident blob (quality tiers), also each fidelity's bytes and float64 error, drawn over time,
//! and each fidelity's pose side by side (`report_tiers`).

use crate::input;
use crate::inspect::read_blob;
use crate::measure::{self, Measured};
use crate::report_tiers::{self, TierView};
use crate::svg::{ticks, Svg};
use crate::CliError;
use animcomp::format::header::TierInfo;
use animcomp::{AlignedBlob, RawClip};
use animcomp_import::curves::CurveSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `animcomp report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A clip file (compressed here with --codec), or a clip file and a blob of it (measured
    /// as is; give the same --error, --shell and --resample it was compressed with). For a
    /// resident blob of `tiers build`, its tier files beside it (`<name>.tier1`, `.tier2`) are
    /// read too: each fidelity is measured and drawn.
    #[arg(required = true, num_args = 1..=2, value_name = "CLIP [BLOB]")]
    pub inputs: Vec<PathBuf>,
    /// Where to write the SVG [default: `<clip stem>.report.svg` in the current folder]; a
    /// folder receives that name inside it.
    #[arg(short, long, value_name = "OUT.svg")]
    pub output: Option<PathBuf>,
    /// Joints drawn in the error-over-time chart (the worst ones).
    #[arg(
        allow_negative_numbers = true,
        long,
        default_value_t = 8,
        value_name = "N"
    )]
    pub top: usize,
    /// Joints in the ranking chart.
    #[arg(
        allow_negative_numbers = true,
        long,
        default_value_t = 25,
        value_name = "N"
    )]
    pub bars: usize,
    #[command(flatten)]
    pub opts: input::ClipArgs,
}

const PALETTE: [&str; 10] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];

fn is_blob(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && magic == animcomp::format::MAGIC
}

/// Everything the picture shows.
pub struct ReportData<'a> {
    /// The raw clip (prepared).
    pub clip: &'a RawClip,
    /// Its measured error.
    pub measured: &'a Measured,
    /// Precision (threshold line).
    pub precision: f32,
    /// Title line.
    pub title: String,
    /// Subtitle line.
    pub subtitle: String,
    /// A resident blob's fidelities (drawn below the charts, which show the resident blob).
    pub tiers: Option<&'a TierView>,
}

/// Runs the command.
pub fn run(a: &Args) -> Result<ExitCode, CliError> {
    let (clip_path, blob_path) = match a.inputs.as_slice() {
        [c] => (c, None),
        [x, y] => match (is_blob(x), is_blob(y)) {
            (false, true) => (x, Some(y)),
            (true, false) => (y, Some(x)),
            _ => {
                return Err(CliError(
                    "give one clip file and one blob file (the blob starts with ACMP)".into(),
                ))
            }
        },
        _ => unreachable!("clap enforces 1..=2 inputs"),
    };
    let default_name = format!("{}.report.svg", measure::file_stem(clip_path));
    let inputs: Vec<&Path> = a.inputs.iter().map(PathBuf::as_path).collect();
    let out = crate::output::check(
        a.output.as_deref().unwrap_or(Path::new(&default_name)),
        &default_name,
        &inputs,
        "SVG",
    )?;
    let mut asset = input::read(clip_path, &a.opts.settings)?;
    if asset.is_curve_only() && blob_path.is_none() {
        input::refuse_on_curves(clip_path, &input::curve_only_refusals())?;
        crate::output::refuse_existing(&out, a.opts.force)?;
        let set = input::take_curve_set(&mut asset, &a.opts)?;
        return curves_report(a, &set, &out);
    }
    let clip = input::take_clip(&mut asset, &a.opts)?;
    crate::output::refuse_existing(&out, a.opts.force)?;
    let mut tier_levels = None;
    let (blob, codec_name): (AlignedBlob, String) = match blob_path {
        Some(bp) => {
            let (blob, h) = read_blob(bp)?;
            tier_levels = TierInfo::read(&h, blob.as_bytes()).map(|i| (bp, i.levels));
            if h.num_joints as usize != clip.num_joints() {
                return Err(CliError(format!(
                    "{}: the blob has {} joints but the clip {} has {}",
                    bp.display(),
                    h.num_joints,
                    clip_path.display(),
                    clip.num_joints()
                )));
            }
            (blob, h.codec.name().to_string())
        }
        None => {
            let codec = a.opts.codec.unwrap_or_else(measure::default_codec);
            let (blob, _) = measure::compress_timed(&clip, &a.opts.settings.settings(codec))
                .map_err(|e| {
                    CliError(format!(
                        "{}: {} codec: {e}",
                        clip_path.display(),
                        codec.name()
                    ))
                })?;
            (blob, codec.name().to_string())
        }
    };
    let m = measure::measure_blob(&clip, &blob)
        .map_err(|e| CliError(format!("measuring the blob failed: {e}")))?;
    let raw = clip.raw_size_bytes();
    let tiers = match tier_levels {
        Some((bp, levels)) => {
            let (found, missing) = report_tiers::tier_files(bp, levels);
            Some(report_tiers::measure(
                &clip, &blob, &found, levels, missing,
            )?)
        }
        None => None,
    };
    let data = ReportData {
        clip: &clip,
        measured: &m,
        precision: a.opts.settings.error,
        tiers: tiers.as_ref(),
        title: format!(
            "{} — codec {}{}",
            clip.name,
            codec_name,
            if tiers.is_some() {
                " (resident blob alone; its fidelities below)"
            } else {
                ""
            }
        ),
        subtitle: format!(
            "{} joints, {} samples at {} Hz | {} bytes (raw {}), ratio {:.2} | max error {:.4} ({}), p99 {:.4} | precision {}, shell {}",
            clip.num_joints(),
            clip.num_samples,
            clip.sample_rate,
            blob.len(),
            raw,
            raw as f64 / blob.len() as f64,
            m.max_error,
            measure::joint_name(&clip, m.worst_joint),
            m.p99_error,
            a.opts.settings.error,
            a.opts.settings.shell
        ),
    };
    std::fs::write(&out, render(&data, a.top, a.bars))
        .map_err(|e| CliError(format!("{}: cannot write: {e}", out.display())))?;
    println!("wrote {}", out.display());
    println!("{}", data.subtitle);
    if let Some(v) = &tiers {
        print!("{}", report_tiers::table(v));
    }
    Ok(ExitCode::SUCCESS)
}

/// `report` on curves (Live Link Face `.csv`, `.npy`, glTF weights, FBX blend shapes without a
/// skeleton): compresses the curve set, prints each curve's id, name, precision and max error,
/// and draws the same two charts with curves in place of joints (errors relative to each
/// curve's precision, so the threshold line is 1).
fn curves_report(a: &Args, set: &CurveSet, out: &Path) -> Result<ExitCode, CliError> {
    let settings = animcomp::CompressSettings::default();
    let blob = crate::curves::compress_set(set, &settings)?;
    let errs = crate::curves::errors(set, &blob)?;
    let nc = set.curves.len();
    let rel: Vec<f32> = errs
        .iter()
        .enumerate()
        .map(|(k, e)| e / set.curves[k % nc].precision)
        .collect();
    let mut per_curve = vec![0.0f32; nc];
    for (k, e) in errs.iter().enumerate() {
        per_curve[k % nc] = per_curve[k % nc].max(*e);
    }
    println!("# curve id name precision max-error");
    for (c, curve) in set.curves.iter().enumerate() {
        println!(
            "curve {} {} {} {:.6}",
            curve.id, curve.name, curve.precision, per_curve[c]
        );
    }
    // The curves as "joints" of a clip without tracks: what the charts read (names, samples,
    // rate).
    let clip = RawClip {
        name: set.name.clone(),
        skeleton: animcomp::clip::Skeleton {
            joints: set
                .curves
                .iter()
                .map(|c| animcomp::clip::Joint::new(c.name.clone(), None))
                .collect(),
            bind_pose: None,
        },
        sample_rate: set.sample_rate,
        num_samples: set.num_samples,
        tracks: vec![],
    };
    let mut worst = (0.0f32, 0usize, 0usize);
    for (k, r) in rel.iter().enumerate() {
        if *r > worst.0 {
            worst = (*r, k % nc, k / nc);
        }
    }
    let mut sorted = rel.clone();
    let m = Measured {
        max_error: worst.0,
        worst_joint: worst.1,
        worst_sample: worst.2,
        p99_error: animcomp::metric::percentile(&mut sorted, 0.99),
        per_joint_max: (0..nc)
            .map(|c| per_curve[c] / set.curves[c].precision)
            .collect(),
        errors: rel,
    };
    let raw = set.raw_bytes();
    let data = ReportData {
        clip: &clip,
        measured: &m,
        precision: 1.0,
        tiers: None,
        title: format!("{} — curves (error / precision)", set.name),
        subtitle: format!(
            "{nc} curves, {} samples at {} Hz | {} bytes (raw {raw}), ratio {:.2} | max error {:.3} x precision ({}), p99 {:.3}",
            set.num_samples,
            set.sample_rate,
            blob.len(),
            raw as f64 / blob.len() as f64,
            m.max_error,
            set.curves[worst.1].name,
            m.p99_error
        ),
    };
    std::fs::write(out, render(&data, a.top, a.bars))
        .map_err(|e| CliError(format!("{}: cannot write: {e}", out.display())))?;
    println!("wrote {}", out.display());
    println!("{}", data.subtitle);
    Ok(ExitCode::SUCCESS)
}

/// Joints sorted by max error, worst first.
fn ranking(m: &Measured) -> Vec<usize> {
    let mut order: Vec<usize> = (0..m.per_joint_max.len()).collect();
    order.sort_by(|&a, &b| {
        m.per_joint_max[b]
            .total_cmp(&m.per_joint_max[a])
            .then(a.cmp(&b))
    });
    order
}

/// A joint name cut to 32 characters for labels.
fn short(name: &str) -> String {
    if name.chars().count() <= 32 {
        name.to_string()
    } else {
        let head: String = name.chars().take(31).collect();
        format!("{head}…")
    }
}

fn finite_or(v: f32, cap: f32) -> f64 {
    if v.is_finite() {
        v as f64
    } else {
        cap as f64
    }
}

/// The SVG document.
pub fn render(d: &ReportData, top: usize, bars: usize) -> String {
    let m = d.measured;
    let nj = d.clip.num_joints();
    let n = d.clip.num_samples;
    let order = ranking(m);
    let top = top.min(nj);
    let bars = bars.min(nj).max(1);
    let finite_max = m
        .errors
        .iter()
        .copied()
        .filter(|e| e.is_finite())
        .fold(0.0f32, f32::max);
    let cap = finite_max.max(d.precision) * 1.05;
    let y_max = ticks(cap as f64).last().copied().unwrap_or(1.0);

    let longest = order
        .iter()
        .take(bars.max(top))
        .map(|&j| short(&measure::joint_name(d.clip, j)).chars().count())
        .max()
        .unwrap_or(4);
    let (w, left, right) = (1200.0, 80.0, 110.0 + 6.5 * longest as f64);
    let plot_w = w - left - right;
    let (top_y, plot_h) = (80.0, 360.0);
    let bar_h = 18.0;
    let bars_y = top_y + plot_h + 90.0;
    let bars_end = bars_y + bars as f64 * bar_h + 60.0;
    let h = bars_end + d.tiers.map_or(0.0, |_| report_tiers::HEIGHT);
    let mut s = Svg::new(w, h);
    s.text(left, 28.0, 18.0, "start", &d.title);
    s.text(left, 50.0, 11.0, "start", &d.subtitle);

    // Error over time.
    let duration = d.clip.duration().max(1e-6) as f64;
    let x_of = |t: f64| left + plot_w * t / duration;
    let y_of = |e: f64| top_y + plot_h * (1.0 - (e / y_max).min(1.0));
    s.time_plot_frame((left, top_y), (plot_w, plot_h), y_max, duration);
    s.text(
        left + plot_w / 2.0,
        top_y + plot_h + 36.0,
        12.0,
        "middle",
        "time (s)",
    );
    s.text(
        left,
        top_y - 8.0,
        12.0,
        "start",
        &format!("error over time, {top} worst joints (clip units)"),
    );
    for (rank, &j) in order.iter().take(top).enumerate().rev() {
        let color = PALETTE[rank % PALETTE.len()];
        let pts: Vec<(f64, f64)> = (0..n)
            .map(|i| {
                (
                    x_of(i as f64 / d.clip.sample_rate as f64),
                    y_of(finite_or(m.errors[i * nj + j], cap)),
                )
            })
            .collect();
        s.polyline(&pts, color, 1.3);
        let ly = top_y + 14.0 + rank as f64 * 16.0;
        s.line(
            (left + plot_w + 12.0, ly - 4.0),
            (left + plot_w + 32.0, ly - 4.0),
            color,
            3.0,
            None,
        );
        s.text(
            left + plot_w + 38.0,
            ly,
            11.0,
            "start",
            &format!(
                "{} ({:.4})",
                short(&measure::joint_name(d.clip, j)),
                m.per_joint_max[j]
            ),
        );
    }
    let py = y_of(d.precision as f64);
    s.line((left, py), (left + plot_w, py), "#d00", 1.5, Some("6 4"));
    s.text(
        left + plot_w - 4.0,
        py - 5.0,
        11.0,
        "end",
        &format!("precision {}", d.precision),
    );

    // Ranking of max error per joint.
    s.text(
        left,
        bars_y - 26.0,
        12.0,
        "start",
        &format!("max error per joint, {bars} worst of {nj}"),
    );
    let bx = 20.0 + 6.5 * longest as f64;
    let bw = left + plot_w - bx;
    let bscale = |e: f64| bw * (e / y_max).min(1.0);
    for t in ticks(y_max) {
        let x = bx + bscale(t);
        s.line(
            (x, bars_y - 4.0),
            (x, bars_y + bars as f64 * bar_h),
            "#e4e4e4",
            1.0,
            None,
        );
        s.text(
            x,
            bars_y + bars as f64 * bar_h + 16.0,
            11.0,
            "middle",
            &format!("{t:.4}"),
        );
    }
    for (rank, &j) in order.iter().take(bars).enumerate() {
        let y = bars_y + rank as f64 * bar_h;
        let e = m.per_joint_max[j];
        let over = e > d.precision;
        s.rect(
            bx,
            y,
            bscale(finite_or(e, cap)),
            bar_h - 4.0,
            if over { "#e45756" } else { "#4c78a8" },
            None,
        );
        s.text(
            bx - 6.0,
            y + bar_h - 7.0,
            11.0,
            "end",
            &short(&measure::joint_name(d.clip, j)),
        );
        let label = if e.is_finite() {
            format!("{e:.4}")
        } else {
            "inf".into()
        };
        s.text(
            bx + bscale(finite_or(e, cap)) + 4.0,
            y + bar_h - 7.0,
            10.0,
            "start",
            &label,
        );
    }
    let px = bx + bscale(d.precision as f64);
    s.line(
        (px, bars_y - 6.0),
        (px, bars_y + bars as f64 * bar_h),
        "#d00",
        1.5,
        Some("6 4"),
    );
    if let Some(v) = d.tiers {
        report_tiers::draw(&mut s, v, d.clip, d.precision, bars_end, left, plot_w, w);
    }
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(errors: Vec<f32>, nj: usize) -> Measured {
        let mut per_joint_max = vec![0.0f32; nj];
        for (k, e) in errors.iter().enumerate() {
            per_joint_max[k % nj] = per_joint_max[k % nj].max(*e);
        }
        Measured {
            max_error: 0.0,
            worst_joint: 0,
            worst_sample: 0,
            p99_error: 0.0,
            per_joint_max,
            errors,
        }
    }

    #[test]
    fn ranking_puts_worst_first() {
        let m = measured(vec![0.1, 0.5, 0.3, 0.2, 0.0, 0.9], 3);
        assert_eq!(ranking(&m), vec![2, 1, 0]);
    }

    #[test]
    fn svg_has_one_line_per_top_joint_and_one_bar_per_ranked_joint() {
        let clip = animcomp::clip::generate_clip(&animcomp::clip::GenerateOptions {
            joints: 4,
            samples: 3,
            ..Default::default()
        });
        let m = measured(
            vec![
                0.001,
                0.02,
                f32::INFINITY,
                0.0,
                0.002,
                0.01,
                0.003,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            4,
        );
        let d = ReportData {
            clip: &clip,
            measured: &m,
            precision: 0.01,
            title: "t".into(),
            subtitle: "s".into(),
            tiers: None,
        };
        let svg = render(&d, 2, 3);
        assert_eq!(svg.matches("<polyline").count(), 2);
        // 3 bars + background + plot frame.
        assert_eq!(svg.matches("<rect").count(), 5);
        assert!(svg.contains(">inf<"));
        assert!(!svg.contains("NaN") && !svg.contains("inf\""));
    }
}
