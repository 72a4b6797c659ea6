//! Regrouping: a `vbr` body in segments (format version 2, body layout 1) rewritten as a grouped
//! body (format version 5, body layout 4: `runtime::vbr::grouped::body`) that decodes to the
//! same poses, bit for bit. The encoder writes segments and regroups them; old blobs move to the
//! grouped layout the same way, without recompressing.

use crate::format::bytes::{read_u16, read_u32};
use crate::format::quantize::bits::read_bits;
use crate::format::vbr::bitrate::{rate_bits, RATE_FIELD_BITS};
use crate::format::vbr::layout::{
    kind, range_bytes_of, validate, View as V2, KIND_ANIMATED, KIND_ANIMATED_PER_SEGMENT,
    KIND_CONSTANT, SEGMENT_HEADER,
};
use crate::format::{BlobFlags, Header};
use crate::runtime::vbr::grouped::body::{self, Counts};
use crate::runtime::vbr::grouped::LANES;
use crate::{Error, Result};

/// A channel the pose takes from the clip's constants.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct Static {
    /// Joint.
    joint: u16,
    /// Float offset in the joint's transform (0, 4 or 7).
    at: u16,
    /// The value (a vector's fourth float unused).
    value: [f32; 4],
}

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

/// The grouped body of the `vbr` body `body` of a blob with header `h` (the body is validated
/// first).
#[allow(clippy::needless_range_loop)]
pub fn regroup(h: &Header, body: &[u8]) -> Result<Vec<u8>> {
    validate(h, body)?;
    let v = V2::read(body);
    let has_scale = h.has(BlobFlags::HAS_SCALE);
    let table = &body[v.tracks..v.tracks + h.num_joints as usize];

    // Static channels and the animated sub-tracks in body order.
    let mut statics = Vec::new();
    let mut num_defaults = [0u16; 3];
    let mut subs = Vec::new();
    let (mut constants, mut ranges, mut per_seg) = (v.constants, v.ranges, 0usize);
    for (j, &byte) in table.iter().enumerate() {
        for ch in 0..3u32 {
            let k = kind(byte, ch);
            let at = crate::math::CHANNEL_OFFSETS[ch as usize];
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
                _ => num_defaults[ch as usize] += 1,
            }
        }
    }

    // Per channel in joint order (rotations first: one loop each, without a branch on the
    // channel).
    statics.sort_by_key(|s| s.at);

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
    // The groups' first bits and the frame bits: u16, or u32 when a frame is wider than 65535
    // bits. Keyframe masks only when a segment drops a sample.
    let wide_starts = (0..v.num_segments)
        .any(|s| read_u32(body, v.segment_offset(body, s) + 4) > u16::MAX as u32);
    let start_bytes = if wide_starts { 4 } else { 2 };
    let samples = h.num_samples as usize;
    let seg_len = v.seg_len as usize;
    let masks = (0..v.num_segments as usize).any(|s| {
        let len = (samples - s * seg_len).min(seg_len);
        read_u32(body, v.segment_offset(body, s as u32)) != (((1u64 << len) - 1) as u32)
    });
    let meta_bytes = starts_at + start_bytes * body::stored_starts(groups.len());
    // Kinds: a bit per joint in its channel's mask of its kind.
    let joints = h.num_joints as usize;
    let words = body::mask_words(joints);
    let mut kinds = vec![0u32; words * body::num_masks(body::map_columns(h))];
    let mut set = |m: usize, j: usize| kinds[m * words + j / 32] |= 1 << (j % 32);
    let channel = |at: usize| (at + 2) / 4;
    let mut num_statics = [0u16; 3];
    for st in &statics {
        let ch = channel(st.at as usize);
        set(body::MASK_STATIC[ch], st.joint as usize);
        num_statics[ch] += 1;
    }
    for sub in &subs {
        let m = match sub.per_segment {
            Some(_) => body::MASK_PER_SEGMENT,
            None => body::MASK_ANIMATED[sub.channel as usize],
        };
        set(m, sub.joint as usize);
    }
    let mut num_groups = [0u16; 3];
    for g in &groups {
        num_groups[g.class as usize] += 1;
    }
    if joints > u16::MAX as usize {
        return Err(Error::InvalidArgument("grouped layout: too many joints"));
    }
    let narrow = h.num_joints <= 256;
    let implied = body::implies_bits(v.seg_len, masks);

    // Group records.
    let mut data = Vec::new();
    for g in &groups {
        let flag = |on: bool, f: u8| if on { f } else { 0 };
        let flags =
            flag(g.per_segment, body::RECORD_PER_SEGMENT) | flag(!narrow, body::RECORD_WIDE_JOINTS);
        data.extend_from_slice(&[g.class, g.n, flags, g.meta_bytes() as u8]);
        // Per-track dropped components: a rotation group's lanes (the segments hold a group's
        // with per-segment drops); zero elsewhere.
        let drops = match g.class == 0 && !g.per_segment {
            true => (0..g.n as usize).fold(0u32, |d, l| d | (g.drop[l] as u32 & 3) << (2 * l)),
            false => 0,
        };
        data.extend_from_slice(&drops.to_le_bytes());
        for l in 0..LANES {
            if narrow {
                data.push(g.joint[l] as u8);
            } else {
                data.extend_from_slice(&(g.joint[l] as u16).to_le_bytes());
            }
        }
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
    // The last record's 8-lane loads read up to 28 bytes past it: into the segment table and
    // the segments, or the padding after them.
    let seg_table = data.len();
    let records = data;

    // Segments, at offsets from the first; `seg_starts` each one's.
    let mut data = Vec::new();
    let mut seg_starts = Vec::with_capacity(v.num_segments as usize);
    let a = v.num_animated as usize;
    for s in 0..v.num_segments {
        let off = v.segment_offset(body, s);
        let mask = read_u32(body, off);
        let fb = read_u32(body, off + 4) as usize;
        let rate_bit = (off + SEGMENT_HEADER) * 8;
        let rates: Vec<[u32; 3]> = (0..a)
            .map(|i| {
                [0, 1, 2]
                    .map(|c| read_bits(body, rate_bit + (3 * i + c) * RATE_FIELD_BITS as usize, 5))
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
        seg_starts.push(seg_start);
        let head = !implied || s + 1 == v.num_segments;
        if masks {
            data.extend_from_slice(&mask.to_le_bytes());
        }
        if head {
            data.extend_from_slice(&(fb as u32).to_le_bytes()[..start_bytes]);
        }
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
        // Every `STARTS_EVERY`th group's first bit in a frame (the first group's is 0), for
        // subsets, which decode a group alone.
        let mut bit = 0usize;
        for (g, m) in members.iter().enumerate() {
            if g > 0 && g % body::STARTS_EVERY == 0 {
                data.extend_from_slice(&(bit as u32).to_le_bytes()[..start_bytes]);
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
        debug_assert_eq!(
            data.len() - seg_start,
            head as usize * (4 * masks as usize + start_bytes) + meta_bytes
        );
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
    // The segment table: u16 entries when every segment starts below byte 65536.
    let last = seg_starts.last().copied().unwrap_or(0);
    let small_table = seg_table + 2 * seg_starts.len() + last <= u16::MAX as usize;
    let tb = if small_table { 2 } else { 4 };
    let mut all = records;
    let first = seg_table + tb * seg_starts.len();
    for &o in &seg_starts {
        all.extend_from_slice(&((first + o) as u32).to_le_bytes()[..tb]);
    }
    all.extend_from_slice(&data);
    let data = all;
    let first_per_segment = groups
        .iter()
        .position(|g| g.class == 0 && g.per_segment)
        .unwrap_or(num_groups[0] as usize) as u16;
    let flag = |on: bool, f: u8| if on { f } else { 0 };
    let flags = flag(implied, body::FLAG_IMPLIED_BITS)
        | flag(wide_starts, body::FLAG_WIDE)
        | flag(masks, body::FLAG_MASKS)
        | flag(narrow, body::FLAG_NARROW)
        | flag(small_table, body::FLAG_SMALL_TABLE);
    let counts = Counts {
        seg_len: v.seg_len,
        flags,
        num_segments: v.num_segments,
        groups: num_groups,
        statics: num_statics,
        defaults: num_defaults,
        first_per_segment,
        seg_table: seg_table as u32,
        meta_bytes: meta_bytes as u32,
    };
    Ok(write(&counts, &statics, &kinds, &data))
}

/// Writes a grouped body: `counts` (its data fields), the data (without its padding), the
/// padding, the constants in the header's order and the kinds' masks.
fn write(counts: &Counts, statics: &[Static], kinds: &[u32], data: &[u8]) -> Vec<u8> {
    let mut tail = Vec::with_capacity(16 * statics.len() + 4 * kinds.len());
    for s in statics {
        for x in &s.value[..if s.at == 0 { 4 } else { 3 }] {
            tail.extend_from_slice(&x.to_le_bytes());
        }
    }
    for w in kinds {
        tail.extend_from_slice(&w.to_le_bytes());
    }
    let end = body::HEADER + data.len();
    let len = (end + tail.len())
        .max(end + crate::runtime::vbr::grouped::PADDING)
        .next_multiple_of(16);
    let mut b = Vec::with_capacity(len);
    b.extend_from_slice(&[body::VERSION, counts.seg_len as u8, counts.flags, 0]);
    b.extend_from_slice(&counts.num_segments.to_le_bytes());
    for c in [counts.groups, counts.statics, counts.defaults] {
        for x in c {
            b.extend_from_slice(&x.to_le_bytes());
        }
    }
    b.extend_from_slice(&counts.first_per_segment.to_le_bytes());
    b.extend_from_slice(&counts.seg_table.to_le_bytes());
    b.extend_from_slice(&counts.meta_bytes.to_le_bytes());
    debug_assert_eq!(b.len(), body::HEADER);
    b.extend_from_slice(data);
    // The padding: the decoders' 32 bytes after the segments (the tail counted) and the body
    // a multiple of 16 bytes.
    b.resize(len - tail.len(), 0);
    b.extend_from_slice(&tail);
    b
}

/// Little-endian bit packing (bit `i` of the output is bit `i % 8` of byte `i / 8`).
#[derive(Default)]
pub(crate) struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    n: u32,
    bits: usize,
}

impl BitWriter {
    /// Appends the low `bits` (at most 32) of `v`.
    pub(crate) fn put(&mut self, v: u32, bits: u32) {
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

    /// The bytes, the last one completed with zero bits.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}
