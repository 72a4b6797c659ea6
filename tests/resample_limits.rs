//! `RawClip::resample` checks `MAX_SAMPLES` on the sample count before it allocates anything for
//! the resampled tracks (issue 23: `--resample 100000000` allocated 24 GB before the library's
//! limit was checked). A counting allocator measures the bytes the refused call allocates; its
//! own binary, so that no other test's allocations are counted.
#![cfg(feature = "compress")]

use animcomp::clip::{generate_clip, GenerateOptions, MAX_SAMPLES};
use animcomp::Error;
#[path = "support/counting_alloc.rs"]
mod counting_alloc;

#[global_allocator]
static ALLOC: counting_alloc::Counting = counting_alloc::Counting;

/// Bytes allocated (by any thread: this binary runs one test) while `f` runs.
fn allocated<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let (r, bytes, _) = counting_alloc::allocated(f);
    (r, bytes)
}

#[test]
fn too_many_samples_is_refused_before_allocating() {
    // 64 joints x 2 samples at 1 Hz: a second long, so `rate` Hz gives floor(rate) + 1 samples.
    let clip = generate_clip(&GenerateOptions {
        joints: 64,
        samples: 2,
        sample_rate: 1.0,
        ..Default::default()
    });
    // One sample over the limit (16,777,217 x 64 joints x 40 bytes = 43 GB of tracks), a rate a
    // user typed (1e8 Hz), and one whose sample count is not even a finite number of bytes.
    for (rate, want) in [
        (MAX_SAMPLES as f32, MAX_SAMPLES + 1),
        (1.0e8, 100_000_001),
        (f32::MAX, usize::MAX),
    ] {
        let (r, bytes) = allocated(|| clip.resample(rate));
        match r {
            Err(Error::TooManySamples(n)) => assert_eq!(n, want, "{rate} Hz"),
            other => panic!("{rate} Hz: {:?}", other.map(|c| c.num_samples)),
        }
        assert!(
            bytes < 4096,
            "refusing {rate} Hz allocated {bytes} bytes first"
        );
    }
    // At the limit's side that fits, the same clip resamples (a small count, so the test stays
    // small), allocating what the tracks need.
    let (r, bytes) = allocated(|| clip.resample(1000.0));
    let c = r.unwrap();
    assert_eq!(c.num_samples, 1001);
    assert!(bytes >= 64 * 1001 * 40, "{bytes}");
}
