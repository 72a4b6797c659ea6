//! Joint subsets on the prototype layout, portable: each requested channel decoded alone (one
//! lane of its group, whose first bit in a frame the segment stores). Bit for bit the `vbr`
//! decoder's joints.

use super::common::{default_value, static_value};
use super::{position, Pos, Proto, View, SRC_ANIMATED, SRC_DEFAULT, SRC_STATIC};
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::vbr::bitrate::{inv_max_q, rate_bits, RATE_RAW};
use crate::math::nlerp_shortest;
use crate::runtime::vbr::cursor::PAIR_BITS;
use crate::runtime::vbr::lanes;
use crate::runtime::vbr::walk::clamp_value;
use crate::runtime::SampleKey;
use glam::Vec4;

/// Bit where group `g` starts in a frame of the segment of `pos` (stored per segment).
#[inline(always)]
fn start(p: &View, pos: &Pos, g: usize) -> usize {
    if g == 0 {
        return 0;
    }
    (read_u64(p.data, pos.meta + p.starts_at + p.start_bytes * (g - 1)) & p.start_mask) as usize
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

/// One lane's decode in one segment: the `vbr` decoder's per-sub-track arithmetic
/// (`lanes`), so its values are bit for bit that decoder's.
struct Lane {
    mul: Vec4,
    add: Vec4,
    bits: [u32; 3],
    /// Each component's field mask.
    mask: [u32; 3],
    /// Whether any component is a raw `f32`, and which.
    any_raw: bool,
    raw: [bool; 3],
    /// Bit of each component's field relative to the group's start in a frame.
    off: [usize; 3],
    drop: u8,
}

#[inline(always)]
fn lane(p: &View, seg: &Pos, g: usize, l: usize) -> Lane {
    let [rec, meta] = p.group_at[g];
    let r = rec as usize;
    let d = &p.data;
    let head = read_u64(d, r);
    let (class, n, per_segment) = (
        head as u8,
        (head >> 8) as u8 as usize,
        (head >> 16) as u8 != 0,
    );
    let m = seg.meta + meta as usize;
    let rb = (5 * n).div_ceil(8);
    let ranges = r + 24;
    let drop = if per_segment {
        (read_u64(d, m + 3 * rb + 6 * n) >> (2 * l)) as u8 & 3
    } else {
        (read_u64(d, r + 20) >> (2 * l)) as u8 & 3
    };
    let mut rates = [0u8; 3];
    let mut off = [0usize; 3];
    let mut fields = 0u64;
    let mut start = 0;
    for c in 0..3 {
        let w = read_u64(d, m + rb * c);
        rates[c] = ((w >> (5 * l)) & 31) as u8;
        off[c] = start + widths(w, l);
        start += widths(w, n);
        fields |= (read_u64(d, m + 3 * rb + 2 * n * c + 2 * l) & 0xFFFF) << (16 * c);
    }
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
    let raw = [
        rates[0] == RATE_RAW,
        rates[1] == RATE_RAW,
        rates[2] == RATE_RAW,
    ];
    Lane {
        mul,
        add,
        bits: [
            rate_bits(rates[0]),
            rate_bits(rates[1]),
            rate_bits(rates[2]),
        ],
        mask: [
            ((1u64 << rate_bits(rates[0])) - 1) as u32,
            ((1u64 << rate_bits(rates[1])) - 1) as u32,
            ((1u64 << rate_bits(rates[2])) - 1) as u32,
        ],
        any_raw: raw[0] | raw[1] | raw[2],
        raw,
        off,
        drop,
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
    if x.any_raw {
        lanes::with_raw(v, q, x.raw, limit)
    } else {
        v
    }
}

/// The lane's sample at `pos` whose group starts at bit `start` of a frame (a dropped keyframe
/// blended from its stored neighbours).
#[inline(always)]
fn sample(d: &[u8], pos: &Pos, start: usize, x: &Lane, limit: f32) -> Vec4 {
    let bit = pos.bit + start;
    let a = frame(d, bit, x, limit);
    if pos.t > 0.0 {
        let n = frame(d, bit + pos.fb, x, limit);
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

impl View<'_> {
    /// [`Proto::sample_joints_with`].
    #[allow(clippy::too_many_arguments)]
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
        assert!(!wide || super::Isa::Avx2.available());
        assert!(stride >= 10);
        let one = key.i1 == key.i0 || key.alpha <= 0.0;
        let pair = !one && key.i0 / self.seg_len == key.i1 / self.seg_len;
        let a = position(self, key.i0);
        let b = position(self, key.i1);
        // With AVX2 a channel's whole group is decoded (and kept for the next channel in it).
        let mut lanes = [[0.0f32; 4]; super::LANES];
        let mut last = usize::MAX;
        for (i, &j) in joints.iter().enumerate() {
            let o = slot(i, j) * stride;
            let dst = &mut out[o..o + 10];
            for ch in 0..3 {
                if channels & (1 << ch) == 0 {
                    continue;
                }
                let src = self.source(j as usize, ch);
                let at = [0, 4, 7][ch];
                let value = match src & (3 << 30) {
                    SRC_STATIC => static_value(self, (src & 0xFFFF) as usize, ch),
                    SRC_DEFAULT => default_value(self, j as usize, ch),
                    SRC_ANIMATED => {
                        let (g, l) = ((src >> 3) as usize, (src & 7) as usize);
                        if wide {
                            #[cfg(target_arch = "x86_64")]
                            if last != g {
                                let ga = start(self, &a, g);
                                let gb = if one || pair { ga } else { start(self, &b, g) };
                                // SAFETY: AVX2 is present (`wide`).
                                unsafe {
                                    super::avx2::group_lanes(
                                        self,
                                        key,
                                        g,
                                        &a,
                                        &b,
                                        (ga, gb),
                                        &mut lanes,
                                    )
                                };
                                last = g;
                            }
                            lanes[l]
                        } else {
                            self.lane_value(key, &a, &b, g, l, ch, one, pair)
                        }
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

    /// Channel `ch` of lane `l` of group `g` at `key`, one lane alone.
    #[allow(clippy::too_many_arguments)]
    fn lane_value(
        &self,
        key: &SampleKey,
        a: &Pos,
        b: &Pos,
        g: usize,
        l: usize,
        ch: usize,
        one: bool,
        pair: bool,
    ) -> [f32; 4] {
        let d = self.data;
        let alpha = key.alpha;
        let limit = if ch == 0 { 1.0 } else { MAX_ABS_VALUE };
        let xa = lane(self, a, g, l);
        let sa = start(self, a, g);
        let va = sample(d, a, sa, &xa, limit);
        let (vb, xb_drop) = if one {
            (va, xa.drop)
        } else if pair {
            // The same segment: its group starts and decode, another frame.
            (sample(d, b, sa, &xa, limit), xa.drop)
        } else {
            let xb = lane(self, b, g, l);
            (sample(d, b, start(self, b, g), &xb, limit), xb.drop)
        };
        if ch == 0 {
            let qa = lanes::from_stored(va, xa.drop);
            let same = pair && xa.bits == [0; 3];
            let q = if one || same {
                qa
            } else {
                nlerp_shortest(qa, lanes::from_stored(vb, xb_drop), alpha)
            };
            q.to_array()
        } else {
            let v = clamp_value(if one { va } else { va.lerp(vb, alpha) });
            [v.x, v.y, v.z, 0.0]
        }
    }
}
