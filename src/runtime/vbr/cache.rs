//! The playback cache: what makes the next pose of a clip that plays forward cheap, kept in
//! caller-owned memory beside a context.
//!
//! An engine samples each playing clip at times that advance by one frame, so consecutive poses
//! share their samples (30 Hz data at 60 fps: every second pose has both samples of the one
//! before) and their segment (16 samples). The cache holds:
//!
//! - per clip: each joint's static channels (constants, defaults) and the order of the animated
//!   sub-tracks, filled once on first use;
//! - per segment: each animated sub-track's decode (bit offset in a frame, widths, the
//!   `q * mul + add` coefficients and dropped component), computed once when playback enters the
//!   segment instead of on every pose;
//! - per sample: two decoded samples (the two ends of the current interval), each joint's
//!   rotation, translation and scale before blending.
//!
//! A pose whose samples are both held is a blend of the two (no body read); a pose that needs one
//! new sample decodes only that one with the segment's coefficients. The arithmetic is the walk's
//! own ([`Cursor::params`], [`sample_at`], [`from_stored`], `nlerp_shortest`, `lerp` and the clamp
//! after it), so a pose is bit for bit the pose without the cache (tests). A key far from the last
//! one (a random jump) does not fill the cache: it takes the plain walk, so random access costs
//! what it costs without a cache plus a few comparisons.
//!
//! The cache memory is a plain array of words: whatever it holds, reads of the blob stay inside
//! the validated body ([`Body`] clamps every read) and indices into the cache are checked. Its
//! first words name the body and defaults it was filled for; a cache moved to another context or
//! blob is refilled, not trusted.

use super::cursor::{sample_at, segment_frames, vector_ranges, Cursor, Params};
use super::lanes::{self, from_stored};
use super::walk::{case, clamp_value, read_quat, read_vec, ONE, PAIR};
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::vbr::bitrate::rate_bits;
use crate::format::vbr::layout::{
    constant_bytes, kind, range_bytes_of, View, BODY_HEADER, KIND_ANIMATED,
    KIND_ANIMATED_PER_SEGMENT, KIND_CONSTANT, VECTOR_RANGE_BYTES,
};
use crate::format::{BlobFlags, Header};
use crate::math::{nlerp_shortest, Quat, Vec3};
use crate::runtime::body::Body;
use crate::runtime::{BodyHint, Defaults, PoseOut, SampleKey};
use glam::Vec4;

/// Marks a filled cache ("ACPC").
const TAG: u32 = u32::from_le_bytes(*b"ACPC");
/// Nothing held (a segment or a slot).
const NONE: u32 = u32::MAX;
/// Header words (128 bytes).
const HEAD: usize = 32;
// Header word indices.
const W_TAG: usize = 0;
/// Words 1..9: the identity (body address and length, the blob's checksum, bind pose address,
/// defaults' scale).
const W_ID: usize = 1;
const ID_WORDS: usize = 8;
const W_SEG: usize = 9;
const W_SLOT: usize = 10; // and 11
const W_LAST: usize = 12; // and 13
/// The loaded segment's records: varying rotations up to `W_ROTATIONS`, varying vectors up to
/// `W_VARYING`, constants from `W_CONSTANT` on.
const W_ROTATIONS: usize = 14;
const W_VARYING: usize = 15;
const W_CONSTANT: usize = 16;
/// Per slot (and 18): the load (`W_LOADS`) whose constants it holds.
const W_SLOT_LOAD: usize = 17;
/// Segment loads since the cache was filled.
const W_LOADS: usize = 19;
/// Animated rotations: the slots before this one are rotations (counted once, by `fill`).
const W_ROTATION_SLOTS: usize = 20;

/// In a sub-track's `dest` word: constant over the loaded segment.
const D_SEG_CONST: u32 = 1 << 31;
/// In a sub-track's `dest` word: a rotation with a per-segment dropped component.
const D_PER_SEGMENT: u32 = 1 << 30;
/// Joint index bits of a `dest` word (after `>> 2`).
const D_JOINT: u32 = 0x00FF_FFFF;
/// In a record's `flags`: a component is stored raw, or the fields span more than 56 bits (read
/// through the walk's general path).
const R_SLOW: u32 = 1 << 31;
/// In a record's `flags` while a segment loads: a varying translation or scale.
const R_VECTOR: u32 = 1 << 30;

