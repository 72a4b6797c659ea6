//! Serialises the encoder's choices into the body layout of [`super::layout`], and describes a
//! body for `inspect`.
#![cfg_attr(not(feature = "compress"), allow(unused_imports))]

use super::bitrate::{encode_value, rate_bits, RATE_CONSTANT, RATE_FIELD_BITS, RATE_RAW};
use super::layout::{self, kind, View, BODY_HEADER, KIND_ANIMATED, KIND_CONSTANT, SEGMENT_HEADER};
#[cfg(feature = "compress")]
use super::optimize::SegmentChoice;
#[cfg(feature = "compress")]
use super::tracks::{kinds_byte, Plan};
use crate::format::bytes::{read_u32, ByteWriter};
use crate::format::quantize::bits::{read_bits, BitWriter};
use crate::format::Header;
use crate::offline::clip::RawClip;
use crate::offline::{BodyDescription, TrackDescription};
use crate::{Error, Result};

#[cfg(feature = "compress")]
fn to_u32(v: usize) -> Result<u32> {
    u32::try_from(v).map_err(|_| Error::Unsupported("vbr body would exceed 4 GiB"))
}

/// Writes the body.
#[allow(clippy::needless_range_loop)]
#[cfg(feature = "compress")]
pub fn body(
    clip: &RawClip,
    plan: &Plan,
    segments: &[SegmentChoice],
    seg_len: usize,
) -> Result<Vec<u8>> {
    let nj = clip.num_joints();
    let na = plan.animated.len();
    let mut w = ByteWriter::new();
    w.raw(&[0u8; BODY_HEADER]);
    let tracks_off = w.len();
    for j in 0..nj {
        w.u8(kinds_byte(plan.kinds[j], plan.dropped[j]));
    }
    let constants_off = w.len();
    for j in 0..nj {
        let f = &plan.fixed[j];
        for ch in 0..3 {
            if plan.kinds[j][ch] == KIND_CONSTANT {
                match ch {
                    0 => f.rotation.to_array().iter().for_each(|&v| w.f32(v)),
                    1 => f.translation.to_array().iter().for_each(|&v| w.f32(v)),
                    _ => f.scale.to_array().iter().for_each(|&v| w.f32(v)),
                }
            }
        }
    }
    let ranges_off = w.len();
    for st in &plan.animated {
        if st.channel == 0 {
            for (c, &(lo, ext)) in st.rotation_fields.iter().enumerate() {
                // Per-track drops: the dropped component's range is never used, not stored.
                if st.segment_drops.is_empty() && c == st.dropped as usize {
                    continue;
                }
                w.u16(lo);
                w.u16(ext);
            }
        } else {
            for r in &st.ranges[..3] {
                w.f32(r.min);
                w.f32(r.extent);
            }
        }
    }
    let table_off = w.len();
    w.raw(&vec![0u8; 4 * segments.len()]);
    for (si, seg) in segments.iter().enumerate() {
        let off = to_u32(w.len())?;
        w.patch_u32(table_off + 4 * si, off);
        let frame_bits: u32 = seg.rates.iter().flatten().map(|&r| rate_bits(r)).sum();
        w.u32(seg.mask);
        w.u32(frame_bits);
        let mut rates = BitWriter::new();
        for &r in seg.rates.iter().flatten() {
            rates.write(r as u32, RATE_FIELD_BITS);
        }
        for st in plan
            .animated
            .iter()
            .filter(|st| !st.segment_drops.is_empty())
        {
            rates.write(st.segment_drops[si] as u32, 2);
        }
        w.raw(&rates.finish_unpadded());
        for f in &seg.fields {
            f.iter().for_each(|&v| w.u16(v));
        }
        let mut data = BitWriter::new();
        let start = si * seg_len;
        for s in 0..seg_len.min(clip.num_samples - start) {
            if seg.mask & (1 << s) == 0 {
                continue;
            }
            for (t, st) in plan.animated.iter().enumerate() {
                let v = &st.values[start + s];
                for c in 0..3 {
                    let rate = seg.rates[t][c];
                    if rate == RATE_CONSTANT {
                        continue;
                    }
                    let (q, _) = encode_value(
                        v[c],
                        rate,
                        seg.fields[t][c],
                        st.slot_range(c, st.drop_in(si)),
                    );
                    data.write(q, rate_bits(rate));
                }
            }
        }
        w.raw(&data.finish_unpadded());
    }
    // Read-ahead padding for the 64-bit bit reader.
    w.raw(&[0u8; layout::READ_AHEAD]);
    let mut b = w.bytes;
    b[0] = layout::VERSION;
    b[1] = seg_len as u8;
    let header = [
        segments.len(),
        na,
        tracks_off,
        constants_off,
        ranges_off,
        table_off,
        plan.animated
            .iter()
            .filter(|st| !st.segment_drops.is_empty())
            .count(),
    ];
    for (i, v) in header.iter().enumerate() {
        b[4 + 4 * i..8 + 4 * i].copy_from_slice(&to_u32(*v)?.to_le_bytes());
    }
    Ok(b)
}

