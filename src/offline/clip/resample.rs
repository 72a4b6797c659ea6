//! Uniform resampling of a clip to another sample rate.

use super::{RawClip, Track, MAX_SAMPLES};
use crate::math::nlerp_shortest;
use crate::{Error, Result};

/// Resamples `clip` to `rate` Hz from time 0 up to the last raw sample (no extrapolation).
/// Rotations use nlerp on the shortest arc; translations and scales lerp. More than
/// [`MAX_SAMPLES`] samples at `rate` is [`Error::TooManySamples`], found before any allocation.
pub(crate) fn resample(clip: &RawClip, rate: f32) -> Result<RawClip> {
    if !rate.is_finite() || rate <= 0.0 {
        return Err(Error::InvalidSampleRate(rate));
    }
    if clip.num_samples == 0 {
        return Err(Error::NoSamples);
    }
    if !clip.sample_rate.is_finite() || clip.sample_rate <= 0.0 {
        return Err(Error::InvalidSampleRate(clip.sample_rate));
    }
    // Computed in f64 from the sample count: the f32 duration loses whole samples on long clips.
    let span = (clip.num_samples - 1) as f64 * rate as f64 / clip.sample_rate as f64;
    // Never extrapolate past the last raw sample: 60 Hz to 30 Hz keeps every second frame.
    let samples = (span * (1.0 + 1e-9) + 1e-9).floor() + 1.0;
    // The limit is checked on the count, before anything is allocated for it (a rate of 1e8 Hz
    // would otherwise grow every track to gigabytes before `validate` refused the clip).
    if samples.is_nan() || samples > MAX_SAMPLES as f64 {
        return Err(Error::TooManySamples(if samples.is_finite() {
            samples as usize
        } else {
            usize::MAX
        }));
    }
    let n = (samples as usize).max(1);
    let mut tracks = Vec::with_capacity(clip.tracks.len());
    for t in &clip.tracks {
        let mut out = Track {
            rotations: Vec::with_capacity(n),
            translations: Vec::with_capacity(n),
            scales: Vec::with_capacity(n),
        };
        for i in 0..n {
            let pos = (i as f64 / rate as f64 * clip.sample_rate as f64)
                .min((clip.num_samples - 1) as f64);
            let i0 = pos.floor() as usize;
            let i1 = (i0 + 1).min(clip.num_samples - 1);
            let a = (pos - i0 as f64) as f32;
            out.rotations
                .push(nlerp_shortest(t.rotations[i0], t.rotations[i1], a));
            out.translations
                .push(t.translations[i0].lerp(t.translations[i1], a));
            out.scales.push(t.scales[i0].lerp(t.scales[i1], a));
        }
        tracks.push(out);
    }
    Ok(RawClip {
        name: clip.name.clone(),
        skeleton: clip.skeleton.clone(),
        sample_rate: rate,
        num_samples: n,
        tracks,
    })
}

#[cfg(test)]
mod tests {
    use crate::offline::clip::{generate_clip, GenerateOptions};

    #[test]
    fn halving_the_rate_keeps_every_second_sample() {
        let c = generate_clip(&GenerateOptions {
            samples: 61,
            sample_rate: 60.0,
            ..Default::default()
        });
        let r = c.resample(30.0).unwrap();
        assert_eq!(r.num_samples, 31);
        assert!((r.duration() - c.duration()).abs() < 1e-6);
        for (a, b) in r.tracks.iter().zip(&c.tracks) {
            for i in 0..31 {
                assert!((a.translations[i] - b.translations[2 * i]).length() < 1e-4);
                assert!(crate::math::angle_between(a.rotations[i], b.rotations[2 * i]) < 1e-3);
            }
        }
    }

    #[test]
    fn even_frame_count_drops_the_unreachable_last_frame() {
        // 60 frames at 60 Hz last 59/60 s; a 30 Hz sample at 60/60 s would extrapolate.
        let c = generate_clip(&GenerateOptions {
            samples: 60,
            sample_rate: 60.0,
            ..Default::default()
        });
        let r = c.resample(30.0).unwrap();
        assert_eq!(r.num_samples, 30);
        // Long odd clips keep exactly every second frame too (f32 durations used to lose one).
        for n in [1001, 2753, 4511] {
            let c = generate_clip(&GenerateOptions {
                joints: 2,
                samples: n,
                sample_rate: 60.0,
                ..Default::default()
            });
            assert_eq!(c.resample(30.0).unwrap().num_samples, n.div_ceil(2), "{n}");
        }
        assert!(r.duration() <= c.duration());
    }
}
