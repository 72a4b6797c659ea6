//! Decoder profiling aid: `write DIR CLIPS...` compresses clips (default settings: the grouped layout, format version 4; `writegrouped` is the same) into DIR as
//! `.blob` files; `sample DIR N` samples every blob in DIR at N pseudo-random interpolated times
//! (seed fixed) and prints ns/pose; `subset DIR N` samples every tenth joint instead
//! (`sample_joints`), `all DIR N` every joint through `sample_joints`, `rotations DIR N` every
//! joint's rotation only (`sample_joints`, channel mask 1), `one DIR N` joint 0 alone (the fixed
//! cost of a call); `play DIR N` and `playcache DIR N` play every blob forward (N poses at
//! +1/60 s from a fixed phase, wrapping) without and with a playback cache; `samplecache DIR N`
//! is `sample` through a cache (random access: what the cache costs when it cannot help). Run under `valgrind --tool=callgrind` to count instructions per pose
//! independently of machine load.
//!
//! The format version 4 prototype: `proto DIR N` samples like `sample` with the widest decoder
//! this machine runs, `protoavx2`, `protosse2` and `protoscalar` with that decoder, `protoone`
//! samples joint 0 alone through the lane-by-lane subset path, `protoplay`
//! plays like `play`; `protocheck DIR N` compares every available decoder's poses with the
//! runtime's (`Decompressor`, the widest decoder), bit for bit. The reference the decoders are
//! tested against is `offline::vbr::reference` (`runtime/vbr/grouped/tests.rs`).
//!
//! `cargo run --release -p animcomp-bench --example decode_profile -- write /tmp/blobs ../shared/data/cmu-cc`

