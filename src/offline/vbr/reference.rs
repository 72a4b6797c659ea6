//! The reference decode of a `vbr` body as the encoder writes it (the segments layout, format
//! version 2): one component at a time, from the scalar definitions the encoder measures with
//! ([`bitrate::dequantize`], [`rotation::from_stored`], [`lerp`], [`nlerp_shortest`]). It shares
//! no code with the runtime's grouped decoders, so tests compare those decoders (and the
//! regrouping between the two layouts) against it, bit for bit. It allocates and is slow: tests
//! and tools only.
//!
//! What a pose is, given the stored values:
//!
//! - a stored sample's components are `q * mul + add` (a raw `f32` clamped to the clip limits,
//!   a NaN to the low limit); a sample the encoder dropped is the [`lerp`] of its stored
//!   neighbours' components, before a rotation is rebuilt;
//! - a key with weight 0, or whose two samples are one, is its first sample;
//! - between two samples, rotations are [`nlerp_shortest`] (a rotation whose three rates are 0
//!   over the segment holding both samples is not blended) and vectors are `lerp`ed, then
//!   clamped to the clip limits;
//! - constants come from the body, defaults from the bind pose or the identity (a unit scale in
//!   a blob without scale).

use super::{bitrate, layout, rotation};
use crate::format::bytes::read_u32;
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::quantize::bits::read_bits;
use crate::format::validate::validate_blob_for_regroup;
use crate::format::vbr::bitrate::{rate_bits, ClipRange, RATE_FIELD_BITS, RATE_RAW};
use crate::format::vbr::keyframe::{keyframe_position, lerp};
use crate::format::vbr::layout::{
    View, KIND_ANIMATED, KIND_ANIMATED_PER_SEGMENT, KIND_CONSTANT, KIND_DEFAULT,
};
use crate::format::{BlobFlags, CodecId, Header};
use crate::math::{nlerp_shortest, Quat, Transform, Vec3, Vec4, FLOATS_PER_JOINT};
use crate::runtime::{Defaults, SampleKey};
use crate::{Error, Result};

/// A validated format version 2 `vbr` blob with joints, ready to be decoded one value at a time.
pub struct Reference<'a> {
    header: Header,
    body: &'a [u8],
    view: View,
    defaults: Defaults<'a>,
}

/// One animated sub-track at one sample: its three stored components, its dropped component (a
/// rotation's), and whether its three rates are 0 in the sample's segment.
#[derive(Clone, Copy)]
struct Stored {
    v: [f32; 3],
    drop: u8,
    constant: bool,
}

impl<'a> Reference<'a> {
    /// Validates `blob` (checksum included) as [`crate::offline::regroup_blob`] does; refuses
    /// another codec, another format version or a clip without joints. `bind_pose` (10 floats
    /// per joint) gives the defaults of a blob whose defaults are the bind pose.
    pub fn new(blob: &'a [u8], bind_pose: Option<&'a [f32]>) -> Result<Self> {
        let (header, body) = validate_blob_for_regroup(blob, true, &mut Default::default())?;
        if header.codec != CodecId::Vbr || header.num_joints == 0 || header.grouped() {
            return Err(Error::InvalidArgument(
                "the reference decodes format version 2 vbr blobs with joints",
            ));
        }
        let bind = if header.has(BlobFlags::DEFAULTS_ARE_BIND_POSE) {
            let b = bind_pose.ok_or(Error::BindPoseRequired)?;
            let need = header.num_joints as usize * FLOATS_PER_JOINT;
            if b.len() < need {
                return Err(Error::InvalidArgument(
                    "bind pose shorter than 10 floats per joint",
                ));
            }
            Some(&b[..need])
        } else {
            None
        };
        Ok(Reference {
            header,
            body,
            view: View::read(body),
            defaults: Defaults::for_header(&header, bind),
        })
    }

    /// The blob header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Every joint's transform at `key`.
    pub fn pose(&self, key: &SampleKey) -> Vec<Transform> {
        let v = &self.view;
        let one = key.i1 == key.i0 || key.alpha <= 0.0;
        let pair = !one && key.i0 / v.seg_len == key.i1 / v.seg_len;
        let a = self.sample(key.i0);
        let b = if one { a.clone() } else { self.sample(key.i1) };
        let has_scale = self.header.has(BlobFlags::HAS_SCALE);
        let table = &self.body[v.tracks..v.tracks + self.header.num_joints as usize];
        let mut constants = v.constants;
        let mut t = 0;
        let vector = |t: usize| {
            let (x, y) = (Vec4::from((Vec3::from(a[t].v), 0.0)), Vec3::from(b[t].v));
            let x = if one {
                x
            } else {
                x.lerp((y, 0.0).into(), key.alpha)
            };
            let m = Vec4::splat(MAX_ABS_VALUE);
            x.max(-m).min(m).truncate()
        };
        let mut out = Vec::with_capacity(table.len());
        for (j, &byte) in table.iter().enumerate() {
            let d = self.defaults.get(j);
            let rotation = match layout::kind(byte, 0) {
                KIND_DEFAULT => d.rotation,
                KIND_CONSTANT => {
                    constants += 16;
                    Quat::from_array([0, 1, 2, 3].map(|k| self.f32_at(constants - 16 + 4 * k)))
                }
                _ => {
                    t += 1;
                    let (x, y) = (a[t - 1], b[t - 1]);
                    let q = rotation::from_stored(x.v, x.drop);
                    if one || (pair && x.constant) {
                        q
                    } else {
                        nlerp_shortest(q, rotation::from_stored(y.v, y.drop), key.alpha)
                    }
                }
            };
            let mut vec3 = |channel: u32, default: Vec3| match layout::kind(byte, channel) {
                KIND_CONSTANT => {
                    constants += 12;
                    Vec3::from_array([0, 1, 2].map(|k| self.f32_at(constants - 12 + 4 * k)))
                }
                KIND_ANIMATED => {
                    t += 1;
                    vector(t - 1)
                }
                _ => default,
            };
            let translation = vec3(1, d.translation);
            let scale = if has_scale {
                vec3(2, d.scale)
            } else {
                Vec3::ONE
            };
            out.push(Transform {
                rotation,
                translation,
                scale,
            });
        }
        out
    }

