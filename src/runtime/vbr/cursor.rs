//! The cursor: the reading position of one sample (or two samples of one segment) in one
//! segment. It resolves the keyframe mask (a dropped sample is the linear blend of its stored
//! neighbours, computed on the stored components), then yields each animated sub-track's three
//! components in joint order, computing the sub-track's coefficients from its rates, segment
//! range fields and clip ranges ([`Params`]).

use super::lanes;
use super::prefetch::prefetch_frames_early;
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::vbr::bitrate::{
    inv_max_q, rate_bits, NUM_RATES, RATE_BITS, RATE_FIELD_BITS, RATE_RAW,
};
use crate::format::vbr::layout::{View, SEGMENT_HEADER};
use crate::runtime::body::Body;
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
    let low = (1u32 << local) - 1;
    let below = mask & low;
    if mask & (1u32 << local) != 0 {
        // Every sample before it stored (the encoder keeps every key unless told otherwise):
        // its index without the count, which is a software loop on the x86-64 baseline.
        return (
            if below == low {
                local
            } else {
                below.count_ones()
            },
            0.0,
        );
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
pub(super) struct Params {
    pub(super) bits: [u32; 3],
    pub(super) mul: Vec4,
    pub(super) add: Vec4,
    /// The three 5-bit rate indices, component 0 lowest.
    pub(super) rates: u32,
    /// Whether any component is stored as raw `f32` bits.
    pub(super) any_raw: bool,
    /// Sum of `bits`.
    pub(super) total: u32,
}

impl Params {
    /// Components from stored fields (lanes 0..2). A raw `f32` (the only way a blob can hold a
    /// non-finite or out-of-range value: quantised values are bounded by their validated ranges)
    /// is clamped to `[-limit, limit]`, a NaN to `-limit`.
    #[inline(always)]
    pub(super) fn values(&self, q: [u32; 3], limit: f32) -> Vec4 {
        let v = lanes::values(q, self.mul, self.add);
        if self.any_raw {
            let raw =
                [0, 1, 2].map(|c| (self.rates >> (c * RATE_FIELD_BITS)) & 31 == RATE_RAW as u32);
            lanes::with_raw(v, q, raw, limit)
        } else {
            v
        }
    }
}

/// Whether any of the three 5-bit rate indices in `rates` (15 bits) is [`RATE_RAW`]: a zero-field
/// test on `rates` XOR three copies of it (exact for "any": without a zero field nothing borrows).
#[inline(always)]
pub(super) fn any_raw(rates: u32) -> bool {
    const LOW: u32 = 1 | 1 << 5 | 1 << 10;
    let x = rates ^ (RATE_RAW as u32 * LOW);
    (x.wrapping_sub(LOW) & !x & (LOW << 4)) != 0
}

/// Bits of one frame taken by sub-tracks whose 5-bit rate pairs are indexed by 10 bits.
pub(super) const PAIR_BITS: [u8; 1024] = {
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
pub(super) fn sum_rate_bits(data: Body, mut bit: usize, mut count: usize) -> usize {
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

/// Three consecutive bit fields of widths `bits` starting at absolute bit `bit`.
#[inline(always)]
pub(super) fn read3(data: Body, bit: usize, p: &Params) -> [u32; 3] {
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

/// The stored sample at `bit` of a segment whose frames are `frame_bits` long, blended `t` of the
/// way to the next stored sample (a dropped keyframe).
#[inline(always)]
pub(super) fn sample_at(
    body: Body,
    bit: usize,
    t: f32,
    frame_bits: usize,
    p: &Params,
    limit: f32,
) -> Vec4 {
    let out = p.values(read3(body, bit, p), limit);
    if t > 0.0 {
        // `lerp` per lane.
        let next = p.values(read3(body, bit + frame_bits, p), limit);
        return out + (next - out) * t;
    }
    out
}

/// Segment `seg`'s keyframe mask, frame size in bits and the byte where its stored frames start.
#[inline(always)]
pub(super) fn segment_frames(body: Body, v: &View, seg: u32) -> (u32, usize, usize) {
    let off = body.u32(v.segments + 4 * seg as usize) as usize;
    (
        body.u32(off),
        body.u32(off + 4) as usize,
        v.frames_offset(off),
    )
}

/// The clip ranges (min, extent) of the translation or scale whose ranges are at `rg`: three
/// (min, extent) pairs of `f32`, 24 bytes in two reads.
#[inline(always)]
pub(super) fn vector_ranges(body: Body, rg: usize) -> (Vec4, Vec4) {
    lanes::vector_ranges(body.u128(rg), body.u64(rg + 16))
}

/// Reading position in one segment for one sample, or for two samples of the same segment
/// (`pair`), which then share the rate, range and field reads.
#[derive(Clone, Copy)]
pub(super) struct Cursor {
    /// Bit position of the next sub-track's rates.
    rate_bit: usize,
    /// Bit position of the next per-segment rotation's dropped component.
    drop_bit: usize,
    /// Byte position of the next sub-track's range fields.
    fields: usize,
    frame_bits: usize,
    /// Bit position and keyframe blend of the first sample.
    pub(super) a_bit: usize,
    pub(super) t: f32,
    /// Bit position and keyframe blend of the second sample (when `pair`).
    b_bit: usize,
    tb: f32,
    pub(super) pair: bool,
}

impl Cursor {
    #[inline(always)]
    pub(super) fn new(
        body: Body,
        v: &View,
        sample: u32,
        second: Option<u32>,
        fetch: Option<u32>,
    ) -> Cursor {
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

    /// A cursor at the first sub-track of segment `seg` (its sample positions unused).
    #[inline]
    pub(super) fn at_segment(body: Body, v: &View, seg: u32) -> Cursor {
        Cursor::new(body, v, seg * v.seg_len, None, None)
    }

    /// Skips `count` animated sub-tracks, `per_segment` of which have per-segment drops.
    #[inline]
    pub(super) fn skip(&mut self, body: Body, count: usize, per_segment: usize) {
        let bits = sum_rate_bits(body, self.rate_bit, 3 * count);
        self.a_bit += bits;
        self.b_bit += bits;
        self.rate_bit += 3 * RATE_FIELD_BITS as usize * count;
        self.fields += 6 * count;
        self.drop_bit += 2 * per_segment;
    }

    /// The dropped component of the next per-segment rotation.
    #[inline(always)]
    pub(super) fn next_drop(&mut self, body: Body) -> u8 {
        let c = body.bits(self.drop_bit, 2) as u8;
        self.drop_bit += 2;
        c
    }

    /// [`sample_at`] with this segment's frame size.
    #[inline(always)]
    pub(super) fn sample(&self, body: Body, bit: usize, t: f32, p: &Params, limit: f32) -> Vec4 {
        sample_at(body, bit, t, self.frame_bits, p, limit)
    }

    /// The next animated sub-track's decode in this segment ([`Params`]) from its rates and
    /// segment range fields, and `min`, `extent`, its clip ranges (`ranges[i]` of stored slot
    /// `i`); moves past its rates and fields.
    #[inline(always)]
    pub(super) fn params(&mut self, body: Body, min: Vec4, extent: Vec4) -> Params {
        let rates = body.bits(self.rate_bit, 3 * RATE_FIELD_BITS);
        let fields = body.u64(self.fields);
        let rate = |c: u32| ((rates >> (c * RATE_FIELD_BITS)) & ((1 << RATE_FIELD_BITS) - 1)) as u8;
        let r = [rate(0), rate(1), rate(2)];
        let inv_q = Vec4::new(inv_max_q(r[0]), inv_max_q(r[1]), inv_max_q(r[2]), 0.0);
        let (mul, add) = lanes::coefficients(inv_q, fields, min, extent);
        let bits = r.map(rate_bits);
        self.rate_bit += 3 * RATE_FIELD_BITS as usize;
        self.fields += 6;
        Params {
            bits,
            mul,
            add,
            rates,
            any_raw: any_raw(rates),
            total: bits[0] + bits[1] + bits[2],
        }
    }

    /// The next animated sub-track's three components for the first sample, and for the second
    /// when `pair`; `min` and `extent` are its clip ranges ([`Cursor::params`]). The flag is true
    /// when the sub-track is constant over this segment (every rate 0: both samples are the same
    /// value).
    #[inline(always)]
    pub(super) fn next(
        &mut self,
        body: Body,
        min: Vec4,
        extent: Vec4,
        limit: f32,
        pair: bool,
    ) -> (Vec4, Vec4, bool) {
        let p = self.params(body, min, extent);
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

    /// The clip ranges (min, extent) of the next animated rotation's three stored components
    /// and its dropped component (read from the segment for a per-segment drop, else
    /// `track_drop`). `rg` is its clip ranges' offset.
    #[inline(always)]
    pub(super) fn rotation_ranges(
        &mut self,
        body: Body,
        rg: usize,
        per_segment: bool,
        track_drop: u8,
    ) -> (Vec4, Vec4, u8) {
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
        let (min, extent) = lanes::rotation_ranges(block);
        (min, extent, c)
    }

    /// The next animated rotation's stored components (and the second sample's when `pair`,
    /// else the first again), its dropped component, and whether it is constant over the segment
    /// (both samples the same). `rg` is its clip ranges' offset.
    #[inline(always)]
    pub(super) fn rotation(
        &mut self,
        body: Body,
        rg: usize,
        per_segment: bool,
        track_drop: u8,
        pair: bool,
    ) -> (Vec4, Vec4, u8, bool) {
        let (min, extent, c) = self.rotation_ranges(body, rg, per_segment, track_drop);
        let (a, b, same) = self.next(body, min, extent, 1.0, pair);
        (a, b, c, same)
    }

    /// The next animated translation or scale (and the second sample's when `pair`). `rg` is
    /// its clip ranges' offset.
    #[inline(always)]
    pub(super) fn vector(&mut self, body: Body, rg: usize, pair: bool) -> (Vec4, Vec4) {
        let (min, extent) = vector_ranges(body, rg);
        let (a, b, _) = self.next(body, min, extent, MAX_ABS_VALUE, pair);
        (a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::quantize::bits::read_bits;
    #[test]
    pub(super) fn rate_sums_match_one_field_at_a_time() {
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
    pub(super) fn any_raw_is_any_field_raw() {
        for rates in 0..1u32 << 15 {
            let naive = (0..3).any(|c| (rates >> (5 * c)) & 31 == RATE_RAW as u32);
            assert_eq!(any_raw(rates), naive, "{rates:#x}");
        }
    }

    #[test]
    pub(super) fn keyframe_positions() {
        let mask = 0b1000_1001u32;
        assert_eq!(keyframe_position(mask, 0), (0, 0.0));
        assert_eq!(keyframe_position(mask, 3), (1, 0.0));
        assert_eq!(keyframe_position(mask, 1), (0, 1.0 / 3.0));
        assert_eq!(keyframe_position(mask, 5), (1, 0.5));
        assert_eq!(keyframe_position(mask, 7), (2, 0.0));
    }

    /// A stored sample's index is the count of stored samples before it, with or without the
    /// shortcut for a segment whose samples before it are all stored (every mask of a 16-sample
    /// segment, every stored sample; and 32-sample segments at their ends).
    #[test]
    fn a_stored_sample_index_is_the_count_before_it() {
        let check = |mask: u32, local: u32| {
            if mask & (1 << local) != 0 {
                let count = (mask & ((1u32 << local) - 1)).count_ones();
                assert_eq!(
                    keyframe_position(mask, local),
                    (count, 0.0),
                    "{mask:#x} {local}"
                );
            }
        };
        for mask in (0..1u32 << 16).filter(|m| m & 1 != 0 && m & (1 << 15) != 0) {
            (0..16).for_each(|local| check(mask, local));
        }
        for mask in [u32::MAX, u32::MAX - 2, 0x8000_0001, 0xFFFF_0FFF] {
            (0..32).for_each(|local| check(mask, local));
        }
    }
}

#[cfg(all(test, feature = "compress"))]
mod prefetch_tests {
    //! The prefetch estimates against the cursor's reads (here, so that imports flow one way:
    //! the cursor uses the prefetches).
    use super::*;
    use crate::format::Header;
    use crate::runtime::vbr::prefetch::*;
    #[test]
    #[cfg(feature = "compress")]
    pub(super) fn frames_are_estimated_within_a_byte_from_segment_sizes() {
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
}
