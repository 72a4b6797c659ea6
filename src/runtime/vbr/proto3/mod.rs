//! Format version 3 prototype (issue 25; feature `proto-v3`, bench-only, not part of the format).
//!
//! A `vbr` body converted into a layout that a decoder can feed to eight SIMD lanes at once, to
//! measure what such a layout buys before the format changes. The converted clip decodes to the
//! same poses, bit for bit, as the `vbr` decoder of the blob it came from (tests).
//!
//! ```text
//! static channels (constants and defaults; kept beside the buffer in the prototype, counted in
//!   the size as the `vbr` track table and constants): written first, one store each
//! group records, back to back: up to 8 animated sub-tracks of one class (rotations, translations,
//!   scales), in class order (rotations with per-track drops before those with per-segment ones)
//!   u8 class, u8 lanes n, u8 per-segment drops, u8 bytes of the group's segment metadata
//!   u16 joint per lane, u32 per-track dropped components (2 bits per lane)
//!   clip ranges, structure of arrays over the n lanes: rotations u32 (u16 min | u16 extent <<
//!     16) per lane, per stored slot (per-segment groups: per quaternion component, four);
//!     vectors f32 min per lane per component, then f32 extent
//! segment table: u32 offset per segment
//! segment
//!   u32 keyframe mask, u32 frame bits
//!   per group: per component ceil(5n / 8) bytes of rate indices (lane l at bits 5l), per
//!              component n u16 range fields, and for a group with per-segment drops a u16 of
//!              2-bit dropped components (lane l at bits 2l)
//!   per group: u16, its first bit in a frame (subsets decode a group alone)
//!   stored frames, sample-major: per group, component x of lanes 0..n, then y, then z
//! 32 bytes of padding (the decoders' 32-byte windows, and the 8-lane loads of the last group
//!   record when the segments are shorter)
//! ```
//!
//! The frame bits, rate and range fields are those of the `vbr` segment, moved: a segment's size
//! only changes by the byte alignment of a partly filled group's rate fields, a `u16` of drops
//! per group with per-segment drops (instead of 2 bits per such rotation) and the groups' first
//! bits.

#[cfg(target_arch = "x86_64")]
mod avx2;
mod body;
mod cache;
mod common;
mod scalar;
#[cfg(target_arch = "x86_64")]
mod sse2;
mod subset;
pub mod validate;

use body::View;
use common::{position, Pos};

use crate::format::bytes::{read_u16, read_u32};
use crate::format::quantize::bits::read_bits;
use crate::format::vbr::bitrate::{rate_bits, RATE_FIELD_BITS};
use crate::format::vbr::layout::{
    kind, range_bytes_of, View as V2, KIND_ANIMATED, KIND_ANIMATED_PER_SEGMENT, KIND_CONSTANT,
    SEGMENT_HEADER,
};
use crate::format::{validate_blob, BlobFlags, CodecId, Header};
use crate::runtime::SampleKey;
use crate::{Error, Result};

/// Sub-tracks per group.
pub const LANES: usize = 8;
/// [`Proto`]'s joint map: an animated channel.
const SRC_ANIMATED: u32 = 0;
/// A constant channel.
const SRC_STATIC: u32 = 1 << 30;
/// A default channel.
const SRC_DEFAULT: u32 = 2 << 30;
/// Bytes read past the last segment by a 32-byte window (which starts inside the frames).
const PADDING: usize = 32;

/// Up to [`LANES`] animated sub-tracks of one class (built by the converter, then written as a
/// group record).
#[derive(Clone, Debug)]
struct Group {
    /// 0 rotation, 1 translation, 2 scale.
    pub class: u8,
    /// Lanes in use.
    pub n: u8,
    /// Whether the segments store this group's dropped components.
    pub per_segment: bool,
    /// Joint of each lane.
    pub joint: [u32; LANES],
    /// Dropped component of each lane (rotations without per-segment drops).
    pub drop: [i32; LANES],
    /// Rotations: the stored clip range words (u16 min | u16 extent << 16) per slot (per
    /// quaternion component when `per_segment`) and lane.
    pub range: [[u32; LANES]; 4],
    /// Vectors: clip range minimum per component and lane.
    pub min: [[f32; LANES]; 4],
    /// Vectors: clip range extent, like `min`.
    pub ext: [[f32; LANES]; 4],
}

