//! The whole-pose walk of the decoders with four 32-bit lanes (SSE2, NEON, `simd128`): a
//! group's eight sub-tracks as two halves of four lanes, written once over [`Lanes4`], which
//! each of those decoders implements in its own file with its instructions. Every operation is
//! `#[inline(always)]`, so each instance compiles to straight-line code of its instructions, as
//! a hand-written walk would.
//!
//! Every lane performs the AVX2 decoder's float operations in its order (no fused multiply-add,
//! no estimates), so poses are bit for bit its poses and the `vbr` decoder's. A group's
//! coefficients in a segment are computed once too, in [`coef`] (`lanes4/coef.rs`); what an ISA
//! does its own way (where a lane's field is found, the clamp's NaN rule, the rate fields'
//! unpacking) is a method of [`Lanes4`].
//!
//! Each channel's rows are written at `base[channel] + joint * stride[channel]` ([`PoseRows`]):
//! the ten-float pose and the f32 layouts of `runtime::layout` alike.
//!
//! Two samples in one segment decode a stored frame they both read once.

use super::common::read_joint;
use super::common::{positions, split, write_statics, Far, Here, Pos, Record, Split, Src};
use super::common::{ONE_SAMPLE, SAME_SEGMENT, TWO_SEGMENTS};
use super::View;
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::quantize::bits::read_bits;
use crate::format::vbr::bitrate::{rate_bits, RATE_RAW};
use crate::runtime::{PoseRows, SampleKey};
use core::mem::MaybeUninit;

mod coef;
use coef::coef;
pub(super) use coef::{Coef, Half};

/// Four 32-bit lanes of one instruction set: the operations the walk and the coefficients
/// ([`coef`]) perform, and where the ISA finds a lane's field in a frame. Implemented by a
/// zero-sized type per ISA; every method is `#[inline(always)]`.
pub(super) trait Lanes4: Sized {
    /// Four floats.
    type F: Copy;
    /// A mask of four lanes (all ones or all zeros each).
    type M: Copy;
    /// 128 integer bits: four 32-bit lanes or eight 16-bit lanes, as the operation says.
    type I: Copy;
    /// Where the ISA finds the fields of a group's lanes in a frame, per group and segment.
    type Fields;
    /// The same, per half.
    type HalfFields;
    /// The lanes in use of a half, as [`Lanes4::all`] and [`Lanes4::any`] test them.
    type InUse: Copy;

    unsafe fn splat(x: f32) -> Self::F;
    unsafe fn add(a: Self::F, b: Self::F) -> Self::F;
    unsafe fn sub(a: Self::F, b: Self::F) -> Self::F;
    unsafe fn mul(a: Self::F, b: Self::F) -> Self::F;
    unsafe fn div(a: Self::F, b: Self::F) -> Self::F;
    unsafe fn sqrt(a: Self::F) -> Self::F;
    /// `a ^ b`, bitwise.
    unsafe fn xor(a: Self::F, b: Self::F) -> Self::F;
    /// `a <= b`.
    unsafe fn le(a: Self::F, b: Self::F) -> Self::M;
    /// `a < b`.
    unsafe fn lt(a: Self::F, b: Self::F) -> Self::M;
    /// `a > b`.
    unsafe fn gt(a: Self::F, b: Self::F) -> Self::M;
    unsafe fn or(a: Self::M, b: Self::M) -> Self::M;
    /// `x` where `m`, else 0.
    unsafe fn and(m: Self::M, x: Self::F) -> Self::F;
    /// `x` where not `m`, else 0.
    unsafe fn andnot(m: Self::M, x: Self::F) -> Self::F;
    /// `b` where `m`, else `a` (the AVX2 decoder's `blendv` argument order).
    unsafe fn sel(m: Self::M, a: Self::F, b: Self::F) -> Self::F;
    /// `v` clamped to `[lo, hi]` as x86's `maxps(v, lo)` then `minps(_, hi)` (a NaN gives
    /// `lo`), with the ISA's instructions.
    unsafe fn clamp(v: Self::F, lo: Self::F, hi: Self::F) -> Self::F;
    /// Four floats from `p` (unaligned).
    unsafe fn load(p: *const f32) -> Self::F;
    /// Four floats at `p` (unaligned).
    unsafe fn store4(p: *mut f32, v: Self::F);
    /// The first three floats of `v` at `p` (only those bytes written).
    unsafe fn store3(p: *mut f32, v: Self::F);
    /// Rows from columns: row `l` holds lane `l` of `q[0]`, `q[1]`, `q[2]`, `q[3]`.
    unsafe fn transpose(q: [Self::F; 4]) -> [Self::F; 4];

