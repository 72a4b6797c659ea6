//! Applying additive poses stored as floats (10 per joint), the runtime's hot path.
//!
//! Rotations use glam's `Quat` through `crate::math`'s fixed-order products (SSE2 on x86-64, the
//! same operations in scalar code elsewhere: the same bits on every CPU) and translations and
//! scales use the 16-byte `Vec3A`, so a joint is a handful of 4-wide operations; see
//! `benches/benches/additive.rs` for the measurement against the scalar `Transform` path.

use super::{check_weight, AdditiveFormat};
use crate::math::{
    nlerp_shortest, quat_mul, quat_normalize, quat_rotate_a, Quat, Vec3A, FLOATS_PER_JOINT,
};
use crate::{Error, Result};

/// Applies one joint: `additive` (weighted towards the identity by `weight`, which the caller
/// has checked) to `base`, both 10 floats `qx qy qz qw tx ty tz sx sy sz`.
#[inline]
pub fn apply_floats(
    format: AdditiveFormat,
    base: &[f32; FLOATS_PER_JOINT],
    additive: &[f32; FLOATS_PER_JOINT],
    weight: f32,
) -> [f32; FLOATS_PER_JOINT] {
    let br = Quat::from_slice(&base[0..4]);
    let bt = Vec3A::from_slice(&base[4..7]);
    let bs = Vec3A::from_slice(&base[7..10]);
    let mut ar = Quat::from_slice(&additive[0..4]);
    let mut at = Vec3A::from_slice(&additive[4..7]);
    let mut a_s = Vec3A::from_slice(&additive[7..10]);
    let id = if format == AdditiveFormat::Additive1 {
        Vec3A::ZERO
    } else {
        Vec3A::ONE
    };
    if weight != 1.0 {
        ar = nlerp_shortest(Quat::IDENTITY, ar, weight);
        at *= weight;
        a_s = id + (a_s - id) * weight;
    }
    let rotation = || quat_normalize(quat_mul(br, ar));
    let (r, t, s) = match format {
        AdditiveFormat::None => (ar, at, a_s),
        AdditiveFormat::Relative => (rotation(), quat_rotate_a(br, bs * at) + bt, bs * a_s),
        AdditiveFormat::Additive0 => (rotation(), bt + at, bs * a_s),
        AdditiveFormat::Additive1 => (rotation(), bt + at, bs * (Vec3A::ONE + a_s)),
    };
    let mut out = [0.0f32; FLOATS_PER_JOINT];
    r.write_to_slice(&mut out[0..4]);
    t.write_to_slice(&mut out[4..7]);
    s.write_to_slice(&mut out[7..10]);
    out
}

/// Applies a whole additive pose to a base pose into `out` (all packed, 10 floats per joint,
/// equal lengths, a multiple of 10). `weight` must be finite and in [0, 1].
pub fn apply_pose(
    format: AdditiveFormat,
    base: &[f32],
    additive: &[f32],
    weight: f32,
    out: &mut [f32],
) -> Result<()> {
    check_weight(weight)?;
    if base.len() != additive.len()
        || base.len() != out.len()
        || !base.len().is_multiple_of(FLOATS_PER_JOINT)
    {
        return Err(Error::InvalidArgument(
            "base, additive and out must hold the same number of joints (10 floats each)",
        ));
    }
    for ((b, a), o) in base
        .chunks_exact(FLOATS_PER_JOINT)
        .zip(additive.chunks_exact(FLOATS_PER_JOINT))
        .zip(out.chunks_exact_mut(FLOATS_PER_JOINT))
    {
        let x = apply_floats(
            format,
            b.try_into().expect("10 floats"),
            a.try_into().expect("10 floats"),
            weight,
        );
        o.copy_from_slice(&x);
    }
    Ok(())
}
