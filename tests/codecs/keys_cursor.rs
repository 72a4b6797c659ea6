//! The playback cursor: forward playback reads the stream exactly once, front to back; forward,
//! backward and random sampling give the same poses as the stateless decompressor.

use animcomp::clip::{generate_clip, GenerateOptions};
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::runtime::{cursor_state_size, KeyCursor};
use animcomp::{compress, AlignedBlob, CodecChoice, CompressSettings};

fn blob(seed: u64, scale: bool) -> AlignedBlob {
    let clip = generate_clip(&GenerateOptions {
        joints: 40,
        samples: 150,
        sample_rate: 60.0,
        max_depth: 10,
        scale,
        animated_translation: scale,
        seed,
        ..Default::default()
    });
    AlignedBlob::from_bytes(
        &compress(
            &clip,
            &CompressSettings {
                codec: CodecChoice::Keys,
                ..Default::default()
            },
        )
        .unwrap(),
    )
}

fn stateless(d: &mut Decompressor, time: f32, looping: Looping) -> Vec<f32> {
    d.seek(time, looping, Rounding::None).unwrap();
    let mut out = vec![0.0; d.num_joints() * 10];
    d.sample_pose(&mut out, 10).unwrap();
    out
}

fn cursor_pose(c: &mut KeyCursor, time: f32, looping: Looping) -> Vec<f32> {
    c.seek(time, looping, Rounding::None).unwrap();
    let mut out = vec![0.0; c.header().num_joints as usize * 10];
    c.sample_pose(&mut out, 10).unwrap();
    out
}

#[test]
fn forward_playback_reads_stream_once_and_matches_stateless() {
    for (seed, scale) in [(1, false), (2, true)] {
        let b = blob(seed, scale);
        let opts = DecompressOptions::default();
        let mut d = Decompressor::new(b.as_bytes(), &opts).unwrap();
        let mut state = vec![0u32; cursor_state_size(d.header())];
        let mut c = KeyCursor::new(b.as_bytes(), &opts, &mut state).unwrap();
        let duration = d.header().duration();
        let mut last_read = c.read_position();
        let mut t = 0.0f32;
        while t <= duration {
            let a = cursor_pose(&mut c, t, Looping::Clamp);
            assert!(
                c.read_position() >= last_read,
                "cursor moved backwards in the stream"
            );
            last_read = c.read_position();
            assert_eq!(a, stateless(&mut d, t, Looping::Clamp), "t = {t}");
            t += 1.0 / 144.0; // not a multiple of the sample period
        }
        let _ = cursor_pose(&mut c, duration, Looping::Clamp);
        // Every stream entry was read exactly once by forward playback, and nothing was rebuilt.
        assert_eq!(c.rebuilds(), 0);
        let keys = c.read_position();
        assert_eq!(c.entries_read() as usize, keys);
        assert!(keys > 0);
    }
}

#[test]
fn backward_and_random_sampling_match_stateless() {
    let b = blob(3, true);
    let opts = DecompressOptions::default();
    let mut d = Decompressor::new(b.as_bytes(), &opts).unwrap();
    let mut state = vec![0u32; cursor_state_size(d.header())];
    let mut c = KeyCursor::new(b.as_bytes(), &opts, &mut state).unwrap();
    let duration = d.header().duration();
    // Backward.
    let mut t = duration;
    while t >= 0.0 {
        assert_eq!(
            cursor_pose(&mut c, t, Looping::Clamp),
            stateless(&mut d, t, Looping::Clamp),
            "t = {t}"
        );
        t -= 0.037;
    }
    // Pseudo-random, with wrapping past the end.
    let mut x = 12345u32;
    for _ in 0..200 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        let t = (x >> 8) as f32 / (1u32 << 24) as f32 * duration * 1.3;
        let looping = if x & 1 == 0 {
            Looping::Clamp
        } else {
            Looping::Wrap
        };
        assert_eq!(
            cursor_pose(&mut c, t, looping),
            stateless(&mut d, t, looping),
            "t = {t}"
        );
    }
    assert!(c.rebuilds() > 0);
}

#[test]
fn cursor_rejects_small_state_and_other_codecs() {
    let b = blob(4, false);
    let opts = DecompressOptions::default();
    let d = Decompressor::new(b.as_bytes(), &opts).unwrap();
    let n = cursor_state_size(d.header());
    let mut small = vec![0u32; n - 1];
    assert!(KeyCursor::new(b.as_bytes(), &opts, &mut small).is_err());
}

