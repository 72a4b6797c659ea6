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
//!   `maxps` then `minps` and the scalar decoder's `max` then `min` give);
//! - the integer metadata in 16-bit lanes (the four-lane decoders' coefficients): a component's
//!   eight rates from two words shifted per lane and narrowed (`ushl`, `uzp1`), each half's
//!   offsets widened (`uxtl`).
//!
//! The walk and the coefficients are `lanes4.rs`'s (`lanes4/coef.rs`), over [`Neon`]; this file
//! holds the instructions.

use super::lanes4::{self, map3, sample_rows, Lanes4};
use super::View;
use crate::runtime::{PoseRows, SampleKey};
use core::arch::aarch64::*;

type Coef = lanes4::Coef<Neon>;
type Half = lanes4::Half<Neon>;

/// Where a group's fields are, per group and segment: the first bit of each component from the
/// group's first.
pub(super) struct Fields {
    start: [usize; 3],
}

/// Where a half's fields are: per component and lane, the bit of its field from its
/// component's first bit in a frame.
pub(super) struct HalfFields {
    off: [uint32x4_t; 3],
}

/// Four lanes' constants from an array.
#[inline(always)]
unsafe fn lanes4(x: [i32; 4]) -> int32x4_t {
    vld1q_s32(x.as_ptr())
}

/// `x` as eight 16-bit lanes.
#[inline(always)]
unsafe fn u16s(x: uint32x4_t) -> uint16x8_t {
    vreinterpretq_u16_u32(x)
}

