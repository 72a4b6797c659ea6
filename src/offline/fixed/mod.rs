//! The `fixed` codec: every animated sub-track stored at one fixed format per channel
//! (Unreal-style), with default / constant sub-track removal judged by the error metric and
//! per-track range reduction where the format asks for it.
//!
//! - [`classify`]: default / constant / animated decision per sub-track;
//! - [`layout`]: the body layout (codec header, kinds, constants, ranges, frames);
//! - [`encode`](mod@encode): the writer; the checker is `format/fixed/validate.rs`, the sampler
//!   `runtime/fixed.rs`.
//!
//! Formats, layouts and error bounds: `docs/formats.md`.

pub mod classify;
mod encode;

use crate::format::fixed::{layout, validate};

pub use classify::SUBSTITUTION_FRACTION;

use crate::format::{BlobFlags, Header};
use crate::offline::blob_writer::EncodedBody;
use crate::offline::EncodeContext;
use crate::offline::{BodyDescription, TrackDescription};
use crate::Result;
use layout::{kinds_of, Kind, Layout, FRAME_PADDING};

pub(crate) fn encode(ctx: &EncodeContext) -> Result<EncodedBody> {
    encode::encode(ctx)
}

pub(crate) fn describe(h: &Header, body: &[u8]) -> Result<BodyDescription> {
    validate::validate(h, body)?;
    let l = Layout::read(body);
    let frames = l.num_samples * l.frame_size;
    let sections = vec![
        ("fixed header".to_string(), l.kinds_offset),
        (
            "joint kinds".to_string(),
            l.constants_offset - l.kinds_offset,
        ),
        (
            "constants".to_string(),
            l.ranges_offset - l.constants_offset,
        ),
        ("ranges".to_string(), l.frames_offset - l.ranges_offset),
        ("frames".to_string(), frames),
        ("padding".to_string(), body.len() - l.frames_offset - frames),
    ];
    debug_assert!(body.len() >= l.frames_offset + frames + FRAME_PADDING);
    let has_scale = h.has(BlobFlags::HAS_SCALE);
    let mut tracks = Vec::new();
    for (j, &k) in body[l.kinds_offset..l.kinds_offset + l.num_joints]
        .iter()
        .enumerate()
    {
        let [kr, kt, ks] = kinds_of(k);
        let mut chans = vec![
            (
                "rotation",
                kr,
                l.rotation.name(),
                l.rotation.bits_per_sample(),
            ),
            (
                "translation",
                kt,
                l.translation.name(),
                l.translation.bits_per_sample(),
            ),
        ];
        if has_scale {
            chans.push(("scale", ks, l.scale.name(), l.scale.bits_per_sample()));
        }
        for (channel, kind, name, bits) in chans {
            let (storage, bits) = match kind {
                Kind::Animated => (name.to_string(), bits as f32),
                other => (other.name().to_string(), 0.0),
            };
            tracks.push(TrackDescription {
                joint: j,
                channel,
                storage,
                bits_per_sample: bits,
            });
        }
    }
    Ok(BodyDescription { sections, tracks })
}
