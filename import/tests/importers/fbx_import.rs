//! FBX import: a hand-written ASCII FBX (always run) for pre-rotation, sampling range, key times
//! off the grid and bad files; then every stack of every file in `shared/data/fbx` (skipped when
//! absent) imported and compressed within precision, and the CMU 01_01 FBX/BVH cross-check.

use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::math::Transform;
use animcomp::metric::Metric;
use animcomp::offline::CompressSettings;
use animcomp::{compress_with_curves, AlignedBlob, RawClip};
use animcomp_import::fbx::{self, FbxOptions, FbxUnits};
use animcomp_import::{load, ImportOptions};
use glam::Vec3;
use std::path::{Path, PathBuf};

pub(crate) use fixture::{fixture, SEC};

#[path = "fbx_fixture.rs"]
mod fixture;

fn world(clip: &RawClip, i: usize) -> Vec<Transform> {
    let mut w: Vec<Transform> = Vec::with_capacity(clip.num_joints());
    for (j, t) in clip.tracks.iter().enumerate() {
        let l = t.get(i);
        w.push(match clip.skeleton.parent(j) {
            Some(p) => Transform::mul(&w[p], &l),
            None => l,
        });
    }
    w
}

fn close(a: Vec3, b: Vec3, tol: f32) -> bool {
    (a - b).length() <= tol
}

