//! The blobs of a clip compressed with tiers: the resident blob (a grouped `vbr` blob whose
//! segments store the resident masks, with [`BlobFlags::HAS_TIERS`] and its [`TierInfo`]) and
//! the tier blobs ([`crate::format::tier`]), whose frames are copied bit for bit from the blob
//! compressed without tiers (the full blob: same rates, ranges and frame layout).

use super::rank::SegmentMasks;
use crate::format::bytes::read_u32;
use crate::format::checksum::{blob_checksum, crc32c};
use crate::format::header::{Header, TierInfo};
use crate::format::quantize::bits::read_bits;
use crate::format::tier::{index_bytes, tier_size, TIER_HEADER, TIER_MAGIC, TIER_VERSION};
use crate::format::{BlobFlags, CodecId};
use crate::offline::blob_writer::{assemble_blob_with, BlobExtras, EncodedBody};
use crate::offline::vbr::regroup::BitWriter;
use crate::runtime::vbr::grouped::body::{self, Counts, FLAG_IMPLIED_BITS, FLAG_MASKS};
use crate::{Error, Result};

/// Where a segment's frames are in a grouped body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SegmentFrames {
    /// The samples it stores (every sample of the segment when the body stores no masks).
    pub mask: u32,
    /// Bits of a frame.
    pub fb: usize,
    /// The first frame's first bit in the body.
    pub bit: usize,
}

/// Each segment's frames in a grouped body that `regroup` wrote for a clip of `samples`
/// samples (the reader's `segment_at` and `place`, `runtime::vbr::grouped::common`, restated
/// here for a body the offline code wrote itself).
pub(crate) fn segment_frames(grouped: &[u8], samples: usize) -> Vec<SegmentFrames> {
    let c = Counts::read(grouped);
    let data = &grouped[body::HEADER..];
    let n = c.num_segments as usize;
    let len = c.seg_len as usize;
    let tb = c.table_bytes();
    let entry = |s: usize| {
        let w = read_u32(data, c.seg_table as usize + tb * s);
        (w & body::table_mask(tb)) as usize
    };
    let masks = c.has(FLAG_MASKS);
    (0..n)
        .map(|s| {
            let count = (samples - s * len).min(len);
            let all = (((1u64) << count) - 1) as u32;
            let off = entry(s);
            let (meta, mask, fb) = if c.has(FLAG_IMPLIED_BITS) && s + 1 < n {
                let fb = ((entry(s + 1) - off - c.meta_bytes as usize) << 3) / len;
                (off, all, fb)
            } else {
                let mask = if masks { read_u32(data, off) } else { all };
                let w = read_u32(data, off + 4 * masks as usize) as u64;
                let fb = if c.start_bytes() == 4 {
                    w as u32
                } else {
                    w as u16 as u32
                };
                (off + c.segment_header(s), mask, fb as usize)
            };
            SegmentFrames {
                mask,
                fb,
                bit: (body::HEADER + meta + c.meta_bytes as usize) * 8,
            }
        })
        .collect()
}

/// The tier set's key: FNV-1a 64 over the full grouped body, the count of levels and every
/// segment's masks (never 0).
pub(crate) fn key(full_body: &[u8], levels: u8, masks: &[SegmentMasks]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    eat(full_body);
    eat(&[levels]);
    for m in masks {
        for w in [m.resident, m.levels[0], m.levels[1]] {
            eat(&w.to_le_bytes());
        }
    }
    if h == 0 {
        1
    } else {
        h
    }
}

/// A blob with the header fields of the full blob `full` (joints, samples, rate, flags) whose
/// joint body is the segments body `segments`, regrouped; with `tiers`, the resident blob of
/// that tier set (`HAS_TIERS`, the tier fields written before the checksum).
pub(crate) fn blob(full: &Header, segments: Vec<u8>, tiers: Option<TierInfo>) -> Result<Vec<u8>> {
    let encoded = EncodedBody {
        codec: CodecId::Vbr,
        flags: full.flags | tiers.map_or(0, |_| BlobFlags::HAS_TIERS),
        body: segments,
    };
    let extras = BlobExtras {
        additive: full.additive,
        ..Default::default()
    };
    let mut out = assemble_blob_with(
        &encoded,
        full.num_joints as usize,
        full.num_samples as usize,
        full.sample_rate,
        &extras,
    )?;
    if let Some(info) = tiers {
        info.write(&mut out);
        let crc = blob_checksum(&out);
        out[12..16].copy_from_slice(&crc.to_le_bytes());
    }
    Ok(out)
}