    /// The lanes `l < n`.
    unsafe fn below(n: i32) -> Self::M;
    /// Each signed 32-bit lane converted to a float.
    unsafe fn cvt(x: Self::I) -> Self::F;
    /// Each float converted to a signed 32-bit lane, towards zero (a float out of range gives
    /// the ISA's value).
    unsafe fn trunc(x: Self::F) -> Self::I;
    /// The bits of `x` as floats.
    unsafe fn cast(x: Self::I) -> Self::F;

    /// `a & b`.
    unsafe fn and_i(a: Self::I, b: Self::I) -> Self::I;
    /// `a | b`.
    unsafe fn or_i(a: Self::I, b: Self::I) -> Self::I;
    /// `b & !a`.
    unsafe fn andnot_i(a: Self::I, b: Self::I) -> Self::I;
    /// `b` where `m`, else `a`.
    unsafe fn sel_i(m: Self::I, a: Self::I, b: Self::I) -> Self::I;
    /// Whether a bit of `x` is set.
    unsafe fn nonzero(x: Self::I) -> bool;

    unsafe fn splat16(x: u16) -> Self::I;
    unsafe fn add16(a: Self::I, b: Self::I) -> Self::I;
    unsafe fn sub16(a: Self::I, b: Self::I) -> Self::I;
    /// `a == b`.
    unsafe fn eq16(a: Self::I, b: Self::I) -> Self::I;
    /// Inclusive prefix sums of the 16-bit lanes.
    unsafe fn prefix16(x: Self::I) -> Self::I;
    /// The last 16-bit lane.
    unsafe fn last16(x: Self::I) -> u16;
    /// The 16-bit lanes at `p`.
    unsafe fn store16(p: *mut [u16; 8], x: Self::I);
    /// 16-bit lanes `4h..4h + 4` of `x`, zero-extended to 32 bits.
    unsafe fn widen16(x: Self::I, h: usize) -> Self::I;
    /// 16-bit lanes `4h..4h + 4` of the mask `x`, as a mask.
    unsafe fn widen_mask16(x: Self::I, h: usize) -> Self::M;
    /// The eight 5-bit fields (lane `l` at bits `5l`) of `w` (at most 40 bits), in 16-bit lanes.
    unsafe fn rates8(w: u64) -> Self::I;

    unsafe fn splat32(x: i32) -> Self::I;
    unsafe fn add32(a: Self::I, b: Self::I) -> Self::I;
    unsafe fn sub32(a: Self::I, b: Self::I) -> Self::I;
    /// `a > b`, signed.
    unsafe fn gt32(a: Self::I, b: Self::I) -> Self::I;
    /// Each 32-bit lane shifted right by `N`, zeros in.
    unsafe fn shr32<const N: i32>(x: Self::I) -> Self::I;
    /// Each 32-bit lane shifted left by `N`.
    unsafe fn shl32<const N: i32>(x: Self::I) -> Self::I;
    /// Four 32-bit lanes from `p` (unaligned).
    unsafe fn load32(p: *const u8) -> Self::I;
    /// Four `u16`s from `p` (unaligned), zero-extended to 32 bits.
    unsafe fn load16x4(p: *const u8) -> Self::I;
    /// The four 2-bit fields (lane `l` at bits `2l`) of the 8 low bits of `x`.
    unsafe fn two_bits4(x: u32) -> Self::I;

