//! Decoder profiling aid: `write DIR CLIPS...` compresses clips (default settings: the grouped layout, format version 4; `writegrouped` is the same) into DIR as
//! `.blob` files (`writegen DIR J...`: generated rigs of J joints); `sample DIR N` samples every blob in DIR at N pseudo-random interpolated times
//! (seed fixed) and prints ns/pose; `subset DIR N` samples every tenth joint instead
//! (`sample_joints`), `all DIR N` every joint through `sample_joints`, `rotations DIR N` every
//! joint's rotation only (`sample_joints`, channel mask 1), `one DIR N` joint 0 alone (the fixed
//! cost of a call); `play DIR N` and `playcache DIR N` play every blob forward (N poses at
//! +1/60 s from a fixed phase, wrapping) without and with a playback cache; `samplecache DIR N`
//! is `sample` through a cache (random access: what the cache costs when it cannot help);
//! `playmany DIR FRAMES INSTANCES cache|plain|protocache|proto [flush]` plays many instances
//! round robin, as an engine does (see `playmany`). Run under `valgrind --tool=callgrind` to
//! count instructions per pose independently of machine load.
//!
//! The format version 4 prototype: `proto DIR N` samples like `sample` with the widest decoder
//! this machine runs, `protoavx2`, `protosse2` and `protoscalar` with that decoder, `protoone`
//! samples joint 0 alone through the lane-by-lane subset path, `protoplay`
//! plays like `play`; `protocheck DIR N` compares every available decoder's poses with the
//! runtime's (`Decompressor`, the widest decoder), bit for bit. The reference the decoders are
//! tested against is `offline::vbr::reference` (`runtime/vbr/grouped/tests.rs`).
//!
//! Poses in the engine's layout: `layouts DIR N [PRESET VARIANT]` times, per preset (`ue5`,
//! `ue4`, `unity`, `ozz`), the ten-float decode alone (`ten`), the ten-float decode and a second
//! pass converting it into the layout (`convert`), and the decode straight into the layout
//! (`straight`), into a layout checked once (`checked`), and the ten floats, the layout and the
//! layout checked once through the C ABI (`cten`, `cstraight`, `cchecked`), in interleaved rounds, and prints ns/pose and the ratios; with PRESET and
//! VARIANT it runs that one alone (for callgrind).
//!
//! `cargo run --release -p animcomp-bench --example decode_profile -- write /tmp/blobs ../shared/data/cmu-cc`

use animcomp::decompress::seek::resolve;
use animcomp::decompress::vbr::grouped::{GroupedClip, GroupedClipCache, Isa};
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, PoseLayout, Rounding};
use animcomp::ffi;
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
        Some("writegen") => {
            // Generated rigs: `writegen DIR J...` writes four clips of 300 samples at 30 Hz per
            // joint count J (as `ab_runtime`'s `gen:` sets).
            let dir = PathBuf::from(&args[1]);
            std::fs::create_dir_all(&dir).unwrap();
            for j in args[2..].iter().filter_map(|s| s.parse::<usize>().ok()) {
                for seed in 1..=4u64 {
                    let clip = animcomp_bench::generated_rig(j, seed);
                    let b = compress(&clip, &CompressSettings::default()).unwrap();
                    std::fs::write(dir.join(format!("gen{j}_{seed}.blob")), b).unwrap();
                }
            }
        }
        Some("layouts") => layouts(&args),
        Some("playmany") => playmany(&args),
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
            let blobs = load_blobs(&dir);
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
                    .then(|| GroupedClip::convert(b.as_bytes()).unwrap());
                let mut check = vec![0.0f32; pose.len()];
                let mut pcache = proto.as_ref().map(GroupedClipCache::new);
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
                            let wide = mode == "protosubset" && GroupedClip::supported();
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
                            for wide in [false, GroupedClip::supported()] {
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
                            GroupedClip::convert(b.as_bytes()).unwrap().size(),
                        )
                    })
                    .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
                println!("proto size {v3} / vbr {v2} = {:.4}", v3 as f64 / v2 as f64);
                let mut parts: Vec<(&str, usize)> = Vec::new();
                for b in &blobs {
                    for (i, (name, n)) in GroupedClip::convert(b.as_bytes())
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

/// The `.blob` files of `dir`, in name order.
fn load_blobs(dir: &std::path::Path) -> Vec<AlignedBlob> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "blob"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| AlignedBlob::from_bytes(&std::fs::read(p).unwrap()))
        .collect()
}

