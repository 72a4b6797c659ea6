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
//! - per sample: two decoded samples (the two ends of the current interval), each animated
//!   sub-track's value before blending.
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

use super::blend::nlerp4;
use super::cursor::{segment_frames, vector_ranges, Cursor};
use super::lanes::from_stored;
use super::records::{self, sort_rotations, Frame, Rec, Runs, R_SLOW, R_VECTOR};
use super::walk::{case, clamp_value, read_quat, read_vec, ONE, PAIR};
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
/// Words 10 and 11: the sample each slot holds.
const W_SLOT: usize = 10;
/// Words 13 and 14: the samples of the last key.
const W_LAST: usize = 13;
/// The loaded segment's records: varying rotations up to `W_ROTATIONS`, varying vectors up to
/// `W_VARYING`, constants from `W_CONSTANT` on.
const W_ROTATIONS: usize = 15;
const W_VARYING: usize = 16;
const W_CONSTANT: usize = 17;
/// Words 18 and 19, per slot: the load (`W_LOADS`) whose constants it holds.
const W_SLOT_LOAD: usize = 18;
/// Segment loads since the cache was filled.
const W_LOADS: usize = 21;
/// Animated rotations: the slots before this one are rotations (counted once, by `fill`).
const W_ROTATION_SLOTS: usize = 22;
/// Words 23..27: the loaded segment's varying rotation records sorted by dropped component
/// (ends of the four runs of fast records, component 0 first); the ones after the fourth up to
/// `W_ROTATIONS` take the general path ([`R_SLOW`]).
const W_DROP_RUNS: usize = 23;
/// Decoded samples held: the two ends of the current interval.
const SLOTS: usize = 2;