/// One sub-track's decode in the loaded segment (64 bytes, one cache line): for a varying one the
/// walk's coefficients and its fields' place and masks in a frame; for a constant one its value
/// in `add` (a rotation rebuilt).
#[derive(Clone, Copy)]
#[repr(C)]
struct Rec {
    mul: Vec4,
    add: Vec4,
    /// The sub-track's slot.
    slot: u32,
    /// Bit offset in a frame.
    rel: u32,
    /// Field masks.
    mask: [u32; 3],
    /// Bit offsets of fields 1 and 2 (a byte each).
    shifts: u32,
    /// Rates (15 bits).
    rates: u32,
    /// Dropped component (bits 0..2), [`R_SLOW`].
    flags: u32,
}

/// Bytes of cache for `body` (a validated `vbr` body of a blob with header `h`): a 128-byte header,
/// the static pose (40 bytes per joint) and 100 bytes per animated sub-track (its record, its
/// place and two decoded values). 0 when the body has no joints.
pub fn size(h: &Header, body: &[u8]) -> usize {
    if body.len() < BODY_HEADER || h.num_joints == 0 {
        return 0;
    }
    let v = View::read(body);
    Layout::new(h.num_joints as usize, v.num_animated as usize).bytes
}

/// The sizes the parts are cut for.
#[derive(Clone, Copy)]
struct Layout {
    joints: usize,
    subs: usize,
    bytes: usize,
}

impl Layout {
    fn new(joints: usize, subs: usize) -> Layout {
        let stat = (joints * 10).div_ceil(4);
        let dest = subs.div_ceil(4);
        // Records (4 units each), then two slots.
        let units = HEAD / 4 + stat + dest + 4 * subs + 2 * subs;
        Layout {
            joints,
            subs,
            bytes: units * 16,
        }
    }
}

/// The cache memory, cut into its parts. Sub-tracks have slots in the order rotations (in track
/// order), then translations and scales (in track order).
struct Parts<'c> {
    head: &'c mut [u32],
    /// Each joint's 10 floats with its static channels (constants, defaults; scale 1 in a blob
    /// without scale); the animated channels' floats are unused.
    stat: &'c mut [f32],
    /// Per slot: joint << 2 | channel, [`D_PER_SEGMENT`] and the track's dropped component
    /// (bits 28..30) for a rotation, [`D_SEG_CONST`] for the loaded segment.
    dest: &'c mut [u32],
    /// The loaded segment's records (`W_ROTATIONS`, `W_VARYING`).
    recs: &'c mut [Rec],
    /// The two decoded samples, one value per slot (a rotation rebuilt, a vector before the
    /// clamp).
    slots: [&'c mut [Vec4]; 2],
}

/// `n` values of `T` from 16-byte unit `at` of the memory at `base`.
///
/// # Safety
/// `T` must be a plain type valid for every bit pattern with alignment at most 16; the ranges
/// given to calls on one cache must not overlap and must lie inside it.
unsafe fn part<'c, T>(base: *mut u8, at: usize, n: usize) -> &'c mut [T] {
    std::slice::from_raw_parts_mut(base.add(at * 16).cast::<T>(), n)
}

