//! Joint subsets on the grouped layout, portable: each requested channel decoded alone (one
//! lane of its group, whose first bit in a frame the segment stores). Bit for bit the `vbr`
//! decoder's joints.

use super::body::{record_head, Dir, RECORD_PER_SEGMENT, RECORD_WIDE_JOINTS, STARTS_EVERY};
use super::common::{default_value, positions, split, static_value, Far, Here, Src, ONE, PAIR};
use super::lanes::{self, clamp_value, PAIR_BITS};
use super::{Pos, Proto, View, SRC_ANIMATED, SRC_DEFAULT, SRC_STATIC};
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::vbr::bitrate::{inv_max_q, rate_bits, RATE_RAW};
use crate::math::nlerp_shortest;
use crate::math::CHANNEL_OFFSETS;
use crate::runtime::SampleKey;
use glam::Vec4;

/// What the lone-lane decode reads of the view, and the key's two samples: a few words
/// passed by reference instead of the whole view (which then need not be written to memory on
/// every call).
pub(super) struct Lone<'a, 't, S> {
    pub data: &'a [u8],
    pub dir: Dir,
    pub starts_at: usize,
    pub start_bytes: usize,
    pub start_mask: u64,
    pub a: Pos<S>,
    pub b: Pos<S>,
    pub alpha: f32,
    /// Interpolation weight 0 or equal samples.
    pub one: bool,
    /// Both samples in one segment.
    pub pair: bool,
    /// Each group's first bit in a frame of `a`'s segment, then of `b`'s, when the selection
    /// summed them once ([`start_table`]); empty otherwise.
    pub table: &'t [u32],
}

/// Groups a selection's table of first bits covers ([`start_table`]; more are summed per lane).
pub(super) const TABLE_GROUPS: usize = 64;

/// Fills `table` with every group's first bit in a frame of `a`'s segment, then of `b`'s (the
/// same when both lie in one segment): the widths of the groups before each, summed once for a
/// selection of several channels instead of per lane. Returns the filled part.
#[inline(always)]
fn start_table<'t, S>(
    p: &Lone<S>,
    groups: usize,
    table: &'t mut [u32; 2 * TABLE_GROUPS],
) -> &'t [u32] {
    if groups == 0 || groups > TABLE_GROUPS {
        return &[];
    }
    let fill = |pos: &Pos<S>, out: &mut [u32]| {
        let mut bit = 0;
        let last = out.len() - 1;
        for (h, x) in out.iter_mut().enumerate() {
            if h > 0 && h % STARTS_EVERY == 0 {
                bit = stored_start(p, pos, h / STARTS_EVERY);
            }
            *x = bit as u32;
            if (h + 1) % STARTS_EVERY != 0 && h < last {
                bit += group_bits(p, pos, h);
            }
        }
    };
    let (ta, tb) = table.split_at_mut(groups);
    fill(&p.a, ta);
    if p.one || p.pair {
        tb[..groups].copy_from_slice(&ta[..groups]);
    } else {
        fill(&p.b, &mut tb[..groups]);
    }
    &table[..2 * groups]
}

/// Bit where group `g` starts in a frame of the segment of `pos`: the segment stores it for
/// every [`STARTS_EVERY`]th group, and the widths of the groups between are added.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn start<S>(p: &Lone<S>, pos: &Pos<S>, g: usize) -> usize {
    let k = g / STARTS_EVERY;
    let mut bit = if k == 0 { 0 } else { stored_start(p, pos, k) };
    for h in k * STARTS_EVERY..g {
        bit += group_bits(p, pos, h);
    }
    bit
}

/// The `k`th first bit the segment of `pos` stores (`k` at least 1): group `k STARTS_EVERY`'s.
#[inline(always)]
fn stored_start<S>(p: &Lone<S>, pos: &Pos<S>, k: usize) -> usize {
    let at = pos.meta + p.starts_at + p.start_bytes * (k - 1);
    (read_u64(p.data, at) & p.start_mask) as usize
}

