//! Decoding: whole poses and single joints from a validated body, without allocation.
//!
//! A [`Cursor`] walks one sample of one segment: it resolves the keyframe mask (a dropped sample
//! is the linear blend of its stored neighbours, computed on the stored components), then yields
//! each animated sub-track's three components in joint order. A pose between two samples uses two
//! cursors (the samples may lie in different segments) and blends the results: `nlerp` on the
//! shortest arc for rotations, `lerp` for vectors.

use super::bitrate::{dequantize, rate_bits, rotation_range, ClipRange, RATE_FIELD_BITS};
use super::layout::{
    constant_bytes, kind, range_bytes_of, View, KIND_ANIMATED, KIND_ANIMATED_PER_SEGMENT,
    KIND_CONSTANT, KIND_DEFAULT, SEGMENT_HEADER, VECTOR_RANGE_BYTES,
};
use super::rotation::{from_stored, slot_component};
use crate::blob::bytes::{read_f32, read_u16, read_u32};
use crate::blob::{BlobFlags, Header};
use crate::codec::{Defaults, PoseOut, SampleKey};
use crate::math::{nlerp_shortest, Quat, Transform, Vec3};
use crate::quantize::bits::read_bits;

/// Linear blend used for dropped keyframes (encoder and decoder share it bit for bit).
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

/// One sub-track's per-segment storage, read once per pose.
struct Decoded {
    rates: [u8; 3],
    bits: [u32; 3],
    fields: [u16; 3],
    ranges: [ClipRange; 3],
}

/// Eight bytes at `offset` as a little-endian `u64` (zero past the end, never out of bounds).
#[inline(always)]
fn read_u64_window(data: &[u8], offset: usize) -> u64 {
    match data.get(offset..offset + 8) {
        Some(w) => u64::from_le_bytes(w.try_into().unwrap()),
        None => {
            let mut w = [0u8; 8];
            if offset < data.len() {
                let tail = &data[offset..];
                w[..tail.len()].copy_from_slice(tail);
            }
            u64::from_le_bytes(w)
        }
    }
}

/// Three consecutive bit fields of widths `bits` starting at absolute bit `bit`.
#[inline(always)]
fn read3(data: &[u8], bit: usize, bits: &[u32; 3]) -> [u32; 3] {
    let total = bits[0] + bits[1] + bits[2];
    if total <= 56 {
        let w = read_u64_window(data, bit >> 3) >> (bit & 7);
        let m = |b: u32| (1u64 << b) - 1;
        [
            (w & m(bits[0])) as u32,
            ((w >> bits[0]) & m(bits[1])) as u32,
            ((w >> (bits[0] + bits[1])) & m(bits[2])) as u32,
        ]
    } else {
        [
            read_bits(data, bit, bits[0]),
            read_bits(data, bit + bits[0] as usize, bits[1]),
            read_bits(data, bit + (bits[0] + bits[1]) as usize, bits[2]),
        ]
    }
}

/// Reading position in one segment for one sample, or for two samples of the same segment
/// (`pair`), which then share the rate, range and field reads.
#[derive(Clone, Copy)]
struct Cursor {
    rates_bit: usize,
    drops_bit: usize,
    fields: usize,
    frame_bits: usize,
    /// Bit position and keyframe blend of the first sample.
    a_bit: usize,
    t: f32,
    /// Bit position and keyframe blend of the second sample (when `pair`).
    b_bit: usize,
    tb: f32,
    pair: bool,
    /// Rate index (component) position.
    k: usize,
    /// Animated sub-track position.
    f: usize,
    /// Per-segment-drop rotation position.
    p: usize,
}

impl Cursor {
    #[inline(always)]
    fn new(body: &[u8], v: &View, sample: u32, second: Option<u32>) -> Cursor {
        let seg = sample / v.seg_len;
        let local = sample - seg * v.seg_len;
        let off = v.segment_offset(body, seg);
        let mask = read_u32(body, off);
        let frame_bits = read_u32(body, off + 4) as usize;
        let rates = off + SEGMENT_HEADER;
        let fields = rates + v.rate_bytes();
        let data_bit = (fields + v.num_animated as usize * 6) * 8;
        let (idx, t) = keyframe_position(mask, local);
        let (b_bit, tb, pair) = match second {
            Some(s2) => {
                let (idx2, t2) = keyframe_position(mask, s2 - seg * v.seg_len);
                (data_bit + idx2 as usize * frame_bits, t2, true)
            }
            None => (0, 0.0, false),
        };
        Cursor {
            rates_bit: rates * 8,
            drops_bit: rates * 8 + 3 * v.num_animated as usize * RATE_FIELD_BITS as usize,
            fields,
            frame_bits,
            a_bit: data_bit + idx as usize * frame_bits,
            t,
            b_bit,
            tb,
            pair,
            k: 0,
            f: 0,
            p: 0,
        }
    }

