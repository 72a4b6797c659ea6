//! Stateless sampling: per track, a binary search over that track's keys through the key index.
//!
//! Also holds the pieces the playback cursor shares with it (value decoding, slot evaluation), so
//! that both paths produce bit-identical poses.

use glam::Vec4;

use crate::blob::Header;
use crate::codec::{Defaults, PoseOut, SampleKey};
use crate::math::{Quat, Transform, Vec3};

use super::format::{
    channels, range_stride, Kind, Layout, Slot, CH_ROTATION, CH_TRANSLATION, SEGMENT_LEN,
};
use super::interp::{eval, Interp};
use super::quant::{range_ext, range_min, unpack_rotation, unpack_rotation_rr, unpack_vector};

/// Decodes the payload of a key at sample `time` for a slot.
#[inline]
pub(crate) fn decode_value(
    lay: &Layout,
    body: &[u8],
    slot: &Slot,
    channel: usize,
    time: u16,
    payload: u64,
) -> Vec4 {
    if channel == CH_ROTATION && !slot.ranged {
        return unpack_rotation(payload);
    }
    // Validation guarantees every key time is below the sample count, so the segment's range
    // is inside the slot's pool entries.
    let stride = range_stride(channel);
    let p = if slot.segmented {
        slot.pool + stride * (time as usize / SEGMENT_LEN)
    } else {
        slot.pool
    };
    let mut r = [0.0f32; 7];
    for (i, v) in r.iter_mut().enumerate().take(stride) {
        *v = lay.pool_f32(body, p + i);
    }
    if channel == CH_ROTATION {
        unpack_rotation_rr(payload, &r)
    } else {
        unpack_vector(payload, range_min(&r), range_ext(&r))
    }
}

/// The constant value of a constant slot.
#[inline]
pub(crate) fn constant_value(lay: &Layout, body: &[u8], slot: &Slot, channel: usize) -> Vec4 {
    let p = slot.pool;
    let w = if channel == CH_ROTATION {
        lay.pool_f32(body, p + 3)
    } else {
        0.0
    };
    Vec4::new(
        lay.pool_f32(body, p),
        lay.pool_f32(body, p + 1),
        lay.pool_f32(body, p + 2),
        w,
    )
}

/// Evaluates an animated slot at time `t` (in samples) by binary search over its keys.
pub(crate) fn eval_slot_stateless(
    lay: &Layout,
    body: &[u8],
    slot: &Slot,
    channel: usize,
    t: f32,
) -> Vec4 {
    let n = slot.count;
    let time = |i: usize| lay.entry_time(body, lay.index_at(body, slot.first + i)) as f32;
    // k = last key with time <= t (0 if none).
    let (mut lo, mut hi) = (0usize, n);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if time(mid) <= t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let k = lo;
    let mut ts = [0.0f32; 4];
    let mut vs = [Vec4::ZERO; 4];
    // Linear spans only read keys k and k+1.
    let range = match slot.interp {
        Interp::Linear => 1..3,
        Interp::CatmullRom => 0..4,
    };
    for i in range {
        let key = (k as isize + i as isize - 1).clamp(0, n as isize - 1) as usize;
        let e = lay.index_at(body, slot.first + key);
        let time = lay.entry_time(body, e);
        ts[i] = time as f32;
        vs[i] = decode_value(lay, body, slot, channel, time, lay.entry_payload(body, e));
    }
    eval(slot.interp, ts, vs, t, channel == CH_ROTATION)
}

/// Blends two values of a channel (wrap-around between the last and the first sample).
#[inline]
pub(crate) fn blend(a: Vec4, b: Vec4, alpha: f32, channel: usize) -> Vec4 {
    super::interp::linear(0.0, a, 1.0, b, alpha, channel == CH_ROTATION)
}

/// Writes a channel value into a transform.
#[inline]
pub(crate) fn set_channel(t: &mut Transform, channel: usize, v: Vec4) {
    match channel {
        CH_ROTATION => t.rotation = Quat::from_vec4(v),
        CH_TRANSLATION => t.translation = Vec3::new(v.x, v.y, v.z),
        _ => t.scale = Vec3::new(v.x, v.y, v.z),
    }
}

/// The value of one channel of joint `j` at a sample key, stateless.
#[inline]
fn channel_value(
    lay: &Layout,
    body: &[u8],
    slot: &Slot,
    channel: usize,
    key: &SampleKey,
) -> Option<Vec4> {
    match slot.kind {
        Kind::Default => None,
        Kind::Constant => Some(constant_value(lay, body, slot, channel)),
        Kind::Animated => Some(if key.i1 == key.i0 + 1 || key.i1 == key.i0 {
            eval_slot_stateless(lay, body, slot, channel, key.i0 as f32 + key.alpha)
        } else {
            let a = eval_slot_stateless(lay, body, slot, channel, key.i0 as f32);
            let b = eval_slot_stateless(lay, body, slot, channel, key.i1 as f32);
            blend(a, b, key.alpha, channel)
        }),
    }
}

/// Finishes a decoded transform: rotations are normalised (constant rotations may be stored
/// unnormalised by a hostile body) and scale is one when the blob has none.
#[inline]
pub(crate) fn finish(mut t: Transform) -> Transform {
    let l2 = t.rotation.length_squared();
    t.rotation = if l2 > 0.0 && l2.is_finite() {
        t.rotation * l2.sqrt().recip()
    } else {
        Quat::IDENTITY
    };
    t
}

/// Samples joint `j`.
pub(crate) fn sample_joint(
    h: &Header,
    body: &[u8],
    key: &SampleKey,
    j: usize,
    d: &Defaults,
) -> Transform {
    let lay = Layout::read(body);
    let nch = channels(h);
    let mut t = d.get(j);
    for c in 0..nch {
        let slot = lay.slot(body, j * nch + c);
        if let Some(v) = channel_value(&lay, body, &slot, c, key) {
            set_channel(&mut t, c, v);
        }
    }
    if nch < 3 {
        t.scale = Vec3::ONE;
    }
    finish(t)
}

/// Samples every joint.
pub(crate) fn sample_pose(
    h: &Header,
    body: &[u8],
    key: &SampleKey,
    d: &Defaults,
    out: &mut PoseOut,
) {
    for j in 0..h.num_joints as usize {
        let t = sample_joint(h, body, key, j, d);
        out.write(j, &t);
    }
}
