//! The 48-bit key payload: smallest-three rotations and range-reduced vectors.
//!
//! Rotations: the largest-magnitude component is dropped (made positive by negating the whole
//! quaternion) and its index stored on 2 bits; the other three, each within ±1/√2, are stored on
//! 15 bits each (47 bits used of 48). Vectors: each component is mapped into the track's
//! `[min, min + extent]` range and stored on 16 bits.

use glam::Vec4;

/// Largest magnitude of a non-dropped smallest-three component.
const S3_RANGE: f32 = std::f32::consts::FRAC_1_SQRT_2;
const S3_MAX: f32 = ((1u32 << 15) - 1) as f32;
const U16_MAX: f32 = u16::MAX as f32;

#[inline]
#[cfg(feature = "compress")]
fn pack15(v: f32) -> u64 {
    let u = (v / S3_RANGE).clamp(-1.0, 1.0) * 0.5 + 0.5;
    ((u * S3_MAX + 0.5).floor().min(S3_MAX)) as u64
}

#[inline]
fn unpack15(q: u64) -> f32 {
    ((q & 0x7FFF) as f32 / S3_MAX * 2.0 - 1.0) * S3_RANGE
}

/// Packs a unit quaternion (x, y, z, w) into 47 bits.
#[cfg(feature = "compress")]
pub(crate) fn pack_rotation(q: Vec4) -> u64 {
    let a = q.abs().to_array();
    let mut largest = 0;
    for i in 1..4 {
        if a[i] > a[largest] {
            largest = i;
        }
    }
    let q = if q[largest] < 0.0 { -q } else { q };
    let mut bits = largest as u64;
    let mut shift = 2;
    for i in 0..4 {
        if i != largest {
            bits |= pack15(q[i]) << shift;
            shift += 15;
        }
    }
    bits
}

/// Unpacks [`pack_rotation`]'s bits into a unit quaternion (any 48-bit input gives a finite result).
#[inline]
pub(crate) fn unpack_rotation(bits: u64) -> Vec4 {
    let largest = (bits & 3) as usize;
    let a = unpack15(bits >> 2);
    let b = unpack15(bits >> 17);
    let c = unpack15(bits >> 32);
    let w = (1.0 - a * a - b * b - c * c).max(0.0).sqrt();
    let v = match largest {
        0 => Vec4::new(w, a, b, c),
        1 => Vec4::new(a, w, b, c),
        2 => Vec4::new(a, b, w, c),
        _ => Vec4::new(a, b, c, w),
    };
    v * crate::math::dot4(v, v).sqrt().recip()
}

/// Packs a vector into three 16-bit fractions of the track range.
#[cfg(feature = "compress")]
pub(crate) fn pack_vector(v: Vec4, min: [f32; 3], extent: [f32; 3]) -> u64 {
    let mut bits = 0u64;
    for i in 0..3 {
        let q = if extent[i] > 0.0 {
            let u = ((v[i] - min[i]) / extent[i]).clamp(0.0, 1.0);
            ((u * U16_MAX + 0.5).floor().min(U16_MAX)) as u64
        } else {
            0
        };
        bits |= q << (16 * i);
    }
    bits
}

/// Unpacks [`pack_vector`]'s bits.
#[inline]
pub(crate) fn unpack_vector(bits: u64, min: [f32; 3], extent: [f32; 3]) -> Vec4 {
    let f = |i: usize| min[i] + extent[i] * (((bits >> (16 * i)) & 0xFFFF) as f32 / U16_MAX);
    Vec4::new(f(0), f(1), f(2), 0.0)
}

/// The three stored components of a rotation whose component `drop` is dropped, after making
/// that component non-negative.
#[inline]
#[cfg(feature = "compress")]
fn kept(q: Vec4, drop: usize) -> Vec4 {
    let q = if q[drop] < 0.0 { -q } else { q };
    let a = q.to_array();
    let mut k = [0.0f32; 3];
    let mut n = 0;
    for (i, v) in a.iter().enumerate() {
        if i != drop {
            k[n] = *v;
            n += 1;
        }
    }
    Vec4::new(k[0], k[1], k[2], 0.0)
}

/// Packs a rotation range-reduced: the range's dropped component (`range[6]`) is rebuilt from
/// the other three, each stored on 16 bits within `range[0..3]` + `range[3..6]` (min, extent).
#[cfg(feature = "compress")]
pub(crate) fn pack_rotation_rr(q: Vec4, range: &[f32]) -> u64 {
    let drop = range[6] as usize & 3;
    pack_vector(kept(q, drop), range_min(range), range_ext(range))
}

