//! The error bound measured independently of the library's metric: a float64 reference of the
//! same metric (virtual vertices at the shell distance along each joint's local axes, in object
//! space; ACL's definition, as docs/vbr.md states it), written from the definition in
//! `animcomp_import::judge64` and not calling `animcomp::metric`. On every shared clip set
//! (skipped when `../shared/data`, or `$ANIMCOMP_SHARED_DATA`, is absent), `vbr` and `keys` blobs
//! decoded through the decompressor keep every joint's error at every sample within the
//! precision, measured in float64.
//!
//! Settings are the bench's defaults: precision 0.01 and shell distance 3 on every joint.

use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::math::Transform;
use animcomp::offline::{CodecChoice, CompressSettings};
use animcomp::{compress, AlignedBlob, RawClip};
use animcomp_import::{load, ImportOptions};
use std::path::PathBuf;

const PRECISION: f32 = 0.01;
const SHELL: f32 = 3.0;

/// The float64 reference metric bound to one clip (`animcomp_import::judge64`, shared with the
/// CLI's `tiers build` and Python's `measure_tiered`).
pub(crate) use animcomp_import::judge64::Reference;

pub(crate) fn data_dir() -> PathBuf {
    std::env::var_os("ANIMCOMP_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/data")))
}

/// The prepared clips of a set as the bench prepares them (error settings, validation,
/// optional resampling), or `None` when the set is absent.
pub(crate) fn clips(set: &str, resample: Option<f32>) -> Option<Vec<(String, RawClip)>> {
    let dir = data_dir().join(set);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.to_string_lossy();
            n.ends_with(".bvh") || n.ends_with(".acl.sjson")
        })
        .collect();
    files.sort();
    let opts = ImportOptions {
        sample_rate: resample,
        ..Default::default()
    };
    let mut out = Vec::new();
    for f in files {
        let Ok(imported) = load(&f, &opts) else {
            continue;
        };
        for ic in imported {
            let mut clip = ic.clip;
            clip.skeleton.set_error_settings(PRECISION, SHELL);
            // e.g. the 1e25 translation of `_with_inf_error`: refused before any codec runs.
            if clip.validate().is_err() {
                continue;
            }
            if let Some(hz) = resample.filter(|hz| *hz != clip.sample_rate) {
                clip = clip.resample(hz).unwrap();
                clip.validate().unwrap();
            }
            out.push((f.file_name().unwrap().to_string_lossy().into_owned(), clip));
        }
    }
    Some(out)
}

/// Worst float64 error / precision of `codec` on a clip, with where it occurs, and blob size.
fn worst(clip: &RawClip, codec: CodecChoice) -> ((f64, usize, usize), usize) {
    let settings = CompressSettings {
        codec,
        ..Default::default()
    };
    let blob = AlignedBlob::from_bytes(&compress(clip, &settings).expect("compress"));
    let bind = crate::common::bind_floats(clip);
    let opts = DecompressOptions {
        bind_pose: bind.as_deref(),
        ..Default::default()
    };
    let mut d = Decompressor::new(blob.as_bytes(), &opts).expect("valid blob");
    let reference = Reference::new(clip);
    let mut local = vec![Transform::IDENTITY; clip.num_joints()];
    let mut w = (0.0f64, 0usize, 0usize);
    // A looping blob may drop the repeated last sample: measure the samples it stores.
    for i in 0..d.header().num_samples as usize {
        d.pose_at_sample(i as u32, &mut local).unwrap();
        let (e, j) = reference.worst_at(i, &local);
        if e > w.0 || e.is_nan() {
            w = (e, j, i);
        }
    }
    (w, blob.len())
}

/// Checks both codecs on every clip of a set; prints the worst relative error and total size.
fn run(set: &str, resample: Option<f32>) {
    let Some(clips) = clips(set, resample) else {
        println!(
            "skipping {set}: {} not found",
            data_dir().join(set).display()
        );
        return;
    };
    assert!(!clips.is_empty(), "{set}: no clip loaded");
    for codec in [CodecChoice::Vbr, CodecChoice::Keys] {
        let mut total = 0usize;
        let mut worst_all = (0.0f64, String::new(), 0usize, 0usize);
        for (name, clip) in &clips {
            let ((e, j, i), size) = worst(clip, codec);
            total += size;
            if e > worst_all.0 || e.is_nan() {
                worst_all = (e, name.clone(), j, i);
            }
        }
        let (e, name, j, i) = worst_all;
        println!(
            "{set} {resample:?} {}: {} clips, {total} bytes, worst float64 error {:.6} x precision \
             ({name}, joint {j}, sample {i})",
            codec.name(),
            clips.len(),
            e
        );
        assert!(
            e <= 1.0,
            "{set} {}: {name} joint {j} sample {i} reaches {e} x precision in float64",
            codec.name()
        );
    }
}

#[test]
fn cmu_cc_60hz_within_precision_in_f64() {
    run("cmu-cc", None);
}

#[test]
fn cmu_cc_30hz_within_precision_in_f64() {
    run("cmu-cc", Some(30.0));
}

#[test]
fn bandai_within_precision_in_f64() {
    run("bandai", None);
}

#[test]
fn highrate_within_precision_in_f64() {
    run("highrate", None);
}

#[test]
fn acl_regression_within_precision_in_f64() {
    run("acl-regression", None);
}

/// The reference agrees with a hand computation: a child 100 units along X of a parent turned
/// 90 degrees about Z sits at (0, 100); its lossy copy off by 0.001 in rotation angle moves its
/// vertex at 3 units along its X axis by 0.001 x (100 + 3) in object space.
#[test]
fn reference_metric_by_hand() {
    use animcomp::clip::{Joint, Skeleton, Track};
    use animcomp::math::{Quat, Vec3};
    let rot = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
    let track = |q: Quat, t: Vec3| Track {
        rotations: vec![q],
        translations: vec![t],
        scales: vec![Vec3::ONE],
    };
    let mut joints = vec![Joint::new("a", None), Joint::new("b", Some(0))];
    for j in &mut joints {
        (j.precision, j.shell_distance) = (0.01, 3.0);
    }
    let clip = RawClip {
        name: "hand".into(),
        skeleton: Skeleton {
            joints,
            bind_pose: None,
        },
        sample_rate: 30.0,
        num_samples: 1,
        tracks: vec![
            track(rot, Vec3::ZERO),
            track(Quat::IDENTITY, Vec3::new(100.0, 0.0, 0.0)),
        ],
    };
    let r = Reference::new(&clip);
    let lossy = [
        Transform {
            rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_2 + 0.001),
            translation: Vec3::ZERO,
            scale: Vec3::ONE,
        },
        Transform {
            rotation: Quat::IDENTITY,
            translation: Vec3::new(100.0, 0.0, 0.0),
            scale: Vec3::ONE,
        },
    ];
    let (e, j) = r.worst_at(0, &lossy);
    assert_eq!(j, 1);
    // Chord of a 0.001 rad turn at radius 103: 2 x 103 x sin(0.0005), within f32 input rounding.
    let want = 2.0 * 103.0 * (0.0005f64).sin() / 0.01;
    assert!((e - want).abs() < 1e-3 * want, "{e} vs {want}");
}
