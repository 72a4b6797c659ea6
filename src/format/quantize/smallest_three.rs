//! Smallest-three quaternion packing: the largest-magnitude component is dropped (and made
//! positive by flipping the quaternion's sign), the other three lie in [-1/sqrt2, 1/sqrt2] and are
//! stored as unsigned fixed-point values.
//!
//! Layout (LSB first): 2-bit index of the dropped component (0 = x … 3 = w), then the three kept
//! components in x, y, z, w order skipping the dropped one, `bits` each.
#![cfg_attr(not(feature = "compress"), allow(unused_imports))]

use super::bits::{pack_unorm, read_bits, unpack_unorm, BitWriter};
use crate::math::Quat;

/// Magnitude bound of the three kept components.
pub const KEPT_RANGE: f32 = std::f32::consts::FRAC_1_SQRT_2;

/// Appends `q` (unit) as `2 + 3 * bits` bits.
#[cfg(feature = "compress")]
pub fn pack(q: Quat, bits: u32, w: &mut BitWriter) {
    let a = q.to_array();
    let mut idx = 0;
    for i in 1..4 {
        if a[i].abs() > a[idx].abs() {
            idx = i;
        }
    }
    let s = if a[idx] < 0.0 { -1.0 } else { 1.0 };
    w.write(idx as u32, 2);
    for (i, &c) in a.iter().enumerate() {
        if i != idx {
            let u = (c * s + KEPT_RANGE) / (2.0 * KEPT_RANGE);
            w.write(pack_unorm(u, bits), bits);
        }
    }
}

/// Reads a quaternion written by [`pack`] at bit offset `bit`. Always finite and unit length
/// (to `f32` rounding).
#[inline(always)]
pub fn unpack(data: &[u8], bit: usize, bits: u32) -> Quat {
    let idx = read_bits(data, bit, 2) as usize;
    let mut a = [0.0f32; 4];
    let mut b = bit + 2;
    let mut sum = 0.0;
    for (i, c) in a.iter_mut().enumerate() {
        if i != idx {
            let v = unpack_unorm(read_bits(data, b, bits), bits) * (2.0 * KEPT_RANGE) - KEPT_RANGE;
            *c = v;
            sum += v * v;
            b += bits as usize;
        }
    }
    a[idx] = (1.0 - sum).max(0.0).sqrt();
    let q = Quat::from_array(a);
    // The dropped component fills the norm to 1 unless the kept ones already exceed it (at most
    // 1.5 from the stored ranges); only then is a renormalisation needed.
    if sum > 1.0 {
        q * sum.sqrt().recip()
    } else {
        q
    }
}

#[cfg(all(test, feature = "compress"))] // round trips through the encoder's packing
mod tests {
    use super::*;
    use crate::math::angle_between;

    #[test]
    fn roundtrip_basic() {
        for q in [
            Quat::IDENTITY,
            -Quat::IDENTITY,
            Quat::from_rotation_x(3.0),
            Quat::from_xyzw(0.5, -0.5, 0.5, -0.5),
            Quat::from_rotation_y(-2.0),
        ] {
            let mut w = BitWriter::new();
            pack(q, 15, &mut w);
            assert_eq!(w.bit_len(), 47);
            let d = w.finish();
            let r = unpack(&d, 0, 15);
            assert!(angle_between(q, r) < 1e-3, "{q} {r}");
        }
    }
}
