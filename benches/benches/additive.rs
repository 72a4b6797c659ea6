//! Criterion benchmark of applying an additive pose to a base pose (100 joints, every format):
//! the runtime path `additive::apply_pose` (glam `Quat` + 16-byte `Vec3A`) against the scalar
//! `Transform` path (`Vec3`) measured in the same run.
//! `cargo bench -p animcomp-bench --bench additive`

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::math::{Transform, FLOATS_PER_JOINT};
use animcomp::{
    runtime::additive::{apply, apply_pose},
    AdditiveFormat,
};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn poses() -> (Vec<f32>, Vec<f32>) {
    let clip = generate_clip(&GenerateOptions {
        joints: 100,
        samples: 2,
        scale: true,
        ..Default::default()
    });
    let mut base = vec![0.0f32; 100 * FLOATS_PER_JOINT];
    let mut add = base.clone();
    for (j, t) in clip.tracks.iter().enumerate() {
        t.get(0).write_to(&mut base[j * 10..]);
        t.get(1).write_to(&mut add[j * 10..]);
    }
    (base, add)
}

fn additive(c: &mut Criterion) {
    let (base, add) = poses();
    let mut out = vec![0.0f32; base.len()];
    let mut group = c.benchmark_group("apply_additive_100_joints");
    for f in [
        AdditiveFormat::Relative,
        AdditiveFormat::Additive0,
        AdditiveFormat::Additive1,
    ] {
        group.bench_function(format!("{}_simd", f.name()), |b| {
            b.iter(|| {
                apply_pose(f, black_box(&base), black_box(&add), 1.0, &mut out).unwrap();
                black_box(&out);
            })
        });
        group.bench_function(format!("{}_scalar", f.name()), |b| {
            b.iter(|| {
                for j in 0..100 {
                    let o = j * FLOATS_PER_JOINT;
                    let x = apply(
                        f,
                        &Transform::read_from(&black_box(&base)[o..]),
                        &Transform::read_from(&black_box(&add)[o..]),
                    );
                    x.write_to(&mut out[o..]);
                }
                black_box(&out);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, additive);
criterion_main!(benches);
