//! Generates `include/animcomp.h` with cbindgen.
//!
//! The header is always written to `$OUT_DIR/animcomp.h` (which `tests/ffi/header_fresh.rs` compares
//! with the committed `include/animcomp.h`), and copied to `include/animcomp.h` only when its
//! content changed, so a build never dirties the tree needlessly. Set `ANIMCOMP_NO_HEADER_WRITE=1`
//! to leave `include/` untouched (e.g. to check a stale header in CI by the test alone). Without
//! the cargo feature `header` (runtime-only builds: `--no-default-features`) no header is
//! generated. On ELF targets it also sets the shared library's SONAME.

use std::env;
#[cfg(feature = "header")]
use std::fs;
#[cfg(feature = "header")]
use std::path::PathBuf;

#[cfg(feature = "header")]
/// Macros derived from Cargo.toml, and the alignment macro cbindgen uses for aligned structs.
fn after_includes() -> String {
    let major = env::var("CARGO_PKG_VERSION_MAJOR").unwrap();
    let minor = env::var("CARGO_PKG_VERSION_MINOR").unwrap();
    let patch = env::var("CARGO_PKG_VERSION_PATCH").unwrap();
    let version = env::var("CARGO_PKG_VERSION").unwrap();
    format!(
        r#"
/** Library major version (from Cargo.toml). */
#define ANIMCOMP_VERSION_MAJOR {major}
/** Library minor version (from Cargo.toml). */
#define ANIMCOMP_VERSION_MINOR {minor}
/** Library patch version (from Cargo.toml). */
#define ANIMCOMP_VERSION_PATCH {patch}
/** Library version string (from Cargo.toml). */
#define ANIMCOMP_VERSION_STRING "{version}"

/** Alignment attribute for the caller-owned 16-byte aligned structs (C++11, GCC/Clang, MSVC). */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define ANIMCOMP_ALIGNED(n) alignas(n)
#elif defined(__GNUC__) || defined(__clang__)
#define ANIMCOMP_ALIGNED(n) __attribute__((aligned(n)))
#elif defined(_MSC_VER)
#define ANIMCOMP_ALIGNED(n) __declspec(align(n))
#else
#error "animcomp.h: no known way to declare a 16-byte aligned struct with this compiler"
#endif

/**
 * Declared functions guarded by ANIMCOMP_COMPRESS exist only in the full library (cargo feature
 * `compress`, the default). Define ANIMCOMP_RUNTIME_ONLY before including this header when linking
 * the runtime-only library (the CMake targets and animcomp.pc of such a build define it), so that
 * a call to the compressor fails at compile time instead of link time.
 */
#if !defined(ANIMCOMP_RUNTIME_ONLY) && !defined(ANIMCOMP_COMPRESS)
#define ANIMCOMP_COMPRESS 1
#endif

/**
 * Under ANIMCOMP_RUNTIME_ONLY a call to a compressor function expands to an undeclared
 * identifier that names the problem: a compile error in C (where an undeclared function would
 * only be an implicit-declaration warning) as in C++.
 */
#if defined(ANIMCOMP_RUNTIME_ONLY) && !defined(ANIMCOMP_COMPRESS)
#define animcomp_compress(...) animcomp_compress_is_not_in_the_runtime_only_library
#define animcomp_compress_bound(...) animcomp_compress_bound_is_not_in_the_runtime_only_library
#define animcomp_compress_additive(...) animcomp_compress_additive_is_not_in_the_runtime_only_library
#define animcomp_compress_settings_default(...) animcomp_compress_settings_default_is_not_in_the_runtime_only_library
#define animcomp_regroup_blob(...) animcomp_regroup_blob_is_not_in_the_runtime_only_library
#endif"#
    )
}

#[cfg(feature = "header")]
/// The files cbindgen reads: the C ABI module (which follows its submodules) and the core files
/// that define the enums exported to C (status codes and the enum-like `uint32_t` settings).
/// Other core constants and types stay out of the header.
const HEADER_SOURCES: &[&str] = &[
    "src/ffi/mod.rs",
    "src/error.rs",
    "src/offline/settings.rs",
    "src/format/quantize/rotation.rs",
    "src/format/quantize/vector.rs",
    "src/runtime/seek.rs",
];

