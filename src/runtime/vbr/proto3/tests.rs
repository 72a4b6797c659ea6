//! The prototype's poses against the `vbr` decoder's, bit for bit.

use super::*;
use crate::offline::clip::{generate_clip, GenerateOptions};
use crate::runtime::seek::{resolve, Looping, Rounding};
use crate::runtime::{DecompressOptions, Decompressor};
use crate::AlignedBlob;

/// Compares every joint's floats of the prototype and the `vbr` decoder at `times` (bit for
/// bit; NaN never occurs in a decoded pose). Returns the number of poses compared.
pub fn compare(blob: &[u8], times: &[f32]) -> usize {
    let proto = Proto::convert(blob).unwrap();
    let mut d = Decompressor::new(blob, &DecompressOptions::default()).unwrap();
    let n = d.num_joints();
    let stride = 11;
    let mut a = vec![f32::NAN; n * stride];
    let mut b = vec![f32::NAN; n * stride];
    for &t in times {
        for looping in [Looping::Clamp, Looping::Wrap] {
            d.seek(t, looping, Rounding::None).unwrap();
            d.sample_pose(&mut a, stride).unwrap();
            let key = resolve(proto.header(), t, looping, Rounding::None).unwrap();
            proto.sample_pose(&key, &mut b, stride);
            for j in 0..n {
                for k in 0..10 {
                    let (x, y) = (a[j * stride + k], b[j * stride + k]);
                    assert_eq!(
                        x.to_bits(),
                        y.to_bits(),
                        "joint {j} float {k} at {t} ({looping:?}, key {key:?}): {x} vs {y}"
                    );
                }
            }
        }
    }
    times.len() * 2
}

#[test]
fn proto_poses_are_the_vbr_poses() {
    if !Proto::supported() {
        eprintln!("skipped: no AVX2 here");
        return;
    }
    let mut seed = 0x9E37_79B9u64;
    for (joints, samples, scale) in [
        (14, 150, true),
        (9, 61, false),
        (40, 200, true),
        (3, 17, false),
    ] {
        let clip = generate_clip(&GenerateOptions {
            joints,
            samples,
            scale,
            animated_translation: true,
            seed: joints as u64,
            ..Default::default()
        });
        let settings = crate::CompressSettings {
            codec: crate::CodecChoice::Vbr,
            ..Default::default()
        };
        let blob = AlignedBlob::from_bytes(&crate::compress(&clip, &settings).unwrap());
        let dur = (samples - 1) as f32 / 30.0;
        let mut times: Vec<f32> = (0..samples * 3).map(|i| i as f32 / 90.0).collect();
        for _ in 0..500 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            times.push((seed >> 40) as f32 / (1u64 << 24) as f32 * dur * 1.2 - 0.1 * dur);
        }
        compare(blob.as_bytes(), &times);
    }
}

/// Playback through the prototype's cache against the `vbr` decoder, bit for bit: forward at
/// several frame rates, backward, looping past the end, and random jumps between.
#[test]
fn proto_cached_poses_are_the_vbr_poses() {
    if !Proto::supported() {
        eprintln!("skipped: no AVX2 here");
        return;
    }
    for (joints, samples, scale) in [(14, 150, true), (9, 61, false), (40, 200, true)] {
        let clip = generate_clip(&GenerateOptions {
            joints,
            samples,
            scale,
            animated_translation: true,
            seed: 7 + joints as u64,
            ..Default::default()
        });
        let settings = crate::CompressSettings {
            codec: crate::CodecChoice::Vbr,
            ..Default::default()
        };
        let blob = AlignedBlob::from_bytes(&crate::compress(&clip, &settings).unwrap());
        let proto = Proto::convert(blob.as_bytes()).unwrap();
        let mut cache = ProtoCache::new(&proto);
        let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
        let n = d.num_joints();
        let (mut a, mut b) = (vec![0.0f32; n * 10], vec![f32::NAN; n * 10]);
        let dur = (samples - 1) as f32 / 30.0;
        let mut times = Vec::new();
        for fps in [60.0f32, 24.0, 30.0, 144.0, -60.0] {
            let start = if fps < 0.0 { dur } else { 0.1 };
            times.extend((0..400).map(|i| start + i as f32 / fps));
            times.push(dur * 0.37);
        }
        let mut used = 0;
        for &t in &times {
            let key = resolve(proto.header(), t, Looping::Wrap, Rounding::None).unwrap();
            d.seek(t, Looping::Wrap, Rounding::None).unwrap();
            d.sample_pose(&mut a, 10).unwrap();
            assert!(proto.sample_pose_cached(&mut cache, &key, &mut b, 10));
            used += cache.held.contains(&key.i0) as usize;
            for (k, (x, y)) in a.iter().zip(&b).enumerate() {
                assert_eq!(
                    x.to_bits(),
                    y.to_bits(),
                    "float {k} at {t} ({key:?}): {x} vs {y}"
                );
            }
        }
        // Playback went through the slots (not only the plain walk).
        assert!(used > times.len() / 2, "{used} of {}", times.len());
    }
}

/// Subsets (every joint alone, every third joint, all joints in reverse) against the `vbr`
/// decoder's whole pose, bit for bit.
#[test]
fn proto_subsets_are_the_vbr_joints() {
    for (joints, samples, scale) in [(14, 150, true), (30, 61, false)] {
        let clip = generate_clip(&GenerateOptions {
            joints,
            samples,
            scale,
            animated_translation: true,
            seed: 11 + joints as u64,
            ..Default::default()
        });
        let settings = crate::CompressSettings {
            codec: crate::CodecChoice::Vbr,
            ..Default::default()
        };
        let blob = AlignedBlob::from_bytes(&crate::compress(&clip, &settings).unwrap());
        let proto = Proto::convert(blob.as_bytes()).unwrap();
        let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
        let n = d.num_joints();
        let mut a = vec![0.0f32; n * 10];
        let lists: Vec<Vec<u32>> = vec![
            (0..n as u32).step_by(3).collect(),
            (0..n as u32).rev().collect(),
            vec![n as u32 - 1],
        ];
        let dur = (samples - 1) as f32 / 30.0;
        for i in 0..300 {
            let t = i as f32 * 0.37 % (dur * 1.1);
            let key = resolve(proto.header(), t, Looping::Wrap, Rounding::None).unwrap();
            d.seek(t, Looping::Wrap, Rounding::None).unwrap();
            d.sample_pose(&mut a, 10).unwrap();
            for (js, wide) in lists.iter().flat_map(|js| [(js, false), (js, true)]) {
                if wide && !Proto::supported() {
                    continue;
                }
                let mut b = vec![f32::NAN; n * 10];
                proto.sample_joints_with(&key, js, &mut b, 10, wide);
                for &j in js {
                    let r = j as usize * 10..j as usize * 10 + 10;
                    for (x, y) in a[r.clone()].iter().zip(&b[r]) {
                        assert_eq!(x.to_bits(), y.to_bits(), "joint {j} at {t} ({key:?})");
                    }
                }
            }
        }
    }
}
