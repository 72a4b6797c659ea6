//! Quality tiers on whole clip sets: every clip compressed with the default settings
//! (precision 0.01, shell distance 3) without tiers and with tiers (two levels: resident 10x the
//! precision, level 1 attached 3x; and one level at 10x), each fidelity decoded through the
//! runtime at every sample and judged in float64 (`animcomp_import::judge64`, apart from
//! `animcomp::metric`: virtual vertices at the shell distance along the joints' local axes,
//! object space).
//!
//! Per set: the full bytes (no tiers); resident + tiers, resident alone and resident + level 1
//! over the full bytes; max and p99 error (over every joint-sample of the set) per fidelity;
//! where the resident bytes go (frames, segment metadata, the rest); compression time against
//! no tiers.
//!
//! `cargo run --release -p animcomp-bench --bin tiers_table -- [--max-clips N] [--resident F]
//! [--medium F] [DIR...]` (default: `../shared/data/cmu-cc` and `../shared/data/bandai`, resident
//! 10x and medium 3x the precision).

use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::offline::tiers::{blob_bytes, compress_tiered_fidelities, BlobBytes};
use animcomp::{compress, compress_tiered, AlignedBlob, CompressSettings, TierSettings};
use animcomp_import::judge64::{max_p99, Reference};
use animcomp_import::{collect_files, load, ImportOptions};
use std::path::PathBuf;
use std::time::{Duration, Instant};

const PRECISION: f32 = 0.01;
const SHELL: f32 = 3.0;

/// Every joint-sample error of `blob` decoded at the clip's samples, in float64 (appended to
/// `out`): `animcomp_import::judge64`, the reference the importers' error-bound tests use.
fn errors(reference: &Reference, blob: &[u8], out: &mut Vec<f64>) {
    let blob = AlignedBlob::from_bytes(blob);
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).expect("opens");
    out.extend(reference.errors_of(&mut d).expect("samples"));
}

#[derive(Default)]
struct Fidelity {
    bytes: usize,
    errors: Vec<f64>,
}

#[derive(Default)]
struct Set {
    clips: usize,
    full: Fidelity,
    full_time: Duration,
    /// Two levels: resident, + level 1, + both; the blobs' bytes (resident, tier 1, tier 2).
    two: [Fidelity; 3],
    two_blobs: [usize; 3],
    two_time: Duration,
    /// One level: resident, + level 1.
    one: [Fidelity; 2],
    one_blobs: [usize; 2],
    one_time: Duration,
    resident_bytes: BlobBytes,
    full_split: BlobBytes,
    stored: [usize; 3],
    samples: usize,
}

fn add(a: &mut BlobBytes, b: BlobBytes) {
    a.frames += b.frames;
    a.segment_metadata += b.segment_metadata;
    a.other += b.other;
}

fn main() {
    let mut dirs = Vec::new();
    let mut max_clips = usize::MAX;
    let mut two = TierSettings::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--max-clips" => max_clips = args.next().and_then(|n| n.parse().ok()).unwrap_or(8),
            "--resident" => two.resident_factor = args.next().and_then(|n| n.parse().ok()).unwrap(),
            "--medium" => two.medium_factor = args.next().and_then(|n| n.parse().ok()).unwrap(),
            _ => dirs.push(PathBuf::from(a)),
        }
    }
    if dirs.is_empty() {
        let root = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data"));
        dirs = vec![root.join("cmu-cc"), root.join("bandai")];
    }
    let settings = CompressSettings::default();
    let one = TierSettings { levels: 1, ..two };
    println!(
        "resident {}x, medium {}x the precision ({PRECISION})",
        two.resident_factor, two.medium_factor
    );
    for dir in dirs {
        if !dir.is_dir() {
            println!("{}: absent, skipped", dir.display());
            continue;
        }
        let mut set = Set::default();
        for f in collect_files(std::slice::from_ref(&dir)) {
            for ic in load(&f, &ImportOptions::default()).unwrap_or_default() {
                if set.clips >= max_clips {
                    break;
                }
                let mut clip = ic.clip;
                clip.skeleton.set_error_settings(PRECISION, SHELL);
                let t = Instant::now();
                let Ok(full) = compress(&clip, &settings) else {
                    continue;
                };
                set.full_time += t.elapsed();
                let t = Instant::now();
                let tiered = compress_tiered(&clip, &settings, &two).expect("tiers");
                set.two_time += t.elapsed();
                let t = Instant::now();
                let tiered1 = compress_tiered(&clip, &settings, &one).expect("tiers");
                set.one_time += t.elapsed();
                let b2 = compress_tiered_fidelities(&clip, &settings, &two).expect("tiers");
                let b1 = compress_tiered_fidelities(&clip, &settings, &one).expect("tiers");
                assert_eq!(b2.blobs, tiered);
                assert_eq!(b1.blobs, tiered1);
                assert_eq!(b2.full, full);
                assert_eq!(
                    b2.fidelities[2], full,
                    "all tiers decode like the full blob"
                );
                set.clips += 1;
                let raw = Reference::new(&clip);
                set.full.bytes += full.len();
                errors(&raw, &full, &mut set.full.errors);
                for k in 0..3 {
                    errors(&raw, &b2.fidelities[k], &mut set.two[k].errors);
                    set.stored[k] += b2.stored[k];
                }
                set.samples += clip.num_samples;
                // The resident blob itself, beside its plain twin.
                let mut check = Vec::new();
                errors(&raw, &tiered.resident, &mut check);
                let n = check.len();
                assert_eq!(check[..], set.two[0].errors[set.two[0].errors.len() - n..]);
                set.two_blobs[0] += tiered.resident.len();
                set.two_blobs[1] += tiered.tiers[0].len();
                set.two_blobs[2] += tiered.tiers[1].len();
                for k in 0..2 {
                    errors(&raw, &b1.fidelities[k], &mut set.one[k].errors);
                }
                set.one_blobs[0] += tiered1.resident.len();
                set.one_blobs[1] += tiered1.tiers[0].len();
                add(
                    &mut set.resident_bytes,
                    blob_bytes(&tiered.resident).unwrap(),
                );
                add(&mut set.full_split, blob_bytes(&full).unwrap());
            }
        }
        report(&dir, &mut set);
    }
}

