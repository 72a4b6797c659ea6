//! Rotation packing: three stored components and one dropped, reconstructed at decode.
//!
//! Each animated rotation sub-track drops one quaternion component for the whole clip, chosen as
//! the component whose smallest magnitude over the clip is largest (so the reconstruction
//! `sqrt(1 - a² - b² - c²)` is never ill-conditioned), ties going to W. Dropping W is ACL's
//! `drop_w` format; dropping the dominant component is the smallest-three idea applied per track,
//! which keeps one index per track (no per-sample index bits). The sign of every sample is chosen
//! so the dropped component is non-negative.

use crate::math::Quat;

/// Component order used by the index: x, y, z, w.
#[inline(always)]
fn comp(q: Quat, c: usize) -> f32 {
    match c {
        0 => q.x,
        1 => q.y,
        2 => q.z,
        _ => q.w,
    }
}

/// The dropped component index (0 = x .. 3 = w) for a track: the one whose smallest absolute
/// value over the clip is largest. `force_w` always returns 3 (ACL's drop-W, for comparison).
pub fn choose_dropped(rotations: &[Quat], force_w: bool) -> u8 {
    if force_w {
        return 3;
    }
    let mut best = 3usize;
    let mut best_min = -1.0f32;
    // W first so that ties keep W.
    for c in [3usize, 0, 1, 2] {
        let m = rotations
            .iter()
            .map(|q| comp(*q, c).abs())
            .fold(f32::INFINITY, f32::min);
        if m > best_min + 1e-6 {
            best_min = m;
            best = c;
        }
    }
    best as u8
}

/// Quaternion component (0 = x .. 3 = w) held in stored slot `slot` (0..3) when `dropped` is
/// reconstructed.
#[inline(always)]
pub fn slot_component(slot: usize, dropped: u8) -> usize {
    slot + (slot >= dropped as usize) as usize
}

/// Smallest magnitude of the best droppable component over `rotations`: below
/// [`PER_SEGMENT_THRESHOLD`] a track switches to a per-segment dropped index.
pub fn conditioning(rotations: &[Quat], dropped: u8) -> f32 {
    rotations
        .iter()
        .map(|q| comp(*q, dropped as usize).abs())
        .fold(f32::INFINITY, f32::min)
}

/// Tracks whose dropped component gets smaller than this somewhere choose the dropped component
/// per segment instead (the reconstruction error grows as 1 / |dropped component|).
pub const PER_SEGMENT_THRESHOLD: f32 = 0.4;

/// The three stored components of `q` when component `dropped` is reconstructed.
#[inline]
pub fn to_stored(q: Quat, dropped: u8) -> [f32; 3] {
    let q = if comp(q, dropped as usize) < 0.0 {
        -q
    } else {
        q
    };
    match dropped {
        0 => [q.y, q.z, q.w],
        1 => [q.x, q.z, q.w],
        2 => [q.x, q.y, q.w],
        _ => [q.x, q.y, q.z],
    }
}

/// Rebuilds a unit quaternion from its three stored components (shared bit for bit by the encoder
/// and the decoder). Any finite input gives a unit quaternion (outside the unit ball the stored
/// part is renormalised); the decoder never passes a non-finite one (quantised values are bounded
/// by their validated ranges, raw `f32` values are clamped to [-1, 1] as they are read).
#[inline(always)]
pub fn from_stored(v: [f32; 3], dropped: u8) -> Quat {
    let (v, d) = unit_parts(v);
    place(v, d, dropped)
}

/// The quaternion with `d` at component `dropped` and the stored slots, in order, around it. A
/// match on `dropped` (the compiler makes it a jump table; SIMD lane selection measured slower,
/// docs/vbr.md).
#[inline(always)]
fn place(v: [f32; 3], d: f32, dropped: u8) -> Quat {
    match dropped & 3 {
        0 => Quat::from_xyzw(d, v[0], v[1], v[2]),
        1 => Quat::from_xyzw(v[0], d, v[1], v[2]),
        2 => Quat::from_xyzw(v[0], v[1], d, v[2]),
        _ => Quat::from_xyzw(v[0], v[1], v[2], d),
    }
}

/// The stored part and the dropped component of the unit quaternion rebuilt from `v`. Within the
/// unit ball the rebuilt quaternion is unit length; outside it (quantisation can step just past)
/// the dropped component is 0 and the rest is renormalised.
#[inline(always)]
fn unit_parts(v: [f32; 3]) -> ([f32; 3], f32) {
    let len2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    if len2 <= 1.0 {
        (v, (1.0 - len2).sqrt())
    } else {
        let s = len2.sqrt().recip();
        ([v[0] * s, v[1] * s, v[2] * s], 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::angle_between;

    #[test]
    fn roundtrip_every_index() {
        let qs = [
            Quat::from_rotation_x(2.9),
            Quat::from_rotation_y(-1.0),
            Quat::from_rotation_z(0.3) * Quat::from_rotation_x(1.2),
            -Quat::from_rotation_y(0.5),
        ];
        for q in qs {
            for c in 0..4u8 {
                let r = from_stored(to_stored(q, c), c);
                assert!(angle_between(q, r) < 1e-3, "{q} {c} {r}");
            }
        }
    }

    #[test]
    fn hostile_components_give_unit_quaternions() {
        // Every finite input the decoder can produce (raw values clamped to [-1, 1], quantised
        // ones within three times the unit range).
        for v in [
            [-1.0, 0.5, 0.1],
            [1.0, -1.0, 0.0],
            [3.0, 2.0, -3.0],
            [0.0, 0.0, 0.0],
            [1.0, 1.0, 1.0],
        ] {
            for c in 0..4u8 {
                let q = from_stored(v, c);
                assert!(q.is_finite(), "{v:?} {c} {q}");
                assert!((q.length() - 1.0).abs() < 1e-5, "{v:?} {c} {q}");
            }
        }
    }

    #[test]
    fn picks_dominant_component() {
        let qs: Vec<Quat> = (0..10)
            .map(|i| Quat::from_rotation_x(2.8 + i as f32 * 0.01))
            .collect();
        assert_eq!(choose_dropped(&qs, false), 0);
        assert_eq!(choose_dropped(&qs, true), 3);
        let small: Vec<Quat> = (0..10)
            .map(|i| Quat::from_rotation_y(0.1 * i as f32))
            .collect();
        assert_eq!(choose_dropped(&small, false), 3);
    }
}
