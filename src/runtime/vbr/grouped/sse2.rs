//! The grouped layout's decoder on SSE2 alone (the x86-64 baseline): a group's eight sub-tracks as two
//! halves of four lanes. Every lane performs the AVX2 decoder's operations in its order, so poses
//! are bit for bit its poses and the `vbr` decoder's.
//!
//! What SSE2 lacks, replaced:
//! - per-lane variable shifts (the fields): one 64-bit window per pair of lanes, loaded at the
//!   byte of the pair's first field, shifted by the frame's first bit in its byte (one count for
//!   every window of a frame), then once per lane by a count fixed for the segment (the lane's
//!   bit in its window: at most 7 + 7 + 24, and the field ends by bit 62);
//! - the integer metadata (rates, widths, prefix sums of the field offsets): all eight lanes in
//!   16-bit lanes; the 5-bit rate fields brought into 16-bit lanes by two 64-bit shifts and word
//!   shuffles, then aligned by a 16-bit multiply; the 2-bit drops by a 16-bit multiply;
//! - `(1 << bits) - 1`: the float `2^bits` (built for `1 / (2^bits - 1)` anyway) converted;
//! - `blendv`: `xor`/`and`; the per-segment drop's range slots selected as words, before their
//!   conversion.
//!
//! The walk is `lanes4.rs`'s, over [`Sse2`]; this file holds the instructions.

use super::common::Record;
use super::lanes4::{coef_fields, map3, map4, sample_rows, Lanes4};
use super::View;
use crate::runtime::{PoseRows, SampleKey};
use core::arch::x86_64::*;

mod coef;
use coef::{coef, sel, Coef, Half};

/// The fields of component `k` of a half's lanes in the frame whose first byte is `fb` and
/// first bit in it `r` (a `psrlq` count).
#[inline(always)]
unsafe fn fields(fb: *const u8, r: __m128i, c: &Coef, h: &Half, hi: usize, k: usize) -> __m128i {
    // Each pair's 64-bit window holds its two fields from bit `r + cnt` (at most 7 + 7 + 24 +
    // 24 bits).
    let byte = &c.byte[k];
    let w0 = _mm_loadl_epi64(fb.add(*byte.get_unchecked(4 * hi) as usize) as *const __m128i);
    let w2 = _mm_loadl_epi64(fb.add(*byte.get_unchecked(4 * hi + 2) as usize) as *const __m128i);
    let x = _mm_srl_epi64(_mm_unpacklo_epi64(w0, w2), r);
    let cnt = &h.cnt[k];
    let y = map4(|l| _mm_srl_epi64(x, cnt[l]));
    let q = _mm_unpacklo_epi64(
        _mm_unpacklo_epi32(y[0], y[1]),
        _mm_unpackhi_epi32(y[2], y[3]),
    );
    _mm_and_si128(q, h.mask[k])
}

/// SSE2's four lanes.
pub(super) struct Sse2;

impl Lanes4 for Sse2 {
    type F = __m128;
    type M = __m128;
    type Coef = Coef;
    type Half = Half;

    coef_fields!(__m128, __m128);

