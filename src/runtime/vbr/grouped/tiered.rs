//! A resident blob's samples with tiers attached: where a sample's frame lies (the resident
//! segment, or an attached tier's frames), and the check of a tier blob against the resident
//! body it names ([`crate::format::tier`] has the layout).

use super::body::View;
use super::common::{segment_at, Far, Pos, Seg};
use crate::format::bytes::read_u32;
use crate::format::checksum::crc32c;
use crate::format::tier::{
    index_bytes, tier_size, TIER_HEADER, TIER_MAGIC, TIER_RECORD, TIER_VERSION,
};
use crate::format::{Header, TierInfo, BLOB_ALIGNMENT};
use crate::{Error, Result};

/// Where the frames of one segment lie with the view's tiers attached: per part (the resident
/// segment, level 1, level 2) the mask of the samples it stores, its bytes and the bit of its
/// first frame in them. Found once per segment of a key; a sample's place is then a few masks
/// and a count ([`FarSegment::place`]).
#[derive(Clone, Copy)]
pub(super) struct FarSegment<'a> {
    meta: usize,
    fb: usize,
    /// Samples stored by any part.
    all: u32,
    mask: [u32; 3],
    data: [&'a [u8]; 3],
    first: [usize; 3],
}

/// The mask, frames and first frame bit of segment `s` (of `n`) in an attached tier (an empty
/// mask when it is not attached or stores nothing there): the segment's entry, and its run's
/// count ([`crate::format::tier`]; the segment count is the resident's, validated).
#[inline(always)]
fn level(t: Option<&[u8]>, n: usize, s: usize) -> (u32, &[u8], usize) {
    let Some(t) = t else {
        return (0, &[], 0);
    };
    let index = TIER_HEADER + read_u32(t, 36) as usize;
    let entries = index + n.div_ceil(32) * 4;
    let e = t[entries + s] as usize;
    if e == 0 {
        return (0, &[], 0);
    }
    let k = read_u32(t, index + 4 * (s / 32)) as usize + e - 1;
    let at = entries + n + TIER_RECORD * k;
    let r: [u8; TIER_RECORD] = t[at..at + TIER_RECORD].try_into().unwrap();
    let r = u64::from_le_bytes(r);
    (r as u32, &t[TIER_HEADER..], (r >> 32) as usize * 8)
}

impl<'a> FarSegment<'a> {
    /// Segment `seg` ([`super::common::segment_at`]) with the view's tiers.
    #[inline(always)]
    pub(super) fn new(view: &View<'a>, (meta, mask, fb, s): Seg) -> FarSegment<'a> {
        let levels = match view.tiers {
            Some(a) => &a.levels,
            None => &[None, None],
        };
        let n = view.num_segments as usize;
        let (l1, l2) = (level(levels[0], n, s), level(levels[1], n, s));
        FarSegment {
            meta,
            fb,
            all: mask | l1.0 | l2.0,
            mask: [mask, l1.0, l2.0],
            data: [view.data, l1.1, l2.1],
            first: [(meta + view.meta_bytes) * 8, l1.2, l2.2],
        }
    }

    /// The bytes and bit of stored sample `sample`'s frame.
    #[inline(always)]
    fn locate(&self, sample: u32) -> (&'a [u8], usize) {
        let bit = 1u32 << sample;
        let k = if self.mask[0] & bit != 0 {
            0
        } else if self.mask[1] & bit != 0 {
            1
        } else {
            2
        };
        let before = (self.mask[k] & (bit - 1)).count_ones() as usize;
        (self.data[k], self.first[k] + before * self.fb)
    }

    /// The place of sample `local`: a sample is stored by the resident segment or by one tier,
    /// and a sample no attached part stores is the blend of the nearest stored ones (as
    /// [`crate::format::vbr::keyframe::keyframe_position`] blends a dropped sample of the
    /// resident mask).
    #[inline(always)]
    pub(super) fn place(&self, local: u32) -> Pos<Far<'a>> {
        let all = self.all;
        if all & (1 << local) != 0 {
            let (data, bit) = self.locate(local);
            return Pos {
                meta: self.meta,
                bit,
                t: 0.0,
                fb: self.fb,
                src: Far {
                    data,
                    next: data,
                    next_bit: bit,
                },
            };
        }
        // The resident segment stores its first and last samples: both neighbours exist.
        let below = all & ((1u32 << local) - 1);
        let prev = 31 - below.leading_zeros();
        let next = local + 1 + (all >> (local + 1)).trailing_zeros();
        let (data, bit) = self.locate(prev);
        let (next_data, next_bit) = self.locate(next);
        Pos {
            meta: self.meta,
            bit,
            t: (local - prev) as f32 / (next - prev) as f32,
            fb: self.fb,
            src: Far {
                data,
                next: next_data,
                next_bit,
            },
        }
    }
}

/// Checks `tier` in full against the resident blob it must name (header `h`, tier fields
/// `info`, body view `v`), in time linear in the tier's bytes: returns its level.
pub(crate) fn validate(h: &Header, info: &TierInfo, v: &View, tier: &[u8]) -> Result<u8> {
    let (tier, level) = tier_header(h, info, v, tier)?;
    let total = tier.len();
    let n = v.num_segments as usize;
    // The frames, then the index (a count per run of 32 segments, an entry per segment) and
    // the records.
    let frame_bytes = read_u32(tier, 36) as usize;
    let index = TIER_HEADER + frame_bytes.min(total);
    let records = index + index_bytes(n);
    if records > total {
        return Err(Error::CorruptBlob("tier frames or index out of bounds"));
    }
    let entries = &tier[records - n..records];
    let stored = tier_index(tier, index, entries)?;
    let records_end = records + TIER_RECORD * stored;
    if records_end > total {
        return Err(Error::CorruptBlob("tier records out of bounds"));
    }
    tier_records(v, tier, records, entries, frame_bytes)?;
    if tier_size(n, stored, frame_bytes) != total || tier[records_end..].iter().any(|&b| b != 0) {
        return Err(Error::CorruptBlob(
            "tier padding is not zero or not of its one size",
        ));
    }
    Ok(level)
}

