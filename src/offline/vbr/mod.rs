//! The `vbr` codec: error-driven variable bit rates per segment and sub-track.
//!
//! The clip is split into segments of [`SEGMENT_LEN`] samples. Each channel of each joint is
//! either removed (default or constant over the clip, see [`tracks`]) or animated: range-reduced
//! over the clip (`f32` min and extent per component) and over each segment (8-bit min and extent),
//! then stored at a bit rate chosen per segment by the error metric ([`optimize`]). Rotations drop
//! one component per track ([`rotation`]). Segments may also drop whole keyframes that linear
//! interpolation recovers. See `docs/vbr.md` for the algorithm and [`layout`] for the body layout.

pub mod optimize;
pub mod reference;
pub mod regroup;
pub mod tracks;
mod write;

// The body format this encoder writes and the decoder it must match bit for bit.
// (`write::describe` checks a body with `super::validate` first.)
use crate::format::vbr::keyframe as decode;
use crate::format::vbr::layout::validate;
use crate::format::vbr::{bitrate, layout, rotation};

use crate::format::{CodecId, Header};
use crate::offline::blob_writer::EncodedBody;
use crate::offline::EncodeContext;
use crate::offline::{BodyDescription, Level};
use crate::Result;

/// Samples per segment.
pub const SEGMENT_LEN: usize = 16;

/// Search effort for a compression level (measured on the shared clips, see docs/vbr.md).
///
/// `Automatic` is `Default`: its compression time stays under ACL's on every set measured.
pub fn effort(level: Level) -> optimize::Effort {
    match level {
        Level::Fast => optimize::Effort {
            lower: false,
            drop_keys: false,
            local_fraction: 0.5,
        },
        Level::Default | Level::Automatic => optimize::Effort {
            lower: true,
            drop_keys: false,
            local_fraction: 0.5,
        },
        Level::Best => optimize::Effort {
            lower: true,
            drop_keys: true,
            local_fraction: 1.0,
        },
    }
}

/// Compresses the clip of `ctx`.
pub(crate) fn encode(ctx: &EncodeContext) -> Result<EncodedBody> {
    let seg_len = SEGMENT_LEN;
    let plan = tracks::plan(ctx, false, seg_len);
    let searcher = optimize::Searcher::new(ctx.clip, ctx.metric, &plan, ctx.has_scale);
    let n = ctx.clip.num_samples;
    let e = effort(ctx.settings.level);
    let segments: Vec<optimize::SegmentChoice> = (0..n.div_ceil(seg_len))
        .map(|s| {
            let start = s * seg_len;
            searcher.search(start, (n - start).min(seg_len), seg_len, &e)
        })
        .collect();
    let body = write::body(ctx.clip, &plan, &segments, seg_len)?;
    Ok(EncodedBody {
        codec: CodecId::Vbr,
        flags: ctx.flags,
        body,
    })
}

/// Describes a validated body.
pub(crate) fn describe(h: &Header, body: &[u8]) -> Result<BodyDescription> {
    write::describe(h, body)
}