impl Group {
    /// Bytes of one component's rate indices in a segment.
    fn rate_bytes(&self) -> usize {
        (5 * self.n as usize).div_ceil(8)
    }

    /// Bytes of this group's metadata in a segment.
    fn meta_bytes(&self) -> usize {
        3 * self.rate_bytes() + 6 * self.n as usize + 2 * self.per_segment as usize
    }
}

/// A channel the pose takes from the clip's constants.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct Static {
    /// Joint.
    joint: u16,
    /// Float offset in the joint's transform (0, 4 or 7).
    at: u16,
    /// The value (a vector's fourth float unused).
    value: [f32; 4],
}

/// A channel the pose takes from the defaults: joint, and the float offset in the joint's
/// transform (0, 4 or 7) with the default's index in [`DEFAULT_VALUES`] in its high byte.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(crate) struct DefaultChannel {
    joint: u16,
    at: u8,
    value: u8,
}

/// Default channel values: identity rotation, zero vector, unit scale.
const DEFAULT_VALUES: [[f32; 4]; 3] = [[0.0, 0.0, 0.0, 1.0], [0.0; 4], [1.0, 1.0, 1.0, 0.0]];

/// A `vbr` clip in the grouped layout: its blob header and grouped body ([`body`]).
pub struct Proto {
    header: Header,
    /// The body, as words (4-byte aligned, like a blob's body).
    body: Vec<u32>,
    /// Bytes the clip takes as a blob (see [`Proto::size`]).
    size: usize,
    /// The widest decoder this machine runs.
    best: Isa,
    /// The bind pose, when the blob's defaults are the bind pose.
    bind: Option<Vec<f32>>,
}

/// One animated sub-track of the `vbr` body, in its order.
struct Sub {
    joint: u32,
    channel: u32,
    kind: u8,
    track_drop: u8,
    /// Index among the per-segment-drop rotations.
    per_segment: Option<usize>,
    ranges: usize,
}

