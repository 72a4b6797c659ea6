//! The grouped layout of a `vbr` body (blob format version 5, body layout 4; `docs/format.md`
//! relates the format versions and body layouts): the runtime's one `vbr` decoder.
//!
//! The encoder's segments body rewritten (`offline::vbr::regroup`) into a layout that a decoder
//! can feed to eight SIMD lanes at once. A grouped clip decodes to the poses of the scalar
//! reference (`offline::vbr::reference`) on the body it came from, bit for bit (tests).
//! [`GroupedClip`] holds a clip for the benchmarks and the tests.
//!
//! The data section of the body (`body.rs` gives the body header before it, and the padding,
//! the constants and the kinds after it):
//!
//! ```text
//! group records, back to back: up to 8 animated sub-tracks of one class (rotations, translations,
//!   scales), in class order (rotations with per-track drops before those with per-segment ones;
//!   every group of a class but its last full, so that `body::Dir` places each)
//!   u8 class, u8 lanes n, u8 flags (bit 0 per-segment drops, bit 1 u16 joints), u8 bytes of
//!     the group's segment metadata
//!   u32 per-track dropped components (2 bits per lane; 0 for other groups)
//!   the lanes' joints: 8 x u8, or 8 x u16 in a clip of more than 256 joints (unused lanes 0)
//!   clip ranges, structure of arrays over the n lanes: rotations u32 (u16 min | u16 extent <<
//!     16) per lane, per stored slot (per-segment groups: per quaternion component, four);
//!     vectors f32 min per lane per component, then f32 extent
//! segment table: u16 offset per segment (SMALL_TABLE: every segment starts below byte 65536 of
//!   the data), else u32
//! segment (back to back)
//!   u32 keyframe mask (only when a segment of the clip drops a sample), frame bits (u16, or u32
//!     for a frame wider than 65535 bits; only in the last segment when the others imply them)
//!   per group: per component ceil(5n / 8) bytes of rate indices (lane l at bits 5l), per
//!              component n u16 range fields, and for a group with per-segment drops a u16 of
//!              2-bit dropped components (lane l at bits 2l)
//!   per second group (groups 2, 4, ...): u16 (u32 for a frame wider than 65535 bits), its
//!              first bit in a frame (subsets decode a group alone, adding the widths of the up
//!              group after the last one stored)
//!   stored frames, sample-major: per group, component x of lanes 0..n, then y, then z
//! then (`body.rs`) zeros, the constants and the kinds: at least 32 bytes after the last segment
//!   (the decoders' 32-byte windows, and the 8-lane loads of the last group record when the
//!   segments are shorter), the body a multiple of 16 bytes
//! ```
//!
//! The rate and range fields and the frames are those of the `vbr` segment, moved: a segment's
//! size changes by its header, the byte alignment of a partly filled group's rate fields, a
//! `u16` of drops per group with per-segment drops (instead of 2 bits per such rotation) and the
//! stored first bits.

#[cfg(target_arch = "x86_64")]
mod avx2;
// Without x86-64 the playback cache (AVX2), the selections' eight-lane decode (AVX2) and
// what only they read go unused.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) mod body;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
mod cache;
mod common;
#[cfg(feature = "compress")]
pub mod describe;
pub(crate) mod entry;
mod lanes;
#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
mod lanes4;
#[cfg(target_arch = "aarch64")]
mod neon;
mod scalar;
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd128;
#[cfg(target_arch = "x86_64")]
mod sse2;
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables, unused_mut))]
mod subset;
pub(crate) mod tiered;
pub mod validate;

use body::View;
use common::Pos;

use crate::format::{validate_blob, BlobFlags, CodecId, Header};
use crate::runtime::SampleKey;
use crate::{Error, Result};
use std::sync::atomic::{AtomicU8, Ordering};

