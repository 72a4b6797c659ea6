//! Quality tiers at run time (`animcomp::runtime::tiers`): a resident blob samples with whatever
//! tiers are attached, bit for bit like a plain blob that stores the same samples, on every
//! decoder, through every sampling entry point and the playback cache; tiers of another clip or
//! compression, corrupt tiers and a level attached twice are refused; attaching and detaching
//! while other threads sample gives each call one consistent set of tiers; the C ABI.

#![cfg(feature = "compress")]

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::ffi::*;
use animcomp::offline::tiers::{compress_tiered_fidelities, TieredBuild};
use animcomp::runtime::vbr::grouped::Isa;
use animcomp::runtime::{
    DecompressOptions, Decompressor, Looping, OpenBlob, Rounding, TierSet, CHANNELS_ALL,
};
use animcomp::{AlignedBlob, CompressSettings, Error, RawClip, Status, TierSettings};
use std::sync::atomic::{AtomicBool, Ordering};

/// Clips with scale or not, translations animated on every joint or the root's only, smooth
/// enough that each tier level stores samples.
fn clips() -> Vec<RawClip> {
    let mut out = Vec::new();
    for (joints, samples, scale, seed) in [(5, 70, false, 1), (23, 97, true, 2), (40, 45, false, 3)]
    {
        out.push(generate_clip(&GenerateOptions {
            joints,
            samples,
            // Smooth enough that samples go to the tiers: the generator's motion of up to 5 Hz
            // over short bones, sampled at 120 Hz.
            sample_rate: 120.0,
            bone_length: 1.0,
            scale,
            animated_translation: seed == 3,
            seed,
            ..Default::default()
        }));
    }
    out
}

fn build(clip: &RawClip) -> TieredBuild {
    compress_tiered_fidelities(clip, &CompressSettings::default(), &TierSettings::default())
        .unwrap()
}

/// Every pose the tests compare: each sample, and times between samples, clamped.
fn times(dec: &Decompressor) -> Vec<f32> {
    let n = dec.header().num_samples;
    let rate = dec.header().sample_rate;
    (0..2 * n).map(|k| k as f32 * 0.5 / rate).collect()
}

fn pose(dec: &mut Decompressor, t: f32) -> Vec<f32> {
    dec.seek(t, Looping::Clamp, Rounding::None).unwrap();
    let mut out = vec![0.0f32; dec.num_joints() * 10];
    dec.sample_pose(&mut out, 10).unwrap();
    out
}

fn poses(blob: &[u8]) -> Vec<Vec<f32>> {
    let blob = AlignedBlob::from_bytes(blob);
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
    times(&d).iter().map(|&t| pose(&mut d, t)).collect()
}

fn bits(v: &[Vec<f32>]) -> Vec<Vec<u32>> {
    v.iter()
        .map(|p| p.iter().map(|x| x.to_bits()).collect())
        .collect()
}

/// What a decompressor bound to `set` samples, by every entry point: whole poses, through a
/// playback cache played forward, every joint, and a selection.
fn sampled(set: &TierSet) -> Vec<Vec<f32>> {
    let mut d = Decompressor::bind_tiers(set);
    let nj = d.num_joints();
    let mut cache = AlignedBlob::from_bytes(&vec![0u8; d.playback_cache_size()]);
    let mut out = Vec::new();
    for t in times(&d) {
        let p = pose(&mut d, t);
        let mut cached = vec![0.0f32; nj * 10];
        d.sample_pose_cached(cache.as_bytes_mut(), &mut cached, 10)
            .unwrap();
        assert_eq!(
            bits(&[cached]),
            bits(std::slice::from_ref(&p)),
            "cache at {t}"
        );
        let joints: Vec<u32> = (0..nj as u32).collect();
        let mut each = vec![0.0f32; nj * 10];
        d.sample_joints(&joints, None, CHANNELS_ALL, &mut each, 10)
            .unwrap();
        assert_eq!(
            bits(&[each]),
            bits(std::slice::from_ref(&p)),
            "joints at {t}"
        );
        let tenth: Vec<u32> = (0..nj as u32).step_by(3).collect();
        let mut some = vec![0.0f32; tenth.len() * 10];
        d.sample_joints(&tenth, None, CHANNELS_ALL, &mut some, 10)
            .unwrap();
        for (i, &j) in tenth.iter().enumerate() {
            let one = d.sample_joint(j).unwrap();
            let mut row = [0.0f32; 10];
            one.write_to(&mut row);
            let want = &p[j as usize * 10..j as usize * 10 + 10];
            assert_eq!(
                bits(&[row.to_vec()]),
                bits(&[want.to_vec()]),
                "joint {j} at {t}"
            );
            assert_eq!(&some[i * 10..i * 10 + 10], want, "selection at {t}");
        }
        out.push(p);
    }
    out
}

