//! Measures codecs on a folder of clips: sizes, error (the metric, through the real
//! decompressor), compression time and pose-sampling time.
//!
//! ```text
//! cargo run --release -p animcomp-import --example vbr_measure -- <folder> [--resample HZ]
//!     [--level fast|default|best|auto] [--codecs vbr,fixed] [--limit N] [--per-clip]
//! ```

use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::math::Transform;
use animcomp::metric::{percentile, Metric};
use animcomp::offline::{CodecChoice, CompressSettings, Level};
use animcomp::{compress, AlignedBlob, RawClip};
use animcomp_import::{load, ImportOptions};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Default)]
struct Totals {
    raw: usize,
    bytes: usize,
    max_error: f32,
    errors: Vec<f32>,
    seconds: f64,
    pose_ns: Vec<f64>,
    failures: usize,
}

/// CPU time of this thread in seconds (Linux `schedstat`), so a loaded machine does not inflate
/// compression times; falls back to wall time elsewhere.
fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(s.split_whitespace().next()?.parse::<f64>().ok()? * 1e-9)
}

fn measure(clip: &RawClip, s: &CompressSettings, t: &mut Totals, per_clip: bool) {
    let t0 = Instant::now();
    let c0 = thread_cpu_seconds();
    let blob = match compress(clip, s) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{}: {:?} failed: {e}", clip.name, s.codec);
            t.failures += 1;
            return;
        }
    };
    let secs = match (c0, thread_cpu_seconds()) {
        (Some(a), Some(b)) => b - a,
        _ => t0.elapsed().as_secs_f64(),
    };
    let aligned = AlignedBlob::from_bytes(&blob);
    let mut d =
        Decompressor::new(aligned.as_bytes(), &DecompressOptions::default()).expect("valid blob");
    let metric = Metric::new(clip);
    let nj = clip.num_joints();
    let mut local = vec![Transform::IDENTITY; nj];
    let mut scratch = vec![Transform::IDENTITY; nj];
    let mut errs = vec![0.0f32; nj];
    let mut clip_max = 0.0f32;
    let mut worst = (0, 0);
    for i in 0..clip.num_samples {
        d.pose_at_sample(i as u32, &mut local).unwrap();
        metric.errors_at(i, &local, &mut scratch, &mut errs);
        for &e in &errs {
            let e = if e.is_nan() { f32::INFINITY } else { e };
            t.errors.push(e);
        }
        for (j, &e) in errs.iter().enumerate() {
            if e > clip_max {
                clip_max = e;
                worst = (j, i);
            }
        }
    }
    // Pose sampling: forward playback at the clip's sample times (as `animcomp bench` does),
    // best of 7 passes of wall time (thread CPU time is too coarse for one pass).
    let mut pose = vec![0.0f32; nj * 10];
    let mut best = f64::INFINITY;
    let n = clip.num_samples.max(2);
    for _ in 0..7 {
        let start = Instant::now();
        for i in 0..n {
            d.seek(
                std::hint::black_box(i as f32 / clip.sample_rate),
                Looping::Clamp,
                Rounding::None,
            )
            .unwrap();
            d.sample_pose(&mut pose, 10).unwrap();
        }
        best = best.min(start.elapsed().as_secs_f64() * 1e9 / n as f64);
    }
    std::hint::black_box(&pose);
    if per_clip {
        println!(
            "  {:<28} {:>9} -> {:>8} ({:6.2}:1) max {:.6} (j{} s{}) {:.3}s {:.0} ns/pose",
            clip.name,
            clip.raw_size_bytes(),
            blob.len(),
            clip.raw_size_bytes() as f64 / blob.len() as f64,
            clip_max,
            worst.0,
            worst.1,
            secs,
            best
        );
    }
    t.raw += clip.raw_size_bytes();
    t.bytes += blob.len();
    t.max_error = t.max_error.max(clip_max);
    t.seconds += secs;
    t.pose_ns.push(best);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut folder = None;
    let mut resample = None;
    let mut level = Level::Automatic;
    let mut codecs = vec![CodecChoice::Vbr, CodecChoice::Fixed];
    let mut limit = usize::MAX;
    let mut per_clip = false;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--resample" => resample = Some(args.next().unwrap().parse::<f32>().unwrap()),
            "--level" => {
                level = match args.next().unwrap().as_str() {
                    "fast" => Level::Fast,
                    "default" => Level::Default,
                    "best" => Level::Best,
                    _ => Level::Automatic,
                }
            }
            "--codecs" => {
                codecs = args
                    .next()
                    .unwrap()
                    .split(',')
                    .map(|c| CodecChoice::from_name(c).expect("codec"))
                    .collect()
            }
            "--limit" => limit = args.next().unwrap().parse().unwrap(),
            "--per-clip" => per_clip = true,
            _ => folder = Some(PathBuf::from(a)),
        }
    }
    let folder =
        folder.expect("usage: vbr_measure <folder> [--resample HZ] [--level L] [--codecs a,b]");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .expect("folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "bvh" || x == "sjson"))
        .collect();
    files.sort();
    files.truncate(limit);
    let mut totals: Vec<Totals> = codecs.iter().map(|_| Totals::default()).collect();
    for f in &files {
        let clips = match load(f, &ImportOptions::default()) {
            Ok(c) => c,
            Err(e) => {
                eprintln!("{}: {e}", f.display());
                continue;
            }
        };
        for ic in clips {
            let mut clip = ic.clip;
            if let Some(r) = resample {
                clip = clip.resample(r).expect("resample");
            }
            if clip.validate().is_err() {
                eprintln!("{}: invalid clip", f.display());
                continue;
            }
            for (c, t) in codecs.iter().zip(&mut totals) {
                let s = CompressSettings {
                    codec: *c,
                    level,
                    ..Default::default()
                };
                measure(&clip, &s, t, per_clip);
            }
        }
    }
    println!(
        "set {} ({} files){}",
        folder.display(),
        files.len(),
        resample.map_or(String::new(), |r| format!(" resampled {r} Hz"))
    );
    println!("codec  raw_bytes  compressed  ratio  max_error  p99  compress_s  ns/pose(median)  failures");
    for (c, t) in codecs.iter().zip(&mut totals) {
        let p99 = percentile(&mut t.errors, 0.99);
        let med = percentile(
            &mut t.pose_ns.iter().map(|&v| v as f32).collect::<Vec<_>>(),
            0.5,
        );
        println!(
            "{:<6} {:>10} {:>10} {:6.2} {:9.5} {:8.5} {:8.2} {:10.0} {}",
            c.name(),
            t.raw,
            t.bytes,
            t.raw as f64 / t.bytes.max(1) as f64,
            t.max_error,
            p99,
            t.seconds,
            med,
            t.failures
        );
    }
}
