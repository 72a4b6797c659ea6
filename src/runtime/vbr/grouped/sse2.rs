//! The grouped layout's decoder on SSE2 alone (the x86-64 baseline): a group's eight sub-tracks as two
//! halves of four lanes. Every lane performs the AVX2 decoder's operations in its order, so poses
//! are bit for bit its poses and the `vbr` decoder's.
//!
//! What SSE2 lacks, replaced:
//! - per-lane variable shifts (the fields): one 64-bit window per pair of lanes, loaded at the
//!   byte of the pair's first field, shifted by the frame's first bit in its byte (one count for
//!   every window of a frame), then once per lane by a count fixed for the segment (the lane's
//!   bit in its window: at most 7 + 7 + 24, and the field ends by bit 62);
//! - per-lane variable shifts (the integer metadata, in 16-bit lanes): the 5-bit rate fields
//!   brought into 16-bit lanes by two 64-bit shifts and word shuffles, then aligned by a 16-bit
//!   multiply; the 2-bit drops by a 16-bit multiply;
//! - `blendv`: `xor`/`and`.
//!
//! The walk and the coefficients are `lanes4.rs`'s (`lanes4/coef.rs`), over [`Sse2`]; this file
//! holds the instructions.

use super::lanes4::{self, map3, map4, sample_rows, Lanes4};
use super::View;
use crate::runtime::{PoseRows, SampleKey};
use core::arch::x86_64::*;

type Coef = lanes4::Coef<Sse2>;
type Half = lanes4::Half<Sse2>;

/// Where a group's fields are, per group and segment: per component and lane, the byte of its
/// field from the frame's first byte (less the frame's first bit in its byte), lanes 0, 2, 4 and
/// 6 their pairs' windows; and the bit of its field from the group's first bit in a frame.
pub(super) struct Fields {
    byte: [[u16; 8]; 3],
    off: [[u16; 8]; 3],
}

/// Where a half's fields are: per component, the `psrlq` counts (low 64 bits) of each lane, the
/// bit of its field in its pair's window (less the frame's first bit in its byte).
pub(super) struct HalfFields {
    cnt: [[__m128i; 4]; 3],
}

