//! Validation of a grouped body from an untrusted source ([`super::body`]'s layout): every
//! count, offset, kind, rate and value the decoders use is checked, so that they may index
//! without further checks. Linear in the body's bytes: every loop runs over entries the body
//! pays bytes for (joints: at least 2 bytes of joint map each; groups: at least 16 bytes of
//! record; a segment's groups: its metadata).

use super::body::{
    implies_bits, meta_bytes, record_bytes, record_head, Counts, Dir, FLAGS, FLAG_IMPLIED_BITS,
    FLAG_MASKS, FLAG_NARROW, FLAG_WIDE, HEADER, MAP_ANIMATED, MAP_DEFAULT, MAP_INDEX, MAP_STATIC,
    RECORD_PER_SEGMENT, RECORD_WIDE_JOINTS, SMALL_MAP_INDEX, VERSION,
};
use super::{LANES, PADDING};
use crate::format::bytes::{read_u16, read_u32};
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::vbr::bitrate::{rate_bits, NUM_RATES};
use crate::format::vbr::layout::{keyframe_mask_valid, MAX_SEGMENT_LEN, UNIT_TOLERANCE};
use crate::format::{BlobFlags, Header};
use crate::{Error, Result};

fn bad(what: &'static str) -> Error {
    Error::CorruptBlob(what)
}

