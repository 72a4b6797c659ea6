//! Compressing an additive clip with its base.

use super::AdditiveBase;
use crate::format::AdditiveFormat;
use crate::offline::clip::RawClip;
use crate::offline::compress::{compress_pipeline, encode_with};
use crate::offline::CompressSettings;
use crate::{Error, Result};

/// Compresses the additive clip `clip` (in `format`) that players apply to `base`.
///
/// Error is measured where players see it: on `base` with the additive applied, in object space,
/// with the usual virtual-vertex metric and the clip's per-joint precision and shell distance.
/// Channels that stay at the format's identity (identity rotation, zero translation, scale 1, or
/// scale 0 for `Additive1`) cost nothing. The blob records `format`
/// ([`crate::format::Header::additive`]); a base clip is not stored (the runtime owns it).
/// `settings.default_mode` and `settings.optimize_loops` do not apply to additive clips.
/// `format` must not be [`AdditiveFormat::None`] ([`Error::InvalidArgument`]).
pub fn compress_additive(
    clip: &RawClip,
    base: &AdditiveBase,
    format: AdditiveFormat,
    settings: &CompressSettings,
) -> Result<Vec<u8>> {
    if format == AdditiveFormat::None {
        return Err(Error::InvalidArgument(
            "additive format must be relative, additive0 or additive1",
        ));
    }
    compress_pipeline(clip, &[], settings, Some((format, base)), |ctx| {
        encode_with(ctx, settings.codec)
    })
}