/// The tier header: magic, version, size, alignment, checksum, the resident it names, its
/// level and segment count. Returns the tier cut to its total size, and its level.
fn tier_header<'t>(
    h: &Header,
    info: &TierInfo,
    v: &View,
    tier: &'t [u8],
) -> Result<(&'t [u8], u8)> {
    if tier.len() < TIER_HEADER {
        return Err(if tier.len() >= 4 && tier[..4] != TIER_MAGIC {
            Error::BadMagic
        } else {
            Error::BadSize("tier blob shorter than its header")
        });
    }
    if tier[..4] != TIER_MAGIC {
        return Err(Error::BadMagic);
    }
    let u32_at = |o: usize| read_u32(tier, o);
    let version = u16::from_le_bytes([tier[4], tier[5]]);
    if version != TIER_VERSION {
        return Err(Error::UnsupportedVersion(version as u32));
    }
    let total = u32_at(8) as usize;
    if total > tier.len() {
        return Err(Error::BadSize("tier blob shorter than its total size"));
    }
    if total < TIER_HEADER || !total.is_multiple_of(BLOB_ALIGNMENT) {
        return Err(Error::BadSize("tier size is not a multiple of 16"));
    }
    if !(tier.as_ptr() as usize).is_multiple_of(BLOB_ALIGNMENT) {
        return Err(Error::Misaligned);
    }
    let tier = &tier[..total];
    if crc32c(&tier[16..]) != u32_at(12) {
        return Err(Error::ChecksumMismatch);
    }
    let key = u64::from_le_bytes(tier[16..24].try_into().unwrap());
    if key != info.key || u32_at(24) != h.checksum || u32_at(28) != h.total_size {
        return Err(Error::TierMismatch);
    }
    let (level, levels) = (tier[6], tier[7]);
    if levels != info.levels || !(1..=levels).contains(&level) {
        return Err(Error::CorruptBlob("tier level out of range"));
    }
    if u32_at(32) != v.num_segments {
        return Err(Error::CorruptBlob(
            "tier segment count is not the resident's",
        ));
    }
    Ok((tier, level))
}

/// The index at byte `index` of the tier, with its segment entries `entries`: each run's count
/// is the stored segments before it, and its entries count 1, 2, ... in segment order. Returns
/// the segments the tier stores.
fn tier_index(tier: &[u8], index: usize, entries: &[u8]) -> Result<usize> {
    let (mut stored, mut in_run) = (0u32, 0u8);
    for (s, &k) in entries.iter().enumerate() {
        if s % 32 == 0 {
            if read_u32(tier, index + 4 * (s / 32)) != stored {
                return Err(Error::CorruptBlob(
                    "tier index count is not the stored segments before it",
                ));
            }
            in_run = 0;
        }
        if k == 0 {
            continue;
        }
        if k != in_run + 1 {
            return Err(Error::CorruptBlob("tier index entries out of order"));
        }
        in_run = k;
        stored += 1;
    }
    Ok(stored as usize)
}

/// The records from byte `records`, in the order of the segments that store samples: each
/// mask inside its segment and on samples the resident does not store, the segments' frames
/// back to back and filling the tier's `frame_bytes`, the bits after each segment's frames
/// zero.
fn tier_records(
    v: &View,
    tier: &[u8],
    records: usize,
    entries: &[u8],
    frame_bytes: usize,
) -> Result<()> {
    let frames = &tier[TIER_HEADER..];
    let mut end = 0u64;
    let mut r = records;
    for (s, _) in entries.iter().enumerate().filter(|(_, &k)| k != 0) {
        let (_, mask, fb, _) = segment_at(v, s as u32);
        let (m, first) = (read_u32(tier, r), read_u32(tier, r + 4) as u64);
        r += TIER_RECORD;
        let samples = (v.num_samples - s as u32 * v.seg_len).min(v.seg_len);
        let inside = if samples >= 32 {
            !0
        } else {
            (1u32 << samples) - 1
        };
        if m == 0 {
            return Err(Error::CorruptBlob("tier record with an empty mask"));
        }
        if m & !inside != 0 || m & (1 | 1 << (samples - 1)) != 0 || m & mask != 0 {
            return Err(Error::CorruptBlob(
                "tier mask outside its segment or on a resident sample",
            ));
        }
        if first != end {
            return Err(Error::CorruptBlob(
                "tier segments do not follow one another",
            ));
        }
        let bits = m.count_ones() as u64 * fb as u64;
        end = first + bits.div_ceil(8);
        if end > frame_bytes as u64 {
            return Err(Error::CorruptBlob("tier frames out of bounds"));
        }
        if !bits.is_multiple_of(8) && frames[(end - 1) as usize] >> (bits % 8) != 0 {
            return Err(Error::CorruptBlob(
                "bits after a tier segment's frames are not zero",
            ));
        }
    }
    if end != frame_bytes as u64 {
        return Err(Error::CorruptBlob(
            "tier frame bytes are not its segments' frames",
        ));
    }
    Ok(())
}