    /// [`Reference::pose`] written as 10 floats per joint, `stride` floats apart.
    pub fn sample_pose(&self, key: &SampleKey, out: &mut [f32], stride: usize) {
        for (j, t) in self.pose(key).iter().enumerate() {
            t.write_to(&mut out[j * stride..j * stride + FLOATS_PER_JOINT]);
        }
    }

    fn f32_at(&self, o: usize) -> f32 {
        f32::from_bits(read_u32(self.body, o))
    }

    /// Every animated sub-track's stored components at sample `s`, in track-table order.
    fn sample(&self, s: u32) -> Vec<Stored> {
        let (v, body) = (&self.view, self.body);
        let seg = s / v.seg_len;
        let off = v.segment_offset(body, seg);
        let mask = read_u32(body, off);
        let frame_bits = read_u32(body, off + 4) as usize;
        let (idx, w) = keyframe_position(mask, s - seg * v.seg_len);
        let rates_at = 8 * (off + layout::SEGMENT_HEADER);
        let mut drop_bit = rates_at + 3 * RATE_FIELD_BITS as usize * v.num_animated as usize;
        let fields_at = off + layout::SEGMENT_HEADER + v.rate_bytes();
        let mut bit = 8 * v.frames_offset(off) + idx as usize * frame_bits;
        let mut ranges = v.ranges;
        let table = &body[v.tracks..v.tracks + self.header.num_joints as usize];
        let mut out = Vec::with_capacity(v.num_animated as usize);
        for &byte in table {
            for channel in 0..3 {
                let kind = layout::kind(byte, channel);
                let animated = match channel {
                    0 => kind == KIND_ANIMATED || kind == KIND_ANIMATED_PER_SEGMENT,
                    _ => kind == KIND_ANIMATED,
                };
                if !animated {
                    continue;
                }
                let t = out.len();
                let rates = read_bits(body, rates_at + 15 * t, 15);
                let rate = [0, 1, 2].map(|c| ((rates >> (5 * c)) & 31) as u8);
                let fields = [0, 1, 2].map(|c| read_u16(body, fields_at + 6 * t + 2 * c));
                let (slot_ranges, drop, limit) = if channel == 0 {
                    let drop = if kind == KIND_ANIMATED_PER_SEGMENT {
                        drop_bit += 2;
                        read_bits(body, drop_bit - 2, 2) as u8
                    } else {
                        byte >> 6
                    };
                    let n = layout::range_bytes_of(0, kind) / 4;
                    let words: Vec<u32> = (0..n).map(|k| read_u32(body, ranges + 4 * k)).collect();
                    ranges += 4 * n;
                    // Per-segment drops store the four components' ranges: the stored three
                    // are the ones other than `drop`, in order.
                    let slots: Vec<u32> = if n == 4 {
                        (0..4)
                            .filter(|&c| c != drop as usize)
                            .map(|c| words[c])
                            .collect()
                    } else {
                        words
                    };
                    let r = [0, 1, 2]
                        .map(|k| bitrate::rotation_range(slots[k] as u16, (slots[k] >> 16) as u16));
                    (r, drop, 1.0)
                } else {
                    let f = |k: usize| self.f32_at(ranges + 4 * k);
                    let r = [0, 1, 2].map(|c| ClipRange {
                        min: f(2 * c),
                        extent: f(2 * c + 1),
                    });
                    ranges += layout::VECTOR_RANGE_BYTES;
                    (r, 0, MAX_ABS_VALUE)
                };
                let bits = rate.map(rate_bits);
                let total: u32 = bits.iter().sum();
                let value = |at: usize| {
                    let mut b = at;
                    [0, 1, 2].map(|c| {
                        let q = read_bits(body, b, bits[c]);
                        b += bits[c] as usize;
                        let x = bitrate::dequantize(q, rate[c], fields[c], &slot_ranges[c]);
                        // A raw `f32` within the clip limits, a NaN at the low one.
                        #[allow(clippy::manual_clamp)]
                        if rate[c] == RATE_RAW {
                            x.max(-limit).min(limit)
                        } else {
                            x
                        }
                    })
                };
                let mut x = value(bit);
                if w > 0.0 {
                    let y = value(bit + frame_bits);
                    x = [0, 1, 2].map(|c| lerp(x[c], y[c], w));
                }
                bit += total as usize;
                out.push(Stored {
                    v: x,
                    drop,
                    constant: total == 0,
                });
            }
        }
        out
    }
}

fn read_u16(b: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([b[o], b[o + 1]])
}
