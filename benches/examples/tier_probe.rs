//! What a resident part of a clip (quality tiers, docs/tiers.md) could weigh and how wrong it would
//! be, before any tier format exists: each clip compressed in full (default settings, precision
//! 0.01) and as candidate residents, each decoded through the runtime at every one of the clip's
//! own sample times and judged against the clip with the library's metric (virtual vertices at
//! the shell distance, object space):
//!
//! - `coarse`: the whole clip at ten times the precision (what coarser quantisation alone keeps;
//!   the tiers would hold refinement bits);
//! - `half`: every second sample (the clip resampled at half its rate) at the precision;
//! - `half coarse`: both;
//! - `third coarse`: a third of the samples at ten times the precision;
//! - `coarse 20x`, `coarse 50x`, `coarse 100x`: the whole clip at 20, 50 and 100 times the
//!   precision (where the bytes fall to half);
//! - `best`, `best coarse`: the precision and ten times it at `Level::Best` (keyframes dropped
//!   where the error allows; the default level keeps every sample);
//! - `keys coarse`: ten times the precision with the `keys` codec (key reduction and curve
//!   fitting instead of a value per sample).
//!
//! Per set: the candidates' bytes over the full blobs', and their max and p99 errors (the
//! largest clip's).
//!
//! `cargo run --release -p animcomp-bench --example tier_probe -- [--max-clips N] DIR...`

use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::math::{Transform, FLOATS_PER_JOINT};
use animcomp::metric::Metric;
use animcomp::offline::Level;
use animcomp::{compress, AlignedBlob, CodecChoice, CompressSettings, RawClip};
use animcomp_import::{collect_files, load, ImportOptions};
use std::path::PathBuf;

/// Precision of the full blobs (ACL's default).
const PRECISION: f32 = 0.01;
/// Shell distance (ACL's default).
const SHELL: f32 = 3.0;

/// A candidate resident: the rate divisor, the precision factor and the settings.
const CANDIDATES: [(&str, f32, f32, Settings); 10] = [
    ("coarse", 1.0, 10.0, Settings::Default),
    ("half", 2.0, 1.0, Settings::Default),
    ("half coarse", 2.0, 10.0, Settings::Default),
    ("third coarse", 3.0, 10.0, Settings::Default),
    ("coarse 20x", 1.0, 20.0, Settings::Default),
    ("coarse 50x", 1.0, 50.0, Settings::Default),
    ("coarse 100x", 1.0, 100.0, Settings::Default),
    ("best", 1.0, 1.0, Settings::Best),
    ("best coarse", 1.0, 10.0, Settings::Best),
    ("keys coarse", 1.0, 10.0, Settings::Keys),
];

/// The compression settings of a candidate.
#[derive(Clone, Copy)]
enum Settings {
    Default,
    Best,
    Keys,
}

impl Settings {
    fn get(self) -> CompressSettings {
        let mut s = CompressSettings::default();
        match self {
            Settings::Default => {}
            Settings::Best => s.level = Level::Best,
            Settings::Keys => s.codec = CodecChoice::Keys,
        }
        s
    }
}

/// The (max, p99) error of `blob` decoded at `clip`'s sample times.
fn judge(clip: &RawClip, blob: &[u8]) -> (f32, f32) {
    let metric = Metric::new(clip);
    let blob = AlignedBlob::from_bytes(blob);
    let mut d =
        Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).expect("a valid blob");
    let nj = clip.num_joints();
    let mut floats = vec![0.0f32; nj * FLOATS_PER_JOINT];
    let stats = metric.measure(|i, out| {
        d.seek(i as f32 / clip.sample_rate, Looping::Clamp, Rounding::None)
            .expect("a time in the clip");
        d.sample_pose(&mut floats, FLOATS_PER_JOINT)
            .expect("a pose buffer of the clip's joints");
        for (j, t) in out.iter_mut().enumerate() {
            *t = Transform::read_from(&floats[j * FLOATS_PER_JOINT..(j + 1) * FLOATS_PER_JOINT]);
        }
    });
    (stats.max_error, stats.p99_error)
}

fn main() {
    let mut dirs = Vec::new();
    let mut max_clips = usize::MAX;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--max-clips" => max_clips = args.next().and_then(|n| n.parse().ok()).unwrap_or(8),
            _ => dirs.push(PathBuf::from(a)),
        }
    }
    for dir in dirs {
        let mut full_bytes = 0usize;
        let mut full_err = (0.0f32, 0.0f32);
        let mut cand = [(0usize, 0.0f32, 0.0f32); CANDIDATES.len()];
        let mut clips = 0;
        for f in collect_files(std::slice::from_ref(&dir)) {
            for ic in load(&f, &ImportOptions::default()).unwrap_or_default() {
                if clips >= max_clips {
                    break;
                }
                let mut clip = ic.clip;
                clip.skeleton.set_error_settings(PRECISION, SHELL);
                let Ok(full) = compress(&clip, &CompressSettings::default()) else {
                    continue;
                };
                clips += 1;
                full_bytes += full.len();
                let (m, p) = judge(&clip, &full);
                full_err = (full_err.0.max(m), full_err.1.max(p));
                for (k, &(_, div, factor, settings)) in CANDIDATES.iter().enumerate() {
                    let mut c = if div > 1.0 {
                        match clip.resample(clip.sample_rate / div) {
                            Ok(c) => c,
                            Err(_) => clip.clone(),
                        }
                    } else {
                        clip.clone()
                    };
                    c.skeleton.set_error_settings(PRECISION * factor, SHELL);
                    let blob = compress(&c, &settings.get()).expect("compresses");
                    let (m, p) = judge(&clip, &blob);
                    cand[k].0 += blob.len();
                    cand[k].1 = cand[k].1.max(m);
                    cand[k].2 = cand[k].2.max(p);
                }
            }
        }
        println!("{} ({clips} clips)", dir.display());
        println!(
            "  {:<14} {:>10} {:>8} {:>10} {:>10}",
            "resident", "bytes", "/ full", "max error", "p99 (max)"
        );
        println!(
            "  {:<14} {:>10} {:>8.3} {:>10.4} {:>10.4}",
            "full", full_bytes, 1.0, full_err.0, full_err.1
        );
        for (k, &(name, ..)) in CANDIDATES.iter().enumerate() {
            println!(
                "  {:<14} {:>10} {:>8.3} {:>10.4} {:>10.4}",
                name,
                cand[k].0,
                cand[k].0 as f64 / full_bytes.max(1) as f64,
                cand[k].1,
                cand[k].2
            );
        }
    }
}
