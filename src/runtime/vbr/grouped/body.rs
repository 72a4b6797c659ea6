//! The grouped body as bytes (layout version 2 of the `vbr` body; issue 25): what a
//! blob of format version 3 holds, written by [`write`], checked by
//! [`super::validate::validate`] and read by [`View::read`], which the decoders sample from.
//!
//! ```text
//! body header (48 bytes, little-endian)
//!   0  u8   layout version (2)
//!   1  u8   samples per segment L (1..=32)
//!   2  u16  reserved (0)
//!   4  u32  segment count (= ceil(samples / L))
//!   8  u16  x 3  groups of rotations, translations, scales
//!  14  u16  x 3  static channels (constants) of rotations, translations, scales
//!  20  u16  x 3  default channels of rotations, translations, scales
//!  26  u16  flags: bit 0, the groups' first bits are u32 (a frame wider than 65535 bits),
//!            else u16; the other bits 0
//!  28  u32  data bytes
//!  32  u32  segment table offset in the data
//!  36  u32  bytes of one segment's group metadata (with the groups' first bits)
//!  40  u32  offset of the groups' first bits in a segment's group metadata (the first group's
//!            is 0, not stored)
//!  44  u32  reserved (0)
//! static channels' joints, rotations then translations then scales, each in joint order: u16
//!   each, zero-padded to 4 bytes
//! static channels' values, the same order: rotations 4 x f32, translations and scales 3 x f32
//! default channels' joints, the same order: u16 each, zero-padded to 4 bytes (the values: the
//!   identity rotation, a zero translation, a unit scale, or a zero scale in an `additive1` clip;
//!   in a blob without scale every joint's scale is the default, and none is listed)
//! joint map, per joint and channel a u16: bits 14-15 the source (0 animated, 1 static, 2
//!   default), bits 0-13 its index among the channel's sources of that kind (animated: lane
//!   index / 8 is the group among the channel's groups, lane index % 8 the lane); in a blob
//!   without scale only rotations and translations (two u16 per joint); zero-padded to 4 bytes
//! group directory, per group: u32 record offset in the data, u32 metadata offset in a
//!   segment's group metadata
//! data (see the module `grouped`): group records, segment table, segments, 32 bytes of
//!   padding
//! zero padding to 16 bytes
//! ```

use super::{DefaultChannel, Static, LANES};

use crate::format::{AdditiveFormat, BlobFlags, Header};

/// Layout version of a grouped body.
pub const VERSION: u8 = 2;
/// Body header bytes.
pub const HEADER: usize = 48;
/// Joint map source: animated.
pub const MAP_ANIMATED: u16 = 0;
/// Joint map source: static.
pub const MAP_STATIC: u16 = 1 << 14;
/// Joint map source: default.
pub const MAP_DEFAULT: u16 = 2 << 14;
/// Joint map index bits.
pub const MAP_INDEX: u16 = (1 << 14) - 1;

/// Channels per joint in the joint map: rotations, translations and, in a blob with scale,
/// scales.
#[inline(always)]
pub fn map_columns(h: &Header) -> usize {
    2 + h.has(BlobFlags::HAS_SCALE) as usize
}

