//! Additive clips on the tools side: the base an additive clip is measured against, turning a
//! full clip into an additive one, and compression. Applying one at run time is
//! [`crate::runtime::additive`].

mod base;
mod compress;

pub use base::{make_additive_clip, AdditiveBase, BasePoses};
pub use compress::compress_additive;

use crate::format::AdditiveFormat;
use crate::math::{Quat, Transform, Vec3};

/// Base scale components smaller than this in magnitude are treated as zero when converting to
/// an additive clip (any additive scale gives the same result; the identity is stored).
pub const MIN_BASE_SCALE: f32 = 1.0e-12;

/// The inverse of [`apply`](crate::runtime::additive::apply): the additive transform `a` with `apply(format, base, a) = target`.
///
/// Exact for every format (no shear is involved): `a.r = conj(b.r) * x.r`; translation
/// `(conj(b.r) * (x.t - b.t)) / b.s` (relative) or `x.t - b.t`; scale `x.s / b.s` (relative,
/// additive0) or `x.s / b.s - 1` (additive1). Base scale components near zero
/// ([`MIN_BASE_SCALE`]) give the identity's component. Computed in f64.
pub fn to_additive(format: AdditiveFormat, base: &Transform, target: &Transform) -> Transform {
    use glam::{DQuat, DVec3};
    let d3 = |v: Vec3| DVec3::new(v.x as f64, v.y as f64, v.z as f64);
    let dq = |q: Quat| DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64);
    let f3 = |v: DVec3| Vec3::new(v.x as f32, v.y as f32, v.z as f32);
    if format == AdditiveFormat::None {
        return *target;
    }
    let (br, bt, bs) = (dq(base.rotation), d3(base.translation), d3(base.scale));
    let inv_br = br.conjugate() / br.length_squared();
    let rotation = (inv_br * dq(target.rotation)).normalize();
    let id = format.identity_scale();
    let div = |x: DVec3| {
        let mut out = [0.0f32; 3];
        for (i, o) in out.iter_mut().enumerate() {
            *o = if bs[i].abs() < MIN_BASE_SCALE as f64 {
                f32::NAN
            } else {
                (x[i] / bs[i]) as f32
            };
        }
        Vec3::from_array(out)
    };
    let translation = match format {
        AdditiveFormat::Relative => div(inv_br * (d3(target.translation) - bt)),
        _ => f3(d3(target.translation) - bt),
    };
    let ratio = div(d3(target.scale));
    let scale = match format {
        AdditiveFormat::Additive1 => ratio - Vec3::ONE,
        _ => ratio,
    };
    let fix = |v: Vec3, fallback: Vec3| {
        Vec3::from_array([0, 1, 2].map(|i| if v[i].is_nan() { fallback[i] } else { v[i] }))
    };
    Transform {
        rotation: Quat::from_xyzw(
            rotation.x as f32,
            rotation.y as f32,
            rotation.z as f32,
            rotation.w as f32,
        ),
        translation: fix(translation, Vec3::ZERO),
        scale: fix(scale, id),
    }
}
