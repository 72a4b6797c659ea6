//! The prototype's decoder: eight sub-tracks of one class per step, one per 32-bit lane of AVX2
//! registers. Every lane performs the `vbr` decoder's operations in its order (coefficients,
//! `q * mul + add`, the keyframe blend, the rotation rebuild, `nlerp` on the shortest arc, the
//! vector `lerp` and clamp), so poses are bit for bit the `vbr` decoder's.

use super::{Group, Proto, GROUP_META, LANES};
use crate::format::bytes::read_u32;
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::quantize::bits::read_bits;
use crate::runtime::vbr::keyframe_position;
use crate::runtime::SampleKey;
use core::arch::x86_64::*;

const ONE: u8 = 0;
const PAIR: u8 = 1;
const TWO: u8 = 2;

/// Where one sample's stored frame starts, and its keyframe blend.
#[derive(Clone, Copy)]
struct Pos {
    /// Byte offset of the segment's group metadata.
    meta: usize,
    /// Absolute bit of the stored frame.
    bit: usize,
    /// Blend towards the next stored frame (a dropped sample), 0 for a stored one.
    t: f32,
    /// Bits of a frame.
    fb: usize,
}

fn position(p: &Proto, sample: u32) -> Pos {
    let seg = sample / p.seg_len;
    let local = sample - seg * p.seg_len;
    let off = p.segments[seg.min(p.num_segments - 1) as usize] as usize;
    let mask = read_u32(&p.data, off);
    let fb = read_u32(&p.data, off + 4) as usize;
    let (idx, t) = keyframe_position(mask, local);
    Pos {
        meta: off + 8,
        bit: (off + 8 + p.meta_bytes) * 8 + idx as usize * fb,
        t,
        fb,
    }
}

