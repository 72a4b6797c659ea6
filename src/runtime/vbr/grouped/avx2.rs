//! The grouped layout's decoder: eight sub-tracks of one class per step, one per 32-bit lane of AVX2
//! registers. Every lane performs the `vbr` decoder's operations in its order (coefficients,
//! `q * mul + add`, the keyframe blend, the rotation rebuild, `nlerp` on the shortest arc, the
//! vector `lerp` and clamp), so poses are bit for bit the `vbr` decoder's.

use super::common::{positions, prefetch, split, write_statics, Far, Here, Pos, Split, Src};
use super::common::{row_at, write_statics_in, SOA4_BLOCK};
use super::common::{ONE_SAMPLE, SAME_SEGMENT, TWO_SEGMENTS};
use super::{View, LANES};
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::quantize::bits::read_bits;
use crate::runtime::PoseRows;
use crate::runtime::SampleKey;
use core::arch::x86_64::*;

// First: its macros (`coef!`, `widths!`, `mul_add!`) are used below and in `play` and `gather`.
#[macro_use]
mod coef;
use coef::*;

#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn sel(mask: __m256, a: __m256, b: __m256) -> __m256 {
    // `b` where `mask`, else `a`.
    _mm256_blendv_ps(a, b, mask)
}

/// The fields of one component of a group's lanes: lane `l` at `bit + off[l]`. The window's
/// byte is clamped to `max` (the data's length less 32): a playback cache's coefficients come
/// from caller memory, which may hold anything, and must not move a read out of the data.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn fields(data: *const u8, max: usize, bit: usize, off: __m256i, mask: __m256i) -> __m256i {
    let win = _mm256_loadu_si256(data.add((bit >> 3).min(max)) as *const __m256i);
    let o = _mm256_add_epi32(off, _mm256_set1_epi32((bit & 7) as i32));
    let k = _mm256_srli_epi32::<5>(o);
    let s = _mm256_and_si256(o, _mm256_set1_epi32(31));
    let lo = _mm256_permutevar8x32_epi32(win, k);
    let hi = _mm256_permutevar8x32_epi32(win, _mm256_add_epi32(k, _mm256_set1_epi32(1)));
    let q = _mm256_or_si256(
        _mm256_srlv_epi32(lo, s),
        _mm256_sllv_epi32(hi, _mm256_sub_epi32(_mm256_set1_epi32(32), s)),
    );
    _mm256_and_si256(q, mask)
}

/// The three components of the stored frame at `bit` (the group's first bit in it). A macro:
/// `#[inline(always)]` is refused on `#[target_feature]` functions, and as a function LLVM did
/// not inline it.
macro_rules! frame {
    ($data:expr, $bit:expr, $c:expr, $limit:expr) => {{
        let (data, bit, c): (&[u8], usize, &Coef) = ($data, $bit, $c);
        if c.raw != 0 {
            // A copy: the raw lanes' path is out of line, and the coefficients' address passed
            // to it would keep them in memory on the common path too.
            frame_raw(data, bit, &{ *c }, $limit)
        } else {
            let (d, max) = (data.as_ptr(), data.len() - 32);
            let mut v = [_mm256_setzero_ps(); 3];
            for k in 0..3 {
                let q = fields(d, max, bit.wrapping_add(c.start[k]), c.off[k], c.mask[k]);
                v[k] = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(q), c.mul[k]), c.add[k]);
            }
            v
        }
    }};
}

/// [`frame`] of a group with a raw `f32` lane, lane by lane.
#[cold]
#[allow(clippy::needless_range_loop)]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn frame_raw(data: &[u8], bit: usize, c: &Coef, limit: f32) -> [__m256; 3] {
    let mut v = [_mm256_setzero_ps(); 3];
    for k in 0..3 {
        let mut off = [0i32; LANES];
        let mut rate = [0i32; LANES];
        let mut mul = [0f32; LANES];
        let mut add = [0f32; LANES];
        _mm256_storeu_si256(off.as_mut_ptr() as *mut __m256i, c.off[k]);
        _mm256_storeu_si256(rate.as_mut_ptr() as *mut __m256i, c.rates[k]);
        _mm256_storeu_ps(mul.as_mut_ptr(), c.mul[k]);
        _mm256_storeu_ps(add.as_mut_ptr(), c.add[k]);
        let mut r = [0f32; LANES];
        for l in 0..LANES {
            let at = bit.wrapping_add(c.start[k]).wrapping_add(off[l] as usize);
            r[l] = if rate[l] == crate::format::vbr::bitrate::RATE_RAW as i32 {
                super::common::raw_value(read_bits(data, at, 32), limit)
            } else {
                let w = crate::format::vbr::bitrate::rate_bits(rate[l] as u8);
                (read_bits(data, at, w) as i32) as f32 * mul[l] + add[l]
            };
        }
        v[k] = _mm256_loadu_ps(r.as_ptr());
    }
    v
}

