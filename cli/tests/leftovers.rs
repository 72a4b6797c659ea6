//! Issue 23's leftovers: `export` writes a glTF source's morph-target weight animation (with and
//! without a skeleton), joint options given explicitly on curve-only input are refused even at
//! their default values, and a full standard output or output file (`/dev/full`) is a one-line
//! I/O error with exit status 1 from every command, not a panic.

use assert_cmd::Command;
use base64::Engine;
use predicates::prelude::*;
use serde_json::json;
use std::path::{Path, PathBuf};

mod support;
use support::face_csv;

fn animcomp() -> Command {
    Command::cargo_bin("animcomp").unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Key times of the fixture (seconds): 13 keys, 0.5 s apart... at 30 Hz resampling, 181 samples.
const KEYS: usize = 13;

/// The weights of target `t` at key `k` of the fixture.
fn weight(k: usize, t: usize) -> f32 {
    let x = k as f32 / (KEYS - 1) as f32;
    if t == 0 {
        x
    } else {
        0.5 + 0.5 * (6.0 * x).sin()
    }
}

/// A glTF (buffer embedded) with a two-joint skin (root translation and child rotation
/// animated) and a mesh of two morph targets on a third node whose weights the same animation
/// ("talk", 0 to 6 s) drives. With `skin = false`: the mesh and its weights alone.
fn skinned_morph_gltf(dir: &Path, skin: bool) -> PathBuf {
    let mut bin: Vec<f32> = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut push = |floats: &[f32], type_: &str, minmax: Option<(Vec<f32>, Vec<f32>)>| {
        let offset = bin.len() * 4;
        bin.extend_from_slice(floats);
        views.push(json!({"buffer": 0, "byteOffset": offset, "byteLength": floats.len() * 4}));
        let width = match type_ {
            "SCALAR" => 1,
            "VEC3" => 3,
            "VEC4" => 4,
            _ => 16,
        };
        let mut a = json!({
            "bufferView": views.len() - 1,
            "componentType": 5126,
            "count": floats.len() / width,
            "type": type_,
        });
        if let Some((lo, hi)) = minmax {
            a["min"] = json!(lo);
            a["max"] = json!(hi);
        }
        accessors.push(a);
        accessors.len() - 1
    };
    let times: Vec<f32> = (0..KEYS).map(|k| k as f32 * 0.5).collect();
    let t_acc = push(&times, "SCALAR", Some((vec![0.0], vec![6.0])));
    let positions = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0];
    let pos = push(
        &positions,
        "VEC3",
        Some((vec![0.0, 0.0, 0.0], vec![1.0, 1.0, 0.0])),
    );
    let t0 = [0.0, 0.2, 0.0, 0.0, 0.2, 0.0, 0.0, 0.2, 0.0];
    let t1 = [0.0, 0.0, 0.3, 0.0, 0.0, 0.3, 0.0, 0.0, 0.3];
    let ta0 = push(
        &t0,
        "VEC3",
        Some((vec![0.0, 0.2, 0.0], vec![0.0, 0.2, 0.0])),
    );
    let ta1 = push(
        &t1,
        "VEC3",
        Some((vec![0.0, 0.0, 0.3], vec![0.0, 0.0, 0.3])),
    );
    let w: Vec<f32> = (0..KEYS)
        .flat_map(|k| [weight(k, 0), weight(k, 1)])
        .collect();
    let w_acc = push(&w, "SCALAR", None);
    let tr: Vec<f32> = (0..KEYS).flat_map(|k| [k as f32 * 0.1, 1.0, 0.0]).collect();
    let tr_acc = push(&tr, "VEC3", None);
    let rot: Vec<f32> = (0..KEYS)
        .flat_map(|k| {
            let a = k as f32 * 0.1;
            [0.0, (a / 2.0).sin(), 0.0, (a / 2.0).cos()]
        })
        .collect();
    let rot_acc = push(&rot, "VEC4", None);
    let mut ibm = Vec::new();
    for y in [0.0f32, -1.0] {
        ibm.extend_from_slice(&[
            1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, y, 0.0, 1.0,
        ]);
    }
    let ibm_acc = push(&ibm, "MAT4", None);
    let bytes: Vec<u8> = bin.iter().flat_map(|f| f.to_le_bytes()).collect();
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    );
    let mesh = json!({
        "name": "face",
        "primitives": [{
            "attributes": {"POSITION": pos},
            "targets": [{"POSITION": ta0}, {"POSITION": ta1}],
        }],
        "weights": [0.0, 0.5],
    });
    let (nodes, skins, scene, samplers, channels) = if skin {
        (
            json!([
                {"name": "root", "children": [1], "translation": [0.0, 1.0, 0.0]},
                {"name": "head", "translation": [0.0, 1.0, 0.0]},
                {"name": "faceMesh", "mesh": 0},
            ]),
            json!([{"joints": [0, 1], "inverseBindMatrices": ibm_acc}]),
            json!([0, 2]),
            json!([
                {"input": t_acc, "output": tr_acc, "interpolation": "LINEAR"},
                {"input": t_acc, "output": rot_acc, "interpolation": "LINEAR"},
                {"input": t_acc, "output": w_acc, "interpolation": "LINEAR"},
            ]),
            json!([
                {"sampler": 0, "target": {"node": 0, "path": "translation"}},
                {"sampler": 1, "target": {"node": 1, "path": "rotation"}},
                {"sampler": 2, "target": {"node": 2, "path": "weights"}},
            ]),
        )
    } else {
        (
            json!([{"name": "faceMesh", "mesh": 0}]),
            json!([]),
            json!([0]),
            json!([{"input": t_acc, "output": w_acc, "interpolation": "LINEAR"}]),
            json!([{"sampler": 0, "target": {"node": 0, "path": "weights"}}]),
        )
    };
    let mut doc = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": scene}],
        "nodes": nodes,
        "meshes": [mesh],
        "animations": [{"name": "talk", "samplers": samplers, "channels": channels}],
        "buffers": [{"byteLength": bytes.len(), "uri": uri}],
        "bufferViews": views,
        "accessors": accessors,
    });
    if skin {
        doc["skins"] = skins;
    }
    let p = dir.join(if skin { "talk.gltf" } else { "talk_face.gltf" });
    std::fs::write(&p, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    p
}

