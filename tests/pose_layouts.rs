//! Poses in the engine's layout (`Decompressor::sample_pose_layout`, `sample_pose_layout_cached`,
//! `sample_joints_layout`, their forms for a layout checked once, and their C entry points): for every codec, layout kind and element
//! type, the bytes written are the ten-float decode converted by a reference written here (bit
//! for bit, `f64` the exact widening), bytes outside the fields keep a sentinel, and hostile
//! layouts and buffers get their statuses.
#![cfg(feature = "compress")]

#[path = "support/emulated.rs"]
mod emulated;

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::decompress::{
    DecompressOptions, Decompressor, Element, Looping, OpenBlob, PoseLayout, Rounding,
};
use animcomp::ffi::*;
use animcomp::offline::DefaultMode;
use animcomp::{AlignedBlob, CodecChoice, CompressSettings, Error, Status, VbrLayout};

const SENTINEL: u8 = 0xA5;

/// 8-byte aligned zeroed bytes (as `u64` words), `n` bytes viewed.
struct Buf(Vec<u64>, usize);

impl Buf {
    fn new(n: usize) -> Self {
        Buf(
            vec![u64::from_ne_bytes([SENTINEL; 8]); n.div_ceil(8) + 1],
            n,
        )
    }
    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: the words viewed as bytes (at most their length).
        unsafe { std::slice::from_raw_parts_mut(self.0.as_mut_ptr().cast::<u8>(), self.1) }
    }
}

/// The reference: byte position of component `k` of channel `c` of slot `s` in buffer `b`.
fn position(l: &PoseLayout, s: usize, c: usize, k: usize) -> (usize, usize) {
    let e = l.element.size();
    match l.kind {
        animcomp::decompress::LayoutKind::Aos => (0, s * l.strides[0] + l.offsets[c] + k * e),
        animcomp::decompress::LayoutKind::Soa => (c, l.offsets[c] + s * l.strides[c] + k * e),
        animcomp::decompress::LayoutKind::Soa4 => {
            // translation x[4] y[4] z[4], rotation x[4] y[4] z[4] w[4], scale x[4] y[4] z[4]
            let first = [12, 0, 28][c];
            (0, (s / 4 * 40 + first + k * 4 + s % 4) * e)
        }
    }
}

/// The reference conversion of ten-float `t` at slot `s` into `bufs` (channels of `mask`).
fn convert(l: &PoseLayout, bufs: &mut [Vec<u8>], s: usize, t: &[f32], mask: u32) {
    for (c, (first, n)) in [(0usize, 4usize), (4, 3), (7, 3)].into_iter().enumerate() {
        if mask & (1 << c) == 0 {
            continue;
        }
        for k in 0..n {
            let (b, at) = position(l, s, c, k);
            let v = t[first + k];
            match l.element {
                Element::F32 => bufs[b][at..at + 4].copy_from_slice(&v.to_ne_bytes()),
                Element::F64 => bufs[b][at..at + 8].copy_from_slice(&(v as f64).to_ne_bytes()),
            }
        }
    }
}

fn layouts() -> Vec<(&'static str, PoseLayout)> {
    vec![
        ("ten floats", PoseLayout::TEN_FLOATS),
        (
            "ten floats, stride 13",
            PoseLayout::aos(Element::F32, [0, 16, 28], 52),
        ),
        ("unreal 5", PoseLayout::UNREAL5_TRANSFORM),
        ("unreal 4", PoseLayout::UNREAL4_TRANSFORM),
        ("unity", PoseLayout::UNITY_SEPARATE),
        ("ozz", PoseLayout::OZZ_SOA_TRANSFORM),
        ("ozz f64", PoseLayout::soa4(Element::F64)),
        (
            "f32 aos, translation first",
            PoseLayout::aos(Element::F32, [12, 0, 28], 40),
        ),
        (
            "f32 aos, scale first, padded",
            PoseLayout::aos(Element::F32, [20, 36, 0], 64),
        ),
        (
            "f64 aos, packed",
            PoseLayout::aos(Element::F64, [0, 32, 56], 80),
        ),
        (
            "f64 aos, gap in the first 40 bytes",
            PoseLayout::aos(Element::F64, [48, 0, 80], 112),
        ),
        (
            "f64 soa, padded arrays",
            PoseLayout::soa(Element::F64, [8, 0, 16], [40, 32, 24]),
        ),
        (
            "f32 soa, float4 vectors",
            PoseLayout::soa(Element::F32, [0, 4, 0], [16, 16, 16]),
        ),
    ]
}

/// Sentinel buffers for `slots` joints of `l`.
fn buffers(l: &PoseLayout, slots: usize) -> Vec<Buf> {
    (0..l.buffers())
        .map(|b| Buf::new(l.required_bytes(b, slots).unwrap()))
        .collect()
}

fn snapshot(bufs: &mut [Buf]) -> Vec<Vec<u8>> {
    bufs.iter_mut().map(|b| b.bytes().to_vec()).collect()
}

