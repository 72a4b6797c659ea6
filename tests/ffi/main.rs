//! The C ABI test binary: the header (fresh, C99 and C++ compilable, README example), every entry
//! point called from Rust (arguments, statuses, bounds, the key cursor, corrupted blobs). One
//! binary instead of one per file: CI links far fewer executables.

mod c99_header;
mod ffi_api;
mod ffi_bind;
mod ffi_blob;
mod ffi_bound;
mod ffi_cursor;
mod ffi_mutation;
mod ffi_readme;
mod header_fresh;
