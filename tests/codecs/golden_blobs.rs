//! Compatibility: committed golden blobs (`tests/golden/<codec>_<variant>_v<version>.blob`) must
//! keep decoding to the committed poses (`.poses` beside each blob), so a change that breaks
//! blobs already shipped fails CI. The blob's format version must equal the one in its file
//! name: the format version is bumped deliberately, never by accident.
//!
//! Format version 2 `vbr` goldens (the segments layout) are refused by the runtime with
//! `UnsupportedVersion`; with the compressor, `regroup_blob` converts each to a blob that decodes
//! to its recorded poses, bit for bit.
//!
//! These tests need no compressor: they also run in the runtime-only build
//! (`cargo test -p animcomp --no-default-features`), without the conversion. Generating goldens (`golden_generate.rs`,
//! full build only): `ANIMCOMP_REGENERATE_GOLDEN=1 cargo test --test codecs -- regenerate`
//! writes the goldens of every built codec that has none yet for the current format version
//! (existing files are never overwritten, unless the variable is `force`). The clip is built in
//! code below; the expected poses are the decoder's output at generation time, checked then
//! against the raw clip with the error metric.
//!
//! `.poses` layout (little-endian): `u32 entries, u32 joints`, then per entry
//! `f32 time, u32 looping, u32 rounding` followed by `joints * 10` f32 (qx qy qz qw tx ty tz sx sy sz).

use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::format::header::{GROUPED_FORMAT_VERSION, RETIRED_GROUPED_FORMAT_VERSIONS};
use animcomp::format::{Header, FORMAT_VERSION};
use animcomp::math::FLOATS_PER_JOINT;
use animcomp::{AlignedBlob, Error};
use std::path::{Path, PathBuf};

pub(crate) fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("golden")
}

/// Decodes `blob` at `entries`; returns the poses flattened.
pub(crate) fn decode(
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

/// The golden clip's bind pose (10 floats per joint, little-endian f32), committed beside the
/// blobs so that decoding them needs no compressor (`golden_generate.rs` checks it).
pub(crate) const BIND_POSE_FILE: &str = "bind_pose.f32";

/// Reads [`BIND_POSE_FILE`].
pub(crate) fn committed_bind_pose() -> Vec<f32> {
    let b = std::fs::read(golden_dir().join(BIND_POSE_FILE)).expect("tests/golden/bind_pose.f32");
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
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
    let bind = committed_bind_pose();
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
        if parse_name(file).is_some_and(|(c, _, v)| c == "vbr" && v == FORMAT_VERSION as u32) {
            // A `vbr` blob in the segments layout: refused, and converted offline.
            let blob = AlignedBlob::from_bytes(&std::fs::read(dir.join(file)).unwrap());
            match Decompressor::new(blob.as_bytes(), &DecompressOptions::default()) {
                Err(Error::UnsupportedVersion(2)) => {}
                other => failures.push(format!(
                    "{file}: a vbr blob of format version 2 must be refused with \
                     UnsupportedVersion(2), got {:?}",
                    other.err()
                )),
            }
            #[cfg(feature = "compress")]
            if let Err(msg) = check_regrouped(&dir, file, blob.as_bytes(), &bind) {
                failures.push(msg);
            }
            continue;
        }
        if version.is_some_and(|v| {
            v < FORMAT_VERSION as u32 || RETIRED_GROUPED_FORMAT_VERSIONS.contains(&(v as u16))
        }) {
            // Older format versions (and the grouped layout's first one) are refused with a
            // clear status (docs/format.md).
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

/// The conversion of the format version 2 `vbr` golden `file` (`blob`): a format version 4 blob
/// that decodes to the poses recorded for `file`, bit for bit.
#[cfg(feature = "compress")]
fn check_regrouped(dir: &Path, file: &str, blob: &[u8], bind: &[f32]) -> Result<(), String> {
    let regrouped =
        animcomp::offline::regroup_blob(blob).map_err(|e| format!("{file}: regroup: {e}"))?;
    let version = u16::from_le_bytes([regrouped[4], regrouped[5]]);
    if version != GROUPED_FORMAT_VERSION {
        return Err(format!("{file}: regrouped to format version {version}"));
    }
    // The poses recorded for `file`, bit for bit.
    let (nj, entries, expected) = read_poses(&dir.join(file.replace(".blob", ".poses")));
    let (h, got) = decode(
        AlignedBlob::from_bytes(&regrouped).as_bytes(),
        bind,
        &entries,
    )
    .map_err(|e| format!("{file}: regrouped, it does not decode: {e}"))?;
    if h.num_joints as usize != nj || got.len() != expected.len() {
        return Err(format!("{file}: regrouped, {} joints", h.num_joints));
    }
    match got
        .iter()
        .zip(&expected)
        .position(|(a, b)| a.to_bits() != b.to_bits())
    {
        None => Ok(()),
        Some(k) => Err(format!(
            "{file}: regrouped, float {k} decodes to {}, recorded {}",
            got[k], expected[k]
        )),
    }
}

/// Hostile blobs made from the goldens: every byte of the header and body flipped (the checksum
/// re-sealed, so the structural checks are what stands) either fails validation or samples to
/// finite values everywhere.
#[test]
fn mutated_golden_blobs_are_refused_or_sample_finite() {
    let dir = golden_dir();
    let bind = committed_bind_pose();
    let (mut refused, mut sampled) = (0usize, 0usize);
    for file in [
        "fixed_default",
        "vbr_grouped",
        "keys_default",
        "fixed_bind-loop",
        "vbr_grouped-bind-loop",
    ] {
        let version = if file.starts_with("vbr_grouped") {
            GROUPED_FORMAT_VERSION
        } else {
            FORMAT_VERSION
        };
        let name = format!("{file}_v{version}.blob");
        let bytes = std::fs::read(dir.join(&name)).unwrap();
        // Under qemu (.ci/cross.sh) every header byte and every third byte after it (3 and 8
        // are coprime: every bit position is still flipped): this test was 6 s of CPU there.
        let stride = if crate::emulated::emulated() { 3 } else { 1 };
        for i in (0..bytes.len()).filter(|&i| !(12..16).contains(&i) && (i < 64 || i % stride == 0))
        {
            let mut b = bytes.clone();
            b[i] ^= 1 << (i % 8);
            crate::reseal::reseal(&mut b);
            let blob = AlignedBlob::from_bytes(&b);
            let opts = DecompressOptions {
                verify_checksum: true,
                bind_pose: Some(&bind),
            };
            let Ok(mut d) = Decompressor::new(blob.as_bytes(), &opts) else {
                refused += 1;
                continue;
            };
            let nj = d.num_joints();
            let mut pose = vec![0.0f32; nj * FLOATS_PER_JOINT];
            let mut curves = vec![0.0f32; d.num_curves()];
            for t in [0.0, 0.31, 0.77, 10.0] {
                d.seek(t, Looping::Wrap, Rounding::None).unwrap();
                d.sample_pose(&mut pose, FLOATS_PER_JOINT).unwrap();
                d.sample_curves(&mut curves).unwrap();
                assert!(
                    pose.iter().chain(&curves).all(|v| v.is_finite()),
                    "{name}: byte {i} flipped samples a non-finite value"
                );
                let joints: Vec<u32> = (0..nj as u32).rev().collect();
                d.sample_joints(&joints, None, 7, &mut pose, FLOATS_PER_JOINT)
                    .unwrap();
            }
            sampled += 1;
        }
    }
    assert!(
        refused > 0 && sampled > 0,
        "{refused} refused, {sampled} sampled"
    );
}