/// Checks a grouped body against its header (see the module). Every byte is accounted for:
/// the sections follow one another, each as long as its contents need, and every padding
/// byte is zero, so one clip has one body.
pub fn validate(h: &Header, body: &[u8]) -> Result<()> {
    if body.len() < HEADER {
        return Err(bad("grouped: body shorter than its header"));
    }
    if body[0] != VERSION {
        return Err(bad("grouped: unknown layout version"));
    }
    if body[2] & !FLAGS != 0 || body[3] != 0 {
        return Err(bad("grouped: reserved field not zero"));
    }
    let c = Counts::read(body);
    let joints = h.num_joints as usize;
    if c.seg_len == 0 || c.seg_len as usize > MAX_SEGMENT_LEN {
        return Err(bad("grouped: segment length out of range"));
    }
    let samples = h.num_samples as usize;
    if samples == 0 || c.num_segments as usize != samples.div_ceil(c.seg_len as usize) {
        return Err(bad(
            "grouped: segment count does not match the sample count",
        ));
    }
    if c.has(FLAG_NARROW) != (joints <= 256) {
        return Err(bad("grouped: joint index width does not match the joints"));
    }
    let has_scale = h.has(BlobFlags::HAS_SCALE);
    for ch in 0..3 {
        if c.statics[ch] as usize > joints
            || c.defaults[ch] as usize > joints
            || c.groups[ch] as usize > joints.div_ceil(LANES)
        {
            return Err(bad("grouped: more channels than joints"));
        }
    }
    if !has_scale && (c.statics[2] != 0 || c.groups[2] != 0 || c.defaults[2] != 0) {
        return Err(bad("grouped: scale stored in a blob without scale"));
    }
    if c.first_per_segment > c.groups[0] {
        return Err(bad("grouped: first per-segment group out of range"));
    }
    // Sections, back to back; the body ends with the data and its padding.
    let columns = super::body::map_columns(h);
    let [st, va, de, map, data_at] = c.sections(joints, columns);
    if data_at > body.len() {
        return Err(bad("grouped: sections do not match the body size"));
    }
    let (s, d) = (Counts::total(c.statics), Counts::total(c.defaults));
    let (jb, mb) = (c.joint_bytes(), c.map_bytes());
    let padding = [
        st + jb * s..va,
        de + jb * d..map,
        map + mb * columns * joints..data_at,
    ];
    if padding.into_iter().any(|r| body[r].iter().any(|&b| b != 0)) {
        return Err(bad("grouped: padding not zero"));
    }
    let data = &body[data_at..];
    let joint = |at: usize| {
        if jb == 1 {
            body[at] as usize
        } else {
            read_u16(body, at) as usize
        }
    };

    // Static and default channels: per channel in joint order; constants finite and within the
    // clip limits, rotations of unit length.
    let f = |o: usize| f32::from_bits(read_u32(body, o));
    let (mut k, mut v) = (0, va);
    for ch in 0..3 {
        let mut last = None;
        for _ in 0..c.statics[ch] {
            check_order(&mut last, joint(st + jb * k), joints)?;
            k += 1;
            let n = if ch == 0 { 4 } else { 3 };
            let x: [f32; 4] = std::array::from_fn(|i| if i < n { f(v + 4 * i) } else { 0.0 });
            v += 4 * n;
            if x.iter()
                .any(|x| !(x.is_finite() && x.abs() <= MAX_ABS_VALUE))
            {
                return Err(bad("grouped: constant not finite or out of range"));
            }
            let len = x.iter().map(|x| x * x).sum::<f32>().sqrt();
            if ch == 0 && (len - 1.0).abs() > UNIT_TOLERANCE {
                return Err(bad("grouped: constant rotation is not unit length"));
            }
        }
    }
    let mut k = 0;
    for ch in 0..3 {
        let mut last = None;
        for _ in 0..c.defaults[ch] {
            check_order(&mut last, joint(de + jb * k), joints)?;
            k += 1;
        }
    }

    // Group records: back to back from the data's start, each group's class its channel's,
    // every group of a channel but its last full, the rotation groups with per-segment drops
    // after those without (from the header's first one), so that [`Dir`] places each.
    let groups = Counts::total(c.groups);
    let wide_joints = (jb == 2) as u8 * RECORD_WIDE_JOINTS;
    let head_bytes = record_head(jb);
    let (mut rec, mut meta, mut lanes) = (0usize, 0usize, 0usize);
    // Each group's record and metadata offsets, as the decoders find them ([`Dir`], computed
    // once the channels' last records are known to be in bounds) must be where the records
    // lie: checked in a second pass.
    for ch in 0..3 {
        for i in 0..c.groups[ch] as usize {
            let head = data
                .get(rec..rec + head_bytes)
                .ok_or(bad("grouped: group record out of bounds"))?;
            let (class, n, flags, m) = (head[0], head[1] as usize, head[2], head[3] as usize);
            let last = i + 1 == c.groups[ch] as usize;
            if class as usize != ch || n == 0 || n > LANES || (!last && n != LANES) {
                return Err(bad("grouped: group class or lane count invalid"));
            }
            let ps = flags & RECORD_PER_SEGMENT != 0;
            if flags & !RECORD_PER_SEGMENT != wide_joints {
                return Err(bad("grouped: group record flags invalid"));
            }
            if ps != (ch == 0 && i >= c.first_per_segment as usize) {
                return Err(bad("grouped: per-segment drops out of order"));
            }
            if m != meta_bytes(n, ps) {
                return Err(bad("grouped: group metadata size invalid"));
            }
            let drops = read_u32(head, 4);
            if (ch != 0 || ps) && drops != 0 || n < LANES && drops >> (2 * n) != 0 {
                return Err(bad("grouped: unused dropped components not zero"));
            }
            for l in 0..LANES {
                let j = if jb == 1 {
                    head[8 + l] as usize
                } else {
                    read_u16(head, 8 + 2 * l) as usize
                };
                if (l < n && j >= joints) || (l >= n && j != 0) {
                    return Err(bad("grouped: lane joint out of range"));
                }
            }
            let size = record_bytes(ch, n, ps, jb);
            let ranges = data
                .get(rec + head_bytes..rec + size)
                .ok_or(bad("grouped: group record out of bounds"))?;
            if ch != 0 {
                let limit = 2.0 * MAX_ABS_VALUE;
                if ranges.chunks_exact(4).any(|b| {
                    let v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    !(v.is_finite() && v.abs() <= limit)
                }) {
                    return Err(bad("grouped: clip range not finite or out of bounds"));
                }
            }
            rec += size;
            meta += m;
            lanes += n;
        }
    }
    if c.seg_table as usize != rec {
        return Err(bad("grouped: segment table not after the group records"));
    }
    let sb = c.start_bytes();
    if c.meta_bytes as usize != meta + sb * groups.saturating_sub(1) {
        return Err(bad("grouped: segment metadata size invalid"));
    }
    // The decoders place records without a directory: it must agree with the records.
    let dir = Dir::new(c.groups, c.first_per_segment, jb, data);
    let (mut rec, mut meta) = (0usize, 0usize);
    for g in 0..groups {
        if dir.at(g) != [rec as u32, meta as u32] {
            return Err(bad("grouped: group records do not follow the layout"));
        }
        let (class, n, ps) = (data[rec], data[rec + 1] as usize, data[rec + 2] & 1 != 0);
        rec += record_bytes(class as usize, n, ps, jb);
        meta += meta_bytes(n, ps);
    }
    // A group's record offset, lane count and per-segment drops (validated above).
    let record = |g: usize| {
        let [r, m] = dir.at(g);
        let r = r as usize;
        (r, m as usize, data[r + 1] as usize, data[r + 2] & 1 != 0)
    };

    // Joint map: every channel of every joint names a source of its channel that names the
    // joint. With as many sources as channels, each source is named once.
    let unlisted = if has_scale { 0 } else { joints };
    if s + d + lanes + unlisted != 3 * joints {
        return Err(bad("grouped: sources do not cover the channels"));
    }
    let [group_base, static_base, default_base] = c.bases();
    let mut small = true;
    for j in 0..joints {
        for ch in 0..columns {
            let e = columns * j + ch;
            let m = if mb == 1 {
                let b = body[map + e] as u16;
                (b >> 6) << 14 | (b & SMALL_MAP_INDEX)
            } else {
                read_u16(body, map + 2 * e)
            };
            let i = (m & MAP_INDEX) as usize;
            small &= i <= SMALL_MAP_INDEX as usize;
            let named = match m & !MAP_INDEX {
                MAP_STATIC if i < c.statics[ch] as usize => {
                    joint(st + jb * (static_base[ch] as usize + i))
                }
                MAP_DEFAULT if i < c.defaults[ch] as usize => {
                    joint(de + jb * (default_base[ch] as usize + i))
                }
                MAP_ANIMATED if i / LANES < c.groups[ch] as usize => {
                    let (r, _, n, _) = record(group_base[ch] as usize + i / LANES);
                    if i % LANES >= n {
                        return Err(bad("grouped: joint map names an unused lane"));
                    }
                    let at = r + 8 + jb * (i % LANES);
                    if jb == 1 {
                        data[at] as usize
                    } else {
                        read_u16(data, at) as usize
                    }
                }
                _ => return Err(bad("grouped: joint map source out of range")),
            };
            if named != j {
                return Err(bad("grouped: joint map and sources disagree"));
            }
        }
    }
    if mb == 2 && small {
        return Err(bad("grouped: joint map wider than its indices need"));
    }

    // Segments: in order right after the segment table, each right after the one before
    // (each byte examined once), then the decoders' padding, all zero.
    let table = c.seg_table as usize;
    let num_segments = c.num_segments as usize;
    let mut next = table
        .checked_add(4 * num_segments)
        .filter(|&e| e <= data.len())
        .ok_or(bad("grouped: segment table out of bounds"))?;
    let seg_len = c.seg_len as usize;
    let (masks, wide) = (c.has(FLAG_MASKS), c.has(FLAG_WIDE));
    if c.has(FLAG_IMPLIED_BITS) != implies_bits(c.seg_len, masks) {
        return Err(bad(
            "grouped: implied frame bits flag does not match the segments",
        ));
    }
    let starts_at = c.starts_at();
    let (mut any_dropped, mut any_wide) = (false, false);
    for s in 0..num_segments {
        let off = read_u32(data, table + 4 * s) as usize;
        let seg_head = c.segment_header(s);
        if off != next || off + seg_head + c.meta_bytes as usize > data.len() {
            return Err(bad("grouped: segments not back to back or out of bounds"));
        }
        let len = (samples - s * seg_len).min(seg_len);
        let all = ((1u64 << len) - 1) as u32;
        let mask = if masks { read_u32(data, off) } else { all };
        // Frame bits not stored are those of the rates (below): the next segment, which must
        // start where these frames end, gives the decoders the same.
        let stored_fb = match (seg_head, wide) {
            (0, _) => None,
            (_, true) => Some(read_u32(data, off + 4 * masks as usize) as u64),
            _ => Some(read_u16(data, off + 4 * masks as usize) as u64),
        };
        if !keyframe_mask_valid(mask, len) {
            return Err(bad("grouped: invalid keyframe mask"));
        }
        any_dropped |= mask != all;
        let m = off + seg_head;
        let mut bits = 0u64;
        for g in 0..groups {
            let (_, gm, n, ps) = record(g);
            let at = m + gm;
            let at_start = m + starts_at + sb * g.saturating_sub(1);
            let start = match (g, sb) {
                (0, _) => 0,
                (_, 4) => read_u32(data, at_start) as u64,
                _ => read_u16(data, at_start) as u64,
            };
            if start != bits {
                return Err(bad(
                    "grouped: a group's first bit does not match the bit rates",
                ));
            }
            let rb = (5 * n).div_ceil(8);
            for comp in 0..3 {
                // The component's rates in one word (at most 40 bits).
                let field = &data[at + rb * comp..at + rb * (comp + 1)];
                let w = field.iter().rev().fold(0u64, |w, &b| w << 8 | b as u64);
                for l in 0..n {
                    let rate = (w >> (5 * l)) as usize & 31;
                    if rate >= NUM_RATES {
                        return Err(bad("grouped: invalid bit rate"));
                    }
                    bits += rate_bits(rate as u8) as u64;
                }
                if w >> (5 * n) != 0 {
                    return Err(bad("grouped: unused rate bits not zero"));
                }
            }
            if ps && (read_u16(data, at + 3 * rb + 6 * n) as u32) >> (2 * n) != 0 {
                return Err(bad("grouped: unused dropped components not zero"));
            }
        }
        let fb = bits;
        if stored_fb.is_some_and(|f| f != fb) {
            return Err(bad("grouped: frame size does not match the bit rates"));
        }
        any_wide |= fb > u16::MAX as u64;
        let stored = (fb * mask.count_ones() as u64).div_ceil(8) as usize;
        let end = (m + c.meta_bytes as usize)
            .checked_add(stored)
            .filter(|&e| e <= data.len())
            .ok_or(bad("grouped: segment frames out of bounds"))?;
        // The last frame's unused bits are zero.
        let used = fb * mask.count_ones() as u64;
        if !used.is_multiple_of(8) && data[end - 1] >> (used % 8) != 0 {
            return Err(bad("grouped: unused frame bits not zero"));
        }
        next = end;
    }
    if masks != any_dropped || wide != any_wide {
        return Err(bad(
            "grouped: segment header form does not match the segments",
        ));
    }
    // The padding: zeros, at least the decoders' 32 bytes, and the fewest that end the body
    // on a multiple of 16 bytes.
    if body.len() != (data_at + next + PADDING).next_multiple_of(16)
        || data[next..].iter().any(|&b| b != 0)
    {
        return Err(bad(
            "grouped: padding after the segments not zero or of the wrong size",
        ));
    }
    Ok(())
}

/// Checks that joint `j` is below `joints` and after `last` (channels in joint order).
fn check_order(last: &mut Option<usize>, j: usize, joints: usize) -> Result<()> {
    if j >= joints || last.is_some_and(|l| j <= l) {
        return Err(bad("grouped: channel joints out of range or order"));
    }
    *last = Some(j);
    Ok(())
}
