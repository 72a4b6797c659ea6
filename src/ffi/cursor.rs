//! The `keys` codec's playback cursor through the C ABI.
//!
//! The whole cursor state (read position, playhead, sample key, per-track key windows) lives in a
//! caller-owned buffer of `u32` words ([`crate::runtime::cursor_state_size`]); this layer keeps
//! no handle of its own. Each call re-binds the buffer to the decompressor's already validated
//! header and body with the crate-internal `KeyCursor::bind` (no re-validation, no allocation).
//! The decompressor itself is only read (its own seek position is not used), so one decompressor
//! can serve many cursors on many threads; one cursor state is used by one thread at a time.

use std::os::raw::c_void;

use super::decompress::seek_policies;
use super::guard::{guard, out_ptr, out_slice, pose_buffer, write_if_some};
use super::handles::decompressor;
use super::types::AnimcompDecompressor;
use crate::format::CodecId;
use crate::math::FLOATS_PER_JOINT;
use crate::runtime::Decompressor;
use crate::runtime::{cursor_state_size, KeyCursor};
use crate::{Error, Result, Status};

/// The decompressor behind `ctx`, which must hold a `keys` blob.
///
/// # Safety
/// `ctx` must be null or point to a readable `AnimcompDecompressor`.
unsafe fn keys_decompressor<'a>(
    ctx: *const AnimcompDecompressor,
) -> Result<&'a Decompressor<'static>> {
    let dec = decompressor(ctx)?;
    if dec.header().codec != CodecId::Keys {
        return Err(Error::Unsupported(
            "a key cursor needs a blob written by the keys codec",
        ));
    }
    Ok(dec)
}

/// The state buffer as `u32` words: checks null, 4-byte alignment and that `state_size` bytes
/// hold the cursor of `dec`'s blob (else `BufferTooSmall` with the bytes required).
///
/// # Safety
/// A non-null `state` must be valid for reads and writes of `state_size` bytes, not aliased.
/// When `zero` is false the first words needed must have been written (by `init`).
unsafe fn state_words<'a>(
    dec: &Decompressor<'static>,
    state: *mut c_void,
    state_size: usize,
    zero: bool,
) -> Result<&'a mut [u32]> {
    let words = out_ptr(state as *mut u32, "state")?;
    let need = cursor_state_size(dec.header());
    let need_bytes = need * std::mem::size_of::<u32>();
    if state_size < need_bytes {
        return Err(Error::BufferTooSmall {
            required: need_bytes,
        });
    }
    if zero {
        // Initialise the memory before a slice of it is formed (it may be fresh from malloc).
        std::ptr::write_bytes(words, 0, need);
    }
    out_slice(words, need, "state")
}

/// A cursor bound to an initialised state buffer (marker checked).
///
/// # Safety
/// As [`keys_decompressor`] and [`state_words`].
unsafe fn bound<'a>(
    ctx: *const AnimcompDecompressor,
    state: *mut c_void,
    state_size: usize,
) -> Result<KeyCursor<'a>> {
    let dec = keys_decompressor(ctx)?;
    let words = state_words(dec, state, state_size, false)?;
    if !KeyCursor::is_marked(words) {
        return Err(Error::NotInitialized);
    }
    let (body, defaults) = dec.body_and_defaults();
    KeyCursor::bind(*dec.header(), body, defaults, words)
}

/// Writes to `*out_bytes` the size in bytes of the cursor state the decompressor's blob needs
/// (the buffer must also be 4-byte aligned). A blob of another codec gives
/// `ANIMCOMP_STATUS_UNSUPPORTED` and writes 0.
#[no_mangle]
pub unsafe extern "C" fn animcomp_key_cursor_state_size(
    ctx: *const AnimcompDecompressor,
    out_bytes: *mut usize,
) -> Status {
    guard(|| {
        let out = out_ptr(out_bytes, "out_bytes")?;
        let r = keys_decompressor(ctx);
        match r {
            Ok(dec) => {
                out.write(cursor_state_size(dec.header()) * std::mem::size_of::<u32>());
                Ok(())
            }
            Err(e) => {
                write_if_some(out, 0);
                Err(e)
            }
        }
    })
}

