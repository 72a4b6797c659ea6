//! The codecs and the one pipeline that drives them.
//!
//! [`compress`] validates the clip, prepares the shared [`EncodeContext`] (metric, defaults,
//! flags), asks the chosen codec for a body and wraps it in a blob. At run time the decompressor
//! dispatches on the blob's [`CodecId`] to the codec's `validate`, `sample_pose` and
//! `sample_joint`. Each codec lives in its own folder and exposes exactly these functions:
//!
//! ```text
//! pub(crate) fn encode(ctx: &EncodeContext) -> Result<EncodedBody>;
//! pub(crate) fn validate(h: &Header, body: &[u8]) -> Result<()>;
//! pub(crate) fn sample_pose(h: &Header, body: &[u8], key: &SampleKey, d: &Defaults, out: &mut PoseOut);
//! pub(crate) fn sample_joint(h: &Header, body: &[u8], key: &SampleKey, joint: usize, d: &Defaults) -> Transform;
//! pub(crate) fn describe(h: &Header, body: &[u8]) -> Result<BodyDescription>;
//! ```

pub mod fixed;
pub mod keys;
pub mod runtime;
pub mod settings;
pub mod vbr;

pub use runtime::{Defaults, PoseOut, SampleKey};
pub use settings::{CodecChoice, CompressSettings, DefaultMode, Level};

use crate::blob::{assemble_blob, BlobFlags, EncodedBody, Header};
use crate::clip::RawClip;
use crate::math::Transform;
use crate::metric::{Metric, SCALE_TOLERANCE};
use crate::{Error, Result};

/// Codec ids stored in blob headers.
#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CodecId {
    /// Fixed per-channel formats.
    Fixed = 1,
    /// Variable bit rate.
    Vbr = 2,
    /// Key reduction / curves.
    Keys = 3,
}

impl CodecId {
    /// From the stored byte.
    pub fn from_u8(v: u8) -> Option<Self> {
        match v {
            1 => Some(CodecId::Fixed),
            2 => Some(CodecId::Vbr),
            3 => Some(CodecId::Keys),
            _ => None,
        }
    }
    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            CodecId::Fixed => "fixed",
            CodecId::Vbr => "vbr",
            CodecId::Keys => "keys",
        }
    }
}

/// Everything an encoder needs, prepared once by [`compress`].
pub struct EncodeContext<'a> {
    /// The validated clip.
    pub clip: &'a RawClip,
    /// The settings.
    pub settings: &'a CompressSettings,
    /// The error metric bound to the clip (the only judge of error).
    pub metric: &'a Metric<'a>,
    /// Whether scale is stored (else decoded as one).
    pub has_scale: bool,
    /// Per-joint default values (identity or bind pose).
    pub defaults: Vec<Transform>,
    /// Header flags the codec must set (it may add its own).
    pub flags: u32,
}

/// A human-readable account of a blob's body, for `animcomp inspect`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BodyDescription {
    /// Named sections and their sizes in bytes.
    pub sections: Vec<(String, usize)>,
    /// One entry per stored sub-track.
    pub tracks: Vec<TrackDescription>,
}

/// How one sub-track is stored.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackDescription {
    /// Joint index.
    pub joint: usize,
    /// "rotation", "translation" or "scale".
    pub channel: &'static str,
    /// "default", "constant", or the format / bit rate used.
    pub storage: String,
    /// Average stored bits per sample (0 for default and constant).
    pub bits_per_sample: f32,
}

/// Compresses a clip into a blob (a byte vector whose length is a multiple of 16).
pub fn compress(clip: &RawClip, settings: &CompressSettings) -> Result<Vec<u8>> {
    compress_using(clip, settings, |ctx| encode_with(ctx, settings.codec))
}

