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

/// A command that runs the program `exe` built for this test's target: directly, or through
/// the runner cargo runs this test with (`CARGO_TARGET_<TRIPLE>_RUNNER`, e.g. qemu for a
/// cross-compiled target, .ci/cross.sh).
fn runner_for(exe: &Path) -> Command {
    let var = format!(
        "CARGO_TARGET_{}_RUNNER",
        env!("ANIMCOMP_BUILD_TARGET")
            .to_uppercase()
            .replace(['-', '.'], "_")
    );
    let runner = std::env::var(var).unwrap_or_default();
    let mut words = runner.split_whitespace();
    match words.next() {
        Some(program) => {
            let mut c = Command::new(program);
            c.args(words).arg(exe);
            c
        }
        None => Command::new(exe),
    }
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
    let run = runner_for(&out).output().expect("run the C test");
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

/// Under `ANIMCOMP_RUNTIME_ONLY`, calling a compressor function from C is a compile error (not an
/// implicit declaration that fails at link time), while the runtime functions compile.
#[test]
fn runtime_only_header_makes_compressor_calls_compile_errors() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let calls = [
        (
            "ok",
            "AnimcompDecompressOptions o; return (int)animcomp_decompress_options_default(&o);",
        ),
        ("compress", "return (int)animcomp_compress(0, 0, 0, 0, 0);"),
        (
            "bound",
            "size_t b; return (int)animcomp_compress_bound(0, 0, &b);",
        ),
        (
            "additive",
            "return (int)animcomp_compress_additive(0, 1, 0, 0, 0, 0, 0, 0, 0);",
        ),
        (
            "settings",
            "AnimcompCompressSettings s; return (int)animcomp_compress_settings_default(&s);",
        ),
        (
            "regroup",
            "return (int)animcomp_regroup_blob(0, 0, 0, 0, 0);",
        ),
    ];
    for (name, body) in calls {
        let src = dir.join(format!("runtime_only_{name}.c"));
        std::fs::write(
            &src,
            format!("#include \"animcomp.h\"\nint f(void) {{ {body} }}\n"),
        )
        .unwrap();
        let mut cmd = compiler().to_command();
        cmd.args(["-std=c99", "-DANIMCOMP_RUNTIME_ONLY", "-fsyntax-only"])
            .arg("-I")
            .arg(root.join("include"))
            .arg(&src);
        let res = cmd.output().expect("run the C compiler");
        let stderr = String::from_utf8_lossy(&res.stderr);
        if name == "ok" {
            assert!(res.status.success(), "{name}: {stderr}");
        } else {
            assert!(!res.status.success(), "{name} compiled:\n{stderr}");
            assert!(
                stderr.contains("is_not_in_the_runtime_only_library"),
                "{name}: {stderr}"
            );
        }
    }
}

/// `animcomp.hpp` under C++14 stops with a clear "needs C++17" error (not a failure deep inside,
/// such as `'align_val_t' is not a member of 'std'`); under C++17 it compiles.
#[test]
fn hpp_needs_cpp17_with_a_clear_error() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = Path::new(env!("CARGO_TARGET_TMPDIR")).join("hpp_std.cpp");
    std::fs::write(
        &src,
        "#include \"animcomp.hpp\"\nint main() { return 0; }\n",
    )
    .unwrap();
    for (std, ok) in [("-std=c++14", false), ("-std=c++17", true)] {
        let mut cmd = compiler_for(true).to_command();
        cmd.args([
            std,
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-fsyntax-only",
        ])
        .arg("-I")
        .arg(root.join("include"))
        .arg(&src);
        let res = cmd.output().expect("run the C++ compiler");
        let stderr = String::from_utf8_lossy(&res.stderr);
        assert_eq!(res.status.success(), ok, "{std}: {stderr}");
        if !ok {
            assert!(stderr.contains("needs C++17"), "{std}: {stderr}");
            assert!(!stderr.contains("align_val_t"), "{std}: {stderr}");
        }
    }
}
