//! `bench --additive <format> --base first-sample`: each clip becomes an additive clip relative to
//! its own first sample, is compressed with that base, and its error is measured on the applied
//! result (first sample ⊕ decoded additive) against first sample ⊕ raw additive (what a player
//! shows from the uncompressed additive clip), with the usual metric. That reference differs from
//! the original clip only by the f32 rounding of the conversion (a few 1e-5 cm on clips that
//! walk metres away from their first sample), which is not compression error.

use crate::measure;
use animcomp::math::Transform;
use animcomp::{
    offline::additive::{make_additive_clip, AdditiveBase, BasePoses},
    runtime::additive::apply,
    AdditiveFormat,
};
use animcomp::{AlignedBlob, CompressSettings, RawClip};
use std::time::{Duration, Instant};

/// Which base an additive benchmark uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BaseChoice {
    /// Each clip's own first sample (a single pose).
    FirstSample,
}

/// The additive options of `bench`.
#[derive(Debug, Clone, clap::Args)]
pub struct AdditiveArgs {
    /// Benchmark additive compression: turn each clip into an additive clip in this format
    /// (ACL's names: relative, additive0, additive1) relative to --base, compress it with that
    /// base and measure the error of base ⊕ decoded additive against the original clip.
    #[arg(long, value_parser = additive_format, value_name = "FORMAT")]
    pub additive: Option<AdditiveFormat>,
    /// The base of --additive.
    #[arg(
        long,
        value_enum,
        default_value = "first-sample",
        requires = "additive"
    )]
    pub base: BaseChoice,
}

/// Parses `relative`, `additive0` or `additive1`.
pub fn additive_format(s: &str) -> Result<AdditiveFormat, String> {
    match AdditiveFormat::from_name(s) {
        Some(f) if f != AdditiveFormat::None => Ok(f),
        _ => Err(format!(
            "unknown additive format '{s}' (expected one of: relative, additive0, additive1)"
        )),
    }
}

fn first_sample(clip: &RawClip) -> Vec<Transform> {
    let mut base = vec![Transform::IDENTITY; clip.num_joints()];
    clip.local_pose(0, &mut base);
    base
}

impl AdditiveArgs {
    /// Prints what is benchmarked when --additive is given.
    pub fn print_banner(&self) {
        if let Some(f) = self.additive {
            println!(
                "additive: each clip relative to its first sample in format {}; errors are of \
                 first sample ⊕ decoded additive against first sample ⊕ raw additive",
                f.name()
            );
        }
    }

    /// Compresses `clip` (plainly, or as an additive clip relative to its base) and times the
    /// compression call (the conversion to an additive clip is not timed).
    pub fn compress_timed(
        &self,
        clip: &RawClip,
        settings: &CompressSettings,
    ) -> animcomp::Result<(AlignedBlob, Duration)> {
        let Some(format) = self.additive else {
            return measure::compress_timed(clip, settings);
        };
        let base = first_sample(clip);
        let base = AdditiveBase::Pose(&base);
        let additive = make_additive_clip(clip, &base, format)?;
        let t0 = Instant::now();
        let bytes = animcomp::compress_additive(&additive, &base, format, settings)?;
        let elapsed = t0.elapsed();
        Ok((AlignedBlob::from_bytes(&bytes), elapsed))
    }

    /// Measures a blob from [`Self::compress_timed`]: for an additive blob, every decoded pose
    /// has the base applied and is judged against the base with the raw additive applied.
    pub fn measure_blob(
        &self,
        clip: &RawClip,
        blob: &AlignedBlob,
    ) -> animcomp::Result<measure::Measured> {
        let Some(format) = self.additive else {
            return measure::measure_blob(clip, blob);
        };
        let base = first_sample(clip);
        let pose = AdditiveBase::Pose(&base);
        let additive = make_additive_clip(clip, &pose, format)?;
        let reference = BasePoses::new(&pose, clip.num_joints(), clip.num_samples)?
            .apply_to_clip(format, &additive);
        measure::measure_blob_mapped(&reference, blob, &|_, pose: &mut [Transform]| {
            for (l, b) in pose.iter_mut().zip(&base) {
                *l = apply(format, b, l);
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use animcomp::clip::{generate_clip, GenerateOptions};

    #[test]
    fn additive_bench_measures_the_applied_result() {
        let clip = generate_clip(&GenerateOptions {
            joints: 15,
            samples: 40,
            scale: true,
            ..Default::default()
        });
        let settings = CompressSettings::default();
        for f in ["relative", "additive0", "additive1"] {
            let args = AdditiveArgs {
                additive: Some(additive_format(f).unwrap()),
                base: BaseChoice::FirstSample,
            };
            let (blob, _) = args.compress_timed(&clip, &settings).unwrap();
            let h = animcomp::format::Header::parse(blob.as_bytes()).unwrap();
            assert_eq!(h.additive, additive_format(f).unwrap() as u8);
            let m = args.measure_blob(&clip, &blob).unwrap();
            assert!(m.max_error <= 0.01, "{f}: {}", m.max_error);
            // Measuring the additive blob as if it were the clip itself is far off.
            let wrong = measure::measure_blob(&clip, &blob).unwrap();
            assert!(wrong.max_error > 1.0, "{f}: {}", wrong.max_error);
        }
        assert!(additive_format("none").is_err());
        assert!(additive_format("additive2").is_err());
    }
}
