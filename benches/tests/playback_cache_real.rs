//! The playback cache on real clips (`../shared/data`, skipped with a message when absent): poses
//! sampled through a cache are bit for bit those sampled without one, over playback at 30, 60 and
//! 144 fps (forward, wrapping past the end), backwards, and random jumps. It lives in this crate
//! because the root crate may not depend on the importers.

use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::{compress, AlignedBlob, CompressSettings};
use animcomp_import::{collect_files, load, ImportOptions};
use std::path::{Path, PathBuf};

/// Every `step`-th clip of a shared set (sorted), or `None` with a message when it is absent.
fn clips(set: &str, step: usize) -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data")
        .join(set);
    if !dir.is_dir() {
        eprintln!("skipping: {} not present", dir.display());
        return None;
    }
    let mut files = collect_files(&[dir]);
    files.sort();
    Some(files.into_iter().step_by(step).collect())
}

fn check(set: &str, step: usize) {
    let Some(files) = clips(set, step) else {
        return;
    };
    let mut checked = 0;
    for f in &files {
        let clips = load(f, &ImportOptions::default()).unwrap_or_default();
        for ic in clips {
            // Some regression clips are refused on purpose (non-finite values).
            let Ok(bytes) = compress(&ic.clip, &CompressSettings::default()) else {
                continue;
            };
            let blob = AlignedBlob::from_bytes(&bytes);
            let mut plain =
                Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
            let mut cached = plain;
            let mut mem = vec![0u128; plain.playback_cache_size().div_ceil(16)];
            // SAFETY: the words of `mem` viewed as bytes.
            let cache = unsafe {
                std::slice::from_raw_parts_mut(mem.as_mut_ptr().cast::<u8>(), mem.len() * 16)
            };
            let nj = plain.num_joints();
            let (mut a, mut b) = (vec![0f32; nj * 10], vec![0f32; nj * 10]);
            let dur = plain.header().duration();
            let mut times = Vec::new();
            for fps in [30.0f32, 60.0, 144.0] {
                times.extend((0..240).map(|i| 0.61 * dur + i as f32 / fps));
            }
            times.extend((0..120).map(|i| 0.5 * dur - i as f32 / 60.0));
            times.extend((0..60).map(|i| ((i * 7919) % 1000) as f32 / 1000.0 * dur));
            for &t in &times {
                plain.seek(t, Looping::Wrap, Rounding::None).unwrap();
                cached.seek(t, Looping::Wrap, Rounding::None).unwrap();
                plain.sample_pose(&mut a, 10).unwrap();
                cached.sample_pose_cached(cache, &mut b, 10).unwrap();
                assert!(
                    a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
                    "{} at {t}: the cached pose differs",
                    f.display()
                );
            }
            checked += 1;
        }
    }
    eprintln!("{set}: {checked} clips, cached poses identical");
    assert!(checked > 0);
}

#[test]
fn cached_poses_are_plain_poses_on_cmu() {
    check("cmu-cc", 7);
}

#[test]
fn cached_poses_are_plain_poses_on_bandai() {
    check("bandai", 29);
}

#[test]
fn cached_poses_are_plain_poses_on_acl_regression() {
    check("acl-regression", 1);
}
