//! The `keys` body layout, its writer, its bounds-checked validation and raw accessors.
//!
//! ```text
//! offset        size            field
//! 0             4               tag "KEY1"
//! 4             4               slot count S (= joints x channels; channels 3 with scale, else 2)
//! 8             4               key count K (stream entries)
//! 12            4               pool length P (f32 values)
//! 16            4               key index length I (bytes, multiple of 4)
//! 20            12 x S          slot table, slot = joint * channels + channel:
//!                                 u32 bits 0-1 kind (0 default, 1 constant, 2 animated),
//!                                     bit 2 interpolation (0 linear, 1 Catmull-Rom),
//!                                     bit 3 rotation keys range-reduced (one component
//!                                           dropped per range, 16/16/16) not smallest-three,
//!                                     bits 4-5 ranges: 0 one per track, 1 one per
//!                                           SEGMENT_LEN samples, 2 one per FINE_SEGMENT_LEN
//!                                           (a key uses the segment of its time),
//!                                     bit 6 wide key index (u32 positions),
//!                                     bits 7-31 pool offset (constant value / key ranges)
//!                                 u32 byte offset of the slot's key index, u32 key count
//! ...           4 x P           pool of f32 (constant rotation 4, constant vector 3,
//!                               animated vector min[3] + extent[3], range-reduced rotation
//!                               min[3] + extent[3] + dropped component, once or per segment;
//!                               smallest-three rotation none)
//! ...           I               key index: per slot, the stream position of each of its keys,
//!                               either wide (u32 each) or paged: one u32 base per page of
//!                               INDEX_PAGE keys, then a u16 offset from its page's base per key
//!                               (padded to 4 bytes)
//! ...           10 x K          key stream, sorted by the time playback first needs each key:
//!                                 u16 key time (sample), u16 joint | channel << 14,
//!                                 48-bit payload (smallest-three or range-reduced 16/16/16)
//! ```

use crate::format::bytes::{read_f32, read_u16, read_u32, ByteReader};
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::BlobFlags;
use crate::format::Header;
use crate::{Error, Result};

use super::interp::Interp;

/// Tag at the start of every keys body.
pub const TAG: [u8; 4] = *b"KEY1";
/// Bytes of the fixed body header.
pub const BODY_HEADER: usize = 20;
/// Keys per page of a paged key index.
pub const INDEX_PAGE: usize = 32;
/// Bytes per slot-table entry.
pub const SLOT_SIZE: usize = 12;
/// Bytes per key-stream entry.
pub const ENTRY_SIZE: usize = 10;
/// Samples per range segment of slots with segment code 1.
pub const SEGMENT_LEN: usize = 64;
/// Samples per range segment of slots with segment code 2 (last resort for precision).
pub const FINE_SEGMENT_LEN: usize = 8;

/// Samples per range segment for a slot's segment code (`None`: one range for the track).
#[inline]
pub fn segment_len(code: u8) -> Option<usize> {
    match code {
        1 => Some(SEGMENT_LEN),
        2 => Some(FINE_SEGMENT_LEN),
        _ => None,
    }
}

/// Ranges a slot with segment code `code` stores for a clip of `num_samples` samples.
#[inline]
pub fn range_count(code: u8, num_samples: usize) -> usize {
    segment_len(code).map_or(1, |len| num_samples.div_ceil(len).max(1))
}

/// Pool floats per key range: 7 for rotations (min, extent, dropped component), 6 for vectors.
#[inline]
pub fn range_stride(channel: usize) -> usize {
    if channel == CH_ROTATION {
        7
    } else {
        6
    }
}

/// Channel numbers as stored in the top two bits of an entry's joint field.
pub const CH_ROTATION: usize = 0;
/// Translation channel.
pub const CH_TRANSLATION: usize = 1;
/// Scale channel.
pub const CH_SCALE: usize = 2;

/// What a slot stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Not stored: the default value.
    Default = 0,
    /// One value in the pool.
    Constant = 1,
    /// Keys in the stream.
    Animated = 2,
}

/// Channels per joint for a header.
#[inline]
pub fn channels(h: &Header) -> usize {
    if h.has(BlobFlags::HAS_SCALE) {
        3
    } else {
        2
    }
}

