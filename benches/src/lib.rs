//! Shared helpers for animcomp benchmarks and resource measurements.

pub mod capi;
pub mod timing;

/// Peak resident set size of this process so far, in bytes (`getrusage(RUSAGE_SELF).ru_maxrss`).
pub fn peak_rss_bytes() -> u64 {
    // SAFETY: getrusage only writes into the struct we pass.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    if r != 0 {
        return 0;
    }
    // Linux reports kilobytes.
    u.ru_maxrss as u64 * 1024
}

/// Current resident set size in bytes (from `/proc/self/statm`; 0 where unavailable).
pub fn current_rss_bytes() -> u64 {
    let Ok(s) = std::fs::read_to_string("/proc/self/statm") else {
        return 0;
    };
    let pages: u64 = s
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    pages * page.max(0) as u64
}

/// Generated rig `seed` (1 to 4 in the benchmarks) of `joints` joints: 300 samples at 30 Hz,
/// every joint rotating (the small rigs of `ab_runtime`'s `gen:` sets and `decode_profile
/// writegen`).
pub fn generated_rig(joints: usize, seed: u64) -> animcomp::clip::RawClip {
    animcomp::clip::generate_clip(&animcomp::clip::GenerateOptions {
        joints: joints.max(1),
        samples: 300,
        sample_rate: 30.0,
        seed,
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rss_grows_with_touched_memory() {
        let before = peak_rss_bytes();
        assert!(before > 0);
        let v = vec![1u8; 64 << 20];
        let touched: u64 = v.iter().step_by(4096).map(|&b| b as u64).sum();
        assert_eq!(touched, (64 << 20) / 4096);
        assert!(current_rss_bytes() >= 64 << 20);
        assert!(peak_rss_bytes() >= before.max(64 << 20));
    }
}
