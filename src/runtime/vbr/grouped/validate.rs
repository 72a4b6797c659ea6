//! Validation of a grouped body from an untrusted source ([`super::body`]'s layout): every
//! count, offset, kind, rate and value the decoders use is checked, so that they may index
//! without further checks. Linear in the body's bytes: every loop runs over entries the body
//! pays bytes for (joints: a bit of each kinds mask, in words of 32; groups: at least 16 bytes
//! of record; a segment's groups: its metadata).

use super::body::{
    implies_bits, mask_words, meta_bytes, num_masks, record_bytes, record_head, stored_starts,
    Counts, Dir, FLAGS, FLAG_IMPLIED_BITS, FLAG_MASKS, FLAG_NARROW, FLAG_SMALL_TABLE, FLAG_WIDE,
    HEADER, MASK_ANIMATED, MASK_PER_SEGMENT, MASK_ROTATIONS, MASK_STATIC, RECORD_PER_SEGMENT,
    RECORD_WIDE_JOINTS, STARTS_EVERY, VERSION,
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
    let c = counts(h, body)?;
    let joints = h.num_joints as usize;
    // Sections, back to back; the body ends with the data and its padding.
    let columns = super::body::map_columns(h);
    let [data_at, va, kinds_at] = c
        .sections(joints, columns, body.len())
        .filter(|_| body.len().is_multiple_of(16))
        .ok_or(bad("grouped: sections do not match the body size"))?;
    // The data ends where the static values start (after the segments' padding).
    let data = &body[data_at..va];
    let kinds = Kinds {
        body,
        at: kinds_at,
        words: mask_words(joints),
        joints,
        columns,
    };
    kinds_match(&c, &kinds)?;
    constants(&c, body, va)?;
    let (rec, meta) = group_records(&c, &kinds, data)?;
    if c.seg_table as usize != rec {
        return Err(bad("grouped: segment table not after the group records"));
    }
    if c.meta_bytes as usize != meta + c.start_bytes() * stored_starts(Counts::total(c.groups)) {
        return Err(bad("grouped: segment metadata size invalid"));
    }
    let dir = directory(&c, data)?;
    let next = segments(&c, h.num_samples as usize, data, &dir)?;
    // The padding: zeros, the fewest that end the body on a multiple of 16 bytes with the
    // decoders' 32 bytes after the segments (the static values and kinds counted).
    let end = data_at + next;
    let tail = body.len() - va;
    if body.len() != (end + tail).max(end + PADDING).next_multiple_of(16)
        || data[next..].iter().any(|&b| b != 0)
    {
        return Err(bad(
            "grouped: padding after the segments not zero or of the wrong size",
        ));
    }
    Ok(())
}

/// The body header's counts, each within what the blob header allows.
fn counts(h: &Header, body: &[u8]) -> Result<Counts> {
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
    Ok(c)
}

/// The kinds section: per mask, a bit per joint in words of 32 (its place checked by
/// [`Counts::sections`]).
struct Kinds<'a> {
    body: &'a [u8],
    /// Its offset in the body.
    at: usize,
    /// Words per mask.
    words: usize,
    joints: usize,
    /// Channels with masks.
    columns: usize,
}

impl Kinds<'_> {
    /// Word `w` of mask `m`.
    fn word(&self, m: usize, w: usize) -> u32 {
        read_u32(self.body, self.at + 4 * (m * self.words + w))
    }

    /// The set bits of mask `m`.
    fn count(&self, m: usize) -> usize {
        (0..self.words)
            .map(|w| self.word(m, w).count_ones() as usize)
            .sum()
    }
}

