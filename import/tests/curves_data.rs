//! The shared curve files (/work/shared/data/curves, skipped with a message when absent): every
//! file imports with the counts its README gives, every curve of every file decodes within
//! 0.001 at every sample through the runtime decoder, and the three 30 Hz Live Link Face takes
//! compress at least 9:1 against raw float32.

use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::{compress_with_curves, AlignedBlob, CompressSettings};
use animcomp_import::curves::CurveSet;
use animcomp_import::load_curves;
use std::path::Path;

const ROOT: &str = "/work/shared/data/curves";

fn sets(rel: &str) -> Vec<CurveSet> {
    load_curves(&Path::new(ROOT).join(rel), None).unwrap()
}

/// Blob bytes and max error over every sample of every curve.
fn roundtrip(set: &CurveSet) -> (usize, f32) {
    let bytes =
        compress_with_curves(&set.face_clip(), &set.curves, &CompressSettings::default()).unwrap();
    let blob = AlignedBlob::from_bytes(&bytes);
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
    let mut v = vec![0.0f32; set.curves.len()];
    let mut max = 0.0f32;
    for i in 0..set.num_samples {
        d.seek_sample(i as u32);
        d.sample_curves(&mut v).unwrap();
        for (c, x) in set.curves.iter().zip(&v) {
            max = max.max((x - c.values[i]).abs());
        }
    }
    (bytes.len(), max)
}

#[test]
fn shared_curve_files_import_and_meet_the_targets() {
    if !Path::new(ROOT).exists() {
        eprintln!("skipping: {ROOT} is absent");
        return;
    }
    let llf = ["facial.csv", "S88-001.csv", "alex_rom_4.csv"];
    let expect = [1914, 1942, 3811]; // rows plus dropped frames
    let (mut raw, mut packed) = (0usize, 0usize);
    for (f, n) in llf.iter().zip(expect) {
        let s = sets(&format!("livelinkface/alexdjulin/{f}")).remove(0);
        assert_eq!(
            (s.curves.len(), s.num_samples, s.sample_rate),
            (61, n, 30.0),
            "{f}"
        );
        assert!(!s.notes.is_empty(), "{f}: resampling must be reported");
        let (bytes, err) = roundtrip(&s);
        assert!(err <= 0.001, "{f}: {err}");
        raw += s.raw_bytes();
        packed += bytes;
    }
    assert!(raw as f64 / packed as f64 >= 9.0, "{raw} / {packed}");
    let s88 = sets("livelinkface/alexdjulin/S88-001.csv").remove(0);
    assert!(
        s88.notes.iter().any(|n| n.contains("277 tracking-lost")),
        "{:?}",
        s88.notes
    );

    let jm = sets("livelinkface/jmtechart/MySlate_3_Jason_Millers_iPhone.csv").remove(0);
    assert!((jm.sample_rate - 59.94).abs() < 0.01 && jm.num_samples == 328);
    let npy = sets("facegood/bs_value_1114_3_16.npy").remove(0);
    assert_eq!((npy.num_samples, npy.curves.len()), (1429, 116));
    assert!(
        npy.curves.iter().all(|c| !c.name.starts_with("curve")),
        "names from bsname.txt"
    );

    let stress = sets("gltf-morph/MorphStressTest/MorphStressTest.gltf");
    assert_eq!(stress.len(), 3);
    assert!(stress.iter().all(|s| s.curves.len() == 8));
    assert!(stress[0]
        .curves
        .iter()
        .all(|c| c.magnitude.is_some_and(|m| m > 0.0)));
    for rel in [
        "livelinkface/jmtechart/MySlate_3_Jason_Millers_iPhone.csv",
        "facegood/bs_value_1114_3_16.npy",
        "gltf-morph/AnimatedMorphCube/AnimatedMorphCube.gltf",
        "gltf-morph/AnimatedMorphSphere/AnimatedMorphSphere.gltf",
        "gltf-morph/MorphStressTest/MorphStressTest.gltf",
        "gltf-morph/SimpleMorph/SimpleMorph.gltf",
    ] {
        let all = sets(rel);
        assert!(!all.is_empty(), "{rel}");
        for s in all {
            let (_, err) = roundtrip(&s);
            assert!(err <= 0.001, "{rel} {}: {err}", s.name);
        }
    }
}
