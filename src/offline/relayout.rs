//! A `vbr` blob of format version 2 rewritten in the grouped layout (format version 4) without
//! recompressing: the body regrouped, the header, flags and curves section kept. The result is
//! byte for byte what compressing the clip with [`crate::VbrLayout::Grouped`] writes, so a blob
//! cache can move to the grouped layout without its source clips.

use crate::format::{validate_blob, CodecId};
use crate::offline::blob_writer::{assemble_blob_with, BlobExtras, EncodedBody};
use crate::{Error, Result};

/// The grouped form of `blob` (validated first, checksum included). A blob already grouped is
/// returned as it is; a blob of another codec, or without joints, is refused.
pub fn regroup_blob(blob: &[u8]) -> Result<Vec<u8>> {
    let (h, _) = validate_blob(blob, true)?;
    if h.codec != CodecId::Vbr || h.num_joints == 0 {
        return Err(Error::InvalidArgument(
            "only vbr blobs with joints have a grouped layout",
        ));
    }
    if h.grouped() {
        return Ok(blob[..h.total_size as usize].to_vec());
    }
    let encoded = EncodedBody {
        codec: h.codec,
        flags: h.flags,
        body: blob[h.body_range()].to_vec(),
    };
    let extras = BlobExtras {
        additive: h.additive,
        num_curves: h.num_curves,
        curves: blob[h.curves_range()].to_vec(),
        grouped: true,
    };
    assemble_blob_with(
        &encoded,
        h.num_joints as usize,
        h.num_samples as usize,
        h.sample_rate,
        &extras,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::{generate_clip, GenerateOptions};
    use crate::offline::curves::Curve;
    use crate::{compress_with_curves, CodecChoice, CompressSettings, VbrLayout};

    #[test]
    fn a_regrouped_blob_is_the_blob_compressed_grouped() {
        let clip = generate_clip(&GenerateOptions {
            joints: 23,
            samples: 88,
            scale: true,
            animated_translation: true,
            seed: 3,
            ..Default::default()
        });
        let curves: Vec<Curve> = (0..3)
            .map(|k| {
                let values = (0..88)
                    .map(|i| ((i * (k + 1)) as f32 * 0.07).sin())
                    .collect();
                Curve::new(format!("c{k}"), k as u32, values)
            })
            .collect();
        let blob = |vbr_layout| {
            let s = CompressSettings {
                codec: CodecChoice::Vbr,
                vbr_layout,
                ..Default::default()
            };
            compress_with_curves(&clip, &curves, &s).unwrap()
        };
        let (seg, grp) = (blob(VbrLayout::Segments), blob(VbrLayout::Grouped));
        let aligned = crate::AlignedBlob::from_bytes(&seg);
        let regrouped = regroup_blob(aligned.as_bytes()).unwrap();
        // The compressor keeps the smallest grouped body of the segment lengths it tries, the
        // segments blob's among them.
        assert!(grp.len() <= regrouped.len());
        // Grouped already: the same bytes.
        for b in [&regrouped, &grp] {
            let again = crate::AlignedBlob::from_bytes(b);
            assert_eq!(&regroup_blob(again.as_bytes()).unwrap(), b);
        }
        // Another codec is refused.
        let fixed = crate::compress(
            &clip,
            &CompressSettings {
                codec: CodecChoice::Fixed,
                ..Default::default()
            },
        )
        .unwrap();
        let fixed = crate::AlignedBlob::from_bytes(&fixed);
        assert!(matches!(
            regroup_blob(fixed.as_bytes()),
            Err(Error::InvalidArgument(_))
        ));
    }
}