impl<'c> Parts<'c> {
    /// The parts of `cache` for layout `l`, or `None` when it is too small or not 16-byte aligned.
    fn carve(cache: &'c mut [u8], l: Layout) -> Option<Parts<'c>> {
        if cache.len() < l.bytes || !(cache.as_ptr() as usize).is_multiple_of(16) {
            return None;
        }
        let base = cache.as_mut_ptr();
        let mut at = HEAD / 4;
        let mut take = |units: usize| {
            let a = at;
            at += units;
            a
        };
        let st = take((l.joints * 10).div_ceil(4));
        let de = take(l.subs.div_ceil(4));
        let re = take(4 * l.subs);
        let (s0, s1) = (take(l.subs), take(l.subs));
        debug_assert!(at * 16 == l.bytes);
        // SAFETY: `cache` holds `l.bytes` bytes, 16-byte aligned; the parts are disjoint ranges
        // of it (`take` hands out consecutive units), of types valid for any bits (`u32`, `f32`
        // lanes, `Rec` of those); the borrow of `cache` covers them all.
        unsafe {
            Some(Parts {
                head: part(base, 0, HEAD),
                stat: part(base, st, l.joints * 10),
                dest: part(base, de, l.subs),
                recs: part(base, re, l.subs),
                slots: [part(base, s0, l.subs), part(base, s1, l.subs)],
            })
        }
    }
}

/// What a cache is filled for: the body (address, length and the blob's checksum) and the
/// defaults.
fn identity(h: &Header, bytes: &[u8], d: &Defaults) -> [u32; ID_WORDS] {
    let b = bytes.as_ptr() as u64;
    let n = bytes.len() as u64;
    let p = d.bind_pose.map_or(0, |p| p.as_ptr() as u64);
    [
        b as u32,
        (b >> 32) as u32,
        n as u32,
        (n >> 32) as u32,
        h.checksum,
        p as u32,
        (p >> 32) as u32,
        d.zero_scale as u32,
    ]
}

/// Samples every joint like [`super::sample_pose`], through the playback cache `cache` (see the
/// module docs); a cache too small or misaligned for the body is not used.
#[allow(clippy::too_many_arguments)]
pub fn sample_pose(
    h: &Header,
    bytes: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    out: &mut PoseOut,
    cache: &mut [u8],
) {
    let plain = |out: &mut PoseOut| super::sample_pose(h, bytes, hint, key, d, out);
    let Some(body) = Body::new(bytes) else {
        return;
    };
    if h.num_joints == 0 {
        return;
    }
    let v = View::read(bytes);
    let l = Layout::new(h.num_joints as usize, v.num_animated as usize);
    let Some(mut c) = Parts::carve(cache, l) else {
        return plain(out);
    };
    let id = identity(h, bytes, d);
    if c.head[W_TAG] != TAG || c.head[W_ID..W_ID + ID_WORDS] != id {
        c.fill(body, &v, h, d, id);
    }
    let case = case(v.seg_len, key);
    let s0 = key.i0;
    let s1 = if case == ONE { s0 } else { key.i1 };
    let held = |c: &Parts, s: u32| (0..2).find(|&k| c.head[W_SLOT + k] == s);
    let (mut a, mut b) = (held(&c, s0), held(&c, s1));
    let last = [c.head[W_LAST], c.head[W_LAST + 1]];
    c.head[W_LAST] = s0;
    c.head[W_LAST + 1] = s1;
    if a.is_none() || b.is_none() {
        let near = |s: u32| s < 2 || last.iter().any(|&l| l != NONE && l.abs_diff(s) <= 2);
        if !(near(s0) && near(s1)) {
            // A jump: the plain walk, the cache left as it is.
            return plain(out);
        }
        if a.is_none() {
            let k = b.map_or(0, |k| 1 - k);
            c.decode(body, &v, h, s0, k);
            a = Some(k);
            if s1 == s0 {
                b = a;
            }
        }
        if b.is_none() {
            let k = 1 - a.unwrap_or(0);
            c.decode(body, &v, h, s1, k);
            b = Some(k);
        }
    }
    let (a, b) = (a.unwrap_or(0), b.unwrap_or(0));
    if case == PAIR && c.head[W_SEG] != s0 / v.seg_len {
        // The segment-constant flags of the pair's segment (not reached in forward playback,
        // whose last decode is in that segment).
        c.load_segment(body, &v, h, s0 / v.seg_len);
    }
    c.blend(a, b, case, key.alpha, out);
}

/// Each animated sub-track of `table` in track order: (joint, channel, the rotation's kind and
/// track drop bits).
fn for_each_sub(table: &[u8], has_scale: bool, mut f: impl FnMut(usize, u32, u32)) {
    for (j, &byte) in table.iter().enumerate() {
        let rk = kind(byte, 0);
        if rk == KIND_ANIMATED || rk == KIND_ANIMATED_PER_SEGMENT {
            let per_segment = if rk == KIND_ANIMATED_PER_SEGMENT {
                D_PER_SEGMENT
            } else {
                0
            };
            f(j, 0, per_segment | ((byte >> 6) as u32) << 28);
        }
        if kind(byte, 1) == KIND_ANIMATED {
            f(j, 1, 0);
        }
        if has_scale && kind(byte, 2) == KIND_ANIMATED {
            f(j, 2, 0);
        }
    }
}

impl Parts<'_> {
    /// Fills the per-clip part for the body and defaults of `id`: the static pose and the
    /// slots' destinations; nothing decoded yet.
    fn fill(&mut self, body: Body, v: &View, h: &Header, d: &Defaults, id: [u32; ID_WORDS]) {
        let has_scale = h.has(BlobFlags::HAS_SCALE);
        let table = &body.bytes()[v.tracks..v.tracks + h.num_joints as usize];
        let mut constants = v.constants;
        for (j, &byte) in table.iter().enumerate() {
            let mut t = d.get(j);
            if kind(byte, 0) == KIND_CONSTANT {
                t.rotation = read_quat(body, constants);
                constants += constant_bytes(0);
            }
            for ch in 1..3u32 {
                if ch == 2 && !has_scale {
                    t.scale = Vec3::ONE;
                } else if kind(byte, ch) == KIND_CONSTANT {
                    let x = read_vec(body, constants);
                    constants += constant_bytes(ch);
                    if ch == 1 {
                        t.translation = x;
                    } else {
                        t.scale = x;
                    }
                }
            }
            t.write_to(&mut self.stat[10 * j..10 * j + 10]);
        }
        let mut rotations = 0usize;
        for_each_sub(table, has_scale, |_, ch, _| rotations += (ch == 0) as usize);
        let (mut r, mut x) = (0usize, rotations);
        for_each_sub(table, has_scale, |j, ch, extra| {
            let slot = if ch == 0 { &mut r } else { &mut x };
            if let Some(d) = self.dest.get_mut(*slot) {
                *d = (j as u32) << 2 | ch | extra;
            }
            *slot += 1;
        });
        self.head[W_TAG] = TAG;
        self.head[W_ID..W_ID + ID_WORDS].copy_from_slice(&id);
        self.head[W_SEG] = NONE;
        self.head[W_SLOT] = NONE;
        self.head[W_SLOT + 1] = NONE;
        self.head[W_LAST] = NONE;
        self.head[W_LAST + 1] = NONE;
        self.head[W_LOADS] = 0;
        self.head[W_ROTATION_SLOTS] = rotations as u32;
        self.head[W_SLOT_LOAD] = NONE;
        self.head[W_SLOT_LOAD + 1] = NONE;
    }

