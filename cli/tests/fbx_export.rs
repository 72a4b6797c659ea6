//! The CLI on FBX input, `export` to glTF, and the output-path / ignored-option rules of
//! issue 23. The FBX used everywhere is the hand-written ASCII fixture committed as the FBX fuzz
//! fixture (`import/tests/importers/fbx_fixture.rs`: hip → knee → foot, 1 s at 30 fps, stack
//! "walk"); shared-data checks skip with a message when `../shared/data` is absent.

use animcomp::math::Transform;
use animcomp::RawClip;
use animcomp_import::{load, ImportOptions};
use assert_cmd::Command;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

mod support;
use support::face_csv;

fn animcomp() -> Command {
    Command::cargo_bin("animcomp").unwrap()
}

#[path = "../../import/tests/importers/fbx_fixture.rs"]
mod fbx_fixture;

/// The importer tests' hand-written FBX (hip → knee → foot, 1 s at 30 fps), written into `dir`.
fn fixture(dir: &Path) -> PathBuf {
    use fbx_fixture::{fixture, SEC};
    let p = dir.join("chain.fbx");
    std::fs::write(&p, fixture(0, SEC, SEC, true, true)).unwrap();
    p
}

fn shared(rel: &str) -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data")
        .join(rel);
    if p.exists() {
        Some(p)
    } else {
        println!("SKIP: {} not found", p.display());
        None
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Object-space joint positions of every sample.
fn positions(clip: &RawClip) -> Vec<Vec<glam::Vec3>> {
    (0..clip.num_samples)
        .map(|i| {
            let mut w: Vec<Transform> = Vec::new();
            for (j, t) in clip.tracks.iter().enumerate() {
                let l = t.get(i);
                w.push(match clip.skeleton.parent(j) {
                    Some(p) => Transform::mul(&w[p], &l),
                    None => l,
                });
            }
            w.iter().map(|t| t.translation).collect()
        })
        .collect()
}

fn max_distance(a: &RawClip, b: &RawClip) -> f32 {
    assert_eq!(a.num_joints(), b.num_joints());
    assert_eq!(a.num_samples, b.num_samples);
    let names_a: Vec<&str> = a.skeleton.joints.iter().map(|j| j.name.as_str()).collect();
    let names_b: Vec<&str> = b.skeleton.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names_a, names_b);
    let (pa, pb) = (positions(a), positions(b));
    pa.iter()
        .zip(&pb)
        .flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| (*p - *q).length()))
        .fold(0.0, f32::max)
}

#[test]
fn fbx_session_compress_inspect_export_report() {
    let dir = tempfile::tempdir().unwrap();
    let fbx = fixture(dir.path());
    let blob = dir.path().join("chain.acmp");
    animcomp()
        .args(["compress", s(&fbx), "-o", s(&blob)])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "clip walk: 3 joints, 31 samples at 30 Hz",
        ))
        .stderr(predicate::str::contains("file unit cm"));
    animcomp()
        .args(["inspect", s(&blob)])
        .assert()
        .success()
        .stdout(predicate::str::contains("3"));
    let glb = dir.path().join("chain.glb");
    animcomp()
        .args(["export", s(&fbx), "-o", s(&glb)])
        .assert()
        .success()
        .stdout(predicate::str::contains("decoded"));
    let svg = dir.path().join("chain.svg");
    animcomp()
        .args(["report", s(&fbx), "-o", s(&svg)])
        .assert()
        .success();
    assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    // `--stack` by name and by index; a wrong one lists the stacks.
    for st in ["walk", "0"] {
        animcomp()
            .args([
                "compress",
                s(&fbx),
                "--stack",
                st,
                "--force",
                "-o",
                s(&blob),
            ])
            .assert()
            .success();
    }
    animcomp()
        .args([
            "compress",
            s(&fbx),
            "--stack",
            "run",
            "--force",
            "-o",
            s(&blob),
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("0 \"walk\""));
    // Units: metres make the clip a hundredth the size.
    animcomp()
        .args([
            "compress",
            s(&fbx),
            "--units",
            "m",
            "--force",
            "-o",
            s(&blob),
        ])
        .assert()
        .success()
        .stderr(predicate::str::contains("converted to m"));
}

