//! The NEON decoder's coefficients: each half's rates, widths, field offsets and masks and its
//! `q * mul + add` floats, computed once per group and segment with the AVX2 decoder's
//! operations (`avx2/coef.rs`) on four lanes at a time.

use super::super::common::Record;
use core::arch::aarch64::*;
use core::mem::MaybeUninit;

/// The raw `f32` rate index.
const RAW: u32 = crate::format::vbr::bitrate::RATE_RAW as u32;

/// Four lanes of one group's decode in one segment.
#[derive(Clone, Copy)]
pub(in crate::runtime::vbr::grouped) struct Half {
    pub(super) mul: [float32x4_t; 3],
    pub(super) add: [float32x4_t; 3],
    /// Per lane, the bit of its field from its component's first bit in a frame.
    pub(super) off: [uint32x4_t; 3],
    /// `(1 << bits) - 1` per lane.
    pub(super) mask: [uint32x4_t; 3],
    /// Rate indices (the raw lanes' path reads them).
    pub(super) rates: [uint32x4_t; 3],
    /// Lanes whose three widths are 0 (constant over the segment).
    pub(super) constant: uint32x4_t,
    /// Lanes beyond the group's.
    pub(super) unused: uint32x4_t,
    /// Dropped components (rotations).
    pub(super) drop: uint32x4_t,
    /// The dropped component of every lane in use, or 4 when they differ.
    pub(super) udrop: u32,
    /// Whether a lane in use is constant over the segment.
    pub(super) any_constant: bool,
}

/// One group's decode in one segment: half 1 is written only for a group of more than four
/// lanes.
pub(in crate::runtime::vbr::grouped) struct Coef {
    pub(super) h: [MaybeUninit<Half>; 2],
    /// First bit of each component relative to the group's first.
    pub(super) start: [usize; 3],
    /// Bits of the group in a frame.
    pub(super) total: usize,
    /// Whether a lane stores raw `f32`s.
    pub(super) raw: bool,
}

/// `b` where `mask`, else `a` (the AVX2 decoder's `blendv` argument order).
#[inline(always)]
pub(super) unsafe fn sel(mask: uint32x4_t, a: float32x4_t, b: float32x4_t) -> float32x4_t {
    vbslq_f32(mask, b, a)
}

/// Four lanes' constants from an array.
#[inline(always)]
unsafe fn lanes4(x: [i32; 4]) -> int32x4_t {
    vld1q_s32(x.as_ptr())
}

/// Clip ranges (min, extent) of four rotation components from their stored words.
#[inline(always)]
unsafe fn rotation_ranges(w: uint32x4_t) -> (float32x4_t, float32x4_t) {
    let k = vdupq_n_f32(2.0 / 65535.0);
    let lo = vcvtq_f32_s32(vreinterpretq_s32_u32(vandq_u32(w, vdupq_n_u32(0xFFFF))));
    let hi = vcvtq_f32_s32(vreinterpretq_s32_u32(vshrq_n_u32::<16>(w)));
    (
        vsubq_f32(vmulq_f32(lo, k), vdupq_n_f32(1.0)),
        vmulq_f32(hi, k),
    )
}

/// Exclusive prefix sums of the lanes, and their total.
#[inline(always)]
unsafe fn prefix(x: uint32x4_t) -> (uint32x4_t, u32) {
    let z = vdupq_n_u32(0);
    let a = vaddq_u32(x, vextq_u32::<3>(z, x));
    let incl = vaddq_u32(a, vextq_u32::<2>(z, a));
    (vsubq_u32(incl, x), vgetq_lane_u32::<3>(incl))
}

