//! What the decoders share: a sample's place in its segment, a pose's case, the group records,
//! and (x86-64) the prefetch hints.

use super::body::{record_bytes, record_head, RECORD_PER_SEGMENT, RECORD_WIDE_JOINTS};
use super::body::{MASK_ANIMATED, MASK_PER_SEGMENT, MASK_STATIC};
use super::{View, DEFAULT_VALUES};
use crate::format::bytes::read_u32;
use crate::format::vbr::keyframe::keyframe_position;
use crate::math::CHANNEL_OFFSETS;
use crate::runtime::PoseRows;
use crate::runtime::SampleKey;

/// One sample (`alpha` 0 or equal samples).
pub(super) const ONE_SAMPLE: u8 = 0;
/// Two samples in one segment (one set of coefficients).
pub(super) const SAME_SEGMENT: u8 = 1;
/// Two samples in different segments.
pub(super) const TWO_SEGMENTS: u8 = 2;

/// A key's two samples as segments and places in them, and the pose's case.
#[derive(Clone, Copy)]
pub(super) struct Split {
    pub seg: [u32; 2],
    pub local: [u32; 2],
    /// [`ONE_SAMPLE`], [`SAME_SEGMENT`] or [`TWO_SEGMENTS`].
    pub case: u8,
}

/// The split of `key`, with one division: the second sample is the first, the next one (the
/// usual key), or else divided too. (A division costs tens of cycles, and a pose of a small
/// clip a few hundred: a whole pose's walk takes every place from this one split.)
#[inline(always)]
pub(super) fn split(view: &View, key: &SampleKey) -> Split {
    let len = view.seg_len;
    let (s0, l0) = seg_of(key.i0, len);
    let (s1, l1) = if key.i1 == key.i0 {
        (s0, l0)
    } else if key.i1 == key.i0 + 1 {
        if l0 + 1 == len {
            (s0 + 1, 0)
        } else {
            (s0, l0 + 1)
        }
    } else {
        seg_of(key.i1, len)
    };
    let case = if key.i1 == key.i0 || key.alpha <= 0.0 {
        ONE_SAMPLE
    } else if s0 == s1 {
        SAME_SEGMENT
    } else {
        TWO_SEGMENTS
    };
    Split {
        seg: [s0, s1],
        local: [l0, l1],
        case,
    }
}

/// The places of a key's two samples from its [`split`] (the second is the first's in case
/// [`ONE_SAMPLE`]).
#[inline(always)]
pub(super) fn positions<'a, S: Src<'a>>(view: &View<'a>, key_split: &Split) -> (Pos<S>, Pos<S>) {
    let first = segment_at(view, key_split.seg[0]);
    if key_split.case == SAME_SEGMENT {
        // The same segment: its table entry and header (and tiers' records) read once.
        return S::place2(view, first, key_split.local);
    }
    let a = S::place(view, first, key_split.local[0]);
    let b = match key_split.case {
        ONE_SAMPLE => a,
        _ => S::place(view, segment_at(view, key_split.seg[1]), key_split.local[1]),
    };
    (a, b)
}

/// Where one sample's stored frame starts, and its keyframe blend. `S` says where the frames
/// lie: [`Here`] in the body (a blob without tiers attached), [`Far`] anywhere.
#[derive(Clone, Copy)]
pub(super) struct Pos<S> {
    /// Byte offset of the segment's group metadata.
    pub meta: usize,
    /// Bit of the stored frame (in the body's data, or in `src`'s bytes).
    pub bit: usize,
    /// Blend towards the next stored frame (a dropped sample), 0 for a stored one.
    pub t: f32,
    /// Bits of a frame.
    pub fb: usize,
    /// Where the frames lie.
    pub src: S,
}

