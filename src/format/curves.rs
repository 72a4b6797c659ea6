//! The curves section: its byte layout and its linear-time validation.
//!
//! All fields little-endian; offsets relative to the section start.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | segment length L (samples per segment, 1..=[`MAX_SEGMENT_LEN`]) |
//! | 4 | 4 | segment count (= ceil(sample count / L)) |
//! | 8 | 8 | reserved, 0 |
//! | 16 | 16 × curves | curve descriptors (below) |
//! | … | 4 × segments | segment offsets: first = end of this table, non-decreasing, ≤ section size |
//! | … | … | segment data; segment `s` spans its offset to the next one (the last: to the end) |
//!
//! Curve descriptor (16 bytes): `u32 id`, `u8 kind` ([`Kind`]), `u8 gw` (bits of a grid index,
//! 0..=[`MAX_GRID_BITS`]), `u16` 0, `f32 value` (default, constant or grid base), `f32 step`
//! (grid step of a quantised curve, else 0).
//!
//! Segment data is one LSB-first bit stream holding, for each stored curve in curve order:
//! - [`Kind::Raw`]: `n` × 32-bit `f32` values (`n` = the segment's sample count);
//! - [`Kind::Quantized`]: a 2-bit mode, a 5-bit width `w`, then by mode ([`Mode`]):
//!   - 0 (flat): `k` (gw bits); `w` = 0;
//!   - 1 (range): `kmin` (gw bits), `n` × `w`-bit offsets;
//!   - 2 (delta): `k0` (gw bits), `n - 1` × `w`-bit signed deltas (`n` ≥ 2);
//!   - 3 (linear prediction): a 5-bit width `w1`, `k0` (gw bits), the first delta (`w1`-bit signed),
//!     `n - 2` × `w`-bit signed second differences (`n` ≥ 3).
//!
//! The value of grid index `k` is `value + k × step`, clamped to ±1e7 (so any section that
//! validates decodes to finite values within the input limits).

use crate::format::bytes::ByteReader;
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::quantize::bits::read_bits;
use crate::{Error, Result};

/// Section header size in bytes.
pub const SECTION_HEADER: usize = 16;
/// Curve descriptor size in bytes.
pub const DESCRIPTOR_SIZE: usize = 16;
/// Largest segment length (bounds the work of one decode).
pub const MAX_SEGMENT_LEN: u32 = 64;
/// Largest grid index width: grid indices stay below 2^24, exact in `f32`.
pub const MAX_GRID_BITS: u32 = 24;

/// How a curve is stored.
#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Never leaves its default value (stored in the descriptor); no data.
    Default = 0,
    /// One value for the whole clip (in the descriptor); no data.
    Constant = 1,
    /// Grid indices coded per segment.
    Quantized = 2,
    /// Raw `f32` values per segment (when no grid meets the precision).
    Raw = 3,
}

impl Kind {
    /// From the stored byte.
    pub fn from_u8(v: u8) -> Option<Kind> {
        match v {
            0 => Some(Kind::Default),
            1 => Some(Kind::Constant),
            2 => Some(Kind::Quantized),
            3 => Some(Kind::Raw),
            _ => None,
        }
    }
}

/// Per-segment coding of a quantised curve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mode {
    /// One grid index for the whole segment.
    Flat = 0,
    /// Offsets from the segment minimum.
    Range = 1,
    /// Deltas from the previous sample.
    Delta = 2,
    /// Second differences (residuals of linear prediction).
    Linear = 3,
}

/// A parsed curve descriptor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Descriptor {
    /// Engine id.
    pub id: u32,
    /// Storage kind.
    pub kind: Kind,
    /// Bits of a grid index.
    pub gw: u32,
    /// Default, constant or grid base value.
    pub value: f32,
    /// Grid step.
    pub step: f32,
}

impl Descriptor {
    /// Serialises into 16 bytes.
    pub fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.id.to_le_bytes());
        out.push(self.kind as u8);
        out.push(self.gw as u8);
        out.extend_from_slice(&[0, 0]);
        out.extend_from_slice(&self.value.to_le_bytes());
        out.extend_from_slice(&self.step.to_le_bytes());
    }

    /// Reads descriptor `c` of a section already validated (no checks).
    #[inline]
    pub(crate) fn read_unchecked(section: &[u8], c: usize) -> Descriptor {
        let o = SECTION_HEADER + c * DESCRIPTOR_SIZE;
        let d = &section[o..o + DESCRIPTOR_SIZE];
        let f = |i: usize| [d[i], d[i + 1], d[i + 2], d[i + 3]];
        Descriptor {
            id: u32::from_le_bytes(f(0)),
            kind: Kind::from_u8(d[4]).unwrap_or(Kind::Default),
            gw: d[5] as u32,
            value: f32::from_le_bytes(f(8)),
            step: f32::from_le_bytes(f(12)),
        }
    }
}

