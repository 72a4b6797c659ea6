//! Decoding: whole poses and single joints from a validated body, without allocation.
//!
//! A [`Cursor`] walks one sample of one segment: it resolves the keyframe mask (a dropped sample
//! is the linear blend of its stored neighbours, computed on the stored components), then yields
//! each animated sub-track's three components in joint order. A pose between two samples uses two
//! cursors (the samples may lie in different segments) and blends the results: `nlerp` on the
//! shortest arc for rotations, `lerp` for vectors.

use crate::format::limits::MAX_ABS_VALUE;
use crate::format::vbr::bitrate::{
    inv_max_q, rate_bits, NUM_RATES, RATE_BITS, RATE_FIELD_BITS, RATE_RAW,
};
use crate::format::vbr::layout::{
    constant_bytes, kind, range_bytes_of, View, BODY_HEADER, KIND_ANIMATED,
    KIND_ANIMATED_PER_SEGMENT, KIND_CONSTANT, KIND_DEFAULT, READ_AHEAD, ROTATION_RANGE_BYTES,
    SEGMENT_HEADER, VECTOR_RANGE_BYTES,
};
use crate::format::{BlobFlags, Header};
use crate::math::{nlerp_shortest, Quat, Transform, Vec3};
use crate::runtime::body::Body;
use crate::runtime::vbr_lanes::{self, from_stored};
use crate::runtime::{BodyHint, Defaults, JointSelection, PoseOut, SampleKey};
use crate::runtime::{CHANNELS_ALL, CHANNEL_ROTATION};
use glam::Vec4;

/// Linear blend used for dropped keyframes (the decoder computes it lane by lane in
/// `Cursor::sample`, the same operations: bit for bit what the encoder measured).
#[inline(always)]
pub fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

/// Where a dropped local sample sits between its stored neighbours: (stored index of the
/// previous stored sample, blend weight towards the next). A stored sample gives weight 0.
#[inline(always)]
pub fn keyframe_position(mask: u32, local: u32) -> (u32, f32) {
    let below = mask & ((1u32 << local) - 1);
    if mask & (1u32 << local) != 0 {
        return (below.count_ones(), 0.0);
    }
    // Validation guarantees bit 0 and the last bit are set, so both neighbours exist.
    let prev = 31 - below.leading_zeros();
    let above = mask >> (local + 1);
    let next = local + 1 + above.trailing_zeros();
    let idx = below.count_ones() - 1;
    (idx, (local - prev) as f32 / (next - prev) as f32)
}

/// One sub-track's decode in one segment: the bit widths of its three components and their
/// `q * mul + add` coefficients (see [`coefficients`], here in the lanes of a `Vec4`:
/// [`vbr_lanes`]), computed once and applied to every stored sample read for it (up to four per
/// pose).
#[derive(Clone, Copy)]
struct Params {
    bits: [u32; 3],
    mul: Vec4,
    add: Vec4,
    /// The three 5-bit rate indices, component 0 lowest.
    rates: u32,
    /// Whether any component is stored as raw `f32` bits.
    any_raw: bool,
    /// Sum of `bits`.
    total: u32,
}

impl Params {
    /// Components from stored fields (lanes 0..2). A raw `f32` (the only way a blob can hold a
    /// non-finite or out-of-range value: quantised values are bounded by their validated ranges)
    /// is clamped to `[-limit, limit]`, a NaN to `-limit`.
    #[inline(always)]
    fn values(&self, q: [u32; 3], limit: f32) -> Vec4 {
        let v = vbr_lanes::values(q, self.mul, self.add);
        if self.any_raw {
            let raw =
                [0, 1, 2].map(|c| (self.rates >> (c * RATE_FIELD_BITS)) & 31 == RATE_RAW as u32);
            vbr_lanes::with_raw(v, q, raw, limit)
        } else {
            v
        }
    }
}

/// Whether any of the three 5-bit rate indices in `rates` (15 bits) is [`RATE_RAW`]: a zero-field
/// test on `rates` XOR three copies of it (exact for "any": without a zero field nothing borrows).
#[inline(always)]
fn any_raw(rates: u32) -> bool {
    const LOW: u32 = 1 | 1 << 5 | 1 << 10;
    let x = rates ^ (RATE_RAW as u32 * LOW);
    (x.wrapping_sub(LOW) & !x & (LOW << 4)) != 0
}

/// Bits of one frame taken by sub-tracks whose 5-bit rate pairs are indexed by 10 bits.
const PAIR_BITS: [u8; 1024] = {
    let mut t = [0u8; 1024];
    let mut i = 0;
    while i < 1024 {
        let (a, b) = (i & 31, i >> 5);
        let ba = if a < NUM_RATES { RATE_BITS[a] } else { 0 };
        let bb = if b < NUM_RATES { RATE_BITS[b] } else { 0 };
        t[i] = ba + bb;
        i += 1;
    }
    t
};

