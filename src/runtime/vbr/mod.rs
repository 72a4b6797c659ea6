//! The `vbr` decoder: whole poses, single joints and joint subsets from a validated body,
//! without allocation. One stage per file, in the order of the data flow:
//!
//! - [`cursor`]: one sample's (or one segment pair's) reading position, coefficients and fields;
//! - [`walk`]: the joint-by-joint decoding state over the body, and skips;
//! - [`lanes`]: the per-sub-track arithmetic on three components at once (SSE2);
//! - [`blend`]: rotation blends finished in passes of their own;
//! - [`prefetch`]: the hints that overlap a cold pose's cache misses;
//! - [`cache`]: the optional playback cache (decoded samples and segment coefficients in
//!   caller-owned memory);
//! - [`grouped`]: the grouped layout (format version 4, `VbrLayout::Grouped`), a body whose
//!   tracks sit in groups of eight SIMD lanes, with its own validator and decoders
//!   (`docs/runtime.md`).
//!
//! A pose between two samples uses two cursors (the samples may lie in different segments) and
//! blends the results: `nlerp` on the shortest arc for rotations, `lerp` for vectors.

mod blend;
pub mod cache;
mod cursor;
pub mod grouped;
pub(crate) mod lanes;
mod prefetch;
mod records;
mod walk;

pub use cursor::{keyframe_position, lerp};

use crate::format::vbr::layout::{View, BODY_HEADER};
use crate::format::{BlobFlags, Header};
use crate::math::Transform;
use crate::runtime::body::Body;
use crate::runtime::{BodyHint, Defaults, JointSelection, PoseOut, SampleKey};
use crate::runtime::{CHANNELS_ALL, CHANNEL_ROTATION};
use blend::Blends;
use prefetch::{prefetch, prefetch_floats, prefetch_segment_entries};
use walk::{case, state, ANY, ONE, PAIR, TWO};

/// What a whole pose of the validated body `body` reads first, for the decompressor to keep
/// (see [`BodyHint`]): the segment table offset and the segment length.
pub fn hint(body: &[u8]) -> BodyHint {
    // A blob without joints (curves only) may have no body.
    if body.len() < BODY_HEADER {
        return BodyHint::default();
    }
    let v = View::read(body);
    BodyHint {
        first: v.segments as u32,
        stride: v.seg_len as u8,
        segments: Default::default(),
    }
}

/// Samples every joint.
pub fn sample_pose(
    h: &Header,
    bytes: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    out: &mut PoseOut,
) {
    // A validated body is at least its 32-byte header.
    let Some(body) = Body::new(bytes) else {
        return;
    };
    // The segment table entries first: known from the hint, they need not wait for the body
    // header (on a cold pose, one cache miss less in the chain).
    prefetch_segment_entries(body, hint.first as usize, hint.stride as u32, key);
    let v = View::read(bytes);
    let table = &body.bytes()[v.tracks..v.tracks + h.num_joints as usize];
    // Everything a whole pose reads, in the order the misses would chain: the segment table
    // entries (the cursors wait on them), the per-clip sections (track table, constants, clip
    // ranges) and the bind pose. Not the caller's pose buffer: it is written, not read, and
    // prefetching it cost more than it saved (A/B 1.02-1.04x warm without it).
    prefetch(body.bytes(), v.tracks, v.segments);
    if let Some(b) = d.bind_pose {
        prefetch_floats(b);
    }
    match case(v.seg_len, key) {
        PAIR => pose::<PAIR>(body, &v, table, h, key, d, out),
        TWO => pose::<TWO>(body, &v, table, h, key, d, out),
        _ => pose::<ONE>(body, &v, table, h, key, d, out),
    }
}