/// Bits of a stored curve's payload in a segment of `n` samples, and the bits of its header,
/// read from the stream at `bit`: `(header bits, mode, w, w1, total bits)`.
#[inline]
pub(crate) fn quantized_header(
    data: &[u8],
    bit: usize,
    gw: u32,
    n: u32,
) -> (u32, u32, u32, u32, usize) {
    let mode = read_bits(data, bit, 2);
    let w = read_bits(data, bit + 2, 5);
    let (hb, w1) = if mode == Mode::Linear as u32 {
        (12, read_bits(data, bit + 7, 5))
    } else {
        (7, 0)
    };
    let n = n as usize;
    let payload = gw as usize
        + match mode {
            0 => 0,
            1 => n * w as usize,
            2 => n.saturating_sub(1) * w as usize,
            _ => w1 as usize + n.saturating_sub(2) * w as usize,
        };
    (hb, mode, w, w1, hb as usize + payload)
}

/// The section's geometry, as validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Geometry {
    /// Samples per segment.
    pub segment_len: u32,
    /// Segment count.
    pub num_segments: u32,
}

/// Byte offset of the segment offset table.
pub(crate) fn table_offset(num_curves: usize) -> usize {
    SECTION_HEADER + num_curves * DESCRIPTOR_SIZE
}

fn corrupt(what: &'static str) -> Error {
    Error::CorruptBlob(what)
}

/// Checks every field, offset and width of a curves section in one pass over its bytes, and every
/// raw value. After this, [`crate::runtime::curves`] reads only inside the section and yields finite values
/// within ±1e7.
pub fn validate_section(section: &[u8], num_curves: u32, num_samples: u32) -> Result<Geometry> {
    validate_section_counting(section, num_curves, num_samples, &mut 0)
}

/// Stored curves (raw or quantised) listed on the stack for the per-segment walk; a section with
/// more walks every descriptor in each segment, which its segments then pay for (at least
/// `7 x STORED_LIST` bits each).
const STORED_LIST: usize = 2048;

/// [`validate_section`], adding to `work` one unit per loop iteration it runs (also when it
/// fails). Every loop runs over a count the section's bytes pay for: descriptors (16 bytes
/// each), segment offsets (4 bytes each) and, per segment, only the curves that store data there
/// (each at least 7 bits of every segment; raw values 32 bits each). Curves that store nothing
/// and sections without stored curves cost nothing per segment, and before the walk the data
/// must hold the least every segment needs, so `work` stays within a small multiple of the section
/// size (`tests/robust/linear_validation.rs`). No allocation: the stored curves are listed in a
/// fixed array of [`STORED_LIST`] entries on the stack.
pub fn validate_section_counting(
    section: &[u8],
    num_curves: u32,
    num_samples: u32,
    work: &mut usize,
) -> Result<Geometry> {
    let mut r = ByteReader::new(section);
    let segment_len = r.u32()?;
    let num_segments = r.u32()?;
    if segment_len == 0 || segment_len > MAX_SEGMENT_LEN {
        return Err(corrupt("curve segment length out of range"));
    }
    if num_segments as u64 != (num_samples as u64).div_ceil(segment_len as u64) {
        return Err(corrupt(
            "curve segment count does not match the sample count",
        ));
    }
    if r.u32()? != 0 || r.u32()? != 0 {
        return Err(corrupt("curves section reserved bytes are not zero"));
    }
    let nc = num_curves as usize;
    if nc > crate::format::MAX_CURVES {
        return Err(corrupt("curve count out of range"));
    }
    let table = table_offset(nc);
    let data_start = table as u64 + num_segments as u64 * 4;
    if data_start > section.len() as u64 {
        return Err(corrupt("curves section shorter than its tables"));
    }
    let mut stored = [0u16; STORED_LIST];
    let (mut num_stored, mut min_bits) = (0usize, 0u64);
    for c in 0..nc {
        *work += 1;
        let o = SECTION_HEADER + c * DESCRIPTOR_SIZE;
        let b = &section[o..o + DESCRIPTOR_SIZE];
        let kind = Kind::from_u8(b[4]).ok_or(corrupt("unknown curve kind"))?;
        let d = Descriptor::read_unchecked(section, c);
        if b[6] != 0 || b[7] != 0 {
            return Err(corrupt("curve descriptor reserved bytes are not zero"));
        }
        if !(d.value.is_finite() && d.value.abs() <= MAX_ABS_VALUE) {
            return Err(corrupt("curve value is not finite or beyond 1e7"));
        }
        let quantized = kind == Kind::Quantized;
        if quantized != (d.step != 0.0) || !(d.step.is_finite() && d.step >= 0.0) {
            return Err(corrupt("curve grid step out of range"));
        }
        if (quantized && d.gw > MAX_GRID_BITS) || (!quantized && d.gw != 0) {
            return Err(corrupt("curve grid width out of range"));
        }
        match kind {
            Kind::Default | Kind::Constant => continue,
            // A segment holds at least one sample: 32 bits of a raw curve, a quantised curve's
            // 7-bit header and its grid index.
            Kind::Raw => min_bits += 32,
            Kind::Quantized => min_bits += 7 + d.gw as u64,
        }
        if num_stored < STORED_LIST {
            stored[num_stored] = c as u16;
        }
        num_stored += 1;
    }
    let mut prev = data_start;
    for s in 0..num_segments as usize {
        *work += 1;
        let start = u32::from_le_bytes(
            section[table + 4 * s..table + 4 * s + 4]
                .try_into()
                .unwrap(),
        ) as u64;
        if (s == 0 && start != data_start) || start < prev || start > section.len() as u64 {
            return Err(corrupt(
                "curve segment offsets out of order or out of bounds",
            ));
        }
        prev = start;
    }
    if num_stored == 0 {
        // Nothing is stored: every segment is empty, so the section ends with its offset table.
        if section.len() as u64 != data_start {
            return Err(corrupt("curves section longer than its contents"));
        }
        return Ok(Geometry {
            segment_len,
            num_segments,
        });
    }
    // Every segment must hold the least its stored curves need, checked before walking them.
    let data_bits = (section.len() as u64 - data_start) * 8;
    if (num_segments as u64).saturating_mul(min_bits) > data_bits {
        return Err(corrupt("curve segment data truncated"));
    }
    let list = (num_stored <= STORED_LIST).then(|| &stored[..num_stored]);
    for s in 0..num_segments as usize {
        *work += 1;
        let (start, end) = segment_bounds(section, nc, num_segments as usize, s);
        let data = &section[start..end];
        let n = segment_samples(segment_len, num_samples, s);
        validate_segment(section, nc, list, data, n, work)?;
    }
    Ok(Geometry {
        segment_len,
        num_segments,
    })
}