/// Counts per channel (rotations, translations, scales) and the data's layout, as the body
/// header stores them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub seg_len: u32,
    pub num_segments: u32,
    pub groups: [u16; 3],
    pub statics: [u16; 3],
    pub defaults: [u16; 3],
    pub data_bytes: u32,
    pub seg_table: u32,
    pub meta_bytes: u32,
    pub starts_at: u32,
    /// The groups' first bits are u32 (else u16).
    pub wide_starts: bool,
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
            num_segments: u32_at(4),
            groups: u16s(8),
            statics: u16s(14),
            defaults: u16s(20),
            data_bytes: u32_at(28),
            seg_table: u32_at(32),
            meta_bytes: u32_at(36),
            starts_at: u32_at(40),
            wide_starts: b[26] & 1 != 0,
        }
    }

    /// Bytes of a group's first bit in a segment.
    #[inline(always)]
    pub fn start_bytes(&self) -> usize {
        if self.wide_starts {
            4
        } else {
            2
        }
    }

    /// Per kind (groups, constants, defaults) and channel: the index of the channel's first
    /// one among all of that kind.
    #[inline(always)]
    pub fn bases(&self) -> [[u32; 3]; 3] {
        bases(self.groups, self.statics, self.defaults)
    }

    /// Sum of a count over the channels.
    #[inline(always)]
    pub fn total(c: [u16; 3]) -> usize {
        c.iter().map(|&x| x as usize).sum()
    }

    /// Byte offsets of the sections: static joints, static values, default joints, joint map,
    /// group directory, data, end of the data, for `joints` joints with `columns` channels in
    /// the joint map.
    #[inline(always)]
    pub fn sections(&self, joints: usize, columns: usize) -> [usize; 7] {
        let statics = HEADER;
        let s = Self::total(self.statics);
        let values = statics + (2 * s).next_multiple_of(4);
        let defaults = values + 16 * self.statics[0] as usize + 12 * (s - self.statics[0] as usize);
        let map = defaults + (2 * Self::total(self.defaults)).next_multiple_of(4);
        let dir = map + (2 * columns * joints).next_multiple_of(4);
        let data = dir + 8 * Self::total(self.groups);
        [
            statics,
            values,
            defaults,
            map,
            dir,
            data,
            data + self.data_bytes as usize,
        ]
    }
}

/// Per kind (groups, constants, defaults) and channel: the index of the channel's first one
/// among all of that kind (the counts of the channels before it).
#[inline(always)]
fn bases(groups: [u16; 3], statics: [u16; 3], defaults: [u16; 3]) -> [[u32; 3]; 3] {
    let base = |x: [u16; 3]| [0, x[0] as u32, x[0] as u32 + x[1] as u32];
    [base(groups), base(statics), base(defaults)]
}