/// The one compression pipeline: validates a copy of the clip, optionally drops a repeated last
/// sample, prepares the [`EncodeContext`], runs `encode` and wraps its body in a blob. Codecs
/// with extra entry points (e.g. `keys::compress_with`) call this with their own encoder.
pub(crate) fn compress_using(
    clip: &RawClip,
    settings: &CompressSettings,
    encode: impl FnOnce(&EncodeContext) -> Result<EncodedBody>,
) -> Result<Vec<u8>> {
    let mut clip = clip.clone();
    clip.validate()?;
    let mut flags = 0;
    if settings.optimize_loops && clip.num_samples > 2 && last_repeats_first(&clip) {
        for t in &mut clip.tracks {
            t.rotations.pop();
            t.translations.pop();
            t.scales.pop();
        }
        clip.num_samples -= 1;
        flags |= BlobFlags::LOOPING;
    }
    let metric = Metric::new(&clip);
    let has_scale = clip.has_scale(SCALE_TOLERANCE);
    if has_scale {
        flags |= BlobFlags::HAS_SCALE;
    }
    let defaults = match (settings.default_mode, &clip.skeleton.bind_pose) {
        (DefaultMode::BindPose, Some(bind)) => {
            flags |= BlobFlags::DEFAULTS_ARE_BIND_POSE;
            bind.clone()
        }
        _ => vec![Transform::IDENTITY; clip.num_joints()],
    };
    let ctx = EncodeContext {
        clip: &clip,
        settings,
        metric: &metric,
        has_scale,
        defaults,
        flags,
    };
    let body = encode(&ctx)?;
    assemble_blob(&body, clip.num_joints(), clip.num_samples, clip.sample_rate)
}

fn encode_with(ctx: &EncodeContext, codec: CodecChoice) -> Result<EncodedBody> {
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

/// True when the last pose equals the first within every joint's precision.
fn last_repeats_first(clip: &RawClip) -> bool {
    let n = clip.num_samples;
    let nj = clip.num_joints();
    let metric = Metric::new(clip);
    let mut first = vec![Transform::IDENTITY; nj];
    clip.local_pose(0, &mut first);
    let mut scratch = vec![Transform::IDENTITY; nj];
    let mut errors = vec![0.0; nj];
    metric.errors_at(n - 1, &first, &mut scratch, &mut errors);
    errors
        .iter()
        .zip(&clip.skeleton.joints)
        .all(|(e, j)| *e <= j.precision * 0.5)
}

/// Checks every offset, count and bit width of a body against its length.
pub(crate) fn validate_body(h: &Header, body: &[u8]) -> Result<()> {
    match h.codec {
        CodecId::Fixed => fixed::validate(h, body),
        CodecId::Vbr => vbr::validate(h, body),
        CodecId::Keys => keys::validate(h, body),
    }
}

/// Samples a whole pose from a validated body.
pub(crate) fn sample_pose(
    h: &Header,
    body: &[u8],
    key: &SampleKey,
    d: &Defaults,
    out: &mut PoseOut,
) {
    match h.codec {
        CodecId::Fixed => fixed::sample_pose(h, body, key, d, out),
        CodecId::Vbr => vbr::sample_pose(h, body, key, d, out),
        CodecId::Keys => keys::sample_pose(h, body, key, d, out),
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
    match h.codec {
        CodecId::Fixed => fixed::sample_joint(h, body, key, joint, d),
        CodecId::Vbr => vbr::sample_joint(h, body, key, joint, d),
        CodecId::Keys => keys::sample_joint(h, body, key, joint, d),
    }
}

/// Describes a validated body.
pub fn describe(h: &Header, body: &[u8]) -> Result<BodyDescription> {
    match h.codec {
        CodecId::Fixed => fixed::describe(h, body),
        CodecId::Vbr => vbr::describe(h, body),
        CodecId::Keys => keys::describe(h, body),
    }
}

#[allow(dead_code)]
pub(crate) fn not_built(name: &'static str) -> Error {
    Error::Unsupported(name)
}
