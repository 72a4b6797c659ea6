//! Measures the `keys` codec on a folder of clips: size, max error (the metric, through the real
//! decompressor), encoder statistics, and pose-sampling cost of the stateless path and of the
//! playback cursor. Optionally compares encoder variants and other codecs.
//!
//! ```text
//! cargo run --release -p animcomp-import --example keys_measure -- <folder> [--resample HZ]
//!     [--limit N] [--per-clip] [--variants default,linear,catmull,chain,worst] [--codecs fixed,vbr]
//!     [--no-timing] [--precision P (shell 3.0)]
//! ```

use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::math::Transform;
use animcomp::metric::Metric;
use animcomp::offline::compress_keys_with as compress_with;
use animcomp::offline::keys::{InterpChoice, KeysOptions, Split, ToleranceMode};
use animcomp::offline::{CodecChoice, CompressSettings};
use animcomp::runtime::{cursor_state_size, KeyCursor};
use animcomp::{compress, AlignedBlob, RawClip};
use animcomp_import::{collect_files, load, ImportOptions};
use std::path::PathBuf;
use std::time::Instant;

#[derive(Default, Clone)]
struct Totals {
    raw: usize,
    bytes: usize,
    keys: usize,
    max_error: f32,
    seconds: f64,
    failures: usize,
    stateless_ns: Vec<f64>,
    cursor_ns: Vec<f64>,
    seek_ns: Vec<f64>,
}

fn variant(name: &str) -> KeysOptions {
    let d = KeysOptions::default();
    match name {
        "linear" => KeysOptions {
            interp: InterpChoice::Linear,
            ..d
        },
        "catmull" => KeysOptions {
            interp: InterpChoice::CatmullRom,
            ..d
        },
        "dominant" => KeysOptions {
            tolerance: ToleranceMode::DominantShell,
            ..d
        },
        "chain" => KeysOptions {
            tolerance: ToleranceMode::ChainHalving,
            ..d
        },
        "worst" => KeysOptions {
            split: Split::Worst,
            ..d
        },
        "budget1" => KeysOptions {
            initial_budget: 1.0,
            ..d
        },
        "jointfirst" => KeysOptions {
            joint_first: true,
            ..d
        },
        "chainjf" => KeysOptions {
            joint_first: true,
            tolerance: ToleranceMode::ChainHalving,
            ..d
        },
        "jointfirst1" => KeysOptions {
            joint_first: true,
            initial_budget: 1.0,
            ..d
        },
        "budget025" => KeysOptions {
            initial_budget: 0.25,
            ..d
        },
        "nojf" => KeysOptions {
            joint_first: false,
            ..d
        },
        "fast" => KeysOptions::for_level(animcomp::offline::Level::Fast),
        "auto" => KeysOptions::for_level(animcomp::offline::Level::Automatic),
        _ => d,
    }
}

