//! The grouped layout's poses against the reference decode of the body the encoder wrote
//! (`offline::vbr::reference`, on the segments blob before regrouping), bit for bit.

use super::*;
use crate::format::bytes::{read_u16, read_u32};
use crate::math::Transform;
use crate::math::{Quat, Vec3};
use crate::offline::clip::{generate_clip, GenerateOptions, RawClip};
use crate::offline::vbr::reference::Reference;
use crate::runtime::seek::{resolve, Looping, Rounding};
use crate::runtime::{DecompressOptions, Decompressor};
use crate::AlignedBlob;

mod rows;

/// The grouped clip of a segments blob (format version 2, regrouped) or of a grouped one.
fn convert(blob: &[u8]) -> Result<GroupedClip> {
    let grouped = AlignedBlob::from_bytes(&crate::offline::regroup_blob(blob)?);
    GroupedClip::convert(grouped.as_bytes())
}

/// The reference decode of a segments blob behind the calls of [`Decompressor`] that the tests
/// make: the poses every grouped decoder must give, bit for bit.
struct Ref<'a> {
    r: Reference<'a>,
    key: SampleKey,
}

impl<'a> Ref<'a> {
    fn new(blob: &'a [u8], opts: &DecompressOptions<'a>) -> Result<Self> {
        Ok(Ref {
            r: Reference::new(blob, opts.bind_pose)?,
            key: SampleKey::default(),
        })
    }

    fn num_joints(&self) -> usize {
        self.r.header().num_joints as usize
    }

    fn seek(&mut self, t: f32, looping: Looping, rounding: Rounding) -> Result<()> {
        self.key = resolve(self.r.header(), t, looping, rounding)?;
        Ok(())
    }

    fn sample_pose(&self, out: &mut [f32], stride: usize) -> Result<()> {
        self.r.sample_pose(&self.key, out, stride);
        Ok(())
    }

    fn sample_joint(&self, j: u32) -> Result<Transform> {
        Ok(self.r.pose(&self.key)[j as usize])
    }

    fn sample_joints(
        &self,
        joints: &[u32],
        slots: Option<&[u32]>,
        channels: u32,
        out: &mut [f32],
        stride: usize,
    ) -> Result<()> {
        let pose = self.r.pose(&self.key);
        let mut out = crate::runtime::PoseOut { data: out, stride };
        for (i, &j) in joints.iter().enumerate() {
            let slot = slots.map_or(i, |s| s[i] as usize);
            out.write_channels(slot, &pose[j as usize], channels);
        }
        Ok(())
    }
}

/// Compares every joint's floats of the grouped layout's decoders (every [`Isa`] this machine
/// runs, and the runtime's [`Decompressor`] on the regrouped blob) and the reference decode of
/// the segments blob `blob` at `times` (bit for bit; NaN never occurs in a decoded pose, and the
/// grouped layout's buffer is refilled with NaN before each decode). Returns the number of poses
/// compared (the decompressor's not counted).
pub fn compare(blob: &[u8], times: &[f32]) -> usize {
    let proto = convert(blob).unwrap();
    let mut d = Ref::new(blob, &DecompressOptions::default()).unwrap();
    let grouped = AlignedBlob::from_bytes(&crate::offline::regroup_blob(blob).unwrap());
    let mut runtime = Decompressor::new(grouped.as_bytes(), &DecompressOptions::default()).unwrap();
    let n = d.num_joints();
    let stride = 11;
    let mut a = vec![f32::NAN; n * stride];
    let mut b = vec![f32::NAN; n * stride];
    let isas: Vec<Isa> = Isa::ALL.into_iter().filter(|i| i.available()).collect();
    let mut poses = 0;
    for &t in times {
        for looping in [Looping::Clamp, Looping::Wrap] {
            d.seek(t, looping, Rounding::None).unwrap();
            d.sample_pose(&mut a, stride).unwrap();
            runtime.seek(t, looping, Rounding::None).unwrap();
            b.fill(f32::NAN);
            runtime.sample_pose(&mut b, stride).unwrap();
            assert!(same(&a, &b), "Decompressor at {t} ({looping:?})");
            let key = resolve(proto.header(), t, looping, Rounding::None).unwrap();
            for &isa in &isas {
                b.fill(f32::NAN);
                assert!(proto.sample_pose_isa(isa, &key, &mut b, stride));
                for j in 0..n {
                    for k in 0..10 {
                        let (x, y) = (a[j * stride + k], b[j * stride + k]);
                        assert_eq!(
                            x.to_bits(),
                            y.to_bits(),
                            "{isa:?}: joint {j} float {k} at {t} ({looping:?}, key {key:?}): \
                             {x} vs {y}"
                        );
                    }
                }
                poses += 1;
            }
        }
    }
    poses
}

#[test]
fn isas_available() {
    assert!(Isa::Scalar.available());
    assert_eq!(Isa::Sse2.available(), cfg!(target_arch = "x86_64"));
    assert_eq!(Isa::Neon.available(), cfg!(target_arch = "aarch64"));
    assert_eq!(
        Isa::Simd128.available(),
        cfg!(all(target_arch = "wasm32", target_feature = "simd128"))
    );
    if cfg!(target_arch = "aarch64") {
        assert_eq!(Isa::best(), Isa::Neon);
    }
    assert!(Isa::best().available());
    // An unavailable decoder writes nothing.
    for isa in Isa::ALL.into_iter().filter(|i| !i.available()) {
        let mut out = [7.0f32; 10];
        let p = convert(vbr_blob(1, 5, false).as_bytes()).unwrap();
        let key = SampleKey {
            i0: 0,
            i1: 0,
            alpha: 0.0,
        };
        assert!(!p.sample_pose_isa(isa, &key, &mut out, 10));
        assert_eq!(out, [7.0; 10]);
    }
}

/// A `vbr` blob of a generated clip.
#[test]
fn seg_of_is_division_and_remainder() {
    for len in 1..=40u32 {
        for s in (0..5000u32).chain([u32::MAX - 1, u32::MAX]) {
            assert_eq!(common::seg_of(s, len), (s / len, s % len), "{s} / {len}");
        }
    }
}

/// `samples`, or under qemu (`ANIMCOMP_TEST_EMULATED=1`, docs/ci.md) half of them but at least
/// 34 (two segments of 32): compressing the clips is most of these tests' time there.
fn shorter(samples: usize) -> usize {
    if crate::emulated::emulated() {
        (samples / 2).max(samples.min(34))
    } else {
        samples
    }
}

