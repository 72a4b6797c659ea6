//! The runtime: a blob validated once ([`OpenBlob`]) and decompressors bound to it.
//!
//! [`OpenBlob::open`] validates a blob in full (checksum, every offset, count and stored value the
//! decoder relies on, and the bind pose) in time linear in its size. [`Decompressor::bind`] then
//! makes a decompressor from it in constant time (a copy of a few words), so an engine that
//! creates a context per evaluation pays nothing that grows with the blob. A `Decompressor` can
//! only come from an `OpenBlob` (or [`Decompressor::new`], which opens and binds), so every
//! decompressor refers to a validated blob by construction.
//!
//! A [`Decompressor`] borrows the blob (it never copies or allocates), remembers the current
//! sample position, and samples whole poses, single joints or joint subsets. Many decompressors
//! may share one blob across threads: the blob is only read.

use super::dispatch;
use super::seek::{self, Looping, Rounding};
use crate::format::{validate_blob, BlobFlags, Header};
use crate::math::{Transform, FLOATS_PER_JOINT};
use crate::runtime::curves::CurvesSection;
use crate::runtime::{BodyHint, Defaults, PoseOut, SampleKey, TierSet};
use crate::{Error, Result};
use std::marker::PhantomData;
use std::ptr::NonNull;

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

/// Channel mask bit for rotations in [`Decompressor::sample_joints`].
pub const CHANNEL_ROTATION: u32 = 1;
/// Channel mask bit for translations.
pub const CHANNEL_TRANSLATION: u32 = 2;
/// Channel mask bit for scales.
pub const CHANNEL_SCALE: u32 = 4;
/// Every channel.
pub const CHANNELS_ALL: u32 = CHANNEL_ROTATION | CHANNEL_TRANSLATION | CHANNEL_SCALE;

/// Largest deviation from unit length accepted for a bind-pose rotation (the decoder promises
/// unit rotations within 1e-3, and a bind pose is copied to the output as it is).
pub const BIND_POSE_UNIT_TOLERANCE: f32 = 1.0e-3;

/// A blob that has passed validation in full, with its bind pose (when its defaults need one).
/// Binding a [`Decompressor`] to it costs a copy of a few words.
#[derive(Debug, Clone, Copy)]
pub struct OpenBlob<'a> {
    /// The validated blob (its total size).
    blob: &'a [u8],
    header: Header,
    /// The bind pose (when the blob's defaults are the bind pose).
    bind_pose: Option<&'a [f32]>,
    hint: BodyHint,
}

impl<'a> OpenBlob<'a> {
    /// Validates `blob` in full (linear in its size) and the bind pose of `opts` when the blob's
    /// defaults are the bind pose (finite values within the clip limits, unit rotations within
    /// [`BIND_POSE_UNIT_TOLERANCE`]; a bind pose given for a blob that does not use one is ignored).
    pub fn open(blob: &'a [u8], opts: &DecompressOptions<'a>) -> Result<Self> {
        let (header, _) = validate_blob(blob, opts.verify_checksum)?;
        let blob = &blob[..header.total_size as usize];
        let bind_pose = if header.has(BlobFlags::DEFAULTS_ARE_BIND_POSE) {
            let bind = opts.bind_pose.ok_or(Error::BindPoseRequired)?;
            let need = header.num_joints as usize * FLOATS_PER_JOINT;
            if bind.len() < need {
                return Err(Error::InvalidArgument(
                    "bind pose shorter than 10 floats per joint",
                ));
            }
            check_bind_pose(&bind[..need])?;
            Some(bind)
        } else {
            None
        };
        let hint = dispatch::hint(&header, &blob[header.body_range()]);
        Ok(OpenBlob {
            blob,
            header,
            bind_pose,
            hint,
        })
    }

    /// The blob header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The validated blob (its total size).
    pub fn blob(&self) -> &'a [u8] {
        self.blob
    }

    /// Bytes of playback cache a decompressor on this blob can use
    /// ([`Decompressor::sample_pose_cached`]); 0 when its codec has none.
    pub fn playback_cache_size(&self) -> usize {
        dispatch::cache_size(&self.header, &self.blob[self.header.body_range()])
    }
}