/// Unpacks [`pack_rotation_rr`]'s bits (any input gives a unit quaternion).
#[inline]
pub(crate) fn unpack_rotation_rr(bits: u64, range: &[f32]) -> Vec4 {
    let drop = range[6] as usize & 3;
    let v = unpack_vector(bits, range_min(range), range_ext(range));
    let d = (1.0 - v.x * v.x - v.y * v.y - v.z * v.z).max(0.0).sqrt();
    let q = match drop {
        0 => Vec4::new(d, v.x, v.y, v.z),
        1 => Vec4::new(v.x, d, v.y, v.z),
        2 => Vec4::new(v.x, v.y, d, v.z),
        _ => Vec4::new(v.x, v.y, v.z, d),
    };
    let l2 = crate::math::dot4(q, q);
    if l2 > 0.0 && l2.is_finite() {
        q * l2.sqrt().recip()
    } else {
        Vec4::W
    }
}

/// Range of a rotation track (7 floats: min, extent, dropped component), dropping the component
/// whose smallest magnitude over the samples is largest (best conditioned reconstruction).
#[cfg(feature = "compress")]
pub(crate) fn rotation_range(values: &[Vec4]) -> Vec<f32> {
    let mut best = (3usize, -1.0f32);
    for c in 0..4 {
        let m = values
            .iter()
            .map(|q| q[c].abs())
            .fold(f32::INFINITY, f32::min);
        if m > best.1 {
            best = (c, m);
        }
    }
    let k: Vec<Vec4> = values.iter().map(|q| kept(*q, best.0)).collect();
    let mut r = vector_range_flat(&k);
    r.push(best.0 as f32);
    r
}

/// [`vector_range`] as 6 floats (min, extent).
#[cfg(feature = "compress")]
pub(crate) fn vector_range_flat(values: &[Vec4]) -> Vec<f32> {
    let (min, ext) = vector_range(values);
    let mut r = min.to_vec();
    r.extend_from_slice(&ext);
    r
}

/// Minimum of a flat range.
#[inline]
pub(crate) fn range_min(r: &[f32]) -> [f32; 3] {
    [r[0], r[1], r[2]]
}

/// Extent of a flat range.
#[inline]
pub(crate) fn range_ext(r: &[f32]) -> [f32; 3] {
    [r[3], r[4], r[5]]
}

/// Per-track range of a vector track: `(min, extent)` per component.
#[cfg(feature = "compress")]
pub(crate) fn vector_range(values: &[Vec4]) -> ([f32; 3], [f32; 3]) {
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    for v in values {
        for i in 0..3 {
            lo[i] = lo[i].min(v[i]);
            hi[i] = hi[i].max(v[i]);
        }
    }
    let mut ext = [0.0; 3];
    for i in 0..3 {
        ext[i] = (hi[i] - lo[i]).max(0.0);
        if !ext[i].is_finite() {
            ext[i] = 0.0;
        }
    }
    (lo, ext)
}

#[cfg(all(test, feature = "compress"))] // round trips through the encoder's packing
mod tests {
    use super::*;
    use glam::Quat;

    #[test]
    fn rotation_roundtrip_is_close() {
        for i in 0..200 {
            let f = i as f32 * 0.37;
            let q = Quat::from_euler(glam::EulerRot::XYZ, f.sin() * 3.0, f.cos() * 2.0, f * 0.1)
                .normalize();
            let v = Vec4::from(q);
            let bits = pack_rotation(v);
            assert!(bits < (1u64 << 47));
            let r = unpack_rotation(bits);
            let e = crate::offline::keys::tolerance::half_angle_sin(v, r);
            assert!(e < 6e-5, "{v} {r} {e}");
        }
    }

    #[test]
    fn vector_roundtrip_within_half_step() {
        let vals: Vec<Vec4> = (0..50)
            .map(|i| Vec4::new(i as f32 * 0.3, -(i as f32), 5.0, 0.0))
            .collect();
        let (min, ext) = vector_range(&vals);
        assert_eq!(ext[2], 0.0);
        for v in &vals {
            let r = unpack_vector(pack_vector(*v, min, ext), min, ext);
            for c in 0..3 {
                assert!((r[c] - v[c]).abs() <= ext[c] / 65535.0 * 0.5 + 1e-5);
            }
        }
    }

    #[test]
    fn ranged_rotation_near_half_turn_stays_precise() {
        // Rotations about Z by ~pi: w crosses zero, so dropping w would be ill-conditioned.
        let vals: Vec<Vec4> = (0..64)
            .map(|i| {
                Vec4::from(
                    Quat::from_rotation_z(3.0 + i as f32 * 0.005) * Quat::from_rotation_x(0.1),
                )
            })
            .collect();
        let r = rotation_range(&vals);
        assert_ne!(r[6], 3.0, "w must not be the dropped component here");
        for v in &vals {
            let q = unpack_rotation_rr(pack_rotation_rr(*v, &r), &r);
            let e = crate::offline::keys::tolerance::half_angle_sin(*v, q);
            assert!(e < 1e-5, "{v} {q} {e}");
        }
    }
}
