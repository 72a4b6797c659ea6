//! Sampling a validated `fixed` body: no allocation, two contiguous frames per pose.

use crate::format::fixed::layout::{
    constant_quat, constant_vec3, kinds_of, range_at, Cursor, Kind, Layout,
};
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::quantize::Range3;
use crate::format::{BlobFlags, Header};
use crate::math::{nlerp_shortest, Quat, Transform, Vec3};
use crate::runtime::{Defaults, PoseOut, SampleKey};

/// The two frames a key reads and the interpolation weight.
struct Frames<'a> {
    f0: &'a [u8],
    f1: &'a [u8],
    alpha: f32,
}

impl<'a> Frames<'a> {
    #[inline(always)]
    fn new(body: &'a [u8], l: &Layout, key: &SampleKey) -> Frames<'a> {
        let at = |i: u32| &body[l.frames_offset + i as usize * l.frame_size..];
        Frames {
            f0: at(key.i0),
            f1: at(key.i1),
            alpha: key.alpha,
        }
    }
}

#[inline(always)]
fn rotation(
    body: &[u8],
    l: &Layout,
    fr: &Frames,
    c: &mut Cursor,
    kind: Kind,
    default: impl Fn() -> Quat,
) -> Quat {
    match kind {
        Kind::Default => default(),
        Kind::Constant => {
            let q = constant_quat(body, l, c.constant);
            c.constant += 4;
            q
        }
        Kind::Animated => {
            let range = if l.rotation.uses_range() {
                let r = range_at(body, l, c.range);
                c.range += 6;
                r
            } else {
                Range3::default()
            };
            let q0 = l.rotation.unpack(fr.f0, c.bit, &range);
            let q = if fr.alpha == 0.0 {
                q0
            } else {
                nlerp_shortest(q0, l.rotation.unpack(fr.f1, c.bit, &range), fr.alpha)
            };
            c.bit += l.rotation.bits_per_sample() as usize;
            q
        }
    }
}

#[inline(always)]
fn vector(
    body: &[u8],
    l: &Layout,
    fr: &Frames,
    c: &mut Cursor,
    kind: Kind,
    format: crate::format::quantize::VectorFormat,
    default: impl Fn() -> Vec3,
) -> Vec3 {
    match kind {
        Kind::Default => default(),
        Kind::Constant => {
            let v = constant_vec3(body, l, c.constant);
            c.constant += 3;
            v
        }
        Kind::Animated => {
            let range = if format.uses_range() {
                let r = range_at(body, l, c.range);
                c.range += 6;
                r
            } else {
                Range3::default()
            };
            let v0 = format.unpack(fr.f0, c.bit, &range);
            let v = if fr.alpha == 0.0 {
                v0
            } else {
                v0.lerp(format.unpack(fr.f1, c.bit, &range), fr.alpha)
            };
            c.bit += format.bits_per_sample() as usize;
            // Validated ranges decode within 3 x MAX_ABS_VALUE, and a lerp may round past the
            // limit: clamp to the input limit (docs/robustness.md, "What a valid blob decodes to").
            let lim = Vec3::splat(MAX_ABS_VALUE);
            v.clamp(-lim, lim)
        }
    }
}

/// Decodes joint `j` whose data starts at `c` (which is advanced past it).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn joint(
    body: &[u8],
    l: &Layout,
    fr: &Frames,
    c: &mut Cursor,
    kind: u8,
    has_scale: bool,
    j: usize,
    d: &Defaults,
) -> Transform {
    let [kr, kt, ks] = kinds_of(kind);
    let rotation = rotation(body, l, fr, c, kr, || d.get(j).rotation);
    let translation = vector(body, l, fr, c, kt, l.translation, || d.get(j).translation);
    let scale = if has_scale {
        vector(body, l, fr, c, ks, l.scale, || d.get(j).scale)
    } else {
        Vec3::ONE
    };
    Transform {
        rotation,
        translation,
        scale,
    }
}

/// Samples every joint.
pub(crate) fn sample_pose(
    h: &Header,
    body: &[u8],
    key: &SampleKey,
    d: &Defaults,
    out: &mut PoseOut,
) {
    let l = Layout::read(body);
    let fr = Frames::new(body, &l, key);
    let has_scale = h.has(BlobFlags::HAS_SCALE);
    let kinds = &body[l.kinds_offset..l.kinds_offset + l.num_joints];
    let mut c = Cursor::default();
    for (j, &k) in kinds.iter().enumerate() {
        let t = joint(body, &l, &fr, &mut c, k, has_scale, j, d);
        out.write(j, &t);
    }
}

/// Samples one joint.
pub(crate) fn sample_joint(
    h: &Header,
    body: &[u8],
    key: &SampleKey,
    j: usize,
    d: &Defaults,
) -> Transform {
    let l = Layout::read(body);
    let fr = Frames::new(body, &l, key);
    let kinds = &body[l.kinds_offset..l.kinds_offset + l.num_joints];
    let mut c = Cursor::default();
    for &k in &kinds[..j] {
        c.advance(&l, k);
    }
    joint(
        body,
        &l,
        &fr,
        &mut c,
        kinds[j],
        h.has(BlobFlags::HAS_SCALE),
        j,
        d,
    )
}