/// `playmany DIR FRAMES INSTANCES cache|plain|protocache|proto [flush]`: INSTANCES playing
/// instances (instance `k` plays blob `k` modulo the blobs, from its own phase), each with its
/// own pose buffer (and playback cache), every instance sampled once per frame at +1/60 s: the
/// access pattern of an engine's playback; `proto` and `protocache` sample the blobs converted
/// to a `GroupedClip` through the Rust API (no `Decompressor`); `flush` writes 32 MB before
/// every frame (untimed). Under `valgrind --tool=cachegrind --cache-sim=yes` with a last-level cache smaller
/// than all instances' memory, its last-level misses per pose approximate the lines a pose reads
/// and writes when every frame starts with cold caches.
fn playmany(args: &[String]) {
    let dir = PathBuf::from(&args[1]);
    let frames: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let instances: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(64);
    let cached = args
        .get(4)
        .is_some_and(|s| s == "cache" || s == "protocache");
    let proto = args.get(4).is_some_and(|s| s.starts_with("proto"));
    let flush = args.get(5).is_some_and(|s| s == "flush");
    let mut junk = vec![0u64; if flush { 4 << 20 } else { 0 }];
    let blobs = load_blobs(&dir);
    let mut decs: Vec<Decompressor> = (0..instances)
        .map(|k| {
            Decompressor::new(
                blobs[k % blobs.len()].as_bytes(),
                &DecompressOptions::default(),
            )
            .unwrap()
        })
        .collect();
    let mut poses: Vec<Vec<f32>> = decs
        .iter()
        .map(|d| vec![0.0f32; d.num_joints() * FLOATS_PER_JOINT])
        .collect();
    let mut caches: Vec<Vec<u128>> = decs
        .iter()
        .map(|d| vec![0u128; d.playback_cache_size().div_ceil(16)])
        .collect();
    let protos: Vec<GroupedClip> = if proto {
        (0..instances)
            .map(|k| GroupedClip::convert(blobs[k % blobs.len()].as_bytes()).unwrap())
            .collect()
    } else {
        Vec::new()
    };
    let mut pcaches: Vec<GroupedClipCache> = protos.iter().map(GroupedClipCache::new).collect();
    let mut ns = 0u128;
    for f in 0..frames {
        for (i, w) in junk.iter_mut().enumerate() {
            *w = w.wrapping_add(i as u64 ^ f as u64);
        }
        black_box(&mut junk);
        let t0 = Instant::now();
        for (k, d) in decs.iter_mut().enumerate() {
            let dur = d.header().duration();
            let t = (k as f32 * 0.137).fract() * dur + f as f32 / 60.0;
            if proto {
                let p = &protos[k];
                let key = resolve(p.header(), black_box(t), Looping::Wrap, Rounding::None).unwrap();
                if cached {
                    p.sample_pose_cached(&mut pcaches[k], &key, &mut poses[k], FLOATS_PER_JOINT);
                } else {
                    p.sample_pose_isa(Isa::best(), &key, &mut poses[k], FLOATS_PER_JOINT);
                }
                continue;
            }
            d.seek(black_box(t), Looping::Wrap, Rounding::None).unwrap();
            if cached {
                let c = &mut caches[k];
                // SAFETY: the words of `c` viewed as bytes.
                let c = unsafe {
                    std::slice::from_raw_parts_mut(c.as_mut_ptr().cast::<u8>(), c.len() * 16)
                };
                d.sample_pose_cached(c, &mut poses[k], FLOATS_PER_JOINT)
                    .unwrap();
            } else {
                d.sample_pose(&mut poses[k], FLOATS_PER_JOINT).unwrap();
            }
        }
        black_box(&mut poses);
        ns += t0.elapsed().as_nanos();
    }
    let ns = ns as f64 / (frames * instances) as f64;
    println!("{instances} instances, {frames} frames: {ns:.1} ns/pose");
}

/// The presets the `layouts` mode measures.
const PRESETS: [(&str, PoseLayout); 4] = [
    ("ue5", PoseLayout::UNREAL5_TRANSFORM),
    ("ue4", PoseLayout::UNREAL4_TRANSFORM),
    ("unity", PoseLayout::UNITY_SEPARATE),
    ("ozz", PoseLayout::OZZ_SOA_TRANSFORM),
];

