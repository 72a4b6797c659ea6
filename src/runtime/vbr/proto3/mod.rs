//! Format version 3 prototype (issue 25; feature `proto-v3`, bench-only, not part of the format).
//!
//! A `vbr` body converted into a layout that a decoder can feed to eight SIMD lanes at once, to
//! measure what such a layout buys before the format changes. The converted clip decodes to the
//! same poses, bit for bit, as the `vbr` decoder of the blob it came from (tests).
//!
//! ```text
//! clip level
//!   static channels (constants and defaults): written first, one 16- or 12-byte store each
//!   groups: up to 8 animated sub-tracks of one class (rotations, translations, scales), in class
//!     order; per lane the joint, the dropped component (per-track drops) and the clip ranges,
//!     structure of arrays (rotations of a group with per-segment drops: all four components)
//! segment
//!   u32 keyframe mask, u32 frame bits
//!   per group: 3 x 5 bytes of rate indices (component-major, lane l at bits 5l..5l+4),
//!              3 x 8 u16 range fields (component-major), and for a group with per-segment
//!              drops a u16 of 2-bit dropped components (lane l at bits 2l)
//!   stored frames, sample-major: per group, component x of lanes 0..n, then y, then z
//! ```
//!
//! The frame bits, rate and range fields are those of the `vbr` segment, moved: a segment's size
//! only changes by the padding of partly filled groups and the byte-aligned rate fields.

#[cfg(target_arch = "x86_64")]
mod avx2;

use crate::format::bytes::{read_u16, read_u32};
use crate::format::quantize::bits::read_bits;
use crate::format::vbr::bitrate::{rate_bits, rotation_range, RATE_FIELD_BITS};
use crate::format::vbr::layout::{
    kind, range_bytes_of, View, KIND_ANIMATED, KIND_ANIMATED_PER_SEGMENT, KIND_CONSTANT,
    SEGMENT_HEADER,
};
use crate::format::{validate_blob, BlobFlags, CodecId, Header};
use crate::runtime::SampleKey;
use crate::{Error, Result};

/// Sub-tracks per group.
pub const LANES: usize = 8;
/// Bytes of a group's metadata in a segment (without per-segment drops).
pub const GROUP_META: usize = 15 + 48;
/// Bytes read past the last segment by a 32-byte window.
const PADDING: usize = 64;

/// Up to [`LANES`] animated sub-tracks of one class.
#[derive(Clone, Debug)]
pub struct Group {
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
    /// Clip range minimum per component and lane: the stored slots of a rotation, or its four
    /// quaternion components when `per_segment`; x y z of a vector.
    pub min: [[f32; LANES]; 4],
    /// Clip range extent, like `min`.
    pub ext: [[f32; LANES]; 4],
}

/// A channel the pose takes from the clip's constants or defaults.
#[derive(Clone, Copy, Debug)]
pub struct Static {
    /// Joint.
    pub joint: u32,
    /// Float offset in the joint's transform (0, 4 or 7).
    pub at: u32,
    /// The value (a vector's fourth float unused).
    pub value: [f32; 4],
}