/// The expected bytes of a whole pose: sentinels, the fields converted from `pose`, and ozz
/// lanes past the last joint the identity.
fn expected_pose(l: &PoseLayout, nj: usize, pose: &[f32]) -> Vec<Vec<u8>> {
    let mut bufs: Vec<Vec<u8>> = (0..l.buffers())
        .map(|b| vec![SENTINEL; l.required_bytes(b, nj).unwrap()])
        .collect();
    for j in 0..nj {
        convert(l, &mut bufs, j, &pose[j * 10..j * 10 + 10], 7);
    }
    if l.kind == animcomp::decompress::LayoutKind::Soa4 {
        let id = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
        for j in nj..nj.div_ceil(4) * 4 {
            convert(l, &mut bufs, j, &id, 7);
        }
    }
    bufs
}

fn blobs(joints: usize) -> Vec<(String, AlignedBlob, Vec<f32>, usize)> {
    // Under qemu (.ci/cross.sh) 17 samples instead of 61 (the poses are sampled in the first
    // half second, 15 samples): `poses_larger_than_a_stage_match_too` was 26 s of CPU there,
    // most of it compressing the clip.
    let clip = generate_clip(&GenerateOptions {
        joints,
        samples: if emulated::emulated() { 17 } else { 61 },
        scale: true,
        animated_translation: true,
        seed: 23,
        ..Default::default()
    });
    let bind = clip.bind_pose_floats().unwrap();
    let mut out = Vec::new();
    for (codec, layout) in [
        (CodecChoice::Vbr, VbrLayout::Grouped),
        (CodecChoice::Fixed, VbrLayout::Segments),
        (CodecChoice::Keys, VbrLayout::Segments),
    ] {
        for mode in [DefaultMode::Identity, DefaultMode::BindPose] {
            let s = CompressSettings {
                codec,
                vbr_layout: layout,
                default_mode: mode,
                ..Default::default()
            };
            let blob = AlignedBlob::from_bytes(&animcomp::compress(&clip, &s).unwrap());
            out.push((format!("{codec:?} {mode:?}"), blob, bind.clone(), joints));
        }
    }
    out
}

fn check_codecs(joints: usize) {
    for (name, blob, bind, nj) in blobs(joints) {
        let opts = DecompressOptions {
            verify_checksum: true,
            bind_pose: Some(&bind),
        };
        let open = OpenBlob::open(blob.as_bytes(), &opts).unwrap();
        let mut d = Decompressor::bind(&open);
        let mut cache = vec![0u128; d.playback_cache_size().div_ceil(16)];
        // SAFETY: the words of `cache` viewed as bytes.
        let cache = unsafe {
            std::slice::from_raw_parts_mut(cache.as_mut_ptr().cast::<u8>(), cache.len() * 16)
        };
        // Under qemu three of the five times: a sample, between two, and a jump back (the
        // cache refilled); poses larger than a stage were the longest of these tests there.
        let times: &[f32] = if emulated::emulated() {
            &[0.0, 0.37, 0.2]
        } else {
            &[0.0, 0.37, 0.38, 0.5, 0.2]
        };
        for (i, &t) in times.iter().enumerate() {
            d.seek(t, Looping::Clamp, Rounding::None).unwrap();
            let mut pose = vec![0.0f32; nj * 10];
            d.sample_pose(&mut pose, 10).unwrap();
            for (lname, l) in layouts() {
                let want = expected_pose(&l, nj, &pose);
                let mut bufs = buffers(&l, nj);
                {
                    let mut views: Vec<&mut [u8]> = bufs.iter_mut().map(|b| b.bytes()).collect();
                    d.sample_pose_layout(&l, &mut views).unwrap();
                }
                assert!(snapshot(&mut bufs) == want, "{name} {lname} t={t}: pose");
                let checked = l.checked().unwrap();
                let mut bufs = buffers(&l, nj);
                {
                    let mut views: Vec<&mut [u8]> = bufs.iter_mut().map(|b| b.bytes()).collect();
                    d.sample_pose_checked(&checked, &mut views).unwrap();
                }
                assert!(
                    snapshot(&mut bufs) == want,
                    "{name} {lname} t={t}: pose, layout checked once"
                );
                let mut bufs = buffers(&l, nj);
                {
                    let mut views: Vec<&mut [u8]> = bufs.iter_mut().map(|b| b.bytes()).collect();
                    d.sample_pose_layout_cached(cache, &l, &mut views).unwrap();
                }
                assert!(
                    snapshot(&mut bufs) == want,
                    "{name} {lname} t={t}: cached pose"
                );

                // Selections: masks, slots (reversed, with gaps, one repeated).
                let joints: Vec<u32> = (0..nj as u32).rev().step_by(2).collect();
                let mut slots: Vec<u32> = (0..joints.len() as u32).map(|k| 3 * k + 1).collect();
                if slots.len() > 2 {
                    slots[2] = slots[0];
                }
                let nslots = *slots.iter().max().unwrap() as usize + 1;
                for (mask, use_slots) in [
                    (7, true),
                    (1, false),
                    (2, true),
                    (4, true),
                    (5, false),
                    (6, true),
                    (3, true),
                ] {
                    let sl = use_slots.then_some(&slots[..]);
                    let n = if use_slots { nslots } else { joints.len() };
                    let mut ten = vec![0.0f32; n * 10];
                    d.sample_joints(&joints, sl, mask, &mut ten, 10).unwrap();
                    let mut want: Vec<Vec<u8>> = (0..l.buffers())
                        .map(|b| vec![SENTINEL; l.required_bytes(b, n).unwrap()])
                        .collect();
                    for e in 0..joints.len() {
                        let s = sl.map_or(e, |s| s[e] as usize);
                        convert(&l, &mut want, s, &ten[s * 10..s * 10 + 10], mask);
                    }
                    let mut bufs = buffers(&l, n);
                    {
                        let mut views: Vec<&mut [u8]> =
                            bufs.iter_mut().map(|b| b.bytes()).collect();
                        d.sample_joints_layout(&joints, sl, mask, &l, &mut views)
                            .unwrap();
                    }
                    assert!(
                        snapshot(&mut bufs) == want,
                        "{name} {lname} t={t} mask {mask} slots {use_slots}: selection"
                    );
                    let mut bufs = buffers(&l, n);
                    {
                        let mut views: Vec<&mut [u8]> =
                            bufs.iter_mut().map(|b| b.bytes()).collect();
                        d.sample_joints_checked(&joints, sl, mask, &checked, &mut views)
                            .unwrap();
                    }
                    assert!(
                        snapshot(&mut bufs) == want,
                        "{name} {lname} t={t} mask {mask} slots {use_slots}: checked selection"
                    );
                }
                let _ = i;
            }
        }
    }
}

