//! A small parser for SJSON ("simplified JSON", Autodesk Stingray's relaxed JSON used by ACL).
//!
//! Differences from JSON that are accepted: the root is an object without braces, keys may be
//! unquoted identifiers, `=` or `:` separates keys from values, commas are optional, `//` and
//! `/* */` comments, and bare identifiers (`type = float4f`) are read as strings. Every value
//! remembers its 1-based line so that callers can report precise errors.

use crate::error::ParseError;

/// A parsed value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// Any number (read as `f64`).
    Number(f64),
    /// A quoted string or a bare identifier.
    String(String),
    /// `[ ... ]`.
    Array(Vec<Node>),
    /// `{ ... }` (or the root), keys in file order.
    Object(Vec<(String, Node)>),
}

/// A value and the line it starts on.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// 1-based line where the value starts or, for an object member, where its key is.
    pub line: usize,
}

impl Node {
    /// The member `key` of an object (first match), if this is an object that has it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The elements of an array.
    pub fn as_array(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self.value {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The boolean, if this is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self.value {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }
}

/// Parses a whole SJSON document; the result is an object node.
pub fn parse(text: &str) -> Result<Node, ParseError> {
    let mut p = Parser {
        s: text.as_bytes(),
        pos: 0,
        line: 1,
    };
    // Tolerate a UTF-8 byte order mark.
    if p.s.starts_with(&[0xEF, 0xBB, 0xBF]) {
        p.pos = 3;
    }
    p.skip_ws()?;
    let root = if p.peek() == Some(b'{') {
        p.value(0)?
    } else {
        let line = p.line;
        Node {
            value: Value::Object(p.members(None, 0)?),
            line,
        }
    };
    p.skip_ws()?;
    if p.pos < p.s.len() {
        return Err(ParseError::at(
            p.line,
            format!("unexpected {} after the end of the document", p.describe()),
        ));
    }
    Ok(root)
}

const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    line: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn describe(&self) -> String {
        match self.peek() {
            None => "end of file".into(),
            Some(c) if c.is_ascii_graphic() => format!("'{}'", c as char),
            Some(c) => format!("byte 0x{c:02x}"),
        }
    }

    /// Skips whitespace, commas and comments.
    fn skip_ws(&mut self) -> Result<(), ParseError> {
        while let Some(c) = self.peek() {
            match c {
                b'\n' => {
                    self.line += 1;
                    self.pos += 1;
                }
                b' ' | b'\t' | b'\r' | b',' => self.pos += 1,
                b'/' if self.s.get(self.pos + 1) == Some(&b'/') => {
                    while let Some(c) = self.peek() {
                        if c == b'\n' {
                            break;
                        }
                        self.pos += 1;
                    }
                }
                b'/' if self.s.get(self.pos + 1) == Some(&b'*') => {
                    let start = self.line;
                    self.pos += 2;
                    loop {
                        match self.peek() {
                            None => return Err(ParseError::at(start, "unterminated /* comment")),
                            Some(b'*') if self.s.get(self.pos + 1) == Some(&b'/') => {
                                self.pos += 2;
                                break;
                            }
                            Some(b'\n') => {
                                self.line += 1;
                                self.pos += 1;
                            }
                            Some(_) => self.pos += 1,
                        }
                    }
                }
                _ => break,
            }
        }
        Ok(())
    }

    /// Object members until `close` (or end of input for the root).
    fn members(
        &mut self,
        close: Option<u8>,
        depth: usize,
    ) -> Result<Vec<(String, Node)>, ParseError> {
        if depth > MAX_DEPTH {
            return Err(ParseError::at(self.line, "nesting is too deep"));
        }
        let mut out = Vec::new();
        loop {
            self.skip_ws()?;
            match (self.peek(), close) {
                (None, None) => return Ok(out),
                (None, Some(c)) => {
                    return Err(ParseError::at(
                        self.line,
                        format!("file ends before the closing '{}'", c as char),
                    ))
                }
                (Some(c), Some(cl)) if c == cl => {
                    self.pos += 1;
                    return Ok(out);
                }
                _ => {}
            }
            let key_line = self.line;
            let key = self.key()?;
            self.skip_ws()?;
            match self.peek() {
                Some(b'=') | Some(b':') => self.pos += 1,
                _ => {
                    return Err(ParseError::at(
                        self.line,
                        format!(
                            "expected '=' after key \"{key}\", found {}",
                            self.describe()
                        ),
                    ))
                }
            }
            self.skip_ws()?;
            let mut v = self.value(depth + 1)?;
            v.line = key_line;
            out.push((key, v));
        }
    }

    fn key(&mut self) -> Result<String, ParseError> {
        if self.peek() == Some(b'"') {
            return self.string();
        }
        let start = self.pos;
        while let Some(c) = self.peek() {
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.' {
                self.pos += 1;
            } else {
                break;
            }
        }
        if self.pos == start {
            return Err(ParseError::at(
                self.line,
                format!("expected a key, found {}", self.describe()),
            ));
        }
        Ok(String::from_utf8_lossy(&self.s[start..self.pos]).into_owned())
    }

