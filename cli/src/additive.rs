//! `--additive <format> --base first-sample|bind|FILE` on `compress`, `bench` and `export`: each
//! clip becomes an additive clip relative to the base (its own first sample, its skeleton's bind
//! pose, or a base clip or pose read from a file with the same joints; a base clip of another
//! length is stretched over the clip's duration, as ACL does), is compressed with that base, and
//! its error is measured on the applied result (base ⊕ decoded additive) against base ⊕ raw
//! additive (what a player shows from the uncompressed additive clip), with the usual metric.
//! That reference differs from the original clip only by the f32 rounding of the conversion (a
//! few 1e-5 cm on clips that walk metres away from their first sample), which is not compression
//! error.

use crate::measure::{self, SettingsArgs};
use animcomp::math::Transform;
use animcomp::{
    offline::additive::{make_additive_clip, AdditiveBase, BasePoses},
    runtime::additive::apply,
    AdditiveFormat,
};
use animcomp::{AlignedBlob, CompressSettings, RawClip};
use std::time::{Duration, Instant};

/// Which base an additive clip is relative to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BaseChoice {
    /// Each clip's own first sample (a single pose).
    FirstSample,
    /// The clip's skeleton's bind pose (a single pose; the clip must carry one).
    Bind,
    /// A clip file (its first clip, imported with the same options); a one-sample clip is a pose.
    File(std::path::PathBuf),
}

/// Parses `first-sample`, `bind` or a file path.
pub fn base_choice(s: &str) -> Result<BaseChoice, String> {
    match s {
        "first-sample" => Ok(BaseChoice::FirstSample),
        "bind" => Ok(BaseChoice::Bind),
        "" => Err("--base: give first-sample, bind or a clip file".into()),
        p => Ok(BaseChoice::File(p.into())),
    }
}

/// A resolved base: one pose, or a clip.
enum Base {
    Pose(Vec<Transform>),
    Clip(RawClip),
}

impl Base {
    fn as_additive_base(&self) -> AdditiveBase<'_> {
        match self {
            Base::Pose(p) => AdditiveBase::Pose(p),
            Base::Clip(c) => AdditiveBase::Clip(c),
        }
    }
}

