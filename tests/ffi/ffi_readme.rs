//! The README's status table lists every status code of the header with its number, and the
//! commands the README gives exist.

use std::path::Path;

#[test]
fn readme_status_table_matches_the_library() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let header = std::fs::read_to_string(root.join("include/animcomp.h")).unwrap();
    let mut seen = 0;
    for line in header.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix("ANIMCOMP_STATUS_") else {
            continue;
        };
        let (name, value) = rest.trim_end_matches(',').split_once(" = ").unwrap();
        let row = format!("| {value} | `ANIMCOMP_STATUS_{name}` |");
        assert!(
            readme.contains(&row),
            "README status table lacks the row {row}"
        );
        seen += 1;
    }
    assert_eq!(seen, animcomp::Status::ALL.len());
}

#[test]
fn readme_commands_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(readme.contains("\nbash .ci/test.sh\n") && root.join(".ci/test.sh").exists());
    assert!(readme.contains("\ncargo run --release -p animcomp-cli -- bench\n"));
    let run = std::fs::read_to_string(root.join(".ci/run")).unwrap();
    assert!(
        run.contains("bash .ci/test.sh"),
        ".ci/run runs the README's test command"
    );
}
