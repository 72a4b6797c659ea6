//! Replays the importer fuzz corpora and regressions (`fuzz/corpus/import_{bvh,acl}/*`,
//! `fuzz/regressions/import_{bvh,acl}/*`) through the cargo-fuzz targets' harness
//! (`fuzz/harness_import.rs`) on stable Rust. It lives in this crate because the root crate may
//! not depend on the importers.

#[path = "../../fuzz/harness_import.rs"]
mod harness_import;

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) -> usize {
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
    println!("{target}: replayed {} inputs", files.len());
    files.len()
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