/// Byte bounds of segment `s` (offsets as validated).
#[inline]
pub(crate) fn segment_bounds(
    section: &[u8],
    nc: usize,
    num_segments: usize,
    s: usize,
) -> (usize, usize) {
    let t = table_offset(nc) + 4 * s;
    let rd = |o: usize| u32::from_le_bytes(section[o..o + 4].try_into().unwrap()) as usize;
    let start = rd(t);
    let end = if s + 1 < num_segments {
        rd(t + 4)
    } else {
        section.len()
    };
    (start, end)
}

/// Samples in segment `s`.
#[inline]
pub(crate) fn segment_samples(segment_len: u32, num_samples: u32, s: usize) -> u32 {
    (num_samples - s as u32 * segment_len).min(segment_len)
}

/// Walks one segment: the curves of `list` (the stored curves, in curve order) or, when the list
/// did not fit, every curve.
fn validate_segment(
    section: &[u8],
    nc: usize,
    list: Option<&[u16]>,
    data: &[u8],
    n: u32,
    work: &mut usize,
) -> Result<()> {
    let avail = data.len() * 8;
    let mut bit = 0usize;
    let count = list.map_or(nc, <[u16]>::len);
    for i in 0..count {
        *work += 1;
        let c = list.map_or(i, |l| l[i] as usize);
        let d = Descriptor::read_unchecked(section, c);
        match d.kind {
            Kind::Default | Kind::Constant => {}
            Kind::Raw => {
                if bit + 32 * n as usize > avail {
                    return Err(corrupt("curve segment data truncated"));
                }
                for _ in 0..n {
                    *work += 1;
                    let v = f32::from_bits(read_bits(data, bit, 32));
                    if !(v.is_finite() && v.abs() <= MAX_ABS_VALUE) {
                        return Err(corrupt("raw curve value is not finite or beyond 1e7"));
                    }
                    bit += 32;
                }
            }
            Kind::Quantized => {
                let (_, mode, w, _, total) = quantized_header(data, bit, d.gw, n);
                let bad = match mode {
                    0 => w != 0,
                    1 => w > d.gw,
                    2 => n < 2,
                    _ => n < 3,
                };
                if bad {
                    return Err(corrupt("curve segment mode or width out of range"));
                }
                bit += total;
                if bit > avail {
                    return Err(corrupt("curve segment data truncated"));
                }
            }
        }
    }
    check_segment_end(data, bit)
}

/// A segment is exactly the bytes its `bits` need, and the bits after the last field (to the
/// byte boundary) are zero: no segment carries bytes nothing reads.
fn check_segment_end(data: &[u8], bits: usize) -> Result<()> {
    if data.len() != bits.div_ceil(8) {
        return Err(corrupt("curve segment longer than its contents"));
    }
    let used = bits % 8;
    if used != 0 && data[data.len() - 1] >> used != 0 {
        return Err(corrupt("non-zero padding bits in a curve segment"));
    }
    Ok(())
}
