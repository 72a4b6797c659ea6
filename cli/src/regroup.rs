//! `animcomp regroup`: rewrite a `vbr` blob of format version 2 (the segments layout, which the
//! runtime refuses) in the grouped layout (format version 5) without recompressing it
//! (`animcomp::offline::regroup_blob`).

use crate::inspect::read_file;
use crate::output;
use crate::CliError;
use animcomp::format::header::GROUPED_FORMAT_VERSION;
use animcomp::format::Header;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `animcomp regroup`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The blob file (a `vbr` blob with joints, format version 2 or 4).
    pub blob: PathBuf,
    /// Output file (or directory: `<BLOB stem>.grouped.acmp` inside it).
    #[arg(short, long)]
    pub out: PathBuf,
    /// Overwrite an existing output.
    #[arg(long)]
    pub force: bool,
}

/// Runs the command: writes the grouped blob, prints both sizes.
pub fn run(a: &Args) -> Result<ExitCode, CliError> {
    let stem = a
        .blob
        .file_stem()
        .map_or("blob".into(), |s| s.to_string_lossy().into_owned());
    let out = output::check(&a.out, &format!("{stem}.grouped.acmp"), &[&a.blob], "blob")?;
    let blob = read_file(&a.blob)?;
    // Validates the blob, checksum included, before anything is read from it.
    let grouped = animcomp::offline::regroup_blob(blob.as_bytes())
        .map_err(|e| CliError(format!("{}: {e}", a.blob.display())))?;
    let h = Header::parse(blob.as_bytes())?;
    output::refuse_existing(&out, a.force)?;
    std::fs::write(&out, &grouped)
        .map_err(|e| CliError(format!("{}: cannot write: {e}", out.display())))?;
    println!(
        "{}: format version {} -> {GROUPED_FORMAT_VERSION}, {} -> {} bytes ({:+.2} %)",
        out.display(),
        h.version,
        h.total_size,
        grouped.len(),
        (grouped.len() as f64 / h.total_size as f64 - 1.0) * 100.0
    );
    Ok(ExitCode::SUCCESS)
}
