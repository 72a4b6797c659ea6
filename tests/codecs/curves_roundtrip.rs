//! Scalar curves through the public API: compress with and without joints, decode at every
//! sample through the runtime decoder, error within each curve's precision; defaults and
//! constants cost no data; hostile sections are refused or decode to bounded values.

use animcomp::clip::{generate_clip, GenerateOptions, Skeleton};
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::format::curves::Kind;
use animcomp::format::Header;
use animcomp::{compress, compress_with_curves, AlignedBlob, CompressSettings, Curve, RawClip};

fn face_clip(samples: usize) -> RawClip {
    RawClip {
        name: "face".into(),
        skeleton: Skeleton::default(),
        sample_rate: 30.0,
        num_samples: samples,
        tracks: vec![],
    }
}

/// Deterministic noisy smooth curves: a slow sine plus small hash noise, some spikes.
fn test_curves(samples: usize) -> Vec<Curve> {
    let noise = |i: usize, c: usize| {
        let h = (i as u32).wrapping_mul(2_654_435_761) ^ (c as u32).wrapping_mul(40_503);
        ((h >> 8) & 0xFFFF) as f32 / 65535.0 - 0.5
    };
    let mut out = Vec::new();
    for c in 0..6usize {
        let values = (0..samples)
            .map(|i| {
                let t = i as f32 / 30.0;
                match c {
                    0 => 0.5 + 0.5 * (t * (1.0 + c as f32)).sin() + 0.004 * noise(i, c),
                    1 => 0.25, // constant
                    2 => 0.0,  // at its default
                    3 => {
                        if i % 40 < 3 {
                            0.9
                        } else {
                            0.0
                        }
                    } // spiky
                    4 => 1000.0 * (t * 0.7).cos(), // wide range
                    _ => 0.3 * (t * 3.0).sin() + 0.02 * noise(i, c), // noisy
                }
            })
            .collect();
        let mut curve = Curve::new(format!("c{c}"), 100 + c as u32, values);
        if c == 2 {
            curve.default_value = Some(0.0);
        }
        if c == 4 {
            curve.precision = 0.01;
        }
        out.push(curve);
    }
    out
}

fn max_error_per_curve(blob: &[u8], curves: &[Curve]) -> Vec<f32> {
    let d = Decompressor::new(blob, &DecompressOptions::default()).unwrap();
    let mut d = d;
    let mut vals = vec![0.0f32; curves.len()];
    let mut err = vec![0.0f32; curves.len()];
    for i in 0..curves[0].values.len() {
        d.seek_sample(i as u32);
        d.sample_curves(&mut vals).unwrap();
        for (c, curve) in curves.iter().enumerate() {
            let one = d.sample_curve(c as u32).unwrap();
            assert_eq!(one, vals[c], "single-curve and all-curve paths agree");
            err[c] = err[c].max((vals[c] - curve.values[i]).abs());
        }
    }
    err
}

#[test]
fn face_only_clip_roundtrips_within_each_precision() {
    let curves = test_curves(301);
    let bytes =
        compress_with_curves(&face_clip(301), &curves, &CompressSettings::default()).unwrap();
    let blob = AlignedBlob::from_bytes(&bytes);
    let h = Header::parse(blob.as_bytes()).unwrap();
    assert_eq!((h.num_joints, h.num_curves, h.body_size), (0, 6, 0));
    let err = max_error_per_curve(blob.as_bytes(), &curves);
    for (c, e) in err.iter().enumerate() {
        assert!(*e <= curves[c].precision, "curve {c}: {e}");
    }
    let d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
    let cs = d.curves();
    assert_eq!(cs.id(3).unwrap(), 103);
    assert_eq!(cs.kind(1).unwrap(), Kind::Constant);
    assert_eq!(cs.kind(2).unwrap(), Kind::Default);
    assert_eq!(cs.kind(0).unwrap(), Kind::Quantized);
    // Raw float32 is 301 * 6 * 4 = 7224 bytes; the section must be far smaller.
    assert!(h.curves_size < 7224 / 3, "{}", h.curves_size);
}

