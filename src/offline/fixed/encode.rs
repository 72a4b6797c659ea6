//! The `fixed` encoder: classify every sub-track, then write header, kinds, constants, ranges
//! and one frame per sample.

use super::classify::{plan_joint, JointPlan};
use crate::format::bytes::ByteWriter;
use crate::format::fixed::layout::{
    kind_byte, Kind, Layout, CODEC_HEADER_SIZE, FRAME_PADDING, SECTION_ALIGN,
};
use crate::format::quantize::bits::BitWriter;
use crate::format::quantize::{Range3, RotationFormat};
use crate::math::Vec3;
use crate::offline::blob_writer::EncodedBody;
use crate::{format::CodecId, offline::EncodeContext};
use crate::{Error, Result};

/// Per-joint ranges of the animated channels (unused ones are zero).
struct Ranges {
    rot: Range3,
    trans: Range3,
    scale: Range3,
}

fn rotation_range(format: RotationFormat, plan: &JointPlan) -> Range3 {
    Range3::from_values(plan.rotations.iter().map(|&q| {
        let p = format.prepare(q);
        Vec3::new(p.x, p.y, p.z)
    }))
}

/// Encodes `ctx.clip` with the formats of `ctx.settings`.
pub(crate) fn encode(ctx: &EncodeContext) -> Result<EncodedBody> {
    let clip = ctx.clip;
    let nj = clip.num_joints();
    let n = clip.num_samples;
    let (rf, tf, sf) = (
        ctx.settings.rotation_format,
        ctx.settings.translation_format,
        ctx.settings.scale_format,
    );
    let shells = ctx.metric.dominant_shells();
    let plans: Vec<JointPlan> = (0..nj)
        .map(|j| plan_joint(&clip.tracks[j], &ctx.defaults[j], &shells[j], ctx.has_scale))
        .collect();
    let ranges: Vec<Ranges> = plans
        .iter()
        .enumerate()
        .map(|(j, p)| Ranges {
            rot: if p.rot == Kind::Animated {
                rotation_range(rf, p)
            } else {
                Range3::default()
            },
            trans: if p.trans == Kind::Animated {
                Range3::from_values(clip.tracks[j].translations.iter().copied())
            } else {
                Range3::default()
            },
            scale: if p.scale == Kind::Animated {
                Range3::from_values(clip.tracks[j].scales.iter().copied())
            } else {
                Range3::default()
            },
        })
        .collect();

    let mut w = ByteWriter::new();
    w.raw(&[0u8; CODEC_HEADER_SIZE]);
    let kinds_offset = w.len();
    for p in &plans {
        w.u8(kind_byte(p.rot, p.trans, p.scale));
    }
    w.align(SECTION_ALIGN);
    let constants_offset = w.len();
    for p in &plans {
        if p.rot == Kind::Constant {
            for c in p.rot_value.to_array() {
                w.f32(c);
            }
        }
        for (k, v) in [(p.trans, p.trans_value), (p.scale, p.scale_value)] {
            if k == Kind::Constant {
                for c in v.to_array() {
                    w.f32(c);
                }
            }
        }
    }
    let num_constant_floats = (w.len() - constants_offset) / 4;
    w.align(SECTION_ALIGN);
    let ranges_offset = w.len();
    for (p, r) in plans.iter().zip(&ranges) {
        let chans = [
            (p.rot, rf.uses_range(), r.rot),
            (p.trans, tf.uses_range(), r.trans),
            (p.scale, sf.uses_range(), r.scale),
        ];
        for (k, used, range) in chans {
            if k == Kind::Animated && used {
                for c in range
                    .min
                    .to_array()
                    .into_iter()
                    .chain(range.extent.to_array())
                {
                    w.f32(c);
                }
            }
        }
    }
    let num_range_floats = (w.len() - ranges_offset) / 4;
    w.align(SECTION_ALIGN);
    let frames_offset = w.len();

    let mut bits = BitWriter::new();
    let mut frame_bits = 0;
    for i in 0..n {
        let start = bits.bit_len();
        for (j, (p, r)) in plans.iter().zip(&ranges).enumerate() {
            let t = &clip.tracks[j];
            if p.rot == Kind::Animated {
                rf.pack(p.rotations[i], &r.rot, &mut bits);
            }
            if p.trans == Kind::Animated {
                tf.pack(t.translations[i], &r.trans, &mut bits);
            }
            if p.scale == Kind::Animated {
                sf.pack(t.scales[i], &r.scale, &mut bits);
            }
        }
        frame_bits = bits.bit_len() - start;
        bits.align_to_byte();
    }
    let frames = bits.finish();
    debug_assert_eq!(frames.len(), n * frame_bits.div_ceil(8) + FRAME_PADDING);
    w.raw(&frames);
    w.align(SECTION_ALIGN);

    let layout = Layout {
        rotation: rf,
        translation: tf,
        scale: sf,
        num_joints: nj,
        num_samples: n,
        kinds_offset,
        constants_offset,
        num_constant_floats,
        ranges_offset,
        num_range_floats,
        frames_offset,
        frame_size: frame_bits.div_ceil(8),
        frame_bits,
    };
    if w.len() > u32::MAX as usize {
        return Err(Error::Unsupported("fixed body would exceed 4 GiB"));
    }
    layout.write(&mut w.bytes);
    Ok(EncodedBody {
        codec: CodecId::Fixed,
        flags: ctx.flags,
        body: w.bytes,
    })
}
