//! The one compression pipeline that drives the encoders.
//!
//! [`compress`] validates the clip, prepares the shared [`EncodeContext`] (metric, defaults,
//! flags), asks the chosen codec's encoder for a body and wraps it in a blob. Each encoder lives
//! in its codec's folder (`offline/{fixed,vbr,keys}`) and exposes
//! `pub(crate) fn encode(ctx: &EncodeContext) -> Result<EncodedBody>`; the decoders it must match
//! are in `runtime/`, the body layouts in `format/`.

use super::settings::{CodecChoice, CompressSettings, DefaultMode};
use super::{fixed, keys, vbr};

use std::borrow::Cow;

use crate::format::AdditiveFormat;
use crate::format::BlobFlags;
use crate::math::Transform;
use crate::offline::additive::{AdditiveBase, BasePoses};
use crate::offline::blob_writer::{assemble_blob_with, BlobExtras, EncodedBody};
use crate::offline::clip::RawClip;
use crate::offline::curves::Curve;
use crate::offline::encode_context::EncodeContext;
use crate::offline::metric::{Metric, SCALE_TOLERANCE};
use crate::Result;

/// Compresses a clip into a blob (a byte vector whose length is a multiple of 16).
pub fn compress(clip: &RawClip, settings: &CompressSettings) -> Result<Vec<u8>> {
    compress_with_curves(clip, &[], settings)
}

/// Compresses a clip and scalar curves (one value per sample of the clip each) into one blob. The
/// clip may have no joints when curves are given (a face-only clip: its sample count and rate
/// apply to the curves); its joint body is then empty.
pub fn compress_with_curves(
    clip: &RawClip,
    curves: &[Curve],
    settings: &CompressSettings,
) -> Result<Vec<u8>> {
    compress_pipeline(clip, curves, settings, None, |ctx| {
        encode_with(ctx, settings.codec)
    })
}

/// [`compress_with_curves`], with a `vbr` body left as the encoder wrote it: the segments
/// layout, format version 2, which the runtime refuses and [`crate::offline::regroup_blob`]
/// converts to the blob [`compress_with_curves`] writes, byte for byte. Other codecs, and clips
/// without joints, give [`compress_with_curves`]'s blob. For tests of the conversion and of the
/// reference decoder ([`crate::offline::vbr::reference`]) only.
#[doc(hidden)]
pub fn compress_segments(
    clip: &RawClip,
    curves: &[Curve],
    settings: &CompressSettings,
) -> Result<Vec<u8>> {
    compress_pipeline_with(clip, curves, settings, None, true, |ctx| {
        encode_with(ctx, settings.codec)
    })
}

/// The one compression pipeline for joints only (see [`compress_pipeline`]). Codecs with extra
/// entry points (e.g. [`compress_keys_with`]) call this with their own encoder.
pub(crate) fn compress_using(
    clip: &RawClip,
    settings: &CompressSettings,
    encode: impl FnOnce(&EncodeContext) -> Result<EncodedBody>,
) -> Result<Vec<u8>> {
    compress_pipeline(clip, &[], settings, None, encode)
}

/// Compresses a clip with the keys codec and explicit options (measurement and tuning; the
/// normal entry point is [`crate::compress()`] with [`crate::CodecChoice::Keys`]). Runs the same
/// pipeline as `compress` (so `settings.optimize_loops` applies too). Returns the blob and the
/// encoder's statistics.
pub fn compress_keys_with(
    clip: &crate::RawClip,
    settings: &crate::CompressSettings,
    opts: &keys::KeysOptions,
) -> Result<(Vec<u8>, keys::EncodeStats)> {
    let mut stats = None;
    let blob = compress_using(clip, settings, |ctx| {
        let (body, s) = keys::encode_with(ctx, opts)?;
        stats = Some(s);
        Ok(body)
    })?;
    Ok((blob, stats.expect("the encoder ran")))
}

/// The one compression pipeline: validates the clip (borrowed unless it must change), optionally
/// drops a repeated last sample, prepares the [`EncodeContext`], runs `encode` (unless there are
/// no joints), encodes the curves section and wraps both in a blob. For an additive clip
/// (`additive` is its format and base) the metric judges the base with the additive applied,
/// removed channels take the format's identity ([`AdditiveFormat::identity`]; never the bind
/// pose), the blob records the format, and loop optimisation is skipped (trimming the additive
/// clip would shift it against a base clip).
pub(crate) fn compress_pipeline(
    clip: &RawClip,
    curves: &[Curve],
    settings: &CompressSettings,
    additive: Option<(AdditiveFormat, &AdditiveBase)>,
    encode: impl FnOnce(&EncodeContext) -> Result<EncodedBody>,
) -> Result<Vec<u8>> {
    compress_pipeline_with(clip, curves, settings, additive, false, encode)
}