/// Where a place's frames lie. The decoders are compiled once for each: a pose of a blob
/// without tiers attached reads as if tiers did not exist.
#[cfg_attr(
    not(any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        all(target_arch = "wasm32", target_feature = "simd128")
    )),
    allow(dead_code)
)]
pub(super) trait Src<'a>: Copy {
    /// The place of sample `local` of segment `seg` ([`segment_at`]).
    fn place(view: &View<'a>, seg: Seg, local: u32) -> Pos<Self>;
    /// The places of two samples of segment `seg`.
    #[inline(always)]
    fn place2(view: &View<'a>, seg: Seg, local: [u32; 2]) -> (Pos<Self>, Pos<Self>) {
        (
            Self::place(view, seg, local[0]),
            Self::place(view, seg, local[1]),
        )
    }
    /// The bytes that hold the stored frame (`body`: the body's data).
    fn data(pos: &Pos<Self>, body: &'a [u8]) -> &'a [u8];
    /// The bytes and bit of the next stored frame (read when `t > 0`).
    fn next(pos: &Pos<Self>, body: &'a [u8]) -> (&'a [u8], usize);
    /// Whether `a`'s next stored frame is `b`'s frame.
    fn next_is(a: &Pos<Self>, b: &Pos<Self>) -> bool;
    /// Whether the two places' frames lie in the same bytes.
    fn same_bytes(a: &Pos<Self>, b: &Pos<Self>) -> bool;
}

/// Frames in the body: the stored frames of a segment lie back to back.
#[derive(Clone, Copy)]
pub(super) struct Here;

impl<'a> Src<'a> for Here {
    #[inline(always)]
    fn place(view: &View<'a>, (meta, mask, fb, _): Seg, local: u32) -> Pos<Here> {
        let (idx, t) = keyframe_position(mask, local);
        Pos {
            meta,
            bit: (meta + view.meta_bytes) * 8 + idx as usize * fb,
            t,
            fb,
            src: Here,
        }
    }
    #[inline(always)]
    fn data(_: &Pos<Here>, body: &'a [u8]) -> &'a [u8] {
        body
    }
    #[inline(always)]
    fn next(pos: &Pos<Here>, body: &'a [u8]) -> (&'a [u8], usize) {
        (body, pos.bit + pos.fb)
    }
    #[inline(always)]
    fn next_is(a: &Pos<Here>, b: &Pos<Here>) -> bool {
        a.bit + a.fb == b.bit
    }
    #[inline(always)]
    fn same_bytes(_: &Pos<Here>, _: &Pos<Here>) -> bool {
        true
    }
}

/// Frames anywhere: in the body or in an attached tier ([`super::tiered`]).
#[derive(Clone, Copy)]
pub(super) struct Far<'a> {
    /// The bytes that hold the stored frame.
    pub data: &'a [u8],
    /// The bytes and bit of the next stored frame.
    pub next: &'a [u8],
    pub next_bit: usize,
}

impl<'a> Src<'a> for Far<'a> {
    #[inline(always)]
    fn place(view: &View<'a>, seg: Seg, local: u32) -> Pos<Far<'a>> {
        super::tiered::FarSegment::new(view, seg).place(local)
    }
    #[inline(always)]
    fn place2(view: &View<'a>, seg: Seg, local: [u32; 2]) -> (Pos<Far<'a>>, Pos<Far<'a>>) {
        let f = super::tiered::FarSegment::new(view, seg);
        (f.place(local[0]), f.place(local[1]))
    }
    #[inline(always)]
    fn data(pos: &Pos<Far<'a>>, _: &'a [u8]) -> &'a [u8] {
        pos.src.data
    }
    #[inline(always)]
    fn next(pos: &Pos<Far<'a>>, _: &'a [u8]) -> (&'a [u8], usize) {
        (pos.src.next, pos.src.next_bit)
    }
    #[inline(always)]
    fn next_is(a: &Pos<Far<'a>>, b: &Pos<Far<'a>>) -> bool {
        a.src.next_bit == b.bit && std::ptr::eq(a.src.next, b.src.data)
    }
    #[inline(always)]
    fn same_bytes(a: &Pos<Far<'a>>, b: &Pos<Far<'a>>) -> bool {
        std::ptr::eq(a.src.data, b.src.data)
    }
}

