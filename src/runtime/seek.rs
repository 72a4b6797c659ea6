//! Time to sample position: looping and rounding policies.

use crate::format::{BlobFlags, Header};
use crate::runtime::SampleKey;
use crate::{Error, Result};

/// What happens to times outside the clip.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Looping {
    /// Times are clamped to `[0, duration]`.
    Clamp = 0,
    /// Times wrap with period `samples / rate`; the last sample interpolates towards the first.
    Wrap = 1,
}

impl Looping {
    /// From the integer id.
    pub fn from_u32(v: u32) -> Option<Self> {
        match v {
            0 => Some(Looping::Clamp),
            1 => Some(Looping::Wrap),
            _ => None,
        }
    }
}

/// How a time between two samples is resolved.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// Interpolate between the two samples.
    None = 0,
    /// Use the earlier sample.
    Floor = 1,
    /// Use the later sample.
    Ceil = 2,
    /// Use the nearer sample.
    Nearest = 3,
}

impl Rounding {
    /// From the integer id.
    pub fn from_u32(v: u32) -> Option<Self> {
        match v {
            0 => Some(Rounding::None),
            1 => Some(Rounding::Floor),
            2 => Some(Rounding::Ceil),
            3 => Some(Rounding::Nearest),
            _ => None,
        }
    }
}

/// Playable duration of a blob under clamping: `(samples - 1) / rate`, or `samples / rate` for a
/// blob whose repeated last sample was removed ([`BlobFlags::LOOPING`]).
pub fn clip_duration(h: &Header) -> f64 {
    let n = h.num_samples as f64;
    let rate = h.sample_rate as f64;
    if h.has(BlobFlags::LOOPING) {
        n / rate
    } else {
        (n - 1.0) / rate
    }
}

/// `t % period` for finite `t >= 0` and `period > 0`, bit for bit the library's `fmod` (and
/// `rem_euclid`, equal for such `t`) without its software loop, which looping playback called
/// on every frame after the second period: `t - q * period` with the period split in two halves
/// of 26 bits (Veltkamp), so that both products are exact for `q < 2^26`, and `t - q * hi` is
/// exact (Sterbenz: `q * hi` lies within `[t / 2, 2 t]` for `q >= 1`). Only the last subtraction
/// rounds, and the remainder (exactly representable) is what it gives. The quotient's estimate
/// `t / period` is the true floor or one more (its rounding can reach the next integer from
/// below, never fall to the one below); one more gives a negative remainder and is corrected.
fn rem_positive(t: f64, period: f64) -> f64 {
    let x = t / period;
    if !(1.0..(1u64 << 26) as f64).contains(&x) {
        return t % period;
    }
    // The truncation as a conversion (`f64::trunc` is a library call on x86-64's baseline).
    let q = x as i64 as f64;
    let c = 134_217_729.0 * period; // 2^27 + 1
    let hi = c - (c - period);
    let lo = period - hi;
    let r = (t - q * hi) - q * lo;
    let r = if r < 0.0 {
        let q = q - 1.0;
        (t - q * hi) - q * lo
    } else {
        r
    };
    if (0.0..period).contains(&r) {
        r
    } else {
        t % period
    }
}

