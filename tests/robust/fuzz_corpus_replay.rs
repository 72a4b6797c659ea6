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
    for k in 0..=255u8 {
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
    // flip in the vbr body header's constants offset.
    let clip = animcomp::clip::generate_clip(&animcomp::clip::GenerateOptions {
        joints: 7,
        samples: 16,
        ..Default::default()
    });
    let vbr = animcomp::CompressSettings {
        codec: animcomp::CodecChoice::Vbr,
        ..Default::default()
    };
    if let Ok(mut b) = animcomp::compress(&clip, &vbr) {
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
