//! The panic boundary and the pointer helpers every entry point uses.
//!
//! Each `extern "C"` function runs its body inside `guard`, which turns an [`Error`] into its
//! [`Status`] and a caught panic into [`Status::Internal`]. Pointers from C become references or
//! slices only through the helpers below, which check null, alignment and that the byte length of
//! the region fits the address space.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::math::FLOATS_PER_JOINT;
use crate::runtime::PoseOut;
use crate::{Error, Result, Status};

/// Runs `f`, mapping its result to a status and a panic to [`Status::Internal`].
///
/// Inlined into each entry point (every entry point has its own instance anyway, one per
/// closure): the arguments stay in registers instead of being stored for a call, and the
/// closure's `Result` is mapped without passing through memory.
#[inline(always)]
pub(crate) fn guard(f: impl FnOnce() -> Result<()>) -> Status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => Status::Ok,
        Ok(Err(e)) => e.status(),
        Err(_) => Status::Internal,
    }
}

/// Runs `f`, returning `fallback` if it panics (for the few functions that return a value).
#[inline(always)]
pub(crate) fn guard_value<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}

/// Checks that `ptr` is non-null and aligned for `T`.
#[inline(always)]
fn check_ptr<T>(ptr: *const T, what: &'static str) -> Result<()> {
    if ptr.is_null() {
        return Err(Error::NullPointer(what));
    }
    if !(ptr as usize).is_multiple_of(std::mem::align_of::<T>()) {
        return Err(Error::Misaligned);
    }
    Ok(())
}

/// Checks that `len` elements of `T` starting at `ptr` form an addressable region: at most
/// `isize::MAX` bytes (one comparison of `len` with `isize::MAX / size_of::<T>()`, which is the
/// overflow-checked product compared with `isize::MAX`), not past the end of the address space.
#[inline(always)]
fn check_len<T>(ptr: *const T, len: usize) -> Result<()> {
    let size = std::mem::size_of::<T>();
    if size != 0 && len > isize::MAX as usize / size {
        return Err(Error::InvalidArgument(
            "array length overflows the address space",
        ));
    }
    if (ptr as usize).checked_add(len * size).is_none() {
        return Err(Error::InvalidArgument(
            "array extends past the end of the address space",
        ));
    }
    Ok(())
}

/// A shared reference from a C pointer (null → [`Error::NullPointer`], misaligned →
/// [`Error::Misaligned`]).
///
/// # Safety
/// A non-null `ptr` must point to a valid, initialised `T` that outlives `'a`.
#[inline(always)]
pub(crate) unsafe fn in_ref<'a, T>(ptr: *const T, what: &'static str) -> Result<&'a T> {
    check_ptr(ptr, what)?;
    Ok(&*ptr)
}

/// An optional shared reference: null gives `None`.
///
/// # Safety
/// As [`in_ref`].
pub(crate) unsafe fn opt_ref<'a, T>(ptr: *const T) -> Result<Option<&'a T>> {
    if ptr.is_null() {
        Ok(None)
    } else {
        in_ref(ptr, "").map(Some)
    }
}

/// A raw output pointer checked for null and alignment (the caller writes through it).
#[inline(always)]
pub(crate) fn out_ptr<T>(ptr: *mut T, what: &'static str) -> Result<*mut T> {
    check_ptr(ptr as *const T, what)?;
    Ok(ptr)
}

/// A slice of `len` elements from a C pointer (null → [`Error::NullPointer`], even when `len` is 0).
///
/// # Safety
/// A non-null `ptr` must point to at least `len` initialised elements that outlive `'a`.
#[inline(always)]
pub(crate) unsafe fn in_slice<'a, T>(
    ptr: *const T,
    len: usize,
    what: &'static str,
) -> Result<&'a [T]> {
    check_ptr(ptr, what)?;
    check_len(ptr, len)?;
    Ok(std::slice::from_raw_parts(ptr, len))
}