/// Checks a bind pose like clip input: finite, within [`crate::format::limits::MAX_ABS_VALUE`], unit
/// rotations (within [`BIND_POSE_UNIT_TOLERANCE`], as they are written to the output unchanged).
pub fn check_bind_pose(bind: &[f32]) -> Result<()> {
    for (joint, t) in bind.chunks_exact(FLOATS_PER_JOINT).enumerate() {
        if let Some(k) = t
            .iter()
            .position(|v| !(v.is_finite() && v.abs() <= crate::format::limits::MAX_ABS_VALUE))
        {
            return Err(Error::NonFiniteValue {
                joint,
                sample: 0,
                channel: ["rotation", "translation", "scale"]
                    [(k >= 4) as usize + (k >= 7) as usize],
            });
        }
        let length = (t[0] * t[0] + t[1] * t[1] + t[2] * t[2] + t[3] * t[3]).sqrt();
        if (length - 1.0).abs() > BIND_POSE_UNIT_TOLERANCE {
            return Err(Error::NonUnitQuaternion {
                joint,
                sample: 0,
                length,
            });
        }
    }
    Ok(())
}

/// Evaluates `$body` with `$d` the decompressor's defaults and the tiers attached now: inline
/// for a decompressor without tiers, in a closure through [`Decompressor::with_tiers`] with.
macro_rules! with_defaults {
    ($s:expr, |$d:ident| $body:expr) => {
        match $s.tiers {
            None => {
                let $d = &$s.defaults();
                $body
            }
            Some(t) => $s.with_tiers(t, |$d| $body),
        }
    };
}

/// A decompressor bound to one validated blob.
#[derive(Debug, Clone, Copy)]
pub struct Decompressor<'a> {
    /// The validated blob's first byte (its size is the header's total size; body and curves
    /// section are ranges of it given by the header): a thin pointer, so that the decompressor
    /// fits in the C context's 128 bytes.
    blob: NonNull<u8>,
    blob_life: PhantomData<&'a [u8]>,
    header: Header,
    /// The bind pose (`num_joints * 10` floats borrowed for 'a), when the blob's defaults are
    /// the bind pose: a thin pointer, so that the hint fits in the C context's 128 bytes.
    bind: Option<NonNull<f32>>,
    bind_life: PhantomData<&'a [f32]>,
    key: SampleKey,
    /// Where a pose's first dependent reads lie (from the open blob).
    hint: BodyHint,
    /// The resident blob's tier slots, when bound with [`Decompressor::bind_tiers`]: a `&'a
    /// TierSet<'s>` for some `'s` outliving `'a`, its lifetime erased so that the decompressor
    /// stays covariant in `'a` (the set is invariant, [`TierSet`]); read only in
    /// [`Decompressor::with_tiers`].
    tiers: Option<NonNull<TierSet<'static>>>,
}

// SAFETY: `blob` and `bind` stand for shared `&'a [u8]` and `&'a [f32]` (read only), and
// `tiers` for a `&'a TierSet` (Sync): all Send and Sync.
unsafe impl Send for Decompressor<'_> {}
// SAFETY: as above.
unsafe impl Sync for Decompressor<'_> {}

// Many threads may sample one blob, each with its own decompressor or sharing one.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Decompressor<'static>>();
};

impl<'a> Decompressor<'a> {
    /// Validates `blob` and binds to it ([`OpenBlob::open`] then [`Decompressor::bind`]). The
    /// decompressor starts at time 0.
    pub fn new(blob: &'a [u8], opts: &DecompressOptions<'a>) -> Result<Self> {
        Ok(Self::bind(&OpenBlob::open(blob, opts)?))
    }

    /// Binds to an already validated blob, at time 0. Constant time, no validation repeated.
    #[inline]
    pub fn bind(blob: &OpenBlob<'a>) -> Self {
        Decompressor {
            blob: NonNull::from(blob.blob).cast(),
            blob_life: PhantomData,
            header: blob.header,
            bind: blob.bind_pose.map(|b| NonNull::from(b).cast()),
            bind_life: PhantomData,
            hint: blob.hint,
            key: SampleKey::default(),
            tiers: None,
        }
    }

    /// Binds to the resident blob of `tiers`, at time 0: every sampling call reads the tiers
    /// attached when it starts ([`TierSet`]). Constant time.
    #[inline]
    pub fn bind_tiers<'s: 'a>(tiers: &'a TierSet<'s>) -> Self {
        Decompressor {
            tiers: Some(NonNull::from(tiers).cast()),
            ..Self::bind(tiers.open_blob())
        }
    }