/// In a sub-track's `dest` word: constant over the loaded segment.
const D_SEG_CONST: u32 = 1 << 31;
/// In a sub-track's `dest` word: a rotation with a per-segment dropped component.
const D_PER_SEGMENT: u32 = 1 << 30;
/// Joint index bits of a `dest` word (after `>> 2`).
const D_JOINT: u32 = 0x00FF_FFFF;
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
        // Records (4 units each), then the slots.
        let units = HEAD / 4 + stat + dest + 4 * subs + SLOTS * subs;
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
    /// The decoded samples, one value per sub-track (a rotation rebuilt, a vector before the
    /// clamp).
    slots: [&'c mut [Vec4]; SLOTS],
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

/// Whether `key` is a random jump for the filled cache in `cache`: neither held in its slots
/// nor near the last key's samples (within two samples; a clip's first two samples count as
/// near, where wrapping playback lands); then the key is recorded as the last one and the pose
/// takes the plain walk, having read and written only the cache's head. Otherwise false, and
/// the pose opens the cache (which checks its size and whose it is). The last key is a hint
/// only: a cache filled for another clip is refilled when playback next uses it.
fn jump(cache: &mut [u8], key: &SampleKey) -> bool {
    if cache.len() < HEAD * 4 || !(cache.as_ptr() as usize).is_multiple_of(16) {
        return false;
    }
    // SAFETY: the head's words lie in `cache` (checked above), 16-byte aligned; any bits are
    // valid `u32`s.
    let head: &mut [u32] = unsafe { part(cache.as_mut_ptr(), 0, HEAD) };
    if head[W_TAG] != TAG {
        return false;
    }
    let s0 = key.i0;
    // The two samples `sample_pose` takes (its case `ONE`: one sample).
    let s1 = if key.i1 == key.i0 || key.alpha <= 0.0 {
        s0
    } else {
        key.i1
    };
    let slots = [head[W_SLOT], head[W_SLOT + 1]];
    let last = [head[W_LAST], head[W_LAST + 1]];
    if slots.contains(&s0) && slots.contains(&s1) {
        return false;
    }
    if near(last, s0) && near(last, s1) {
        return false;
    }
    head[W_LAST] = s0;
    head[W_LAST + 1] = s1;
    true
}

/// Whether sample `s` is near the last key's samples `last`.
#[inline(always)]
fn near(last: [u32; 2], s: u32) -> bool {
    s < 2 || last.iter().any(|&l| l != NONE && l.abs_diff(s) <= 2)
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
    if jump(cache, key) {
        return plain(out);
    }
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
    let held = |c: &Parts, s: u32| (0..SLOTS).find(|&k| c.head[W_SLOT + k] == s);
    let (mut a, mut b) = (held(&c, s0), held(&c, s1));
    let last = [c.head[W_LAST], c.head[W_LAST + 1]];
    c.head[W_LAST] = s0;
    c.head[W_LAST + 1] = s1;
    if a.is_none() || b.is_none() {
        if !(near(last, s0) && near(last, s1)) {
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
        self.head[W_SLOT..W_SLOT + SLOTS].fill(NONE);
        self.head[W_LAST] = NONE;
        self.head[W_LAST + 1] = NONE;
        self.head[W_LOADS] = 0;
        self.head[W_ROTATION_SLOTS] = rotations as u32;
        self.head[W_SLOT_LOAD..W_SLOT_LOAD + SLOTS].fill(NONE);
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
        let runs = sort_rotations(&mut self.recs[..varying_rot]);
        for (c, end) in runs.into_iter().enumerate() {
            self.head[W_DROP_RUNS + c] = end as u32;
        }
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
        let f = Frame {
            body,
            bit: data * 8 + idx as usize * frame_bits,
            frame_bits,
            t,
        };
        let n = self.recs.len();
        let r = (self.head[W_ROTATIONS] as usize).min(n);
        let x = (self.head[W_VARYING] as usize).clamp(r, n);
        let c = (self.head[W_CONSTANT] as usize).clamp(x, n);
        // The runs of rotations by dropped component, clamped in order: whatever the memory
        // holds, they cut `..r` into slices.
        let mut ends = [0usize; 4];
        let mut lo = 0;
        for (i, e) in ends.iter_mut().enumerate() {
            *e = (self.head[W_DROP_RUNS + i] as usize).clamp(lo, r);
            lo = *e;
        }
        let runs = Runs {
            ends,
            rotations: r,
            varying: x,
        };
        let k = k % SLOTS;
        let slot = &mut *self.slots[k];
        if t > 0.0 {
            records::decode::<true>(&self.recs[..], &runs, &f, slot);
        } else {
            records::decode::<false>(&self.recs[..], &runs, &f, slot);
        }
        self.constants(c, k);
        self.head[W_SLOT + k] = s;
    }

    /// Writes the loaded segment's constants (records from `c` on) into slot `k`, unless it has
    /// them from an earlier sample of the same load.
    fn constants(&mut self, c: usize, k: usize) {
        let k = k % SLOTS;
        if self.head[W_SLOT_LOAD + k] != self.head[W_LOADS] {
            let slot = &mut *self.slots[k];
            for rec in &self.recs[c..] {
                if let Some(o) = slot.get_mut(rec.slot as usize) {
                    *o = rec.add;
                }
            }
            self.head[W_SLOT_LOAD + k] = self.head[W_LOADS];
        }
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
        let write = |out: &mut PoseOut, d: u32, q: Vec4| {
            let o = (d >> 2 & D_JOINT) as usize * stride;
            if let Some(o) = out.data.get_mut(o..o + 4) {
                q.write_to_slice(o);
            }
        };
        let n = dr.len().min(sa.len()).min(sb.len());
        let mut i = 0;
        if !one {
            // Four blends at a time (`nlerp4`: bit for bit `nlerp_shortest`).
            while i + 4 <= n {
                let a = [sa[i], sa[i + 1], sa[i + 2], sa[i + 3]];
                let q = nlerp4(a, [sb[i], sb[i + 1], sb[i + 2], sb[i + 3]], alpha);
                for k in 0..4 {
                    let d = dr[i + k];
                    write(out, d, if d & no_blend != 0 { a[k] } else { q[k] });
                }
                i += 4;
            }
        }
        for ((&d, &x), &y) in dr[i..n].iter().zip(&sa[i..n]).zip(&sb[i..n]) {
            let q = if one || d & no_blend != 0 {
                x
            } else {
                nlerp_shortest(Quat::from_vec4(x), Quat::from_vec4(y), alpha).into()
            };
            write(out, d, q);
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

#[cfg(all(test, feature = "compress"))]
#[path = "cache_tests.rs"]
mod tests;
