//! Scalar curves: float tracks sampled at the clip's rate (morph-target / blend-shape weights,
//! gameplay curves), stored in the blob's curves section beside the joints.
//!
//! [`Curve`] is the input model; [`encode`] chooses, per curve and per segment, the cheapest exact
//! integer coding of the curve quantised on a grid of its precision; [`crate::format::curves`] defines
//! and validates the section; [`crate::runtime::curves`] samples it without allocating. See `docs/curves.md`.

pub mod encode;

use crate::format::limits::MAX_ABS_VALUE;
use crate::{Error, Result};

/// The curve precision Unreal's ACL plugin uses by default (absolute, in curve units).
pub const DEFAULT_CURVE_PRECISION: f32 = 0.001;

/// One scalar curve: a value per sample of the clip.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    /// Name (tools only; not stored in the blob).
    pub name: String,
    /// Id the engine chooses (stored in the blob, reported by [`crate::runtime::curves::CurvesSection::id`]).
    pub id: u32,
    /// One value per sample of the clip (`|v| <= 1e7`, finite).
    pub values: Vec<f32>,
    /// Largest acceptable absolute error of a decoded value (finite, > 0).
    pub precision: f32,
    /// The value the curve takes when it is not animated: a curve that never leaves it by more
    /// than its precision is stored as this value alone.
    pub default_value: Option<f32>,
    /// For a morph target, its largest vertex displacement (so that a position precision `p`
    /// gives the weight precision `p / magnitude`; see [`apply_position_precision`]).
    pub magnitude: Option<f32>,
}

impl Curve {
    /// A curve with the default precision, no default value and no magnitude.
    pub fn new(name: impl Into<String>, id: u32, values: Vec<f32>) -> Self {
        Curve {
            name: name.into(),
            id,
            values,
            precision: DEFAULT_CURVE_PRECISION,
            default_value: None,
            magnitude: None,
        }
    }
}

/// Gives every curve with a magnitude the weight precision `position_precision / magnitude`
/// (the error in displacement units a weight error causes), as Unreal's ACL curve codec does
/// with its morph target position precision. Curves without a (positive, finite) magnitude keep
/// their precision.
pub fn apply_position_precision(curves: &mut [Curve], position_precision: f32) {
    for c in curves {
        if let Some(m) = c.magnitude {
            let p = position_precision / m;
            if m > 0.0 && p.is_finite() && p > 0.0 {
                c.precision = p;
            }
        }
    }
}

/// Checks curves against a clip of `num_samples` samples: count, one value per sample, finite
/// values within the input limit, valid precision, default and magnitude.
pub fn validate_curves(curves: &[Curve], num_samples: usize) -> Result<()> {
    if curves.len() > crate::format::MAX_CURVES {
        return Err(Error::InvalidArgument("too many curves (limit 65535)"));
    }
    let ok = |v: f32| v.is_finite() && v.abs() <= MAX_ABS_VALUE;
    for c in curves {
        if c.values.len() != num_samples {
            return Err(Error::InconsistentClip(
                "a curve needs one value per sample of the clip",
            ));
        }
        if let Some(sample) = c.values.iter().position(|&v| !ok(v)) {
            return Err(Error::NonFiniteValue {
                joint: c.id as usize,
                sample,
                channel: "curve",
            });
        }
        if !(c.precision.is_finite() && c.precision > 0.0) {
            return Err(Error::InvalidArgument(
                "a curve precision is not finite and positive",
            ));
        }
        if c.default_value.is_some_and(|d| !ok(d)) {
            return Err(Error::InvalidArgument(
                "a curve default value is not finite or beyond 1e7",
            ));
        }
        if c.magnitude.is_some_and(|m| !(m.is_finite() && m >= 0.0)) {
            return Err(Error::InvalidArgument(
                "a curve magnitude is not finite and non-negative",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_rejects_each_bad_input() {
        let good = Curve::new("a", 1, vec![0.0, 0.5, 1.0]);
        assert!(validate_curves(std::slice::from_ref(&good), 3).is_ok());
        assert!(validate_curves(std::slice::from_ref(&good), 4).is_err());
        let mut c = good.clone();
        c.values[1] = f32::NAN;
        assert!(matches!(
            validate_curves(&[c], 3),
            Err(Error::NonFiniteValue { sample: 1, .. })
        ));
        let mut c = good.clone();
        c.values[2] = 2.0e7;
        assert!(validate_curves(&[c], 3).is_err());
        let mut c = good.clone();
        c.precision = 0.0;
        assert!(validate_curves(&[c], 3).is_err());
        let mut c = good.clone();
        c.default_value = Some(f32::INFINITY);
        assert!(validate_curves(&[c], 3).is_err());
        let mut c = good;
        c.magnitude = Some(-1.0);
        assert!(validate_curves(&[c], 3).is_err());
    }

    #[test]
    fn position_precision_divides_by_magnitude() {
        let mut cs = vec![Curve::new("a", 0, vec![0.0]), Curve::new("b", 1, vec![0.0])];
        cs[0].magnitude = Some(4.0);
        cs[1].magnitude = Some(0.0);
        apply_position_precision(&mut cs, 0.01);
        assert_eq!(cs[0].precision, 0.0025);
        assert_eq!(cs[1].precision, DEFAULT_CURVE_PRECISION);
    }
}
