//! `AnimcompRawClip` (caller arrays with layout and strides) → [`RawClip`].
//!
//! Only shape is checked here (counts, enum values, strides, pointers, addressable lengths); the
//! values themselves are judged by [`RawClip::validate`] inside compression, so C and Rust callers
//! get the same statuses for the same bad data.

use super::guard::in_slice;
use super::types::{AnimcompLayout, AnimcompRawClip};
use crate::clip::{Joint, Skeleton, Track, DEFAULT_PRECISION, DEFAULT_SHELL_DISTANCE};
use crate::clip::{MAX_JOINTS, MAX_SAMPLES};
use crate::math::{Quat, Transform, Vec3, FLOATS_PER_JOINT};
use crate::{Error, RawClip, Result};

/// Per-joint error settings that override the clip's arrays when set (from the settings struct).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ErrorOverrides {
    /// Precision for every joint.
    pub precision: Option<f32>,
    /// Shell distance for every joint.
    pub shell_distance: Option<f32>,
}

/// One strided track array: where element (joint, sample) lives.
struct Strided<'a> {
    data: &'a [f32],
    stride: usize,
}

/// Checked shape of the clip: counts and the element indexing rule.
#[derive(Clone, Copy)]
struct Shape {
    joints: usize,
    samples: usize,
    layout: AnimcompLayout,
}

impl Shape {
    fn index(&self, joint: usize, sample: usize) -> usize {
        match self.layout {
            AnimcompLayout::SampleMajor => sample * self.joints + joint,
            AnimcompLayout::JointMajor => joint * self.samples + sample,
        }
    }
}

fn stride_or(stride: u32, width: usize) -> Result<usize> {
    match stride as usize {
        0 => Ok(width),
        s if s < width => Err(Error::InconsistentClip("a stride is smaller than its element (4 for rotations, 3 for vectors)")),
        s => Ok(s),
    }
}

/// Floats spanned by `count` elements of `width` floats at `stride`, overflow-checked.
fn span(count: usize, stride: usize, width: usize) -> Result<usize> {
    (count - 1)
        .checked_mul(stride)
        .and_then(|v| v.checked_add(width))
        .ok_or(Error::InvalidArgument("array length overflows the address space"))
}

unsafe fn strided<'a>(
    ptr: *const f32,
    count: usize,
    stride: u32,
    width: usize,
    what: &'static str,
) -> Result<Strided<'a>> {
    let stride = stride_or(stride, width)?;
    let len = span(count, stride, width)?;
    Ok(Strided { data: in_slice(ptr, len, what)?, stride })
}

impl Strided<'_> {
    #[inline]
    fn at(&self, index: usize, width: usize) -> &[f32] {
        let o = index * self.stride;
        &self.data[o..o + width]
    }
}

/// Converts a C clip description into an owned [`RawClip`] (not yet validated).
///
/// # Safety
/// Every non-null pointer in `c` must point to as many floats (or ints) as its count, layout and
/// stride imply, valid for reads for the duration of the call.
pub(crate) unsafe fn raw_clip_from_c(c: &AnimcompRawClip, ov: ErrorOverrides) -> Result<RawClip> {
    let joints = c.num_joints as usize;
    let samples = c.num_samples as usize;
    if joints == 0 {
        return Err(Error::NoJoints);
    }
    if joints > MAX_JOINTS {
        return Err(Error::TooManyJoints(joints));
    }
    if samples == 0 {
        return Err(Error::NoSamples);
    }
    if samples > MAX_SAMPLES {
        return Err(Error::TooManySamples(samples));
    }
    let layout = AnimcompLayout::from_u32(c.layout)
        .ok_or(Error::InvalidEnum { what: "AnimcompRawClip::layout", value: c.layout })?;
    if c.reserved0 != 0 || c.reserved.iter().any(|&r| r != 0) {
        return Err(Error::InvalidArgument("reserved fields of AnimcompRawClip must be zero"));
    }
    let shape = Shape { joints, samples, layout };
    let count = joints
        .checked_mul(samples)
        .ok_or(Error::InvalidArgument("joints x samples overflows"))?;

    let parents = in_slice(c.parents, joints, "AnimcompRawClip::parents")?;
    let rot = strided(c.rotations, count, c.rotation_stride, 4, "AnimcompRawClip::rotations")?;
    let tra = strided(c.translations, count, c.translation_stride, 3, "AnimcompRawClip::translations")?;
    let sca = if c.scales.is_null() {
        stride_or(c.scale_stride, 3)?;
        None
    } else {
        Some(strided(c.scales, count, c.scale_stride, 3, "AnimcompRawClip::scales")?)
    };
    let precisions = optional(c.precisions, joints, "AnimcompRawClip::precisions")?;
    let shells = optional(c.shell_distances, joints, "AnimcompRawClip::shell_distances")?;
    let bind = optional(c.bind_pose, joints * FLOATS_PER_JOINT, "AnimcompRawClip::bind_pose")?;

    let mut skel_joints = Vec::with_capacity(joints);
    for (j, &p) in parents.iter().enumerate() {
        let parent = match p {
            -1 => None,
            p if p < 0 => return Err(Error::InvalidParent { joint: j, parent: p as i64 }),
            p => Some(p as u32),
        };
        let precision = ov.precision.or(precisions.map(|v| v[j])).unwrap_or(DEFAULT_PRECISION);
        let shell_distance = ov.shell_distance.or(shells.map(|v| v[j])).unwrap_or(DEFAULT_SHELL_DISTANCE);
        skel_joints.push(Joint { name: String::new(), parent, precision, shell_distance });
    }
    let bind_pose = bind.map(|b| b.chunks_exact(FLOATS_PER_JOINT).map(Transform::read_from).collect());

    let mut tracks = Vec::with_capacity(joints);
    for j in 0..joints {
        let mut t = Track {
            rotations: Vec::with_capacity(samples),
            translations: Vec::with_capacity(samples),
            scales: Vec::with_capacity(samples),
        };
        for i in 0..samples {
            let k = shape.index(j, i);
            let q = rot.at(k, 4);
            t.rotations.push(Quat::from_xyzw(q[0], q[1], q[2], q[3]));
            t.translations.push(Vec3::from_slice(tra.at(k, 3)));
            t.scales.push(sca.as_ref().map_or(Vec3::ONE, |s| Vec3::from_slice(s.at(k, 3))));
        }
        tracks.push(t);
    }
    Ok(RawClip {
        name: String::new(),
        skeleton: Skeleton { joints: skel_joints, bind_pose },
        sample_rate: c.sample_rate,
        num_samples: samples,
        tracks,
    })
}

unsafe fn optional<'a>(ptr: *const f32, len: usize, what: &'static str) -> Result<Option<&'a [f32]>> {
    if ptr.is_null() {
        Ok(None)
    } else {
        in_slice(ptr, len, what).map(Some)
    }
}