#[test]
fn attached_tiers_decode_like_the_blobs_that_store_their_samples() {
    let isas: Vec<Isa> = Isa::ALL.into_iter().filter(|i| i.available()).collect();
    let mut both_levels = false;
    for clip in clips() {
        let b = build(&clip);
        assert_eq!(b.blobs.tiers.len(), 2);
        // Level 1 stores samples (else this test would prove little), and level 2 on some clip.
        assert!(b.stored[0] < b.stored[1], "{:?}", b.stored);
        both_levels |= b.stored[1] < b.stored[2];
        let resident = AlignedBlob::from_bytes(&b.blobs.resident);
        let tiers: Vec<AlignedBlob> = b
            .blobs
            .tiers
            .iter()
            .map(|t| AlignedBlob::from_bytes(t))
            .collect();
        let want: Vec<Vec<Vec<u32>>> = [&b.fidelities[0], &b.fidelities[1], &b.full]
            .iter()
            .map(|x| bits(&poses(x)))
            .collect();
        // The resident blob alone, without a tier set, is the first fidelity.
        assert_eq!(bits(&poses(resident.as_bytes())), want[0]);
        let open = OpenBlob::open(resident.as_bytes(), &DecompressOptions::default()).unwrap();
        let set = TierSet::new(&open).unwrap();
        assert_eq!(set.levels(), 2);
        for &isa in &isas {
            assert!(Isa::set_best(isa));
            assert_eq!(bits(&sampled(&set)), want[0], "{isa:?} resident");
            assert_eq!(set.attach(tiers[0].as_bytes()).unwrap(), 1);
            assert_eq!(bits(&sampled(&set)), want[1], "{isa:?} level 1");
            assert_eq!(set.attach(tiers[1].as_bytes()).unwrap(), 2);
            assert_eq!(set.attached(), [true, true]);
            assert_eq!(
                bits(&sampled(&set)),
                want[2],
                "{isa:?} both levels: the full blob"
            );
            // Level 2 alone: every pose finite, other than the full one where it stores samples.
            assert!(set.detach(1).is_some());
            let only2 = sampled(&set);
            assert!(only2.iter().flatten().all(|x| x.is_finite()));
            assert!(set.detach(2).is_some());
            assert!(set.detach(2).is_none());
            assert_eq!(bits(&sampled(&set)), want[0], "{isa:?} detached");
        }
        Isa::set_best(isas[0]);
    }
    assert!(both_levels);
}

