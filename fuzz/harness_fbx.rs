//! FBX importer fuzzing harness, shared by the cargo-fuzz target `import_fbx` and the stable
//! replay test `import/tests/importers/fbx_fuzz_replay.rs` (pulled in with `#[path]`).
//! Depends on `animcomp` and `animcomp-import`.
//!
//! Properties: reading arbitrary bytes as FBX (through ufbx) returns `Ok` or `Err` and never
//! panics or hangs (stacks are capped at 256 samples here, checked before evaluation); every take
//! is structurally consistent (one track per joint, `num_samples` values per channel and per
//! curve, a bind pose of one transform per joint); validating a take never panics; a small valid
//! one compresses with the `fixed` codec (curves included) and its blob decodes to finite values.

#![allow(dead_code)]

use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::math::FLOATS_PER_JOINT;
use animcomp::{AlignedBlob, CodecChoice, CompressSettings};
use animcomp_import::fbx::{load_bytes, FbxOptions};

/// Any bytes, read as an FBX file.
pub fn import_fbx(data: &[u8]) {
    let opts = FbxOptions {
        max_samples: Some(256),
        ..Default::default()
    };
    // The blend-shape meshes `export` writes: an error or meshes whose targets match them.
    if let Ok(meshes) = animcomp_import::fbx::morph_meshes(data, Default::default()) {
        for m in &meshes {
            assert_eq!(m.positions.len() % 3, 0, "whole triangles");
            for (_, t) in &m.targets {
                assert_eq!(t.len(), m.positions.len(), "a displacement per corner");
            }
        }
    }
    let Ok(file) = load_bytes(data, &opts) else {
        return;
    };
    assert!(!file.takes.is_empty(), "Ok with no take");
    for take in &file.takes {
        let clip = &take.clip;
        let nj = clip.num_joints();
        assert_eq!(clip.tracks.len(), nj, "tracks per joint");
        for t in &clip.tracks {
            assert_eq!(t.rotations.len(), clip.num_samples);
            assert_eq!(t.translations.len(), clip.num_samples);
            assert_eq!(t.scales.len(), clip.num_samples);
        }
        if let Some(b) = &clip.skeleton.bind_pose {
            assert_eq!(b.len(), nj, "bind pose length");
        }
        for c in &take.curves {
            assert_eq!(c.values.len(), clip.num_samples, "curve {}", c.name);
        }
        let mut v = clip.clone();
        let valid = nj == 0 || v.validate().is_ok();
        if valid && (nj + take.curves.len()) * clip.num_samples <= 4096 {
            let s = CompressSettings {
                codec: CodecChoice::Fixed,
                ..Default::default()
            };
            if let Ok(blob) = animcomp::compress_with_curves(&v, &take.curves, &s) {
                let blob = AlignedBlob::from_bytes(&blob);
                let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default())
                    .expect("fresh blob");
                let mut pose = vec![0.0f32; nj * FLOATS_PER_JOINT];
                d.sample_pose(&mut pose, FLOATS_PER_JOINT).unwrap();
                assert!(pose.iter().all(|x| x.is_finite()), "non-finite pose");
                let mut cv = vec![0.0f32; take.curves.len()];
                d.seek_sample(0);
                d.sample_curves(&mut cv).unwrap();
                assert!(cv.iter().all(|x| x.is_finite()), "non-finite curve value");
            }
        }
    }
}
