//! Tier blobs: the samples a clip compressed with quality tiers keeps out of its resident blob.
//!
//! A clip compressed with tiers is written as a **resident blob**, a grouped `vbr` blob (format
//! version 5) that samples on its own, and one **tier blob** per level. The resident blob has
//! [`BlobFlags::HAS_TIERS`](super::BlobFlags::HAS_TIERS) and its header's [`TierInfo`](super::TierInfo)
//! (the set's 64-bit key, the count of levels); its body stores keyframe masks (`MASKS`), and a
//! segment's mask names the samples the resident blob stores. Every other sample of the clip
//! is stored by exactly one tier level, with the same rates and ranges as the resident
//! segment (which stores them): a tier holds only frames. With every level attached, each
//! sample of the clip is stored, and a pose decodes bit for bit like the blob compressed without
//! tiers at the same settings.
//!
//! Level 1 holds the samples whose removal cost the most error (attaching it alone reaches the
//! middle fidelity), level 2 the least important ones. A tier blob of any level may be attached
//! alone: the decoder interpolates across whatever samples are missing.
//!
//! # Layout (little endian; a tier blob is 16-byte aligned and its size a multiple of 16)
//!
//! | bytes | field |
//! |---|---|
//! | 0..4 | magic `ACTR` ([`TIER_MAGIC`]) |
//! | 4..6 | version `u16` ([`TIER_VERSION`]) |
//! | 6 | level `u8`, 1 ..= levels |
//! | 7 | levels `u8`: the resident blob's count of tier levels |
//! | 8..12 | total size `u32` |
//! | 12..16 | CRC-32C of bytes 16..total size (as a blob's checksum: [`super::checksum`]) |
//! | 16..24 | the set's key `u64` (the resident blob's [`TierInfo::key`](super::TierInfo)) |
//! | 24..28 | the resident blob's checksum `u32` (its header bytes 12..16) |
//! | 28..32 | the resident blob's total size `u32` |
//! | 32..36 | segments `u32`: the resident body's segment count |
//! | 36..40 | frames offset `u32`: [`frames_offset`] of the segment count |
//! | 40..44 | frame bytes `u32`: from the frames offset to the end of the blob |
//! | 44..48 | 0 |
//! | 48.. | one record per segment, 8 bytes: the segment's mask `u32` (bit `s`: local sample `s` is stored here), the byte offset `u32` of its first frame from the frames offset |
//! | .. frames offset | zeros |
//! | frames offset .. | per segment in order, its stored samples' frames in sample order, each as many bits as the resident segment's frame bits, back to back from the segment's first byte (bit `i` of the data is bit `i % 8` of byte `i / 8`, as in a body); a segment's frames end on a byte (zero bits after the last) and the next segment's first byte follows |
//! | .. total size | zeros: the fewest that end the blob on a multiple of 16 with at least [`TIER_PADDING`] bytes after the last segment's frames (the decoders' windows) |
//!
//! A segment whose mask is 0 stores no frame; its first byte is the next segment's. A mask has
//! no bit at or beyond its segment's sample count, never the segment's first or last sample
//! (the resident blob always stores those) and no sample the resident segment stores.
//!
//! A frame is the resident segment's frame layout: per group, component x of every lane, then
//! y, then z, at the group's rates. The frame bits of segment `s` are the resident body's
//! (every segment of a resident body stores them: it has masks).

/// Magic of a tier blob.
pub const TIER_MAGIC: [u8; 4] = *b"ACTR";
/// The tier blob version this library writes and reads.
pub const TIER_VERSION: u16 = 1;
/// Bytes of a tier blob's header.
pub const TIER_HEADER: usize = 48;
/// Bytes of a segment record.
pub const TIER_RECORD: usize = 8;
/// Least zero bytes after the last frame (the decoders read 32-byte windows).
pub const TIER_PADDING: usize = 32;

/// Where the frames start in a tier blob of `segments` segments: after the header and the
/// records, on a multiple of 16.
pub const fn frames_offset(segments: usize) -> usize {
    (TIER_HEADER + TIER_RECORD * segments).div_ceil(16) * 16
}

/// The total size of a tier blob of `segments` segments whose frames end at byte `frames_end`
/// of the frame data (relative to the frames offset).
pub const fn tier_size(segments: usize, frames_end: usize) -> usize {
    (frames_offset(segments) + frames_end + TIER_PADDING).div_ceil(16) * 16
}
