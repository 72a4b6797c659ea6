//! `AnimcompRawClip` (caller arrays with layout and strides) → [`RawClip`].
//!
//! Only shape is checked here (counts, enum values, strides, pointers, addressable lengths); the
//! values themselves are judged by [`RawClip::validate`] inside compression, so C and Rust callers
//! get the same statuses for the same bad data.

use super::guard::in_slice;
use super::types::{AnimcompLayout, AnimcompRawClip};
use crate::format::limits::{MAX_JOINTS, MAX_SAMPLES};
use crate::math::{Quat, Transform, Vec3, FLOATS_PER_JOINT};
use crate::offline::clip::{Joint, Skeleton, Track, DEFAULT_PRECISION, DEFAULT_SHELL_DISTANCE};
use crate::{Error, RawClip, Result};

/// Per-joint error settings that override the clip's arrays when set (from the settings struct).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ErrorOverrides {
    /// Precision for every joint.
    pub precision: Option<f32>,
    /// Shell distance for every joint.
    pub shell_distance: Option<f32>,
    /// Precision of curves without their own (settings' `curve_precision`).
    pub curve_precision: f32,
    /// Position precision for curves with a magnitude.
    pub morph_position_precision: Option<f32>,
}

impl Default for ErrorOverrides {
    fn default() -> Self {
        ErrorOverrides {
            precision: None,
            shell_distance: None,
            curve_precision: crate::offline::curves::DEFAULT_CURVE_PRECISION,
            morph_position_precision: None,
        }
    }
}

/// One strided track array: where element (joint, sample) lives.
pub(super) struct Strided<'a> {
    data: &'a [f32],
    stride: usize,
}

/// Checked shape of the clip: counts and the element indexing rule.
#[derive(Clone, Copy)]
pub(super) struct Shape {
    pub joints: usize,
    pub samples: usize,
    pub layout: AnimcompLayout,
}

impl Shape {
    pub fn index(&self, joint: usize, sample: usize) -> usize {
        match self.layout {
            AnimcompLayout::SampleMajor => sample * self.joints + joint,
            AnimcompLayout::JointMajor => joint * self.samples + sample,
        }
    }
}

fn stride_or(stride: u32, width: usize) -> Result<usize> {
    match stride as usize {
        0 => Ok(width),
        s if s < width => Err(Error::InconsistentClip(
            "a stride is smaller than its element (4 for rotations, 3 for vectors)",
        )),
        s => Ok(s),
    }
}

/// Floats spanned by `count` elements of `width` floats at `stride`, overflow-checked.
fn span(count: usize, stride: usize, width: usize) -> Result<usize> {
    (count - 1)
        .checked_mul(stride)
        .and_then(|v| v.checked_add(width))
        .ok_or(Error::InvalidArgument(
            "array length overflows the address space",
        ))
}

pub(super) unsafe fn strided<'a>(
    ptr: *const f32,
    count: usize,
    stride: u32,
    width: usize,
    what: &'static str,
) -> Result<Strided<'a>> {
    let stride = stride_or(stride, width)?;
    let len = span(count, stride, width)?;
    Ok(Strided {
        data: in_slice(ptr, len, what)?,
        stride,
    })
}

impl Strided<'_> {
    /// No elements (a clip without joints).
    const EMPTY: Strided<'static> = Strided {
        data: &[],
        stride: 1,
    };

    #[inline]
    pub fn at(&self, index: usize, width: usize) -> &[f32] {
        let o = index * self.stride;
        &self.data[o..o + width]
    }
}

/// A C clip whose shape has been checked: counts, layout, strides, pointers and addressable
/// lengths. Values are not read yet.
pub(crate) struct CheckedClip<'a> {
    shape: Shape,
    sample_rate: f32,
    parents: &'a [i32],
    rot: Strided<'a>,
    tra: Strided<'a>,
    sca: Option<Strided<'a>>,
    precisions: Option<&'a [f32]>,
    shells: Option<&'a [f32]>,
    bind: Option<&'a [f32]>,
}

impl CheckedClip<'_> {
    /// Joint count.
    pub fn num_joints(&self) -> usize {
        self.shape.joints
    }
    /// Sample count.
    pub fn num_samples(&self) -> usize {
        self.shape.samples
    }
}

