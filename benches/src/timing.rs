//! Timing primitives shared by the runtime benchmarks (`ab_runtime`, `animcomp bench`'s runtime
//! figures): the same random sample times for every library, a cache flush between cold passes,
//! batched timings for calls too short for the clock, and interleaved rounds.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Sample times per clip of the warm measurements (ACL's and the peers' figure).
pub const WARM_TIMES: usize = 1000;

/// Seed of [`random_times`] used by every runtime benchmark.
pub const TIMES_SEED: u64 = 0x5eed_a11c_0de5_0001;

/// Bytes written between two cold passes (ACL's benchmark style: L1, L2 and TLB cold).
pub const FLUSH_BYTES: usize = 32 << 20;

/// `n` pseudo-random times uniform in `[0, duration]`, the same for a given `seed` on every
/// machine (splitmix64), so every library samples the same poses.
pub fn random_times(duration: f32, n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            let u = (z >> 40) as f32 / (1u64 << 24) as f32;
            (u * duration).min(duration)
        })
        .collect()
}

/// A buffer written in full between cold passes, evicting the blobs from the caches.
pub struct CacheFlusher {
    buf: Vec<u8>,
    round: u8,
}

impl CacheFlusher {
    /// A flusher writing `bytes` bytes per flush (use [`FLUSH_BYTES`]).
    pub fn new(bytes: usize) -> Self {
        CacheFlusher {
            buf: vec![0; bytes.max(1)],
            round: 0,
        }
    }

    /// Writes the whole buffer (a different byte each time, so no write can be skipped).
    pub fn flush(&mut self) {
        self.round = self.round.wrapping_add(1);
        self.buf.fill(self.round);
        black_box(&mut self.buf);
    }
}

/// Median of `v` (0 when empty; mean of the two middle values for even lengths).
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        0.5 * (v[m - 1] + v[m])
    }
}

/// Nanoseconds per call of `f` over `calls` calls timed as one batch.
pub fn time_batch(calls: usize, f: &mut dyn FnMut()) -> f64 {
    let calls = calls.max(1);
    let t0 = Instant::now();
    for _ in 0..calls {
        f();
    }
    t0.elapsed().as_nanos() as f64 / calls as f64
}

/// How many calls of `f` fill `target` (at least 1): doubles a trial batch until it takes
/// `target / 4` or more, then scales. Calls `f` about as long as `target` in all.
pub fn calibrate(target: Duration, f: &mut dyn FnMut()) -> usize {
    let want = target.as_nanos() as f64;
    let mut n = 1usize;
    loop {
        let per = time_batch(n, f);
        let total = per * n as f64;
        if total >= want / 4.0 || n >= 1 << 24 {
            return ((want / per.max(0.1)) as usize).clamp(1, 1 << 26);
        }
        n *= 2;
    }
}

/// Runs `rounds` rounds of every variant (each call returns one figure, e.g. ns per pose of one
/// pass), interleaved: one call of each variant per round, forward order on even rounds and
/// backward on odd ones, so a slow spell of a shared machine and the position in a round weigh
/// on every variant alike. Returns the figures per variant, in round order.
pub fn interleave(rounds: usize, variants: &mut [&mut dyn FnMut() -> f64]) -> Vec<Vec<f64>> {
    let mut out = vec![Vec::with_capacity(rounds); variants.len()];
    for r in 0..rounds {
        let n = variants.len();
        for k in 0..n {
            let i = if r % 2 == 0 { k } else { n - 1 - k };
            out[i].push(variants[i]());
        }
    }
    out
}

/// Poses per separately timed chunk of a warm pass.
pub const WARM_CHUNK: usize = 50;

/// Nanoseconds per pose of one warm pass: `pose(t)` at every time of `times`, in a row. The pass
/// is timed in chunks of [`WARM_CHUNK`] poses and the figure is the median chunk's ns per pose,
/// so a chunk the shared machine preempted is dropped instead of inflating the pass.
pub fn warm_pass(times: &[f32], pose: &mut dyn FnMut(f32)) -> f64 {
    let mut chunks = Vec::with_capacity(times.len().div_ceil(WARM_CHUNK));
    for chunk in times.chunks(WARM_CHUNK) {
        let t0 = Instant::now();
        for &t in chunk {
            pose(black_box(t));
        }
        chunks.push(t0.elapsed().as_nanos() as f64 / chunk.len() as f64);
    }
    median(&mut chunks)
}