/// The second pass of `convert`: ten floats per joint into preset `p`'s buffers (what a caller
/// writes by hand without layouts).
fn convert(p: &str, ten: &[f32], out: &mut [Vec<u64>]) {
    let n = ten.len() / 10;
    match p {
        "ue5" => {
            let o = &mut out[0];
            for j in 0..n {
                let (t, r) = (&ten[j * 10..j * 10 + 10], j * 12);
                for k in 0..4 {
                    o[r + k] = (t[k] as f64).to_bits();
                }
                for k in 0..3 {
                    o[r + 4 + k] = (t[4 + k] as f64).to_bits();
                    o[r + 8 + k] = (t[7 + k] as f64).to_bits();
                }
            }
        }
        "ue4" => {
            let o = f32s(&mut out[0]);
            for j in 0..n {
                let (t, r) = (&ten[j * 10..j * 10 + 10], j * 12);
                o[r..r + 7].copy_from_slice(&t[..7]);
                o[r + 8..r + 11].copy_from_slice(&t[7..]);
            }
        }
        "unity" => {
            let (a, rest) = out.split_at_mut(1);
            let (b, c) = rest.split_at_mut(1);
            let (r, t, s) = (f32s(&mut a[0]), f32s(&mut b[0]), f32s(&mut c[0]));
            for j in 0..n {
                let x = &ten[j * 10..j * 10 + 10];
                r[j * 4..j * 4 + 4].copy_from_slice(&x[..4]);
                t[j * 3..j * 3 + 3].copy_from_slice(&x[4..7]);
                s[j * 3..j * 3 + 3].copy_from_slice(&x[7..]);
            }
        }
        _ => {
            let o = f32s(&mut out[0]);
            const AT: [usize; 10] = [12, 16, 20, 24, 0, 4, 8, 28, 32, 36];
            for j in 0..n {
                let x = &ten[j * 10..j * 10 + 10];
                let b = j / 4 * 40 + j % 4;
                for k in 0..10 {
                    o[b + AT[k]] = x[k];
                }
            }
        }
    }
}

fn f32s(v: &mut [u64]) -> &mut [f32] {
    // SAFETY: words viewed as floats.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<f32>(), v.len() * 2) }
}

fn bytes(v: &mut [u64]) -> &mut [u8] {
    // SAFETY: words viewed as bytes.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), v.len() * 8) }
}