    /// Writes where the ISA finds component `k`'s fields into `c` (and into its halves, half 1
    /// only when `two_halves`): `excl` each lane's bit from the component's first (16-bit lanes),
    /// `start` the component's first bit from the group's.
    unsafe fn locate(c: *mut Coef<Self>, k: usize, excl: Self::I, start: usize, two_halves: bool);
    /// The components of half `hi` of the stored frame whose group fields start at `bit`
    /// (`q * mul + add`; no raw lane).
    unsafe fn frame(data: &[u8], bit: usize, c: &Coef<Self>, hi: usize) -> [Self::F; 3];
    /// Per lane of half `hi`, the bit of component `k`'s field from the group's first bit in a
    /// frame (the raw lanes' path).
    unsafe fn offsets(c: &Coef<Self>, hi: usize, k: usize) -> [usize; 4];
    /// The first `lanes` lanes (1 to 4).
    unsafe fn in_use(lanes: usize) -> Self::InUse;
    /// Whether every lane of `in_use` is set in `m`.
    unsafe fn all(m: Self::M, in_use: Self::InUse) -> bool;
    /// Whether a lane of `in_use` is set in `m`.
    unsafe fn any(m: Self::M, in_use: Self::InUse) -> bool;
    /// The lanes that drop component `k` (rotations).
    unsafe fn drops(h: &Half<Self>, k: u32) -> Self::M;
}

/// `[f(0), f(1), f(2)]` (`array::map` is not always inlined).
#[inline(always)]
pub(super) fn map3<T>(f: impl Fn(usize) -> T) -> [T; 3] {
    [f(0), f(1), f(2)]
}

/// `[f(0), f(1), f(2), f(3)]`.
#[inline(always)]
pub(super) fn map4<T>(f: impl Fn(usize) -> T) -> [T; 4] {
    [f(0), f(1), f(2), f(3)]
}

/// The three components of half `h` of the stored frame whose group fields start at `bit`.
#[inline(always)]
unsafe fn frame<L: Lanes4>(
    data: &[u8],
    bit: usize,
    c: &Coef<L>,
    h: usize,
    limit: f32,
) -> [L::F; 3] {
    if c.raw {
        return frame_raw::<L>(data, bit, c, h, limit);
    }
    L::frame(data, bit, c, h)
}

/// [`frame`] of a group with a raw `f32` lane, lane by lane.
#[cold]
#[inline(never)]
unsafe fn frame_raw<L: Lanes4>(
    data: &[u8],
    bit: usize,
    c: &Coef<L>,
    h: usize,
    limit: f32,
) -> [L::F; 3] {
    let hf = c.half(h);
    let mut v = [L::splat(0.0); 3];
    for (k, v) in v.iter_mut().enumerate() {
        let (mut m, mut a) = ([0f32; 4], [0f32; 4]);
        L::store4(m.as_mut_ptr(), hf.mul[k]);
        L::store4(a.as_mut_ptr(), hf.add[k]);
        let off = L::offsets(c, h, k);
        let r: [f32; 4] = core::array::from_fn(|l| {
            let at = bit + off[l];
            let rate = c.rates[k][4 * h + l];
            if rate == RATE_RAW as u16 {
                super::common::raw_value(read_bits(data, at, 32), limit)
            } else {
                let w = rate_bits(rate as u8);
                (read_bits(data, at, w) as i32) as f32 * m[l] + a[l]
            }
        });
        *v = L::load(r.as_ptr());
    }
    v
}

/// The keyframe blend of a dropped sample.
#[inline(always)]
unsafe fn blend<L: Lanes4>(a: [L::F; 3], n: [L::F; 3], t: f32) -> [L::F; 3] {
    let t = L::splat(t);
    map3(|k| L::add(a[k], L::mul(L::sub(n[k], a[k]), t)))
}

/// Half `h` of a group at a sample: its stored frame, blended towards the next one for a
/// dropped sample.
#[inline(always)]
unsafe fn sample<'a, L: Lanes4, S: Src<'a>>(
    data: &'a [u8],
    pos: &Pos<S>,
    first_bit: usize,
    c: &Coef<L>,
    h: usize,
    limit: f32,
) -> [L::F; 3] {
    let a = frame::<L>(pos.data(data), pos.bit + first_bit, c, h, limit);
    if pos.t > 0.0 {
        let (next, bit) = pos.next(data);
        let n = frame::<L>(next, bit + first_bit, c, h, limit);
        blend::<L>(a, n, pos.t)
    } else {
        a
    }
}