#[test]
fn every_codec_and_layout_matches_the_ten_float_decode() {
    check_codecs(29);
}

#[test]
fn poses_larger_than_a_stage_match_too() {
    check_codecs(animcomp::decompress::layout::STAGE_JOINTS + 37);
}

#[test]
fn f64_is_the_exact_widening() {
    let (_, blob, bind, nj) = blobs(7).remove(0);
    let open = OpenBlob::open(
        blob.as_bytes(),
        &DecompressOptions {
            verify_checksum: true,
            bind_pose: Some(&bind),
        },
    )
    .unwrap();
    let mut d = Decompressor::bind(&open);
    d.seek(0.3, Looping::Clamp, Rounding::None).unwrap();
    let mut pose = vec![0.0f32; nj * 10];
    d.sample_pose(&mut pose, 10).unwrap();
    let l = PoseLayout::UNREAL5_TRANSFORM;
    let mut b = Buf::new(96 * nj);
    d.sample_pose_layout(&l, &mut [b.bytes()]).unwrap();
    let bytes = b.bytes();
    for j in 0..nj {
        let f =
            |at: usize| f64::from_ne_bytes(bytes[j * 96 + at..j * 96 + at + 8].try_into().unwrap());
        for k in 0..4 {
            assert_eq!(f(8 * k), pose[j * 10 + k] as f64);
        }
        for k in 0..3 {
            assert_eq!(f(32 + 8 * k), pose[j * 10 + 4 + k] as f64);
            assert_eq!(f(64 + 8 * k), pose[j * 10 + 7 + k] as f64);
        }
        // The fourth double of translation and scale is not written.
        assert_eq!(&bytes[j * 96 + 56..j * 96 + 64], &[SENTINEL; 8]);
        assert_eq!(&bytes[j * 96 + 88..j * 96 + 96], &[SENTINEL; 8]);
    }
}

#[test]
fn hostile_layouts_are_refused() {
    use animcomp::decompress::LayoutKind;
    let bad = [
        PoseLayout::aos(Element::F32, [0, 16, 28], 36), // stride too small
        PoseLayout::aos(Element::F32, [0, 12, 28], 40), // rotation and translation overlap
        PoseLayout::aos(Element::F64, [0, 32, 60], 96), // offset not a multiple of 8
        PoseLayout::aos(Element::F32, [0, 16, 28], 42), // stride not a multiple of 4
        PoseLayout::aos(Element::F32, [usize::MAX - 3, 16, 28], 40), // offset overflows
        PoseLayout::soa(Element::F32, [0, 0, 0], [16, 8, 12]), // array stride too small
        PoseLayout::soa(Element::F64, [0, 4, 0], [32, 24, 24]), // offset not a multiple of 8
        PoseLayout {
            element: Element::F32,
            kind: LayoutKind::Soa4,
            offsets: [0, 0, 4],
            strides: [0; 3],
        },
        PoseLayout {
            element: Element::F32,
            kind: LayoutKind::Aos,
            offsets: [0, 16, 28],
            strides: [40, 40, 44],
        },
    ];
    for l in bad {
        assert!(
            matches!(l.validate(), Err(Error::InvalidArgument(_))),
            "{l:?}"
        );
    }
    let (_, blob, bind, nj) = blobs(9).remove(0);
    let open = OpenBlob::open(
        blob.as_bytes(),
        &DecompressOptions {
            verify_checksum: true,
            bind_pose: Some(&bind),
        },
    )
    .unwrap();
    let d = Decompressor::bind(&open);
    // Too small: the bytes required, nothing written.
    let l = PoseLayout::UNREAL4_TRANSFORM;
    let mut b = Buf::new(48 * nj - 5);
    assert_eq!(
        d.sample_pose_layout(&l, &mut [b.bytes()]),
        Err(Error::BufferTooSmall {
            required: 48 * (nj - 1) + 44
        })
    );
    assert!(b.bytes().iter().all(|&x| x == SENTINEL));
    // Misaligned.
    let mut b = Buf::new(48 * nj + 8);
    assert_eq!(
        d.sample_pose_layout(&l, &mut [&mut b.bytes()[2..]]),
        Err(Error::Misaligned)
    );
    let l64 = PoseLayout::UNREAL5_TRANSFORM;
    let mut b = Buf::new(96 * nj + 8);
    assert_eq!(
        d.sample_pose_layout(&l64, &mut [&mut b.bytes()[4..]]),
        Err(Error::Misaligned)
    );
    // Wrong buffer count.
    let mut b = Buf::new(96 * nj);
    assert!(matches!(
        d.sample_pose_layout(&PoseLayout::UNITY_SEPARATE, &mut [b.bytes()]),
        Err(Error::InvalidArgument(_))
    ));
    // Ozz: the joint count rounded up to four.
    let mut b = Buf::new(160 * nj.div_ceil(4) - 4);
    assert_eq!(
        d.sample_pose_layout(&PoseLayout::OZZ_SOA_TRANSFORM, &mut [b.bytes()]),
        Err(Error::BufferTooSmall {
            required: 160 * nj.div_ceil(4)
        })
    );
    // Selections: channels, slots, joints.
    let mut b = Buf::new(48 * nj);
    assert!(matches!(
        d.sample_joints_layout(&[0], None, 8, &l, &mut [b.bytes()]),
        Err(Error::InvalidEnum { .. })
    ));
    assert!(matches!(
        d.sample_joints_layout(&[0], None, 0, &l, &mut [b.bytes()]),
        Err(Error::InvalidEnum { .. })
    ));
    assert_eq!(
        d.sample_joints_layout(&[nj as u32], None, 7, &l, &mut [b.bytes()]),
        Err(Error::JointOutOfRange(nj as u32))
    );
    assert_eq!(
        d.sample_joints_layout(&[0], Some(&[nj as u32]), 7, &l, &mut [b.bytes()]),
        Err(Error::BufferTooSmall {
            required: 48 * nj + 44
        })
    );
    // Huge slots overflow as arguments, not as a length (a stride of 2^40 bytes on 64-bit
    // targets, 2^8 on 32-bit ones).
    let big = PoseLayout::aos(Element::F64, [0, 32, 64], 1 << (usize::BITS - 24));
    assert!(matches!(
        d.sample_joints_layout(&[0], Some(&[u32::MAX]), 7, &big, &mut [b.bytes()]),
        Err(Error::InvalidArgument(_)) | Err(Error::BufferTooSmall { .. })
    ));
}

