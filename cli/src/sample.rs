//! `animcomp sample`: decompress the pose (or one joint) of a blob at a time.

use crate::inspect::read_blob;
use crate::CliError;
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::math::FLOATS_PER_JOINT;
use std::path::PathBuf;
use std::process::ExitCode;

/// `--looping` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LoopingArg {
    /// Clamp times to [0, duration].
    Clamp,
    /// Wrap times around the clip's period.
    Wrap,
}

/// `--rounding` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RoundingArg {
    /// Interpolate between the two nearest samples.
    None,
    /// The earlier sample.
    Floor,
    /// The later sample.
    Ceil,
    /// The nearer sample.
    Nearest,
}

/// Arguments of `animcomp sample`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The blob file.
    pub blob: PathBuf,
    /// Time in seconds.
    #[arg(long, short, allow_negative_numbers = true)]
    pub time: f32,
    /// Only this joint (index).
    #[arg(allow_negative_numbers = true, long, short)]
    pub joint: Option<u32>,
    /// What happens to times outside the clip.
    #[arg(long, value_enum, default_value_t = LoopingArg::Clamp)]
    pub looping: LoopingArg,
    /// How a time between samples is resolved.
    #[arg(long, value_enum, default_value_t = RoundingArg::None)]
    pub rounding: RoundingArg,
}

fn fmt_floats(v: &[f32]) -> String {
    v.iter()
        .map(|x| format!("{x:.6}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Runs the command. Prints one line per joint: index, then qx qy qz qw tx ty tz sx sy sz.
pub fn run(a: &Args) -> Result<ExitCode, CliError> {
    let (blob, _) = read_blob(&a.blob)?;
    let at = |e: animcomp::Error| CliError(format!("{}: {e}", a.blob.display()));
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).map_err(at)?;
    let looping = match a.looping {
        LoopingArg::Clamp => Looping::Clamp,
        LoopingArg::Wrap => Looping::Wrap,
    };
    let rounding = match a.rounding {
        RoundingArg::None => Rounding::None,
        RoundingArg::Floor => Rounding::Floor,
        RoundingArg::Ceil => Rounding::Ceil,
        RoundingArg::Nearest => Rounding::Nearest,
    };
    d.seek(a.time, looping, rounding).map_err(at)?;
    if let Some(j) = a.joint.filter(|&j| j as usize >= d.num_joints()) {
        return Err(CliError(format!(
            "{}: joint {j} out of range (the blob has {} joints)",
            a.blob.display(),
            d.num_joints()
        )));
    }
    let k = d.key();
    println!(
        "# time {} -> samples {} and {}, alpha {:.6}",
        a.time, k.i0, k.i1, k.alpha
    );
    println!("# joint qx qy qz qw tx ty tz sx sy sz");
    match a.joint {
        Some(j) => {
            let t = d.sample_joint(j).map_err(at)?;
            let mut v = [0.0f32; FLOATS_PER_JOINT];
            t.write_to(&mut v);
            println!("{j} {}", fmt_floats(&v));
        }
        None => {
            let mut pose = vec![0.0f32; d.num_joints() * FLOATS_PER_JOINT];
            d.sample_pose(&mut pose, FLOATS_PER_JOINT).map_err(at)?;
            for (j, v) in pose.chunks_exact(FLOATS_PER_JOINT).enumerate() {
                println!("{j} {}", fmt_floats(v));
            }
        }
    }
    let nc = d.curves().num_curves() as usize;
    if nc > 0 && a.joint.is_none() {
        let mut v = vec![0.0f32; nc];
        d.sample_curves(&mut v).map_err(at)?;
        println!("# curve id value");
        for (c, x) in v.iter().enumerate() {
            let id = d.curves().id(c as u32).map_err(at)?;
            println!("curve {id} {x:.6}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
