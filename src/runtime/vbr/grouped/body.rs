//! The grouped body as bytes (body layout version 4): what a `vbr` blob of format version 5
//! holds, written by `offline::vbr::regroup`, checked by [`super::validate::validate`] and read by
//! [`View::read`], which the decoders sample from.
//!
//! ```text
//! body header (36 bytes, little-endian)
//!   0  u8   layout version (4)
//!   1  u8   samples per segment L (1..=32)
//!   2  u8   flags: bit 0 WIDE (a segment's frame bits and groups' first bits are u32, else
//!           u16), bit 1 MASKS (each segment stores its keyframe mask, else every sample is
//!           stored), bit 2 NARROW (lanes' joints are u8: the clip has at most 256 joints),
//!           bit 3 SMALL_TABLE (the segment table's entries are u16: every segment starts
//!           below byte 65536 of the data), bit 4 IMPLIED_BITS (set exactly when MASKS is not
//!           and L is 8, 16 or 32: a segment's frame bits follow from its size, `8 (next
//!           segment's offset - frames' offset) / L`, and only the last segment stores them);
//!           others 0
//!   3  u8   reserved (0)
//!   4  u32  segment count (= ceil(samples / L))
//!   8  u16 x 3  groups of rotations, translations, scales
//!  14  u16 x 3  static channels (constants) of rotations, translations, scales
//!  20  u16 x 3  default channels of rotations, translations, scales
//!  26  u16  the first rotation group with per-segment drops (the rotation groups' count when
//!           none has)
//!  28  u32  segment table offset in the data (the group records' bytes)
//!  32  u32  bytes of one segment's group metadata (with the groups' first bits)
//! data (see the module `grouped`): group records, segment table, segments
//! zeros: the fewest that end the body on a multiple of 16 bytes with at least 32 bytes after
//!   the last segment (the decoders' windows), counting the two sections below
//! static channels' values, per channel in joint order: rotations 4 x f32, translations and
//!   scales 3 x f32
//! kinds (the body's last bytes): per channel, bit masks over the joints (bit j of word j / 32
//!   is joint j), ceil(joints / 32) u32 words each: rotations animated with per-track drops,
//!   rotations animated with per-segment drops, static rotations, animated translations, static
//!   translations, and in a blob with scale animated scales and static scales; a channel in no
//!   mask is a default (the identity rotation, a zero translation, a unit scale, or a zero scale
//!   in an `additive1` clip; in a blob without scale every joint's scale); bits past the last
//!   joint 0
//! ```
//!
//! A channel's lanes are its animated joints in joint order (rotations: those with per-track
//! drops, then those with per-segment drops), eight to a group; a joint's kind and its index
//! among its channel's sources of that kind are a bit and a count of bits below it
//! ([`Sources`]). The group records follow one another without a directory: every group of a
//! channel but its last has eight lanes, and the rotation groups with per-segment drops follow
//! those without, so a group's record and metadata offsets are a few multiplications ([`Dir`]).

use super::LANES;

use crate::format::{AdditiveFormat, BlobFlags, Header};

/// Layout version of a grouped body.
pub const VERSION: u8 = 4;
/// Body header bytes.
pub const HEADER: usize = 36;
/// Header flag: a segment's frame bits and the groups' first bits are u32 (else u16).
pub const FLAG_WIDE: u8 = 1;
/// Header flag: each segment stores its keyframe mask (else every sample is stored).
pub const FLAG_MASKS: u8 = 2;
/// Header flag: lanes' joint indices are u8 (at most 256 joints).
pub const FLAG_NARROW: u8 = 4;
/// Header flag: the segment table's entries are u16.
pub const FLAG_SMALL_TABLE: u8 = 8;
/// Header flag: only the last segment stores its frame bits (see the layout).
pub const FLAG_IMPLIED_BITS: u8 = 16;
/// Every flag this layout defines.
pub const FLAGS: u8 = FLAG_WIDE | FLAG_MASKS | FLAG_NARROW | FLAG_SMALL_TABLE | FLAG_IMPLIED_BITS;

