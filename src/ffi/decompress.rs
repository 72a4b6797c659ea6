//! The caller-owned decompressor: init, seek, sample pose, sample joint.
//!
//! The contexts and blob handles themselves (what lives in their opaque words) are
//! [`super::handles`]'s.

use std::os::raw::c_void;

use super::guard::{guard, in_slice, opt_ref, out_ptr, out_slice, pose_buffer, pose_slice};
use super::handles::{blob_slice, blob_state, state, state_mut, BlobState, State};
use super::types::{AnimcompBlob, AnimcompDecompressOptions, AnimcompDecompressor};
use crate::format::{BlobFlags, Header};
use crate::math::FLOATS_PER_JOINT;
use crate::runtime::{DecompressOptions, Decompressor, Looping, OpenBlob, PoseOut, Rounding};
use crate::{Error, Result, Status};

/// The default options: verify the checksum, no bind pose.
pub(crate) fn default_options() -> AnimcompDecompressOptions {
    AnimcompDecompressOptions {
        verify_checksum: 1,
        reserved0: 0,
        bind_pose: std::ptr::null(),
        bind_pose_len: 0,
        reserved: [0; 1],
    }
}

/// Writes the default decompression options (verify the checksum, no bind pose).
#[no_mangle]
pub unsafe extern "C" fn animcomp_decompress_options_default(
    options: *mut AnimcompDecompressOptions,
) -> Status {
    guard(|| {
        out_ptr(options, "options")?.write(default_options());
        Ok(())
    })
}

/// The decompression options from C (NULL = defaults), range-checked, with the bind pose slice
/// formed once the header's joint count has passed validation.
///
/// # Safety
/// As the entry points that call it.
unsafe fn open_blob(
    blob: *const c_void,
    blob_size: usize,
    options: *const AnimcompDecompressOptions,
) -> Result<OpenBlob<'static>> {
    let opts = opt_ref(options)?.copied().unwrap_or_else(default_options);
    let verify_checksum = match opts.verify_checksum {
        0 => false,
        1 => true,
        v => {
            return Err(Error::InvalidEnum {
                what: "verify_checksum",
                value: v,
            })
        }
    };
    if opts.reserved0 != 0 || opts.reserved.iter().any(|&r| r != 0) {
        return Err(Error::InvalidArgument(
            "reserved fields of AnimcompDecompressOptions must be zero",
        ));
    }
    let blob: &'static [u8] = blob_slice(blob, blob_size)?;
    // The bind pose length comes from the caller and is checked against the joint count of a
    // header that has passed its own checks, so no slice is formed from an unchecked count; the
    // body is validated once, by `OpenBlob::open`.
    let bind_pose = if opts.bind_pose.is_null() {
        if opts.bind_pose_len != 0 {
            return Err(Error::InvalidArgument(
                "bind_pose_len is set but bind_pose is NULL",
            ));
        }
        None
    } else if opts.bind_pose_len == 0 {
        return Err(Error::InvalidArgument(
            "bind_pose needs bind_pose_len: its length in floats, 10 per joint x num_joints",
        ));
    } else {
        let header = Header::parse(blob)?;
        let len = header.num_joints as usize * FLOATS_PER_JOINT;
        if !header.has(BlobFlags::DEFAULTS_ARE_BIND_POSE) {
            // Not used by this blob: ignored, never read (and no slice formed over it).
            None
        } else if opts.bind_pose_len < len as u64 {
            // Checked before a slice is formed or a float read (nothing is written: the required
            // length is 10 x the blob's joints, `AnimcompBlobInfo::num_joints`).
            return Err(Error::BufferTooSmall {
                required: len * std::mem::size_of::<f32>(),
            });
        } else {
            Some(in_slice(opts.bind_pose, len, "bind_pose")? as &'static [f32])
        }
    };
    OpenBlob::open(
        blob,
        &DecompressOptions {
            verify_checksum,
            bind_pose,
        },
    )
}