/// One cold pass: flushes the caches, then calls `pose(clip)` once per clip in order, timing
/// each call alone; adds each call's nanoseconds to `per_clip[clip]`.
pub fn cold_pass(
    flusher: &mut CacheFlusher,
    per_clip: &mut [Vec<f64>],
    pose: &mut dyn FnMut(usize),
) {
    flusher.flush();
    for (c, v) in per_clip.iter_mut().enumerate() {
        let t0 = Instant::now();
        pose(c);
        v.push(t0.elapsed().as_nanos() as f64);
    }
}

/// Nanoseconds to copy a raw pose of `floats` floats (`memcpy`, source and destination hot), the
/// physical floor of sampling a pose: the median over `rounds` batches of `calls` copies.
pub fn memcpy_floor(floats: usize, calls: usize, rounds: usize) -> f64 {
    let src: Vec<f32> = (0..floats).map(|i| i as f32).collect();
    let mut dst = vec![0.0f32; floats];
    let mut v: Vec<f64> = (0..rounds.max(1))
        .map(|_| {
            time_batch(calls, &mut || {
                dst.copy_from_slice(black_box(&src));
                black_box(&mut dst);
            })
        })
        .collect();
    median(&mut v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_reproducible_and_in_range() {
        let a = random_times(2.5, 1000, TIMES_SEED);
        assert_eq!(a, random_times(2.5, 1000, TIMES_SEED));
        assert_ne!(a, random_times(2.5, 1000, TIMES_SEED + 1));
        assert!(a.iter().all(|&t| (0.0..=2.5).contains(&t)));
        let mean = a.iter().sum::<f32>() / a.len() as f32;
        assert!((mean - 1.25).abs() < 0.15, "mean {mean}");
        assert!(random_times(0.0, 3, 1).iter().all(|&t| t == 0.0));
    }

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut [4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&mut []), 0.0);
    }

    #[test]
    fn interleave_alternates_order() {
        let log = std::cell::RefCell::new(Vec::new());
        let mut a = || {
            log.borrow_mut().push('a');
            1.0
        };
        let mut b = || {
            log.borrow_mut().push('b');
            2.0
        };
        let out = interleave(3, &mut [&mut a, &mut b]);
        assert_eq!(out, vec![vec![1.0; 3], vec![2.0; 3]]);
        assert_eq!(log.into_inner(), vec!['a', 'b', 'b', 'a', 'a', 'b']);
    }

    #[test]
    fn calibrate_fills_the_target() {
        let mut x = 0u64;
        let mut f = || {
            for i in 0..100u64 {
                x = black_box(x.wrapping_add(i));
            }
        };
        let n = calibrate(Duration::from_micros(200), &mut f);
        assert!(n > 1, "100 additions take far less than 200 us");
        let mut slow = || std::thread::sleep(Duration::from_millis(1));
        assert_eq!(calibrate(Duration::from_micros(100), &mut slow), 1);
    }

    #[test]
    fn cold_pass_times_every_clip() {
        let mut flusher = CacheFlusher::new(4096);
        let mut per_clip = vec![Vec::new(); 3];
        let mut seen = Vec::new();
        cold_pass(&mut flusher, &mut per_clip, &mut |c| seen.push(c));
        assert_eq!(seen, vec![0, 1, 2]);
        assert!(per_clip.iter().all(|v| v.len() == 1));
        assert!(memcpy_floor(1000, 100, 3) > 0.0);
    }

    #[test]
    fn warm_pass_visits_every_time_in_order() {
        let times: Vec<f32> = (0..123).map(|i| i as f32).collect();
        let mut seen = Vec::new();
        let ns = warm_pass(&times, &mut |t| seen.push(t));
        assert_eq!(seen, times);
        assert!(ns >= 0.0);
    }
}
