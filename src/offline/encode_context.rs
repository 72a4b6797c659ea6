//! What every encoder is handed: the validated clip, the settings, the metric, the defaults.
//! The pipeline (`compress.rs`) fills it; the encoders (`fixed`, `vbr`, `keys`) only read it.

use crate::math::Transform;
use crate::offline::clip::RawClip;
use crate::offline::metric::Metric;
use crate::offline::settings::CompressSettings;

/// Everything an encoder needs, prepared once by [`crate::compress()`].
pub struct EncodeContext<'a> {
    /// The validated clip.
    pub clip: &'a RawClip,
    /// The settings.
    pub settings: &'a CompressSettings,
    /// The error metric bound to the clip (the only judge of error).
    pub metric: &'a Metric<'a>,
    /// Whether scale is stored (else decoded as one).
    pub has_scale: bool,
    /// Per-joint default values (identity or bind pose).
    pub defaults: Vec<Transform>,
    /// Header flags the codec must set (it may add its own).
    pub flags: u32,
}