/// Group `h`'s bits in a frame of the segment of `pos`: the widths of its rates.
#[inline(always)]
fn group_bits<S>(p: &Lone<S>, pos: &Pos<S>, h: usize) -> usize {
    let [rec, meta] = p.dir.at(h);
    let n = p.data[rec as usize + 1] as usize;
    let m = pos.meta + meta as usize;
    let rb = (5 * n).div_ceil(8);
    widths(read_u64(p.data, m), n)
        + widths(read_u64(p.data, m + rb), n)
        + widths(read_u64(p.data, m + 2 * rb), n)
}

/// Bit where group `g`, whose lane `x` is decoded in the segment of `pos`, starts in a frame
/// ([`start_less_width`]).
#[inline(always)]
fn start_of<S>(p: &Lone<S>, pos: &Pos<S>, g: usize, x: &Lane) -> usize {
    let (bit, odd) = start_less_width(p, pos, g);
    if odd {
        bit - x.width()
    } else {
        bit
    }
}

/// Where group `g` starts in a frame of the segment of `pos`, from what the segment stores:
/// `(bit, false)` for an even group, whose first bit is stored (but the first's, 0); for an odd
/// one `(bit, true)` with the next group's stored first bit (or, for the last group, the
/// frame's end), from which the caller subtracts the group's width: a lane's decode sums most
/// of its group's width anyway, where [`start`] sums the widths of the group before.
#[inline(always)]
pub(super) fn start_less_width<S>(p: &Lone<S>, pos: &Pos<S>, g: usize) -> (usize, bool) {
    const _: () = assert!(STARTS_EVERY == 2);
    let k = g / STARTS_EVERY;
    if g.is_multiple_of(STARTS_EVERY) {
        (if k == 0 { 0 } else { stored_start(p, pos, k) }, false)
    } else if g + 1 < p.dir.groups() {
        (stored_start(p, pos, k + 1), true)
    } else {
        (pos.fb, true)
    }
}

/// The first bits of group `g` in a frame of the key's two samples' segments (one sum when
/// both lie in one segment).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn starts<S>(p: &Lone<S>, g: usize) -> (usize, usize) {
    if !p.table.is_empty() {
        let half = p.table.len() / 2;
        return (p.table[g] as usize, p.table[half + g] as usize);
    }
    let a = start(p, &p.a, g);
    (
        a,
        if p.one || p.pair {
            a
        } else {
            start(p, &p.b, g)
        },
    )
}

/// The little-endian `u64` at byte `o`: every read here starts in a validated record,
/// segment metadata or frame, and the data holds 32 bytes of padding after the last segment
/// (the validator checks both), so 8 bytes from `o` lie in the data.
#[inline(always)]
fn read_u64(d: &[u8], o: usize) -> u64 {
    debug_assert!(o + 8 <= d.len());
    // SAFETY: see above.
    u64::from_le(unsafe { (d.as_ptr().add(o) as *const u64).read_unaligned() })
}

/// The `bits`-bit field (`mask` its low bits) at bit `bit` of `d`: one 8-byte read, as the
/// field ends by bit 7 + 32 of it.
#[inline(always)]
fn field(d: &[u8], bit: usize, mask: u32) -> u32 {
    (read_u64(d, bit >> 3) >> (bit & 7)) as u32 & mask
}

/// Sum of the widths of the first `k` (at most 8) 5-bit rate fields of `w`, two per lookup.
#[inline(always)]
fn widths(w: u64, k: usize) -> usize {
    let w = w & ((1u64 << (5 * k)) - 1);
    let t = |s: u32| PAIR_BITS[((w >> s) & 1023) as usize] as usize;
    (t(0) + t(10)) + (t(20) + t(30))
}

