//! The curve encoder: default and constant removal, then each animated curve quantised on a grid
//! of step just under twice its precision, its grid indices coded per segment with the cheapest
//! of four exact integer codings (flat, range, delta, linear prediction). Every value is checked
//! through the runtime decoder; a curve that fails (float rounding) is stored raw.

use super::Curve;
use crate::format::curves::{
    segment_samples, Descriptor, Kind, Mode, DESCRIPTOR_SIZE, MAX_GRID_BITS, SECTION_HEADER,
};
use crate::format::quantize::bits::BitWriter;
use crate::runtime::curves::{grid_value, CurvesSection};
use crate::{Error, Result};

/// Segment lengths tried; the smallest section wins (decode cost grows with the length).
const SEGMENT_LENGTHS: [u32; 3] = [8, 16, 32];
/// Grid steps tried, as fractions of twice the precision, until every value decodes within it.
const STEP_SCALES: [f32; 4] = [0.999, 0.99, 0.9, 0.5];

/// How one curve is stored, before segmenting.
enum Plan {
    Fixed(Descriptor),
    Grid(Descriptor, Vec<i32>),
    Raw(Descriptor),
}

fn unsigned_width(v: u32) -> u32 {
    32 - v.leading_zeros()
}

/// Bits of the two's complement field that holds every value (0 when all are zero).
fn signed_width(vals: impl Iterator<Item = i32>) -> u32 {
    let (m, any) = vals.fold((0u32, false), |(m, any), v| {
        (
            m.max(if v < 0 { !v as u32 } else { v as u32 }),
            any || v != 0,
        )
    });
    if any {
        unsigned_width(m) + 1
    } else {
        0
    }
}

fn plan_curve(c: &Curve, values: &[f32], force_raw: bool) -> Plan {
    let p = c.precision;
    let fixed = |kind, value| Descriptor {
        id: c.id,
        kind,
        gw: 0,
        value,
        step: 0.0,
    };
    let within = |v: f32| values.iter().all(|&x| (x - v).abs() <= p);
    if let Some(d) = c.default_value {
        if within(d) {
            return Plan::Fixed(fixed(Kind::Default, d));
        }
    }
    let lo = values.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mid = lo + (hi - lo) * 0.5;
    if within(mid) {
        return Plan::Fixed(fixed(Kind::Constant, mid));
    }
    if !force_raw {
        for scale in STEP_SCALES {
            let step = 2.0 * p * scale;
            let kmax = ((hi as f64 - lo as f64) / step as f64).round();
            if kmax.is_nan() || kmax >= (1u64 << MAX_GRID_BITS) as f64 {
                break;
            }
            let ks: Vec<i32> = values
                .iter()
                .map(|&v| ((v as f64 - lo as f64) / step as f64).round() as i32)
                .collect();
            let ok = ks
                .iter()
                .zip(values)
                .all(|(&k, &v)| (grid_value(lo, step, k) - v).abs() <= p);
            if ok {
                let gw = unsigned_width(*ks.iter().max().unwrap_or(&0) as u32);
                let d = Descriptor {
                    id: c.id,
                    kind: Kind::Quantized,
                    gw,
                    value: lo,
                    step,
                };
                return Plan::Grid(d, ks);
            }
        }
    }
    Plan::Raw(fixed(Kind::Raw, 0.0))
}

/// Writes one segment of a quantised curve with its cheapest mode.
fn write_segment(w: &mut BitWriter, gw: u32, k: &[i32]) {
    let n = k.len();
    let lo = *k.iter().min().unwrap();
    let hi = *k.iter().max().unwrap();
    let base = 7 + gw as usize;
    let mut best = (usize::MAX, Mode::Flat, 0, 0);
    if lo == hi {
        best = (base, Mode::Flat, 0, 0);
    }
    let wr = unsigned_width((hi - lo) as u32);
    best = best.min((base + n * wr as usize, Mode::Range, wr, 0));
    let d1 = |t: usize| k[t] - k[t - 1];
    if n >= 2 {
        let wd = signed_width((1..n).map(d1));
        best = best.min((base + (n - 1) * wd as usize, Mode::Delta, wd, 0));
    }
    if n >= 3 {
        let w2 = signed_width((2..n).map(|t| d1(t) - d1(t - 1)));
        let w1 = signed_width(std::iter::once(d1(1)));
        best = best.min((
            base + 5 + w1 as usize + (n - 2) * w2 as usize,
            Mode::Linear,
            w2,
            w1,
        ));
    }
    let (_, mode, wm, w1) = best;
    w.write(mode as u32, 2);
    w.write(wm, 5);
    if mode == Mode::Linear {
        w.write(w1, 5);
    }
    match mode {
        Mode::Flat => w.write(lo as u32, gw),
        Mode::Range => {
            w.write(lo as u32, gw);
            k.iter().for_each(|&v| w.write((v - lo) as u32, wm));
        }
        Mode::Delta => {
            w.write(k[0] as u32, gw);
            (1..n).for_each(|t| w.write(d1(t) as u32, wm));
        }
        Mode::Linear => {
            w.write(k[0] as u32, gw);
            w.write(d1(1) as u32, w1);
            (2..n).for_each(|t| w.write((d1(t) - d1(t - 1)) as u32, wm));
        }
    }
}