/// Checks the shape of a C clip description without reading its track values.
///
/// # Safety
/// Every non-null pointer in `c` must point to as many floats (or ints) as its count, layout and
/// stride imply, valid for reads while the result is used.
pub(crate) unsafe fn check_clip(c: &AnimcompRawClip) -> Result<CheckedClip<'_>> {
    let joints = c.num_joints as usize;
    let samples = c.num_samples as usize;
    if joints == 0 && c.num_curves == 0 {
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
    let layout = AnimcompLayout::from_u32(c.layout).ok_or(Error::InvalidEnum {
        what: "AnimcompRawClip::layout",
        value: c.layout,
    })?;
    if c.reserved0 != 0 || c.reserved.iter().any(|&r| r != 0) {
        return Err(Error::InvalidArgument(
            "reserved fields of AnimcompRawClip must be zero",
        ));
    }
    let count = joints
        .checked_mul(samples)
        .ok_or(Error::InvalidArgument("joints x samples overflows"))?;
    if joints == 0 {
        return Ok(CheckedClip {
            shape: Shape {
                joints,
                samples,
                layout,
            },
            sample_rate: c.sample_rate,
            parents: &[],
            rot: Strided::EMPTY,
            tra: Strided::EMPTY,
            sca: None,
            precisions: None,
            shells: None,
            bind: None,
        });
    }
    let parents = in_slice(c.parents, joints, "AnimcompRawClip::parents")?;
    let rot = strided(
        c.rotations,
        count,
        c.rotation_stride,
        4,
        "AnimcompRawClip::rotations",
    )?;
    let tra = strided(
        c.translations,
        count,
        c.translation_stride,
        3,
        "AnimcompRawClip::translations",
    )?;
    let sca = if c.scales.is_null() {
        stride_or(c.scale_stride, 3)?;
        None
    } else {
        Some(strided(
            c.scales,
            count,
            c.scale_stride,
            3,
            "AnimcompRawClip::scales",
        )?)
    };
    Ok(CheckedClip {
        shape: Shape {
            joints,
            samples,
            layout,
        },
        sample_rate: c.sample_rate,
        parents,
        rot,
        tra,
        sca,
        precisions: optional(c.precisions, joints, "AnimcompRawClip::precisions")?,
        shells: optional(
            c.shell_distances,
            joints,
            "AnimcompRawClip::shell_distances",
        )?,
        bind: optional(
            c.bind_pose,
            joints * FLOATS_PER_JOINT,
            "AnimcompRawClip::bind_pose",
        )?,
    })
}

/// Converts a C clip description into an owned [`RawClip`] (not yet validated).
///
/// # Safety
/// As [`check_clip`].
pub(crate) unsafe fn raw_clip_from_c(c: &AnimcompRawClip, ov: ErrorOverrides) -> Result<RawClip> {
    check_clip(c).and_then(|checked| to_raw_clip(&checked, ov))
}

/// Copies a checked C clip into an owned [`RawClip`].
pub(crate) fn to_raw_clip(c: &CheckedClip, ov: ErrorOverrides) -> Result<RawClip> {
    let (joints, samples) = (c.shape.joints, c.shape.samples);
    let mut skel_joints = Vec::with_capacity(joints);
    for (j, &p) in c.parents.iter().enumerate() {
        let parent = match p {
            -1 => None,
            p if p < 0 => {
                return Err(Error::InvalidParent {
                    joint: j,
                    parent: p as i64,
                })
            }
            p => Some(p as u32),
        };
        let precision = ov
            .precision
            .or(c.precisions.map(|v| v[j]))
            .unwrap_or(DEFAULT_PRECISION);
        let shell_distance = ov
            .shell_distance
            .or(c.shells.map(|v| v[j]))
            .unwrap_or(DEFAULT_SHELL_DISTANCE);
        skel_joints.push(Joint {
            name: String::new(),
            parent,
            precision,
            shell_distance,
        });
    }
    let bind_pose = c.bind.map(|b| {
        b.chunks_exact(FLOATS_PER_JOINT)
            .map(Transform::read_from)
            .collect()
    });

    let mut tracks = Vec::with_capacity(joints);
    for j in 0..joints {
        let mut t = Track {
            rotations: Vec::with_capacity(samples),
            translations: Vec::with_capacity(samples),
            scales: Vec::with_capacity(samples),
        };
        for i in 0..samples {
            let k = c.shape.index(j, i);
            let q = c.rot.at(k, 4);
            t.rotations.push(Quat::from_xyzw(q[0], q[1], q[2], q[3]));
            t.translations.push(Vec3::from_slice(c.tra.at(k, 3)));
            t.scales.push(
                c.sca
                    .as_ref()
                    .map_or(Vec3::ONE, |s| Vec3::from_slice(s.at(k, 3))),
            );
        }
        tracks.push(t);
    }
    Ok(RawClip {
        name: String::new(),
        skeleton: Skeleton {
            joints: skel_joints,
            bind_pose,
        },
        sample_rate: c.sample_rate,
        num_samples: samples,
        tracks,
    })
}