/// Pool floats a slot uses in a clip of `num_samples` samples.
#[inline]
pub fn pool_need(slot: &Slot, channel: usize, num_samples: usize) -> usize {
    match (slot.kind, channel) {
        (Kind::Default, _) => 0,
        (Kind::Constant, CH_ROTATION) => 4,
        (Kind::Constant, _) => 3,
        (Kind::Animated, CH_ROTATION) if !slot.ranged => 0,
        (Kind::Animated, c) => range_stride(c) * range_count(slot.segments, num_samples),
    }
}

/// One decoded slot-table entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// Storage kind.
    pub kind: Kind,
    /// Interpolation of animated slots.
    pub interp: Interp,
    /// Rotation keys are range-reduced (drop w) rather than smallest-three.
    pub ranged: bool,
    /// Segment code of the key ranges (see [`segment_len`]; 3 is invalid).
    pub segments: u8,
    /// First pool float.
    pub pool: usize,
    /// Key index stored as u32 positions (else paged u16 offsets).
    pub wide: bool,
    /// Byte offset of the slot's key index within the index section.
    pub index: usize,
    /// Number of keys.
    pub count: usize,
}

/// Byte offsets of a body's sections (computed from its counts).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Slot count.
    pub slots: usize,
    /// Key count.
    pub keys: usize,
    /// Pool length in floats.
    pub pool_len: usize,
    /// Offset of the pool.
    pub pool: usize,
    /// Offset of the key index.
    pub index: usize,
    /// Offset of the key stream.
    pub stream: usize,
    /// End of the stream.
    pub end: usize,
}

impl Layout {
    /// Layout from the counts (checked arithmetic; `None` on overflow).
    pub fn new(slots: usize, keys: usize, pool_len: usize, index_len: usize) -> Option<Layout> {
        let pool = BODY_HEADER.checked_add(slots.checked_mul(SLOT_SIZE)?)?;
        let index = pool.checked_add(pool_len.checked_mul(4)?)?;
        let stream = index.checked_add(index_len)?;
        let end = stream.checked_add(keys.checked_mul(ENTRY_SIZE)?)?;
        Some(Layout {
            slots,
            keys,
            pool_len,
            pool,
            index,
            stream,
            end,
        })
    }

    /// Reads the layout of a validated body (no checks).
    #[inline]
    pub fn read(body: &[u8]) -> Layout {
        let slots = read_u32(body, 4) as usize;
        let keys = read_u32(body, 8) as usize;
        let pool_len = read_u32(body, 12) as usize;
        let index_len = read_u32(body, 16) as usize;
        let pool = BODY_HEADER + slots * SLOT_SIZE;
        let index = pool + pool_len * 4;
        let stream = index + index_len;
        Layout {
            slots,
            keys,
            pool_len,
            pool,
            index,
            stream,
            end: stream + keys * ENTRY_SIZE,
        }
    }

    /// The slot-table entry `s`.
    #[inline]
    pub fn slot(&self, body: &[u8], s: usize) -> Slot {
        let o = BODY_HEADER + s * SLOT_SIZE;
        let w0 = read_u32(body, o);
        let kind = match w0 & 3 {
            1 => Kind::Constant,
            2 => Kind::Animated,
            _ => Kind::Default,
        };
        let interp = if w0 & 4 != 0 {
            Interp::CatmullRom
        } else {
            Interp::Linear
        };
        Slot {
            kind,
            interp,
            ranged: w0 & 8 != 0,
            segments: ((w0 >> 4) & 3) as u8,
            wide: w0 & 64 != 0,
            pool: (w0 >> 7) as usize,
            index: read_u32(body, o + 4) as usize,
            count: read_u32(body, o + 8) as usize,
        }
    }

    /// Pool float `i`.
    #[inline]
    pub fn pool_f32(&self, body: &[u8], i: usize) -> f32 {
        read_f32(body, self.pool + i * 4)
    }

    /// Stream position of key `i` of an animated slot.
    #[inline]
    pub fn key_pos(&self, body: &[u8], slot: &Slot, i: usize) -> usize {
        let o = self.index + slot.index;
        if slot.wide {
            read_u32(body, o + 4 * i) as usize
        } else {
            let pages = slot.count.div_ceil(INDEX_PAGE);
            read_u32(body, o + 4 * (i / INDEX_PAGE)) as usize
                + read_u16(body, o + 4 * pages + 2 * i) as usize
        }
    }