/// A sample of a group: its stored frame, blended towards the next one for a dropped sample.
macro_rules! sample {
    ($data:expr, $pos:expr, $first_bit:expr, $c:expr, $limit:expr) => {{
        let (data, pos, first_bit, c, limit): (&[u8], &Pos<_>, usize, &Coef, f32) =
            ($data, $pos, $first_bit, $c, $limit);
        let a = frame!(pos.data(data), pos.bit.wrapping_add(first_bit), c, limit);
        if pos.t > 0.0 {
            let (next, bit) = pos.next(data);
            let n = frame!(next, bit.wrapping_add(first_bit), c, limit);
            let t = _mm256_set1_ps(pos.t);
            [0, 1, 2].map(|k| _mm256_add_ps(a[k], _mm256_mul_ps(_mm256_sub_ps(n[k], a[k]), t)))
        } else {
            a
        }
    }};
}

/// Two samples of a group in one segment (the same coefficients): [`sample!`] of each, a stored
/// frame both read decoded once (a key between two dropped samples of one span reads the span's
/// two stored frames, not four).
macro_rules! sample_pair {
    ($data:expr, $a:expr, $b:expr, $first_bit:expr, $c:expr, $limit:expr) => {{
        let (data, a, b, first_bit, c, limit): (&[u8], &Pos<_>, &Pos<_>, usize, &Coef, f32) =
            ($data, $a, $b, $first_bit, $c, $limit);
        let blend = |x: [__m256; 3], y: [__m256; 3], t: f32| {
            let t = _mm256_set1_ps(t);
            [0, 1, 2].map(|k| _mm256_add_ps(x[k], _mm256_mul_ps(_mm256_sub_ps(y[k], x[k]), t)))
        };
        let a0 = frame!(a.data(data), a.bit.wrapping_add(first_bit), c, limit);
        let a1 = if a.t > 0.0 {
            let (next, bit) = a.next(data);
            frame!(next, bit.wrapping_add(first_bit), c, limit)
        } else {
            a0
        };
        let va = if a.t > 0.0 { blend(a0, a1, a.t) } else { a0 };
        let b0 = if b.same_frame(a) {
            a0
        } else if a.t > 0.0 && a.next_is(b) {
            a1
        } else {
            frame!(b.data(data), b.bit.wrapping_add(first_bit), c, limit)
        };
        let vb = if b.t > 0.0 {
            let b1 = if a.t > 0.0 && b.same_frame(a) {
                a1
            } else {
                let (next, bit) = b.next(data);
                frame!(next, bit.wrapping_add(first_bit), c, limit)
            };
            blend(b0, b1, b.t)
        } else {
            b0
        };
        (va, vb)
    }};
}

/// Rotations from their stored slots and dropped components.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn rebuild(s: [__m256; 3], d: __m256i) -> [__m256; 4] {
    let one = _mm256_set1_ps(1.0);
    let len2 = _mm256_add_ps(
        _mm256_add_ps(_mm256_mul_ps(s[0], s[0]), _mm256_mul_ps(s[1], s[1])),
        _mm256_mul_ps(s[2], s[2]),
    );
    let inside = _mm256_cmp_ps::<_CMP_LE_OQ>(len2, one);
    let dropped_value = _mm256_and_ps(inside, _mm256_sqrt_ps(_mm256_sub_ps(one, len2)));
    // Stored components outside the unit ball (rare: quantisation can push them out) are
    // normalised; when no lane is, the square root and division are skipped.
    let s = if _mm256_movemask_ps(inside) == 0xFF {
        s
    } else {
        let r = _mm256_div_ps(one, _mm256_sqrt_ps(len2));
        s.map(|x| sel(inside, _mm256_mul_ps(x, r), x))
    };
    let eq = |k: i32| _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_set1_epi32(k)));
    let (e0, e1, e2, e3) = (eq(0), eq(1), eq(2), eq(3));
    [
        sel(e0, s[0], dropped_value),
        sel(e0, sel(e1, s[1], dropped_value), s[0]),
        sel(_mm256_or_ps(e0, e1), sel(e2, s[2], dropped_value), s[1]),
        sel(e3, s[2], dropped_value),
    ]
}

#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn dot(p: &[__m256; 4], q: &[__m256; 4]) -> __m256 {
    _mm256_add_ps(
        _mm256_add_ps(_mm256_mul_ps(p[0], q[0]), _mm256_mul_ps(p[2], q[2])),
        _mm256_add_ps(_mm256_mul_ps(p[1], q[1]), _mm256_mul_ps(p[3], q[3])),
    )
}

