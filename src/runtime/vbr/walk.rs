//! The walk: decoding state over the body for one key (running positions in the constants and
//! clip ranges, one or two [`Cursor`]s), joint by joint in track-table order, and the skips that
//! move past joints without decoding them ([`footprint`]).

use super::cursor::Cursor;
use super::lanes::from_stored;
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::vbr::layout::{
    constant_bytes, kind, range_bytes_of, View, KIND_ANIMATED, KIND_ANIMATED_PER_SEGMENT,
    KIND_CONSTANT, KIND_DEFAULT, ROTATION_RANGE_BYTES, VECTOR_RANGE_BYTES,
};
use crate::math::{nlerp_shortest, Quat, Transform, Vec3};
use crate::runtime::body::Body;
use crate::runtime::{Defaults, SampleKey, CHANNELS_ALL};
use glam::Vec4;

/// A decoded translation or scale within the clip value limits. Quantised values of a hostile
/// blob may overshoot them (a validated clip range and 8-bit segment fractions bound them to
/// three times the limit); values the encoder wrote are within them already, so this never moves
/// them. Packed `min`/`max` (one instruction each on SSE2).
#[inline(always)]
pub(super) fn clamp_value(v: Vec4) -> Vec3 {
    let m = Vec4::splat(MAX_ABS_VALUE);
    v.max(-m).min(m).truncate()
}

/// A constant rotation (4 x `f32`).
#[inline(always)]
pub(super) fn read_quat(body: Body, o: usize) -> Quat {
    Quat::from_vec4(body.f32x4(o))
}

/// A constant translation or scale (3 x `f32`, read with the next 4 bytes: a constant is always
/// followed by more of the body, the clip ranges or the segment table).
#[inline(always)]
pub(super) fn read_vec(body: Body, o: usize) -> Vec3 {
    body.f32x4(o).truncate()
}

/// How a key's samples are read: one sample (no blend).
pub(super) const ONE: u8 = 0;
/// Two samples in one segment, read by one cursor (15 keys in 16 with 16-sample segments).
pub(super) const PAIR: u8 = 1;
/// Two samples in different segments, a cursor each.
pub(super) const TWO: u8 = 2;
/// One of the three, told at run time: one copy of the code for subsets and single joints.
pub(super) const ANY: u8 = 3;

/// Running byte positions in the constants and clip ranges, and the cursors: `c0` reads the
/// first sample (and the second when it is a pair); `c1` the second sample when it lies in
/// another segment. `M` is the case ([`ONE`], [`PAIR`], [`TWO`] or [`ANY`]): a whole pose has a
/// copy of the walk per case, with the branches on the case folded away.
pub(super) struct State<const M: u8> {
    constants: usize,
    ranges: usize,
    c0: Cursor,
    /// Meaningful only when `two`.
    c1: Cursor,
    two: bool,
    pub(super) alpha: f32,
    /// Whether the last rotation returned is the first sample of a blend left undone, whose
    /// second sample is `second`: walks finish blends in a pass of their own ([`Blends`]), a
    /// single joint at once ([`State::finish`]).
    pub(super) pending: bool,
    pub(super) second: Quat,
}

impl<const M: u8> State<M> {
    /// Whether `c0` reads both samples.
    #[inline(always)]
    pub(super) fn pair(&self) -> bool {
        match M {
            PAIR => true,
            ONE | TWO => false,
            _ => self.c0.pair,
        }
    }

    /// Whether `c1` reads the second sample.
    #[inline(always)]
    pub(super) fn two(&self) -> bool {
        match M {
            TWO => true,
            ONE | PAIR => false,
            _ => self.two,
        }
    }

    /// The next animated rotation. A blend is left undone: the first sample is returned and the
    /// second kept in `second` (`pending` set).
    #[inline(always)]
    pub(super) fn rotation(&mut self, body: Body, kind: u8, track_drop: u8) -> Quat {
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
    pub(super) fn finish(&mut self, mut t: Transform) -> Transform {
        if std::mem::take(&mut self.pending) {
            t.rotation = nlerp_shortest(t.rotation, self.second, self.alpha);
        }
        t
    }

    /// The next animated translation or scale, interpolated.
    #[inline(always)]
    pub(super) fn vector(&mut self, body: Body) -> Vec3 {
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
    pub(super) fn channel(&mut self, body: Body, kind: u8, default: impl Fn() -> Vec3) -> Vec3 {
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
    pub(super) fn advance(&mut self, body: Body, bytes: &[u8]) {
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
    pub(super) fn skip_masked(&mut self, body: Body, masked: u8) {
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
    pub(super) fn joint_channels(
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
    pub(super) fn rotation_channel(
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
    pub(super) fn joint(
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
pub(super) fn case(seg_len: u32, key: &SampleKey) -> u8 {
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
pub(super) fn state<const M: u8>(
    body: Body,
    v: &View,
    key: &SampleKey,
    whole: Option<u32>,
) -> State<M> {
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

/// The [`FOOTPRINT`]s of `bytes` summed, field by field. The four counts are summed as the 16-bit
/// lanes of one `u64` (one add per byte) and unpacked every 1023 bytes: a byte adds at most 64 to
/// a lane (the clip ranges of a rotation, a translation and a scale), so no lane overflows.
#[inline]
pub(super) fn footprint(bytes: &[u8]) -> [usize; 4] {
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
pub(super) const FOOTPRINT_LANES: [u64; 256] = {
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
pub(super) const FOOTPRINT: [[u8; 4]; 256] = {
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

    #[test]
    pub(super) fn footprint_sums_match_the_table() {
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
}