    /// Key time of stream entry `e`.
    #[inline]
    pub fn entry_time(&self, body: &[u8], e: usize) -> u16 {
        read_u16(body, self.stream + e * ENTRY_SIZE)
    }

    /// Joint-and-channel field of stream entry `e`.
    #[inline]
    pub fn entry_jc(&self, body: &[u8], e: usize) -> u16 {
        read_u16(body, self.stream + e * ENTRY_SIZE + 2)
    }

    /// Payload of stream entry `e` (48 bits).
    #[inline]
    pub fn entry_payload(&self, body: &[u8], e: usize) -> u64 {
        let o = self.stream + e * ENTRY_SIZE + 4;
        read_u32(body, o) as u64 | (read_u16(body, o + 4) as u64) << 32
    }
}

/// Bytes of a slot's key index for `count` keys (a multiple of 4).
#[inline]
pub fn index_bytes(count: usize, wide: bool) -> usize {
    if wide {
        4 * count
    } else {
        (4 * count.div_ceil(INDEX_PAGE) + 2 * count).div_ceil(4) * 4
    }
}

/// Joint-and-channel field value.
#[inline]
pub fn jc(joint: usize, channel: usize) -> u16 {
    (joint | channel << 14) as u16
}

/// Checks every count, offset, index, joint, channel and key time of a body against its length
/// and the header, so the samplers may index freely.
pub fn validate(h: &Header, body: &[u8]) -> Result<()> {
    validate_counting(h, body, &mut 0)
}

