//! `animcomp tiers build`: clips compressed with quality tiers (docs/tiers.md), a resident blob and one
//! tier blob per level each, with the bytes and the float64 error of every fidelity.
//!
//! Each fidelity is measured on the plain blob `compress_tiered_fidelities` writes for it (the
//! samples of the resident blob and of levels 1..=k): it decodes bit for bit like the resident
//! blob with those levels attached (the library's `tests/tiers.rs` checks that on every decoder).
//! Errors are judged by `animcomp_import::judge64`, the float64 reference the error-bound tests
//! use. What `inspect` says of tier files is [`describe_tier`] and [`describe_resident`].

use crate::input::{self, ClipArgs};
use crate::measure;
use crate::table::{thousands, Table};
use crate::CliError;
use animcomp::decompress::{DecompressOptions, Decompressor};
use animcomp::format::header::TierInfo;
use animcomp::format::tier::{TIER_HEADER, TIER_MAGIC};
use animcomp::format::Header;
use animcomp::offline::tiers::{
    compress_tiered_fidelities, plan_budget, tier_candidates, BudgetPlan, TierBudget,
};
use animcomp::runtime::{OpenBlob, TierSet};
use animcomp::{AlignedBlob, CodecChoice, RawClip, TierSettings};
use animcomp_import::judge64::{max_p99, Reference};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `animcomp tiers`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

/// The `tiers` subcommands.
#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// Compress clips with quality tiers: `<name>.blob` (resident: samples on its own at the
    /// lowest fidelity) and `<name>.tier1` (, `<name>.tier2`) per clip, then print per clip and in
    /// total the bytes and the max / p99 error (float64) of each fidelity.
    ///
    /// Each fidelity (resident, + level 1, all levels) is measured on a plain blob storing the
    /// same samples, which decodes bit for bit like the resident blob with those levels attached.
    Build(BuildArgs),
}

/// Arguments of `animcomp tiers build`.
#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// Clip files (.bvh, .gltf/.glb, .fbx, .acl.sjson) or folders (every clip file under them);
    /// none: the built-in generated clip set of `animcomp bench`.
    pub inputs: Vec<PathBuf>,
    /// The folder the blobs are written to (created if missing).
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
    /// Tier levels: 1 (resident and one tier) or 2 (resident, level 1, level 2).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=2))]
    pub levels: u8,
    /// The resident blob's error bound, as a multiple of each joint's precision (--error).
    #[arg(long, default_value_t = 10.0, value_parser = measure::positive_f32, value_name = "F")]
    pub resident_factor: f32,
    /// With two levels, the bound with level 1 attached, as a multiple of each joint's
    /// precision (at most --resident-factor).
    #[arg(long, default_value_t = 3.0, value_parser = measure::positive_f32, value_name = "F")]
    pub medium_factor: f32,
    /// A byte budget shared by every clip of the inputs: their resident blobs together take at
    /// most this fraction of the bytes of the blobs without tiers (e.g. 0.5). Samples leave the
    /// resident blobs cheapest first across the whole set, above --resident-factor when the
    /// factor alone does not fit; a clip's bounds then depend on the others. A budget that
    /// cannot be met (every removable sample out) writes the blobs and exits with status 1.
    #[arg(long, value_parser = budget_fraction, value_name = "F")]
    pub resident_budget: Option<f64>,
    /// With --resident-budget and two levels: the resident blobs with level 1 attached (as
    /// blobs storing those samples) at most this fraction (at least --resident-budget).
    #[arg(long, value_parser = budget_fraction, value_name = "F", requires = "resident_budget")]
    pub medium_budget: Option<f64>,
    #[command(flatten)]
    pub opts: ClipArgs,
}

/// Parses a budget: a fraction of the bytes, finite and above 0.
fn budget_fraction(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number"))?;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(format!("{s} must be finite and greater than 0"))
    }
}

/// Runs `animcomp tiers`.
pub fn run(a: &Args) -> Result<ExitCode, CliError> {
    match &a.command {
        Command::Build(b) => build(b),
    }
}

/// One clip to compress: its output name and the prepared clip.
struct Job {
    name: String,
    source: String,
    clip: RawClip,
}

/// Bytes and float64 errors of one fidelity.
#[derive(Default, Clone)]
struct Fidelity {
    /// Bytes needed to sample at this fidelity: the resident blob plus the tiers attached.
    bytes: usize,
    errors: Vec<f64>,
}

/// What one clip gave.
struct Built {
    full_bytes: usize,
    /// Resident, + level 1, (+ level 2).
    fidelities: Vec<Fidelity>,
}

