//! The value rule of validated blobs (docs/robustness.md, "What a valid blob decodes to"), as a
//! harness shared by the cargo-fuzz target `blob_rule` and the property tests in
//! `tests/robust/value_rule.rs`, which pull this file in next to `harness.rs` with
//! `#[path = ...] mod harness_rule;`.
//!
//! A valid blob of any codec is mutated, its checksum re-sealed (so the mutant reaches the
//! codec's own validator), and every mutant that validates is sampled at many times, with both
//! looping policies, interpolating, through `sample_pose`, `sample_joint`, (keys) the playback
//! cursor and, in playback, the playback cache (`harness_cache.rs`). Every joint must come out finite, with a rotation of unit length within
//! [`UNIT_TOLERANCE`] and translations and scales within [`MAX_ABS_VALUE`]; the cursor must agree
//! bit for bit with `sample_pose`. A violation panics with the blob's codec, time and joint.

#![allow(dead_code)]

use animcomp::clip::MAX_ABS_VALUE;
use animcomp::decompress::{clip_duration, DecompressOptions, Decompressor, Rounding};
use animcomp::format::CodecId;
use animcomp::format::{validate_blob, BlobFlags, Header};
use animcomp::math::{Transform, FLOATS_PER_JOINT};
use animcomp::runtime::{cursor_state_size, KeyCursor};
use animcomp::AlignedBlob;

use crate::harness::{base_blob, mutate, reseal, Bytes, LOOPINGS};

/// Largest distance of a decoded rotation's length from 1.
pub const UNIT_TOLERANCE: f32 = 1.0e-3;
/// Sample times per looping policy (spread over the clip and beyond both ends).
const TIMES: usize = 48;

/// Why one decoded joint breaks the rule, or `None` when it keeps it.
pub fn violation(v: &[f32]) -> Option<String> {
    if let Some(k) = v.iter().position(|x| !x.is_finite()) {
        return Some(format!("float {k} is {}", v[k]));
    }
    let len = v[..4].iter().map(|x| x * x).sum::<f32>().sqrt();
    if (len - 1.0).abs() > UNIT_TOLERANCE {
        return Some(format!("rotation length {len}"));
    }
    if let Some(k) = (4..10).find(|&k| v[k].abs() > MAX_ABS_VALUE) {
        return Some(format!("float {k} is {} (beyond {MAX_ABS_VALUE})", v[k]));
    }
    None
}

fn check(v: &[f32], what: &str, h: &Header, time: f32, joint: usize) {
    if let Some(why) = violation(v) {
        panic!(
            "{:?} blob, {what}, time {time}, joint {joint}: {why} ({v:?})",
            h.codec
        );
    }
}

/// A valid bind pose (identity rotations, small translations) for blobs that need one.
fn bind_pose(joints: usize) -> Vec<f32> {
    let mut v = vec![0.0f32; joints * FLOATS_PER_JOINT];
    for (j, c) in v.chunks_exact_mut(FLOATS_PER_JOINT).enumerate() {
        let mut t = Transform::IDENTITY;
        t.translation.y = j as f32;
        t.write_to(c);
    }
    v
}

/// The sample times: from before the start to past the end, off the sample grid.
fn times(h: &Header) -> Vec<f32> {
    let d = clip_duration(h) as f32;
    (0..TIMES)
        .map(|i| (i as f32 - 2.0) * (d + 0.1) / (TIMES - 5) as f32 + 0.37 / h.sample_rate)
        .collect()
}