/// Writes a grouped body: `counts` (its data fields), the channels' sources in the header's
/// order, the joint map, the group directory and the data.
pub fn write(
    counts: &Counts,
    statics: &[Static],
    defaults: &[DefaultChannel],
    map: &[[u16; 3]],
    columns: usize,
    dir: &[[u32; 2]],
    data: &[u8],
) -> Vec<u8> {
    let mut b = Vec::with_capacity(HEADER + data.len() + 64 * map.len());
    b.extend_from_slice(&[VERSION, counts.seg_len as u8, 0, 0]);
    b.extend_from_slice(&counts.num_segments.to_le_bytes());
    for c in [counts.groups, counts.statics, counts.defaults] {
        for x in c {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    b.extend_from_slice(&(counts.wide_starts as u16).to_le_bytes());
    for x in [
        data.len() as u32,
        counts.seg_table,
        counts.meta_bytes,
        counts.starts_at,
        0,
    ] {
        b.extend_from_slice(&x.to_le_bytes());
    }
    debug_assert_eq!(b.len(), HEADER);
    for s in statics {
        b.extend_from_slice(&s.joint.to_le_bytes());
    }
    b.resize(b.len().next_multiple_of(4), 0);
    for s in statics {
        for x in &s.value[..if s.at == 0 { 4 } else { 3 }] {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    for d in defaults {
        b.extend_from_slice(&d.joint.to_le_bytes());
    }
    b.resize(b.len().next_multiple_of(4), 0);
    for m in map {
        for x in &m[..columns] {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    b.resize(b.len().next_multiple_of(4), 0);
    for d in dir {
        b.extend_from_slice(&d[0].to_le_bytes());
        b.extend_from_slice(&d[1].to_le_bytes());
    }
    b.extend_from_slice(data);
    b.resize(b.len().next_multiple_of(16), 0);
    b
}

/// A validated grouped body, as the decoders read it.
pub struct View<'a> {
    pub seg_len: u32,
    pub num_segments: u32,
    /// Samples of the clip.
    pub num_samples: u32,
    /// Static channels per channel (rotations, translations, scales).
    pub statics: [usize; 3],
    /// Their joints, in that order.
    pub static_joints: &'a [u16],
    /// Their values: rotations 4 floats each, then vectors 3 floats each (the slice ends with
    /// the last vector; the bytes after it are the body's).
    pub static_values: &'a [f32],
    /// Default channels per channel.
    pub defaults: [usize; 3],
    /// Their joints, in that order.
    pub default_joints: &'a [u16],
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
    /// Per joint and channel, its source (see the layout).
    pub joint_map: &'a [u16],
    /// Per group: its record's offset in `data`, and its metadata's offset in a segment's.
    pub group_at: &'a [[u32; 2]],
    /// Groups per channel.
    pub groups: [u16; 3],
    pub seg_table: usize,
    pub meta_bytes: usize,
    pub starts_at: usize,
    /// Bytes of a group's first bit (2 or 4).
    pub start_bytes: usize,
    pub data: &'a [u8],
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
        let [st, va, de, map, dir, data, end] = c.sections(joints, columns);
        assert!(end <= body.len() && (body.as_ptr() as usize).is_multiple_of(4));
        let (s, d, g) = (
            Counts::total(c.statics),
            Counts::total(c.defaults),
            Counts::total(c.groups),
        );
        // SAFETY: the sections lie in `body` (asserted above) and are 4-byte aligned (the body
        // is, and every section's offset is a multiple of 4); any bytes are valid u16, u32 and
        // f32 values.
        unsafe {
            View {
                seg_len: c.seg_len,
                num_segments: c.num_segments,
                num_samples: h.num_samples,
                statics: c.statics.map(|x| x as usize),
                static_joints: std::slice::from_raw_parts(body.as_ptr().add(st) as *const u16, s),
                static_values: std::slice::from_raw_parts(
                    body.as_ptr().add(va) as *const f32,
                    (de - va) / 4,
                ),
                defaults: c.defaults.map(|x| x as usize),
                default_joints: std::slice::from_raw_parts(body.as_ptr().add(de) as *const u16, d),
                default_scale: if zero_scale { 1 } else { 2 },
                num_joints: joints,
                all_scales: !h.has(BlobFlags::HAS_SCALE),
                bind: None,
                num_groups: g,
                joint_map: std::slice::from_raw_parts(
                    body.as_ptr().add(map) as *const u16,
                    columns * joints,
                ),
                group_at: std::slice::from_raw_parts(body.as_ptr().add(dir) as *const [u32; 2], g),
                groups: c.groups,
                seg_table: c.seg_table as usize,
                meta_bytes: c.meta_bytes as usize,
                starts_at: c.starts_at as usize,
                start_bytes: c.start_bytes(),
                data: &body[data..end],
                hinted: 0,
            }
        }
    }

    /// Channels per joint in `joint_map` (2 in a blob without scale, else 3).
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

    /// What [`Sources::get`] needs beside the joint map, for a selection to compute once.
    #[inline(always)]
    pub fn sources(&self) -> Sources {
        Sources {
            bases: bases(
                self.groups,
                self.statics.map(|x| x as u16),
                self.defaults.map(|x| x as u16),
            ),
            columns: self.columns(),
        }
    }
}

/// Per channel its first group, static and default, and the joint map's columns (see
/// [`View::sources`]).
pub struct Sources {
    bases: [[u32; 3]; 3],
    columns: usize,
}

impl Sources {
    /// The source of channel `ch` of joint `j` of `v`: [`super::SRC_ANIMATED`] | group << 3 |
    /// lane, [`super::SRC_STATIC`] | index in `statics`, or [`super::SRC_DEFAULT`] | index in
    /// `defaults`.
    #[inline(always)]
    pub fn get(&self, v: &View, j: usize, ch: usize) -> u32 {
        if ch >= self.columns {
            return super::SRC_DEFAULT;
        }
        let m = v.joint_map[j * self.columns + ch];
        let i = (m & MAP_INDEX) as u32;
        match m & !MAP_INDEX {
            MAP_ANIMATED => {
                super::SRC_ANIMATED | (self.bases[0][ch] + (i >> 3)) << 3 | (i & (LANES as u32 - 1))
            }
            MAP_STATIC => super::SRC_STATIC | (self.bases[1][ch] + i),
            _ => super::SRC_DEFAULT | (self.bases[2][ch] + i),
        }
    }
}
