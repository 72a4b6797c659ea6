//! `include/animcomp.h` is valid C99: `tests/c/header_c99.c` includes it, is compiled with
//! `-std=c99 -Wall -Wextra -Werror -pedantic` (compiler found by the `cc` crate), linked against the
//! static library built for this test run, and run (one compress/decompress round trip from C).
//! It is also valid C++11 (`tests/c/header_cpp.cpp`, syntax check with the same warnings).

// Runtime-only builds skip the linking test (below), the only user of some helpers.
#![cfg_attr(not(feature = "compress"), allow(dead_code, unused_imports))]

use std::path::{Path, PathBuf};
use std::process::Command;

fn compiler() -> cc::Tool {
    compiler_for(false)
}

fn compiler_for(cpp: bool) -> cc::Tool {
    let target = env!("ANIMCOMP_BUILD_TARGET");
    cc::Build::new()
        .cpp(cpp)
        .target(target)
        .host(target)
        .opt_level(0)
        .cargo_metadata(false)
        .cargo_warnings(false)
        .get_compiler()
}

/// `libanimcomp.a` of this build (next to the test executable, in `target/<profile>/deps`).
fn staticlib() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    [
        deps.join("libanimcomp.a"),
        deps.parent().unwrap().join("libanimcomp.a"),
    ]
    .into_iter()
    .find(|p| p.exists())
    .expect("libanimcomp.a next to the test binary (crate-type staticlib)")
}

// The C program runs a compress/decompress round trip: it links only against the full library.
#[cfg(feature = "compress")]
#[test]
fn header_compiles_as_strict_c99_and_links() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("header_c99");
    let mut cmd = compiler().to_command();
    cmd.args([
        "-std=c99",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pedantic",
        "-D_ISOC11_SOURCE",
    ])
    .arg("-I")
    .arg(root.join("include"))
    .arg(root.join("tests/c/header_c99.c"))
    .arg("-o")
    .arg(&out)
    .arg(staticlib())
    .args(["-lpthread", "-ldl", "-lm"]);
    let res = cmd.output().expect("run the C compiler");
    assert!(
        res.status.success(),
        "C99 compilation failed:\n{}\n{}",
        String::from_utf8_lossy(&res.stdout),
        String::from_utf8_lossy(&res.stderr)
    );
    let run = Command::new(&out).output().expect("run the C test");
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    println!("{stdout}{stderr}");
    assert_eq!(
        run.status.code(),
        Some(0),
        "C test failed:\n{stdout}\n{stderr}"
    );
}

#[test]
fn header_compiles_as_strict_cpp11() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut cmd = compiler_for(true).to_command();
    cmd.args([
        "-std=c++11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pedantic",
        "-fsyntax-only",
    ])
    .arg("-I")
    .arg(root.join("include"))
    .arg(root.join("tests/c/header_cpp.cpp"));
    let res = cmd.output().expect("run the C++ compiler");
    assert!(
        res.status.success(),
        "C++11 compilation failed:\n{}\n{}",
        String::from_utf8_lossy(&res.stdout),
        String::from_utf8_lossy(&res.stderr)
    );
}