/// Sub-tracks per group.
pub const LANES: usize = 8;
/// [`GroupedClip`]'s joint map: an animated channel.
const SRC_ANIMATED: u32 = 0;
/// A constant channel.
const SRC_STATIC: u32 = 1 << 30;
/// A default channel.
const SRC_DEFAULT: u32 = 2 << 30;
/// Bytes read past the last segment by a 32-byte window (which starts inside the frames).
pub(crate) const PADDING: usize = 32;

/// Default channel values: identity rotation, zero vector, unit scale.
const DEFAULT_VALUES: [[f32; 4]; 3] = [[0.0, 0.0, 0.0, 1.0], [0.0; 4], [1.0, 1.0, 1.0, 0.0]];

/// A `vbr` clip in the grouped layout: its blob header and grouped body ([`body`]).
pub struct GroupedClip {
    header: Header,
    /// The body, as words (4-byte aligned, like a blob's body).
    body: Vec<u32>,
    /// Bytes the clip takes as a blob (see [`GroupedClip::size`]).
    size: usize,
    /// The widest decoder this machine runs.
    best: Isa,
    /// The bind pose, when the blob's defaults are the bind pose.
    bind: Option<Vec<f32>>,
}

impl GroupedClip {
    /// The grouped clip of a `vbr` blob with joints (validated first: a format version 2 `vbr`
    /// blob is refused, `offline::regroup_blob` converts it).
    pub fn convert(blob: &[u8]) -> Result<GroupedClip> {
        let (h, _) = validate_blob(blob, true)?;
        if h.codec != CodecId::Vbr || !h.grouped() {
            return Err(Error::InvalidArgument(
                "only vbr blobs with joints are grouped",
            ));
        }
        GroupedClip::from_body(h, &blob[h.body_range()])
    }

    /// A clip from a grouped body and the header of the blob it comes from, after
    /// [`validate::validate`] accepts the body.
    pub fn from_body(header: Header, bytes: &[u8]) -> Result<GroupedClip> {
        validate::validate(&header, bytes)?;
        let mut body = vec![0u32; bytes.len() / 4];
        for (w, b) in body.iter_mut().zip(bytes.chunks_exact(4)) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        Ok(GroupedClip {
            size: (header.total_size as usize).saturating_sub(header.body_size as usize)
                + bytes.len(),
            header,
            body,
            best: Isa::best(),
            bind: None,
        })
    }

    /// Samples with `bind` (10 floats per joint) as the defaults, as a blob whose defaults are
    /// the bind pose needs (ignored otherwise).
    pub fn with_bind_pose(mut self, bind: &[f32]) -> Result<GroupedClip> {
        if !self.header.has(BlobFlags::DEFAULTS_ARE_BIND_POSE) {
            return Ok(self);
        }
        let need = 10 * self.header.num_joints as usize;
        if bind.len() < need {
            return Err(Error::InvalidArgument(
                "bind pose shorter than 10 floats per joint",
            ));
        }
        self.bind = Some(bind[..need].to_vec());
        Ok(self)
    }

