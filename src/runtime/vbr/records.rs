//! The playback cache's records: one varying sub-track's decode in the loaded segment, and the
//! decode of a sample of that segment from them (see [`super::cache`]).
//!
//! The arithmetic is the walk's own ([`sample_at`], [`lanes::values`], [`from_stored`]); four
//! rotations whose dropped component is the same are rebuilt at once ([`lanes::from_stored4`],
//! bit for bit [`from_stored`]), so the records of a segment are sorted by dropped component
//! when it loads ([`sort_rotations`]).

use super::cursor::{sample_at, Params};
use super::lanes::{self, from_stored};
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::vbr::bitrate::rate_bits;
use crate::runtime::body::Body;
use glam::Vec4;

/// In a record's `flags`: a component is stored raw, or the fields span more than 56 bits (read
/// through the walk's general path).
pub(super) const R_SLOW: u32 = 1 << 31;
/// In a record's `flags` while a segment loads: a varying translation or scale.
pub(super) const R_VECTOR: u32 = 1 << 30;

/// One sub-track's decode in the loaded segment (64 bytes, one cache line): for a varying one the
/// walk's coefficients and its fields' place and masks in a frame; for a constant one its value
/// in `add` (a rotation rebuilt).
#[derive(Clone, Copy)]
#[repr(C)]
pub(super) struct Rec {
    pub(super) mul: Vec4,
    pub(super) add: Vec4,
    /// The sub-track's slot.
    pub(super) slot: u32,
    /// Bit offset in a frame.
    pub(super) rel: u32,
    /// Field masks.
    pub(super) mask: [u32; 3],
    /// Bit offsets of fields 1 and 2 (a byte each).
    pub(super) shifts: u32,
    /// Rates (15 bits).
    pub(super) rates: u32,
    /// Dropped component (bits 0..2), [`R_SLOW`].
    pub(super) flags: u32,
}

/// Where a sample's stored frame lies: its first bit, the frame size and the blend towards the
/// next stored frame (a dropped keyframe).
pub(super) struct Frame<'a> {
    pub(super) body: Body<'a>,
    pub(super) bit: usize,
    pub(super) frame_bits: usize,
    pub(super) t: f32,
}

/// Where the loaded segment's varying records lie: rotations sorted by dropped component (the
/// ends of the four runs of fast records; then the general path's up to `rotations`), then the
/// vectors up to `varying`.
pub(super) struct Runs {
    pub(super) ends: [usize; 4],
    pub(super) rotations: usize,
    pub(super) varying: usize,
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

/// Sorts varying rotation records in place: fast ones by dropped component (0 first), then the
/// ones for the general path ([`R_SLOW`]), each moved at most once (American flag sort). Returns
/// the ends of the four fast runs.
pub(super) fn sort_rotations(recs: &mut [Rec]) -> [usize; 4] {
    let class = |r: &Rec| {
        if r.flags & R_SLOW != 0 {
            4
        } else {
            (r.flags & 3) as usize
        }
    };
    let mut count = [0usize; 5];
    for r in recs.iter() {
        count[class(r)] += 1;
    }
    let (mut next, mut end) = ([0usize; 5], [0usize; 5]);
    let mut at = 0;
    for b in 0..5 {
        next[b] = at;
        at += count[b];
        end[b] = at;
    }
    for b in 0..5 {
        while next[b] < end[b] {
            let c = class(&recs[next[b]]);
            if c == b {
                next[b] += 1;
            } else {
                recs.swap(next[b], next[c]);
                next[c] += 1;
            }
        }
    }
    [end[0], end[1], end[2], end[3]]
}

/// The stored components of fast record `rec` (no raw component, fields within 56 bits) in
/// frame `f`, blended towards the next stored frame when `dropped` (the sample is a dropped
/// keyframe; callers pass a constant, so the test folds away).
#[inline(always)]
fn fast_values(f: &Frame, rec: &Rec, dropped: bool) -> Vec4 {
    let at = f.bit + rec.rel as usize;
    let v = lanes::values(fields(f.body, at, rec), rec.mul, rec.add);
    if dropped {
        let next = lanes::values(fields(f.body, at + f.frame_bits, rec), rec.mul, rec.add);
        v + (next - v) * f.t
    } else {
        v
    }
}

/// The stored components of any record `rec` in frame `f` (raw components clamped to `limit`).
#[inline(always)]
fn any_values(f: &Frame, rec: &Rec, dropped: bool, limit: f32) -> Vec4 {
    if rec.flags & R_SLOW == 0 {
        return fast_values(f, rec, dropped);
    }
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
    sample_at(
        f.body,
        f.bit + rec.rel as usize,
        f.t,
        f.frame_bits,
        &p,
        limit,
    )
}

/// Decodes the loaded segment's varying records (`recs` cut by `runs`) at frame `f` into `slot`;
/// `DROPPED`: the sample is a dropped keyframe (`f.t > 0`).
#[inline(always)]
pub(super) fn decode<const DROPPED: bool>(recs: &[Rec], runs: &Runs, f: &Frame, slot: &mut [Vec4]) {
    let run = |c: usize| &recs[if c == 0 { 0 } else { runs.ends[c - 1] }..runs.ends[c]];
    rotations::<0, DROPPED>(run(0), f, slot);
    rotations::<1, DROPPED>(run(1), f, slot);
    rotations::<2, DROPPED>(run(2), f, slot);
    rotations::<3, DROPPED>(run(3), f, slot);
    one_by_one::<true, DROPPED>(&recs[runs.ends[3]..runs.rotations], f, slot);
    one_by_one::<false, DROPPED>(&recs[runs.rotations..runs.varying], f, slot);
}

/// Fast rotation records whose dropped component is `C`: four rebuilds at a time, the rest one
/// by one.
#[inline(always)]
fn rotations<const C: u8, const DROPPED: bool>(recs: &[Rec], f: &Frame, slot: &mut [Vec4]) {
    let mut groups = recs.chunks_exact(4);
    for g in &mut groups {
        let q = lanes::from_stored4::<C>([
            fast_values(f, &g[0], DROPPED),
            fast_values(f, &g[1], DROPPED),
            fast_values(f, &g[2], DROPPED),
            fast_values(f, &g[3], DROPPED),
        ]);
        for (rec, q) in g.iter().zip(q) {
            if let Some(o) = slot.get_mut(rec.slot as usize) {
                *o = q;
            }
        }
    }
    one_by_one::<true, DROPPED>(groups.remainder(), f, slot);
}

/// Records one at a time (rotations rebuilt when `ROT`).
#[inline(always)]
fn one_by_one<const ROT: bool, const DROPPED: bool>(recs: &[Rec], f: &Frame, slot: &mut [Vec4]) {
    let limit = if ROT { 1.0 } else { MAX_ABS_VALUE };
    for rec in recs {
        let x = any_values(f, rec, DROPPED, limit);
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