fn vbr_blob(joints: usize, samples: usize, scale: bool) -> AlignedBlob {
    vbr_blob_with(joints, samples, scale, |_| ())
}

/// [`vbr_blob`] with another generator seed.
fn seeded_blob(joints: usize, samples: usize, scale: bool, seed: u64) -> AlignedBlob {
    blob_of(joints, samples, scale, seed, |_| ())
}

/// A seeded clip with scale and its grouped prototype, for the playback cache's tests; `None`
/// (the test skipped, said on stderr) where the cache needs AVX2 and the machine lacks it.
fn cached_proto(joints: usize, samples: usize, seed: u64) -> Option<(AlignedBlob, GroupedClip)> {
    if !GroupedClip::supported() {
        eprintln!("skipped: no AVX2 here");
        return None;
    }
    let blob = seeded_blob(joints, samples, true, seed);
    let proto = convert(blob.as_bytes()).unwrap();
    Some((blob, proto))
}

/// [`vbr_blob`] of the generated clip changed by `edit`.
fn vbr_blob_with(
    joints: usize,
    samples: usize,
    scale: bool,
    edit: impl Fn(&mut RawClip),
) -> AlignedBlob {
    blob_of(joints, samples, scale, joints as u64, edit)
}

/// The `vbr` blob of the clip generated with `seed`, changed by `edit`.
fn blob_of(
    joints: usize,
    samples: usize,
    scale: bool,
    seed: u64,
    edit: impl Fn(&mut RawClip),
) -> AlignedBlob {
    let mut clip = generate_clip(&GenerateOptions {
        joints,
        samples,
        scale,
        animated_translation: true,
        seed,
        ..Default::default()
    });
    edit(&mut clip);
    vbr_of(&clip)
}

/// The segments blob (format version 2) of `clip` (default settings): the body the encoder
/// wrote, which the reference decodes and [`convert`] regroups.
fn vbr_of(clip: &RawClip) -> AlignedBlob {
    let settings = crate::CompressSettings {
        codec: crate::CodecChoice::Vbr,
        ..Default::default()
    };
    let blob = crate::offline::compress::compress_segments(clip, &[], &settings).unwrap();
    AlignedBlob::from_bytes(&blob)
}

/// What the layout of `p` gives the decoders to do: [a raw `f32` component, a group with
/// per-segment drops, a group of 5 to 7 lanes, four lanes of a rotation group whose dropped
/// components differ, a segment-constant lane].
fn coverage(p: &GroupedClip) -> [bool; 5] {
    let p = p.view();
    let d = p.data;
    let mut recs = Vec::new();
    let mut at = 0;
    for _ in 0..p.num_groups {
        let r = common::Record::read(d, at);
        at += r.size;
        recs.push(r);
    }
    let mut c = [false; 5];
    c[1] = recs.iter().any(|g| g.per_segment);
    c[2] = recs.iter().any(|g| g.n > 4 && g.n < LANES);
    for s in 0..p.num_segments as usize {
        let mut m = p.segment_offset(s) + p.segment_header(s);
        for g in &recs {
            let rb = (5 * g.n).div_ceil(8);
            let mut bits = [0u32; LANES];
            for k in 0..3 {
                let w = (0..rb).fold(0u64, |w, i| w | (d[m + rb * k + i] as u64) << (8 * i));
                for (l, b) in bits.iter_mut().enumerate().take(g.n) {
                    let r = (w >> (5 * l)) as u32 & 31;
                    c[0] |= r == crate::format::vbr::bitrate::RATE_RAW as u32;
                    *b |= r;
                }
            }
            c[4] |= bits[..g.n].contains(&0);
            if g.class == 0 {
                let drops = if g.per_segment {
                    read_u16(d, m + 3 * rb + 6 * g.n) as u32
                } else {
                    g.drops
                };
                for h in 0..g.n.div_ceil(4) {
                    let lanes = (4 * h..g.n.min(4 * h + 4)).map(|l| (drops >> (2 * l)) & 3);
                    let first = (drops >> (8 * h)) & 3;
                    c[3] |= lanes.into_iter().any(|x| x != first);
                }
            }
            m += g.meta;
        }
    }
    c
}

/// Joints 2 and 7 at a precision no quantised rate meets (raw `f32`s); joints 3, 5 and 9
/// turned half a turn about x (their rotations drop x, not w); joint 4 spinning two turns (no
/// component stays large: dropped components chosen per segment).
fn edge_cases(c: &mut RawClip) {
    for j in [2, 7] {
        c.skeleton.joints[j].precision = 1e-12;
    }
    for j in [3, 5, 9] {
        for q in &mut c.tracks[j].rotations {
            *q = (Quat::from_rotation_x(std::f32::consts::PI) * *q).normalize();
        }
    }
    let n = c.tracks[4].rotations.len();
    for (i, q) in c.tracks[4].rotations.iter_mut().enumerate() {
        let a = 4.0 * std::f32::consts::PI * i as f32 / n as f32;
        *q = Quat::from_axis_angle(Vec3::new(0.6, 0.0, 0.8), a);
    }
}

/// Every joint holds still for the clip's first half: constant over a segment, not the clip.
fn held_still(c: &mut RawClip) {
    for t in &mut c.tracks {
        let half = t.rotations.len() / 2;
        let (q, v) = (t.rotations[0], t.translations[0]);
        t.rotations[..half].fill(q);
        t.translations[..half].fill(v);
    }
}

#[test]
fn proto_poses_are_the_vbr_poses() {
    let isas = Isa::ALL.into_iter().filter(|i| i.available()).count();
    let mut seed = 0x9E37_79B9u64;
    let mut covered = [false; 5];
    for (joints, samples, scale, edited) in [
        (14, 150, true, false),
        (9, 61, false, false),
        (40, 200, true, false),
        (3, 17, false, false),
        (12, 90, true, true),
        (10, 100, false, false),
    ] {
        let still = samples == 100;
        let samples = shorter(samples);
        let blob = vbr_blob_with(joints, samples, scale, |c| {
            if edited {
                edge_cases(c)
            }
            if still {
                held_still(c)
            }
        });
        let c = coverage(&convert(blob.as_bytes()).unwrap());
        for (x, y) in covered.iter_mut().zip(c) {
            *x |= y;
        }
        let dur = (samples - 1) as f32 / 30.0;
        let mut times: Vec<f32> = (0..samples * 3).map(|i| i as f32 / 90.0).collect();
        // Under qemu (`ANIMCOMP_TEST_EMULATED=1`) 100 random times instead of 500 (before,
        // inside and after the clip all the same); every sample and third of a sample above.
        for _ in 0..if crate::emulated::emulated() {
            100
        } else {
            500
        } {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            times.push((seed >> 40) as f32 / (1u64 << 24) as f32 * dur * 1.2 - 0.1 * dur);
        }
        assert_eq!(compare(blob.as_bytes(), &times), times.len() * 2 * isas);
    }
    // The clips exercise every path of the decoders.
    assert_eq!(
        covered, [true; 5],
        "raw, per-segment, 5-7 lanes, mixed drops, constant"
    );
}