/// Writes the coefficients of the group `g` in the segment whose group metadata is at `m`.
#[inline(always)]
pub(super) unsafe fn coef(c: *mut Coef, d: *const u8, g: &Record, m: *const u8) {
    let n = g.n;
    let halves = 1 + (n > 4) as usize;
    let rb = (5 * n).div_ceil(8);
    let drops = if g.per_segment {
        (m.add(3 * rb + 6 * n) as *const u16).read_unaligned() as u32
    } else {
        g.drops
    };
    let lane = vld1q_u32([0u32, 1, 2, 3].as_ptr());
    let zero = vdupq_n_u32(0);
    let one = vdupq_n_f32(1.0);
    let ranges = d.add(g.ranges);
    // Per half: the lanes in use and the dropped components.
    let used: [uint32x4_t; 2] = core::array::from_fn(|h| {
        vcgtq_u32(
            vdupq_n_u32(n as u32),
            vaddq_u32(lane, vdupq_n_u32(4 * h as u32)),
        )
    });
    let drop: [uint32x4_t; 2] = core::array::from_fn(|h| {
        let x = vdupq_n_u32(drops >> (8 * h));
        vandq_u32(vshlq_u32(x, lanes4([0, -2, -4, -6])), vdupq_n_u32(3))
    });
    let hp = [(*c).h[0].as_mut_ptr(), (*c).h[1].as_mut_ptr()];
    let mut any = [zero; 2];
    let mut raw = zero;
    let mut total = 0usize;
    // The rate bits of the lanes in use.
    let rate_bits = (1u64 << (5 * n)) - 1;
    for k in 0..3 {
        let w = (m.add(rb * k) as *const u64).read_unaligned() & rate_bits;
        (*c).start[k] = total;
        let mut base = 0u32;
        for hi in 0..halves {
            let x = vdupq_n_u32((w >> (20 * hi)) as u32);
            let r = vandq_u32(vshlq_u32(x, lanes4([0, -5, -10, -15])), vdupq_n_u32(31));
            // Widths: 0, r + 2, or 32 for a raw rate.
            let none = vceqq_u32(r, zero);
            let is_raw = vceqq_u32(r, vdupq_n_u32(RAW));
            let bits = vbicq_u32(vaddq_u32(r, vdupq_n_u32(2)), none);
            let bits = vbslq_u32(is_raw, vdupq_n_u32(32), bits);
            raw = vorrq_u32(raw, is_raw);
            any[hi] = vorrq_u32(any[hi], bits);
            // The clip range of the component stored in slot `k`: with per-segment drops, the
            // range of quaternion component `k + 1` in the lanes that drop one at or below `k`
            // (selected as words, then converted).
            let (min, ext) = if g.class == 0 {
                let word = |s: usize| vld1q_u32(ranges.add(4 * (n * s + 4 * hi)) as *const u32);
                let word = if g.per_segment {
                    let above = vcleq_u32(drop[hi], vdupq_n_u32(k as u32));
                    vbslq_u32(above, word(k + 1), word(k))
                } else {
                    word(k)
                };
                rotation_ranges(word)
            } else {
                // Lanes beyond the group's read the bytes after its ranges: zeroed, as the
                // other decoders do.
                let f = |s: usize| {
                    let x = vld1q_u32(ranges.add(4 * (n * s + 4 * hi)) as *const u32);
                    vreinterpretq_f32_u32(vandq_u32(x, used[hi]))
                };
                (f(k), f(3 + k))
            };
            // 1 / (2^bits - 1) for the quantised rates, else 0.
            let p2 = vreinterpretq_f32_u32(vshlq_n_u32::<23>(vaddq_u32(bits, vdupq_n_u32(127))));
            let inv = vdivq_f32(one, vsubq_f32(p2, one));
            let inv_q = vreinterpretq_f32_u32(vbicq_u32(
                vreinterpretq_u32_f32(inv),
                vorrq_u32(none, is_raw),
            ));
            let f = vmovl_u16(vld1_u16(m.add(3 * rb + 2 * (n * k + 4 * hi)) as *const u16));
            let k8 = vdupq_n_f32(1.0 / 255.0);
            let cvt = |x: uint32x4_t| vcvtq_f32_s32(vreinterpretq_s32_u32(x));
            let smin = vmulq_f32(cvt(vandq_u32(f, vdupq_n_u32(0xFF))), k8);
            let sext = vmulq_f32(cvt(vshrq_n_u32::<8>(f)), k8);
            let cfrac = vmulq_f32(cvt(f), vdupq_n_f32(1.0 / 65535.0));
            let frac = sel(vceqq_f32(inv_q, vdupq_n_f32(0.0)), smin, cfrac);
            let hh = hp[hi];
            (*hh).mul[k] = vmulq_f32(vmulq_f32(inv_q, sext), ext);
            (*hh).add[k] = vaddq_f32(vmulq_f32(frac, ext), min);
            let (off, sum) = prefix(bits);
            (*hh).off[k] = vaddq_u32(off, vdupq_n_u32(base));
            base += sum;
            let one_i = vdupq_n_u32(1);
            (*hh).mask[k] = vsubq_u32(vshlq_u32(one_i, vreinterpretq_s32_u32(bits)), one_i);
            (*hh).rates[k] = r;
        }
        total += base as usize;
    }
    for (hi, &hh) in hp.iter().enumerate().take(halves) {
        let lanes = (n - 4 * hi).min(4);
        let constant = vceqq_u32(any[hi], zero);
        (*hh).constant = constant;
        (*hh).unused = vmvnq_u32(used[hi]);
        (*hh).drop = drop[hi];
        (*hh).any_constant = vmaxvq_u32(vandq_u32(constant, used[hi])) != 0;
        let x = (drops >> (8 * hi)) & 0xFF;
        let first = x & 3;
        let same = (x ^ (first * 0x55)) & ((1 << (2 * lanes)) - 1) == 0;
        (*hh).udrop = if same { first } else { 4 };
    }
    (*c).total = total;
    (*c).raw = vmaxvq_u32(raw) != 0;
}
