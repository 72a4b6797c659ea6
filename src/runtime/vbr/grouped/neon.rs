//! The grouped layout's decoder on NEON (aarch64, where NEON is baseline): a group's eight
//! sub-tracks as two halves of four 32-bit lanes. Every lane performs the AVX2 decoder's
//! operations in its order (no fused multiply-add, no estimates), so poses are bit for bit its
//! poses and the `vbr` decoder's.
//!
//! NEON has per-lane variable shifts, so a field is found as the AVX2 decoder finds it: one
//! 32-byte window per component and frame, each lane's four bytes at its field's byte picked by
//! a table lookup (`tbl`, the window as its table), then shifted right by the field's bit in its
//! byte and masked. A field of at most 24 bits and 7 bits of shift fits the 32-bit lane; a
//! group with a raw `f32` lane takes a lane-by-lane path. What differs from AVX2:
//! - `blendv`: `bsl`; `movemask` tests: `umaxv`/`uminv` across the lanes;
//! - the clamp of a vector: `fmaxnm` then `fminnm` (a quiet NaN gives the low limit, as x86's
//!   `maxps` then `minps` and the scalar decoder's `max` then `min` give).
//!
//! The walk is `lanes4.rs`'s, over [`Neon`]; this file holds the instructions.

use super::common::Record;
use super::lanes4::{coef_fields, map3, sample_rows, Lanes4};
use super::View;
use crate::runtime::{PoseRows, SampleKey};
use core::arch::aarch64::*;

mod coef;
use coef::{coef, sel, Coef, Half};

/// The fields of one component of a half's lanes: `win` the 32 bytes from the byte of the
/// component's first bit in the frame, `r` that bit in its byte, `off` each lane's bit from it.
#[inline(always)]
unsafe fn fields(
    win: uint8x16x2_t,
    r: uint32x4_t,
    off: uint32x4_t,
    mask: uint32x4_t,
) -> uint32x4_t {
    let o = vaddq_u32(off, r);
    // Bytes b, b + 1, b + 2, b + 3 of the window into each lane (b at most 21 + 3).
    let idx = vmlaq_u32(
        vdupq_n_u32(0x0302_0100),
        vshrq_n_u32::<3>(o),
        vdupq_n_u32(0x0101_0101),
    );
    let x = vreinterpretq_u32_u8(vqtbl2q_u8(win, vreinterpretq_u8_u32(idx)));
    let s = vnegq_s32(vreinterpretq_s32_u32(vandq_u32(o, vdupq_n_u32(7))));
    vandq_u32(vshlq_u32(x, s), mask)
}

/// NEON's four lanes.
pub(super) struct Neon;

impl Lanes4 for Neon {
    type F = float32x4_t;
    type M = uint32x4_t;
    type Coef = Coef;
    type Half = Half;

    coef_fields!(float32x4_t, uint32x4_t);

