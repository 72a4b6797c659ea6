//! The `vbr` body layout the encoder writes (the segments layout) and its validation. A blob
//! holds this body only in format version 2, which the runtime refuses: the compressor regroups
//! it (`offline::vbr::regroup`), and so does the offline conversion (`offline::regroup_blob`),
//! which validates it here first. `offline::vbr::reference` decodes it for tests.
//!
//! ```text
//! body header (32 bytes, little-endian)
//!   0  u8   layout version (1)
//!   1  u8   samples per segment L (1..=32)
//!   2  u16  reserved (0)
//!   4  u32  segment count (= ceil(samples / L))
//!   8  u32  animated sub-track count A
//!  12  u32  track table offset   (1 byte per joint)
//!  16  u32  constants offset     (rotation: 4 x f32, translation/scale: 3 x f32, joint order)
//!  20  u32  clip ranges offset   (A x 3 x (min f32, extent f32))
//!  24  u32  segment table offset (segment count x u32 segment offsets)
//!  28  u32  per-segment-drop rotation count P
//! track table byte of joint j: bits 0-1 rotation kind, 2-3 translation kind, 4-5 scale kind
//!   (0 default, 1 constant, 2 animated, 3 animated rotation whose dropped component is stored
//!   per segment), bits 6-7 the dropped rotation component (kind 2)
//! clip ranges: per animated sub-track in joint order, rotations (u16 min, u16 extent) over
//!   [-1, 1] per quaternion component x y z w (kind 3: all four; kind 2: the three stored ones), translations and scales 3 x (f32 min, f32 extent)
//! segment at its offset:
//!   u32 keyframe mask (bit s: local sample s is stored; first and last always set)
//!   u32 frame bits F (bits of one stored sample: sum of the rate bits of every component)
//!   3A x 5-bit rate indices (one per component) then P x 2-bit dropped components, padded to a byte
//!   A x 3 x u16 segment range fields
//!   stored samples x F bits (sample-major, sub-tracks in joint order, components x y z)
//! 8 zero bytes of read-ahead padding after the last segment (required: `READ_AHEAD`)
//! ```
//!
//! [`validate`] checks every offset, count, kind, rate and size against the body length, so the
//! regrouping may index without further checks.

use super::bitrate::{rate_bits, NUM_RATES, RATE_FIELD_BITS};
use crate::format::bytes::{read_u32, ByteReader};
use crate::format::quantize::bits::read_bits;
use crate::format::{BlobFlags, Header};
use crate::{Error, Result};

/// Layout version stored in the body.
pub const VERSION: u8 = 1;
/// Body header size.
pub const BODY_HEADER: usize = 32;
/// Largest segment length (the keyframe mask is 32 bits).
pub const MAX_SEGMENT_LEN: usize = 32;
/// Sub-track kinds in the track table.
pub const KIND_DEFAULT: u8 = 0;
/// Constant over the clip.
pub const KIND_CONSTANT: u8 = 1;
/// Stored per segment.
pub const KIND_ANIMATED: u8 = 2;
/// Animated rotation whose dropped component is chosen per segment.
pub const KIND_ANIMATED_PER_SEGMENT: u8 = 3;
/// Bytes of one animated rotation's clip ranges.
pub const ROTATION_RANGE_BYTES: usize = 16;
/// Bytes of one animated translation's or scale's clip ranges.
pub const VECTOR_RANGE_BYTES: usize = 24;
/// Bytes the body holds after the last segment, so that a 64-bit window over its last fields
/// ends inside the body.
pub const READ_AHEAD: usize = 8;
/// Bytes of a segment's fixed header (mask and frame bits).
pub const SEGMENT_HEADER: usize = 8;

/// The decoded body header: offsets the decoder uses directly.
#[derive(Debug, Clone, Copy)]
pub struct View {
    /// Samples per segment.
    pub seg_len: u32,
    /// Segment count.
    pub num_segments: u32,
    /// Animated sub-track count.
    pub num_animated: u32,
    /// Rotations with a per-segment dropped component.
    pub num_per_segment: u32,
    /// Track table offset.
    pub tracks: usize,
    /// Constants offset.
    pub constants: usize,
    /// Clip ranges offset.
    pub ranges: usize,
    /// Segment table offset.
    pub segments: usize,
}

impl View {
    /// Reads the header of a validated body.
    #[inline]
    pub fn read(body: &[u8]) -> View {
        View {
            seg_len: body[1] as u32,
            num_segments: read_u32(body, 4),
            num_animated: read_u32(body, 8),
            num_per_segment: read_u32(body, 28),
            tracks: read_u32(body, 12) as usize,
            constants: read_u32(body, 16) as usize,
            ranges: read_u32(body, 20) as usize,
            segments: read_u32(body, 24) as usize,
        }
    }

    /// Byte offset of segment `s`.
    #[inline(always)]
    pub fn segment_offset(&self, body: &[u8], s: u32) -> usize {
        read_u32(body, self.segments + 4 * s as usize) as usize
    }

