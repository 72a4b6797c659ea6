//! Replays the `import_fbx` fuzz target's harness (`fuzz/harness_fbx.rs`) on stable Rust: the
//! hand-written FBX fixtures of `fbx_import`, every file of `fuzz/corpus/import_fbx/` and
//! `fuzz/regressions/import_fbx/`, and deterministic damage to the fixture (truncations, byte
//! flips, token swaps). `ANIMCOMP_WRITE_FUZZ_SEEDS=1` writes the fixtures into the corpus folder.

#[path = "../../../fuzz/harness_fbx.rs"]
mod harness_fbx;

use crate::common::Rng;
use crate::fbx_import::{fixture, SEC};
use std::path::Path;

fn seeds() -> Vec<(&'static str, String)> {
    vec![
        ("seed_chain.fbx", fixture(0, SEC, SEC, true, true)),
        ("seed_zero_range.fbx", fixture(0, 0, SEC, true, true)),
        ("seed_no_anim.fbx", fixture(0, SEC, SEC, false, true)),
        ("seed_nulls.fbx", fixture(0, SEC / 2, SEC, true, false)),
    ]
}

fn run(name: &str, data: &[u8]) {
    let r = std::panic::catch_unwind(|| harness_fbx::import_fbx(data));
    assert!(r.is_ok(), "{name} panicked");
}

#[test]
fn fbx_fuzz_replay() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    if std::env::var("ANIMCOMP_WRITE_FUZZ_SEEDS").as_deref() == Ok("1") {
        let dir = root.join("corpus/import_fbx");
        std::fs::create_dir_all(&dir).unwrap();
        for (name, text) in seeds() {
            std::fs::write(dir.join(name), text).unwrap();
        }
    }
    let mut n = 0;
    for (name, text) in seeds() {
        run(name, text.as_bytes());
        n += 1;
    }
    let mut files = Vec::new();
    for dir in ["corpus", "regressions"] {
        if let Ok(rd) = std::fs::read_dir(root.join(dir).join("import_fbx")) {
            files.extend(rd.flatten().map(|e| e.path()).filter(|p| p.is_file()));
        }
    }
    files.sort();
    // The corpus is not committed (its seeds are the fixtures above, written by
    // `ANIMCOMP_WRITE_FUZZ_SEEDS=1`); a fuzzing run's finds are replayed when present.
    for f in &files {
        run(&f.display().to_string(), &std::fs::read(f).unwrap());
        n += 1;
    }
    // Damage: 300 deterministic variants of the fixture.
    let base = fixture(0, SEC, SEC, true, true).into_bytes();
    let mut rng = Rng::new(0x0fb5);
    for k in 0..300 {
        let mut d = base.clone();
        match k % 3 {
            0 => d.truncate(rng.below(d.len())),
            1 => {
                for _ in 0..1 + rng.below(8) {
                    let i = rng.below(d.len());
                    d[i] = rng.below(256) as u8;
                }
            }
            _ => {
                // Numbers replaced by extreme ones (huge key times, counts, angles).
                let text = String::from_utf8_lossy(&d).into_owned();
                let huge = [
                    "99999999999999999999",
                    "-1",
                    "1e308",
                    "nan",
                    "0",
                    "*999999999",
                ];
                let mut out = String::new();
                for tok in text.split_inclusive(',') {
                    if rng.below(6) == 0 {
                        out.push_str(huge[rng.below(huge.len())]);
                        out.push(',');
                    } else {
                        out.push_str(tok);
                    }
                }
                d = out.into_bytes();
            }
        }
        run(&format!("variant {k}"), &d);
        n += 1;
    }
    println!("import_fbx: replayed {n} inputs");
}