/// Whether a body of segments of `seg_len` samples, `masks` or not, implies its segments'
/// frame bits ([`FLAG_IMPLIED_BITS`]).
#[inline(always)]
pub const fn implies_bits(seg_len: u32, masks: bool) -> bool {
    !masks && matches!(seg_len, 8 | 16 | 32)
}
/// The kinds' masks: rotations animated with per-track drops.
pub const MASK_ROTATIONS: usize = 0;
/// Rotations animated with per-segment drops.
pub const MASK_PER_SEGMENT: usize = 1;
/// A channel's static mask, from its first mask (rotations 2, translations 4, scales 6).
pub const MASK_STATIC: [usize; 3] = [2, 4, 6];
// `Sources::get` computes them: a channel's animated mask `2 ch + 1` (rotations 0), its
// constants' `2 ch + 2`.
const _: () = assert!(
    MASK_ANIMATED[0] == MASK_ROTATIONS
        && MASK_ANIMATED[1] == 3
        && MASK_ANIMATED[2] == 5
        && MASK_STATIC[0] == 2
        && MASK_STATIC[1] == 4
        && MASK_STATIC[2] == 6
);
/// A channel's animated mask (rotations: those with per-track drops).
pub const MASK_ANIMATED: [usize; 3] = [0, 3, 5];
/// A group's first bit in a frame is stored for every `STARTS_EVERY`th group (but the
/// first): the others add the widths of the groups between.
pub const STARTS_EVERY: usize = 2;

/// Groups' first bits a segment stores for `groups` groups.
#[inline(always)]
pub const fn stored_starts(groups: usize) -> usize {
    groups.saturating_sub(1) / STARTS_EVERY
}
/// Record flag: the group stores its dropped components per segment.
pub const RECORD_PER_SEGMENT: u8 = 1;
/// Record flag: the lanes' joints are u16 (else u8).
pub const RECORD_WIDE_JOINTS: u8 = 2;

/// Channels per joint the kinds describe: rotations, translations and, in a blob with scale,
/// scales.
#[inline(always)]
pub fn map_columns(h: &Header) -> usize {
    2 + h.has(BlobFlags::HAS_SCALE) as usize
}

/// Masks of the kinds section for `columns` channels.
#[inline(always)]
pub const fn num_masks(columns: usize) -> usize {
    2 * columns + 1
}

/// u32 words of one mask over `joints` joints.
#[inline(always)]
pub const fn mask_words(joints: usize) -> usize {
    joints.div_ceil(32)
}

/// Counts per channel (rotations, translations, scales) and the data's layout, as the body
/// header stores them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub seg_len: u32,
    pub flags: u8,
    pub num_segments: u32,
    pub groups: [u16; 3],
    pub statics: [u16; 3],
    pub defaults: [u16; 3],
    /// The first rotation group with per-segment drops.
    pub first_per_segment: u16,
    pub seg_table: u32,
    pub meta_bytes: u32,
}

impl Counts {
    /// Reads a body header (`body` holds at least [`HEADER`] bytes).
    #[inline(always)]
    pub fn read(body: &[u8]) -> Counts {
        // A fixed-size array: every offset below is a constant, so no read is checked again
        // (every call pays this, and a pose of a small clip is a few thousand instructions).
        let b: &[u8; HEADER] = body[..HEADER].try_into().expect("a body header");
        let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u16s = |o: usize| [u16_at(o), u16_at(o + 2), u16_at(o + 4)];
        Counts {
            seg_len: b[1] as u32,
            flags: b[2],
            num_segments: u32_at(4),
            groups: u16s(8),
            statics: u16s(14),
            defaults: u16s(20),
            first_per_segment: u16_at(26),
            seg_table: u32_at(28),
            meta_bytes: u32_at(32),
        }
    }

    /// Whether the header has `flag`.
    #[inline(always)]
    pub fn has(&self, flag: u8) -> bool {
        self.flags & flag != 0
    }

    /// Bytes of a group's first bit in a segment, and of its frame bits.
    #[inline(always)]
    pub fn start_bytes(&self) -> usize {
        if self.has(FLAG_WIDE) {
            4
        } else {
            2
        }
    }

    /// Bytes of segment `s`'s header: its keyframe mask (when the segments store them) and
    /// frame bits (when they are not implied).
    #[inline(always)]
    pub fn segment_header(&self, s: usize) -> usize {
        if self.has(FLAG_IMPLIED_BITS) && s + 1 < self.num_segments as usize {
            0
        } else {
            4 * self.has(FLAG_MASKS) as usize + self.start_bytes()
        }
    }