/// Each component's first bit relative to its group's in a frame, for lane `l` of a group of
/// `n` lanes whose components' 5-bit rates are the low bits of `w` (components are stored one
/// after the other, each lane by lane). (An SSE2 form, the rates spread to bytes and summed by
/// `psadbw`, took a fifth fewer instructions per lane and no less time: a lone lane is bound by
/// its chain of dependent loads, `docs/runtime.md`.) Also returns the widths of the first two
/// components over every lane.
#[inline(always)]
fn offsets(w: [u64; 3], n: usize, l: usize) -> ([usize; 3], usize) {
    let t0 = widths(w[0], n);
    let t01 = t0 + widths(w[1], n);
    (
        [widths(w[0], l), t0 + widths(w[1], l), t01 + widths(w[2], l)],
        t01,
    )
}

/// Each 5-bit rate's field mask (raw: all 32 bits).
const MASKS: [u32; 32] = {
    let mut t = [0u32; 32];
    let mut r = 0;
    while r < 32 {
        t[r] = ((1u64 << rate_bits(r as u8)) - 1) as u32;
        r += 1;
    }
    t
};

/// One lane's decode in one segment: the `vbr` decoder's per-sub-track arithmetic
/// (`lanes`), so its values are bit for bit that decoder's.
struct Lane {
    mul: Vec4,
    add: Vec4,
    /// Each component's field mask.
    mask: [u32; 3],
    /// Which components are raw `f32`s (bit per component), 0 for none.
    raw: u32,
    /// Every component is constant over the segment.
    constant: bool,
    /// Bit of each component's field relative to the group's start in a frame.
    off: [usize; 3],
    drop: u8,
    /// The group's bits in a frame but those of its third component ([`Lane::width`]).
    first_two: usize,
    /// The third component's rates.
    rates2: u64,
    /// Lanes of the group.
    n: usize,
}

impl Lane {
    /// The group's bits in a frame.
    #[inline(always)]
    fn width(&self) -> usize {
        self.first_two
            + if self.n == 1 {
                PAIR_BITS[self.rates2 as usize & 31] as usize
            } else {
                widths(self.rates2, self.n)
            }
    }
}

/// Lane `l` of the group whose record is at `rec` and whose metadata is at `meta` of a
/// segment's group metadata, in the segment of `seg`.
#[inline(always)]
fn lane<S>(p: &Lone<S>, seg: &Pos<S>, [rec, meta]: [u32; 2], l: usize) -> Lane {
    let r = rec as usize;
    let d = &p.data;
    let head = read_u64(d, r);
    let (class, n, flags) = (head as u8, (head >> 8) as u8 as usize, (head >> 16) as u8);
    let per_segment = flags & RECORD_PER_SEGMENT != 0;
    let m = seg.meta + meta as usize;
    let rb = (5 * n).div_ceil(8);
    let ranges = r + record_head(1 + (flags & RECORD_WIDE_JOINTS != 0) as usize);
    let drop = if per_segment {
        (read_u64(d, m + 3 * rb + 6 * n) >> (2 * l)) as u8 & 3
    } else {
        (head >> (32 + 2 * l)) as u8 & 3
    };
    let w = [0, 1, 2].map(|c| read_u64(d, m + rb * c));
    let rates = w.map(|w| ((w >> (5 * l)) & 31) as u8);
    let (off, first_two) = if n == 1 {
        // A group of one lane: its components' widths, one after the other.
        let (r0, r1) = (rates[0] as usize, rates[1] as usize);
        let t01 = PAIR_BITS[r0 | r1 << 5] as usize;
        ([0, PAIR_BITS[r0] as usize, t01], t01)
    } else {
        offsets(w, n, l)
    };
    let fields = (0..3).fold(0u64, |f, c| {
        f | (read_u64(d, m + 3 * rb + 2 * n * c + 2 * l) & 0xFFFF) << (16 * c)
    });
    let (min, ext) = if class == 0 {
        // The stored slot `c` holds component `c + (c >= drop)` of a per-segment group's four.
        let word = |c: usize| {
            let k = if per_segment {
                c + (c >= drop as usize) as usize
            } else {
                c
            };
            read_u64(d, ranges + 4 * n * k + 4 * l) as u32 as u128
        };
        lanes::rotation_ranges(word(0) | word(1) << 32 | word(2) << 64)
    } else {
        let f = |k: usize| f32::from_bits(read_u64(d, ranges + 4 * n * k + 4 * l) as u32);
        (
            Vec4::new(f(0), f(1), f(2), 0.0),
            Vec4::new(f(3), f(4), f(5), 0.0),
        )
    };
    let inv_q = Vec4::new(
        inv_max_q(rates[0]),
        inv_max_q(rates[1]),
        inv_max_q(rates[2]),
        0.0,
    );
    let (mul, add) = lanes::coefficients(inv_q, fields, min, ext);
    let raw = (rates[0] == RATE_RAW) as u32
        | ((rates[1] == RATE_RAW) as u32) << 1
        | ((rates[2] == RATE_RAW) as u32) << 2;
    Lane {
        mul,
        add,
        mask: rates.map(|r| MASKS[r as usize & 31]),
        raw,
        constant: rates == [0; 3],
        off,
        drop,
        first_two,
        rates2: w[2],
        n,
    }
}