/// Half `h` of a group at two samples of one segment (`a` and `b`, the same coefficients):
/// [`sample`] of each, a stored frame both read decoded once.
#[inline(always)]
unsafe fn sample_pair<'a, L: Lanes4, S: Src<'a>>(
    data: &'a [u8],
    a: &Pos<S>,
    b: &Pos<S>,
    first_bit: usize,
    c: &Coef<L>,
    h: usize,
    limit: f32,
) -> ([L::F; 3], [L::F; 3]) {
    let a0 = frame::<L>(a.data(data), a.bit + first_bit, c, h, limit);
    let a1 = if a.t > 0.0 {
        let (next, bit) = a.next(data);
        frame::<L>(next, bit + first_bit, c, h, limit)
    } else {
        a0
    };
    let va = if a.t > 0.0 {
        blend::<L>(a0, a1, a.t)
    } else {
        a0
    };
    let b0 = if b.same_frame(a) {
        a0
    } else if a.next_is(b) && a.t > 0.0 {
        a1
    } else {
        frame::<L>(b.data(data), b.bit + first_bit, c, h, limit)
    };
    let vb = if b.t > 0.0 {
        let b1 = if b.same_frame(a) && a.t > 0.0 {
            a1
        } else {
            let (next, bit) = b.next(data);
            frame::<L>(next, bit + first_bit, c, h, limit)
        };
        blend::<L>(b0, b1, b.t)
    } else {
        b0
    };
    (va, vb)
}

/// Rotations from their stored slots and dropped components (of half `h`). The placement of
/// the dropped component is free when the four lanes drop the same one, and the
/// renormalisation is skipped when every lane in use is inside the unit ball.
#[inline(always)]
unsafe fn rebuild<L: Lanes4>(s: [L::F; 3], h: &Half<L>) -> [L::F; 4] {
    let one = L::splat(1.0);
    let len2 = L::add(
        L::add(L::mul(s[0], s[0]), L::mul(s[1], s[1])),
        L::mul(s[2], s[2]),
    );
    let inside = L::le(len2, one);
    let dropped_value = L::and(inside, L::sqrt(L::sub(one, len2)));
    // Every lane in use inside the unit ball (the usual case): no renormalisation.
    let [a, b, c] = if L::all(inside, h.in_use) {
        s
    } else {
        let r = L::div(one, L::sqrt(len2));
        map3(|k| L::sel(inside, L::mul(s[k], r), s[k]))
    };
    match h.udrop {
        0 => [dropped_value, a, b, c],
        1 => [a, dropped_value, b, c],
        2 => [a, b, dropped_value, c],
        3 => [a, b, c, dropped_value],
        _ => {
            let (e0, e1, e2, e3) = (
                L::drops(h, 0),
                L::drops(h, 1),
                L::drops(h, 2),
                L::drops(h, 3),
            );
            [
                L::sel(e0, a, dropped_value),
                L::sel(e0, L::sel(e1, b, dropped_value), a),
                L::sel(L::or(e0, e1), L::sel(e2, c, dropped_value), b),
                L::sel(e3, c, dropped_value),
            ]
        }
    }
}

#[inline(always)]
unsafe fn dot<L: Lanes4>(p: &[L::F; 4], q: &[L::F; 4]) -> L::F {
    L::add(
        L::add(L::mul(p[0], q[0]), L::mul(p[2], q[2])),
        L::add(L::mul(p[1], q[1]), L::mul(p[3], q[3])),
    )
}

