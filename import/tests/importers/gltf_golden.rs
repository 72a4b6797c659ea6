//! Golden glTF test: a tiny file built here (JSON + base64 data URI) with LINEAR, STEP and
//! CUBICSPLINE samplers; expected resampled values computed by hand.

use animcomp::math::{Quat, Vec3};
use animcomp_import::{gltf_import, load, ImportOptions};
use base64::Engine as _;

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

const H: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// One accessor: data, glTF type, element count, min/max (for key times).
type Part = (Vec<f32>, &'static str, usize, Option<(f32, f32)>);

/// Returns the glTF JSON text.
fn tiny_gltf() -> String {
    // (data, accessor type, count, min/max for inputs)
    let parts: Vec<Part> = vec![
        (vec![0.0, 1.0], "SCALAR", 2, Some((0.0, 1.0))), // 0: times 0..1
        (vec![0.0, 0.5, 1.0], "SCALAR", 3, Some((0.0, 1.0))), // 1: step times
        (vec![0.0, 0.0, 0.0, 10.0, 0.0, 0.0], "VEC3", 2, None), // 2: linear translations
        (
            vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, H, H, 0.0, 0.0, 1.0, 0.0],
            "VEC4",
            3,
            None,
        ), // 3: step rotations
        (
            // 4: cubic scales: key0 (in, value, out), key1 (in, value, out)
            vec![
                0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 2.0, 0.0,
                0.0, 0.0,
            ],
            "VEC3",
            6,
            None,
        ),
        (vec![1.0, 2.0], "SCALAR", 2, Some((1.0, 2.0))), // 5: times 1..2
        (vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, H, H], "VEC4", 2, None), // 6: linear rotations
    ];
    let mut bin = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    for (i, (data, ty, count, minmax)) in parts.iter().enumerate() {
        let bytes = f32s(data);
        views.push(format!(
            r#"{{"buffer":0,"byteOffset":{},"byteLength":{}}}"#,
            bin.len(),
            bytes.len()
        ));
        bin.extend(bytes);
        let mm = minmax.map_or(String::new(), |(a, b)| {
            format!(r#","min":[{a}],"max":[{b}]"#)
        });
        accessors.push(format!(
            r#"{{"bufferView":{i},"componentType":5126,"count":{count},"type":"{ty}"{mm}}}"#
        ));
    }
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bin)
    );
    format!(
        r#"{{
  "asset": {{"version": "2.0"}},
  "nodes": [
    {{"name": "child", "translation": [0, 2, 0]}},
    {{"name": "root", "translation": [0, 1, 0], "children": [0]}}
  ],
  "skins": [{{"joints": [0, 1]}}],
  "buffers": [{{"byteLength": {len}, "uri": "{uri}"}}],
  "bufferViews": [{views}],
  "accessors": [{accessors}],
  "animations": [
    {{"name": "A",
      "samplers": [
        {{"input": 0, "output": 2, "interpolation": "LINEAR"}},
        {{"input": 1, "output": 3, "interpolation": "STEP"}},
        {{"input": 0, "output": 4, "interpolation": "CUBICSPLINE"}}
      ],
      "channels": [
        {{"sampler": 0, "target": {{"node": 1, "path": "translation"}}}},
        {{"sampler": 1, "target": {{"node": 0, "path": "rotation"}}}},
        {{"sampler": 2, "target": {{"node": 0, "path": "scale"}}}}
      ]}},
    {{"samplers": [{{"input": 5, "output": 6}}],
      "channels": [{{"sampler": 0, "target": {{"node": 0, "path": "rotation"}}}}]}}
  ]
}}"#,
        len = bin.len(),
        views = views.join(","),
        accessors = accessors.join(","),
    )
}

fn close_v(a: Vec3, b: Vec3) {
    assert!((a - b).abs().max_element() < 1e-5, "{a:?} vs {b:?}");
}

fn close_q(a: Quat, b: Quat) {
    assert!(a.dot(b).abs() > 1.0 - 1e-6, "{a:?} vs {b:?}");
}