#[cfg_attr(
    not(any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        all(target_arch = "wasm32", target_feature = "simd128")
    )),
    allow(dead_code)
)]
impl<S> Pos<S> {
    /// The bytes of the stored frame (`body`: the body's data).
    #[inline(always)]
    pub fn data<'a>(&self, body: &'a [u8]) -> &'a [u8]
    where
        S: Src<'a>,
    {
        S::data(self, body)
    }

    /// The bytes and bit of the next stored frame.
    #[inline(always)]
    pub fn next<'a>(&self, body: &'a [u8]) -> (&'a [u8], usize)
    where
        S: Src<'a>,
    {
        S::next(self, body)
    }

    /// Whether two places read the same stored frame.
    #[inline(always)]
    pub fn same_frame<'a>(&self, o: &Pos<S>) -> bool
    where
        S: Src<'a>,
    {
        self.bit == o.bit && S::same_bytes(self, o)
    }

    /// Whether `o`'s stored frame is this place's next one.
    #[inline(always)]
    pub fn next_is<'a>(&self, o: &Pos<S>) -> bool
    where
        S: Src<'a>,
    {
        S::next_is(self, o)
    }
}

/// The segment of `sample` and its place in it, for segments of `len` (at least 1) samples:
/// a shift and a mask for a power of two (the encoder's 16), else a division, whose latency
/// lies before a pose's first dependent load.
#[inline(always)]
pub(crate) fn seg_of(sample: u32, len: u32) -> (u32, u32) {
    if len.is_power_of_two() {
        (sample >> len.trailing_zeros(), sample & (len - 1))
    } else {
        (sample / len, sample % len)
    }
}

/// A segment's group metadata offset in the data, keyframe mask, frame bits and index.
pub(super) type Seg = (usize, u32, usize, usize);

/// Segment `seg`'s group metadata offset in the data, keyframe mask, frame bits and index (a
/// body whose segments store no mask stores every sample: the mask's bits are all set).
#[inline(always)]
pub(super) fn segment_at(view: &View, seg: u32) -> Seg {
    let s = seg.min(view.num_segments - 1) as usize;
    let off = view.segment_offset(s);
    if view.implied_bits && s + 1 < view.num_segments as usize {
        // The frames fill the segment up to the next one (the table entry after this one).
        let next = view.segment_offset(s + 1);
        let fb = ((next - off - view.meta_bytes) << 3) >> view.bits_shift;
        return (off, !0, fb, s);
    }
    let mask = if view.masks {
        read_u32(view.data, off)
    } else {
        !0
    };
    // The frame bits: a u16 (the word's high half is the metadata's, or the padding's) or a
    // u32, after the mask.
    let w = read_u32(view.data, off + 4 * view.masks as usize) as u64;
    (
        off + view.seg_head,
        mask,
        (w & view.start_mask()) as usize,
        s,
    )
}

/// The raw `f32` field `q` clamped to `[-limit, limit]` as the `vbr` decoder does (`maxps` then
/// `minps`: a NaN gives `-limit`).
#[inline(always)]
pub(super) fn raw_value(q: u32, limit: f32) -> f32 {
    let x = f32::from_bits(q);
    if x.is_nan() {
        -limit
    } else {
        x.max(-limit).min(limit)
    }
}

/// A group record (see the module's layout), as byte offsets in the converted data.
#[derive(Clone, Copy, Debug)]
pub(super) struct Record {
    /// 0 rotation, 1 translation, 2 scale.
    pub class: u8,
    /// Lanes in use.
    pub n: usize,
    /// Whether the segments store the group's dropped components.
    pub per_segment: bool,
    /// Bytes of its metadata in a segment.
    pub meta: usize,
    /// Offset of the joint of lane 0.
    pub joints: usize,
    /// 1 when the lanes' joints are u16, 0 when u8 (a shift).
    pub joint_shift: usize,
    /// Per-track dropped components, 2 bits per lane.
    pub drops: u32,
    /// Offset of the clip ranges.
    pub ranges: usize,
    /// Bytes of the record.
    pub size: usize,
}

