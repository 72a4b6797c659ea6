//! The SSE2 decoder's coefficients: a group's integer metadata (rates, widths, field offsets)
//! for all eight lanes in 16-bit lanes, and each half's floats (`mul`, `add`, masks, window
//! counts), computed once per group and segment.

use super::super::common::Record;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

/// The raw `f32` rate index.
const RAW: i32 = crate::format::vbr::bitrate::RATE_RAW as i32;

/// Four lanes of one group's decode in one segment.
#[derive(Clone, Copy)]
pub(in crate::runtime::vbr::grouped) struct Half {
    pub(super) mul: [__m128; 3],
    pub(super) add: [__m128; 3],
    /// `(1 << bits) - 1` per lane.
    pub(super) mask: [__m128i; 3],
    /// `psrlq` counts (low 64 bits) of each lane: the bit of its field in its pair's window
    /// (less the frame's first bit in its byte).
    pub(super) cnt: [[__m128i; 4]; 3],
    /// Lanes whose three widths are 0 (constant over the segment).
    pub(super) constant: __m128,
    /// Dropped components (rotations).
    pub(super) drop: __m128i,
    /// The dropped component of every lane in use, or 4 when they differ.
    pub(super) udrop: u32,
    /// Bit `l` set for lane `l` in use (`movemask` bits).
    pub(super) active: i32,
    /// Whether a lane in use is constant over the segment.
    pub(super) any_constant: bool,
}

/// One group's decode in one segment: half 1 is written only for a group of more than four
/// lanes.
pub(in crate::runtime::vbr::grouped) struct Coef {
    pub(super) h: [MaybeUninit<Half>; 2],
    /// Per component and lane, the byte of its field from the frame's first byte (less the
    /// frame's first bit in its byte): lanes 0, 2, 4 and 6 are their pairs' windows.
    pub(super) byte: [[u16; 8]; 3],
    /// Per component and lane, the bit of its field from the group's first bit in a frame.
    pub(super) off: [[u16; 8]; 3],
    /// Per component and lane, the rate index.
    pub(super) rates: [[u16; 8]; 3],
    /// Bits of the group in a frame.
    pub(super) total: usize,
    /// Whether a lane stores raw `f32`s.
    pub(super) raw: bool,
}

/// `b` where `mask`, else `a`.
#[inline(always)]
pub(super) unsafe fn sel(mask: __m128, a: __m128, b: __m128) -> __m128 {
    _mm_xor_ps(a, _mm_and_ps(_mm_xor_ps(a, b), mask))
}

#[inline(always)]
unsafe fn sel_i(mask: __m128i, a: __m128i, b: __m128i) -> __m128i {
    _mm_xor_si128(a, _mm_and_si128(_mm_xor_si128(a, b), mask))
}

/// The eight 5-bit fields (lane l at bits 5l) of `w` (at most 40 bits), in 16-bit lanes: each
/// field brought into a 16-bit lane (`w << 1` holds fields 0 to 2 in its bits 0..16 and field 3
/// in 16..32, `w >> 19` fields 4 to 6 and 7 likewise), moved to the top of it by a 16-bit
/// multiply, then down by one constant shift.
#[inline(always)]
unsafe fn rates8(w: u64) -> __m128i {
    let q = _mm_set_epi64x((w >> 19) as i64, (w << 1) as i64);
    let q = _mm_shufflehi_epi16::<0b01_00_00_00>(_mm_shufflelo_epi16::<0b01_00_00_00>(q));
    let top = _mm_setr_epi16(1 << 10, 1 << 5, 1, 1 << 11, 1 << 10, 1 << 5, 1, 1 << 11);
    _mm_srli_epi16::<11>(_mm_mullo_epi16(q, top))
}

/// Four 2-bit fields (lane l at bits 2l) of the 8 low bits of `x`: `x << (6 - 2l)` in the low
/// 16 bits of each lane (a 16-bit multiply), then one constant shift.
#[inline(always)]
unsafe fn two_bits4(x: u32) -> __m128i {
    let v = _mm_set1_epi32((x & 0xFF) as i32);
    let m = _mm_mullo_epi16(v, _mm_setr_epi16(64, 0, 16, 0, 4, 0, 1, 0));
    _mm_and_si128(_mm_srli_epi32::<6>(m), _mm_set1_epi32(3))
}

/// Clip ranges (min, extent) of four rotation components from their stored words.
#[inline(always)]
unsafe fn rotation_ranges(w: __m128i) -> (__m128, __m128) {
    let k = _mm_set1_ps(2.0 / 65535.0);
    let lo = _mm_cvtepi32_ps(_mm_and_si128(w, _mm_set1_epi32(0xFFFF)));
    let hi = _mm_cvtepi32_ps(_mm_srli_epi32::<16>(w));
    (
        _mm_sub_ps(_mm_mul_ps(lo, k), _mm_set1_ps(1.0)),
        _mm_mul_ps(hi, k),
    )
}