#[test]
fn fbx_fixture_pre_rotation_and_world_positions() {
    let text = fixture(0, SEC, SEC, true, true);
    let file = fbx::load_bytes(text.as_bytes(), &FbxOptions::default()).expect("fixture loads");
    assert_eq!(file.takes.len(), 1);
    assert_eq!(file.frame_rate, 30.0);
    assert_eq!(file.units, "cm");
    let clip = &file.takes[0].clip;
    assert_eq!(clip.name, "walk");
    let names: Vec<&str> = clip
        .skeleton
        .joints
        .iter()
        .map(|j| j.name.as_str())
        .collect();
    assert_eq!(names, ["hip", "knee", "foot"]);
    assert_eq!(clip.skeleton.parent(1), Some(0));
    assert_eq!(clip.skeleton.parent(2), Some(1));
    assert_eq!(clip.num_samples, 31, "1 s at 30 fps");
    clip.clone().validate().unwrap();
    // Foot world position: knee at (0, 5, 0), foot 5 below it turned by 30° pre-rotation plus the
    // keyed angle (0° at t = 0, 90° at t = 1 s, linear).
    for (i, deg) in [(0usize, 30.0f32), (15, 75.0), (30, 120.0)] {
        let w = world(clip, i);
        let a = deg.to_radians();
        let want = Vec3::new(5.0 * a.sin(), 5.0 - 5.0 * a.cos(), 0.0);
        assert!(
            close(w[2].translation, want, 1e-3),
            "sample {i}: foot at {:?}, want {want:?}",
            w[2].translation
        );
        assert!(close(w[1].translation, Vec3::new(0.0, 5.0, 0.0), 1e-4));
    }
    // Metres: the same motion a hundredth the size.
    let m = fbx::load_bytes(
        text.as_bytes(),
        &FbxOptions {
            units: FbxUnits::Metres,
            ..Default::default()
        },
    )
    .unwrap();
    let w = world(&m.takes[0].clip, 30);
    let a = 120f32.to_radians();
    let want = Vec3::new(0.05 * a.sin(), 0.05 - 0.05 * a.cos(), 0.0);
    assert!(
        close(w[2].translation, want, 1e-5),
        "{:?}",
        w[2].translation
    );
    assert_eq!(m.units, "m");
    // Resampling at 10 Hz samples the curves themselves.
    let r = fbx::load_bytes(
        text.as_bytes(),
        &FbxOptions {
            sample_rate: Some(10.0),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(r.takes[0].clip.num_samples, 11);
    assert_eq!(r.takes[0].clip.sample_rate, 10.0);
}

#[test]
fn fbx_fixture_sampling_range() {
    // Keys run to 1 s, the stack stops at 0.5 s: 16 samples, and a note says keys were left out.
    let text = fixture(0, SEC / 2, SEC, true, true);
    let f = fbx::load_bytes(text.as_bytes(), &FbxOptions::default()).unwrap();
    assert_eq!(f.takes[0].clip.num_samples, 16);
    assert!(
        f.takes[0]
            .notes
            .iter()
            .any(|n| n.contains("past the stack's end")),
        "{:?}",
        f.takes[0].notes
    );
    // Start = stop = 0: sampled over the keys (0 to 1 s).
    let text = fixture(0, 0, SEC, true, true);
    let f = fbx::load_bytes(text.as_bytes(), &FbxOptions::default()).unwrap();
    assert_eq!(f.takes[0].clip.num_samples, 31);
    assert!(f.takes[0].notes.iter().any(|n| n.contains("over its keys")));
    // Stop and last key a tick before the 1 s frame: still 31 samples, and the last one holds
    // the last key's value (90° + 30°).
    let text = fixture(0, SEC - 1, SEC - 1, true, true);
    let f = fbx::load_bytes(text.as_bytes(), &FbxOptions::default()).unwrap();
    let clip = &f.takes[0].clip;
    assert_eq!(clip.num_samples, 31);
    let a = 120f32.to_radians();
    let want = Vec3::new(5.0 * a.sin(), 5.0 - 5.0 * a.cos(), 0.0);
    assert!(close(world(clip, 30)[2].translation, want, 1e-3));
}

#[test]
fn fbx_bad_files_are_clear_errors_naming_the_file() {
    let dir = tempdir();
    let good = fixture(0, SEC, SEC, true, true);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "truncated.fbx",
            good.as_bytes()[..good.len() / 3].to_vec(),
            "",
        ),
        ("text.fbx", b"hello, this is not an FBX file\n".to_vec(), ""),
        ("empty.fbx", vec![], "empty"),
        (
            "binary_truncated.fbx",
            b"Kaydara FBX Binary  \x00\x1a\x00\xe8\x1c\x00\x00\x10\x00".to_vec(),
            "",
        ),
        (
            "no_anim.fbx",
            fixture(0, SEC, SEC, false, true).into_bytes(),
            "no animation",
        ),
        (
            "no_skeleton.fbx",
            fixture(0, SEC, SEC, true, false).into_bytes(),
            "no skeleton",
        ),
    ];
    for (name, bytes, want) in cases {
        let path = dir.join(name);
        std::fs::write(&path, &bytes).unwrap();
        let e = load(&path, &ImportOptions::default())
            .expect_err(name)
            .to_string();
        assert!(
            e.contains(name),
            "{name}: error does not name the file: {e}"
        );
        assert!(e.contains(want), "{name}: {e}");
        assert!(!e.contains('\n'), "{name}: one line: {e}");
    }
    // Every prefix of the fixture: an error or a clip, never a panic or a hang.
    let bytes = good.as_bytes();
    for cut in (0..bytes.len()).step_by(97) {
        let _ = fbx::load_bytes(&bytes[..cut], &FbxOptions::default());
    }
}

fn tempdir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("animcomp_fbx_test_{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data")
}

fn fbx_files() -> Option<Vec<PathBuf>> {
    let root = data_dir().join("fbx");
    if !root.is_dir() {
        println!("SKIP: {} not found", root.display());
        return None;
    }
    let mut out = Vec::new();
    fn walk(p: &Path, out: &mut Vec<PathBuf>) {
        let mut e: Vec<PathBuf> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        e.sort();
        for p in e {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("fbx")) {
                out.push(p);
            }
        }
    }
    walk(&root, &mut out);
    Some(out)
}