    /// The decoders' view of the body.
    #[inline(always)]
    fn view(&self) -> View<'_> {
        // SAFETY: u32 words viewed as their bytes (little-endian machines: see `body`).
        let bytes = unsafe {
            std::slice::from_raw_parts(self.body.as_ptr() as *const u8, 4 * self.body.len())
        };
        let mut v = View::read(bytes, &self.header);
        v.bind = self.bind.as_deref();
        v
    }

    /// Bytes of each part of the grouped body, named: what each part of the layout costs.
    pub fn parts(&self) -> Vec<(&'static str, usize)> {
        let c = body::Counts::read(self.body());
        let columns = body::map_columns(&self.header);
        let len = self.body().len();
        let [data, values, kinds] = c
            .sections(self.header.num_joints as usize, columns, len)
            .expect("a validated body");
        let v = self.view();
        let segs = v.num_segments as usize;
        let starts = segs * v.start_bytes * body::stored_starts(v.num_groups);
        let heads: usize = (0..segs).map(|s| v.segment_header(s)).sum();
        let meta = heads + segs * v.meta_bytes - starts;
        let table = v.table_bytes * segs;
        let records = v.seg_table;
        [
            ("header", data),
            ("kinds", len - kinds),
            ("statics", kinds - values),
            ("group records", records),
            ("segment table", table),
            ("segment metadata", meta),
            ("group starts", starts),
            (
                "frames and padding",
                values - data - records - table - meta - starts,
            ),
        ]
        .into()
    }

    /// The grouped body's bytes.
    pub fn body(&self) -> &[u8] {
        // SAFETY: as in `view`.
        unsafe { std::slice::from_raw_parts(self.body.as_ptr() as *const u8, 4 * self.body.len()) }
    }

    /// What a playback cache records of the clip it was filled for.
    #[cfg(target_arch = "x86_64")]
    fn owner(&self) -> cache::Owner {
        cache::Owner {
            body: self.body.as_ptr() as u64,
            len: self.body.len() as u64,
            checksum: self.header.checksum,
            bind: self.bind.as_ref().map_or(0, |b| b.as_ptr() as u64),
            generation: 0,
        }
    }

    /// Bytes of playback cache this clip uses ([`GroupedClip::sample_pose_cached_in`]).
    pub fn cache_size(&self) -> usize {
        cache::size(self.view().num_groups)
    }

    /// The blob header of the converted clip.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Bytes the clip takes as a blob: the `vbr` blob's size with the grouped body in place of
    /// the `vbr` body.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Whether this machine runs the grouped layout's AVX2 decoder.
    pub fn supported() -> bool {
        Isa::Avx2.available()
    }

    /// Makes [`GroupedClip::sample_pose`] and the cached poses use the decoder for `isa` (the widest
    /// this machine runs by default); false, and nothing changed, when this machine or build
    /// does not have it.
    pub fn use_isa(&mut self, isa: Isa) -> bool {
        if isa.available() {
            self.best = isa;
        }
        isa.available()
    }

    /// Samples every joint at `key` into `out` (10 floats per joint at `stride`) with the widest
    /// decoder this machine runs ([`Isa::best`], chosen when the clip was converted).
    pub fn sample_pose(&self, key: &SampleKey, out: &mut [f32], stride: usize) {
        self.sample_pose_isa(self.best, key, out, stride);
    }

    /// Panics unless `key` is within the clip and `out` holds the pose at `stride` (the
    /// decoders index without further checks).
    fn check(&self, key: &SampleKey, out: &[f32], stride: usize) {
        let joints = self.header.num_joints as usize;
        // Joint indices are stored in 16 bits.
        assert!(joints <= 1 << 16);
        let need = crate::runtime::PoseOut::required_len(joints, stride);
        assert!(stride >= 10 && out.len() >= need);
        assert!(key.i0 < self.header.num_samples && key.i1 < self.header.num_samples);
        // Defaults that are the bind pose are never sampled without it.
        assert!(self.bind.is_some() || !self.header.has(BlobFlags::DEFAULTS_ARE_BIND_POSE));
    }

    /// [`GroupedClip::sample_pose`] through a playback cache in `cache` (caller memory of
    /// [`GroupedClip::cache_size`] bytes, 8-byte aligned; AVX2): the samples the key needs that the
    /// cache does not hold are decoded into it, then blended. A key far from the previous one
    /// takes the plain walk. Without AVX2, or with memory too small or misaligned, the pose is
    /// sampled without the cache. Returns whether the cache was used.
    pub fn sample_pose_cached_in(
        &self,
        cache: &mut [u8],
        key: &SampleKey,
        out: &mut [f32],
        stride: usize,
    ) -> bool {
        self.check(key, out, stride);
        #[cfg(target_arch = "x86_64")]
        if Isa::Avx2.available() {
            let v = self.view();
            if let Some(mut c) = cache::Cache::new(cache, v.num_groups, self.owner()) {
                // SAFETY: AVX2 is present; the key and the buffer were checked above; the
                // cache is this clip's (reset otherwise).
                unsafe {
                    avx2::sample_pose_cached::<false>(
                        self.best,
                        &v,
                        &mut c,
                        key,
                        crate::runtime::PoseRows::ten(out.as_mut_ptr(), stride),
                    )
                };
                return true;
            }
        }
        let _ = cache;
        self.sample_pose(key, out, stride);
        false
    }

    /// [`GroupedClip::sample_pose_cached_in`] with an owned cache.
    pub fn sample_pose_cached(
        &self,
        cache: &mut GroupedClipCache,
        key: &SampleKey,
        out: &mut [f32],
        stride: usize,
    ) -> bool {
        if 16 * cache.mem.len() < self.cache_size() {
            *cache = GroupedClipCache::new(self);
        }
        // SAFETY: u128 words viewed as bytes.
        let mem = unsafe {
            std::slice::from_raw_parts_mut(cache.mem.as_mut_ptr() as *mut u8, 16 * cache.mem.len())
        };
        self.sample_pose_cached_in(mem, key, out, stride)
    }

    /// [`GroupedClip::sample_pose`] with the decoder for `isa`; false (nothing written) when this
    /// machine or build does not have it.
    pub fn sample_pose_isa(
        &self,
        isa: Isa,
        key: &SampleKey,
        out: &mut [f32],
        stride: usize,
    ) -> bool {
        self.check(key, out, stride);
        if !isa.available() {
            return false;
        }
        match isa {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX-512 F and VL are present; the key and the buffer were checked above.
            Isa::Avx512 => unsafe {
                avx2::sample_pose_512(&self.view(), key, out.as_mut_ptr(), stride)
            },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: AVX2 is present; the key and the buffer were checked above.
            Isa::Avx2 => unsafe { avx2::sample_pose(&self.view(), key, out.as_mut_ptr(), stride) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the key and the buffer were checked above.
            Isa::Sse2 => unsafe { sse2::sample_pose(&self.view(), key, out.as_mut_ptr(), stride) },
            #[cfg(target_arch = "aarch64")]
            // SAFETY: the key and the buffer were checked above.
            Isa::Neon => unsafe { neon::sample_pose(&self.view(), key, out.as_mut_ptr(), stride) },
            #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
            // SAFETY: the key and the buffer were checked above.
            Isa::Simd128 => unsafe {
                simd128::sample_pose(&self.view(), key, out.as_mut_ptr(), stride)
            },
            Isa::Scalar => scalar::sample_pose(&self.view(), key, out, stride),
            #[allow(unreachable_patterns)]
            _ => return false,
        }
        true
    }
}

