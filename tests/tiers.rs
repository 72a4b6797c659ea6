//! Quality tiers at run time (`animcomp::runtime::tiers`): a resident blob samples with whatever
//! tiers are attached, bit for bit like a plain blob that stores the same samples, on every
//! decoder, through every sampling entry point and the playback cache; tiers of another clip or
//! compression, corrupt tiers and a level attached twice are refused; attaching and detaching
//! while other threads sample gives each call one consistent set of tiers; the C ABI.

#![cfg(feature = "compress")]

#[path = "support/emulated.rs"]
mod emulated;

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::ffi::*;
use animcomp::offline::tiers::{compress_tiered_fidelities, TieredBuild};
use animcomp::runtime::vbr::grouped::Isa;
use animcomp::runtime::{
    DecompressOptions, Decompressor, Looping, OpenBlob, PoseLayout, Rounding, TierSet, CHANNELS_ALL,
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

/// The build's tier blobs, each copied to 16-byte-aligned memory.
fn aligned_tiers(b: &TieredBuild) -> Vec<AlignedBlob> {
    b.blobs
        .tiers
        .iter()
        .map(|t| AlignedBlob::from_bytes(t))
        .collect()
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

/// The pose at `t` in ozz blocks (`PoseLayout::OZZ_SOA_TRANSFORM`), as floats.
fn ozz_pose(dec: &mut Decompressor, t: f32) -> Vec<f32> {
    dec.seek(t, Looping::Clamp, Rounding::None).unwrap();
    let mut out = vec![0.0f32; dec.num_joints().div_ceil(4) * 40];
    // SAFETY: the floats viewed as bytes.
    let bytes =
        unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<u8>(), out.len() * 4) };
    dec.sample_pose_layout(&PoseLayout::OZZ_SOA_TRANSFORM, &mut [bytes])
        .unwrap();
    out
}