unsafe fn optional<'a>(
    ptr: *const f32,
    len: usize,
    what: &'static str,
) -> Result<Option<&'a [f32]>> {
    if ptr.is_null() {
        Ok(None)
    } else {
        in_slice(ptr, len, what).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::clip::{generate_clip, GenerateOptions};

    /// The generated clip as (parents, interleaved sample-major 10-float transforms).
    fn interleaved(c: &RawClip) -> (Vec<i32>, Vec<f32>) {
        let parents = c
            .skeleton
            .joints
            .iter()
            .map(|j| j.parent.map_or(-1, |p| p as i32))
            .collect();
        let mut data = Vec::new();
        for i in 0..c.num_samples {
            for t in &c.tracks {
                let mut v = [0.0; 10];
                t.get(i).write_to(&mut v);
                data.extend_from_slice(&v);
            }
        }
        (parents, data)
    }

    fn zeroed() -> AnimcompRawClip {
        // SAFETY: every field of AnimcompRawClip is an integer, float or raw pointer.
        unsafe { std::mem::zeroed() }
    }

    #[test]
    fn interleaved_and_joint_major_layouts_give_the_same_clip() {
        let src = generate_clip(&GenerateOptions {
            joints: 7,
            samples: 13,
            scale: true,
            ..Default::default()
        });
        let (parents, data) = interleaved(&src);
        let mut c = zeroed();
        c.num_joints = 7;
        c.num_samples = 13;
        c.sample_rate = src.sample_rate;
        c.parents = parents.as_ptr();
        c.rotations = data.as_ptr();
        c.translations = data[4..].as_ptr();
        c.scales = data[7..].as_ptr();
        (c.rotation_stride, c.translation_stride, c.scale_stride) = (10, 10, 10);
        let a = unsafe { raw_clip_from_c(&c, ErrorOverrides::default()) }.unwrap();
        assert_eq!(a.tracks, src.tracks);
        assert_eq!(
            a.skeleton
                .joints
                .iter()
                .map(|j| j.parent)
                .collect::<Vec<_>>(),
            src.skeleton
                .joints
                .iter()
                .map(|j| j.parent)
                .collect::<Vec<_>>()
        );

        // Joint-major, tightly packed, separate arrays.
        let (mut r, mut t, mut s) = (Vec::new(), Vec::new(), Vec::new());
        for tr in &src.tracks {
            for i in 0..13 {
                r.extend_from_slice(&tr.rotations[i].to_array());
                t.extend_from_slice(&tr.translations[i].to_array());
                s.extend_from_slice(&tr.scales[i].to_array());
            }
        }
        let mut c2 = zeroed();
        c2.num_joints = 7;
        c2.num_samples = 13;
        c2.sample_rate = src.sample_rate;
        c2.layout = AnimcompLayout::JointMajor as u32;
        c2.parents = parents.as_ptr();
        (c2.rotations, c2.translations, c2.scales) = (r.as_ptr(), t.as_ptr(), s.as_ptr());
        let b = unsafe { raw_clip_from_c(&c2, ErrorOverrides::default()) }.unwrap();
        assert_eq!(b, a);

        // No scales: unit scale; overrides replace per-joint settings.
        c2.scales = std::ptr::null();
        let ov = ErrorOverrides {
            precision: Some(0.5),
            shell_distance: Some(7.0),
            ..Default::default()
        };
        let u = unsafe { raw_clip_from_c(&c2, ov) }.unwrap();
        assert!(u
            .tracks
            .iter()
            .all(|t| t.scales.iter().all(|s| *s == Vec3::ONE)));
        assert!(u
            .skeleton
            .joints
            .iter()
            .all(|j| j.precision == 0.5 && j.shell_distance == 7.0));
        assert!(b
            .skeleton
            .joints
            .iter()
            .all(|j| j.precision == DEFAULT_PRECISION));
    }

    #[test]
    fn shape_errors() {
        let parents = [-1i32, 0];
        let data = vec![0.0f32; 2 * 3 * 10];
        let mut c = zeroed();
        c.num_joints = 2;
        c.num_samples = 3;
        c.sample_rate = 30.0;
        c.parents = parents.as_ptr();
        c.rotations = data.as_ptr();
        c.translations = data.as_ptr();
        let ok = |c: &AnimcompRawClip| unsafe { raw_clip_from_c(c, ErrorOverrides::default()) };
        assert!(ok(&c).is_ok());
        let mut b = c;
        b.rotation_stride = 3;
        assert!(matches!(ok(&b), Err(Error::InconsistentClip(_))));
        let mut b = c;
        b.scale_stride = 2;
        assert!(matches!(ok(&b), Err(Error::InconsistentClip(_))));
        let mut b = c;
        b.layout = 2;
        assert!(matches!(ok(&b), Err(Error::InvalidEnum { value: 2, .. })));
        let mut b = c;
        b.reserved[1] = 1;
        assert!(matches!(ok(&b), Err(Error::InvalidArgument(_))));
        let mut b = c;
        b.translations = std::ptr::null();
        assert!(matches!(ok(&b), Err(Error::NullPointer(_))));
        let mut b = c;
        b.rotation_stride = u32::MAX;
        b.num_samples = MAX_SAMPLES as u32;
        b.num_joints = MAX_JOINTS as u32;
        // 2^24 * 16383 elements at a stride of 2^32 floats: the length overflows or cannot be
        // addressed; either way an error, never a slice.
        assert!(matches!(ok(&b), Err(Error::InvalidArgument(_))));
        let bad_parents = [-1i32, -2];
        let mut b = c;
        b.parents = bad_parents.as_ptr();
        assert_eq!(
            ok(&b),
            Err(Error::InvalidParent {
                joint: 1,
                parent: -2
            })
        );
    }
}