/// The rules of `PoseLayout::validate`, written plainly: the reference its one-pass check is
/// compared with.
fn valid_reference(l: &PoseLayout) -> bool {
    use animcomp::decompress::LayoutKind;
    let e = l.element.size();
    let comps = [4usize, 3, 3];
    match l.kind {
        LayoutKind::Soa4 => l.offsets == [0; 3] && l.strides == [0; 3],
        LayoutKind::Aos => {
            let s = l.strides[0];
            if l.strides != [s; 3] || s > isize::MAX as usize || !s.is_multiple_of(e) {
                return false;
            }
            let mut ends = [0usize; 3];
            for c in 0..3 {
                if !l.offsets[c].is_multiple_of(e) {
                    return false;
                }
                match l.offsets[c].checked_add(comps[c] * e) {
                    Some(end) if end <= s => ends[c] = end,
                    _ => return false,
                }
            }
            (0..3).all(|a| (a + 1..3).all(|b| l.offsets[a] >= ends[b] || l.offsets[b] >= ends[a]))
        }
        LayoutKind::Soa => (0..3).all(|c| {
            l.offsets[c].is_multiple_of(e)
                && l.strides[c].is_multiple_of(e)
                && l.strides[c] >= comps[c] * e
        }),
    }
}

#[test]
fn validation_agrees_with_its_reference() {
    use animcomp::decompress::LayoutKind;
    // Values around every boundary: small offsets and strides, odd ones, and the address
    // space's end.
    let values = [
        0usize,
        1,
        4,
        8,
        12,
        16,
        24,
        28,
        32,
        36,
        40,
        44,
        48,
        64,
        96,
        isize::MAX as usize - 7,
        isize::MAX as usize + 1,
        usize::MAX - 7,
        usize::MAX,
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut pick = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        values[(seed % values.len() as u64) as usize]
    };
    let (mut valid, mut n) = (0, 0);
    for round in 0..60_000 {
        let element = if round % 2 == 0 {
            Element::F32
        } else {
            Element::F64
        };
        let kind = [LayoutKind::Aos, LayoutKind::Soa, LayoutKind::Soa4][round % 3];
        let offsets = [pick(), pick(), pick()];
        let strides = if kind == LayoutKind::Aos && round % 5 != 0 {
            [pick(); 3]
        } else {
            [pick(), pick(), pick()]
        };
        let mut l = PoseLayout {
            element,
            kind,
            offsets,
            strides,
        };
        if kind == LayoutKind::Aos && round % 7 == 0 {
            // Valid AoS shapes are rare among random values: rebuild some from the presets.
            l = PoseLayout::aos(element, [0, 16 * element.size() / 4, 32], 48 * (round % 3));
        }
        let want = valid_reference(&l);
        let got = l.validate();
        assert_eq!(got.is_ok(), want, "{l:?}: {got:?}");
        if let Err(e) = got {
            assert!(matches!(e, Error::InvalidArgument(_)), "{l:?}: {e:?}");
        } else {
            // A valid layout's checked form gives the same sizes.
            let c = l.checked().unwrap();
            for b in 0..l.buffers() {
                for slots in [0, 1, 5, 1 << 20] {
                    assert_eq!(c.required_bytes(b, slots), l.required_bytes(b, slots));
                }
            }
            valid += 1;
        }
        n += 1;
    }
    // The sweep meets both verdicts often.
    assert!(valid > n / 20 && valid < n - n / 20, "{valid} valid of {n}");
}

