//! The importer test binary: golden files of each format, hostile importer inputs, the shared
//! real clip sets (skipped when absent), and the codecs' error bound measured in float64 on them.
//! One binary instead of one per file: CI links far fewer executables.

mod common;

mod acl_additive;
mod acl_golden;
mod additive_roundtrip;
mod additive_shared_data;
mod asset;
mod bvh_golden;
mod error_bound_f64;
mod fbx_fuzz_replay;
mod fbx_import;
mod gltf_golden;
mod shared_data;
mod tiers_shared_data;
mod vbr_shared_data;