fn build(plans: &[Plan], curves: &[Curve], num_samples: usize, segment_len: u32) -> Vec<u8> {
    let ns = num_samples as u32;
    let num_segments = ns.div_ceil(segment_len) as usize;
    let mut out = Vec::new();
    out.extend_from_slice(&segment_len.to_le_bytes());
    out.extend_from_slice(&(num_segments as u32).to_le_bytes());
    out.extend_from_slice(&[0u8; 8]);
    for p in plans {
        match p {
            Plan::Fixed(d) | Plan::Grid(d, _) | Plan::Raw(d) => d.write(&mut out),
        }
    }
    let table = out.len();
    out.resize(table + 4 * num_segments, 0);
    for s in 0..num_segments {
        let at = out.len() as u32;
        out[table + 4 * s..table + 4 * s + 4].copy_from_slice(&at.to_le_bytes());
        let first = s * segment_len as usize;
        let n = segment_samples(segment_len, ns, s) as usize;
        let mut w = BitWriter::new();
        for (p, c) in plans.iter().zip(curves) {
            match p {
                Plan::Fixed(_) => {}
                Plan::Raw(_) => c.values[first..first + n]
                    .iter()
                    .for_each(|v| w.write(v.to_bits(), 32)),
                Plan::Grid(d, k) => write_segment(&mut w, d.gw, &k[first..first + n]),
            }
        }
        out.extend_from_slice(&w.finish_unpadded());
    }
    debug_assert_eq!(table, SECTION_HEADER + plans.len() * DESCRIPTOR_SIZE);
    out
}

/// Curves whose decoded value misses the precision at some sample.
fn failing_curves(section: &[u8], curves: &[Curve], num_samples: usize) -> Result<Vec<usize>> {
    let cs = CurvesSection::new(section, curves.len() as u32, num_samples as u32)?;
    let mut vals = vec![0.0f32; curves.len()];
    let mut bad = vec![false; curves.len()];
    for i in 0..num_samples {
        cs.values_at_sample(i as u32, &mut vals)?;
        for (c, curve) in curves.iter().enumerate() {
            if (vals[c] - curve.values[i]).abs() > curve.precision {
                bad[c] = true;
            }
        }
    }
    Ok((0..curves.len()).filter(|&c| bad[c]).collect())
}

/// Encodes validated curves (their first `num_samples` values) into a curves section, the
/// smallest over [`SEGMENT_LENGTHS`]. Every curve decodes within its precision at every sample.
pub fn encode_section(curves: &[Curve], num_samples: usize) -> Result<Vec<u8>> {
    if num_samples == 0 || curves.iter().any(|c| c.values.len() < num_samples) {
        return Err(Error::InconsistentClip(
            "a curve needs one value per sample of the clip",
        ));
    }
    let mut raw = vec![false; curves.len()];
    loop {
        let plans: Vec<Plan> = curves
            .iter()
            .zip(&raw)
            .map(|(c, &r)| plan_curve(c, &c.values[..num_samples], r))
            .collect();
        let best = SEGMENT_LENGTHS
            .iter()
            .map(|&l| build(&plans, curves, num_samples, l))
            .min_by_key(|s| s.len())
            .unwrap();
        let bad = failing_curves(&best, curves, num_samples)?;
        if bad.is_empty() {
            return Ok(best);
        }
        if bad.iter().all(|&c| raw[c]) {
            return Err(Error::Internal);
        }
        bad.iter().for_each(|&c| raw[c] = true);
    }
}

/// True when every curve's last value equals its first within half its precision (a looping
/// clip's repeated last sample may then be dropped; vacuously true without curves).
pub fn last_repeats_first(curves: &[Curve]) -> bool {
    curves
        .iter()
        .all(|c| match (c.values.first(), c.values.last()) {
            (Some(a), Some(b)) => (a - b).abs() <= c.precision * 0.5,
            _ => true,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::curves::validate_section;

    #[test]
    fn a_ramp_costs_almost_nothing_and_noise_costs_bits() {
        // A linear ramp: linear prediction leaves residuals of at most ±1 grid step (the ramp's
        // step is not a whole number of grid steps), so at most 2 bits per sample.
        let ramp = Curve::new("r", 0, (0..256).map(|i| i as f32 * 0.01).collect());
        let s = encode_section(std::slice::from_ref(&ramp), 256).unwrap();
        let fixed = SECTION_HEADER + DESCRIPTOR_SIZE;
        let segs = 256 / 32;
        // Per 32-sample segment: its offset, 12 header bits + gw (12) + first delta (4 bits).
        assert!(s.len() <= fixed + segs * 8 + 256 * 2 / 8, "{}", s.len());
        let noise = Curve::new(
            "n",
            1,
            (0..256u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 20) as f32 / 4096.0)
                .collect(),
        );
        let n = encode_section(std::slice::from_ref(&noise), 256).unwrap();
        assert!(
            n.len() > 256 * 8 / 8,
            "white noise on [0,1) needs ~9 bits per sample"
        );
        assert!(validate_section(&n, 1, 256).is_ok());
        assert!(validate_section(&n, 1, 257).is_err());
        assert!(validate_section(&n[..n.len() - 1], 1, 256).is_err());
    }

    #[test]
    fn widths_hold_negative_and_positive_residuals() {
        assert_eq!(signed_width([0, 0].into_iter()), 0);
        assert_eq!(signed_width([-1].into_iter()), 1);
        assert_eq!(signed_width([1].into_iter()), 2);
        assert_eq!(signed_width([-2, 1].into_iter()), 2);
        assert_eq!(signed_width([-3].into_iter()), 3);
    }

    #[test]
    fn a_looping_curve_repeats_within_half_its_precision() {
        let c = Curve::new("l", 0, vec![0.2, 0.9, 0.2004]);
        assert!(last_repeats_first(std::slice::from_ref(&c)));
        let c = Curve::new("l", 0, vec![0.2, 0.9, 0.2006]);
        assert!(!last_repeats_first(&[c]));
    }
}
