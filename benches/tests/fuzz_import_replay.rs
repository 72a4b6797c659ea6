//! Replays the importer fuzz seeds (built in code, `fuzz/seeds_import.rs`), corpora and
//! regressions (`fuzz/corpus/import_{bvh,acl}/*`, `fuzz/regressions/import_{bvh,acl}/*`)
//! through the cargo-fuzz targets' harness
//! (`fuzz/harness_import.rs`) on stable Rust. It lives in this crate because the root crate may
//! not depend on the importers.

#[path = "../../fuzz/harness_import.rs"]
mod harness_import;
#[path = "../../fuzz/seeds_import.rs"]
mod seeds_import;

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) -> usize {
    let mut seeds = 0;
    for seed in seeds_import::SEEDS {
        if seed.target == target {
            let data = seed.bytes();
            let r = std::panic::catch_unwind(|| run(&data));
            assert!(r.is_ok(), "seed {} panicked", seed.name);
            seeds += 1;
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let mut files = Vec::new();
    for dir in ["corpus", "regressions"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir).join(target)) {
            files.extend(rd.flatten().map(|e| e.path()).filter(|p| p.is_file()));
        }
    }
    files.sort();
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let r = std::panic::catch_unwind(|| run(&data));
        assert!(r.is_ok(), "fuzz input {} panicked", f.display());
    }
    println!("{target}: replayed {seeds} seeds and {} files", files.len());
    seeds + files.len()
}

/// Writes the seeds into `fuzz/corpus/<target>/` for a local fuzzing run (only when
/// `ANIMCOMP_WRITE_FUZZ_SEEDS=1`); checks that every target has seeds either way.
#[test]
fn write_seeds() {
    for target in ["import_bvh", "import_acl"] {
        assert!(
            seeds_import::SEEDS.iter().any(|s| s.target == target),
            "no seed for {target}"
        );
    }
    if std::env::var("ANIMCOMP_WRITE_FUZZ_SEEDS").as_deref() != Ok("1") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    for seed in seeds_import::SEEDS {
        let dir = root.join(seed.target);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(seed.name), seed.bytes()).unwrap();
    }
}

#[test]
fn import_bvh_corpus() {
    assert!(
        replay("import_bvh", harness_import::import_bvh) > 0,
        "import_bvh seeds missing"
    );
}

#[test]
fn import_acl_corpus() {
    assert!(
        replay("import_acl", harness_import::import_acl) > 0,
        "import_acl seeds missing"
    );
}
