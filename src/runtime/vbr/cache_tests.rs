//! Tests of the playback cache (`cache.rs`): poses bit for bit the plain walk's, the slots
//! filled by playback, and a scribbled cache staying inside its memory and the blob.

use super::*;
use crate::offline::clip::{generate_clip, GenerateOptions};
use crate::runtime::seek::{Looping, Rounding};
use crate::runtime::{DecompressOptions, Decompressor};

fn blob(scale: bool, seed: u64, samples: u32) -> Vec<u8> {
    let clip = generate_clip(&GenerateOptions {
        joints: 14,
        samples: samples as usize,
        scale,
        animated_translation: true,
        seed,
        ..Default::default()
    });
    let settings = crate::CompressSettings {
        codec: crate::CodecChoice::Vbr,
        ..Default::default()
    };
    crate::compress(&clip, &settings).unwrap()
}

/// Aligned cache memory of `bytes` bytes.
fn memory(bytes: usize) -> Vec<u128> {
    vec![0u128; bytes.div_ceil(16)]
}

fn as_bytes(m: &mut [u128]) -> &mut [u8] {
    // SAFETY: `u128` memory viewed as its bytes.
    unsafe { std::slice::from_raw_parts_mut(m.as_mut_ptr().cast(), m.len() * 16) }
}

/// Poses with and without the cache, bit for bit, over playback at several rates (forward,
/// backward, looping), random jumps, and a cache moved between blobs.
#[test]
fn cached_poses_are_the_plain_poses() {
    let blobs = [blob(true, 3, 150), blob(false, 8, 61)];
    let need = blobs
        .iter()
        .map(|b| {
            Decompressor::new(b, &DecompressOptions::default())
                .unwrap()
                .playback_cache_size()
        })
        .max()
        .unwrap();
    // One memory for both blobs: the second finds it filled for the first (its identity
    // differs) and refills it.
    let mut mem = memory(need);
    for (bi, bytes) in blobs.iter().enumerate() {
        let dec = Decompressor::new(bytes, &DecompressOptions::default()).unwrap();
        let nj = dec.num_joints();
        assert!(dec.playback_cache_size() > 0);
        let rate = dec.header().sample_rate;
        let duration = (dec.header().num_samples - 1) as f32 / rate;
        let mut times = Vec::new();
        for fps in [60.0f32, 30.0, 24.0, 144.0, rate] {
            let mut t = 0.013;
            for _ in 0..400 {
                times.push(t);
                t += 1.0 / fps;
            }
        }
        let mut t = duration;
        for _ in 0..100 {
            times.push(t);
            t -= 1.0 / 60.0;
        }
        let mut x = 0x1234_5678u32 + bi as u32;
        for _ in 0..300 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            times.push((x % 10_000) as f32 / 10_000.0 * duration * 1.2);
        }
        for looping in [Looping::Clamp, Looping::Wrap] {
            let mut d = dec;
            let (mut p0, mut p1) = (vec![0f32; nj * 10], vec![0f32; nj * 10]);
            for &t in &times {
                d.seek(t, looping, Rounding::None).unwrap();
                d.sample_pose(&mut p0, 10).unwrap();
                d.sample_pose_cached(as_bytes(&mut mem), &mut p1, 10)
                    .unwrap();
                let (b0, b1): (Vec<u32>, Vec<u32>) = (
                    p0.iter().map(|f| f.to_bits()).collect(),
                    p1.iter().map(|f| f.to_bits()).collect(),
                );
                assert_eq!(b0, b1, "blob {bi} time {t} {looping:?}");
            }
        }
    }
}