/// One group's decode in one segment.
struct Coef {
    mul: [__m256; 3],
    add: [__m256; 3],
    /// Field offsets of each lane relative to its component's first field.
    off: [__m256i; 3],
    /// First bit of each component relative to the group's first.
    start: [usize; 3],
    mask: [__m256i; 3],
    total: usize,
    /// Lanes whose three widths are 0 (constant over the segment).
    constant: __m256,
    /// Whether a lane stores raw `f32`s.
    raw: bool,
    /// Dropped components (rotations).
    drop: __m256i,
    rates: [__m256i; 3],
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn ld(a: &[f32; LANES]) -> __m256 {
    _mm256_loadu_ps(a.as_ptr())
}

/// Eight 5-bit fields (lane l at bits 5l) of the 40 low bits of the word at `m`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn rates5(m: *const u8) -> __m256i {
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
#[target_feature(enable = "avx2")]
unsafe fn prefix(x: __m256i) -> (__m256i, usize) {
    let a = _mm256_add_epi32(x, _mm256_slli_si256::<4>(x));
    let b = _mm256_add_epi32(a, _mm256_slli_si256::<8>(a));
    let t = _mm256_permutevar8x32_epi32(b, _mm256_set1_epi32(3));
    let incl = _mm256_add_epi32(b, _mm256_blend_epi32::<0xF0>(_mm256_setzero_si256(), t));
    let total = _mm256_extract_epi32::<7>(incl) as usize;
    (_mm256_sub_epi32(incl, x), total)
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn sel(mask: __m256, a: __m256, b: __m256) -> __m256 {
    // `b` where `mask`, else `a`.
    _mm256_blendv_ps(a, b, mask)
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn coef(g: &Group, m: *const u8) -> Coef {
    let one_i = _mm256_set1_epi32(1);
    let k8 = _mm256_set1_ps(1.0 / 255.0);
    let k16 = _mm256_set1_ps(1.0 / 65535.0);
    let drop = if g.per_segment {
        let d = (m.add(GROUP_META) as *const u16).read_unaligned() as i32;
        let s = _mm256_srlv_epi32(
            _mm256_set1_epi32(d),
            _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14),
        );
        _mm256_and_si256(s, _mm256_set1_epi32(3))
    } else {
        _mm256_loadu_si256(g.drop.as_ptr() as *const __m256i)
    };
    // The clip ranges of the three stored slots.
    let (mins, exts) = if g.per_segment {
        let e0 = _mm256_castsi256_ps(_mm256_cmpeq_epi32(drop, _mm256_setzero_si256()));
        let le1 = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(2), drop));
        let le2 = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(3), drop));
        let f = |a: &[[f32; LANES]; 4]| {
            [
                sel(e0, ld(&a[0]), ld(&a[1])),
                sel(le1, ld(&a[1]), ld(&a[2])),
                sel(le2, ld(&a[2]), ld(&a[3])),
            ]
        };
        (f(&g.min), f(&g.ext))
    } else {
        (
            [ld(&g.min[0]), ld(&g.min[1]), ld(&g.min[2])],
            [ld(&g.ext[0]), ld(&g.ext[1]), ld(&g.ext[2])],
        )
    };
    let mut c = Coef {
        mul: [_mm256_setzero_ps(); 3],
        add: [_mm256_setzero_ps(); 3],
        off: [_mm256_setzero_si256(); 3],
        start: [0; 3],
        mask: [_mm256_setzero_si256(); 3],
        total: 0,
        constant: _mm256_setzero_ps(),
        raw: false,
        drop,
        rates: [_mm256_setzero_si256(); 3],
    };
    let mut any = _mm256_setzero_si256();
    let mut raw = _mm256_setzero_si256();
    for k in 0..3 {
        let r = rates5(m.add(5 * k));
        c.rates[k] = r;
        let zero = _mm256_cmpeq_epi32(r, _mm256_setzero_si256());
        let is_raw = _mm256_cmpeq_epi32(r, _mm256_set1_epi32(23));
        raw = _mm256_or_si256(raw, is_raw);
        // Widths: 0, r + 2, or 32 for a raw rate.
        let bits = _mm256_andnot_si256(zero, _mm256_add_epi32(r, _mm256_set1_epi32(2)));
        let bits = _mm256_or_si256(
            _mm256_andnot_si256(is_raw, bits),
            _mm256_and_si256(is_raw, _mm256_set1_epi32(32)),
        );
        any = _mm256_or_si256(any, bits);
        // 1 / (2^bits - 1) for the quantised rates, else 0.
        let p2 = _mm256_castsi256_ps(_mm256_slli_epi32::<23>(_mm256_add_epi32(
            bits,
            _mm256_set1_epi32(127),
        )));
        let inv = _mm256_div_ps(_mm256_set1_ps(1.0), _mm256_sub_ps(p2, _mm256_set1_ps(1.0)));
        let inv_q = _mm256_andnot_ps(_mm256_castsi256_ps(_mm256_or_si256(zero, is_raw)), inv);
        let f = _mm256_cvtepu16_epi32(_mm_loadu_si128(m.add(15 + 16 * k) as *const __m128i));
        let smin = _mm256_mul_ps(
            _mm256_cvtepi32_ps(_mm256_and_si256(f, _mm256_set1_epi32(0xFF))),
            k8,
        );
        let sext = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_srli_epi32::<8>(f)), k8);
        let cfrac = _mm256_mul_ps(_mm256_cvtepi32_ps(f), k16);
        let frac = sel(
            _mm256_cmp_ps::<_CMP_EQ_OQ>(inv_q, _mm256_setzero_ps()),
            smin,
            cfrac,
        );
        c.mul[k] = _mm256_mul_ps(_mm256_mul_ps(inv_q, sext), exts[k]);
        c.add[k] = _mm256_add_ps(_mm256_mul_ps(frac, exts[k]), mins[k]);
        let (off, total) = prefix(bits);
        c.off[k] = off;
        c.start[k] = c.total;
        c.total += total;
        c.mask[k] = _mm256_sub_epi32(_mm256_sllv_epi32(one_i, bits), one_i);
    }
    c.constant = _mm256_castsi256_ps(_mm256_cmpeq_epi32(any, _mm256_setzero_si256()));
    c.raw = _mm256_movemask_epi8(raw) != 0;
    c
}

/// The fields of one component of a group's lanes: lane `l` at `bit + off[l]`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn fields(data: *const u8, bit: usize, off: __m256i, mask: __m256i) -> __m256i {
    let win = _mm256_loadu_si256(data.add(bit >> 3) as *const __m256i);
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
        if c.raw {
            frame_raw(data, bit, c, $limit)
        } else {
            let d = data.as_ptr();
            let mut v = [_mm256_setzero_ps(); 3];
            for k in 0..3 {
                let q = fields(d, bit + c.start[k], c.off[k], c.mask[k]);
                v[k] = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(q), c.mul[k]), c.add[k]);
            }
            v
        }
    }};
}