/// [`compress_pipeline`]; `segments` writes a `vbr` body ungrouped ([`BlobExtras::segments`]).
fn compress_pipeline_with(
    clip: &RawClip,
    curves: &[Curve],
    settings: &CompressSettings,
    additive: Option<(AdditiveFormat, &AdditiveBase)>,
    segments: bool,
    encode: impl FnOnce(&EncodeContext) -> Result<EncodedBody>,
) -> Result<Vec<u8>> {
    let additive = additive.filter(|(f, _)| *f != AdditiveFormat::None);
    // Borrow the caller's clip unless it must change (normalised quaternions, trimmed loop): a
    // copy of a long clip is as large as the clip (docs/robustness.md, peak memory).
    let needs_normalising = clip.check_with_curves(!curves.is_empty())?;
    crate::offline::curves::validate_curves(curves, clip.num_samples)?;
    let trim = settings.optimize_loops
        && additive.is_none()
        && clip.num_samples > 2
        && last_repeats_first(clip)
        && crate::offline::curves::encode::last_repeats_first(curves);
    let mut flags = 0;
    let clip: Cow<RawClip> = if needs_normalising || trim {
        let mut owned = clip.clone();
        if owned.num_joints() > 0 {
            owned.validate()?;
        }
        if trim {
            for t in &mut owned.tracks {
                t.rotations.pop();
                t.translations.pop();
                t.scales.pop();
            }
            owned.num_samples -= 1;
            flags |= BlobFlags::LOOPING;
        }
        Cow::Owned(owned)
    } else {
        Cow::Borrowed(clip)
    };
    let clip: &RawClip = &clip;
    let format = additive.map_or(AdditiveFormat::None, |(f, _)| f);
    let body = if clip.num_joints() == 0 {
        EncodedBody {
            codec: settings.codec.stored_id(),
            flags,
            body: Vec::new(),
        }
    } else {
        encode_joints(clip, settings, additive, flags, encode)?
    };
    let extras = BlobExtras {
        additive: format as u8,
        num_curves: curves.len() as u32,
        curves: if curves.is_empty() {
            Vec::new()
        } else {
            crate::offline::curves::encode::encode_section(curves, clip.num_samples)?
        },
        segments,
    };
    assemble_blob_with(
        &body,
        clip.num_joints(),
        clip.num_samples,
        clip.sample_rate,
        &extras,
    )
}

/// The joint body: the metric (with the additive base, if any), flags, defaults, then `encode`.
fn encode_joints(
    clip: &RawClip,
    settings: &CompressSettings,
    additive: Option<(AdditiveFormat, &AdditiveBase)>,
    mut flags: u32,
    encode: impl FnOnce(&EncodeContext) -> Result<EncodedBody>,
) -> Result<EncodedBody> {
    let metric = match additive {
        None => Metric::new(clip),
        Some((format, base)) => Metric::with_base(
            clip,
            format,
            BasePoses::new(base, clip.num_joints(), clip.num_samples)?,
        ),
    };
    let format = additive.map_or(AdditiveFormat::None, |(f, _)| f);
    // Additive1 stores scale around 0: decoders write 1 for scale when HAS_SCALE is clear.
    let has_scale = clip.has_scale(SCALE_TOLERANCE) || format == AdditiveFormat::Additive1;
    if has_scale {
        flags |= BlobFlags::HAS_SCALE;
    }
    let defaults = match (settings.default_mode, &clip.skeleton.bind_pose) {
        _ if format != AdditiveFormat::None => vec![format.identity(); clip.num_joints()],
        (DefaultMode::BindPose, Some(bind)) => {
            flags |= BlobFlags::DEFAULTS_ARE_BIND_POSE;
            bind.clone()
        }
        _ => vec![Transform::IDENTITY; clip.num_joints()],
    };
    let ctx = EncodeContext {
        clip,
        settings,
        metric: &metric,
        has_scale,
        defaults,
        flags,
    };
    encode(&ctx)
}