/// The weights channels of the exported file: (target node's name, values per key).
fn exported_weights(out: &Path) -> Vec<(String, usize, Vec<Vec<f32>>)> {
    // A GLB written by `export`: one buffer, its binary chunk. Read with `from_slice`, not
    // `open`: `open` is generic over the reader, so it compiled gltf-json's whole deserializer
    // into this test (most of its build time); `from_slice` is compiled in the gltf crate.
    let doc = gltf::Gltf::from_slice(&std::fs::read(out).unwrap()).unwrap();
    let bin = doc.blob.clone().expect("a GLB binary chunk");
    let mut found = Vec::new();
    for anim in doc.animations() {
        for ch in anim.channels() {
            if ch.target().property() != gltf::animation::Property::MorphTargetWeights {
                continue;
            }
            let node = ch.target().node();
            let targets = node
                .mesh()
                .unwrap()
                .primitives()
                .next()
                .unwrap()
                .morph_targets()
                .len();
            let reader = ch.reader(|b| (b.index() == 0).then_some(&bin[..]));
            let times: Vec<f32> = reader.read_inputs().unwrap().collect();
            let Some(gltf::animation::util::ReadOutputs::MorphTargetWeights(w)) =
                reader.read_outputs()
            else {
                panic!("weights channel without weights")
            };
            let w: Vec<f32> = w.into_f32().collect();
            assert_eq!(
                w.len(),
                times.len() * targets,
                "a weight per key and target"
            );
            let per_key = w.chunks(targets).map(<[f32]>::to_vec).collect();
            found.push((node.name().unwrap_or("").to_string(), targets, per_key));
        }
    }
    found
}

/// The fixture's weights resampled at 30 Hz (linear between its keys 0.5 s apart).
fn expected_weight(i: usize, t: usize) -> f32 {
    let x = i as f32 / 15.0; // key position
    let k = (x.floor() as usize).min(KEYS - 2);
    let a = x - k as f32;
    weight(k, t) + (weight(k + 1, t) - weight(k, t)) * a
}

#[test]
fn export_of_a_skinned_gltf_keeps_its_morph_weight_animation() {
    let dir = tempfile::tempdir().unwrap();
    for skin in [true, false] {
        let src = skinned_morph_gltf(dir.path(), skin);
        for raw in [false, true] {
            let out = dir.path().join(format!("out_{skin}_{raw}.glb"));
            let mut cmd = animcomp();
            cmd.args(["export", s(&src), "-o", s(&out)]);
            if raw {
                cmd.arg("--raw");
            }
            let joints = if skin { "2 joints" } else { "0 joints" };
            cmd.assert()
                .success()
                .stdout(predicate::str::contains(format!("{joints}, 2 curves")));
            let w = exported_weights(&out);
            assert_eq!(
                w.len(),
                1,
                "skin {skin} raw {raw}: one weights channel: {w:?}"
            );
            let (node, targets, keys) = &w[0];
            assert_eq!(node, "faceMesh", "on the node the source drove");
            assert_eq!(*targets, 2);
            assert_eq!(keys.len(), 181, "6 s at 30 Hz");
            for (i, k) in keys.iter().enumerate() {
                for (t, &got) in k.iter().enumerate() {
                    let want = expected_weight(i, t);
                    // The default curve precision (0.001) when decoded; raw: float rounding.
                    assert!(
                        (got - want).abs() <= 0.001 + 1e-5,
                        "skin {skin} raw {raw}: key {i} target {t}: {got} vs {want}"
                    );
                }
            }
            // The joints' channels are still there and re-import.
            let doc = gltf::Gltf::from_slice(&std::fs::read(&out).unwrap()).unwrap();
            let joint_channels = doc
                .animations()
                .flat_map(|a| a.channels().collect::<Vec<_>>())
                .filter(|c| c.target().property() != gltf::animation::Property::MorphTargetWeights)
                .count();
            assert_eq!(
                joint_channels,
                if skin { 4 } else { 0 },
                "translation + rotation x 2"
            );
        }
    }
}