/// Compresses a take (joints and curves), decodes every sample and returns
/// (blob bytes, raw bytes, max joint error / precision, max curve error / precision).
fn measure(clip: &RawClip, curves: &[animcomp::Curve]) -> (usize, usize, f32, f32, f32) {
    let blob = compress_with_curves(clip, curves, &CompressSettings::default())
        .unwrap_or_else(|e| panic!("{}: {e}", clip.name));
    let aligned = AlignedBlob::from_bytes(&blob);
    let bind = crate::common::bind_floats(clip);
    let opts = DecompressOptions {
        bind_pose: bind.as_deref(),
        ..Default::default()
    };
    let mut d = Decompressor::new(aligned.as_bytes(), &opts).expect("valid blob");
    let nj = clip.num_joints();
    let (mut local, mut scratch, mut errs) = (
        vec![Transform::IDENTITY; nj],
        vec![Transform::IDENTITY; nj],
        vec![0.0f32; nj],
    );
    let mut cvals = vec![0.0f32; curves.len()];
    let (mut worst, mut worst_abs, mut worst_curve) = (0.0f32, 0.0f32, 0.0f32);
    let metric = (nj > 0).then(|| Metric::new(clip));
    for i in 0..clip.num_samples {
        if let Some(metric) = &metric {
            d.pose_at_sample(i as u32, &mut local).unwrap();
            metric.errors_at(i, &local, &mut scratch, &mut errs);
            for (e, j) in errs.iter().zip(&clip.skeleton.joints) {
                let e = if e.is_nan() { f32::INFINITY } else { *e };
                worst = worst.max(e / j.precision);
                worst_abs = worst_abs.max(e);
            }
        }
        if !curves.is_empty() {
            d.seek_sample(i as u32);
            d.sample_curves(&mut cvals).unwrap();
            for (c, v) in curves.iter().zip(&cvals) {
                worst_curve = worst_curve.max((v - c.values[i]).abs() / c.precision);
            }
        }
    }
    let raw = clip.raw_size_bytes() + curves.len() * clip.num_samples * 4;
    (blob.len(), raw, worst, worst_abs, worst_curve)
}

#[test]
fn fbx_shared_every_stack_within_precision() {
    let Some(files) = fbx_files() else { return };
    assert!(files.len() >= 10, "{} FBX files", files.len());
    let mut stacks = 0;
    println!(
        "{:<50} {:<34} {:>6} {:>6} {:>7} {:>7} {:>9} {:>10}",
        "file", "stack", "joints", "curves", "samples", "ratio", "max err", "curve err"
    );
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let file = fbx::load_bytes(&bytes, &FbxOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert!(!file.takes.is_empty());
        for t in &file.takes {
            let mut clip = t.clip.clone();
            assert!(clip.num_joints() > 0 || !t.curves.is_empty());
            if clip.num_joints() > 0 {
                clip.validate()
                    .unwrap_or_else(|e| panic!("{}: {}: {e}", f.display(), clip.name));
            }
            let mut curves = t.curves.clone();
            // Morph weights at 0.01 cm of vertex motion, as `--morph-position-precision 0.01`.
            animcomp::offline::curves::apply_position_precision(&mut curves, 0.01);
            let (size, raw, rel, abs, rel_curve) = measure(&clip, &curves);
            let rel_name = f.strip_prefix(data_dir().join("fbx")).unwrap();
            println!(
                "{:<50} {:<34} {:>6} {:>6} {:>7} {:>7.2} {:>9.5} {:>9.3}x",
                rel_name.display(),
                clip.name,
                clip.num_joints(),
                curves.len(),
                clip.num_samples,
                raw as f64 / size as f64,
                abs,
                rel_curve
            );
            assert!(
                rel <= 1.0 + 1e-3,
                "{}: {}: joint error {rel} x precision",
                f.display(),
                clip.name
            );
            assert!(
                rel_curve <= 1.0 + 1e-3,
                "{}: {}: curve error {rel_curve} x precision",
                f.display(),
                clip.name
            );
            stacks += 1;
        }
    }
    println!("{} files, {stacks} stacks", files.len());
}

/// Object-space joint positions of every sample, by joint name (a repeated name gets "1"
/// appended on its second occurrence: the BVH names Spine, Spine, Neck, Neck where Blender wrote
/// Spine, Spine1, Neck, Neck1).
fn world_positions(clip: &RawClip) -> Vec<(String, Vec<Vec3>)> {
    let mut out: Vec<(String, Vec<Vec3>)> = Vec::new();
    for j in &clip.skeleton.joints {
        let mut name = j.name.clone();
        if out.iter().any(|(n, _)| *n == name) {
            name.push('1');
        }
        out.push((name, Vec::with_capacity(clip.num_samples)));
    }
    for i in 0..clip.num_samples {
        for (j, w) in world(clip, i).iter().enumerate() {
            out[j].1.push(w.translation);
        }
    }
    out
}