/// `nlerp_shortest` per lane (the operations of `blend::nlerp4`).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn nlerp(a: [__m256; 4], b: [__m256; 4], t: f32) -> [__m256; 4] {
    let d = dot(&a, &b);
    let flip = _mm256_and_ps(
        _mm256_cmp_ps::<_CMP_LT_OQ>(d, _mm256_setzero_ps()),
        _mm256_set1_ps(-0.0),
    );
    let tv = _mm256_set1_ps(t);
    let v = [0, 1, 2, 3].map(|k| {
        _mm256_add_ps(
            a[k],
            _mm256_mul_ps(_mm256_sub_ps(_mm256_xor_ps(b[k], flip), a[k]), tv),
        )
    });
    let len2 = dot(&v, &v);
    let r = _mm256_div_ps(_mm256_set1_ps(1.0), _mm256_sqrt_ps(len2));
    let ok = _mm256_cmp_ps::<_CMP_GT_OQ>(len2, _mm256_setzero_ps());
    [0, 1, 2, 3].map(|k| sel(ok, a[k], _mm256_mul_ps(v[k], r)))
}

/// Three floats of `v` at `dst`: 8 bytes and 4.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn put3(dst: *mut f32, v: __m128) {
    _mm_storel_epi64(dst as *mut __m128i, _mm_castps_si128(v));
    _mm_store_ss(dst.add(2), _mm_movehl_ps(v, v));
}

/// [`put3`] as one store masked to three lanes (AVX-512 VL; the fourth float is not touched).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512vl")]
unsafe fn put3_512(dst: *mut f32, v: __m128) {
    _mm_mask_storeu_ps(dst, 0b0111, v)
}

/// Four component registers as each lane's four floats: lane `l`'s in the low half of register
/// `l` (`l < 4`) or the high half of register `l - 4`.
macro_rules! lane_rows {
    ($q:expr) => {{
        let q: [__m256; 4] = $q;
        let t0 = _mm256_unpacklo_ps(q[0], q[1]);
        let t1 = _mm256_unpackhi_ps(q[0], q[1]);
        let t2 = _mm256_unpacklo_ps(q[2], q[3]);
        let t3 = _mm256_unpackhi_ps(q[2], q[3]);
        [
            _mm256_shuffle_ps::<0b01_00_01_00>(t0, t2),
            _mm256_shuffle_ps::<0b11_10_11_10>(t0, t2),
            _mm256_shuffle_ps::<0b01_00_01_00>(t1, t3),
            _mm256_shuffle_ps::<0b11_10_11_10>(t1, t3),
        ]
    }};
}

/// Lanes 0..n of four component registers as four-float rows at `joint * stride + at`; rows of
/// three floats when `three`. A macro, so that the walks get it inlined (a call passed the
/// registers through memory).
macro_rules! store {
    ($q:expr, $g:expr, $out:expr, $stride:expr, $at:expr, $three:expr) => {
        store!($q, $g, $out, $stride, $at, $three, put3)
    };
    ($q:expr, $g:expr, $out:expr, $stride:expr, $at:expr, $three:expr, $put3:ident) => {{
        let (q, g, out, stride, at, three): (
            [__m256; 4],
            &GroupView,
            *mut f32,
            usize,
            usize,
            bool,
        ) = ($q, $g, $out, $stride, $at, $three);
        let r = lane_rows!(q);
        let put = |l: usize, row: __m128| {
            let dst = out.add(g.joints[l] as usize * stride + at);
            if three {
                $put3(dst, row);
            } else {
                _mm_storeu_ps(dst, row);
            }
        };
        // Lanes 0..4 from the low halves, 4..8 from the high ones: no branch per lane on which.
        let n = g.n;
        if n == LANES {
            // Most groups are full: straight-line stores.
            for (l, x) in r.iter().enumerate() {
                put(l, _mm256_castps256_ps128(*x));
                put(l + 4, _mm256_extractf128_ps::<1>(*x));
            }
        } else {
            for (l, x) in r.iter().enumerate().take(n) {
                put(l, _mm256_castps256_ps128(*x));
            }
            for (l, x) in r.iter().enumerate().take(n.saturating_sub(4)) {
                put(l + 4, _mm256_extractf128_ps::<1>(*x));
            }
        }
    }};
}

/// [`store!`] (for the playback cache and a selection's group).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn store(
    q: [__m256; 4],
    g: &GroupView,
    out: *mut f32,
    stride: usize,
    at: usize,
    three: bool,
) {
    store!(q, g, out, stride, at, three)
}

