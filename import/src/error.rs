//! Import errors: every one displays as a single line naming the file and, where known, the line.

use std::fmt;
use std::path::{Path, PathBuf};

/// An error from one of the format parsers, before the file path is known.
///
/// Displays as `line N: message` (or just `message` when no line applies).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line number in the text, when the problem is tied to a line.
    pub line: Option<usize>,
    /// What is wrong, e.g. `expected 3 numbers after OFFSET, found "x"`.
    pub message: String,
}

impl ParseError {
    /// An error at a 1-based line.
    pub fn at(line: usize, message: impl Into<String>) -> Self {
        ParseError {
            line: Some(line),
            message: message.into(),
        }
    }

    /// An error not tied to a line (e.g. a missing field).
    pub fn general(message: impl Into<String>) -> Self {
        ParseError {
            line: None,
            message: message.into(),
        }
    }

    /// Attaches the file path, giving an [`ImportError::Parse`].
    pub fn in_file(self, path: &Path) -> ImportError {
        ImportError::Parse {
            path: path.to_path_buf(),
            line: self.line,
            message: self.message,
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ParseError {}

/// Why a file could not be imported. `Display` is one line: `path:line: what is wrong`,
/// or `path: what is wrong` when no line applies.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The file could not be read.
    #[error("{}: cannot read file: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// The file's extension is not one of the supported formats.
    #[error("{}: unsupported file type (expected a clip: .bvh, .gltf, .glb, .fbx, .acl.sjson; or curves: .csv Live Link Face, .npy frames x curves)", .path.display())]
    Unsupported {
        /// The file.
        path: PathBuf,
    },
    /// The file's content is malformed.
    #[error("{}{}: {message}", .path.display(), line_suffix(*.line))]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line number, when the problem is tied to a line.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
}

fn line_suffix(line: Option<usize>) -> String {
    line.map(|l| format!(":{l}")).unwrap_or_default()
}

impl ImportError {
    /// The line number of a parse error, if any.
    pub fn line(&self) -> Option<usize> {
        match self {
            ImportError::Parse { line, .. } => *line,
            _ => None,
        }
    }
}
