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
//! - the rotation rebuild's placement of the dropped component is free when the four lanes
//!   drop the same one, and the renormalisation is skipped when every lane in use is inside
//!   the unit ball (as the SSE2 decoder does).
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
use core::arch::aarch64::*;
use core::mem::MaybeUninit;

mod coef;
use super::common::prefetch;
use coef::{coef, map3, map4, sel, Coef, Half, RAW};

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

/// The three components of half `h` of the stored frame whose group fields start at `bit`.
#[inline(always)]
unsafe fn frame(data: &[u8], bit: usize, c: &Coef, h: usize, limit: f32) -> [float32x4_t; 3] {
    let hf = c.half(h);
    if c.raw {
        return frame_raw(data, bit, c, hf, limit);
    }
    let d = data.as_ptr();
    map3(|k| {
        let b = bit + c.start[k];
        let win = vld1q_u8_x2(d.add(b >> 3));
        let q = fields(win, vdupq_n_u32((b & 7) as u32), hf.off[k], hf.mask[k]);
        vaddq_f32(
            vmulq_f32(vcvtq_f32_s32(vreinterpretq_s32_u32(q)), hf.mul[k]),
            hf.add[k],
        )
    })
}

/// [`frame`] of a group with a raw `f32` lane, lane by lane.
#[cold]
#[inline(never)]
unsafe fn frame_raw(data: &[u8], bit: usize, c: &Coef, h: &Half, limit: f32) -> [float32x4_t; 3] {
    let mut v = [vdupq_n_f32(0.0); 3];
    for (k, v) in v.iter_mut().enumerate() {
        let mut mul = [0f32; 4];
        let mut add = [0f32; 4];
        let mut off = [0u32; 4];
        let mut rates = [0u32; 4];
        vst1q_f32(mul.as_mut_ptr(), h.mul[k]);
        vst1q_f32(add.as_mut_ptr(), h.add[k]);
        vst1q_u32(off.as_mut_ptr(), h.off[k]);
        vst1q_u32(rates.as_mut_ptr(), h.rates[k]);
        let r: [f32; 4] = core::array::from_fn(|l| {
            let at = bit + c.start[k] + off[l] as usize;
            if rates[l] == RAW {
                super::common::raw_value(read_bits(data, at, 32), limit)
            } else {
                let w = rate_bits(rates[l] as u8);
                (read_bits(data, at, w) as i32) as f32 * mul[l] + add[l]
            }
        });
        *v = vld1q_f32(r.as_ptr());
    }
    v
}

