//! Sine, cosine and arcsine that give the same bits on every target (docs/determinism.md).
//!
//! `f32::sin` and friends call the platform's math library (glibc's on Linux, with FMA variants
//! picked at run time on x86-64; wasi-libc's on WebAssembly), which may round differently. These
//! evaluate in `f64` with additions, multiplications, divisions and square roots only (each
//! correctly rounded by IEEE 754 on every target), then round once to `f32`: accurate to well below
//! an `f32` ulp for the arguments the library uses (|x| up to about 10^5), and identical
//! everywhere. Used by the compressor and the clip generator; the runtime decoder needs none.

/// `(sin x, cos x)`, rounded from an `f64` evaluation.
pub fn sin_cos(x: f32) -> (f32, f32) {
    let (s, c) = sin_cos_f64(x as f64);
    (s as f32, c as f32)
}

/// `sin x` (see [`sin_cos`]).
pub fn sin(x: f32) -> f32 {
    sin_cos(x).0
}

/// `cos x` (see [`sin_cos`]).
pub fn cos(x: f32) -> f32 {
    sin_cos(x).1
}

/// `asin x` for `x` in [-1, 1] (NaN outside, like `f32::asin`).
pub fn asin(x: f32) -> f32 {
    asin_f64(x as f64) as f32
}

/// pi / 2 in three parts (fdlibm's `pio2_1`, `pio2_2`, `pio2_2t`): the first two end in zero
/// bits, so `k * part` is exact for the quadrant counts `k` below 2^20.
const PIO2_1: f64 = 1.570_796_326_734_125_6; // 0x3FF921FB_54400000
const PIO2_2: f64 = 6.077_100_506_303_966e-11; // 0x3DD0B461_1A600000
const PIO2_3: f64 = 2.022_266_248_795_950_6e-21; // 0x3BA3198A_2E037073

fn sin_cos_f64(x: f64) -> (f64, f64) {
    if !x.is_finite() {
        return (f64::NAN, f64::NAN);
    }
    // Quadrant `k` and remainder `r` in [-pi/4, pi/4] (Cody-Waite reduction).
    let k = (x * core::f64::consts::FRAC_2_PI).round();
    let r = ((x - k * PIO2_1) - k * PIO2_2) - k * PIO2_3;
    // Taylor series to the r^17 and r^16 terms, nested (Horner): the first term left out is
    // below 2^-60 of the sum for |r| <= pi/4.
    let r2 = r * r;
    let mut s = 1.0;
    let mut c = 1.0;
    for n in (1..=8).rev() {
        let n2 = 2.0 * n as f64;
        s = 1.0 - r2 / (n2 * (n2 + 1.0)) * s;
        c = 1.0 - r2 / ((n2 - 1.0) * n2) * c;
    }
    let (sin_r, cos_r) = (r * s, c);
    match (k as i64).rem_euclid(4) {
        0 => (sin_r, cos_r),
        1 => (cos_r, -sin_r),
        2 => (-sin_r, -cos_r),
        _ => (-cos_r, sin_r),
    }
}

fn asin_f64(x: f64) -> f64 {
    if x.is_nan() || x.abs() > 1.0 {
        return f64::NAN;
    }
    let a = x.abs();
    let r = if a <= 0.5 {
        asin_series(a)
    } else {
        // asin a = pi/2 - 2 asin(sqrt((1 - a) / 2)), the argument below 0.5.
        core::f64::consts::FRAC_PI_2 - 2.0 * asin_series(((1.0 - a) * 0.5).sqrt())
    };
    if x < 0.0 {
        -r
    } else {
        r
    }
}

/// `asin y` for `y` in [0, 0.5]: `sum c_n y^(2n+1)`, `c_0 = 1`,
/// `c_n = c_(n-1) (2n-1)² / (2n (2n+1))`; 30 terms leave out less than 2^-60 of the sum.
fn asin_series(y: f64) -> f64 {
    let y2 = y * y;
    let mut term = y;
    let mut sum = y;
    let mut coef = 1.0;
    for n in 1..30 {
        let n = n as f64;
        let odd = 2.0 * n - 1.0;
        coef = coef * odd * odd / ((2.0 * n) * (2.0 * n + 1.0));
        term *= y2;
        sum += coef * term;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within an ulp or two of the platform's functions (which are not the reference: the point of
    /// these is to be the same everywhere, and close).
    #[test]
    fn close_to_the_platform_functions() {
        let ulps = |a: f32, b: f32| (a.to_bits() as i64 - b.to_bits() as i64).abs();
        for i in -20_000..20_000 {
            let x = i as f32 * 0.013_7;
            let (s, c) = sin_cos(x);
            assert!(
                ulps(s, x.sin()) <= 2 || (s - x.sin()).abs() < 1e-7,
                "sin {x}: {s} {}",
                x.sin()
            );
            assert!(
                ulps(c, x.cos()) <= 2 || (c - x.cos()).abs() < 1e-7,
                "cos {x}: {c} {}",
                x.cos()
            );
        }
        for i in -1000..=1000 {
            let x = i as f32 / 1000.0;
            assert!(
                ulps(asin(x), x.asin()) <= 2,
                "asin {x}: {} {}",
                asin(x),
                x.asin()
            );
        }
        assert!(asin(1.5).is_nan() && sin(f32::INFINITY).is_nan() && asin(f32::NAN).is_nan());
        assert_eq!(asin(1.0), core::f32::consts::FRAC_PI_2);
        assert_eq!(sin_cos(0.0), (0.0, 1.0));
        // The three parts of pi / 2 are the bits their comments say.
        assert_eq!(PIO2_1.to_bits(), 0x3FF9_21FB_5440_0000);
        assert_eq!(PIO2_2.to_bits(), 0x3DD0_B461_1A60_0000);
        assert_eq!(PIO2_3.to_bits(), 0x3BA3_198A_2E03_7073);
    }

    /// Pinned bits: the same on every target (this test runs on x86-64, aarch64 and wasm32 in CI).
    #[test]
    fn pinned_values() {
        let h = (1..=4000)
            .map(|i| {
                let x = (i as f32 - 2000.0) * 0.071_3;
                let (s, c) = sin_cos(x);
                let a = asin((i as f32 - 2000.0) / 2000.0);
                [s, c, a]
            })
            .fold(0xCBF2_9CE4_8422_2325u64, |h, v| {
                v.iter().fold(h, |h, f| {
                    f.to_bits().to_le_bytes().iter().fold(h, |h, &b| {
                        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01B3)
                    })
                })
            });
        assert_eq!(h, 0x3fa6_1ceb_8722_7171, "pinned hash {h:#018x}");
    }
}