/// A `vbr` clip in the prototype layout.
pub struct Proto {
    header: Header,
    seg_len: u32,
    num_segments: u32,
    statics: Vec<Static>,
    groups: Vec<Group>,
    /// Byte offset of each segment in `data`.
    segments: Vec<u32>,
    /// Bytes of the group metadata of one segment.
    meta_bytes: usize,
    data: Vec<u8>,
    /// Bytes the layout would take in a blob (see [`Proto::size`]).
    size: usize,
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
    pub fn convert(blob: &[u8]) -> Result<Proto> {
        let (h, _) = validate_blob(blob, true)?;
        if h.codec != CodecId::Vbr {
            return Err(Error::InvalidArgument("proto-v3 converts vbr blobs only"));
        }
        if h.has(BlobFlags::DEFAULTS_ARE_BIND_POSE) {
            return Err(Error::InvalidArgument("proto-v3 does not take a bind pose"));
        }
        let body = &blob[h.body_range()];
        let v = View::read(body);
        let has_scale = h.has(BlobFlags::HAS_SCALE);
        let zero_scale = h.additive == crate::format::AdditiveFormat::Additive1 as u8;
        let table = &body[v.tracks..v.tracks + h.num_joints as usize];

        // Static channels and the animated sub-tracks in body order.
        let mut statics = Vec::new();
        let mut subs = Vec::new();
        let (mut constants, mut ranges, mut per_seg) = (v.constants, v.ranges, 0usize);
        for (j, &byte) in table.iter().enumerate() {
            for ch in 0..3u32 {
                let k = kind(byte, ch);
                let at = [0, 4, 7][ch as usize];
                if ch == 2 && !has_scale {
                    statics.push(Static {
                        joint: j as u32,
                        at,
                        value: [1.0, 1.0, 1.0, 0.0],
                    });
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
                            joint: j as u32,
                            at,
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
                            0 => [0.0, 0.0, 0.0, 1.0],
                            1 => [0.0; 4],
                            _ if zero_scale => [0.0; 4],
                            _ => [1.0, 1.0, 1.0, 0.0],
                        };
                        statics.push(Static {
                            joint: j as u32,
                            at,
                            value,
                        });
                    }
                }
            }
        }

        // Groups: rotations with per-track drops, then per-segment ones, translations, scales.
        let mut order: Vec<usize> = (0..subs.len()).collect();
        order.sort_by_key(|&i| {
            let s = &subs[i];
            (s.channel * 2 + (s.kind == KIND_ANIMATED_PER_SEGMENT) as u32, i)
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
                    let w = read_u32(body, s.ranges + 4 * c);
                    let r = rotation_range(w as u16, (w >> 16) as u16);
                    g.min[c][l] = r.min;
                    g.ext[c][l] = r.extent;
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
                    let (min, ext) = ([0, 1, 2].map(|s| g.min[s][l]), [0, 1, 2].map(|s| g.ext[s][l]));
                    for c in 0..4 {
                        let (a, b) = if c == d {
                            (0.0, 0.0)
                        } else {
                            let s = c - (c > d) as usize;
                            (min[s], ext[s])
                        };
                        g.min[c][l] = a;
                        g.ext[c][l] = b;
                    }
                }
            }
        }
        let meta_bytes: usize = groups
            .iter()
            .map(|g| GROUP_META + 2 * g.per_segment as usize)
            .sum();

        // Segments.
        let a = v.num_animated as usize;
        let mut data = Vec::new();
        let mut segments = Vec::new();
        let mut size_delta: isize = 0;
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
            segments.push(seg_start as u32);
            data.extend_from_slice(&mask.to_le_bytes());
            data.extend_from_slice(&(fb as u32).to_le_bytes());
            for (g, m) in groups.iter().zip(&members) {
                for c in 0..3 {
                    let mut w = 0u64;
                    for (l, &i) in m.iter().enumerate() {
                        w |= (rates[i][c] as u64) << (5 * l);
                    }
                    data.extend_from_slice(&w.to_le_bytes()[..5]);
                }
                for c in 0..3 {
                    for l in 0..LANES {
                        let f = m.get(l).map_or(0, |&i| read_u16(body, fields_at + 6 * i + 2 * c));
                        data.extend_from_slice(&f.to_le_bytes());
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
            let v2_meta = SEGMENT_HEADER + v.rate_bytes() + 6 * a;
            size_delta += (8 + meta_bytes) as isize - v2_meta as isize;
        }
        data.resize(data.len() + PADDING, 0);
        // The blob's size with the segments' metadata resized, plus per group a lane count and
        // per lane a 16-bit joint index (the track table stays for the static channels).
        let size = (h.total_size as isize + size_delta) as usize + groups.len() * (1 + 2 * LANES);
        Ok(Proto {
            header: h,
            seg_len: v.seg_len,
            num_segments: v.num_segments,
            statics,
            groups,
            segments,
            meta_bytes,
            data,
            size,
        })
    }

    /// The blob header of the converted clip.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Bytes the layout would take as a blob: the `vbr` blob's size with each segment's
    /// metadata in the grouped layout (padding of partly filled groups, byte-aligned rate
    /// fields, per-segment drops per group), plus the group tables.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Whether this machine runs the prototype's decoder (AVX2).
    pub fn supported() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            is_x86_feature_detected!("avx2")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// Samples every joint at `key` into `out` (10 floats per joint at `stride`). Does nothing
    /// on a machine without AVX2 ([`Proto::supported`]).
    pub fn sample_pose(&self, key: &SampleKey, out: &mut [f32], stride: usize) {
        let joints = self.header.num_joints as usize;
        assert!(stride >= 10 && (joints == 0 || out.len() >= (joints - 1) * stride + 10));
        assert!(key.i0 < self.header.num_samples && key.i1 < self.header.num_samples);
        #[cfg(target_arch = "x86_64")]
        if Self::supported() {
            // SAFETY: AVX2 is present; the key and the buffer were checked above.
            unsafe { avx2::sample_pose(self, key, out.as_mut_ptr(), stride) }
        }
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
        let v = if bits == 32 { v as u64 } else { (v & ((1u32 << bits) - 1)) as u64 };
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
