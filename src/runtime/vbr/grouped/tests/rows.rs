//! Every decoder writing each channel's rows anywhere ([`PoseRows`]: the f32 layouts of
//! `runtime::layout`), against the scalar decoder's ten-float pose, bit for bit, with nothing
//! written outside the rows.

use super::*;
use crate::runtime::PoseRows;

/// The whole pose of `p` at `key` with the decoder for `isa` into `rows`; false where this
/// machine or build does not have it.
fn sample_rows_isa(p: &GroupedClip, isa: Isa, key: &SampleKey, rows: PoseRows) -> bool {
    assert!(key.i0 < p.header.num_samples && key.i1 < p.header.num_samples);
    if !isa.available() {
        return false;
    }
    let v = p.view();
    // SAFETY (every arm): the ISA is available; the key was checked above, and the caller's
    // rows hold every joint.
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { avx2::sample_rows_512::<false>(&v, key, rows, 7) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2::sample_rows::<false>(&v, key, rows, 7) },
        #[cfg(target_arch = "x86_64")]
        Isa::Sse2 => unsafe { sse2::sample_pose_rows(&v, key, rows) },
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => unsafe { neon::sample_pose_rows(&v, key, rows, 7) },
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Isa::Simd128 => unsafe { simd128::sample_pose_rows(&v, key, rows, 7) },
        Isa::Scalar => unsafe { scalar::sample_rows(&v, key, rows, 7) },
        #[allow(unreachable_patterns)]
        _ => return false,
    }
    true
}

/// Keys of a clip of `n` samples: every third sample alone, with the next one, and with one
/// further away.
fn keys(n: u32) -> impl Iterator<Item = SampleKey> {
    (0..n).step_by(3).flat_map(move |i| {
        [
            (i, i, 0.0),
            (i, (i + 1).min(n - 1), 0.375),
            (i, (i * 7 + 3) % n, 0.625),
        ]
        .map(|(i0, i1, alpha)| SampleKey { i0, i1, alpha })
    })
}

/// Channel `c`'s floats per joint, and where they are in a ten-float row.
const CHANNELS: [(usize, usize); 3] = [(4, 0), (3, 4), (3, 7)];

/// Three arrays of rows with gaps: rotations 6 floats apart from float 1, translations 5
/// apart from float 2, scales 3 apart (packed) from float 0.
const LAYOUT: [(usize, usize); 3] = [(1, 6), (2, 5), (0, 3)];

#[test]
fn every_decoder_writes_rows_anywhere() {
    let isas: Vec<Isa> = Isa::ALL.into_iter().filter(|i| i.available()).collect();
    let mut checked = 0;
    // Groups of one to eight lanes, raw components and per-segment drops (the edited clip),
    // u16 joints (300 joints).
    for (joints, samples, edited) in [
        (3, 40, false),
        (12, 64, true),
        (23, 50, false),
        (300, 20, false),
    ] {
        let samples = shorter(samples);
        let blob = vbr_blob_with(joints, samples, true, |c| {
            if edited {
                edge_cases(c);
                held_still(c);
            }
        });
        let p = convert(blob.as_bytes()).unwrap();
        let n = samples as u32;
        let mut want = vec![0.0f32; joints * 10];
        let mut bufs: [Vec<f32>; 3] =
            core::array::from_fn(|c| vec![0.0f32; LAYOUT[c].0 + joints * LAYOUT[c].1 + 1]);
        for key in keys(n) {
            assert!(p.sample_pose_isa(Isa::Scalar, &key, &mut want, 10));
            for &isa in &isas {
                for b in bufs.iter_mut() {
                    b.fill(f32::NAN);
                }
                let rows = PoseRows {
                    base: core::array::from_fn(|c| bufs[c].as_mut_ptr().wrapping_add(LAYOUT[c].0)),
                    stride: LAYOUT.map(|l| l.1),
                };
                assert!(sample_rows_isa(&p, isa, &key, rows));
                checked += 1;
                for (c, b) in bufs.iter().enumerate() {
                    let ((len, at), (first, stride)) = (CHANNELS[c], LAYOUT[c]);
                    for (f, &y) in b.iter().enumerate() {
                        let (j, k) = (
                            (f.wrapping_sub(first)) / stride,
                            (f.wrapping_sub(first)) % stride,
                        );
                        if f < first || j >= joints || k >= len {
                            assert!(y.is_nan(), "{isa:?}: channel {c} float {f} written");
                            continue;
                        }
                        let x = want[10 * j + at + k];
                        assert_eq!(
                            x.to_bits(),
                            y.to_bits(),
                            "{isa:?}, {joints} joints, channel {c}, joint {j}, key {key:?}"
                        );
                    }
                }
            }
        }
    }
    assert!(checked > 0);
}

/// Some joints' rotations constant, some identity (defaults), some translations constant: the
/// animated joints of a channel are not consecutive, so groups skip joints.
#[cfg(target_arch = "x86_64")]
fn sparse(c: &mut RawClip) {
    for (j, t) in c.tracks.iter_mut().enumerate() {
        let (q, v) = (t.rotations[0], t.translations[0]);
        match j % 5 {
            1 => t.rotations.fill(q),
            3 => t.rotations.fill(Quat::IDENTITY),
            _ => {}
        }
        if j % 3 == 2 {
            t.translations.fill(v);
        }
    }
}

