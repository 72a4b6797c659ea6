//! Whole poses of a generated clip with one decoder, for callgrind: `isa_layouts ISA JOINTS
//! LAYOUT N` seeks N random times in a clip of JOINTS joints (every rotation and translation
//! animated, no scale, 120 samples) and samples each pose with the decoder for ISA (`best`,
//! `avx512`, `avx2`, `sse2`, `neon`, `simd128`, `scalar`; `Isa::set_best`) as ten floats
//! (`ten`) or into a preset (`ue4`, `ue5`, `unity`, `ozz`). A pose's instructions are the
//! difference between two runs' counts over the difference of their N.
//!
//! With a fifth argument BLOB, the clip's blob is read from that file when it exists, else
//! written there: a run under `qemu-aarch64 -singlestep -d nochain,exec` then logs the poses
//! without the compression's instructions.
//!
//! `valgrind --tool=callgrind target/release/examples/isa_layouts sse2 64 ue4 400`

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::decompress::vbr::grouped::Isa;
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, PoseLayout, Rounding};
use animcomp::{compress, AlignedBlob, CompressSettings};
use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: isa_layouts best|avx512|avx2|sse2|neon|simd128|scalar JOINTS ten|ue4|ue5|unity|ozz N [BLOB]";
    if !matches!(args.len(), 4 | 5) {
        eprintln!("{usage}");
        std::process::exit(2);
    }
    let isa = match args[0].as_str() {
        "best" => None,
        "avx512" => Some(Isa::Avx512),
        "avx2" => Some(Isa::Avx2),
        "sse2" => Some(Isa::Sse2),
        "neon" => Some(Isa::Neon),
        "simd128" => Some(Isa::Simd128),
        "scalar" => Some(Isa::Scalar),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    if let Some(isa) = isa {
        if !Isa::set_best(isa) {
            eprintln!("{isa:?} is not available here");
            std::process::exit(1);
        }
    }
    let joints: usize = args[1].parse().expect("JOINTS");
    let layout = match args[2].as_str() {
        "ten" => None,
        "ue4" => Some(PoseLayout::UNREAL4_TRANSFORM),
        "ue5" => Some(PoseLayout::UNREAL5_TRANSFORM),
        "unity" => Some(PoseLayout::UNITY_SEPARATE),
        "ozz" => Some(PoseLayout::OZZ_SOA_TRANSFORM),
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    let n: usize = args[3].parse().expect("N");
    let path = args.get(4).map(std::path::PathBuf::from);
    let bytes = match path.as_ref().filter(|p| p.exists()) {
        Some(p) => std::fs::read(p).expect("read BLOB"),
        None => {
            let clip = generate_clip(&GenerateOptions {
                joints,
                samples: 120,
                animated_translation: true,
                seed: 7,
                ..Default::default()
            });
            let b = compress(&clip, &CompressSettings::default()).expect("compress");
            if let Some(p) = &path {
                std::fs::write(p, &b).expect("write BLOB");
            }
            b
        }
    };
    let blob = AlignedBlob::from_bytes(&bytes);
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).expect("open");
    let dur = d.header().duration();
    let mut ten = vec![0.0f32; joints * 10];
    let mut out: Vec<Vec<u64>> = layout.map_or(Vec::new(), |l| {
        (0..l.buffers())
            .map(|k| vec![0u64; l.required_bytes(k, joints).unwrap().div_ceil(8)])
            .collect()
    });
    let mut views: Vec<&mut [u8]> = out
        .iter_mut()
        .map(|v| {
            // SAFETY: words viewed as bytes.
            unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<u8>(), v.len() * 8) }
        })
        .collect();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..n {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let t = (seed >> 40) as f32 / (1u64 << 24) as f32 * dur;
        d.seek(black_box(t), Looping::Clamp, Rounding::None)
            .unwrap();
        match &layout {
            None => d.sample_pose(&mut ten, 10).unwrap(),
            Some(l) => d.sample_pose_layout(l, &mut views).unwrap(),
        }
        black_box(&mut ten);
        black_box(&mut views);
    }
    println!("{:?} {} poses", Isa::best(), n);
}
