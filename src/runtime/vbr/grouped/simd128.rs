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
//! Two samples in one segment decode a stored frame they both read once.

use super::common::read_joint;
use super::common::{positions, split, write_statics, Pos, Record, Split, ONE, PAIR, TWO};
use super::View;
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::quantize::bits::read_bits;
use crate::format::vbr::bitrate::rate_bits;
use crate::math::CHANNEL_OFFSETS;
use crate::runtime::SampleKey;
use core::arch::wasm32::*;
use core::mem::MaybeUninit;

mod coef;
use coef::{coef, map3, map4, sel, Coef, Half, RAW};

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

/// The three components of half `h` of the stored frame whose group fields start at `bit`.
#[inline(always)]
unsafe fn frame(data: &[u8], bit: usize, c: &Coef, h: usize, limit: f32) -> [v128; 3] {
    let hf = c.half(h);
    if c.raw {
        return frame_raw(data, bit, c, hf, h, limit);
    }
    let fb = data.as_ptr().add(bit >> 3);
    let r = (bit & 7) as u32;
    map3(|k| {
        let q = fields(fb, r, c, hf, h, k);
        f32x4_add(f32x4_mul(f32x4_convert_i32x4(q), hf.mul[k]), hf.add[k])
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
) -> [v128; 3] {
    let mut v = [f32x4_splat(0.0); 3];
    for (k, v) in v.iter_mut().enumerate() {
        let mut mul = [0f32; 4];
        let mut add = [0f32; 4];
        v128_store(mul.as_mut_ptr() as *mut v128, h.mul[k]);
        v128_store(add.as_mut_ptr() as *mut v128, h.add[k]);
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
        *v = v128_load(r.as_ptr() as *const v128);
    }
    v
}

/// Half `h` of a group at a sample: its stored frame, blended towards the next one for a
/// dropped sample.
#[inline(always)]
unsafe fn sample(data: &[u8], pos: &Pos, gbit: usize, c: &Coef, h: usize, limit: f32) -> [v128; 3] {
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
fn blend(a: [v128; 3], n: [v128; 3], t: f32) -> [v128; 3] {
    let t = f32x4_splat(t);
    map3(|k| f32x4_add(a[k], f32x4_mul(f32x4_sub(n[k], a[k]), t)))
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
) -> ([v128; 3], [v128; 3]) {
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
fn rebuild(s: [v128; 3], h: &Half) -> [v128; 4] {
    let one = f32x4_splat(1.0);
    let len2 = f32x4_add(
        f32x4_add(f32x4_mul(s[0], s[0]), f32x4_mul(s[1], s[1])),
        f32x4_mul(s[2], s[2]),
    );
    let inside = f32x4_le(len2, one);
    let dd = v128_and(inside, f32x4_sqrt(f32x4_sub(one, len2)));
    // Every lane in use inside the unit ball (the usual case): no renormalisation.
    let [a, b, c] = if i32x4_bitmask(inside) & h.active == h.active {
        s
    } else {
        let r = f32x4_div(one, f32x4_sqrt(len2));
        map3(|k| sel(inside, f32x4_mul(s[k], r), s[k]))
    };
    match h.udrop {
        0 => [dd, a, b, c],
        1 => [a, dd, b, c],
        2 => [a, b, dd, c],
        3 => [a, b, c, dd],
        _ => {
            let d = h.drop;
            let eq = |k: i32| i32x4_eq(d, i32x4_splat(k));
            let (e0, e1, e2, e3) = (eq(0), eq(1), eq(2), eq(3));
            [
                sel(e0, a, dd),
                sel(e0, sel(e1, b, dd), a),
                sel(v128_or(e0, e1), sel(e2, c, dd), b),
                sel(e3, c, dd),
            ]
        }
    }
}

#[inline(always)]
fn dot(p: &[v128; 4], q: &[v128; 4]) -> v128 {
    f32x4_add(
        f32x4_add(f32x4_mul(p[0], q[0]), f32x4_mul(p[2], q[2])),
        f32x4_add(f32x4_mul(p[1], q[1]), f32x4_mul(p[3], q[3])),
    )
}

/// `nlerp_shortest` per lane (the operations of `blend::nlerp4`).
#[inline(always)]
fn nlerp(a: [v128; 4], b: [v128; 4], t: f32) -> [v128; 4] {
    let d = dot(&a, &b);
    let flip = v128_and(f32x4_lt(d, f32x4_splat(0.0)), f32x4_splat(-0.0));
    let tv = f32x4_splat(t);
    let v = map4(|k| f32x4_add(a[k], f32x4_mul(f32x4_sub(v128_xor(b[k], flip), a[k]), tv)));
    let len2 = dot(&v, &v);
    let r = f32x4_div(f32x4_splat(1.0), f32x4_sqrt(len2));
    let ok = f32x4_gt(len2, f32x4_splat(0.0));
    map4(|k| sel(ok, a[k], f32x4_mul(v[k], r)))
}

/// Three floats of `v` at `dst`.
#[inline(always)]
unsafe fn put3(dst: *mut f32, v: v128) {
    v128_store64_lane::<0>(v, dst as *mut u64);
    v128_store32_lane::<2>(v, dst.add(2) as *mut u32);
}

/// The lanes of half `h` of four component registers as four-float rows at
/// `joint * stride + at`; rows of three floats when `three`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn store(
    q: [v128; 4],
    g: &Record,
    h: usize,
    d: *const u8,
    out: *mut f32,
    stride: usize,
    at: usize,
    three: bool,
) {
    let t0 = i32x4_shuffle::<0, 4, 1, 5>(q[0], q[1]);
    let t1 = i32x4_shuffle::<2, 6, 3, 7>(q[0], q[1]);
    let t2 = i32x4_shuffle::<0, 4, 1, 5>(q[2], q[3]);
    let t3 = i32x4_shuffle::<2, 6, 3, 7>(q[2], q[3]);
    let r = [
        i64x2_shuffle::<0, 2>(t0, t2),
        i64x2_shuffle::<1, 3>(t0, t2),
        i64x2_shuffle::<0, 2>(t1, t3),
        i64x2_shuffle::<1, 3>(t1, t3),
    ];
    let lanes = (g.n - 4 * h).min(4);
    for (l, &row) in r.iter().enumerate().take(lanes) {
        let joint = read_joint(d, g.joints, g.joint_shift, 4 * h + l);
        let dst = out.add(joint * stride + at);
        if three {
            put3(dst, row);
        } else {
            v128_store(dst as *mut v128, row);
        }
    }
}

/// Samples every joint at `key` into `out` (10 floats per joint at `stride`). The caller checks
/// the key and that `out` holds every joint.
pub(super) unsafe fn sample_pose(p: &View, key: &SampleKey, out: *mut f32, stride: usize) {
    sample_channels(p, key, out, stride, 7)
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
    debug_assert!(matches!(channels, 1 | 3 | 7));
    let sp = split(p, key);
    write_statics(
        p,
        crate::runtime::PoseRows::ten(out, stride),
        channels,
        |dst, src| v128_store(dst as *mut v128, v128_load(src as *const v128)),
        |dst, src| put3(dst, v128_load(src as *const v128)),
    );
    match sp.case {
        PAIR => walk::<PAIR>(p, key, &sp, out, stride, channels),
        TWO => walk::<TWO>(p, key, &sp, out, stride, channels),
        _ => walk::<ONE>(p, key, &sp, out, stride, channels),
    }
}

#[inline(always)]
unsafe fn walk<const M: u8>(
    p: &View,
    key: &SampleKey,
    sp: &Split,
    out: *mut f32,
    stride: usize,
    channels: u32,
) {
    let data = p.data;
    let d = data.as_ptr();
    let (a, b) = positions(p, sp);
    let (mut ma, mut mb, mut ga, mut gb) = (a.meta, b.meta, 0usize, 0usize);
    let alpha = key.alpha;
    let mut rec = 0;
    for gi in 0..p.num_groups {
        let g = Record::at(d, rec);
        if channels & (1 << g.class) == 0 {
            break;
        }
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
                        let q = nlerp(qa, rebuild(vb, cb.half(h)), alpha);
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
                        let s0 = f32x4_splat(1.0 - alpha);
                        let s1 = f32x4_splat(alpha);
                        map3(|k| f32x4_add(f32x4_mul(va[k], s0), f32x4_mul(vb[k], s1)))
                    }
                };
                let m = f32x4_splat(MAX_ABS_VALUE);
                let nm = f32x4_splat(-MAX_ABS_VALUE);
                // x86's `maxps(v, nm)` then `minps(v, m)`.
                let v = map3(|k| f32x4_pmin(m, f32x4_pmax(nm, v[k])));
                store(
                    [v[0], v[1], v[2], f32x4_splat(0.0)],
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
