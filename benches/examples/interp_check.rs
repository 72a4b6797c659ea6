//! Error between samples: at 1/4, 1/2 and 3/4 of the way between every two samples, the decoded
//! pose against the raw clip interpolated as a player would (`nlerp` of the raw rotations on the
//! short arc, `lerp` of translations and scales), both composed into object space and measured
//! with the metric's virtual vertices at each joint's shell distance (default settings). The
//! metric itself, like ACL's, measures at the samples only; this shows what happens in between.
//! Prints, per set, the largest error and percentiles as fractions of the precision, and every
//! joint and time above the precision with the largest raw rotation step on its chain (a step of
//! ~180 degrees between two samples has no short arc to agree on).
//!
//! `cargo run --release -p animcomp-bench --example interp_check -- ../shared/data/bandai`
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::math::{angle_between, nlerp_shortest, Transform, FLOATS_PER_JOINT};
use animcomp::metric::{local_to_object, percentile, vertex_error, SCALE_TOLERANCE};
use animcomp::{compress, AlignedBlob, CompressSettings};
use animcomp_import::{collect_files, load, ImportOptions};
use std::path::PathBuf;

fn main() {
    let paths: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    let (mut at, mut between) = (Vec::new(), Vec::new());
    let mut over = 0usize;
    for f in collect_files(&paths) {
        for ic in load(&f, &ImportOptions::default()).unwrap_or_default() {
            let clip = &ic.clip;
            let Ok(blob) = compress(clip, &CompressSettings::default()) else {
                continue;
            };
            let blob = AlignedBlob::from_bytes(&blob);
            let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
            let n = d.num_joints();
            let has_scale = clip.has_scale(SCALE_TOLERANCE);
            let mut pose = vec![0.0f32; n * FLOATS_PER_JOINT];
            let mut raw = vec![Transform::IDENTITY; n];
            let mut lossy = raw.clone();
            let (mut raw_o, mut lossy_o) = (raw.clone(), raw.clone());
            for i in 0..clip.num_samples.saturating_sub(1) {
                for frac in [0.0f32, 0.25, 0.5, 0.75] {
                    d.seek(
                        (i as f32 + frac) / clip.sample_rate,
                        Looping::Clamp,
                        Rounding::None,
                    )
                    .unwrap();
                    let key = d.key();
                    let (a, b) = (key.i0 as usize, key.i1 as usize);
                    d.sample_pose(&mut pose, FLOATS_PER_JOINT).unwrap();
                    for (j, tr) in clip.tracks.iter().enumerate() {
                        raw[j] = Transform {
                            rotation: nlerp_shortest(tr.rotations[a], tr.rotations[b], key.alpha),
                            translation: tr.translations[a].lerp(tr.translations[b], key.alpha),
                            scale: tr.scales[a].lerp(tr.scales[b], key.alpha),
                        };
                        lossy[j] = Transform::read_from(&pose[j * FLOATS_PER_JOINT..]);
                    }
                    local_to_object(clip, &raw, &mut raw_o);
                    local_to_object(clip, &lossy, &mut lossy_o);
                    for (j, joint) in clip.skeleton.joints.iter().enumerate() {
                        let e =
                            vertex_error(&raw_o[j], &lossy_o[j], joint.shell_distance, has_scale)
                                / joint.precision;
                        if frac == 0.0 {
                            at.push(e);
                            continue;
                        }
                        between.push(e);
                        if e > 1.0 {
                            over += 1;
                            // The largest raw step between the two samples on the joint's chain.
                            let (mut k, mut step) = (Some(j as u32), 0.0f32);
                            while let Some(p) = k {
                                let r = &clip.tracks[p as usize].rotations;
                                step = step.max(angle_between(r[a], r[b]));
                                k = clip.skeleton.joints[p as usize].parent;
                            }
                            println!(
                                "  {} joint {j} at sample {i} + {frac}: {e:.3} x precision, largest raw step on its chain {:.1} degrees",
                                f.display(),
                                step.to_degrees()
                            );
                        }
                    }
                }
            }
        }
    }
    let max = |v: &[f32]| v.iter().copied().fold(0.0f32, f32::max);
    println!(
        "at samples: max {:.4} x precision; between samples: max {:.4}, p99 {:.4}, p99.9 {:.4}, {over} of {} above the precision",
        max(&at),
        max(&between),
        percentile(&mut between.clone(), 0.99),
        percentile(&mut between.clone(), 0.999),
        between.len()
    );
}
