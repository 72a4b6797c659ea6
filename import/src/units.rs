//! Guessing a clip's length unit from the size of its rest pose.

use animcomp::math::Transform;
use animcomp::RawClip;

/// Guesses the unit of a clip from the size of its first pose: when the bounding box of the
/// non-root joints (roots are often a ground anchor far from the body) has a diagonal of 80–500 it
/// looks like a human-sized figure in centimetres ("cm"), 0.8–5 like one in metres ("m");
/// anything else (small creatures, props, CMU's 5.6 cm units) is "unknown".
pub fn guess_units(clip: &RawClip) -> &'static str {
    match pose_extent(clip) {
        Some(d) if (80.0..=500.0).contains(&d) => "cm",
        Some(d) if (0.8..=5.0).contains(&d) => "m",
        _ => "unknown",
    }
}

/// Diagonal of the object-space bounding box of the first pose's non-root joints (all joints
/// when every joint is a root).
pub fn pose_extent(clip: &RawClip) -> Option<f32> {
    let nj = clip.num_joints();
    if nj == 0 || clip.num_samples == 0 || clip.tracks.len() != nj {
        return None;
    }
    let all_roots = clip.skeleton.joints.iter().all(|j| j.parent.is_none());
    let local: Vec<Transform> = clip.tracks.iter().map(|t| t.get(0)).collect();
    let mut world: Vec<Transform> = Vec::with_capacity(nj);
    let mut lo = glam::Vec3::splat(f32::INFINITY);
    let mut hi = glam::Vec3::splat(f32::NEG_INFINITY);
    for (j, l) in local.iter().enumerate() {
        let w = match clip.skeleton.joints[j].parent {
            Some(p) if (p as usize) < j => Transform::mul(&world[p as usize], l),
            _ => *l,
        };
        if all_roots || clip.skeleton.joints[j].parent.is_some() {
            lo = lo.min(w.translation);
            hi = hi.max(w.translation);
        }
        world.push(w);
    }
    let d = (hi - lo).length();
    d.is_finite().then_some(d)
}
