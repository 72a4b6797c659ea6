//! The coefficients of a group in a segment for the decoders with four 32-bit lanes (SSE2,
//! NEON, `simd128`), written once over [`Lanes4`]: the eight lanes' integer metadata (rates,
//! widths, field offsets) in 16-bit lanes, then each half's floats (`q * mul + add`'s `mul` and
//! `add`, the fields' masks), with the AVX2 decoder's float operations in its order. Where a
//! lane's field is found is the ISA's own ([`Lanes4::locate`]): a 64-bit window per pair of
//! lanes on SSE2 and `simd128`, a lane's offset in a 32-byte window on NEON.

use super::super::common::Record;
use super::Lanes4;
use crate::format::vbr::bitrate::RATE_RAW;
use core::mem::MaybeUninit;

/// Four lanes of one group's decode in one segment.
pub(in crate::runtime::vbr::grouped) struct Half<L: Lanes4> {
    pub(in crate::runtime::vbr::grouped) mul: [L::F; 3],
    pub(in crate::runtime::vbr::grouped) add: [L::F; 3],
    /// `(1 << bits) - 1` per lane (any value in a raw lane).
    pub(in crate::runtime::vbr::grouped) mask: [L::I; 3],
    /// Lanes whose three widths are 0 (constant over the segment).
    pub(in crate::runtime::vbr::grouped) constant: L::M,
    /// Dropped components (rotations).
    pub(in crate::runtime::vbr::grouped) drop: L::I,
    /// The dropped component of every lane in use, or 4 when they differ.
    pub(in crate::runtime::vbr::grouped) udrop: u32,
    /// The lanes in use, as the ISA tests them.
    pub(in crate::runtime::vbr::grouped) in_use: L::InUse,
    /// Whether a lane in use is constant over the segment.
    pub(in crate::runtime::vbr::grouped) any_constant: bool,
    /// Where the ISA finds the fields of these lanes (`simd128` keeps nothing per half).
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub(in crate::runtime::vbr::grouped) fields: L::HalfFields,
}

/// One group's decode in one segment: half 1 is written only for a group of more than four
/// lanes.
pub(in crate::runtime::vbr::grouped) struct Coef<L: Lanes4> {
    pub(in crate::runtime::vbr::grouped) h: [MaybeUninit<Half<L>>; 2],
    /// Per component and lane, the rate index.
    pub(in crate::runtime::vbr::grouped) rates: [[u16; 8]; 3],
    /// Bits of the group in a frame.
    pub(in crate::runtime::vbr::grouped) total: usize,
    /// Whether a lane stores raw `f32`s.
    pub(in crate::runtime::vbr::grouped) raw: bool,
    /// Where the ISA finds the fields of the group's lanes.
    pub(in crate::runtime::vbr::grouped) fields: L::Fields,
}

impl<L: Lanes4> Coef<L> {
    /// Half `h` (which must have been written).
    #[inline(always)]
    pub(in crate::runtime::vbr::grouped) unsafe fn half(&self, h: usize) -> &Half<L> {
        self.h.get_unchecked(h).assume_init_ref()
    }
}

/// Writes the coefficients of the group `g` in the segment whose group metadata is at `m`.
/// The integer metadata of the eight lanes (rates, widths, offsets) is computed in 16-bit lanes,
/// the floats per half.
#[inline(always)]
pub(super) unsafe fn coef<L: Lanes4>(c: *mut Coef<L>, d: *const u8, g: &Record, m: *const u8) {
    let n = g.n;
    let two_halves = n > 4;
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
    let drop0 = L::two_bits4(drops);
    let drop1 = L::two_bits4(drops >> 8);
    let zero = L::splat16(0);
    let mut total = 0usize;
    let mut any = zero;
    let mut raw = zero;
    for k in 0..3 {
        let r = L::rates8((m.add(rb * k) as *const u64).read_unaligned() & lanes);
        let none = L::eq16(r, zero);
        let is_raw = L::eq16(r, L::splat16(RATE_RAW as u16));
        raw = L::or_i(raw, is_raw);
        // Widths: 0, r + 2, or 32 for a raw rate (23 + 2 + 7).
        let bits = L::andnot_i(
            none,
            L::add16(L::add16(r, L::splat16(2)), L::and_i(is_raw, L::splat16(7))),
        );
        any = L::or_i(any, bits);
        let none = L::or_i(none, is_raw);
        let incl = L::prefix16(bits);
        L::locate(c, k, L::sub16(incl, bits), total, two_halves);
        total += L::last16(incl) as usize;
        L::store16(&mut (*c).rates[k], r);
        let at = Component { d, g, m, rb, k };
        at.write(h0, 0, L::widen16(bits, 0), L::widen_mask16(none, 0), drop0);
        if two_halves {
            at.write(h1, 1, L::widen16(bits, 1), L::widen_mask16(none, 1), drop1);
        }
    }
    let constant = L::eq16(any, zero);
    finish::<L>(h0, n, drops, 0, drop0, L::widen_mask16(constant, 0));
    if two_halves {
        finish::<L>(h1, n, drops, 1, drop1, L::widen_mask16(constant, 1));
    }
    (*c).total = total;
    (*c).raw = L::nonzero(raw);
}

