//! An independent check of additive compression: base ⊕ decoded additive against base ⊕ raw
//! additive, composed and measured in f64 with the additive formulas written out again here
//! (from docs/additive.md), so neither the library's metric nor its `apply` judges itself.

use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::math::Transform;
use animcomp::AdditiveFormat;
use animcomp::{AlignedBlob, RawClip};
use glam::{DQuat, DVec3};

/// The three additive formats.
pub const FORMATS: [AdditiveFormat; 3] = [
    AdditiveFormat::Relative,
    AdditiveFormat::Additive0,
    AdditiveFormat::Additive1,
];

#[derive(Clone, Copy)]
pub struct T64 {
    pub r: DQuat,
    pub t: DVec3,
    pub s: DVec3,
}

pub fn t64(t: &Transform) -> T64 {
    let q = t.rotation;
    T64 {
        r: DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64).normalize(),
        t: t.translation.as_dvec3(),
        s: t.scale.as_dvec3(),
    }
}

pub fn mul(p: &T64, c: &T64) -> T64 {
    T64 {
        r: p.r * c.r,
        t: p.r * (p.s * c.t) + p.t,
        s: p.s * c.s,
    }
}

pub fn apply64(f: AdditiveFormat, b: &T64, a: &T64) -> T64 {
    match f {
        AdditiveFormat::None => *a,
        AdditiveFormat::Relative => mul(b, a),
        AdditiveFormat::Additive0 => T64 {
            r: b.r * a.r,
            t: b.t + a.t,
            s: b.s * a.s,
        },
        AdditiveFormat::Additive1 => T64 {
            r: b.r * a.r,
            t: b.t + a.t,
            s: b.s * (DVec3::ONE + a.s),
        },
    }
}

pub fn point(x: &T64, p: DVec3) -> DVec3 {
    x.r * (x.s * p) + x.t
}

/// Object-space pose (f64) of base ⊕ local.
pub fn object(
    clip: &RawClip,
    f: AdditiveFormat,
    base: &[Transform],
    local: &[Transform],
) -> Vec<T64> {
    let mut out: Vec<T64> = Vec::with_capacity(local.len());
    for (j, joint) in clip.skeleton.joints.iter().enumerate() {
        let l = apply64(f, &t64(&base[j]), &t64(&local[j]));
        let o = match joint.parent {
            Some(p) => mul(&out[p as usize], &l),
            None => l,
        };
        out.push(o);
    }
    out
}

/// Largest virtual-vertex error over every joint and sample between base ⊕ raw additive and
/// base ⊕ decoded additive, in f64.
pub fn applied_error(
    additive: &RawClip,
    f: AdditiveFormat,
    base_at: &dyn Fn(usize) -> Vec<Transform>,
    blob: &[u8],
) -> f64 {
    let blob = AlignedBlob::from_bytes(blob);
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
    assert_eq!(d.header().additive, f as u8);
    let nj = additive.num_joints();
    let mut decoded = vec![Transform::IDENTITY; nj];
    let mut raw = vec![Transform::IDENTITY; nj];
    // Three vertices when the applied clip has scale (as the metric does).
    let mut has_scale = false;
    let mut poses = Vec::new();
    for i in 0..additive.num_samples {
        additive.local_pose(i, &mut raw);
        d.pose_at_sample(i as u32, &mut decoded).unwrap();
        let b = base_at(i);
        let ro = object(additive, f, &b, &raw);
        let lo = object(additive, f, &b, &decoded);
        for j in 0..nj {
            let s = apply64(f, &t64(&b[j]), &t64(&raw[j])).s;
            has_scale |= (s - DVec3::ONE).abs().max_element() > 1e-5;
        }
        poses.push((ro, lo));
    }
    let mut worst = 0.0f64;
    for (ro, lo) in &poses {
        for (j, joint) in additive.skeleton.joints.iter().enumerate() {
            let d = joint.shell_distance as f64;
            let mut verts = vec![DVec3::new(d, 0.0, 0.0), DVec3::new(0.0, d, 0.0)];
            if has_scale {
                verts.push(DVec3::new(0.0, 0.0, d));
            }
            for v in verts {
                let e = (point(&ro[j], v) - point(&lo[j], v)).length();
                worst = worst.max(if e.is_nan() { f64::INFINITY } else { e });
            }
        }
    }
    worst
}

/// The local pose at sample 0.
pub fn first_pose(clip: &RawClip) -> Vec<Transform> {
    let mut p = vec![Transform::IDENTITY; clip.num_joints()];
    clip.local_pose(0, &mut p);
    p
}