/// The tier blob of `level` (1-based) of a set of `levels` levels with key `key`: the samples
/// `masks[s].levels[level - 1]` of each segment, their frames copied from the full blob's
/// grouped body `full_body` (of a clip of `samples` samples), naming the resident blob
/// `resident`.
pub(crate) fn tier_blob(
    level: u8,
    levels: u8,
    key: u64,
    resident: &[u8],
    full_body: &[u8],
    samples: usize,
    masks: &[SegmentMasks],
) -> Result<Vec<u8>> {
    let frames = segment_frames(full_body, samples);
    if frames.len() != masks.len() {
        return Err(Error::InvalidArgument(
            "tiers: the masks do not match the body's segments",
        ));
    }
    let n = frames.len();
    let mut data = Vec::new();
    // The index: a count per run of 32 segments, then an entry per segment.
    let mut index = vec![0u8; index_bytes(n)];
    let entries = index_bytes(n) - n;
    let mut records = Vec::new();
    let (mut stored, mut in_run) = (0u32, 0u8);
    for (s, (f, m)) in frames.iter().zip(masks).enumerate() {
        let mask = m.levels[level as usize - 1];
        if mask & !f.mask != 0 || f.mask != m.full {
            return Err(Error::InvalidArgument(
                "tiers: a tier stores a sample the full blob does not",
            ));
        }
        if s % 32 == 0 {
            index[4 * (s / 32)..][..4].copy_from_slice(&stored.to_le_bytes());
            in_run = 0;
        }
        if mask == 0 {
            continue;
        }
        in_run += 1;
        index[entries + s] = in_run;
        stored += 1;
        records.extend_from_slice(&mask.to_le_bytes());
        records.extend_from_slice(&u32::try_from(data.len()).map_err(too_big)?.to_le_bytes());
        let mut bw = BitWriter::default();
        for i in 0..32 {
            if mask & (1 << i) == 0 {
                continue;
            }
            let k = (f.mask & ((1u32 << i) - 1)).count_ones() as usize;
            let (mut bit, end) = (f.bit + k * f.fb, f.bit + (k + 1) * f.fb);
            while bit < end {
                let w = (end - bit).min(32) as u32;
                bw.put(read_bits(full_body, bit, w), w);
                bit += w as usize;
            }
        }
        data.extend_from_slice(&bw.finish());
    }
    let total = tier_size(n, stored as usize, data.len());
    let total32 = u32::try_from(total).map_err(too_big)?;
    let mut out = vec![0u8; total];
    out[0..4].copy_from_slice(&TIER_MAGIC);
    out[4..6].copy_from_slice(&TIER_VERSION.to_le_bytes());
    out[6] = level;
    out[7] = levels;
    out[8..12].copy_from_slice(&total32.to_le_bytes());
    out[16..24].copy_from_slice(&key.to_le_bytes());
    out[24..28].copy_from_slice(&resident[12..16]);
    out[28..32].copy_from_slice(&resident[8..12]);
    out[32..36].copy_from_slice(&(n as u32).to_le_bytes());
    out[36..40].copy_from_slice(&(data.len() as u32).to_le_bytes());
    let mut at = TIER_HEADER;
    for part in [&data, &index, &records] {
        out[at..at + part.len()].copy_from_slice(part);
        at += part.len();
    }
    let crc = crc32c(&out[16..]);
    out[12..16].copy_from_slice(&crc.to_le_bytes());
    Ok(out)
}

fn too_big(_: std::num::TryFromIntError) -> Error {
    Error::Unsupported("tier blob would exceed 4 GiB")
}

/// Where a grouped `vbr` blob's bytes go (for measurement).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BlobBytes {
    /// The stored frames (each segment's byte-rounded).
    pub frames: usize,
    /// The segments' headers and group metadata (masks, frame bits, rates, ranges, first bits)
    /// and the segment table.
    pub segment_metadata: usize,
    /// The rest: blob header, body header, group records, constants, kinds, padding.
    pub other: usize,
}

/// [`BlobBytes`] of a grouped `vbr` blob written by this library.
#[doc(hidden)]
pub fn blob_bytes(blob: &[u8]) -> Result<BlobBytes> {
    let h = Header::parse(blob)?;
    if !h.grouped() {
        return Err(Error::InvalidArgument("not a grouped vbr blob"));
    }
    let body = &blob[h.body_range()];
    let c = Counts::read(body);
    let frames: usize = segment_frames(body, h.num_samples as usize)
        .iter()
        .map(|f| (f.mask.count_ones() as usize * f.fb).div_ceil(8))
        .sum();
    let n = c.num_segments as usize;
    let segment_metadata = (0..n)
        .map(|s| c.segment_header(s) + c.meta_bytes as usize)
        .sum::<usize>()
        + c.table_bytes() * n;
    Ok(BlobBytes {
        frames,
        segment_metadata,
        other: blob.len() - frames - segment_metadata,
    })
}