/// A row's four floats (three when `three`) four floats apart from `dst`: a component of one
/// lane of an ozz block.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn put_column(dst: *mut f32, v: __m128, three: bool) {
    _mm_store_ss(dst, v);
    (dst.add(4) as *mut i32).write_unaligned(_mm_extract_ps::<1>(v));
    (dst.add(8) as *mut i32).write_unaligned(_mm_extract_ps::<2>(v));
    if !three {
        (dst.add(12) as *mut i32).write_unaligned(_mm_extract_ps::<3>(v));
    }
}

/// Lanes 0..n of four component registers (three when `three`) into ozz blocks at `base` (the
/// channel's first float in block 0): component `k` of a lane of joint `j` at `base + (j / 4)
/// * 40 + 4 k + j % 4` ([`row_at`]). A group of consecutive joints (most groups) is written a
/// block row at a time, none of the ten-float rows' transpose: the lanes turned so that a
/// block's four sit in one half of a register, each half blended into the block row under a
/// mask of the group's joints in that block (up to three blocks); any other group lane by
/// lane. A macro, as [`store!`].
macro_rules! store_soa4 {
    ($q:expr, $g:expr, $base:expr, $three:expr) => {{
        let (q, g, base, three): ([__m256; 4], &GroupView, *mut f32, bool) =
            ($q, $g, $base, $three);
        let n = g.n;
        let first = g.joints[0] as usize;
        // Lane `l`'s joint `first + l` for every lane (a group's lanes ascend within each of the
        // kinds' runs, but a rotation group may hold the end of one run and the start of the
        // next). In 16 bits: no lane holds joint 65535, so none of the sums that wrap matches.
        let lanes = _mm_loadu_si128(g.joints.as_ptr() as *const __m128i);
        let next = _mm_add_epi16(
            _mm_set1_epi16(first as i16),
            _mm_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7),
        );
        let same = _mm_movemask_epi8(_mm_cmpeq_epi16(lanes, next)) as u32;
        let all = (1u32 << (2 * n)) - 1;
        if same & all == all {
            // Position `p` of three blocks' rows (0..12) holds lane `p - s`; the register's
            // lane `p` (and `p - 8` for the third block) holds it after the turn.
            let s = first & 3;
            let block = base.add((first >> 2) * SOA4_BLOCK);
            let turn = _mm256_and_si256(
                _mm256_sub_epi32(
                    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                    _mm256_set1_epi32(s as i32),
                ),
                _mm256_set1_epi32(7),
            );
            let p = _mm_setr_epi32(0, 1, 2, 3);
            let end = s + n;
            let (lo, hi) = (_mm_set1_epi32(s as i32), _mm_set1_epi32(end as i32));
            let masks = [
                _mm_andnot_si128(_mm_cmpgt_epi32(lo, p), _mm_cmpgt_epi32(hi, p)),
                _mm_cmpgt_epi32(hi, _mm_add_epi32(p, _mm_set1_epi32(4))),
                _mm_cmpgt_epi32(hi, _mm_add_epi32(p, _mm_set1_epi32(8))),
            ];
            let blocks = end.div_ceil(4);
            for (k, x) in q.iter().enumerate().take(if three { 3 } else { 4 }) {
                let t = _mm256_permutevar8x32_ps(*x, turn);
                let halves = [
                    _mm256_castps256_ps128(t),
                    _mm256_extractf128_ps::<1>(t),
                    _mm256_castps256_ps128(t),
                ];
                for (b, (m, h)) in masks.iter().zip(halves).enumerate().take(blocks) {
                    // The row's other lanes kept: read, blended, written back (every float of
                    // a block is a field this pose writes; `vmaskmovps` stores were a fifth of
                    // a bandai pose's time on AMD Zen, where they are microcoded).
                    let d = block.add(b * SOA4_BLOCK + 4 * k);
                    _mm_storeu_ps(d, _mm_blendv_ps(_mm_loadu_ps(d), h, _mm_castsi128_ps(*m)));
                }
            }
        } else {
            // Each lane's first float, `(j / 4) * 40 + j % 4`, for all eight at once.
            let j = _mm256_cvtepu16_epi32(lanes);
            let b = _mm256_srli_epi32::<2>(j);
            let at = _mm256_add_epi32(
                _mm256_add_epi32(_mm256_slli_epi32::<5>(b), _mm256_slli_epi32::<3>(b)),
                _mm256_and_si256(j, _mm256_set1_epi32(3)),
            );
            let mut offsets = [0u32; LANES];
            _mm256_storeu_si256(offsets.as_mut_ptr() as *mut __m256i, at);
            // A component at a time, a float a store, straight from the register's halves (no
            // transpose): lane `l` is lane `l % 4` of half `l / 4`.
            let put = |k: usize, l: usize, half: __m128| {
                let d = base.add(offsets[l] as usize + 4 * k) as *mut i32;
                match l % 4 {
                    0 => _mm_store_ss(d as *mut f32, half),
                    1 => d.write_unaligned(_mm_extract_ps::<1>(half)),
                    2 => d.write_unaligned(_mm_extract_ps::<2>(half)),
                    _ => d.write_unaligned(_mm_extract_ps::<3>(half)),
                }
            };
            for (k, x) in q.iter().enumerate().take(if three { 3 } else { 4 }) {
                let halves = [_mm256_castps256_ps128(*x), _mm256_extractf128_ps::<1>(*x)];
                if n == LANES {
                    // Most groups are full: straight-line stores.
                    for l in 0..LANES {
                        put(k, l, halves[l / 4]);
                    }
                } else {
                    for l in 0..n {
                        put(k, l, halves[l / 4]);
                    }
                }
            }
        }
    }};
}