impl Record {
    /// The record at `at` of `data`, which must hold its first 8 bytes and its lanes' joints.
    #[inline(always)]
    pub unsafe fn at(data: *const u8, at: usize) -> Record {
        let r = data.add(at);
        let (class, n, flags, meta) = (*r, *r.add(1) as usize, *r.add(2), *r.add(3) as usize);
        let ps = flags & RECORD_PER_SEGMENT != 0;
        let shift = (flags & RECORD_WIDE_JOINTS != 0) as usize;
        let head = record_head(1 << shift);
        Record {
            class,
            n,
            per_segment: ps,
            meta,
            joints: at + 8,
            joint_shift: shift,
            drops: (r.add(4) as *const u32).read_unaligned(),
            ranges: at + head,
            size: record_bytes(class as usize, n, ps, 1 << shift),
        }
    }

    /// [`Record::at`], checked.
    pub fn read(data: &[u8], at: usize) -> Record {
        assert!(at + record_head(2) <= data.len());
        // SAFETY: the record's head (with u16 joints, its longest) is in `data`.
        unsafe { Record::at(data.as_ptr(), at) }
    }

    /// Joint of lane `l` (below 8).
    #[inline(always)]
    pub fn joint(&self, data: &[u8], l: usize) -> usize {
        read_joint(data.as_ptr(), self.joints, self.joint_shift, l)
    }
}

/// The joint of lane `l` of a record whose joints start at byte `at` of `data` (`shift` 1 for
/// u16 joints, 0 for u8): one 16-bit read, masked to a byte for u8 joints (the byte after the
/// last u8 joint is the record's).
#[inline(always)]
pub(super) fn read_joint(data: *const u8, at: usize, shift: usize, l: usize) -> usize {
    // SAFETY: the record's joints (and, for u8 joints, the byte after them) lie in the data:
    // the validator checked the record.
    let w = unsafe { (data.add(at + (l << shift)) as *const u16).read_unaligned() };
    (u16::from_le(w) & (0xFF | (shift as u16 * 0xFF00))) as usize
}

/// A hint for the line of `p` (no fault for any address): `prefetcht0` on x86-64, `prfm
/// pldl1keep` on aarch64.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn line(p: *const u8) {
    core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p as *const i8);
}

/// A hint for the line of `p` (no fault for any address): `prefetcht0` on x86-64, `prfm
/// pldl1keep` on aarch64.
#[cfg(target_arch = "aarch64")]
#[inline(always)]
pub(super) unsafe fn line(p: *const u8) {
    core::arch::asm!(
        "prfm pldl1keep, [{0}]",
        in(reg) p,
        options(nostack, preserves_flags, readonly)
    );
}

/// Lines of `len` bytes at `p`.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
pub(super) unsafe fn fetch(p: *const u8, len: usize) {
    // Two lines a step: half the loop's instructions (a warm pose pays for each).
    let mut o = 0;
    while o + 64 < len {
        line(p.add(o));
        line(p.add(o + 64));
        o += 128;
    }
    if o < len {
        line(p.add(o));
    }
    line(p.add(len.saturating_sub(1)));
}

/// `65536 / L` for segment lengths `L` of 1 to 32 (index `L % 32`: 32 at 0).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const RECIPROCALS: [u32; 32] = {
    let mut t = [0u32; 32];
    let mut l = 1;
    while l <= 32 {
        t[l % 32] = 65536 / l as u32;
        l += 1;
    }
    t
};

