//! `animcomp tiers build` and `animcomp inspect` of tiered blobs: the command runs on
//! BVH clips written here, the files it writes open (resident) and attach (tiers) through the
//! library, sample like the fidelities it measured, and its table's numbers are consistent with
//! what the library guarantees; `inspect` names tier files and checks them against a resident.
//! On `/work/shared/data/bandai` (or `$ANIMCOMP_SHARED_DATA/bandai`), when present, two clips.

use animcomp::decompress::{DecompressOptions, Decompressor, OpenBlob, TierSet};
use animcomp::math::FLOATS_PER_JOINT;
use animcomp::AlignedBlob;
use assert_cmd::Command;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn animcomp() -> Command {
    Command::cargo_bin("animcomp").unwrap()
}

/// A smooth BVH: 8 joints in a chain, `frames` frames at 120 Hz (smooth enough that samples go
/// to the tiers), motion differing with `seed`.
fn bvh(dir: &Path, name: &str, frames: usize, seed: f32) -> PathBuf {
    let joints = 8;
    let mut s = String::from("HIERARCHY\nROOT j0\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n");
    for j in 1..joints {
        s += &format!(
            " JOINT j{j}\n {{\n OFFSET 0 8 0\n CHANNELS 3 Zrotation Xrotation Yrotation\n"
        );
    }
    s += " End Site\n {\n OFFSET 0 5 0\n }\n";
    for _ in 1..joints {
        s += " }\n";
    }
    s += "}\nMOTION\n";
    s += &format!("Frames: {frames}\nFrame Time: 0.00833333\n");
    for i in 0..frames {
        let t = i as f32 / 120.0;
        s += &format!("{:.5} 90 {:.5}", 20.0 * t, 3.0 * (t * 2.0).sin());
        for j in 0..joints {
            let f = 1.0 + 0.3 * j as f32 + 0.1 * seed;
            s += &format!(
                " {:.5} {:.5} {:.5}",
                25.0 * (t * f + seed).sin(),
                15.0 * (t * f * 0.7 + 2.0 * seed).cos(),
                10.0 * (t * f * 1.3).sin()
            );
        }
        s += "\n";
    }
    let p = dir.join(name);
    std::fs::write(&p, s).unwrap();
    p
}

/// A row of the printed table: the cells after the clip name, as numbers (thousands separators
/// removed).
fn row(stdout: &str, name: &str) -> Vec<f64> {
    let line = stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no row {name} in\n{stdout}"));
    line.split_whitespace()
        .skip(1)
        .map(|c| c.replace(',', "").parse::<f64>().unwrap())
        .collect()
}

fn read(p: &Path) -> AlignedBlob {
    AlignedBlob::from_bytes(&std::fs::read(p).unwrap())
}

/// Every pose at the blob's samples, as bits.
fn poses(d: &mut Decompressor) -> Vec<u32> {
    let n = d.header().num_samples;
    let mut out = vec![0.0f32; d.num_joints() * FLOATS_PER_JOINT];
    let mut all = Vec::new();
    for i in 0..n {
        d.seek_sample(i);
        d.sample_pose(&mut out, FLOATS_PER_JOINT).unwrap();
        all.extend(out.iter().map(|f| f.to_bits()));
    }
    all
}

