//! Fuzz target `import_acl`: see `fuzz/harness_import.rs` (`harness_import::import_acl`).
#![no_main]

#[path = "../harness_import.rs"]
mod harness_import;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    harness_import::import_acl(data);
});