/// [`frame`] of a group with a raw `f32` lane, lane by lane.
#[cold]
#[target_feature(enable = "avx2")]
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
            let at = bit + c.start[k] + off[l] as usize;
            r[l] = if rate[l] == 23 {
                let x = f32::from_bits(read_bits(data, at, 32));
                // `maxps` then `minps`: a NaN gives `-limit`.
                if x.is_nan() {
                    -limit
                } else {
                    x.max(-limit).min(limit)
                }
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
    ($data:expr, $pos:expr, $gbit:expr, $c:expr, $limit:expr) => {{
        let (data, pos, gbit, c, limit): (&[u8], &Pos, usize, &Coef, f32) =
            ($data, $pos, $gbit, $c, $limit);
        let a = frame!(data, pos.bit + gbit, c, limit);
        if pos.t > 0.0 {
            let n = frame!(data, pos.bit + pos.fb + gbit, c, limit);
            let t = _mm256_set1_ps(pos.t);
            [0, 1, 2].map(|k| _mm256_add_ps(a[k], _mm256_mul_ps(_mm256_sub_ps(n[k], a[k]), t)))
        } else {
            a
        }
    }};
}

/// Rotations from their stored slots and dropped components.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn rebuild(s: [__m256; 3], d: __m256i) -> [__m256; 4] {
    let one = _mm256_set1_ps(1.0);
    let len2 = _mm256_add_ps(
        _mm256_add_ps(_mm256_mul_ps(s[0], s[0]), _mm256_mul_ps(s[1], s[1])),
        _mm256_mul_ps(s[2], s[2]),
    );
    let inside = _mm256_cmp_ps::<_CMP_LE_OQ>(len2, one);
    let dd = _mm256_and_ps(inside, _mm256_sqrt_ps(_mm256_sub_ps(one, len2)));
    let r = _mm256_div_ps(one, _mm256_sqrt_ps(len2));
    let s = s.map(|x| sel(inside, _mm256_mul_ps(x, r), x));
    let eq = |k: i32| _mm256_castsi256_ps(_mm256_cmpeq_epi32(d, _mm256_set1_epi32(k)));
    let (e0, e1, e2, e3) = (eq(0), eq(1), eq(2), eq(3));
    [
        sel(e0, s[0], dd),
        sel(e0, sel(e1, s[1], dd), s[0]),
        sel(_mm256_or_ps(e0, e1), sel(e2, s[2], dd), s[1]),
        sel(e3, s[2], dd),
    ]
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn dot(p: &[__m256; 4], q: &[__m256; 4]) -> __m256 {
    _mm256_add_ps(
        _mm256_add_ps(_mm256_mul_ps(p[0], q[0]), _mm256_mul_ps(p[2], q[2])),
        _mm256_add_ps(_mm256_mul_ps(p[1], q[1]), _mm256_mul_ps(p[3], q[3])),
    )
}

/// `nlerp_shortest` per lane (the operations of `blend::nlerp4`).
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn nlerp(a: [__m256; 4], b: [__m256; 4], t: f32) -> [__m256; 4] {
    let d = dot(&a, &b);
    let flip = _mm256_and_ps(
        _mm256_cmp_ps::<_CMP_LT_OQ>(d, _mm256_setzero_ps()),
        _mm256_set1_ps(-0.0),
    );
    let tv = _mm256_set1_ps(t);
    let v = [0, 1, 2, 3]
        .map(|k| _mm256_add_ps(a[k], _mm256_mul_ps(_mm256_sub_ps(_mm256_xor_ps(b[k], flip), a[k]), tv)));
    let len2 = dot(&v, &v);
    let r = _mm256_div_ps(_mm256_set1_ps(1.0), _mm256_sqrt_ps(len2));
    let ok = _mm256_cmp_ps::<_CMP_GT_OQ>(len2, _mm256_setzero_ps());
    [0, 1, 2, 3].map(|k| sel(ok, a[k], _mm256_mul_ps(v[k], r)))
}