/// Every joint-sample error of `blob` decoded at the clip's samples, judged in float64.
fn errors_f64(judge: &Reference, blob: &[u8]) -> animcomp::Result<Vec<f64>> {
    let blob = AlignedBlob::from_bytes(blob);
    let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default())?;
    judge.errors_of(&mut d)
}

/// The clips of the inputs (or the built-in set), prepared with the settings.
fn gather(a: &BuildArgs) -> Result<Vec<Job>, CliError> {
    if a.inputs.is_empty() {
        let mut jobs = Vec::new();
        for clip in crate::sample_set::clips() {
            let name = clip.name.clone();
            let clip = measure::prepare_clip(clip, &a.opts.settings)
                .map_err(|e| CliError(format!("<built-in> {name}: {e}")))?;
            jobs.push(Job {
                name,
                source: "<built-in>".into(),
                clip,
            });
        }
        return Ok(jobs);
    }
    for p in &a.inputs {
        if !p.exists() {
            return Err(CliError(format!(
                "{}: no such file or directory",
                p.display()
            )));
        }
    }
    let files: Vec<PathBuf> = animcomp_import::collect_files(&a.inputs)
        .into_iter()
        .filter(|p| !p.is_dir())
        .collect();
    if files.is_empty() {
        return Err(CliError("no clip file in the inputs".into()));
    }
    let mut jobs: Vec<Job> = Vec::new();
    for f in files {
        let mut asset = input::read(&f, &a.opts.settings)?;
        if asset.is_curve_only() {
            return Err(CliError(format!(
                "{}: holds curves only; quality tiers are for joints",
                f.display()
            )));
        }
        let clip = input::take_clip(&mut asset, &a.opts)?;
        if !asset.curve_sets.is_empty() {
            eprintln!(
                "animcomp: warning: {}: tiered blobs hold joints only; the curves are left out",
                f.display()
            );
        }
        let name = measure::file_stem(&f)
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._-".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect::<String>();
        if let Some(other) = jobs.iter().find(|j| j.name == name) {
            return Err(CliError(format!(
                "{} and {} would both write {name}.blob (same file name)",
                other.source,
                f.display()
            )));
        }
        jobs.push(Job {
            name,
            source: f.display().to_string(),
            clip,
        });
    }
    Ok(jobs)
}

/// The files of one clip: resident then tiers.
fn file_names(name: &str, levels: u8) -> Vec<String> {
    let mut v = vec![format!("{name}.blob")];
    v.extend((1..=levels).map(|l| format!("{name}.tier{l}")));
    v
}