impl Proto {
    /// Converts a `vbr` blob without a bind pose (a prototype: blobs whose defaults are the bind
    /// pose are refused).
    #[allow(clippy::needless_range_loop)]
    pub fn convert(blob: &[u8]) -> Result<Proto> {
        let (h, _) = validate_blob(blob, true)?;
        if h.codec != CodecId::Vbr {
            return Err(Error::InvalidArgument("proto-v3 converts vbr blobs only"));
        }
        let body = &blob[h.body_range()];
        let v = V2::read(body);
        let has_scale = h.has(BlobFlags::HAS_SCALE);
        let zero_scale = h.additive == crate::format::AdditiveFormat::Additive1 as u8;
        let table = &body[v.tracks..v.tracks + h.num_joints as usize];

        // Static channels and the animated sub-tracks in body order.
        let mut statics = Vec::new();
        let mut defaults = Vec::new();
        let mut subs = Vec::new();
        let (mut constants, mut ranges, mut per_seg) = (v.constants, v.ranges, 0usize);
        for (j, &byte) in table.iter().enumerate() {
            for ch in 0..3u32 {
                let k = kind(byte, ch);
                let at = [0, 4, 7][ch as usize];
                if ch == 2 && !has_scale {
                    // Every joint's scale is the default: not listed (see `body`).
                    continue;
                }
                match k {
                    KIND_CONSTANT => {
                        let n = if ch == 0 { 4 } else { 3 };
                        let mut value = [0.0f32; 4];
                        for (i, x) in value.iter_mut().enumerate().take(n) {
                            *x = f32::from_bits(read_u32(body, constants + 4 * i));
                        }
                        constants += 4 * n;
                        statics.push(Static {
                            joint: j as u16,
                            at: at as u16,
                            value,
                        });
                    }
                    KIND_ANIMATED | KIND_ANIMATED_PER_SEGMENT => {
                        let ps = (k == KIND_ANIMATED_PER_SEGMENT).then(|| {
                            per_seg += 1;
                            per_seg - 1
                        });
                        subs.push(Sub {
                            joint: j as u32,
                            channel: ch,
                            kind: k,
                            track_drop: byte >> 6,
                            per_segment: ps,
                            ranges,
                        });
                        ranges += range_bytes_of(ch, k);
                    }
                    _ => {
                        let value = match ch {
                            0 => 0,
                            1 => 1,
                            _ if zero_scale => 1,
                            _ => 2,
                        };
                        defaults.push(DefaultChannel {
                            joint: j as u16,
                            at: at as u8,
                            value,
                        });
                    }
                }
            }
        }

        // Per channel in joint order (rotations first: one loop each, without a branch on the
        // channel).
        statics.sort_by_key(|s| s.at);
        defaults.sort_by_key(|d| d.at);

        // Groups: rotations with per-track drops, then per-segment ones, translations, scales.
        let mut order: Vec<usize> = (0..subs.len()).collect();
        order.sort_by_key(|&i| {
            let s = &subs[i];
            (
                s.channel * 2 + (s.kind == KIND_ANIMATED_PER_SEGMENT) as u32,
                i,
            )
        });
        let mut groups: Vec<Group> = Vec::new();
        // Members (body sub-track indices) of each group.
        let mut members: Vec<Vec<usize>> = Vec::new();
        for &i in &order {
            let s = &subs[i];
            let class = s.channel as u8;
            let new = match groups.last() {
                Some(g) => g.class != class || g.n as usize == LANES,
                None => true,
            };
            if new {
                groups.push(Group {
                    class,
                    n: 0,
                    per_segment: false,
                    joint: [0; LANES],
                    drop: [3; LANES],
                    range: [[0; LANES]; 4],
                    min: [[0.0; LANES]; 4],
                    ext: [[0.0; LANES]; 4],
                });
                members.push(Vec::new());
            }
            let g = groups.last_mut().unwrap();
            let l = g.n as usize;
            g.n += 1;
            g.joint[l] = s.joint;
            members.last_mut().unwrap().push(i);
            if class == 0 {
                g.drop[l] = s.track_drop as i32;
                g.per_segment |= s.per_segment.is_some();
                for c in 0..3 + s.per_segment.is_some() as usize {
                    g.range[c][l] = read_u32(body, s.ranges + 4 * c);
                }
            } else {
                for c in 0..3 {
                    g.min[c][l] = f32::from_bits(read_u32(body, s.ranges + 8 * c));
                    g.ext[c][l] = f32::from_bits(read_u32(body, s.ranges + 8 * c + 4));
                }
            }
        }
        // A group with per-segment drops keeps four component ranges: a per-track lane in it
        // moves its slot ranges to the components they hold.
        for (g, m) in groups.iter_mut().zip(&members) {
            if !g.per_segment {
                continue;
            }
            for (l, &i) in m.iter().enumerate() {
                if subs[i].per_segment.is_none() {
                    let d = subs[i].track_drop as usize;
                    let slots = [0, 1, 2].map(|s| g.range[s][l]);
                    for c in 0..4 {
                        g.range[c][l] = if c == d {
                            0
                        } else {
                            slots[c - (c > d) as usize]
                        };
                    }
                }
            }
        }
        // The groups' metadata, then a u16 per group: its first bit in a frame.
        let starts_at: usize = groups.iter().map(Group::meta_bytes).sum();
        let meta_bytes = starts_at + 2 * groups.len().saturating_sub(1);
        // Joint map: each channel's index among its channel's sources of its kind.
        let mut joint_map = vec![[u16::MAX, u16::MAX, body::MAP_DEFAULT]; h.num_joints as usize];
        let mut per_channel = [0u16; 3];
        for st in &statics {
            let ch = (st.at as usize + 2) / 4;
            joint_map[st.joint as usize][ch] = body::MAP_STATIC | per_channel[ch];
            per_channel[ch] += 1;
        }
        let num_statics = per_channel;
        let mut per_channel = [0u16; 3];
        for d in &defaults {
            let ch = (d.at as usize + 2) / 4;
            joint_map[d.joint as usize][ch] = body::MAP_DEFAULT | per_channel[ch];
            per_channel[ch] += 1;
        }
        let num_defaults = per_channel;
        let mut num_groups = [0u16; 3];
        for (g, m) in groups.iter().zip(&members) {
            let first = num_groups[g.class as usize] * LANES as u16;
            num_groups[g.class as usize] += 1;
            for (l, &i) in m.iter().enumerate() {
                joint_map[subs[i].joint as usize][subs[i].channel as usize] =
                    body::MAP_ANIMATED | (first + l as u16);
            }
        }
        if h.num_joints as usize > body::MAP_INDEX as usize {
            return Err(Error::InvalidArgument("proto-v3: too many joints"));
        }

        // Group records.
        let mut data = Vec::new();
        let mut group_at = Vec::new();
        let mut meta_at = 0u32;
        for g in &groups {
            group_at.push([data.len() as u32, meta_at]);
            meta_at += g.meta_bytes() as u32;
            data.extend_from_slice(&[g.class, g.n, g.per_segment as u8, g.meta_bytes() as u8]);
            for l in 0..LANES {
                data.extend_from_slice(&(g.joint[l] as u16).to_le_bytes());
            }
            let drops = (0..LANES).fold(0u32, |d, l| d | (g.drop[l] as u32 & 3) << (2 * l));
            data.extend_from_slice(&drops.to_le_bytes());
            // Only the lanes in use: a decoder's 8-lane loads read into the next record (or the
            // segment table) for the others.
            let n = g.n as usize;
            if g.class == 0 {
                for c in 0..3 + g.per_segment as usize {
                    for l in 0..n {
                        data.extend_from_slice(&g.range[c][l].to_le_bytes());
                    }
                }
            } else {
                for part in [&g.min, &g.ext] {
                    for c in part.iter().take(3) {
                        for x in &c[..n] {
                            data.extend_from_slice(&x.to_le_bytes());
                        }
                    }
                }
            }
        }
        // The last record's 8-lane loads read up to 28 bytes past it: into the segments, or
        // the padding after them.
        let seg_table = data.len();
        data.resize(seg_table + 4 * v.num_segments as usize, 0);

        // Segments.
        let a = v.num_animated as usize;
        for s in 0..v.num_segments {
            let off = v.segment_offset(body, s);
            let mask = read_u32(body, off);
            let fb = read_u32(body, off + 4) as usize;
            let rate_bit = (off + SEGMENT_HEADER) * 8;
            let rates: Vec<[u32; 3]> = (0..a)
                .map(|i| {
                    [0, 1, 2].map(|c| {
                        read_bits(body, rate_bit + (3 * i + c) * RATE_FIELD_BITS as usize, 5)
                    })
                })
                .collect();
            let drop_bit = rate_bit + 3 * a * RATE_FIELD_BITS as usize;
            let fields_at = off + SEGMENT_HEADER + v.rate_bytes();
            let frames = v.frames_offset(off);
            let stored = mask.count_ones() as usize;
            // Stored fields per sample and sub-track.
            let mut q = vec![[0u32; 3]; stored * a];
            for k in 0..stored {
                let mut bit = frames * 8 + k * fb;
                for i in 0..a {
                    for c in 0..3 {
                        let w = rate_bits(rates[i][c] as u8);
                        q[k * a + i][c] = read_bits(body, bit, w);
                        bit += w as usize;
                    }
                }
            }
            let seg_start = data.len();
            data[seg_table + 4 * s as usize..][..4]
                .copy_from_slice(&(seg_start as u32).to_le_bytes());
            data.extend_from_slice(&mask.to_le_bytes());
            data.extend_from_slice(&(fb as u32).to_le_bytes());
            for (g, m) in groups.iter().zip(&members) {
                for c in 0..3 {
                    let mut w = 0u64;
                    for (l, &i) in m.iter().enumerate() {
                        w |= (rates[i][c] as u64) << (5 * l);
                    }
                    data.extend_from_slice(&w.to_le_bytes()[..g.rate_bytes()]);
                }
                for c in 0..3 {
                    for &i in m {
                        data.extend_from_slice(
                            &read_u16(body, fields_at + 6 * i + 2 * c).to_le_bytes(),
                        );
                    }
                }
                if g.per_segment {
                    let mut d = 0u16;
                    for (l, &i) in m.iter().enumerate() {
                        let c = match subs[i].per_segment {
                            Some(p) => read_bits(body, drop_bit + 2 * p, 2),
                            None => subs[i].track_drop as u32,
                        };
                        d |= (c as u16) << (2 * l);
                    }
                    data.extend_from_slice(&d.to_le_bytes());
                }
            }
            // Each group's first bit in a frame but the first group's (0), for subsets, which
            // decode a group alone.
            let mut bit = 0usize;
            for (g, m) in members.iter().enumerate() {
                if bit > u16::MAX as usize {
                    return Err(Error::InvalidArgument(
                        "proto-v3: a frame wider than 65535 bits",
                    ));
                }
                if g > 0 {
                    data.extend_from_slice(&(bit as u16).to_le_bytes());
                }
                bit += m
                    .iter()
                    .map(|&i| {
                        (0..3)
                            .map(|c| rate_bits(rates[i][c] as u8) as usize)
                            .sum::<usize>()
                    })
                    .sum::<usize>();
            }
            debug_assert_eq!(data.len() - seg_start, 8 + meta_bytes);
            let mut bw = BitWriter::default();
            for k in 0..stored {
                for m in &members {
                    for c in 0..3 {
                        for &i in m {
                            bw.put(q[k * a + i][c], rate_bits(rates[i][c] as u8));
                        }
                    }
                }
                debug_assert_eq!(bw.bits, (k + 1) * fb);
            }
            data.extend_from_slice(&bw.finish());
        }
        data.resize(data.len() + PADDING, 0);
        let counts = body::Counts {
            seg_len: v.seg_len,
            num_segments: v.num_segments,
            groups: num_groups,
            statics: num_statics,
            defaults: num_defaults,
            data_bytes: data.len() as u32,
            seg_table: seg_table as u32,
            meta_bytes: meta_bytes as u32,
            starts_at: starts_at as u32,
        };
        let columns = 2 + has_scale as usize;
        let bytes = body::write(
            &counts, &statics, &defaults, &joint_map, columns, &group_at, &data,
        );
        Proto::from_body(h, &bytes)
    }