/// Lanes 0..n of four component registers as four-float rows at `joint * stride + at`; rows of
/// three floats when `three`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store(q: [__m256; 4], g: &Group, out: *mut f32, stride: usize, at: usize, three: bool) {
    let t0 = _mm256_unpacklo_ps(q[0], q[1]);
    let t1 = _mm256_unpackhi_ps(q[0], q[1]);
    let t2 = _mm256_unpacklo_ps(q[2], q[3]);
    let t3 = _mm256_unpackhi_ps(q[2], q[3]);
    let r = [
        _mm256_shuffle_ps::<0b01_00_01_00>(t0, t2),
        _mm256_shuffle_ps::<0b11_10_11_10>(t0, t2),
        _mm256_shuffle_ps::<0b01_00_01_00>(t1, t3),
        _mm256_shuffle_ps::<0b11_10_11_10>(t1, t3),
    ];
    let n = g.n as usize;
    for l in 0..n {
        let row = if l < 4 {
            _mm256_castps256_ps128(r[l])
        } else {
            _mm256_extractf128_ps::<1>(r[l - 4])
        };
        let dst = out.add(g.joint[l] as usize * stride + at);
        if three {
            _mm_storel_epi64(dst as *mut __m128i, _mm_castps_si128(row));
            _mm_store_ss(dst.add(2), _mm_movehl_ps(row, row));
        } else {
            _mm_storeu_ps(dst, row);
        }
    }
}

#[target_feature(enable = "avx2")]
pub(super) unsafe fn sample_pose(p: &Proto, key: &SampleKey, out: *mut f32, stride: usize) {
    for s in &p.statics {
        let dst = out.add(s.joint as usize * stride + s.at as usize);
        let v = _mm_loadu_ps(s.value.as_ptr());
        if s.at == 0 {
            _mm_storeu_ps(dst, v);
        } else {
            _mm_storel_epi64(dst as *mut __m128i, _mm_castps_si128(v));
            _mm_store_ss(dst.add(2), _mm_movehl_ps(v, v));
        }
    }
    let case = if key.i1 == key.i0 || key.alpha <= 0.0 {
        ONE
    } else if key.i0 / p.seg_len == key.i1 / p.seg_len {
        PAIR
    } else {
        TWO
    };
    match case {
        PAIR => walk::<PAIR>(p, key, out, stride),
        TWO => walk::<TWO>(p, key, out, stride),
        _ => walk::<ONE>(p, key, out, stride),
    }
}

#[inline]
#[target_feature(enable = "avx2")]
unsafe fn walk<const M: u8>(p: &Proto, key: &SampleKey, out: *mut f32, stride: usize) {
    let data = &p.data[..];
    let a = position(p, key.i0);
    let b = if M == ONE { a } else { position(p, key.i1) };
    let (mut ma, mut mb, mut ga, mut gb) = (a.meta, b.meta, 0usize, 0usize);
    let alpha = key.alpha;
    for g in &p.groups {
        let limit = if g.class == 0 { 1.0 } else { MAX_ABS_VALUE };
        let ca = coef(g, data.as_ptr().add(ma));
        let va = sample!(data, &a, ga, &ca, limit);
        ga += ca.total;
        let meta = GROUP_META + 2 * g.per_segment as usize;
        ma += meta;
        let (vb, cb) = match M {
            PAIR => {
                let v = sample!(data, &b, gb, &ca, limit);
                gb += ca.total;
                (v, None)
            }
            TWO => {
                let cb = coef(g, data.as_ptr().add(mb));
                let v = sample!(data, &b, gb, &cb, limit);
                gb += cb.total;
                mb += meta;
                (v, Some(cb))
            }
            _ => (va, None),
        };
        if g.class == 0 {
            let qa = rebuild(va, ca.drop);
            let q = match M {
                ONE => qa,
                _ => {
                    let qb = rebuild(vb, cb.as_ref().map_or(ca.drop, |c| c.drop));
                    let q = nlerp(qa, qb, alpha);
                    if M == PAIR {
                        // Constant over the segment: both samples are the same, not blended.
                        [0, 1, 2, 3].map(|k| sel(ca.constant, q[k], qa[k]))
                    } else {
                        q
                    }
                }
            };
            store(q, g, out, stride, 0, false);
        } else {
            let v = match M {
                ONE => va,
                _ => {
                    let s0 = _mm256_set1_ps(1.0 - alpha);
                    let s1 = _mm256_set1_ps(alpha);
                    [0, 1, 2].map(|k| {
                        _mm256_add_ps(_mm256_mul_ps(va[k], s0), _mm256_mul_ps(vb[k], s1))
                    })
                }
            };
            let m = _mm256_set1_ps(MAX_ABS_VALUE);
            let nm = _mm256_set1_ps(-MAX_ABS_VALUE);
            let v = v.map(|x| _mm256_min_ps(_mm256_max_ps(x, nm), m));
            store(
                [v[0], v[1], v[2], _mm256_setzero_ps()],
                g,
                out,
                stride,
                if g.class == 1 { 4 } else { 7 },
                true,
            );
        }
    }
}
