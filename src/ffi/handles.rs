//! The opaque C handles: what lives inside `AnimcompDecompressor::opaque` and
//! `AnimcompBlob::opaque`, and the checked ways to reach it.
//!
//! An `AnimcompDecompressor` holds a [`Decompressor`] written in place with `ptr::write`, after a
//! magic word that marks it initialised. The decompressor borrows the caller's blob (and bind pose)
//! for as long as the caller keeps them alive; Rust sees that borrow as `'static`.

use std::os::raw::c_void;

use super::guard::{in_slice, out_ptr};
use super::types::{AnimcompBlob, AnimcompDecompressor};
use crate::runtime::{Decompressor, OpenBlob};
use crate::{Error, Result};

/// Marks an initialised context ("ACD1").
const MAGIC: u32 = u32::from_le_bytes(*b"ACD1");

/// What lives inside `AnimcompDecompressor::opaque`.
#[repr(C)]
pub(super) struct State {
    magic: u32,
    /// Bytes of the attached cache a pose uses (`dec.playback_cache_size()`, found when it was
    /// attached, so that a pose does not compute it again); 0 when none.
    pub(super) cache_len: u32,
    pub(super) dec: Decompressor<'static>,
    /// The attached playback cache (`animcomp_decompressor_attach_cache`), of at least
    /// `dec.playback_cache_size()` bytes, 16-byte aligned; null when none.
    pub(super) cache: *mut u8,
}

const _: () = {
    assert!(std::mem::size_of::<State>() <= std::mem::size_of::<AnimcompDecompressor>());
    assert!(std::mem::align_of::<State>() <= std::mem::align_of::<AnimcompDecompressor>());
};

/// Marks an opened blob handle ("ACMPBLB1").
const BLOB_MAGIC: u64 = u64::from_le_bytes(*b"ACMPBLB1");

/// What lives inside `AnimcompBlob::opaque`.
#[repr(C)]
pub(super) struct BlobState {
    magic: u64,
    pub(super) open: OpenBlob<'static>,
}

const _: () = {
    assert!(std::mem::size_of::<BlobState>() <= std::mem::size_of::<AnimcompBlob>());
    assert!(std::mem::align_of::<BlobState>() <= std::mem::align_of::<AnimcompBlob>());
};

/// The state of an opened blob handle.
///
/// # Safety
/// A non-null `handle` must point to a readable `AnimcompBlob` (opened or not).
#[inline]
pub(super) unsafe fn blob_state<'a>(handle: *const AnimcompBlob) -> Result<&'a BlobState> {
    let h = out_ptr(handle as *mut AnimcompBlob, "blob handle")? as *const BlobState;
    // A volatile read: the memory may be uninitialised (best-effort detection).
    if std::ptr::read_volatile(std::ptr::addr_of!((*h).magic)) != BLOB_MAGIC {
        return Err(Error::NotInitialized);
    }
    Ok(&*h)
}

/// Checks the context pointer (null, 16-byte alignment) without reading it.
#[inline]
fn ctx_ptr(ctx: *const AnimcompDecompressor) -> Result<*const AnimcompDecompressor> {
    out_ptr(ctx as *mut AnimcompDecompressor, "decompressor").map(|p| p as *const _)
}

/// The state of an initialised context.
///
/// # Safety
/// `ctx` must point to a readable `AnimcompDecompressor` (initialised or not).
#[inline]
pub(super) unsafe fn state<'a>(ctx: *const AnimcompDecompressor) -> Result<&'a State> {
    let p = ctx_ptr(ctx)? as *const State;
    // A volatile read: the memory may be uninitialised (best-effort detection).
    if std::ptr::read_volatile(std::ptr::addr_of!((*p).magic)) != MAGIC {
        return Err(Error::NotInitialized);
    }
    Ok(&*p)
}

/// Mutable state of an initialised context.
///
/// # Safety
/// As [`state`], and not aliased.
#[inline]
pub(super) unsafe fn state_mut<'a>(ctx: *mut AnimcompDecompressor) -> Result<&'a mut State> {
    state(ctx)?;
    Ok(&mut *(ctx as *mut State))
}

impl State {
    /// An initialised context on `dec`, without a playback cache.
    pub(super) fn new(dec: Decompressor<'static>) -> State {
        State {
            magic: MAGIC,
            cache_len: 0,
            dec,
            cache: std::ptr::null_mut(),
        }
    }
}

impl BlobState {
    /// An opened blob handle on `open`.
    pub(super) fn new(open: OpenBlob<'static>) -> BlobState {
        BlobState {
            magic: BLOB_MAGIC,
            open,
        }
    }
}

/// A blob slice from a C pointer (null → NULL_POINTER). Alignment is checked by the validator.
///
/// # Safety
/// A non-null `blob` must point to `size` readable bytes that outlive `'a`.
#[inline]
pub(crate) unsafe fn blob_slice<'a>(blob: *const c_void, size: usize) -> Result<&'a [u8]> {
    in_slice(blob as *const u8, size, "blob")
}

/// The decompressor behind an initialised context (for the other entry points).
///
/// # Safety
/// As [`state`].
#[inline]
pub(crate) unsafe fn decompressor<'a>(
    ctx: *const AnimcompDecompressor,
) -> Result<&'a Decompressor<'static>> {
    state(ctx).map(|s| &s.dec)
}