/// The AVX2 decoder (which AVX-512 machines run for them too) writing ozz blocks of four joints
/// straight
/// ([`PoseRows::soa4`]), plain and through the playback cache: every joint's floats bit for bit
/// the scalar decoder's at its block and lane, nothing written past the last block, and nothing
/// past the last joint but the scales of a blob without scales (the layout sets those lanes to
/// the identity after). Groups of consecutive joints from a block's first lane and from the
/// others, groups that skip joints, groups of one lane; constants, identity and bind-pose
/// defaults, blobs with and without scales; keys of one sample and of two, near the last one
/// (the cache's slots) and far from it.
#[cfg(target_arch = "x86_64")]
#[test]
fn avx2_writes_ozz_blocks() {
    use crate::offline::DefaultMode;
    let isas: Vec<Isa> = [Isa::Avx2].into_iter().filter(|i| i.available()).collect();
    if isas.is_empty() {
        eprintln!("skipped: no AVX2 here");
        return;
    }
    // Groups seen: consecutive from a block's first lane, consecutive from another, skipping
    // joints, one lane.
    let mut seen = [false; 4];
    let mut checked = 0;
    for (joints, samples, scale, edit, bind_defaults) in [
        (3, 40, true, 0, false),
        (12, 64, true, 1, false),
        (23, 50, true, 0, false),
        (300, 20, true, 0, false),
        (37, 48, false, 2, false),
        (26, 40, true, 2, false),
        (13, 70, false, 0, true),
        (13, 70, true, 2, true),
    ] {
        let mut clip = generate_clip(&GenerateOptions {
            joints,
            samples,
            scale,
            animated_translation: true,
            seed: joints as u64 + 7,
            ..Default::default()
        });
        match edit {
            1 => {
                edge_cases(&mut clip);
                held_still(&mut clip);
            }
            2 => sparse(&mut clip),
            _ => {}
        }
        let bind = clip.bind_pose_floats().unwrap();
        let settings = crate::CompressSettings {
            codec: crate::CodecChoice::Vbr,
            default_mode: if bind_defaults {
                DefaultMode::BindPose
            } else {
                DefaultMode::Identity
            },
            ..Default::default()
        };
        let blob = crate::offline::compress::compress_segments(&clip, &[], &settings).unwrap();
        let blob = AlignedBlob::from_bytes(&blob);
        let p = convert(blob.as_bytes()).unwrap();
        let p = if bind_defaults {
            p.with_bind_pose(&bind).unwrap()
        } else {
            p
        };
        let v = p.view();
        let mut at = 0;
        for _ in 0..v.num_groups {
            let r = common::Record::read(v.data, at);
            at += r.size;
            let j = |l: usize| match r.joint_shift {
                0 => v.data[r.joints + l] as usize,
                _ => read_u16(v.data, r.joints + 2 * l) as usize,
            };
            let consecutive = (0..r.n).all(|l| j(l) == j(0) + l);
            let kind = match (r.n, consecutive, j(0) % 4) {
                (1, _, _) => 3,
                (_, true, 0) => 0,
                (_, true, _) => 1,
                _ => 2,
            };
            seen[kind] = true;
        }
        let blocks = joints.div_ceil(4);
        let n = samples as u32;
        let mut want = vec![0.0f32; joints * 10];
        let mut got = vec![0.0f32; blocks * 40 + 8];
        let mut mem = vec![0u128; p.cache_size().div_ceil(16)];
        for key in keys(n) {
            assert!(p.sample_pose_isa(Isa::Scalar, &key, &mut want, 10));
            for (&isa, cached) in isas.iter().flat_map(|i| [(i, false), (i, true)]) {
                got.fill(f32::NAN);
                let rows = PoseRows::soa4(got.as_mut_ptr());
                // SAFETY (both): the words of `mem` as bytes.
                let bytes = unsafe {
                    std::slice::from_raw_parts_mut(mem.as_mut_ptr().cast::<u8>(), mem.len() * 16)
                };
                let cache = cached.then(|| cache::Cache::new(bytes, v.num_groups, p.owner()));
                // SAFETY: the ISA is available, the key in the clip, the buffer holds
                // every joint's block; the cache is this clip's.
                unsafe {
                    match (isa, cache) {
                        (_, Some(c)) => {
                            avx2::sample_pose_cached::<true>(isa, &v, &mut c.unwrap(), &key, rows)
                        }
                        _ => avx2::sample_rows::<true>(&v, &key, rows, 7),
                    }
                }
                checked += 1;
                for (f, &y) in got.iter().enumerate() {
                    let (b, e) = (f / 40, f % 40);
                    let (c, k, lane) = match e {
                        0..12 => (1, e / 4, e % 4),
                        12..28 => (0, (e - 12) / 4, e % 4),
                        _ => (2, (e - 28) / 4, e % 4),
                    };
                    let j = 4 * b + lane;
                    if j < joints {
                        let x = want[10 * j + CHANNELS[c].1 + k];
                        assert_eq!(
                            x.to_bits(),
                            y.to_bits(),
                            "{isa:?} (cached: {cached}), {joints} joints, channel {c}, joint \
                                 {j}, key {key:?}"
                        );
                    } else if b < blocks && c == 2 && !scale && !bind_defaults {
                        let s = DEFAULT_VALUES[v.default_scale][k];
                        assert!(y.to_bits() == s.to_bits(), "{isa:?}: lane {j} scale");
                    } else {
                        assert!(y.is_nan(), "{isa:?}: float {f} written ({joints} joints)");
                    }
                }
            }
        }
    }
    assert_eq!(
        seen, [true; 4],
        "consecutive from lane 0 and others, skipping, one lane"
    );
    assert!(checked > 0);
}
