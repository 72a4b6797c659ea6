//! Replays the committed fuzz corpora and crash regressions (`fuzz/corpus/<target>/*`,
//! `fuzz/regressions/<target>/*`) through the very harness code the cargo-fuzz targets run
//! (`fuzz/harness.rs`), on stable Rust, so CI exercises them without nightly or libFuzzer.

use crate::harness;

use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut files = Vec::new();
    for dir in ["corpus", "regressions"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir).join(target)) {
            for e in rd.flatten() {
                if e.path().is_file() {
                    files.push(e.path());
                }
            }
        }
    }
    files.sort();
    files
}

fn replay(target: &str, run: impl Fn(&[u8])) -> usize {
    let files = inputs(target);
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(&data)));
        assert!(r.is_ok(), "fuzz input {} panicked", f.display());
    }
    println!("{target}: replayed {} inputs", files.len());
    files.len()
}

#[test]
fn blob_decode_corpus() {
    let decoded = std::sync::atomic::AtomicUsize::new(0);
    let n = replay("blob_decode", |d| {
        if harness::blob_decode(d).ok_with_checksum {
            decoded.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    });
    assert!(n > 0, "the blob_decode seed corpus is missing");
    // The seeds must be blobs of the current format (finding 7: seeds of an older format version
    // are all refused at the header, so the fuzzer never reached the codecs from them).
    let decoded = decoded.into_inner();
    println!("blob_decode: {decoded} of {n} inputs validate and decode");
    assert!(
        decoded >= 40,
        "only {decoded} blob_decode seeds decode: regenerate them with \
         ANIMCOMP_WRITE_FUZZ_SEEDS=1 cargo test --test robust write_seeds"
    );
}

#[test]
fn blob_mutate_corpus() {
    let n = replay("blob_mutate", |d| {
        harness::blob_mutate(d);
    });
    assert!(n > 0, "the blob_mutate seed corpus is missing");
}

#[test]
fn compress_clip_corpus() {
    let n = replay("compress_clip", |d| {
        let _ = harness::compress_clip(d);
    });
    assert!(n > 0, "the compress_clip seed corpus is missing");
}

/// Fresh blobs of every built codec and settings combination pass the harness's checks, so the
/// replay above judges mutated blobs against a harness known to accept good ones.
#[test]
fn harness_accepts_fresh_blobs_of_built_codecs() {
    let mut decoded = 0;
    // Under qemu (.ci/cross.sh) every fifth combination (5 is coprime with the 4 codecs and the 6
    // clip kinds, so every codec still meets every clip kind): this test was 9 s of CPU there.
    let step = if crate::emulated::emulated() { 5 } else { 1 };
    for k in (0..=255u8).step_by(step) {
        let (clip, settings) = (harness::base_clip(k), harness::settings_from(k));
        match harness::compress_and_decode(&clip, &settings) {
            Ok(_) => decoded += 1,
            Err(animcomp::Error::Unsupported(m)) => {
                if k < 4 {
                    println!("skipping {:?}: {m}", settings.codec);
                }
            }
            Err(e) => panic!("generated clip rejected: {e}"),
        }
    }
    println!("{decoded} fresh blobs decoded through the harness");
}

/// `ANIMCOMP_WRITE_FUZZ_SEEDS=1 cargo test --test robust write_seeds` writes the `blob_decode`
/// seed corpus: fresh blobs of every built codec for the harness's base clips (replacing older
/// ones, which a format change leaves stale), and a few broken ones.
#[test]
fn write_seeds() {
    if std::env::var("ANIMCOMP_WRITE_FUZZ_SEEDS").is_err() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/blob_decode");
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: String, bytes: &[u8]| std::fs::write(dir.join(name), bytes).unwrap();
    for kind in 0..6u8 {
        for sid in [0u8, 0x1C, 0x64, 0xC0, 1, 2, 3, 0x81] {
            if let Ok(b) =
                animcomp::compress(&harness::base_clip(kind), &harness::settings_from(sid))
            {
                write(
                    format!(
                        "{}_clip{kind}_s{sid:02x}",
                        harness::settings_from(sid).codec.name()
                    ),
                    &b,
                );
            }
        }
    }
    // Regression input of the vbr describe underflow (robust_mutation finding): a re-sealed bit
    // flip in the vbr body header's constants offset, in the segments layout (format version 2:
    // the offline conversion's input since the runtime refuses it).
    let clip = animcomp::clip::generate_clip(&animcomp::clip::GenerateOptions {
        joints: 7,
        samples: 16,
        ..Default::default()
    });
    let vbr = animcomp::CompressSettings {
        codec: animcomp::CodecChoice::Vbr,
        ..Default::default()
    };
    if let Ok(mut b) = animcomp::offline::compress::compress_segments(&clip, &[], &vbr) {
        b[80] ^= 0x80;
        harness::reseal(&mut b);
        let reg = dir
            .parent()
            .unwrap()
            .parent()
            .unwrap()
            .join("regressions/blob_decode");
        std::fs::create_dir_all(&reg).unwrap();
        std::fs::write(reg.join("vbr_describe_section_order"), &b).unwrap();
    }
    write("empty".into(), b"");
    write("magic_only".into(), b"ACMP");
    let mut h = vec![0u8; 64];
    h[..4].copy_from_slice(b"ACMP");
    h[4..6].copy_from_slice(&animcomp::format::FORMAT_VERSION.to_le_bytes());
    write("header_zeros".into(), &h);
}

/// Strict replay of the open findings' regression inputs (see `harness::DESCRIBE_KNOWN_BROKEN`
/// and `harness::NONFINITE_KNOWN_BROKEN`): fails until vbr's validator is fixed; then un-ignore
/// and empty those lists.
#[test]
fn strict_replay_of_open_findings() {
    std::env::set_var("ANIMCOMP_HARNESS_STRICT", "1");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let d = std::fs::read(dir.join("blob_decode/vbr_describe_section_order")).unwrap();
    let m = std::fs::read(dir.join("blob_mutate/vbr_nonfinite_scale")).unwrap();
    let r1 = std::panic::catch_unwind(|| harness::blob_decode(&d));
    let r2 = std::panic::catch_unwind(|| harness::blob_mutate(&m));
    assert!(
        r1.is_ok() && r2.is_ok(),
        "describe ok: {}, finite ok: {}",
        r1.is_ok(),
        r2.is_ok()
    );
}

/// The harness plays mutated blobs through a playback cache: re-sealed mutants of `vbr` blobs
/// (one structured mutation each) that validate are compared pose by pose with and without a
/// cache (`fuzz/harness_cache.rs`), and so are fresh ones.
#[test]
fn playback_cache_runs_on_validated_vbr_mutants() {
    let vbr: Vec<u8> = (0..=255u8)
        .filter(|&s| harness::settings_from(s).codec == animcomp::CodecChoice::Vbr)
        .collect();
    assert!(!vbr.is_empty());
    let mut rng = harness::cache::Rng::new(2026);
    let (mut validated, mut cached, mut fresh) = (0, 0, 0);
    // Under qemu (.ci/cross.sh) the 24 fresh blobs and 96 mutants instead of 216.
    let rounds = if crate::emulated::emulated() {
        120u32
    } else {
        240
    };
    for i in 0..rounds {
        let kind = (i % 6) as u8;
        let sid = vbr[i as usize % vbr.len()];
        let mut data = vec![kind, sid, 0];
        if i >= 24 {
            data.extend(rng.next().to_le_bytes()[..4].iter());
        }
        let Some(o) = harness::blob_mutate(&data) else {
            continue;
        };
        if i < 24 {
            // No mutation: a fresh blob with animated tracks always reaches the cache.
            fresh += usize::from(o.cached_poses > 0 || kind == 3);
            assert!(o.ok_with_checksum);
        } else if o.ok_with_checksum {
            validated += 1;
            cached += usize::from(o.cached_poses > 0);
        }
    }
    println!("{validated} validated vbr mutants, {cached} played through a cache; {fresh} fresh");
    assert_eq!(fresh, 24, "a fresh vbr blob was not played through a cache");
    assert!(
        cached >= 20 && cached * 2 >= validated,
        "only {cached} of {validated} validated vbr mutants were played through a cache"
    );
}

/// The harness's cache check can fail: a filled cache whose decoded samples are overwritten
/// (header kept, so the garbage is used) gives a pose that `harness::cache::compare` refuses.
#[test]
fn harness_catches_a_cached_pose_that_differs() {
    // The playback cache is the AVX2 decoder's; elsewhere poses do not read it.
    #[cfg(target_arch = "x86_64")]
    let avx2 = std::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    let avx2 = false;
    if !avx2 {
        eprintln!("skipped: the playback cache is used with AVX2 only");
        return;
    }
    use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
    use harness::cache::{compare, CacheMem};
    let settings = animcomp::CompressSettings {
        codec: animcomp::CodecChoice::Vbr,
        ..Default::default()
    };
    let blob = animcomp::compress(&harness::base_clip(4), &settings).unwrap();
    let blob = animcomp::AlignedBlob::from_bytes(&blob);
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
    let h = *d.header();
    let need = d.playback_cache_size();
    let fixed = 128 + 40 * d.num_joints();
    assert!(
        need > fixed,
        "no animated track in the cache ({need} bytes)"
    );
    let mut mem = CacheMem::new(need);
    // Play samples 0 and 1, then between 1 and 2: both ends held by the cache.
    for s in [0, 1] {
        d.seek_sample(s);
        compare(&d, &h, &mut mem, true);
    }
    let t = 1.5 / h.sample_rate;
    d.seek(t, Looping::Clamp, Rounding::None).unwrap();
    compare(&d, &h, &mut mem, false);
    // The two decoded samples are the last 2 x 16 bytes per animated sub-track.
    let subs = (need - fixed) / 100;
    assert!(subs > 0);
    let bytes = mem.bytes();
    let n = bytes.len();
    for (i, w) in bytes[n - 32 * subs..].chunks_exact_mut(4).enumerate() {
        w.copy_from_slice(&(0.25 + i as f32).to_le_bytes());
    }
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        compare(&d, &h, &mut mem, false);
    }));
    assert!(
        r.is_err(),
        "a pose from overwritten cached samples was accepted"
    );
}
