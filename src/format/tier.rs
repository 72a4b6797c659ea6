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
//! | 36..40 | frame bytes `u32`: the bytes of the frames, `F` |
//! | 40..40 + F | the frames: per segment that stores samples at this level, in segment order, its samples' frames in sample order, each as many bits as the resident segment's frame bits, back to back from the segment's first byte (bit `i` of the data is bit `i % 8` of byte `i / 8`, as in a body); a segment's frames end on a byte (zero bits after the last) and the next stored segment's first byte follows |
//! | 40 + F .. | the index ([`index_bytes`]): per run of 32 segments (`ceil(segments / 32)` runs) the count `u32` of stored segments before it, then per segment its entry `u8`: 0 when it stores nothing at this level, else `k` when it is the `k`-th stored segment of its run (its record is the run's count plus `k - 1`) |
//! | .. | one record per stored segment, in segment order, [`TIER_RECORD`] bytes: its mask `u32` (bit `s`: local sample `s` is stored here), the byte `u32` of its first frame from byte 40 |
//! | .. total size | zeros: the fewest that end the blob on a multiple of 16 with at least [`TIER_PADDING`] bytes (index, records and zeros) after the frames (the decoders' windows) |
//!
//! A segment stores samples at a level when it has a record: its entry is not 0 exactly then,
//! the non-zero entries of a run count 1, 2, 3, ... in segment order, and no record has an
//! empty mask. A mask has no bit at or beyond its segment's sample count, never
//! the segment's first or last sample (the resident blob always stores those) and no sample the
//! resident segment stores. The stored segments' frames fill the `F` bytes exactly.
//!
//! A frame is the resident segment's frame layout: per group, component x of every lane, then
//! y, then z, at the group's rates. The frame bits of segment `s` are the resident body's
//! (every segment of a resident body stores them: it has masks). The decoders' windows read up
//! to [`TIER_PADDING`] bytes from inside the frames, past their end into the index and the
//! records, whose bits they do not use.
//!
//! Finding segment `s`'s record at sampling time: its entry, and when that is not 0 the count of
//! its run `s / 32` (two loads, no search).

/// Magic of a tier blob.
pub const TIER_MAGIC: [u8; 4] = *b"ACTR";
/// The tier blob version this library writes and reads.
pub const TIER_VERSION: u16 = 1;
/// Bytes of a tier blob's header (where its frames start).
pub const TIER_HEADER: usize = 40;
/// Bytes of a stored segment's record.
pub const TIER_RECORD: usize = 8;
/// Least bytes after the frames (the decoders read 32-byte windows).
pub const TIER_PADDING: usize = 32;

/// Bytes of the index of a tier blob of `segments` segments: a count per run of 32 segments,
/// then an entry per segment.
pub const fn index_bytes(segments: usize) -> usize {
    segments.div_ceil(32) * 4 + segments
}

/// The total size of a tier blob of `segments` segments, `stored` of which store samples,
/// whose frames take `frame_bytes` bytes.
pub const fn tier_size(segments: usize, stored: usize, frame_bytes: usize) -> usize {
    let records_end = TIER_HEADER + frame_bytes + index_bytes(segments) + TIER_RECORD * stored;
    let least = TIER_HEADER + frame_bytes + TIER_PADDING;
    let end = if records_end > least {
        records_end
    } else {
        least
    };
    end.div_ceil(16) * 16
}
