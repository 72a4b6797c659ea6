//! Writes a keys body: slot table, pool, key index and the playback-ordered key stream.
//!
//! The stream is sorted by the time playback first needs each key: a linear track needs key `i`
//! from the time of key `i-1` (the span `[i-1, i]` starts there), a Catmull-Rom track from the
//! time of key `i-2` (the span `[i-2, i-1]` already uses key `i` as its far neighbour). The first
//! keys are needed at the time of key 0. Ties are broken by slot, then by key number, so a
//! forward cursor reads the stream once, front to back, and every key has arrived when needed.

use glam::Vec4;

use crate::blob::bytes::ByteWriter;

use super::format::{jc, Kind, Layout, TAG};
use super::interp::Interp;

/// What one slot (joint channel) stores.
#[derive(Debug, Clone, PartialEq)]
pub enum SlotPlan {
    /// Not stored: decodes to the default.
    Default,
    /// One full-precision value (rotations x y z w; vectors x y z).
    Constant(Vec4),
    /// Keys.
    Animated {
        /// Interpolation.
        interp: Interp,
        /// Key ranges of vectors (min, extent) and range-reduced rotations (min, extent,
        /// dropped component), flattened: one for the track, or one per segment when
        /// `segmented`; empty for smallest-three rotations.
        ranges: Vec<f32>,
        /// One range per segment of [`super::format::SEGMENT_LEN`] samples.
        segmented: bool,
        /// Key sample times, strictly increasing.
        times: Vec<u32>,
        /// 48-bit payload of each key.
        payloads: Vec<u64>,
    },
}

/// The playback order of a set of slots: `(need time, slot, key number)` per key, sorted.
pub fn playback_order(plans: &[SlotPlan]) -> Vec<(u32, usize, usize)> {
    let mut order = Vec::new();
    for (s, p) in plans.iter().enumerate() {
        if let SlotPlan::Animated { interp, times, .. } = p {
            let back = interp.lookbehind();
            for i in 0..times.len() {
                order.push((times[i.saturating_sub(back)], s, i));
            }
        }
    }
    order.sort_unstable();
    order
}

/// Serialises slot plans (`plans.len()` = joints x channels, slot = joint * channels + channel).
pub fn write_body(plans: &[SlotPlan], channels: usize) -> Vec<u8> {
    let order = playback_order(plans);
    let keys = order.len();
    // Stream position of (slot, key).
    let mut first = vec![0usize; plans.len() + 1];
    for (s, p) in plans.iter().enumerate() {
        let n = match p {
            SlotPlan::Animated { times, .. } => times.len(),
            _ => 0,
        };
        first[s + 1] = first[s] + n;
    }
    let mut index = vec![0u32; keys];
    for (pos, &(_, s, i)) in order.iter().enumerate() {
        index[first[s] + i] = pos as u32;
    }
    let mut pool: Vec<f32> = Vec::new();
    let mut w = ByteWriter::new();
    w.raw(&TAG);
    w.u32(plans.len() as u32);
    w.u32(keys as u32);
    let pool_len_at = w.len();
    w.u32(0);
    for (s, p) in plans.iter().enumerate() {
        let channel = s % channels;
        let (kind, interp, count) = match p {
            SlotPlan::Default => (Kind::Default, Interp::Linear, 0),
            SlotPlan::Constant(_) => {
                let n = if channel == 0 { 4 } else { 3 };
                (Kind::Constant, Interp::Linear, n)
            }
            SlotPlan::Animated { interp, times, .. } => (Kind::Animated, *interp, times.len()),
        };
        let pool_at = pool.len() as u32;
        match p {
            SlotPlan::Constant(v) => pool.extend_from_slice(&v.to_array()[..count]),
            SlotPlan::Animated { ranges, .. } => pool.extend_from_slice(ranges),
            _ => {}
        }
        let (ranged, segmented) = match p {
            SlotPlan::Animated {
                ranges, segmented, ..
            } => (channel == 0 && !ranges.is_empty(), *segmented),
            _ => (false, false),
        };
        w.u32(
            kind as u32
                | (interp as u32) << 2
                | (ranged as u32) << 3
                | (segmented as u32) << 4
                | pool_at << 5,
        );
        let animated = kind == Kind::Animated;
        w.u32(if animated { first[s] as u32 } else { 0 });
        w.u32(if animated { count as u32 } else { 0 });
    }
    w.patch_u32(pool_len_at, pool.len() as u32);
    for v in &pool {
        w.f32(*v);
    }
    for i in &index {
        w.u32(*i);
    }
    for &(_, s, i) in &order {
        if let SlotPlan::Animated {
            times, payloads, ..
        } = &plans[s]
        {
            w.u16(times[i] as u16);
            w.u16(jc(s / channels, s % channels));
            w.u32(payloads[i] as u32);
            w.u16((payloads[i] >> 32) as u16);
        }
    }
    debug_assert_eq!(
        Layout::new(plans.len(), keys, pool.len()).unwrap().end,
        w.len()
    );
    w.align(4);
    w.bytes
}