/// `nlerp_shortest` per lane (the operations of `blend::nlerp4`); `h` the half of the lanes.
#[inline(always)]
unsafe fn nlerp<L: Lanes4>(a: [L::F; 4], b: [L::F; 4], t: f32, h: &Half<L>) -> [L::F; 4] {
    let d = dot::<L>(&a, &b);
    let flip = L::and(L::lt(d, L::splat(0.0)), L::splat(-0.0));
    let tv = L::splat(t);
    let v = map4(|k| L::add(a[k], L::mul(L::sub(L::xor(b[k], flip), a[k]), tv)));
    let len2 = dot::<L>(&v, &v);
    let r = L::div(L::splat(1.0), L::sqrt(len2));
    let ok = L::gt(len2, L::splat(0.0));
    if L::all(ok, h.in_use) {
        map4(|k| L::mul(v[k], r))
    } else {
        map4(|k| L::sel(ok, a[k], L::mul(v[k], r)))
    }
}

/// The lanes of half `h` of four component registers as rows at `base + joint * stride`: four
/// floats, or three when `three`.
#[inline(always)]
unsafe fn store<L: Lanes4>(
    q: [L::F; 4],
    g: &Record,
    h: usize,
    d: *const u8,
    (base, stride): (*mut f32, usize),
    three: bool,
) {
    let r = L::transpose(q);
    let put = |l: usize, row: L::F| {
        let dst = base.add(read_joint(d, g.joints, g.joint_shift, 4 * h + l) * stride);
        if three {
            L::store3(dst, row);
        } else {
            L::store4(dst, row);
        }
    };
    if g.n >= 4 * h + 4 {
        // Most halves are full: straight-line stores.
        for (l, &row) in r.iter().enumerate() {
            put(l, row);
        }
    } else {
        for (l, &row) in r.iter().enumerate().take(g.n - 4 * h) {
            put(l, row);
        }
    }
}

/// Samples every joint's channels of `channels` at `key` into `rows`: the rotations, or the
/// rotations and translations, or all three (7); the groups are in channel order, so the walk
/// stops at the first group of a channel not asked for. The caller checks the key and that
/// `rows` hold every joint.
#[inline(always)]
pub(super) unsafe fn sample_rows<L: Lanes4>(
    view: &View,
    key: &SampleKey,
    rows: PoseRows,
    channels: u32,
) {
    debug_assert!(matches!(channels, 1 | 3 | 7));
    // One split of the key serves the hints and the walk.
    let key_split = split(view, key);
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    super::common::prefetch(view, &key_split);
    write_statics(
        view,
        rows,
        channels,
        |dst, src| L::store4(dst, L::load(src)),
        |dst, src| L::store3(dst, L::load(src)),
    );
    if view.tiers.is_some() {
        return match key_split.case {
            SAME_SEGMENT => walk::<L, Far, SAME_SEGMENT>(view, key, &key_split, rows, channels),
            TWO_SEGMENTS => walk::<L, Far, TWO_SEGMENTS>(view, key, &key_split, rows, channels),
            _ => walk::<L, Far, ONE_SAMPLE>(view, key, &key_split, rows, channels),
        };
    }
    match key_split.case {
        SAME_SEGMENT => walk::<L, Here, SAME_SEGMENT>(view, key, &key_split, rows, channels),
        TWO_SEGMENTS => walk::<L, Here, TWO_SEGMENTS>(view, key, &key_split, rows, channels),
        _ => walk::<L, Here, ONE_SAMPLE>(view, key, &key_split, rows, channels),
    }
}

