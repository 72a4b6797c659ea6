//! ACL additive clip files: `additive_format`, `additive_base_*` and `base_tracks`, with a fixture
//! written here from a generated clip, its base and the additive clip between them.

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::math::Transform;
use animcomp::RawClip;
use animcomp::{
    offline::additive::{make_additive_clip, AdditiveBase},
    AdditiveFormat,
};
use animcomp_import::acl;

fn tracks_text(key: &str, clip: &RawClip) -> String {
    let v3 = |v: glam::Vec3| format!("[{:?}, {:?}, {:?}]", v.x, v.y, v.z);
    let mut s = format!("{key} = [\n");
    for (j, t) in clip.tracks.iter().enumerate() {
        let rot: Vec<String> = t
            .rotations
            .iter()
            .map(|q| format!("[{:?}, {:?}, {:?}, {:?}]", q.x, q.y, q.z, q.w))
            .collect();
        let tr: Vec<String> = t.translations.iter().map(|v| v3(*v)).collect();
        let sc: Vec<String> = t.scales.iter().map(|v| v3(*v)).collect();
        s += &format!(
            "  {{ name = \"j{j}\"\n    rotations = [{}]\n    translations = [{}]\n    scales = [{}]\n  }}\n",
            rot.join(", "),
            tr.join(", "),
            sc.join(", ")
        );
    }
    s + "]\n"
}

/// An ACL version 5 file for `additive` in `format` over `base` (base_tracks omitted when None).
fn file(additive: &RawClip, format: &str, base: Option<&RawClip>) -> String {
    let mut s = format!(
        "version = 5\nclip = {{\n  name = \"add\"\n  num_samples = {}\n  sample_rate = {:?}\n  additive_format = \"{format}\"\n",
        additive.num_samples, additive.sample_rate
    );
    if let Some(b) = base {
        s += &format!(
            "  additive_base_name = \"base\"\n  additive_base_num_samples = {}\n  additive_base_sample_rate = {:?}\n",
            b.num_samples, b.sample_rate
        );
    }
    s += "}\nbones = [\n";
    for (j, joint) in additive.skeleton.joints.iter().enumerate() {
        let parent = joint.parent.map_or(String::new(), |p| format!("j{p}"));
        s += &format!("  {{ name = \"j{j}\", parent = \"{parent}\", vertex_distance = 3.0 }}\n");
    }
    s += "]\n";
    if let Some(b) = base {
        s += &tracks_text("base_tracks", b);
    }
    s + &tracks_text("tracks", additive)
}

fn clips() -> (RawClip, RawClip) {
    let opts = GenerateOptions {
        joints: 6,
        samples: 12,
        scale: true,
        ..Default::default()
    };
    let clip = generate_clip(&opts);
    // The base: the same rig, another motion, another length.
    let base = generate_clip(&GenerateOptions {
        samples: 7,
        seed: 1,
        sample_rate: 15.0,
        ..opts
    });
    (clip, base)
}

#[test]
fn additive_files_give_format_base_and_tracks() {
    let (clip, base) = clips();
    for (name, format) in [
        ("relative", AdditiveFormat::Relative),
        ("Additive0", AdditiveFormat::Additive0),
        ("additive1", AdditiveFormat::Additive1),
    ] {
        let additive = make_additive_clip(&clip, &AdditiveBase::Clip(&base), format).unwrap();
        let text = file(&additive, name, Some(&base));
        let (read, _, info) = acl::parse_additive(&text, "").unwrap();
        let info = info.expect("additive data");
        assert_eq!(info.format, format);
        let read_base = info.base.expect("base clip");
        assert_eq!(read_base.num_samples, 7);
        assert_eq!(read_base.sample_rate, 15.0);
        assert_eq!(read_base.name, "base");
        for (a, b) in read_base.tracks.iter().zip(&base.tracks) {
            assert_eq!(a, b);
        }
        for (a, b) in read.tracks.iter().zip(&additive.tracks) {
            assert_eq!(a, b);
        }
        // `parse` gives the clip players see: base ⊕ additive, i.e. the original clip.
        let (applied, _) = acl::parse(&text, "").unwrap();
        let mut x = vec![Transform::IDENTITY; 6];
        let mut y = vec![Transform::IDENTITY; 6];
        for i in 0..clip.num_samples {
            applied.local_pose(i, &mut x);
            clip.local_pose(i, &mut y);
            for (p, q) in x.iter().zip(&y) {
                assert!((p.translation - q.translation).length() < 1e-3, "{name}");
                assert!((p.scale - q.scale).length() < 1e-4, "{name}");
                assert!(p.rotation.dot(q.rotation).abs() > 1.0 - 1e-6, "{name}");
            }
        }
    }
}

#[test]
fn plain_missing_base_and_unknown_formats() {
    let (clip, _) = clips();
    let (_, _, info) = acl::parse_additive(&file(&clip, "none", None), "").unwrap();
    assert_eq!(info, None);
    // Without base_tracks: the additive data is readable, but it cannot be applied.
    let text = file(&clip, "relative", None);
    let (_, _, info) = acl::parse_additive(&text, "").unwrap();
    assert_eq!(info.unwrap().base, None);
    let e = acl::parse(&text, "").unwrap_err();
    assert!(e.to_string().contains("base_tracks"), "{e}");
    let e = acl::parse_additive(&file(&clip, "additive2", None), "").unwrap_err();
    assert!(e.to_string().contains("additive2"), "{e}");
}