    /// Computes every sub-track's decode in segment `seg` (the walk's [`Cursor::params`]): the
    /// varying ones' records (rotations first), the constant ones' values.
    fn load_segment(&mut self, body: Body, v: &View, h: &Header, seg: u32) {
        let has_scale = h.has(BlobFlags::HAS_SCALE);
        let table = &body.bytes()[v.tracks..v.tracks + h.num_joints as usize];
        let n = self.recs.len();
        // Varying rotations from the front; constants and varying vectors (`R_VECTOR`) from the
        // back, partitioned after the pass.
        let mut cur = Cursor::at_segment(body, v, seg);
        let mut rg = v.ranges;
        let mut rel = 0u32;
        let rotations = self.rotation_slots();
        let (mut r_slot, mut x_slot) = (0usize, rotations);
        let (mut varying_rot, mut constant) = (0usize, n);
        for_each_sub(table, has_scale, |_, ch, extra| {
            let rotation = ch == 0;
            let slot = if rotation { r_slot } else { x_slot };
            let (p, drop) = if rotation {
                let per_segment = extra & D_PER_SEGMENT != 0;
                let kind = if per_segment {
                    KIND_ANIMATED_PER_SEGMENT
                } else {
                    KIND_ANIMATED
                };
                let (min, extent, c) =
                    cur.rotation_ranges(body, rg, per_segment, (extra >> 28 & 3) as u8);
                rg += range_bytes_of(0, kind);
                (cur.params(body, min, extent), c)
            } else {
                let (min, extent) = vector_ranges(body, rg);
                rg += VECTOR_RANGE_BYTES;
                (cur.params(body, min, extent), 0)
            };
            if rotation {
                r_slot += 1;
            } else {
                x_slot += 1;
            }
            let Some(dest) = self.dest.get_mut(slot) else {
                return;
            };
            if p.total == 0 {
                // Constant over the segment: `add` is the value (the walk's shortcut).
                *dest |= D_SEG_CONST;
                constant -= 1;
                self.recs[constant] = Rec {
                    mul: Vec4::ZERO,
                    add: if rotation {
                        from_stored(p.add, drop).into()
                    } else {
                        p.add
                    },
                    slot: slot as u32,
                    rel: 0,
                    mask: [0; 3],
                    shifts: 0,
                    rates: 0,
                    flags: 0,
                };
            } else {
                *dest &= !D_SEG_CONST;
                let b = p.bits;
                let m = |b: u32| ((1u64 << b) - 1) as u32;
                let slow = p.any_raw || p.total > 56;
                let rec = Rec {
                    mul: p.mul,
                    add: p.add,
                    slot: slot as u32,
                    rel,
                    mask: [m(b[0]), m(b[1]), m(b[2])],
                    shifts: b[0] | (b[0] + b[1]) << 8,
                    rates: p.rates,
                    flags: drop as u32 | if slow { R_SLOW } else { 0 },
                };
                if rotation {
                    self.recs[varying_rot] = rec;
                    varying_rot += 1;
                } else {
                    constant -= 1;
                    self.recs[constant] = Rec {
                        flags: rec.flags | R_VECTOR,
                        ..rec
                    };
                }
            }
            rel = rel.wrapping_add(p.total);
        });
        // The back part: varying vectors first, then constants; the vectors then move right
        // after the rotations (the order of records within a part does not matter: each names
        // its slot and bit offset).
        let mut w = constant;
        for i in constant..n {
            if self.recs[i].flags & R_VECTOR != 0 {
                self.recs.swap(w, i);
                w += 1;
            }
        }
        self.recs.copy_within(constant..w, varying_rot);
        self.head[W_SEG] = seg;
        self.head[W_LOADS] = self.head[W_LOADS].wrapping_add(1);
        self.head[W_ROTATIONS] = varying_rot as u32;
        self.head[W_VARYING] = (varying_rot + w - constant) as u32;
        self.head[W_CONSTANT] = w as u32;
    }
    /// How many slots (the first ones) hold rotations, as `fill` counted them (at most the
    /// slot count whatever the cache memory holds).
    fn rotation_slots(&self) -> usize {
        (self.head[W_ROTATION_SLOTS] as usize).min(self.dest.len())
    }