    /// Byte offset of the stored frames of the segment at byte `off`: after its header, rate
    /// indices, dropped components and range fields.
    #[inline(always)]
    pub fn frames_offset(&self, off: usize) -> usize {
        off + SEGMENT_HEADER + self.rate_bytes() + 6 * self.num_animated as usize
    }

    /// Bytes of a segment's rate indices and dropped components.
    #[inline(always)]
    pub fn rate_bytes(&self) -> usize {
        (3 * self.num_animated as usize * RATE_FIELD_BITS as usize
            + 2 * self.num_per_segment as usize)
            .div_ceil(8)
    }
}

/// Kind of a channel (0 rotation, 1 translation, 2 scale) in a track table byte.
#[inline(always)]
pub fn kind(byte: u8, channel: u32) -> u8 {
    (byte >> (2 * channel)) & 3
}

/// Bytes a constant of `channel` occupies.
#[inline(always)]
pub fn constant_bytes(channel: u32) -> usize {
    if channel == 0 {
        16
    } else {
        12
    }
}

/// Bytes of an animated channel's clip ranges: a rotation with one dropped component per track
/// stores only its three stored components' ranges.
#[inline(always)]
pub fn range_bytes_of(channel: u32, kind: u8) -> usize {
    if channel != 0 {
        VECTOR_RANGE_BYTES
    } else if kind == KIND_ANIMATED_PER_SEGMENT {
        ROTATION_RANGE_BYTES
    } else {
        ROTATION_RANGE_BYTES - 4
    }
}

/// Checks a body against its header so that decoding can never index out of bounds and every
/// stored value the decoder copies to the output is within the clip limits. Linear in the body
/// size: see [`validate_counting`].
pub fn validate(h: &Header, body: &[u8]) -> Result<()> {
    validate_counting(h, body, &mut 0)
}

/// [`validate`], adding to `examined` how many segment bytes it looked at (also when it fails):
/// each segment must start at or after the end of the one before (the writer's order), so no
/// byte is examined twice and the count never exceeds the body size, whatever the offsets of a
/// hostile body say.
pub fn validate_counting(h: &Header, body: &[u8], examined: &mut usize) -> Result<()> {
    let bad = Error::CorruptBlob;
    let mut r = ByteReader::new(body);
    if r.u8()? != VERSION {
        return Err(bad("vbr: unknown layout version"));
    }
    let seg_len = r.u8()? as usize;
    if seg_len == 0 || seg_len > MAX_SEGMENT_LEN {
        return Err(bad("vbr: segment length out of range"));
    }
    if r.u16()? != 0 {
        return Err(bad("vbr: reserved field not zero"));
    }
    let num_segments = r.u32()? as usize;
    let n = h.num_samples as usize;
    if num_segments != n.div_ceil(seg_len) {
        return Err(bad("vbr: segment count does not match the sample count"));
    }
    let num_animated = r.u32()? as usize;
    let nj = h.num_joints as usize;
    if num_animated > 3 * nj {
        return Err(bad("vbr: more animated sub-tracks than channels"));
    }
    let tracks = r.u32()? as usize;
    let constants = r.u32()? as usize;
    let ranges = r.u32()? as usize;
    let segments = r.u32()? as usize;
    let num_per_segment = r.u32()? as usize;
    // Track table.
    let table = ByteReader::at(body, tracks)?.take(nj)?;
    let has_scale = h.has(BlobFlags::HAS_SCALE);
    let (mut animated, mut const_bytes, mut per_segment, mut range_bytes) =
        (0usize, 0usize, 0usize, 0usize);
    for &b in table {
        for ch in 0..3 {
            match kind(b, ch) {
                KIND_DEFAULT => {}
                KIND_CONSTANT => const_bytes += constant_bytes(ch),
                KIND_ANIMATED => {
                    animated += 1;
                    range_bytes += range_bytes_of(ch, KIND_ANIMATED);
                }
                _ if ch == 0 => {
                    animated += 1;
                    per_segment += 1;
                    range_bytes += range_bytes_of(ch, KIND_ANIMATED_PER_SEGMENT);
                }
                _ => return Err(bad("vbr: invalid sub-track kind")),
            }
            if ch == 2 && !has_scale && kind(b, ch) != KIND_DEFAULT {
                return Err(bad("vbr: scale stored in a blob without scale"));
            }
        }
    }
    if animated != num_animated || per_segment != num_per_segment {
        return Err(bad("vbr: animated sub-track count mismatch"));
    }
    // Sections lie in the writer's order, each right after the one before: every byte of the
    // body is accounted for (one clip has one body; describe() relies on the order too).
    let ordered = tracks == BODY_HEADER
        && tracks.checked_add(nj) == Some(constants)
        && constants.checked_add(const_bytes) == Some(ranges)
        && ranges.checked_add(range_bytes) == Some(segments);
    if !ordered {
        return Err(bad("vbr: sections not back to back in the writer's order"));
    }
    let consts = ByteReader::at(body, constants)?.take(const_bytes)?;
    check_constants(table, consts)?;
    let rg = ByteReader::at(body, ranges)?.take(range_bytes)?;
    let mut at = 0;
    for &b in table {
        for ch in 0..3 {
            let k = kind(b, ch);
            if k == KIND_ANIMATED || (ch == 0 && k == KIND_ANIMATED_PER_SEGMENT) {
                let n = range_bytes_of(ch, k);
                // min + extent * t must stay finite and within the clip value limits.
                let limit = 2.0 * crate::format::limits::MAX_ABS_VALUE;
                if ch != 0
                    && rg[at..at + n].chunks_exact(4).any(|c| {
                        let v = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                        !(v.is_finite() && v.abs() <= limit)
                    })
                {
                    return Err(bad("vbr: clip range not finite or out of bounds"));
                }
                at += n;
            }
        }
    }
    ByteReader::at(body, segments)?.take(num_segments * 4)?;
    let view = View::read(body);
    let rate_bytes = view.rate_bytes();
    // Segments follow the segment table in order, without overlap: each is examined once.
    let mut next_free = segments + num_segments * 4;
    for s in 0..num_segments {
        let off = view.segment_offset(body, s as u32);
        if off != next_free {
            return Err(bad("vbr: segments not back to back"));
        }
        let mut sr = ByteReader::at(body, off)?;
        let mask = sr.u32()?;
        let frame_bits = sr.u32()? as u64;
        if !keyframe_mask_valid(mask, (n - s * seg_len).min(seg_len)) {
            return Err(bad("vbr: invalid keyframe mask"));
        }
        let rates = sr.take(rate_bytes)?;
        let used = 3 * num_animated * RATE_FIELD_BITS as usize + 2 * num_per_segment;
        if !used.is_multiple_of(8) && rates[rate_bytes - 1] >> (used % 8) != 0 {
            return Err(bad("vbr: unused rate bits not zero"));
        }
        let mut bits = 0u64;
        for k in 0..3 * num_animated {
            let rate = read_bits(rates, k * RATE_FIELD_BITS as usize, RATE_FIELD_BITS);
            if rate as usize >= NUM_RATES {
                return Err(bad("vbr: invalid bit rate"));
            }
            bits += rate_bits(rate as u8) as u64;
        }
        if bits != frame_bits {
            return Err(bad("vbr: frame size does not match the bit rates"));
        }
        sr.take(num_animated * 6)?;
        let data_bits = frame_bits * mask.count_ones() as u64;
        let frames = sr.take(data_bits.div_ceil(8) as usize)?;
        if !data_bits.is_multiple_of(8) && frames[frames.len() - 1] >> (data_bits % 8) != 0 {
            return Err(bad("vbr: unused frame bits not zero"));
        }
        let end = sr.pos();
        *examined += end - off;
        next_free = end;
    }
    // The writer's read-ahead padding: the decoder's 64-bit windows over the last fields end
    // inside the body.
    if body.len() != next_free + READ_AHEAD || body[next_free..].iter().any(|&b| b != 0) {
        return Err(bad(
            "vbr: the body does not end with exactly 8 zero bytes of read-ahead padding",
        ));
    }
    Ok(())
}