use animcomp::decompress::seek::resolve;
use animcomp::decompress::vbr::grouped::{Isa, Proto, ProtoCache};
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::math::FLOATS_PER_JOINT;
use animcomp::{compress, AlignedBlob, CompressSettings};
use animcomp_import::{collect_files, load, ImportOptions};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("write" | "writegrouped") => {
            let settings = CompressSettings::default();
            let dir = PathBuf::from(&args[1]);
            std::fs::create_dir_all(&dir).unwrap();
            let paths: Vec<PathBuf> = args[2..].iter().map(PathBuf::from).collect();
            for f in collect_files(&paths) {
                for (k, ic) in load(&f, &ImportOptions::default())
                    .unwrap_or_default()
                    .into_iter()
                    .enumerate()
                {
                    match compress(&ic.clip, &settings) {
                        Ok(b) => {
                            let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
                            std::fs::write(dir.join(format!("{stem}_{k}.blob")), b).unwrap();
                        }
                        Err(e) => eprintln!("skipping {}: {e}", f.display()),
                    }
                }
            }
        }
        Some(
            mode @ ("sample" | "samplecache" | "subset" | "all" | "rotations" | "one" | "play"
            | "playcache" | "proto" | "protoplay" | "protocheck" | "protocache"
            | "protosubset" | "protosubsetlane" | "protoone" | "protoavx512" | "protoavx2"
            | "protosse2" | "protoscalar"),
        ) => {
            let isa = match mode {
                "protoavx512" => Some(Isa::Avx512),
                "protoavx2" => Some(Isa::Avx2),
                "protosse2" => Some(Isa::Sse2),
                "protoscalar" => Some(Isa::Scalar),
                _ => None,
            };
            if let Some(i) = isa.filter(|i| !i.available()) {
                eprintln!("{i:?} is not available here");
                std::process::exit(1);
            }
            let dir = PathBuf::from(&args[1]);
            let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
            let mut files: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "blob"))
                .collect();
            files.sort();
            let blobs: Vec<AlignedBlob> = files
                .iter()
                .map(|p| AlignedBlob::from_bytes(&std::fs::read(p).unwrap()))
                .collect();
            let mut seed = 0x2545_f491_4f6c_dd1du64;
            let (mut poses, mut ns) = (0usize, 0u128);
            let mut cache_bytes = Vec::new();
            for b in &blobs {
                let mut d = Decompressor::new(b.as_bytes(), &DecompressOptions::default()).unwrap();
                let dur = d.header().duration();
                let mut pose = vec![0.0f32; d.num_joints() * FLOATS_PER_JOINT];
                let tenth: Vec<u32> = (0..d.num_joints() as u32).step_by(10).collect();
                let every: Vec<u32> = (0..d.num_joints() as u32).collect();
                let first = vec![0u32];
                let mut cache = vec![0u128; d.playback_cache_size().div_ceil(16)];
                if mode.ends_with("cache") {
                    cache_bytes.push(d.playback_cache_size());
                }
                // SAFETY: the words of `cache` viewed as bytes.
                let cache = unsafe {
                    std::slice::from_raw_parts_mut(
                        cache.as_mut_ptr().cast::<u8>(),
                        cache.len() * 16,
                    )
                };
                let play = mode.starts_with("play") || mode == "protoplay" || mode == "protocache";
                let proto = mode
                    .starts_with("proto")
                    .then(|| Proto::convert(b.as_bytes()).unwrap());
                let mut check = vec![0.0f32; pose.len()];
                let mut pcache = proto.as_ref().map(ProtoCache::new);
                let t0 = Instant::now();
                for i in 0..n {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    let t = if play {
                        0.37 * dur + i as f32 / 60.0
                    } else {
                        (seed >> 40) as f32 / (1u64 << 24) as f32 * dur
                    };
                    let looping = if play { Looping::Wrap } else { Looping::Clamp };
                    if let Some(p) = &proto {
                        let key =
                            resolve(p.header(), black_box(t), looping, Rounding::None).unwrap();
                        if mode.starts_with("protosubset") || mode == "protoone" {
                            let wide = mode == "protosubset" && Proto::supported();
                            let joints = if mode == "protoone" { &first } else { &tenth };
                            p.sample_joints_with(&key, joints, &mut pose, FLOATS_PER_JOINT, wide);
                            black_box(&mut pose);
                            continue;
                        }
                        if mode == "protocache" {
                            let c = pcache.as_mut().unwrap();
                            p.sample_pose_cached(c, &key, &mut pose, FLOATS_PER_JOINT);
                            black_box(&mut pose);
                            continue;
                        }
                        match isa {
                            Some(i) => {
                                p.sample_pose_isa(i, &key, &mut pose, FLOATS_PER_JOINT);
                            }
                            None => p.sample_pose(&key, &mut pose, FLOATS_PER_JOINT),
                        }
                        black_box(&mut pose);
                        if mode == "protocheck" {
                            d.seek(t, looping, Rounding::None).unwrap();
                            d.sample_pose(&mut check, FLOATS_PER_JOINT).unwrap();
                            for i in Isa::ALL.into_iter().filter(|i| i.available()) {
                                pose.fill(f32::NAN);
                                assert!(p.sample_pose_isa(i, &key, &mut pose, FLOATS_PER_JOINT));
                                let same = pose
                                    .iter()
                                    .zip(&check)
                                    .all(|(a, b)| a.to_bits() == b.to_bits());
                                assert!(same, "{i:?} proto pose differs at {t} in blob {poses}");
                            }
                            // Every tenth joint through the subset decoder, both paths.
                            for wide in [false, Proto::supported()] {
                                let mut sub = vec![f32::NAN; pose.len()];
                                p.sample_joints_with(
                                    &key,
                                    &tenth,
                                    &mut sub,
                                    FLOATS_PER_JOINT,
                                    wide,
                                );
                                for &j in &tenth {
                                    let r = j as usize * 10..j as usize * 10 + 10;
                                    let same = sub[r.clone()]
                                        .iter()
                                        .zip(&check[r])
                                        .all(|(a, b)| a.to_bits() == b.to_bits());
                                    assert!(same, "proto subset differs at {t}, joint {j}");
                                }
                            }
                            // The cache, at this time and at +1/60 s (playback from here).
                            let c = pcache.as_mut().unwrap();
                            for dt in [0.0, 1.0 / 60.0, 2.0 / 60.0] {
                                let key =
                                    resolve(p.header(), t + dt, looping, Rounding::None).unwrap();
                                p.sample_pose_cached(c, &key, &mut pose, FLOATS_PER_JOINT);
                                d.seek(t + dt, looping, Rounding::None).unwrap();
                                d.sample_pose(&mut check, FLOATS_PER_JOINT).unwrap();
                                let same = pose
                                    .iter()
                                    .zip(&check)
                                    .all(|(a, b)| a.to_bits() == b.to_bits());
                                assert!(same, "cached proto pose differs at {t} + {dt}");
                            }
                        }
                        continue;
                    }
                    d.seek(black_box(t), looping, Rounding::None).unwrap();
                    if mode.ends_with("cache") {
                        d.sample_pose_cached(cache, &mut pose, FLOATS_PER_JOINT)
                            .unwrap();
                        black_box(&mut pose);
                        continue;
                    }
                    let (joints, channels) = match mode {
                        "subset" => (&tenth, 7),
                        "one" => (&first, 7),
                        "all" => (&every, 7),
                        "rotations" => (&every, 1),
                        _ => (&every, 0),
                    };
                    if channels == 0 {
                        d.sample_pose(&mut pose, FLOATS_PER_JOINT).unwrap();
                    } else {
                        d.sample_joints(joints, None, channels, &mut pose, FLOATS_PER_JOINT)
                            .unwrap();
                    }
                    black_box(&mut pose);
                }
                ns += t0.elapsed().as_nanos();
                poses += n;
            }
            if mode == "protocheck" {
                let isas: Vec<Isa> = Isa::ALL.into_iter().filter(|i| i.available()).collect();
                println!("protocheck: {isas:?} bit for bit the vbr poses");
            }
            if mode.starts_with("proto") {
                let (v2, v3): (usize, usize) = blobs
                    .iter()
                    .map(|b| {
                        (
                            b.as_bytes().len(),
                            Proto::convert(b.as_bytes()).unwrap().size(),
                        )
                    })
                    .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
                println!("proto size {v3} / vbr {v2} = {:.4}", v3 as f64 / v2 as f64);
                let mut parts: Vec<(&str, usize)> = Vec::new();
                for b in &blobs {
                    for (i, (name, n)) in Proto::convert(b.as_bytes())
                        .unwrap()
                        .parts()
                        .into_iter()
                        .enumerate()
                    {
                        if parts.len() <= i {
                            parts.push((name, 0));
                        }
                        parts[i].1 += n;
                    }
                }
                for (name, n) in parts {
                    println!(
                        "  {name}: {n} bytes ({:.2} % of vbr)",
                        100.0 * n as f64 / v2 as f64
                    );
                }
            }
            if let (Some(lo), Some(hi)) = (cache_bytes.iter().min(), cache_bytes.iter().max()) {
                println!("playback cache: {lo}-{hi} bytes per blob");
            }
            println!(
                "{} blobs, {poses} poses, {:.0} ns/pose",
                blobs.len(),
                ns as f64 / poses as f64
            );
        }
        _ => {
            eprintln!(
                "usage: decode_profile write|writegrouped DIR CLIPS... | sample|subset|all|rotations|one|play|playcache|samplecache|proto|protoavx512|protoavx2|protosse2|protoscalar|protoplay|protocheck DIR [N]"
            )
        }
    }
}
