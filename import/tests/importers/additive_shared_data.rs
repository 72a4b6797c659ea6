//! Additive compression on real clips from `../shared/data` (or `$ANIMCOMP_SHARED_DATA`; skipped
//! when absent): two cmu-cc and two bandai clips (first 240 samples each, to bound the test's
//! time), each relative to its first sample in every format, and one bandai clip relative to
//! another bandai clip's first pose. Error of base ⊕ decoded additive is measured in f64 at
//! every sample ([`crate::common::additive_check`]) and must stay within the precision (0.01).

use crate::common::additive_check::{applied_error, first_pose, FORMATS};
use animcomp::offline::additive::{make_additive_clip, AdditiveBase};
use animcomp::{compress_additive, CompressSettings, RawClip};
use animcomp_import::{collect_files, load, ImportOptions};
use std::path::PathBuf;

fn data_root() -> Option<PathBuf> {
    let root = std::env::var_os("ANIMCOMP_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"));
    root.is_dir().then_some(root)
}

fn first_clips(root: &std::path::Path, set: &str, n: usize) -> Vec<RawClip> {
    let files = collect_files(&[root.join(set)]);
    files
        .iter()
        .take(n)
        .map(|f| {
            let mut c = load(f, &ImportOptions::default()).unwrap().remove(0).clip;
            let keep = c.num_samples.min(240);
            for t in &mut c.tracks {
                t.rotations.truncate(keep);
                t.translations.truncate(keep);
                t.scales.truncate(keep);
            }
            c.num_samples = keep;
            c.skeleton.set_error_settings(0.01, 3.0);
            c.validate().unwrap();
            c
        })
        .collect()
}

#[test]
fn real_clips_as_additive_clips_meet_precision() {
    let Some(root) = data_root() else {
        println!("SKIP: shared data not found (set ANIMCOMP_SHARED_DATA)");
        return;
    };
    let settings = CompressSettings::default();
    let mut cases: Vec<(String, RawClip, Vec<animcomp::math::Transform>)> = Vec::new();
    for set in ["cmu-cc", "bandai"] {
        for c in first_clips(&root, set, 2) {
            let base = first_pose(&c);
            cases.push((format!("{set}/{} vs first sample", c.name), c, base));
        }
    }
    let bandai = first_clips(&root, "bandai", 2);
    if bandai.len() == 2 && bandai[0].skeleton.joints.len() == bandai[1].skeleton.joints.len() {
        cases.push((
            format!("bandai/{} vs {}", bandai[0].name, bandai[1].name),
            bandai[0].clone(),
            first_pose(&bandai[1]),
        ));
    }
    assert!(!cases.is_empty());
    for (name, clip, base) in &cases {
        for f in FORMATS {
            let pose = AdditiveBase::Pose(base);
            let additive = make_additive_clip(clip, &pose, f).unwrap();
            let blob = compress_additive(&additive, &pose, f, &settings).unwrap();
            let e = applied_error(&additive, f, &|_| base.clone(), &blob);
            let plain = animcomp::compress(clip, &settings).unwrap().len();
            println!(
                "{name} {}: {} bytes (plain clip {plain}), max error {e:.5}",
                f.name(),
                blob.len()
            );
            assert!(e <= 0.01, "{name} {f:?}: error {e}");
        }
    }
}
