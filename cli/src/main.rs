//! `animcomp`: compress, inspect, sample and benchmark animation clips from the command line.
//!
//! Each subcommand lives in its own module; [`measure`] holds what they share (loading and
//! preparing clips, compressing with timing, measuring error through the decompressor).

mod additive;
mod bench;
mod bench_output;
mod compress;
mod curves;
mod curves_baseline;
mod export;
mod inspect;
mod measure;
mod output;
mod peers;
mod report;
mod runtime_bench;
mod sample;
mod sample_set;
mod svg;
mod table;

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
    /// Compress one clip (BVH, glTF/GLB, ACL .acl.sjson) into a blob.
    Compress(compress::Args),
    /// Print a blob's header, section sizes and per-track storage.
    Inspect(inspect::Args),
    /// Decompress one pose (or one joint) of a blob at a time.
    Sample(sample::Args),
    /// Compress, decompress and measure many clips; print a table (and optionally JSON).
    Bench(bench::Args),
    /// Draw an SVG of a clip's error over time and its joints' error ranking.
    Report(report::Args),
    /// Compress, decode and write a glTF (.glb) of the skeleton and the decoded animation.
    Export(export::Args),
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

/// Rust's `println!` panics when standard output cannot be written (`> /dev/full`): turn that
/// into the one-line error every other failure gives, exit status 1, no backtrace.
fn stdout_errors_are_errors() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(rest) = msg.strip_prefix("failed printing to stdout: ") {
            eprintln!("animcomp: error: cannot write to standard output: {rest}");
            std::process::exit(1);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    quiet_broken_pipe();
    stdout_errors_are_errors();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Compress(a) => compress::run(&a),
        Command::Inspect(a) => inspect::run(&a),
        Command::Sample(a) => sample::run(&a),
        Command::Bench(a) => bench::run(&a),
        Command::Report(a) => report::run(&a),
        Command::Export(a) => export::run(&a),
    };
    match result {
        Ok(code) => code,
        Err(CliError(msg)) => {
            eprintln!("animcomp: error: {msg}");
            ExitCode::FAILURE
        }
    }
}