    /// Bytes of a joint index.
    #[inline(always)]
    pub fn joint_bytes(&self) -> usize {
        if self.has(FLAG_NARROW) {
            1
        } else {
            2
        }
    }

    /// Bytes of a segment table entry.
    #[inline(always)]
    pub fn table_bytes(&self) -> usize {
        if self.has(FLAG_SMALL_TABLE) {
            2
        } else {
            4
        }
    }

    /// Offset of the groups' stored first bits in a segment's group metadata (groups
    /// `STARTS_EVERY`, `2 STARTS_EVERY`, ...: [`stored_starts`]).
    #[inline(always)]
    pub fn starts_at(&self) -> usize {
        let groups = Self::total(self.groups);
        self.meta_bytes as usize - self.start_bytes() * stored_starts(groups)
    }

    /// Sum of a count over the channels.
    #[inline(always)]
    pub fn total(c: [u16; 3]) -> usize {
        c.iter().map(|&x| x as usize).sum()
    }

    /// Bytes of the kinds for `joints` joints and `columns` channels.
    #[inline(always)]
    pub fn kinds_bytes(joints: usize, columns: usize) -> usize {
        4 * mask_words(joints) * num_masks(columns)
    }

    /// Bytes of the static channels' values.
    #[inline(always)]
    pub fn values_bytes(&self) -> usize {
        let r = self.statics[0] as usize;
        16 * r + 12 * (Self::total(self.statics) - r)
    }

    /// Byte offsets of the sections in a body of `len` bytes: data, static values, kinds, for
    /// `joints` joints with `columns` channels in the kinds (`None` when the two last sections
    /// do not fit after the header).
    #[inline(always)]
    pub fn sections(&self, joints: usize, columns: usize, len: usize) -> Option<[usize; 3]> {
        let tail = Self::kinds_bytes(joints, columns) + self.values_bytes();
        let values = len.checked_sub(tail).filter(|&v| v >= HEADER)?;
        Some([HEADER, values, len - Self::kinds_bytes(joints, columns)])
    }
}

/// Per kind (groups, constants, defaults) and channel: the index of the channel's first one
/// among all of that kind (the counts of the channels before it).
#[inline(always)]
fn bases(groups: [u16; 3], statics: [u16; 3], defaults: [u16; 3]) -> [[u32; 3]; 3] {
    let base = |x: [u16; 3]| [0, x[0] as u32, x[0] as u32 + x[1] as u32];
    [base(groups), base(statics), base(defaults)]
}

/// Bytes of a group record's fixed part (class, lanes, flags, metadata size, dropped
/// components, the lanes' joints) for joints of `jb` bytes.
#[inline(always)]
pub const fn record_head(jb: usize) -> usize {
    8 + LANES * jb
}

/// Bytes of a group record of `n` lanes of class `class` (per-segment drops `ps`).
#[inline(always)]
pub const fn record_bytes(class: usize, n: usize, ps: bool, jb: usize) -> usize {
    record_head(jb) + 4 * n * if class == 0 { 3 + ps as usize } else { 6 }
}

/// Bytes of a group's metadata in a segment (rates, range fields, dropped components).
#[inline(always)]
pub const fn meta_bytes(n: usize, ps: bool) -> usize {
    3 * (5 * n).div_ceil(8) + 6 * n + 2 * ps as usize
}

/// Where each group's record and metadata lie, from the counts and the channels' last
/// records (every other group is full): what a directory would hold, computed.
#[derive(Clone, Copy, Debug)]
pub struct Dir {
    /// Per channel: its first group's index, record offset and metadata offset.
    first: [u32; 3],
    rec: [u32; 3],
    meta: [u32; 3],
    /// The first rotation group with per-segment drops.
    first_ps: u32,
    jb: u32,
    /// Groups in the body.
    groups: u32,
}

impl Dir {
    /// A directory for a decode that names its group's offsets itself.
    pub const EMPTY: Dir = Dir {
        first: [0; 3],
        rec: [0; 3],
        meta: [0; 3],
        first_ps: 0,
        jb: 1,
        groups: 0,
    };

