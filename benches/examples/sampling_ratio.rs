//! Interleaved pose-sampling comparison of codecs on real clips: per clip, forward passes of
//! each codec alternate (so a noisy neighbour slows every codec alike), and the figure is the
//! median over passes of each codec's time relative to the first codec's in the same round.
//!
//! `cargo run --release -p animcomp-bench --example sampling_ratio -- [--rounds N] [--between]
//! [--keys] PATH...`
//! (codecs vbr then fixed; PATH = clip files or folders). `--between` samples half-way between
//! stored samples (every pose interpolates) instead of at the sample times. `--keys` adds the
//! `keys` codec twice: through the stateless `Decompressor` and through its playback cursor.

use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::math::FLOATS_PER_JOINT;
use animcomp::runtime::{cursor_state_size, KeyCursor};
use animcomp::{compress, AlignedBlob, CodecChoice, CompressSettings};
use animcomp_import::{collect_files, load, ImportOptions};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

/// What a pass plays: a codec through the stateless decompressor, or a keys blob through its
/// playback cursor.
enum Player<'a> {
    Stateless(Decompressor<'a>),
    Cursor(KeyCursor<'a>),
}

/// Nanoseconds per pose of one forward pass (seek to every sample time, interpolating).
fn pass(p: &mut Player, times: &[f32], pose: &mut [f32]) -> f64 {
    let t0 = Instant::now();
    for &t in times {
        match p {
            Player::Stateless(d) => {
                d.seek(black_box(t), Looping::Clamp, Rounding::None)
                    .unwrap();
                d.sample_pose(pose, FLOATS_PER_JOINT).unwrap();
            }
            Player::Cursor(c) => {
                c.seek(black_box(t), Looping::Clamp, Rounding::None)
                    .unwrap();
                c.sample_pose(pose, FLOATS_PER_JOINT).unwrap();
            }
        }
        black_box(&mut *pose);
    }
    t0.elapsed().as_nanos() as f64 / times.len() as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let mut rounds = 30usize;
    let mut offset = 0.0f32;
    let mut paths = Vec::new();
    let mut keys = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--keys" {
            keys = true;
        } else if a == "--between" {
            offset = 0.5;
        } else if a == "--rounds" {
            rounds = args
                .next()
                .and_then(|n| n.parse().ok())
                .expect("--rounds N");
        } else {
            paths.push(PathBuf::from(a));
        }
    }
    let mut codecs = vec![CodecChoice::Vbr, CodecChoice::Fixed];
    let mut names: Vec<String> = vec!["vbr".into(), "fixed".into()];
    if keys {
        codecs.push(CodecChoice::Keys);
        names.extend(["keys".into(), "keys-cursor".into()]);
    }
    let files = collect_files(&paths);
    if files.is_empty() {
        eprintln!("sampling_ratio: no clips found (give clip files or folders)");
        return;
    }
    let mut ratios = Vec::new();
    let mut per_codec_ns = vec![Vec::new(); names.len()];
    for f in &files {
        for ic in load(f, &ImportOptions::default()).unwrap_or_default() {
            let clip = ic.clip;
            let blobs: Result<Vec<AlignedBlob>, _> = codecs
                .iter()
                .map(|&codec| {
                    let s = CompressSettings {
                        codec,
                        ..Default::default()
                    };
                    compress(&clip, &s).map(|b| AlignedBlob::from_bytes(&b))
                })
                .collect();
            let blobs = match blobs {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("skipping {}: {e}", f.display());
                    continue;
                }
            };
            let opts = DecompressOptions::default();
            let mut ds: Vec<Player> = blobs
                .iter()
                .map(|b| Player::Stateless(Decompressor::new(b.as_bytes(), &opts).unwrap()))
                .collect();
            let mut state = if keys {
                let d = Decompressor::new(blobs[2].as_bytes(), &opts).unwrap();
                vec![0u32; cursor_state_size(d.header())]
            } else {
                Vec::new()
            };
            if keys {
                let c = KeyCursor::new(blobs[2].as_bytes(), &opts, &mut state).unwrap();
                ds.push(Player::Cursor(c));
            }
            let n = clip.num_samples;
            let rate = clip.sample_rate;
            let last = (n - 1) as f32 / rate;
            let times: Vec<f32> = (0..n)
                .map(|i| ((i as f32 + offset) / rate).min(last))
                .collect();
            let mut pose = vec![0.0f32; clip.num_joints() * FLOATS_PER_JOINT];
            let mut r = vec![Vec::new(); names.len()];
            let mut ns = vec![Vec::new(); names.len()];
            for _ in 0..rounds {
                let base = pass(&mut ds[0], &times, &mut pose);
                ns[0].push(base);
                for (i, d) in ds.iter_mut().enumerate().skip(1) {
                    let t = pass(d, &times, &mut pose);
                    ns[i].push(t);
                    r[i].push(t / base);
                }
            }
            ratios.push(r.iter_mut().skip(1).map(|v| median(v)).collect::<Vec<_>>());
            for (i, v) in ns.iter_mut().enumerate() {
                per_codec_ns[i].push(median(v));
            }
        }
    }
    println!("clips: {}", ratios.len());
    for (i, c) in names.iter().enumerate() {
        let ns = median(&mut per_codec_ns[i]);
        if i == 0 {
            println!("{c:11} median ns/pose {ns:8.0}");
        } else {
            let mut r: Vec<f64> = ratios.iter().map(|v| v[i - 1]).collect();
            println!(
                "{c:11} median ns/pose {ns:8.0}  time / {} (median of per-clip medians) {:.3}",
                names[0],
                median(&mut r)
            );
        }
    }
}
