//! The `simd128` decoder's coefficients (`sse2/coef.rs` in WebAssembly SIMD): a group's integer
//! metadata (rates, widths, field offsets) for all eight lanes in 16-bit lanes, and each half's
//! floats (`mul`, `add`, masks), computed once per group and segment.

use super::super::common::Record;
use core::arch::wasm32::*;
use core::mem::MaybeUninit;

/// The raw `f32` rate index.
const RAW: i32 = crate::format::vbr::bitrate::RATE_RAW as i32;

/// Four lanes of one group's decode in one segment.
#[derive(Clone, Copy)]
pub(in crate::runtime::vbr::grouped) struct Half {
    pub(super) mul: [v128; 3],
    pub(super) add: [v128; 3],
    /// `(1 << bits) - 1` per lane.
    pub(super) mask: [v128; 3],
    /// Lanes whose three widths are 0 (constant over the segment).
    pub(super) constant: v128,
    /// Dropped components (rotations).
    pub(super) drop: v128,
    /// The dropped component of every lane in use, or 4 when they differ.
    pub(super) udrop: u32,
    /// Bit `l` set for lane `l` in use (`bitmask` bits).
    pub(super) active: u8,
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
    /// Per component and lane, the bit of its field in its pair's window (less the frame's
    /// first bit in its byte): a `u64x2_shr` count.
    pub(super) cnt: [[u16; 8]; 3],
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
pub(super) fn sel(mask: v128, a: v128, b: v128) -> v128 {
    v128_bitselect(b, a, mask)
}

/// The eight 5-bit fields (lane l at bits 5l) of `w` (at most 40 bits), in 16-bit lanes: each
/// field brought into a 16-bit lane (`w << 1` holds fields 0 to 2 in its bits 0..16 and field 3
/// in 16..32, `w >> 19` fields 4 to 6 and 7 likewise), moved to the top of it by a 16-bit
/// multiply, then down by one constant shift.
#[inline(always)]
fn rates8(w: u64) -> v128 {
    let q = i64x2((w << 1) as i64, (w >> 19) as i64);
    let q = i16x8_shuffle::<0, 0, 0, 1, 4, 4, 4, 5>(q, q);
    let top = i16x8(1 << 10, 1 << 5, 1, 1 << 11, 1 << 10, 1 << 5, 1, 1 << 11);
    u16x8_shr(i16x8_mul(q, top), 11)
}

/// Four 2-bit fields (lane l at bits 2l) of the 8 low bits of `x`: `x << (6 - 2l)` in the low
/// 16 bits of each lane (a 16-bit multiply), then one constant shift.
#[inline(always)]
fn two_bits4(x: u32) -> v128 {
    let v = u32x4_splat(x & 0xFF);
    let m = i16x8_mul(v, i16x8(64, 0, 16, 0, 4, 0, 1, 0));
    v128_and(u32x4_shr(m, 6), u32x4_splat(3))
}

/// Clip ranges (min, extent) of four rotation components from their stored words.
#[inline(always)]
fn rotation_ranges(w: v128) -> (v128, v128) {
    let k = f32x4_splat(2.0 / 65535.0);
    let lo = f32x4_convert_i32x4(v128_and(w, u32x4_splat(0xFFFF)));
    let hi = f32x4_convert_i32x4(u32x4_shr(w, 16));
    (
        f32x4_sub(f32x4_mul(lo, k), f32x4_splat(1.0)),
        f32x4_mul(hi, k),
    )
}

/// Inclusive prefix sums of the 16-bit lanes.
#[inline(always)]
fn prefix(x: v128) -> v128 {
    let z = u16x8_splat(0);
    let a = i16x8_add(x, i16x8_shuffle::<8, 0, 1, 2, 3, 4, 5, 6>(x, z));
    let b = i16x8_add(a, i16x8_shuffle::<8, 8, 0, 1, 2, 3, 4, 5>(a, z));
    i16x8_add(b, i16x8_shuffle::<8, 8, 8, 8, 0, 1, 2, 3>(b, z))
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
    let zero = u16x8_splat(0);
    let mut total = 0usize;
    let mut any = zero;
    let mut raw = zero;
    for k in 0..3 {
        let r = rates8((m.add(rb * k) as *const u64).read_unaligned() & lanes);
        let none = i16x8_eq(r, zero);
        let is_raw = i16x8_eq(r, u16x8_splat(RAW as u16));
        raw = v128_or(raw, is_raw);
        // Widths: 0, r + 2, or 32 for a raw rate (23 + 2 + 7).
        let bits = v128_andnot(
            i16x8_add(
                i16x8_add(r, u16x8_splat(2)),
                v128_and(is_raw, u16x8_splat(7)),
            ),
            none,
        );
        any = v128_or(any, bits);
        let none = v128_or(none, is_raw);
        let incl = prefix(bits);
        let off = i16x8_add(i16x8_sub(incl, bits), u16x8_splat(total as u16));
        total += u16x8_extract_lane::<7>(incl) as usize;
        // Windows at the bytes of lanes 0, 2, 4 and 6; each lane's bit in its pair's window.
        let byte = u16x8_shr(off, 3);
        let first = i16x8_shuffle::<0, 0, 2, 2, 4, 4, 6, 6>(byte, byte);
        let cnt = i16x8_sub(off, i16x8_shl(first, 3));
        v128_store((*c).byte[k].as_mut_ptr() as *mut v128, byte);
        v128_store((*c).cnt[k].as_mut_ptr() as *mut v128, cnt);
        v128_store((*c).off[k].as_mut_ptr() as *mut v128, off);
        v128_store((*c).rates[k].as_mut_ptr() as *mut v128, r);
        let at = Component { d, g, m, rb, k };
        at.write(
            h0,
            0,
            u32x4_extend_low_u16x8(bits),
            i32x4_extend_low_i16x8(none),
            drop0,
        );
        if two {
            at.write(
                h1,
                1,
                u32x4_extend_high_u16x8(bits),
                i32x4_extend_high_i16x8(none),
                drop1,
            );
        }
    }
    let constant = i16x8_eq(any, zero);
    let finish = |hp: *mut Half, h: usize, drop: v128, constant: v128| {
        let lanes = (n - 4 * h).min(4);
        let active = (1u8 << lanes) - 1;
        (*hp).drop = drop;
        (*hp).constant = constant;
        (*hp).active = active;
        (*hp).any_constant = i32x4_bitmask(constant) & active != 0;
        let x = (drops >> (8 * h)) & 0xFF;
        let first = x & 3;
        let same = (x ^ (first * 0x55)) & ((1 << (2 * lanes)) - 1) == 0;
        (*hp).udrop = if same { first } else { 4 };
    };
    finish(h0, 0, drop0, i32x4_extend_low_i16x8(constant));
    if two {
        finish(h1, 1, drop1, i32x4_extend_high_i16x8(constant));
    }
    (*c).total = total;
    (*c).raw = v128_any_true(raw);
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
    /// lanes without a `1 / (2^bits - 1)` (constant and raw), `drop` the dropped components.
    #[inline(always)]
    unsafe fn write(&self, hp: *mut Half, h: usize, bits: v128, none: v128, drop: v128) {
        let (d, g, m, k) = (self.d, self.g, self.m, self.k);
        let n = g.n;
        // The clip range of the component stored in slot `k`: with per-segment drops, the range
        // of quaternion component `k + 1` in the lanes that drop one at or below `k` (selected
        // as words, then converted).
        let (min, ext) = if g.class == 0 {
            let w = |c: usize| v128_load(d.add(g.ranges + 4 * (n * c + 4 * h)) as *const v128);
            let word = if g.per_segment {
                let above = i32x4_gt(i32x4_splat(k as i32 + 1), drop);
                sel(above, w(k), w(k + 1))
            } else {
                w(k)
            };
            rotation_ranges(word)
        } else {
            // Lanes beyond the group's read the bytes after its ranges: zeroed, as the other
            // decoders do.
            let lanes = i32x4_gt(i32x4_splat(n as i32 - 4 * h as i32), i32x4(0, 1, 2, 3));
            let f = |c: usize| {
                v128_and(
                    v128_load(d.add(g.ranges + 4 * (n * c + 4 * h)) as *const v128),
                    lanes,
                )
            };
            (f(k), f(3 + k))
        };
        // 2^bits, then 1 / (2^bits - 1) for the quantised rates, else 0.
        let p2 = i32x4_shl(i32x4_add(bits, i32x4_splat(127)), 23);
        let one = f32x4_splat(1.0);
        let inv_q = v128_andnot(f32x4_div(one, f32x4_sub(p2, one)), none);
        let f = u32x4_load_extend_u16x4(m.add(3 * self.rb + 2 * (n * k + 4 * h)) as *const u16);
        let k8 = f32x4_splat(1.0 / 255.0);
        let smin = f32x4_mul(f32x4_convert_i32x4(v128_and(f, u32x4_splat(0xFF))), k8);
        let sext = f32x4_mul(f32x4_convert_i32x4(u32x4_shr(f, 8)), k8);
        let cfrac = f32x4_mul(f32x4_convert_i32x4(f), f32x4_splat(1.0 / 65535.0));
        // `inv_q == 0` exactly where `none`.
        let frac = sel(none, smin, cfrac);
        (*hp).mul[k] = f32x4_mul(f32x4_mul(inv_q, sext), ext);
        (*hp).add[k] = f32x4_add(f32x4_mul(frac, ext), min);
        // 2^bits as an integer (saturated for raw lanes: not used), minus 1.
        (*hp).mask[k] = i32x4_sub(i32x4_trunc_sat_f32x4(p2), i32x4_splat(1));
    }
}