/// Validates the blob (`blob_size` bytes, 16-byte aligned) and initialises `*ctx` on it, at time 0.
/// `options` may be NULL (defaults). No memory is allocated. On failure `*ctx` is left
/// uninitialised (other functions then return `ANIMCOMP_STATUS_NOT_INITIALIZED`). The bind pose
/// is checked as for `animcomp_blob_open` (its length, `options->bind_pose_len`, is required).
/// This is `animcomp_blob_open` followed by `animcomp_decompressor_bind`: to bind many contexts to
/// one blob, open it once and bind each context (constant time).
///
/// The blob, and the bind pose if one is given, must stay alive and unchanged while `*ctx` (or
/// any copy of it) is used. Initialising a context again simply replaces it.
#[no_mangle]
pub unsafe extern "C" fn animcomp_decompressor_init(
    ctx: *mut AnimcompDecompressor,
    blob: *const c_void,
    blob_size: usize,
    options: *const AnimcompDecompressOptions,
) -> Status {
    guard(|| {
        let ctx = out_ptr(ctx, "decompressor")?;
        ctx.write(AnimcompDecompressor {
            opaque: [0; super::types::ANIMCOMP_DECOMPRESSOR_WORDS],
        });
        let dec = Decompressor::bind(&open_blob(blob, blob_size, options)?);
        (ctx as *mut State).write(State::new(dec));
        Ok(())
    })
}

/// Validates the blob in full, once (16-byte alignment, magic, version, sizes, the checksum unless
/// `options` turns it off, every offset, count and stored value, and the bind pose of `options`
/// when the blob's defaults are the bind pose), in time linear in its size, and fills `*handle`.
/// `options` may be NULL (defaults). Bind any number of contexts to the handle with
/// `animcomp_decompressor_bind`. A bind pose comes with its length in floats
/// (`options->bind_pose_len`, 10 per joint x `AnimcompBlobInfo::num_joints`): a length of 0 with
/// a bind pose gives `ANIMCOMP_STATUS_INVALID_ARGUMENT`, and when the blob's defaults are the bind
/// pose, one shorter than 10 floats per joint of the blob gives `ANIMCOMP_STATUS_BUFFER_TOO_SMALL`
/// before any of it is read (nothing is written). A NULL bind pose for a blob whose defaults are
/// the bind pose gives `ANIMCOMP_STATUS_BIND_POSE_REQUIRED`. On failure `*handle` is left unopened (binding it then gives
/// `ANIMCOMP_STATUS_NOT_INITIALIZED`). The blob and bind pose must outlive the handle and every
/// context bound from it. No memory is allocated.
#[no_mangle]
pub unsafe extern "C" fn animcomp_blob_open(
    handle: *mut AnimcompBlob,
    blob: *const c_void,
    blob_size: usize,
    options: *const AnimcompDecompressOptions,
) -> Status {
    guard(|| {
        let handle = out_ptr(handle, "blob handle")?;
        handle.write(AnimcompBlob {
            opaque: [0; super::types::ANIMCOMP_BLOB_WORDS],
        });
        let open = open_blob(blob, blob_size, options)?;
        (handle as *mut BlobState).write(BlobState::new(open));
        Ok(())
    })
}

/// Binds `*ctx` to an opened blob handle, at time 0, in constant time (no validation is repeated:
/// the handle holds a validated blob). A handle that was never opened successfully gives
/// `ANIMCOMP_STATUS_NOT_INITIALIZED`. Binding a context again simply replaces it.
#[no_mangle]
pub unsafe extern "C" fn animcomp_decompressor_bind(
    ctx: *mut AnimcompDecompressor,
    handle: *const AnimcompBlob,
) -> Status {
    guard(|| {
        let ctx = out_ptr(ctx, "decompressor")?;
        let dec = Decompressor::bind(&blob_state(handle)?.open);
        (ctx as *mut State).write(State::new(dec));
        Ok(())
    })
}

/// Moves the decompressor to `time` seconds. `looping` is an `ANIMCOMP_LOOPING_*` value (clamp to
/// the clip, or wrap with period samples / rate); `rounding` an `ANIMCOMP_ROUNDING_*` value
/// (interpolate, floor, ceil, nearest). A NaN or infinite time gives `ANIMCOMP_STATUS_INVALID_TIME`.
#[no_mangle]
pub unsafe extern "C" fn animcomp_seek(
    ctx: *mut AnimcompDecompressor,
    time: f32,
    looping: u32,
    rounding: u32,
) -> Status {
    guard(|| {
        let st = state_mut(ctx)?;
        let (looping, rounding) = seek_policies(looping, rounding)?;
        st.dec.seek(time, looping, rounding)
    })
}

/// The looping and rounding policies from their C integers (range-checked).
pub(crate) fn seek_policies(looping: u32, rounding: u32) -> Result<(Looping, Rounding)> {
    let l = Looping::from_u32(looping).ok_or(Error::InvalidEnum {
        what: "looping",
        value: looping,
    })?;
    let r = Rounding::from_u32(rounding).ok_or(Error::InvalidEnum {
        what: "rounding",
        value: rounding,
    })?;
    Ok((l, r))
}

