//! Validation of a grouped body from an untrusted source ([`super::body`]'s layout): every
//! count, offset, kind, rate and value the decoders use is checked, so that they may index
//! without further checks. Linear in the body's bytes: every loop runs over entries the body
//! pays bytes for (joints: 6 bytes of joint map each; groups: 8 bytes of directory and at least
//! 24 of record; a segment's groups: its metadata).

use super::body::{Counts, HEADER, MAP_ANIMATED, MAP_DEFAULT, MAP_INDEX, MAP_STATIC, VERSION};
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

/// Checks a grouped body against its header (see the module).
pub fn validate(h: &Header, body: &[u8]) -> Result<()> {
    if body.len() < HEADER {
        return Err(bad("grouped: body shorter than its header"));
    }
    if body[0] != VERSION {
        return Err(bad("grouped: unknown layout version"));
    }
    if read_u16(body, 2) != 0 || read_u16(body, 26) & !1 != 0 || read_u32(body, 44) != 0 {
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
    // Sections, back to back; the body ends with the data, padded to 16 bytes with zeros.
    let columns = super::body::map_columns(h);
    let [st, va, de, map, dir, data, end] = c.sections(joints, columns);
    if end > body.len() || body.len() != end.next_multiple_of(16) {
        return Err(bad("grouped: sections do not match the body size"));
    }
    let (s, d) = (Counts::total(c.statics), Counts::total(c.defaults));
    let padding = [
        st + 2 * s..va,
        de + 2 * d..map,
        map + 2 * columns * joints..dir,
        end..body.len(),
    ];
    if padding.into_iter().any(|r| body[r].iter().any(|&b| b != 0)) {
        return Err(bad("grouped: padding not zero"));
    }
    let data = &body[data..end];

    // Static and default channels: per channel in joint order; constants finite and within the
    // clip limits, rotations of unit length.
    let f = |o: usize| f32::from_bits(read_u32(body, o));
    let (mut k, mut v) = (0, va);
    for ch in 0..3 {
        let mut last = None;
        for _ in 0..c.statics[ch] {
            check_order(&mut last, read_u16(body, st + 2 * k) as usize, joints)?;
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
            check_order(&mut last, read_u16(body, de + 2 * k) as usize, joints)?;
            k += 1;
        }
    }

    // Group directory and records: back to back from the data's start, each group's class its
    // channel's, every group of a channel but its last full.
    let groups = Counts::total(c.groups);
    let (mut rec, mut meta, mut lanes) = (0usize, 0usize, 0usize);
    let mut g = 0;
    for ch in 0..3 {
        for i in 0..c.groups[ch] as usize {
            let e = dir + 8 * g;
            g += 1;
            if read_u32(body, e) as usize != rec || read_u32(body, e + 4) as usize != meta {
                return Err(bad("grouped: group directory does not match the records"));
            }
            let head = data
                .get(rec..rec + 24)
                .ok_or(bad("grouped: group record out of bounds"))?;
            let (class, n, ps, mb) = (head[0], head[1] as usize, head[2], head[3] as usize);
            let last = i + 1 == c.groups[ch] as usize;
            if class as usize != ch || n == 0 || n > LANES || (!last && n != LANES) {
                return Err(bad("grouped: group class or lane count invalid"));
            }
            if ps > 1 || (ps == 1 && ch != 0) {
                return Err(bad("grouped: per-segment drops on a vector group"));
            }
            let rb = (5 * n).div_ceil(8);
            if mb != 3 * rb + 6 * n + 2 * ps as usize {
                return Err(bad("grouped: group metadata size invalid"));
            }
            for l in 0..LANES {
                let j = read_u16(head, 4 + 2 * l) as usize;
                if (l < n && j >= joints) || (l >= n && j != 0) {
                    return Err(bad("grouped: lane joint out of range"));
                }
            }
            let words = if ch == 0 { 3 + ps as usize } else { 6 };
            let ranges = data
                .get(rec + 24..rec + 24 + 4 * n * words)
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
            rec += 24 + ranges.len();
            meta += mb;
            lanes += n;
        }
    }
    if c.seg_table as usize != rec {
        return Err(bad("grouped: segment table not after the group records"));
    }
    let sb = c.start_bytes();
    if c.starts_at as usize != meta || c.meta_bytes as usize != meta + sb * groups.saturating_sub(1)
    {
        return Err(bad("grouped: segment metadata size invalid"));
    }

    // Joint map: every channel of every joint names a source of its channel that names the
    // joint. With as many sources as channels, each source is named once.
    let unlisted = if has_scale { 0 } else { joints };
    if s + d + lanes + unlisted != 3 * joints {
        return Err(bad("grouped: sources do not cover the channels"));
    }
    let [group_base, static_base, default_base] = c.bases();
    for j in 0..joints {
        for ch in 0..columns {
            let m = read_u16(body, map + 2 * (columns * j + ch));
            let i = (m & MAP_INDEX) as usize;
            let named = match m & !MAP_INDEX {
                MAP_STATIC if i < c.statics[ch] as usize => {
                    read_u16(body, st + 2 * (static_base[ch] as usize + i)) as usize
                }
                MAP_DEFAULT if i < c.defaults[ch] as usize => {
                    read_u16(body, de + 2 * (default_base[ch] as usize + i)) as usize
                }
                MAP_ANIMATED if i / LANES < c.groups[ch] as usize => {
                    let g = group_base[ch] as usize + i / LANES;
                    let r = read_u32(body, dir + 8 * g) as usize;
                    if i % LANES >= data[r + 1] as usize {
                        return Err(bad("grouped: joint map names an unused lane"));
                    }
                    read_u16(data, r + 4 + 2 * (i % LANES)) as usize
                }
                _ => return Err(bad("grouped: joint map source out of range")),
            };
            if named != j {
                return Err(bad("grouped: joint map and sources disagree"));
            }
        }
    }

    // Segments: in order after the segment table, without overlap (each byte examined once),
    // the frames followed by the decoders' padding.
    let table = c.seg_table as usize;
    let num_segments = c.num_segments as usize;
    let mut next = table
        .checked_add(4 * num_segments)
        .filter(|&e| e <= data.len())
        .ok_or(bad("grouped: segment table out of bounds"))?;
    let seg_len = c.seg_len as usize;
    for s in 0..num_segments {
        let off = read_u32(data, table + 4 * s) as usize;
        if off < next || off + 8 + c.meta_bytes as usize > data.len() {
            return Err(bad(
                "grouped: segments out of order, overlapping or out of bounds",
            ));
        }
        let mask = read_u32(data, off);
        let fb = read_u32(data, off + 4) as u64;
        if !keyframe_mask_valid(mask, (samples - s * seg_len).min(seg_len)) {
            return Err(bad("grouped: invalid keyframe mask"));
        }
        let m = off + 8;
        let mut bits = 0u64;
        for g in 0..groups {
            let r = read_u32(body, dir + 8 * g) as usize;
            let (n, ps) = (data[r + 1] as usize, data[r + 2] as usize);
            let at = m + read_u32(body, dir + 8 * g + 4) as usize;
            let at_start = m + c.starts_at as usize + sb * g.saturating_sub(1);
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
            if ps == 1 && (read_u16(data, at + 3 * rb + 6 * n) as u32) >> (2 * n) != 0 {
                return Err(bad("grouped: unused dropped components not zero"));
            }
        }
        if bits != fb {
            return Err(bad("grouped: frame size does not match the bit rates"));
        }
        let end = (m + c.meta_bytes as usize)
            .checked_add((fb * mask.count_ones() as u64).div_ceil(8) as usize)
            .filter(|&e| e <= data.len())
            .ok_or(bad("grouped: segment frames out of bounds"))?;
        next = end;
    }
    if data.len() != next + PADDING {
        return Err(bad("grouped: data lacks its 32 bytes of padding"));
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
