//! Imports every supported file under `shared/data` (skips when the folder is absent), validates
//! every clip except ACL's deliberately broken `_with_inf_error` one, and prints per-folder counts.

use animcomp::Error;
use animcomp_import::{collect_files, load, ImportOptions};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Default)]
struct Counts {
    files: usize,
    clips: usize,
    joints: usize,
    samples: usize,
    raw_bytes: usize,
    units: BTreeMap<String, usize>,
}

#[test]
fn import_every_shared_clip() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
    if !root.is_dir() {
        println!("SKIP: {} not found", root.display());
        return;
    }
    let files = collect_files(std::slice::from_ref(&root));
    assert!(!files.is_empty());
    let mut per_folder: BTreeMap<String, Counts> = BTreeMap::new();
    let mut inf_seen = false;
    for f in &files {
        let folder = f.strip_prefix(&root).unwrap().components().next().unwrap();
        let folder = folder.as_os_str().to_string_lossy().into_owned();
        if folder == "curves" {
            // Scalar curves, not skeletal clips: read by `curves_data` (import/tests).
            continue;
        }
        if folder == "fbx" {
            // Every stack, with its curves and the skeleton-less blend-shape file: `fbx_import`.
            continue;
        }
        let clips = load(f, &ImportOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        assert!(!clips.is_empty(), "{}", f.display());
        let c = per_folder.entry(folder).or_default();
        c.files += 1;
        for mut ic in clips {
            let name = f.file_name().unwrap().to_string_lossy();
            let result = ic.clip.validate();
            if name.contains("_with_inf_error") {
                assert!(
                    matches!(result, Err(Error::NonFiniteValue { .. })),
                    "{name}: {result:?}"
                );
                inf_seen = true;
            } else {
                result.unwrap_or_else(|e| panic!("{}: {}: {e}", f.display(), ic.clip.name));
            }
            if std::env::var_os("ANIMCOMP_PRINT_EXTENT").is_some() {
                println!(
                    "{name}: extent {:?} -> {}",
                    animcomp_import::pose_extent(&ic.clip),
                    ic.units
                );
            }
            c.clips += 1;
            c.joints += ic.clip.num_joints();
            c.samples += ic.clip.num_samples;
            c.raw_bytes += ic.clip.raw_size_bytes();
            *c.units.entry(ic.units.clone()).or_default() += 1;
        }
    }
    println!("folder          files  clips  joints(sum)  samples(sum)  raw_bytes   units");
    for (k, c) in &per_folder {
        println!(
            "{k:<15} {:>5} {:>6} {:>12} {:>13} {:>11}   {:?}",
            c.files, c.clips, c.joints, c.samples, c.raw_bytes, c.units
        );
    }
    if root
        .join("acl-regression/09_02_with_inf_error.acl.sjson")
        .is_file()
        && per_folder.contains_key("acl-regression")
    {
        assert!(inf_seen, "the _with_inf_error clip was not imported");
    }
}