/// Hints for everything a whole pose reads: the segment table
/// entries, the segments' metadata and frames (their place estimated), the group records and
/// the static channels; not what the entry hinted already (`View::hinted`).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline(always)]
pub(super) unsafe fn prefetch(view: &View, key_split: &Split) {
    let d = view.data.as_ptr();
    let table = view.seg_table;
    let last = view.num_segments - 1;
    for s in key_split.seg {
        let seg = s.min(last) as usize;
        line(d.add(table + view.table_bytes * seg));
    }
    // The entry hinted the body before the table, and the segments below `hinted`.
    let early = view.hinted != 0;
    if !early {
        fetch(d, table);
    }
    // A frame's estimated bytes, the segment's frame bytes / L (without a division).
    let inv = RECIPROCALS[view.seg_len as usize & 31] as usize;
    // Two samples of one segment (the usual key): its metadata once, and one window over
    // both frames (they follow one another).
    let n = if key_split.seg[0] == key_split.seg[1] {
        1
    } else {
        2
    };
    let span = if n == 1 {
        key_split.local[1].abs_diff(key_split.local[0]) as usize
    } else {
        0
    };
    for (s, local) in key_split.seg.into_iter().zip(key_split.local).take(n) {
        let local = if n == 1 {
            local.min(key_split.local[1])
        } else {
            local
        };
        let seg = s.min(last) as usize;
        if (seg as u32) < view.hinted {
            continue;
        }
        let off = view.segment_offset(seg);
        let end = if seg as u32 == last {
            view.data.len() - view.tail
        } else {
            view.segment_offset(seg + 1)
        };
        let frames = off + view.segment_header(seg) + view.meta_bytes;
        fetch(d.add(off), frames - off);
        let len = end.saturating_sub(frames);
        let per = (len * inv) >> 16;
        let at = frames + per * local as usize;
        let lo = at.saturating_sub(64).max(frames).min(end);
        fetch(d.add(lo), (per * (span + 1) + 128).min(end - lo));
    }
    if early {
        // The entry hinted the body's last lines (`entry::TAIL_HINT`) with the rest.
        return;
    }
    // The constants' values and the kinds: the body's last bytes, hinted as one run.
    let from = view.static_values.as_ptr() as *const u8;
    let to = view.kinds.as_ptr_range().end as *const u8;
    fetch(from, (to as usize).saturating_sub(from as usize));
}

/// Floats in an ozz block of four joints (the layouts' own constant).
pub(super) use crate::runtime::layout::SOA4_BLOCK;

/// Joint `j`'s row of a channel whose joint 0's row is at `base`: `j * stride` floats on, or,
/// `SOA4`, in ozz blocks of four joints (block `j / 4`, lane `j % 4`, the row's components four
/// floats apart).
#[inline(always)]
pub(super) unsafe fn row_at<const SOA4: bool>(base: *mut f32, stride: usize, j: usize) -> *mut f32 {
    if SOA4 {
        base.add((j >> 2) * SOA4_BLOCK + (j & 3))
    } else {
        base.add(j * stride)
    }
}

/// [`row_at`] of joint `i` of a mask word (`i < 32`) from the row of the word's first joint (a
/// block's first lane): into blocks, a table's offset instead of the block and lane arithmetic.
#[inline(always)]
unsafe fn row_in_word<const SOA4: bool>(row: *mut f32, stride: usize, i: usize) -> *mut f32 {
    /// Each joint's offset in floats from a word's first joint's, in blocks.
    static WORD_LANES: [u16; 32] = {
        let mut t = [0u16; 32];
        let mut i = 0;
        while i < 32 {
            t[i] = ((i >> 2) * SOA4_BLOCK + (i & 3)) as u16;
            i += 1;
        }
        t
    };
    if SOA4 {
        row.add(WORD_LANES[i & 31] as usize)
    } else {
        row.add(i * stride)
    }
}

/// Writes the static channels (constants, then defaults) into the rows of `rows`: `put4(dst,
/// src)` stores a rotation's four floats from `src`, `put3(dst, src)` a vector's three (`src`
/// may be read four floats wide: the body or [`DEFAULT_VALUES`] holds a fourth).
///
/// # Safety
/// Every joint of the view is below the joint count of the pose at `out` (validated).
#[inline(always)]
pub(super) unsafe fn write_statics(
    view: &View,
    rows: PoseRows,
    channels: u32,
    put4: impl Fn(*mut f32, *const f32),
    put3: impl Fn(*mut f32, *const f32),
) {
    write_statics_in::<false>(view, rows, channels, put4, put3)
}