/// One playback cache across attaches and detaches: each pose is the one its tiers give.
#[test]
fn a_playback_cache_follows_attach_and_detach() {
    let clip = &clips()[1];
    let b = build(clip);
    let resident = AlignedBlob::from_bytes(&b.blobs.resident);
    let tiers: Vec<AlignedBlob> = b
        .blobs
        .tiers
        .iter()
        .map(|t| AlignedBlob::from_bytes(t))
        .collect();
    let open = OpenBlob::open(resident.as_bytes(), &DecompressOptions::default()).unwrap();
    let set = TierSet::new(&open).unwrap();
    let want = [
        poses(&b.fidelities[0]),
        poses(&b.fidelities[1]),
        poses(&b.full),
    ];
    let mut d = Decompressor::bind_tiers(&set);
    let mut cache = AlignedBlob::from_bytes(&vec![0u8; d.playback_cache_size()]);
    let ts = times(&d);
    let mut out = vec![0.0f32; d.num_joints() * 10];
    for (k, &t) in ts.iter().enumerate() {
        // Change the tiers every few poses, in the middle of playback.
        let state = (k / 5) % 3;
        while set.attached() != [state >= 1, state >= 2] {
            match state {
                0 => {
                    set.detach(2);
                    set.detach(1);
                }
                1 if set.attached()[1] => {
                    set.detach(2);
                }
                _ => {
                    let l = if set.attached()[0] { 1 } else { 0 };
                    set.attach(tiers[l].as_bytes()).unwrap();
                }
            }
        }
        d.seek(t, Looping::Clamp, Rounding::None).unwrap();
        d.sample_pose_cached(cache.as_bytes_mut(), &mut out, 10)
            .unwrap();
        assert_eq!(
            bits(&[out.clone()]),
            bits(&[want[state][k].clone()]),
            "pose {k}"
        );
    }
}

#[test]
fn wrong_corrupt_and_repeated_tiers_are_refused() {
    let all = clips();
    let b = build(&all[0]);
    let other = build(&all[2]);
    // The same clip compressed again at another level: another resident blob.
    let again = compress_tiered_fidelities(
        &all[0],
        &CompressSettings {
            level: animcomp::offline::Level::Fast,
            ..Default::default()
        },
        &TierSettings::default(),
    )
    .unwrap();
    assert_ne!(again.blobs.resident, b.blobs.resident);
    let resident = AlignedBlob::from_bytes(&b.blobs.resident);
    let open = OpenBlob::open(resident.as_bytes(), &DecompressOptions::default()).unwrap();
    let set = TierSet::new(&open).unwrap();
    for stranger in [&other.blobs.tiers[0], &again.blobs.tiers[0]] {
        let t = AlignedBlob::from_bytes(stranger);
        assert_eq!(set.attach(refused(t.as_bytes())), Err(Error::TierMismatch));
    }
    let t = AlignedBlob::from_bytes(&b.blobs.tiers[0]);
    // A flipped bit anywhere: refused (the checksum covers bytes 16.., the header fields are
    // checked).
    for i in 0..t.as_bytes().len() {
        let mut bad = t.as_bytes().to_vec();
        bad[i] ^= 0x10;
        let bad = AlignedBlob::from_bytes(&bad);
        assert!(set.attach(refused(bad.as_bytes())).is_err(), "byte {i}");
    }
    // Truncated, and one byte off its alignment.
    assert!(matches!(
        set.attach(&t.as_bytes()[..t.as_bytes().len() - 16]),
        Err(Error::BadSize(_))
    ));
    let mut shifted = vec![0u8; t.as_bytes().len() + 32];
    let off = (16 - shifted.as_ptr() as usize % 16) % 16 + 1;
    shifted[off..off + t.as_bytes().len()].copy_from_slice(t.as_bytes());
    assert_eq!(
        set.attach(&shifted[off..off + t.as_bytes().len()]),
        Err(Error::Misaligned)
    );
    assert_eq!(set.attached(), [false, false]);
    assert_eq!(set.attach(t.as_bytes()), Ok(1));
    assert!(matches!(
        set.attach(t.as_bytes()),
        Err(Error::InvalidArgument(_))
    ));
    // A blob compressed without tiers has no tier set.
    let plain = AlignedBlob::from_bytes(&b.full);
    let open = OpenBlob::open(plain.as_bytes(), &DecompressOptions::default()).unwrap();
    assert!(matches!(
        TierSet::new(&open),
        Err(Error::InvalidArgument(_))
    ));
}

/// `bytes` as long-lived as a tier set needs its tiers (`TierSet` holds what it attaches for its
/// whole life), for a tier the set refuses: a refused tier is not kept (`set.attached()` stays
/// empty, asserted after the refusals).
fn refused<'x>(bytes: &[u8]) -> &'x [u8] {
    // SAFETY: only passed to attaches that are refused (the test asserts each refusal), so the
    // set never reads the bytes after this call.
    unsafe { &*(bytes as *const [u8]) }
}

