//! The playback cache of a context: its size, attaching it, and sampling through it.
//!
//! A context samples random times as cheaply without a cache as with one; a clip that plays
//! (times advancing by a frame) reuses the decoded samples and segment coefficients the cache
//! holds (`docs/runtime.md`, "Playback cache"). The cache is caller-owned memory: the library
//! never allocates it, and the caller frees it after detaching it or dropping the context.

use super::guard::{guard, out_ptr};
use super::handles::{blob_state, state, state_mut, State};
use super::types::{AnimcompBlob, AnimcompDecompressor};
use crate::{Error, Result, Status};
use std::os::raw::c_void;

/// Writes into `*out_bytes` the bytes of playback cache a context bound to the opened blob
/// `handle` can use: 16-byte aligned memory of at least that size, attached with
/// `animcomp_decompressor_attach_cache`. 0 when the blob's codec has no cache (attaching is then
/// allowed and changes nothing). The size depends on the blob only: about 1 KB per group of up
/// to eight animated tracks, plus 96, for a `vbr` blob.
#[no_mangle]
pub unsafe extern "C" fn animcomp_blob_playback_cache_size(
    handle: *const AnimcompBlob,
    out_bytes: *mut usize,
) -> Status {
    guard(|| {
        let out = out_ptr(out_bytes, "out_bytes")?;
        let n = blob_state(handle)?.open.playback_cache_size();
        out.write(n);
        Ok(())
    })
}

/// `animcomp_blob_playback_cache_size` for the blob an initialised context is bound to.
#[no_mangle]
pub unsafe extern "C" fn animcomp_decompressor_playback_cache_size(
    ctx: *const AnimcompDecompressor,
    out_bytes: *mut usize,
) -> Status {
    guard(|| {
        let out = out_ptr(out_bytes, "out_bytes")?;
        let n = state(ctx)?.dec.playback_cache_size();
        out.write(n);
        Ok(())
    })
}

/// Attaches `cache` (`cache_bytes` bytes, 16-byte aligned, at least the size
/// `animcomp_decompressor_playback_cache_size` gives, any contents) to an initialised context:
/// from then on `animcomp_sample_pose` keeps in it what makes the next pose of a playing clip
/// cheap, with poses bit for bit those without it. NULL detaches (`cache_bytes` is then ignored).
/// Too small: `ANIMCOMP_STATUS_BUFFER_TOO_SMALL`; not aligned: `ANIMCOMP_STATUS_MISALIGNED`; on
/// failure the context keeps the cache it had.
///
/// The cache belongs to this context: it must stay alive while attached, and a context with a
/// cache is used by one thread at a time. Binding or initialising the context again detaches it.
/// A copy of the context (`memcpy`) shares the cache: attach another one to the copy (or NULL)
/// before two threads use them.
#[no_mangle]
pub unsafe extern "C" fn animcomp_decompressor_attach_cache(
    ctx: *mut AnimcompDecompressor,
    cache: *mut c_void,
    cache_bytes: usize,
) -> Status {
    guard(|| {
        let st = state_mut(ctx)?;
        if cache.is_null() {
            st.cache = std::ptr::null_mut();
            st.cache_len = 0;
            return Ok(());
        }
        if !(cache as usize).is_multiple_of(16) {
            return Err(Error::Misaligned);
        }
        let need = st.dec.playback_cache_size();
        if cache_bytes < need {
            return Err(Error::BufferTooSmall { required: need });
        }
        let len = u32::try_from(need)
            .map_err(|_| Error::InvalidArgument("a playback cache of 4 GB or more"))?;
        let cache = cache.cast::<u8>();
        if need > 0 {
            // Marks it unfilled: it is filled for this context on its first use.
            std::ptr::write_bytes(cache, 0, 16);
        }
        st.cache = cache;
        st.cache_len = len;
        Ok(())
    })
}

/// `animcomp_sample_pose` through the attached cache.
///
/// # Safety
/// `st.cache` is non-null and points to the attached cache (`st.cache_len` bytes, the playback
/// cache size, 16-byte aligned, alive, used by this thread only).
///
/// Out of line: inlined into `animcomp_sample_pose` (where the panic guard, now inlined into
/// every entry point, would put it) it made the plain pose's entry larger and cached playback
/// 0.96-0.99x as fast (`docs/runtime.md`, "Tried and not kept"); out of line the plain pose takes
/// 7 instructions fewer and a cached one the call.
#[inline(never)]
pub(super) unsafe fn sample_pose_cached(st: &State, out: &mut [f32], stride: usize) -> Result<()> {
    let cache = std::slice::from_raw_parts_mut(st.cache, st.cache_len as usize);
    // The pose buffer was checked by the caller, the cache when it was attached.
    st.dec.sample_pose_cached_checked(cache, out, stride);
    Ok(())
}