/// A group's component registers into channel `$channel`'s rows of `$rows` ([`store!`]), or,
/// `$soa4`, into its ozz blocks ([`store_soa4!`]).
macro_rules! store_group {
    ($soa4:expr, $q:expr, $g:expr, $rows:expr, $channel:expr, $put3:ident) => {{
        if $soa4 {
            store_soa4!($q, $g, $rows.base[$channel], $g.class != 0);
        } else {
            store!(
                $q,
                $g,
                $rows.base[$channel],
                $rows.stride[$channel],
                0,
                $g.class != 0,
                $put3
            );
        }
    }};
}

/// Writes the static channels (constants and defaults). A macro, so that each caller gets it
/// inlined (out of line it costs a cached bandai pose about 100 more instructions).
macro_rules! statics {
    ($view:expr, $out:expr, $stride:expr, $channels:expr, $put3:ident) => {{
        statics!(rows $view, PoseRows::ten($out, $stride), $channels, $put3)
    }};
    (rows $view:expr, $rows:expr, $channels:expr, $put3:ident) => {{
        write_statics(
            $view,
            $rows,
            $channels,
            |dst, src| _mm_storeu_ps(dst, _mm_loadu_ps(src)),
            |dst, src| $put3(dst, _mm_loadu_ps(src)),
        );
    }};
    (soa4 $view:expr, $rows:expr, $channels:expr) => {{
        write_statics_in::<true>(
            $view,
            $rows,
            $channels,
            |dst, src| put_column(dst, _mm_loadu_ps(src), false),
            |dst, src| put_column(dst, _mm_loadu_ps(src), true),
        );
    }};
}

/// One group's values at a key of case `$case` (rotations blended, vectors blended and clamped,
/// their fourth register zero), and the frame bits the group takes in the two samples'
/// segments. `$meta_a`/`$meta_b`: the group's metadata offsets in the two segments,
/// `$first_bit_a`/`$first_bit_b`: its first bit in a frame of each. A macro, so that each
/// caller gets it inlined.
macro_rules! group {
    (
        $case:expr, $data:expr, $g:expr, $a:expr, $b:expr, $meta_a:expr, $meta_b:expr,
        $first_bit_a:expr, $first_bit_b:expr, $alpha:expr, $masks:expr
    ) => {{
        let (data, g, a, b, alpha): (&[u8], &GroupView, &Pos<_>, &Pos<_>, f32) =
            ($data, $g, $a, $b, $alpha);
        let limit = if g.class == 0 { 1.0 } else { MAX_ABS_VALUE };
        let coef_a = coef!(g, data.as_ptr().add($meta_a));
        let (va, vb, coef_b) = match $case {
            // A body that drops samples: a key between two dropped samples reads their span's
            // two stored frames once (a constant: each walk is compiled for one).
            SAME_SEGMENT if $masks && (a.t > 0.0 || b.t > 0.0) => {
                let (va, vb) = sample_pair!(data, a, b, $first_bit_a, &coef_a, limit);
                (va, vb, None)
            }
            SAME_SEGMENT => {
                let va = sample!(data, a, $first_bit_a, &coef_a, limit);
                (va, sample!(data, b, $first_bit_b, &coef_a, limit), None)
            }
            TWO_SEGMENTS => {
                let coef_b = coef!(g, data.as_ptr().add($meta_b));
                let va = sample!(data, a, $first_bit_a, &coef_a, limit);
                (
                    va,
                    sample!(data, b, $first_bit_b, &coef_b, limit),
                    Some(coef_b),
                )
            }
            _ => {
                let va = sample!(data, a, $first_bit_a, &coef_a, limit);
                (va, va, None)
            }
        };
        let (vb, coef_b) = match $case {
            SAME_SEGMENT => (vb, coef_b),
            _ => (vb, coef_b),
        };
        let bits_b = coef_b.as_ref().map_or(coef_a.total, |c| c.total);
        let q = if g.class == 0 {
            let qa = rebuild(va, coef_a.drop);
            match $case {
                ONE_SAMPLE => qa,
                _ => {
                    let qb = rebuild(vb, coef_b.as_ref().map_or(coef_a.drop, |c| c.drop));
                    let q = nlerp(qa, qb, alpha);
                    if $case == SAME_SEGMENT {
                        // Constant over the segment: both samples are the same, not blended.
                        [0, 1, 2, 3].map(|k| sel(coef_a.constant, q[k], qa[k]))
                    } else {
                        q
                    }
                }
            }
        } else {
            let v = match $case {
                ONE_SAMPLE => va,
                _ => {
                    let s0 = _mm256_set1_ps(1.0 - alpha);
                    let s1 = _mm256_set1_ps(alpha);
                    [0, 1, 2]
                        .map(|k| _mm256_add_ps(_mm256_mul_ps(va[k], s0), _mm256_mul_ps(vb[k], s1)))
                }
            };
            let max_abs = _mm256_set1_ps(MAX_ABS_VALUE);
            let neg_max_abs = _mm256_set1_ps(-MAX_ABS_VALUE);
            let v = v.map(|x| _mm256_min_ps(_mm256_max_ps(x, neg_max_abs), max_abs));
            [v[0], v[1], v[2], _mm256_setzero_ps()]
        };
        (q, coef_a.total, bits_b)
    }};
}