/// `layouts DIR N [PRESET VARIANT]`.
fn layouts(args: &[String]) {
    let dir = PathBuf::from(&args[1]);
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let only = args.get(3).zip(args.get(4));
    let blobs = load_blobs(&dir);
    let variants = [
        "ten",
        "convert",
        "straight",
        "cten",
        "cstraight",
        "checked",
        "cchecked",
    ];
    let rounds = if only.is_some() { 1 } else { 5 };
    // ns per (preset, variant), summed over rounds.
    let mut ns = vec![[0u128; 7]; PRESETS.len()];
    let mut poses = 0usize;
    for round in 0..rounds {
        for (pi, (pname, layout)) in PRESETS.iter().enumerate() {
            for (vi, v) in variants.iter().enumerate() {
                if only.is_some_and(|(p, w)| p != pname || w != v) {
                    continue;
                }
                for b in &blobs {
                    let mut d =
                        Decompressor::new(b.as_bytes(), &DecompressOptions::default()).unwrap();
                    let nj = d.num_joints();
                    let dur = d.header().duration();
                    let mut ten = vec![0.0f32; nj * FLOATS_PER_JOINT];
                    let mut out: Vec<Vec<u64>> = (0..layout.buffers())
                        .map(|k| vec![0u64; layout.required_bytes(k, nj).unwrap().div_ceil(8)])
                        .collect();
                    let mut seed = 0x2545_f491_4f6c_dd1du64 ^ round as u64;
                    let k = layout.buffers();
                    let mut views: [&mut [u8]; 3] = [&mut [], &mut [], &mut []];
                    let mut copies: Vec<Vec<u64>> = out.clone();
                    for (a, o) in views.iter_mut().zip(out.iter_mut()) {
                        *a = bytes(o);
                    }
                    // The C path: a blob handle and a context over the same bytes.
                    let mut handle = ffi::AnimcompBlob { opaque: [0; 16] };
                    let mut ctx = ffi::AnimcompDecompressor {
                        opaque: [0; ffi::ANIMCOMP_DECOMPRESSOR_WORDS],
                    };
                    let mut clayout = std::mem::MaybeUninit::<ffi::AnimcompPoseLayout>::uninit();
                    let preset = [1u32, 2, 3, 4][pi];
                    let mut cbufs = ffi::AnimcompPoseBuffers {
                        data0: std::ptr::null_mut(),
                        size0: 0,
                        data1: std::ptr::null_mut(),
                        size1: 0,
                        data2: std::ptr::null_mut(),
                        size2: 0,
                    };
                    let mut cchecked = ffi::AnimcompCheckedPoseLayout { opaque: [0; 8] };
                    // SAFETY: valid pointers; the blob outlives the handle and context.
                    let clayout = unsafe {
                        let b = b.as_bytes();
                        assert_eq!(
                            ffi::animcomp_blob_open(
                                &mut handle,
                                b.as_ptr().cast(),
                                b.len(),
                                std::ptr::null()
                            ),
                            animcomp::Status::Ok
                        );
                        assert_eq!(
                            ffi::animcomp_decompressor_bind(&mut ctx, &handle),
                            animcomp::Status::Ok
                        );
                        assert_eq!(
                            ffi::animcomp_pose_layout_preset(preset, clayout.as_mut_ptr()),
                            animcomp::Status::Ok
                        );
                        let l = clayout.assume_init();
                        assert_eq!(
                            ffi::animcomp_pose_layout_check(&l, &mut cchecked),
                            animcomp::Status::Ok
                        );
                        l
                    };
                    {
                        let v: Vec<(*mut std::ffi::c_void, usize)> = views[..k]
                            .iter_mut()
                            .map(|v| (v.as_mut_ptr().cast(), v.len()))
                            .collect();
                        (cbufs.data0, cbufs.size0) = v[0];
                        if k == 3 {
                            (cbufs.data1, cbufs.size1) = v[1];
                            (cbufs.data2, cbufs.size2) = v[2];
                        }
                    }
                    let checked = layout.checked().unwrap();
                    let t0 = Instant::now();
                    for _ in 0..n {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        let t = (seed >> 40) as f32 / (1u64 << 24) as f32 * dur;
                        if vi < 3 || vi == 5 {
                            d.seek(black_box(t), Looping::Clamp, Rounding::None)
                                .unwrap();
                        } else {
                            // SAFETY: a bound context.
                            assert_eq!(
                                unsafe { ffi::animcomp_seek(&mut ctx, black_box(t), 0, 0) },
                                animcomp::Status::Ok
                            );
                        }
                        match vi {
                            0 => d.sample_pose(&mut ten, FLOATS_PER_JOINT).unwrap(),
                            1 => {
                                d.sample_pose(&mut ten, FLOATS_PER_JOINT).unwrap();
                                convert(pname, &ten, &mut copies);
                            }
                            2 => d.sample_pose_layout(layout, &mut views[..k]).unwrap(),
                            // SAFETY: a bound context; buffers checked by the call.
                            3 => assert_eq!(
                                unsafe {
                                    ffi::animcomp_sample_pose(&ctx, ten.as_mut_ptr(), ten.len(), 10)
                                },
                                animcomp::Status::Ok
                            ),
                            5 => d.sample_pose_checked(&checked, &mut views[..k]).unwrap(),
                            6 => assert_eq!(
                                unsafe {
                                    ffi::animcomp_sample_pose_checked(&ctx, &cchecked, &cbufs)
                                },
                                animcomp::Status::Ok
                            ),
                            _ => assert_eq!(
                                unsafe { ffi::animcomp_sample_pose_layout(&ctx, &clayout, &cbufs) },
                                animcomp::Status::Ok
                            ),
                        }
                        black_box(&mut ten);
                        black_box(&mut copies);
                        black_box(&mut views);
                    }
                    ns[pi][vi] += t0.elapsed().as_nanos();
                    if pi == 0 && vi == 0 {
                        poses += n;
                    }
                }
            }
        }
    }
    if only.is_some() {
        println!("done");
        return;
    }
    println!(
        "{} blobs, {} poses per variant and preset ({rounds} interleaved rounds)",
        blobs.len(),
        poses
    );
    for (pi, (pname, _)) in PRESETS.iter().enumerate() {
        let per = |vi: usize| ns[pi][vi] as f64 / poses as f64;
        println!(
            "{pname:6} ten {:7.1} ns  convert {:7.1} ns  straight {:7.1} ns  straight/convert {:.3}  straight/ten {:.3}  checked/ten {:.3}  C: ten {:7.1} ns  straight {:7.1} ns  straight/ten {:.3}  checked/ten {:.3}",
            per(0),
            per(1),
            per(2),
            per(2) / per(1),
            per(2) / per(0),
            per(5) / per(0),
            per(3),
            per(4),
            per(4) / per(3),
            per(6) / per(3)
        );
    }
}