    /// The blob header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The validated blob.
    #[inline(always)]
    fn blob(&self) -> &'a [u8] {
        // SAFETY: `blob` is the first byte of a validated blob of the header's total size,
        // borrowed for 'a.
        unsafe { std::slice::from_raw_parts(self.blob.as_ptr(), self.header.total_size as usize) }
    }

    /// The joint body (validated with the blob).
    #[inline]
    fn body(&self) -> &'a [u8] {
        &self.blob()[self.header.body_range()]
    }

    /// The defaults (the open blob's).
    #[inline(always)]
    fn defaults(&self) -> Defaults<'a> {
        let n = self.header.num_joints as usize * FLOATS_PER_JOINT;
        // SAFETY: `bind` is the open blob's bind pose, checked to hold `num_joints * 10` floats
        // and borrowed for 'a.
        let bind = self
            .bind
            .map(|b| unsafe { std::slice::from_raw_parts(b.as_ptr() as *const f32, n) });
        Defaults::for_header(&self.header, bind)
    }

    /// [`with_defaults!`] with tiers: out of line, so that a blob without tiers reads as if
    /// tiers did not exist.
    #[inline(never)]
    fn with_tiers<R>(
        &self,
        t: NonNull<TierSet<'static>>,
        f: impl for<'r> FnOnce(&Defaults<'r>) -> R,
    ) -> R {
        // SAFETY: `t` was a `&'a TierSet<'s>` with `'s: 'a` ([`Decompressor::bind_tiers`]): the
        // set and its tier bytes outlive `'a`, so it is read as a `TierSet<'a>` for this call.
        // `TierSet` is invariant only so that `attach` (through `&self`) cannot take bytes
        // shorter-lived than the set's; the decompressor never attaches and never hands it out.
        let t = unsafe { t.cast::<TierSet<'a>>().as_ref() };
        let d = self.defaults();
        t.read(|a| f(&Defaults { tiers: a, ..d }))
    }

    /// The validated body and the defaults, for the crate's C layer (the keys cursor binds to
    /// them without validating the blob again).
    pub(crate) fn body_and_defaults(&self) -> (&'a [u8], Defaults<'a>) {
        (self.body(), self.defaults())
    }

    /// Joint count.
    pub fn num_joints(&self) -> usize {
        self.header.num_joints as usize
    }

    /// Moves to `time` seconds.
    #[inline]
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
    #[inline]
    pub fn sample_pose(&self, out: &mut [f32], stride: usize) -> Result<()> {
        PoseOut::check_len(out.len(), self.num_joints(), stride)?;
        let mut po = PoseOut { data: out, stride };
        with_defaults!(self, |d| {
            dispatch::sample_pose(&self.header, self.body(), &self.hint, &self.key, d, &mut po)
        });
        Ok(())
    }

    /// Bytes of playback cache this decompressor can use ([`Decompressor::sample_pose_cached`]);
    /// 0 when the blob's codec has none.
    pub fn playback_cache_size(&self) -> usize {
        dispatch::cache_size(&self.header, self.body())
    }

    /// [`Decompressor::sample_pose`] through a playback cache: `cache` (16-byte aligned, at least
    /// [`Decompressor::playback_cache_size`] bytes, any contents on first use) keeps what makes
    /// the next pose of forward or backward playback cheap (decoded samples, the segment's
    /// coefficients). Poses are bit for bit those of `sample_pose`. One cache serves one
    /// decompressor at a time; it names the blob and bind pose it was filled for and refills
    /// itself when they change.
    pub fn sample_pose_cached(
        &self,
        cache: &mut [u8],
        out: &mut [f32],
        stride: usize,
    ) -> Result<()> {
        PoseOut::check_len(out.len(), self.num_joints(), stride)?;
        let need = self.playback_cache_size();
        if cache.len() < need {
            return Err(Error::BufferTooSmall { required: need });
        }
        if need > 0 && !(cache.as_ptr() as usize).is_multiple_of(16) {
            return Err(Error::Misaligned);
        }
        self.sample_pose_cached_checked(cache, out, stride);
        Ok(())
    }

    /// [`Decompressor::sample_pose_cached`] for a caller that has checked its arguments: `out`
    /// holds every joint at `stride`, `cache` is at least the playback cache size and 16-byte
    /// aligned (the C layer's attached cache, checked when it was attached). A cache too small
    /// still gives the right pose, without the cache.
    #[inline]
    pub(crate) fn sample_pose_cached_checked(
        &self,
        cache: &mut [u8],
        out: &mut [f32],
        stride: usize,
    ) {
        let mut po = PoseOut { data: out, stride };
        with_defaults!(self, |d| {
            let (h, body) = (&self.header, self.body());
            dispatch::sample_pose_cached(h, body, &self.hint, &self.key, d, &mut po, cache)
        });
    }

    /// The whole pose with each channel's rows at `rows`, where the codec writes rows anywhere;
    /// `false` (nothing written) otherwise. The caller checked that `rows` hold every joint.
    #[inline]
    pub(crate) fn sample_pose_rows(&self, rows: crate::runtime::PoseRows) -> bool {
        with_defaults!(self, |d| {
            dispatch::sample_pose_rows(&self.header, self.body(), &self.hint, &self.key, d, rows)
        })
    }

    /// The whole pose into `f32` ozz blocks of four joints at `out`, where the codec's decoder
    /// writes them (the lanes past the last joint not written); `false` (nothing written)
    /// otherwise. The caller checked that `out` holds every joint's block.
    #[inline]
    pub(crate) fn sample_pose_soa4(&self, out: *mut f32) -> bool {
        with_defaults!(self, |d| {
            dispatch::sample_pose_soa4(&self.header, self.body(), &self.hint, &self.key, d, out)
        })
    }

    /// [`Decompressor::sample_pose_soa4`] through a checked playback cache.
    #[inline]
    pub(crate) fn sample_pose_cached_soa4(&self, cache: &mut [u8], out: *mut f32) -> bool {
        with_defaults!(self, |d| {
            let (h, body) = (&self.header, self.body());
            dispatch::sample_pose_cached_soa4(h, body, &self.hint, &self.key, d, out, cache)
        })
    }

    /// [`Decompressor::sample_pose_rows`] through a checked playback cache.
    #[inline]
    pub(crate) fn sample_pose_cached_rows(
        &self,
        cache: &mut [u8],
        rows: crate::runtime::PoseRows,
    ) -> bool {
        with_defaults!(self, |d| {
            let (h, body) = (&self.header, self.body());
            dispatch::sample_pose_cached_rows(h, body, &self.hint, &self.key, d, rows, cache)
        })
    }

    /// Samples one joint.
    pub fn sample_joint(&self, joint: u32) -> Result<Transform> {
        if joint >= self.header.num_joints {
            return Err(Error::JointOutOfRange(joint));
        }
        let j = joint as usize;
        Ok(with_defaults!(self, |d| {
            dispatch::sample_joint(&self.header, self.body(), &self.key, j, d)
        }))
    }

    /// Samples a subset of joints: joint `joints[i]` is written (10 floats, only the channels in
    /// `channels`, a mask of [`CHANNEL_ROTATION`], [`CHANNEL_TRANSLATION`], [`CHANNEL_SCALE`]) at
    /// `out[slot * stride..]` where `slot` is `out_slots[i]` (or `i` when `out_slots` is `None`).
    /// The cost follows the joints asked for; joints in ascending order are cheapest.
    pub fn sample_joints(
        &self,
        joints: &[u32],
        out_slots: Option<&[u32]>,
        channels: u32,
        out: &mut [f32],
        stride: usize,
    ) -> Result<()> {
        if stride < FLOATS_PER_JOINT {
            return Err(Error::InvalidArgument("stride must be at least 10 floats"));
        }
        if channels == 0 || channels & !CHANNELS_ALL != 0 {
            return Err(Error::InvalidEnum {
                what: "channels",
                value: channels,
            });
        }
        if let Some(s) = out_slots {
            if s.len() != joints.len() {
                return Err(Error::InvalidArgument(
                    "out_slots must have one entry per joint",
                ));
            }
        }
        let nj = self.header.num_joints;
        let mut max_slot = 0usize;
        for (i, &j) in joints.iter().enumerate() {
            if j >= nj {
                return Err(Error::JointOutOfRange(j));
            }
            max_slot = max_slot.max(out_slots.map_or(i, |s| s[i] as usize));
        }
        if !joints.is_empty() {
            PoseOut::check_len(out.len(), max_slot + 1, stride)?;
        }
        let mut po = PoseOut { data: out, stride };
        let sel = crate::runtime::JointSelection {
            joints,
            slots: out_slots,
            channels,
        };
        with_defaults!(self, |d| {
            dispatch::sample_joints(&self.header, self.body(), &self.key, d, &sel, &mut po)
        });
        Ok(())
    }

    // --- Scalar curves (see `docs/curves.md`) ---

    /// Scalar curve count.
    pub fn num_curves(&self) -> usize {
        self.header.num_curves as usize
    }

    /// The blob's curves section (ids, kinds, sampling at any key).
    pub fn curves(&self) -> CurvesSection<'a> {
        CurvesSection::from_validated(
            &self.blob()[self.header.curves_range()],
            self.header.num_curves,
            self.header.num_samples,
        )
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