/// A whole pose's entry points and walk, compiled for the target features `$f`, with `$put3`
/// writing a row of three floats: for AVX2 (`sample_pose`, [`put3`]), and for AVX-512 F and VL
/// (`sample_pose_512`, [`put3_512`]), where the same eight-lane code (VEX or EVEX encoded) gets
/// 32 vector registers instead of 16 and spills less, and a row of three floats is one masked
/// store.
macro_rules! whole_pose {
    ($f:literal, $sample_pose:ident, $sample_channels:ident, $sample_rows:ident, $walk:ident, $put3:ident) => {
        #[target_feature(enable = $f)]
        pub(super) unsafe fn $sample_pose(
            view: &View,
            key: &SampleKey,
            out: *mut f32,
            stride: usize,
        ) {
            $sample_channels(view, key, out, stride, 7)
        }

        /// The whole pose ([`sample_pose`]) writing only the channels of `channels`, which must
        /// be the rotations, or the rotations and translations (the groups are in channel
        /// order: the walk stops at the first group of a channel not asked for).
        #[target_feature(enable = $f)]
        pub(super) unsafe fn $sample_channels(
            view: &View,
            key: &SampleKey,
            out: *mut f32,
            stride: usize,
            channels: u32,
        ) {
            debug_assert!(matches!(channels, 1 | 3 | 7));
            $sample_rows::<false>(view, key, PoseRows::ten(out, stride), channels)
        }

        /// The pose ([`sample_channels`]) with each channel's rows at `rows` (the layouts of
        /// `runtime::layout` written straight), or, `SOA4`, into ozz blocks
        /// ([`PoseRows::soa4`]; the lanes past the last joint are the caller's); the caller
        /// checks that they hold every joint.
        #[inline]
        #[target_feature(enable = $f)]
        pub(super) unsafe fn $sample_rows<const SOA4: bool>(
            view: &View,
            key: &SampleKey,
            rows: PoseRows,
            channels: u32,
        ) {
            // One split of the key serves the hints and the walk.
            let key_split = split(view, key);
            prefetch(view, &key_split);
            if SOA4 {
                statics!(soa4 view, rows, channels);
            } else {
                statics!(rows view, rows, channels, $put3);
            }
            // Walks compiled for frames in the body or anywhere (tiers attached), and for a
            // body that stores every sample or drops some.
            /// The walks with tiers attached, out of line: the walks without keep the
            /// inlining budget of the pose's function.
            #[inline(never)]
            #[target_feature(enable = $f)]
            unsafe fn far<const SOA4: bool>(
                view: &View,
                key: &SampleKey,
                key_split: &Split,
                rows: PoseRows,
                channels: u32,
            ) {
                // A key whose samples the resident segments store (most keys): the walk of a
                // body that stores every sample, frames in the body; the tiers are not read.
                let ab = positions::<Here>(view, key_split);
                if ab.0.t == 0.0 && ab.1.t == 0.0 {
                    return match key_split.case {
                        SAME_SEGMENT => $walk::<Here, SAME_SEGMENT, false, true, SOA4>(
                            view, key, key_split, Some(ab), rows, channels,
                        ),
                        TWO_SEGMENTS => $walk::<Here, TWO_SEGMENTS, false, true, SOA4>(
                            view, key, key_split, Some(ab), rows, channels,
                        ),
                        _ => $walk::<Here, ONE_SAMPLE, false, true, SOA4>(
                            view, key, key_split, Some(ab), rows, channels,
                        ),
                    };
                }
                let ab = Some(positions::<Far>(view, key_split));
                // A key between two stored samples (with every tier attached, every key): the
                // walk of a body that stores every sample.
                let drops = ab.is_some_and(|(a, b)| a.t > 0.0 || b.t > 0.0);
                match (key_split.case, drops) {
                    (SAME_SEGMENT, true) => $walk::<Far, SAME_SEGMENT, true, true, SOA4>(
                        view, key, key_split, ab, rows, channels,
                    ),
                    (SAME_SEGMENT, false) => $walk::<Far, SAME_SEGMENT, false, true, SOA4>(
                        view, key, key_split, ab, rows, channels,
                    ),
                    (TWO_SEGMENTS, _) => $walk::<Far, TWO_SEGMENTS, false, true, SOA4>(
                        view, key, key_split, ab, rows, channels,
                    ),
                    _ => $walk::<Far, ONE_SAMPLE, false, true, SOA4>(
                        view, key, key_split, ab, rows, channels,
                    ),
                }
            }
            match (view.tiers.is_some(), view.masks, key_split.case) {
                (true, _, _) => far::<SOA4>(view, key, &key_split, rows, channels),
                (false, true, SAME_SEGMENT) => $walk::<Here, SAME_SEGMENT, true, false, SOA4>(
                    view, key, &key_split, None, rows, channels,
                ),
                (false, _, SAME_SEGMENT) => $walk::<Here, SAME_SEGMENT, false, false, SOA4>(
                    view, key, &key_split, None, rows, channels,
                ),
                (false, _, TWO_SEGMENTS) => $walk::<Here, TWO_SEGMENTS, false, false, SOA4>(
                    view, key, &key_split, None, rows, channels,
                ),
                (false, _, _) => $walk::<Here, ONE_SAMPLE, false, false, SOA4>(
                    view, key, &key_split, None, rows, channels,
                ),
            }
        }

        /// The groups' walk. `FAR`: the copy the walks with tiers call (each copy has one
        /// caller, which inlines it).
        #[inline]
        #[target_feature(enable = $f)]
        unsafe fn $walk<
            'a,
            S: Src<'a>,
            const CASE: u8,
            const DROPS: bool,
            const FAR: bool,
            const SOA4: bool,
        >(
            view: &View<'a>,
            key: &SampleKey,
            key_split: &Split,
            ab: Option<(Pos<S>, Pos<S>)>,
            rows: PoseRows,
            channels: u32,
        ) {
            let data = view.data;
            // The key's places: found by the caller, or here.
            let (a, b) = ab.unwrap_or_else(|| positions::<S>(view, key_split));
            let (mut meta_a, mut meta_b, mut first_bit_a, mut first_bit_b) =
                (a.meta, b.meta, 0usize, 0usize);
            let alpha = key.alpha;
            let mut record_offset = 0;
            for group_index in 0..view.num_groups {
                let group = &GroupView::at(data.as_ptr(), record_offset);
                if channels & (1 << group.class) == 0 {
                    break;
                }
                record_offset += group.size;
                let (bits_a, bits_b) = if group.n == 1 {
                    // A group of one lane, decoded alone.
                    let at = [(record_offset - group.size) as u32, (meta_a - a.meta) as u32];
                    let v = super::subset::lone_group(
                        view,
                        key,
                        (a, b),
                        CASE,
                        at,
                        (first_bit_a, first_bit_b),
                        group.class == 0,
                    );
                    let (joint, channel) = (group.joints[0] as usize, group.class as usize % 3);
                    let v = _mm_loadu_ps(v.as_ptr());
                    if SOA4 {
                        put_column(row_at::<true>(rows.base[channel], 0, joint), v, group.class != 0);
                    } else if group.class == 0 {
                        _mm_storeu_ps(rows.at(joint, channel), v);
                    } else {
                        $put3(rows.at(joint, channel), v);
                    }
                    if group_index + 1 == view.num_groups {
                        break;
                    }
                    let bits_a = super::subset::lone_bits(view, meta_a);
                    (
                        bits_a,
                        if CASE == TWO_SEGMENTS {
                            super::subset::lone_bits(view, meta_b)
                        } else {
                            bits_a
                        },
                    )
                } else {
                    let (q, bits_a, bits_b) = group!(
                        CASE,
                        data,
                        group,
                        &a,
                        &b,
                        meta_a,
                        meta_b,
                        first_bit_a,
                        first_bit_b,
                        alpha,
                        DROPS
                    );
                    let channel = group.class as usize % 3;
                    store_group!(SOA4, q, group, rows, channel, $put3);
                    (bits_a, bits_b)
                };
                first_bit_a += bits_a;
                first_bit_b += bits_b;
                meta_a += group.meta;
                meta_b += group.meta;
            }
        }
    };
}