/// A context on the first test blob, through the C ABI.
fn c_context(nj: usize) -> (AlignedBlob, Vec<f32>, AnimcompDecompressor) {
    let (_, blob, bind, _) = blobs(nj).remove(0);
    let mut ctx = AnimcompDecompressor {
        opaque: [0; ANIMCOMP_DECOMPRESSOR_WORDS],
    };
    let mut o = AnimcompDecompressOptions {
        verify_checksum: 1,
        reserved0: 0,
        bind_pose: bind.as_ptr(),
        bind_pose_len: bind.len() as u64,
        reserved: [0; 1],
    };
    o.verify_checksum = 1;
    let b = blob.as_bytes();
    assert_eq!(
        unsafe { animcomp_decompressor_init(&mut ctx, b.as_ptr().cast(), b.len(), &o) },
        Status::Ok
    );
    (blob, bind, ctx)
}

fn three(d: [*mut u8; 3], n: [usize; 3]) -> AnimcompPoseBuffers {
    AnimcompPoseBuffers {
        data0: d[0].cast(),
        size0: n[0],
        data1: d[1].cast(),
        size1: n[1],
        data2: d[2].cast(),
        size2: n[2],
    }
}

fn preset(p: u32) -> AnimcompPoseLayout {
    let mut l = AnimcompPoseLayout::default();
    assert_eq!(
        unsafe { animcomp_pose_layout_preset(p, &mut l) },
        Status::Ok
    );
    l
}