/// Resolves `time` (seconds) into a [`SampleKey`].
#[inline(always)]
pub fn resolve(h: &Header, time: f32, looping: Looping, rounding: Rounding) -> Result<SampleKey> {
    if !time.is_finite() {
        return Err(Error::InvalidTime);
    }
    let n = h.num_samples as u64;
    let rate = h.sample_rate as f64;
    let loops = h.has(BlobFlags::LOOPING);
    let t = time as f64;
    let pos = match looping {
        Looping::Clamp => t.clamp(0.0, clip_duration(h)) * rate,
        Looping::Wrap => {
            let period = n as f64 / rate;
            // `rem_euclid` without the library's `fmod` (a software loop on x86-64, called on
            // every frame of looping playback) where the remainder is one exact step: a time
            // in the first period is its own remainder; in the second, `t - period` is exact
            // (Sterbenz: period <= t <= 2 period) and is what `fmod` returns; in the period
            // before 0, `fmod` returns `t` and `rem_euclid` adds the period, as here. Bit for
            // bit `rem_euclid` (test); other times pay for `fmod`.
            let r = if (0.0..period).contains(&t) {
                t
            } else if (period..2.0 * period).contains(&t) {
                t - period
            } else if (-period..0.0).contains(&t) {
                t + period
            } else if t >= 0.0 {
                rem_positive(t, period)
            } else {
                t.rem_euclid(period)
            };
            r * rate
        }
    };
    let wraps = loops || looping == Looping::Wrap;
    // `pos` is finite and not negative (clamped, or a Euclidean remainder), so the conversion's
    // truncation is its floor: `f64::floor` is a library call on x86-64's baseline (no SSE4.1
    // `roundsd`), a cost every pose paid. Through `i64` (`pos` is at most about the sample
    // count): one conversion each way, where `u64`'s take a dozen instructions on that baseline.
    debug_assert!(pos >= 0.0);
    let mut i0 = (pos as i64 as u64).min(n - 1);
    let mut alpha = (pos - i0 as i64 as f64).clamp(0.0, 1.0) as f32;
    let i1 = if i0 + 1 < n {
        i0 + 1
    } else if wraps {
        0
    } else {
        alpha = 0.0;
        i0
    };
    match rounding {
        Rounding::None => {}
        Rounding::Floor => alpha = 0.0,
        Rounding::Ceil => {
            if alpha > 0.0 {
                alpha = 1.0
            }
        }
        Rounding::Nearest => alpha = if alpha >= 0.5 { 1.0 } else { 0.0 },
    }
    // Collapse exact keys onto one sample so codecs read once.
    let mut i1 = i1;
    if alpha == 0.0 || i1 == i0 {
        alpha = 0.0;
        i1 = i0;
    } else if alpha == 1.0 {
        i0 = i1;
        alpha = 0.0;
    }
    Ok(SampleKey {
        i0: i0 as u32,
        i1: i1 as u32,
        alpha,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::CodecId;

    fn header(n: u32, rate: f32, flags: u32) -> Header {
        Header {
            version: 1,
            codec: CodecId::Fixed,
            total_size: 64,
            checksum: 0,
            flags,
            num_joints: 1,
            num_samples: n,
            sample_rate: rate,
            body_offset: 64,
            body_size: 0,
            additive: 0,
            num_curves: 0,
            curves_offset: 0,
            curves_size: 0,
        }
    }

    #[test]
    fn clamp_and_interpolate() {
        let h = header(11, 10.0, 0);
        let k = resolve(&h, 0.25, Looping::Clamp, Rounding::None).unwrap();
        assert_eq!((k.i0, k.i1), (2, 3));
        assert!((k.alpha - 0.5).abs() < 1e-5);
        let k = resolve(&h, 5.0, Looping::Clamp, Rounding::None).unwrap();
        assert_eq!((k.i0, k.i1, k.alpha), (10, 10, 0.0));
        let k = resolve(&h, -3.0, Looping::Clamp, Rounding::None).unwrap();
        assert_eq!((k.i0, k.i1, k.alpha), (0, 0, 0.0));
    }

    #[test]
    fn wrap_interpolates_last_to_first() {
        let h = header(10, 10.0, 0);
        let k = resolve(&h, 0.95, Looping::Wrap, Rounding::None).unwrap();
        assert_eq!((k.i0, k.i1), (9, 0));
        assert!((k.alpha - 0.5).abs() < 1e-4);
        let k = resolve(&h, 1.05, Looping::Wrap, Rounding::None).unwrap();
        assert_eq!((k.i0, k.i1), (0, 1));
        let k = resolve(&h, -0.05, Looping::Wrap, Rounding::None).unwrap();
        assert_eq!((k.i0, k.i1), (9, 0));
    }

    #[test]
    fn wrap_shortcuts_are_rem_euclid() {
        // The shortcuts for times in [-period, 2 period) must give the keys `rem_euclid` gives.
        for (n, rate) in [(10u32, 10.0f32), (97, 30.0), (1201, 60.0), (16, 24.0)] {
            let h = header(n, rate, 0);
            let period = n as f64 / rate as f64;
            let mut x = 0x9E37_79B9_7F4A_7C15u64;
            let p = period as f32;
            let mut times: Vec<f32> = vec![-0.0, 0.0, p, -p, 2.0 * p, -2.0 * p];
            for x in [p, 2.0 * p, -p] {
                times.push(f32::from_bits(x.to_bits() - 1));
                times.push(f32::from_bits(x.to_bits() + 1));
            }
            for _ in 0..2000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                times.push(
                    ((x >> 11) as f64 / (1u64 << 53) as f64 * 5.0 - 2.0) as f32 * period as f32,
                );
            }
            for t in times {
                let k = resolve(&h, t, Looping::Wrap, Rounding::None).unwrap();
                let pos = (t as f64).rem_euclid(period) * rate as f64;
                let i0 = (pos as u64).min(n as u64 - 1);
                let alpha = (pos - i0 as f64).clamp(0.0, 1.0) as f32;
                if alpha == 0.0 {
                    assert_eq!((k.i0, k.alpha), (i0 as u32, 0.0), "{t}");
                } else if alpha == 1.0 {
                    assert_eq!(k.alpha, 0.0, "{t}");
                } else {
                    assert_eq!(
                        (k.i0, k.alpha.to_bits()),
                        (i0 as u32, alpha.to_bits()),
                        "{t}"
                    );
                }
            }
        }
    }

    #[test]
    fn rem_positive_is_fmod() {
        // Rates and sample counts of real clips and awkward ones, times up to 2^25 periods:
        // random, at and one float either side of each multiple of the period.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for (n, rate) in [
            (31u32, 30.0f32),
            (97, 30.0),
            (1201, 60.0),
            (16, 24.0),
            (7, 119.88),
        ] {
            let period = n as f64 / rate as f64;
            let mut times = Vec::new();
            for _ in 0..20_000 {
                let span = [3.0, 100.0, 1e4, 3.3e7][(next() % 4) as usize];
                times.push(((next() >> 11) as f64 / (1u64 << 53) as f64 * span * period) as f32);
            }
            for k in (2..300).chain([1 << 20, (1 << 25) + 3]) {
                let m = (k as f64 * period) as f32;
                times.extend([
                    m,
                    f32::from_bits(m.to_bits() - 1),
                    f32::from_bits(m.to_bits() + 1),
                ]);
            }
            for t in times {
                let t = t as f64;
                assert_eq!(
                    rem_positive(t, period).to_bits(),
                    (t % period).to_bits(),
                    "{t}"
                );
                assert_eq!(
                    (t % period).to_bits(),
                    t.rem_euclid(period).to_bits(),
                    "{t}"
                );
            }
        }
    }

    #[test]
    fn rounding_policies() {
        let h = header(11, 10.0, 0);
        let f = |r| resolve(&h, 0.26, Looping::Clamp, r).unwrap();
        assert_eq!((f(Rounding::Floor).i0, f(Rounding::Floor).alpha), (2, 0.0));
        assert_eq!((f(Rounding::Ceil).i0, f(Rounding::Ceil).alpha), (3, 0.0));
        assert_eq!(f(Rounding::Nearest).i0, 3);
        let k = resolve(&h, 0.24, Looping::Clamp, Rounding::Nearest).unwrap();
        assert_eq!((k.i0, k.i1, k.alpha), (2, 2, 0.0));
    }

    #[test]
    fn looping_blob_clamps_to_full_period() {
        let h = header(10, 10.0, BlobFlags::LOOPING);
        assert!((clip_duration(&h) - 1.0).abs() < 1e-9);
        let k = resolve(&h, 1.0, Looping::Clamp, Rounding::None).unwrap();
        assert_eq!((k.i0, k.i1, k.alpha), (0, 0, 0.0));
        let k = resolve(&h, 0.95, Looping::Clamp, Rounding::None).unwrap();
        assert_eq!((k.i0, k.i1), (9, 0));
    }

    #[test]
    fn non_finite_time_is_an_error() {
        let h = header(10, 10.0, 0);
        assert_eq!(
            resolve(&h, f32::NAN, Looping::Clamp, Rounding::None),
            Err(Error::InvalidTime)
        );
        assert_eq!(
            resolve(&h, f32::INFINITY, Looping::Wrap, Rounding::None),
            Err(Error::InvalidTime)
        );
    }

    #[test]
    fn one_sample_clip() {
        let h = header(1, 30.0, 0);
        for t in [-1.0, 0.0, 0.5, 100.0] {
            for l in [Looping::Clamp, Looping::Wrap] {
                let k = resolve(&h, t, l, Rounding::None).unwrap();
                assert_eq!((k.i0, k.i1, k.alpha), (0, 0, 0.0));
            }
        }
    }
}