/// The lane's three components at the stored frame whose group starts at `bit`.
#[inline(always)]
fn frame(d: &[u8], bit: usize, x: &Lane, limit: f32) -> Vec4 {
    let q = [
        field(d, bit + x.off[0], x.mask[0]),
        field(d, bit + x.off[1], x.mask[1]),
        field(d, bit + x.off[2], x.mask[2]),
    ];
    let v = lanes::values(q, x.mul, x.add);
    if x.raw != 0 {
        let raw = [x.raw & 1 != 0, x.raw & 2 != 0, x.raw & 4 != 0];
        lanes::with_raw(v, q, raw, limit)
    } else {
        v
    }
}

/// The lane's sample at `pos` whose group starts at bit `start` of a frame (a dropped keyframe
/// blended from its stored neighbours).
#[inline(always)]
fn sample<'a, S: Src<'a>>(
    data: &'a [u8],
    pos: &Pos<S>,
    start: usize,
    x: &Lane,
    limit: f32,
) -> Vec4 {
    let a = frame(pos.data(data), pos.bit + start, x, limit);
    if pos.t > 0.0 {
        let (next, bit) = pos.next(data);
        let n = frame(next, bit + start, x, limit);
        return a + (n - a) * pos.t;
    }
    a
}

impl Proto {
    /// Samples the joints of `joints` (each below the joint count) at `key`, joint `j` into
    /// `out[j * stride..]` (the `vbr` decoder's `sample_joints` with every channel and slots
    /// equal to the joints). Bit for bit its whole pose's floats.
    pub fn sample_joints(&self, key: &SampleKey, joints: &[u32], out: &mut [f32], stride: usize) {
        // Lane by lane: fewer instructions than a whole group for one lane (`docs/runtime.md`).
        self.sample_joints_with(key, joints, out, stride, false)
    }

    /// [`Proto::sample_joints`], decoding whole groups with AVX2 when `wide` (which must then be
    /// available), else lane by lane.
    pub fn sample_joints_with(
        &self,
        key: &SampleKey,
        joints: &[u32],
        out: &mut [f32],
        stride: usize,
        wide: bool,
    ) {
        assert!(key.i0 < self.header().num_samples && key.i1 < self.header().num_samples);
        self.view()
            .sample_joints_with(key, joints, |_, j| j as usize, 7, out, stride, wide)
    }