    /// A clip from a grouped body and the header of the blob it comes from, after
    /// [`validate::validate`] accepts the body.
    pub fn from_body(header: Header, bytes: &[u8]) -> Result<Proto> {
        validate::validate(&header, bytes)?;
        let mut body = vec![0u32; bytes.len() / 4];
        for (w, b) in body.iter_mut().zip(bytes.chunks_exact(4)) {
            *w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        Ok(Proto {
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
    pub fn with_bind_pose(mut self, bind: &[f32]) -> Result<Proto> {
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
        let columns = 2 + self.header.has(BlobFlags::HAS_SCALE) as usize;
        let [st, _, de, map, dir, data, end] = c.sections(self.header.num_joints as usize, columns);
        let v = self.view();
        let segs = v.num_segments as usize;
        let starts = segs * 2 * v.num_groups.saturating_sub(1);
        let meta = segs * (8 + v.meta_bytes) - starts;
        let table = 4 * segs;
        let records = v.seg_table;
        [
            ("header", st),
            ("statics", de - st),
            ("defaults", map - de),
            ("joint map", dir - map),
            ("group directory", data - dir),
            ("group records", records),
            ("segment table", table),
            ("segment metadata", meta),
            ("group starts", starts),
            (
                "frames and padding",
                end - data - records - table - meta - starts,
            ),
            ("body padding", self.body().len() - end),
        ]
        .into()
    }

    /// The grouped body's bytes.
    pub fn body(&self) -> &[u8] {
        // SAFETY: as in `view`.
        unsafe { std::slice::from_raw_parts(self.body.as_ptr() as *const u8, 4 * self.body.len()) }
    }

    /// What a playback cache records of the clip it was filled for.
    fn owner(&self) -> cache::Owner {
        cache::Owner {
            body: self.body.as_ptr() as u64,
            len: self.body.len() as u64,
            checksum: self.header.checksum,
            bind: self.bind.as_ref().map_or(0, |b| b.as_ptr() as u64),
        }
    }

    /// Bytes of playback cache this clip uses ([`Proto::sample_pose_cached_in`]).
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

    /// Whether this machine runs the prototype's AVX2 decoder.
    pub fn supported() -> bool {
        Isa::Avx2.available()
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
        assert!(stride >= 10 && (joints == 0 || out.len() >= (joints - 1) * stride + 10));
        assert!(key.i0 < self.header.num_samples && key.i1 < self.header.num_samples);
        // Defaults that are the bind pose are never sampled without it.
        assert!(self.bind.is_some() || !self.header.has(BlobFlags::DEFAULTS_ARE_BIND_POSE));
    }

    /// [`Proto::sample_pose`] through a playback cache in `cache` (caller memory of
    /// [`Proto::cache_size`] bytes, 8-byte aligned; AVX2): the samples the key needs that the
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
        let v = self.view();
        #[cfg(target_arch = "x86_64")]
        if Isa::Avx2.available() {
            if let Some(mut c) = cache::Cache::new(cache, v.num_groups, self.owner()) {
                // SAFETY: AVX2 is present; the key and the buffer were checked above; the
                // cache is this clip's (reset otherwise).
                unsafe { avx2::sample_pose_cached(&v, &mut c, key, out.as_mut_ptr(), stride) };
                return true;
            }
        }
        let _ = cache;
        self.sample_pose(key, out, stride);
        false
    }

    /// [`Proto::sample_pose_cached_in`] with an owned cache.
    pub fn sample_pose_cached(
        &self,
        cache: &mut ProtoCache,
        key: &SampleKey,
        out: &mut [f32],
        stride: usize,
    ) -> bool {
        if 16 * cache.mem.len() < self.cache_size() {
            *cache = ProtoCache::new(self);
        }
        // SAFETY: u128 words viewed as bytes.
        let mem = unsafe {
            std::slice::from_raw_parts_mut(cache.mem.as_mut_ptr() as *mut u8, 16 * cache.mem.len())
        };
        self.sample_pose_cached_in(mem, key, out, stride)
    }

    /// [`Proto::sample_pose`] with the decoder for `isa`; false (nothing written) when this
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
            // SAFETY: AVX2 is present; the key and the buffer were checked above.
            Isa::Avx2 => unsafe { avx2::sample_pose(&self.view(), key, out.as_mut_ptr(), stride) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the key and the buffer were checked above.
            Isa::Sse2 => unsafe { sse2::sample_pose(&self.view(), key, out.as_mut_ptr(), stride) },
            Isa::Scalar => scalar::sample_pose(&self.view(), key, out, stride),
            #[allow(unreachable_patterns)]
            _ => return false,
        }
        true
    }
}

/// A playback cache in memory of its own (see [`Proto::sample_pose_cached_in`]).
pub struct ProtoCache {
    mem: Vec<u128>,
}

impl ProtoCache {
    /// An empty cache for `p`.
    pub fn new(p: &Proto) -> ProtoCache {
        ProtoCache {
            mem: vec![0; p.cache_size().div_ceil(16)],
        }
    }

    /// Its bytes.
    pub fn bytes(&self) -> usize {
        16 * self.mem.len()
    }

    /// The sample each slot holds (`u32::MAX`: none).
    pub fn held(&self) -> [u32; 2] {
        // SAFETY: the head's first 40 bytes, then the slots (`cache::Head`), in `mem`.
        let w = unsafe { std::slice::from_raw_parts(self.mem.as_ptr() as *const u32, 12) };
        [w[10], w[11]]
    }
}

/// The prototype's decoders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// Eight lanes, AVX2 (chosen at run time).
    Avx2,
    /// Four lanes, SSE2 (the x86-64 baseline).
    Sse2,
    /// One lane at a time, portable.
    Scalar,
}

impl Isa {
    /// Every decoder, widest first.
    pub const ALL: [Isa; 3] = [Isa::Avx2, Isa::Sse2, Isa::Scalar];

    /// Whether this machine and build run the decoder.
    pub fn available(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => is_x86_feature_detected!("avx2"),
            Isa::Sse2 => cfg!(target_arch = "x86_64"),
            Isa::Scalar => true,
            #[allow(unreachable_patterns)]
            _ => false,
        }
    }

    /// The widest available decoder ([`Isa::Scalar`] when none is).
    pub fn best() -> Isa {
        Isa::ALL
            .into_iter()
            .find(|i| i.available())
            .unwrap_or(Isa::Scalar)
    }
}

/// Little-endian bit packing.
#[derive(Default)]
struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    n: u32,
    bits: usize,
}

impl BitWriter {
    fn put(&mut self, v: u32, bits: u32) {
        if bits == 0 {
            return;
        }
        let v = if bits == 32 {
            v as u64
        } else {
            (v & ((1u32 << bits) - 1)) as u64
        };
        self.acc |= v << self.n;
        self.n += bits;
        self.bits += bits as usize;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

#[cfg(all(test, feature = "compress"))]
mod tests;
