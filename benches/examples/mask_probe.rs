//! What a resident part (quality tiers, docs/tiers.md) would weigh if samples left it per
//! group of sub-tracks (or per sub-track) instead of per segment, alone and on top of coarser
//! quantisation. No format stores such masks: the bytes are an estimate, the errors are judged.
//!
//! For each clip and each `k` of `--ks` (default 1, 2, 3, 5 and 10), the clip is compressed as
//! `compress` compresses it (default settings) at `k` times the precision (0.01); then in each
//! segment the library's greedy (`animcomp::offline::tiers::groups`: the removal adding the
//! least error first, the error measured by the search's own decode and object-space metric at
//! every joint the removal reaches) removes samples per mask unit — `segment` (one mask for
//! every sub-track: the format's), `group` (one per group of the grouped layout: up to eight
//! sub-tracks of one channel), `track` (one per sub-track) — up to `--cap` times the precision.
//! A removal is within bound `B` when every joint stays within `B` times its precision (times
//! the search's margin 0.98, as the tiers' factors), max over the segment's samples.
//!
//! Bytes of a resident at bound `B`: the coarse blob's bytes, less its frames, plus each
//! segment's kept frame bits (rounded up to bytes per segment) and, once any sample leaves, a
//! mask of `seg_len / 8` bytes per unit per segment and a stored frame size (2 bytes) per
//! segment; over the bytes of the blob at the precision (k = 1). Group offsets inside a
//! segment and the 16-byte padding are not counted. `k = 10` is judged without removals
//! (coarser quantisation alone).
//!
//! Errors: the decoded poses of the greedy at bounds 10, 15, 20 and 30 (`--bounds`), judged in
//! float64 (`animcomp_import::judge64`) at every sample and joint against the clip: max and p99
//! over the set's joint-samples (p99 from a histogram with 0.6 % bins).
//!
//! `cargo run --release -p animcomp-bench --example mask_probe -- [--max-clips N] [--skip N]
//! [--ks 1,2,3,5,10] [--units segment,group] [--bounds 10,15,20,30] [--cap 40] DIR...`

use animcomp::math::Transform;
use animcomp::offline::tiers::blob_bytes;
use animcomp::offline::tiers::groups::{set_removals, MaskUnit, SetRemovals};
use animcomp::{CompressSettings, RawClip};
use animcomp_import::judge64::Reference;
use animcomp_import::{collect_files, load, ImportOptions};
use std::path::PathBuf;
use std::time::Instant;

const PRECISION: f32 = 0.01;
const SHELL: f32 = 3.0;

/// Log-spaced histogram of errors from 1e-7 to 1e3.
struct Hist {
    bins: Vec<u64>,
    max: f64,
    n: u64,
}

const PER_DECADE: f64 = 400.0;

impl Hist {
    fn new() -> Hist {
        Hist {
            bins: vec![0; (10.0 * PER_DECADE) as usize + 2],
            max: 0.0,
            n: 0,
        }
    }
    fn add(&mut self, e: f64) {
        self.max = self.max.max(e);
        self.n += 1;
        let b = if e <= 1e-7 {
            0
        } else {
            (((e.log10() + 7.0) * PER_DECADE).floor() as usize + 1).min(self.bins.len() - 1)
        };
        self.bins[b] += 1;
    }
    /// The p99 (nearest rank), as its bin's upper edge.
    fn p99(&self) -> f64 {
        let k = ((self.n.saturating_sub(1)) as f64 * 0.99).round() as u64;
        let mut seen = 0;
        for (b, &c) in self.bins.iter().enumerate() {
            seen += c;
            if seen > k {
                return 10f64.powf(b as f64 / PER_DECADE - 7.0).min(self.max);
            }
        }
        self.max
    }
}

fn parse_list<T: std::str::FromStr>(s: &str) -> Vec<T> {
    s.split(',').filter_map(|x| x.trim().parse().ok()).collect()
}

