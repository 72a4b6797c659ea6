//! Peer figures: the `/work/shared/peers/*.tsv` files (ACL's results on the same clips), one row
//! per clip with at least the columns `clip`, `compressed_bytes` and `max_error`
//! (`raw_bytes` and `ns_per_pose` are read when present). `TOTAL(...)` rows are ignored.

use crate::CliError;
use std::collections::HashMap;
use std::path::Path;

/// One clip's peer figures.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PeerRow {
    /// The peer's blob size.
    pub compressed_bytes: u64,
    /// The peer's measured max error.
    pub max_error: f64,
    /// The peer's raw size, when given.
    pub raw_bytes: Option<u64>,
    /// The peer's ns per pose, when given (only comparable as a ratio on one machine).
    pub ns_per_pose: Option<f64>,
}

/// Reads a peer TSV file into a map from clip name to figures.
pub fn read(path: &Path) -> Result<HashMap<String, PeerRow>, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError(format!("{}: cannot read file: {e}", path.display())))?;
    parse(&text).map_err(|(line, msg)| CliError(format!("{}:{line}: {msg}", path.display())))
}

/// Parses peer TSV text. Errors carry a 1-based line number.
pub fn parse(text: &str) -> Result<HashMap<String, PeerRow>, (usize, String)> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines.next().ok_or((1, "empty file".to_string()))?;
    let cols: Vec<&str> = header.split('\t').map(str::trim).collect();
    let col = |name: &str| cols.iter().position(|c| *c == name);
    let need = |name: &str| col(name).ok_or((1, format!("missing column '{name}' in the header")));
    let (c_clip, c_bytes, c_err) = (need("clip")?, need("compressed_bytes")?, need("max_error")?);
    let (c_raw, c_ns) = (col("raw_bytes"), col("ns_per_pose"));
    let mut out = HashMap::new();
    for (i, line) in lines {
        let f: Vec<&str> = line.split('\t').map(str::trim).collect();
        let get = |c: usize| {
            f.get(c).copied().ok_or((
                i + 1,
                format!("expected {} columns, found {}", cols.len(), f.len()),
            ))
        };
        let name = get(c_clip)?;
        if name.starts_with("TOTAL") {
            continue;
        }
        let num = |c: usize, what: &str| -> Result<f64, (usize, String)> {
            let s = get(c)?;
            s.parse::<f64>()
                .map_err(|_| (i + 1, format!("{what} '{s}' is not a number")))
        };
        let row = PeerRow {
            compressed_bytes: num(c_bytes, "compressed_bytes")? as u64,
            max_error: num(c_err, "max_error")?,
            raw_bytes: c_raw
                .map(|c| num(c, "raw_bytes"))
                .transpose()?
                .map(|v| v as u64),
            ns_per_pose: c_ns.map(|c| num(c, "ns_per_pose")).transpose()?,
        };
        out.insert(name.to_string(), row);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_rows_and_skips_totals() {
        let t = "clip\tbones\traw_bytes\tcompressed_bytes\tmax_error\tns_per_pose\n\
                 a\t2\t800\t100\t0.01\t400\nTOTAL(1)\t\t800\t100\t0.01\t400\n";
        let m = parse(t).unwrap();
        assert_eq!(m.len(), 1);
        assert_eq!(
            m["a"],
            PeerRow {
                compressed_bytes: 100,
                max_error: 0.01,
                raw_bytes: Some(800),
                ns_per_pose: Some(400.0)
            }
        );
    }

    #[test]
    fn reports_line_of_bad_number() {
        let t = "clip\tcompressed_bytes\tmax_error\na\t1\t0.1\nb\tx\t0.1\n";
        let (line, msg) = parse(t).unwrap_err();
        assert_eq!(line, 3);
        assert!(msg.contains("compressed_bytes"));
        assert!(parse("clip\tmax_error\n")
            .unwrap_err()
            .1
            .contains("compressed_bytes"));
    }
}
