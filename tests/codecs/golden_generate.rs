//! Writing the golden blobs (full build only: needs the compressor). See `golden_blobs.rs`.

use super::golden_blobs::{committed_bind_pose, decode, golden_dir, BIND_POSE_FILE};
use animcomp::clip::{generate_clip, GenerateOptions, RawClip};
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::format::header::GROUPED_FORMAT_VERSION;
use animcomp::format::quantize::{RotationFormat, VectorFormat};
use animcomp::format::{Header, FORMAT_VERSION};
use animcomp::math::{Transform, FLOATS_PER_JOINT};
use animcomp::metric::Metric;
use animcomp::offline::DefaultMode;
use animcomp::{compress, AlignedBlob, CodecChoice, CompressSettings, Error};
use std::path::Path;

/// The clip every golden blob is made from: 9 joints in two chains, 25 samples at 30 Hz,
/// animated rotation, translation and non-uniform scale, a bind pose.
fn golden_clip() -> RawClip {
    golden_clip_looping(false)
}

/// The golden clip, or its looping twin (same skeleton and bind pose, last sample = first).
fn golden_clip_looping(looping: bool) -> RawClip {
    generate_clip(&GenerateOptions {
        joints: 9,
        samples: 25,
        sample_rate: 30.0,
        max_depth: 5,
        scale: true,
        animated_translation: true,
        seed: 2024,
        bone_length: 10.0,
        looping,
    })
}

/// The variants written per codec: (variant name, settings). The `bind-loop` variants are made
/// from the looping twin of the clip, so the loop optimisation really drops the last sample.
/// `vbr` names them `grouped` and `grouped-bind-loop` (format version 5).
fn variants(codec: CodecChoice) -> Vec<(String, CompressSettings)> {
    let base = CompressSettings {
        codec,
        ..Default::default()
    };
    let mut v = vec![
        ("default".to_string(), base),
        (
            "bind-loop".to_string(),
            CompressSettings {
                default_mode: DefaultMode::BindPose,
                optimize_loops: true,
                ..base
            },
        ),
    ];
    if codec == CodecChoice::Vbr {
        // Every `vbr` blob is grouped (format version 4): its goldens keep the names of the
        // grouped variants, beside the refused format version 2 ones (`default`, `bind-loop`).
        for (name, _) in &mut v {
            *name = match name.as_str() {
                "default" => "grouped".to_string(),
                n => format!("grouped-{n}"),
            };
        }
    }
    if codec == CodecChoice::Fixed {
        // Every rotation format once; vector formats cycled.
        for (i, r) in RotationFormat::ALL.iter().enumerate() {
            let t = VectorFormat::ALL[i % 3];
            let s = VectorFormat::ALL[(i + 1) % 3];
            v.push((
                format!("{}-{}-{}", r.name(), t.name(), s.name()),
                CompressSettings {
                    rotation_format: *r,
                    translation_format: t,
                    scale_format: s,
                    ..base
                },
            ));
        }
    }
    v
}

fn bind_floats(clip: &RawClip) -> Vec<f32> {
    // Validation normalises near-unit quaternions, as compression does.
    let mut c = clip.clone();
    c.validate().unwrap();
    c.bind_pose_floats().unwrap()
}

