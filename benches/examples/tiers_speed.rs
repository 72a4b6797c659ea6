//! Sampling speed with quality tiers: whole poses at random times (warm, one clip at a time) of
//! each clip compressed without tiers (`full`) and with two tier levels, sampled as the resident
//! blob alone (`resident`, a decompressor bound without a tier set), through a tier set with
//! nothing attached (`set`), with level 1 (`level 1`) and with both (`all`). The five are timed
//! interleaved, round after round, and reported as the median over rounds of each one's time
//! over `full`'s (below 1: faster than the blob without tiers).
//!
//! `cargo run --release -p animcomp-bench --example tiers_speed -- [--max-clips N] [--rounds R]
//! [--only CONFIG --poses N] [--cache DIR] DIR...` (`--only` runs one configuration, for
//! `valgrind --tool=callgrind`; `--cache DIR` keeps the compressed blobs in `DIR` and reads them
//! from there on later runs, so that a run under callgrind does not compress).

use animcomp::decompress::{DecompressOptions, Decompressor, Looping, OpenBlob, Rounding};
use animcomp::math::FLOATS_PER_JOINT;
use animcomp::runtime::TierSet;
use animcomp::{compress, compress_tiered, AlignedBlob, CompressSettings, TierSettings};
use animcomp_import::{collect_files, load, ImportOptions};
use std::path::PathBuf;
use std::time::Instant;

const NAMES: [&str; 5] = ["full", "resident", "set", "level 1", "all"];

struct Clip {
    full: AlignedBlob,
    resident: AlignedBlob,
    tiers: Vec<AlignedBlob>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut max_clips = usize::MAX;
    let mut rounds = 15;
    let mut only: Option<usize> = None;
    let mut poses = 200;
    let mut dirs = Vec::new();
    let mut cache: Option<PathBuf> = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--max-clips" => (max_clips, i) = (args[i + 1].parse().unwrap(), i + 1),
            "--rounds" => (rounds, i) = (args[i + 1].parse().unwrap(), i + 1),
            "--poses" => (poses, i) = (args[i + 1].parse().unwrap(), i + 1),
            "--cache" => (cache, i) = (Some(PathBuf::from(&args[i + 1])), i + 1),
            "--only" => {
                only = NAMES.iter().position(|n| n.replace(' ', "") == args[i + 1]);
                i += 1;
            }
            d => dirs.push(PathBuf::from(d)),
        }
        i += 1;
    }
    for dir in dirs {
        if !dir.exists() {
            println!("{}: absent, skipped", dir.display());
            continue;
        }
        let mut clips = Vec::new();
        let files = collect_files(std::slice::from_ref(&dir));
        let mut raws = files
            .iter()
            .flat_map(|f| {
                load(f, &ImportOptions::default())
                    .unwrap_or_default()
                    .into_iter()
                    .enumerate()
                    .map(move |(n, ic)| (f.clone(), n, ic))
            })
            .take(max_clips);
        let compress_one = |ic: animcomp_import::ImportedClip| {
            let mut raw = ic.clip;
            raw.skeleton.set_error_settings(0.01, 3.0);
            let s = CompressSettings::default();
            let t = compress_tiered(&raw, &s, &TierSettings::default()).unwrap();
            let mut parts = vec![compress(&raw, &s).unwrap(), t.resident];
            parts.extend(t.tiers);
            parts
        };
        for (file, n, ic) in raws.by_ref() {
            // The blobs of one clip: full, resident, then its tiers.
            let parts = match &cache {
                Some(c) => {
                    let stem = format!(
                        "{}-{}-{n}",
                        dir.file_name().unwrap().to_string_lossy(),
                        file.file_stem().unwrap().to_string_lossy()
                    );
                    let path = |k: usize| c.join(format!("{stem}.{k}"));
                    if path(0).exists() {
                        (0..)
                            .map(path)
                            .take_while(|p| p.exists())
                            .map(|p| std::fs::read(p).unwrap())
                            .collect()
                    } else {
                        let parts = compress_one(ic);
                        std::fs::create_dir_all(c).unwrap();
                        for (k, b) in parts.iter().enumerate() {
                            std::fs::write(path(k), b).unwrap();
                        }
                        parts
                    }
                }
                None => compress_one(ic),
            };
            clips.push(Clip {
                full: AlignedBlob::from_bytes(&parts[0]),
                resident: AlignedBlob::from_bytes(&parts[1]),
                tiers: parts[2..]
                    .iter()
                    .map(|x| AlignedBlob::from_bytes(x))
                    .collect(),
            });
        }
        let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); NAMES.len()];
        for round in 0..if only.is_some() { 1 } else { rounds } {
            let mut ns = [0u128; 5];
            for (k, c) in clips.iter().enumerate() {
                let opts = DecompressOptions::default();
                let open = OpenBlob::open(c.resident.as_bytes(), &opts).unwrap();
                let set1 = TierSet::new(&open).unwrap();
                set1.attach(c.tiers[0].as_bytes()).unwrap();
                let set2 = TierSet::new(&open).unwrap();
                c.tiers
                    .iter()
                    .for_each(|t| _ = set2.attach(t.as_bytes()).unwrap());
                let empty = TierSet::new(&open).unwrap();
                let decs = [
                    Decompressor::new(c.full.as_bytes(), &opts).unwrap(),
                    Decompressor::bind(&open),
                    Decompressor::bind_tiers(&empty),
                    Decompressor::bind_tiers(&set1),
                    Decompressor::bind_tiers(&set2),
                ];
                let order: Vec<usize> = match only {
                    Some(o) => vec![o],
                    // Rotate the order per clip and round.
                    None => (0..5).map(|j| (j + k + round) % 5).collect(),
                };
                for j in order {
                    let mut d = decs[j];
                    let dur = d.header().duration();
                    let mut out = vec![0.0f32; d.num_joints() * FLOATS_PER_JOINT];
                    let mut seed = 0x2545_f491_4f6c_dd1du64 ^ k as u64;
                    let t0 = Instant::now();
                    for _ in 0..poses {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        let t = (seed >> 40) as f32 / (1u64 << 24) as f32 * dur;
                        d.seek(t, Looping::Clamp, Rounding::None).unwrap();
                        d.sample_pose(&mut out, FLOATS_PER_JOINT).unwrap();
                        std::hint::black_box(&out);
                    }
                    ns[j] += t0.elapsed().as_nanos();
                }
            }
            if only.is_none() {
                for j in 0..5 {
                    ratios[j].push(ns[j] as f64 / ns[0] as f64);
                }
            }
        }
        if only.is_some() {
            continue;
        }
        println!(
            "{}: {} clips, {rounds} rounds, time / full (median):",
            dir.display(),
            clips.len()
        );
        for j in 1..5 {
            ratios[j].sort_by(|a, b| a.partial_cmp(b).unwrap());
            println!("  {:<9} {:.3}", NAMES[j], ratios[j][ratios[j].len() / 2]);
        }
    }
}
