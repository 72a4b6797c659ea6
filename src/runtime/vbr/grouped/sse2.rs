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
//!   conversion; the rotation rebuild's placement of the dropped component is free when the
//!   four lanes drop the same one, and the rebuild's and the blend's rare lanes (outside the
//!   unit ball, zero length) are selected only when a lane in use has one.
//!
//! Two samples in one segment decode a stored frame they both read once.

use super::common::read_joint;
use super::common::{
    positions, prefetch, split, write_statics, Pos, Record, Split, ONE, PAIR, TWO,
};
use super::View;
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::quantize::bits::read_bits;
use crate::format::vbr::bitrate::rate_bits;
use crate::math::CHANNEL_OFFSETS;
use crate::runtime::SampleKey;
use core::arch::x86_64::*;
use core::mem::MaybeUninit;

mod coef;
use coef::{coef, map3, map4, sel, Coef, Half, RAW};

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

/// The three components of half `h` of the stored frame whose group fields start at `bit`.
#[inline(always)]
unsafe fn frame(data: &[u8], bit: usize, c: &Coef, h: usize, limit: f32) -> [__m128; 3] {
    let hf = c.half(h);
    if c.raw {
        return frame_raw(data, bit, c, hf, h, limit);
    }
    let fb = data.as_ptr().add(bit >> 3);
    let r = _mm_cvtsi32_si128((bit & 7) as i32);
    map3(|k| {
        let q = fields(fb, r, c, hf, h, k);
        _mm_add_ps(_mm_mul_ps(_mm_cvtepi32_ps(q), hf.mul[k]), hf.add[k])
    })
}

/// [`frame`] of a group with a raw `f32` lane, lane by lane.
#[cold]
#[inline(never)]
unsafe fn frame_raw(
    data: &[u8],
    bit: usize,
    c: &Coef,
    h: &Half,
    hi: usize,
    limit: f32,
) -> [__m128; 3] {
    let mut v = [_mm_setzero_ps(); 3];
    for (k, v) in v.iter_mut().enumerate() {
        let mut mul = [0f32; 4];
        let mut add = [0f32; 4];
        _mm_storeu_ps(mul.as_mut_ptr(), h.mul[k]);
        _mm_storeu_ps(add.as_mut_ptr(), h.add[k]);
        let r: [f32; 4] = core::array::from_fn(|l| {
            let at = bit + c.off[k][4 * hi + l] as usize;
            let rate = c.rates[k][4 * hi + l] as i32;
            if rate == RAW {
                super::common::raw_value(read_bits(data, at, 32), limit)
            } else {
                let w = rate_bits(rate as u8);
                (read_bits(data, at, w) as i32) as f32 * mul[l] + add[l]
            }
        });
        *v = _mm_loadu_ps(r.as_ptr());
    }
    v
}

/// Half `h` of a group at a sample: its stored frame, blended towards the next one for a
/// dropped sample.
#[inline(always)]
unsafe fn sample(
    data: &[u8],
    pos: &Pos,
    gbit: usize,
    c: &Coef,
    h: usize,
    limit: f32,
) -> [__m128; 3] {
    let a = frame(data, pos.bit + gbit, c, h, limit);
    if pos.t > 0.0 {
        let n = frame(data, pos.bit + pos.fb + gbit, c, h, limit);
        blend(a, n, pos.t)
    } else {
        a
    }
}

/// The keyframe blend of a dropped sample.
#[inline(always)]
unsafe fn blend(a: [__m128; 3], n: [__m128; 3], t: f32) -> [__m128; 3] {
    let t = _mm_set1_ps(t);
    map3(|k| _mm_add_ps(a[k], _mm_mul_ps(_mm_sub_ps(n[k], a[k]), t)))
}

/// Half `h` of a group at two samples of one segment (`a` and `b`, the same coefficients):
/// [`sample`] of each, a stored frame both read decoded once.
#[inline(always)]
unsafe fn sample_pair(
    data: &[u8],
    a: &Pos,
    b: &Pos,
    gbit: usize,
    c: &Coef,
    h: usize,
    limit: f32,
) -> ([__m128; 3], [__m128; 3]) {
    let next = a.bit + a.fb;
    let a0 = frame(data, a.bit + gbit, c, h, limit);
    let a1 = if a.t > 0.0 {
        frame(data, next + gbit, c, h, limit)
    } else {
        a0
    };
    let va = if a.t > 0.0 { blend(a0, a1, a.t) } else { a0 };
    let b0 = if b.bit == a.bit {
        a0
    } else if b.bit == next && a.t > 0.0 {
        a1
    } else {
        frame(data, b.bit + gbit, c, h, limit)
    };
    let vb = if b.t > 0.0 {
        let b1 = if b.bit == a.bit && a.t > 0.0 {
            a1
        } else {
            frame(data, b.bit + b.fb + gbit, c, h, limit)
        };
        blend(b0, b1, b.t)
    } else {
        b0
    };
    (va, vb)
}