    #[inline(always)]
    unsafe fn splat(x: f32) -> __m128 {
        _mm_set1_ps(x)
    }
    #[inline(always)]
    unsafe fn add(a: __m128, b: __m128) -> __m128 {
        _mm_add_ps(a, b)
    }
    #[inline(always)]
    unsafe fn sub(a: __m128, b: __m128) -> __m128 {
        _mm_sub_ps(a, b)
    }
    #[inline(always)]
    unsafe fn mul(a: __m128, b: __m128) -> __m128 {
        _mm_mul_ps(a, b)
    }
    #[inline(always)]
    unsafe fn div(a: __m128, b: __m128) -> __m128 {
        _mm_div_ps(a, b)
    }
    #[inline(always)]
    unsafe fn sqrt(a: __m128) -> __m128 {
        _mm_sqrt_ps(a)
    }
    #[inline(always)]
    unsafe fn xor(a: __m128, b: __m128) -> __m128 {
        _mm_xor_ps(a, b)
    }
    #[inline(always)]
    unsafe fn le(a: __m128, b: __m128) -> __m128 {
        _mm_cmple_ps(a, b)
    }
    #[inline(always)]
    unsafe fn lt(a: __m128, b: __m128) -> __m128 {
        _mm_cmplt_ps(a, b)
    }
    #[inline(always)]
    unsafe fn gt(a: __m128, b: __m128) -> __m128 {
        _mm_cmpgt_ps(a, b)
    }
    #[inline(always)]
    unsafe fn or(a: __m128, b: __m128) -> __m128 {
        _mm_or_ps(a, b)
    }
    #[inline(always)]
    unsafe fn and(m: __m128, x: __m128) -> __m128 {
        _mm_and_ps(m, x)
    }
    #[inline(always)]
    unsafe fn sel(m: __m128, a: __m128, b: __m128) -> __m128 {
        sel(m, a, b)
    }
    #[inline(always)]
    unsafe fn clamp(v: __m128, lo: __m128, hi: __m128) -> __m128 {
        _mm_min_ps(_mm_max_ps(v, lo), hi)
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> __m128 {
        _mm_loadu_ps(p)
    }
    #[inline(always)]
    unsafe fn store4(p: *mut f32, v: __m128) {
        _mm_storeu_ps(p, v)
    }
    #[inline(always)]
    unsafe fn store3(p: *mut f32, v: __m128) {
        _mm_storel_epi64(p as *mut __m128i, _mm_castps_si128(v));
        _mm_store_ss(p.add(2), _mm_movehl_ps(v, v));
    }
    #[inline(always)]
    unsafe fn transpose(q: [__m128; 4]) -> [__m128; 4] {
        let t0 = _mm_unpacklo_ps(q[0], q[1]);
        let t1 = _mm_unpackhi_ps(q[0], q[1]);
        let t2 = _mm_unpacklo_ps(q[2], q[3]);
        let t3 = _mm_unpackhi_ps(q[2], q[3]);
        [
            _mm_movelh_ps(t0, t2),
            _mm_movehl_ps(t2, t0),
            _mm_movelh_ps(t1, t3),
            _mm_movehl_ps(t3, t1),
        ]
    }

    #[inline(always)]
    unsafe fn frame(data: &[u8], bit: usize, c: &Coef, hi: usize) -> [__m128; 3] {
        let h = Self::half(c, hi);
        let fb = data.as_ptr().add(bit >> 3);
        let r = _mm_cvtsi32_si128((bit & 7) as i32);
        map3(|k| {
            let q = fields(fb, r, c, h, hi, k);
            _mm_add_ps(_mm_mul_ps(_mm_cvtepi32_ps(q), h.mul[k]), h.add[k])
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
    unsafe fn all(m: __m128, h: &Half) -> bool {
        _mm_movemask_ps(m) & h.active == h.active
    }
    #[inline(always)]
    unsafe fn drops(h: &Half, k: u32) -> __m128 {
        _mm_castsi128_ps(_mm_cmpeq_epi32(h.drop, _mm_set1_epi32(k as i32)))
    }
}

/// Samples every joint at `key` into `out` (10 floats per joint at `stride`). The caller checks
/// the key and that `out` holds every joint.
pub(super) unsafe fn sample_pose(p: &View, key: &SampleKey, out: *mut f32, stride: usize) {
    sample_pose_rows(p, key, PoseRows::ten(out, stride))
}

/// Samples every joint at `key` with each channel's rows at `rows`. The caller checks the key
/// and that `rows` hold every joint.
pub(super) unsafe fn sample_pose_rows(p: &View, key: &SampleKey, rows: PoseRows) {
    sample_rows::<Sse2>(p, key, rows, 7)
}
