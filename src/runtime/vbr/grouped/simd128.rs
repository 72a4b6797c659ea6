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
//! The walk and the coefficients are `lanes4.rs`'s (`lanes4/coef.rs`), over [`Simd128`]; this
//! file holds the instructions.

use super::lanes4::{self, map3, map4, sample_rows, Lanes4};
use super::View;
use crate::runtime::{PoseRows, SampleKey};
use core::arch::wasm32::*;

type Coef = lanes4::Coef<Simd128>;
type Half = lanes4::Half<Simd128>;

/// Where a group's fields are, per group and segment, per component and lane: the byte of its
/// field from the frame's first byte (less the frame's first bit in its byte), lanes 0, 2, 4 and
/// 6 their pairs' windows; the bit of its field in its pair's window (less the frame's first
/// bit in its byte), a `u64x2_shr` count; and the bit of its field from the group's first bit
/// in a frame.
pub(super) struct Fields {
    byte: [[u16; 8]; 3],
    cnt: [[u16; 8]; 3],
    off: [[u16; 8]; 3],
}

/// The fields of component `k` of half `hi`'s lanes in the frame whose first byte is `fb` and
/// first bit in it `r`.
#[inline(always)]
unsafe fn fields(fb: *const u8, r: u32, c: &Coef, h: &Half, hi: usize, k: usize) -> v128 {
    // Each pair's 64-bit window holds its two fields from bit `r + cnt` (at most 7 + 7 + 24 +
    // 24 bits).
    let byte = &c.fields.byte[k];
    let w0 = v128_load64_zero(fb.add(*byte.get_unchecked(4 * hi) as usize) as *const u64);
    let w2 = v128_load64_zero(fb.add(*byte.get_unchecked(4 * hi + 2) as usize) as *const u64);
    let x = u64x2_shr(i64x2_shuffle::<0, 2>(w0, w2), r);
    let cnt = &c.fields.cnt[k];
    let y = map4(|l| u64x2_shr(x, *cnt.get_unchecked(4 * hi + l) as u32));
    let q = i64x2_shuffle::<0, 2>(
        i32x4_shuffle::<0, 4, 0, 4>(y[0], y[1]),
        i32x4_shuffle::<2, 6, 2, 6>(y[2], y[3]),
    );
    v128_and(q, h.mask[k])
}

/// WebAssembly SIMD's four lanes.
pub(super) struct Simd128;

impl Lanes4 for Simd128 {
    type F = v128;
    type M = v128;
    type I = v128;
    type Fields = Fields;
    type HalfFields = ();
    /// `bitmask` bits.
    type InUse = u8;