/// Resident bytes of one clip at bound `t` (the search's unit of the coarse clip) with a mask
/// per unit per segment, and the masks' bytes in it; then the same with masks only where a unit
/// drops a sample (a bit per unit per segment saying which units store one).
fn resident_bytes(r: &SetRemovals, unit: usize, t: f32) -> [f64; 3] {
    let (sets, segs) = &r.units[unit];
    let frames = blob_bytes(&r.full).expect("a grouped blob").frames;
    if segs
        .iter()
        .all(|s| s.steps.first().is_none_or(|&(_, k)| k > t))
    {
        return [r.full.len() as f64, 0.0, r.full.len() as f64];
    }
    let kept: u64 = segs.iter().map(|s| s.frame_bits(t).div_ceil(8)).sum();
    let mask = r.seg_len / 8;
    let dense = (segs.len() * (sets * mask + 2)) as f64;
    let sparse: usize = segs
        .iter()
        .map(|s| {
            let mut dropped = vec![false; *sets];
            for &(g, k) in s.steps.iter().take_while(|&&(_, k)| k <= t) {
                let _ = k;
                dropped[g as usize] = true;
            }
            sets.div_ceil(8) + 2 + mask * dropped.iter().filter(|&&d| d).count()
        })
        .sum();
    let rest = (r.full.len() - frames) as f64 + kept as f64;
    [rest + dense, dense, rest + sparse as f64]
}

/// A scheme's totals over a set: coarse `k` with removals per one mask unit.
struct Acc {
    /// Resident bytes (dense masks, sparse masks) at each bound of the sweep.
    sweep: Vec<[f64; 2]>,
    /// At each judged bound: resident bytes (dense, masks alone, sparse).
    bytes: Vec<[f64; 3]>,
    hist: Vec<Hist>,
}

