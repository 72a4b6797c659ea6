//! What a new user tripped on: `inspect` shows a blob's additive format (a curve-only blob's
//! curves section: `fbx_export.rs`) and points source files to `compress`; the help and the "unsupported file
//! type" message list every input `compress` reads; an output named like another format is
//! refused; the additive, curve precision and curve baseline lines say what they mean;
//! `--base-stack` picks the base's clip; `report` refuses joint options on curve-only input as
//! `compress` and `export` do.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::Path;

mod support;
use support::{face_csv, small_bvh as bvh};

fn animcomp() -> Command {
    Command::cargo_bin("animcomp").unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn inspect_shows_the_additive_format() {
    let dir = tempfile::tempdir().unwrap();
    let clip = bvh(dir.path(), "walk.bvh");
    let plain = dir.path().join("plain.acmp");
    let add = dir.path().join("add.acmp");
    animcomp()
        .args(["compress", s(&clip), "-o", s(&plain)])
        .assert()
        .success();
    animcomp()
        .args([
            "compress",
            s(&clip),
            "-o",
            s(&add),
            "--additive",
            "relative",
        ])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("additive format relative, relative to the first sample")
                .and(predicate::str::contains("relative relative").not()),
        );
    animcomp()
        .args(["inspect", s(&plain), "--brief"])
        .assert()
        .success()
        .stdout(predicate::str::contains("additive       none"));
    animcomp()
        .args(["inspect", s(&add), "--brief"])
        .assert()
        .success()
        .stdout(predicate::str::contains("additive       relative"));
}

#[test]
fn inspect_of_a_source_file_names_the_command_that_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let clip = bvh(dir.path(), "walk.bvh");
    animcomp()
        .args(["inspect", s(&clip)])
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("magic").and(predicate::str::contains("animcomp compress")),
        );
}

#[test]
fn help_and_unsupported_file_messages_list_every_input() {
    animcomp().arg("--help").assert().success().stdout(
        predicate::str::contains("FBX")
            .and(predicate::str::contains(".csv"))
            .and(predicate::str::contains(".npy")),
    );
    animcomp()
        .args(["compress", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Benchmark").not());
    let dir = tempfile::tempdir().unwrap();
    let txt = dir.path().join("notes.txt");
    std::fs::write(&txt, "hello").unwrap();
    animcomp()
        .args(["export", s(&txt), "-o", s(&dir.path().join("out.glb"))])
        .assert()
        .failure()
        .stderr(
            predicate::str::contains("unsupported file type")
                .and(predicate::str::contains(".fbx"))
                .and(predicate::str::contains(".csv"))
                .and(predicate::str::contains(".npy")),
        );
}

#[test]
fn an_output_named_like_another_format_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let clip = bvh(dir.path(), "walk.bvh");
    let glb = dir.path().join("out.glb");
    animcomp()
        .args(["compress", s(&clip), "-o", s(&glb)])
        .assert()
        .failure()
        .stderr(predicate::str::contains("out.glb").and(predicate::str::contains(".acmp")));
    assert!(!glb.exists());
    let acmp = dir.path().join("out.acmp");
    animcomp()
        .args(["export", s(&clip), "-o", s(&acmp)])
        .assert()
        .failure()
        .stderr(predicate::str::contains(".glb or .gltf"));
    assert!(!acmp.exists());
    // The output's own extension, or one the tools do not know, is fine.
    for name in ["out.acmp", "out.bin"] {
        animcomp()
            .args(["compress", s(&clip), "-o", s(&dir.path().join(name))])
            .assert()
            .success();
    }
}

#[test]
fn curve_only_export_gives_the_curve_precision() {
    let dir = tempfile::tempdir().unwrap();
    let csv = face_csv(dir.path());
    animcomp()
        .args([
            "export",
            s(&csv),
            "-o",
            s(&dir.path().join("face.glb")),
            "--curve-precision",
            "0.002",
        ])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("curve precision 0.002")
                .and(predicate::str::contains("precision 0.01").not()),
        );
}

#[test]
fn base_stack_picks_the_clip_of_the_base_file() {
    let dir = tempfile::tempdir().unwrap();
    let clip = bvh(dir.path(), "walk.bvh");
    let base = bvh(dir.path(), "base.bvh");
    let run = |stack: &str, out: &str| {
        animcomp()
            .args(["compress", s(&clip), "-o", s(&dir.path().join(out))])
            .args([
                "--additive",
                "additive0",
                "--base",
                s(&base),
                "--base-stack",
                stack,
            ])
            .assert()
    };
    run("0", "a.acmp").success();
    run("nothing", "b.acmp")
        .failure()
        .stderr(predicate::str::contains("--base-stack"));
}

#[test]
fn report_refuses_joint_options_on_curves() {
    let dir = tempfile::tempdir().unwrap();
    let csv = face_csv(dir.path());
    let svg = dir.path().join("face.svg");
    animcomp()
        .args(["report", s(&csv), "-o", s(&svg), "--error", "0.01"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("holds curves only"));
    assert!(!svg.exists());
    animcomp()
        .args(["report", s(&csv), "-o", s(&svg)])
        .assert()
        .success();
}