fn report(dir: &std::path::Path, s: &mut Set) {
    let full = s.full.bytes.max(1) as f64;
    let r = |b: usize| b as f64 / full;
    println!(
        "{} ({} clips, {} samples)",
        dir.display(),
        s.clips,
        s.samples
    );
    println!(
        "  {:<34} {:>10} {:>8} {:>10} {:>10}",
        "fidelity", "bytes", "/ full", "max error", "p99 error"
    );
    let (m, p) = max_p99(&mut s.full.errors);
    println!(
        "  {:<34} {:>10} {:>8.3} {:>10.4} {:>10.4}",
        "no tiers (full)", s.full.bytes, 1.0, m, p
    );
    let b = s.two_blobs;
    let rows2 = [
        ("2 levels: resident alone", b[0]),
        ("2 levels: resident + level 1", b[0] + b[1]),
        ("2 levels: resident + both", b[0] + b[1] + b[2]),
    ];
    for (k, (name, bytes)) in rows2.iter().enumerate() {
        let (m, p) = max_p99(&mut s.two[k].errors);
        println!(
            "  {:<34} {:>10} {:>8.3} {:>10.4} {:>10.4}",
            name,
            bytes,
            r(*bytes),
            m,
            p
        );
    }
    let b = s.one_blobs;
    for (k, (name, bytes)) in [
        ("1 level: resident alone", b[0]),
        ("1 level: resident + level 1", b[0] + b[1]),
    ]
    .iter()
    .enumerate()
    {
        let (m, p) = max_p99(&mut s.one[k].errors);
        println!(
            "  {:<34} {:>10} {:>8.3} {:>10.4} {:>10.4}",
            name,
            bytes,
            r(*bytes),
            m,
            p
        );
    }
    println!(
        "  stored samples (2 levels): resident {} / + level 1 {} / full {}",
        s.stored[0], s.stored[1], s.stored[2]
    );
    let split = |name: &str, x: &BlobBytes| {
        let t = (x.frames + x.segment_metadata + x.other).max(1) as f64;
        println!(
            "  {name} bytes: frames {} ({:.1} %), segment metadata {} ({:.1} %), other {} ({:.1} %)",
            x.frames,
            100.0 * x.frames as f64 / t,
            x.segment_metadata,
            100.0 * x.segment_metadata as f64 / t,
            x.other,
            100.0 * x.other as f64 / t
        );
    };
    split("full", &s.full_split);
    split("resident (2 levels)", &s.resident_bytes);
    println!(
        "  compression time: no tiers {:.2} s, 2 levels {:.2} s ({:.2}x), 1 level {:.2} s ({:.2}x)",
        s.full_time.as_secs_f64(),
        s.two_time.as_secs_f64(),
        s.two_time.as_secs_f64() / s.full_time.as_secs_f64().max(1e-9),
        s.one_time.as_secs_f64(),
        s.one_time.as_secs_f64() / s.full_time.as_secs_f64().max(1e-9),
    );
}