/// [`validate`], adding to `work` one unit per loop iteration it runs (also when it fails). Each
/// loop runs over a count the body's bytes pay for: pool floats (4 bytes each), slots (12 bytes),
/// key indices and stream entries (10 bytes per key: the running key total is checked against the
/// stream length slot by slot, not only at the end) and pool ranges, which lie in slot order
/// without overlap (the writer's order), so no pool float is checked twice however many slots
/// name it. `work` stays within a small multiple of the body size
/// (`tests/robust/linear_validation.rs`).
pub fn validate_counting(h: &Header, body: &[u8], work: &mut usize) -> Result<()> {
    let mut r = ByteReader::new(body);
    if r.take(4)? != TAG {
        return Err(Error::CorruptBlob("keys body: bad tag"));
    }
    let slots = r.u32()? as usize;
    let keys = r.u32()? as usize;
    let pool_len = r.u32()? as usize;
    let index_len = r.u32()? as usize;
    let nj = h.num_joints as usize;
    let nch = channels(h);
    if slots != nj * nch {
        return Err(Error::CorruptBlob(
            "keys body: slot count does not match joints x channels",
        ));
    }
    let lay = Layout::new(slots, keys, pool_len, index_len)
        .ok_or(Error::CorruptBlob("keys body: counts overflow"))?;
    if lay.end > body.len() {
        return Err(Error::CorruptBlob(
            "keys body: sections extend past the body",
        ));
    }
    check_tail(&lay, body, work)?;
    if h.num_samples > 65_536 {
        return Err(Error::CorruptBlob("keys body: more than 65536 samples"));
    }
    *work += pool_len;
    for i in 0..pool_len {
        if !lay.pool_f32(body, i).is_finite() {
            return Err(Error::CorruptBlob("keys body: non-finite value in pool"));
        }
    }
    let mut total = 0usize;
    // End of the pool floats and of the key index bytes the slots before used: each slot's pool
    // range and key index start exactly there (the writer's order, with no gap), so every pool
    // float and index byte belongs to one slot.
    let mut pool_free = 0usize;
    let mut index_free = 0usize;
    for s in 0..slots {
        *work += 1;
        let o = BODY_HEADER + s * SLOT_SIZE;
        let w0 = read_u32(body, o);
        if w0 & 3 == 3 {
            return Err(Error::CorruptBlob("keys body: unknown slot kind"));
        }
        let slot = lay.slot(body, s);
        let (joint, channel) = (s / nch, s % nch);
        if slot.segments == 3 {
            return Err(Error::CorruptBlob("keys body: unknown range segment code"));
        }
        let need = pool_need(&slot, channel, h.num_samples as usize);
        if slot.pool.checked_add(need).is_none_or(|e| e > pool_len) {
            return Err(Error::CorruptBlob("keys body: pool offset out of range"));
        }
        if slot.pool != pool_free {
            return Err(Error::CorruptBlob(
                "keys body: pool ranges not contiguous in slot order",
            ));
        }
        pool_free += need;
        *work += need;
        check_pool_values(&lay, body, &slot, channel, need)?;
        if slot.kind != Kind::Animated {
            if slot.count != 0 || slot.index != 0 {
                return Err(Error::CorruptBlob(
                    "keys body: keys on a slot that is not animated",
                ));
            }
            continue;
        }
        if slot.count == 0 || slot.count > keys || slot.index % 4 != 0 {
            return Err(Error::CorruptBlob(
                "keys body: bad key count or index offset",
            ));
        }
        if slot
            .index
            .checked_add(index_bytes(slot.count, slot.wide))
            .is_none_or(|e| e > index_len)
        {
            return Err(Error::CorruptBlob(
                "keys body: key index range out of bounds",
            ));
        }
        if slot.index != index_free {
            return Err(Error::CorruptBlob(
                "keys body: key indices not contiguous in slot order",
            ));
        }
        index_free += index_bytes(slot.count, slot.wide);
        check_index_padding(&lay, body, &slot)?;
        total += slot.count;
        if total > keys {
            return Err(Error::CorruptBlob(
                "keys body: key counts add up to more than the stream length",
            ));
        }
        *work += slot.count;
        let want = jc(joint, channel);
        let mut prev_pos = None;
        let mut prev_time = None;
        for i in 0..slot.count {
            let pos = lay.key_pos(body, &slot, i);
            if pos >= keys || prev_pos.is_some_and(|p| pos <= p) {
                return Err(Error::CorruptBlob(
                    "keys body: key index not increasing or out of range",
                ));
            }
            if lay.entry_jc(body, pos) != want {
                return Err(Error::CorruptBlob(
                    "keys body: stream entry belongs to another track",
                ));
            }
            let t = lay.entry_time(body, pos);
            if t as u32 >= h.num_samples || prev_time.is_some_and(|p| t <= p) {
                return Err(Error::CorruptBlob(
                    "keys body: key times out of range or not increasing",
                ));
            }
            prev_pos = Some(pos);
            prev_time = Some(t);
        }
    }
    if pool_free != pool_len || index_free != index_len {
        return Err(Error::CorruptBlob(
            "keys body: pool or key index longer than its slots use",
        ));
    }
    // Every slot's keys map to distinct entries carrying that slot's joint and channel; with the
    // counts summing to K, the index is a bijection onto the stream.
    if total != keys {
        return Err(Error::CorruptBlob(
            "keys body: key counts do not add up to the stream length",
        ));
    }
    *work += keys;
    check_playback_order(&lay, body, nch)
}

/// The body ends at the key stream's end padded to 4 bytes, with zero padding: its size is
/// exactly what its sections need.
fn check_tail(lay: &Layout, body: &[u8], work: &mut usize) -> Result<()> {
    if body.len() != lay.end.div_ceil(4) * 4 {
        return Err(Error::CorruptBlob(
            "keys body: size is not what its sections need",
        ));
    }
    *work += body.len() - lay.end;
    if body[lay.end..].iter().any(|&b| b != 0) {
        return Err(Error::CorruptBlob("keys body: non-zero padding"));
    }
    Ok(())
}

/// A paged key index of an odd key count ends with 2 bytes of padding (to 4 bytes): zero.
fn check_index_padding(lay: &Layout, body: &[u8], slot: &Slot) -> Result<()> {
    if slot.wide || slot.count.is_multiple_of(2) {
        return Ok(());
    }
    let pad = lay.index + slot.index + 4 * slot.count.div_ceil(INDEX_PAGE) + 2 * slot.count;
    if read_u16(body, pad) != 0 {
        return Err(Error::CorruptBlob("keys body: non-zero key index padding"));
    }
    Ok(())
}

