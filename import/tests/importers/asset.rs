//! `load_asset` reads a file once and gives what `load` and `load_curves` give separately: the
//! same clips and the same curve sets, a curve-only file as curves with no clips, and the clip
//! importer's error when a file gives neither.

use super::fbx_import::{fixture, SEC};
use animcomp_import::{load, load_asset, load_curves, ImportOptions};
use std::path::{Path, PathBuf};

/// A fresh folder for this test's files.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("animcomp-asset-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn same_as_separate_loads(path: &Path) {
    let opts = ImportOptions::default();
    let asset = load_asset(path, &opts).unwrap();
    let clips = load(path, &opts).unwrap();
    let sets = load_curves(path, None).unwrap();
    assert_eq!(asset.clips.len(), clips.len());
    for (a, b) in asset.clips.iter().zip(&clips) {
        assert_eq!(a.clip.name, b.clip.name);
        assert_eq!(a.clip.num_samples, b.clip.num_samples);
        assert_eq!(a.clip.tracks.len(), b.clip.tracks.len());
        assert_eq!(a.units, b.units);
        for (ta, tb) in a.clip.tracks.iter().zip(&b.clip.tracks) {
            assert_eq!(ta.rotations, tb.rotations);
            assert_eq!(ta.translations, tb.translations);
        }
    }
    assert_eq!(asset.curve_sets.len(), sets.len());
    for (a, b) in asset.curve_sets.iter().zip(&sets) {
        assert_eq!(
            (&a.name, a.num_samples, &a.source),
            (&b.name, b.num_samples, &b.source)
        );
        for (ca, cb) in a.curves.iter().zip(&b.curves) {
            assert_eq!((&ca.name, &ca.values), (&cb.name, &cb.values));
        }
    }
    assert!(!asset.is_curve_only());
}

#[test]
fn an_fbx_asset_holds_its_clips() {
    let dir = scratch("fbx");
    let p = dir.join("chain.fbx");
    std::fs::write(&p, fixture(0, SEC, SEC, true, true)).unwrap();
    same_as_separate_loads(&p);
    // No bones and no blend shapes: neither clips nor curves, the clip importer's error.
    let bare = dir.join("bare.fbx");
    std::fs::write(&bare, fixture(0, SEC, SEC, true, false)).unwrap();
    let e = load_asset(&bare, &ImportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("no skeleton"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shared_fbx_with_blend_shapes_gives_clips_and_curves_from_one_read() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/fbx/ufbx/blender_293_barbarian_7400_binary.fbx");
    if !p.exists() {
        println!("SKIP: {} not found", p.display());
        return;
    }
    same_as_separate_loads(&p);
    let asset = load_asset(&p, &ImportOptions::default()).unwrap();
    assert!(!asset.clips.is_empty() && !asset.curve_sets.is_empty());
}

#[test]
fn a_curve_file_is_a_curve_only_asset() {
    let dir = scratch("csv");
    let p = dir.join("face.csv");
    let mut text = String::from("Timecode,BlendShapeCount,EyeBlinkLeft,JawOpen\n");
    for i in 0..10 {
        text.push_str(&format!("00:00:00:{i:02}.0,2,{},0.5\n", i as f32 / 10.0));
    }
    std::fs::write(&p, text).unwrap();
    let asset = load_asset(&p, &ImportOptions::default()).unwrap();
    assert!(asset.is_curve_only() && asset.clip_error.is_none());
    assert_eq!(asset.curve_sets[0].curves.len(), 2);
    assert_eq!(asset.curve_sets[0].source, p);
    let _ = std::fs::remove_dir_all(&dir);
}
