//! The C ABI test binary: the header (fresh, C99 and C++ compilable, README example), every entry
//! point called from Rust (arguments, statuses, bounds, the key cursor, corrupted blobs). One
//! binary instead of one per file: CI links far fewer executables.

// A C compiler and a process to run: neither exists under WASI (docs/ci.md).
#[cfg(not(target_os = "wasi"))]
mod c99_header;
#[cfg(feature = "compress")]
mod ffi_additive_base;
#[cfg(feature = "compress")]
mod ffi_api;
#[cfg(feature = "compress")]
mod ffi_bind;
#[cfg(feature = "compress")]
mod ffi_bind_len;
#[cfg(feature = "compress")]
mod ffi_blob;
#[cfg(feature = "compress")]
mod ffi_bound;
#[cfg(feature = "compress")]
mod ffi_buffer_too_small;
#[cfg(feature = "compress")]
mod ffi_cursor;
#[cfg(feature = "compress")]
mod ffi_curves_only;
#[cfg(feature = "compress")]
mod ffi_mutation;
#[cfg(feature = "compress")]
mod ffi_playback;
mod ffi_readme;
#[cfg(feature = "compress")]
mod ffi_tiers;
#[cfg(feature = "compress")]
mod ffi_vbr_layout;
// Runs git: no processes under WASI.
#[cfg(feature = "compress")]
#[path = "../support/emulated.rs"]
mod emulated;
#[cfg(all(feature = "header", not(target_os = "wasi")))]
mod header_fresh;
#[cfg(feature = "compress")]
#[path = "../support/reseal.rs"]
mod reseal;
