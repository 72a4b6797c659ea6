//! What a new user runs into first: closed pipes, negative numbers, directories, overwriting,
//! auto codec choice, precision warnings, brief inspection, argument order, README commands.

use super::{animcomp, bvh_text, write};
use predicates::prelude::*;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// A compressed blob of a small BVH clip in `dir` (codec `codec`), with the clip's path.
fn compressed(dir: &Path, codec: &str) -> (PathBuf, PathBuf) {
    let clip = write(dir, "walk.bvh", &bvh_text(31));
    let blob = dir.join(format!("walk_{codec}.acmp"));
    animcomp()
        .args(["compress", clip.to_str().unwrap(), "--codec", codec, "-o"])
        .arg(&blob)
        .assert()
        .success();
    (clip, blob)
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let (_, blob) = compressed(dir.path(), "vbr");
    for args in [&["inspect"][..], &["sample", "--time", "0.1"]] {
        let bin = assert_cmd::cargo::cargo_bin("animcomp");
        let mut child = std::process::Command::new(bin)
            .args(args)
            .arg(&blob)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the reading end at once, as `| head -0` would: every write then fails.
        drop(child.stdout.take());
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(err.is_empty(), "{args:?}: stderr {err:?}");
        assert_ne!(status.code(), Some(101), "{args:?}: panicked");
    }
}

#[test]
fn negative_numbers_are_values_rejected_with_their_message() {
    for (args, msg) in [
        (
            &["bench", "--error", "-1"][..],
            "-1 must be finite and greater than 0",
        ),
        (
            &["bench", "--shell", "-3"],
            "-3 must be finite and greater than 0",
        ),
        (
            &["compress", "x.bvh", "--resample", "-30"],
            "-30 must be finite",
        ),
        (&["bench", "--jobs", "-2"], "invalid value '-2'"),
    ] {
        animcomp().args(args).assert().failure().stderr(
            predicate::str::contains(msg).and(predicate::str::contains("unexpected").not()),
        );
    }
}

#[test]
fn compress_says_a_directory_is_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    animcomp()
        .args(["compress"])
        .arg(dir.path())
        .assert()
        .failure()
        .stderr(predicate::str::contains("is a directory"));
}

#[test]
fn compress_refuses_to_overwrite_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let (clip, blob) = compressed(dir.path(), "fixed");
    let before = std::fs::read(&blob).unwrap();
    let again = |extra: &[&str]| {
        animcomp()
            .args(["compress", clip.to_str().unwrap(), "--codec", "vbr", "-o"])
            .arg(&blob)
            .args(extra)
            .assert()
    };
    again(&[]).failure().stderr(
        predicate::str::contains("already exists").and(predicate::str::contains("--force")),
    );
    assert_eq!(std::fs::read(&blob).unwrap(), before, "left untouched");
    again(&["--force"]).success();
    assert_ne!(
        std::fs::read(&blob).unwrap(),
        before,
        "overwritten with --force"
    );
}

#[test]
fn auto_codec_says_what_it_chose() {
    let dir = tempfile::tempdir().unwrap();
    let clip = write(dir.path(), "walk.bvh", &bvh_text(31));
    let out = animcomp()
        .args(["compress", clip.to_str().unwrap(), "--codec", "auto"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let chosen = ["fixed", "vbr", "keys"]
        .into_iter()
        .find(|c| text.contains(&format!("codec auto (chose {c})")));
    assert!(chosen.is_some(), "{text}");
    animcomp()
        .args(["bench", "--codec", "auto", "--timing-ms", "1"])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"auto chose: (fixed|vbr|keys) for \d+ clip").unwrap());
}

#[test]
fn a_codec_ending_above_the_precision_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let clip = write(dir.path(), "walk.bvh", &bvh_text(31));
    // Tiny precision: the fixed codec's formats cannot reach it; vbr searches until it does.
    let run = |codec: &str| {
        animcomp()
            .args([
                "compress",
                clip.to_str().unwrap(),
                "--force",
                "--error",
                "0.00005",
            ])
            .args(["--codec", codec])
            .assert()
    };
    run("fixed")
        .success()
        .stderr(
            predicate::str::contains("warning: max error").and(predicate::str::contains(
                "above the requested precision 0.00005",
            )),
        );
    run("vbr")
        .success()
        .stderr(predicate::str::contains("warning").not());
    animcomp()
        .args([
            "bench",
            "--codec",
            "fixed",
            "--error",
            "0.00005",
            "--timing-ms",
            "1",
        ])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "warning: codec fixed: max error above the requested precision 0.00005",
        ));
}

#[test]
fn inspect_brief_is_short_and_groups_storage() {
    let dir = tempfile::tempdir().unwrap();
    let (_, blob) = compressed(dir.path(), "vbr");
    let out = animcomp()
        .args(["inspect", "--brief"])
        .arg(&blob)
        .output()
        .unwrap();
    let brief = String::from_utf8(out.stdout).unwrap();
    let full = String::from_utf8(
        animcomp()
            .args(["inspect"])
            .arg(&blob)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert!(brief.lines().count() < full.lines().count(), "{brief}");
    // One summary row per channel and storage kind: no per-track bit rates in the storage text.
    assert!(!brief.contains("bits/sample,"), "{brief}");
    let ranks: Vec<usize> = brief
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter_map(|w| {
            ["rotation", "translation", "scale"]
                .iter()
                .position(|c| *c == w)
        })
        .collect();
    assert!(!ranks.is_empty() && ranks.len() <= 6, "{brief}");
    assert!(
        ranks.windows(2).all(|w| w[0] <= w[1]),
        "channels in order: {brief}"
    );
}

#[test]
fn sample_checks_the_joint_before_printing() {
    let dir = tempfile::tempdir().unwrap();
    let (_, blob) = compressed(dir.path(), "fixed");
    animcomp()
        .args(["sample", "--time", "0", "-j", "500"])
        .arg(&blob)
        .assert()
        .failure()
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(
            "joint 500 out of range (the blob has 3 joints)",
        ));
}

#[test]
fn readme_names_real_peer_files_and_help_no_local_path() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap();
    assert!(
        !readme.contains("acl_<set>"),
        "placeholder peer file name in the README"
    );
    let named: Vec<&str> = readme
        .split(|c: char| c == '`' || c.is_whitespace() || c == '/')
        .filter(|w| w.starts_with("acl_") && w.ends_with(".tsv"))
        .collect();
    assert!(named.len() >= 5, "{named:?}");
    let peers = Path::new("/work/shared/peers");
    if peers.is_dir() {
        for n in &named {
            assert!(
                peers.join(n).is_file(),
                "README names {n}, absent from {}",
                peers.display()
            );
        }
    } else {
        eprintln!("skipping the peer file check: {} absent", peers.display());
    }
    let help = animcomp().args(["bench", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(
        help.contains("--peers") && !help.contains("/work/"),
        "{help}"
    );
}
