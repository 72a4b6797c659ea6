//! A group's record as the AVX2 decoders read it, and its coefficients in a segment: each
//! component's eight rates from one 64-bit read, their widths, `q * mul + add` coefficients
//! and fields' offsets and masks in registers (`coef!`, with `widths!` and `mul_add!`, which the
//! selections' eight-lane decode shares).

use super::super::common::Record;
use super::super::LANES;
use core::arch::x86_64::*;

/// One group's decode in one segment.
#[derive(Clone, Copy)]
#[repr(C)]
pub(super) struct Coef {
    pub(super) mul: [__m256; 3],
    pub(super) add: [__m256; 3],
    /// Field offsets of each lane relative to its component's first field.
    pub(super) off: [__m256i; 3],
    /// First bit of each component relative to the group's first.
    pub(super) start: [usize; 3],
    pub(super) mask: [__m256i; 3],
    pub(super) total: usize,
    /// Lanes whose three widths are 0 (constant over the segment).
    pub(super) constant: __m256,
    /// Whether a lane stores raw `f32`s (non-zero). Not a `bool`: a playback cache keeps
    /// `Coef`s in caller memory, whose bytes may be anything, and every bit pattern must be a
    /// valid value of every field.
    pub(super) raw: u32,
    /// Dropped components (rotations).
    pub(super) drop: __m256i,
    pub(super) rates: [__m256i; 3],
}

/// A group record (see the module's layout).
#[derive(Clone, Copy)]
pub(super) struct GroupView {
    pub(super) class: u8,
    pub(super) n: usize,
    pub(super) per_segment: bool,
    /// Bytes of its metadata in a segment.
    pub(super) meta: usize,
    /// The lanes' joints, widened to u16 when the record holds u8 (one 8-byte load and an
    /// unpack; the stores then read each joint at a constant offset).
    pub(super) joints: [u16; LANES],
    pub(super) drops: u32,
    pub(super) ranges: *const u8,
    /// Bytes of the record.
    pub(super) size: usize,
}

impl GroupView {
    /// The record at byte `at` of `data` (see [`Record`]).
    #[inline(always)]
    pub(super) unsafe fn at(data: *const u8, at: usize) -> GroupView {
        let r = Record::at(data, at);
        GroupView {
            class: r.class,
            n: r.n,
            per_segment: r.per_segment,
            meta: r.meta,
            joints: lane_joints(data.add(r.joints), r.joint_shift),
            drops: r.drops,
            ranges: data.add(r.ranges),
            size: r.size,
        }
    }
}

/// The eight joints at `p`: u8 (`shift` 0) or u16 (`shift` 1).
#[inline(always)]
pub(super) unsafe fn lane_joints(p: *const u8, shift: usize) -> [u16; LANES] {
    let v = if shift == 0 {
        _mm_unpacklo_epi8(_mm_loadl_epi64(p as *const __m128i), _mm_setzero_si128())
    } else {
        _mm_loadu_si128(p as *const __m128i)
    };
    core::mem::transmute::<__m128i, [u16; LANES]>(v)
}

/// Eight 5-bit fields (lane l at bits 5l) of the 40 low bits of the word at `m`.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
pub(super) unsafe fn rates5(m: *const u8) -> __m256i {
    let w = (m as *const u64).read_unaligned();
    let b = _mm256_set1_epi64x(w as i64);
    let lo = _mm256_srlv_epi64(b, _mm256_setr_epi64x(0, 5, 10, 15));
    let hi = _mm256_srlv_epi64(b, _mm256_setr_epi64x(20, 25, 30, 35));
    let s = _mm256_shuffle_ps::<0b10_00_10_00>(_mm256_castsi256_ps(lo), _mm256_castsi256_ps(hi));
    let r = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_castps_si256(s));
    _mm256_and_si256(r, _mm256_set1_epi32(31))
}

