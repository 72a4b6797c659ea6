//! Replays the importer fuzz seeds (the importer tests' golden files, built in code in
//! `import/tests/common/fixtures.rs`), corpora and
//! regressions (`fuzz/corpus/import_{bvh,acl}/*`, `fuzz/regressions/import_{bvh,acl}/*`)
//! through the cargo-fuzz targets' harness
//! (`fuzz/harness_import.rs`) on stable Rust. It lives in this crate because the root crate may
//! not depend on the importers.

#[path = "../../import/tests/importers/common/fixtures.rs"]
mod fixtures;
#[path = "../../fuzz/harness_import.rs"]
mod harness_import;

/// (fuzz target, file name, contents) of the seeds.
const SEEDS: [(&str, &str, &str); 4] = [
    ("import_bvh", "seed_golden.bvh", fixtures::BVH_GOLDEN),
    ("import_bvh", "seed_one_joint.bvh", fixtures::BVH_ONE_JOINT),
    ("import_acl", "seed_v1.acl.sjson", fixtures::ACL_V1),
    ("import_acl", "seed_v5.acl.sjson", fixtures::ACL_V5),
];

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) -> usize {
    let mut seeds = 0;
    for (t, name, text) in SEEDS {
        if t == target {
            let r = std::panic::catch_unwind(|| run(text.as_bytes()));
            assert!(r.is_ok(), "seed {name} panicked");
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
            SEEDS.iter().any(|(t, _, _)| *t == target),
            "no seed for {target}"
        );
    }
    if std::env::var("ANIMCOMP_WRITE_FUZZ_SEEDS").as_deref() != Ok("1") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus");
    for (target, name, text) in SEEDS {
        let dir = root.join(target);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(name), text).unwrap();
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
