//! Threads: one blob sampled from 8 threads at once gives bit-identical poses to one thread,
//! and compressions running at the same time give byte-identical blobs to sequential ones.

use animcomp::clip::{generate_clip, GenerateOptions, RawClip};
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::math::FLOATS_PER_JOINT;
use animcomp::{compress, AlignedBlob, CodecChoice, CompressSettings, Error};
use std::sync::Barrier;

const CODECS: [CodecChoice; 4] = [
    CodecChoice::Fixed,
    CodecChoice::Vbr,
    CodecChoice::Keys,
    CodecChoice::Auto,
];

fn clip() -> RawClip {
    generate_clip(&GenerateOptions {
        joints: 40,
        samples: 150,
        scale: true,
        animated_translation: true,
        seed: 11,
        ..Default::default()
    })
}

fn settings(codec: CodecChoice) -> CompressSettings {
    CompressSettings {
        codec,
        ..Default::default()
    }
}

/// Every pose of the clip at `times`, as raw bits, sampled with one decompressor.
fn sample_all(blob: &[u8], times: &[f32]) -> Vec<u32> {
    let mut d = Decompressor::new(blob, &DecompressOptions::default()).unwrap();
    let nj = d.num_joints();
    let mut pose = vec![0.0f32; nj * FLOATS_PER_JOINT];
    let mut out = Vec::with_capacity(times.len() * pose.len() * 2);
    for (k, &t) in times.iter().enumerate() {
        let looping = if k % 2 == 0 {
            Looping::Clamp
        } else {
            Looping::Wrap
        };
        d.seek(t, looping, Rounding::None).unwrap();
        d.sample_pose(&mut pose, FLOATS_PER_JOINT).unwrap();
        out.extend(pose.iter().map(|x| x.to_bits()));
        for j in (0..nj as u32).step_by(7) {
            let mut one = [0.0f32; FLOATS_PER_JOINT];
            d.sample_joint(j).unwrap().write_to(&mut one);
            out.extend(one.iter().map(|x| x.to_bits()));
        }
    }
    out
}

#[test]
fn eight_threads_sample_one_blob_identically() {
    let clip = clip();
    // Under qemu (.ci/cross.sh) 200 times twice as far apart (the same span).
    let (n, step) = if crate::emulated::emulated() {
        (200, 0.0262)
    } else {
        (400, 0.0131)
    };
    let times: Vec<f32> = (0..n).map(|i| i as f32 * step - 0.2).collect();
    let mut tested = 0;
    for codec in CODECS {
        let blob = match compress(&clip, &settings(codec)) {
            Ok(b) => AlignedBlob::from_bytes(&b),
            Err(Error::Unsupported(m)) => {
                println!("skipping {}: {m}", codec.name());
                continue;
            }
            Err(e) => panic!("{e}"),
        };
        let reference = sample_all(blob.as_bytes(), &times);
        let barrier = Barrier::new(8);
        let results: Vec<Vec<u32>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        barrier.wait();
                        // Several rounds so that the threads really overlap.
                        let mut last = Vec::new();
                        // Under qemu (.ci/cross.sh) one pass per thread instead of three: this
                        // test was 21 s of CPU there.
                        let passes = if crate::emulated::emulated() { 1 } else { 3 };
                        for _ in 0..passes {
                            last = sample_all(blob.as_bytes(), &times);
                        }
                        last
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("sampling thread panicked"))
                .collect()
        });
        for (t, r) in results.iter().enumerate() {
            assert!(
                r == &reference,
                "{}: thread {t} sampled different poses",
                codec.name()
            );
        }
        tested += 1;
    }
    println!("{tested} codecs sampled from 8 threads");
}

#[test]
fn concurrent_compressions_match_sequential_ones() {
    // Under qemu (docs/ci.md) clips of 45 samples instead of 90: the same pairings and codecs.
    let samples = if crate::emulated::emulated() { 45 } else { 90 };
    let clips: Vec<RawClip> = (0..2)
        .map(|k| {
            generate_clip(&GenerateOptions {
                joints: 25,
                samples,
                scale: k == 1,
                seed: 3 + k,
                ..Default::default()
            })
        })
        .collect();
    for codec in CODECS {
        let s = settings(codec);
        let sequential: Vec<_> = clips.iter().map(|c| compress(c, &s)).collect();
        if let Err(Error::Unsupported(m)) = &sequential[0] {
            println!("skipping {}: {m}", codec.name());
            continue;
        }
        // Two at once, twice (each clip once per pair, then the same clip twice at once).
        for pairing in [[0usize, 1], [0, 0], [1, 1]] {
            let barrier = Barrier::new(2);
            let concurrent: Vec<_> = std::thread::scope(|sc| {
                let hs: Vec<_> = pairing
                    .iter()
                    .map(|&k| {
                        let (c, b) = (&clips[k], &barrier);
                        sc.spawn(move || {
                            b.wait();
                            compress(c, &s)
                        })
                    })
                    .collect();
                hs.into_iter()
                    .map(|h| h.join().expect("compress thread panicked"))
                    .collect()
            });
            for (i, &k) in pairing.iter().enumerate() {
                assert_eq!(
                    concurrent[i].as_ref().unwrap(),
                    sequential[k].as_ref().unwrap(),
                    "{}: concurrent compression of clip {k} differs from the sequential one",
                    codec.name()
                );
            }
        }
    }
}
