//! What a grouped body holds, for tools (`offline::describe` on a format version 5 `vbr` blob):
//! section sizes and each sub-track's storage.

use super::body::View;
use super::common::Record;
use super::validate::validate;
use super::{SRC_ANIMATED, SRC_DEFAULT, SRC_STATIC};
use crate::format::bytes::read_u32;
use crate::format::quantize::bits::read_bits;
use crate::format::vbr::bitrate::{rate_bits, RATE_CONSTANT, RATE_RAW};
use crate::format::Header;
use crate::offline::{BodyDescription, TrackDescription};
use crate::Result;

/// Describes a grouped body (validated first).
pub fn describe(h: &Header, body: &[u8]) -> Result<BodyDescription> {
    validate(h, body)?;
    let v = View::read(body, h);
    let d = v.data;
    let dir = v.dir();
    let records: Vec<Record> = (0..v.num_groups)
        .map(|g| Record::read(d, dir.at(g)[0] as usize))
        .collect();
    // Per group and lane: stored bits over the clip, constant and raw component-segments.
    let mut bits = vec![[0u64; super::LANES]; records.len()];
    let mut constant = vec![[0u32; super::LANES]; records.len()];
    let mut raw = vec![[0u32; super::LANES]; records.len()];
    for s in 0..v.num_segments as usize {
        let off = v.segment_offset(s);
        let stored = if v.masks {
            read_u32(d, off).count_ones() as u64
        } else {
            (v.num_samples as usize - s * v.seg_len as usize).min(v.seg_len as usize) as u64
        };
        for (g, r) in records.iter().enumerate() {
            let m = off + v.segment_header(s) + dir.at(g)[1] as usize;
            let rb = (5 * r.n).div_ceil(8);
            for c in 0..3 {
                for l in 0..r.n {
                    let rate = read_bits(&d[m + rb * c..], 5 * l, 5) as u8;
                    bits[g][l] += rate_bits(rate) as u64 * stored;
                    constant[g][l] += (rate == RATE_CONSTANT) as u32;
                    raw[g][l] += (rate == RATE_RAW) as u32;
                }
            }
        }
    }
    let mut tracks = Vec::new();
    let channels = super::body::map_columns(h);
    let sources = v.sources();
    for j in 0..h.num_joints as usize {
        for (ch, name) in ["rotation", "translation", "scale"]
            .into_iter()
            .enumerate()
            .take(channels)
        {
            let src = sources.get(j, ch);
            let (storage, bps) = match src & (3 << 30) {
                SRC_STATIC => ("constant".to_string(), 0.0),
                SRC_DEFAULT => ("default".to_string(), 0.0),
                _ => {
                    debug_assert_eq!(src & (3 << 30), SRC_ANIMATED);
                    let (g, l) = ((src >> 3) as usize, (src & 7) as usize);
                    let r = &records[g];
                    let bps = bits[g][l] as f32 / h.num_samples as f32;
                    let drops = match (ch, r.per_segment) {
                        (0, true) => ", drops per segment".to_string(),
                        (0, false) => format!(
                            ", drops {}",
                            ["x", "y", "z", "w"][(r.drops >> (2 * l)) as usize & 3]
                        ),
                        _ => String::new(),
                    };
                    let s = format!(
                        "variable ({bps:.1} bits/sample, {} constant and {} raw component-segments of {}, group {g} lane {l}{drops})",
                        constant[g][l], raw[g][l], v.num_segments
                    );
                    (s, bps)
                }
            };
            tracks.push(TrackDescription {
                joint: j,
                channel: name,
                storage,
                bits_per_sample: bps,
            });
        }
    }
    let [data, values, kinds] = super::body::Counts::read(body)
        .sections(h.num_joints as usize, channels, body.len())
        .expect("a validated body");
    let table = v.table_bytes * v.num_segments as usize;
    let segments = values - data - v.seg_table - table;
    let sections = vec![
        ("header".to_string(), data),
        ("group records".to_string(), v.seg_table),
        ("segment table".to_string(), table),
        ("segments and padding".to_string(), segments),
        ("constants".to_string(), kinds - values),
        ("kinds".to_string(), body.len() - kinds),
    ];
    Ok(BodyDescription { sections, tracks })
}