/// Inclusive prefix sums of the 16-bit lanes.
#[inline(always)]
unsafe fn prefix(x: __m128i) -> __m128i {
    let a = _mm_add_epi16(x, _mm_slli_si128::<2>(x));
    let b = _mm_add_epi16(a, _mm_slli_si128::<4>(a));
    _mm_add_epi16(b, _mm_slli_si128::<8>(b))
}

/// Writes the coefficients of the group `g` in the segment whose group metadata is at `m`.
/// The integer metadata of the eight lanes (rates, widths, offsets) is computed in 16-bit lanes,
/// the floats per half.
#[inline(always)]
pub(super) unsafe fn coef(c: *mut Coef, d: *const u8, g: &Record, m: *const u8) {
    let n = g.n;
    let two = n > 4;
    let rb = (5 * n).div_ceil(8);
    let drops = if g.per_segment {
        (m.add(3 * rb + 6 * n) as *const u16).read_unaligned() as u32
    } else {
        g.drops
    };
    // The rate bits of the lanes in use.
    let lanes = (1u64 << (5 * n)) - 1;
    let h0 = (*c).h[0].as_mut_ptr();
    let h1 = (*c).h[1].as_mut_ptr();
    let drop0 = two_bits4(drops);
    let drop1 = two_bits4(drops >> 8);
    let zero = _mm_setzero_si128();
    let mut total = 0usize;
    let mut any = zero;
    let mut raw = zero;
    for k in 0..3 {
        let r = rates8((m.add(rb * k) as *const u64).read_unaligned() & lanes);
        let none = _mm_cmpeq_epi16(r, zero);
        let is_raw = _mm_cmpeq_epi16(r, _mm_set1_epi16(RAW as i16));
        raw = _mm_or_si128(raw, is_raw);
        // Widths: 0, r + 2, or 32 for a raw rate (23 + 2 + 7).
        let bits = _mm_andnot_si128(
            none,
            _mm_add_epi16(
                _mm_add_epi16(r, _mm_set1_epi16(2)),
                _mm_and_si128(is_raw, _mm_set1_epi16(7)),
            ),
        );
        any = _mm_or_si128(any, bits);
        let none = _mm_or_si128(none, is_raw);
        let incl = prefix(bits);
        let off = _mm_add_epi16(_mm_sub_epi16(incl, bits), _mm_set1_epi16(total as i16));
        total += _mm_extract_epi16::<7>(incl) as usize;
        // Windows at the bytes of lanes 0, 2, 4 and 6; each lane's bit in its pair's window.
        let byte = _mm_srli_epi16::<3>(off);
        let first =
            _mm_shufflehi_epi16::<0b10_10_00_00>(_mm_shufflelo_epi16::<0b10_10_00_00>(byte));
        let cnt = _mm_sub_epi16(off, _mm_slli_epi16::<3>(first));
        _mm_storeu_si128((*c).byte[k].as_mut_ptr() as *mut __m128i, byte);
        _mm_storeu_si128((*c).off[k].as_mut_ptr() as *mut __m128i, off);
        _mm_storeu_si128((*c).rates[k].as_mut_ptr() as *mut __m128i, r);
        let at = Component { d, g, m, rb, k };
        at.write(
            h0,
            0,
            _mm_unpacklo_epi16(bits, zero),
            _mm_unpacklo_epi16(none, none),
            _mm_unpacklo_epi16(cnt, zero),
            drop0,
        );
        if two {
            at.write(
                h1,
                1,
                _mm_unpackhi_epi16(bits, zero),
                _mm_unpackhi_epi16(none, none),
                _mm_unpackhi_epi16(cnt, zero),
                drop1,
            );
        }
    }
    let constant = _mm_cmpeq_epi16(any, zero);
    let finish = |hp: *mut Half, h: usize, drop: __m128i, constant: __m128i| {
        let lanes = (n - 4 * h).min(4);
        let active = (1 << lanes) - 1;
        let constant = _mm_castsi128_ps(constant);
        (*hp).drop = drop;
        (*hp).constant = constant;
        (*hp).active = active;
        (*hp).any_constant = _mm_movemask_ps(constant) & active != 0;
        let x = (drops >> (8 * h)) & 0xFF;
        let first = x & 3;
        let same = (x ^ (first * 0x55)) & ((1 << (2 * lanes)) - 1) == 0;
        (*hp).udrop = if same { first } else { 4 };
    };
    finish(h0, 0, drop0, _mm_unpacklo_epi16(constant, constant));
    if two {
        finish(h1, 1, drop1, _mm_unpackhi_epi16(constant, constant));
    }
    (*c).total = total;
    (*c).raw = _mm_movemask_epi8(raw) != 0;
}