    #[inline(always)]
    unsafe fn splat(x: f32) -> float32x4_t {
        vdupq_n_f32(x)
    }
    #[inline(always)]
    unsafe fn add(a: float32x4_t, b: float32x4_t) -> float32x4_t {
        vaddq_f32(a, b)
    }
    #[inline(always)]
    unsafe fn sub(a: float32x4_t, b: float32x4_t) -> float32x4_t {
        vsubq_f32(a, b)
    }
    #[inline(always)]
    unsafe fn mul(a: float32x4_t, b: float32x4_t) -> float32x4_t {
        vmulq_f32(a, b)
    }
    #[inline(always)]
    unsafe fn div(a: float32x4_t, b: float32x4_t) -> float32x4_t {
        vdivq_f32(a, b)
    }
    #[inline(always)]
    unsafe fn sqrt(a: float32x4_t) -> float32x4_t {
        vsqrtq_f32(a)
    }
    #[inline(always)]
    unsafe fn xor(a: float32x4_t, b: float32x4_t) -> float32x4_t {
        vreinterpretq_f32_u32(veorq_u32(
            vreinterpretq_u32_f32(a),
            vreinterpretq_u32_f32(b),
        ))
    }
    #[inline(always)]
    unsafe fn le(a: float32x4_t, b: float32x4_t) -> uint32x4_t {
        vcleq_f32(a, b)
    }
    #[inline(always)]
    unsafe fn lt(a: float32x4_t, b: float32x4_t) -> uint32x4_t {
        vcltq_f32(a, b)
    }
    #[inline(always)]
    unsafe fn gt(a: float32x4_t, b: float32x4_t) -> uint32x4_t {
        vcgtq_f32(a, b)
    }
    #[inline(always)]
    unsafe fn or(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
        vorrq_u32(a, b)
    }
    #[inline(always)]
    unsafe fn and(m: uint32x4_t, x: float32x4_t) -> float32x4_t {
        vreinterpretq_f32_u32(vandq_u32(m, vreinterpretq_u32_f32(x)))
    }
    #[inline(always)]
    unsafe fn sel(m: uint32x4_t, a: float32x4_t, b: float32x4_t) -> float32x4_t {
        sel(m, a, b)
    }
    /// `fmaxnm` then `fminnm`: a quiet NaN gives `lo`, as x86's `maxps` then `minps` do.
    #[inline(always)]
    unsafe fn clamp(v: float32x4_t, lo: float32x4_t, hi: float32x4_t) -> float32x4_t {
        vminnmq_f32(vmaxnmq_f32(v, lo), hi)
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> float32x4_t {
        vld1q_f32(p)
    }
    #[inline(always)]
    unsafe fn store4(p: *mut f32, v: float32x4_t) {
        vst1q_f32(p, v)
    }
    #[inline(always)]
    unsafe fn store3(p: *mut f32, v: float32x4_t) {
        vst1_f32(p, vget_low_f32(v));
        vst1q_lane_f32::<2>(p.add(2), v);
    }
    #[inline(always)]
    unsafe fn transpose(q: [float32x4_t; 4]) -> [float32x4_t; 4] {
        let t0 = vzip1q_f32(q[0], q[1]);
        let t1 = vzip2q_f32(q[0], q[1]);
        let t2 = vzip1q_f32(q[2], q[3]);
        let t3 = vzip2q_f32(q[2], q[3]);
        let f = vreinterpretq_f64_f32;
        let back = vreinterpretq_f32_f64;
        [
            back(vzip1q_f64(f(t0), f(t2))),
            back(vzip2q_f64(f(t0), f(t2))),
            back(vzip1q_f64(f(t1), f(t3))),
            back(vzip2q_f64(f(t1), f(t3))),
        ]
    }

    #[inline(always)]
    unsafe fn frame(data: &[u8], bit: usize, c: &Coef, hi: usize) -> [float32x4_t; 3] {
        let h = Self::half(c, hi);
        let d = data.as_ptr();
        map3(|k| {
            let b = bit + c.start[k];
            let win = vld1q_u8_x2(d.add(b >> 3));
            let q = fields(win, vdupq_n_u32((b & 7) as u32), h.off[k], h.mask[k]);
            vaddq_f32(
                vmulq_f32(vcvtq_f32_s32(vreinterpretq_s32_u32(q)), h.mul[k]),
                h.add[k],
            )
        })
    }
    #[inline(always)]
    unsafe fn fields_of(c: &Coef, hi: usize, k: usize) -> ([usize; 4], [u32; 4]) {
        let h = Self::half(c, hi);
        let (mut off, mut rates) = ([0u32; 4], [0u32; 4]);
        vst1q_u32(off.as_mut_ptr(), h.off[k]);
        vst1q_u32(rates.as_mut_ptr(), h.rates[k]);
        (off.map(|o| c.start[k] + o as usize), rates)
    }
    /// `uminv` across the lanes, the unused ones set.
    #[inline(always)]
    unsafe fn all(m: uint32x4_t, h: &Half) -> bool {
        vminvq_u32(vorrq_u32(m, h.unused)) == u32::MAX
    }
    #[inline(always)]
    unsafe fn drops(h: &Half, k: u32) -> uint32x4_t {
        vceqq_u32(h.drop, vdupq_n_u32(k))
    }
}

/// Samples every joint at `key` into `out` (10 floats per joint at `stride`). The caller checks
/// the key and that `out` holds every joint.
pub(super) unsafe fn sample_pose(p: &View, key: &SampleKey, out: *mut f32, stride: usize) {
    sample_pose_rows(p, key, PoseRows::ten(out, stride), 7)
}

/// The whole pose ([`sample_pose`]) writing only the channels of `channels`, which must be the
/// rotations, or the rotations and translations, or all three (the groups are in channel
/// order: the walk stops at the first group of a channel not asked for).
pub(super) unsafe fn sample_channels(
    p: &View,
    key: &SampleKey,
    out: *mut f32,
    stride: usize,
    channels: u32,
) {
    sample_pose_rows(p, key, PoseRows::ten(out, stride), channels)
}

/// [`sample_channels`] with each channel's rows at `rows`. The caller checks the key and that
/// `rows` hold every joint.
pub(super) unsafe fn sample_pose_rows(p: &View, key: &SampleKey, rows: PoseRows, channels: u32) {
    sample_rows::<Neon>(p, key, rows, channels)
}
