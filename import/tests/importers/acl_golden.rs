//! Golden tests for the `.acl.sjson` importer: tiny clips written here, values checked by hand.

use animcomp::math::{Quat, Vec3};
use animcomp_import::{acl, load, ImportOptions};

use crate::common::fixtures::{ACL_V1 as V1, ACL_V5 as V5};

#[test]
fn v1_clip_values() {
    let (c, thr) = acl::parse(V1, "").unwrap();
    assert_eq!(thr, Some(0.05));
    assert_eq!(c.name, "tiny", "clip.name is used when no name is given");
    assert_eq!(c.sample_rate, 24.0);
    assert_eq!(c.num_samples, 3);
    let names: Vec<&str> = c.skeleton.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(names, ["root", "child", "second_root"]);
    let parents: Vec<Option<u32>> = c.skeleton.joints.iter().map(|j| j.parent).collect();
    assert_eq!(parents, [None, Some(0), None], "multi-root");
    let shells: Vec<f32> = c.skeleton.joints.iter().map(|j| j.shell_distance).collect();
    assert_eq!(shells, [2.5, 4.0, 3.0]);
    assert!(c.skeleton.joints.iter().all(|j| j.precision == 0.05));

    // root: explicit tracks, including the out-of-range 1e25 (imported as is).
    assert_eq!(c.tracks[0].translations[1], Vec3::new(11.5, -10.0, 0.0));
    assert_eq!(c.tracks[0].translations[2].x, 1.0e25);
    assert_eq!(c.tracks[0].scales[2], Vec3::new(0.5, 1.0, 1.0));
    // child: rotations given, translation and scale missing -> bind values.
    assert_eq!(
        c.tracks[1].rotations[1],
        Quat::from_xyzw(1.0, 0.0, 0.0, 0.0)
    );
    assert_eq!(
        c.tracks[1].rotations[2],
        Quat::from_xyzw(0.0, 0.0, 1.0, 0.0)
    );
    assert!(c.tracks[1]
        .translations
        .iter()
        .all(|t| *t == Vec3::new(1.0, 2.0, 3.0)));
    assert!(c.tracks[1].scales.iter().all(|s| *s == Vec3::splat(2.0)));
    // second_root: no track at all -> its bind pose.
    assert!(c.tracks[2]
        .translations
        .iter()
        .all(|t| *t == Vec3::new(0.0, 0.0, -7.5)));
    assert!(c.tracks[2].rotations.iter().all(|q| *q == Quat::IDENTITY));
    let bind = c.skeleton.bind_pose.as_ref().unwrap();
    let h = std::f32::consts::FRAC_1_SQRT_2;
    assert!((bind[1].rotation.y - h).abs() < 1e-7 && (bind[1].rotation.w - h).abs() < 1e-7);

    // Validation rejects the 1e25 value with a clear error, nothing crashes.
    let mut bad = c.clone();
    assert!(matches!(
        bad.validate(),
        Err(animcomp::Error::NonFiniteValue {
            joint: 0,
            sample: 2,
            ..
        })
    ));
    let mut good = c;
    good.tracks[0].translations[2].x = 12.0;
    good.validate().unwrap();
}

#[test]
fn v5_binary_exact() {
    let (c, thr) = acl::parse(V5, "file_name").unwrap();
    assert_eq!(c.name, "file_name");
    assert_eq!(thr, Some(0.02));
    assert_eq!(
        c.skeleton.joints[0].shell_distance, 3.0,
        "0x4008000000000000 is 3.0"
    );
    assert_eq!(c.skeleton.joints[1].parent, Some(0));
    assert_eq!(
        c.skeleton.bind_pose.as_ref().unwrap()[1].translation,
        Vec3::new(1.0, 0.0, -2.0)
    );
    assert_eq!(
        c.tracks[1].translations,
        [Vec3::new(1.5, 0.0, 0.0), Vec3::new(0.0, 10.0, 0.0)]
    );
    assert_eq!(c.tracks[0].translations, [Vec3::ZERO, Vec3::ZERO]);
    assert!(c.skeleton.joints.iter().all(|j| j.precision == 0.02));
}

#[test]
fn malformed_clips_name_the_field_and_line() {
    // Wrong sample count on the root's translations (line 51 opens that array).
    let bad = V1.replace("[ 11.5, -1.0e1, 0.0 ]\n", "");
    let e = acl::parse(&bad, "x").unwrap_err();
    assert!(
        e.message.contains("tracks[1].translations") && e.message.contains("2 samples"),
        "{e}"
    );
    assert_eq!(
        e.line,
        Some(
            V1.lines()
                .position(|l| l.contains("translations ="))
                .unwrap()
                + 1
        )
    );

    let bad = V1.replace("parent = \"root\"", "parent = \"nobody\"");
    let e = acl::parse(&bad, "x").unwrap_err();
    assert!(
        e.message.contains("bones[1].parent") && e.message.contains("nobody"),
        "{e}"
    );
    assert_eq!(
        e.line,
        Some(
            V1.lines()
                .position(|l| l.contains("name = \"child\", parent"))
                .unwrap()
                + 1
        )
    );

    let bad = V1.replace("[ 1.0, 0.0, 0.0, 0.0 ]", "[ 1.0, 0.0, 0.0 ]");
    let e = acl::parse(&bad, "x").unwrap_err();
    assert!(
        e.message.contains("tracks[0].rotations") && e.message.contains("expected 4 numbers"),
        "{e}"
    );

    let e = acl::parse(&V1.replace("num_samples = 3", "num_samples = 0"), "x").unwrap_err();
    assert!(e.message.contains("clip.num_samples"), "{e}");
    let e = acl::parse(&V1.replace("version = 1", "version = 9"), "x").unwrap_err();
    assert!(e.message.contains("version"), "{e}");
    assert_eq!(e.line, Some(1));
    let e = acl::parse(
        &V1.replace("name = \"root\"\n", "name = \"root\"\n\t\tname2 = [\n"),
        "x",
    )
    .unwrap_err();
    assert!(e.line.is_some(), "{e}");
    let e = acl::parse(&V5.replace("4008000000000000", "xyz"), "x").unwrap_err();
    assert!(e.message.contains("bones[0].vertex_distance"), "{e}");

    // Through `load`: "path:line: field ...".
    let dir = std::env::temp_dir().join(format!("animcomp-acl-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("broken.acl.sjson");
    std::fs::write(&p, V1.replace("parent = \"root\"", "parent = \"nobody\"")).unwrap();
    let msg = load(&p, &ImportOptions::default()).unwrap_err().to_string();
    assert!(
        msg.starts_with(&format!("{}:", p.display())) && msg.contains(": field bones[1].parent"),
        "{msg}"
    );
    let p = dir.join("ok.acl.sjson");
    std::fs::write(&p, V1).unwrap();
    let clips = load(
        &p,
        &ImportOptions {
            unit_scale: 2.0,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(clips[0].clip.name, "ok");
    assert_eq!(clips[0].error_threshold, Some(0.05));
    assert_eq!(
        clips[0].clip.tracks[2].translations[0],
        Vec3::new(0.0, 0.0, -15.0)
    );
    std::fs::remove_dir_all(&dir).ok();
}

use crate::common;

#[test]
fn mutated_files_never_panic() {
    let mut rng = common::Rng::new(0xAC1);
    for seed in [V1, V5] {
        for _ in 0..3000 {
            let text = common::mutate(seed, &mut rng);
            if let Ok((mut c, _)) = acl::parse(&text, "m") {
                let _ = c.validate();
            }
        }
    }
}
