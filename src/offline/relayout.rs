//! A `vbr` blob of format version 2 (the segments layout, which the runtime refuses) rewritten
//! in the grouped layout (format version 5) without recompressing: the body regrouped, the
//! header, flags and curves section kept. The result is byte for byte what compressing the clip
//! writes, so a blob cache moves to the grouped layout without its source clips.

use crate::format::validate::validate_blob_for_regroup;
use crate::format::CodecId;
use crate::offline::blob_writer::{assemble_blob_with, BlobExtras, EncodedBody};
use crate::{Error, Result};

/// The grouped form of `blob` (validated first, checksum included). A blob already grouped is
/// returned as it is; a blob of another codec, or without joints, is refused.
pub fn regroup_blob(blob: &[u8]) -> Result<Vec<u8>> {
    let (h, _) = validate_blob_for_regroup(blob, true, &mut Default::default())?;
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
        segments: false,
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
        // Under qemu (`ANIMCOMP_TEST_EMULATED=1`) a clip half as long: still several segments,
        // every segment length the compressor tries.
        let samples = if crate::emulated::emulated() { 44 } else { 88 };
        let clip = generate_clip(&GenerateOptions {
            joints: 23,
            samples,
            scale: true,
            animated_translation: true,
            seed: 3,
            ..Default::default()
        });
        let curves: Vec<Curve> = (0..3)
            .map(|k| {
                let values = (0..samples)
                    .map(|i| ((i * (k + 1)) as f32 * 0.07).sin())
                    .collect();
                Curve::new(format!("c{k}"), k as u32, values)
            })
            .collect();
        let s = CompressSettings {
            codec: CodecChoice::Vbr,
            ..Default::default()
        };
        let seg = crate::offline::compress::compress_segments(&clip, &curves, &s).unwrap();
        let aligned = crate::AlignedBlob::from_bytes(&seg);
        // The runtime refuses the segments blob; the conversion reads it.
        assert_eq!(
            crate::format::validate_blob(aligned.as_bytes(), true).unwrap_err(),
            Error::UnsupportedVersion(2)
        );
        // Every value of the reserved layout setting writes the same grouped blob.
        let grp = compress_with_curves(&clip, &curves, &s).unwrap();
        for vbr_layout in VbrLayout::ALL {
            let s = CompressSettings { vbr_layout, ..s };
            assert_eq!(compress_with_curves(&clip, &curves, &s).unwrap(), grp);
        }
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

    /// Every `vbr` blob with joints is format version 5, whatever the reserved layout setting
    /// and the rig's size (small rigs included); a clip of curves only, and the other codecs,
    /// are format version 2.
    #[test]
    fn every_vbr_blob_with_joints_is_grouped() {
        use crate::format::{Header, FORMAT_VERSION};
        let version = |blob: &[u8]| Header::parse(blob).unwrap().version;
        for joints in [1, 2, 9, 16, 40] {
            let clip = generate_clip(&GenerateOptions {
                joints,
                samples: 20,
                seed: joints as u64,
                ..Default::default()
            });
            for vbr_layout in VbrLayout::ALL {
                for codec in [CodecChoice::Vbr, CodecChoice::Auto] {
                    let s = CompressSettings {
                        codec,
                        vbr_layout,
                        ..Default::default()
                    };
                    let blob = crate::compress(&clip, &s).unwrap();
                    let h = Header::parse(&blob).unwrap();
                    let want = if h.codec == crate::format::CodecId::Vbr {
                        crate::format::header::GROUPED_FORMAT_VERSION
                    } else {
                        FORMAT_VERSION
                    };
                    assert_eq!(
                        h.version, want,
                        "{joints} joints, {vbr_layout:?}, {codec:?}"
                    );
                }
            }
            for codec in [CodecChoice::Fixed, CodecChoice::Keys] {
                let s = CompressSettings {
                    codec,
                    ..Default::default()
                };
                assert_eq!(
                    version(&crate::compress(&clip, &s).unwrap()),
                    FORMAT_VERSION
                );
            }
        }
        let mut curves_only = generate_clip(&GenerateOptions {
            joints: 1,
            samples: 20,
            ..Default::default()
        });
        curves_only.skeleton.joints.clear();
        curves_only.tracks.clear();
        curves_only.skeleton.bind_pose = None;
        let curve = Curve::new("c", 0, (0..20).map(|i| i as f32 * 0.1).collect());
        let s = CompressSettings {
            codec: CodecChoice::Vbr,
            vbr_layout: VbrLayout::Grouped,
            ..Default::default()
        };
        let blob = compress_with_curves(&curves_only, &[curve], &s).unwrap();
        assert_eq!(version(&blob), FORMAT_VERSION);
    }
}