#[test]
fn curves_beside_joints_leave_the_joints_unchanged() {
    let clip = generate_clip(&GenerateOptions {
        joints: 5,
        samples: 64,
        ..Default::default()
    });
    let curves = test_curves(64);
    let settings = CompressSettings::default();
    let plain = compress(&clip, &settings).unwrap();
    let with = compress_with_curves(&clip, &curves, &settings).unwrap();
    let (a, b) = (
        AlignedBlob::from_bytes(&plain),
        AlignedBlob::from_bytes(&with),
    );
    let (ha, hb) = (
        Header::parse(a.as_bytes()).unwrap(),
        Header::parse(b.as_bytes()).unwrap(),
    );
    assert_eq!(ha.body_size, hb.body_size);
    assert_eq!(
        a.as_bytes()[64..][..ha.body_size as usize],
        b.as_bytes()[64..][..hb.body_size as usize]
    );
    let mut da = Decompressor::new(a.as_bytes(), &DecompressOptions::default()).unwrap();
    let mut db = Decompressor::new(b.as_bytes(), &DecompressOptions::default()).unwrap();
    let mut pa = vec![0.0; 50];
    let mut pb = vec![0.0; 50];
    for t in [0.0, 0.33, 1.2] {
        da.seek(t, Looping::Clamp, Rounding::None).unwrap();
        db.seek(t, Looping::Clamp, Rounding::None).unwrap();
        da.sample_pose(&mut pa, 10).unwrap();
        db.sample_pose(&mut pb, 10).unwrap();
        assert_eq!(pa, pb);
    }
    let err = max_error_per_curve(b.as_bytes(), &curves);
    assert!(err.iter().zip(&curves).all(|(e, c)| *e <= c.precision));
}

#[test]
fn interpolated_seek_blends_neighbouring_samples() {
    let curves = test_curves(90);
    let bytes =
        compress_with_curves(&face_clip(90), &curves, &CompressSettings::default()).unwrap();
    let blob = AlignedBlob::from_bytes(&bytes);
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
    let mut v = vec![0.0f32; 6];
    d.seek(10.5 / 30.0, Looping::Clamp, Rounding::None).unwrap();
    d.sample_curves(&mut v).unwrap();
    let expect = 0.5 * (curves[4].values[10] + curves[4].values[11]);
    assert!((v[4] - expect).abs() <= 0.011, "{} vs {}", v[4], expect);
    assert!(d.sample_curve(6).is_err());
    assert!(d.sample_curves(&mut v[..5]).is_err());
}

#[test]
fn bad_curve_inputs_are_refused() {
    let settings = CompressSettings::default();
    // No joints and no curves: still NO_JOINTS.
    assert_eq!(
        compress(&face_clip(10), &settings),
        Err(animcomp::Error::NoJoints)
    );
    let mut curves = test_curves(10);
    curves[0].values.pop();
    assert!(compress_with_curves(&face_clip(10), &curves, &settings).is_err());
    let mut curves = test_curves(10);
    curves[1].values[3] = f32::NAN;
    assert!(compress_with_curves(&face_clip(10), &curves, &settings).is_err());
}

#[test]
fn a_single_sample_and_tiny_precisions_roundtrip() {
    let curves = vec![Curve {
        precision: 1e-9,
        ..Curve::new("tiny", 1, vec![0.123_456_7])
    }];
    let bytes = compress_with_curves(&face_clip(1), &curves, &CompressSettings::default()).unwrap();
    let blob = AlignedBlob::from_bytes(&bytes);
    assert_eq!(max_error_per_curve(blob.as_bytes(), &curves), vec![0.0]);
    // A precision too fine for any grid over a wide range falls back to raw values: exact.
    let wide: Vec<f32> = (0..50).map(|i| (i as f32 * 7919.3).sin() * 1.0e6).collect();
    let curves = vec![Curve {
        precision: 1e-6,
        ..Curve::new("wide", 2, wide)
    }];
    let bytes =
        compress_with_curves(&face_clip(50), &curves, &CompressSettings::default()).unwrap();
    let blob = AlignedBlob::from_bytes(&bytes);
    assert_eq!(max_error_per_curve(blob.as_bytes(), &curves), vec![0.0]);
}