    /// The directory of a body with `groups` per channel, its first rotation group with
    /// per-segment drops `first_per_segment` and joints of `jb` bytes, whose data is `data`
    /// (validated).
    #[inline(always)]
    pub fn new(groups: [u16; 3], first_per_segment: u16, jb: usize, data: &[u8]) -> Dir {
        let g = groups.map(|x| x as u32);
        let fps = (first_per_segment as u32).min(g[0]);
        let first = [0, g[0], g[0] + g[1]];
        let mut d = Dir {
            first,
            rec: [0; 3],
            meta: [0; 3],
            first_ps: fps,
            jb: jb as u32,
            groups: g[0] + g[1] + g[2],
        };
        // Each channel starts after the last group of the one before: its offsets from the
        // full groups before it, plus its own record's sizes.
        #[allow(clippy::needless_range_loop)] // `ch` names a channel in four arrays
        for ch in 1..3 {
            let prev = ch - 1;
            let (rec, meta) = if g[prev] == 0 {
                (d.rec[prev], d.meta[prev])
            } else {
                let [r, m] = d.at(first[ch] as usize - 1);
                let r = r as usize;
                let (n, ps) = (data[r + 1] as usize, data[r + 2] & RECORD_PER_SEGMENT != 0);
                (
                    (r + record_bytes(prev, n, ps, jb)) as u32,
                    m + meta_bytes(n, ps) as u32,
                )
            };
            d.rec[ch] = rec;
            d.meta[ch] = meta;
        }
        d
    }

    /// Groups in the body (0 in [`Dir::EMPTY`]).
    #[inline(always)]
    pub fn groups(&self) -> usize {
        self.groups as usize
    }

    /// Group `g`'s record offset in the data and metadata offset in a segment's group
    /// metadata.
    #[inline(always)]
    pub fn at(&self, g: usize) -> [u32; 2] {
        let g = g as u32;
        let ch = (g >= self.first[1]) as usize + (g >= self.first[2]) as usize;
        let k = g - self.first[ch];
        let jb = self.jb as usize;
        if ch == 0 {
            let plain = k.min(self.first_ps);
            let ps = k - plain;
            [
                plain * record_bytes(0, LANES, false, jb) as u32
                    + ps * record_bytes(0, LANES, true, jb) as u32,
                plain * meta_bytes(LANES, false) as u32 + ps * meta_bytes(LANES, true) as u32,
            ]
        } else {
            [
                self.rec[ch] + k * record_bytes(1, LANES, false, jb) as u32,
                self.meta[ch] + k * meta_bytes(LANES, false) as u32,
            ]
        }
    }

    /// The per-channel bases, for the selections' eight-lane decode: first groups, record
    /// offsets, metadata offsets, the first rotation group with per-segment drops and the
    /// joint index bytes.
    #[inline(always)]
    pub fn parts(&self) -> ([u32; 3], [u32; 3], [u32; 3], u32, u32) {
        (self.first, self.rec, self.meta, self.first_ps, self.jb)
    }
}

/// A validated grouped body, as the decoders read it.
pub struct View<'a> {
    pub seg_len: u32,
    pub num_segments: u32,
    /// Samples of the clip.
    pub num_samples: u32,
    /// Static channels per channel (rotations, translations, scales).
    pub statics: [usize; 3],
    /// Their values: rotations 4 floats each, then vectors 3 floats each (the slice ends with
    /// the last vector; the kinds follow it).
    pub static_values: &'a [f32],
    /// Default channels per channel.
    pub defaults: [usize; 3],
    /// The kinds' masks, [`mask_words`] words each (see the layout).
    pub kinds: &'a [u32],
    /// Words of one mask.
    pub words: usize,
    /// Lanes' joint indices are u8.
    pub narrow: bool,
    /// The default scale: 2 (unit) or 1 (zero, an `additive1` clip), in `DEFAULT_VALUES`.
    pub default_scale: usize,
    /// Joints.
    pub num_joints: usize,
    /// Every joint's scale is the default (a blob without scale).
    pub all_scales: bool,
    /// The bind pose (10 floats per joint, at least one transform per joint) when the blob's
    /// defaults are the bind pose.
    pub bind: Option<&'a [f32]>,
    pub num_groups: usize,
    /// Groups per channel.
    pub groups: [u16; 3],
    pub seg_table: usize,
    /// Bytes of the static values and kinds at the end of the data (after the segments and
    /// their padding).
    pub tail: usize,
    /// Bytes of a segment table entry (2 or 4).
    pub table_bytes: usize,
    pub meta_bytes: usize,
    pub starts_at: usize,
    /// Bytes of a group's first bit (2 or 4).
    pub start_bytes: usize,
    /// Bytes of the last segment's header (keyframe mask and frame bits); every segment's
    /// unless `implied_bits`.
    pub seg_head: usize,
    /// Whether the segments store keyframe masks.
    pub masks: bool,
    /// Whether the segments but the last imply their frame bits (`8 bytes / L`: `bytes <<
    /// 3 >> bits_shift`).
    pub implied_bits: bool,
    pub bits_shift: u32,
    /// The first rotation group with per-segment drops.
    pub first_per_segment: u16,
    pub data: &'a [u8],
    /// The tiers attached to a resident blob ([`crate::runtime::tiers`]); none by default.
    pub tiers: Option<&'a crate::runtime::tiers::Attached<'a>>,
    /// Set by a whole pose's entry when it hinted the body before the segment table and the
    /// lines of the segments below this one: the pose's prefetch then skips both (0: skips
    /// nothing).
    pub hinted: u32,
}

