//! Key selection: linear data reduces to its end keys, constant tracks to one value, Catmull-Rom
//! fitting keeps its control keys exact and every sample within tolerance.

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::format::keys::Interp;
use animcomp::format::Header;
use animcomp::math::{Quat, Vec3};
use animcomp::offline::keys::catmull::{fit, Split};
use animcomp::offline::keys::reduce::{linear_keys, FitInput};
use animcomp::{compress, CodecChoice, CompressSettings};
use glam::Vec4;

/// A clip whose root translation moves on a straight line at constant speed and whose other
/// tracks are all constant.
fn line_clip() -> animcomp::RawClip {
    let mut c = generate_clip(&GenerateOptions {
        joints: 4,
        samples: 121,
        sample_rate: 60.0,
        max_depth: 4,
        ..Default::default()
    });
    for (j, t) in c.tracks.iter_mut().enumerate() {
        for i in 0..121 {
            let u = i as f32 / 120.0;
            t.translations[i] = if j == 0 {
                Vec3::new(10.0, 90.0, 0.0) + Vec3::new(50.0, 0.0, -20.0) * u
            } else {
                Vec3::new(0.0, 10.0, 0.0)
            };
            t.rotations[i] = if j == 1 {
                Quat::from_rotation_z(0.3)
            } else {
                Quat::from_rotation_x(0.2 * j as f32)
            };
            t.scales[i] = Vec3::ONE;
        }
    }
    c
}

fn describe(blob: &[u8]) -> animcomp::offline::BodyDescription {
    let h = Header::parse(blob).unwrap();
    animcomp::offline::describe(&h, &blob[64..64 + h.body_size as usize]).unwrap()
}

#[test]
fn linear_track_keeps_end_keys_and_constant_tracks_one_value() {
    let clip = line_clip();
    let blob = compress(
        &clip,
        &CompressSettings {
            codec: CodecChoice::Keys,
            ..Default::default()
        },
    )
    .unwrap();
    let d = describe(&blob);
    let root_t = d
        .tracks
        .iter()
        .find(|t| t.joint == 0 && t.channel == "translation")
        .unwrap();
    assert!(
        root_t.storage.starts_with("2 keys"),
        "root translation: {}",
        root_t.storage
    );
    for t in d
        .tracks
        .iter()
        .filter(|t| !(t.joint == 0 && t.channel == "translation"))
    {
        assert!(
            t.storage == "constant" || t.storage == "default",
            "joint {} {}: {}",
            t.joint,
            t.channel,
            t.storage
        );
    }
}

#[test]
fn linear_removal_on_a_line_keeps_two_keys() {
    let raw: Vec<Vec4> = (0..500)
        .map(|i| Vec4::new(3.0 * i as f32, 1.0 - 0.01 * i as f32, 7.0, 0.0))
        .collect();
    let inp = FitInput {
        raw: &raw,
        quant: &raw,
        channel: 1,
        shell: 3.0,
        tol: 1e-3,
    };
    assert_eq!(linear_keys(&inp), vec![0, 499]);
    // A Catmull-Rom fit of a line needs only the end keys too.
    assert_eq!(fit(&inp, Split::Middle), vec![0, 499]);
}

#[test]
fn catmull_fit_keeps_controls_exact_and_samples_within_tolerance() {
    // A rotation track: smooth rotation about a moving axis, with a sign flip in the input.
    let raw: Vec<Vec4> = (0..300)
        .map(|i| {
            let t = i as f32 / 60.0;
            let q = Quat::from_rotation_y(1.5 * (t * 1.3).sin())
                * Quat::from_rotation_x(0.7 * (t * 2.1).cos());
            let v = Vec4::from(q);
            if i % 7 == 3 {
                -v
            } else {
                v
            }
        })
        .collect();
    for tol in [0.05f32, 0.01, 0.002] {
        let inp = FitInput {
            raw: &raw,
            quant: &raw,
            channel: 0,
            shell: 3.0,
            tol,
        };
        for split in [Split::Middle, Split::Worst] {
            let keys = fit(&inp, split);
            assert_eq!(keys[0], 0);
            assert_eq!(*keys.last().unwrap(), 299);
            assert!(keys.len() < 300 / 3, "tol {tol}: {} keys", keys.len());
            for k in 0..keys.len() - 1 {
                let s = keys[k] as usize;
                let v = inp.reconstruct(&keys, k, s, Interp::CatmullRom);
                assert!(inp.err(s, v) <= 1e-5, "control key {s} not reproduced");
                for s in keys[k] as usize..keys[k + 1] as usize {
                    let e = inp.err(s, inp.reconstruct(&keys, k, s, Interp::CatmullRom));
                    assert!(e <= tol, "tol {tol}: sample {s} error {e}");
                }
            }
        }
    }
}