    fn string(&mut self) -> Result<String, ParseError> {
        let start_line = self.line;
        self.pos += 1; // opening quote
        let mut out = Vec::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(ParseError::at(start_line, "unterminated string"));
            };
            self.pos += 1;
            match c {
                b'"' => break,
                b'\n' => {
                    self.line += 1;
                    out.push(c);
                }
                b'\\' => {
                    let Some(e) = self.peek() else {
                        return Err(ParseError::at(start_line, "unterminated string"));
                    };
                    self.pos += 1;
                    out.push(match e {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        other => other,
                    });
                }
                _ => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| ParseError::at(start_line, "string is not valid UTF-8"))
    }

    fn value(&mut self, depth: usize) -> Result<Node, ParseError> {
        if depth > MAX_DEPTH {
            return Err(ParseError::at(self.line, "nesting is too deep"));
        }
        let line = self.line;
        let value = match self.peek() {
            None => return Err(ParseError::at(line, "file ends where a value was expected")),
            Some(b'{') => {
                self.pos += 1;
                Value::Object(self.members(Some(b'}'), depth + 1)?)
            }
            Some(b'[') => {
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_ws()?;
                    match self.peek() {
                        None => {
                            return Err(ParseError::at(line, "array opened here is never closed"))
                        }
                        Some(b']') => {
                            self.pos += 1;
                            break;
                        }
                        _ => items.push(self.value(depth + 1)?),
                    }
                }
                Value::Array(items)
            }
            Some(b'"') => Value::String(self.string()?),
            Some(c) if c == b'-' || c == b'+' || c == b'.' || c.is_ascii_digit() => {
                let start = self.pos;
                while let Some(c) = self.peek() {
                    if c.is_ascii_alphanumeric() || c == b'-' || c == b'+' || c == b'.' {
                        self.pos += 1;
                    } else {
                        break;
                    }
                }
                let t = std::str::from_utf8(&self.s[start..self.pos]).unwrap_or("?");
                let n: f64 = t
                    .parse()
                    .map_err(|_| ParseError::at(line, format!("invalid number \"{t}\"")))?;
                Value::Number(n)
            }
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                let word = self.key()?;
                match word.as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    "null" => Value::Null,
                    _ => Value::String(word),
                }
            }
            Some(_) => {
                return Err(ParseError::at(
                    line,
                    format!("expected a value, found {}", self.describe()),
                ))
            }
        };
        Ok(Node { value, line })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relaxed_syntax() {
        let doc = parse(
            "// comment\nversion = 5\nclip = {\n name = \"a b\", n: 3 /* x */\n}\n\"q k\" = [ 1, -2.5e1 0x ]\nt = float4f\n",
        );
        // `0x` is not a number.
        let e = doc.unwrap_err();
        assert_eq!(e.line, Some(6));
        let doc = parse("// c\nversion = 5\nclip = {\n name = \"a b\", n: 3 /* x\n */ f = true\n}\n\"q k\" = [ 1, -2.5e1 .5 ]\nt = float4f\n").unwrap();
        assert_eq!(doc.get("version").unwrap().as_f64(), Some(5.0));
        let clip = doc.get("clip").unwrap();
        assert_eq!(clip.line, 3);
        assert_eq!(clip.get("name").unwrap().as_str(), Some("a b"));
        assert_eq!(clip.get("n").unwrap().as_f64(), Some(3.0));
        assert_eq!(clip.get("f").unwrap().as_bool(), Some(true));
        assert_eq!(clip.get("f").unwrap().line, 5);
        let arr = doc.get("q k").unwrap().as_array().unwrap();
        assert_eq!(
            arr.iter().map(|n| n.as_f64().unwrap()).collect::<Vec<_>>(),
            [1.0, -25.0, 0.5]
        );
        assert_eq!(doc.get("t").unwrap().as_str(), Some("float4f"));
    }

    #[test]
    fn errors_have_lines() {
        assert_eq!(parse("a = 1\nb = [1, 2\n").unwrap_err().line, Some(2));
        assert_eq!(parse("a = 1\n\nb 2\n").unwrap_err().line, Some(3));
        assert_eq!(parse("a = {\n x = \"abc\n").unwrap_err().line, Some(2));
        assert_eq!(parse("a = 1\n}\n").unwrap_err().line, Some(2));
        let deep = format!("a = {}{}", "[".repeat(100), "]".repeat(100));
        assert!(parse(&deep).is_err());
    }
}
