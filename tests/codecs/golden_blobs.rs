//! Compatibility: committed golden blobs (`tests/golden/<codec>_<variant>_v<version>.blob`) must
//! keep decoding to the committed poses (`.poses` beside each blob), so a change that breaks
//! blobs already shipped fails CI. The blob's format version must equal the one in its file
//! name: the format version is bumped deliberately, never by accident.
//!
//! Generating goldens: `ANIMCOMP_REGENERATE_GOLDEN=1 cargo test --test golden_blobs -- regenerate`
//! writes the goldens of every built codec that has none yet for the current format version
//! (existing files are never overwritten, unless the variable is `force`). The clip is built in
//! code below; the expected poses are the decoder's output at generation time, checked then
//! against the raw clip with the error metric.
//!
//! `.poses` layout (little-endian): `u32 entries, u32 joints`, then per entry
//! `f32 time, u32 looping, u32 rounding` followed by `joints * 10` f32 (qx qy qz qw tx ty tz sx sy sz).

use animcomp::clip::{generate_clip, GenerateOptions, RawClip};
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::format::quantize::{RotationFormat, VectorFormat};
use animcomp::format::{Header, FORMAT_VERSION};
use animcomp::math::{Transform, FLOATS_PER_JOINT};
use animcomp::metric::Metric;
use animcomp::offline::DefaultMode;
use animcomp::{compress, AlignedBlob, CodecChoice, CompressSettings, Error};
use std::path::{Path, PathBuf};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("golden")
}

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

/// The variants written per codec: (variant name, settings). The `bind-loop` variant is made
/// from the looping twin of the clip, so the loop optimisation really drops the last sample.
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

fn bind_floats(clip: &RawClip) -> Vec<f32> {
    let mut c = clip.clone();
    c.validate().unwrap();
    let mut v = vec![0.0f32; c.num_joints() * FLOATS_PER_JOINT];
    for (t, o) in c
        .skeleton
        .bind_pose
        .as_ref()
        .unwrap()
        .iter()
        .zip(v.chunks_exact_mut(FLOATS_PER_JOINT))
    {
        t.write_to(o);
    }
    v
}

/// Decodes `blob` at `entries`; returns the poses flattened.
fn decode(
    blob: &[u8],
    bind: &[f32],
    entries: &[(f32, Looping, Rounding)],
) -> Result<(Header, Vec<f32>), Error> {
    let mut d = Decompressor::new(
        blob,
        &DecompressOptions {
            verify_checksum: true,
            bind_pose: Some(bind),
        },
    )?;
    let nj = d.num_joints();
    let mut out = Vec::new();
    let mut pose = vec![0.0f32; nj * FLOATS_PER_JOINT];
    for &(t, l, r) in entries {
        d.seek(t, l, r)?;
        d.sample_pose(&mut pose, FLOATS_PER_JOINT)?;
        out.extend_from_slice(&pose);
    }
    Ok((*d.header(), out))
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

/// Reads a `.poses` file: (joints, entries, poses).
fn read_poses(path: &Path) -> (usize, Vec<(f32, Looping, Rounding)>, Vec<f32>) {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let u = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let (n, nj) = (u(0) as usize, u(4) as usize);
    let mut o = 8;
    let (mut entries, mut poses) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let t = f32::from_bits(u(o));
        let l = Looping::from_u32(u(o + 4)).expect("looping");
        let r = Rounding::from_u32(u(o + 8)).expect("rounding");
        o += 12;
        entries.push((t, l, r));
        for _ in 0..nj * FLOATS_PER_JOINT {
            poses.push(f32::from_bits(u(o)));
            o += 4;
        }
    }
    assert_eq!(o, b.len(), "{}: trailing bytes", path.display());
    (nj, entries, poses)
}

/// Splits `fixed_smallest3-48-range48-float96_v1.blob` into ("fixed", "smallest3-48-...", 1).
fn parse_name(file: &str) -> Option<(String, String, u32)> {
    let stem = file.strip_suffix(".blob")?;
    let (rest, version) = stem.rsplit_once("_v")?;
    let (codec, variant) = rest.split_once('_')?;
    Some((
        codec.to_string(),
        variant.to_string(),
        version.parse().ok()?,
    ))
}

/// Decodes one golden blob and compares it with its poses; the first difference as an error.
fn check_golden(dir: &Path, file: &str, bind: &[f32]) -> Result<(), String> {
    let (codec, variant, version) = parse_name(file).ok_or(format!("bad golden name {file}"))?;
    let bytes = std::fs::read(dir.join(file)).unwrap();
    let blob = AlignedBlob::from_bytes(&bytes);
    let (nj, entries, expected) = read_poses(&dir.join(file.replace(".blob", ".poses")));
    let (h, got) = decode(blob.as_bytes(), bind, &entries)
        .map_err(|e| format!("{file}: no longer decodes: {e}"))?;
    if h.version as u32 != version {
        return Err(format!(
            "{file}: header format version {} differs from the file name",
            h.version
        ));
    }
    if h.codec.name() != codec {
        return Err(format!("{file}: codec id {:?}", h.codec));
    }
    if h.num_joints as usize != nj || got.len() != expected.len() {
        return Err(format!(
            "{file}: {} joints, {} floats",
            h.num_joints,
            got.len()
        ));
    }
    let per = nj * FLOATS_PER_JOINT;
    for (k, (a, b)) in got.iter().zip(&expected).enumerate() {
        if !(a.to_bits() == b.to_bits() || (a - b).abs() <= 1e-6) {
            return Err(format!(
                "{file} ({variant}): entry {:?} joint {} float {}: decoded {a}, golden {b}",
                entries[k / per],
                (k % per) / FLOATS_PER_JOINT,
                k % FLOATS_PER_JOINT
            ));
        }
    }
    Ok(())
}

#[test]
fn golden_blobs_decode_to_their_poses() {
    let dir = golden_dir();
    let bind = bind_floats(&golden_clip());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/golden is missing")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".blob"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no golden blobs in {}", dir.display());
    let mut failures = Vec::new();
    let mut current = 0;
    for file in &files {
        let version = parse_name(file).map(|(_, _, v)| v);
        if version.is_some_and(|v| v < FORMAT_VERSION as u32) {
            // Older format versions are refused with a clear status (docs/format.md).
            let blob = AlignedBlob::from_bytes(&std::fs::read(dir.join(file)).unwrap());
            match Decompressor::new(blob.as_bytes(), &DecompressOptions::default()) {
                Err(Error::UnsupportedVersion(v)) if Some(v) == version => {}
                other => failures.push(format!(
                    "{file}: an old-version blob must be refused with UnsupportedVersion, got {:?}",
                    other.err()
                )),
            }
            continue;
        }
        current += 1;
        if let Err(msg) = check_golden(&dir, file, &bind) {
            failures.push(msg);
        }
    }
    assert!(
        current > 0,
        "no golden blob of format version {FORMAT_VERSION}"
    );
    assert!(
        failures.is_empty(),
        "{} of {} golden blobs broke (format version {FORMAT_VERSION}):\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    println!("{} golden blobs decode to their poses", files.len());
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
        let name = format!("{}_default_v{FORMAT_VERSION}.blob", codec.name());
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
    for codec in [CodecChoice::Fixed, CodecChoice::Vbr, CodecChoice::Keys] {
        for (variant, s) in variants(codec) {
            let clip = golden_clip_looping(variant == "bind-loop");
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
            let name = format!("{}_{variant}_v{FORMAT_VERSION}", codec.name());
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