/// The walk of [`sample_pose`] for `key`'s case `M`.
#[inline(always)]
fn pose<const M: u8>(
    body: Body,
    v: &View,
    table: &[u8],
    h: &Header,
    key: &SampleKey,
    d: &Defaults,
    out: &mut PoseOut,
) {
    let has_scale = h.has(BlobFlags::HAS_SCALE);
    let mut st = state::<M>(body, v, key, Some(h.num_samples));
    let mut blends = Blends::new();
    for (j, &byte) in table.iter().enumerate() {
        let t = st.joint(body, byte, j, has_scale, d);
        out.write(j, &t);
        blends.take(&mut st, j, out);
    }
    blends.flush(out, st.alpha);
}

/// Samples one joint.
pub fn sample_joint(
    h: &Header,
    bytes: &[u8],
    key: &SampleKey,
    joint: usize,
    d: &Defaults,
) -> Transform {
    let Some(body) = Body::new(bytes) else {
        return Transform::IDENTITY;
    };
    let v = View::read(bytes);
    let has_scale = h.has(BlobFlags::HAS_SCALE);
    let table = &body.bytes()[v.tracks..v.tracks + h.num_joints as usize];
    let mut st = state::<ANY>(body, &v, key, None);
    st.advance(body, &table[..joint]);
    let t = st.joint(body, table[joint], joint, has_scale, d);
    st.finish(t)
}

/// Samples the joints of `sel` (checked by the caller) in one forward walk over the body while
/// the list ascends; a joint below the previous one restarts the walk.
pub fn sample_joints(
    h: &Header,
    bytes: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    sel: &JointSelection,
    out: &mut PoseOut,
) {
    let Some(body) = Body::new(bytes) else {
        return;
    };
    // Every channel of every joint, in order, into its own slot: that is the whole pose.
    if sel.channels == CHANNELS_ALL
        && sel.slots.is_none()
        && sel.joints.len() == h.num_joints as usize
        && sel.joints.iter().enumerate().all(|(i, &j)| j as usize == i)
    {
        return sample_pose(h, bytes, hint, key, d, out);
    }
    // A copy of the walk for rotations only (what a retargeting engine asks for), where the
    // mask's branches fold away, and one reading the mask at run time for the other masks. A
    // copy is a whole decoder (21 KB of stripped code), so not one per mask.
    let f = match sel.channels {
        CHANNEL_ROTATION => select::<CHANNEL_ROTATION>,
        _ => select::<0>,
    };
    f(h, body, key, d, sel, out)
}

/// [`sample_joints`] for channel mask `CH` (0: the mask of `sel`, read at run time).
fn select<const CH: u32>(
    h: &Header,
    body: Body,
    key: &SampleKey,
    d: &Defaults,
    sel: &JointSelection,
    out: &mut PoseOut,
) {
    let channels = if CH == 0 { sel.channels } else { CH };
    let v = View::read(body.bytes());
    let has_scale = h.has(BlobFlags::HAS_SCALE);
    let table = &body.bytes()[v.tracks..v.tracks + h.num_joints as usize];
    let mut st = state::<ANY>(body, &v, key, None);
    let mut blends = Blends::new();
    // Slots from `fresh` on have not been written yet. A pending blend is finished in place
    // later, so before a slot is written again (a list whose slots do not ascend), the pending
    // ones are finished: the last write to a slot stays the last.
    let mut fresh = 0usize;
    let mut at = 0usize;
    for (i, &j) in sel.joints.iter().enumerate() {
        let j = j as usize;
        if j != at {
            // Not the next joint: skip forward to it, or restart the walk for an earlier one.
            if j < at {
                st = state::<ANY>(body, &v, key, None);
                at = 0;
            }
            st.advance(body, &table[at..j]);
        }
        let t = st.joint_channels(body, table[j], j, has_scale, d, channels);
        let slot = sel.slot(i);
        if slot < fresh {
            blends.flush(out, st.alpha);
        }
        fresh = fresh.max(slot + 1);
        out.write_channels(slot, &t, channels);
        blends.take(&mut st, slot, out);
        at = j + 1;
    }
    blends.flush(out, st.alpha);
}
