//! Hostile keys bodies: with the checksum check off, every mutated blob is either rejected by
//! validation or decodes (stateless and through the cursor) without panicking.

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::runtime::{cursor_state_size, KeyCursor};
use animcomp::{compress, AlignedBlob, CodecChoice, CompressSettings};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::reseal::reseal;

const HEADER: usize = 64;

fn sample_everything(bytes: &[u8]) -> bool {
    let opts = DecompressOptions {
        verify_checksum: false,
        ..Default::default()
    };
    let Ok(mut d) = Decompressor::new(bytes, &opts) else {
        return false;
    };
    let nj = d.num_joints();
    let mut pose = vec![0.0f32; nj * 10];
    let dur = d.header().duration();
    for i in 0..6 {
        let t = dur * i as f32 / 5.0 + 0.013;
        d.seek(t, Looping::Wrap, Rounding::None).unwrap();
        d.sample_pose(&mut pose, 10).unwrap();
        let _ = d.sample_joint((i as u32 * 7) % nj as u32).unwrap();
    }
    let mut state = vec![0u32; cursor_state_size(d.header())];
    let mut c = KeyCursor::new(bytes, &opts, &mut state).unwrap();
    for i in 0..12 {
        c.seek(dur * i as f32 / 8.0, Looping::Clamp, Rounding::None)
            .unwrap();
        c.sample_pose(&mut pose, 10).unwrap();
    }
    c.seek(0.0, Looping::Clamp, Rounding::None).unwrap();
    c.sample_pose(&mut pose, 10).unwrap();
    true
}

#[test]
fn mutated_bodies_never_panic() {
    for (seed, scale) in [(5u64, false), (6, true)] {
        let clip = generate_clip(&GenerateOptions {
            joints: 12,
            samples: 70,
            sample_rate: 60.0,
            scale,
            seed,
            ..Default::default()
        });
        let blob = compress(
            &clip,
            &CompressSettings {
                codec: CodecChoice::Keys,
                ..Default::default()
            },
        )
        .unwrap();
        let original = AlignedBlob::from_bytes(&blob);
        assert!(
            sample_everything(original.as_bytes()),
            "the unmodified blob must decode"
        );
        let body_len = blob.len() - HEADER;
        let mut rng = 0x1234_5678_9abc_def0u64 ^ seed;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let (mut accepted, mut rejected) = (0, 0);
        // Under qemu (.ci/cross.sh) a third of the rounds: this sweep was 3 s of CPU there, and
        // what it checks (bounds and refusals of the keys body) is the same on every CPU.
        let rounds = if crate::emulated::emulated() {
            1000
        } else {
            3000
        };
        for round in 0..rounds {
            let mut m = original.clone();
            let bytes = m.as_bytes_mut();
            let edits = 1 + (round % 4);
            for _ in 0..edits {
                let r = next();
                // Bias towards the body's header and slot table, where counts and offsets live.
                let span = if r & 1 == 0 {
                    body_len.min(16 + 12 * 40)
                } else {
                    body_len
                };
                let at = HEADER + (r >> 8) as usize % span;
                bytes[at] = match (r >> 4) & 3 {
                    0 => bytes[at] ^ (1 << ((r >> 40) & 7)),
                    1 => 0xFF,
                    2 => 0,
                    _ => (r >> 48) as u8,
                };
            }
            let result = catch_unwind(AssertUnwindSafe(|| sample_everything(m.as_bytes())));
            match result {
                Ok(true) => accepted += 1,
                Ok(false) => rejected += 1,
                Err(_) => panic!("round {round}: decoding a mutated body panicked"),
            }
        }
        println!("seed {seed}: {accepted} mutated bodies decoded safely, {rejected} rejected");
        assert!(rejected > 100, "validation should reject many mutations");
    }
}

#[test]
fn truncated_bodies_are_rejected() {
    let clip = generate_clip(&GenerateOptions {
        joints: 8,
        samples: 40,
        ..Default::default()
    });
    let blob = compress(
        &clip,
        &CompressSettings {
            codec: CodecChoice::Keys,
            ..Default::default()
        },
    )
    .unwrap();
    let body_size = u32::from_le_bytes(blob[36..40].try_into().unwrap()) as usize;
    for cut in [0usize, 4, 16, body_size / 2] {
        let mut b = blob.clone();
        b[36..40].copy_from_slice(&(cut as u32).to_le_bytes());
        let a = AlignedBlob::from_bytes(&b);
        let opts = DecompressOptions {
            verify_checksum: false,
            ..Default::default()
        };
        assert!(
            Decompressor::new(a.as_bytes(), &opts).is_err(),
            "body cut to {cut} bytes accepted"
        );
    }
}

/// Plays `bytes` forward through the cursor and compares every pose with stateless sampling at
/// the same time, bit for bit; the validation error when the blob does not validate (checksum
/// verified).
fn cursor_agrees(bytes: &[u8]) -> Result<bool, animcomp::Error> {
    let opts = DecompressOptions::default();
    let mut d = Decompressor::new(bytes, &opts)?;
    let nj = d.num_joints();
    let mut state = vec![0u32; cursor_state_size(d.header())];
    let mut c = KeyCursor::new(bytes, &opts, &mut state).unwrap();
    let (mut a, mut b) = (vec![0f32; nj * 10], vec![0f32; nj * 10]);
    let n = d.header().num_samples as usize;
    let rate = d.header().sample_rate;
    for i in 0..4 * n {
        let t = i as f32 * 0.25 / rate;
        d.seek(t, Looping::Clamp, Rounding::None).unwrap();
        d.sample_pose(&mut a, 10).unwrap();
        c.seek(t, Looping::Clamp, Rounding::None).unwrap();
        c.sample_pose(&mut b, 10).unwrap();
        if a.iter().zip(&b).any(|(x, y)| x.to_bits() != y.to_bits()) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The stream order is validated against each slot's interpolation: flipping one slot's
/// interpolation bit (checksum re-sealed) either fails validation or leaves a blob on which the
/// cursor and stateless sampling agree at every time.
#[test]
fn flipped_interpolation_bits_are_rejected_or_agree() {
    use animcomp::format::keys::layout::{Kind, Layout, BODY_HEADER, SLOT_SIZE};
    let clip = generate_clip(&GenerateOptions {
        joints: 20,
        samples: 120,
        sample_rate: 60.0,
        scale: true,
        seed: 17,
        ..Default::default()
    });
    let settings = CompressSettings {
        codec: CodecChoice::Keys,
        ..Default::default()
    };
    let original = AlignedBlob::from_bytes(&compress(&clip, &settings).unwrap());
    assert_eq!(cursor_agrees(original.as_bytes()), Ok(true));
    let body = &original.as_bytes()[HEADER..];
    let lay = Layout::read(body);
    let (mut rejected, mut agreed) = (0, 0);
    for s in 0..lay.slots {
        if lay.slot(body, s).kind != Kind::Animated {
            continue;
        }
        let mut m = original.clone();
        let bytes = m.as_bytes_mut();
        bytes[HEADER + BODY_HEADER + s * SLOT_SIZE] ^= 4;
        reseal(bytes);
        match cursor_agrees(m.as_bytes()) {
            Err(e) => {
                let order =
                    animcomp::Error::CorruptBlob("keys body: key stream not in playback order");
                assert_eq!(e, order, "slot {s}");
                rejected += 1;
            }
            Ok(true) => agreed += 1,
            Ok(false) => panic!("slot {s}: flipped interpolation validates, cursor disagrees"),
        }
    }
    println!("{rejected} flips rejected, {agreed} validated and agree");
    assert!(rejected > 0, "some flips must break the playback order");
}