impl<'a> View<'a> {
    /// The view of a body that [`super::validate::validate`] accepted for the header `h`, at
    /// an address that is a multiple of 4 (a blob's body is).
    #[inline(always)]
    pub fn read(body: &'a [u8], h: &Header) -> View<'a> {
        let joints = h.num_joints as usize;
        let zero_scale = h.additive == AdditiveFormat::Additive1 as u8;
        let c = Counts::read(body);
        let columns = map_columns(h);
        let [data, values, kinds] = c
            .sections(joints, columns, body.len())
            .expect("a validated body");
        assert!((body.as_ptr() as usize).is_multiple_of(4) && body.len().is_multiple_of(4));
        let words = mask_words(joints);
        // SAFETY: the sections lie in `body` (asserted above) and are 4-byte aligned (the body
        // is, and every section's offset is a multiple of 4); any bytes are valid u32 and f32
        // values.
        unsafe {
            View {
                seg_len: c.seg_len,
                num_segments: c.num_segments,
                num_samples: h.num_samples,
                statics: c.statics.map(|x| x as usize),
                static_values: std::slice::from_raw_parts(
                    body.as_ptr().add(values) as *const f32,
                    (kinds - values) / 4,
                ),
                defaults: c.defaults.map(|x| x as usize),
                kinds: std::slice::from_raw_parts(
                    body.as_ptr().add(kinds) as *const u32,
                    words * num_masks(columns),
                ),
                words,
                narrow: c.has(FLAG_NARROW),
                default_scale: if zero_scale { 1 } else { 2 },
                num_joints: joints,
                all_scales: !h.has(BlobFlags::HAS_SCALE),
                bind: None,
                num_groups: Counts::total(c.groups),
                groups: c.groups,
                seg_table: c.seg_table as usize,
                tail: body.len() - values,
                table_bytes: c.table_bytes(),
                meta_bytes: c.meta_bytes as usize,
                starts_at: c.starts_at(),
                start_bytes: c.start_bytes(),
                seg_head: c.segment_header(c.num_segments as usize - 1),
                masks: c.has(FLAG_MASKS),
                implied_bits: c.has(FLAG_IMPLIED_BITS),
                bits_shift: c.seg_len.trailing_zeros(),
                first_per_segment: c.first_per_segment,
                data: &body[data..],
                tiers: None,
                hinted: 0,
            }
        }
    }

    /// Channels per joint in the kinds (2 in a blob without scale, else 3).
    #[inline(always)]
    pub fn columns(&self) -> usize {
        3 - self.all_scales as usize
    }

    /// The mask of a group's first bit in a `u64` read.
    #[inline(always)]
    pub fn start_mask(&self) -> u64 {
        if self.start_bytes == 4 {
            u32::MAX as u64
        } else {
            u16::MAX as u64
        }
    }

    /// Segment `s`'s offset in the data (`s` at most the segment count: the entry after the
    /// last is read as the table's next bytes, which callers do not use).
    #[inline(always)]
    pub fn segment_offset(&self, s: usize) -> usize {
        let w = crate::format::bytes::read_u32(self.data, self.seg_table + self.table_bytes * s);
        (w & table_mask(self.table_bytes)) as usize
    }

    /// Bytes of segment `s`'s header.
    #[inline(always)]
    pub fn segment_header(&self, s: usize) -> usize {
        if self.implied_bits && s + 1 < self.num_segments as usize {
            0
        } else {
            self.seg_head
        }
    }

    /// The groups' record and metadata offsets ([`Dir`]).
    #[inline(always)]
    pub fn dir(&self) -> Dir {
        Dir::new(
            self.groups,
            self.first_per_segment,
            2 - self.narrow as usize,
            self.data,
        )
    }

    /// Mask `m` (see the layout) as words.
    #[inline(always)]
    pub fn mask(&self, m: usize) -> &'a [u32] {
        &self.kinds[m * self.words..(m + 1) * self.words]
    }

