//! Unit tests of the rotation error bounds: sampled and adversarial quaternions must decode
//! within the bound, and the bound must not be absurdly loose.

use super::*;
use crate::format::quantize::bits::BitWriter;

/// Deterministic xorshift generator in [0, 1).
struct Rng(u64);
impl Rng {
    fn f(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn s(&mut self) -> f64 {
        self.f() * 2.0 - 1.0
    }
}

/// Rotation angle between two quaternions, in f64 (f32 `acos` is too coarse for tiny angles).
pub(crate) fn angle_f64(a: Quat, b: Quat) -> f64 {
    let a = [a.x as f64, a.y as f64, a.z as f64, a.w as f64];
    let b = [b.x as f64, b.y as f64, b.z as f64, b.w as f64];
    let na = a.iter().map(|c| c * c).sum::<f64>().sqrt();
    let nb = b.iter().map(|c| c * c).sum::<f64>().sqrt();
    let dot: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    let s = if dot < 0.0 { -1.0 } else { 1.0 };
    let chord = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (x / na - s * y / nb).powi(2))
        .sum::<f64>()
        .sqrt();
    4.0 * (chord / 2.0).min(1.0).asin()
}

/// Unit quaternions with |w| >= `w_min`: random ones plus adversarial ones (|w| exactly
/// `w_min`, equal-magnitude components, axis-aligned, negative w).
fn samples(w_min: f64, n: usize, seed: u64) -> Vec<Quat> {
    let mut rng = Rng(seed | 1);
    let mut out = Vec::with_capacity(n + 64);
    while out.len() < n {
        let v = [rng.s(), rng.s(), rng.s()];
        let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        if len < 1e-3 {
            continue;
        }
        // Half of the samples sit exactly at |w| = w_min, the rest anywhere above it.
        let w = if out.len() % 2 == 0 {
            w_min
        } else {
            w_min + (1.0 - w_min) * rng.f()
        };
        let r = (1.0 - w * w).max(0.0).sqrt();
        let sign = if rng.f() < 0.5 { -1.0 } else { 1.0 };
        let q = Quat::from_xyzw(
            (v[0] / len * r) as f32,
            (v[1] / len * r) as f32,
            (v[2] / len * r) as f32,
            (w * sign) as f32,
        );
        out.push(q.normalize());
    }
    if w_min <= 0.5 {
        for signs in 0..16u32 {
            let s = |b: u32| if signs & (1 << b) != 0 { -0.5f32 } else { 0.5 };
            out.push(Quat::from_xyzw(s(0), s(1), s(2), s(3)));
        }
    }
    if w_min == 0.0 {
        out.push(Quat::from_xyzw(1.0, 0.0, 0.0, 0.0));
        out.push(Quat::from_xyzw(0.0, 0.6, 0.8, 0.0));
    }
    out.push(Quat::IDENTITY);
    out
}

fn measure(format: RotationFormat, qs: &[Quat]) -> (f64, f32) {
    let stats = RotationStats::from_quats(qs);
    let bound = format.max_angle_error(&stats);
    let mut w = BitWriter::new();
    for &q in qs {
        format.pack(q, &stats.range, &mut w);
    }
    assert_eq!(w.bit_len(), qs.len() * format.bits_per_sample() as usize);
    let data = w.finish();
    let mut worst = 0.0f64;
    for (i, &q) in qs.iter().enumerate() {
        let d = format.unpack(&data, i * format.bits_per_sample() as usize, &stats.range);
        assert!(
            d.is_finite(),
            "{format:?} decoded a non-finite quaternion from {q}"
        );
        let a = angle_f64(q, d);
        assert!(
            a <= bound as f64,
            "{format:?}: {q} -> {d}: angle {a} > bound {bound} (w_min {})",
            stats.w_min
        );
        worst = worst.max(a);
    }
    (worst, bound)
}

#[test]
fn every_format_stays_within_its_bound_and_the_bound_is_tight() {
    // Under qemu (`ANIMCOMP_TEST_EMULATED=1`, docs/ci.md) 20 000 quaternions per case instead of
    // 60 000 (every format, every w_min; the tightness check still holds).
    let n = if crate::emulated::emulated() {
        20_000
    } else {
        60_000
    };
    for format in RotationFormat::ALL {
        for (k, w_min) in [0.0, 0.1, 0.5, 0.85].into_iter().enumerate() {
            let qs = samples(w_min, n, 0x9E37 + k as u64 * 77 + format as u64);
            let (worst, bound) = measure(format, &qs);
            println!(
                "{:22} w_min {w_min:4}: measured {worst:.3e} rad, bound {bound:.3e} rad",
                format.name()
            );
            // The float formats only suffer f32 rounding: their bound is a rounding allowance.
            if !matches!(
                format,
                RotationFormat::Float128 | RotationFormat::Float96NoW
            ) {
                assert!(
                    worst >= 0.25 * bound as f64,
                    "{format:?} w_min {w_min}: bound {bound} is loose (measured {worst})"
                );
            }
        }
    }
}

#[test]
fn range_reduced_bound_shrinks_with_the_range() {
    // A track moving a little around one orientation: the interval format is much more precise
    // than the global 11/11/10 one.
    let base = Quat::from_rotation_y(0.8);
    let qs: Vec<Quat> = (0..400)
        .map(|i| (base * Quat::from_rotation_x(0.05 * (i as f32 * 0.1).sin())).normalize())
        .collect();
    let (worst, bound) = measure(RotationFormat::IntervalFixed32NoW, &qs);
    let global = RotationFormat::Fixed32NoW.max_angle_error(&RotationStats::from_quats(&qs));
    assert!(bound < global / 10.0, "{bound} vs {global}");
    assert!(worst <= bound as f64);
}

#[test]
fn zero_extent_range_and_degenerate_inputs_never_give_nan() {
    let qs = vec![Quat::from_rotation_z(0.3); 8];
    let (worst, _) = measure(RotationFormat::IntervalFixed32NoW, &qs);
    assert!(worst < 1e-5);
    // Every 32-bit pattern decodes to a finite quaternion for every quantised format.
    let mut rng = Rng(12345);
    for format in RotationFormat::ALL
        .into_iter()
        .filter(|f| f.bits_per_sample() <= 48)
    {
        let range = RotationStats::GLOBAL.range;
        for _ in 0..20_000 {
            let bytes: Vec<u8> = (0..16).map(|_| (rng.f() * 256.0) as u8).collect();
            let q = format.unpack(&bytes, 0, &range);
            assert!(
                q.is_finite() && (q.length() - 1.0).abs() < 1e-3,
                "{format:?} {q}"
            );
        }
    }
}

#[test]
fn drop_w_global_bound_is_large_near_w_zero() {
    // Honesty check: near w = 0 the drop-W formats are much worse than at w = 1.
    let near_zero = RotationFormat::Fixed48NoW.max_angle_error(&RotationStats::GLOBAL);
    let far = RotationFormat::Fixed48NoW.max_angle_error(&RotationStats {
        w_min: 0.9,
        ..RotationStats::GLOBAL
    });
    assert!(near_zero > 20.0 * far, "{near_zero} vs {far}");
}