whole_pose!(
    "avx2,bmi1,bmi2,lzcnt,popcnt",
    sample_pose,
    sample_channels,
    sample_rows,
    walk,
    put3
);
whole_pose!(
    "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vl",
    sample_pose_512,
    sample_channels_512,
    sample_rows_512,
    walk_512,
    put3_512
);

/// Lane indices: [`store()`] with these as joints and stride 4 writes a group lane by lane.
static LANE_IDS: [u16; LANES] = [0, 1, 2, 3, 4, 5, 6, 7];

/// The values of the group whose record and metadata offsets are `[record_offset, meta]` at
/// `key` (whose pose is of case `case`), lane by lane (rotations 4 floats, vectors 3 and a
/// zero), for the subset decoder: `starts` is the group's first bit in a frame of each sample's
/// segment.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
pub(super) unsafe fn group_lanes<'a, S: Src<'a>>(
    view: &View<'a>,
    key: &SampleKey,
    case: u8,
    [record_offset, meta]: [u32; 2],
    a: &Pos<S>,
    b: &Pos<S>,
    starts: (usize, usize),
    out: &mut [[f32; 4]; LANES],
) {
    let data = view.data;
    let mut group = GroupView::at(data.as_ptr(), record_offset as usize);
    group.joints = LANE_IDS;
    let (meta_a, meta_b) = (a.meta + meta as usize, b.meta + meta as usize);
    let (first_bit_a, first_bit_b) = starts;
    // The group's values for a key of case `$case` (a constant for the macro).
    macro_rules! values {
        ($case:expr) => {
            group!(
                $case,
                data,
                &group,
                a,
                b,
                meta_a,
                meta_b,
                first_bit_a,
                first_bit_b,
                key.alpha,
                view.masks
            )
            .0
        };
    }
    let q = match case {
        ONE_SAMPLE => values!(ONE_SAMPLE),
        SAME_SEGMENT => values!(SAME_SEGMENT),
        _ => values!(TWO_SEGMENTS),
    };
    store(q, &group, out.as_mut_ptr() as *mut f32, 4, 0, false);
}