#[test]
fn tiers_build_writes_files_that_attach_and_a_consistent_table() {
    let dir = tempfile::tempdir().unwrap();
    let a = bvh(dir.path(), "walk a.bvh", 240, 0.0);
    let b = bvh(dir.path(), "run.bvh", 180, 1.0);
    let out = dir.path().join("out");
    let assert = animcomp()
        .args(["tiers", "build"])
        .arg(&a)
        .arg(&b)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    println!("{stdout}");
    // full, resident/full, +1/full, all/full, then max and p99 for resident, +1, all.
    for name in ["walk_a", "run", "total"] {
        let r = row(&stdout, name);
        assert_eq!(r.len(), 10, "{name}: {r:?}");
        let (res, one, all) = (r[1], r[2], r[3]);
        assert!(r[0] > 0.0);
        assert!(res < one && one <= all, "{name}: bytes {r:?}");
        assert!(
            res < 1.0,
            "{name}: resident not smaller than the full blob: {r:?}"
        );
        // All tiers: the full blob's samples plus the tier blobs' headers and records.
        assert!(all < 1.1, "{name}: all tiers {all} x full");
        let (max_r, max_1, max_a) = (r[4], r[6], r[8]);
        // The bounds the library guarantees: precision 0.01, resident 10x, level 1 3x (its
        // search measures in float32 with a margin; the float64 judge agrees within rounding).
        assert!(max_a <= 0.01 * 1.001, "{name}: max all {max_a}");
        assert!(max_1 <= 0.03 * 1.001, "{name}: max +1 {max_1}");
        assert!(max_r <= 0.1 * 1.001, "{name}: max resident {max_r}");
        // p99 at most the max at each fidelity.
        for k in [4, 6, 8] {
            assert!(r[k + 1] <= r[k], "{name}: p99 above max: {r:?}");
        }
    }
    let total = row(&stdout, "total");
    assert_eq!(total[0], row(&stdout, "walk_a")[0] + row(&stdout, "run")[0]);

    for name in ["walk_a", "run"] {
        let resident = read(&out.join(format!("{name}.blob")));
        let tiers = [
            read(&out.join(format!("{name}.tier1"))),
            read(&out.join(format!("{name}.tier2"))),
        ];
        // The resident blob opens and samples on its own.
        let mut alone = Decompressor::new(resident.as_bytes(), &DecompressOptions::default())
            .expect("the resident blob opens");
        let p0 = poses(&mut alone);
        // Its tiers attach, each at its level; with both, poses are those of the plain vbr blob.
        let open = OpenBlob::open(resident.as_bytes(), &DecompressOptions::default()).unwrap();
        let set = TierSet::new(&open).unwrap();
        assert_eq!(set.levels(), 2);
        assert_eq!(set.attach(tiers[0].as_bytes()).unwrap(), 1);
        assert_eq!(set.attach(tiers[1].as_bytes()).unwrap(), 2);
        let p2 = poses(&mut Decompressor::bind_tiers(&set));
        assert_ne!(p0, p2, "{name}: the tiers change nothing");
        let plain = animcomp()
            .arg("compress")
            .arg(if name == "run" { &b } else { &a })
            .args(["--codec", "vbr", "-o"])
            .arg(dir.path().join(format!("{name}.acmp")))
            .assert()
            .success();
        drop(plain);
        let full = read(&dir.path().join(format!("{name}.acmp")));
        let mut d = Decompressor::new(full.as_bytes(), &DecompressOptions::default()).unwrap();
        assert_eq!(
            p2,
            poses(&mut d),
            "{name}: all tiers differ from the plain blob"
        );
    }
    // A tier of another clip is refused.
    let other = read(&out.join("run.tier1"));
    let resident = read(&out.join("walk_a.blob"));
    let open = OpenBlob::open(resident.as_bytes(), &DecompressOptions::default()).unwrap();
    assert!(TierSet::new(&open)
        .unwrap()
        .attach(other.as_bytes())
        .is_err());

    // Existing files are refused without --force, replaced with it.
    animcomp()
        .args(["tiers", "build"])
        .arg(&a)
        .arg("-o")
        .arg(&out)
        .assert()
        .failure()
        .stderr(predicate::str::contains("--force"));
    animcomp()
        .args(["tiers", "build", "--force", "--levels", "1"])
        .arg(&a)
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("+1/full").not());
}