fn main() {
    let mut dirs = Vec::new();
    let (mut max_clips, mut skip) = (usize::MAX, 0usize);
    let mut ks: Vec<f32> = vec![1.0, 2.0, 3.0, 5.0, 10.0];
    let mut units = vec![MaskUnit::Segment, MaskUnit::Group];
    let mut bounds: Vec<f32> = vec![10.0, 15.0, 20.0, 30.0];
    let mut cap = 40.0f32;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_default();
        match a.as_str() {
            "--max-clips" => max_clips = val().parse().unwrap_or(8),
            "--skip" => skip = val().parse().unwrap_or(0),
            "--ks" => ks = parse_list(&val()),
            "--bounds" => bounds = parse_list(&val()),
            "--cap" => cap = val().parse().unwrap_or(40.0),
            "--units" => {
                units = val()
                    .split(',')
                    .map(|u| match u {
                        "segment" => MaskUnit::Segment,
                        "group" => MaskUnit::Group,
                        "track" => MaskUnit::SubTrack,
                        _ => panic!("unit: segment, group or track"),
                    })
                    .collect()
            }
            _ => dirs.push(PathBuf::from(a)),
        }
    }
    let sweep: Vec<f32> = (0..=2 * (cap as usize - 1))
        .map(|i| 1.0 + 0.5 * i as f32)
        .collect();
    // Judged bounds of each k: -1 (the coarse blob alone), then the bounds from k up (x precision).
    let judged: Vec<Vec<f32>> = ks
        .iter()
        .map(|&k| {
            std::iter::once(-1.0)
                .chain(bounds.iter().copied().filter(|&b| b >= k))
                .collect()
        })
        .collect();
    for dir in dirs {
        let t0 = Instant::now();
        let mut acc: Vec<Vec<Acc>> = judged
            .iter()
            .map(|bs| {
                units
                    .iter()
                    .map(|_| Acc {
                        sweep: vec![[0.0; 2]; sweep.len()],
                        bytes: vec![[0.0; 3]; bs.len()],
                        hist: (0..bs.len()).map(|_| Hist::new()).collect(),
                    })
                    .collect()
            })
            .collect();
        let mut full_bytes = 0.0f64;
        let (mut clips, mut samples, mut sets) = (0usize, 0usize, vec![0usize; units.len()]);
        let mut seen = 0usize;
        'files: for f in collect_files(std::slice::from_ref(&dir)) {
            for ic in load(&f, &ImportOptions::default()).unwrap_or_default() {
                if clips >= max_clips {
                    break 'files;
                }
                seen += 1;
                if seen <= skip {
                    continue;
                }
                let mut clip: RawClip = ic.clip;
                clip.skeleton.set_error_settings(PRECISION, SHELL);
                let Ok(full) = animcomp::compress(&clip, &CompressSettings::default()) else {
                    eprintln!("{}: skipped", f.display());
                    continue;
                };
                let reference = Reference::new(&clip);
                let nj = clip.num_joints();
                let mut errs = vec![0.0f64; nj];
                for (ki, &k) in ks.iter().enumerate() {
                    let mut c = clip.clone();
                    c.skeleton.set_error_settings(PRECISION * k, SHELL);
                    let bs: Vec<f32> = judged[ki].iter().map(|&b| b / k).collect();
                    let accs = &mut acc[ki];
                    let r = set_removals(
                        &c,
                        &CompressSettings::default(),
                        &units,
                        cap / k,
                        &bs,
                        &mut |u, b, s, local: &[Transform]| {
                            // The coarse blob alone is judged once.
                            if (b == 0 && u > 0) || s >= reference.num_samples() {
                                return;
                            }
                            reference.errors_at(s, local, &mut errs);
                            let h = &mut accs[u].hist[b];
                            for &e in &errs {
                                h.add(e);
                            }
                        },
                    )
                    .expect("compresses");
                    for (u, a) in acc[ki].iter_mut().enumerate() {
                        for (i, &b) in bs.iter().enumerate() {
                            let r = resident_bytes(&r, u, b);
                            for (x, y) in a.bytes[i].iter_mut().zip(r) {
                                *x += y;
                            }
                        }
                        for (i, &b) in sweep.iter().enumerate() {
                            let r = resident_bytes(&r, u, if b < k { -1.0 } else { b / k });
                            a.sweep[i][0] += r[0];
                            a.sweep[i][1] += r[2];
                        }
                        if ki == 0 {
                            sets[u] += r.units[u].0;
                        }
                    }
                }
                full_bytes += full.len() as f64;
                clips += 1;
                samples += clip.num_samples;
                eprintln!(
                    "{} clips, {:.0} s: {}",
                    clips,
                    t0.elapsed().as_secs_f64(),
                    f.display()
                );
            }
        }
        println!(
            "{} ({clips} clips from #{}, {samples} samples, {:.0} s)",
            dir.display(),
            skip + 1,
            t0.elapsed().as_secs_f64()
        );
        for (u, unit) in units.iter().enumerate() {
            println!(
                "  {:?}: {:.1} mask units per clip on average",
                unit,
                sets[u] as f64 / clips.max(1) as f64
            );
        }
        println!(
            "  {:<22} {:>6} {:>8} {:>8} {:>10} {:>10} {:>8}",
            "scheme", "bound", "/ full", "sparse", "max", "p99", "masks"
        );
        for (ki, &k) in ks.iter().enumerate() {
            for (u, unit) in units.iter().enumerate() {
                let a = &acc[ki][u];
                for (i, &b) in judged[ki].iter().enumerate() {
                    if b < 0.0 && u > 0 {
                        continue;
                    }
                    let name = match b < 0.0 {
                        true => format!("coarse {k}x alone"),
                        false => format!("coarse {k}x + {unit:?}"),
                    };
                    println!(
                        "  {:<22} {:>6} {:>8.3} {:>8.3} {:>10.4} {:>10.4} {:>8.3}",
                        name,
                        if b < 0.0 { k } else { b },
                        a.bytes[i][0] / full_bytes,
                        a.bytes[i][2] / full_bytes,
                        a.hist[i].max,
                        a.hist[i].p99(),
                        a.bytes[i][1] / full_bytes
                    );
                }
                let half = |m: usize| {
                    sweep
                        .iter()
                        .zip(&a.sweep)
                        .find(|(&t, b)| t >= k && b[m] / full_bytes <= 0.5)
                        .map(|(t, _)| format!("{t}x"))
                        .unwrap_or_else(|| format!("> {cap}x"))
                };
                let curve: Vec<String> = [10.0f32, 12.0, 15.0, 20.0, 25.0, 30.0, 40.0, 50.0, 60.0]
                    .iter()
                    .filter(|&&t| t >= k)
                    .filter_map(|t| sweep.iter().position(|s| s == t))
                    .map(|i| format!("{}x {:.3}", sweep[i], a.sweep[i][0] / full_bytes))
                    .collect();
                println!(
                    "  {:<22} half at {} (sparse masks {}); {}",
                    format!("coarse {k}x + {unit:?}"),
                    half(0),
                    half(1),
                    curve.join(", ")
                );
            }
        }
    }
}