/// Samples a blob that validates (checksum verified) everywhere the rule covers, panicking on a
/// violation. Returns false (and checks nothing) when the blob does not validate.
pub fn check_rule(blob: &[u8]) -> bool {
    let aligned = AlignedBlob::from_bytes(blob);
    let bytes = aligned.as_bytes();
    let Ok((h, _)) = validate_blob(bytes, true) else {
        return false;
    };
    let nj = h.num_joints as usize;
    let bind = bind_pose(nj);
    let opts = DecompressOptions {
        verify_checksum: true,
        bind_pose: h
            .has(BlobFlags::DEFAULTS_ARE_BIND_POSE)
            .then_some(&bind[..]),
    };
    let mut d = Decompressor::new(bytes, &opts).expect("validated blob must bind");
    let mut state = vec![0u32; cursor_state_size(&h)];
    let mut cursor = (h.codec == CodecId::Keys)
        .then(|| KeyCursor::new(bytes, &opts, &mut state).expect("validated keys blob"));
    let (mut pose, mut cpose) = (vec![0f32; nj * 10], vec![0f32; nj * 10]);
    let mut one = [0f32; FLOATS_PER_JOINT];
    let ts = times(&h);
    for looping in LOOPINGS {
        for &t in &ts {
            d.seek(t, looping, Rounding::None).unwrap();
            d.sample_pose(&mut pose, FLOATS_PER_JOINT).unwrap();
            for j in 0..nj {
                let p = &pose[j * 10..j * 10 + 10];
                check(p, "sample_pose", &h, t, j);
                d.sample_joint(j as u32).unwrap().write_to(&mut one);
                check(&one, "sample_joint", &h, t, j);
            }
            if let Some(c) = cursor.as_mut() {
                c.seek(t, looping, Rounding::None).unwrap();
                c.sample_pose(&mut cpose, FLOATS_PER_JOINT).unwrap();
                for j in 0..nj {
                    let (a, b) = (&pose[j * 10..j * 10 + 10], &cpose[j * 10..j * 10 + 10]);
                    assert!(
                        a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()),
                        "keys blob, time {t}, {looping:?}, joint {j}: cursor {b:?} vs pose {a:?}"
                    );
                }
            }
        }
    }
    // Playback through a cache (`harness_cache.rs`): bit for bit the plain poses, which keep the
    // rule too.
    crate::harness::cache::check_playback_cache(
        &d,
        &h,
        bytes,
        &opts,
        h.checksum as u64,
        &mut |p| {
            for (j, v) in p.chunks_exact(FLOATS_PER_JOINT).enumerate() {
                check(v, "playback (sample_pose_cached)", &h, f32::NAN, j);
            }
        },
    );
    true
}

/// Codecs by number, for the harness's codec byte.
pub const CODECS: [CodecId; 3] = [CodecId::Fixed, CodecId::Vbr, CodecId::Keys];

/// A mutant of a valid `codec` blob from fuzz bytes: byte 0 picks the base clip, byte 1 the
/// settings (with `codec` forced), then 4 bytes per mutation (at most 16); the checksum is
/// re-sealed. `None` when the base clip does not compress with those settings.
pub fn mutant(codec: CodecId, data: &[u8]) -> Option<Vec<u8>> {
    let mut b = Bytes::new(data);
    let kind = b.u8();
    // harness::settings_from picks the codec from the settings number modulo 4 (fixed, vbr, keys).
    let settings_id = (b.u8() & !3) | codec_number(codec);
    let mut blob = base_blob(kind, settings_id)?;
    let mut count = 0;
    while !b.exhausted() && count < 16 {
        let (k, p, v) = (b.u8(), b.u16(), b.u8());
        mutate(&mut blob, k, p, v);
        count += 1;
    }
    reseal(&mut blob);
    Some(blob)
}

fn codec_number(codec: CodecId) -> u8 {
    match codec {
        CodecId::Fixed => 0,
        CodecId::Vbr => 1,
        _ => 2,
    }
}

/// The codecs the fuzz target checks: all, or those named in `ANIMCOMP_RULE_CODECS`
/// (comma-separated: fixed, vbr, keys).
pub fn codecs_from_env() -> Vec<CodecId> {
    match std::env::var("ANIMCOMP_RULE_CODECS") {
        Ok(list) => CODECS
            .into_iter()
            .filter(|c| list.split(',').any(|n| n.trim() == c.name()))
            .collect(),
        Err(_) => CODECS.to_vec(),
    }
}

/// Fuzz harness `blob_rule`: byte 0 picks the codec among [`codecs_from_env`], the rest is
/// [`mutant`]'s input. Returns whether the mutant validated.
pub fn blob_rule(data: &[u8]) -> bool {
    let codecs = codecs_from_env();
    let Some((&first, rest)) = data.split_first() else {
        return false;
    };
    if codecs.is_empty() {
        return false;
    }
    let codec = codecs[first as usize % codecs.len()];
    mutant(codec, rest).is_some_and(|m| check_rule(&m))
}
