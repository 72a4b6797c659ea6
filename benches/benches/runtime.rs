//! Criterion benchmarks of the runtime figures of issue 10 on a generated 100-joint clip
//! (default settings, `vbr`), through the Rust API:
//! - `warm_pose`: seek (clamp, interpolate) + whole-pose sample, cycling over 1000 random times;
//! - `open`: validating a blob once (`OpenBlob::open`); `bind`: binding a decompressor to it;
//! - `subset10`: seek + sample of 10 % of the joints (every tenth) into their own slots
//!   (`sample_joints`); `all_joints` and `rotation_only`: every joint through `sample_joints`.
//!
//! `cargo bench -p animcomp-bench --bench runtime`

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::decompress::{
    DecompressOptions, Decompressor, Looping, OpenBlob, Rounding, CHANNELS_ALL, CHANNEL_ROTATION,
};
use animcomp::math::FLOATS_PER_JOINT;
use animcomp::{compress, AlignedBlob, CompressSettings};
use animcomp_bench::timing::{random_times, TIMES_SEED, WARM_TIMES};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

const JOINTS: usize = 100;

fn runtime(c: &mut Criterion) {
    let clip = generate_clip(&GenerateOptions {
        joints: JOINTS,
        samples: 600,
        sample_rate: 60.0,
        ..Default::default()
    });
    let blob = AlignedBlob::from_bytes(&compress(&clip, &CompressSettings::default()).unwrap());
    let times = random_times(clip.duration(), WARM_TIMES, TIMES_SEED);
    let opts = DecompressOptions::default();
    let open = OpenBlob::open(blob.as_bytes(), &opts).unwrap();
    let mut d = Decompressor::bind(&open);
    let mut pose = vec![0.0f32; JOINTS * FLOATS_PER_JOINT];
    let mut group = c.benchmark_group("runtime_100_joints");

    let mut k = 0usize;
    group.bench_function("warm_pose", |b| {
        b.iter(|| {
            k = (k + 1) % times.len();
            d.seek(black_box(times[k]), Looping::Clamp, Rounding::None)
                .unwrap();
            d.sample_pose(&mut pose, FLOATS_PER_JOINT).unwrap();
            black_box(&mut pose);
        })
    });

    group.bench_function("open", |b| {
        b.iter(|| black_box(OpenBlob::open(black_box(blob.as_bytes()), &opts).unwrap()))
    });
    group.bench_function("bind", |b| {
        b.iter(|| black_box(Decompressor::bind(black_box(&open))))
    });

    let all: Vec<u32> = (0..JOINTS as u32).collect();
    let subset: Vec<u32> = (0..JOINTS as u32).step_by(10).collect();
    for (name, joints, channels) in [
        ("subset10", &subset, CHANNELS_ALL),
        ("all_joints", &all, CHANNELS_ALL),
        ("rotation_only", &all, CHANNEL_ROTATION),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                k = (k + 1) % times.len();
                d.seek(black_box(times[k]), Looping::Clamp, Rounding::None)
                    .unwrap();
                d.sample_joints(joints, Some(joints), channels, &mut pose, FLOATS_PER_JOINT)
                    .unwrap();
                black_box(&mut pose);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, runtime);
criterion_main!(benches);
