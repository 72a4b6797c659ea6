//! Output paths, checked before any work: `-` (standard output) is refused for binary and SVG
//! outputs, a directory receives the default file name inside it, the input itself is never
//! overwritten (not even with `--force`), an existing file needs `--force`, and the path must be
//! writable (probed without truncating an existing file; a probe file is removed again).

use crate::CliError;
use std::fs::OpenOptions;
use std::path::{Path, PathBuf};

/// Resolves and checks an output path. `default_name` is the file name used when `out` is a
/// directory; `inputs` are the command's input files (each must exist); `what` names the output
/// in messages. Whether an existing output may be replaced is [`refuse_existing`]'s question,
/// asked after the input has been read (so a broken input is reported first).
pub fn check(
    out: &Path,
    default_name: &str,
    inputs: &[&Path],
    what: &str,
) -> Result<PathBuf, CliError> {
    for inp in inputs {
        if !inp.exists() {
            return Err(CliError(format!(
                "{}: no such file or directory",
                inp.display()
            )));
        }
    }
    if out.as_os_str() == "-" {
        return Err(CliError(format!(
            "-o -: the {what} cannot be written to standard output; give a file name"
        )));
    }
    let out = if out.is_dir() {
        out.join(default_name)
    } else {
        out.to_path_buf()
    };
    if out.is_dir() {
        return Err(CliError(format!("{}: is a directory", out.display())));
    }
    for inp in inputs {
        if same_file(inp, &out) {
            return Err(CliError(format!(
                "{}: is the input file; refusing to overwrite it (even with --force)",
                out.display()
            )));
        }
    }
    refuse_other_format(&out, what)?;
    probe_writable(&out, out.exists())?;
    Ok(out)
}

/// Extensions of the files the tools read or write, with what each names.
const FORMATS: &[(&str, &str)] = &[
    ("acmp", "an animcomp blob"),
    ("bvh", "a BVH clip"),
    ("gltf", "a glTF file"),
    ("glb", "a glTF file"),
    ("fbx", "an FBX file"),
    ("sjson", "an ACL clip"),
    ("csv", "a Live Link Face take"),
    ("npy", "a NumPy array"),
    ("svg", "an SVG image"),
    ("json", "a JSON file"),
];

/// The extensions an output of kind `what` (as passed to [`check`]) is written with.
fn own_extensions(what: &str) -> &'static [&'static str] {
    match what {
        "blob" => &["acmp"],
        "glTF" => &["glb", "gltf"],
        "SVG" => &["svg"],
        _ => &[],
    }
}

/// Refuses an output path whose extension names another format than the output's (`compress -o
/// clip.glb` would write a blob named like a glTF): any extension the tools know that is not the
/// output's own. Other extensions, or none, are the user's choice.
fn refuse_other_format(out: &Path, what: &str) -> Result<(), CliError> {
    let Some(ext) = out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
    else {
        return Ok(());
    };
    let own = own_extensions(what);
    if own.is_empty() || own.contains(&ext.as_str()) {
        return Ok(());
    }
    let Some((_, names)) = FORMATS.iter().find(|(e, _)| *e == ext) else {
        return Ok(());
    };
    Err(CliError(format!(
        "{}: .{ext} names {names}, but this writes the {what}; give a .{} name",
        out.display(),
        own.join(" or .")
    )))
}

/// Refuses an existing output without `--force`.
pub fn refuse_existing(out: &Path, force: bool) -> Result<(), CliError> {
    if out.exists() && !force {
        return Err(CliError(format!(
            "{}: already exists (pass --force to overwrite it)",
            out.display()
        )));
    }
    Ok(())
}

/// Checks that `path` can be written (for `--json` files, which overwrite like text outputs).
pub fn check_writable(path: &Path, inputs: &[&Path]) -> Result<(), CliError> {
    if path.as_os_str() == "-" {
        return Ok(());
    }
    if path.is_dir() {
        return Err(CliError(format!("{}: is a directory", path.display())));
    }
    for inp in inputs {
        if same_file(inp, path) {
            return Err(CliError(format!(
                "{}: is an input file; refusing to overwrite it",
                path.display()
            )));
        }
    }
    probe_writable(path, path.exists())
}

fn probe_writable(path: &Path, existed: bool) -> Result<(), CliError> {
    let r = OpenOptions::new()
        .write(true)
        .create(!existed)
        .truncate(false)
        .open(path);
    match r {
        Ok(_) => {
            if !existed {
                let _ = std::fs::remove_file(path);
            }
            Ok(())
        }
        Err(e) => Err(CliError(format!("{}: cannot write: {e}", path.display()))),
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
