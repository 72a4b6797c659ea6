//! Mutated blobs through the C API with the checksum check off: init either rejects the blob with
//! a blob status or accepts it, and then seeking and sampling never panic (a caught panic would
//! show as `ANIMCOMP_STATUS_INTERNAL`) and never write outside the output buffer.

use std::ptr::null;

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::ffi::*;
use animcomp::format::quantize::{RotationFormat, VectorFormat};
use animcomp::{AlignedBlob, CodecChoice, CompressSettings, Status};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn blobs() -> Vec<Vec<u8>> {
    let clip = generate_clip(&GenerateOptions {
        joints: 11,
        samples: 23,
        scale: true,
        ..Default::default()
    });
    [
        RotationFormat::Float128,
        RotationFormat::IntervalFixed32NoW,
        RotationFormat::SmallestThree48,
    ]
    .into_iter()
    .zip([
        VectorFormat::Float96,
        VectorFormat::RangeReduced32,
        VectorFormat::RangeReduced48,
    ])
    .map(|(rf, vf)| {
        let s = CompressSettings {
            codec: CodecChoice::Fixed,
            rotation_format: rf,
            translation_format: vf,
            scale_format: vf,
            ..Default::default()
        };
        animcomp::compress(&clip, &s).unwrap()
    })
    .collect()
}

#[test]
fn mutated_blobs_never_panic_through_the_c_api() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let opts = AnimcompDecompressOptions {
        verify_checksum: 0,
        reserved0: 0,
        bind_pose: null(),
        bind_pose_len: 0,
        reserved: [0; 1],
    };
    let (mut accepted, mut rejected) = (0, 0);
    for original in blobs() {
        for case in 0..1500 {
            let mut bytes = original.clone();
            match case % 4 {
                0 => {
                    // Flip 1 to 4 bits anywhere.
                    for _ in 0..1 + rng.below(4) {
                        let at = rng.below(bytes.len());
                        bytes[at] ^= 1 << rng.below(8);
                    }
                }
                1 => {
                    // Overwrite one 32-bit word of the body (offsets, counts) with a random value.
                    let at = 64 + rng.below((bytes.len() - 64) / 4) * 4;
                    let v = match rng.below(3) {
                        0 => rng.next() as u32,
                        1 => u32::MAX - rng.below(4) as u32,
                        _ => rng.below(256) as u32,
                    };
                    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
                }
                2 => {
                    // Truncate, keeping the header's total size (so only the body shrinks).
                    let keep = 64 + rng.below(bytes.len() - 64);
                    bytes.truncate(keep / 16 * 16);
                    let total = (bytes.len() as u32).to_le_bytes();
                    if bytes.len() >= 64 {
                        bytes[8..12].copy_from_slice(&total);
                        let body = (bytes.len() as u32 - 64).to_le_bytes();
                        bytes[36..40].copy_from_slice(&body);
                    }
                }
                _ => {
                    // Swap two random bytes.
                    let (a, b) = (rng.below(bytes.len()), rng.below(bytes.len()));
                    bytes.swap(a, b);
                }
            }
            let blob = AlignedBlob::from_bytes(&bytes);
            let mut ctx = AnimcompDecompressor { opaque: [0; 16] };
            let st = unsafe {
                animcomp_decompressor_init(
                    &mut ctx,
                    blob.as_bytes().as_ptr().cast(),
                    blob.len(),
                    &opts,
                )
            };
            assert_ne!(st, Status::Internal, "init panicked on case {case}");
            if st != Status::Ok {
                rejected += 1;
                continue;
            }
            accepted += 1;
            let mut info = AnimcompBlobInfo::default();
            assert_eq!(
                unsafe { animcomp_decompressor_info(&ctx, &mut info) },
                Status::Ok
            );
            let n = info.num_joints as usize;
            // Guard floats after the pose catch any write past the length given.
            let mut pose = vec![0f32; n * 10 + 8];
            for t in [0.0f32, 0.37, 1e9, -5.0] {
                for (looping, rounding) in [(0, 0), (1, 0), (1, 3)] {
                    assert_eq!(
                        unsafe { animcomp_seek(&mut ctx, t, looping, rounding) },
                        Status::Ok
                    );
                    pose[n * 10..].fill(-123.0);
                    let st = unsafe { animcomp_sample_pose(&ctx, pose.as_mut_ptr(), n * 10, 10) };
                    assert_eq!(st, Status::Ok, "sample_pose on case {case}");
                    assert!(
                        pose[n * 10..].iter().all(|&v| v == -123.0),
                        "write past the pose"
                    );
                    let mut one = [0f32; 10];
                    let j = (case % n.max(1)) as u32;
                    assert_eq!(
                        unsafe { animcomp_sample_joint(&ctx, j, one.as_mut_ptr()) },
                        Status::Ok
                    );
                }
            }
        }
    }
    println!("mutated blobs: {accepted} accepted and sampled, {rejected} rejected");
    assert!(rejected > 0);
}