#[test]
fn tiny_gltf_resampled() {
    let opts = ImportOptions {
        sample_rate: Some(4.0),
        ..Default::default()
    };
    let clips = gltf_import::load_bytes(tiny_gltf().as_bytes(), None, &opts).unwrap();
    assert_eq!(clips.len(), 2);
    let a = &clips[0];
    assert_eq!(a.name, "A");
    assert_eq!(clips[1].name, "animation1");
    // Skin lists the child first; the importer puts the parent first.
    let names: Vec<&str> = a.skeleton.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["root", "child"]);
    assert_eq!(a.skeleton.joints[1].parent, Some(0));
    assert_eq!(a.skeleton.joints[0].parent, None);
    assert_eq!(a.sample_rate, 4.0);
    assert_eq!(a.num_samples, 5, "1 s at 4 Hz");
    let mut c = a.clone();
    c.validate().unwrap();

    // LINEAR translation on root: 0 -> 10 over 1 s.
    close_v(a.tracks[0].translations[1], Vec3::new(2.5, 0.0, 0.0));
    close_v(a.tracks[0].translations[4], Vec3::new(10.0, 0.0, 0.0));
    // Root rotation/scale untouched: rest values.
    assert!(a.tracks[0].rotations.iter().all(|q| *q == Quat::IDENTITY));
    // STEP rotation on child: keys at 0, 0.5, 1 -> identity, Rz(90), Rz(180).
    close_q(a.tracks[1].rotations[1], Quat::IDENTITY);
    close_q(a.tracks[1].rotations[2], Quat::from_xyzw(0.0, 0.0, H, H));
    close_q(a.tracks[1].rotations[3], Quat::from_xyzw(0.0, 0.0, H, H));
    close_q(
        a.tracks[1].rotations[4],
        Quat::from_xyzw(0.0, 0.0, 1.0, 0.0),
    );
    // Child translation untouched: rest (0, 2, 0).
    close_v(a.tracks[1].translations[2], Vec3::new(0.0, 2.0, 0.0));
    // CUBICSPLINE scale, v0 = 1, out-tangent b0 = (3,0,0), v1 = 2, in-tangent a1 = 0, td = 1.
    // s = 0.5: h00 = .5, h10 = .125, h01 = .5 -> x = .5 + .375 + 1 = 1.875, y = .5 + 1 = 1.5.
    close_v(a.tracks[1].scales[2], Vec3::new(1.875, 1.5, 1.5));
    // s = 0.25: h00 = .84375, h10 = .140625, h01 = .15625 -> x = 1.578125, y = 1.15625.
    close_v(a.tracks[1].scales[1], Vec3::new(1.578125, 1.15625, 1.15625));
    close_v(a.tracks[1].scales[4], Vec3::splat(2.0));

    // Second animation: keys at 1 s and 2 s -> the clip covers [1, 2]; LINEAR rotation is a
    // slerp from identity to Rz(90): Rz(45) half-way.
    let b = &clips[1];
    assert_eq!(b.num_samples, 5);
    let s = 22.5f32.to_radians();
    close_q(
        b.tracks[1].rotations[2],
        Quat::from_xyzw(0.0, 0.0, s.sin(), s.cos()),
    );
    close_q(b.tracks[1].rotations[0], Quat::IDENTITY);
    // Untouched channels in this animation hold the rest pose (root translation (0, 1, 0)).
    close_v(b.tracks[0].translations[3], Vec3::new(0.0, 1.0, 0.0));
    let bind = b.skeleton.bind_pose.as_ref().unwrap();
    close_v(bind[0].translation, Vec3::new(0.0, 1.0, 0.0));
    close_v(bind[1].translation, Vec3::new(0.0, 2.0, 0.0));
}

#[test]
fn default_rate_is_30_and_load_names_clips() {
    let dir = std::env::temp_dir().join(format!("animcomp-gltf-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("tiny.gltf");
    std::fs::write(&p, tiny_gltf()).unwrap();
    let clips = load(
        &p,
        &ImportOptions {
            unit_scale: 100.0,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(clips.len(), 2);
    assert_eq!(clips[0].clip.name, "tiny:A");
    assert_eq!(clips[0].units, "m");
    assert_eq!(clips[0].clip.sample_rate, 30.0);
    assert_eq!(clips[0].clip.num_samples, 31);
    // unit_scale applies to tracks and bind pose.
    close_v(
        clips[0].clip.tracks[0].translations[30],
        Vec3::new(1000.0, 0.0, 0.0),
    );
    close_v(
        clips[0].clip.skeleton.bind_pose.as_ref().unwrap()[1].translation,
        Vec3::new(0.0, 200.0, 0.0),
    );

    std::fs::write(
        &p,
        tiny_gltf().replace("\"node\": 1, \"path\"", "\"node\": 7, \"path\""),
    )
    .unwrap();
    let e = load(&p, &ImportOptions::default())
        .map(|c| c.len())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(&format!("{}: ", p.display())) && !e.contains('\n'),
        "{e}"
    );
    std::fs::write(&p, tiny_gltf().replace("\"count\":6", "\"count\":5")).unwrap();
    let e = load(&p, &ImportOptions::default())
        .map(|c| c.len())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("animation 0") && e.contains("2 keys but 5 output values"),
        "{e}"
    );
    // Unknown interpolation name: an error, not a panic.
    let bad = tiny_gltf().replace("\"STEP\"", "\"STEPPY\"");
    assert!(bad.contains("STEPPY"));
    std::fs::write(&p, bad).unwrap();
    let e = load(&p, &ImportOptions::default())
        .map(|c| c.len())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(&format!("{}: ", p.display())) && e.contains("interpolation"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

use crate::common;

#[test]
fn mutated_files_never_panic() {
    let mut rng = common::Rng::new(0x61F);
    let seed = tiny_gltf();
    let opts = ImportOptions {
        sample_rate: Some(8.0),
        ..Default::default()
    };
    for _ in 0..3000 {
        let text = common::mutate(&seed, &mut rng);
        if let Ok(clips) = gltf_import::load_bytes(text.as_bytes(), None, &opts) {
            for mut c in clips {
                let _ = c.validate();
            }
        }
    }
}
