//! Importer fuzzing harnesses, shared by the cargo-fuzz targets `import_bvh` / `import_acl` and
//! the stable replay test `benches/tests/fuzz_import_replay.rs` (pulled in with `#[path]`).
//! Depends on `animcomp` and `animcomp-import`.
//!
//! Properties: parsing arbitrary text returns `Ok` or `Err` and never panics; a parsed clip is
//! structurally consistent (one track per joint, `num_samples` values per channel, a bind pose of
//! one transform per joint when present); validating it never panics; a small valid clip
//! compresses with the `fixed` codec and its blob decodes.

#![allow(dead_code)]

use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::math::FLOATS_PER_JOINT;
use animcomp::{AlignedBlob, CodecChoice, CompressSettings, RawClip};

fn check_clip(clip: &RawClip) {
    let nj = clip.num_joints();
    assert_eq!(
        clip.tracks.len(),
        nj,
        "importer produced {} tracks for {nj} joints",
        clip.tracks.len()
    );
    for (j, t) in clip.tracks.iter().enumerate() {
        assert_eq!(t.rotations.len(), clip.num_samples, "joint {j} rotations");
        assert_eq!(
            t.translations.len(),
            clip.num_samples,
            "joint {j} translations"
        );
        assert_eq!(t.scales.len(), clip.num_samples, "joint {j} scales");
    }
    if let Some(b) = &clip.skeleton.bind_pose {
        assert_eq!(b.len(), nj, "bind pose length");
    }
    let _ = animcomp_import::guess_units(clip);
    let mut v = clip.clone();
    if v.validate().is_ok() && nj * clip.num_samples <= 2048 {
        let s = CompressSettings {
            codec: CodecChoice::Fixed,
            ..Default::default()
        };
        if let Ok(blob) = animcomp::compress(&v, &s) {
            let blob = AlignedBlob::from_bytes(&blob);
            let d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default())
                .expect("fresh blob");
            let mut pose = vec![0.0f32; nj * FLOATS_PER_JOINT];
            d.sample_pose(&mut pose, FLOATS_PER_JOINT).unwrap();
            assert!(
                pose.iter().all(|x| x.is_finite()),
                "non-finite pose from an imported clip"
            );
        }
    }
}

/// BVH text (non-UTF-8 input is ignored: the file loader rejects it before parsing).
pub fn import_bvh(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(clip) = animcomp_import::bvh::parse(text, "fuzz") {
            check_clip(&clip);
        }
    }
}

/// ACL `.acl.sjson` text.
pub fn import_acl(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok((clip, threshold)) = animcomp_import::acl::parse(text, "fuzz") {
            check_clip(&clip);
            let _ = threshold;
        }
    }
}