/// Exclusive prefix sums of the lanes and the total.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
pub(super) unsafe fn prefix(x: __m256i) -> (__m256i, usize) {
    let a = _mm256_add_epi32(x, _mm256_slli_si256::<4>(x));
    let b = _mm256_add_epi32(a, _mm256_slli_si256::<8>(a));
    let t = _mm256_permutevar8x32_epi32(b, _mm256_set1_epi32(3));
    let incl = _mm256_add_epi32(b, _mm256_blend_epi32::<0xF0>(_mm256_setzero_si256(), t));
    let total = _mm256_extract_epi32::<7>(incl) as usize;
    (_mm256_sub_epi32(incl, x), total)
}

/// Widths of eight 5-bit rates (0, r + 2, or 32 for a raw rate), and the masks of the lanes
/// whose rate is 0 and raw. (Macros, like `mul_add!`: as functions they cost the walks 80-200
/// instructions a pose.)
macro_rules! widths {
    ($r:expr) => {{
        let r: __m256i = $r;
        let zero = _mm256_cmpeq_epi32(r, _mm256_setzero_si256());
        let is_raw = _mm256_cmpeq_epi32(
            r,
            _mm256_set1_epi32(crate::format::vbr::bitrate::RATE_RAW as i32),
        );
        let bits = _mm256_andnot_si256(zero, _mm256_add_epi32(r, _mm256_set1_epi32(2)));
        let bits = _mm256_or_si256(
            _mm256_andnot_si256(is_raw, bits),
            _mm256_and_si256(is_raw, _mm256_set1_epi32(32)),
        );
        (bits, zero, is_raw)
    }};
}

/// Eight lanes' `q * mul + add` coefficients of one component (`lanes::coefficients` per lane):
/// from their widths (`widths!`), their 16-bit range fields `$f` and their clip ranges.
macro_rules! mul_add {
    ($w:expr, $f:expr, $min:expr, $ext:expr) => {{
        let ((bits, zero, is_raw), f, min, ext): (
            (__m256i, __m256i, __m256i),
            __m256i,
            __m256,
            __m256,
        ) = ($w, $f, $min, $ext);
        // 1 / (2^bits - 1) for the quantised rates, else 0.
        let p2 = _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(
            bits,
            _mm256_set1_epi32(127),
        )));
        let inv = _mm256_div_ps(_mm256_set1_ps(1.0), _mm256_sub_ps(p2, _mm256_set1_ps(1.0)));
        let inv_q = _mm256_andnot_ps(_mm256_castsi256_ps(_mm256_or_si256(zero, is_raw)), inv);
        let k8 = _mm256_set1_ps(1.0 / 255.0);
        let smin = _mm256_mul_ps(
            _mm256_cvtepi32_ps(_mm256_and_si256(f, _mm256_set1_epi32(0xFF))),
            k8,
        );
        let sext = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32::<8>(f)), k8);
        let cfrac = _mm256_mul_ps(_mm256_cvtepi32_ps(f), _mm256_set1_ps(1.0 / 65535.0));
        let frac = sel(
            _mm256_cmp_ps::<_CMP_EQ_OQ>(inv_q, _mm256_setzero_ps()),
            smin,
            cfrac,
        );
        (
            _mm256_mul_ps(_mm256_mul_ps(inv_q, sext), ext),
            _mm256_add_ps(_mm256_mul_ps(frac, ext), min),
        )
    }};
}

/// Clip ranges (min, extent) of a rotation component from its stored words at `p`
/// (`lanes::rotation_ranges` per lane).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
pub(super) unsafe fn rotation_ranges(p: *const u8) -> (__m256, __m256) {
    rotation_ranges_of(_mm256_loadu_si256(p as *const __m256i))
}

/// [`rotation_ranges`] of the words `w`.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
pub(super) unsafe fn rotation_ranges_of(w: __m256i) -> (__m256, __m256) {
    let k = _mm256_set1_ps(2.0 / 65535.0);
    let lo = _mm256_cvtepi32_ps(_mm256_and_si256(w, _mm256_set1_epi32(0xFFFF)));
    let hi = _mm256_cvtepi32_ps(_mm256_srli_epi32::<16>(w));
    (
        _mm256_sub_ps(_mm256_mul_ps(lo, k), _mm256_set1_ps(1.0)),
        _mm256_mul_ps(hi, k),
    )
}