#[inline(always)]
unsafe fn walk<'a, L: Lanes4, S: Src<'a>, const CASE: u8>(
    view: &View<'a>,
    key: &SampleKey,
    key_split: &Split,
    rows: PoseRows,
    channels: u32,
) {
    let data = view.data;
    let data_ptr = data.as_ptr();
    let (a, b) = positions::<S>(view, key_split);
    let (mut meta_a, mut meta_b, mut first_bit_a, mut first_bit_b) =
        (a.meta, b.meta, 0usize, 0usize);
    let alpha = key.alpha;
    let mut record_offset = 0;
    for group_index in 0..view.num_groups {
        let group = Record::at(data_ptr, record_offset);
        if channels & (1 << group.class) == 0 {
            break;
        }
        record_offset += group.size;
        if group.n == 1 {
            // A group of one lane, decoded alone (as the AVX2 walk does).
            let at = [
                (record_offset - group.size) as u32,
                (meta_a - a.meta) as u32,
            ];
            let v = super::subset::lone_group(
                view,
                key,
                (a, b),
                CASE,
                at,
                (first_bit_a, first_bit_b),
                group.class == 0,
            );
            let channel = group.class as usize % 3;
            let dst = rows.at(
                read_joint(data_ptr, group.joints, group.joint_shift, 0),
                channel,
            );
            core::ptr::copy_nonoverlapping(v.as_ptr(), dst, if channel == 0 { 4 } else { 3 });
            if group_index + 1 < view.num_groups {
                first_bit_a += super::subset::lone_bits(view, meta_a);
                first_bit_b += super::subset::lone_bits(
                    view,
                    if CASE == TWO_SEGMENTS { meta_b } else { meta_a },
                );
                meta_a += group.meta;
                meta_b += group.meta;
            }
            continue;
        }
        let limit = if group.class == 0 { 1.0 } else { MAX_ABS_VALUE };
        let channel = group.class as usize % 3;
        let to = (rows.base[channel], rows.stride[channel]);
        let mut coef_a = MaybeUninit::<Coef<L>>::uninit();
        coef::<L>(coef_a.as_mut_ptr(), data_ptr, &group, data_ptr.add(meta_a));
        let coef_a = coef_a.assume_init_ref();
        let mut coef_b_storage = MaybeUninit::<Coef<L>>::uninit();
        let coef_b = if CASE == TWO_SEGMENTS {
            coef::<L>(
                coef_b_storage.as_mut_ptr(),
                data_ptr,
                &group,
                data_ptr.add(meta_b),
            );
            coef_b_storage.assume_init_ref()
        } else {
            coef_a
        };
        for h in 0..1 + (group.n > 4) as usize {
            let (va, vb) = match CASE {
                ONE_SAMPLE => {
                    let v = sample::<L, S>(data, &a, first_bit_a, coef_a, h, limit);
                    (v, v)
                }
                SAME_SEGMENT => sample_pair::<L, S>(data, &a, &b, first_bit_a, coef_a, h, limit),
                _ => (
                    sample::<L, S>(data, &a, first_bit_a, coef_a, h, limit),
                    sample::<L, S>(data, &b, first_bit_b, coef_b, h, limit),
                ),
            };
            if group.class == 0 {
                let ha = coef_a.half(h);
                let qa = rebuild::<L>(va, ha);
                let q = match CASE {
                    ONE_SAMPLE => qa,
                    _ => {
                        let q = nlerp::<L>(qa, rebuild::<L>(vb, coef_b.half(h)), alpha, ha);
                        if CASE == SAME_SEGMENT && ha.any_constant {
                            // Constant over the segment: both samples are the same, not blended.
                            let k = ha.constant;
                            map4(|i| L::sel(k, q[i], qa[i]))
                        } else {
                            q
                        }
                    }
                };
                store::<L>(q, &group, h, data_ptr, to, false);
            } else {
                let v = match CASE {
                    ONE_SAMPLE => va,
                    _ => {
                        let s0 = L::splat(1.0 - alpha);
                        let s1 = L::splat(alpha);
                        map3(|k| L::add(L::mul(va[k], s0), L::mul(vb[k], s1)))
                    }
                };
                let max_abs = L::splat(MAX_ABS_VALUE);
                let neg_max_abs = L::splat(-MAX_ABS_VALUE);
                let v = map3(|k| L::clamp(v[k], neg_max_abs, max_abs));
                store::<L>(
                    [v[0], v[1], v[2], L::splat(0.0)],
                    &group,
                    h,
                    data_ptr,
                    to,
                    true,
                );
            }
        }
        first_bit_a += coef_a.total;
        meta_a += group.meta;
        if CASE != ONE_SAMPLE {
            first_bit_b += coef_b.total;
        }
        if CASE == TWO_SEGMENTS {
            meta_b += group.meta;
        }
    }
}