/// Describes a validated body: section sizes and each sub-track's storage.
pub fn describe(h: &Header, body: &[u8]) -> Result<BodyDescription> {
    super::validate(h, body)?;
    let v = View::read(body);
    let nj = h.num_joints as usize;
    let n = h.num_samples as u64;
    let table = &body[v.tracks..v.tracks + nj];
    let na = v.num_animated as usize;
    // Stored bits per animated sub-track over the whole clip.
    let mut bits = vec![0u64; na];
    let mut const_segments = vec![0u32; na];
    let mut raw_segments = vec![0u32; na];
    let mut seg_bytes = 0usize;
    for s in 0..v.num_segments {
        let off = v.segment_offset(body, s);
        let mask = read_u32(body, off);
        let frame_bits = read_u32(body, off + 4) as usize;
        let rates = &body[off + SEGMENT_HEADER..];
        for (k, b) in bits.iter_mut().enumerate() {
            for c in 0..3 {
                let r = read_bits(
                    rates,
                    (3 * k + c) * RATE_FIELD_BITS as usize,
                    RATE_FIELD_BITS,
                ) as u8;
                *b += rate_bits(r) as u64 * mask.count_ones() as u64;
                const_segments[k] += (r == RATE_CONSTANT) as u32;
                raw_segments[k] += (r == RATE_RAW) as u32;
            }
        }
        seg_bytes += SEGMENT_HEADER
            + v.rate_bytes()
            + 6 * na
            + (frame_bits * mask.count_ones() as usize).div_ceil(8);
    }
    let mut tracks = Vec::new();
    let mut k = 0;
    for (j, &byte) in table.iter().enumerate() {
        for (ch, name) in ["rotation", "translation", "scale"].into_iter().enumerate() {
            let (storage, bps) = match kind(byte, ch as u32) {
                KIND_CONSTANT => ("constant".to_string(), 0.0),
                KIND_ANIMATED | layout::KIND_ANIMATED_PER_SEGMENT => {
                    let bps = bits[k] as f32 / n as f32;
                    let s = format!(
                        "variable ({bps:.1} bits/sample, {} constant and {} raw component-segments of {}{})",
                        const_segments[k],
                        raw_segments[k],
                        v.num_segments,
                        if ch == 0 {
                            format!(", drops {}", ["x", "y", "z", "w"][(byte >> 6) as usize])
                        } else {
                            String::new()
                        }
                    );
                    k += 1;
                    (s, bps)
                }
                _ => ("default".to_string(), 0.0),
            };
            if ch == 2 && !h.has(crate::format::BlobFlags::HAS_SCALE) {
                continue;
            }
            tracks.push(TrackDescription {
                joint: j,
                channel: name,
                storage,
                bits_per_sample: bps,
            });
        }
    }
    let sections = vec![
        ("header".to_string(), BODY_HEADER),
        ("track table".to_string(), nj),
        ("constants".to_string(), v.ranges - v.constants),
        ("clip ranges".to_string(), v.segments - v.ranges),
        ("segment table".to_string(), 4 * v.num_segments as usize),
        ("segments".to_string(), seg_bytes),
    ];
    Ok(BodyDescription { sections, tracks })
}