#[test]
fn c_presets_and_statuses() {
    let nj = 11;
    let (_blob, _bind, mut ctx) = c_context(nj);
    unsafe {
        assert_eq!(animcomp_seek(&mut ctx, 0.25, 0, 0), Status::Ok);
    }
    let mut ten = vec![0.0f32; nj * 10];
    assert_eq!(
        unsafe { animcomp_sample_pose(&ctx, ten.as_mut_ptr(), ten.len(), 10) },
        Status::Ok
    );
    let u5 = preset(ANIMCOMP_POSE_PRESET_UNREAL5_TRANSFORM);
    assert_eq!(
        (
            u5.element,
            u5.kind,
            u5.rotation_offset,
            u5.translation_offset,
            u5.scale_offset,
            u5.record_stride
        ),
        (
            ANIMCOMP_ELEMENT_F64,
            ANIMCOMP_POSE_LAYOUT_AOS,
            0,
            32,
            64,
            96
        )
    );
    let u4 = preset(ANIMCOMP_POSE_PRESET_UNREAL4_TRANSFORM);
    assert_eq!(
        (
            u4.element,
            u4.translation_offset,
            u4.scale_offset,
            u4.record_stride
        ),
        (0, 16, 32, 48)
    );
    let un = preset(ANIMCOMP_POSE_PRESET_UNITY_SEPARATE);
    assert_eq!(
        (
            un.kind,
            un.rotation_stride,
            un.translation_stride,
            un.scale_stride,
            un.record_stride
        ),
        (ANIMCOMP_POSE_LAYOUT_SOA, 16, 12, 12, 0)
    );
    let oz = preset(ANIMCOMP_POSE_PRESET_OZZ_SOA_TRANSFORM);
    assert_eq!(oz.kind, ANIMCOMP_POSE_LAYOUT_SOA4);
    let mut l = AnimcompPoseLayout::default();
    assert_eq!(
        unsafe { animcomp_pose_layout_preset(5, &mut l) },
        Status::InvalidEnum
    );
    assert_eq!(
        unsafe { animcomp_pose_layout_preset(0, std::ptr::null_mut()) },
        Status::NullPointer
    );

    // Sizes.
    let mut sizes = [9usize; 3];
    assert_eq!(
        unsafe { animcomp_pose_layout_size(&un, nj, sizes.as_mut_ptr()) },
        Status::Ok
    );
    assert_eq!(sizes, [16 * nj, 12 * nj, 12 * nj]);
    assert_eq!(
        unsafe { animcomp_pose_layout_size(&oz, nj, sizes.as_mut_ptr()) },
        Status::Ok
    );
    assert_eq!(sizes, [160 * nj.div_ceil(4), 0, 0]);
    assert_eq!(
        unsafe { animcomp_pose_layout_size(&u5, usize::MAX, sizes.as_mut_ptr()) },
        Status::InvalidArgument
    );

    // UE5 through C equals the widened ten floats.
    let mut b = Buf::new(96 * nj);
    let mut bufs = three(
        [
            b.bytes().as_mut_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        ],
        [96 * nj, 0, 0],
    );
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(&ctx, &u5, &bufs) },
        Status::Ok
    );
    let want = expected_pose(&PoseLayout::UNREAL5_TRANSFORM, nj, &ten);
    assert!(b.bytes()[..want[0].len()] == want[0][..]);
    assert_eq!(&b.bytes()[want[0].len()..], &[SENTINEL; 8]);

    // Hostile descriptors.
    let mut bad = u5;
    bad.element = 2;
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(&ctx, &bad, &bufs) },
        Status::InvalidEnum
    );
    let mut bad = u5;
    bad.kind = 3;
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(&ctx, &bad, &bufs) },
        Status::InvalidEnum
    );
    let mut bad = u5;
    bad.reserved[2] = 1;
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(&ctx, &bad, &bufs) },
        Status::InvalidArgument
    );
    let mut bad = u5;
    bad.rotation_stride = 96;
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(&ctx, &bad, &bufs) },
        Status::InvalidArgument
    );
    let mut bad = u5;
    bad.scale_offset = 40;
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(&ctx, &bad, &bufs) },
        Status::InvalidArgument
    );
    let mut bad = oz;
    bad.record_stride = 160;
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(&ctx, &bad, &bufs) },
        Status::InvalidArgument
    );
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(&ctx, std::ptr::null(), &bufs) },
        Status::NullPointer
    );
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(&ctx, &u5, std::ptr::null()) },
        Status::NullPointer
    );
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(std::ptr::null(), &u5, &bufs) },
        Status::NullPointer
    );
    // Hostile buffers.
    bufs.size0 = 96 * (nj - 1) + 87;
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(&ctx, &u5, &bufs) },
        Status::BufferTooSmall
    );
    bufs.size0 = usize::MAX;
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(&ctx, &u5, &bufs) },
        Status::InvalidArgument
    );
    bufs.size0 = 96 * nj;
    bufs.size1 = 4;
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(&ctx, &u5, &bufs) },
        Status::InvalidArgument
    );
    bufs.size1 = 0;
    bufs.data0 = unsafe { bufs.data0.cast::<u8>().add(4).cast() };
    bufs.size0 = 96 * nj - 4;
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(&ctx, &u5, &bufs) },
        Status::Misaligned
    );
    bufs.data0 = std::ptr::null_mut();
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(&ctx, &u5, &bufs) },
        Status::NullPointer
    );

    // Unity arrays overlapping.
    let mut b = Buf::new(40 * nj);
    let p = b.bytes().as_mut_ptr();
    let over = three(
        [p, unsafe { p.add(16 * nj - 4) }, unsafe { p.add(28 * nj) }],
        [16 * nj, 12 * nj, 12 * nj],
    );
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(&ctx, &un, &over) },
        Status::InvalidArgument
    );
    let ok = three(
        [p, unsafe { p.add(16 * nj) }, unsafe { p.add(28 * nj) }],
        [16 * nj, 12 * nj, 12 * nj],
    );
    assert_eq!(
        unsafe { animcomp_sample_pose_layout(&ctx, &un, &ok) },
        Status::Ok
    );

    // Selections through C, with slots.
    let joints = [3u32, 1, 7];
    let slots = [0u32, 5, 2];
    let mut b = Buf::new(48 * 6);
    let bufs = three(
        [
            b.bytes().as_mut_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        ],
        [48 * 6, 0, 0],
    );
    assert_eq!(
        unsafe {
            animcomp_sample_joints_layout(&ctx, joints.as_ptr(), slots.as_ptr(), 3, 2, &u4, &bufs)
        },
        Status::Ok
    );
    let mut want = vec![vec![SENTINEL; 48 * 6]];
    let b = &mut b;
    for (e, &j) in joints.iter().enumerate() {
        let j = j as usize;
        convert(
            &PoseLayout::UNREAL4_TRANSFORM,
            &mut want,
            slots[e] as usize,
            &ten[j * 10..j * 10 + 10],
            2,
        );
    }
    assert!(b.bytes() == &want[0][..]);
    let small = AnimcompPoseBuffers {
        size0: 48 * 5,
        ..bufs
    };
    assert_eq!(
        unsafe {
            animcomp_sample_joints_layout(&ctx, joints.as_ptr(), slots.as_ptr(), 3, 2, &u4, &small)
        },
        Status::BufferTooSmall
    );
    assert_eq!(
        unsafe {
            animcomp_sample_joints_layout(&ctx, joints.as_ptr(), slots.as_ptr(), 3, 9, &u4, &bufs)
        },
        Status::InvalidEnum
    );
}

