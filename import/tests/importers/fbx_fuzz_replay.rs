//! Replays the `import_fbx` fuzz target's harness (`fuzz/harness_fbx.rs`) on stable Rust: the
//! hand-written FBX fixtures of `fbx_import`, every file of `fuzz/corpus/import_fbx/` and
//! `fuzz/regressions/import_fbx/`, and deterministic damage to the fixture (truncations, byte
//! flips, token swaps). `ANIMCOMP_WRITE_FUZZ_SEEDS=1` writes the fixtures into the corpus folder.

#[path = "../../../fuzz/harness_fbx.rs"]
mod harness_fbx;

use crate::common::Rng;
use crate::fbx_import::{fixture, SEC};
use std::path::Path;

fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        (
            "seed_chain.fbx",
            fixture(0, SEC, SEC, true, true).into_bytes(),
        ),
        (
            "seed_zero_range.fbx",
            fixture(0, 0, SEC, true, true).into_bytes(),
        ),
        (
            "seed_no_anim.fbx",
            fixture(0, SEC, SEC, false, true).into_bytes(),
        ),
        (
            "seed_nulls.fbx",
            fixture(0, SEC / 2, SEC, true, false).into_bytes(),
        ),
        // Finding 10's shape (a 24 GB array), kept as a seed so fuzzing starts from it.
        (
            "seed_huge_array_length.fbx",
            binary_fbx_with_array(0xB500_0000),
        ),
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
        for (name, bytes) in seeds() {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
    let mut n = 0;
    for (name, bytes) in seeds() {
        run(name, &bytes);
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

/// A binary FBX 7.4 file of one geometry whose `Vertices` array declares `count` doubles, stored
/// deflated in 16 bytes (written by hand; with 0xB500_0000 elements it is the seed
/// `seed_huge_array_length.fbx`, generated here, not committed).
fn binary_fbx_with_array(count: u32) -> Vec<u8> {
    // A record without children ending at `at` + its length (FBX < 7.5: 32-bit fields).
    fn record(name: &str, props: &[u8], nprops: u32, at: usize) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend(((at + 13 + name.len() + props.len()) as u32).to_le_bytes());
        out.extend(nprops.to_le_bytes());
        out.extend((props.len() as u32).to_le_bytes());
        out.push(name.len() as u8);
        out.extend(name.as_bytes());
        out.extend(props);
        out
    }
    let mut array = vec![b'd'];
    for w in [count, 1, 16] {
        array.extend(w.to_le_bytes());
    }
    array.extend([0x78, 0x9c]);
    array.extend([0u8; 14]);
    let mut geometry = vec![b'L'];
    geometry.extend(1234i64.to_le_bytes());
    for s in [&b"Geometry\x00\x01Mesh"[..], b"Mesh"] {
        geometry.push(b'S');
        geometry.extend((s.len() as u32).to_le_bytes());
        geometry.extend(s);
    }
    let mut f = b"Kaydara FBX Binary  \x00\x1a\x00".to_vec();
    f.extend(7400u32.to_le_bytes());
    // Objects { Geometry { Vertices } }: the geometry record holds the vertices record.
    let at = f.len();
    let vertices_at = at + 13 + "Objects".len() + 13 + "Geometry".len() + geometry.len();
    let vertices = record("Vertices", &array, 1, vertices_at);
    let geometry_head = 13 + "Geometry".len() + geometry.len();
    let mut geometry_record = Vec::new();
    let geometry_end = at + 13 + "Objects".len() + geometry_head + vertices.len() + 13;
    geometry_record.extend((geometry_end as u32).to_le_bytes());
    geometry_record.extend(3u32.to_le_bytes());
    geometry_record.extend((geometry.len() as u32).to_le_bytes());
    geometry_record.push(8);
    geometry_record.extend(b"Geometry");
    geometry_record.extend(&geometry);
    geometry_record.extend(&vertices);
    geometry_record.extend([0u8; 13]);
    let objects_end = at + 13 + "Objects".len() + geometry_record.len() + 13;
    f.extend((objects_end as u32).to_le_bytes());
    f.extend([0u8; 8]);
    f.push(7);
    f.extend(b"Objects");
    f.extend(&geometry_record);
    f.extend([0u8; 13]);
    f.extend([0u8; 13 + 160]);
    f
}

/// A file declaring an array of 3 billion doubles (24 GB) is refused by ufbx's memory limit
/// (`fbx::memory_limit`), before anything that size is allocated: found by the `import_fbx`
/// fuzzer on a mutated 77 KB file (round four, `docs/robustness.md`), whose `morph_meshes` and
/// `load_bytes` asked for 24 GB.
#[test]
fn a_huge_array_length_is_refused_by_the_memory_limit() {
    let bytes = binary_fbx_with_array(0xB500_0000);
    let t0 = std::time::Instant::now();
    let opts = animcomp_import::fbx::FbxOptions::default();
    let Err(e) = animcomp_import::fbx::load_bytes(&bytes, &opts) else {
        panic!("a 24 GB array must not load");
    };
    let msg = e.to_string();
    assert!(msg.contains("MiB of memory"), "{msg}");
    let Err(e) = animcomp_import::fbx::morph_meshes(&bytes, Default::default()) else {
        panic!("a 24 GB array must not load");
    };
    assert!(e.to_string().contains("MiB of memory"), "{e}");
    assert!(t0.elapsed().as_secs() < 10);
    // A small count of the same file gets past the limit (and fails on its data instead).
    let Err(small) = animcomp_import::fbx::load_bytes(&binary_fbx_with_array(3), &opts) else {
        panic!("junk deflate data loaded");
    };
    assert!(!small.to_string().contains("MiB of memory"), "{small}");
    assert_eq!(animcomp_import::fbx::memory_limit(1000), 1 << 30);
    assert_eq!(animcomp_import::fbx::memory_limit(1 << 30), 64 << 30);
}