fn build(a: &BuildArgs) -> Result<ExitCode, CliError> {
    if let Some(c) = a.opts.codec.filter(|c| *c != CodecChoice::Vbr) {
        return Err(CliError(format!(
            "--codec {}: quality tiers need the vbr codec",
            c.name()
        )));
    }
    let tiers = TierSettings {
        levels: a.levels,
        resident_factor: a.resident_factor,
        medium_factor: a.medium_factor,
    };
    if a.levels == 2 && a.medium_factor > a.resident_factor {
        return Err(CliError(format!(
            "--medium-factor {} is above --resident-factor {}",
            a.medium_factor, a.resident_factor
        )));
    }
    if let Some(resident) = a.resident_budget {
        if a.medium_budget.is_some() && a.levels != 2 {
            return Err(CliError("--medium-budget needs --levels 2".into()));
        }
        if a.medium_budget.is_some_and(|m| m < resident) {
            return Err(CliError(
                "--medium-budget is below --resident-budget".into(),
            ));
        }
    }
    if a.output.exists() && !a.output.is_dir() {
        return Err(CliError(format!(
            "{}: is not a folder (-o names the folder the blobs go to)",
            a.output.display()
        )));
    }
    let jobs = gather(a)?;
    for j in &jobs {
        for f in file_names(&j.name, a.levels) {
            crate::output::refuse_existing(&a.output.join(f), a.opts.force)?;
        }
    }
    std::fs::create_dir_all(&a.output)
        .map_err(|e| CliError(format!("{}: cannot create: {e}", a.output.display())))?;
    let settings = a.opts.settings.settings(CodecChoice::Vbr);
    let mut tiers = tiers;
    let mut unmet = None;
    if let Some(resident) = a.resident_budget {
        let budget = TierBudget {
            resident,
            medium: a.medium_budget,
        };
        let cands = jobs
            .par_iter()
            .map(|j| {
                tier_candidates(&j.clip, &settings, &tiers)
                    .map_err(|e| CliError(format!("{}: {e}", j.source)))
            })
            .collect::<Result<Vec<_>, CliError>>()?;
        let refs: Vec<_> = cands.iter().collect();
        let plan = plan_budget(&refs, &tiers, &budget).map_err(|e| CliError(e.to_string()))?;
        print_plan(&plan, &budget);
        if !plan.resident_reached || !plan.medium_reached {
            unmet = Some(plan);
        }
        tiers = plan.tiers;
    }
    let results: Vec<Result<Built, CliError>> = jobs
        .par_iter()
        .map(|j| {
            let fail = |e: animcomp::Error| CliError(format!("{}: {e}", j.source));
            let b = compress_tiered_fidelities(&j.clip, &settings, &tiers).map_err(fail)?;
            let files = file_names(&j.name, a.levels);
            let mut blobs = vec![&b.blobs.resident];
            blobs.extend(&b.blobs.tiers);
            for (f, bytes) in files.iter().zip(blobs) {
                let p = a.output.join(f);
                std::fs::write(&p, bytes)
                    .map_err(|e| CliError(format!("{}: cannot write: {e}", p.display())))?;
            }
            let judge = Reference::new(&j.clip);
            let mut fidelities = Vec::new();
            let mut bytes = b.blobs.resident.len();
            for (k, fb) in b.fidelities.iter().enumerate() {
                if k > 0 {
                    bytes += b.blobs.tiers[k - 1].len();
                }
                fidelities.push(Fidelity {
                    bytes,
                    errors: errors_f64(&judge, fb).map_err(fail)?,
                });
            }
            Ok(Built {
                full_bytes: b.full.len(),
                fidelities,
            })
        })
        .collect();
    let mut built = Vec::new();
    for (j, r) in jobs.iter().zip(results) {
        built.push((j, r?));
    }
    print_table(a, &tiers, &built);
    if let Some(plan) = unmet {
        eprintln!(
            "animcomp: the budget is not reachable: with every removable sample out of the \
             resident blobs they take {} of the bytes{}",
            ratio(plan.resident_bytes as usize, plan.full_bytes as usize),
            match plan.medium_reached {
                true => String::new(),
                false => format!(
                    ", with level 1 {}",
                    ratio(plan.medium_bytes as usize, plan.full_bytes as usize)
                ),
            }
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// A threshold as printed (`f32::MAX`: every removable sample).
fn factor(f: f32) -> String {
    match f == f32::MAX {
        true => "every removable sample".into(),
        false => format!("{f}x the precision"),
    }
}

/// The thresholds a shared budget gave.
fn print_plan(plan: &BudgetPlan, budget: &TierBudget) {
    println!(
        "shared budget: resident <= {} of {} bytes without tiers{}: resident threshold {}{}; \
         planned resident {}{}",
        budget.resident,
        thousands(plan.full_bytes),
        budget
            .medium
            .map_or(String::new(), |m| format!(", with level 1 <= {m}")),
        factor(plan.tiers.resident_factor),
        match plan.tiers.levels {
            2 => format!(", level 2 threshold {}", factor(plan.tiers.medium_factor)),
            _ => String::new(),
        },
        ratio(plan.resident_bytes as usize, plan.full_bytes as usize),
        match plan.tiers.levels {
            2 => format!(
                ", with level 1 {}",
                ratio(plan.medium_bytes as usize, plan.full_bytes as usize)
            ),
            _ => String::new(),
        },
    );
}

fn ratio(a: usize, b: usize) -> String {
    format!("{:.3}", a as f64 / b.max(1) as f64)
}

fn print_table(a: &BuildArgs, tiers: &TierSettings, built: &[(&Job, Built)]) {
    let levels = a.levels as usize;
    println!(
        "wrote {} clip{} to {} (<name>.blob resident, <name>.tier1{})",
        built.len(),
        if built.len() == 1 { "" } else { "s" },
        a.output.display(),
        if levels == 2 { ", <name>.tier2" } else { "" }
    );
    match a.resident_budget {
        None => println!(
            "precision {}, shell {}; resident within {}x the precision{}; errors in float64 over \
             every joint and sample",
            a.opts.settings.error,
            a.opts.settings.shell,
            a.resident_factor,
            if levels == 2 {
                format!(", with level 1 within {}x", a.medium_factor)
            } else {
                String::new()
            }
        ),
        Some(_) => println!(
            "precision {}, shell {}; samples out of the resident blob up to {}{}; the bounds \
             depend on the set: errors measured in float64 over every joint and sample",
            a.opts.settings.error,
            a.opts.settings.shell,
            factor(tiers.resident_factor),
            if levels == 2 {
                format!(", of level 1 up to {}", factor(tiers.medium_factor))
            } else {
                String::new()
            }
        ),
    }
    let mut headers = vec!["clip", "full bytes", "resident/full"];
    if levels == 2 {
        headers.push("+1/full");
    }
    headers.extend(["all/full", "max resident", "p99 resident"]);
    if levels == 2 {
        headers.extend(["max +1", "p99 +1"]);
    }
    headers.extend(["max all", "p99 all"]);
    let mut t = Table::new(&headers);
    let row = |name: &str, full: usize, fids: &mut [Fidelity]| {
        let mut cells = vec![name.to_string(), thousands(full as u64)];
        cells.extend(fids.iter().map(|f| ratio(f.bytes, full)));
        for f in fids.iter_mut() {
            let (max, p99) = max_p99(&mut f.errors);
            cells.push(format!("{max:.5}"));
            cells.push(format!("{p99:.5}"));
        }
        cells
    };
    let mut total_full = 0;
    let mut total: Vec<Fidelity> = vec![Fidelity::default(); levels + 1];
    for (j, b) in built {
        total_full += b.full_bytes;
        for (t, f) in total.iter_mut().zip(&b.fidelities) {
            t.bytes += f.bytes;
            t.errors.extend_from_slice(&f.errors);
        }
        let mut fids = b.fidelities.clone();
        t.row(row(&j.name, b.full_bytes, &mut fids));
    }
    if built.len() > 1 {
        t.separator();
        t.row(row("total", total_full, &mut total));
    }
    print!("{}", t.render());
}

// ---------------------------------------------------------------------------------------------
// inspect

/// The lines `animcomp inspect` prints for a resident blob (with tiers); `None` for a blob
/// without tiers.
pub fn describe_resident(h: &Header, blob: &[u8]) -> Option<String> {
    let info = TierInfo::read(h, blob)?;
    Some(format!(
        "tiers          {} level{} (resident blob), key {:#018x}",
        info.levels,
        if info.levels == 1 { "" } else { "s" },
        info.key
    ))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Whether `bytes` starts with a tier blob's magic.
pub fn is_tier(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && bytes[..4] == TIER_MAGIC
}

/// `animcomp inspect` of a tier blob: its header fields; with `resident`, whether it attaches to
/// that resident blob (the library's validation: checksum, key, every record and frame).
pub fn describe_tier(
    path: &Path,
    tier: &AlignedBlob,
    resident: Option<&Path>,
) -> Result<ExitCode, CliError> {
    let b = tier.as_bytes();
    if b.len() < TIER_HEADER {
        return Err(CliError(format!(
            "{}: {} bytes, shorter than a tier blob's header ({TIER_HEADER})",
            path.display(),
            b.len()
        )));
    }
    let version = u16::from_le_bytes([b[4], b[5]]);
    let total = u32_at(b, 8) as usize;
    let checksum = u32_at(b, 12);
    let key = u64::from_le_bytes(b[16..24].try_into().unwrap());
    let crc_ok = total == b.len() && animcomp::format::checksum::crc32c(&b[16..]) == checksum;
    println!("file           {}", path.display());
    println!("kind           tier blob (ACTR), version {version}");
    println!("level          {} of {}", b[6], b[7]);
    println!(
        "total size     {} bytes{}",
        thousands(total as u64),
        if total == b.len() {
            String::new()
        } else {
            format!(" (the file has {})", thousands(b.len() as u64))
        }
    );
    println!(
        "checksum       {checksum:#010x} ({})",
        if crc_ok { "verified" } else { "MISMATCH" }
    );
    println!("key            {key:#018x}");
    println!(
        "resident       checksum {:#010x}, {} bytes",
        u32_at(b, 24),
        thousands(u32_at(b, 28) as u64)
    );
    println!("segments       {}", u32_at(b, 32));
    println!(
        "frames         offset {TIER_HEADER}, {} bytes",
        thousands(u32_at(b, 36) as u64)
    );
    let Some(rp) = resident else {
        return Ok(if crc_ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    };
    let (rblob, _) = crate::inspect::read_blob(rp)?;
    let open = OpenBlob::open(rblob.as_bytes(), &DecompressOptions::default())
        .map_err(|e| CliError(format!("{}: {e}", rp.display())))?;
    let set = TierSet::new(&open).map_err(|e| CliError(format!("{}: {e}", rp.display())))?;
    match set.attach(b) {
        Ok(level) => {
            println!("attaches to    {} (level {level}: validated)", rp.display());
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            println!("attaches to    not {}: {e}", rp.display());
            Ok(ExitCode::FAILURE)
        }
    }
}