/// A group of one lane is decoded alone (`subset::lone_group`, not the eight-lane walk): a
/// root's translation (the one animated translation) last, or before the scales' groups; a
/// rotation left over, last (no translation animated) or before the root's translation;
/// quantised, raw, and with its dropped component chosen per segment. Bit for bit the reference
/// poses, at samples, between samples and across segments.
#[test]
fn a_group_of_one_lane_is_the_vbr_poses() {
    let isas = Isa::ALL.into_iter().filter(|i| i.available()).count();
    // A generated clip of `joints` joints (scale animated on some when `scale`, the root's
    // translation still when `still`), `edit`ed (0 nothing, 1 raw, 2 spinning) on joint
    // `lone`; and its groups' class, lanes, first joint and per-segment drops.
    let make = |joints: usize, scale: bool, still: bool, edit: u8, lone: usize| {
        let mut c = generate_clip(&GenerateOptions {
            joints,
            samples: 70,
            scale,
            seed: joints as u64,
            ..Default::default()
        });
        if still {
            let t = &mut c.tracks[0].translations;
            let first = t[0];
            t.fill(first);
        }
        match edit {
            1 => c.skeleton.joints[lone].precision = 1e-12,
            2 => {
                let n = c.tracks[lone].rotations.len();
                for (i, q) in c.tracks[lone].rotations.iter_mut().enumerate() {
                    let a = 4.0 * std::f32::consts::PI * i as f32 / n as f32;
                    *q = Quat::from_axis_angle(Vec3::new(0.6, 0.0, 0.8), a);
                }
            }
            _ => {}
        }
        let blob = vbr_of(&c);
        let p = convert(blob.as_bytes()).unwrap();
        let v = p.view();
        let mut at = 0;
        let mut groups = Vec::new();
        for _ in 0..v.num_groups {
            let r = common::Record::read(v.data, at);
            at += r.size;
            groups.push((r.class, r.n, r.joint(v.data, 0), r.per_segment));
        }
        (blob, groups)
    };
    // The first group of one lane of `class`: its index and joint.
    let lone_of = |groups: &[(u8, usize, usize, bool)], class: u8| {
        groups
            .iter()
            .position(|g| g.0 == class && g.1 == 1)
            .map(|i| (i, groups[i].2))
    };
    // A rig whose rotations leave one lane.
    let rot = (9..40)
        .find(|&j| lone_of(&make(j, false, true, 0, 0).1, 0).is_some())
        .expect("a rig whose rotations leave one lane");
    // (joints, scale, still, edit, the lone group's class, whether it is the last group)
    for (joints, scale, still, edit, class, last) in [
        (12, false, false, 0, 1, true),
        (12, false, false, 1, 1, true),
        (12, true, false, 0, 1, false),
        (12, true, false, 1, 1, false),
        (rot, false, true, 0, 0, true),
        (rot, false, true, 1, 0, true),
        (rot, false, true, 2, 0, true),
        (rot, false, false, 2, 0, false),
    ] {
        let (_, groups) = make(joints, scale, still, 0, 0);
        let (_, lone) = lone_of(&groups, class).expect("a group of one lane");
        let (blob, groups) = make(joints, scale, still, edit, lone);
        let (i, joint) = lone_of(&groups, class).expect("a group of one lane");
        assert_eq!(joint, lone, "{joints} joints, edit {edit}");
        assert_eq!(i + 1 == groups.len(), last, "{joints} joints: {groups:?}");
        // The spinning rotation drops its component per segment.
        assert_eq!(groups[i].3, edit == 2, "{joints} joints, edit {edit}");
        let dur = 69.0 / 30.0;
        let times: Vec<f32> = (0..280)
            .map(|i| i as f32 / 120.0)
            .chain((0..200).map(|i| (i as f32 * 0.618_034).fract() * dur * 1.2 - 0.1 * dur))
            .collect();
        assert_eq!(compare(blob.as_bytes(), &times), times.len() * 2 * isas);
    }
}

/// No lane of a group's coefficients is subnormal, those beyond a partly filled group's lanes
/// included: they read the bytes after the group's clip ranges, and bytes as floats are often
/// subnormal, which costs a microcode assist in every operation on them (a pose with the root's
/// translation in a group of its own takes a fifth longer through the playback cache).
#[cfg(target_arch = "x86_64")]
#[test]
fn no_coefficient_lane_is_subnormal() {
    if !Isa::Avx2.available() {
        eprintln!("skipped: no AVX2");
        return;
    }
    let mut partial = 0;
    for (joints, translation) in [(12, false), (9, true), (14, true), (22, false)] {
        let clip = generate_clip(&GenerateOptions {
            joints,
            samples: 70,
            scale: true,
            animated_translation: translation,
            seed: 7 + joints as u64,
            ..Default::default()
        });
        let blob = vbr_of(&clip);
        let p = convert(blob.as_bytes()).unwrap();
        let v = p.view();
        for s in 0..v.num_segments as usize {
            let seg = v.segment_offset(s) + v.segment_header(s);
            let dir = v.dir();
            for g in 0..v.num_groups {
                let [rec, meta] = dir.at(g);
                let r = common::Record::read(v.data, rec as usize);
                partial += (r.class != 0 && r.n < LANES) as usize;
                // SAFETY: AVX2 is present; the record and metadata are the validated body's.
                let c = unsafe { avx2::coefficients(&v, rec as usize, seg + meta as usize) };
                for (k, lanes) in c.iter().enumerate() {
                    for (l, x) in lanes.iter().enumerate() {
                        assert!(
                            x.is_finite() && !x.is_subnormal(),
                            "{joints} joints, segment {s}, group {g} ({} lanes), {} {k}, lane {l}: {x:e}",
                            r.n,
                            if k < 3 { "mul" } else { "add" }
                        );
                    }
                }
            }
        }
    }
    // Partly filled vector groups were among them.
    assert!(partial > 0);
}

