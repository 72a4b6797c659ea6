//! Decompression allocates nothing: once a blob is open, seeking and sampling (whole poses,
//! one joint, joint selections, through a playback cache) make no allocator call, for every
//! codec and both `vbr` layouts. A counting allocator; its own binary with one test, so that no
//! other test's allocations are counted.
#![cfg(feature = "compress")]

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static ALLOC: counting_alloc::Counting = counting_alloc::Counting;

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::decompress::{
    DecompressOptions, Decompressor, Looping, OpenBlob, PoseLayout, Rounding,
};
use animcomp::offline::DefaultMode;
use animcomp::{AlignedBlob, CodecChoice, CompressSettings, VbrLayout};

/// A vector's elements as bytes.
fn bytes_of<T: Copy>(v: &mut [T]) -> &mut [u8] {
    // SAFETY: plain numbers viewed as bytes.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), std::mem::size_of_val(v)) }
}

#[test]
fn seeking_and_sampling_allocate_nothing() {
    let clip = generate_clip(&GenerateOptions {
        joints: 29,
        samples: 71,
        scale: true,
        animated_translation: true,
        seed: 7,
        ..Default::default()
    });
    let nj = clip.num_joints();
    let bind = clip.bind_pose_floats().unwrap();
    let variants = [
        (CodecChoice::Fixed, VbrLayout::Segments),
        (CodecChoice::Keys, VbrLayout::Segments),
        (CodecChoice::Vbr, VbrLayout::Segments),
        (CodecChoice::Vbr, VbrLayout::Grouped),
    ];
    for (codec, vbr_layout) in variants {
        let s = CompressSettings {
            codec,
            vbr_layout,
            default_mode: DefaultMode::BindPose,
            ..Default::default()
        };
        let blob = AlignedBlob::from_bytes(&animcomp::compress(&clip, &s).unwrap());
        let opts = DecompressOptions {
            verify_checksum: true,
            bind_pose: Some(&bind),
        };
        let open = OpenBlob::open(blob.as_bytes(), &opts).unwrap();
        let mut d = Decompressor::bind(&open);
        let mut cached = Decompressor::bind(&open);
        let mut cache = vec![0u128; cached.playback_cache_size().div_ceil(16)];
        let mut pose = vec![0.0f32; nj * 10];
        let joints: Vec<u32> = (0..nj as u32).step_by(3).collect();
        let mut sub = vec![0.0f32; joints.len() * 10];
        let mut ue5 = vec![0u64; nj * 12];
        let mut unity = vec![0u32; nj * 10];
        let mut ozz = vec![0u32; nj.div_ceil(4) * 40];
        let ((), bytes, calls) = counting_alloc::allocated(|| {
            // SAFETY: the words of `cache` viewed as bytes.
            let cache = unsafe {
                std::slice::from_raw_parts_mut(cache.as_mut_ptr().cast::<u8>(), cache.len() * 16)
            };
            for i in 0..200 {
                let t = 0.03 + i as f32 / 60.0;
                d.seek(t, Looping::Wrap, Rounding::None).unwrap();
                d.sample_pose(&mut pose, 10).unwrap();
                let _ = d.sample_joint((i % nj) as u32).unwrap();
                let channels = if i % 2 == 0 { 7 } else { 1 };
                d.sample_joints(&joints, None, channels, &mut sub, 10)
                    .unwrap();
                cached.seek(t, Looping::Wrap, Rounding::None).unwrap();
                cached.sample_pose_cached(cache, &mut pose, 10).unwrap();
                // Poses in the engine's layouts (in place, staged, ozz blocks straight or transposed).
                let ue5 = bytes_of(&mut ue5);
                d.sample_pose_layout(&PoseLayout::UNREAL5_TRANSFORM, &mut [ue5])
                    .unwrap();
                let (r, rest) = bytes_of(&mut unity).split_at_mut(16 * nj);
                let (t, s) = rest.split_at_mut(12 * nj);
                let l = PoseLayout::UNITY_SEPARATE;
                cached
                    .sample_pose_layout_cached(cache, &l, &mut [r, t, s])
                    .unwrap();
                let ozz = bytes_of(&mut ozz);
                d.sample_pose_layout(&PoseLayout::OZZ_SOA_TRANSFORM, &mut [&mut *ozz])
                    .unwrap();
                d.sample_joints_layout(
                    &joints,
                    None,
                    channels,
                    &PoseLayout::OZZ_SOA_TRANSFORM,
                    &mut [ozz],
                )
                .unwrap();
            }
        });
        assert_eq!(
            (bytes, calls),
            (0, 0),
            "{codec:?} {vbr_layout:?}: sampling allocated {bytes} bytes in {calls} calls"
        );
    }
}