fn write_poses(path: &Path, nj: usize, entries: &[(f32, Looping, Rounding)], poses: &[f32]) {
    let mut b = Vec::new();
    b.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    b.extend_from_slice(&(nj as u32).to_le_bytes());
    for (k, &(t, l, r)) in entries.iter().enumerate() {
        b.extend_from_slice(&t.to_le_bytes());
        b.extend_from_slice(&(l as u32).to_le_bytes());
        b.extend_from_slice(&(r as u32).to_le_bytes());
        for x in &poses[k * nj * FLOATS_PER_JOINT..(k + 1) * nj * FLOATS_PER_JOINT] {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    std::fs::write(path, b).unwrap();
}

/// (time, looping, rounding) entries sampled for a blob of this duration.
fn entries(duration: f32) -> Vec<(f32, Looping, Rounding)> {
    let mut e = Vec::new();
    for t in [
        0.0,
        0.013,
        0.25,
        duration * 0.5 + 0.0071,
        duration,
        duration + 0.3,
        -0.05,
    ] {
        e.push((t, Looping::Clamp, Rounding::None));
        e.push((t, Looping::Wrap, Rounding::None));
    }
    e.push((0.26, Looping::Clamp, Rounding::Floor));
    e.push((0.26, Looping::Clamp, Rounding::Ceil));
    e.push((0.26, Looping::Wrap, Rounding::Nearest));
    e
}

/// The committed bind pose is the golden clip's (written by `regenerate` when missing).
#[test]
fn committed_bind_pose_is_the_golden_clips() {
    assert_eq!(committed_bind_pose(), bind_floats(&golden_clip()));
}

/// Every built codec has goldens for the current format version.
#[test]
fn built_codecs_have_goldens() {
    let clip = golden_clip();
    for codec in [CodecChoice::Fixed, CodecChoice::Vbr, CodecChoice::Keys] {
        let built = !matches!(
            compress(
                &clip,
                &CompressSettings {
                    codec,
                    ..Default::default()
                }
            ),
            Err(Error::Unsupported(_))
        );
        let name = match codec {
            CodecChoice::Vbr => format!("vbr_grouped_v{GROUPED_FORMAT_VERSION}.blob"),
            _ => format!("{}_default_v{FORMAT_VERSION}.blob", codec.name()),
        };
        let present = golden_dir().join(&name).exists();
        assert!(
            !built || present,
            "codec {} has no golden {name}: run ANIMCOMP_REGENERATE_GOLDEN=1",
            codec.name()
        );
    }
}

#[test]
fn regenerate() {
    let mode = std::env::var("ANIMCOMP_REGENERATE_GOLDEN").unwrap_or_default();
    if mode.is_empty() {
        return;
    }
    let force = mode == "force";
    let dir = golden_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let bind = bind_floats(&golden_clip());
    let bind_path = dir.join(BIND_POSE_FILE);
    if !bind_path.exists() || force {
        let b: Vec<u8> = bind.iter().flat_map(|v| v.to_le_bytes()).collect();
        std::fs::write(&bind_path, b).unwrap();
    }
    for codec in [CodecChoice::Fixed, CodecChoice::Vbr, CodecChoice::Keys] {
        for (variant, s) in variants(codec) {
            let clip = golden_clip_looping(variant.ends_with("bind-loop"));
            assert_eq!(
                bind_floats(&clip),
                bind,
                "the looping twin must share the bind pose"
            );
            let mut valid = clip.clone();
            valid.validate().unwrap();
            let metric = Metric::new(&valid);
            let bytes = match compress(&clip, &s) {
                Ok(b) => b,
                Err(Error::Unsupported(m)) => {
                    println!("skipping {}: {m}", codec.name());
                    break;
                }
                Err(e) => panic!("{e}"),
            };
            // The blob's own version: `vbr` blobs are version 5.
            let version = u16::from_le_bytes([bytes[4], bytes[5]]);
            let name = format!("{}_{variant}_v{version}", codec.name());
            let blob_path = dir.join(format!("{name}.blob"));
            if blob_path.exists() && !force {
                println!("keeping {name}");
                continue;
            }
            let blob = AlignedBlob::from_bytes(&bytes);
            // Sanity of what is being frozen: the blob reproduces the clip within a loose bound.
            let mut d = Decompressor::new(
                blob.as_bytes(),
                &DecompressOptions {
                    verify_checksum: true,
                    bind_pose: Some(&bind),
                },
            )
            .unwrap();
            let n = d.header().num_samples as usize;
            let mut local = vec![Transform::IDENTITY; valid.num_joints()];
            let stats = metric.measure(|i, out| {
                d.pose_at_sample((i % n) as u32, &mut local).unwrap();
                out.copy_from_slice(&local);
            });
            assert!(
                stats.max_error < 1.0,
                "{name}: max error {} too large to freeze",
                stats.max_error
            );
            let h = Header::parse(blob.as_bytes()).unwrap();
            let e = entries(animcomp::decompress::clip_duration(&h) as f32);
            let (_, poses) = decode(blob.as_bytes(), &bind, &e).unwrap();
            std::fs::write(&blob_path, &bytes).unwrap();
            write_poses(
                &dir.join(format!("{name}.poses")),
                valid.num_joints(),
                &e,
                &poses,
            );
            println!(
                "wrote {name} ({} bytes, max error {:.5})",
                bytes.len(),
                stats.max_error
            );
        }
    }
}