/// Writes the lane flags of half `h` of a group of `n` lanes whose dropped components are
/// `drops` (2 bits per lane): `drop` that half's, `constant` its lanes constant over the segment.
#[inline(always)]
unsafe fn finish<L: Lanes4>(
    hp: *mut Half<L>,
    n: usize,
    drops: u32,
    h: usize,
    drop: L::I,
    constant: L::M,
) {
    let lanes = (n - 4 * h).min(4);
    let in_use = L::in_use(lanes);
    (*hp).drop = drop;
    (*hp).constant = constant;
    (*hp).in_use = in_use;
    (*hp).any_constant = L::any(constant, in_use);
    let x = (drops >> (8 * h)) & 0xFF;
    let first = x & 3;
    let same = (x ^ (first * 0x55)) & ((1 << (2 * lanes)) - 1) == 0;
    (*hp).udrop = if same { first } else { 4 };
}

/// Clip ranges (min, extent) of four rotation components from their stored words.
#[inline(always)]
unsafe fn rotation_ranges<L: Lanes4>(w: L::I) -> (L::F, L::F) {
    let k = L::splat(2.0 / 65535.0);
    let lo = L::cvt(L::and_i(w, L::splat32(0xFFFF)));
    let hi = L::cvt(L::shr32::<16>(w));
    (L::sub(L::mul(lo, k), L::splat(1.0)), L::mul(hi, k))
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
    unsafe fn write<L: Lanes4>(
        &self,
        hp: *mut Half<L>,
        h: usize,
        bits: L::I,
        none: L::M,
        drop: L::I,
    ) {
        let (d, g, m, k) = (self.d, self.g, self.m, self.k);
        let n = g.n;
        let ranges = |c: usize| d.add(g.ranges + 4 * (n * c + 4 * h));
        // The clip range of the component stored in slot `k`: with per-segment drops, the range
        // of quaternion component `k + 1` in the lanes that drop one at or below `k` (selected
        // as words, then converted).
        let (min, ext) = if g.class == 0 {
            let w = |c: usize| L::load32(ranges(c));
            let word = if g.per_segment {
                let above = L::gt32(L::splat32(k as i32 + 1), drop);
                L::sel_i(above, w(k), w(k + 1))
            } else {
                w(k)
            };
            rotation_ranges::<L>(word)
        } else {
            // Lanes beyond the group's read the bytes after its ranges: zeroed, as those
            // bytes as floats may be subnormal (microcode assists in every operation on them).
            let lanes = L::below(n as i32 - 4 * h as i32);
            let f = |c: usize| L::and(lanes, L::load(ranges(c) as *const f32));
            (f(k), f(3 + k))
        };
        // 2^bits, then 1 / (2^bits - 1) for the quantised rates, else 0.
        let p2 = L::cast(L::shl32::<23>(L::add32(bits, L::splat32(127))));
        let one = L::splat(1.0);
        let inv_q = L::andnot(none, L::div(one, L::sub(p2, one)));
        let f = L::load16x4(m.add(3 * self.rb + 2 * (n * k + 4 * h)));
        let k8 = L::splat(1.0 / 255.0);
        let smin = L::mul(L::cvt(L::and_i(f, L::splat32(0xFF))), k8);
        let sext = L::mul(L::cvt(L::shr32::<8>(f)), k8);
        let cfrac = L::mul(L::cvt(f), L::splat(1.0 / 65535.0));
        // `inv_q == 0` exactly where `none`.
        let frac = L::sel(none, smin, cfrac);
        (*hp).mul[k] = L::mul(L::mul(inv_q, sext), ext);
        (*hp).add[k] = L::add(L::mul(frac, ext), min);
        // 2^bits as an integer (out of range for raw lanes: not used), minus 1.
        (*hp).mask[k] = L::sub32(L::trunc(p2), L::splat32(1));
    }
}