/// The cache fills on the second of two nearby keys and then serves poses without the walk:
/// its slots hold the samples asked for.
#[test]
fn playback_fills_the_slots() {
    let bytes = blob(true, 5, 90);
    let mut dec = Decompressor::new(&bytes, &DecompressOptions::default()).unwrap();
    let mut mem = memory(dec.playback_cache_size());
    let mut pose = vec![0f32; dec.num_joints() * 10];
    let head = |m: &mut [u128]| -> Vec<u32> {
        as_bytes(m)[..128]
            .chunks(4)
            .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
            .collect()
    };
    dec.seek_sample(10);
    dec.sample_pose_cached(as_bytes(&mut mem), &mut pose, 10)
        .unwrap();
    // The first key is a jump (nothing before it): nothing decoded.
    assert_eq!(head(&mut mem)[W_SLOT], NONE);
    dec.seek_sample(11);
    dec.sample_pose_cached(as_bytes(&mut mem), &mut pose, 10)
        .unwrap();
    let h = head(&mut mem);
    let holds = |h: &[u32], s: u32| h[W_SLOT..W_SLOT + SLOTS].contains(&s);
    assert!(holds(&h, 11), "{h:?}");
    assert_eq!(h[W_SEG], 11 / 16);
    // Too small a cache is not used (and not written).
    let mut small = memory(64);
    dec.sample_pose_cached(as_bytes(&mut small), &mut pose, 10)
        .unwrap_err();
}

/// A random jump after playback: the plain walk's pose, and of the cache only the last key's
/// words written (the slots and the segment's records left for playback to resume).
#[test]
fn a_random_jump_writes_only_the_last_key() {
    let bytes = blob(true, 6, 120);
    let mut dec = Decompressor::new(&bytes, &DecompressOptions::default()).unwrap();
    let mut mem = memory(dec.playback_cache_size());
    let n = dec.num_joints() * 10;
    let (mut p0, mut p1) = (vec![0f32; n], vec![0f32; n]);
    for s in 20..30 {
        dec.seek_sample(s);
        dec.sample_pose_cached(as_bytes(&mut mem), &mut p1, 10)
            .unwrap();
    }
    for s in [90u32, 45, 3, 70] {
        let before = as_bytes(&mut mem).to_vec();
        dec.seek(
            s as f32 / dec.header().sample_rate + 0.004,
            Looping::Clamp,
            Rounding::None,
        )
        .unwrap();
        dec.sample_pose(&mut p0, 10).unwrap();
        dec.sample_pose_cached(as_bytes(&mut mem), &mut p1, 10)
            .unwrap();
        assert_eq!(
            p0.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
            p1.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
            "jump to sample {s}"
        );
        let after = as_bytes(&mut mem);
        let changed: Vec<usize> = (0..after.len())
            .filter(|&i| after[i] != before[i])
            .collect();
        let last = 4 * W_LAST..4 * (W_LAST + 2);
        assert!(
            !changed.is_empty() && changed.iter().all(|i| last.contains(i)),
            "a jump to sample {s} wrote bytes {changed:?}"
        );
        let word = |w: usize| u32::from_le_bytes(after[4 * w..4 * w + 4].try_into().unwrap());
        assert_eq!([word(W_LAST), word(W_LAST + 1)], [s, s + 1]);
    }
}

/// Garbage in the cache memory after it was filled (a caller's bug) gives poses, never a read
/// outside the blob or the cache: every field of it is overwritten with random words.
#[test]
fn scribbled_cache_stays_inside() {
    let bytes = blob(true, 9, 70);
    let mut dec = Decompressor::new(&bytes, &DecompressOptions::default()).unwrap();
    let mut mem = memory(dec.playback_cache_size());
    let mut pose = vec![0f32; dec.num_joints() * 10];
    let mut x = 77u64;
    for round in 0..200u32 {
        for s in [round % 70, (round + 1) % 70] {
            dec.seek_sample(s);
            dec.sample_pose_cached(as_bytes(&mut mem), &mut pose, 10)
                .unwrap();
        }
        // Keep the header's identity half the time, so the garbage is used.
        let from = if round % 2 == 0 { 2 } else { 0 };
        for w in mem.iter_mut().skip(from) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x.is_multiple_of(5) {
                *w = (x as u128) << 64 | x.rotate_left(17) as u128;
            }
        }
    }
}