/// [`write_statics`] into rows (`SOA4` false) or into ozz blocks (`SOA4`: `rows.base` each
/// channel's first element in block 0, see [`row_at`]; `put4` and `put3` store a row's
/// components four floats apart). Into blocks, a blob without scales writes each block's
/// scales whole, lanes past the last joint included (the caller sets those to the identity
/// after).
///
/// # Safety
/// As [`write_statics`]; `SOA4`: the pose holds `ceil(n / 4)` blocks.
#[inline(always)]
pub(super) unsafe fn write_statics_in<const SOA4: bool>(
    view: &View,
    rows: PoseRows,
    channels: u32,
    put4: impl Fn(*mut f32, *const f32),
    put3: impl Fn(*mut f32, *const f32),
) {
    let columns = view.columns();
    let words = view.words;
    // SAFETY (the masks' reads): `kinds` holds `words` words per mask of the view's channels.
    let kinds = view.kinds.as_ptr();
    // The constants, per channel in joint order, as their values are stored.
    let mut at = view.static_values.as_ptr();
    for (ch, _) in CHANNEL_OFFSETS.iter().enumerate().take(columns) {
        let (count, n) = (view.statics[ch], if ch == 0 { 4 } else { 3 });
        if count == 0 {
            continue;
        }
        if channels & (1 << ch) == 0 {
            at = at.add(n * count);
            continue;
        }
        let mask = kinds.add(MASK_STATIC[ch] * words);
        let (base, stride) = (rows.base[ch], rows.stride[ch]);
        at = if ch == 0 {
            write_constants::<4, SOA4>(mask, words, base, stride, at, &put4)
        } else {
            write_constants::<3, SOA4>(mask, words, base, stride, at, &put3)
        };
    }
    // The defaults: the joints in none of a channel's masks (as many as the header counts:
    // the bits past the last joint are never reached).
    let bind = view.bind.map(|b| b.as_ptr());
    // The bind pose's transforms (10 floats each, at least one per joint): a scale is copied
    // three floats wide, as the last joint's ends the bind pose.
    let copy3 = |dst: *mut f32, src: *const f32| {
        if SOA4 {
            (0..3).for_each(|k| *dst.add(4 * k) = *src.add(k));
        } else {
            std::ptr::copy_nonoverlapping(src, dst, 3)
        }
    };
    let scale = DEFAULT_VALUES[view.default_scale].as_ptr();
    for (ch, &off) in CHANNEL_OFFSETS.iter().enumerate().take(columns) {
        let left = view.defaults[ch];
        if left == 0 || channels & (1 << ch) == 0 {
            continue;
        }
        let (anim, stat) = (
            kinds.add(MASK_ANIMATED[ch] * words),
            kinds.add(MASK_STATIC[ch] * words),
        );
        let ps = kinds.add(MASK_PER_SEGMENT * words);
        // The source of joint `j`'s value: the bind pose's, or the channel's default.
        let (src, step) = match bind {
            Some(b) => (b.add(off), 10),
            None => (DEFAULT_VALUES[ch].as_ptr(), 0),
        };
        let src = if ch == 2 && bind.is_none() {
            scale
        } else {
            src
        };
        let (base, stride) = (rows.base[ch], rows.stride[ch]);
        // The joints in none of the channel's masks.
        let free = |w: usize| !(*anim.add(w) | *stat.add(w) | if ch == 0 { *ps.add(w) } else { 0 });
        let d = (words, base, stride, src, step);
        match ch {
            0 => write_defaults::<SOA4>(d, free, left, &put4),
            1 => write_defaults::<SOA4>(d, free, left, &put3),
            _ if bind.is_some() => write_defaults::<SOA4>(d, free, left, &copy3),
            _ => write_defaults::<SOA4>(d, free, left, &put3),
        }
    }
    if view.all_scales && channels & 4 != 0 {
        let (base, stride) = (rows.base[2], rows.stride[2]);
        if SOA4 && bind.is_none() {
            // Whole blocks: each component's four lanes one store.
            for b in 0..view.num_joints.div_ceil(4) {
                for k in 0..3 {
                    let d = base.add(b * SOA4_BLOCK + 4 * k);
                    (d as *mut [f32; 4]).write_unaligned([*scale.add(k); 4]);
                }
            }
            return;
        }
        for j in 0..view.num_joints {
            match bind {
                Some(b) => copy3(row_at::<SOA4>(base, stride, j), b.add(j * 10 + 7)),
                None => put3(row_at::<SOA4>(base, stride, j), scale),
            }
        }
    }
}