/// Sum of the bit widths of `count` consecutive rate fields starting at absolute bit `bit`
/// (the frame bits taken by the sub-tracks they describe), ten fields per 64-bit read (a window
/// shifted by up to 7 bits keeps 57 valid bits: ten 5-bit fields fit, twelve would not).
#[inline]
fn sum_rate_bits(data: Body, mut bit: usize, mut count: usize) -> usize {
    let mut sum = 0usize;
    while count >= 10 {
        let w = data.u64(bit >> 3) >> (bit & 7);
        for p in 0..5 {
            sum += PAIR_BITS[((w >> (10 * p)) & 1023) as usize] as usize;
        }
        bit += 50;
        count -= 10;
    }
    // The remaining fewer than ten fields from one window.
    let mut w = data.u64(bit >> 3) >> (bit & 7);
    while count >= 2 {
        sum += PAIR_BITS[(w & 1023) as usize] as usize;
        w >>= 10;
        count -= 2;
    }
    if count == 1 {
        sum += PAIR_BITS[(w & 31) as usize] as usize;
    }
    sum
}

/// Asks the CPU to start loading the cache lines of `body[from..to]` (clamped to the body), so
/// the misses of a cold pose overlap instead of following one another. A hint: no effect on
/// results, no fault whatever the range (x86-64 only; elsewhere nothing).
#[inline(always)]
fn prefetch(body: &[u8], from: usize, to: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let to = to.min(body.len());
        let mut o = from;
        while o < to {
            // SAFETY: prefetching never faults and reads nothing into the program; the address is
            // inside `body`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(body.as_ptr().add(o).cast()) };
            o += 64;
        }
        if from < to {
            // The line of the last byte (`from` need not be line-aligned).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(body.as_ptr().add(to - 1).cast()) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (body, from, to);
}

/// [`prefetch`] of the segment table entries of a key's two samples, the table at `segments`
/// with `seg_len` samples per segment.
#[inline(always)]
fn prefetch_segment_entries(body: Body, segments: usize, seg_len: u32, key: &SampleKey) {
    for s in [key.i0, key.i1] {
        // The entry and the next one, whose offset ends the segment (`prefetch_frames_early`).
        let e = segments + 4 * (s / seg_len.max(1)) as usize;
        prefetch(body.bytes(), e, e + 8);
    }
}

/// [`prefetch`] of the segment at `off` (segment `seg`, stored frames from byte `data`; `samples`
/// in the clip) and of the stored frames of its local sample `local` and the next, before its
/// header is read: the frame size and the keyframe mask are in that header, so waiting for them
/// puts a second cache miss after the segment table's in a cold pose's chain
/// ([`estimated_frame`] says where the frames lie).
#[inline(always)]
fn prefetch_frames_early(
    body: Body,
    v: &View,
    seg: u32,
    off: usize,
    data: usize,
    local: u32,
    samples: u32,
) {
    prefetch(body.bytes(), off, data);
    let at = |k: u32| estimated_frame(body, v, seg, data, k, samples);
    prefetch(body.bytes(), at(local), at(local + 2) + 8);
}

/// The byte where local sample `k`'s stored frame starts in segment `seg`, whose stored frames
/// start at byte `data`, estimated from the segment's size alone (its end is the next segment's
/// offset, or the read-ahead padding after the last segment) as if every sample were stored: then
/// the estimate is the frame's first byte or the byte after it (`tests`). When keyframes were
/// dropped it may be further off; it only places prefetches.
#[inline(always)]
fn estimated_frame(body: Body, v: &View, seg: u32, data: usize, k: u32, samples: u32) -> usize {
    let last = seg + 1 >= v.num_segments;
    let (end, n) = if last {
        (
            body.bytes().len().saturating_sub(READ_AHEAD),
            samples.saturating_sub(seg * v.seg_len),
        )
    } else {
        (
            body.u32(v.segments + 4 * (seg + 1) as usize) as usize,
            v.seg_len,
        )
    };
    // In 64 bits: a hostile table entry may put `end` anywhere in the 32-bit range.
    let size = end.saturating_sub(data) as u64;
    data.saturating_add((size * k as u64 / n.max(1) as u64) as usize)
}

/// What a whole pose of the validated body `body` reads first, for the decompressor to keep
/// (see [`BodyHint`]): the segment table offset and the segment length.
pub fn hint(body: &[u8]) -> BodyHint {
    // A blob without joints (curves only) may have no body.
    if body.len() < BODY_HEADER {
        return BodyHint::default();
    }
    let v = View::read(body);
    BodyHint {
        first: v.segments as u32,
        stride: v.seg_len,
    }
}

/// [`prefetch`] of a float buffer.
#[inline(always)]
fn prefetch_floats(f: &[f32]) {
    // SAFETY: viewing initialised `f32`s as bytes; the slice covers exactly their memory.
    let bytes =
        unsafe { core::slice::from_raw_parts(f.as_ptr().cast::<u8>(), std::mem::size_of_val(f)) };
    prefetch(bytes, 0, bytes.len());
}

/// Three consecutive bit fields of widths `bits` starting at absolute bit `bit`.
#[inline(always)]
fn read3(data: Body, bit: usize, p: &Params) -> [u32; 3] {
    let bits = &p.bits;
    if p.total <= 56 {
        let w = data.u64(bit >> 3) >> (bit & 7);
        let m = |b: u32| (1u64 << b) - 1;
        [
            (w & m(bits[0])) as u32,
            ((w >> bits[0]) & m(bits[1])) as u32,
            ((w >> (bits[0] + bits[1])) & m(bits[2])) as u32,
        ]
    } else {
        [
            data.bits(bit, bits[0]),
            data.bits(bit + bits[0] as usize, bits[1]),
            data.bits(bit + (bits[0] + bits[1]) as usize, bits[2]),
        ]
    }
}

/// Reading position in one segment for one sample, or for two samples of the same segment
/// (`pair`), which then share the rate, range and field reads.
#[derive(Clone, Copy)]
struct Cursor {
    /// Bit position of the next sub-track's rates.
    rate_bit: usize,
    /// Bit position of the next per-segment rotation's dropped component.
    drop_bit: usize,
    /// Byte position of the next sub-track's range fields.
    fields: usize,
    frame_bits: usize,
    /// Bit position and keyframe blend of the first sample.
    a_bit: usize,
    t: f32,
    /// Bit position and keyframe blend of the second sample (when `pair`).
    b_bit: usize,
    tb: f32,
    pair: bool,
}

impl Cursor {
    #[inline(always)]
    fn new(body: Body, v: &View, sample: u32, second: Option<u32>, fetch: Option<u32>) -> Cursor {
        let seg = sample / v.seg_len;
        let local = sample - seg * v.seg_len;
        let off = body.u32(v.segments + 4 * seg as usize) as usize;
        let rates = off + SEGMENT_HEADER;
        let fields = rates + v.rate_bytes();
        let data = v.frames_offset(off);
        // Only for a whole pose: a walk that reads a few joints would spend more on the hints
        // than they save.
        if let Some(samples) = fetch {
            prefetch_frames_early(body, v, seg, off, data, local, samples);
        }
        let mask = body.u32(off);
        let frame_bits = body.u32(off + 4) as usize;
        let data_bit = data * 8;
        let (idx, t) = keyframe_position(mask, local);
        let (b_bit, tb, pair) = match second {
            Some(s2) => {
                let (idx2, t2) = keyframe_position(mask, s2 - seg * v.seg_len);
                (data_bit + idx2 as usize * frame_bits, t2, true)
            }
            None => (0, 0.0, false),
        };
        Cursor {
            rate_bit: rates * 8,
            drop_bit: rates * 8 + 3 * v.num_animated as usize * RATE_FIELD_BITS as usize,
            fields,
            frame_bits,
            a_bit: data_bit + idx as usize * frame_bits,
            t,
            b_bit,
            tb,
            pair,
        }
    }

    /// Skips `count` animated sub-tracks, `per_segment` of which have per-segment drops.
    #[inline]
    fn skip(&mut self, body: Body, count: usize, per_segment: usize) {
        let bits = sum_rate_bits(body, self.rate_bit, 3 * count);
        self.a_bit += bits;
        self.b_bit += bits;
        self.rate_bit += 3 * RATE_FIELD_BITS as usize * count;
        self.fields += 6 * count;
        self.drop_bit += 2 * per_segment;
    }

    /// The dropped component of the next per-segment rotation.
    #[inline(always)]
    fn next_drop(&mut self, body: Body) -> u8 {
        let c = body.bits(self.drop_bit, 2) as u8;
        self.drop_bit += 2;
        c
    }

    /// The stored sample at `bit`, blended `t` of the way to the next stored sample (a dropped
    /// keyframe).
    #[inline(always)]
    fn sample(&self, body: Body, bit: usize, t: f32, p: &Params, limit: f32) -> Vec4 {
        let out = p.values(read3(body, bit, p), limit);
        if t > 0.0 {
            // `lerp` per lane.
            let next = p.values(read3(body, bit + self.frame_bits, p), limit);
            return out + (next - out) * t;
        }
        out
    }

    /// The next animated sub-track's three components for the first sample, and for the second
    /// when `pair`; `ranges[i]` is the clip range of stored slot `i`. The flag is true when the
    /// sub-track is constant over this segment (every rate 0: both samples are the same value).
    #[inline(always)]
    fn next(
        &mut self,
        body: Body,
        min: Vec4,
        extent: Vec4,
        limit: f32,
        pair: bool,
    ) -> (Vec4, Vec4, bool) {
        let rates = body.bits(self.rate_bit, 3 * RATE_FIELD_BITS);
        let fields = body.u64(self.fields);
        let rate = |c: u32| ((rates >> (c * RATE_FIELD_BITS)) & ((1 << RATE_FIELD_BITS) - 1)) as u8;
        let r = [rate(0), rate(1), rate(2)];
        let inv_q = Vec4::new(inv_max_q(r[0]), inv_max_q(r[1]), inv_max_q(r[2]), 0.0);
        let (mul, add) = vbr_lanes::coefficients(inv_q, fields, min, extent);
        let bits = r.map(rate_bits);
        let p = Params {
            bits,
            mul,
            add,
            rates,
            any_raw: any_raw(rates),
            total: bits[0] + bits[1] + bits[2],
        };
        self.rate_bit += 3 * RATE_FIELD_BITS as usize;
        self.fields += 6;
        if p.total == 0 {
            // Constant over the segment: `add` is exactly what unpacking (and blending two
            // equal values) would give. Common on mocap rigs (fingers, toes, spine segments).
            return (p.add, p.add, true);
        }
        let out = self.sample(body, self.a_bit, self.t, &p, limit);
        let out2 = if pair {
            self.sample(body, self.b_bit, self.tb, &p, limit)
        } else {
            out
        };
        self.a_bit += p.total as usize;
        self.b_bit += p.total as usize;
        (out, out2, false)
    }

    /// The next animated rotation's stored components (and the second sample's when `pair`,
    /// else the first again), its dropped component, and whether it is constant over the segment
    /// (both samples the same). `rg` is its clip ranges' offset.
    #[inline(always)]
    fn rotation(
        &mut self,
        body: Body,
        rg: usize,
        per_segment: bool,
        track_drop: u8,
        pair: bool,
    ) -> (Vec4, Vec4, u8, bool) {
        // Per-segment drops store all four component ranges, per-track drops the stored three:
        // one 16-byte read, each range a 32-bit lane of it.
        let block = body.u128(rg);
        let (c, block) = if per_segment {
            // The lanes of the three stored components, in slot order.
            let c = self.next_drop(body);
            let b = match c {
                0 => block >> 32,
                1 => (block & 0xFFFF_FFFF) | ((block >> 64) << 32),
                2 => (block & u64::MAX as u128) | ((block >> 96) << 64),
                _ => block,
            };
            (c, b)
        } else {
            (track_drop, block)
        };
        let (min, extent) = vbr_lanes::rotation_ranges(block);
        let (a, b, same) = self.next(body, min, extent, 1.0, pair);
        (a, b, c, same)
    }

    /// The next animated translation or scale (and the second sample's when `pair`). `rg` is
    /// its clip ranges' offset.
    #[inline(always)]
    fn vector(&mut self, body: Body, rg: usize, pair: bool) -> (Vec4, Vec4) {
        // Three (min, extent) pairs of f32: 24 bytes in two reads.
        let (min, extent) = vbr_lanes::vector_ranges(body.u128(rg), body.u64(rg + 16));
        let (a, b, _) = self.next(body, min, extent, MAX_ABS_VALUE, pair);
        (a, b)
    }
}

/// A decoded translation or scale within the clip value limits. Quantised values of a hostile
/// blob may overshoot them (a validated clip range and 8-bit segment fractions bound them to
/// three times the limit); values the encoder wrote are within them already, so this never moves
/// them. Packed `min`/`max` (one instruction each on SSE2).
#[inline(always)]
fn clamp_value(v: Vec4) -> Vec3 {
    let m = Vec4::splat(MAX_ABS_VALUE);
    v.max(-m).min(m).truncate()
}

/// A constant rotation (4 x `f32`).
#[inline(always)]
fn read_quat(body: Body, o: usize) -> Quat {
    Quat::from_vec4(body.f32x4(o))
}

/// A constant translation or scale (3 x `f32`, read with the next 4 bytes: a constant is always
/// followed by more of the body, the clip ranges or the segment table).
#[inline(always)]
fn read_vec(body: Body, o: usize) -> Vec3 {
    body.f32x4(o).truncate()
}

/// How a key's samples are read: one sample (no blend).
const ONE: u8 = 0;
/// Two samples in one segment, read by one cursor (15 keys in 16 with 16-sample segments).
const PAIR: u8 = 1;
/// Two samples in different segments, a cursor each.
const TWO: u8 = 2;
/// One of the three, told at run time: one copy of the code for subsets and single joints.
const ANY: u8 = 3;

/// Running byte positions in the constants and clip ranges, and the cursors: `c0` reads the
/// first sample (and the second when it is a pair); `c1` the second sample when it lies in
/// another segment. `M` is the case ([`ONE`], [`PAIR`], [`TWO`] or [`ANY`]): a whole pose has a
/// copy of the walk per case, with the branches on the case folded away.
struct State<const M: u8> {
    constants: usize,
    ranges: usize,
    c0: Cursor,
    /// Meaningful only when `two`.
    c1: Cursor,
    two: bool,
    alpha: f32,
    /// Whether the last rotation returned is the first sample of a blend left undone, whose
    /// second sample is `second`: walks finish blends in a pass of their own ([`Blends`]), a
    /// single joint at once ([`State::finish`]).
    pending: bool,
    second: Quat,
}

impl<const M: u8> State<M> {
    /// Whether `c0` reads both samples.
    #[inline(always)]
    fn pair(&self) -> bool {
        match M {
            PAIR => true,
            ONE | TWO => false,
            _ => self.c0.pair,
        }
    }

    /// Whether `c1` reads the second sample.
    #[inline(always)]
    fn two(&self) -> bool {
        match M {
            TWO => true,
            ONE | PAIR => false,
            _ => self.two,
        }
    }

    /// The next animated rotation. A blend is left undone: the first sample is returned and the
    /// second kept in `second` (`pending` set).
    #[inline(always)]
    fn rotation(&mut self, body: Body, kind: u8, track_drop: u8) -> Quat {
        let per_segment = kind == KIND_ANIMATED_PER_SEGMENT;
        let rg = self.ranges;
        self.ranges += range_bytes_of(0, kind);
        let pair = self.pair();
        let (a, b, c, same) = self.c0.rotation(body, rg, per_segment, track_drop, pair);
        let (q0, q1) = if pair {
            // Both samples in one segment where the rotation is constant: nothing to blend.
            if same {
                return from_stored(a, c);
            }
            (from_stored(a, c), from_stored(b, c))
        } else if self.two() {
            let (b, _, cb, _) = self.c1.rotation(body, rg, per_segment, track_drop, false);
            (from_stored(a, c), from_stored(b, cb))
        } else {
            return from_stored(a, c);
        };
        self.pending = true;
        self.second = q1;
        q0
    }

    /// `t` with the blend [`State::rotation`] left pending finished (the arithmetic of
    /// [`Blends::flush`]).
    #[inline(always)]
    fn finish(&mut self, mut t: Transform) -> Transform {
        if std::mem::take(&mut self.pending) {
            t.rotation = nlerp_shortest(t.rotation, self.second, self.alpha);
        }
        t
    }

    /// The next animated translation or scale, interpolated.
    #[inline(always)]
    fn vector(&mut self, body: Body) -> Vec3 {
        let rg = self.ranges;
        self.ranges += VECTOR_RANGE_BYTES;
        let pair = self.pair();
        let (a, b) = self.c0.vector(body, rg, pair);
        // Clamped after interpolating: a lerp between two values at the limit can round one
        // unit past it.
        clamp_value(if pair {
            a.lerp(b, self.alpha)
        } else if self.two() {
            a.lerp(self.c1.vector(body, rg, false).0, self.alpha)
        } else {
            a
        })
    }

    /// A translation or scale channel of kind `kind` (`default` when it is a default track).
    #[inline(always)]
    fn channel(&mut self, body: Body, kind: u8, default: impl Fn() -> Vec3) -> Vec3 {
        match kind {
            KIND_CONSTANT => {
                let x = read_vec(body, self.constants);
                self.constants += constant_bytes(1);
                x
            }
            KIND_ANIMATED => self.vector(body),
            _ => default(),
        }
    }

    /// Moves every position past the joints whose track bytes are `bytes` without decoding them.
    #[inline(always)]
    fn advance(&mut self, body: Body, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let [animated, per_segment, constants, ranges] = footprint(bytes);
        self.constants += constants;
        self.ranges += ranges;
        self.c0.skip(body, animated, per_segment);
        if self.two() {
            self.c1.skip(body, animated, per_segment);
        }
    }

    /// Moves every position past the channels of one joint whose kinds `masked` holds (a track
    /// byte with the kinds of the other channels cleared): one table lookup and at most one rate
    /// sum per cursor, however many channels are skipped.
    #[inline(always)]
    fn skip_masked(&mut self, body: Body, masked: u8) {
        if masked == 0 {
            return;
        }
        let f = &FOOTPRINT[masked as usize];
        self.constants += f[2] as usize;
        self.ranges += f[3] as usize;
        if f[0] != 0 {
            let (animated, per_segment) = (f[0] as usize, f[1] as usize);
            self.c0.skip(body, animated, per_segment);
            if self.two() {
                self.c1.skip(body, animated, per_segment);
            }
        }
    }

    /// [`State::joint`] for the channels in `channels` only. The others are skipped, not
    /// decoded (consecutive skipped channels in one step); their values in the result are
    /// meaningless.
    #[inline(always)]
    fn joint_channels(
        &mut self,
        body: Body,
        byte: u8,
        j: usize,
        has_scale: bool,
        d: &Defaults,
        channels: u32,
    ) -> Transform {
        if channels == CHANNELS_ALL {
            return self.joint(body, byte, j, has_scale, d);
        }
        // Kind bits of channel `ch` in the track byte.
        const KIND_BITS: [u8; 3] = [0x03, 0x0C, 0x30];
        let mut t = Transform::IDENTITY;
        let mut skip = 0u8;
        if channels & 1 != 0 {
            t.rotation =
                self.rotation_channel(body, kind(byte, 0), byte >> 6, || d.get(j).rotation);
        } else {
            skip |= byte & KIND_BITS[0];
        }
        if channels & 2 != 0 {
            self.skip_masked(body, skip);
            skip = 0;
            t.translation = self.channel(body, kind(byte, 1), || d.get(j).translation);
        } else {
            skip |= byte & KIND_BITS[1];
        }
        if channels & 4 != 0 {
            self.skip_masked(body, skip);
            skip = 0;
            if has_scale {
                t.scale = self.channel(body, kind(byte, 2), || d.get(j).scale);
            }
        } else {
            skip |= byte & KIND_BITS[2];
        }
        self.skip_masked(body, skip);
        t
    }

    /// A rotation channel of kind `kind` (`default` when it is a default track).
    #[inline(always)]
    fn rotation_channel(
        &mut self,
        body: Body,
        kind: u8,
        track_drop: u8,
        default: impl Fn() -> Quat,
    ) -> Quat {
        match kind {
            KIND_CONSTANT => {
                let q = read_quat(body, self.constants);
                self.constants += constant_bytes(0);
                q
            }
            KIND_DEFAULT => default(),
            k => self.rotation(body, k, track_drop),
        }
    }

    /// Decodes joint `j` whose track byte is `byte`, advancing every position past it.
    #[inline(always)]
    fn joint(
        &mut self,
        body: Body,
        byte: u8,
        j: usize,
        has_scale: bool,
        d: &Defaults,
    ) -> Transform {
        let rotation = self.rotation_channel(body, kind(byte, 0), byte >> 6, || d.get(j).rotation);
        let translation = self.channel(body, kind(byte, 1), || d.get(j).translation);
        let scale = if has_scale {
            self.channel(body, kind(byte, 2), || d.get(j).scale)
        } else {
            Vec3::ONE
        };
        Transform {
            rotation,
            translation,
            scale,
        }
    }
}

/// The case ([`ONE`], [`PAIR`] or [`TWO`]) of `key`.
#[inline(always)]
fn case(seg_len: u32, key: &SampleKey) -> u8 {
    if key.i1 == key.i0 || key.alpha <= 0.0 {
        ONE
    } else if key.i0 / seg_len == key.i1 / seg_len {
        PAIR
    } else {
        TWO
    }
}

/// The decoding state for a key at the start of the body, for case `M` (`key`'s case, or
/// [`ANY`]); `whole` (`Some(sample count)` for a whole pose, which has prefetched its segment
/// table entries already) prefetches what the cursors will read.
#[inline(always)]
fn state<const M: u8>(body: Body, v: &View, key: &SampleKey, whole: Option<u32>) -> State<M> {
    let case = case(v.seg_len, key);
    debug_assert!(M == ANY || M == case);
    let (c0, c1) = match case {
        ONE => {
            let c = Cursor::new(body, v, key.i0, None, whole);
            (c, c)
        }
        PAIR => {
            let c = Cursor::new(body, v, key.i0, Some(key.i1), whole);
            (c, c)
        }
        _ => (
            Cursor::new(body, v, key.i0, None, whole),
            Cursor::new(body, v, key.i1, None, whole),
        ),
    };
    State {
        constants: v.constants,
        ranges: v.ranges,
        c0,
        c1,
        two: case == TWO,
        alpha: key.alpha,
        pending: false,
        second: Quat::IDENTITY,
    }
}

/// Rotation blends a walk defers before finishing them in one pass. A blend (a square root and
/// a division) ends a long chain of dependent steps (unpacking, coefficients, the rebuild and its
/// square root); in the middle of a joint's decode the CPU cannot overlap that chain with the next
/// joint's, while in a pass of their own consecutive blends overlap. 8 measured best of 4, 8, 16
/// and 32 (a 22-joint pose pays for the buffers too).
const CHUNK: usize = 8;
const _: () = assert!(CHUNK.is_power_of_two());

/// Rotation blends a walk left undone (see [`State::pending`]): the output slot whose rotation
/// holds the first sample, the second sample, for up to [`CHUNK`] joints; [`Blends::flush`]
/// finishes them with the same arithmetic as an immediate blend (bit for bit the same result).
struct Blends {
    slots: [usize; CHUNK],
    second: [Quat; CHUNK],
    len: usize,
}

impl Blends {
    fn new() -> Blends {
        Blends {
            slots: [0; CHUNK],
            second: [Quat::IDENTITY; CHUNK],
            len: 0,
        }
    }

    /// Records the blend `st` left pending for `slot`, if any, and finishes the recorded ones
    /// when [`CHUNK`] are waiting.
    #[inline(always)]
    fn take<const M: u8>(&mut self, st: &mut State<M>, slot: usize, out: &mut PoseOut) {
        // Written whether or not a blend is pending (no branch); counted only if one is.
        // `len < CHUNK` here (a full buffer is flushed at once); the mask drops the bounds check.
        self.slots[self.len & (CHUNK - 1)] = slot;
        self.second[self.len & (CHUNK - 1)] = st.second;
        self.len += st.pending as usize;
        st.pending = false;
        if self.len == CHUNK {
            self.flush(out, st.alpha);
        }
    }

    /// Blends every recorded rotation into `out`.
    #[inline(always)]
    fn flush(&mut self, out: &mut PoseOut, alpha: f32) {
        for (&slot, &q1) in self.slots[..self.len].iter().zip(&self.second) {
            let r = &mut out.data[slot * out.stride..][..4];
            let q = nlerp_shortest(Quat::from_slice(r), q1, alpha);
            r.copy_from_slice(&q.to_array());
        }
        self.len = 0;
    }
}

/// Samples every joint.
pub fn sample_pose(
    h: &Header,
    bytes: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    out: &mut PoseOut,
) {
    // A validated body is at least its 32-byte header.
    let Some(body) = Body::new(bytes) else {
        return;
    };
    // The segment table entries first: known from the hint, they need not wait for the body
    // header (on a cold pose, one cache miss less in the chain).
    prefetch_segment_entries(body, hint.first as usize, hint.stride, key);
    let v = View::read(bytes);
    let table = &body.bytes()[v.tracks..v.tracks + h.num_joints as usize];
    // Everything a whole pose reads, in the order the misses would chain: the segment table
    // entries (the cursors wait on them), the per-clip sections (track table, constants, clip
    // ranges) and the bind pose. Not the caller's pose buffer: it is written, not read, and
    // prefetching it cost more than it saved (A/B 1.02-1.04x warm without it).
    prefetch(body.bytes(), v.tracks, v.segments);
    if let Some(b) = d.bind_pose {
        prefetch_floats(b);
    }
    match case(v.seg_len, key) {
        PAIR => pose::<PAIR>(body, &v, table, h, key, d, out),
        TWO => pose::<TWO>(body, &v, table, h, key, d, out),
        _ => pose::<ONE>(body, &v, table, h, key, d, out),
    }
}

/// The walk of [`sample_pose`] for `key`'s case `M`.
#[inline(always)]
fn pose<const M: u8>(
    body: Body,
    v: &View,
    table: &[u8],
    h: &Header,
    key: &SampleKey,
    d: &Defaults,
    out: &mut PoseOut,
) {
    let has_scale = h.has(BlobFlags::HAS_SCALE);
    let mut st = state::<M>(body, v, key, Some(h.num_samples));
    let mut blends = Blends::new();
    for (j, &byte) in table.iter().enumerate() {
        let t = st.joint(body, byte, j, has_scale, d);
        out.write(j, &t);
        blends.take(&mut st, j, out);
    }
    blends.flush(out, st.alpha);
}

/// Samples one joint.
pub fn sample_joint(
    h: &Header,
    bytes: &[u8],
    key: &SampleKey,
    joint: usize,
    d: &Defaults,
) -> Transform {
    let Some(body) = Body::new(bytes) else {
        return Transform::IDENTITY;
    };
    let v = View::read(bytes);
    let has_scale = h.has(BlobFlags::HAS_SCALE);
    let table = &body.bytes()[v.tracks..v.tracks + h.num_joints as usize];
    let mut st = state::<ANY>(body, &v, key, None);
    st.advance(body, &table[..joint]);
    let t = st.joint(body, table[joint], joint, has_scale, d);
    st.finish(t)
}

/// Samples the joints of `sel` (checked by the caller) in one forward walk over the body while
/// the list ascends; a joint below the previous one restarts the walk.
pub fn sample_joints(
    h: &Header,
    bytes: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    sel: &JointSelection,
    out: &mut PoseOut,
) {
    let Some(body) = Body::new(bytes) else {
        return;
    };
    // Every channel of every joint, in order, into its own slot: that is the whole pose.
    if sel.channels == CHANNELS_ALL
        && sel.slots.is_none()
        && sel.joints.len() == h.num_joints as usize
        && sel.joints.iter().enumerate().all(|(i, &j)| j as usize == i)
    {
        return sample_pose(h, bytes, hint, key, d, out);
    }
    // A copy of the walk for rotations only (what a retargeting engine asks for), where the
    // mask's branches fold away, and one reading the mask at run time for the other masks. A
    // copy is a whole decoder (21 KB of stripped code), so not one per mask.
    let f = match sel.channels {
        CHANNEL_ROTATION => select::<CHANNEL_ROTATION>,
        _ => select::<0>,
    };
    f(h, body, key, d, sel, out)
}

/// [`sample_joints`] for channel mask `CH` (0: the mask of `sel`, read at run time).
fn select<const CH: u32>(
    h: &Header,
    body: Body,
    key: &SampleKey,
    d: &Defaults,
    sel: &JointSelection,
    out: &mut PoseOut,
) {
    let channels = if CH == 0 { sel.channels } else { CH };
    let v = View::read(body.bytes());
    let has_scale = h.has(BlobFlags::HAS_SCALE);
    let table = &body.bytes()[v.tracks..v.tracks + h.num_joints as usize];
    let mut st = state::<ANY>(body, &v, key, None);
    let mut blends = Blends::new();
    // Slots from `fresh` on have not been written yet. A pending blend is finished in place
    // later, so before a slot is written again (a list whose slots do not ascend), the pending
    // ones are finished: the last write to a slot stays the last.
    let mut fresh = 0usize;
    let mut at = 0usize;
    for (i, &j) in sel.joints.iter().enumerate() {
        let j = j as usize;
        if j != at {
            // Not the next joint: skip forward to it, or restart the walk for an earlier one.
            if j < at {
                st = state::<ANY>(body, &v, key, None);
                at = 0;
            }
            st.advance(body, &table[at..j]);
        }
        let t = st.joint_channels(body, table[j], j, has_scale, d, channels);
        let slot = sel.slot(i);
        if slot < fresh {
            blends.flush(out, st.alpha);
        }
        fresh = fresh.max(slot + 1);
        out.write_channels(slot, &t, channels);
        blends.take(&mut st, slot, out);
        at = j + 1;
    }
    blends.flush(out, st.alpha);
}

/// The [`FOOTPRINT`]s of `bytes` summed, field by field. The four counts are summed as the 16-bit
/// lanes of one `u64` (one add per byte) and unpacked every 1023 bytes: a byte adds at most 64 to
/// a lane (the clip ranges of a rotation, a translation and a scale), so no lane overflows.
#[inline]
fn footprint(bytes: &[u8]) -> [usize; 4] {
    let mut total = [0usize; 4];
    for chunk in bytes.chunks(1023) {
        let sum: u64 = chunk.iter().map(|&b| FOOTPRINT_LANES[b as usize]).sum();
        for (i, t) in total.iter_mut().enumerate() {
            *t += ((sum >> (16 * i)) & 0xFFFF) as usize;
        }
    }
    total
}

/// [`FOOTPRINT`] with the four counts as the 16-bit lanes of a `u64` (lane 0 first).
const FOOTPRINT_LANES: [u64; 256] = {
    let mut t = [0u64; 256];
    let mut b = 0;
    while b < 256 {
        let f = FOOTPRINT[b];
        t[b] = f[0] as u64 | (f[1] as u64) << 16 | (f[2] as u64) << 32 | (f[3] as u64) << 48;
        b += 1;
    }
    t
};

/// What one track-table byte occupies: (animated sub-tracks, per-segment-drop rotations,
/// constant bytes, clip range bytes). Indexed by the byte; scale kinds count as stored (the
/// validator refuses stored scale in a blob without scale).
const FOOTPRINT: [[u8; 4]; 256] = {
    let mut t = [[0u8; 4]; 256];
    let mut b = 0;
    while b < 256 {
        let mut ch = 0;
        while ch < 3 {
            let k = ((b >> (2 * ch)) & 3) as u8;
            if k == KIND_CONSTANT {
                t[b][2] += if ch == 0 { 16 } else { 12 };
            } else if k == KIND_ANIMATED || (k == KIND_ANIMATED_PER_SEGMENT && ch == 0) {
                t[b][0] += 1;
                if k == KIND_ANIMATED_PER_SEGMENT {
                    t[b][1] += 1;
                    t[b][3] += ROTATION_RANGE_BYTES as u8;
                } else if ch == 0 {
                    t[b][3] += ROTATION_RANGE_BYTES as u8 - 4;
                } else {
                    t[b][3] += VECTOR_RANGE_BYTES as u8;
                }
            }
            ch += 1;
        }
        b += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::quantize::bits::read_bits;

    #[test]
    #[cfg(feature = "compress")]
    fn frames_are_estimated_within_a_byte_from_segment_sizes() {
        use crate::offline::clip::{generate_clip, GenerateOptions};
        // 150 samples: the last segment is shorter than the others.
        let clip = generate_clip(&GenerateOptions {
            joints: 12,
            samples: 150,
            scale: true,
            animated_translation: true,
            seed: 5,
            ..Default::default()
        });
        let settings = crate::CompressSettings {
            codec: crate::CodecChoice::Vbr,
            ..Default::default()
        };
        let blob = crate::compress(&clip, &settings).unwrap();
        let h = Header::parse(&blob).unwrap();
        let bytes = &blob[h.body_range()];
        let body = Body::new(bytes).unwrap();
        let v = View::read(bytes);
        assert!(v.num_segments > 2 && !h.num_samples.is_multiple_of(v.seg_len));
        for s in 0..h.num_samples {
            let c = Cursor::new(body, &v, s, None, None);
            let seg = s / v.seg_len;
            let off = v.segment_offset(bytes, seg);
            // The premise: this level stores every sample.
            assert_eq!(c.t, 0.0, "sample {s} was dropped");
            let data = v.frames_offset(off);
            let est = estimated_frame(body, &v, seg, data, s - seg * v.seg_len, h.num_samples);
            let exact = c.a_bit / 8;
            assert!(
                est == exact || est == exact + 1,
                "sample {s}: {est} vs {exact}"
            );
        }
    }

    #[test]
    fn rate_sums_match_one_field_at_a_time() {
        let mut x = 0x1234_5678_9ABC_DEF1u64;
        let data: Vec<u8> = (0..256)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Keep rate indices valid (< 24) by clearing each byte's top bit now and then.
                (x >> 32) as u8 & 0xBF
            })
            .collect();
        for start in 0..40usize {
            for count in 0..120usize {
                let naive: usize = (0..count)
                    .map(|k| {
                        let r = read_bits(&data, start + 5 * k, 5) as usize;
                        if r < NUM_RATES {
                            RATE_BITS[r] as usize
                        } else {
                            0
                        }
                    })
                    .sum();
                assert_eq!(
                    sum_rate_bits(Body::new(&data).unwrap(), start, count),
                    naive,
                    "{start} {count}"
                );
            }
        }
    }

    #[test]
    fn footprint_sums_match_the_table() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for len in [0usize, 1, 7, 100, 1022, 1023, 1024, 3000, 70_000] {
            let bytes: Vec<u8> = (0..len)
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    // Runs of even length use the widest byte only (a per-segment rotation, an
                    // animated translation and scale: 64 bytes of clip ranges); the others
                    // random bytes.
                    if len % 2 == 0 {
                        0b00_10_10_11
                    } else {
                        (x >> (24 + i % 8)) as u8
                    }
                })
                .collect();
            let mut naive = [0usize; 4];
            for &b in &bytes {
                for k in 0..4 {
                    naive[k] += FOOTPRINT[b as usize][k] as usize;
                }
            }
            assert_eq!(footprint(&bytes), naive, "{len} bytes");
        }
        assert_eq!(FOOTPRINT[0b00_10_10_11], [3, 1, 0, 64]);
        assert_eq!(FOOTPRINT.iter().map(|f| f[3]).max(), Some(64));
    }

    #[test]
    fn any_raw_is_any_field_raw() {
        for rates in 0..1u32 << 15 {
            let naive = (0..3).any(|c| (rates >> (5 * c)) & 31 == RATE_RAW as u32);
            assert_eq!(any_raw(rates), naive, "{rates:#x}");
        }
    }

    #[test]
    fn keyframe_positions() {
        let mask = 0b1000_1001u32;
        assert_eq!(keyframe_position(mask, 0), (0, 0.0));
        assert_eq!(keyframe_position(mask, 3), (1, 0.0));
        assert_eq!(keyframe_position(mask, 1), (0, 1.0 / 3.0));
        assert_eq!(keyframe_position(mask, 5), (1, 0.5));
        assert_eq!(keyframe_position(mask, 7), (2, 0.0));
    }
}