    /// Skips `count` animated sub-tracks, `per_segment` of which have per-segment drops.
    #[inline]
    fn skip(&mut self, body: &[u8], count: usize, per_segment: usize) {
        for _ in 0..3 * count {
            let rate = read_bits(
                body,
                self.rates_bit + self.k * RATE_FIELD_BITS as usize,
                RATE_FIELD_BITS,
            );
            let bits = rate_bits(rate as u8) as usize;
            self.a_bit += bits;
            self.b_bit += bits;
            self.k += 1;
        }
        self.f += count;
        self.p += per_segment;
    }

    /// The dropped component of the next per-segment rotation.
    #[inline(always)]
    fn next_drop(&mut self, body: &[u8]) -> u8 {
        let c = read_bits(body, self.drops_bit + 2 * self.p, 2) as u8;
        self.p += 1;
        c
    }

    /// The three stored fields of a sub-track at `bit` (widths `bits`, at most 56 bits in all
    /// use one 64-bit window), blended `t` of the way to the next stored sample.
    #[inline(always)]
    fn triple(&self, body: &[u8], bit: usize, t: f32, d: &Decoded) -> [f32; 3] {
        let q = read3(body, bit, &d.bits);
        let mut out = [0.0f32; 3];
        for c in 0..3 {
            out[c] = dequantize(q[c], d.rates[c], d.fields[c], &d.ranges[c]);
        }
        if t > 0.0 {
            let q = read3(body, bit + self.frame_bits, &d.bits);
            for c in 0..3 {
                out[c] = lerp(
                    out[c],
                    dequantize(q[c], d.rates[c], d.fields[c], &d.ranges[c]),
                    t,
                );
            }
        }
        out
    }

    /// The next animated sub-track's three components for the first sample, and for the second
    /// when `pair`; `slot_range(i)` is the clip range of stored slot `i`.
    #[inline(always)]
    fn next(
        &mut self,
        body: &[u8],
        slot_range: impl Fn(usize) -> ClipRange,
    ) -> ([f32; 3], [f32; 3]) {
        let rates = read_bits(
            body,
            self.rates_bit + self.k * RATE_FIELD_BITS as usize,
            3 * RATE_FIELD_BITS,
        );
        let fields = read_u64_window(body, self.fields + 6 * self.f);
        let mut d = Decoded {
            rates: [0; 3],
            bits: [0; 3],
            fields: [0; 3],
            ranges: [ClipRange::default(); 3],
        };
        for c in 0..3 {
            d.rates[c] =
                ((rates >> (c as u32 * RATE_FIELD_BITS)) & ((1 << RATE_FIELD_BITS) - 1)) as u8;
            d.bits[c] = rate_bits(d.rates[c]);
            d.fields[c] = (fields >> (16 * c)) as u16;
            d.ranges[c] = slot_range(c);
        }
        let out = self.triple(body, self.a_bit, self.t, &d);
        let out2 = if self.pair {
            self.triple(body, self.b_bit, self.tb, &d)
        } else {
            [0.0; 3]
        };
        let total = (d.bits[0] + d.bits[1] + d.bits[2]) as usize;
        self.a_bit += total;
        self.b_bit += total;
        self.k += 3;
        self.f += 1;
        (out, out2)
    }

    /// The next animated rotation (and the second sample's when `pair`).
    #[inline(always)]
    fn rotation(
        &mut self,
        body: &[u8],
        rg: usize,
        per_segment: bool,
        track_drop: u8,
    ) -> (Quat, Quat) {
        let c = if per_segment {
            self.next_drop(body)
        } else {
            track_drop
        };
        let (a, b) = self.next(body, |i| {
            // Per-segment drops store all four component ranges, per-track drops the stored three.
            let o = rg + 4 * if per_segment { slot_component(i, c) } else { i };
            rotation_range(read_u16(body, o), read_u16(body, o + 2))
        });
        (
            from_stored(a, c),
            if self.pair {
                from_stored(b, c)
            } else {
                Quat::IDENTITY
            },
        )
    }
}

#[inline(always)]
fn vector_range(body: &[u8], rg: usize, i: usize) -> ClipRange {
    ClipRange {
        min: read_f32(body, rg + 8 * i),
        extent: read_f32(body, rg + 8 * i + 4),
    }
}

#[inline(always)]
fn read_quat(body: &[u8], o: usize) -> Quat {
    Quat::from_xyzw(
        read_f32(body, o),
        read_f32(body, o + 4),
        read_f32(body, o + 8),
        read_f32(body, o + 12),
    )
}

#[inline(always)]
fn read_vec(body: &[u8], o: usize) -> Vec3 {
    Vec3::new(
        read_f32(body, o),
        read_f32(body, o + 4),
        read_f32(body, o + 8),
    )
}

/// Running byte positions in the constants and clip ranges.
struct Positions {
    constants: usize,
    ranges: usize,
}