/// The `q * mul + add` coefficients of all eight lanes of group `g` (its record at byte `rec`
/// of the data) in the segment whose metadata for it is at byte `meta`, for the tests: lanes
/// beyond the group's must hold no subnormal value either.
#[cfg(all(test, feature = "compress"))]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
pub(super) unsafe fn coefficients(view: &View, rec: usize, meta: usize) -> [[f32; 8]; 6] {
    let g = &GroupView::at(view.data.as_ptr(), rec);
    let c = coef!(g, view.data.as_ptr().add(meta));
    let mut out = [[0.0f32; 8]; 6];
    for k in 0..3 {
        _mm256_storeu_ps(out[k].as_mut_ptr(), c.mul[k]);
        _mm256_storeu_ps(out[3 + k].as_mut_ptr(), c.add[k]);
    }
    out
}

// After the macros: `play` and `gather` use them.
mod gather;
mod play;
pub(super) use gather::lanes8;

/// A pose through the playback cache (see `play.rs`), with the AVX-512 build of the decoder
/// when `isa` is [`super::Isa::Avx512`] (which must then be available), else the AVX2 one;
/// `SOA4`: into ozz blocks ([`PoseRows::soa4`]), with the AVX2 build.
#[inline]
pub(super) unsafe fn sample_pose_cached<const SOA4: bool>(
    isa: super::Isa,
    view: &View,
    cache: &mut super::cache::Cache,
    key: &SampleKey,
    rows: PoseRows,
) {
    match isa {
        // Ozz blocks with the AVX2 build (see `entry::pose_rows`).
        super::Isa::Avx512 if !SOA4 => {
            play::sample_pose_cached_512::<false>(view, cache, key, rows)
        }
        _ => play::sample_pose_cached::<SOA4>(view, cache, key, rows),
    }
}
