//! Reads the C API out of `include/animcomp.h` as cbindgen writes it: numeric `#define`s, enums,
//! `typedef struct`s and function prototypes, each with its doc comment, and whether it sits in an
//! `#if defined(ANIMCOMP_COMPRESS)` block. The header's shape is fixed by `cbindgen.toml`
//! (doxygen comments, one declaration per line), so a line-based reader is enough; anything it
//! does not understand is an error rather than a silent omission.

use std::collections::HashMap;

/// The whole API.
#[derive(Debug, Default)]
pub struct Api {
    /// `#define ANIMCOMP_X <integer>` constants, in header order.
    pub constants: Vec<Constant>,
    /// Enums, in header order.
    pub enums: Vec<Enum>,
    /// Structs, in header order.
    pub structs: Vec<Struct>,
    /// Functions, in header order.
    pub functions: Vec<Function>,
}

/// An integer or string macro.
#[derive(Debug)]
pub struct Constant {
    /// Macro name.
    pub name: String,
    /// Literal text (an integer or a quoted string).
    pub value: String,
    /// Doc comment lines.
    pub doc: Vec<String>,
}

/// A C enum with a fixed underlying type.
#[derive(Debug)]
pub struct Enum {
    /// Type name.
    pub name: String,
    /// `int32_t` or `uint32_t`.
    pub repr: String,
    /// (name, value, doc) per variant.
    pub variants: Vec<(String, String, Vec<String>)>,
    /// Doc comment lines.
    pub doc: Vec<String>,
}

/// A struct field: C type, name, optional array length.
#[derive(Debug)]
pub struct Field {
    /// C type without the name (`const float *`, `uint32_t`).
    pub ty: String,
    /// Field name.
    pub name: String,
    /// Array length, already resolved to a number.
    pub array: Option<u64>,
    /// Doc comment lines.
    pub doc: Vec<String>,
}

/// A `typedef struct`.
#[derive(Debug)]
pub struct Struct {
    /// Type name.
    pub name: String,
    /// Declared alignment (`ANIMCOMP_ALIGNED(n)`), if any.
    pub align: Option<u32>,
    /// Fields in order.
    pub fields: Vec<Field>,
    /// Doc comment lines.
    pub doc: Vec<String>,
}

/// A function prototype.
#[derive(Debug)]
pub struct Function {
    /// C return type.
    pub ret: String,
    /// Function name.
    pub name: String,
    /// (C type, name) per parameter.
    pub params: Vec<(String, String)>,
    /// Only in the full library (inside `#if defined(ANIMCOMP_COMPRESS)`).
    pub needs_compressor: bool,
    /// Doc comment lines.
    pub doc: Vec<String>,
}

/// Splits `const struct Foo *name` / `uint64_t name[N]` into (type, name, array).
fn split_decl(
    decl: &str,
    constants: &HashMap<String, String>,
) -> Result<(String, String, Option<u64>), String> {
    let decl = decl.trim();
    let (decl, array) = match decl.split_once('[') {
        Some((d, rest)) => {
            let len = rest.trim_end_matches(']').trim();
            let len = constants.get(len).map(String::as_str).unwrap_or(len);
            let n = len
                .parse::<u64>()
                .map_err(|_| format!("array length `{len}` in `{decl}`"))?;
            (d.trim(), Some(n))
        }
        None => (decl, None),
    };
    let cut = decl
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .ok_or_else(|| format!("no type in `{decl}`"))?;
    let name = decl[cut + 1..].to_string();
    let ty = decl[..=cut].trim().replace("struct ", "");
    Ok((ty, name, array))
}