/// Eight 16-bit lanes as [`Lanes4::I`].
#[inline(always)]
unsafe fn u32s(x: uint16x8_t) -> uint32x4_t {
    vreinterpretq_u32_u16(x)
}

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
    type I = uint32x4_t;
    type Fields = Fields;
    type HalfFields = HalfFields;
    /// The lanes not in use, set.
    type InUse = uint32x4_t;

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
    unsafe fn andnot(m: uint32x4_t, x: float32x4_t) -> float32x4_t {
        vreinterpretq_f32_u32(vbicq_u32(vreinterpretq_u32_f32(x), m))
    }
    #[inline(always)]
    unsafe fn sel(m: uint32x4_t, a: float32x4_t, b: float32x4_t) -> float32x4_t {
        vbslq_f32(m, b, a)
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
    unsafe fn below(n: i32) -> uint32x4_t {
        vcgtq_s32(vdupq_n_s32(n), lanes4([0, 1, 2, 3]))
    }
    #[inline(always)]
    unsafe fn cvt(x: uint32x4_t) -> float32x4_t {
        vcvtq_f32_s32(vreinterpretq_s32_u32(x))
    }
    /// `fcvtzs`: saturated out of range.
    #[inline(always)]
    unsafe fn trunc(x: float32x4_t) -> uint32x4_t {
        vreinterpretq_u32_s32(vcvtq_s32_f32(x))
    }
    #[inline(always)]
    unsafe fn cast(x: uint32x4_t) -> float32x4_t {
        vreinterpretq_f32_u32(x)
    }

    #[inline(always)]
    unsafe fn and_i(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
        vandq_u32(a, b)
    }
    #[inline(always)]
    unsafe fn or_i(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
        vorrq_u32(a, b)
    }
    #[inline(always)]
    unsafe fn andnot_i(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
        vbicq_u32(b, a)
    }
    #[inline(always)]
    unsafe fn sel_i(m: uint32x4_t, a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
        vbslq_u32(m, b, a)
    }
    /// `umaxv`.
    #[inline(always)]
    unsafe fn nonzero(x: uint32x4_t) -> bool {
        vmaxvq_u32(x) != 0
    }

    #[inline(always)]
    unsafe fn splat16(x: u16) -> uint32x4_t {
        u32s(vdupq_n_u16(x))
    }
    #[inline(always)]
    unsafe fn add16(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
        u32s(vaddq_u16(u16s(a), u16s(b)))
    }
    #[inline(always)]
    unsafe fn sub16(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
        u32s(vsubq_u16(u16s(a), u16s(b)))
    }
    #[inline(always)]
    unsafe fn eq16(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
        u32s(vceqq_u16(u16s(a), u16s(b)))
    }
    /// Three `ext` and adds.
    #[inline(always)]
    unsafe fn prefix16(x: uint32x4_t) -> uint32x4_t {
        let (x, z) = (u16s(x), vdupq_n_u16(0));
        let a = vaddq_u16(x, vextq_u16::<7>(z, x));
        let b = vaddq_u16(a, vextq_u16::<6>(z, a));
        u32s(vaddq_u16(b, vextq_u16::<4>(z, b)))
    }
    #[inline(always)]
    unsafe fn last16(x: uint32x4_t) -> u16 {
        vgetq_lane_u16::<7>(u16s(x))
    }
    #[inline(always)]
    unsafe fn store16(p: *mut [u16; 8], x: uint32x4_t) {
        vst1q_u16(p as *mut u16, u16s(x))
    }
    #[inline(always)]
    unsafe fn widen16(x: uint32x4_t, h: usize) -> uint32x4_t {
        let x = u16s(x);
        if h == 0 {
            vmovl_u16(vget_low_u16(x))
        } else {
            vmovl_high_u16(x)
        }
    }
    #[inline(always)]
    unsafe fn widen_mask16(x: uint32x4_t, h: usize) -> uint32x4_t {
        let x = vreinterpretq_s16_u32(x);
        vreinterpretq_u32_s32(if h == 0 {
            vmovl_s16(vget_low_s16(x))
        } else {
            vmovl_high_s16(x)
        })
    }
    /// Lanes 0 to 3 from the low 20 bits and 4 to 7 from the next 20, each shifted right by
    /// `5l` (`ushl`), narrowed (`uzp1`) and masked.
    #[inline(always)]
    unsafe fn rates8(w: u64) -> uint32x4_t {
        let s = lanes4([0, -5, -10, -15]);
        let lo = vshlq_u32(vdupq_n_u32(w as u32), s);
        let hi = vshlq_u32(vdupq_n_u32((w >> 20) as u32), s);
        u32s(vandq_u16(vuzp1q_u16(u16s(lo), u16s(hi)), vdupq_n_u16(31)))
    }

    #[inline(always)]
    unsafe fn splat32(x: i32) -> uint32x4_t {
        vdupq_n_u32(x as u32)
    }
    #[inline(always)]
    unsafe fn add32(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
        vaddq_u32(a, b)
    }
    #[inline(always)]
    unsafe fn sub32(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
        vsubq_u32(a, b)
    }
    #[inline(always)]
    unsafe fn gt32(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
        vcgtq_s32(vreinterpretq_s32_u32(a), vreinterpretq_s32_u32(b))
    }
    #[inline(always)]
    unsafe fn shr32<const N: i32>(x: uint32x4_t) -> uint32x4_t {
        vshrq_n_u32::<N>(x)
    }
    #[inline(always)]
    unsafe fn shl32<const N: i32>(x: uint32x4_t) -> uint32x4_t {
        vshlq_n_u32::<N>(x)
    }
    #[inline(always)]
    unsafe fn load32(p: *const u8) -> uint32x4_t {
        vld1q_u32(p as *const u32)
    }
    #[inline(always)]
    unsafe fn load16x4(p: *const u8) -> uint32x4_t {
        vmovl_u16(vld1_u16(p as *const u16))
    }
    /// Shifted right by `2l` (`ushl`), then masked.
    #[inline(always)]
    unsafe fn two_bits4(x: u32) -> uint32x4_t {
        let x = vdupq_n_u32(x & 0xFF);
        vandq_u32(vshlq_u32(x, lanes4([0, -2, -4, -6])), vdupq_n_u32(3))
    }

    /// Each lane's bit from its component's first (the 32-byte window's).
    #[inline(always)]
    unsafe fn locate(c: *mut Coef, k: usize, excl: uint32x4_t, start: usize, two_halves: bool) {
        (*c).fields.start[k] = start;
        (*(*c).h[0].as_mut_ptr()).fields.off[k] = Self::widen16(excl, 0);
        if two_halves {
            (*(*c).h[1].as_mut_ptr()).fields.off[k] = Self::widen16(excl, 1);
        }
    }
    #[inline(always)]
    unsafe fn frame(data: &[u8], bit: usize, c: &Coef, hi: usize) -> [float32x4_t; 3] {
        let h = c.half(hi);
        let d = data.as_ptr();
        map3(|k| {
            let b = bit + c.fields.start[k];
            let win = vld1q_u8_x2(d.add(b >> 3));
            let q = fields(win, vdupq_n_u32((b & 7) as u32), h.fields.off[k], h.mask[k]);
            vaddq_f32(
                vmulq_f32(vcvtq_f32_s32(vreinterpretq_s32_u32(q)), h.mul[k]),
                h.add[k],
            )
        })
    }
    #[inline(always)]
    unsafe fn offsets(c: &Coef, hi: usize, k: usize) -> [usize; 4] {
        let mut off = [0u32; 4];
        vst1q_u32(off.as_mut_ptr(), c.half(hi).fields.off[k]);
        off.map(|o| c.fields.start[k] + o as usize)
    }
    #[inline(always)]
    unsafe fn in_use(lanes: usize) -> uint32x4_t {
        vmvnq_u32(Self::below(lanes as i32))
    }
    /// `uminv` across the lanes, the unused ones set.
    #[inline(always)]
    unsafe fn all(m: uint32x4_t, unused: uint32x4_t) -> bool {
        vminvq_u32(vorrq_u32(m, unused)) == u32::MAX
    }
    /// `umaxv` across the lanes, the unused ones cleared.
    #[inline(always)]
    unsafe fn any(m: uint32x4_t, unused: uint32x4_t) -> bool {
        vmaxvq_u32(vbicq_u32(m, unused)) != 0
    }
    #[inline(always)]
    unsafe fn drops(h: &Half, k: u32) -> uint32x4_t {
        vceqq_u32(h.drop, vdupq_n_u32(k))
    }
}

/// Samples every joint at `key` into `out` (10 floats per joint at `stride`). The caller checks
/// the key and that `out` holds every joint.
pub(super) unsafe fn sample_pose(view: &View, key: &SampleKey, out: *mut f32, stride: usize) {
    sample_pose_rows(view, key, PoseRows::ten(out, stride), 7)
}

/// The whole pose ([`sample_pose`]) writing only the channels of `channels`, which must be the
/// rotations, or the rotations and translations, or all three (the groups are in channel
/// order: the walk stops at the first group of a channel not asked for).
pub(super) unsafe fn sample_channels(
    view: &View,
    key: &SampleKey,
    out: *mut f32,
    stride: usize,
    channels: u32,
) {
    sample_pose_rows(view, key, PoseRows::ten(out, stride), channels)
}

/// [`sample_channels`] with each channel's rows at `rows`. The caller checks the key and that
/// `rows` hold every joint.
pub(super) unsafe fn sample_pose_rows(view: &View, key: &SampleKey, rows: PoseRows, channels: u32) {
    sample_rows::<Neon>(view, key, rows, channels)
}