/// A mutable slice of `len` elements from a C pointer.
///
/// # Safety
/// A non-null `ptr` must point to at least `len` writable elements, not aliased, that outlive `'a`.
#[inline(always)]
pub(crate) unsafe fn out_slice<'a, T>(
    ptr: *mut T,
    len: usize,
    what: &'static str,
) -> Result<&'a mut [T]> {
    check_ptr(ptr as *const T, what)?;
    check_len(ptr as *const T, len)?;
    Ok(std::slice::from_raw_parts_mut(ptr, len))
}

/// A caller's pose buffer from C arguments, before its length is checked against a joint count:
/// `stride_floats` 0 means packed (10 floats per joint); otherwise it must be at least 10 (else
/// [`Error::InvalidArgument`]); then `out` is checked as [`out_slice`] checks it. Returns the
/// buffer and the stride. The caller checks the length for its joints with
/// [`PoseOut::check_len`], or passes the buffer to a call that checks it
/// (`Decompressor::sample_pose`), so that it is checked once.
///
/// # Safety
/// As [`out_slice`] for `out` and `len_floats`.
#[inline(always)]
pub(crate) unsafe fn pose_slice<'a>(
    out: *mut f32,
    len_floats: usize,
    stride_floats: usize,
) -> Result<(&'a mut [f32], usize)> {
    let stride = if stride_floats == 0 {
        FLOATS_PER_JOINT
    } else {
        stride_floats
    };
    if stride < FLOATS_PER_JOINT {
        return Err(Error::InvalidArgument(
            "stride must be 0 or at least 10 floats",
        ));
    }
    Ok((out_slice(out, len_floats, "out")?, stride))
}

/// A caller's pose buffer for `joints` joints from C arguments: [`pose_slice`], then
/// `(joints - 1) x stride + 10` computed overflow-checked (overflow → [`Error::InvalidArgument`])
/// must fit `len_floats` (else [`Error::BufferTooSmall`]). Returns the buffer and the stride.
///
/// # Safety
/// As [`out_slice`] for `out` and `len_floats`.
#[inline(always)]
pub(crate) unsafe fn pose_buffer<'a>(
    out: *mut f32,
    len_floats: usize,
    stride_floats: usize,
    joints: usize,
) -> Result<(&'a mut [f32], usize)> {
    let (out, stride) = pose_slice(out, len_floats, stride_floats)?;
    PoseOut::check_len(out.len(), joints, stride)?;
    Ok((out, stride))
}

/// Writes `value` through `ptr` when it is non-null (for "also report" outputs on error paths).
///
/// # Safety
/// A non-null `ptr` must be valid for writes of `T`.
pub(crate) unsafe fn write_if_some<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() && (ptr as usize).is_multiple_of(std::mem::align_of::<T>()) {
        ptr.write(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Catching a panic needs unwinding: wasm32-wasip1 aborts on a panic (docs/ci.md).
    #[cfg(panic = "unwind")]
    #[test]
    fn guard_maps_errors_and_panics() {
        assert_eq!(guard(|| Ok(())), Status::Ok);
        assert_eq!(guard(|| Err(Error::NoJoints)), Status::NoJoints);
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let s = guard(|| panic!("boom"));
        std::panic::set_hook(prev);
        assert_eq!(s, Status::Internal);
    }

    #[test]
    fn slices_check_null_alignment_and_length() {
        let v = [1.0f32; 4];
        unsafe {
            assert_eq!(
                in_slice::<f32>(std::ptr::null(), 0, "x"),
                Err(Error::NullPointer("x"))
            );
            assert_eq!(in_slice(v.as_ptr(), 4, "x").unwrap(), &v[..]);
            let odd = (v.as_ptr() as *const u8).add(1) as *const f32;
            assert_eq!(in_slice(odd, 1, "x"), Err(Error::Misaligned));
            assert!(matches!(
                in_slice(v.as_ptr(), usize::MAX / 2, "x"),
                Err(Error::InvalidArgument(_))
            ));
        }
    }
}
