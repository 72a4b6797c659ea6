//! Blob sizes of the `vbr` layouts per set: every clip of the given files or folders compressed
//! with the default settings (the grouped layout, format version 4) against the segments body
//! the encoder wrote before regrouping (`compress_segments`, format version 2), summed; the
//! largest growth of one clip (percent, and bytes).
//!
//! `cargo run --release -p animcomp-bench --example layout_sizes -- ../shared/data/bandai`
//! (`--per-clip` prints every clip).

use animcomp::decompress::vbr::grouped::GroupedClip;
use animcomp::offline::compress::compress_segments;
use animcomp::{compress, AlignedBlob, CompressSettings};
use animcomp_import::{collect_files, load, ImportOptions};
use std::collections::BTreeMap;
use std::path::PathBuf;

fn main() {
    let mut paths = Vec::new();
    let mut per_clip = false;
    let mut resample = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--per-clip" => per_clip = true,
            "--resample" => resample = args.next().and_then(|r| r.parse::<f32>().ok()),
            _ => paths.push(PathBuf::from(a)),
        }
    }
    let (mut clips, mut seg, mut grp) = (0usize, 0usize, 0usize);
    let (mut worst_pct, mut worst_bytes) = (f64::MIN, i64::MIN);
    let mut parts: BTreeMap<&'static str, usize> = BTreeMap::new();
    for f in collect_files(&paths) {
        for ic in load(&f, &ImportOptions::default()).unwrap_or_default() {
            let clip = match resample {
                Some(r) => match ic.clip.resample(r) {
                    Ok(c) => c,
                    Err(_) => continue,
                },
                None => ic.clip,
            };
            let s = CompressSettings::default();
            let (Ok(a), Ok(b)) = (compress_segments(&clip, &[], &s), compress(&clip, &s)) else {
                continue;
            };
            clips += 1;
            if let Ok(p) = GroupedClip::convert(AlignedBlob::from_bytes(&b).as_bytes()) {
                for (k, v) in p.parts() {
                    *parts.entry(k).or_default() += v;
                }
            }
            seg += a.len();
            grp += b.len();
            let pct = 100.0 * (b.len() as f64 / a.len() as f64 - 1.0);
            let bytes = b.len() as i64 - a.len() as i64;
            worst_pct = worst_pct.max(pct);
            worst_bytes = worst_bytes.max(bytes);
            if per_clip {
                println!("{}\t{}\t{}\t{pct:+.2}%", f.display(), a.len(), b.len());
            }
        }
    }
    for (k, v) in &parts {
        println!("  {k:24} {v:>10}");
    }
    println!(
        "{clips} clips: segments {seg} bytes, grouped {grp} bytes ({:+.3}%); largest growth of a clip {worst_pct:+.2}%, {worst_bytes:+} bytes",
        100.0 * (grp as f64 / seg as f64 - 1.0)
    );
}
