//! The `vbr` codec: error-driven variable bit rates per segment and sub-track.
//!
//! The clip is split into segments of [`SEGMENT_LEN`] or 32 samples (the one giving the smaller
//! blob, [`GROUPED_SEGMENT_LENS`]). Each channel of each joint is
//! either removed (default or constant over the clip, see [`tracks`]) or animated: range-reduced
//! over the clip (`f32` min and extent per component) and over each segment (8-bit min and extent),
//! then stored at a bit rate chosen per segment by the error metric ([`optimize`]). Rotations drop
//! one component per track ([`rotation`]). Segments may also drop whole keyframes that linear
//! interpolation recovers. See `docs/vbr.md` for the algorithm and [`layout`] for the body layout.

pub mod optimize;
pub mod reference;
pub mod regroup;
pub mod tracks;
pub(crate) mod write;

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

/// Segment lengths the encoder tries ([`encode`] keeps the one whose grouped body is the smallest). Longer segments store
/// their rates and ranges less often and widen the ranges they quantise in: on the shared sets
/// 32 samples gave the smaller blob for 42 of 49 cmu-cc clips (60 Hz) and 35 of 174 bandai
/// clips (30 Hz), 16 for the rest (`docs/vbr.md`, "Segment length").
pub const GROUPED_SEGMENT_LENS: [usize; 2] = [SEGMENT_LEN, 32];

/// Compresses the clip of `ctx`: the segments body, of the segment length of
/// [`GROUPED_SEGMENT_LENS`] whose grouped form (what the blob holds) is the smallest.
pub(crate) fn encode(ctx: &EncodeContext) -> Result<EncodedBody> {
    Ok(EncodedBody {
        codec: CodecId::Vbr,
        flags: ctx.flags,
        body: search(ctx)?.body,
    })
}

/// What [`encode`] chose for a clip: the segment length, the plan, each segment's storage and
/// the segments body written from them (quality tiers start from these).
pub(crate) struct Searched {
    /// Samples per segment.
    pub seg_len: usize,
    /// The sub-tracks' plan.
    pub plan: tracks::Plan,
    /// Each segment's storage.
    pub segments: Vec<optimize::SegmentChoice>,
    /// The segments body written from them.
    pub body: Vec<u8>,
}

/// The search of [`encode`], with what it chose.
pub(crate) fn search(ctx: &EncodeContext) -> Result<Searched> {
    let n = ctx.clip.num_samples;
    let lens = if n > SEGMENT_LEN {
        &GROUPED_SEGMENT_LENS[..]
    } else {
        &GROUPED_SEGMENT_LENS[..1]
    };
    let mut best: Option<(usize, Searched)> = None;
    for &seg_len in lens {
        let searched = encode_segments(ctx, seg_len)?;
        let size = match lens.len() {
            1 => 0,
            _ => regroup::regroup(&regroup_header(ctx), &searched.body)?.len(),
        };
        if best.as_ref().is_none_or(|(s, _)| size < *s) {
            best = Some((size, searched));
        }
    }
    Ok(best.expect("a segment length was tried").1)
}

/// The header `regroup` reads a body of `ctx`'s clip with.
pub(crate) fn regroup_header(ctx: &EncodeContext) -> Header {
    Header {
        version: crate::format::FORMAT_VERSION,
        codec: CodecId::Vbr,
        total_size: 0,
        checksum: 0,
        flags: ctx.flags,
        num_joints: ctx.clip.num_joints() as u32,
        num_samples: ctx.clip.num_samples as u32,
        sample_rate: ctx.clip.sample_rate,
        body_offset: 0,
        body_size: 0,
        additive: ctx.metric.additive_format() as u8,
        num_curves: 0,
        curves_offset: 0,
        curves_size: 0,
    }
}

/// The segments body of `ctx`'s clip at `seg_len` samples per segment.
fn encode_segments(ctx: &EncodeContext, seg_len: usize) -> Result<Searched> {
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
    Ok(Searched {
        seg_len,
        plan,
        segments,
        body,
    })
}

/// Describes a validated body.
pub(crate) fn describe(h: &Header, body: &[u8]) -> Result<BodyDescription> {
    write::describe(h, body)
}