/// Decodes joint `j`'s transform given its track byte; advances the positions and the cursors.
/// `c1` is the second sample's cursor when it lies in another segment than `c0`'s (else `c0` is a
/// pair or there is no second sample).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn decode_joint(
    body: &[u8],
    byte: u8,
    j: usize,
    has_scale: bool,
    pos: &mut Positions,
    c0: &mut Cursor,
    c1: Option<&mut Cursor>,
    alpha: f32,
    d: &Defaults,
) -> Transform {
    let needs_default =
        kind(byte, 0) == 0 || kind(byte, 1) == 0 || (has_scale && kind(byte, 2) == 0);
    let def = if needs_default {
        d.get(j)
    } else {
        Transform::IDENTITY
    };
    let mut c1 = c1;
    let rotation = match kind(byte, 0) {
        KIND_CONSTANT => {
            let q = read_quat(body, pos.constants);
            pos.constants += constant_bytes(0);
            q
        }
        KIND_DEFAULT => def.rotation,
        k => {
            let per_segment = k == KIND_ANIMATED_PER_SEGMENT;
            let rg = pos.ranges;
            pos.ranges += range_bytes_of(0, k);
            let (q0, q1) = c0.rotation(body, rg, per_segment, byte >> 6);
            if c0.pair {
                nlerp_shortest(q0, q1, alpha)
            } else {
                match c1.as_deref_mut() {
                    Some(c1) => {
                        nlerp_shortest(q0, c1.rotation(body, rg, per_segment, byte >> 6).0, alpha)
                    }
                    None => q0,
                }
            }
        }
    };
    let mut vector =
        |ch: u32, default: Vec3, c0: &mut Cursor, c1: Option<&mut Cursor>| match kind(byte, ch) {
            KIND_CONSTANT => {
                let x = read_vec(body, pos.constants);
                pos.constants += constant_bytes(ch);
                x
            }
            KIND_ANIMATED => {
                let rg = pos.ranges;
                pos.ranges += VECTOR_RANGE_BYTES;
                let (a, b) = c0.next(body, |i| vector_range(body, rg, i));
                let a = Vec3::from_array(a);
                if c0.pair {
                    a.lerp(Vec3::from_array(b), alpha)
                } else {
                    match c1 {
                        Some(c1) => a.lerp(
                            Vec3::from_array(c1.next(body, |i| vector_range(body, rg, i)).0),
                            alpha,
                        ),
                        None => a,
                    }
                }
            }
            _ => default,
        };
    let translation = vector(1, def.translation, c0, c1.as_deref_mut());
    let scale = if has_scale {
        vector(2, def.scale, c0, c1)
    } else {
        Vec3::ONE
    };
    Transform {
        rotation,
        translation,
        scale,
    }
}

/// The cursors for a key: one (possibly a pair) or two in different segments.
#[inline(always)]
fn cursors(body: &[u8], v: &View, key: &SampleKey) -> (Cursor, Option<Cursor>) {
    let two = key.i1 != key.i0 && key.alpha > 0.0;
    if !two {
        (Cursor::new(body, v, key.i0, None), None)
    } else if key.i0 / v.seg_len == key.i1 / v.seg_len {
        (Cursor::new(body, v, key.i0, Some(key.i1)), None)
    } else {
        (
            Cursor::new(body, v, key.i0, None),
            Some(Cursor::new(body, v, key.i1, None)),
        )
    }
}

/// Samples every joint.
pub fn sample_pose(h: &Header, body: &[u8], key: &SampleKey, d: &Defaults, out: &mut PoseOut) {
    let v = View::read(body);
    let has_scale = h.has(BlobFlags::HAS_SCALE);
    let nj = h.num_joints as usize;
    let table = &body[v.tracks..v.tracks + nj];
    let mut pos = Positions {
        constants: v.constants,
        ranges: v.ranges,
    };
    let (mut c0, mut c1) = cursors(body, &v, key);
    for (j, &byte) in table.iter().enumerate() {
        let t = decode_joint(
            body,
            byte,
            j,
            has_scale,
            &mut pos,
            &mut c0,
            c1.as_mut(),
            key.alpha,
            d,
        );
        out.write(j, &t);
    }
}

/// Samples one joint.
pub fn sample_joint(
    h: &Header,
    body: &[u8],
    key: &SampleKey,
    joint: usize,
    d: &Defaults,
) -> Transform {
    let v = View::read(body);
    let has_scale = h.has(BlobFlags::HAS_SCALE);
    let table = &body[v.tracks..v.tracks + h.num_joints as usize];
    let mut pos = Positions {
        constants: v.constants,
        ranges: v.ranges,
    };
    let (mut skip, mut per_segment) = (0usize, 0usize);
    for &b in &table[..joint] {
        for ch in 0..3 {
            match kind(b, ch) {
                KIND_CONSTANT => pos.constants += constant_bytes(ch),
                KIND_DEFAULT => {}
                k => {
                    skip += 1;
                    per_segment += (k == KIND_ANIMATED_PER_SEGMENT) as usize;
                    pos.ranges += range_bytes_of(ch, k);
                }
            }
        }
    }
    let (mut c0, mut c1) = cursors(body, &v, key);
    c0.skip(body, skip, per_segment);
    if let Some(c1) = c1.as_mut() {
        c1.skip(body, skip, per_segment);
    }
    decode_joint(
        body,
        table[joint],
        joint,
        has_scale,
        &mut pos,
        &mut c0,
        c1.as_mut(),
        key.alpha,
        d,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
