//! The grouped layout's decoder on WebAssembly SIMD (`simd128`, chosen when the build enables
//! it: WebAssembly has no run-time detection): the SSE2 decoder's approach (`sse2.rs`), as
//! `simd128` has only uniform shifts too. A group's eight sub-tracks as two halves of four
//! lanes; every lane performs the AVX2 decoder's operations in its order (no fused multiply-add:
//! `simd128` has none), so poses are bit for bit its poses and the `vbr` decoder's.
//!
//! What differs from SSE2:
//! - the fields: one 64-bit window per pair of lanes shifted by the frame's first bit in its
//!   byte, then once per lane by a count fixed for the segment (`u64x2_shr` takes a scalar
//!   count, kept per lane in the coefficients);
//! - `blendv` and `and`/`andnot` selects: `v128_bitselect`; `movemask`: `i32x4_bitmask`;
//! - the clamp of a vector: `f32x4_pmax` then `f32x4_pmin`, x86's `maxps` and `minps` (a NaN
//!   gives the low limit).
//!
//! The walk is `lanes4.rs`'s, over [`Simd128`]; this file holds the instructions.

use super::common::Record;
use super::lanes4::{coef_fields, map3, map4, sample_rows, Lanes4};
use super::View;
use crate::runtime::{PoseRows, SampleKey};
use core::arch::wasm32::*;

mod coef;
use coef::{coef, sel, Coef, Half};

/// The fields of component `k` of half `hi`'s lanes in the frame whose first byte is `fb` and
/// first bit in it `r`.
#[inline(always)]
unsafe fn fields(fb: *const u8, r: u32, c: &Coef, h: &Half, hi: usize, k: usize) -> v128 {
    // Each pair's 64-bit window holds its two fields from bit `r + cnt` (at most 7 + 7 + 24 +
    // 24 bits).
    let byte = &c.byte[k];
    let w0 = v128_load64_zero(fb.add(*byte.get_unchecked(4 * hi) as usize) as *const u64);
    let w2 = v128_load64_zero(fb.add(*byte.get_unchecked(4 * hi + 2) as usize) as *const u64);
    let x = u64x2_shr(i64x2_shuffle::<0, 2>(w0, w2), r);
    let cnt = &c.cnt[k];
    let y = map4(|l| u64x2_shr(x, *cnt.get_unchecked(4 * hi + l) as u32));
    let q = i64x2_shuffle::<0, 2>(
        i32x4_shuffle::<0, 4, 0, 4>(y[0], y[1]),
        i32x4_shuffle::<2, 6, 2, 6>(y[2], y[3]),
    );
    v128_and(q, h.mask[k])
}

/// WebAssembly SIMD's four lanes.
pub(super) struct Simd128;

impl Lanes4 for Simd128 {
    type F = v128;
    type M = v128;
    type Coef = Coef;
    type Half = Half;

    coef_fields!(v128, v128);

    #[inline(always)]
    unsafe fn splat(x: f32) -> v128 {
        f32x4_splat(x)
    }
    #[inline(always)]
    unsafe fn add(a: v128, b: v128) -> v128 {
        f32x4_add(a, b)
    }
    #[inline(always)]
    unsafe fn sub(a: v128, b: v128) -> v128 {
        f32x4_sub(a, b)
    }
    #[inline(always)]
    unsafe fn mul(a: v128, b: v128) -> v128 {
        f32x4_mul(a, b)
    }
    #[inline(always)]
    unsafe fn div(a: v128, b: v128) -> v128 {
        f32x4_div(a, b)
    }
    #[inline(always)]
    unsafe fn sqrt(a: v128) -> v128 {
        f32x4_sqrt(a)
    }
    #[inline(always)]
    unsafe fn xor(a: v128, b: v128) -> v128 {
        v128_xor(a, b)
    }
    #[inline(always)]
    unsafe fn le(a: v128, b: v128) -> v128 {
        f32x4_le(a, b)
    }
    #[inline(always)]
    unsafe fn lt(a: v128, b: v128) -> v128 {
        f32x4_lt(a, b)
    }
    #[inline(always)]
    unsafe fn gt(a: v128, b: v128) -> v128 {
        f32x4_gt(a, b)
    }
    #[inline(always)]
    unsafe fn or(a: v128, b: v128) -> v128 {
        v128_or(a, b)
    }
    #[inline(always)]
    unsafe fn and(m: v128, x: v128) -> v128 {
        v128_and(m, x)
    }
    #[inline(always)]
    unsafe fn sel(m: v128, a: v128, b: v128) -> v128 {
        sel(m, a, b)
    }
    /// `f32x4_pmax` then `f32x4_pmin`: x86's `maxps(v, lo)` then `minps(_, hi)` (a NaN gives
    /// `lo`).
    #[inline(always)]
    unsafe fn clamp(v: v128, lo: v128, hi: v128) -> v128 {
        f32x4_pmin(hi, f32x4_pmax(lo, v))
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> v128 {
        v128_load(p as *const v128)
    }
    #[inline(always)]
    unsafe fn store4(p: *mut f32, v: v128) {
        v128_store(p as *mut v128, v)
    }
    #[inline(always)]
    unsafe fn store3(p: *mut f32, v: v128) {
        v128_store64_lane::<0>(v, p as *mut u64);
        v128_store32_lane::<2>(v, p.add(2) as *mut u32);
    }
    #[inline(always)]
    unsafe fn transpose(q: [v128; 4]) -> [v128; 4] {
        let t0 = i32x4_shuffle::<0, 4, 1, 5>(q[0], q[1]);
        let t1 = i32x4_shuffle::<2, 6, 3, 7>(q[0], q[1]);
        let t2 = i32x4_shuffle::<0, 4, 1, 5>(q[2], q[3]);
        let t3 = i32x4_shuffle::<2, 6, 3, 7>(q[2], q[3]);
        [
            i64x2_shuffle::<0, 2>(t0, t2),
            i64x2_shuffle::<1, 3>(t0, t2),
            i64x2_shuffle::<0, 2>(t1, t3),
            i64x2_shuffle::<1, 3>(t1, t3),
        ]
    }

    #[inline(always)]
    unsafe fn frame(data: &[u8], bit: usize, c: &Coef, hi: usize) -> [v128; 3] {
        let h = Self::half(c, hi);
        let fb = data.as_ptr().add(bit >> 3);
        let r = (bit & 7) as u32;
        map3(|k| {
            let q = fields(fb, r, c, h, hi, k);
            f32x4_add(f32x4_mul(f32x4_convert_i32x4(q), h.mul[k]), h.add[k])
        })
    }
    #[inline(always)]
    unsafe fn fields_of(c: &Coef, hi: usize, k: usize) -> ([usize; 4], [u32; 4]) {
        (
            core::array::from_fn(|l| c.off[k][4 * hi + l] as usize),
            core::array::from_fn(|l| c.rates[k][4 * hi + l] as u32),
        )
    }
    #[inline(always)]
    unsafe fn all(m: v128, h: &Half) -> bool {
        i32x4_bitmask(m) & h.active == h.active
    }
    #[inline(always)]
    unsafe fn drops(h: &Half, k: u32) -> v128 {
        i32x4_eq(h.drop, i32x4_splat(k as i32))
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
    sample_rows::<Simd128>(p, key, rows, channels)
}
