//! Criterion benchmark of `sample_pose` per codec on a generated 60-joint clip.
//! `cargo bench -p animcomp-bench --bench sampling`

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::math::FLOATS_PER_JOINT;
use animcomp::{compress, AlignedBlob, CodecChoice, CompressSettings};
use criterion::{criterion_group, criterion_main, Criterion};

fn sampling(c: &mut Criterion) {
    let clip = generate_clip(&GenerateOptions {
        joints: 60,
        samples: 600,
        sample_rate: 60.0,
        ..Default::default()
    });
    let duration = clip.duration();
    let mut group = c.benchmark_group("sample_pose_60_joints");
    for codec in [CodecChoice::Fixed, CodecChoice::Vbr, CodecChoice::Keys] {
        let Ok(bytes) = compress(
            &clip,
            &CompressSettings {
                codec,
                ..Default::default()
            },
        ) else {
            eprintln!("skipping {}: not built", codec.name());
            continue;
        };
        let blob = AlignedBlob::from_bytes(&bytes);
        let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
        let mut pose = vec![0.0f32; 60 * FLOATS_PER_JOINT];
        let mut t = 0.0f32;
        group.bench_function(codec.name(), |b| {
            b.iter(|| {
                t = (t + 0.0173) % duration;
                d.seek(t, Looping::Clamp, Rounding::None).unwrap();
                d.sample_pose(&mut pose, FLOATS_PER_JOINT).unwrap();
                std::hint::black_box(&pose);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, sampling);
criterion_main!(benches);