/// Rotations from their stored slots and dropped components (of half `h`).
#[inline(always)]
unsafe fn rebuild(s: [__m128; 3], h: &Half) -> [__m128; 4] {
    let one = _mm_set1_ps(1.0);
    let len2 = _mm_add_ps(
        _mm_add_ps(_mm_mul_ps(s[0], s[0]), _mm_mul_ps(s[1], s[1])),
        _mm_mul_ps(s[2], s[2]),
    );
    let inside = _mm_cmple_ps(len2, one);
    let dd = _mm_and_ps(inside, _mm_sqrt_ps(_mm_sub_ps(one, len2)));
    // Every lane in use inside the unit ball (the usual case): no renormalisation.
    let [a, b, c] = if _mm_movemask_ps(inside) & h.active == h.active {
        s
    } else {
        let r = _mm_div_ps(one, _mm_sqrt_ps(len2));
        map3(|k| sel(inside, _mm_mul_ps(s[k], r), s[k]))
    };
    match h.udrop {
        0 => [dd, a, b, c],
        1 => [a, dd, b, c],
        2 => [a, b, dd, c],
        3 => [a, b, c, dd],
        _ => {
            let d = h.drop;
            let eq = |k: i32| _mm_castsi128_ps(_mm_cmpeq_epi32(d, _mm_set1_epi32(k)));
            let (e0, e1, e2, e3) = (eq(0), eq(1), eq(2), eq(3));
            [
                sel(e0, a, dd),
                sel(e0, sel(e1, b, dd), a),
                sel(_mm_or_ps(e0, e1), sel(e2, c, dd), b),
                sel(e3, c, dd),
            ]
        }
    }
}

#[inline(always)]
unsafe fn dot(p: &[__m128; 4], q: &[__m128; 4]) -> __m128 {
    _mm_add_ps(
        _mm_add_ps(_mm_mul_ps(p[0], q[0]), _mm_mul_ps(p[2], q[2])),
        _mm_add_ps(_mm_mul_ps(p[1], q[1]), _mm_mul_ps(p[3], q[3])),
    )
}

/// `nlerp_shortest` per lane (the operations of `blend::nlerp4`); `active` the lanes in use.
#[inline(always)]
unsafe fn nlerp(a: [__m128; 4], b: [__m128; 4], t: f32, active: i32) -> [__m128; 4] {
    let d = dot(&a, &b);
    let flip = _mm_and_ps(_mm_cmplt_ps(d, _mm_setzero_ps()), _mm_set1_ps(-0.0));
    let tv = _mm_set1_ps(t);
    let v = map4(|k| {
        _mm_add_ps(
            a[k],
            _mm_mul_ps(_mm_sub_ps(_mm_xor_ps(b[k], flip), a[k]), tv),
        )
    });
    let len2 = dot(&v, &v);
    let r = _mm_div_ps(_mm_set1_ps(1.0), _mm_sqrt_ps(len2));
    let ok = _mm_cmpgt_ps(len2, _mm_setzero_ps());
    if _mm_movemask_ps(ok) & active == active {
        map4(|k| _mm_mul_ps(v[k], r))
    } else {
        map4(|k| sel(ok, a[k], _mm_mul_ps(v[k], r)))
    }
}

/// The lanes of half `h` of four component registers as four-float rows at
/// `joint * stride + at`; rows of three floats when `three`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn store(
    q: [__m128; 4],
    g: &Record,
    h: usize,
    d: *const u8,
    out: *mut f32,
    stride: usize,
    at: usize,
    three: bool,
) {
    let t0 = _mm_unpacklo_ps(q[0], q[1]);
    let t1 = _mm_unpackhi_ps(q[0], q[1]);
    let t2 = _mm_unpacklo_ps(q[2], q[3]);
    let t3 = _mm_unpackhi_ps(q[2], q[3]);
    let r = [
        _mm_movelh_ps(t0, t2),
        _mm_movehl_ps(t2, t0),
        _mm_movelh_ps(t1, t3),
        _mm_movehl_ps(t3, t1),
    ];
    let lanes = (g.n - 4 * h).min(4);
    for (l, &row) in r.iter().enumerate().take(lanes) {
        let joint = read_joint(d, g.joints, g.joint_shift, 4 * h + l);
        let dst = out.add(joint * stride + at);
        if three {
            _mm_storel_epi64(dst as *mut __m128i, _mm_castps_si128(row));
            _mm_store_ss(dst.add(2), _mm_movehl_ps(row, row));
        } else {
            _mm_storeu_ps(dst, row);
        }
    }
}