fn max_error(clip: &RawClip, blob: &AlignedBlob) -> f32 {
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
    let metric = Metric::new(clip);
    let mut pose = vec![Transform::IDENTITY; clip.num_joints()];
    metric
        .measure(|s, out| {
            d.pose_at_sample(s as u32, &mut pose).unwrap();
            out.copy_from_slice(&pose);
        })
        .max_error
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn timing(clip: &RawClip, blob: &AlignedBlob, t: &mut Totals) {
    let opts = DecompressOptions::default();
    let mut d = Decompressor::new(blob.as_bytes(), &opts).unwrap();
    let nj = clip.num_joints();
    let n = clip.num_samples.max(2);
    let mut pose = vec![0.0f32; nj * 10];
    let time = |i: usize| (i as f32 + 0.37) / clip.sample_rate;
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let start = Instant::now();
        for i in 0..n {
            d.seek(time(i), Looping::Clamp, Rounding::None).unwrap();
            d.sample_pose(&mut pose, 10).unwrap();
        }
        best = best.min(start.elapsed().as_secs_f64() * 1e9 / n as f64);
    }
    t.stateless_ns.push(best);
    let mut state = vec![0u32; cursor_state_size(d.header())];
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let mut c = KeyCursor::new(blob.as_bytes(), &opts, &mut state).unwrap();
        let start = Instant::now();
        for i in 0..n {
            c.seek(time(i), Looping::Clamp, Rounding::None).unwrap();
            c.sample_pose(&mut pose, 10).unwrap();
        }
        best = best.min(start.elapsed().as_secs_f64() * 1e9 / n as f64);
    }
    t.cursor_ns.push(best);
    // Random seeks with the cursor (each rebuilds from the key index).
    let mut c = KeyCursor::new(blob.as_bytes(), &opts, &mut state).unwrap();
    let mut x = 987_654_321u32;
    let seeks = 200;
    let start = Instant::now();
    for _ in 0..seeks {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        let i = (x >> 8) as usize % n;
        c.seek(time(i), Looping::Clamp, Rounding::None).unwrap();
        c.sample_pose(&mut pose, 10).unwrap();
    }
    t.seek_ns
        .push(start.elapsed().as_secs_f64() * 1e9 / seeks as f64);
    std::hint::black_box(&pose);
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut folder = None;
    let mut resample = None;
    let mut limit = usize::MAX;
    let mut per_clip = false;
    let mut variants = vec!["default".to_string()];
    let mut codecs: Vec<CodecChoice> = Vec::new();
    let mut do_timing = true;
    let mut precision: Option<f32> = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--resample" => resample = args.next().and_then(|v| v.parse::<f32>().ok()),
            "--limit" => {
                limit = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(usize::MAX)
            }
            "--per-clip" => per_clip = true,
            "--no-timing" => do_timing = false,
            "--precision" => precision = args.next().and_then(|v| v.parse().ok()),
            "--variants" => {
                variants = args
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(String::from)
                    .collect()
            }
            "--codecs" => {
                codecs = args
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .filter_map(CodecChoice::from_name)
                    .collect()
            }
            _ => folder = Some(PathBuf::from(a)),
        }
    }
    let folder = folder.expect("usage: keys_measure <folder> [options]");
    let files = collect_files(&[folder]);
    let mut totals = vec![Totals::default(); variants.len()];
    let mut other = vec![Totals::default(); codecs.len()];
    let mut clips = Vec::new();
    for path in files {
        match load(&path, &ImportOptions::default()) {
            Ok(cs) => clips.extend(cs.into_iter().map(|c| c.clip)),
            Err(e) => eprintln!("{}: import failed: {e}", path.display()),
        }
    }
    for mut clip in clips.into_iter().take(limit) {
        if let Some(hz) = resample {
            clip = clip.resample(hz).expect("resample");
        }
        if let Some(p) = precision {
            clip.skeleton.set_error_settings(p, 3.0);
        }
        if clip.validate().is_err() {
            eprintln!("{}: invalid clip, skipped", clip.name);
            continue;
        }
        let settings = CompressSettings {
            codec: CodecChoice::Keys,
            ..Default::default()
        };
        for (vi, v) in variants.iter().enumerate() {
            let t = &mut totals[vi];
            let start = Instant::now();
            let (blob, stats) = match compress_with(&clip, &settings, &variant(v)) {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("{}: keys/{v} failed: {e}", clip.name);
                    t.failures += 1;
                    continue;
                }
            };
            let secs = start.elapsed().as_secs_f64();
            let blob = AlignedBlob::from_bytes(&blob);
            let err = max_error(&clip, &blob);
            if vi == 0 && do_timing {
                timing(&clip, &blob, t);
            }
            if per_clip {
                println!(
                    "  {v:<9} {:<28} {:>9} -> {:>8} ({:6.2}:1) max {:.4} keys {} (lin {} cr {} const {} def {}) rounds {} {:.2}s",
                    clip.name, clip.raw_size_bytes(), blob.len(),
                    clip.raw_size_bytes() as f64 / blob.len() as f64, err, stats.keys,
                    stats.linear_tracks, stats.catmull_tracks, stats.constant_tracks,
                    stats.default_tracks, stats.rounds, secs
                );
            }
            t.raw += clip.raw_size_bytes();
            t.bytes += blob.len();
            t.keys += stats.keys;
            t.max_error = t.max_error.max(err);
            t.seconds += secs;
        }
        for (ci, &codec) in codecs.iter().enumerate() {
            let t = &mut other[ci];
            let s = CompressSettings {
                codec,
                ..Default::default()
            };
            let start = Instant::now();
            match compress(&clip, &s) {
                Ok(b) => {
                    let blob = AlignedBlob::from_bytes(&b);
                    t.seconds += start.elapsed().as_secs_f64();
                    if per_clip {
                        println!(
                            "  {:<9} {:<28} {:>9} -> {:>8}",
                            codec.name(),
                            clip.name,
                            clip.raw_size_bytes(),
                            blob.len()
                        );
                    }
                    t.raw += clip.raw_size_bytes();
                    t.bytes += blob.len();
                    t.max_error = t.max_error.max(max_error(&clip, &blob));
                    if do_timing {
                        let mut d =
                            Decompressor::new(blob.as_bytes(), &DecompressOptions::default())
                                .unwrap();
                        let mut pose = vec![0.0f32; clip.num_joints() * 10];
                        let n = clip.num_samples.max(2);
                        let mut best = f64::INFINITY;
                        for _ in 0..3 {
                            let st = Instant::now();
                            for i in 0..n {
                                d.seek(
                                    (i as f32 + 0.37) / clip.sample_rate,
                                    Looping::Clamp,
                                    Rounding::None,
                                )
                                .unwrap();
                                d.sample_pose(&mut pose, 10).unwrap();
                            }
                            best = best.min(st.elapsed().as_secs_f64() * 1e9 / n as f64);
                        }
                        t.stateless_ns.push(best);
                    }
                }
                Err(e) => {
                    eprintln!("{}: {} failed: {e}", clip.name, codec.name());
                    t.failures += 1;
                }
            }
        }
    }
    for (vi, v) in variants.iter().enumerate() {
        let t = &mut totals[vi];
        println!(
            "keys/{v:<9} raw {:>11} -> {:>10} bytes ({:6.2}:1), keys {:>9}, max error {:.5}, encode {:.1}s, failures {}",
            t.raw, t.bytes, t.raw as f64 / t.bytes.max(1) as f64, t.keys, t.max_error, t.seconds, t.failures
        );
        if !t.stateless_ns.is_empty() {
            println!(
                "    median ns/pose: stateless forward {:.0}, cursor forward {:.0}, cursor random seek {:.0}",
                median(&mut t.stateless_ns), median(&mut t.cursor_ns), median(&mut t.seek_ns)
            );
        }
    }
    for (ci, &codec) in codecs.iter().enumerate() {
        let t = &mut other[ci];
        println!(
            "{:<14} raw {:>11} -> {:>10} bytes ({:6.2}:1), max error {:.5}, encode {:.1}s, failures {}, median ns/pose {:.0}",
            codec.name(), t.raw, t.bytes, t.raw as f64 / t.bytes.max(1) as f64, t.max_error, t.seconds,
            t.failures, median(&mut t.stateless_ns)
        );
    }
}
