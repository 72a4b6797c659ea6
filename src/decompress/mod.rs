//! The runtime: a decompressor bound to one validated blob.
//!
//! A [`Decompressor`] borrows the blob (it never copies or allocates), remembers the current
//! sample position, and samples whole poses or single joints. Many decompressors may share one
//! blob across threads: the blob is only read.

pub mod seek;

pub use seek::{clip_duration, Looping, Rounding};

use crate::blob::{validate_blob, BlobFlags, Header};
use crate::codec::{self, Defaults, PoseOut, SampleKey};
use crate::curves::decode::CurvesSection;
use crate::math::{Transform, FLOATS_PER_JOINT};
use crate::{Error, Result};

/// Options for [`Decompressor::new`].
#[derive(Debug, Clone, Copy)]
pub struct DecompressOptions<'a> {
    /// Verify the blob checksum (default true). Turn off only for blobs already validated.
    pub verify_checksum: bool,
    /// Bind pose, 10 floats per joint (stride 10). Required when the blob's defaults are the bind
    /// pose; ignored otherwise.
    pub bind_pose: Option<&'a [f32]>,
}

impl Default for DecompressOptions<'_> {
    fn default() -> Self {
        DecompressOptions {
            verify_checksum: true,
            bind_pose: None,
        }
    }
}

/// A decompressor bound to one blob.
#[derive(Debug, Clone, Copy)]
pub struct Decompressor<'a> {
    body: &'a [u8],
    header: Header,
    defaults: Defaults<'a>,
    key: SampleKey,
    /// The validated curves section (scalar curves; empty when the blob has none).
    curves: &'a [u8],
}

impl<'a> Decompressor<'a> {
    /// Validates `blob` and binds to it. The decompressor starts at time 0.
    pub fn new(blob: &'a [u8], opts: &DecompressOptions<'a>) -> Result<Self> {
        let (header, body) = validate_blob(blob, opts.verify_checksum)?;
        let defaults = if header.has(BlobFlags::DEFAULTS_ARE_BIND_POSE) {
            let bind = opts.bind_pose.ok_or(Error::BindPoseRequired)?;
            if bind.len() < header.num_joints as usize * FLOATS_PER_JOINT {
                return Err(Error::InvalidArgument(
                    "bind pose shorter than 10 floats per joint",
                ));
            }
            Defaults {
                bind_pose: Some(bind),
            }
        } else {
            Defaults { bind_pose: None }
        };
        Ok(Decompressor {
            body,
            header,
            defaults,
            key: SampleKey::default(),
            curves: &blob[header.curves_range()],
        })
    }

    /// The blob header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The validated body and the defaults, for the crate's C layer (the keys cursor binds to
    /// them without validating the blob again).
    pub(crate) fn body_and_defaults(&self) -> (&'a [u8], Defaults<'a>) {
        (self.body, self.defaults)
    }

    /// Joint count.
    pub fn num_joints(&self) -> usize {
        self.header.num_joints as usize
    }

    /// Moves to `time` seconds.
    pub fn seek(&mut self, time: f32, looping: Looping, rounding: Rounding) -> Result<()> {
        self.key = seek::resolve(&self.header, time, looping, rounding)?;
        Ok(())
    }

    /// Moves to an exact sample index (clamped to the sample count).
    pub fn seek_sample(&mut self, sample: u32) {
        let i = sample.min(self.header.num_samples - 1);
        self.key = SampleKey {
            i0: i,
            i1: i,
            alpha: 0.0,
        };
    }

    /// The current sample position.
    pub fn key(&self) -> SampleKey {
        self.key
    }

    /// Samples every joint into `out`: 10 floats per joint, joint `j` at `out[j * stride..]`.
    pub fn sample_pose(&self, out: &mut [f32], stride: usize) -> Result<()> {
        if stride < FLOATS_PER_JOINT {
            return Err(Error::InvalidArgument("stride must be at least 10 floats"));
        }
        let need = PoseOut::required_len(self.num_joints(), stride);
        if out.len() < need {
            return Err(Error::BufferTooSmall { required: need * 4 });
        }
        let mut po = PoseOut { data: out, stride };
        codec::sample_pose(&self.header, self.body, &self.key, &self.defaults, &mut po);
        Ok(())
    }

    /// Samples one joint.
    pub fn sample_joint(&self, joint: u32) -> Result<Transform> {
        if joint >= self.header.num_joints {
            return Err(Error::JointOutOfRange(joint));
        }
        Ok(codec::sample_joint(
            &self.header,
            self.body,
            &self.key,
            joint as usize,
            &self.defaults,
        ))
    }

    // --- Scalar curves (see `docs/curves.md`) ---

    /// Scalar curve count.
    pub fn num_curves(&self) -> usize {
        self.header.num_curves as usize
    }

    /// The blob's curves section (ids, kinds, sampling at any key).
    pub fn curves(&self) -> CurvesSection<'a> {
        CurvesSection::from_validated(self.curves, self.header.num_curves, self.header.num_samples)
    }

    /// Samples every curve at the current position into `out[..num_curves]` (no allocation).
    pub fn sample_curves(&self, out: &mut [f32]) -> Result<()> {
        self.curves().sample_all(&self.key, out)
    }

    /// Samples curve `index` at the current position.
    pub fn sample_curve(&self, index: u32) -> Result<f32> {
        self.curves().sample_one(&self.key, index)
    }

    /// Convenience for tools and tests (allocates): the local pose at a sample index.
    pub fn pose_at_sample(&mut self, sample: u32, out: &mut [Transform]) -> Result<()> {
        self.seek_sample(sample);
        let nj = self.num_joints();
        let mut floats = vec![0.0f32; nj * FLOATS_PER_JOINT];
        self.sample_pose(&mut floats, FLOATS_PER_JOINT)?;
        for (j, o) in out.iter_mut().enumerate().take(nj) {
            *o = Transform::read_from(&floats[j * FLOATS_PER_JOINT..]);
        }
        Ok(())
    }
}