    /// What [`Sources::get`] needs, for a selection to compute once.
    #[inline(always)]
    pub fn sources(&self) -> Sources<'a> {
        let plain = self.mask(MASK_ROTATIONS);
        Sources {
            bases: bases(
                self.groups,
                self.statics.map(|x| x as u16),
                self.defaults.map(|x| x as u16),
            ),
            columns: self.columns(),
            kinds: self.kinds,
            words: self.words,
            joints: self.num_joints,
            plain_rotations: plain.iter().map(|w| w.count_ones()).sum(),
        }
    }
}

/// The mask of a segment table entry of `bytes` bytes in a `u32` read.
#[inline(always)]
pub const fn table_mask(bytes: usize) -> u32 {
    if bytes == 2 {
        u16::MAX as u32
    } else {
        u32::MAX
    }
}

/// Per channel its first group, static and default, and the kinds (see [`View::sources`]).
pub struct Sources<'a> {
    bases: [[u32; 3]; 3],
    columns: usize,
    kinds: &'a [u32],
    words: usize,
    /// Joints (bits of a mask in use).
    joints: usize,
    /// Rotations with per-track drops: the lanes before those with per-segment drops.
    plain_rotations: u32,
}

impl Sources<'_> {
    /// The source of channel `ch` of joint `j` (below the joint count): [`super::SRC_ANIMATED`] |
    /// group << 3 | lane, [`super::SRC_STATIC`] | index in `statics`, or [`super::SRC_DEFAULT`]
    /// (the value is the joint's: `common::default_value`).
    #[inline(always)]
    pub fn get(&self, j: usize, ch: usize) -> u32 {
        if ch >= self.columns {
            return super::SRC_DEFAULT;
        }
        assert!(j < self.joints);
        let (w, below) = (j >> 5, (1u32 << (j & 31)) - 1);
        let kinds = self.kinds.as_ptr();
        let words = self.words;
        // Word `i` of mask `m`. SAFETY (every call below): `m` is a mask of a channel below
        // `columns` (`MASK_ANIMATED`, `MASK_STATIC`: 0, 3, 5 and 2, 4, 6; 1), so below
        // `num_masks(columns)`, and `i` is at most `w`, below `words` as `j` is below the joint
        // count: inside `kinds`, which holds `words` words per mask.
        let at = |m: usize, i: usize| unsafe { *kinds.add(m * words + i) };
        // Bits of mask `m` below bit `j`, `x` its word `w`.
        let rank = |m: usize, x: u32| {
            (0..w).map(|i| at(m, i).count_ones()).sum::<u32>() + (x & below).count_ones()
        };
        let animated = if ch == 0 { MASK_ROTATIONS } else { 2 * ch + 1 };
        let x = at(animated, w);
        let lane = if x >> (j & 31) & 1 != 0 {
            Some(rank(animated, x))
        } else if ch == 0 && at(MASK_PER_SEGMENT, w) >> (j & 31) & 1 != 0 {
            Some(self.plain_rotations + rank(MASK_PER_SEGMENT, at(MASK_PER_SEGMENT, w)))
        } else {
            None
        };
        if let Some(i) = lane {
            return super::SRC_ANIMATED
                | (self.bases[0][ch] + (i >> 3)) << 3
                | (i & (LANES as u32 - 1));
        }
        let statics = 2 * ch + 2;
        let x = at(statics, w);
        if x >> (j & 31) & 1 != 0 {
            return super::SRC_STATIC | (self.bases[1][ch] + rank(statics, x));
        }
        super::SRC_DEFAULT
    }
}