/// Ten-float rows as ozz blocks: translation, rotation, scale, each component four lanes, the
/// lanes past the last joint the identity.
fn blocks(ten: &[f32]) -> Vec<f32> {
    let n = ten.len() / 10;
    let mut out = vec![0.0f32; n.div_ceil(4) * 40];
    for b in 0..n.div_ceil(4) {
        for lane in 0..4 {
            let j = 4 * b + lane;
            let row: [f32; 10] = if j < n {
                ten[10 * j..10 * j + 10].try_into().unwrap()
            } else {
                [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]
            };
            // Block element order: translation 4..7, rotation 0..4, scale 7..10 of the row.
            for (e, f) in (4..7).chain(0..4).chain(7..10).enumerate() {
                out[40 * b + 4 * e + lane] = row[f];
            }
        }
    }
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
        let tiers = aligned_tiers(&b);
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

/// Whole poses at random times (keys between any two samples, in one segment or across two, at
/// any weight) on every decoder: with level 1 attached, those of the plain blob storing its
/// samples (keys whose samples the resident segments store, keys with a sample in the tier,
/// keys between samples no part stores), and with both levels those of the blob without tiers.
#[test]
fn whole_poses_at_random_times_decode_like_the_plain_blobs() {
    let isas: Vec<Isa> = Isa::ALL.into_iter().filter(|i| i.available()).collect();
    for clip in clips() {
        let b = build(&clip);
        let resident = AlignedBlob::from_bytes(&b.blobs.resident);
        let tiers = aligned_tiers(&b);
        let plain: Vec<AlignedBlob> = [&b.fidelities[0], &b.fidelities[1], &b.full]
            .iter()
            .map(|x| AlignedBlob::from_bytes(x))
            .collect();
        let open = OpenBlob::open(resident.as_bytes(), &DecompressOptions::default()).unwrap();
        let set = TierSet::new(&open).unwrap();
        for (level, want) in [(0usize, &plain[0]), (1, &plain[1]), (2, &plain[2])] {
            if level > 0 {
                set.attach(tiers[level - 1].as_bytes()).unwrap();
            }
            let mut w = Decompressor::new(want.as_bytes(), &DecompressOptions::default()).unwrap();
            let dur = w.header().duration();
            let times: Vec<f32> = (0..300u64)
                .map(|k| {
                    let x = (k.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as f32;
                    x / (1u64 << 24) as f32 * dur
                })
                .collect();
            for &isa in &isas {
                assert!(Isa::set_best(isa));
                let mut d = Decompressor::bind_tiers(&set);
                for (k, &t) in times.iter().enumerate() {
                    let want = pose(&mut w, t);
                    assert_eq!(
                        bits(&[pose(&mut d, t)]),
                        bits(std::slice::from_ref(&want)),
                        "{isa:?} level {level} at {t}"
                    );
                    // ozz blocks (written straight by the AVX2 decoder), at a tenth of the times.
                    if k % 10 == 0 {
                        assert_eq!(
                            bits(&[ozz_pose(&mut d, t)]),
                            bits(&[blocks(&want)]),
                            "{isa:?} level {level} at {t}: ozz blocks"
                        );
                    }
                }
            }
            Isa::set_best(isas[0]);
        }
    }
}

/// One playback cache across attaches and detaches: each pose is the one its tiers give.
#[test]
fn a_playback_cache_follows_attach_and_detach() {
    let clip = &clips()[1];
    let b = build(clip);
    let resident = AlignedBlob::from_bytes(&b.blobs.resident);
    let tiers = aligned_tiers(&b);
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
    let mut bufs = aligned_tiers(&b);
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
        // Under qemu (`ANIMCOMP_TEST_EMULATED=1`, docs/ci.md) 500 rounds: the readers spin on
        // every core for as long as the rounds last.
        for round in 0..if emulated::emulated() { 500 } else { 2000 } {
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
    let tiers = aligned_tiers(&b);
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

/// A tier blob in parts (`animcomp::format::tier`): the header's first 36 bytes, the frames,
/// the index (a count per run of 32 segments, an entry per segment) and the records (mask,
/// first byte).
#[derive(Clone)]
struct Parts {
    head: Vec<u8>,
    frames: Vec<u8>,
    counts: Vec<u32>,
    entries: Vec<u8>,
    records: Vec<(u32, u32)>,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Re-seals a tier blob's checksum.
fn seal(t: &mut [u8]) {
    let c = animcomp::format::checksum::crc32c(&t[16..]);
    t[12..16].copy_from_slice(&c.to_le_bytes());
}

impl Parts {
    fn of(t: &[u8]) -> Parts {
        use animcomp::format::tier::TIER_HEADER;
        let n = u32_at(t, 32) as usize;
        let f = u32_at(t, 36) as usize;
        let index = TIER_HEADER + f;
        let counts: Vec<u32> = (0..n.div_ceil(32))
            .map(|w| u32_at(t, index + 4 * w))
            .collect();
        let at = index + 4 * counts.len();
        let entries = t[at..at + n].to_vec();
        let stored = entries.iter().filter(|&&k| k != 0).count();
        let at = at + n;
        let records = (0..stored)
            .map(|r| (u32_at(t, at + 8 * r), u32_at(t, at + 8 * r + 4)))
            .collect();
        Parts {
            head: t[..36].to_vec(),
            frames: t[TIER_HEADER..index].to_vec(),
            counts,
            entries,
            records,
        }
    }

    /// The blob the layout gives for these parts (the fewest zeros after them), sealed.
    fn blob(&self) -> AlignedBlob {
        let mut t = self.head.clone();
        t.extend_from_slice(&(self.frames.len() as u32).to_le_bytes());
        let padded = t.len() + self.frames.len() + 32;
        t.extend_from_slice(&self.frames);
        for c in &self.counts {
            t.extend_from_slice(&c.to_le_bytes());
        }
        t.extend_from_slice(&self.entries);
        for &(a, b) in &self.records {
            t.extend_from_slice(&a.to_le_bytes());
            t.extend_from_slice(&b.to_le_bytes());
        }
        t.resize(t.len().max(padded).div_ceil(16) * 16, 0);
        let total = t.len() as u32;
        t[8..12].copy_from_slice(&total.to_le_bytes());
        seal(&mut t);
        AlignedBlob::from_bytes(&t)
    }

    /// The stored segments in order.
    fn segments(&self) -> Vec<usize> {
        (0..self.entries.len())
            .filter(|&s| self.entries[s] != 0)
            .collect()
    }

    /// Entries and counts renumbered from the records' segments (`stored`).
    fn renumber(&mut self, stored: &[usize]) {
        let mut in_run = 0;
        for s in 0..self.entries.len() {
            if s % 32 == 0 {
                self.counts[s / 32] = stored.iter().filter(|&&x| x < s).count() as u32;
                in_run = 0;
            }
            self.entries[s] = 0;
            if stored.contains(&s) {
                in_run += 1;
                self.entries[s] = in_run;
            }
        }
    }
}

/// Each structural rule of a tier blob refuses a mutant that breaks only it (checksum
/// re-sealed), with its own message; the parts re-assembled unchanged are the tier's bytes.
#[test]
fn each_tier_rule_refuses_its_mutant() {
    // Long enough for three runs of 32 segments; level 2 stores samples in some segments only.
    let clip = generate_clip(&GenerateOptions {
        joints: 6,
        samples: 1400,
        sample_rate: 90.0,
        bone_length: 1.0,
        seed: 5,
        ..Default::default()
    });
    let b = build(&clip);
    let resident = AlignedBlob::from_bytes(&b.blobs.resident);
    let open = OpenBlob::open(resident.as_bytes(), &DecompressOptions::default()).unwrap();
    // A set per attach, made after the tier it attaches (a set outlives nothing it holds);
    // a refused tier leaves it empty.
    let attach = |t: &AlignedBlob| {
        let set = TierSet::new(&open).unwrap();
        let r = set.attach(t.as_bytes());
        if r.is_err() {
            assert_eq!(set.attached(), [false, false]);
        }
        r
    };
    let tier = &b.blobs.tiers[1];
    let base = Parts::of(tier);
    assert_eq!(base.blob().as_bytes(), &tier[..]);
    let n = u32_at(tier, 32) as usize;
    assert!(n > 64, "{n} segments");
    let segs = base.segments();
    assert!(segs.len() >= 3 && segs.len() + 16 < n, "{segs:?}");
    assert!(segs.iter().any(|&s| s >= 32), "{segs:?}");
    let other = Parts::of(&b.blobs.tiers[0]);
    let other_mask = |s: usize| {
        other
            .segments()
            .iter()
            .position(|&x| x == s)
            .map_or(0, |r| other.records[r].0)
    };
    let refused = |p: &Parts, why: &'static str| {
        let t = p.blob();
        assert_eq!(attach(&t), Err(Error::CorruptBlob(why)), "{why}");
    };
    let refused_bytes = |mut t: Vec<u8>, why: &'static str| {
        seal(&mut t);
        let t = AlignedBlob::from_bytes(&t);
        assert_eq!(attach(&t), Err(Error::CorruptBlob(why)), "{why}");
    };

    // The index: a count that is not the stored segments before its run (the first run's and
    // the second's).
    for w in [0, 1] {
        let mut p = base.clone();
        p.counts[w] += 1;
        refused(&p, "tier index count is not the stored segments before it");
    }
    // Entries out of order: the first stored segment's counted twice, and two segments of one
    // run with the same entry.
    let mut p = base.clone();
    p.entries[segs[0]] = 2;
    refused(&p, "tier index entries out of order");
    let mut p = base.clone();
    let (a, b2) = (segs[0], segs[1]);
    assert!(a / 32 == b2 / 32);
    p.entries[b2] = p.entries[a];
    refused(&p, "tier index entries out of order");
    // Entries for more records than the blob holds (in place: the size unchanged; the counts
    // follow the entries).
    let mut t = tier.clone();
    let index = 40 + base.frames.len();
    let mut p = base.clone();
    let all: Vec<usize> = (0..n).collect();
    p.renumber(&all);
    for (w, c) in p.counts.iter().enumerate() {
        t[index + 4 * w..][..4].copy_from_slice(&c.to_le_bytes());
    }
    let at = index + 4 * p.counts.len();
    t[at..at + n].copy_from_slice(&p.entries);
    refused_bytes(t, "tier records out of bounds");
    // Frame bytes beyond the blob.
    let mut t = tier.clone();
    let len = t.len() as u32;
    t[36..40].copy_from_slice(&len.to_le_bytes());
    refused_bytes(t, "tier frames or index out of bounds");

    // A stored segment whose record has an empty mask (a segment that stores nothing here).
    let empty = (0..n).find(|s| !segs.contains(s)).unwrap();
    let mut p = base.clone();
    let mut with = segs.clone();
    with.push(empty);
    with.sort();
    p.renumber(&with);
    let at = segs.iter().filter(|&&s| s < empty).count();
    let first = p.records.get(at).map_or(p.frames.len() as u32, |r| r.1);
    p.records.insert(at, (0, first));
    refused(&p, "tier record with an empty mask");
    // Without its presence bit a stored segment's frames are not the frame bytes'.
    let mut p = base.clone();
    p.renumber(&segs[..segs.len() - 1]);
    p.records.pop();
    refused(&p, "tier frame bytes are not its segments' frames");
    // Frame bytes beyond the segments' frames (16 more zero bytes).
    let mut p = base.clone();
    p.frames.extend_from_slice(&[0; 16]);
    refused(&p, "tier frame bytes are not its segments' frames");
    // Fewer frame bytes than the last segment's frames.
    let mut p = base.clone();
    p.frames.pop();
    refused(&p, "tier frames out of bounds");

    // Masks: on the segment's first sample, past its last, on a sample the resident blob stores.
    let on_resident = |p: &Parts, r: usize| {
        let s = segs[r];
        let taken = p.records[r].0 | other_mask(s);
        (1..15).map(|i| 1u32 << i).find(|b| taken & b == 0).unwrap()
    };
    for (bit, what) in [
        (1u32, "first"),
        (1 << 31, "beyond"),
        (on_resident(&base, 0), "resident"),
    ] {
        let mut p = base.clone();
        p.records[0].0 |= bit;
        let t = p.blob();
        assert_eq!(
            attach(&t),
            Err(Error::CorruptBlob(
                "tier mask outside its segment or on a resident sample"
            )),
            "{what}"
        );
    }
    // Records whose offsets do not follow one another (the first two swapped).
    let mut p = base.clone();
    let (a, b2) = (p.records[0].1, p.records[1].1);
    p.records[0].1 = b2;
    p.records[1].1 = a;
    refused(&p, "tier segments do not follow one another");
    // A non-zero bit after a segment's frames: the top bit of each stored segment's last byte,
    // refused where its frames end inside that byte (else a frame bit, which attaches).
    let mut inside = 0;
    for r in 0..segs.len() {
        let end = p_end(&base, r);
        let mut p = base.clone();
        p.frames[end - 1] ^= 0x80;
        let t = p.blob();
        match attach(&t) {
            Ok(_) => {}
            Err(e) => {
                assert_eq!(
                    e,
                    Error::CorruptBlob("bits after a tier segment's frames are not zero")
                );
                inside += 1;
            }
        }
    }
    assert!(inside > 0);
    // Non-zero bytes after the records, and 16 more zero bytes.
    let ok = base.blob();
    let mut t = ok.as_bytes().to_vec();
    *t.last_mut().unwrap() = 1;
    refused_bytes(t, "tier padding is not zero or not of its one size");
    let mut t = ok.as_bytes().to_vec();
    t.extend_from_slice(&[0; 16]);
    let total = t.len() as u32;
    t[8..12].copy_from_slice(&total.to_le_bytes());
    refused_bytes(t, "tier padding is not zero or not of its one size");
    // The segment count and the level.
    let mut t = tier.clone();
    t[32..36].copy_from_slice(&(n as u32 + 1).to_le_bytes());
    refused_bytes(t, "tier segment count is not the resident's");
    let mut t = tier.clone();
    t[6] = 3;
    refused_bytes(t, "tier level out of range");
    // And the unchanged tier attaches.
    assert_eq!(attach(&ok), Ok(2));
}

/// The byte after stored segment `r`'s frames.
fn p_end(p: &Parts, r: usize) -> usize {
    p.records
        .get(r + 1)
        .map_or(p.frames.len(), |x| x.1 as usize)
}