/// `isaacgymenvs-cmu/01_01_cmu.fbx` is Blender's conversion of `highrate/cmu_01_01.bvh` (same
/// take, skeleton and names). Blender read the BVH numbers as metres and wrote centimetres, and
/// its armature's -90° X rotation turns its Z-up into the FBX's Y-up: so the FBX imported in
/// centimetres, Y-up, must put every joint at 100 x its BVH position (BVH is Y-up too).
///
/// Compared over samples 1.. (sample 0 is the BVH's calibration pose, which the FBX's first key
/// does not hold for the limbs: up to 108 cm apart at the toes while the hips agree to 0.0003 cm;
/// printed, not asserted). Units: these centimetres are BVH units x 100, and a CMU BVH unit is
/// about 5.6 real cm, so 1 cm here is about 0.06 real cm. Two figures, two tolerances:
/// - joint positions relative to the hips (the pose, set by the rotation curves). Blender's
///   exporter thinned the rotation curves (linear keys, 2412–2747 of 2752 frames kept) and wrote
///   degrees as float32, so the pose matches to a fraction of a degree, not to float precision:
///   measured max 9.2 cm at a toe 1600 cm down a 6-joint chain from the hips (0.33°), mean 0.4 cm.
///   Tolerances: max 15 cm (0.5° at that reach) and mean 1 cm. A wrong rotation order, a missed
///   pre-rotation, a wrong axis conversion or a one-frame offset each give tens of centimetres
///   (the frame-to-frame motion of the hips alone is ~0.5 cm, and a one-frame shift of a walking
///   foot several cm, on every sample, which the mean catches).
/// - the hips' own position: its translation curves were thinned far more (733 of 2752 keys on
///   x), so it wanders up to 8.6 cm from the BVH; tolerance 10 cm (0.2 % of the 4500 cm walked).
#[test]
fn fbx_cmu_01_01_matches_its_bvh() {
    let fbx_path = data_dir().join("fbx/isaacgymenvs-cmu/01_01_cmu.fbx");
    let bvh_path = data_dir().join("highrate/cmu_01_01.bvh");
    if !fbx_path.is_file() || !bvh_path.is_file() {
        println!(
            "SKIP: {} or {} not found",
            fbx_path.display(),
            bvh_path.display()
        );
        return;
    }
    let f = load(&fbx_path, &ImportOptions::default()).unwrap();
    let b = load(&bvh_path, &ImportOptions::default()).unwrap();
    let (f, b) = (&f[0].clip, &b[0].clip);
    assert_eq!(f.sample_rate, 120.0);
    assert_eq!(f.num_samples, b.num_samples, "same frames");
    let fw = world_positions(f);
    let bw = world_positions(b);
    let get =
        |w: &[(String, Vec<Vec3>)], n: &str| w.iter().find(|(m, _)| m == n).map(|x| x.1.clone());
    let (fh, bh) = (get(&fw, "Hips").unwrap(), get(&bw, "Hips").unwrap());
    let mut matched = Vec::new();
    let (mut worst_rel, mut worst_joint, mut worst_hips, mut worst0) =
        (0.0f32, String::new(), 0.0f32, 0.0f32);
    let mut all = Vec::new();
    for (name, bp) in &bw {
        let Some(fp) = get(&fw, name) else {
            println!("not in the FBX: {name}");
            continue;
        };
        matched.push(name.clone());
        worst0 = worst0.max((fp[0] - bp[0] * 100.0).length());
        for i in 1..fp.len() {
            let d = ((fp[i] - fh[i]) - (bp[i] - bh[i]) * 100.0).length();
            all.push(d);
            if d > worst_rel {
                worst_rel = d;
                worst_joint = name.clone();
            }
        }
    }
    for i in 1..fh.len() {
        worst_hips = worst_hips.max((fh[i] - bh[i] * 100.0).length());
    }
    all.sort_by(f32::total_cmp);
    let p99 = all[(all.len() - 1) * 99 / 100];
    let mean = all.iter().map(|&d| d as f64).sum::<f64>() / all.len() as f64;
    println!(
        "CMU 01_01 FBX vs BVH x 100: {} joints x {} samples; relative to the hips max {worst_rel:.3} cm \
         ({worst_joint}), mean {mean:.3} cm, p99 {p99:.3} cm; hips max {worst_hips:.3} cm; \
         sample 0 max {worst0:.1} cm",
        matched.len(),
        f.num_samples - 1,
    );
    assert_eq!(matched.len(), 29, "joints matched by name: {matched:?}");
    assert!(
        worst_rel <= 15.0,
        "pose differs by {worst_rel} cm at {worst_joint}"
    );
    assert!(mean <= 1.0, "pose differs by {mean} cm on average");
    assert!(worst_hips <= 10.0, "hips differ by {worst_hips} cm");
}