/// Initialises the caller-owned cursor `state` (`state_size` bytes, 4-byte aligned, at least
/// `animcomp_key_cursor_state_size` bytes, else `ANIMCOMP_STATUS_BUFFER_TOO_SMALL`) on the
/// decompressor's `keys` blob, at time 0. No memory is allocated. The state stays valid while the
/// decompressor (and its blob) does; it belongs to that blob only.
#[no_mangle]
pub unsafe extern "C" fn animcomp_key_cursor_init(
    ctx: *const AnimcompDecompressor,
    state: *mut c_void,
    state_size: usize,
) -> Status {
    guard(|| {
        let dec = keys_decompressor(ctx)?;
        let words = state_words(dec, state, state_size, true)?;
        let (body, defaults) = dec.body_and_defaults();
        KeyCursor::bind(*dec.header(), body, defaults, words)?.start();
        Ok(())
    })
}

/// Moves the cursor to `time` seconds, with the same `looping` (`ANIMCOMP_LOOPING_*`) and
/// `rounding` (`ANIMCOMP_ROUNDING_*`) policies as `animcomp_seek`. Moving forward reads the key
/// stream (amortised constant work per track); moving backward, or more than 256 samples forward,
/// rebuilds the state from the key index. A state not initialised by `animcomp_key_cursor_init`
/// gives `ANIMCOMP_STATUS_NOT_INITIALIZED`; a NaN or infinite time `ANIMCOMP_STATUS_INVALID_TIME`.
#[no_mangle]
pub unsafe extern "C" fn animcomp_key_cursor_seek(
    ctx: *const AnimcompDecompressor,
    state: *mut c_void,
    state_size: usize,
    time: f32,
    looping: u32,
    rounding: u32,
) -> Status {
    guard(|| {
        let (looping, rounding) = seek_policies(looping, rounding)?;
        bound(ctx, state, state_size)?.seek(time, looping, rounding)
    })
}

/// Moves the cursor to an exact sample index (clamped to the last sample).
#[no_mangle]
pub unsafe extern "C" fn animcomp_key_cursor_seek_sample(
    ctx: *const AnimcompDecompressor,
    state: *mut c_void,
    state_size: usize,
    sample: u32,
) -> Status {
    guard(|| {
        bound(ctx, state, state_size)?.seek_sample(sample);
        Ok(())
    })
}

/// Samples every joint at the cursor's position into `out`, exactly as `animcomp_sample_pose`
/// does at the same position (same layout, `stride_floats` and `out_len_floats` rules, results
/// bit-identical). The state is only read, but is taken as `void*`: one thread at a time.
#[no_mangle]
pub unsafe extern "C" fn animcomp_key_cursor_sample_pose(
    ctx: *const AnimcompDecompressor,
    state: *mut c_void,
    state_size: usize,
    out: *mut f32,
    out_len_floats: usize,
    stride_floats: usize,
) -> Status {
    guard(|| {
        let cursor = bound(ctx, state, state_size)?;
        let joints = keys_decompressor(ctx)?.num_joints();
        let (out, stride) = pose_buffer(out, out_len_floats, stride_floats, joints)?;
        cursor.sample_pose(out, stride)
    })
}

/// Samples one joint at the cursor's position into `out[0..10]` (as `animcomp_sample_joint`).
/// `joint` out of range gives `ANIMCOMP_STATUS_JOINT_OUT_OF_RANGE`.
#[no_mangle]
pub unsafe extern "C" fn animcomp_key_cursor_sample_joint(
    ctx: *const AnimcompDecompressor,
    state: *mut c_void,
    state_size: usize,
    joint: u32,
    out: *mut f32,
) -> Status {
    guard(|| {
        let cursor = bound(ctx, state, state_size)?;
        let out = out_slice(out, FLOATS_PER_JOINT, "out")?;
        cursor.sample_joint(joint)?.write_to(out);
        Ok(())
    })
}