#[test]
fn c_checked_layouts_match_and_refuse_what_was_not_checked() {
    let nj = 10;
    let (_blob, _bind, mut ctx) = c_context(nj);
    unsafe {
        assert_eq!(animcomp_seek(&mut ctx, 0.3, 0, 0), Status::Ok);
    }
    let zero = AnimcompCheckedPoseLayout {
        opaque: [0; ANIMCOMP_CHECKED_POSE_LAYOUT_WORDS],
    };
    for p in 0..5 {
        let l = preset(p);
        let mut checked = zero;
        assert_eq!(
            unsafe { animcomp_pose_layout_check(&l, &mut checked) },
            Status::Ok
        );
        let mut sizes = [0usize; 3];
        assert_eq!(
            unsafe { animcomp_pose_layout_size(&l, nj, sizes.as_mut_ptr()) },
            Status::Ok
        );
        let mut a: Vec<Buf> = sizes.iter().map(|&n| Buf::new(n)).collect();
        let mut b: Vec<Buf> = sizes.iter().map(|&n| Buf::new(n)).collect();
        let ptrs = |v: &mut Vec<Buf>| {
            let mut d = [std::ptr::null_mut(); 3];
            for (i, x) in v.iter_mut().enumerate() {
                if sizes[i] > 0 {
                    d[i] = x.bytes().as_mut_ptr();
                }
            }
            three(d, sizes)
        };
        let (ba, bb) = (ptrs(&mut a), ptrs(&mut b));
        assert_eq!(
            unsafe { animcomp_sample_pose_layout(&ctx, &l, &ba) },
            Status::Ok
        );
        assert_eq!(
            unsafe { animcomp_sample_pose_checked(&ctx, &checked, &bb) },
            Status::Ok
        );
        assert!(snapshot(&mut a) == snapshot(&mut b), "preset {p}: pose");
        let joints = [4u32, 0, 9];
        let slots = [1u32, 0, 2];
        for buf in a.iter_mut().chain(b.iter_mut()) {
            buf.bytes().fill(SENTINEL);
        }
        let (ba, bb) = (ptrs(&mut a), ptrs(&mut b));
        unsafe {
            assert_eq!(
                animcomp_sample_joints_layout(&ctx, joints.as_ptr(), slots.as_ptr(), 3, 5, &l, &ba),
                Status::Ok
            );
            assert_eq!(
                animcomp_sample_joints_checked(
                    &ctx,
                    joints.as_ptr(),
                    slots.as_ptr(),
                    3,
                    5,
                    &checked,
                    &bb
                ),
                Status::Ok
            );
        }
        assert!(
            snapshot(&mut a) == snapshot(&mut b),
            "preset {p}: selection"
        );
        // Buffers are still checked.
        let short = AnimcompPoseBuffers {
            size0: sizes[0] - 4,
            ..bb
        };
        assert_eq!(
            unsafe { animcomp_sample_pose_checked(&ctx, &checked, &short) },
            Status::BufferTooSmall
        );
        // A struct the check did not write, or changed in any word, is refused.
        assert_eq!(
            unsafe { animcomp_sample_pose_checked(&ctx, &zero, &bb) },
            Status::InvalidArgument
        );
        for w in 0..ANIMCOMP_CHECKED_POSE_LAYOUT_WORDS {
            for bit in [0, 3, 17, 40, 63] {
                let mut bad = checked;
                bad.opaque[w] ^= 1 << bit;
                assert_eq!(
                    unsafe { animcomp_sample_pose_checked(&ctx, &bad, &bb) },
                    Status::InvalidArgument,
                    "preset {p}: word {w} bit {bit}"
                );
            }
        }
    }
    // Another preset's tag over this preset's words, and statuses of the check itself.
    let mut c1 = zero;
    let mut c2 = zero;
    unsafe {
        assert_eq!(animcomp_pose_layout_check(&preset(1), &mut c1), Status::Ok);
        assert_eq!(animcomp_pose_layout_check(&preset(2), &mut c2), Status::Ok);
    }
    c1.opaque[0] = c2.opaque[0];
    let mut b = Buf::new(96 * nj);
    let bufs = three(
        [
            b.bytes().as_mut_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        ],
        [96 * nj, 0, 0],
    );
    unsafe {
        assert_eq!(
            animcomp_sample_pose_checked(&ctx, &c1, &bufs),
            Status::InvalidArgument
        );
        let mut bad = preset(2);
        bad.scale_offset = 20;
        let mut out = zero;
        assert_eq!(
            animcomp_pose_layout_check(&bad, &mut out),
            Status::InvalidArgument
        );
        assert!(
            out.opaque == zero.opaque,
            "an invalid layout leaves the struct unwritten"
        );
        bad.element = 7;
        assert_eq!(
            animcomp_pose_layout_check(&bad, &mut out),
            Status::InvalidEnum
        );
        assert_eq!(
            animcomp_pose_layout_check(std::ptr::null(), &mut out),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_pose_layout_check(&preset(2), std::ptr::null_mut()),
            Status::NullPointer
        );
        assert_eq!(
            animcomp_sample_pose_checked(&ctx, std::ptr::null(), &bufs),
            Status::NullPointer
        );
    }
}

