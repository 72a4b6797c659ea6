//! Live Link Face CSV takes (Epic's iOS app): a header `Timecode,BlendShapeCount,<names>`, then
//! rows `HH:MM:SS:FF.fff,<count>,<values>`.
//!
//! - Time comes from the timecode, never the row index. `FF.fff` counts frames of the timecode
//!   rate (the smallest of 30, 60, 120 above every `FF` seen) plus a sub-frame fraction.
//! - The sample rate is the median row step, refined over the whole take (so 59.94 Hz takes are
//!   read as such); every complete row lands on the nearest grid sample.
//! - Grid samples no row landed on (dropped frames, tracking-lost rows `timecode,0`) are filled by
//!   linear interpolation between the nearest complete rows (held at the ends); the set's notes
//!   say how many.
//! - Every curve's default value is 0 (a curve that stays at 0 costs nothing).

use super::CurveSet;
use crate::error::ParseError;
use animcomp::clip::MAX_SAMPLES;
use animcomp::Curve;

/// Seconds from the start of the day and the frame field, or `None` for a malformed timecode.
fn timecode(s: &str) -> Option<(f64, f64)> {
    let mut it = s.trim().split(':');
    let h: f64 = it.next()?.parse().ok()?;
    let m: f64 = it.next()?.parse().ok()?;
    let sec: f64 = it.next()?.parse().ok()?;
    let f: f64 = it.next()?.parse().ok()?;
    if it.next().is_some()
        || !(h.is_finite() && m.is_finite() && sec.is_finite() && f.is_finite())
        || f < 0.0
    {
        return None;
    }
    Some(((h * 60.0 + m) * 60.0 + sec, f))
}

/// Parses a take. `name` names the set.
pub fn parse(text: &str, name: &str) -> Result<CurveSet, ParseError> {
    let mut lines = text.lines().enumerate();
    let (_, header) = lines
        .next()
        .ok_or_else(|| ParseError::general("empty file"))?;
    let cols: Vec<&str> = header
        .trim_end_matches('\r')
        .split(',')
        .map(str::trim)
        .collect();
    if cols.len() < 3 || !cols[0].eq_ignore_ascii_case("timecode") {
        return Err(ParseError::at(
            1,
            "expected a header `Timecode,BlendShapeCount,<curve names>`",
        ));
    }
    let names: Vec<String> = cols[2..].iter().map(|s| s.to_string()).collect();
    let nc = names.len();
    // (seconds, frame field, values) of complete rows.
    let mut rows: Vec<(f64, f64, Vec<f32>)> = Vec::new();
    let mut lost = 0usize;
    for (i, line) in lines {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        let (sec, frame) = timecode(f[0])
            .ok_or_else(|| ParseError::at(i + 1, format!("bad timecode \"{}\"", f[0])))?;
        if f.len() < 2 + nc || f[1].trim() == "0" {
            lost += 1;
            continue;
        }
        let mut values = Vec::with_capacity(nc);
        for v in &f[2..2 + nc] {
            let x: f32 = v
                .trim()
                .parse()
                .map_err(|_| ParseError::at(i + 1, format!("\"{}\" is not a number", v.trim())))?;
            if !x.is_finite() {
                return Err(ParseError::at(i + 1, "non-finite value"));
            }
            values.push(x);
        }
        rows.push((sec, frame, values));
    }
    if rows.is_empty() {
        return Err(ParseError::general("no complete data row"));
    }
    let max_frame = rows.iter().map(|r| r.1).fold(0.0, f64::max);
    let tc_rate = [30.0, 60.0, 120.0]
        .into_iter()
        .find(|&r| max_frame < r)
        .ok_or_else(|| ParseError::general("timecode frame field beyond 120 fps"))?;
    let times: Vec<f64> = rows.iter().map(|r| r.0 + r.1 / tc_rate).collect();
    let (grid, rate, notes) = grid_of(&times, tc_rate)?;
    let n = grid.last().map_or(1, |&g| g + 1);
    let mut curves: Vec<Curve> = names
        .iter()
        .enumerate()
        .map(|(c, nm)| Curve {
            default_value: Some(0.0),
            ..Curve::new(nm.clone(), c as u32, vec![f32::NAN; n])
        })
        .collect();
    let mut filled = vec![false; n];
    for (r, &g) in rows.iter().zip(&grid) {
        if !filled[g] {
            filled[g] = true;
            for (c, curve) in curves.iter_mut().enumerate() {
                curve.values[g] = r.2[c];
            }
        }
    }
    let holes = fill_holes(&mut curves, &filled);
    let mut notes = notes;
    if holes > 0 || lost > 0 {
        notes.push(format!(
            "resampled onto a uniform {rate:.3} Hz grid: {holes} missing samples ({lost} tracking-lost rows, the rest dropped frames) filled by linear interpolation"
        ));
    }
    Ok(CurveSet {
        name: name.to_string(),
        sample_rate: rate as f32,
        num_samples: n,
        curves,
        source: Default::default(),
        notes,
    })
}

