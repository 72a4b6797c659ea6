//! `animcomp`: compress, inspect, sample and benchmark animation clips from the command line.
//!
//! Each subcommand lives in its own module; [`measure`] holds what they share (loading and
//! preparing clips, compressing with timing, measuring error through the decompressor).

// Standard output goes through these two macros, which shadow the standard ones in this crate:
// a failed write (`> /dev/full`, a full disk) is kept, not panicked on, and `main` reports it as
// the command's error with exit status 1. Later writes are skipped.
macro_rules! println {
    () => {
        $crate::write_stdout(format_args!(""), true)
    };
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!($($arg)*), true)
    };
}
macro_rules! print {
    ($($arg:tt)*) => {
        $crate::write_stdout(format_args!($($arg)*), false)
    };
}

mod additive;
mod bench;
mod bench_output;
mod compress;
mod curves;
mod curves_baseline;
mod export;
mod gltf_doc;
mod input;
mod inspect;
mod measure;
mod output;
mod peers;
mod regroup;
mod report;
mod report_tiers;
mod runtime_bench;
mod sample;
mod sample_set;
mod svg;
mod table;
mod tiers;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Skeletal animation compression: compress clips, inspect and sample blobs, benchmark codecs.
#[derive(Parser)]
#[command(name = "animcomp", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compress one clip (BVH, glTF/GLB, FBX, ACL .acl.sjson) or curves (Live Link Face .csv,
    /// .npy) into a blob.
    Compress(compress::Args),
    /// Print a blob's header, section sizes and per-track storage.
    Inspect(inspect::Args),
    /// Decompress one pose (or one joint) of a blob at a time.
    Sample(sample::Args),
    /// Compress, decompress and measure many clips; print a table (and optionally JSON).
    Bench(bench::Args),
    /// Draw an SVG of a clip's error over time and its joints' error ranking (for a resident
    /// blob with its tier files beside it: each fidelity's error and pose).
    Report(report::Args),
    /// Compress, decode and write a glTF (.glb) of the skeleton and the decoded animation (same
    /// inputs as compress).
    Export(export::Args),
    /// Rewrite a vbr blob of format version 2 (which this library no longer samples) in the
    /// grouped layout (format version 5) without recompressing.
    Regroup(regroup::Args),
    /// Quality tiers: `tiers build` compresses clips into a resident blob and tier blobs and
    /// measures each fidelity.
    Tiers(tiers::Args),
}

/// What a command failed with: one line, printed after `animcomp: error: `.
pub struct CliError(pub String);

impl<E: std::fmt::Display> From<E> for CliError {
    fn from(e: E) -> Self {
        CliError(e.to_string())
    }
}

/// Lets a closed stdout end the program quietly, as Unix tools do (`animcomp inspect b | head`):
/// Rust ignores SIGPIPE, so a write to a closed pipe would fail and `println!` would panic.
fn quiet_broken_pipe() {
    #[cfg(unix)]
    // SAFETY: restoring the default action of SIGPIPE at startup, before any thread is spawned.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// The first error writing standard output, if any ([`write_stdout`]).
static STDOUT_ERROR: std::sync::OnceLock<std::io::Error> = std::sync::OnceLock::new();

/// Writes to standard output for the `println!` / `print!` of this crate: instead of panicking
/// as the standard macros do when the write fails (`> /dev/full`), the first error is kept for
/// `main` to report, and nothing more is written.
pub fn write_stdout(args: std::fmt::Arguments, newline: bool) {
    use std::io::Write;
    if STDOUT_ERROR.get().is_some() {
        return;
    }
    let mut out = std::io::stdout().lock();
    let r = out.write_fmt(args).and_then(|()| {
        if newline {
            out.write_all(b"\n")
        } else {
            Ok(())
        }
    });
    if let Err(e) = r {
        let _ = STDOUT_ERROR.set(e);
    }
}

/// Standard output's first write error, or the error of its final flush.
fn stdout_error() -> Option<String> {
    use std::io::Write;
    let flushed = match STDOUT_ERROR.get() {
        Some(_) => Ok(()),
        None => std::io::stdout().flush(),
    };
    STDOUT_ERROR
        .get()
        .map(ToString::to_string)
        .or_else(|| flushed.err().map(|e| e.to_string()))
}

/// The ids of the options given on the command line (not defaulted), for the checks that refuse
/// an option that means nothing for the input even when its value equals the default
/// (`--error 0.01` on curves).
static GIVEN: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();

/// Whether option `id` (its field name: `error`, `shell`) was given on the command line.
pub fn given(id: &str) -> bool {
    GIVEN.get().is_some_and(|g| g.iter().any(|x| x == id))
}

fn record_given(m: &clap::ArgMatches) {
    let Some((_, sub)) = m.subcommand() else {
        return;
    };
    let ids = sub
        .ids()
        .filter(|id| sub.value_source(id.as_str()) == Some(clap::parser::ValueSource::CommandLine))
        .map(|id| id.as_str().to_string())
        .collect();
    let _ = GIVEN.set(ids);
}

fn main() -> ExitCode {
    quiet_broken_pipe();
    let matches = <Cli as clap::CommandFactory>::command().get_matches();
    record_given(&matches);
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    let result = match cli.command {
        Command::Compress(a) => compress::run(&a),
        Command::Inspect(a) => inspect::run(&a),
        Command::Sample(a) => sample::run(&a),
        Command::Bench(a) => bench::run(&a),
        Command::Report(a) => report::run(&a),
        Command::Export(a) => export::run(&a),
        Command::Regroup(a) => regroup::run(&a),
        Command::Tiers(a) => tiers::run(&a),
    };
    let code = match result {
        Ok(code) => code,
        Err(CliError(msg)) => {
            eprintln!("animcomp: error: {msg}");
            ExitCode::FAILURE
        }
    };
    match stdout_error() {
        Some(e) => {
            eprintln!("animcomp: error: cannot write to standard output: {e}");
            ExitCode::FAILURE
        }
        None => code,
    }
}
