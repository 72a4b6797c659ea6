//! Fuzz target `import_fbx`: see `fuzz/harness_fbx.rs` (`harness_fbx::import_fbx`).
#![no_main]

#[path = "../harness_fbx.rs"]
mod harness_fbx;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    harness_fbx::import_fbx(data);
});