#[test]
fn resumed_state_continues_and_garbage_state_is_safe() {
    let b = blob(7, false);
    let opts = DecompressOptions::default();
    let mut d = Decompressor::new(b.as_bytes(), &opts).unwrap();
    let mut state = vec![0u32; cursor_state_size(d.header())];
    assert!(matches!(
        KeyCursor::resume(b.as_bytes(), &opts, &mut state),
        Err(animcomp::Error::NotInitialized)
    ));
    {
        let mut c = KeyCursor::new(b.as_bytes(), &opts, &mut state).unwrap();
        let _ = cursor_pose(&mut c, 0.5, Looping::Clamp);
    }
    // A C caller keeps only the buffer between calls.
    for t in [0.6f32, 0.9, 1.2, 0.3] {
        let mut c = KeyCursor::resume(b.as_bytes(), &opts, &mut state).unwrap();
        assert_eq!(
            cursor_pose(&mut c, t, Looping::Clamp),
            stateless(&mut d, t, Looping::Clamp)
        );
    }
    // Garbage state: wrong poses are allowed, panics and out-of-bounds reads are not.
    let mut x = 99u32;
    for round in 0..200 {
        for w in state.iter_mut().skip(1) {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            *w = if round % 2 == 0 { x } else { x % 8 };
        }
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut c = KeyCursor::resume(b.as_bytes(), &opts, &mut state).unwrap();
            let mut out = vec![0.0; c.header().num_joints as usize * 10];
            c.sample_pose(&mut out, 10).unwrap();
            c.seek(0.7, Looping::Wrap, Rounding::None).unwrap();
            c.sample_pose(&mut out, 10).unwrap();
        }));
        assert!(r.is_ok(), "round {round}: garbage state panicked");
    }
}

#[test]
fn single_joint_sampling_matches_pose_sampling() {
    let b = blob(8, true);
    let opts = DecompressOptions::default();
    let mut d = Decompressor::new(b.as_bytes(), &opts).unwrap();
    let mut state = vec![0u32; cursor_state_size(d.header())];
    let mut c = KeyCursor::new(b.as_bytes(), &opts, &mut state).unwrap();
    for t in [0.0f32, 0.31, 1.7, 2.45] {
        let pose = stateless(&mut d, t, Looping::Wrap);
        let cpose = cursor_pose(&mut c, t, Looping::Wrap);
        for j in 0..d.num_joints() as u32 {
            let mut a = [0.0f32; 10];
            d.sample_joint(j).unwrap().write_to(&mut a);
            let mut b = [0.0f32; 10];
            c.sample_joint(j).unwrap().write_to(&mut b);
            let o = j as usize * 10;
            assert_eq!(&a[..], &pose[o..o + 10], "stateless joint {j} at {t}");
            assert_eq!(&b[..], &cpose[o..o + 10], "cursor joint {j} at {t}");
        }
    }
    assert!(d.sample_joint(d.num_joints() as u32).is_err());
    assert!(c.sample_joint(d.num_joints() as u32).is_err());
}

/// Finding 8 (docs/robustness.md): a seek that rebuilds the cursor (a forward jump of more than
/// `REBUILD_DISTANCE` samples) into the wrap span between the last sample and the first lost the
/// sample key, so the cursor skipped the blend towards the first sample.
#[test]
fn rebuild_into_the_wrap_span_keeps_the_blend() {
    let clip = generate_clip(&GenerateOptions {
        joints: 12,
        samples: 400,
        sample_rate: 60.0,
        max_depth: 6,
        scale: true,
        animated_translation: true,
        seed: 11,
        ..Default::default()
    });
    let settings = CompressSettings {
        codec: CodecChoice::Keys,
        ..Default::default()
    };
    let b = AlignedBlob::from_bytes(&compress(&clip, &settings).unwrap());
    let opts = DecompressOptions::default();
    let mut d = Decompressor::new(b.as_bytes(), &opts).unwrap();
    let mut state = vec![0u32; cursor_state_size(d.header())];
    let mut c = KeyCursor::new(b.as_bytes(), &opts, &mut state).unwrap();
    let wrap_times = [399.5f32 / 60.0, -0.25 / 60.0, 399.9 / 60.0];
    for t in wrap_times {
        let _ = cursor_pose(&mut c, 0.0, Looping::Clamp);
        let rebuilds = c.rebuilds();
        let a = cursor_pose(&mut c, t, Looping::Wrap);
        assert_eq!(c.rebuilds(), rebuilds + 1, "t = {t}: the jump must rebuild");
        let key = c.key();
        assert_eq!(
            (key.i0, key.i1),
            (399, 0),
            "t = {t}: the sample key survives"
        );
        assert_eq!(a, stateless(&mut d, t, Looping::Wrap), "t = {t}");
    }
}