/// `compress` on the same skinned glTF keeps the weights beside the joints (one blob).
#[test]
fn compress_of_a_skinned_gltf_keeps_its_morph_weights() {
    let dir = tempfile::tempdir().unwrap();
    let src = skinned_morph_gltf(dir.path(), true);
    let blob = dir.path().join("talk.acmp");
    animcomp()
        .args(["compress", s(&src), "-o", s(&blob)])
        .assert()
        .success()
        .stdout(predicate::str::contains("face.target0"))
        .stdout(predicate::str::contains("face.target1"));
    animcomp()
        .args(["inspect", s(&blob)])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"curves +2 \(ids 0 1\)").unwrap());
}

#[test]
fn export_of_shared_morph_gltf_writes_its_weights() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/data/curves/gltf-morph/AnimatedMorphCube/AnimatedMorphCube.gltf");
    if !p.exists() {
        println!("SKIP: {} not found", p.display());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cube.glb");
    animcomp()
        .args(["export", s(&p), "-o", s(&out)])
        .assert()
        .success();
    let w = exported_weights(&out);
    assert_eq!(w.len(), 1, "{w:?}");
    let back = animcomp_import::load_curves(&out, None).unwrap();
    let src = animcomp_import::load_curves(&p, None).unwrap();
    assert_eq!(back[0].curves.len(), src[0].curves.len());
    for (a, b) in src[0].curves.iter().zip(&back[0].curves) {
        assert_eq!(a.values.len(), b.values.len());
        for (x, y) in a.values.iter().zip(&b.values) {
            assert!((x - y).abs() <= 0.001 + 1e-5, "{}: {x} vs {y}", a.name);
        }
    }
}

#[test]
fn joint_options_at_their_defaults_are_refused_on_curves() {
    let dir = tempfile::tempdir().unwrap();
    let csv = face_csv(dir.path());
    let morph = skinned_morph_gltf(dir.path(), false);
    for input in [&csv, &morph] {
        for (cmd, out) in [("compress", "f.acmp"), ("export", "f.glb")] {
            for (extra, flag) in [
                (&["--error", "0.01"][..], "--error applies"),
                (&["--shell", "3"], "--shell applies"),
                (
                    &["--error", "0.01", "--shell", "3.0"],
                    "--error, --shell apply",
                ),
            ] {
                animcomp()
                    .args([cmd, s(input), "-o", s(&dir.path().join(out)), "--force"])
                    .args(extra)
                    .assert()
                    .failure()
                    .stderr(predicate::str::contains("holds curves only"))
                    .stderr(predicate::str::contains(flag));
            }
            // Without them it works.
            animcomp()
                .args([cmd, s(input), "-o", s(&dir.path().join(out)), "--force"])
                .assert()
                .success();
        }
    }
}

/// A small BVH clip (2 joints, 10 frames).
fn bvh(dir: &Path) -> PathBuf {
    support::small_bvh(dir, "walk.bvh")
}

#[cfg(unix)]
#[test]
fn a_full_disk_is_an_io_error_from_every_command() {
    if std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .is_err()
    {
        println!("SKIP: no /dev/full");
        return;
    }
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let dir = tempfile::tempdir().unwrap();
    let clip = bvh(dir.path());
    let csv = face_csv(dir.path());
    let blob = dir.path().join("walk.acmp");
    animcomp()
        .args(["compress", s(&clip), "-o", s(&blob)])
        .assert()
        .success();
    let o = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let stdout_cases: Vec<Vec<String>> = vec![
        vec!["compress".into(), s(&clip).into(), "-o".into(), o("a.acmp")],
        vec!["compress".into(), s(&csv).into(), "-o".into(), o("c.acmp")],
        vec!["export".into(), s(&csv).into(), "-o".into(), o("c.glb")],
        vec!["inspect".into(), s(&blob).into()],
        vec![
            "sample".into(),
            s(&blob).into(),
            "--time".into(),
            "0.1".into(),
        ],
        vec!["export".into(), s(&clip).into(), "-o".into(), o("e.glb")],
        vec!["report".into(), s(&clip).into(), "-o".into(), o("r.svg")],
        vec![
            "bench".into(),
            s(&clip).into(),
            "--timing-ms".into(),
            "1".into(),
        ],
    ];
    for args in &stdout_cases {
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("animcomp"))
            .args(args)
            .args(
                if args[0] == "inspect" || args[0] == "sample" || args[0] == "bench" {
                    &[][..]
                } else {
                    &["--force"][..]
                },
            )
            .stdout(full())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("animcomp: error: cannot write to standard output: No space left"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
    // Output files on a full disk.
    for args in [
        &["compress", s(&clip), "-o", "/dev/full", "--force"][..],
        &["compress", s(&csv), "-o", "/dev/full", "--force"],
        &["export", s(&clip), "-o", "/dev/full", "--force"],
        &["report", s(&clip), "-o", "/dev/full", "--force"],
        &["bench", s(&clip), "--timing-ms", "1", "--json", "/dev/full"],
    ] {
        let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("animcomp"))
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("/dev/full") && err.contains("No space left"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
