//! Golden BVH tests: a small file written here, expected transforms computed by hand.

use animcomp::math::{Quat, Vec3};
use animcomp_import::{bvh, load, ImportOptions};

use crate::common::fixtures::BVH_GOLDEN as GOLDEN;

const H: f32 = std::f32::consts::FRAC_1_SQRT_2;

fn assert_quat(got: Quat, want: Quat) {
    // q and -q are the same rotation.
    let d = got.dot(want).abs();
    assert!(d > 1.0 - 1e-5, "got {got:?}, want {want:?}");
}

fn assert_vec(got: Vec3, want: Vec3) {
    assert!(
        (got - want).abs().max_element() < 1e-4,
        "got {got:?}, want {want:?}"
    );
}

#[test]
fn golden_hierarchy_and_rate() {
    let mut c = bvh::parse(GOLDEN, "golden").unwrap();
    c.validate().unwrap();
    assert_eq!(c.name, "golden");
    let names: Vec<&str> = c.skeleton.joints.iter().map(|j| j.name.as_str()).collect();
    assert_eq!(
        names,
        ["Hips", "Chest", "Arm", "Leg"],
        "End Sites are not joints"
    );
    let parents: Vec<Option<u32>> = c.skeleton.joints.iter().map(|j| j.parent).collect();
    assert_eq!(parents, [None, Some(0), Some(1), Some(0)]);
    assert_eq!(c.sample_rate, 30.0, "0.0333333 s snaps to exactly 30 Hz");
    assert_eq!(c.num_samples, 2);
    for j in &c.skeleton.joints {
        assert_eq!(j.precision, 0.01);
        assert_eq!(j.shell_distance, 3.0);
    }
    let bind = c.skeleton.bind_pose.as_ref().unwrap();
    assert_vec(bind[0].translation, Vec3::new(1.0, 2.0, 3.0));
    assert_vec(bind[3].translation, Vec3::new(-3.0, -4.0, 0.0));
    assert_eq!(bind[2].rotation, Quat::IDENTITY);
}

#[test]
fn golden_transforms_frame0() {
    let c = bvh::parse(GOLDEN, "golden").unwrap();
    // Hips: Zrot 90, Yrot 0, Xrot 90 in listed order: Rz(90)·Rx(90). Hamilton product of
    // (w=√½, z=√½) and (w=√½, x=√½): w = ½, v = ½(1,0,0) + ½(0,0,1) + ½(0,1,0) = (½,½,½).
    let hips = c.tracks[0].get(0);
    assert_quat(hips.rotation, Quat::from_xyzw(0.5, 0.5, 0.5, 0.5));
    // Independent check of the order: Rx(90) keeps X, then Rz(90) takes X to Y.
    assert_vec(hips.rotation * Vec3::X, Vec3::Y);
    // Position channels replace OFFSET (1, 2, 3).
    assert_vec(hips.translation, Vec3::new(10.0, 20.0, 30.0));
    assert_vec(hips.scale, Vec3::ONE);

    // Chest: X then Z listed: Rx(90)·Rz(90); Rz takes X to Y, Rx takes Y to Z.
    let chest = c.tracks[1].get(0);
    assert_quat(chest.rotation, Quat::from_xyzw(0.5, -0.5, 0.5, 0.5));
    assert_vec(chest.rotation * Vec3::X, Vec3::Z);
    assert_vec(chest.translation, Vec3::new(0.0, 10.0, 0.0));

    // Arm: interleaved 6 channels: X rot 0, Y pos 7, Z rot 0, X pos 8, Z pos 9, Y rot 30.
    let arm = c.tracks[2].get(0);
    let s = 15f32.to_radians();
    assert_quat(arm.rotation, Quat::from_xyzw(0.0, s.sin(), 0.0, s.cos()));
    assert_vec(arm.translation, Vec3::new(8.0, 7.0, 9.0));

    let leg = c.tracks[3].get(0);
    assert_quat(leg.rotation, Quat::IDENTITY);
    assert_vec(leg.translation, Vec3::new(-3.0, -4.0, 0.0));
}

#[test]
fn golden_transforms_frame1() {
    let c = bvh::parse(GOLDEN, "golden").unwrap();
    // Hips: Yrot 4.5e1 = 45 degrees.
    let hips = c.tracks[0].get(1);
    let s = 22.5f32.to_radians();
    assert_quat(hips.rotation, Quat::from_xyzw(0.0, s.sin(), 0.0, s.cos()));
    assert_vec(hips.translation, Vec3::ZERO);
    // Chest: Zrot -90 = (0, 0, -√½, √½): takes X to -Y.
    let chest = c.tracks[1].get(1);
    assert_quat(chest.rotation, Quat::from_xyzw(0.0, 0.0, -H, H));
    assert_vec(chest.rotation * Vec3::X, -Vec3::Y);
    // Arm: Xrot 180 = (1, 0, 0, 0); position (2, 1, 3).
    let arm = c.tracks[2].get(1);
    assert_quat(arm.rotation, Quat::from_xyzw(1.0, 0.0, 0.0, 0.0));
    assert_vec(arm.translation, Vec3::new(2.0, 1.0, 3.0));
    // Leg: Z 0, X 90, Y 90 listed: Rx(90)·Ry(90); Ry takes X to -Z, Rx takes -Z to Y.
    let leg = c.tracks[3].get(1);
    assert_quat(leg.rotation, Quat::from_xyzw(0.5, 0.5, 0.5, 0.5));
    assert_vec(leg.rotation * Vec3::X, Vec3::Y);
}

