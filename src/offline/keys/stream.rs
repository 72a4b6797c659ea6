//! Writes a keys body: slot table, pool, key index and the playback-ordered key stream.
//!
//! The stream is sorted by the time playback first needs each key: a linear track needs key `i`
//! from the time of key `i-1` (the span `[i-1, i]` starts there), a Catmull-Rom track from the
//! time of key `i-2` (the span `[i-2, i-1]` already uses key `i` as its far neighbour). The first
//! keys are needed at the time of key 0. Ties are broken by slot, then by key number, so a
//! forward cursor reads the stream once, front to back, and every key has arrived when needed.

use glam::Vec4;

use crate::format::bytes::ByteWriter;

use crate::format::keys::interp::Interp;
use crate::format::keys::layout::{index_bytes, jc, Kind, Layout, INDEX_PAGE, TAG};

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
        /// `segments` is not 0; empty for smallest-three rotations.
        ranges: Vec<f32>,
        /// Segment code of the ranges ([`super::format::segment_len`]).
        segments: u8,
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
    let mut positions = vec![0u32; keys];
    for (pos, &(_, s, i)) in order.iter().enumerate() {
        positions[first[s] + i] = pos as u32;
    }
    // Key index per slot: paged u16 offsets when every offset fits, else u32 positions.
    let mut index = ByteWriter::new();
    let mut slot_index = vec![(0usize, false); plans.len()];
    for s in 0..plans.len() {
        let pos = &positions[first[s]..first[s + 1]];
        if pos.is_empty() {
            continue;
        }
        let wide = pos
            .chunks(INDEX_PAGE)
            .any(|page| page[page.len() - 1] - page[0] > u16::MAX as u32);
        slot_index[s] = (index.len(), wide);
        if wide {
            pos.iter().for_each(|p| index.u32(*p));
        } else {
            pos.chunks(INDEX_PAGE).for_each(|page| index.u32(page[0]));
            for page in pos.chunks(INDEX_PAGE) {
                page.iter().for_each(|p| index.u16((p - page[0]) as u16));
            }
            index.align(4);
        }
        debug_assert_eq!(index.len() - slot_index[s].0, index_bytes(pos.len(), wide));
    }
    let mut pool: Vec<f32> = Vec::new();
    let mut w = ByteWriter::new();
    w.raw(&TAG);
    w.u32(plans.len() as u32);
    w.u32(keys as u32);
    let pool_len_at = w.len();
    w.u32(0);
    w.u32(index.len() as u32);
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
        let (ranged, segments) = match p {
            SlotPlan::Animated {
                ranges, segments, ..
            } => (channel == 0 && !ranges.is_empty(), *segments),
            _ => (false, 0),
        };
        w.u32(
            kind as u32
                | (interp as u32) << 2
                | (ranged as u32) << 3
                | (segments as u32 & 3) << 4
                | (slot_index[s].1 as u32) << 6
                | pool_at << 7,
        );
        let animated = kind == Kind::Animated;
        w.u32(if animated { slot_index[s].0 as u32 } else { 0 });
        w.u32(if animated { count as u32 } else { 0 });
    }
    w.patch_u32(pool_len_at, pool.len() as u32);
    for v in &pool {
        w.f32(*v);
    }
    w.raw(&index.bytes);
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
        Layout::new(plans.len(), keys, pool.len(), index.len())
            .unwrap()
            .end,
        w.len()
    );
    w.align(4);
    w.bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::keys::layout::{validate, Layout};
    use crate::format::CodecId;
    use crate::format::{Header, HEADER_SIZE};

    fn header(body: &[u8], joints: u32, samples: u32) -> Header {
        Header {
            version: crate::format::FORMAT_VERSION,
            codec: CodecId::Keys,
            total_size: (HEADER_SIZE + body.len()) as u32,
            checksum: 0,
            flags: 0,
            num_joints: joints,
            num_samples: samples,
            sample_rate: 60.0,
            body_offset: HEADER_SIZE as u32,
            body_size: body.len() as u32,
            additive: 0,
            num_curves: 0,
            curves_offset: 0,
            curves_size: 0,
        }
    }

    fn vector_track(times: Vec<u32>) -> SlotPlan {
        // Range [0, 1] per component; payload = time as the x fraction.
        let payloads = times
            .iter()
            .map(|&t| (t as u64 & 0xFFFF) | 0x8000 << 16)
            .collect();
        SlotPlan::Animated {
            interp: Interp::Linear,
            ranges: vec![0.0, 0.0, 0.0, 1.0, 1.0, 1.0],
            segments: 0,
            times,
            payloads,
        }
    }

    #[test]
    fn far_apart_keys_use_a_wide_index_and_validate() {
        let n = 65_536u32;
        // Joint 0 translation: keys at 0, 1, n-2, n-1; its last key is needed at n-2, after the
        // whole of joint 1's translation keys, so its page spans more than 65535 entries.
        let plans = vec![
            SlotPlan::Default,
            vector_track(vec![0, 1, n - 2, n - 1]),
            SlotPlan::Default,
            vector_track((0..n).collect()),
        ];
        let body = write_body(&plans, 2);
        let h = header(&body, 2, n);
        validate(&h, &body).unwrap();
        let lay = Layout::read(&body);
        let slot = lay.slot(&body, 1);
        assert!(slot.wide);
        assert!(!lay.slot(&body, 3).wide);
        // Needed at n-2 like joint 1's last key; ties go to the lower slot.
        assert_eq!(lay.key_pos(&body, &slot, 3), lay.keys - 2);
        for i in 0..4 {
            let e = lay.key_pos(&body, &slot, i);
            assert_eq!(lay.entry_jc(&body, e), jc(0, 1));
        }
        let dense = lay.slot(&body, 3);
        for i in [0usize, 31, 32, 33, 40_000, 65_535] {
            let e = lay.key_pos(&body, &dense, i);
            assert_eq!(lay.entry_time(&body, e) as usize, i);
            assert_eq!(lay.entry_jc(&body, e), jc(1, 1));
        }
    }

    #[test]
    fn playback_order_puts_each_key_at_its_need_time() {
        let plans = vec![
            vector_track(vec![0, 10, 20, 30]),
            SlotPlan::Animated {
                interp: Interp::CatmullRom,
                ranges: vec![],
                segments: 0,
                times: vec![0, 5, 25, 26, 40],
                payloads: vec![0; 5],
            },
        ];
        let order = playback_order(&plans);
        let needs: Vec<u32> = order.iter().map(|o| o.0).collect();
        assert!(needs.windows(2).all(|w| w[0] <= w[1]));
        // Linear key 2 (t=20) is needed at t=10; Catmull-Rom key 3 (t=26) at t=5.
        assert!(order.contains(&(10, 0, 2)));
        assert!(order.contains(&(5, 1, 3)));
        assert!(order.contains(&(0, 1, 2)));
    }
}