/// Grid index of each row time, the rate, and notes (rows merged onto one sample). The rate is
/// the median row step (snapped to the timecode rate over a whole number); each row's index is
/// the previous one plus its rounded step (at least 1), so a slow drift of the sub-frame phase
/// never shows as a false gap or a collision.
fn grid_of(times: &[f64], tc_rate: f64) -> Result<(Vec<usize>, f64, Vec<String>), ParseError> {
    if times.windows(2).any(|w| w[1] < w[0]) {
        return Err(ParseError::general("timecodes go backwards"));
    }
    let mut steps: Vec<f64> = times
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|&d| d > 0.0)
        .collect();
    steps.sort_by(f64::total_cmp);
    let step = steps.get(steps.len() / 2).copied().unwrap_or(1.0 / tc_rate);
    let rate = snap_rate(1.0 / step, tc_rate);
    let mut grid = Vec::with_capacity(times.len());
    let mut merged = 0;
    let mut idx = 0usize;
    for (i, w) in std::iter::once(0.0)
        .chain(times.windows(2).map(|w| w[1] - w[0]))
        .enumerate()
    {
        if i > 0 {
            let k = (w * rate).round();
            if k < 1.0 {
                merged += 1;
            }
            idx += k.clamp(0.0, MAX_SAMPLES as f64) as usize;
            if idx >= MAX_SAMPLES {
                return Err(ParseError::general("take too long"));
            }
        }
        grid.push(idx);
    }
    let notes = if merged > 0 {
        vec![format!(
            "{merged} rows fell on an already used grid sample and were skipped"
        )]
    } else {
        vec![]
    };
    Ok((grid, rate, notes))
}

/// The timecode rate divided by a whole number (or its NTSC /1.001 variant) when within 0.2%
/// of `rate` (sub-frame jitter of the timecode otherwise shows as e.g. 30.004 Hz).
fn snap_rate(rate: f64, tc_rate: f64) -> f64 {
    let off = |r: f64| (rate / r - 1.0).abs();
    (1..=8)
        .flat_map(|k| [tc_rate / k as f64, tc_rate / 1.001 / k as f64])
        .filter(|&r| off(r) < 0.002)
        .min_by(|a, b| off(*a).total_cmp(&off(*b)))
        .unwrap_or(rate)
}

/// Fills unfilled samples by linear interpolation between the nearest filled ones (held at the
/// ends). Returns how many were filled.
fn fill_holes(curves: &mut [Curve], filled: &[bool]) -> usize {
    let known: Vec<usize> = (0..filled.len()).filter(|&i| filled[i]).collect();
    let mut count = 0;
    for (i, _) in filled.iter().enumerate().filter(|(_, &f)| !f) {
        count += 1;
        let next = known.partition_point(|&k| k < i);
        let (a, b) = (
            known.get(next.wrapping_sub(1)).copied(),
            known.get(next).copied(),
        );
        for c in curves.iter_mut() {
            c.values[i] = match (a, b) {
                (Some(a), Some(b)) => {
                    let s = (i - a) as f32 / (b - a) as f32;
                    c.values[a] + (c.values[b] - c.values[a]) * s
                }
                (Some(a), None) => c.values[a],
                (None, Some(b)) => c.values[b],
                (None, None) => 0.0,
            };
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(rows: &[&str]) -> String {
        let mut s = String::from("Timecode,BlendShapeCount,A,B\n");
        for r in rows {
            s.push_str(r);
            s.push('\n');
        }
        s
    }

    /// Rows at frames 14, 16, ..., 58 holding (0.6, 0.5).
    fn tail() -> Vec<String> {
        (7..30)
            .map(|k| format!("10:00:00:{:02}.000,2,0.6,0.5", 2 * k))
            .collect()
    }

    #[test]
    fn time_comes_from_the_timecode_and_holes_are_interpolated() {
        // 60 fps timecode, 2 frames per row = 30 Hz; frame 06 dropped; one tracking-lost row.
        let text = take(&[
            "10:00:00:00.000,2,0.0,1.0",
            "10:00:00:02.000,2,0.2,1.0",
            "10:00:00:04.000,2,0.4,1.0",
            "10:00:00:08.000,2,0.8,1.0",
            "10:00:00:10.000,0",
            "10:00:00:12.000,2,0.6,0.5",
        ]) + &tail().join("\n");
        let s = parse(&text, "t").unwrap();
        assert!((s.sample_rate - 30.0).abs() < 1e-3, "{}", s.sample_rate);
        assert_eq!(s.num_samples, 30);
        assert_eq!(s.curves.len(), 2);
        assert_eq!(s.curves[0].name, "A");
        assert!((s.curves[0].values[3] - 0.6).abs() < 1e-6); // dropped frame 06
        assert!((s.curves[0].values[5] - 0.7).abs() < 1e-6); // tracking lost at frame 10
        assert!((s.curves[1].values[5] - 0.75).abs() < 1e-6);
        assert_eq!(s.curves[0].values[29], 0.6);
        assert!(
            s.notes.iter().any(|n| n.contains("1 tracking-lost")),
            "{:?}",
            s.notes
        );
    }

    #[test]
    fn a_59_94_hz_take_keeps_its_rate() {
        let rows: Vec<String> = (0..300)
            .map(|i| {
                let f = i as f64 * 1.001;
                let sec = (f / 60.0).floor();
                format!(
                    "01:00:{:02}:{:06.3},2,{},0",
                    sec as u32,
                    f - sec * 60.0,
                    i as f32 * 0.001
                )
            })
            .collect();
        let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
        let s = parse(&take(&refs), "t").unwrap();
        assert!((s.sample_rate - 59.94).abs() < 0.01, "{}", s.sample_rate);
        assert_eq!(s.num_samples, 300);
        assert!(s.notes.is_empty(), "{:?}", s.notes);
    }

    #[test]
    fn malformed_input_is_an_error_not_a_panic() {
        assert!(parse("", "t").is_err());
        assert!(parse("Foo,Bar\n", "t").is_err());
        assert!(parse(&take(&["xx,2,0,0"]), "t").is_err());
        assert!(parse(&take(&["00:00:00:00.0,2,0,zz"]), "t").is_err());
        assert!(parse(&take(&["00:00:00:00.0,0"]), "t").is_err());
        assert!(parse(&take(&["00:00:01:00.0,2,0,0", "00:00:00:00.0,2,0,0"]), "t").is_err());
    }
}
