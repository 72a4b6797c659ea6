//! Per codec id, the decoder that samples a validated body. A validated `vbr` body with joints is
//! grouped (format version 5): validation refuses the segments layout (format version 2).

use super::{BodyHint, Defaults, JointSelection, PoseOut, SampleKey};
use crate::format::{CodecId, Header};
use crate::math::Transform;

/// Samples a whole pose from a validated body.
#[inline(always)]
pub(crate) fn sample_pose(
    h: &Header,
    body: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    out: &mut PoseOut,
) {
    if h.num_joints == 0 {
        return;
    }
    match h.codec {
        CodecId::Fixed => super::fixed::sample_pose(h, body, key, d, out),
        CodecId::Vbr => super::vbr::grouped::entry::sample_pose(h, body, hint, key, d, out),
        CodecId::Keys => super::keys::sample_pose(h, body, key, d, out),
    }
}

/// Samples a whole pose with each channel's rows at `rows` where the codec's decoder writes
/// rows anywhere (`vbr`, every decoder); `false` (nothing written) otherwise.
#[inline]
pub(crate) fn sample_pose_rows(
    h: &Header,
    body: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    rows: super::PoseRows,
) -> bool {
    match h.codec {
        CodecId::Vbr if h.num_joints > 0 => {
            super::vbr::grouped::entry::sample_pose_rows(h, body, hint, key, d, rows);
            true
        }
        _ => false,
    }
}

/// Samples a whole pose into ozz blocks of four joints at `out` where the codec's decoder
/// writes them (`vbr`, the AVX2 decoder; the lanes past the last joint not written); `false`
/// (nothing written) otherwise.
#[inline]
pub(crate) fn sample_pose_soa4(
    h: &Header,
    body: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    out: *mut f32,
) -> bool {
    match h.codec {
        CodecId::Vbr if h.num_joints > 0 => {
            super::vbr::grouped::entry::sample_pose_soa4(h, body, hint, key, d, out)
        }
        _ => false,
    }
}

/// [`sample_pose_soa4`] through a playback cache.
#[inline]
pub(crate) fn sample_pose_cached_soa4(
    h: &Header,
    body: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    out: *mut f32,
    cache: &mut [u8],
) -> bool {
    match h.codec {
        CodecId::Vbr if h.num_joints > 0 => {
            super::vbr::grouped::entry::sample_pose_cached_soa4(h, body, hint, key, d, out, cache)
        }
        _ => false,
    }
}

/// [`sample_pose_rows`] through a playback cache.
#[inline]
pub(crate) fn sample_pose_cached_rows(
    h: &Header,
    body: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    rows: super::PoseRows,
    cache: &mut [u8],
) -> bool {
    match h.codec {
        CodecId::Vbr if h.num_joints > 0 => {
            super::vbr::grouped::entry::sample_pose_cached_rows(h, body, hint, key, d, rows, cache);
            true
        }
        _ => false,
    }
}

/// Samples a whole pose through a playback cache (codecs without one sample as
/// [`sample_pose`] does).
#[inline]
pub(crate) fn sample_pose_cached(
    h: &Header,
    body: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    out: &mut PoseOut,
    cache: &mut [u8],
) {
    match h.codec {
        CodecId::Vbr if h.num_joints > 0 => {
            super::vbr::grouped::entry::sample_pose_cached(h, body, hint, key, d, out, cache)
        }
        _ => sample_pose(h, body, hint, key, d, out),
    }
}

/// Bytes of playback cache a context on a validated body can use (0: the codec has none).
pub(crate) fn cache_size(h: &Header, body: &[u8]) -> usize {
    match h.codec {
        CodecId::Vbr if h.num_joints > 0 => super::vbr::grouped::entry::cache_size(body),
        _ => 0,
    }
}

/// The [`BodyHint`] of a validated body.
pub(crate) fn hint(h: &Header, body: &[u8]) -> BodyHint {
    match h.codec {
        CodecId::Vbr if h.num_joints > 0 => super::vbr::grouped::entry::hint(h, body),
        _ => BodyHint::default(),
    }
}

/// Samples one joint from a validated body.
pub(crate) fn sample_joint(
    h: &Header,
    body: &[u8],
    key: &SampleKey,
    joint: usize,
    d: &Defaults,
) -> Transform {
    if h.num_joints == 0 {
        return Transform::IDENTITY;
    }
    match h.codec {
        CodecId::Fixed => super::fixed::sample_joint(h, body, key, joint, d),
        CodecId::Vbr => super::vbr::grouped::entry::sample_joint(h, body, key, joint, d),
        CodecId::Keys => super::keys::sample_joint(h, body, key, joint, d),
    }
}

/// Samples a joint subset from a validated body (see [`JointSelection`]).
#[inline(always)]
pub(crate) fn sample_joints(
    h: &Header,
    body: &[u8],
    key: &SampleKey,
    d: &Defaults,
    sel: &JointSelection,
    out: &mut PoseOut,
) {
    match h.codec {
        CodecId::Vbr if h.num_joints > 0 => {
            super::vbr::grouped::entry::sample_joints(h, body, key, d, sel, out)
        }
        _ => {
            for (i, &j) in sel.joints.iter().enumerate() {
                let t = sample_joint(h, body, key, j as usize, d);
                out.write_channels(sel.slot(i), &t, sel.channels);
            }
        }
    }
}