/// Parses the header.
pub fn parse(header: &str) -> Result<Api, String> {
    let mut api = Api::default();
    let mut consts: HashMap<String, String> = HashMap::new();
    let mut doc: Vec<String> = Vec::new();
    let mut in_doc = false;
    let mut compress_block = false;
    let mut lines = header.lines().peekable();
    while let Some(raw) = lines.next() {
        let line = raw.trim();
        if in_doc {
            if line.ends_with("*/") {
                in_doc = false;
            } else {
                doc.push(line.trim_start_matches('*').trim_start().to_string());
            }
            continue;
        }
        if line.starts_with("/**") {
            doc.clear();
            in_doc = !line.ends_with("*/");
            if !in_doc {
                doc.push(
                    line.trim_start_matches("/**")
                        .trim_end_matches("*/")
                        .trim()
                        .to_string(),
                );
            }
            continue;
        }
        if line == "#if defined(ANIMCOMP_COMPRESS)" {
            compress_block = true;
            continue;
        }
        if compress_block && line == "#endif" {
            compress_block = false;
            continue;
        }
        if let Some(rest) = line.strip_prefix("#define ANIMCOMP_") {
            let mut parts = rest.splitn(2, ' ');
            let name = format!("ANIMCOMP_{}", parts.next().unwrap_or_default());
            let value = parts.next().unwrap_or_default().trim().to_string();
            let numeric = value.parse::<i64>().is_ok();
            if !name.contains('(')
                && name != "ANIMCOMP_COMPRESS"
                && (numeric || value.starts_with('"'))
            {
                consts.insert(name.clone(), value.clone());
                api.constants.push(Constant {
                    name,
                    value,
                    doc: std::mem::take(&mut doc),
                });
            }
            continue;
        }
        if let Some(name) = line.strip_prefix("enum ") {
            let name = name.trim().to_string();
            let mut repr = String::new();
            let mut variants = Vec::new();
            let mut vdoc = Vec::new();
            for l in lines.by_ref() {
                let l = l.trim();
                if let Some(r) = l.strip_prefix(": ") {
                    repr = r.to_string();
                } else if l == "};" {
                    break;
                } else if l.starts_with("/**") || l.starts_with('*') {
                    let text = l
                        .trim_start_matches("/**")
                        .trim_start_matches('*')
                        .trim_end_matches("*/");
                    let text = text.trim_start_matches('/').trim();
                    if !text.is_empty() {
                        vdoc.push(text.to_string());
                    }
                } else if let Some((n, v)) = l.trim_end_matches(',').split_once(" = ") {
                    variants.push((n.to_string(), v.to_string(), std::mem::take(&mut vdoc)));
                }
            }
            if repr.is_empty() {
                return Err(format!("enum {name}: no underlying type"));
            }
            api.enums.push(Enum {
                name,
                repr,
                variants,
                doc: std::mem::take(&mut doc),
            });
            continue;
        }
        if let Some(rest) = line.strip_prefix("typedef struct ") {
            let rest = rest.trim_end_matches('{').trim();
            let (align, name) = match rest.strip_prefix("ANIMCOMP_ALIGNED(") {
                Some(r) => {
                    let (n, name) = r.split_once(')').ok_or("bad ANIMCOMP_ALIGNED")?;
                    (
                        Some(n.parse::<u32>().map_err(|_| "bad alignment")?),
                        name.trim(),
                    )
                }
                None => (None, rest),
            };
            let mut fields = Vec::new();
            let mut fdoc = Vec::new();
            let mut in_fdoc = false;
            for l in lines.by_ref() {
                let l = l.trim();
                if in_fdoc {
                    if l.ends_with("*/") {
                        in_fdoc = false;
                    } else {
                        fdoc.push(l.trim_start_matches('*').trim_start().to_string());
                    }
                } else if l.starts_with("/**") {
                    fdoc.clear();
                    in_fdoc = !l.ends_with("*/");
                } else if l.starts_with('}') {
                    break;
                } else if let Some(d) = l.strip_suffix(';') {
                    let (ty, fname, array) = split_decl(d, &consts)?;
                    fields.push(Field {
                        ty,
                        name: fname,
                        array,
                        doc: std::mem::take(&mut fdoc),
                    });
                }
            }
            api.structs.push(Struct {
                name: name.to_string(),
                align,
                fields,
                doc: std::mem::take(&mut doc),
            });
            continue;
        }
        if raw.ends_with(");") && raw.contains("animcomp_") && !raw.starts_with(char::is_whitespace)
        {
            let (head, args) = line
                .trim_end_matches(");")
                .split_once('(')
                .ok_or("bad prototype")?;
            let (ret, name, _) = split_decl(head, &consts)?;
            let mut params = Vec::new();
            if args.trim() != "void" {
                for a in args.split(',') {
                    let (ty, pname, _) = split_decl(a, &consts)?;
                    params.push((ty, pname));
                }
            }
            api.functions.push(Function {
                ret,
                name,
                params,
                needs_compressor: compress_block,
                doc: std::mem::take(&mut doc),
            });
            continue;
        }
        if !line.is_empty() && !line.starts_with('#') && !line.starts_with("//") {
            doc.clear();
        }
    }
    if api.functions.is_empty() || api.structs.is_empty() {
        return Err("no functions or structs found".into());
    }
    Ok(api)
}
