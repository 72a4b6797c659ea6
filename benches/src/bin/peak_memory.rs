//! Peak memory of compression: a generated 10-minute, 120 Hz, 60-joint clip (72,000 samples) is
//! compressed with each codec in a fresh child process (peak RSS only grows, so one process per
//! codec), and the peak resident set size is reported against the clip's raw size
//! (40 bytes x joints x samples, ACL's definition).
//!
//! `cargo run --release -p animcomp-bench --bin peak_memory [-- codec...]`
//! (codecs: fixed vbr keys auto; default: the default codec and fixed).

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::{compress, CodecChoice, CompressSettings};
use animcomp_bench::{current_rss_bytes, peak_rss_bytes};
use std::process::Command;

const JOINTS: usize = 60;
const RATE: f32 = 120.0;
const MINUTES: usize = 10;

fn mib(b: u64) -> f64 {
    b as f64 / (1024.0 * 1024.0)
}

fn build_clip() -> animcomp::RawClip {
    let samples = MINUTES * 60 * RATE as usize;
    generate_clip(&GenerateOptions {
        joints: JOINTS,
        samples,
        sample_rate: RATE,
        max_depth: 10,
        animated_translation: false,
        ..Default::default()
    })
}

/// Where the memory goes before any codec runs: `compress` copies the clip only when a
/// quaternion needs normalising (`RawClip::check`), and the metric precomputes object-space
/// poses (measured as the growth of the resident set). Prints one line of numbers.
fn breakdown() {
    let clip = build_clip();
    let raw = clip.raw_size_bytes() as u64;
    let copies = u64::from(clip.check().unwrap());
    let base = current_rss_bytes();
    let metric = animcomp::metric::Metric::new(&clip);
    let after_metric = current_rss_bytes();
    std::hint::black_box(&metric);
    println!("BREAKDOWN {raw} {copies} {}", after_metric - base);
}

/// Runs in the child: build the clip, measure, compress, measure; prints one line of numbers.
fn child(codec: CodecChoice) {
    let clip = build_clip();
    let raw = clip.raw_size_bytes() as u64;
    let peak_after_clip = peak_rss_bytes();
    let baseline = current_rss_bytes();
    let settings = CompressSettings {
        codec,
        ..Default::default()
    };
    let t = std::time::Instant::now();
    let result = compress(&clip, &settings);
    let secs = t.elapsed().as_secs_f64();
    let peak = peak_rss_bytes();
    match result {
        Ok(blob) => println!(
            "RESULT {} {} {} {} {} {} {:.2}",
            codec.name(),
            raw,
            baseline,
            peak_after_clip,
            peak,
            blob.len(),
            secs
        ),
        Err(e) => println!("FAILED {} {e}", codec.name()),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() == 1 && args[0] == "--breakdown-child" {
        breakdown();
        return;
    }
    if args.len() == 2 && args[0] == "--child" {
        let codec = CodecChoice::from_name(&args[1]).expect("codec name");
        child(codec);
        return;
    }
    let default = CompressSettings::default().codec;
    let codecs: Vec<CodecChoice> = if args.is_empty() {
        vec![default, CodecChoice::Fixed]
    } else {
        args.iter()
            .map(|a| CodecChoice::from_name(a).unwrap_or_else(|| panic!("unknown codec {a}")))
            .collect()
    };
    let exe = std::env::current_exe().unwrap();
    println!(
        "clip: {JOINTS} joints x {} samples ({MINUTES} min at {RATE} Hz), default codec: {}",
        MINUTES * 60 * RATE as usize,
        default.name()
    );
    println!(
        "{:<6} {:>9} {:>12} {:>12} {:>12} {:>14} {:>14} {:>10} {:>8}",
        "codec",
        "raw MiB",
        "baseline MiB",
        "peak MiB",
        "extra MiB",
        "peak/raw",
        "extra/raw",
        "blob KiB",
        "secs"
    );
    for codec in codecs {
        let out = Command::new(&exe)
            .args(["--child", codec.name()])
            .output()
            .expect("spawn child");
        let text = String::from_utf8_lossy(&out.stdout);
        let Some(line) = text
            .lines()
            .find(|l| l.starts_with("RESULT") || l.starts_with("FAILED"))
        else {
            println!(
                "{:<6} child failed: {}",
                codec.name(),
                String::from_utf8_lossy(&out.stderr)
            );
            continue;
        };
        if line.starts_with("FAILED") {
            println!("{:<6} {}", codec.name(), line);
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let n = |i: usize| f[i].parse::<u64>().unwrap();
        let (raw, baseline, _peak_clip, peak, blob) = (n(2), n(3), n(4), n(5), n(6));
        let extra = peak.saturating_sub(baseline);
        println!(
            "{:<6} {:>9.1} {:>12.1} {:>12.1} {:>12.1} {:>13.2}x {:>13.2}x {:>10.1} {:>8}",
            codec.name(),
            mib(raw),
            mib(baseline),
            mib(peak),
            mib(extra),
            peak as f64 / raw as f64,
            extra as f64 / raw as f64,
            blob as f64 / 1024.0,
            f[7]
        );
    }
    let out = Command::new(&exe)
        .arg("--breakdown-child")
        .output()
        .expect("spawn child");
    let text = String::from_utf8_lossy(&out.stdout);
    if let Some(line) = text.lines().find(|l| l.starts_with("BREAKDOWN")) {
        let f: Vec<u64> = line
            .split_whitespace()
            .skip(1)
            .map(|v| v.parse().unwrap())
            .collect();
        println!(
            "before any codec runs, compress holds: a copy of the clip: {} (only when quaternions \
             need normalising), metric object-space poses {:.1} MiB ({:.2}x raw)",
            if f[1] == 1 { "yes" } else { "no" },
            mib(f[2]),
            f[2] as f64 / f[0] as f64
        );
    }
    println!("peak/raw: whole-process peak RSS (clip included) over raw size; extra/raw: what compress added on top of the built clip. Target < 3x.");
}
