//! NumPy `.npy` arrays of frames × curves (format 1.0, 2.0 and 3.0; `<f8`, `<f4`, `>f8`, `>f4`;
//! C or Fortran order), including Python 2 headers whose shape reads `(1429L, 116L)`.

use super::CurveSet;
use crate::error::ParseError;
use animcomp::Curve;

fn err(m: impl Into<String>) -> ParseError {
    ParseError::general(m)
}

/// A parsed array: shape (rows, columns) and the values in row-major order.
#[derive(Debug, Clone, PartialEq)]
pub struct Array2 {
    /// Rows (frames).
    pub rows: usize,
    /// Columns (curves).
    pub cols: usize,
    /// `rows × cols` values, row-major.
    pub data: Vec<f64>,
}

/// The text after `'key':` in a header dict, up to the next top-level `,` or `}`.
fn field<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let at = header
        .find(&format!("'{key}'"))
        .or_else(|| header.find(&format!("\"{key}\"")))?;
    let rest = &header[at + key.len() + 2..];
    let rest = rest[rest.find(':')? + 1..].trim_start();
    let end = if rest.starts_with('(') {
        rest.find(')')? + 1
    } else {
        rest.find([',', '}']).unwrap_or(rest.len())
    };
    Some(rest[..end].trim())
}

/// Parses a 1-D or 2-D float array (a 1-D array is one column).
pub fn parse(bytes: &[u8]) -> Result<Array2, ParseError> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(err("not a .npy file (bad magic)"));
    }
    let (hlen, hstart) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(err(format!("unsupported .npy format version {v}"))),
    };
    let header = bytes
        .get(hstart..hstart.saturating_add(hlen))
        .ok_or_else(|| err("truncated .npy header"))?;
    let header = String::from_utf8_lossy(header);
    let descr = field(&header, "descr").ok_or_else(|| err("header has no 'descr'"))?;
    let descr = descr.trim_matches(|c| c == '\'' || c == '"');
    let (size, big) = match descr {
        "<f8" | "f8" => (8, false),
        "<f4" | "f4" => (4, false),
        ">f8" => (8, true),
        ">f4" => (4, true),
        d => return Err(err(format!("unsupported dtype {d} (expected f4 or f8)"))),
    };
    let fortran =
        field(&header, "fortran_order").ok_or_else(|| err("header has no 'fortran_order'"))?;
    let fortran = match fortran {
        "False" => false,
        "True" => true,
        f => return Err(err(format!("bad fortran_order {f}"))),
    };
    let shape = field(&header, "shape").ok_or_else(|| err("header has no 'shape'"))?;
    let dims: Vec<usize> = shape
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .map(|s| s.trim().trim_end_matches(['L', 'l']))
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().map_err(|_| err(format!("bad shape {shape}"))))
        .collect::<Result<_, _>>()?;
    let (rows, cols) = match dims[..] {
        [r] => (r, 1),
        [r, c] => (r, c),
        _ => {
            return Err(err(format!(
                "expected a 1-D or 2-D array, shape is {shape}"
            )))
        }
    };
    let count = rows
        .checked_mul(cols)
        .filter(|&n| n <= crate::MAX_JOINT_SAMPLES)
        .ok_or_else(|| err("array too large"))?;
    let body = &bytes[hstart + hlen..];
    if body.len() < count * size {
        return Err(err(format!(
            "data truncated: {} bytes for {count} values of {size} bytes",
            body.len()
        )));
    }
    let value = |i: usize| -> f64 {
        let b = &body[i * size..(i + 1) * size];
        match (size, big) {
            (8, false) => f64::from_le_bytes(b.try_into().unwrap()),
            (8, true) => f64::from_be_bytes(b.try_into().unwrap()),
            (_, false) => f32::from_le_bytes(b.try_into().unwrap()) as f64,
            (_, true) => f32::from_be_bytes(b.try_into().unwrap()) as f64,
        }
    };
    let data = (0..count)
        .map(|i| {
            let (r, c) = (i / cols, i % cols);
            value(if fortran { c * rows + r } else { i })
        })
        .collect();
    Ok(Array2 { rows, cols, data })
}

/// A curve set from an array of frames × curves at `rate` Hz. `names` is an optional
/// `bsname.txt` (a count line, then one name per line), used when its count matches.
pub fn parse_curves(
    bytes: &[u8],
    name: &str,
    names: Option<&str>,
    rate: f32,
) -> Result<CurveSet, ParseError> {
    let a = parse(bytes)?;
    if a.rows == 0 || a.cols == 0 {
        return Err(err("empty array"));
    }
    let listed: Option<Vec<String>> = names.and_then(|t| {
        let mut l = t.lines().map(str::trim).filter(|s| !s.is_empty());
        let n: usize = l.next()?.parse().ok()?;
        let v: Vec<String> = l.map(str::to_string).collect();
        (n == a.cols && v.len() == n).then_some(v)
    });
    let curves = (0..a.cols)
        .map(|c| {
            let values = (0..a.rows).map(|r| a.data[r * a.cols + c] as f32).collect();
            let nm = listed
                .as_ref()
                .map_or_else(|| format!("curve{c}"), |v| v[c].clone());
            Curve {
                default_value: Some(0.0),
                ..Curve::new(nm, c as u32, values)
            }
        })
        .collect();
    Ok(CurveSet {
        name: name.to_string(),
        sample_rate: rate,
        num_samples: a.rows,
        curves,
        source: Default::default(),
        notes: vec![format!(".npy has no rate: read at {rate} Hz")],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `.npy` file as NumPy (Python 2) writes it.
    pub(crate) fn npy(header: &str, values: &[f64]) -> Vec<u8> {
        let mut h = header.to_string();
        while !(10 + h.len() + 1).is_multiple_of(64) {
            h.push(' ');
        }
        h.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(h.len() as u16).to_le_bytes());
        out.extend_from_slice(h.as_bytes());
        values
            .iter()
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        out
    }

    #[test]
    fn python2_long_shapes_and_names() {
        let b = npy(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (3L, 2L), }",
            &[0.0, 1.0, 0.5, 1.0, 1.0, 1.0],
        );
        let s = parse_curves(&b, "x", Some("2\nJawOpen\nBlink\n"), 30.0).unwrap();
        assert_eq!((s.num_samples, s.curves.len()), (3, 2));
        assert_eq!(s.curves[0].values, vec![0.0, 0.5, 1.0]);
        assert_eq!(s.curves[1].name, "Blink");
        // A name list of the wrong length is ignored.
        let s = parse_curves(&b, "x", Some("3\na\nb\nc\n"), 30.0).unwrap();
        assert_eq!(s.curves[1].name, "curve1");
    }

    #[test]
    fn fortran_order_and_f4() {
        let mut b = npy(
            "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
            &[],
        );
        for v in [1.0f32, 2.0, 3.0, 4.0] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        let a = parse(&b).unwrap();
        assert_eq!(a.data, vec![1.0, 3.0, 2.0, 4.0]);
    }

    #[test]
    fn bad_files_are_errors() {
        assert!(parse(b"nope").is_err());
        let b = npy(
            "{'descr': '<i4', 'fortran_order': False, 'shape': (1, 1), }",
            &[0.0],
        );
        assert!(parse(&b).is_err());
        let b = npy(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (9, 9), }",
            &[0.0],
        );
        assert!(parse(&b).is_err());
        let b = npy(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1), }",
            &[0.0],
        );
        assert!(parse(&b).is_err());
    }
}