#[cfg(feature = "header")]
/// Drops the constants of core files that are not part of the C API: cbindgen emits every `pub
/// const` of the files it reads (and associated constants such as `Status::ALL`). Each constant
/// is one blank-line-separated block (doc comment + one `#define`); only `ANIMCOMP_*` ones stay.
fn only_animcomp_macros(text: &str) -> String {
    let blocks: Vec<&str> = text.split("\n\n").collect();
    let kept: Vec<&str> = blocks
        .into_iter()
        .filter(|block| {
            let lines: Vec<&str> = block.lines().collect();
            let Some((last, doc)) = lines.split_last() else {
                return true;
            };
            let is_constant = last.starts_with("#define ")
                && doc
                    .iter()
                    .all(|l| l.starts_with("/**") || l.starts_with(" *") || l.is_empty());
            !is_constant || last.starts_with("#define ANIMCOMP_")
        })
        .collect();
    let mut out = kept.join("\n\n");
    while out.contains("\n\n\n") {
        out = out.replace("\n\n\n", "\n\n");
    }
    out
}

/// The shared library's SONAME on ELF targets: `libanimcomp.so.<major>`, or `.so.0.<minor>` while
/// the major version is 0 (where a minor version may break the ABI). The top-level
/// CMakeLists.txt derives the same name for its version symlinks (`ANIMCOMP_SOVERSION`).
fn set_soname() {
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let family = env::var("CARGO_CFG_TARGET_FAMILY").unwrap_or_default();
    if family != "unix"
        || matches!(
            os.as_str(),
            "macos" | "ios" | "tvos" | "watchos" | "visionos"
        )
    {
        return;
    }
    let major = env::var("CARGO_PKG_VERSION_MAJOR").unwrap();
    let minor = env::var("CARGO_PKG_VERSION_MINOR").unwrap();
    let soversion = if major == "0" {
        format!("0.{minor}")
    } else {
        major
    };
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libanimcomp.so.{soversion}");
}

fn main() {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=include/animcomp.h");
    println!("cargo:rerun-if-env-changed=ANIMCOMP_NO_HEADER_WRITE");
    // For tests/c99_header.rs, which asks the `cc` crate for the C compiler of this target.
    println!(
        "cargo:rustc-env=ANIMCOMP_BUILD_TARGET={}",
        env::var("TARGET").unwrap()
    );

    set_soname();
    #[cfg(feature = "header")]
    write_header();
}

/// Generates the header into `$OUT_DIR/animcomp.h` and, when it changed, `include/animcomp.h`
/// (cargo feature `header`, on by default).
#[cfg(feature = "header")]
fn write_header() {
    let crate_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap());
    let mut config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("cbindgen.toml is readable and valid");
    config.after_includes = Some(after_includes());

    let mut builder = cbindgen::Builder::new().with_config(config);
    for src in HEADER_SOURCES {
        builder = builder.with_src(crate_dir.join(src));
    }
    let bindings = builder
        .generate()
        .expect("cbindgen could not generate include/animcomp.h");
    let mut raw = Vec::new();
    bindings.write(&mut raw);
    let text =
        only_animcomp_macros(&String::from_utf8(raw).expect("cbindgen writes UTF-8")).into_bytes();
    fs::write(out_dir.join("animcomp.h"), &text).expect("write $OUT_DIR/animcomp.h");

    if env::var_os("ANIMCOMP_NO_HEADER_WRITE").is_some() {
        return;
    }
    let committed = crate_dir.join("include/animcomp.h");
    if fs::read(&committed).ok().as_deref() != Some(&text[..]) {
        fs::create_dir_all(crate_dir.join("include")).expect("create include/");
        fs::write(&committed, &text).expect("write include/animcomp.h");
    }
}