/// A group's coefficients in the segment whose metadata for it is at `$m` (a macro, so that
/// the walks get it inlined).
macro_rules! coef {
    ($g:expr, $m:expr) => {{
        let (g, m): (&GroupView, *const u8) = ($g, $m);
        let one_i = _mm256_set1_epi32(1);
        let n = g.n;
        let rb = (5 * n).div_ceil(8);
        let lanes = _mm256_cmpgt_epi32(
            _mm256_set1_epi32(n as i32),
            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
        );
        let two_bits = |d: i32| {
            let s = _mm256_srlv_epi32(
                _mm256_set1_epi32(d),
                _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14),
            );
            _mm256_and_si256(s, _mm256_set1_epi32(3))
        };
        let drop = if g.per_segment {
            two_bits((m.add(3 * rb + 6 * n) as *const u16).read_unaligned() as i32)
        } else {
            two_bits(g.drops as i32)
        };
        // The clip ranges of the three stored slots.
        let (mins, exts) = if g.class == 0 {
            let r = |c: usize| rotation_ranges(g.ranges.add(4 * n * c));
            if g.per_segment {
                let e0 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(drop, _mm256_setzero_si256()));
                let le1 = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(2), drop));
                let le2 = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(3), drop));
                let (r0, r1, r2, r3) = (r(0), r(1), r(2), r(3));
                (
                    [
                        sel(e0, r0.0, r1.0),
                        sel(le1, r1.0, r2.0),
                        sel(le2, r2.0, r3.0),
                    ],
                    [
                        sel(e0, r0.1, r1.1),
                        sel(le1, r1.1, r2.1),
                        sel(le2, r2.1, r3.1),
                    ],
                )
            } else {
                let (r0, r1, r2) = (r(0), r(1), r(2));
                ([r0.0, r1.0, r2.0], [r0.1, r1.1, r2.1])
            }
        } else {
            // Lanes beyond the group's read the bytes after its ranges: zeroed, as those
            // bytes as floats may be subnormal (microcode assists in every operation on them).
            let f = |c: usize| {
                _mm256_and_ps(
                    _mm256_loadu_ps(g.ranges.add(4 * n * c) as *const f32),
                    _mm256_castsi256_ps(lanes),
                )
            };
            ([f(0), f(1), f(2)], [f(3), f(4), f(5)])
        };
        let mut c = Coef {
            mul: [_mm256_setzero_ps(); 3],
            add: [_mm256_setzero_ps(); 3],
            off: [_mm256_setzero_si256(); 3],
            start: [0; 3],
            mask: [_mm256_setzero_si256(); 3],
            total: 0,
            constant: _mm256_setzero_ps(),
            raw: 0,
            drop,
            rates: [_mm256_setzero_si256(); 3],
        };
        let mut any = _mm256_setzero_si256();
        let mut raw = _mm256_setzero_si256();
        for k in 0..3 {
            let r = _mm256_and_si256(rates5(m.add(rb * k)), lanes);
            c.rates[k] = r;
            let w = widths!(r);
            let (bits, is_raw) = (w.0, w.2);
            raw = _mm256_or_si256(raw, is_raw);
            any = _mm256_or_si256(any, bits);
            let f =
                _mm256_cvtepu16_epi32(_mm_loadu_si128(m.add(3 * rb + 2 * n * k) as *const __m128i));
            (c.mul[k], c.add[k]) = mul_add!(w, f, mins[k], exts[k]);
            let (off, total) = prefix(bits);
            c.off[k] = off;
            c.start[k] = c.total;
            c.total += total;
            c.mask[k] = _mm256_sub_epi32(_mm256_sllv_epi32(one_i, bits), one_i);
        }
        c.constant = _mm256_castsi256_ps(_mm256_cmpeq_epi32(any, _mm256_setzero_si256()));
        c.raw = _mm256_movemask_epi8(raw) as u32;
        c
    }};
}