/// Every buffer of a Unity (SoA) pose and every pair of them, through the three C entry points
/// that take buffers (per call, checked once, a selection): each condition the buffer check
/// tests is refused on its own, with its status, and nothing is written.
#[test]
fn c_each_buffer_and_pair_is_checked() {
    let nj = 9;
    let (_blob, _bind, mut ctx) = c_context(nj);
    unsafe {
        assert_eq!(animcomp_seek(&mut ctx, 0.3, 0, 0), Status::Ok);
    }
    let un = preset(ANIMCOMP_POSE_PRESET_UNITY_SEPARATE);
    let mut checked = AnimcompCheckedPoseLayout {
        opaque: [0; ANIMCOMP_CHECKED_POSE_LAYOUT_WORDS],
    };
    assert_eq!(
        unsafe { animcomp_pose_layout_check(&un, &mut checked) },
        Status::Ok
    );
    let sizes = [16 * nj, 12 * nj, 12 * nj];
    let starts = [0, 16 * nj, 28 * nj];
    let mut b = Buf::new(40 * nj + 16);
    let p = b.bytes().as_mut_ptr();
    let good = || three([0, 1, 2].map(|i| unsafe { p.add(starts[i]) }), sizes);
    let joints: Vec<u32> = (0..nj as u32).collect();
    let run = |bufs: &AnimcompPoseBuffers| unsafe {
        [
            animcomp_sample_pose_layout(&ctx, &un, bufs),
            animcomp_sample_pose_checked(&ctx, &checked, bufs),
            animcomp_sample_joints_checked(
                &ctx,
                joints.as_ptr(),
                std::ptr::null(),
                nj,
                ANIMCOMP_CHANNEL_ALL,
                &checked,
                bufs,
            ),
        ]
    };
    let set = |bufs: &mut AnimcompPoseBuffers, i: usize, d: *mut u8, n: usize| match i {
        0 => (bufs.data0, bufs.size0) = (d.cast(), n),
        1 => (bufs.data1, bufs.size1) = (d.cast(), n),
        _ => (bufs.data2, bufs.size2) = (d.cast(), n),
    };
    // The last 16-byte aligned address: a buffer there of 64 bytes passes the end of the
    // address space (refused before it is used).
    let top = (usize::MAX & !15) as *mut u8;
    for i in 0..3 {
        let at = unsafe { p.add(starts[i]) };
        for (d, n, want) in [
            (std::ptr::null_mut(), sizes[i], Status::NullPointer),
            (unsafe { at.add(1) }, sizes[i], Status::Misaligned),
            (at, sizes[i] - 4, Status::BufferTooSmall),
            (at, isize::MAX as usize + 1, Status::InvalidArgument),
            (top, 64, Status::InvalidArgument),
        ] {
            let mut bufs = good();
            set(&mut bufs, i, d, n);
            assert_eq!(run(&bufs), [want; 3], "buffer {i}, {d:?} {n}");
        }
    }
    for (i, k) in [(0, 1), (0, 2), (1, 2), (1, 0), (2, 0), (2, 1)] {
        // Buffer `k` starts 4 bytes before buffer `i` ends (aligned, large enough: only the
        // overlap is wrong).
        let mut bufs = good();
        let d = unsafe { p.add(starts[i] + sizes[i] - 4) };
        set(&mut bufs, k, d, sizes[k]);
        assert_eq!(
            run(&bufs),
            [Status::InvalidArgument; 3],
            "buffers {i} and {k}"
        );
    }
    assert!(
        b.bytes().iter().all(|&x| x == SENTINEL),
        "nothing written by a refused call"
    );
    assert_eq!(run(&good()), [Status::Ok; 3]);
    // One buffer for AoS: the others NULL with size 0, each refused otherwise.
    let u4 = preset(ANIMCOMP_POSE_PRESET_UNREAL4_TRANSFORM);
    let mut c4 = checked;
    assert_eq!(
        unsafe { animcomp_pose_layout_check(&u4, &mut c4) },
        Status::Ok
    );
    for i in 1..3 {
        for (d, n) in [(p, 0), (std::ptr::null_mut(), 4)] {
            let mut bufs = three(
                [p, std::ptr::null_mut(), std::ptr::null_mut()],
                [48 * nj, 0, 0],
            );
            set(&mut bufs, i, d, n);
            assert_eq!(
                unsafe { animcomp_sample_pose_checked(&ctx, &c4, &bufs) },
                Status::InvalidArgument,
                "unused buffer {i}"
            );
        }
    }
}

#[test]
fn c_attached_cache_serves_every_layout() {
    let nj = 13;
    let (_blob, _bind, mut ctx) = c_context(nj);
    let mut need = 0usize;
    assert_eq!(
        unsafe { animcomp_decompressor_playback_cache_size(&ctx, &mut need) },
        Status::Ok
    );
    let mut cache = vec![0u128; need.div_ceil(16).max(1)];
    assert_eq!(
        unsafe { animcomp_decompressor_attach_cache(&mut ctx, cache.as_mut_ptr().cast(), need) },
        Status::Ok
    );
    for p in 0..5 {
        let l = preset(p);
        let rl = match p {
            0 => PoseLayout::TEN_FLOATS,
            1 => PoseLayout::UNREAL5_TRANSFORM,
            2 => PoseLayout::UNREAL4_TRANSFORM,
            3 => PoseLayout::UNITY_SEPARATE,
            _ => PoseLayout::OZZ_SOA_TRANSFORM,
        };
        for i in 0..20 {
            let t = i as f32 / 30.0;
            unsafe {
                assert_eq!(animcomp_seek(&mut ctx, t, 0, 0), Status::Ok);
            }
            let mut ten = vec![0.0f32; nj * 10];
            assert_eq!(
                unsafe { animcomp_sample_pose(&ctx, ten.as_mut_ptr(), ten.len(), 10) },
                Status::Ok
            );
            let mut bufs = buffers(&rl, nj);
            let mut d = [std::ptr::null_mut(); 3];
            let mut n = [0; 3];
            for (k, b) in bufs.iter_mut().enumerate() {
                d[k] = b.bytes().as_mut_ptr();
                n[k] = b.1;
            }
            let c = three(d, n);
            assert_eq!(
                unsafe { animcomp_sample_pose_layout(&ctx, &l, &c) },
                Status::Ok
            );
            assert!(
                snapshot(&mut bufs) == expected_pose(&rl, nj, &ten),
                "preset {p} t {t}"
            );
        }
    }
}