    /// The channels of `channels` (a `CHANNEL_*` mask) of the joints of `joints` at `key`, list
    /// entry `i` into slot `slots[i]` of `out` (10 floats per slot at `stride`), or slot `i`
    /// without `slots` (the runtime's joint selection). Lane by lane.
    pub fn sample_selection(
        &self,
        key: &SampleKey,
        joints: &[u32],
        slots: Option<&[u32]>,
        channels: u32,
        out: &mut [f32],
        stride: usize,
    ) {
        assert!(key.i0 < self.header().num_samples && key.i1 < self.header().num_samples);
        assert!(slots.is_none_or(|s| s.len() >= joints.len()));
        let slot = |i: usize, _: u32| slots.map_or(i, |s| s[i] as usize);
        self.view()
            .sample_joints_with(key, joints, slot, channels, out, stride, false)
    }
}

impl<'a> View<'a> {
    /// [`Proto::sample_joints_with`].
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn sample_joints_with(
        &self,
        key: &SampleKey,
        joints: &[u32],
        slot: impl Fn(usize, u32) -> usize,
        channels: u32,
        out: &mut [f32],
        stride: usize,
        wide: bool,
    ) {
        // The kinds' counts (`body::rank`) in one instruction where the CPU has one.
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT.
            return unsafe { self.select_popcnt(key, joints, &slot, channels, out, stride, wide) };
        }
        self.select(key, joints, &slot, channels, out, stride, wide)
    }

    /// [`View::select`] compiled with POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "popcnt")]
    unsafe fn select_popcnt(
        &self,
        key: &SampleKey,
        joints: &[u32],
        slot: &impl Fn(usize, u32) -> usize,
        channels: u32,
        out: &mut [f32],
        stride: usize,
        wide: bool,
    ) {
        self.select(key, joints, slot, channels, out, stride, wide)
    }

    /// [`View::sample_joints_with`].
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn select(
        &self,
        key: &SampleKey,
        joints: &[u32],
        slot: &impl Fn(usize, u32) -> usize,
        channels: u32,
        out: &mut [f32],
        stride: usize,
        wide: bool,
    ) {
        if self.tiers.is_some() {
            return self.select_far(key, joints, slot, channels, out, stride, wide);
        }
        self.select_in::<Here>(key, joints, slot, channels, out, stride, wide)
    }

    /// [`View::select`] with tiers attached: out of line.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn select_far(
        &self,
        key: &SampleKey,
        joints: &[u32],
        slot: &impl Fn(usize, u32) -> usize,
        channels: u32,
        out: &mut [f32],
        stride: usize,
        wide: bool,
    ) {
        self.select_in::<Far>(key, joints, slot, channels, out, stride, wide)
    }

    /// [`View::select`] with the frames where `S` places them.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn select_in<S: Src<'a>>(
        &self,
        key: &SampleKey,
        joints: &[u32],
        slot: &impl Fn(usize, u32) -> usize,
        channels: u32,
        out: &mut [f32],
        stride: usize,
        wide: bool,
    ) {
        assert!(!wide || super::Isa::Avx2.available());
        assert!(stride >= 10);
        let sp = split(self, key);
        let (one, pair) = (sp.case == ONE, sp.case == PAIR);
        let sources = self.sources();
        let (a, b) = positions::<S>(self, &sp);
        let mut lone = Lone {
            data: self.data,
            dir: self.dir(),
            starts_at: self.starts_at,
            start_bytes: self.start_bytes,
            start_mask: self.start_mask(),
            a,
            b,
            alpha: key.alpha,
            one,
            pair,
            table: &[],
        };
        // The whole-group decode (`wide`): every group's first bit summed once. (The lane
        // decodes find a group's first bit from what the segment stores and the group's width,
        // which they sum anyway: cheaper per lane than the table per call. A selection without
        // `wide` writes no table.)
        let mut table: [u32; 2 * TABLE_GROUPS];
        if wide {
            table = [0; 2 * TABLE_GROUPS];
            lone.table = start_table(&lone, self.num_groups, &mut table);
        }
        // Borrowed from here on (a rebinding `let lone = lone` moved its 176 bytes with `memcpy`).
        let lone = &lone;
        // Animated channels eight at a time across groups (AVX2, `avx2/gather.rs`), when every
        // entry has a slot of its own (slots in increasing order), so that deferring the
        // animated channels' writes cannot change which of two writes to one slot comes last.
        #[cfg(target_arch = "x86_64")]
        if !wide
            && joints.len() >= GATHERED
            && super::Isa::Avx2.available()
            && self.data.len() < 1 << 28
            && joints
                .windows(2)
                .enumerate()
                .all(|(i, w)| slot(i, w[0]) < slot(i + 1, w[1]))
        {
            let mut batches = [Batch::new(true), Batch::new(false)];
            for (i, &j) in joints.iter().enumerate() {
                let o = slot(i, j) * stride;
                assert!(o + 10 <= out.len());
                let j = j as usize;
                for ch in 0..3 {
                    if channels & (1 << ch) == 0 {
                        continue;
                    }
                    let src = sources.get(j, ch);
                    let value = match src & (3 << 30) {
                        SRC_ANIMATED => {
                            let b = &mut batches[(ch != 0) as usize];
                            b.push(src, o + CHANNEL_OFFSETS[ch]);
                            if b.n == 8 {
                                b.flush(lone, out);
                            }
                            continue;
                        }
                        SRC_STATIC => static_value(self, (src & 0xFFFF) as usize, ch),
                        _ => default_value(self, j, ch),
                    };
                    let dst = &mut out[o..o + 10];
                    match ch {
                        0 => dst[..4].copy_from_slice(&value),
                        1 => dst[4..7].copy_from_slice(&value[..3]),
                        _ => dst[7..10].copy_from_slice(&value[..3]),
                    }
                }
            }
            for b in &mut batches {
                b.flush(lone, out);
            }
            return;
        }
        if !wide {
            for (i, &j) in joints.iter().enumerate() {
                let o = slot(i, j) * stride;
                let dst = &mut out[o..o + 10];
                let j = j as usize;
                for ch in 0..3 {
                    if channels & (1 << ch) == 0 {
                        continue;
                    }
                    let src = sources.get(j, ch);
                    let value = match src & (3 << 30) {
                        SRC_ANIMATED => {
                            lane_value_of(lone, (src >> 3) as usize, (src & 7) as usize, ch == 0)
                        }
                        SRC_STATIC => static_value(self, (src & 0xFFFF) as usize, ch),
                        _ => default_value(self, j, ch),
                    };
                    // Fixed sizes: a copy of a run-time length would call `memcpy`.
                    match ch {
                        0 => dst[..4].copy_from_slice(&value),
                        1 => dst[4..7].copy_from_slice(&value[..3]),
                        _ => dst[7..10].copy_from_slice(&value[..3]),
                    }
                }
            }
            return;
        }
        let (a, b) = (&lone.a, &lone.b);
        // With AVX2 a channel's whole group is decoded (and kept for the next channel in it).
        let mut lanes = [[0.0f32; 4]; super::LANES];
        let mut last = usize::MAX;
        for (i, &j) in joints.iter().enumerate() {
            let o = slot(i, j) * stride;
            let dst = &mut out[o..o + 10];
            for (ch, &at) in CHANNEL_OFFSETS.iter().enumerate() {
                if channels & (1 << ch) == 0 {
                    continue;
                }
                let src = sources.get(j as usize, ch);
                let value = match src & (3 << 30) {
                    SRC_STATIC => static_value(self, (src & 0xFFFF) as usize, ch),
                    SRC_DEFAULT => default_value(self, j as usize, ch),
                    SRC_ANIMATED => {
                        let (g, l) = ((src >> 3) as usize, (src & 7) as usize);
                        #[cfg(target_arch = "x86_64")]
                        {
                            if last != g {
                                let (ga, gb) = starts(lone, g);
                                // SAFETY: AVX2 is present (`wide`).
                                unsafe {
                                    super::avx2::group_lanes(
                                        self,
                                        key,
                                        sp.case,
                                        lone.dir.at(g),
                                        a,
                                        b,
                                        (ga, gb),
                                        &mut lanes,
                                    )
                                };
                                last = g;
                            }
                            lanes[l]
                        }
                        #[cfg(not(target_arch = "x86_64"))]
                        unreachable!("wide needs AVX2 ({g}, {l})")
                    }
                    _ => continue,
                };
                // Fixed sizes: a copy of a run-time length would call `memcpy`.
                if ch == 0 {
                    dst[..4].copy_from_slice(&value);
                } else {
                    dst[at..at + 3].copy_from_slice(&value[..3]);
                }
            }
        }
    }
}