#[test]
fn export_writes_valid_gltf_that_reimports_with_the_same_poses() {
    let dir = tempfile::tempdir().unwrap();
    let fbx = fixture(dir.path());
    let opts = ImportOptions {
        sample_rate: Some(30.0),
        ..Default::default()
    };
    let source = load(&fbx, &ImportOptions::default())
        .unwrap()
        .remove(0)
        .clip;
    for (name, raw, tol) in [
        ("raw.glb", true, 1e-4f32),
        ("raw.gltf", true, 1e-4),
        // Decoded: every joint within the precision (0.01) of the source.
        ("decoded.glb", false, 0.01),
    ] {
        let out = dir.path().join(name);
        let mut cmd = animcomp();
        cmd.args(["export", s(&fbx), "-o", s(&out)]);
        if raw {
            cmd.arg("--raw");
        }
        cmd.assert().success();
        let bytes = std::fs::read(&out).unwrap();
        // The gltf crate's reader validates the document.
        let doc = gltf::Gltf::from_slice(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(doc.nodes().count(), 3, "{name}");
        assert_eq!(doc.skins().count(), 1, "{name}");
        assert_eq!(doc.animations().count(), 1, "{name}");
        let back = load(&out, &opts).unwrap().remove(0).clip;
        let d = max_distance(&source, &back);
        assert!(d <= tol, "{name}: joints {d} from the source");
    }
}

#[test]
fn export_of_shared_fbx_with_blend_shapes_keeps_skeleton_and_weights() {
    let Some(fbx) = shared("fbx/ufbx/blender_293_barbarian_7400_binary.fbx") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("barbarian.glb");
    animcomp()
        .args(["export", s(&fbx), "--raw", "-o", s(&out)])
        .assert()
        .success()
        .stdout(predicate::str::contains("31 joints, 3 curves"));
    let bytes = std::fs::read(&out).unwrap();
    gltf::Gltf::from_slice(&bytes).unwrap();
    let source = load(&fbx, &ImportOptions::default())
        .unwrap()
        .remove(0)
        .clip;
    let back = load(
        &out,
        &ImportOptions {
            sample_rate: Some(source.sample_rate),
            ..Default::default()
        },
    )
    .unwrap()
    .remove(0)
    .clip;
    assert!(max_distance(&source, &back) <= 1e-3);
    let src_curves = animcomp_import::load_curves(&fbx, None).unwrap();
    let back_curves = animcomp_import::load_curves(&out, Some(source.sample_rate)).unwrap();
    assert_eq!(back_curves[0].curves.len(), 3);
    // The blend-shape meshes went out with their targets: the glTF's largest displacement per
    // target is the FBX channel's magnitude (in centimetres: the file is in metres).
    for (a, b) in src_curves[0].curves.iter().zip(&back_curves[0].curves) {
        let (ma, mb) = (a.magnitude.unwrap(), b.magnitude.unwrap());
        assert!(
            ma > 1.0 && (ma - mb).abs() <= 1e-4 * ma,
            "{}: {ma} vs {mb}",
            a.name
        );
    }
    for (a, b) in src_curves[0].curves.iter().zip(&back_curves[0].curves) {
        // The blend-shape names come back (`extras.targetNames`).
        assert_eq!(a.name, b.name);
        for (x, y) in a.values.iter().zip(&b.values) {
            assert!((x - y).abs() <= 1e-5, "{}: {x} vs {y}", a.name);
        }
    }
}

#[test]
fn bench_gives_one_row_per_stack() {
    let Some(fbx) = shared("fbx/ufbx/maya_game_sausage_6100_ascii_combined.fbx") else {
        return;
    };
    let out = animcomp()
        .args(["bench", s(&fbx), "--timing-ms", "1"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for st in ["wiggle", "spin", "deform"] {
        assert!(
            text.contains(&format!("/{st} ")),
            "{st} row missing:\n{text}"
        );
    }
    assert!(text.contains("TOTAL(3)"), "{text}");
}

#[test]
fn output_paths_are_checked_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let fbx = fixture(dir.path());
    // `-o -` is refused.
    animcomp()
        .args(["compress", s(&fbx), "-o", "-"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("standard output"));
    assert!(!Path::new("-").exists());
    // `-o DIR` writes DIR/<stem>.acmp.
    let sub = dir.path().join("out");
    std::fs::create_dir(&sub).unwrap();
    animcomp()
        .args(["compress", s(&fbx), "-o", s(&sub)])
        .assert()
        .success();
    assert!(sub.join("chain.acmp").is_file());
    // The input itself is never overwritten, not even with --force.
    let before = std::fs::read(&fbx).unwrap();
    for cmd in ["compress", "export", "report"] {
        animcomp()
            .args([cmd, s(&fbx), "-o", s(&fbx), "--force"])
            .assert()
            .failure()
            .stderr(predicate::str::contains("is the input file"));
    }
    assert_eq!(std::fs::read(&fbx).unwrap(), before);
    // An unwritable path fails before the work (no figures printed, nothing left behind).
    for cmd in ["compress", "export", "report"] {
        animcomp()
            .args([cmd, s(&fbx), "-o", "/nonexistent-dir/x.out"])
            .assert()
            .failure()
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains("cannot write"));
    }
    animcomp()
        .args(["bench", s(&fbx), "--json", "/nonexistent-dir/b.json"])
        .assert()
        .failure()
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("cannot write"));
    // `report` refuses to overwrite its SVG without --force, like `compress`.
    let svg = dir.path().join("r.svg");
    animcomp()
        .args(["report", s(&fbx), "-o", s(&svg)])
        .assert()
        .success();
    animcomp()
        .args(["report", s(&fbx), "-o", s(&svg)])
        .assert()
        .failure()
        .stderr(predicate::str::contains("--force"));
    animcomp()
        .args(["report", s(&fbx), "-o", s(&svg), "--force"])
        .assert()
        .success();
}

#[cfg(unix)]
#[test]
fn a_full_stdout_is_an_error_not_a_panic() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        println!("SKIP: no /dev/full");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let fbx = fixture(dir.path());
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("animcomp"))
        .args(["compress", s(&fbx), "-o", s(&dir.path().join("x.acmp"))])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot write to standard output"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bench_on_an_unreadable_file_prints_no_empty_table() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.fbx");
    std::fs::write(&bad, b"not an fbx").unwrap();
    animcomp()
        .args(["bench", s(&bad), "--timing-ms", "1"])
        .assert()
        .failure()
        .stdout(predicate::str::contains("TOTAL").not())
        .stdout(predicate::str::contains("bad.fbx"))
        .stderr(predicate::str::contains("no clip could be loaded"));
}