/// The additive options of `compress`, `bench` and `export`.
#[derive(Debug, Clone, clap::Args)]
pub struct AdditiveArgs {
    /// Additive compression: turn each clip into an additive clip in this format (ACL's names:
    /// relative, additive0, additive1) relative to --base, compress it with that base and
    /// measure the error of base ⊕ decoded additive against the original clip.
    #[arg(long, value_parser = additive_format, value_name = "FORMAT")]
    pub additive: Option<AdditiveFormat>,
    /// The base of --additive: first-sample (each clip's first pose), bind (the skeleton's bind
    /// pose), or a clip file with the same joints (a pose when it has one sample).
    #[arg(
        long,
        value_parser = base_choice,
        default_value = "first-sample",
        requires = "additive",
        value_name = "first-sample|bind|FILE"
    )]
    pub base: BaseChoice,
    /// Which clip of a --base FILE holding several (an FBX animation stack or glTF animation),
    /// by name or by index from 0 [default: its first].
    #[arg(long, requires = "base", value_name = "NAME|INDEX")]
    pub base_stack: Option<String>,
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
    /// What the base is, in words.
    fn base_name(&self) -> String {
        match &self.base {
            BaseChoice::FirstSample => "its first sample".into(),
            BaseChoice::Bind => "its bind pose".into(),
            BaseChoice::File(p) => p.display().to_string(),
        }
    }

    /// The base for `clip`.
    fn resolve(&self, clip: &RawClip, import: &SettingsArgs) -> animcomp::Result<Base> {
        match &self.base {
            BaseChoice::FirstSample => Ok(Base::Pose(first_sample(clip))),
            BaseChoice::Bind => match &clip.skeleton.bind_pose {
                Some(b) if b.len() == clip.num_joints() => Ok(Base::Pose(b.clone())),
                _ => Err(animcomp::Error::InvalidArgument(
                    "--base bind: the clip has no bind pose",
                )),
            },
            BaseChoice::File(p) => {
                let settings = SettingsArgs {
                    stack: self.base_stack.clone(),
                    ..import.clone()
                };
                let clips = crate::measure::load_file(p, &settings).map_err(|_| {
                    animcomp::Error::InvalidArgument(
                        "--base FILE: cannot load it (or no such --base-stack)",
                    )
                })?;
                let Some(first) = clips.into_iter().next() else {
                    return Err(animcomp::Error::InvalidArgument(
                        "--base FILE: the file holds no clip",
                    ));
                };
                let mut b = first.clip;
                b.validate()?;
                if b.num_joints() != clip.num_joints() {
                    return Err(animcomp::Error::InvalidArgument(
                        "--base FILE: the base has a different number of joints",
                    ));
                }
                Ok(if b.num_samples == 1 {
                    Base::Pose(first_sample(&b))
                } else {
                    Base::Clip(b)
                })
            }
        }
    }

    /// Prints what is benchmarked when --additive is given.
    pub fn print_banner(&self) {
        if let Some(f) = self.additive {
            println!(
                "additive: each clip relative to {} in format {}; errors are of \
                 base ⊕ decoded additive against base ⊕ raw additive",
                self.base_name(),
                f.name()
            );
        }
    }

    /// The clip a player shows from `blob`'s decoded poses with the base applied, as measured
    /// by [`Self::measure_blob`]: for a plain blob, the decoded poses themselves.
    pub fn applied_poses(
        &self,
        clip: &RawClip,
        import: &SettingsArgs,
        poses: &mut [Vec<Transform>],
    ) -> animcomp::Result<()> {
        let Some(format) = self.additive else {
            return Ok(());
        };
        let base = self.resolve(clip, import)?;
        let bp = BasePoses::new(
            &base.as_additive_base(),
            clip.num_joints(),
            clip.num_samples,
        )?;
        for (i, p) in poses.iter_mut().enumerate() {
            for (l, b) in p.iter_mut().zip(bp.pose(i)) {
                *l = apply(format, b, l);
            }
        }
        Ok(())
    }

    /// Compresses `clip` (plainly, or as an additive clip relative to its base) and times the
    /// compression call (the conversion to an additive clip is not timed).
    pub fn compress_timed(
        &self,
        clip: &RawClip,
        settings: &CompressSettings,
        import: &SettingsArgs,
    ) -> animcomp::Result<(AlignedBlob, Duration)> {
        let Some(format) = self.additive else {
            return measure::compress_timed(clip, settings);
        };
        let base = self.resolve(clip, import)?;
        let base = base.as_additive_base();
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
        import: &SettingsArgs,
    ) -> animcomp::Result<measure::Measured> {
        let Some(format) = self.additive else {
            return measure::measure_blob(clip, blob);
        };
        let base = self.resolve(clip, import)?;
        let pose = base.as_additive_base();
        let additive = make_additive_clip(clip, &pose, format)?;
        let bp = BasePoses::new(&pose, clip.num_joints(), clip.num_samples)?;
        let reference = bp.apply_to_clip(format, &additive);
        measure::measure_blob_mapped(&reference, blob, &|i, pose: &mut [Transform]| {
            for (l, b) in pose.iter_mut().zip(bp.pose(i)) {
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
                base_stack: None,
            };
            let import = crate::measure::default_settings();
            let (blob, _) = args.compress_timed(&clip, &settings, &import).unwrap();
            let h = animcomp::format::Header::parse(blob.as_bytes()).unwrap();
            assert_eq!(h.additive, additive_format(f).unwrap() as u8);
            let m = args.measure_blob(&clip, &blob, &import).unwrap();
            assert!(m.max_error <= 0.01, "{f}: {}", m.max_error);
            // Measuring the additive blob as if it were the clip itself is far off.
            let wrong = measure::measure_blob(&clip, &blob).unwrap();
            assert!(wrong.max_error > 1.0, "{f}: {}", wrong.max_error);
        }
        assert!(additive_format("none").is_err());
        assert!(additive_format("additive2").is_err());
    }
}