/// One channel's constants: the joints of the `words` mask words at `mask`, in order, each
/// written by `put` from the next `N` floats at `at` into its row at `base` (`stride` floats a
/// joint, or in blocks: [`row_at`]). Returns the floats after the last one read.
///
/// # Safety
/// As [`write_statics`]: `mask` holds `words` words, `at` a value per bit set, every joint's
/// row lies in the pose.
#[inline(always)]
unsafe fn write_constants<const N: usize, const SOA4: bool>(
    mask: *const u32,
    words: usize,
    base: *mut f32,
    stride: usize,
    mut at: *const f32,
    put: &impl Fn(*mut f32, *const f32),
) -> *const f32 {
    for w in 0..words {
        let mut x = *mask.add(w);
        // A word's first joint starts a block (32 is a multiple of 4).
        let row = row_at::<SOA4>(base, stride, 32 * w);
        while x != 0 {
            put(
                row_in_word::<SOA4>(row, stride, x.trailing_zeros() as usize),
                at,
            );
            x &= x - 1;
            at = at.add(N);
        }
    }
    at
}

/// One channel's defaults: the first `left` joints whose bit is set in `free(w)` (the mask
/// words `0..words` of `d.0`), each written by `put` into its row at `d.1` (`d.2` floats a
/// joint, or in blocks: [`row_at`]) from `d.3` (`d.4` floats a joint: 0 for one value for all).
///
/// # Safety
/// As [`write_statics`]: every joint's row lies in the pose, and its source in the bind pose.
#[inline(always)]
unsafe fn write_defaults<const SOA4: bool>(
    d: (usize, *mut f32, usize, *const f32, usize),
    free: impl Fn(usize) -> u32,
    mut left: usize,
    put: &impl Fn(*mut f32, *const f32),
) {
    let (words, base, stride, src, step) = d;
    for w in 0..words {
        let mut x = free(w);
        let (row, from) = (row_at::<SOA4>(base, stride, 32 * w), src.add(32 * w * step));
        while left != 0 && x != 0 {
            let i = x.trailing_zeros() as usize;
            put(row_in_word::<SOA4>(row, stride, i), from.add(i * step));
            x &= x - 1;
            left -= 1;
        }
    }
}

/// The value of static channel `k` (an index in the view's static channels) of channel `ch`,
/// a vector's fourth float 0.
#[inline(always)]
pub(super) fn static_value(view: &View, k: usize, ch: usize) -> [f32; 4] {
    let r = view.statics[0];
    let v = view.static_values;
    if ch == 0 {
        [v[4 * k], v[4 * k + 1], v[4 * k + 2], v[4 * k + 3]]
    } else {
        let o = 4 * r + 3 * (k - r);
        [v[o], v[o + 1], v[o + 2], 0.0]
    }
}

/// The value of joint `j`'s default channel `ch` (a vector's fourth float 0).
#[inline(always)]
pub(super) fn default_value(view: &View, j: usize, ch: usize) -> [f32; 4] {
    match view.bind {
        Some(b) => {
            let o = 10 * j + CHANNEL_OFFSETS[ch];
            [
                b[o],
                b[o + 1],
                b[o + 2],
                if ch == 0 { b[o + 3] } else { 0.0 },
            ]
        }
        None => DEFAULT_VALUES[if ch == 2 { view.default_scale } else { ch }],
    }
}
