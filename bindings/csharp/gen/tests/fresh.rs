//! Fails when the committed C# bindings (or the layout printer) differ from what the generator
//! makes of the current `include/animcomp.h`. Fix: `cargo run -p animcomp-csharp-gen`, commit.

use std::fs;
use std::path::Path;

#[test]
fn committed_bindings_match_the_header() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let header = fs::read_to_string(root.join("include/animcomp.h")).unwrap();
    let api = animcomp_csharp_gen::parse(&header).unwrap();
    for (path, text) in animcomp_csharp_gen::outputs(&api) {
        let committed = fs::read_to_string(root.join(path)).unwrap_or_default();
        assert!(
            committed == text,
            "{path} is stale: run `cargo run -p animcomp-csharp-gen` and commit the result"
        );
    }
}

#[test]
fn every_header_function_and_struct_is_bound() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let header = fs::read_to_string(root.join("include/animcomp.h")).unwrap();
    let api = animcomp_csharp_gen::parse(&header).unwrap();
    let cs = &animcomp_csharp_gen::outputs(&api)[0].1;
    // Count prototypes and structs in the header independently of the parser.
    let prototypes = header
        .lines()
        .filter(|l| {
            l.ends_with(");") && l.contains("animcomp_") && !l.starts_with(char::is_whitespace)
        })
        .count();
    let structs = header
        .lines()
        .filter(|l| l.starts_with("typedef struct "))
        .count();
    assert_eq!(api.functions.len(), prototypes);
    assert_eq!(api.structs.len(), structs);
    assert_eq!(cs.matches("public static extern ").count(), prototypes);
    for f in &api.functions {
        assert!(
            cs.contains(&format!("EntryPoint = \"{}\"", f.name)),
            "{} missing",
            f.name
        );
    }
    assert!(api
        .functions
        .iter()
        .any(|f| f.needs_compressor && f.name == "animcomp_compress"));
    assert!(api
        .functions
        .iter()
        .any(|f| !f.needs_compressor && f.name == "animcomp_sample_pose"));
}