#[test]
fn frame_time_snapping() {
    assert_eq!(bvh::rate_from_frame_time(0.016667), 60.0);
    assert_eq!(bvh::rate_from_frame_time(0.0083333), 120.0);
    assert_eq!(bvh::rate_from_frame_time(0.01), 100.0);
    // Not near an integer rate: kept as is.
    let r = bvh::rate_from_frame_time(0.03);
    assert!((r - 33.333_332).abs() < 1e-3, "{r}");
}

fn with_line(line: usize, replacement: &str) -> String {
    GOLDEN
        .split("\r\n")
        .enumerate()
        .map(|(i, l)| if i + 1 == line { replacement } else { l })
        .collect::<Vec<_>>()
        .join("\n")
}

fn error_line(text: &str) -> (Option<usize>, String) {
    let e = bvh::parse(text, "bad").unwrap_err();
    (e.line, e.message)
}

#[test]
fn malformed_files_report_the_right_line() {
    let (l, m) = error_line(&with_line(8, "\t\tOFFSET 0 ten 0"));
    assert_eq!(l, Some(8), "{m}");
    assert!(m.contains("ten"), "{m}");

    let (l, m) = error_line(&with_line(
        9,
        "\t\tCHANNELS 3 Xrotation Wrotation Zrotation",
    ));
    assert_eq!(l, Some(9), "{m}");
    assert!(m.contains("Wrotation"), "{m}");

    // Second frame has one value too few.
    let (l, m) = error_line(&with_line(34, "0 0 0 0 45 0 0 0 -90 180 1 0 2 3 0 0 90"));
    assert_eq!(l, Some(34), "{m}");
    assert!(m.contains("17 values") && m.contains("18 channels"), "{m}");

    // Declares 3 frames, has 2.
    let (l, m) = error_line(&with_line(31, "Frames: 3"));
    assert!(m.contains("2 of the 3 frames"), "{m}");
    assert!(l.is_some());

    let (l, m) = error_line(&with_line(5, "\tCHANNELS 6 Xposition Yposition"));
    // The 6-channel count swallows "JOINT" on line 6 as a channel name.
    assert_eq!(l, Some(6), "{m}");

    let (l, m) = error_line(&with_line(32, "Frame Time: -1"));
    assert_eq!(l, Some(32), "{m}");

    let (l, m) = error_line(&with_line(
        33,
        "10 20 30 90 0 nan 90 0 90 0 7 0 8 9 30 0 0 0",
    ));
    assert_eq!(l, Some(33), "{m}");

    let (l, _) = error_line("");
    assert_eq!(l, Some(1));
    let (l, m) = error_line("HIERARCHY\nROOT A\n{\nOFFSET 0 0 0\n");
    assert_eq!(l, Some(4), "{m}");
    assert!(m.contains("file ends"), "{m}");
}

#[test]
fn load_error_display_is_path_colon_line() {
    let dir = std::env::temp_dir().join(format!("animcomp-import-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.bvh");
    std::fs::write(&path, with_line(8, "\t\tOFFSET 0 ten 0")).unwrap();
    let e = load(&path, &ImportOptions::default()).unwrap_err();
    let s = e.to_string();
    assert!(s.starts_with(&format!("{}:8: ", path.display())), "{s}");
    assert!(!s.contains('\n'));
    assert_eq!(e.line(), Some(8));

    let good = dir.join("good.BVH");
    std::fs::write(&good, GOLDEN).unwrap();
    let opts = ImportOptions {
        unit_scale: 0.01,
        ..Default::default()
    };
    let clips = load(&good, &opts).unwrap();
    assert_eq!(clips.len(), 1);
    assert_eq!(clips[0].clip.name, "good");
    assert_eq!(clips[0].error_threshold, None);
    assert_vec(
        clips[0].clip.tracks[0].translations[0],
        Vec3::new(0.1, 0.2, 0.3),
    );
    assert_vec(
        clips[0].clip.skeleton.bind_pose.as_ref().unwrap()[0].translation,
        Vec3::new(0.01, 0.02, 0.03),
    );
    let missing = load(&dir.join("nope.bvh"), &opts).unwrap_err();
    assert!(missing.to_string().contains("nope.bvh"));
    let unsupported = load(&dir.join("x.obj"), &opts).unwrap_err();
    assert!(unsupported.to_string().contains("unsupported"));
    std::fs::remove_dir_all(&dir).ok();
}

use crate::common;

#[test]
fn mutated_files_never_panic() {
    let mut rng = common::Rng::new(0xB5B5);
    let mut ok = 0;
    for _ in 0..5000 {
        let text = common::mutate(GOLDEN, &mut rng);
        match bvh::parse(&text, "m") {
            Ok(mut c) => {
                ok += 1;
                let _ = c.validate();
            }
            Err(e) => assert!(!e.message.contains('\n') && e.line.is_some(), "{e:?}"),
        }
    }
    println!("{ok} of 5000 mutated files still parsed");
}
