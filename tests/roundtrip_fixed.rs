//! Round trips through the `fixed` codec (first version: measured error is sane).

use animcomp::clip::{generate_clip, GenerateOptions, RawClip};
use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::math::Transform;
use animcomp::metric::{ErrorStats, Metric};
use animcomp::quantize::{RotationFormat, VectorFormat};
use animcomp::{compress, AlignedBlob, CodecChoice, CompressSettings};

fn roundtrip(clip: &RawClip, s: &CompressSettings) -> (usize, ErrorStats) {
    let blob = AlignedBlob::from_bytes(&compress(clip, s).expect("compress"));
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).expect("init");
    let metric = Metric::new(clip);
    let stats = metric.measure(|i, out: &mut [Transform]| d.pose_at_sample(i as u32, out).unwrap());
    (blob.len(), stats)
}

#[test]
fn every_rotation_format_roundtrips() {
    let clip = generate_clip(&GenerateOptions {
        joints: 60,
        samples: 300,
        max_depth: 12,
        ..Default::default()
    });
    for rf in RotationFormat::ALL {
        let s = CompressSettings {
            codec: CodecChoice::Fixed,
            rotation_format: rf,
            translation_format: VectorFormat::RangeReduced48,
            ..Default::default()
        };
        let (size, stats) = roundtrip(&clip, &s);
        println!(
            "{:24} {:8} bytes  max {:.5}",
            rf.name(),
            size,
            stats.max_error
        );
        assert!(stats.max_error < 1.0);
    }
}