/// Fewest channels of a kind decoded together with gathers (fewer are decoded lane by lane:
/// a gathered decode costs about as much for one lane as for eight).
#[cfg(target_arch = "x86_64")]
const GATHERED: usize = 4;

/// Animated channels of one kind (rotations or vectors) waiting to be decoded eight at a time.
#[cfg(target_arch = "x86_64")]
struct Batch {
    rot: bool,
    n: usize,
    g: [u32; 8],
    l: [u32; 8],
    /// Where each value goes in the output.
    dst: [usize; 8],
}

#[cfg(target_arch = "x86_64")]
impl Batch {
    fn new(rot: bool) -> Batch {
        Batch {
            rot,
            n: 0,
            g: [0; 8],
            l: [0; 8],
            dst: [0; 8],
        }
    }

    /// Adds the animated source `src` (group and lane), whose value goes to `out[dst..]`.
    #[inline(always)]
    fn push(&mut self, src: u32, dst: usize) {
        let i = self.n & 7;
        self.g[i] = src >> 3;
        self.l[i] = src & 7;
        self.dst[i] = dst;
        self.n = i + 1;
    }

    /// Decodes the waiting channels and writes them (rotations 4 floats, vectors 3).
    #[inline(never)]
    fn flush<'a, S: Src<'a>>(&mut self, p: &Lone<'a, '_, S>, out: &mut [f32]) {
        if self.n == 0 {
            return;
        }
        let mut v = [[0.0f32; 4]; 8];
        // Lanes left to the lone-lane decode: raw ones, or all of a short batch.
        let alone = if self.n >= GATHERED {
            // SAFETY: AVX2 is present and the data shorter than 256 MB (the caller checked);
            // the groups and lanes are the joint map's, which the validator checked.
            unsafe { super::avx2::lanes8(p, &self.g, &self.l, self.n, self.rot, &mut v) }
        } else {
            u32::MAX
        };
        for (i, x) in v.iter().enumerate().take(self.n) {
            let x = if alone & (1 << i) != 0 {
                let g = self.g[i] as usize;
                lane_value_of(p, g, self.l[i] as usize, self.rot)
            } else {
                *x
            };
            let o = self.dst[i];
            if self.rot {
                out[o..o + 4].copy_from_slice(&x);
            } else {
                out[o..o + 3].copy_from_slice(&x[..3]);
            }
        }
        self.n = 0;
    }
}