/// A playback cache in memory of its own (see [`GroupedClip::sample_pose_cached_in`]).
pub struct GroupedClipCache {
    mem: Vec<u128>,
}

impl GroupedClipCache {
    /// An empty cache for `p`.
    pub fn new(p: &GroupedClip) -> GroupedClipCache {
        GroupedClipCache {
            mem: vec![0; p.cache_size().div_ceil(16)],
        }
    }

    /// Its bytes.
    pub fn bytes(&self) -> usize {
        16 * self.mem.len()
    }

    /// The sample each slot holds (`u32::MAX`: none).
    pub fn held(&self) -> [u32; cache::SLOTS] {
        // SAFETY: the head's first 32 bytes, then the slots (`cache::Head`), in `mem`.
        let w = unsafe {
            std::slice::from_raw_parts(self.mem.as_ptr() as *const u32, 8 + cache::SLOTS)
        };
        std::array::from_fn(|k| w[8 + k])
    }
}

/// The grouped layout's decoders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// The AVX2 decoder compiled for AVX-512 F and VL (chosen at run time): the same eight
    /// lanes and poses, with 32 vector registers instead of 16, so it spills less, and rows of
    /// three floats written with one masked store.
    Avx512,
    /// Eight lanes, AVX2 (chosen at run time).
    Avx2,
    /// Four lanes, SSE2 (the x86-64 baseline).
    Sse2,
    /// Two halves of four lanes, NEON (the aarch64 baseline).
    Neon,
    /// Two halves of four lanes, WebAssembly SIMD (wasm32 built with `simd128`: chosen when
    /// the build enables it).
    Simd128,
    /// One lane at a time, portable.
    Scalar,
}