/// Samples every joint at `key` into `out` (10 floats per joint at `stride`). The caller checks
/// the key and that `out` holds every joint.
pub(super) unsafe fn sample_pose(p: &View, key: &SampleKey, out: *mut f32, stride: usize) {
    // One split of the key serves the hints and the walk.
    let sp = split(p, key);
    prefetch(p, &sp);
    let put = |dst: *mut f32, v: __m128, at: usize| {
        if at == 0 {
            _mm_storeu_ps(dst, v);
        } else {
            _mm_storel_epi64(dst as *mut __m128i, _mm_castps_si128(v));
            _mm_store_ss(dst.add(2), _mm_movehl_ps(v, v));
        }
    };
    write_statics(
        p,
        crate::runtime::PoseRows::ten(out, stride),
        7,
        |dst, src| put(dst, _mm_loadu_ps(src), 0),
        |dst, src| put(dst, _mm_loadu_ps(src), 4),
    );
    match sp.case {
        PAIR => walk::<PAIR>(p, key, &sp, out, stride),
        TWO => walk::<TWO>(p, key, &sp, out, stride),
        _ => walk::<ONE>(p, key, &sp, out, stride),
    }
}

#[inline(always)]
unsafe fn walk<const M: u8>(p: &View, key: &SampleKey, sp: &Split, out: *mut f32, stride: usize) {
    let data = p.data;
    let d = data.as_ptr();
    let (a, b) = positions(p, sp);
    let (mut ma, mut mb, mut ga, mut gb) = (a.meta, b.meta, 0usize, 0usize);
    let alpha = key.alpha;
    let mut rec = 0;
    for gi in 0..p.num_groups {
        let g = Record::at(d, rec);
        rec += g.size;
        if g.n == 1 {
            // A group of one lane, decoded alone (as the AVX2 walk does).
            let at = [(rec - g.size) as u32, (ma - a.meta) as u32];
            let v = super::subset::lone_group(p, key, (a, b), M, at, (ga, gb), g.class == 0);
            let at = CHANNEL_OFFSETS[g.class as usize % 3];
            let dst = out.add(read_joint(d, g.joints, g.joint_shift, 0) * stride + at);
            std::ptr::copy_nonoverlapping(v.as_ptr(), dst, if g.class == 0 { 4 } else { 3 });
            if gi + 1 < p.num_groups {
                ga += super::subset::lone_bits(p, ma);
                gb += super::subset::lone_bits(p, if M == TWO { mb } else { ma });
                ma += g.meta;
                mb += g.meta;
            }
            continue;
        }
        let limit = if g.class == 0 { 1.0 } else { MAX_ABS_VALUE };
        let mut ca = MaybeUninit::<Coef>::uninit();
        coef(ca.as_mut_ptr(), d, &g, d.add(ma));
        let ca = ca.assume_init_ref();
        let mut two = MaybeUninit::<Coef>::uninit();
        let cb = if M == TWO {
            coef(two.as_mut_ptr(), d, &g, d.add(mb));
            two.assume_init_ref()
        } else {
            ca
        };
        for h in 0..1 + (g.n > 4) as usize {
            let (va, vb) = match M {
                ONE => {
                    let v = sample(data, &a, ga, ca, h, limit);
                    (v, v)
                }
                PAIR => sample_pair(data, &a, &b, ga, ca, h, limit),
                _ => (
                    sample(data, &a, ga, ca, h, limit),
                    sample(data, &b, gb, cb, h, limit),
                ),
            };
            if g.class == 0 {
                let ha = ca.half(h);
                let qa = rebuild(va, ha);
                let q = match M {
                    ONE => qa,
                    _ => {
                        let q = nlerp(qa, rebuild(vb, cb.half(h)), alpha, ha.active);
                        if M == PAIR && ha.any_constant {
                            // Constant over the segment: both samples are the same, not blended.
                            let k = ha.constant;
                            map4(|i| sel(k, q[i], qa[i]))
                        } else {
                            q
                        }
                    }
                };
                store(q, &g, h, d, out, stride, 0, false);
            } else {
                let v = match M {
                    ONE => va,
                    _ => {
                        let s0 = _mm_set1_ps(1.0 - alpha);
                        let s1 = _mm_set1_ps(alpha);
                        map3(|k| _mm_add_ps(_mm_mul_ps(va[k], s0), _mm_mul_ps(vb[k], s1)))
                    }
                };
                let m = _mm_set1_ps(MAX_ABS_VALUE);
                let nm = _mm_set1_ps(-MAX_ABS_VALUE);
                let v = map3(|k| _mm_min_ps(_mm_max_ps(v[k], nm), m));
                store(
                    [v[0], v[1], v[2], _mm_setzero_ps()],
                    &g,
                    h,
                    d,
                    out,
                    stride,
                    if g.class == 1 { 4 } else { 7 },
                    true,
                );
            }
        }
        ga += ca.total;
        ma += g.meta;
        if M != ONE {
            gb += cb.total;
        }
        if M == TWO {
            mb += g.meta;
        }
    }
}