/// Moves the decompressor to an exact sample index (clamped to the last sample).
#[no_mangle]
pub unsafe extern "C" fn animcomp_seek_sample(
    ctx: *mut AnimcompDecompressor,
    sample: u32,
) -> Status {
    guard(|| {
        state_mut(ctx)?.dec.seek_sample(sample);
        Ok(())
    })
}

/// Samples every joint at the current position into `out`: 10 floats per joint
/// (`qx qy qz qw tx ty tz sx sy sz`), joint `j` starting at `out[j * stride_floats]`.
/// `stride_floats` is 0 (= 10) or at least 10; `out_len_floats` must be at least
/// `(joints - 1) * stride + 10`, else `ANIMCOMP_STATUS_BUFFER_TOO_SMALL` (and nothing is written).
/// Floats between joints are not written. Does not allocate. Many threads may sample one context
/// at once, unless a playback cache is attached (`animcomp_decompressor_attach_cache`): then the
/// pose goes through the cache (bit for bit the same pose), and the context is used by one thread
/// at a time.
#[no_mangle]
pub unsafe extern "C" fn animcomp_sample_pose(
    ctx: *const AnimcompDecompressor,
    out: *mut f32,
    out_len_floats: usize,
    stride_floats: usize,
) -> Status {
    guard(|| {
        let st = state(ctx)?;
        let (out, stride) = pose_slice(out, out_len_floats, stride_floats)?;
        if st.cache.is_null() {
            // The length for every joint is checked by `Decompressor::sample_pose`
            // (`PoseOut::check_len`, the check `pose_buffer` makes), so not here as well
            // (`pose_buffers_are_refused_with_and_without_a_cache` keeps every case refused).
            st.dec.sample_pose(out, stride)
        } else {
            PoseOut::check_len(out.len(), st.dec.num_joints(), stride)?;
            super::playback::sample_pose_cached(st, out, stride)
        }
    })
}

/// Samples one joint at the current position into `out[0..10]`
/// (`qx qy qz qw tx ty tz sx sy sz`). `joint` out of range gives
/// `ANIMCOMP_STATUS_JOINT_OUT_OF_RANGE`.
#[no_mangle]
pub unsafe extern "C" fn animcomp_sample_joint(
    ctx: *const AnimcompDecompressor,
    joint: u32,
    out: *mut f32,
) -> Status {
    guard(|| {
        let st = state(ctx)?;
        let out = out_slice(out, FLOATS_PER_JOINT, "out")?;
        st.dec.sample_joint(joint)?.write_to(out);
        Ok(())
    })
}

/// Samples the joints `joints[0..count]` at the current position: joint `joints[i]` is written
/// (10 floats, `qx qy qz qw tx ty tz sx sy sz`) at `out[slot * stride_floats]`, where `slot` is
/// `out_slots[i]`, or `i` when `out_slots` is NULL (Unreal-style bone track arrays map compressed
/// tracks to pose atoms this way). `channels` is a mask of `ANIMCOMP_CHANNEL_*` bits: only those
/// floats of each joint are written (and only those channels decoded where the codec can skip the
/// others). `stride_floats` is 0 (= 10) or at least 10; `out_len_floats` must hold the largest slot,
/// else `ANIMCOMP_STATUS_BUFFER_TOO_SMALL`. A joint index out of range gives
/// `ANIMCOMP_STATUS_JOINT_OUT_OF_RANGE`. Slots may repeat: the last entry naming a slot is what it
/// holds. The cost follows the joints asked for (ascending lists are cheapest). Does not allocate.
#[no_mangle]
pub unsafe extern "C" fn animcomp_sample_joints(
    ctx: *const AnimcompDecompressor,
    joints: *const u32,
    out_slots: *const u32,
    count: usize,
    channels: u32,
    out: *mut f32,
    out_len_floats: usize,
    stride_floats: usize,
) -> Status {
    guard(|| {
        let st = state(ctx)?;
        let joints = in_slice(joints, count, "joints")?;
        let slots = if out_slots.is_null() {
            None
        } else {
            Some(in_slice(out_slots, count, "out_slots")?)
        };
        let (out, stride) = pose_buffer(out, out_len_floats, stride_floats, 0)?;
        st.dec.sample_joints(joints, slots, channels, out, stride)
    })
}
