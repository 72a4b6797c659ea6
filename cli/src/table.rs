//! Plain-text tables: a header row, aligned columns (text left, numbers right), an optional
//! separator before a totals row.

/// A table being built.
pub struct Table {
    headers: Vec<String>,
    rows: Vec<Option<Vec<String>>>,
}

impl Table {
    /// A table with these column headers.
    pub fn new(headers: &[&str]) -> Self {
        Table {
            headers: headers.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row (missing cells are blank).
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(Some(cells));
    }

    /// Appends a separator line.
    pub fn separator(&mut self) {
        self.rows.push(None);
    }

    /// Renders the table; the first column is left-aligned, numeric-looking cells right-aligned.
    pub fn render(&self) -> String {
        let ncol = self.headers.len();
        let mut width: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for r in self.rows.iter().flatten() {
            for (c, cell) in r.iter().enumerate().take(ncol) {
                width[c] = width[c].max(cell.chars().count());
            }
        }
        let line = |cells: &[String], out: &mut String| {
            let mut s = String::new();
            for (c, w) in width.iter().enumerate() {
                let cell = cells.get(c).map(String::as_str).unwrap_or("");
                let pad = w - cell.chars().count();
                if c > 0 {
                    s.push_str("  ");
                }
                if c > 0 && looks_numeric(cell) {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(cell);
                } else {
                    s.push_str(cell);
                    s.push_str(&" ".repeat(pad));
                }
            }
            out.push_str(s.trim_end());
            out.push('\n');
        };
        let mut out = String::new();
        line(&self.headers, &mut out);
        let total: usize = width.iter().sum::<usize>() + 2 * ncol.saturating_sub(1);
        out.push_str(&"-".repeat(total));
        out.push('\n');
        for r in &self.rows {
            match r {
                Some(cells) => line(cells, &mut out),
                None => {
                    out.push_str(&"-".repeat(total));
                    out.push('\n');
                }
            }
        }
        out
    }
}

fn looks_numeric(s: &str) -> bool {
    let s = s.trim();
    !s.is_empty()
        && s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '-' || c == '+' || c == '.')
        && s.chars()
            .all(|c| c.is_ascii_digit() || ",.-+:xse%".contains(c) || c.is_ascii_alphabetic())
}

/// `1234567` → `1,234,567`.
pub fn thousands(v: u64) -> String {
    let s = v.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(97_140_200), "97,140,200");
    }

    #[test]
    fn columns_align() {
        let mut t = Table::new(&["clip", "bytes"]);
        t.row(vec!["a".into(), "5".into()]);
        t.separator();
        t.row(vec!["TOTAL".into(), "1,000".into()]);
        let s = t.render();
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(lines.len(), 5);
        assert_eq!(lines[2], "a          5");
        assert_eq!(lines[4], "TOTAL  1,000");
    }
}