/// Kinds: per channel its masks disjoint, no bit past the last joint, and as many bits as the
/// header counts.
fn kinds_match(c: &Counts, k: &Kinds) -> Result<()> {
    let (words, joints, columns) = (k.words, k.joints, k.columns);
    let mut animated = [0usize; 3];
    for w in 0..words {
        let valid = if 32 * (w + 1) <= joints {
            u32::MAX
        } else {
            (1u32 << (joints % 32)) - 1
        };
        for m in 0..num_masks(columns) {
            if k.word(m, w) & !valid != 0 {
                return Err(bad("grouped: kinds name a joint past the last"));
            }
        }
        for ch in 0..columns {
            let (a, st) = (k.word(MASK_ANIMATED[ch], w), k.word(MASK_STATIC[ch], w));
            let ps = if ch == 0 {
                k.word(MASK_PER_SEGMENT, w)
            } else {
                0
            };
            if a & st != 0 || a & ps != 0 || st & ps != 0 {
                return Err(bad("grouped: a joint's channel of two kinds"));
            }
            animated[ch] += (a.count_ones() + ps.count_ones()) as usize;
        }
    }
    for ch in 0..columns {
        let statics = k.count(MASK_STATIC[ch]);
        if statics != c.statics[ch] as usize
            || joints - statics - animated[ch] != c.defaults[ch] as usize
        {
            return Err(bad("grouped: kinds do not match the channel counts"));
        }
    }
    Ok(())
}