    /// Decodes sample `s` into slot `k`, loading its segment's decode first when another one is
    /// loaded.
    fn decode(&mut self, body: Body, v: &View, h: &Header, s: u32, k: usize) {
        let seg = s / v.seg_len;
        if self.head[W_SEG] != seg {
            self.load_segment(body, v, h, seg);
        }
        // From the body, not the cache: the keyframe mask is validated there.
        let (mask, frame_bits, data) = segment_frames(body, v, seg);
        let (idx, t) = super::keyframe_position(mask, s - seg * v.seg_len);
        let bit = data * 8 + idx as usize * frame_bits;
        let n = self.recs.len();
        let r = (self.head[W_ROTATIONS] as usize).min(n);
        let x = (self.head[W_VARYING] as usize).clamp(r, n);
        let c = (self.head[W_CONSTANT] as usize).clamp(x, n);
        let slot = &mut *self.slots[k];
        let recs = &*self.recs;
        let f = Frame {
            body,
            bit,
            frame_bits,
            t,
        };
        if t > 0.0 {
            decode_records::<true, true>(&f, &recs[..r], slot);
            decode_records::<false, true>(&f, &recs[r..x], slot);
        } else {
            decode_records::<true, false>(&f, &recs[..r], slot);
            decode_records::<false, false>(&f, &recs[r..x], slot);
        }
        // The segment's constants, unless this slot has them from an earlier sample of it.
        if self.head[W_SLOT_LOAD + k] != self.head[W_LOADS] {
            for rec in &recs[c..] {
                if let Some(o) = slot.get_mut(rec.slot as usize) {
                    *o = rec.add;
                }
            }
            self.head[W_SLOT_LOAD + k] = self.head[W_LOADS];
        }
        self.head[W_SLOT + k] = s;
    }

