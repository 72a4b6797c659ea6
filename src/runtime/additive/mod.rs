//! Additive clips at run time: the three formats ACL defines and how a decoded additive pose is
//! applied to a base pose (turning a clip into an additive one is `offline::additive`).
//!
//! In the formulas `b` is the base transform, `a` the additive one and `x` the result; `*` on
//! quaternions is the Hamilton product (`b * a` rotates by `a` first, then by `b`, as glam and
//! [`Transform::mul`] do). ACL writes the same rotation as `quat_mul(a, b)` (its argument order is
//! "first, then"). See `docs/additive.md`.
//!
//! | format | rotation | translation | scale | identity scale |
//! |---|---|---|---|---|
//! | [`AdditiveFormat::Relative`] | `b.r * a.r` | `b.r * (b.s ⊙ a.t) + b.t` | `b.s ⊙ a.s` | 1 |
//! | [`AdditiveFormat::Additive0`] | `b.r * a.r` | `b.t + a.t` | `b.s ⊙ a.s` | 1 |
//! | [`AdditiveFormat::Additive1`] | `b.r * a.r` | `b.t + a.t` | `b.s ⊙ (1 + a.s)` | 0 |
//!
//! (`Relative` is `x = b · a` as transforms, [`Transform::mul`].) A blend weight `w` in [0, 1]
//! first moves the additive transform from the format's identity towards `a`: rotation
//! `nlerp(identity, a.r, w)` on the shortest arc, translation `w · a.t`, scale
//! `id + w · (a.s - id)`; `w = 1` applies `a` exactly and `w = 0` returns the base.

mod pose;

pub use crate::format::AdditiveFormat;
pub use pose::{apply_floats, apply_pose};

use crate::math::{nlerp_shortest, quat_mul, quat_normalize, Quat, Transform, Vec3};
use crate::{Error, Result};

impl AdditiveFormat {
    /// ACL's lowercase name: `none`, `relative`, `additive0`, `additive1`.
    pub fn name(self) -> &'static str {
        match self {
            AdditiveFormat::None => "none",
            AdditiveFormat::Relative => "relative",
            AdditiveFormat::Additive0 => "additive0",
            AdditiveFormat::Additive1 => "additive1",
        }
    }

    /// Parses ACL's names, case-insensitively (`Relative` in older ACL files, `relative` now).
    pub fn from_name(name: &str) -> Option<Self> {
        [
            AdditiveFormat::None,
            AdditiveFormat::Relative,
            AdditiveFormat::Additive0,
            AdditiveFormat::Additive1,
        ]
        .into_iter()
        .find(|f| f.name().eq_ignore_ascii_case(name))
    }

    /// From the C ABI's range-checked `uint32_t` (`ANIMCOMP_ADDITIVE_*`).
    pub fn from_u32(v: u32) -> Option<Self> {
        u8::try_from(v).ok().and_then(Self::from_u8)
    }

    /// The scale of the identity additive transform: 0 for `Additive1`, else 1.
    #[inline]
    pub fn identity_scale(self) -> Vec3 {
        if self == AdditiveFormat::Additive1 {
            Vec3::ZERO
        } else {
            Vec3::ONE
        }
    }

    /// The additive transform that leaves any base unchanged (identity rotation, zero
    /// translation, [`Self::identity_scale`]).
    #[inline]
    pub fn identity(self) -> Transform {
        Transform {
            rotation: Quat::IDENTITY,
            translation: Vec3::ZERO,
            scale: self.identity_scale(),
        }
    }
}

/// Applies `additive` to `base` in `format` (see the module table). `None` returns `additive`.
#[inline]
pub fn apply(format: AdditiveFormat, base: &Transform, additive: &Transform) -> Transform {
    match format {
        AdditiveFormat::None => *additive,
        AdditiveFormat::Relative => Transform::mul(base, additive),
        AdditiveFormat::Additive0 => Transform {
            rotation: quat_normalize(quat_mul(base.rotation, additive.rotation)),
            translation: base.translation + additive.translation,
            scale: base.scale * additive.scale,
        },
        AdditiveFormat::Additive1 => Transform {
            rotation: quat_normalize(quat_mul(base.rotation, additive.rotation)),
            translation: base.translation + additive.translation,
            scale: base.scale * (Vec3::ONE + additive.scale),
        },
    }
}

/// `additive` moved from the format's identity towards itself by `weight` (0 = identity,
/// 1 = unchanged).
#[inline]
pub fn weighted(format: AdditiveFormat, additive: &Transform, weight: f32) -> Transform {
    let id = format.identity_scale();
    Transform {
        rotation: nlerp_shortest(Quat::IDENTITY, additive.rotation, weight),
        translation: additive.translation * weight,
        scale: id + (additive.scale - id) * weight,
    }
}

/// [`apply`] with a blend weight in [0, 1] (checked: anything else, NaN included, is
/// [`Error::InvalidArgument`]).
pub fn apply_weighted(
    format: AdditiveFormat,
    base: &Transform,
    additive: &Transform,
    weight: f32,
) -> Result<Transform> {
    check_weight(weight)?;
    Ok(if weight == 1.0 {
        apply(format, base, additive)
    } else {
        apply(format, base, &weighted(format, additive, weight))
    })
}

/// Checks that a blend weight is finite and within [0, 1].
pub fn check_weight(weight: f32) -> Result<()> {
    if (0.0..=1.0).contains(&weight) {
        Ok(())
    } else {
        Err(Error::InvalidArgument(
            "additive weight must be finite and within [0, 1]",
        ))
    }
}

#[cfg(test)]
mod tests;