#[test]
fn ignored_options_are_warned_or_refused() {
    let dir = tempfile::tempdir().unwrap();
    let fbx = fixture(dir.path());
    let blob = dir.path().join("x.acmp");
    animcomp()
        .args([
            "compress",
            s(&fbx),
            "-o",
            s(&blob),
            "--rotation-format",
            "float96-now",
        ])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "--rotation-format only applies to --codec fixed",
        ));
    // 31 samples: --decimate 31 would keep one.
    animcomp()
        .args([
            "compress",
            s(&fbx),
            "-o",
            s(&blob),
            "--force",
            "--decimate",
            "31",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("--decimate"));
    // A rate that would need gigabytes is refused at once.
    let t0 = std::time::Instant::now();
    animcomp()
        .args([
            "compress",
            s(&fbx),
            "-o",
            s(&blob),
            "--force",
            "--resample",
            "100000000",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("too many samples"));
    assert!(t0.elapsed().as_secs() < 20);
    // A thread per job: refused before any is started.
    animcomp()
        .args(["bench", s(&fbx), "--jobs", "100000000"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("at most 1024"));
    // Curve-only input: joint options are refused.
    let csv = face_csv(dir.path());
    for extra in [&["--codec", "fixed"][..], &["--error", "0.5"]] {
        animcomp()
            .args([
                "compress",
                s(&csv),
                "-o",
                s(&dir.path().join("f.acmp")),
                "--force",
            ])
            .args(extra)
            .assert()
            .failure()
            .stderr(predicate::str::contains("holds curves only"));
    }
}

#[test]
fn curve_blobs_show_their_curves_in_inspect_sample_and_report() {
    let dir = tempfile::tempdir().unwrap();
    let csv = face_csv(dir.path());
    let blob = dir.path().join("face.acmp");
    animcomp()
        .args(["compress", s(&csv), "-o", s(&blob)])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "without the blob's header, curve descriptors and segment table",
        ));
    // The curves section: its offset and size, and a row of the section table.
    let h = animcomp::format::Header::parse(&std::fs::read(&blob).unwrap()).unwrap();
    assert!(h.curves_size > 0);
    let section = format!(
        "curves section offset {}, {} bytes",
        h.curves_offset, h.curves_size
    );
    let row = predicate::str::is_match(format!(r"(?m)^curves\s+{}\s", h.curves_size)).unwrap();
    animcomp()
        .args(["inspect", s(&blob)])
        .assert()
        .success()
        .stdout(predicate::str::contains("curves         2 (ids 0 1)"))
        .stdout(predicate::str::contains("raw 240 bytes"))
        .stdout(predicate::str::contains(section))
        .stdout(row);
    // JawOpen is 0.5 throughout; EyeBlinkLeft is i / 30 at sample i.
    animcomp()
        .args(["sample", s(&blob), "--time", "0.5"])
        .assert()
        .success()
        .stdout(predicate::str::contains("curve 1 0.50"))
        .stdout(
            predicate::str::contains("curve 0 0.49").or(predicate::str::contains("curve 0 0.50")),
        );
    let svg = dir.path().join("face.svg");
    animcomp()
        .args(["report", s(&csv), "-o", s(&svg)])
        .assert()
        .success()
        .stdout(predicate::str::contains("curve 0 EyeBlinkLeft 0.001"))
        .stdout(predicate::str::contains("curve 1 JawOpen 0.001"));
    assert!(std::fs::read_to_string(&svg)
        .unwrap()
        .contains("EyeBlinkLeft"));
    // The help lists the curve inputs.
    animcomp()
        .args(["compress", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains(".csv").and(predicate::str::contains(".npy")));
}

#[test]
fn additive_compress_bench_and_export_with_each_base() {
    let dir = tempfile::tempdir().unwrap();
    let fbx = fixture(dir.path());
    let blob = dir.path().join("add.acmp");
    for base in ["first-sample", "bind", s(&fbx)] {
        let out = animcomp()
            .args(["compress", s(&fbx), "-o", s(&blob), "--force"])
            .args(["--additive", "additive1", "--base", base])
            .assert()
            .success()
            .stdout(predicate::str::contains(
                "additive format additive1, relative to",
            ))
            .get_output()
            .stdout
            .clone();
        let text = String::from_utf8(out).unwrap();
        let err: f32 = text
            .split("max error ")
            .nth(1)
            .and_then(|t| t.split_whitespace().next())
            .unwrap()
            .parse()
            .unwrap();
        assert!(err <= 0.01, "--base {base}: {err}");
        let h = animcomp::format::Header::parse(&std::fs::read(&blob).unwrap()).unwrap();
        assert_eq!(
            h.additive,
            animcomp::AdditiveFormat::Additive1 as u8,
            "{base}"
        );
    }
    animcomp()
        .args([
            "bench",
            s(&fbx),
            "--timing-ms",
            "1",
            "--additive",
            "relative",
            "--base",
            "bind",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("relative to its bind pose"));
    // Exported with the base applied: the same poses as the source, within the precision.
    let glb = dir.path().join("add.glb");
    animcomp()
        .args([
            "export",
            s(&fbx),
            "-o",
            s(&glb),
            "--additive",
            "relative",
            "--base",
            "bind",
        ])
        .assert()
        .success();
    let source = load(&fbx, &ImportOptions::default())
        .unwrap()
        .remove(0)
        .clip;
    let back = load(
        &glb,
        &ImportOptions {
            sample_rate: Some(30.0),
            ..Default::default()
        },
    )
    .unwrap()
    .remove(0)
    .clip;
    let d = max_distance(&source, &back);
    assert!(d <= 0.01, "{d}");
    // A base with other joints is refused.
    let csv = face_csv(dir.path());
    animcomp()
        .args(["compress", s(&fbx), "-o", s(&blob), "--force"])
        .args(["--additive", "relative", "--base", s(&csv)])
        .assert()
        .failure();
}

#[test]
fn export_of_a_gltf_keeps_its_mesh_and_skin() {
    let Some(src) = shared("gltf/CesiumMan.glb") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cesium.glb");
    animcomp()
        .args(["export", s(&src), "-o", s(&out)])
        .assert()
        .success();
    let bytes = std::fs::read(&out).unwrap();
    let doc = gltf::Gltf::from_slice(&bytes).unwrap();
    assert_eq!(doc.meshes().count(), 1, "the source's mesh");
    assert_eq!(doc.skins().count(), 1, "the source's skin");
    assert_eq!(doc.animations().count(), 1, "the decoded animation only");
    // Every accessor (the source's mesh data and the new animation) reads from the one buffer.
    assert_eq!(doc.buffers().count(), 1);
    assert!(doc.blob.is_some(), "GLB binary chunk");
    let source = load(&src, &ImportOptions::default())
        .unwrap()
        .remove(0)
        .clip;
    let back = load(&out, &ImportOptions::default())
        .unwrap()
        .remove(0)
        .clip;
    let d = max_distance(&source, &back);
    assert!(d <= 0.01, "{d}");
}

#[test]
fn export_of_curves_without_a_skeleton_writes_morph_weights() {
    let dir = tempfile::tempdir().unwrap();
    let csv = face_csv(dir.path());
    let out = dir.path().join("face.glb");
    animcomp()
        .args(["export", s(&csv), "-o", s(&out)])
        .assert()
        .success()
        .stdout(predicate::str::contains("0 joints, 2 curves"));
    let doc = gltf::Gltf::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(doc.meshes().count(), 1);
    let back = animcomp_import::load_curves(&out, Some(30.0)).unwrap();
    let src = animcomp_import::load_curves(&csv, None).unwrap();
    assert_eq!(back[0].curves.len(), 2);
    for (a, b) in src[0].curves.iter().zip(&back[0].curves) {
        // Re-imported under their own names (`extras.targetNames`), not `curves.target<t>`.
        assert_eq!(a.name, b.name);
        for (x, y) in a.values.iter().zip(&b.values) {
            assert!((x - y).abs() <= 0.001 + 1e-6, "{}: {x} vs {y}", a.name);
        }
    }
}