    /// Writes the pose `alpha` of the way from the sample in slot `a` to the one in slot `b`,
    /// with the walk's blends for `case`: the static pose, then every animated sub-track.
    fn blend(&self, a: usize, b: usize, case: u8, alpha: f32, out: &mut PoseOut) {
        let stride = out.stride;
        if stride == 10 {
            let n = self.stat.len().min(out.data.len());
            out.data[..n].copy_from_slice(&self.stat[..n]);
        } else {
            for (j, x) in self.stat.chunks_exact(10).enumerate() {
                if let Some(o) = out.data.get_mut(j * stride..j * stride + 10) {
                    o.copy_from_slice(x);
                }
            }
        }
        let (sa, sb) = (&*self.slots[a], &*self.slots[b]);
        let one = case == ONE;
        // In a pair, a rotation constant over the segment is not blended (the walk's shortcut).
        let no_blend = if case == PAIR { D_SEG_CONST } else { 0 };
        let rotations = self.rotation_slots();
        let (dr, dv) = self.dest.split_at(rotations);
        for ((&d, &x), &y) in dr.iter().zip(sa.iter()).zip(sb.iter()) {
            let o = (d >> 2 & D_JOINT) as usize * stride;
            let q0 = Quat::from_vec4(x);
            let q = if one || d & no_blend != 0 {
                q0
            } else {
                nlerp_shortest(q0, Quat::from_vec4(y), alpha)
            };
            if let Some(o) = out.data.get_mut(o..o + 4) {
                o.copy_from_slice(&q.to_array());
            }
        }
        let (sa, sb) = (
            sa.get(rotations..).unwrap_or(&[]),
            sb.get(rotations..).unwrap_or(&[]),
        );
        for ((&d, &x), &y) in dv.iter().zip(sa.iter()).zip(sb.iter()) {
            let o = (d >> 2 & D_JOINT) as usize * stride + if d & 3 == 1 { 4 } else { 7 };
            let v = if one {
                clamp_value(x)
            } else {
                clamp_value(x.lerp(y, alpha))
            };
            if let Some(o) = out.data.get_mut(o..o + 3) {
                o.copy_from_slice(&v.to_array());
            }
        }
    }
}

/// Where a sample's stored frame lies: its first bit, the frame size and the blend towards the
/// next stored frame (a dropped keyframe).
struct Frame<'a> {
    body: Body<'a>,
    bit: usize,
    frame_bits: usize,
    t: f32,
}

/// The three fields of `rec` in the frame starting at bit `bit` (one 64-bit read when they span
/// at most 56 bits, which the fast path asks).
#[inline(always)]
fn fields(body: Body, bit: usize, rec: &Rec) -> [u32; 3] {
    let w = body.u64(bit >> 3) >> (bit & 7);
    let (s1, s2) = (rec.shifts & 63, rec.shifts >> 8 & 63);
    [
        w as u32 & rec.mask[0],
        (w >> s1) as u32 & rec.mask[1],
        (w >> s2) as u32 & rec.mask[2],
    ]
}

/// Decodes the varying records `recs` (rotations when `ROT`) of frame `f` into `slot`; `DROPPED`:
/// the sample is a dropped keyframe (blend `f.t` towards the next stored frame).
#[inline(always)]
fn decode_records<const ROT: bool, const DROPPED: bool>(
    f: &Frame,
    recs: &[Rec],
    slot: &mut [Vec4],
) {
    let limit = if ROT { 1.0 } else { MAX_ABS_VALUE };
    for rec in recs {
        let at = f.bit + rec.rel as usize;
        let x = if rec.flags & R_SLOW != 0 {
            // Raw components or wide fields: the walk's general path.
            let bits = [0, 1, 2].map(|c| rate_bits((rec.rates >> (5 * c)) as u8));
            let p = Params {
                bits,
                mul: rec.mul,
                add: rec.add,
                rates: rec.rates & 0x7FFF,
                any_raw: true,
                total: bits[0] + bits[1] + bits[2],
            };
            sample_at(f.body, at, f.t, f.frame_bits, &p, limit)
        } else {
            let v = lanes::values(fields(f.body, at, rec), rec.mul, rec.add);
            if DROPPED {
                let next = lanes::values(fields(f.body, at + f.frame_bits, rec), rec.mul, rec.add);
                v + (next - v) * f.t
            } else {
                v
            }
        };
        let x = if ROT {
            from_stored(x, (rec.flags & 3) as u8).into()
        } else {
            x
        };
        if let Some(o) = slot.get_mut(rec.slot as usize) {
            *o = x;
        }
    }
}

#[cfg(all(test, feature = "compress"))]
#[path = "cache_tests.rs"]
mod tests;
