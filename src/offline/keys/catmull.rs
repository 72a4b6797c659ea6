//! Catmull-Rom key fitting (the League of Legends scheme): start from the first and last samples,
//! repeatedly insert a key in the middle of the span with the largest error, until every span
//! reconstructs its samples within tolerance.
//!
//! Keys are parameterised by their sample time (non-uniform Catmull-Rom; see [`crate::format::keys::interp`]),
//! so inserting a key never changes the time parameter of the others. Key values are the
//! quantised samples themselves, so the control keys are reproduced exactly (up to quantisation).

use super::reduce::FitInput;
use crate::format::keys::interp::Interp;

/// Where a key is inserted in the worst span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Split {
    /// The middle sample of the span (the published scheme).
    Middle,
    /// The sample with the largest error in the span.
    Worst,
}

fn span_worst(inp: &FitInput, keys: &[u32], k: usize) -> (f32, usize) {
    let (a, b) = (keys[k] as usize, keys[k + 1] as usize);
    let mut worst = (0.0f32, (a + b) / 2);
    for s in a + 1..b {
        let e = inp.err(s, inp.reconstruct(keys, k, s, Interp::CatmullRom));
        if e > worst.0 {
            worst = (e, s);
        }
    }
    worst
}

/// Fits Catmull-Rom keys to a track. Returns sorted sample indices (first and last always kept).
pub fn fit(inp: &FitInput, split: Split) -> Vec<u32> {
    let n = inp.raw.len();
    if n < 2 {
        return vec![0];
    }
    let mut keys = vec![0u32, (n - 1) as u32];
    let mut spans = vec![span_worst(inp, &keys, 0)];
    loop {
        let mut worst = None;
        for (k, &(e, _)) in spans.iter().enumerate() {
            if e > inp.tol && worst.is_none_or(|(_, we)| e > we) {
                worst = Some((k, e));
            }
        }
        let Some((k, _)) = worst else { break };
        let (a, b) = (keys[k] as usize, keys[k + 1] as usize);
        let at = match split {
            Split::Middle => (a + b) / 2,
            Split::Worst => spans[k].1,
        };
        if at <= a || at >= b {
            // Cannot happen for a span with samples inside; guard against a stall anyway.
            break;
        }
        keys.insert(k + 1, at as u32);
        spans.insert(k + 1, (0.0, 0));
        // Spans whose four control keys include the new key k+1: k-1 ..= k+2.
        let lo = k.saturating_sub(1);
        let hi = (k + 2).min(keys.len() - 2);
        for (s, span) in spans.iter_mut().enumerate().take(hi + 1).skip(lo) {
            *span = span_worst(inp, &keys, s);
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec4;

    #[test]
    fn smooth_track_needs_few_keys_and_hits_controls() {
        let raw: Vec<Vec4> = (0..240)
            .map(|i| {
                let t = i as f32 / 60.0;
                Vec4::new((t * 2.0).sin() * 10.0, (t * 3.0).cos() * 4.0, t, 0.0)
            })
            .collect();
        let inp = FitInput {
            raw: &raw,
            quant: &raw,
            channel: 1,
            shell: 3.0,
            tol: 0.005,
        };
        for split in [Split::Middle, Split::Worst] {
            let keys = fit(&inp, split);
            let linear = crate::offline::keys::reduce::linear_keys(&inp);
            assert!(
                keys.len() * 2 < linear.len(),
                "{} keys vs {} linear",
                keys.len(),
                linear.len()
            );
            assert!(inp.max_error(&keys, Interp::CatmullRom) <= 0.005);
            for k in 0..keys.len() - 1 {
                let s = keys[k] as usize;
                assert_eq!(inp.reconstruct(&keys, k, s, Interp::CatmullRom), raw[s]);
            }
        }
    }
}