/// Largest magnitude of a stored rotation range bound (components of unit quaternions are
/// within [-1, 1]; the slack keeps every reconstruction finite).
const ROTATION_RANGE_LIMIT: f32 = 2.0;

/// Whether a key range is bounded: `|min| <= limit` and `0 <= extent <= 2 limit`, so every value
/// it decodes to lies within `3 limit` (finite; the samplers clamp translations and scales to
/// [`MAX_ABS_VALUE`]). Every range the encoder writes for values within `limit` passes.
fn range_within(min: f32, extent: f32, limit: f32) -> bool {
    min.abs() <= limit && (0.0..=2.0 * limit).contains(&extent)
}

/// Checks the pool values of one slot (pool bounds already checked, every value finite): a
/// constant translation or scale within [`MAX_ABS_VALUE`], key ranges bounded
/// ([`range_within`]), a valid dropped component, constant rotations of unit length.
fn check_pool_values(
    lay: &Layout,
    body: &[u8],
    slot: &Slot,
    channel: usize,
    need: usize,
) -> Result<()> {
    let at = |i: usize| lay.pool_f32(body, slot.pool + i);
    match slot.kind {
        Kind::Default => Ok(()),
        // Unit length within 1e-3, like every rotation the rule allows: a rotation of tiny
        // components (squared length subnormal) would lose its precision when normalised.
        Kind::Constant if channel == CH_ROTATION => {
            let l2: f64 = (0..4).map(|c| f64::from(at(c)).powi(2)).sum();
            match (l2.sqrt() - 1.0).abs() <= 1e-3 {
                true => Ok(()),
                false => Err(Error::CorruptBlob(
                    "keys body: constant rotation not of unit length",
                )),
            }
        }
        Kind::Constant => match (0..3).all(|c| at(c).abs() <= MAX_ABS_VALUE) {
            true => Ok(()),
            false => Err(Error::CorruptBlob("keys body: constant value out of range")),
        },
        Kind::Animated => {
            let stride = range_stride(channel);
            let limit = if channel == CH_ROTATION {
                ROTATION_RANGE_LIMIT
            } else {
                MAX_ABS_VALUE
            };
            for r in (0..need).step_by(stride) {
                if !(0..3).all(|c| range_within(at(r + c), at(r + 3 + c), limit)) {
                    return Err(Error::CorruptBlob("keys body: key range out of bounds"));
                }
                if stride == 7 && !matches!(at(r + 6), 0.0 | 1.0 | 2.0 | 3.0) {
                    return Err(Error::CorruptBlob(
                        "keys body: bad dropped rotation component",
                    ));
                }
            }
            Ok(())
        }
    }
}

/// The key number of stream entry `e` within its slot (whose key positions increase), by binary
/// search over the slot's key index.
fn key_number(lay: &Layout, body: &[u8], slot: &Slot, e: usize) -> usize {
    let (mut lo, mut hi) = (0usize, slot.count);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if lay.key_pos(body, slot, mid) <= e {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Checks that the stream is in playback order, the order the cursor reads it in: the time each
/// entry is first needed (the time of the key one before it in its track for linear tracks, two
/// before it for Catmull-Rom, its own time for the first key) never decreases along the stream.
/// A body whose slot interpolation does not match the order its stream was written in fails here
/// (a cursor would stop at the misplaced entry and disagree with stateless sampling). Work: one
/// binary search over a track's keys per entry (at most 16 probes: a track has at most 65536).
fn check_playback_order(lay: &Layout, body: &[u8], nch: usize) -> Result<()> {
    let mut prev = 0u16;
    for e in 0..lay.keys {
        // Validated above: every entry's joint and channel name an animated slot holding it.
        let jc = lay.entry_jc(body, e) as usize;
        let slot = lay.slot(body, (jc & 0x3FFF) * nch + (jc >> 14));
        let i = key_number(lay, body, &slot, e);
        let first = i.saturating_sub(slot.interp.lookbehind());
        let need = lay.entry_time(body, lay.key_pos(body, &slot, first));
        if need < prev {
            return Err(Error::CorruptBlob(
                "keys body: key stream not in playback order",
            ));
        }
        prev = need;
    }
    Ok(())
}