/// The fields of component `k` of a half's lanes in the frame whose first byte is `fb` and
/// first bit in it `r` (a `psrlq` count).
#[inline(always)]
unsafe fn fields(fb: *const u8, r: __m128i, c: &Coef, h: &Half, hi: usize, k: usize) -> __m128i {
    // Each pair's 64-bit window holds its two fields from bit `r + cnt` (at most 7 + 7 + 24 +
    // 24 bits).
    let byte = &c.fields.byte[k];
    let w0 = _mm_loadl_epi64(fb.add(*byte.get_unchecked(4 * hi) as usize) as *const __m128i);
    let w2 = _mm_loadl_epi64(fb.add(*byte.get_unchecked(4 * hi + 2) as usize) as *const __m128i);
    let x = _mm_srl_epi64(_mm_unpacklo_epi64(w0, w2), r);
    let cnt = &h.fields.cnt[k];
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
    type I = __m128i;
    type Fields = Fields;
    type HalfFields = HalfFields;
    /// `movemask` bits.
    type InUse = i32;

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
    unsafe fn andnot(m: __m128, x: __m128) -> __m128 {
        _mm_andnot_ps(m, x)
    }
    /// `xor`/`and`.
    #[inline(always)]
    unsafe fn sel(m: __m128, a: __m128, b: __m128) -> __m128 {
        _mm_xor_ps(a, _mm_and_ps(_mm_xor_ps(a, b), m))
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
    unsafe fn below(n: i32) -> __m128 {
        _mm_castsi128_ps(_mm_cmpgt_epi32(
            _mm_set1_epi32(n),
            _mm_setr_epi32(0, 1, 2, 3),
        ))
    }
    #[inline(always)]
    unsafe fn cvt(x: __m128i) -> __m128 {
        _mm_cvtepi32_ps(x)
    }
    /// `cvttps2dq`: `0x8000_0000` out of range.
    #[inline(always)]
    unsafe fn trunc(x: __m128) -> __m128i {
        _mm_cvttps_epi32(x)
    }
    #[inline(always)]
    unsafe fn cast(x: __m128i) -> __m128 {
        _mm_castsi128_ps(x)
    }

    #[inline(always)]
    unsafe fn and_i(a: __m128i, b: __m128i) -> __m128i {
        _mm_and_si128(a, b)
    }
    #[inline(always)]
    unsafe fn or_i(a: __m128i, b: __m128i) -> __m128i {
        _mm_or_si128(a, b)
    }
    #[inline(always)]
    unsafe fn andnot_i(a: __m128i, b: __m128i) -> __m128i {
        _mm_andnot_si128(a, b)
    }
    /// `xor`/`and`.
    #[inline(always)]
    unsafe fn sel_i(m: __m128i, a: __m128i, b: __m128i) -> __m128i {
        _mm_xor_si128(a, _mm_and_si128(_mm_xor_si128(a, b), m))
    }
    #[inline(always)]
    unsafe fn nonzero(x: __m128i) -> bool {
        _mm_movemask_epi8(x) != 0
    }

    #[inline(always)]
    unsafe fn splat16(x: u16) -> __m128i {
        _mm_set1_epi16(x as i16)
    }
    #[inline(always)]
    unsafe fn add16(a: __m128i, b: __m128i) -> __m128i {
        _mm_add_epi16(a, b)
    }
    #[inline(always)]
    unsafe fn sub16(a: __m128i, b: __m128i) -> __m128i {
        _mm_sub_epi16(a, b)
    }
    #[inline(always)]
    unsafe fn eq16(a: __m128i, b: __m128i) -> __m128i {
        _mm_cmpeq_epi16(a, b)
    }
    /// Three shifted adds.
    #[inline(always)]
    unsafe fn prefix16(x: __m128i) -> __m128i {
        let a = _mm_add_epi16(x, _mm_slli_si128::<2>(x));
        let b = _mm_add_epi16(a, _mm_slli_si128::<4>(a));
        _mm_add_epi16(b, _mm_slli_si128::<8>(b))
    }
    #[inline(always)]
    unsafe fn last16(x: __m128i) -> u16 {
        _mm_extract_epi16::<7>(x) as u16
    }
    #[inline(always)]
    unsafe fn store16(p: *mut [u16; 8], x: __m128i) {
        _mm_storeu_si128(p as *mut __m128i, x)
    }
    #[inline(always)]
    unsafe fn widen16(x: __m128i, h: usize) -> __m128i {
        let zero = _mm_setzero_si128();
        if h == 0 {
            _mm_unpacklo_epi16(x, zero)
        } else {
            _mm_unpackhi_epi16(x, zero)
        }
    }
    #[inline(always)]
    unsafe fn widen_mask16(x: __m128i, h: usize) -> __m128 {
        _mm_castsi128_ps(if h == 0 {
            _mm_unpacklo_epi16(x, x)
        } else {
            _mm_unpackhi_epi16(x, x)
        })
    }
    /// Each field brought into a 16-bit lane (`w << 1` holds fields 0 to 2 in its bits 0..16
    /// and field 3 in 16..32, `w >> 19` fields 4 to 6 and 7 likewise), moved to the top of it by
    /// a 16-bit multiply, then down by one constant shift.
    #[inline(always)]
    unsafe fn rates8(w: u64) -> __m128i {
        let q = _mm_set_epi64x((w >> 19) as i64, (w << 1) as i64);
        let q = _mm_shufflehi_epi16::<0b01_00_00_00>(_mm_shufflelo_epi16::<0b01_00_00_00>(q));
        let top = _mm_setr_epi16(1 << 10, 1 << 5, 1, 1 << 11, 1 << 10, 1 << 5, 1, 1 << 11);
        _mm_srli_epi16::<11>(_mm_mullo_epi16(q, top))
    }

    #[inline(always)]
    unsafe fn splat32(x: i32) -> __m128i {
        _mm_set1_epi32(x)
    }
    #[inline(always)]
    unsafe fn add32(a: __m128i, b: __m128i) -> __m128i {
        _mm_add_epi32(a, b)
    }
    #[inline(always)]
    unsafe fn sub32(a: __m128i, b: __m128i) -> __m128i {
        _mm_sub_epi32(a, b)
    }
    #[inline(always)]
    unsafe fn gt32(a: __m128i, b: __m128i) -> __m128i {
        _mm_cmpgt_epi32(a, b)
    }
    #[inline(always)]
    unsafe fn shr32<const N: i32>(x: __m128i) -> __m128i {
        _mm_srli_epi32::<N>(x)
    }
    #[inline(always)]
    unsafe fn shl32<const N: i32>(x: __m128i) -> __m128i {
        _mm_slli_epi32::<N>(x)
    }
    #[inline(always)]
    unsafe fn load32(p: *const u8) -> __m128i {
        _mm_loadu_si128(p as *const __m128i)
    }
    #[inline(always)]
    unsafe fn load16x4(p: *const u8) -> __m128i {
        _mm_unpacklo_epi16(_mm_loadl_epi64(p as *const __m128i), _mm_setzero_si128())
    }
    /// `x << (6 - 2l)` in the low 16 bits of each lane (a 16-bit multiply), then one constant
    /// shift.
    #[inline(always)]
    unsafe fn two_bits4(x: u32) -> __m128i {
        let v = _mm_set1_epi32((x & 0xFF) as i32);
        let m = _mm_mullo_epi16(v, _mm_setr_epi16(64, 0, 16, 0, 4, 0, 1, 0));
        _mm_and_si128(_mm_srli_epi32::<6>(m), _mm_set1_epi32(3))
    }

    /// Windows at the bytes of lanes 0, 2, 4 and 6; each lane's bit in its pair's window, as
    /// `psrlq` counts: lanes 0 and 2 of a half the low halves of (c0, 0, c1, 0) and (c2, 0, c3,
    /// 0), lanes 1 and 3 their high halves moved down.
    #[inline(always)]
    unsafe fn locate(c: *mut Coef, k: usize, excl: __m128i, start: usize, two_halves: bool) {
        let off = _mm_add_epi16(excl, _mm_set1_epi16(start as i16));
        let byte = _mm_srli_epi16::<3>(off);
        let first =
            _mm_shufflehi_epi16::<0b10_10_00_00>(_mm_shufflelo_epi16::<0b10_10_00_00>(byte));
        let cnt = _mm_sub_epi16(off, _mm_slli_epi16::<3>(first));
        Self::store16(&mut (*c).fields.byte[k], byte);
        Self::store16(&mut (*c).fields.off[k], off);
        let counts = |h: usize| {
            let cnt = Self::widen16(cnt, h);
            let zero = _mm_setzero_si128();
            let c01 = _mm_unpacklo_epi32(cnt, zero);
            let c23 = _mm_unpackhi_epi32(cnt, zero);
            (*(*c).h[h].as_mut_ptr()).fields.cnt[k] =
                [c01, _mm_srli_si128::<8>(c01), c23, _mm_srli_si128::<8>(c23)];
        };
        counts(0);
        if two_halves {
            counts(1);
        }
    }
    #[inline(always)]
    unsafe fn frame(data: &[u8], bit: usize, c: &Coef, hi: usize) -> [__m128; 3] {
        let h = c.half(hi);
        let fb = data.as_ptr().add(bit >> 3);
        let r = _mm_cvtsi32_si128((bit & 7) as i32);
        map3(|k| {
            let q = fields(fb, r, c, h, hi, k);
            _mm_add_ps(_mm_mul_ps(_mm_cvtepi32_ps(q), h.mul[k]), h.add[k])
        })
    }
    #[inline(always)]
    unsafe fn offsets(c: &Coef, hi: usize, k: usize) -> [usize; 4] {
        core::array::from_fn(|l| c.fields.off[k][4 * hi + l] as usize)
    }
    #[inline(always)]
    unsafe fn in_use(lanes: usize) -> i32 {
        (1 << lanes) - 1
    }
    #[inline(always)]
    unsafe fn all(m: __m128, in_use: i32) -> bool {
        _mm_movemask_ps(m) & in_use == in_use
    }
    #[inline(always)]
    unsafe fn any(m: __m128, in_use: i32) -> bool {
        _mm_movemask_ps(m) & in_use != 0
    }
    #[inline(always)]
    unsafe fn drops(h: &Half, k: u32) -> __m128 {
        _mm_castsi128_ps(_mm_cmpeq_epi32(h.drop, _mm_set1_epi32(k as i32)))
    }
}

/// Samples every joint at `key` into `out` (10 floats per joint at `stride`). The caller checks
/// the key and that `out` holds every joint.
pub(super) unsafe fn sample_pose(view: &View, key: &SampleKey, out: *mut f32, stride: usize) {
    sample_pose_rows(view, key, PoseRows::ten(out, stride))
}

/// Samples every joint at `key` with each channel's rows at `rows`. The caller checks the key
/// and that `rows` hold every joint.
pub(super) unsafe fn sample_pose_rows(view: &View, key: &SampleKey, rows: PoseRows) {
    sample_rows::<Sse2>(view, key, rows, 7)
}