#[test]
fn inspect_names_resident_and_tier_blobs() {
    let dir = tempfile::tempdir().unwrap();
    let a = bvh(dir.path(), "a.bvh", 200, 0.0);
    let b = bvh(dir.path(), "b.bvh", 200, 2.0);
    let out = dir.path().join("out");
    animcomp()
        .args(["tiers", "build"])
        .arg(&a)
        .arg(&b)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    animcomp()
        .args(["inspect", "--brief"])
        .arg(out.join("a.blob"))
        .assert()
        .success()
        .stdout(predicate::str::contains("has-tiers"))
        .stdout(
            predicate::str::is_match(r"tiers +2 levels \(resident blob\), key 0x[0-9a-f]{16}")
                .unwrap(),
        );
    animcomp()
        .arg("inspect")
        .arg(out.join("a.tier2"))
        .assert()
        .success()
        .stdout(predicate::str::contains("tier blob (ACTR)"))
        .stdout(predicate::str::contains("level          2 of 2"))
        .stdout(predicate::str::contains("(verified)"))
        .stdout(predicate::str::contains("segments"))
        .stdout(predicate::str::contains("frames"));
    animcomp()
        .arg("inspect")
        .arg(out.join("a.tier1"))
        .arg("--resident")
        .arg(out.join("a.blob"))
        .assert()
        .success()
        .stdout(predicate::str::contains("level 1: validated"));
    animcomp()
        .arg("inspect")
        .arg(out.join("a.tier1"))
        .arg("--resident")
        .arg(out.join("b.blob"))
        .assert()
        .failure()
        .stdout(predicate::str::contains("attaches to    not"));
    // A corrupt tier: the checksum no longer matches.
    let mut bytes = std::fs::read(out.join("a.tier1")).unwrap();
    let n = bytes.len();
    bytes[n - 40] ^= 0xff;
    std::fs::write(out.join("bad.tier1"), &bytes).unwrap();
    animcomp()
        .arg("inspect")
        .arg(out.join("bad.tier1"))
        .assert()
        .failure()
        .stdout(predicate::str::contains("MISMATCH"));
}

#[test]
fn tiers_build_refuses_other_codecs_and_bad_factors() {
    let dir = tempfile::tempdir().unwrap();
    let a = bvh(dir.path(), "a.bvh", 60, 0.0);
    animcomp()
        .args(["tiers", "build", "--codec", "keys"])
        .arg(&a)
        .arg("-o")
        .arg(dir.path().join("o"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("vbr"));
    animcomp()
        .args(["tiers", "build", "--medium-factor", "20"])
        .arg(&a)
        .arg("-o")
        .arg(dir.path().join("o"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("--medium-factor"));
}

#[test]
fn tiers_build_on_bandai_when_present() {
    let root = std::env::var_os("ANIMCOMP_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/shared/data"));
    let set = root.join("bandai");
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&set) {
        Ok(d) => d
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "bvh"))
            .collect(),
        Err(_) => {
            println!("skipping: {} not found", set.display());
            return;
        }
    };
    files.sort();
    files.truncate(2);
    let out = tempfile::tempdir().unwrap();
    let assert = animcomp()
        .args(["tiers", "build"])
        .args(&files)
        .arg("-o")
        .arg(out.path())
        .assert()
        .success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    println!("{stdout}");
    let t = row(&stdout, "total");
    assert!(t[1] < t[2] && t[2] <= t[3] && t[3] < 1.1, "{t:?}");
    assert!(t[8] <= 0.01 * 1.001 && t[4] <= 0.1 * 1.001, "{t:?}");
}