impl Isa {
    /// Every decoder, widest first.
    pub const ALL: [Isa; 6] = [
        Isa::Avx512,
        Isa::Avx2,
        Isa::Sse2,
        Isa::Neon,
        Isa::Simd128,
        Isa::Scalar,
    ];

    /// Whether this machine and build run the decoder.
    pub fn available(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => {
                avx2_set()
                    && is_x86_feature_detected!("avx512f")
                    && is_x86_feature_detected!("avx512vl")
            }
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => avx2_set(),
            Isa::Sse2 => cfg!(target_arch = "x86_64"),
            Isa::Neon => cfg!(target_arch = "aarch64"),
            Isa::Simd128 => cfg!(all(target_arch = "wasm32", target_feature = "simd128")),
            Isa::Scalar => true,
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    /// The widest available decoder ([`Isa::Scalar`] when none is), or the one
    /// [`Isa::set_best`] chose: found once, then one load (every pose asks; the three feature
    /// checks cost about 15 instructions a call).
    #[inline]
    pub fn best() -> Isa {
        match BEST.load(Ordering::Relaxed) {
            0 => {
                let i = Isa::ALL
                    .iter()
                    .position(|i| i.available())
                    .unwrap_or(Isa::ALL.len() - 1);
                BEST.store(i as u8 + 1, Ordering::Relaxed);
                Isa::ALL[i]
            }
            k => Isa::ALL[(k as usize - 1).min(Isa::ALL.len() - 1)],
        }
    }

    /// Makes every later pose of this process (the runtime's entry points, not only a
    /// [`GroupedClip`]) use the decoder for `isa`, when this machine and build have it; false, and
    /// nothing changed, otherwise. For benchmarks and tests of a narrower decoder on a wider
    /// machine: every decoder gives the same poses, bit for bit.
    pub fn set_best(isa: Isa) -> bool {
        let Some(i) = Isa::ALL.iter().position(|&x| x == isa) else {
            return false;
        };
        if !isa.available() {
            return false;
        }
        BEST.store(i as u8 + 1, Ordering::Relaxed);
        true
    }
}

/// [`Isa::best`]'s choice: 0 not found yet, else 1 + the decoder's index in [`Isa::ALL`].
static BEST: AtomicU8 = AtomicU8::new(0);

/// Whether the CPU has what the AVX2 decoders are compiled for: AVX2 with the bit-manipulation
/// sets that the processors with AVX2 (Intel from Haswell, AMD from Excavator) have too (BMI1,
/// BMI2, LZCNT, POPCNT: `tzcnt`, `blsr`, `shrx` in the walks). Found once.
#[cfg(target_arch = "x86_64")]
#[inline]
fn avx2_set() -> bool {
    // 0: not found yet, 1: absent, 2: present.
    static SET: AtomicU8 = AtomicU8::new(0);
    match SET.load(Ordering::Relaxed) {
        0 => {
            let yes = is_x86_feature_detected!("avx2")
                && is_x86_feature_detected!("bmi1")
                && is_x86_feature_detected!("bmi2")
                && is_x86_feature_detected!("lzcnt")
                && is_x86_feature_detected!("popcnt");
            SET.store(1 + yes as u8, Ordering::Relaxed);
            yes
        }
        k => k == 2,
    }
}

#[cfg(all(test, feature = "compress"))]
mod tests;
