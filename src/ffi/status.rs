//! Status messages and version queries.
//!
//! The status codes themselves are [`crate::Status`], exported to C as `AnimcompStatus` with
//! `ANIMCOMP_STATUS_*` constants (see `cbindgen.toml`).

use std::os::raw::c_char;

use super::guard::{guard, guard_value, out_ptr};
use crate::Status;

const UNKNOWN_STATUS: &str = "unknown status\0";

/// A static, NUL-terminated English message for `status` (any integer). Never returns NULL;
/// codes that are not an `ANIMCOMP_STATUS_*` value give "unknown status". The string must not be
/// freed.
#[no_mangle]
pub unsafe extern "C" fn animcomp_status_message(status: i32) -> *const c_char {
    guard_value(UNKNOWN_STATUS.as_ptr() as *const c_char, || {
        let msg = Status::from_i32(status).map_or(UNKNOWN_STATUS, Status::message);
        msg.as_ptr() as *const c_char
    })
}

const fn parse_u32(s: &str) -> u32 {
    let b = s.as_bytes();
    let mut v = 0u32;
    let mut i = 0;
    while i < b.len() {
        v = v * 10 + (b[i] - b'0') as u32;
        i += 1;
    }
    v
}

/// The library's major version (matches `ANIMCOMP_VERSION_MAJOR` of a matching header).
pub const VERSION_MAJOR: u32 = parse_u32(env!("CARGO_PKG_VERSION_MAJOR"));
/// The library's minor version.
pub const VERSION_MINOR: u32 = parse_u32(env!("CARGO_PKG_VERSION_MINOR"));
/// The library's patch version.
pub const VERSION_PATCH: u32 = parse_u32(env!("CARGO_PKG_VERSION_PATCH"));
const VERSION_STRING: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

/// Writes the version of the linked library. Compare it with `ANIMCOMP_VERSION_MAJOR/MINOR/PATCH`
/// to detect a header/library mismatch at start-up.
///
/// Returns `ANIMCOMP_STATUS_NULL_POINTER` if any pointer is NULL (nothing is written then).
#[no_mangle]
pub unsafe extern "C" fn animcomp_version(
    major: *mut u32,
    minor: *mut u32,
    patch: *mut u32,
) -> Status {
    guard(|| {
        let (a, b, c) = (
            out_ptr(major, "major")?,
            out_ptr(minor, "minor")?,
            out_ptr(patch, "patch")?,
        );
        a.write(VERSION_MAJOR);
        b.write(VERSION_MINOR);
        c.write(VERSION_PATCH);
        Ok(())
    })
}

/// The version of the linked library as a static NUL-terminated string, e.g. "0.1.0".
#[no_mangle]
pub unsafe extern "C" fn animcomp_version_string() -> *const c_char {
    VERSION_STRING.as_ptr() as *const c_char
}

/// The blob format version of `fixed` and `keys` blobs and of blobs without joints (equals
/// `ANIMCOMP_BLOB_FORMAT_VERSION`). Every `vbr` blob with joints is
/// `ANIMCOMP_BLOB_FORMAT_VERSION_GROUPED` (5). The library reads those two; other versions are
/// rejected with `ANIMCOMP_STATUS_UNSUPPORTED_VERSION`, and so is a `vbr` blob with joints of
/// version 2 (the segments layout) or 3 and 4 (the grouped layout's earlier forms): convert it without
/// loss with `animcomp_regroup_blob` (version 2) or by compressing the clip again.
#[no_mangle]
pub unsafe extern "C" fn animcomp_blob_format_version() -> u32 {
    crate::format::FORMAT_VERSION as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    #[test]
    fn messages_for_every_code_and_unknown() {
        for s in Status::ALL {
            let m = unsafe { CStr::from_ptr(animcomp_status_message(s as i32)) };
            assert_eq!(m.to_str().unwrap(), s.message().trim_end_matches('\0'));
        }
        for bad in [-1, Status::ALL.len() as i32, i32::MAX, i32::MIN] {
            let m = unsafe { CStr::from_ptr(animcomp_status_message(bad)) };
            assert_eq!(m.to_str().unwrap(), "unknown status");
        }
    }

    #[test]
    fn version_matches_cargo() {
        let s = format!("{VERSION_MAJOR}.{VERSION_MINOR}.{VERSION_PATCH}");
        assert_eq!(s, env!("CARGO_PKG_VERSION"));
        let v = unsafe { CStr::from_ptr(animcomp_version_string()) };
        assert_eq!(v.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }
}