#[test]
fn a_shared_budget_is_met_or_reported_unreachable() {
    let dir = tempfile::tempdir().unwrap();
    let clips: Vec<PathBuf> = (0..3)
        .map(|k| bvh(dir.path(), &format!("c{k}.bvh"), 150 + 40 * k, k as f32))
        .collect();
    let out = dir.path().join("out");
    let assert = animcomp()
        .args([
            "tiers",
            "build",
            "--resident-budget",
            "0.7",
            "--medium-budget",
            "0.85",
        ])
        .args(&clips)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    println!("{stdout}");
    assert!(
        stdout.contains("shared budget: resident <= 0.7"),
        "{stdout}"
    );
    let total = row(&stdout, "total");
    // full bytes, resident/full, +1/full, all/full, ...
    assert!(total[1] <= 0.7, "resident {} of the full bytes", total[1]);
    // +1/full counts the tier blob's own headers and records beside the medium budget's frames.
    assert!(total[2] <= 0.9, "+1 {} of the full bytes", total[2]);
    // The resident files written: their sizes sum to at most the budget.
    let full = total[0];
    let resident: u64 = (0..3)
        .map(|k| {
            std::fs::metadata(out.join(format!("c{k}.blob")))
                .unwrap()
                .len()
        })
        .sum();
    assert!(resident as f64 <= 0.7 * full, "{resident} of {full}");
    // With every level attached, the plain blob's poses.
    let resident = read(&out.join("c1.blob"));
    let open = OpenBlob::open(resident.as_bytes(), &DecompressOptions::default()).unwrap();
    let set = TierSet::new(&open).unwrap();
    let tiers: Vec<AlignedBlob> = (1..=2)
        .map(|l| read(&out.join(format!("c1.tier{l}"))))
        .collect();
    for t in &tiers {
        set.attach(t.as_bytes()).unwrap();
    }
    let all = poses(&mut Decompressor::bind_tiers(&set));
    animcomp()
        .arg("compress")
        .arg(&clips[1])
        .args(["--codec", "vbr", "-o"])
        .arg(dir.path().join("c1.acmp"))
        .assert()
        .success();
    let full = read(&dir.path().join("c1.acmp"));
    let mut d = Decompressor::new(full.as_bytes(), &DecompressOptions::default()).unwrap();
    assert_eq!(all, poses(&mut d));

    // A budget no threshold reaches: the blobs are written, exit status 1, said on stderr.
    let tight = dir.path().join("tight");
    animcomp()
        .args(["tiers", "build", "--resident-budget", "0.02"])
        .args(&clips)
        .arg("-o")
        .arg(&tight)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("every removable sample"))
        .stderr(predicate::str::contains("not reachable"));
    assert!(tight.join("c2.tier2").is_file());
    // Bad budgets are refused before anything is written.
    animcomp()
        .args([
            "tiers",
            "build",
            "--resident-budget",
            "0.5",
            "--medium-budget",
            "0.4",
        ])
        .args(&clips)
        .arg("-o")
        .arg(dir.path().join("bad"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("below --resident-budget"));
    assert!(!dir.path().join("bad").exists());
}

#[test]
fn report_of_a_resident_blob_measures_and_draws_each_fidelity() {
    let dir = tempfile::tempdir().unwrap();
    let a = bvh(dir.path(), "a.bvh", 240, 0.5);
    let out = dir.path().join("out");
    animcomp()
        .args(["tiers", "build"])
        .arg(&a)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let svg = dir.path().join("a.svg");
    let assert = animcomp()
        .arg("report")
        .arg(&a)
        .arg(out.join("a.blob"))
        .arg("-o")
        .arg(&svg)
        .assert()
        .success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    println!("{stdout}");
    let fid = |name: &str| -> Vec<f64> {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no row {name} in\n{stdout}"));
        line[name.len()..]
            .split_whitespace()
            .map(|c| c.replace(',', "").parse::<f64>().unwrap())
            .collect()
    };
    let (r, one, all) = (fid("resident"), fid("+ level 1"), fid("+ level 2"));
    // bytes, of all tiers, max, p99: bytes grow, errors within each level's bound.
    assert!(r[0] < one[0] && one[0] < all[0]);
    assert_eq!(all[1], 1.0);
    assert!(r[2] <= 0.1 * 1.001 && one[2] <= 0.03 * 1.001 && all[2] <= 0.01 * 1.001);
    let doc = std::fs::read_to_string(&svg).unwrap();
    assert!(doc.contains("pose at sample"), "no poses drawn");
    // The resident blob's chart (8 worst joints), then one polyline per fidelity.
    assert_eq!(doc.matches("<polyline").count(), 8 + 3);
    assert!(doc.contains("+ level 2 ("));

    // Without its tier files beside it, the resident fidelity alone, and what is missing.
    std::fs::remove_file(out.join("a.tier2")).unwrap();
    animcomp()
        .arg("report")
        .arg(&a)
        .arg(out.join("a.blob"))
        .arg("-o")
        .arg(dir.path().join("b.svg"))
        .assert()
        .success()
        .stdout(predicate::str::contains("not found:").and(predicate::str::contains("a.tier2")));
}
