use super::*;
use crate::math::Vec3;
// The inverse of `apply` lives with the tools; its tests stay beside `apply`'s.
#[cfg(feature = "compress")]
use crate::offline::additive::to_additive;

fn t(r: Quat, t: Vec3, s: Vec3) -> Transform {
    Transform {
        rotation: r,
        translation: t,
        scale: s,
    }
}

fn base() -> Transform {
    t(
        Quat::from_rotation_y(0.7) * Quat::from_rotation_x(-0.2),
        Vec3::new(1.0, 2.0, -3.0),
        Vec3::new(1.5, 0.5, 2.0),
    )
}

fn add() -> Transform {
    t(
        Quat::from_rotation_z(0.3),
        Vec3::new(0.25, -0.5, 0.125),
        Vec3::new(1.25, 0.75, 1.0),
    )
}

const FORMATS: [AdditiveFormat; 3] = [
    AdditiveFormat::Relative,
    AdditiveFormat::Additive0,
    AdditiveFormat::Additive1,
];

#[test]
fn relative_is_the_transform_product() {
    // QVV composition equals point composition when the base scale is uniform.
    let b = Transform {
        scale: Vec3::splat(1.5),
        ..base()
    };
    let a = add();
    let x = apply(AdditiveFormat::Relative, &b, &a);
    assert_eq!(x, Transform::mul(&b, &a));
    let p = Vec3::new(0.3, -1.0, 2.0);
    let direct = b.transform_point(a.transform_point(p));
    assert!((x.transform_point(p) - direct).length() < 1e-5);
}

#[test]
fn additive_formats_add_translations_and_rotate_base_after_additive() {
    let (b, a) = (base(), add());
    for f in [AdditiveFormat::Additive0, AdditiveFormat::Additive1] {
        let x = apply(f, &b, &a);
        assert!((x.translation - (b.translation + a.translation)).length() < 1e-6);
        // ACL: quat_mul(additive, base) = base * additive in Hamilton order.
        assert!(crate::math::angle_between(x.rotation, b.rotation * a.rotation) < 1e-5);
    }
    let x0 = apply(AdditiveFormat::Additive0, &b, &a);
    assert!((x0.scale - b.scale * a.scale).length() < 1e-6);
    let x1 = apply(AdditiveFormat::Additive1, &b, &a);
    assert!((x1.scale - b.scale * (Vec3::ONE + a.scale)).length() < 1e-6);
}

#[test]
fn identity_leaves_the_base_alone() {
    let b = base();
    for f in FORMATS {
        let x = apply(f, &b, &f.identity());
        assert!(
            crate::math::angle_between(x.rotation, b.rotation) < 1e-6,
            "{f:?}"
        );
        assert!((x.translation - b.translation).length() < 1e-6, "{f:?}");
        assert!((x.scale - b.scale).length() < 1e-6, "{f:?}");
    }
}

#[test]
#[cfg(feature = "compress")]
fn to_additive_inverts_apply() {
    let b = base();
    let target = t(
        Quat::from_rotation_x(1.1) * Quat::from_rotation_z(-0.4),
        Vec3::new(-4.0, 0.5, 9.0),
        Vec3::new(0.8, 1.2, 3.0),
    );
    for f in FORMATS {
        let a = to_additive(f, &b, &target);
        let x = apply(f, &b, &a);
        assert!(
            crate::math::angle_between(x.rotation, target.rotation) < 1e-5,
            "{f:?}"
        );
        assert!(
            (x.translation - target.translation).length() < 1e-5,
            "{f:?}"
        );
        assert!((x.scale - target.scale).length() < 1e-5, "{f:?}");
    }
    // The base relative to itself is the identity.
    for f in FORMATS {
        let a = to_additive(f, &b, &b);
        assert!((a.scale - f.identity_scale()).length() < 1e-6, "{f:?}");
        assert!(a.translation.length() < 1e-6, "{f:?}");
        assert!(crate::math::angle_between(a.rotation, Quat::IDENTITY) < 1e-5);
    }
}

#[test]
#[cfg(feature = "compress")]
fn zero_base_scale_gives_identity_scale() {
    let mut b = base();
    b.scale.x = 0.0;
    for f in FORMATS {
        let a = to_additive(f, &b, &base());
        assert!(a.scale.is_finite() && a.translation.is_finite());
        assert_eq!(a.scale.x, f.identity_scale().x);
    }
}

#[test]
fn weights_blend_from_base_to_full() {
    let (b, a) = (base(), add());
    for f in FORMATS {
        let a = if f == AdditiveFormat::Additive1 {
            Transform {
                scale: a.scale - Vec3::ONE,
                ..a
            }
        } else {
            a
        };
        let zero = apply_weighted(f, &b, &a, 0.0).unwrap();
        assert!((zero.translation - b.translation).length() < 1e-6);
        assert!((zero.scale - b.scale).length() < 1e-6);
        let full = apply_weighted(f, &b, &a, 1.0).unwrap();
        assert_eq!(full, apply(f, &b, &a));
        let half = apply_weighted(f, &b, &a, 0.5).unwrap();
        let ang = crate::math::angle_between(half.rotation, b.rotation);
        assert!((ang - 0.15).abs() < 1e-3, "{ang}");
    }
    for w in [-0.1, 1.01, f32::NAN, f32::INFINITY] {
        assert!(apply_weighted(AdditiveFormat::Relative, &b, &a, w).is_err());
    }
}

#[test]
fn names_round_trip_like_acl() {
    for f in FORMATS {
        assert_eq!(AdditiveFormat::from_name(f.name()), Some(f));
        assert_eq!(AdditiveFormat::from_u32(f as u32), Some(f));
    }
    assert_eq!(
        AdditiveFormat::from_name("Additive1"),
        Some(AdditiveFormat::Additive1)
    );
    assert_eq!(AdditiveFormat::from_name("additive2"), None);
    assert_eq!(AdditiveFormat::from_u32(4), None);
    assert_eq!(AdditiveFormat::from_u32(256 + 1), None);
}

#[test]
fn float_path_matches_transform_path() {
    let (b, a) = (base(), add());
    let (mut bf, mut af) = ([0.0f32; 10], [0.0f32; 10]);
    b.write_to(&mut bf);
    a.write_to(&mut af);
    for f in FORMATS {
        for w in [0.0, 0.3, 1.0] {
            let x = Transform::read_from(&apply_floats(f, &bf, &af, w));
            let y = apply_weighted(f, &b, &a, w).unwrap();
            assert!(
                crate::math::angle_between(x.rotation, y.rotation) < 1e-6,
                "{f:?} {w}"
            );
            assert!((x.translation - y.translation).length() < 1e-5, "{f:?} {w}");
            assert!((x.scale - y.scale).length() < 1e-6, "{f:?} {w}");
        }
    }
    let mut out = [0.0f32; 20];
    let two_b = [bf, bf].concat();
    let two_a = [af, af].concat();
    apply_pose(AdditiveFormat::Relative, &two_b, &two_a, 1.0, &mut out).unwrap();
    assert_eq!(
        out[..10],
        apply_floats(AdditiveFormat::Relative, &bf, &af, 1.0)
    );
    assert!(apply_pose(AdditiveFormat::Relative, &two_b, &af, 1.0, &mut out).is_err());
    assert!(apply_pose(AdditiveFormat::Relative, &two_b, &two_a, 2.0, &mut out).is_err());
}