/// Playback through the grouped layout's cache against the reference, bit for bit: forward at
/// several frame rates, backward, looping past the end, and random jumps between.
#[test]
fn proto_cached_poses_are_the_vbr_poses() {
    if !GroupedClip::supported() {
        eprintln!("skipped: no AVX2 here");
        return;
    }
    // Both builds of the eight-lane decoder that this machine runs.
    let isas = [Isa::Avx512, Isa::Avx2]
        .into_iter()
        .filter(|i| i.available());
    for (isa, (joints, samples, scale)) in
        isas.flat_map(|i| [(14, 150, true), (9, 61, false), (40, 200, true)].map(|c| (i, c)))
    {
        let blob = seeded_blob(joints, samples, scale, 7 + joints as u64);
        let mut proto = convert(blob.as_bytes()).unwrap();
        assert!(proto.use_isa(isa));
        let mut cache = GroupedClipCache::new(&proto);
        let mut d = Ref::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
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
            used += cache.held().contains(&key.i0) as usize;
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

/// Forward playback decodes the samples after the key's new one in the same pass (as many as
/// the slots take, within the segment): the next keys read nothing new; at a segment's last
/// sample nothing is decoded ahead. Poses stay the reference's.
#[test]
fn forward_playback_decodes_the_next_samples_ahead() {
    let Some((blob, proto)) = cached_proto(14, 100, 11) else {
        return;
    };
    let mut d = Ref::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
    let n = d.num_joints();
    let (mut a, mut b) = (vec![0.0f32; n * 10], vec![f32::NAN; n * 10]);
    let rate = proto.header().sample_rate;
    let mut pose = |cache: &mut GroupedClipCache, sample: f32| {
        let t = sample / rate;
        let key = resolve(proto.header(), t, Looping::Clamp, Rounding::None).unwrap();
        d.seek(t, Looping::Clamp, Rounding::None).unwrap();
        d.sample_pose(&mut a, 10).unwrap();
        assert!(proto.sample_pose_cached(cache, &key, &mut b, 10));
        assert!(
            a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
            "at sample {sample}"
        );
        cache.held()
    };
    let holds = |held: [u32; cache::SLOTS], mut s: std::ops::RangeInclusive<u32>| {
        s.all(|s| held.contains(&s))
    };
    let ahead = cache::SLOTS as u32 - 2;
    assert!(ahead >= 1);
    let mut cache = GroupedClipCache::new(&proto);
    // The first pose of a cache takes the plain walk; the second decodes its samples and the
    // ones after.
    pose(&mut cache, 2.5);
    assert!(holds(pose(&mut cache, 2.25), 2..=2 + ahead));
    // The last of those and the next: the next comes with `ahead` more.
    let s = 2 + ahead;
    assert!(holds(pose(&mut cache, s as f32 + 0.5), s..=s + 1 + ahead));
    // Segment 0 holds samples 0..L: its last sample comes alone (the next segment's first is
    // not decoded ahead), the next segment's first with the ones after it.
    let l = proto.view().seg_len;
    let mut cache = GroupedClipCache::new(&proto);
    pose(&mut cache, (l - 3) as f32);
    pose(&mut cache, (l - 1) as f32);
    let held: Vec<u32> = cache
        .held()
        .into_iter()
        .filter(|&s| s != u32::MAX)
        .collect();
    assert!(held.contains(&(l - 1)) && !held.contains(&l), "{held:?}");
    assert!(holds(pose(&mut cache, l as f32 - 0.5), l - 1..=l + ahead));
}

/// Subsets (every joint alone, every third joint, all joints in reverse) against the
/// reference's whole pose, bit for bit.
#[test]
fn proto_subsets_are_the_vbr_joints() {
    for (joints, samples, scale) in [(14, 150, true), (30, 61, false)] {
        let samples = shorter(samples);
        let blob = seeded_blob(joints, samples, scale, 11 + joints as u64);
        let proto = convert(blob.as_bytes()).unwrap();
        let mut d = Ref::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
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
                if wide && !GroupedClip::supported() {
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

/// Samples `p` everywhere its decoders can: every key kind with every available decoder, the
/// cache forward, and subsets lane by lane and (AVX2) whole groups.
fn exercise(p: &GroupedClip) {
    let h = *p.header();
    let n = h.num_joints as usize;
    let mut out = vec![0.0f32; n * 10];
    let mut cache = GroupedClipCache::new(p);
    let all: Vec<u32> = (0..n as u32).collect();
    for i in 0..h.num_samples {
        for (i1, alpha) in [(i, 0.0), ((i + 1).min(h.num_samples - 1), 0.5), (0, 0.25)] {
            let key = SampleKey { i0: i, i1, alpha };
            for isa in Isa::ALL {
                p.sample_pose_isa(isa, &key, &mut out, 10);
            }
            p.sample_pose_cached(&mut cache, &key, &mut out, 10);
            p.sample_joints_with(&key, &all, &mut out, 10, false);
            if GroupedClip::supported() {
                p.sample_joints_with(&key, &all, &mut out, 10, true);
            }
        }
    }
}

/// Forged bodies: every byte of a grouped body changed in turn, then random words, and the body
/// cut short or grown. The validator refuses each or the decoders sample it without a panic
/// (and, under valgrind or a sanitizer, without a read outside the body).
#[test]
fn forged_bodies_are_refused_or_decode_in_bounds() {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for (joints, samples, scale) in [(11, 40, true), (6, 70, false)] {
        let blob = seeded_blob(joints, samples, scale, 5 + joints as u64);
        let p = convert(blob.as_bytes()).unwrap();
        let (h, body) = (*p.header(), p.body().to_vec());
        exercise(&p);
        let attempt = |b: &[u8]| match GroupedClip::from_body(h, b) {
            Ok(q) => {
                exercise(&q);
                false
            }
            Err(e) => {
                assert!(matches!(e, Error::CorruptBlob(_)), "{e:?}");
                true
            }
        };
        for i in 0..body.len() {
            let mut b = body.clone();
            b[i] ^= 1 << (next() % 8);
            // Every bit of the body header is checked.
            assert!(
                attempt(&b) || i >= body::HEADER,
                "byte {i} changed, accepted"
            );
        }
        for _ in 0..400 {
            let mut b = body.clone();
            let i = (next() as usize % (body.len() / 4)) * 4;
            b[i..i + 4].copy_from_slice(&(next() as u32).to_le_bytes());
            attempt(&b);
        }
        for len in [0, 16, body::HEADER, body.len() - 16, body.len() + 16] {
            let mut b = body.clone();
            b.resize(len, 0);
            assert!(attempt(&b), "body of {len} bytes accepted");
        }
    }
}

/// A blob whose defaults are the bind pose: poses (every decoder) and subsets bit for bit the
/// reference's with the same bind pose.
#[test]
fn bind_pose_defaults_are_the_vbr_poses() {
    for scale in [false, true] {
        let clip = generate_clip(&GenerateOptions {
            joints: 13,
            samples: 70,
            scale,
            seed: 21,
            ..Default::default()
        });
        let bind = clip.bind_pose_floats().unwrap();
        let settings = crate::CompressSettings {
            codec: crate::CodecChoice::Vbr,
            default_mode: crate::offline::DefaultMode::BindPose,
            ..Default::default()
        };
        let blob = crate::offline::compress::compress_segments(&clip, &[], &settings).unwrap();
        let blob = AlignedBlob::from_bytes(&blob);
        let proto = convert(blob.as_bytes()).unwrap();
        assert!(proto.header().has(BlobFlags::DEFAULTS_ARE_BIND_POSE));
        assert!(
            proto.view().defaults.iter().sum::<usize>() > 0,
            "no default channel"
        );
        let proto = proto.with_bind_pose(&bind).unwrap();
        let opts = DecompressOptions {
            bind_pose: Some(&bind),
            ..Default::default()
        };
        let mut d = Ref::new(blob.as_bytes(), &opts).unwrap();
        let n = d.num_joints();
        let (mut a, mut b) = (vec![0.0f32; n * 10], vec![f32::NAN; n * 10]);
        let all: Vec<u32> = (0..n as u32).collect();
        for i in 0..200 {
            let t = i as f32 * 0.013;
            let key = resolve(proto.header(), t, Looping::Clamp, Rounding::None).unwrap();
            d.seek(t, Looping::Clamp, Rounding::None).unwrap();
            d.sample_pose(&mut a, 10).unwrap();
            for isa in Isa::ALL.into_iter().filter(|i| i.available()) {
                b.fill(f32::NAN);
                assert!(proto.sample_pose_isa(isa, &key, &mut b, 10));
                assert!(
                    a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
                    "{isa:?} at {t}"
                );
            }
            b.fill(f32::NAN);
            proto.sample_joints(&key, &all, &mut b, 10);
            assert!(
                a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
                "subset at {t}"
            );
        }
    }
}

/// Joint selections with channel masks and output slots (the runtime's `sample_joints`): bit for
/// bit the reference's, unwritten floats left alone.
#[test]
fn selections_are_the_vbr_selections() {
    for (joints, scale, edge) in [(17, true, false), (9, false, false), (12, true, true)] {
        let blob = blob_of(joints, shorter(80), scale, 31 + joints as u64, |c| {
            if edge {
                edge_cases(c)
            }
        });
        let proto = convert(blob.as_bytes()).unwrap();
        let mut d = Ref::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
        let n = d.num_joints() as u32;
        // In order (eight at a time across groups), with and without slots, and not.
        let lists: Vec<(Vec<u32>, Option<Vec<u32>>)> = vec![
            ((0..n).step_by(4).collect(), None),
            (
                (0..n).step_by(2).collect(),
                Some((0..n).step_by(2).map(|j| j + 1).collect()),
            ),
            ((0..n).rev().collect(), Some((0..n).collect())),
            (vec![n - 1, 0, n / 2], Some(vec![5, 1, 3])),
        ];
        for i in 0..120 {
            let t = i as f32 * 0.021;
            let key = resolve(proto.header(), t, Looping::Wrap, Rounding::None).unwrap();
            d.seek(t, Looping::Wrap, Rounding::None).unwrap();
            for (js, slots) in &lists {
                for channels in 1..8 {
                    let len = 10 * (n as usize + 6);
                    let (mut a, mut b) = (vec![7.5f32; len], vec![7.5f32; len]);
                    d.sample_joints(js, slots.as_deref(), channels, &mut a, 10)
                        .unwrap();
                    proto.sample_selection(&key, js, slots.as_deref(), channels, &mut b, 10);
                    assert!(same(&a, &b), "{js:?} {slots:?} channels {channels} at {t}");
                }
            }
        }
    }
}

/// A frame wider than 65535 bits (many joints, every channel animated): the groups' first bits
/// are stored as u32, and poses and subsets stay the reference's.
#[test]
fn wide_frames_store_wide_group_starts() {
    let blob = blob_of(3000, 4, true, 3, |_| ());
    let proto = convert(blob.as_bytes()).unwrap();
    assert_eq!(
        proto.view().start_bytes,
        4,
        "frames of this clip fit in 16 bits"
    );
    compare(blob.as_bytes(), &[0.0, 0.07, 0.11]);
    let mut d = Ref::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
    let n = d.num_joints();
    let (mut a, mut b) = (vec![0.0f32; n * 10], vec![f32::NAN; n * 10]);
    let key = resolve(proto.header(), 0.05, Looping::Clamp, Rounding::None).unwrap();
    d.seek(0.05, Looping::Clamp, Rounding::None).unwrap();
    d.sample_pose(&mut a, 10).unwrap();
    // Lane by lane (out of order) and eight at a time (in order).
    for js in [
        (0..n as u32).rev().step_by(7).collect::<Vec<_>>(),
        (0..n as u32).step_by(7).collect(),
    ] {
        proto.sample_joints(&key, &js, &mut b, 10);
        for &j in &js {
            let r = j as usize * 10..j as usize * 10 + 10;
            assert!(same(&a[r.clone()], &b[r]));
        }
    }
}

/// Whether two poses are the same, bit for bit.
fn same(a: &[f32], b: &[f32]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// A pose buffer of 10 floats per joint.
fn pose_out(data: &mut [f32]) -> crate::runtime::PoseOut<'_> {
    crate::runtime::PoseOut { data, stride: 10 }
}

/// The runtime's entry points on a grouped body (what a format version 5 blob is sampled
/// with): whole poses, the cache, single joints and selections (dense ones through the
/// channel walk or whole groups, sparse ones lane by lane), bit for bit the reference's.
#[test]
fn entry_points_are_the_vbr_decoder() {
    use crate::runtime::{Defaults, JointSelection};
    let blob = seeded_blob(21, 90, true, 41);
    let proto = convert(blob.as_bytes()).unwrap();
    let (h, body) = (*proto.header(), proto.body());
    let d = Defaults::for_header(&h, None);
    let mut dec = Ref::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
    let n = dec.num_joints();
    let mut cache = vec![0u128; entry::cache_size(body).div_ceil(16)];
    let hint = entry::hint(&h, body);
    // The hint names the segment table's offset in the body and the samples per segment, and
    // places every segment of this short clip: the whole lines of its bytes.
    let v = body::View::read(body, &h);
    let data_at = v.data.as_ptr() as usize - body.as_ptr() as usize;
    assert_eq!(
        (hint.first as usize, hint.stride as u32),
        (data_at + v.seg_table, v.seg_len)
    );
    for s in 0..v.num_segments {
        let at = |s: u32| match s < v.num_segments {
            true => data_at + v.segment_offset(s as usize),
            false => data_at + v.data.len() - v.tail,
        };
        let (from, to) = hint.segments.segment(s).expect("a placed segment");
        assert_eq!((from, to), (at(s) / 64 * 64, (at(s + 1) / 64 + 1) * 64));
    }
    assert_eq!(hint.segments.segment(v.num_segments), None);
    let all: Vec<u32> = (0..n as u32).collect();
    let even: Vec<u32> = (0..n as u32).step_by(2).collect();
    for i in 0..150 {
        let t = i as f32 / 60.0;
        let key = resolve(&h, t, Looping::Wrap, Rounding::None).unwrap();
        dec.seek(t, Looping::Wrap, Rounding::None).unwrap();
        let mut a = vec![0.0f32; n * 10];
        dec.sample_pose(&mut a, 10).unwrap();
        let mut b = vec![f32::NAN; n * 10];
        entry::sample_pose(&h, body, &hint, &key, &d, &mut pose_out(&mut b));
        assert!(same(&a, &b), "pose at {t}");
        // SAFETY: u128 words viewed as bytes.
        let mem = unsafe {
            std::slice::from_raw_parts_mut(cache.as_mut_ptr() as *mut u8, 16 * cache.len())
        };
        b.fill(f32::NAN);
        entry::sample_pose_cached(&h, body, &hint, &key, &d, &mut pose_out(&mut b), mem);
        assert!(same(&a, &b), "cached at {t}");
        for j in [0, n / 2, n - 1] {
            let x = entry::sample_joint(&h, body, &key, j, &d);
            assert_eq!(x, dec.sample_joint(j as u32).unwrap(), "joint {j} at {t}");
        }
        for (js, channels) in [(&all, 1), (&all, 3), (&all, 5), (&even, 1), (&even, 6)] {
            let sel = JointSelection {
                joints: js,
                slots: None,
                channels,
            };
            let (mut x, mut y) = (vec![3.0f32; n * 10], vec![3.0f32; n * 10]);
            dec.sample_joints(js, None, channels, &mut x, 10).unwrap();
            entry::sample_joints(&h, body, &key, &d, &sel, &mut pose_out(&mut y));
            assert!(
                same(&x, &y),
                "{} joints, channels {channels} at {t}",
                js.len()
            );
        }
    }
}

/// A random jump through the playback cache: the plain walk's pose, and of the cache's memory
/// only the head's last key written (the slots and coefficients left for playback to resume);
/// playback after the jump gives the exact poses again.
#[test]
fn a_random_jump_writes_only_the_cache_heads_last_key() {
    use crate::runtime::Defaults;
    let blob = seeded_blob(19, 120, true, 7);
    let proto = convert(blob.as_bytes()).unwrap();
    let (h, body) = (*proto.header(), proto.body());
    let d = Defaults::for_header(&h, None);
    let hint = entry::hint(&h, body);
    let n = h.num_joints as usize;
    let mut words = vec![0u128; entry::cache_size(body).div_ceil(16)];
    // SAFETY: u128 words viewed as bytes.
    let mem =
        unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut u8, 16 * words.len()) };
    let pose = |t: f32, mem: Option<&mut [u8]>| {
        let key = resolve(&h, t, Looping::Wrap, Rounding::None).unwrap();
        let mut out = vec![f32::NAN; n * 10];
        match mem {
            Some(m) => {
                entry::sample_pose_cached(&h, body, &hint, &key, &d, &mut pose_out(&mut out), m)
            }
            None => entry::sample_pose(&h, body, &hint, &key, &d, &mut pose_out(&mut out)),
        }
        out
    };
    for i in 0..20 {
        let t = 0.3 + i as f32 / 60.0;
        assert!(
            same(&pose(t, Some(&mut *mem)), &pose(t, None)),
            "playback at {t}"
        );
    }
    // The head's last key: after the tag, checksum, body, length, bind pose (32 bytes) and the
    // slots' samples.
    let at = 32 + 4 * cache::SLOTS;
    let last = at..at + 4;
    for t in [3.1f32, 0.9, 2.45, 1.7] {
        let before = mem.to_vec();
        assert!(
            same(&pose(t, Some(&mut *mem)), &pose(t, None)),
            "jump to {t}"
        );
        let changed: Vec<usize> = (0..mem.len()).filter(|&i| mem[i] != before[i]).collect();
        // The cache is the AVX2 decoder's; without AVX2 (other CPUs) it is left untouched.
        if !matches!(Isa::best(), Isa::Avx2 | Isa::Avx512) {
            assert!(changed.is_empty(), "a jump to {t} wrote bytes {changed:?}");
            continue;
        }
        assert!(
            changed.iter().all(|i| last.contains(i)) && !changed.is_empty(),
            "a jump to {t} wrote bytes {changed:?}"
        );
        let key = resolve(&h, t, Looping::Wrap, Rounding::None).unwrap();
        assert_eq!(read_u32(mem, at), key.i0);
    }
    // Playback from the last jump decodes into the cache again, bit for bit.
    for i in 1..10 {
        let t = 1.7 + i as f32 / 60.0;
        assert!(
            same(&pose(t, Some(&mut *mem)), &pose(t, None)),
            "resumed at {t}"
        );
    }
}

/// Garbage in a filled playback cache (a caller's bug): every byte after its head, which still
/// names the clip, overwritten with random words between poses. Poses stay finite-or-not but
/// every read stays inside the body (a read outside would crash here or under valgrind), and a
/// cache reset by a scribbled head gives the exact poses again.
#[test]
fn scribbled_cache_reads_stay_in_the_body() {
    let Some((_blob, proto)) = cached_proto(19, 120, 77) else {
        return;
    };
    let n = proto.header().num_joints as usize;
    let mut cache = GroupedClipCache::new(&proto);
    let (mut a, mut b) = (vec![0.0f32; n * 10], vec![0.0f32; n * 10]);
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0..400u32 {
        let key = resolve(
            proto.header(),
            i as f32 / 60.0,
            Looping::Wrap,
            Rounding::None,
        )
        .unwrap();
        proto.sample_pose_cached(&mut cache, &key, &mut b, 10);
        // Everything after the 64-byte head (4 words of 16 bytes): random 32-bit words, half of
        // them 0 (so that a coefficient's raw flag is often clear and its offsets drive the
        // 32-byte windows).
        for w in cache.mem[4..].iter_mut() {
            let mut v = 0u128;
            for k in 0..4 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let word = if x >> 63 == 0 { 0 } else { x as u32 };
                v |= (word as u128) << (32 * k);
            }
            *w = v;
        }
        proto.sample_pose_cached(&mut cache, &key, &mut b, 10);
    }
    // A scribbled head is not trusted: the cache starts again and poses are exact.
    cache.mem[0] = 0;
    let key = resolve(proto.header(), 0.5, Looping::Wrap, Rounding::None).unwrap();
    proto.sample_pose_isa(Isa::Scalar, &key, &mut a, 10);
    proto.sample_pose_cached(&mut cache, &key, &mut b, 10);
    assert!(same(&a, &b));
}

/// Every byte of a grouped body is accounted for (one clip, one body): a non-zero byte in the
/// padding, a kinds bit past the last joint, 16 more bytes of padding, and a gap of 16 bytes
/// between two segments (the segment table moved to match) are refused; the unforged body
/// validates, and at least the decoders' 32 bytes follow its last segment.
#[test]
fn bodies_are_canonical() {
    for (joints, samples, scale) in [(11, 40, true), (6, 70, false), (300, 35, false)] {
        let samples = shorter(samples);
        let blob = seeded_blob(joints, samples, scale, 17 + joints as u64);
        let p = convert(blob.as_bytes()).unwrap();
        let (h, body) = (*p.header(), p.body().to_vec());
        assert!(validate::validate(&h, &body).is_ok());
        let refused = |b: &[u8], what: &str| {
            assert!(
                matches!(validate::validate(&h, b), Err(Error::CorruptBlob(_))),
                "{joints} joints: {what} accepted"
            )
        };
        // The last segment's end in the body, from its stored samples and frame bits.
        let v = p.view();
        let data_at = v.data.as_ptr() as usize - p.body().as_ptr() as usize;
        let values_at = body.len() - v.tail;
        let last = v.num_segments - 1;
        let (meta, mask, fb, _) = common::segment_at(&v, last);
        let stored = if v.masks {
            mask.count_ones() as usize
        } else {
            (samples - last as usize * v.seg_len as usize).min(v.seg_len as usize)
        };
        let end = data_at + meta + v.meta_bytes + (fb * stored).div_ceil(8);
        assert!(end <= values_at && body.len() - end >= PADDING);
        // A non-zero byte of the padding between the segments and the constants.
        if end < values_at {
            let mut b = body.clone();
            b[values_at - 1] = 0x80;
            refused(&b, "a non-zero padding byte");
        }
        // A bit past the last joint in the kinds (the body's last bytes).
        let mut b = body.clone();
        *b.last_mut().unwrap() = 0x80;
        refused(&b, "a kinds bit past the last joint");
        // 16 more zero bytes of padding.
        let mut g = body[..values_at].to_vec();
        g.extend_from_slice(&[0; 16]);
        g.extend_from_slice(&body[values_at..]);
        refused(&g, "16 more zero bytes of padding");
        // A gap before the second segment.
        let c = body::Counts::read(&body);
        let data = c
            .sections(joints, body::map_columns(&h), body.len())
            .unwrap()[0];
        assert!(c.num_segments >= 2);
        let table = data + c.seg_table as usize;
        let tb = c.table_bytes();
        let entry = |b: &[u8], s: usize| read_u32(b, table + tb * s) & body::table_mask(tb);
        let second = data + entry(&body, 1) as usize;
        let mut g = body[..second].to_vec();
        g.extend_from_slice(&[0x5a; 16]);
        g.extend_from_slice(&body[second..]);
        for s in 1..c.num_segments as usize {
            let e = table + tb * s;
            let v = entry(&g, s) + 16;
            g[e..e + tb].copy_from_slice(&v.to_le_bytes()[..tb]);
        }
        refused(&g, "a gap between two segments");
    }
}

/// The whole pose of `p` at `key` with the decoder for `isa` writing only `channels` (1
/// rotations, 3 and translations, 7 all) into `out` (stride 10): the NEON, `simd128`, AVX2 and
/// scalar decoders' channel walks; false where this machine or build has none.
fn sample_channels_isa(
    p: &GroupedClip,
    isa: Isa,
    key: &SampleKey,
    out: &mut [f32],
    channels: u32,
) -> bool {
    p.check(key, out, 10);
    let _ = (isa, channels);
    #[cfg(target_arch = "aarch64")]
    if isa == Isa::Neon {
        // SAFETY: NEON is the aarch64 baseline; the key and the buffer were checked above.
        unsafe { neon::sample_channels(&p.view(), key, out.as_mut_ptr(), 10, channels) };
        return true;
    }
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    if isa == Isa::Simd128 {
        // SAFETY: the build enables `simd128`; the key and the buffer were checked above.
        unsafe { simd128::sample_channels(&p.view(), key, out.as_mut_ptr(), 10, channels) };
        return true;
    }
    #[cfg(target_arch = "x86_64")]
    if isa == Isa::Avx2 && isa.available() {
        // SAFETY: AVX2 is present; the key and the buffer were checked above.
        unsafe { avx2::sample_channels(&p.view(), key, out.as_mut_ptr(), 10, channels) };
        return true;
    }
    if isa == Isa::Scalar {
        let rows = crate::runtime::PoseRows::ten(out.as_mut_ptr(), 10);
        // SAFETY: the key and the buffer were checked above.
        unsafe { scalar::sample_rows(&p.view(), key, rows, channels) };
        return true;
    }
    false
}

/// The widest decoders (NEON on aarch64, the x86-64 ones where the machine has them) against
/// the scalar decoder, bit for bit, on clips whose groups hold 1 to 8 lanes, with per-track and
/// per-segment dropped components, raw `f32` components, segment-constant lanes and dropped
/// keyframes; at keys of one sample, of two in one segment, of two across segments (the next
/// sample and a far one) and of weight 0; whole poses and the channel walks (rotations, and
/// translations).
#[test]
fn wide_decoders_are_the_scalar_decoder() {
    let isas: Vec<Isa> = Isa::ALL
        .into_iter()
        .filter(|&i| i != Isa::Scalar && i.available())
        .collect();
    if isas.is_empty() {
        eprintln!("skipped: no SIMD decoder here");
        return;
    }
    let mut lanes = [false; LANES + 1];
    let mut cases = [false; 3];
    let mut dropped = false;
    let mut covered = [false; 5];
    let mut walked = 0;
    // (joints, samples, scale, edge cases, the encoder's best level: it drops keyframes)
    for (joints, samples, scale, edited, best) in [
        (1, 40, true, false, false),
        (2, 33, false, false, false),
        (3, 50, true, false, false),
        (4, 47, false, false, true),
        (5, 61, true, false, false),
        (6, 35, false, false, false),
        (7, 44, true, false, false),
        (10, 90, true, true, false),
        (12, 100, false, true, false),
        (12, 64, true, true, true),
        (16, 70, true, false, false),
        (23, 64, true, false, false),
    ] {
        let samples = shorter(samples);
        let mut clip = generate_clip(&GenerateOptions {
            joints,
            samples,
            scale,
            animated_translation: true,
            seed: joints as u64,
            ..Default::default()
        });
        if edited {
            edge_cases(&mut clip);
            held_still(&mut clip);
        }
        if best {
            // Slow, steady motion: linear between kept keyframes within the precision.
            for (j, t) in clip.tracks.iter_mut().enumerate() {
                let axis = Vec3::new(1.0, j as f32 * 0.3, 0.5).normalize();
                for (i, q) in t.rotations.iter_mut().enumerate() {
                    *q = Quat::from_axis_angle(axis, 0.002 * (i + j) as f32);
                }
                for (i, v) in t.translations.iter_mut().enumerate() {
                    *v = Vec3::new(0.01 * i as f32, 0.5, -0.002 * i as f32);
                }
            }
        }
        let settings = crate::CompressSettings {
            codec: crate::CodecChoice::Vbr,
            level: if best {
                crate::offline::Level::Best
            } else {
                crate::offline::Level::Default
            },
            ..Default::default()
        };
        let blob = crate::offline::compress::compress_segments(&clip, &[], &settings).unwrap();
        let p = convert(&blob).unwrap();
        for (x, y) in covered.iter_mut().zip(coverage(&p)) {
            *x |= y;
        }
        let v = p.view();
        let mut at = 0;
        for _ in 0..v.num_groups {
            let r = common::Record::read(v.data, at);
            at += r.size;
            lanes[r.n] = true;
        }
        let n = samples as u32;
        let stride = 10;
        let mut want = vec![0.0f32; joints * stride];
        let mut got = vec![0.0f32; joints * stride];
        // Under qemu (`ANIMCOMP_TEST_EMULATED=1`) the keys of half the samples: every other
        // sample, odd and even in turn every eight samples, so that the last sample of every
        // segment (16 and 32 long) and its pair across the boundary are still there.
        let emulated = crate::emulated::emulated();
        for i in (0..n).filter(|i| !emulated || i % 2 == (i / 8) % 2) {
            let keys = [
                (i, i, 0.0),
                (i, (i + 1).min(n - 1), 0.0),
                (i, (i + 1).min(n - 1), 0.375),
                (i, (i * 7 + 3) % n, 0.625),
                ((i * 5 + 1) % n, i, 0.5),
            ];
            for (i0, i1, alpha) in keys {
                let key = SampleKey { i0, i1, alpha };
                let sp = common::split(&v, &key);
                cases[sp.case as usize] = true;
                let (a, b) = common::positions::<common::Here>(&v, &sp);
                dropped |= a.t > 0.0 || b.t > 0.0;
                want.fill(f32::NAN);
                assert!(p.sample_pose_isa(Isa::Scalar, &key, &mut want, stride));
                // The scalar decoder too, for its channel walk.
                for &isa in isas.iter().chain(&[Isa::Scalar]) {
                    got.fill(f32::NAN);
                    assert!(p.sample_pose_isa(isa, &key, &mut got, stride));
                    assert!(same(&want, &got), "{isa:?}, {joints} joints, key {key:?}");
                    for channels in [1, 3] {
                        got.fill(f32::NAN);
                        if !sample_channels_isa(&p, isa, &key, &mut got, channels) {
                            continue;
                        }
                        walked += 1;
                        for j in 0..joints {
                            for (f, (&x, &y)) in want[j * 10..j * 10 + 10]
                                .iter()
                                .zip(&got[j * 10..j * 10 + 10])
                                .enumerate()
                            {
                                // Rotations 0..4, translations 4..7, scales 7..10.
                                let ch = [0, 0, 0, 0, 1, 1, 1, 2, 2, 2][f];
                                let y = if channels & (1 << ch) != 0 {
                                    y
                                } else {
                                    assert!(y.is_nan(), "{isa:?}: channels {channels} wrote {f}");
                                    x
                                };
                                assert_eq!(
                                    x.to_bits(),
                                    y.to_bits(),
                                    "{isa:?}, {joints} joints, channels {channels}, joint {j} \
                                     float {f}, key {key:?}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    assert_eq!(&lanes[1..], &[true; LANES], "groups of 1 to 8 lanes");
    assert_eq!(
        cases, [true; 3],
        "one sample, two in a segment, two across segments"
    );
    assert!(dropped, "a dropped keyframe");
    assert_eq!(
        covered, [true; 5],
        "raw, per-segment, 5-7 lanes, mixed drops, constant"
    );
    if cfg!(any(
        target_arch = "aarch64",
        all(target_arch = "wasm32", target_feature = "simd128")
    )) {
        assert!(walked > 0);
    }
}