    #[inline(always)]
    unsafe fn splat(x: f32) -> v128 {
        f32x4_splat(x)
    }
    #[inline(always)]
    unsafe fn add(a: v128, b: v128) -> v128 {
        f32x4_add(a, b)
    }
    #[inline(always)]
    unsafe fn sub(a: v128, b: v128) -> v128 {
        f32x4_sub(a, b)
    }
    #[inline(always)]
    unsafe fn mul(a: v128, b: v128) -> v128 {
        f32x4_mul(a, b)
    }
    #[inline(always)]
    unsafe fn div(a: v128, b: v128) -> v128 {
        f32x4_div(a, b)
    }
    #[inline(always)]
    unsafe fn sqrt(a: v128) -> v128 {
        f32x4_sqrt(a)
    }
    #[inline(always)]
    unsafe fn xor(a: v128, b: v128) -> v128 {
        v128_xor(a, b)
    }
    #[inline(always)]
    unsafe fn le(a: v128, b: v128) -> v128 {
        f32x4_le(a, b)
    }
    #[inline(always)]
    unsafe fn lt(a: v128, b: v128) -> v128 {
        f32x4_lt(a, b)
    }
    #[inline(always)]
    unsafe fn gt(a: v128, b: v128) -> v128 {
        f32x4_gt(a, b)
    }
    #[inline(always)]
    unsafe fn or(a: v128, b: v128) -> v128 {
        v128_or(a, b)
    }
    #[inline(always)]
    unsafe fn and(m: v128, x: v128) -> v128 {
        v128_and(m, x)
    }
    #[inline(always)]
    unsafe fn andnot(m: v128, x: v128) -> v128 {
        v128_andnot(x, m)
    }
    #[inline(always)]
    unsafe fn sel(m: v128, a: v128, b: v128) -> v128 {
        v128_bitselect(b, a, m)
    }
    /// `f32x4_pmax` then `f32x4_pmin`: x86's `maxps(v, lo)` then `minps(_, hi)` (a NaN gives
    /// `lo`).
    #[inline(always)]
    unsafe fn clamp(v: v128, lo: v128, hi: v128) -> v128 {
        f32x4_pmin(hi, f32x4_pmax(lo, v))
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> v128 {
        v128_load(p as *const v128)
    }
    #[inline(always)]
    unsafe fn store4(p: *mut f32, v: v128) {
        v128_store(p as *mut v128, v)
    }
    #[inline(always)]
    unsafe fn store3(p: *mut f32, v: v128) {
        v128_store64_lane::<0>(v, p as *mut u64);
        v128_store32_lane::<2>(v, p.add(2) as *mut u32);
    }
    #[inline(always)]
    unsafe fn transpose(q: [v128; 4]) -> [v128; 4] {
        let t0 = i32x4_shuffle::<0, 4, 1, 5>(q[0], q[1]);
        let t1 = i32x4_shuffle::<2, 6, 3, 7>(q[0], q[1]);
        let t2 = i32x4_shuffle::<0, 4, 1, 5>(q[2], q[3]);
        let t3 = i32x4_shuffle::<2, 6, 3, 7>(q[2], q[3]);
        [
            i64x2_shuffle::<0, 2>(t0, t2),
            i64x2_shuffle::<1, 3>(t0, t2),
            i64x2_shuffle::<0, 2>(t1, t3),
            i64x2_shuffle::<1, 3>(t1, t3),
        ]
    }

    #[inline(always)]
    unsafe fn below(n: i32) -> v128 {
        i32x4_gt(i32x4_splat(n), i32x4(0, 1, 2, 3))
    }
    #[inline(always)]
    unsafe fn cvt(x: v128) -> v128 {
        f32x4_convert_i32x4(x)
    }
    /// Saturated out of range.
    #[inline(always)]
    unsafe fn trunc(x: v128) -> v128 {
        i32x4_trunc_sat_f32x4(x)
    }
    #[inline(always)]
    unsafe fn cast(x: v128) -> v128 {
        x
    }

    #[inline(always)]
    unsafe fn and_i(a: v128, b: v128) -> v128 {
        v128_and(a, b)
    }
    #[inline(always)]
    unsafe fn or_i(a: v128, b: v128) -> v128 {
        v128_or(a, b)
    }
    #[inline(always)]
    unsafe fn andnot_i(a: v128, b: v128) -> v128 {
        v128_andnot(b, a)
    }
    #[inline(always)]
    unsafe fn sel_i(m: v128, a: v128, b: v128) -> v128 {
        v128_bitselect(b, a, m)
    }
    #[inline(always)]
    unsafe fn nonzero(x: v128) -> bool {
        v128_any_true(x)
    }

    #[inline(always)]
    unsafe fn splat16(x: u16) -> v128 {
        u16x8_splat(x)
    }
    #[inline(always)]
    unsafe fn add16(a: v128, b: v128) -> v128 {
        i16x8_add(a, b)
    }
    #[inline(always)]
    unsafe fn sub16(a: v128, b: v128) -> v128 {
        i16x8_sub(a, b)
    }
    #[inline(always)]
    unsafe fn eq16(a: v128, b: v128) -> v128 {
        i16x8_eq(a, b)
    }
    /// Three shuffled adds.
    #[inline(always)]
    unsafe fn prefix16(x: v128) -> v128 {
        let z = u16x8_splat(0);
        let a = i16x8_add(x, i16x8_shuffle::<8, 0, 1, 2, 3, 4, 5, 6>(x, z));
        let b = i16x8_add(a, i16x8_shuffle::<8, 8, 0, 1, 2, 3, 4, 5>(a, z));
        i16x8_add(b, i16x8_shuffle::<8, 8, 8, 8, 0, 1, 2, 3>(b, z))
    }
    #[inline(always)]
    unsafe fn last16(x: v128) -> u16 {
        u16x8_extract_lane::<7>(x)
    }
    #[inline(always)]
    unsafe fn store16(p: *mut [u16; 8], x: v128) {
        v128_store(p as *mut v128, x)
    }
    #[inline(always)]
    unsafe fn widen16(x: v128, h: usize) -> v128 {
        if h == 0 {
            u32x4_extend_low_u16x8(x)
        } else {
            u32x4_extend_high_u16x8(x)
        }
    }
    #[inline(always)]
    unsafe fn widen_mask16(x: v128, h: usize) -> v128 {
        if h == 0 {
            i32x4_extend_low_i16x8(x)
        } else {
            i32x4_extend_high_i16x8(x)
        }
    }
    /// Each field brought into a 16-bit lane (`w << 1` holds fields 0 to 2 in its bits 0..16
    /// and field 3 in 16..32, `w >> 19` fields 4 to 6 and 7 likewise), moved to the top of it by
    /// a 16-bit multiply, then down by one constant shift.
    #[inline(always)]
    unsafe fn rates8(w: u64) -> v128 {
        let q = i64x2((w << 1) as i64, (w >> 19) as i64);
        let q = i16x8_shuffle::<0, 0, 0, 1, 4, 4, 4, 5>(q, q);
        let top = i16x8(1 << 10, 1 << 5, 1, 1 << 11, 1 << 10, 1 << 5, 1, 1 << 11);
        u16x8_shr(i16x8_mul(q, top), 11)
    }

    #[inline(always)]
    unsafe fn splat32(x: i32) -> v128 {
        i32x4_splat(x)
    }
    #[inline(always)]
    unsafe fn add32(a: v128, b: v128) -> v128 {
        i32x4_add(a, b)
    }
    #[inline(always)]
    unsafe fn sub32(a: v128, b: v128) -> v128 {
        i32x4_sub(a, b)
    }
    #[inline(always)]
    unsafe fn gt32(a: v128, b: v128) -> v128 {
        i32x4_gt(a, b)
    }
    #[inline(always)]
    unsafe fn shr32<const N: i32>(x: v128) -> v128 {
        u32x4_shr(x, N as u32)
    }
    #[inline(always)]
    unsafe fn shl32<const N: i32>(x: v128) -> v128 {
        i32x4_shl(x, N as u32)
    }
    #[inline(always)]
    unsafe fn load32(p: *const u8) -> v128 {
        v128_load(p as *const v128)
    }
    #[inline(always)]
    unsafe fn load16x4(p: *const u8) -> v128 {
        u32x4_load_extend_u16x4(p as *const u16)
    }
    /// `x << (6 - 2l)` in the low 16 bits of each lane (a 16-bit multiply), then one constant
    /// shift.
    #[inline(always)]
    unsafe fn two_bits4(x: u32) -> v128 {
        let v = u32x4_splat(x & 0xFF);
        let m = i16x8_mul(v, i16x8(64, 0, 16, 0, 4, 0, 1, 0));
        v128_and(u32x4_shr(m, 6), u32x4_splat(3))
    }

    /// Windows at the bytes of lanes 0, 2, 4 and 6; each lane's bit in its pair's window.
    #[inline(always)]
    unsafe fn locate(c: *mut Coef, k: usize, excl: v128, start: usize, _two_halves: bool) {
        let off = i16x8_add(excl, u16x8_splat(start as u16));
        let byte = u16x8_shr(off, 3);
        let first = i16x8_shuffle::<0, 0, 2, 2, 4, 4, 6, 6>(byte, byte);
        let cnt = i16x8_sub(off, i16x8_shl(first, 3));
        Self::store16(&mut (*c).fields.byte[k], byte);
        Self::store16(&mut (*c).fields.cnt[k], cnt);
        Self::store16(&mut (*c).fields.off[k], off);
    }
    #[inline(always)]
    unsafe fn frame(data: &[u8], bit: usize, c: &Coef, hi: usize) -> [v128; 3] {
        let h = c.half(hi);
        let fb = data.as_ptr().add(bit >> 3);
        let r = (bit & 7) as u32;
        map3(|k| {
            let q = fields(fb, r, c, h, hi, k);
            f32x4_add(f32x4_mul(f32x4_convert_i32x4(q), h.mul[k]), h.add[k])
        })
    }
    #[inline(always)]
    unsafe fn offsets(c: &Coef, hi: usize, k: usize) -> [usize; 4] {
        core::array::from_fn(|l| c.fields.off[k][4 * hi + l] as usize)
    }
    #[inline(always)]
    unsafe fn in_use(lanes: usize) -> u8 {
        (1u8 << lanes) - 1
    }
    #[inline(always)]
    unsafe fn all(m: v128, in_use: u8) -> bool {
        i32x4_bitmask(m) & in_use == in_use
    }
    #[inline(always)]
    unsafe fn any(m: v128, in_use: u8) -> bool {
        i32x4_bitmask(m) & in_use != 0
    }
    #[inline(always)]
    unsafe fn drops(h: &Half, k: u32) -> v128 {
        i32x4_eq(h.drop, i32x4_splat(k as i32))
    }
}

/// Samples every joint at `key` into `out` (10 floats per joint at `stride`). The caller checks
/// the key and that `out` holds every joint.
pub(super) unsafe fn sample_pose(view: &View, key: &SampleKey, out: *mut f32, stride: usize) {
    sample_pose_rows(view, key, PoseRows::ten(out, stride), 7)
}

/// The whole pose ([`sample_pose`]) writing only the channels of `channels`, which must be the
/// rotations, or the rotations and translations, or all three (the groups are in channel
/// order: the walk stops at the first group of a channel not asked for).
pub(super) unsafe fn sample_channels(
    view: &View,
    key: &SampleKey,
    out: *mut f32,
    stride: usize,
    channels: u32,
) {
    sample_pose_rows(view, key, PoseRows::ten(out, stride), channels)
}

/// [`sample_channels`] with each channel's rows at `rows`. The caller checks the key and that
/// `rows` hold every joint.
pub(super) unsafe fn sample_pose_rows(view: &View, key: &SampleKey, rows: PoseRows, channels: u32) {
    sample_rows::<Simd128>(view, key, rows, channels)
}