/// Threads sample while another attaches and detaches: every pose is one of the poses of the
/// four sets of tiers (none, level 1, level 2, both), never a mix, and a detach returns only
/// when no call reads the tier (the test then overwrites its bytes with garbage, which a
/// reader would see as a pose outside the four).
#[test]
fn attach_and_detach_while_threads_sample() {
    let clip = &clips()[1];
    let b = build(clip);
    let resident = AlignedBlob::from_bytes(&b.blobs.resident);
    let open = OpenBlob::open(resident.as_bytes(), &DecompressOptions::default()).unwrap();
    let set = TierSet::new(&open).unwrap();
    // The four sets of tiers' poses at one time between samples.
    let probe = Decompressor::bind_tiers(&set);
    let t = times(&probe)[13];
    let mut expected = Vec::new();
    let mut bufs: Vec<AlignedBlob> = b
        .blobs
        .tiers
        .iter()
        .map(|t| AlignedBlob::from_bytes(t))
        .collect();
    for state in 0..4u32 {
        for (l, buf) in bufs.iter().enumerate() {
            if state & (1 << l) != 0 {
                // SAFETY of the test: detached below, before the bytes are written.
                set.attach(unsafe { &*(buf.as_bytes() as *const [u8]) })
                    .unwrap();
            }
        }
        expected.push(pose(&mut Decompressor::bind_tiers(&set), t));
        set.detach(1);
        set.detach(2);
    }
    let stop = AtomicBool::new(false);
    let originals: Vec<Vec<u8>> = bufs.iter().map(|b| b.as_bytes().to_vec()).collect();
    std::thread::scope(|s| {
        let mut readers = Vec::new();
        for r in 0..3 {
            let (set, expected, stop) = (&set, &expected, &stop);
            readers.push(s.spawn(move || {
                let mut d = Decompressor::bind_tiers(set);
                let mut cache = AlignedBlob::from_bytes(&vec![0u8; d.playback_cache_size()]);
                let mut out = vec![0.0f32; d.num_joints() * 10];
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    d.seek(t, Looping::Clamp, Rounding::None).unwrap();
                    if r == 0 {
                        d.sample_pose_cached(cache.as_bytes_mut(), &mut out, 10)
                            .unwrap();
                    } else {
                        d.sample_pose(&mut out, 10).unwrap();
                    }
                    assert!(expected.contains(&out), "a pose of no set of tiers");
                    n += 1;
                }
                n
            }));
        }
        for round in 0..2000 {
            let l = round % 2;
            // SAFETY of the test: the bytes are only written while detached.
            set.attach(unsafe { &*(bufs[l].as_bytes() as *const [u8]) })
                .unwrap();
            std::thread::yield_now();
            let back = set.detach(l as u8 + 1).unwrap();
            assert_eq!(back.as_ptr(), bufs[l].as_bytes().as_ptr());
            // Nobody reads it now: scribble, then restore.
            bufs[l].as_bytes_mut().fill(0xA5);
            bufs[l].as_bytes_mut().copy_from_slice(&originals[l]);
        }
        stop.store(true, Ordering::Relaxed);
        for r in readers {
            assert!(r.join().unwrap() > 0);
        }
    });
}