pub(crate) fn encode_with(ctx: &EncodeContext, codec: CodecChoice) -> Result<EncodedBody> {
    match codec {
        CodecChoice::Fixed => fixed::encode(ctx),
        CodecChoice::Vbr => vbr::encode(ctx),
        CodecChoice::Keys => keys::encode(ctx),
        CodecChoice::Auto => {
            let v = vbr::encode(ctx);
            let k = keys::encode(ctx);
            match (v, k) {
                (Ok(v), Ok(k)) => Ok(if k.body.len() < v.body.len() { k } else { v }),
                (Ok(v), Err(_)) => Ok(v),
                (Err(_), Ok(k)) => Ok(k),
                (Err(e), Err(_)) => Err(e),
            }
        }
    }
}

/// True when the last pose equals the first within half of every joint's precision.
fn last_repeats_first(clip: &RawClip) -> bool {
    let nj = clip.num_joints();
    let has_scale = clip.has_scale(SCALE_TOLERANCE);
    let mut local = vec![Transform::IDENTITY; nj];
    let mut first = vec![Transform::IDENTITY; nj];
    let mut last = vec![Transform::IDENTITY; nj];
    clip.local_pose(0, &mut local);
    crate::offline::metric::local_to_object(clip, &local, &mut first);
    clip.local_pose(clip.num_samples - 1, &mut local);
    crate::offline::metric::local_to_object(clip, &local, &mut last);
    clip.skeleton.joints.iter().enumerate().all(|(j, joint)| {
        crate::offline::metric::vertex_error(&first[j], &last[j], joint.shell_distance, has_scale)
            <= joint.precision * 0.5
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::clip::{generate_clip, GenerateOptions};
    use crate::runtime::{DecompressOptions, Decompressor, Looping, Rounding};
    use crate::AlignedBlob;

    fn looping_clip(looping: bool) -> RawClip {
        generate_clip(&GenerateOptions {
            joints: 12,
            samples: 41,
            looping,
            ..Default::default()
        })
    }

    #[test]
    fn optimize_loops_drops_the_repeated_last_sample_and_still_plays_it() {
        let clip = looping_clip(true);
        let settings = CompressSettings {
            optimize_loops: true,
            ..Default::default()
        };
        let blob = AlignedBlob::from_bytes(&compress(&clip, &settings).unwrap());
        let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
        assert!(d.header().has(BlobFlags::LOOPING));
        assert_eq!(d.header().num_samples as usize, clip.num_samples - 1);
        let metric = Metric::new(&clip);
        let nj = clip.num_joints();
        let mut pose = vec![0.0f32; nj * 10];
        let stats = metric.measure(|i, out| {
            d.seek(i as f32 / clip.sample_rate, Looping::Clamp, Rounding::None)
                .unwrap();
            d.sample_pose(&mut pose, 10).unwrap();
            for (j, o) in out.iter_mut().enumerate() {
                *o = Transform::read_from(&pose[j * 10..]);
            }
        });
        // The last sample decodes from the first within the codec's precision plus the
        // half-precision loop tolerance.
        assert!(stats.max_error <= 0.015, "{}", stats.max_error);
    }

    #[test]
    fn optimize_loops_leaves_other_clips_alone() {
        let clip = looping_clip(false);
        let settings = CompressSettings {
            optimize_loops: true,
            ..Default::default()
        };
        let blob = AlignedBlob::from_bytes(&compress(&clip, &settings).unwrap());
        let h = crate::format::Header::parse(blob.as_bytes()).unwrap();
        assert!(!h.has(BlobFlags::LOOPING));
        assert_eq!(h.num_samples as usize, clip.num_samples);
    }

    #[test]
    fn unnormalised_input_is_normalised_before_encoding() {
        let mut clip = looping_clip(false);
        let mut stretched = clip.clone();
        for t in &mut stretched.tracks {
            for q in &mut t.rotations {
                *q *= 1.01;
            }
        }
        assert!(stretched.check().unwrap());
        assert!(!clip.check().unwrap());
        let blob = AlignedBlob::from_bytes(&compress(&stretched, &Default::default()).unwrap());
        let d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
        clip.validate().unwrap();
        let metric = Metric::new(&clip);
        let mut pose = vec![0.0f32; clip.num_joints() * 10];
        let stats = metric.measure(|i, out| {
            let mut d = d;
            d.seek_sample(i as u32);
            d.sample_pose(&mut pose, 10).unwrap();
            for (j, o) in out.iter_mut().enumerate() {
                *o = Transform::read_from(&pose[j * 10..]);
            }
        });
        assert!(stats.max_error <= 0.01, "{}", stats.max_error);
    }
}