/// Constants (from byte `va` of the body): finite and within the clip limits, rotations of
/// unit length.
fn constants(c: &Counts, body: &[u8], va: usize) -> Result<()> {
    let f = |o: usize| f32::from_bits(read_u32(body, o));
    let mut v = va;
    for ch in 0..3 {
        for _ in 0..c.statics[ch] {
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
    Ok(())
}

/// Group records: back to back from the data's start, each group's class its channel's, every
/// group of a channel but its last full, the rotation groups with per-segment drops after
/// those without (from the header's first one), so that [`Dir`] places each; each lane's joint
/// the kinds' next animated joint of its channel. Returns the records' bytes and the groups'
/// metadata bytes in a segment.
fn group_records(c: &Counts, k: &Kinds, data: &[u8]) -> Result<(usize, usize)> {
    let jb = c.joint_bytes();
    let wide_joints = (jb == 2) as u8 * RECORD_WIDE_JOINTS;
    let head_bytes = record_head(jb);
    let (mut rec, mut meta) = (0usize, 0usize);
    let plain = k.count(MASK_ROTATIONS);
    let word = |m: usize, w: usize| k.word(m, w);
    #[allow(clippy::needless_range_loop)] // `ch` names a channel in the header and the masks
    for ch in 0..3 {
        // The channel's lanes' joints, in order (none without a mask: scales without scale).
        let (first, second) = match ch {
            _ if ch >= k.columns => (None, None),
            0 => (Some(MASK_ROTATIONS), Some(MASK_PER_SEGMENT)),
            _ => (Some(MASK_ANIMATED[ch]), None),
        };
        let mut lane_joints =
            Bits::new(&word, k.words, first).chain(Bits::new(&word, k.words, second));
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
            if ch == 0 && ps != (LANES * i + n > plain) {
                return Err(bad("grouped: per-segment drops do not match the kinds"));
            }
            for l in 0..LANES {
                let j = if jb == 1 {
                    head[8 + l] as usize
                } else {
                    read_u16(head, 8 + 2 * l) as usize
                };
                // The channel's animated joints in order (rotations: per-track drops first).
                let expected = if l < n { lane_joints.next() } else { Some(0) };
                if expected != Some(j) {
                    return Err(bad("grouped: lanes' joints do not match the kinds"));
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
        }
        if lane_joints.next().is_some() {
            return Err(bad("grouped: kinds name more animated channels than lanes"));
        }
    }
    Ok((rec, meta))
}

/// The decoders place records without a directory ([`Dir`], computed once the records are
/// known to be in bounds): it must agree with the records.
fn directory(c: &Counts, data: &[u8]) -> Result<Dir> {
    let jb = c.joint_bytes();
    let dir = Dir::new(c.groups, c.first_per_segment, jb, data);
    let (mut rec, mut meta) = (0usize, 0usize);
    for g in 0..Counts::total(c.groups) {
        if dir.at(g) != [rec as u32, meta as u32] {
            return Err(bad("grouped: group records do not follow the layout"));
        }
        let (class, n, ps) = (data[rec], data[rec + 1] as usize, data[rec + 2] & 1 != 0);
        rec += record_bytes(class as usize, n, ps, jb);
        meta += meta_bytes(n, ps);
    }
    Ok(dir)
}

/// Segments: in order right after the segment table, each right after the one before (each
/// byte examined once): the keyframe mask, the groups' stored first bits and rates, the frame
/// size, the frames in bounds with their unused bits zero; the table's and the segment
/// headers' forms as the segments need. Returns the end of the last segment's frames.
fn segments(c: &Counts, samples: usize, data: &[u8], dir: &Dir) -> Result<usize> {
    let groups = Counts::total(c.groups);
    let sb = c.start_bytes();
    // A group's metadata offset, lane count and per-segment drops (validated before).
    let record = |g: usize| {
        let [r, m] = dir.at(g);
        let r = r as usize;
        (m as usize, data[r + 1] as usize, data[r + 2] & 1 != 0)
    };
    let table = c.seg_table as usize;
    let num_segments = c.num_segments as usize;
    let tb = c.table_bytes();
    let mut next = table
        .checked_add(tb * num_segments)
        .filter(|&e| e <= data.len())
        .ok_or(bad("grouped: segment table out of bounds"))?;
    // Entry `s` (the table lies in the data: checked above).
    let entry = |s: usize| match tb {
        2 => read_u16(data, table + 2 * s) as usize,
        _ => read_u32(data, table + 4 * s) as usize,
    };
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
        let off = entry(s);
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
            let (gm, n, ps) = record(g);
            let at = m + gm;
            let at_start = m + starts_at + sb * (g / STARTS_EVERY).saturating_sub(1);
            let start = match (g % STARTS_EVERY, g, sb) {
                (_, 0, _) => 0,
                (1.., _, _) => bits,
                (_, _, 4) => read_u32(data, at_start) as u64,
                _ => read_u16(data, at_start) as u64,
            };
            if start != bits {
                return Err(bad(
                    "grouped: a group's first bit does not match the bit rates",
                ));
            }
            bits += group_bits(data, at, n, ps)?;
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
    // Segment table entries of u16 exactly when every segment starts below byte 65536.
    if c.has(FLAG_SMALL_TABLE) != (entry(num_segments - 1) <= u16::MAX as usize) {
        return Err(bad(
            "grouped: segment table width does not match the offsets",
        ));
    }
    if masks != any_dropped || wide != any_wide {
        return Err(bad(
            "grouped: segment header form does not match the segments",
        ));
    }
    Ok(next)
}

/// The frame bits of a group of `n` lanes whose metadata in a segment is at byte `at`: its
/// rates valid and their unused bits zero, and (per-segment drops) the unused drop bits zero.
fn group_bits(data: &[u8], at: usize, n: usize, ps: bool) -> Result<u64> {
    let rb = (5 * n).div_ceil(8);
    let mut bits = 0u64;
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
    Ok(bits)
}

/// The set bits of a kinds mask in increasing order, read a word at a time through `word(mask,
/// word)` (none for no mask).
struct Bits<'a, F: Fn(usize, usize) -> u32> {
    word: &'a F,
    words: usize,
    mask: Option<usize>,
    /// Words read.
    w: usize,
    /// The bits of word `w - 1` not yet returned.
    x: u32,
}

impl<'a, F: Fn(usize, usize) -> u32> Bits<'a, F> {
    fn new(word: &'a F, words: usize, mask: Option<usize>) -> Self {
        Bits {
            word,
            words,
            mask,
            w: 0,
            x: 0,
        }
    }
}

impl<F: Fn(usize, usize) -> u32> Iterator for Bits<'_, F> {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        let m = self.mask?;
        while self.x == 0 {
            if self.w == self.words {
                return None;
            }
            self.x = (self.word)(m, self.w);
            self.w += 1;
        }
        let j = 32 * (self.w - 1) + self.x.trailing_zeros() as usize;
        self.x &= self.x - 1;
        Some(j)
    }
}