/// The keyframe blend of a dropped sample.
#[inline(always)]
unsafe fn blend(a: [float32x4_t; 3], n: [float32x4_t; 3], t: f32) -> [float32x4_t; 3] {
    let t = vdupq_n_f32(t);
    map3(|k| vaddq_f32(a[k], vmulq_f32(vsubq_f32(n[k], a[k]), t)))
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
) -> [float32x4_t; 3] {
    let a = frame(data, pos.bit + gbit, c, h, limit);
    if pos.t > 0.0 {
        let n = frame(data, pos.bit + pos.fb + gbit, c, h, limit);
        blend(a, n, pos.t)
    } else {
        a
    }
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
) -> ([float32x4_t; 3], [float32x4_t; 3]) {
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
unsafe fn rebuild(s: [float32x4_t; 3], h: &Half) -> [float32x4_t; 4] {
    let one = vdupq_n_f32(1.0);
    let len2 = vaddq_f32(
        vaddq_f32(vmulq_f32(s[0], s[0]), vmulq_f32(s[1], s[1])),
        vmulq_f32(s[2], s[2]),
    );
    let inside = vcleq_f32(len2, one);
    let dd = vreinterpretq_f32_u32(vandq_u32(
        inside,
        vreinterpretq_u32_f32(vsqrtq_f32(vsubq_f32(one, len2))),
    ));
    // Every lane in use inside the unit ball (the usual case): no renormalisation.
    let [a, b, c] = if vminvq_u32(vorrq_u32(inside, h.unused)) == u32::MAX {
        s
    } else {
        let r = vdivq_f32(one, vsqrtq_f32(len2));
        map3(|k| sel(inside, vmulq_f32(s[k], r), s[k]))
    };
    match h.udrop {
        0 => [dd, a, b, c],
        1 => [a, dd, b, c],
        2 => [a, b, dd, c],
        3 => [a, b, c, dd],
        _ => {
            let d = h.drop;
            let eq = |k: u32| vceqq_u32(d, vdupq_n_u32(k));
            let (e0, e1, e2, e3) = (eq(0), eq(1), eq(2), eq(3));
            [
                sel(e0, a, dd),
                sel(e0, sel(e1, b, dd), a),
                sel(vorrq_u32(e0, e1), sel(e2, c, dd), b),
                sel(e3, c, dd),
            ]
        }
    }
}

#[inline(always)]
unsafe fn dot(p: &[float32x4_t; 4], q: &[float32x4_t; 4]) -> float32x4_t {
    vaddq_f32(
        vaddq_f32(vmulq_f32(p[0], q[0]), vmulq_f32(p[2], q[2])),
        vaddq_f32(vmulq_f32(p[1], q[1]), vmulq_f32(p[3], q[3])),
    )
}

/// `nlerp_shortest` per lane (the operations of `blend::nlerp4`).
#[inline(always)]
unsafe fn nlerp(a: [float32x4_t; 4], b: [float32x4_t; 4], t: f32) -> [float32x4_t; 4] {
    let d = dot(&a, &b);
    let flip = vandq_u32(vcltq_f32(d, vdupq_n_f32(0.0)), vdupq_n_u32(0x8000_0000));
    let tv = vdupq_n_f32(t);
    let v = map4(|k| {
        let bk = vreinterpretq_f32_u32(veorq_u32(vreinterpretq_u32_f32(b[k]), flip));
        vaddq_f32(a[k], vmulq_f32(vsubq_f32(bk, a[k]), tv))
    });
    let len2 = dot(&v, &v);
    let r = vdivq_f32(vdupq_n_f32(1.0), vsqrtq_f32(len2));
    let ok = vcgtq_f32(len2, vdupq_n_f32(0.0));
    map4(|k| sel(ok, a[k], vmulq_f32(v[k], r)))
}

/// Three floats of `v` at `dst`.
#[inline(always)]
unsafe fn put3(dst: *mut f32, v: float32x4_t) {
    vst1_f32(dst, vget_low_f32(v));
    vst1q_lane_f32::<2>(dst.add(2), v);
}

/// The lanes of half `h` of four component registers as four-float rows at
/// `joint * stride + at`; rows of three floats when `three`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn store(
    q: [float32x4_t; 4],
    g: &Record,
    h: usize,
    d: *const u8,
    out: *mut f32,
    stride: usize,
    at: usize,
    three: bool,
) {
    let t0 = vzip1q_f32(q[0], q[1]);
    let t1 = vzip2q_f32(q[0], q[1]);
    let t2 = vzip1q_f32(q[2], q[3]);
    let t3 = vzip2q_f32(q[2], q[3]);
    let f = vreinterpretq_f64_f32;
    let back = vreinterpretq_f32_f64;
    let r = [
        back(vzip1q_f64(f(t0), f(t2))),
        back(vzip2q_f64(f(t0), f(t2))),
        back(vzip1q_f64(f(t1), f(t3))),
        back(vzip2q_f64(f(t1), f(t3))),
    ];
    let lanes = (g.n - 4 * h).min(4);
    for (l, &row) in r.iter().enumerate().take(lanes) {
        let joint = read_joint(d, g.joints, g.joint_shift, 4 * h + l);
        let dst = out.add(joint * stride + at);
        if three {
            put3(dst, row);
        } else {
            vst1q_f32(dst, row);
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
    // One split of the key serves the hints and the walk.
    let sp = split(p, key);
    prefetch(p, &sp);
    write_statics(
        p,
        crate::runtime::PoseRows::ten(out, stride),
        channels,
        |dst, src| vst1q_f32(dst, vld1q_f32(src)),
        |dst, src| put3(dst, vld1q_f32(src)),
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
                        let s0 = vdupq_n_f32(1.0 - alpha);
                        let s1 = vdupq_n_f32(alpha);
                        map3(|k| vaddq_f32(vmulq_f32(va[k], s0), vmulq_f32(vb[k], s1)))
                    }
                };
                let m = vdupq_n_f32(MAX_ABS_VALUE);
                let nm = vdupq_n_f32(-MAX_ABS_VALUE);
                let v = map3(|k| vminnmq_f32(vmaxnmq_f32(v[k], nm), m));
                let zero = vdupq_n_f32(0.0);
                store(
                    [v[0], v[1], v[2], zero],
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
