//! `include/animcomp.h` is what cbindgen generates from the current sources.
//!
//! `build.rs` generates the header into `$OUT_DIR/animcomp.h` on every relevant change (and copies
//! it to `include/` when it differs). This test fails when the header in the working tree or the
//! one committed at `HEAD` differs from that fresh generation: regenerate with `cargo build -p
//! animcomp` and commit `include/animcomp.h`.

use std::path::Path;
use std::process::Command;

fn fresh() -> String {
    std::fs::read_to_string(concat!(env!("OUT_DIR"), "/animcomp.h"))
        .expect("build.rs wrote $OUT_DIR/animcomp.h")
}

fn first_difference(a: &str, b: &str) -> String {
    for (n, (x, y)) in a.lines().zip(b.lines()).enumerate() {
        if x != y {
            return format!("line {}:\n  committed: {x}\n  generated: {y}", n + 1);
        }
    }
    format!(
        "line counts differ ({} vs {})",
        a.lines().count(),
        b.lines().count()
    )
}

#[test]
fn header_in_the_tree_is_fresh() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let on_disk = std::fs::read_to_string(root.join("include/animcomp.h"))
        .expect("include/animcomp.h exists");
    let fresh = fresh();
    assert!(
        on_disk == fresh,
        "include/animcomp.h is stale; run `cargo build -p animcomp` and commit it. First difference at {}",
        first_difference(&on_disk, &fresh)
    );
}

#[test]
fn header_committed_at_head_is_fresh() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("git")
        .args(["-C", root, "show", "HEAD:include/animcomp.h"])
        .output();
    let committed = match out {
        Ok(o) if o.status.success() => String::from_utf8(o.stdout).unwrap(),
        _ => {
            eprintln!("SKIP: not a git checkout (or git missing); only the working-tree header was checked");
            return;
        }
    };
    let fresh = fresh();
    assert!(
        committed == fresh,
        "include/animcomp.h committed at HEAD is stale (build.rs may have refreshed the working copy): \
         commit include/animcomp.h. First difference at {}",
        first_difference(&committed, &fresh)
    );
}