#[test]
fn the_c_abi_attaches_detaches_and_refuses() {
    let b = build(&clips()[0]);
    let resident = AlignedBlob::from_bytes(&b.blobs.resident);
    let tiers: Vec<AlignedBlob> = b
        .blobs
        .tiers
        .iter()
        .map(|t| AlignedBlob::from_bytes(t))
        .collect();
    // Sample 4 of the resident blob alone and of the full blob.
    let at4 = |blob: &[u8]| {
        let blob = AlignedBlob::from_bytes(blob);
        let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
        d.seek_sample(4);
        let mut out = vec![0.0f32; d.num_joints() * 10];
        d.sample_pose(&mut out, 10).unwrap();
        out
    };
    let want = [at4(&b.fidelities[0]), at4(&b.full)];
    unsafe {
        let mut blob: AnimcompBlob = std::mem::zeroed();
        let r = resident.as_bytes();
        assert_eq!(
            animcomp_blob_open(&mut blob, r.as_ptr().cast(), r.len(), std::ptr::null()),
            Status::Ok
        );
        let mut set: AnimcompTierSet = std::mem::zeroed();
        let mut ctx: AnimcompDecompressor = std::mem::zeroed();
        assert_eq!(
            animcomp_decompressor_bind_tiers(&mut ctx, &set),
            Status::NotInitialized
        );
        assert_eq!(animcomp_tier_set_init(&mut set, &blob), Status::Ok);
        let mut levels = 0;
        assert_eq!(animcomp_tier_set_levels(&set, &mut levels), Status::Ok);
        assert_eq!(levels, 2);
        assert_eq!(animcomp_decompressor_bind_tiers(&mut ctx, &set), Status::Ok);
        let nj = b.blobs.resident.len(); // any length above the pose's
        let mut out = vec![0.0f32; nj.max(400) * 10];
        let sample = |ctx: &mut AnimcompDecompressor, out: &mut Vec<f32>, k: usize| {
            assert_eq!(animcomp_seek_sample(ctx, k as u32), Status::Ok);
            assert_eq!(
                animcomp_sample_pose(ctx, out.as_mut_ptr(), out.len(), 10),
                Status::Ok
            );
        };
        let joints = want[0].len();
        sample(&mut ctx, &mut out, 4);
        assert_eq!(&out[..joints], &want[0][..]);
        let mut level = 0;
        for t in &tiers {
            let t = t.as_bytes();
            assert_eq!(
                animcomp_tier_attach(&mut set, t.as_ptr().cast(), t.len(), &mut level),
                Status::Ok
            );
        }
        let mut mask = 0;
        assert_eq!(animcomp_tier_set_attached(&set, &mut mask), Status::Ok);
        assert_eq!(mask, 3);
        sample(&mut ctx, &mut out, 4);
        assert_eq!(&out[..joints], &want[1][..]);
        let t0 = tiers[0].as_bytes();
        assert_eq!(
            animcomp_tier_attach(&mut set, t0.as_ptr().cast(), t0.len(), std::ptr::null_mut()),
            Status::InvalidArgument
        );
        let other = build(&clips()[2]);
        let o = AlignedBlob::from_bytes(&other.blobs.tiers[1]);
        assert_eq!(
            animcomp_tier_attach(
                &mut set,
                o.as_bytes().as_ptr().cast(),
                o.as_bytes().len(),
                std::ptr::null_mut()
            ),
            Status::TierMismatch
        );
        assert_eq!(
            animcomp_tier_attach(&mut set, std::ptr::null(), 64, std::ptr::null_mut()),
            Status::NullPointer
        );
        let mut back: *const std::ffi::c_void = std::ptr::null();
        for l in [1u32, 2] {
            assert_eq!(animcomp_tier_detach(&mut set, l, &mut back), Status::Ok);
            assert_eq!(back, tiers[l as usize - 1].as_bytes().as_ptr().cast());
        }
        assert_eq!(animcomp_tier_detach(&mut set, 2, &mut back), Status::Ok);
        assert!(back.is_null());
        assert_eq!(
            animcomp_tier_detach(&mut set, 3, &mut back),
            Status::InvalidArgument
        );
        sample(&mut ctx, &mut out, 4);
        assert_eq!(&out[..joints], &want[0][..]);
        // A blob without tiers.
        let plain = AlignedBlob::from_bytes(&b.full);
        let p = plain.as_bytes();
        assert_eq!(
            animcomp_blob_open(&mut blob, p.as_ptr().cast(), p.len(), std::ptr::null()),
            Status::Ok
        );
        assert_eq!(
            animcomp_tier_set_init(&mut set, &blob),
            Status::InvalidArgument
        );
    }
}