/// The value of a group of one lane at `key` (whose samples lie at `a` and `b`, a pose of
/// case `case`), its record at `rec` and metadata at `meta` of a segment's group metadata,
/// its first bit in a frame of each sample's segment `starts`: the lone-lane decode, which
/// costs a few hundred instructions less than the eight-lane walk's for one lane (a root's
/// translation, the one animated vector of most rigs). Bit for bit the walk's value.
#[allow(clippy::too_many_arguments)]
#[cfg_attr(
    not(any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        all(target_arch = "wasm32", target_feature = "simd128")
    )),
    allow(dead_code)
)]
#[inline(always)]
pub(super) fn lone_group<'a, S: Src<'a>>(
    p: &View<'a>,
    key: &SampleKey,
    (a, b): (Pos<S>, Pos<S>),
    case: u8,
    at: [u32; 2],
    starts: (usize, usize),
    rotation: bool,
) -> [f32; 4] {
    let lone = Lone {
        data: p.data,
        dir: Dir::EMPTY,
        starts_at: p.starts_at,
        start_bytes: p.start_bytes,
        start_mask: p.start_mask(),
        a,
        b,
        alpha: key.alpha,
        one: case == ONE,
        pair: case == PAIR,
        table: &[],
    };
    lane_value(&lone, at, starts, 0, rotation)
}