/// The local tracks reproduce ufbx's own world-space evaluation of every joint: for every stack
/// of every shared file, at its first, middle and last sample, each joint's position composed
/// from the clip's local tracks equals `node_to_world` of the node of that name in the scene
/// ufbx evaluates at that time (same units and axes). This is where pre/post rotations, pivots,
/// rotation orders and the scale-inheritance modes of the files (Maya's segment scale
/// compensate in the IMVU rig, Blender's armature scale) are checked. Tolerance: 1e-5 of the
/// figure's size plus 1e-4 cm (f32 rounding through up to 16 levels).
#[test]
fn fbx_shared_local_tracks_reproduce_ufbx_world_positions() {
    let Some(files) = fbx_files() else { return };
    let mut checked = 0usize;
    let mut worst = (0.0f32, String::new());
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let file = fbx::load_bytes(&bytes, &FbxOptions::default()).unwrap();
        let opts = ufbx::LoadOpts {
            file_format: ufbx::FileFormat::Fbx,
            target_axes: ufbx::CoordinateAxes::right_handed_y_up(),
            target_unit_meters: 0.01,
            space_conversion: ufbx::SpaceConversion::TransformRoot,
            ..Default::default()
        };
        let scene = ufbx::load_memory(&bytes, opts).unwrap();
        for (si, take) in file.takes.iter().enumerate() {
            let clip = &take.clip;
            if clip.num_joints() == 0 {
                continue;
            }
            let stack = &scene.anim_stacks[si];
            let n = clip.num_samples;
            for i in [0, n / 2, n - 1] {
                // The time the importer sampled (its notes give the range).
                let t0 = if stack.time_end > stack.time_begin {
                    stack.time_begin
                } else {
                    take.notes
                        .iter()
                        .find_map(|l| l.split("from ").nth(1))
                        .and_then(|x| x.split(' ').next())
                        .and_then(|x| x.parse().ok())
                        .unwrap_or(0.0)
                };
                let t = t0 + i as f64 / clip.sample_rate as f64;
                let ev = ufbx::evaluate_scene(&scene, &stack.anim, t, Default::default()).unwrap();
                let w = world(clip, i);
                let size = crate::fbx_import::extent(&w);
                for (j, joint) in clip.skeleton.joints.iter().enumerate() {
                    let mut same = ev
                        .nodes
                        .iter()
                        .filter(|nd| nd.element.name.to_string() == joint.name);
                    let (Some(node), None) = (same.next(), same.next()) else {
                        continue; // a name several nodes share (renamed in the clip)
                    };
                    let m = &node.node_to_world;
                    let want = Vec3::new(m.m03 as f32, m.m13 as f32, m.m23 as f32);
                    let d = (w[j].translation - want).length();
                    assert!(
                        d <= 1e-5 * size + 1e-4,
                        "{}: {}: sample {i}: {} at {:?}, ufbx {:?}",
                        f.display(),
                        clip.name,
                        joint.name,
                        w[j].translation,
                        want
                    );
                    if d / size.max(1e-6) > worst.0 {
                        worst = (
                            d / size.max(1e-6),
                            format!("{}: {}", f.display(), joint.name),
                        );
                    }
                    checked += 1;
                }
            }
        }
    }
    println!(
        "{checked} joint positions match ufbx's world evaluation; worst {:.2e} of the figure's size ({})",
        worst.0, worst.1
    );
    assert!(checked > 1000);
}

/// Diagonal of the bounding box of a pose's joint positions.
pub(crate) fn extent(w: &[Transform]) -> f32 {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for t in w {
        lo = lo.min(t.translation);
        hi = hi.max(t.translation);
    }
    (hi - lo).length()
}
