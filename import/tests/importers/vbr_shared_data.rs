//! The `vbr` codec on real clips from `../shared/data` (skipped when the folder is absent).
//!
//! Lives in the importer crate because the root crate may not depend on the importers. Asserts
//! the guarantee stated in docs/vbr.md: through the real decompressor, every joint's error at
//! every sample time is within its precision (the clip's own precision for ACL clips, 0.01 for
//! BVH), and the same clip gives the same bytes twice.

use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::math::Transform;
use animcomp::metric::Metric;
use animcomp::offline::{CodecChoice, CompressSettings, Level};
use animcomp::{compress, AlignedBlob, RawClip};
use animcomp_import::{load, ImportOptions};
use std::path::{Path, PathBuf};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data")
}

/// Files of a set, sorted, at most `limit`.
fn files(set: &str, ext: &str, limit: usize) -> Option<Vec<PathBuf>> {
    let dir = data_dir().join(set);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    v.sort();
    v.truncate(limit);
    Some(v)
}

/// Compresses at `level`, decodes every sample through the decompressor and returns the
/// largest error relative to each joint's precision, and the blob.
fn worst_relative_error(clip: &RawClip, level: Level) -> (f32, Vec<u8>) {
    let s = CompressSettings {
        codec: CodecChoice::Vbr,
        level,
        ..Default::default()
    };
    let blob = compress(clip, &s).expect("compress");
    let aligned = AlignedBlob::from_bytes(&blob);
    let bind = crate::common::bind_floats(clip);
    let opts = DecompressOptions {
        bind_pose: bind.as_deref(),
        ..Default::default()
    };
    let mut d = Decompressor::new(aligned.as_bytes(), &opts).expect("valid blob");
    let metric = Metric::new(clip);
    let nj = clip.num_joints();
    let (mut local, mut scratch, mut errs) = (
        vec![Transform::IDENTITY; nj],
        vec![Transform::IDENTITY; nj],
        vec![0.0f32; nj],
    );
    let mut worst = 0.0f32;
    for i in 0..clip.num_samples {
        d.pose_at_sample(i as u32, &mut local).unwrap();
        metric.errors_at(i, &local, &mut scratch, &mut errs);
        for (e, j) in errs.iter().zip(&clip.skeleton.joints) {
            worst = worst.max(if e.is_nan() {
                f32::INFINITY
            } else {
                e / j.precision
            });
        }
    }
    (worst, blob)
}

fn run(set: &str, ext: &str, limit: usize) {
    let Some(paths) = files(set, ext, limit) else {
        println!("skipping: {} not found", data_dir().join(set).display());
        return;
    };
    let mut checked = 0;
    for p in paths {
        let Ok(clips) = load(&p, &ImportOptions::default()) else {
            continue;
        };
        for ic in clips {
            let mut clip = ic.clip;
            if clip.validate().is_err() {
                // e.g. the 1e25 translation of `_with_inf_error`: rejected before any codec runs.
                continue;
            }
            let (worst, blob) = worst_relative_error(&clip, Level::Default);
            assert!(
                worst <= 1.0001,
                "{}: worst error is {worst} x precision",
                p.display()
            );
            let again = compress(
                &clip,
                &CompressSettings {
                    codec: CodecChoice::Vbr,
                    ..Default::default()
                },
            )
            .unwrap();
            assert_eq!(blob, again, "{}: not deterministic", p.display());
            checked += 1;
        }
    }
    println!("{set}: {checked} clips within precision");
}

#[test]
fn cmu_cc_clips_within_precision() {
    run("cmu-cc", ".bvh", 2);
}

#[test]
fn bandai_clips_within_precision() {
    run("bandai", ".bvh", 6);
}

#[test]
fn acl_regression_clips_within_precision() {
    run("acl-regression", ".sjson", 100);
}