/// Whether `mask` is a valid keyframe mask of a segment of `count` samples (1..=32): no bit
/// past the segment, its first and last samples stored.
pub fn keyframe_mask_valid(mask: u32, count: usize) -> bool {
    let valid = if count >= 32 {
        u32::MAX
    } else {
        (1u32 << count) - 1
    };
    count > 0 && mask & !valid == 0 && mask & 1 != 0 && mask & (1 << (count - 1)) != 0
}

/// Checks the constants section: finite values, rotations of unit length within
/// [`UNIT_TOLERANCE`], translations and scales within [`crate::format::limits::MAX_ABS_VALUE`] (the decoder
/// copies constants to the output as they are).
fn check_constants(table: &[u8], consts: &[u8]) -> Result<()> {
    let f = |o: usize| f32::from_le_bytes([consts[o], consts[o + 1], consts[o + 2], consts[o + 3]]);
    let mut at = 0;
    for &b in table {
        for ch in 0..3 {
            if kind(b, ch) != KIND_CONSTANT {
                continue;
            }
            let n = constant_bytes(ch) / 4;
            let v: [f32; 4] = std::array::from_fn(|i| if i < n { f(at + 4 * i) } else { 0.0 });
            at += 4 * n;
            if v.iter()
                .any(|x| !(x.is_finite() && x.abs() <= crate::format::limits::MAX_ABS_VALUE))
            {
                return Err(Error::CorruptBlob(
                    "vbr: constant not finite or out of range",
                ));
            }
            let len2: f32 = v.iter().map(|x| x * x).sum();
            if ch == 0 && (len2.sqrt() - 1.0).abs() > UNIT_TOLERANCE {
                return Err(Error::CorruptBlob(
                    "vbr: constant rotation is not unit length",
                ));
            }
        }
    }
    Ok(())
}

/// Largest deviation from unit length of a stored constant rotation.
pub const UNIT_TOLERANCE: f32 = 1.0e-3;