/// The bits of a group of one lane in a frame, its metadata at byte `meta` of the data (each
/// component's 5-bit rate in a byte of its own).
#[cfg_attr(
    not(any(
        target_arch = "x86_64",
        target_arch = "aarch64",
        all(target_arch = "wasm32", target_feature = "simd128")
    )),
    allow(dead_code)
)]
#[inline(always)]
pub(super) fn lone_bits(p: &View, meta: usize) -> usize {
    let r = read_u64(p.data, meta);
    let rate = |k: u32| ((r >> (8 * k)) & 31) as usize;
    PAIR_BITS[rate(0) | rate(1) << 5] as usize + PAIR_BITS[rate(2)] as usize
}

/// Lane `l` of the group at `at` (record and metadata offsets), whose first bits in a frame of
/// the key's segments are `(sa, sb)`, at the key of `p`, one lane alone: a rotation (`limit`
/// 1) or a vector.
#[inline(never)]
fn lane_value<'a, S: Src<'a>>(
    p: &Lone<'a, '_, S>,
    at: [u32; 2],
    (sa, sb): (usize, usize),
    l: usize,
    rotation: bool,
) -> [f32; 4] {
    lane_value_in(
        p,
        at,
        l,
        rotation,
        |_, _, second| if second { sb } else { sa },
    )
}

/// Lane `l` of group `g` ([`lane_value`]), the group's first bits found by the lane's decode
/// ([`start_of`]; a selection without the table of first bits).
#[inline(never)]
fn lane_value_of<'a, S: Src<'a>>(
    p: &Lone<'a, '_, S>,
    g: usize,
    l: usize,
    rotation: bool,
) -> [f32; 4] {
    debug_assert!(p.table.is_empty());
    lane_value_in(p, p.dir.at(g), l, rotation, |pos, x, _| {
        start_of(p, pos, g, x)
    })
}

/// [`lane_value`] with `start(pos, lane, second)` the group's first bit in a frame of the
/// segment of `pos` (`second`: the key's second sample, in another segment).
#[inline(always)]
fn lane_value_in<'a, S: Src<'a>>(
    p: &Lone<'a, '_, S>,
    at: [u32; 2],
    l: usize,
    rotation: bool,
    start: impl Fn(&Pos<S>, &Lane, bool) -> usize,
) -> [f32; 4] {
    let (a, b) = (&p.a, &p.b);
    let limit = if rotation { 1.0 } else { MAX_ABS_VALUE };
    let xa = lane(p, a, at, l);
    let sa = start(a, &xa, false);
    let va = sample(p.data, a, sa, &xa, limit);
    let (vb, xb_drop) = if p.one {
        (va, xa.drop)
    } else if p.pair {
        // The same segment: its group starts and decode, another frame.
        (sample(p.data, b, sa, &xa, limit), xa.drop)
    } else {
        let xb = lane(p, b, at, l);
        let sb = start(b, &xb, true);
        (sample(p.data, b, sb, &xb, limit), xb.drop)
    };
    if rotation {
        let qa = lanes::from_stored(va, xa.drop);
        let q = if p.one || (p.pair && xa.constant) {
            qa
        } else {
            nlerp_shortest(qa, lanes::from_stored(vb, xb_drop), p.alpha)
        };
        q.to_array()
    } else {
        let v = clamp_value(if p.one { va } else { va.lerp(vb, p.alpha) });
        [v.x, v.y, v.z, 0.0]
    }
}
