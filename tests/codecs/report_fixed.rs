//! The figures quoted in `docs/formats.md`: blob size and max error of one generated clip
//! (60 joints, 300 samples, 30 Hz, chains up to 12, seed 1, no scale) for every rotation format.
//! Run with `--nocapture` to see the table. Asserts that sizes follow the formats' bit counts
//! and errors stay within the derived bounds.

use crate::support_fixed;

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::format::quantize::{RotationFormat, VectorFormat};
use animcomp::{CodecChoice, CompressSettings};
use support_fixed::{channel_bounds, propagated_bounds, roundtrip};

#[test]
fn size_and_error_table() {
    // Under qemu (.ci/cross.sh) 150 samples instead of 300: every format still measured.
    let clip = generate_clip(&GenerateOptions {
        joints: 60,
        samples: if crate::emulated::emulated() {
            150
        } else {
            300
        },
        sample_rate: 30.0,
        max_depth: 12,
        ..Default::default()
    });
    println!("raw size {} bytes", clip.raw_size_bytes());
    for tf in [VectorFormat::RangeReduced48, VectorFormat::Float96] {
        println!("| rotation format | translation | bits/rot | blob bytes | ratio | max error | bound at worst joint |");
        println!("|---|---|---|---|---|---|---|");
        let mut rows = Vec::new();
        for rf in RotationFormat::ALL {
            let s = CompressSettings {
                codec: CodecChoice::Fixed,
                rotation_format: rf,
                translation_format: tf,
                ..Default::default()
            };
            let (blob, stats) = roundtrip(&clip, &s);
            let bounds = propagated_bounds(&clip, &channel_bounds(&clip, &s, &blob));
            let b = bounds[stats.worst_joint];
            assert!(stats.per_joint_max.iter().zip(&bounds).all(|(e, b)| e <= b));
            println!(
                "| {} | {} | {} | {} | {:.2} | {:.5} | {:.5} |",
                rf.name(),
                tf.name(),
                rf.bits_per_sample(),
                blob.len(),
                clip.raw_size_bytes() as f64 / blob.len() as f64,
                stats.max_error,
                b
            );
            rows.push((rf.bits_per_sample(), blob.len()));
        }
        // More bits per rotation never gives a smaller blob (same tracks are animated).
        for x in &rows {
            for y in &rows {
                if x.0 < y.0 {
                    assert!(x.1 < y.1, "{x:?} vs {y:?}");
                }
            }
        }
    }
}