/// Component `k` of a group's metadata in a segment.
struct Component<'a> {
    d: *const u8,
    g: &'a Record,
    m: *const u8,
    /// Bytes of a component's rate indices.
    rb: usize,
    k: usize,
}

impl Component<'_> {
    /// Writes the component's coefficients of half `h` into `hp`: `bits` the widths, `none` the
    /// lanes without a `1 / (2^bits - 1)` (constant and raw), `cnt` the bits of the fields in
    /// their pairs' windows, `drop` the dropped components.
    #[inline(always)]
    unsafe fn write(
        &self,
        hp: *mut Half,
        h: usize,
        bits: __m128i,
        none: __m128i,
        cnt: __m128i,
        drop: __m128i,
    ) {
        let (d, g, m, k) = (self.d, self.g, self.m, self.k);
        let n = g.n;
        // The clip range of the component stored in slot `k`: with per-segment drops, the range
        // of quaternion component `k + 1` in the lanes that drop one at or below `k` (selected
        // as words, then converted).
        let (min, ext) = if g.class == 0 {
            let w =
                |c: usize| _mm_loadu_si128(d.add(g.ranges + 4 * (n * c + 4 * h)) as *const __m128i);
            let word = if g.per_segment {
                let above = _mm_cmpgt_epi32(_mm_set1_epi32(k as i32 + 1), drop);
                sel_i(above, w(k), w(k + 1))
            } else {
                w(k)
            };
            rotation_ranges(word)
        } else {
            // Lanes beyond the group's read the bytes after its ranges: zeroed, as those
            // bytes as floats may be subnormal (microcode assists in every operation on them).
            let lanes = _mm_castsi128_ps(_mm_cmpgt_epi32(
                _mm_set1_epi32(n as i32 - 4 * h as i32),
                _mm_setr_epi32(0, 1, 2, 3),
            ));
            let f = |c: usize| {
                _mm_and_ps(
                    _mm_loadu_ps(d.add(g.ranges + 4 * (n * c + 4 * h)) as *const f32),
                    lanes,
                )
            };
            (f(k), f(3 + k))
        };
        // 2^bits, then 1 / (2^bits - 1) for the quantised rates, else 0.
        let p2 = _mm_castsi128_ps(_mm_slli_epi32::<23>(_mm_add_epi32(
            bits,
            _mm_set1_epi32(127),
        )));
        let one = _mm_set1_ps(1.0);
        let none = _mm_castsi128_ps(none);
        let inv_q = _mm_andnot_ps(none, _mm_div_ps(one, _mm_sub_ps(p2, one)));
        let f = _mm_unpacklo_epi16(
            _mm_loadl_epi64(m.add(3 * self.rb + 2 * (n * k + 4 * h)) as *const __m128i),
            _mm_setzero_si128(),
        );
        let k8 = _mm_set1_ps(1.0 / 255.0);
        let smin = _mm_mul_ps(_mm_cvtepi32_ps(_mm_and_si128(f, _mm_set1_epi32(0xFF))), k8);
        let sext = _mm_mul_ps(_mm_cvtepi32_ps(_mm_srli_epi32::<8>(f)), k8);
        let cfrac = _mm_mul_ps(_mm_cvtepi32_ps(f), _mm_set1_ps(1.0 / 65535.0));
        // `inv_q == 0` exactly where `none`.
        let frac = sel(none, smin, cfrac);
        (*hp).mul[k] = _mm_mul_ps(_mm_mul_ps(inv_q, sext), ext);
        (*hp).add[k] = _mm_add_ps(_mm_mul_ps(frac, ext), min);
        // 2^bits as an integer (2^32 for raw lanes: not used), minus 1.
        (*hp).mask[k] = _mm_sub_epi32(_mm_cvttps_epi32(p2), _mm_set1_epi32(1));
        // Counts in the low 64 bits: lanes 0 and 2 the low halves of (c0, 0, c1, 0) and
        // (c2, 0, c3, 0), lanes 1 and 3 their high halves moved down.
        let zero = _mm_setzero_si128();
        let c01 = _mm_unpacklo_epi32(cnt, zero);
        let c23 = _mm_unpackhi_epi32(cnt, zero);
        (*hp).cnt[k] = [c01, _mm_srli_si128::<8>(c01), c23, _mm_srli_si128::<8>(c23)];
    }
}
