//! Quality tiers: a resident blob's tier slots (`AnimcompTierSet`), attaching and detaching tier
//! blobs while other threads sample, and contexts that sample with whatever is attached
//! (`docs/tiers.md`; [`crate::runtime::tiers`] has the protocol).

use std::os::raw::c_void;

use super::guard::{guard, in_slice, out_ptr};
use super::handles::{blob_state, State};
use super::types::{AnimcompBlob, AnimcompDecompressor, AnimcompTierSet, ANIMCOMP_TIER_SET_WORDS};
use crate::runtime::{Decompressor, TierSet};
use crate::{Error, Result, Status};

/// Marks an initialised tier set ("ACMPTIR1").
const MAGIC: u64 = u64::from_le_bytes(*b"ACMPTIR1");

/// What lives inside `AnimcompTierSet::opaque`.
#[repr(C)]
struct SetState {
    magic: u64,
    set: TierSet<'static>,
}

const _: () = {
    assert!(std::mem::size_of::<SetState>() <= std::mem::size_of::<AnimcompTierSet>());
    assert!(std::mem::align_of::<SetState>() <= std::mem::align_of::<AnimcompTierSet>());
};

/// The tier set behind an initialised handle.
///
/// # Safety
/// A non-null `set` must point to a readable `AnimcompTierSet` (initialised or not).
unsafe fn tier_set<'a>(set: *const AnimcompTierSet) -> Result<&'a TierSet<'static>> {
    let p = out_ptr(set as *mut AnimcompTierSet, "tier set")? as *const SetState;
    // A volatile read: the memory may be uninitialised (best-effort detection).
    if std::ptr::read_volatile(std::ptr::addr_of!((*p).magic)) != MAGIC {
        return Err(Error::NotInitialized);
    }
    Ok(&(*p).set)
}

/// Initialises `*set` with empty tier slots for the opened blob `handle`, which must have been
/// compressed with tiers (else `ANIMCOMP_STATUS_INVALID_ARGUMENT`). Nothing is attached: contexts
/// bound to the set sample the resident blob alone. The blob must outlive the set. Initialising a
/// set again while contexts are bound to it or tiers are attached is not allowed.
#[no_mangle]
pub unsafe extern "C" fn animcomp_tier_set_init(
    set: *mut AnimcompTierSet,
    handle: *const AnimcompBlob,
) -> Status {
    guard(|| {
        let set = out_ptr(set, "tier set")?;
        set.write(AnimcompTierSet {
            opaque: [0; ANIMCOMP_TIER_SET_WORDS],
        });
        let tiers = TierSet::new(&blob_state(handle)?.open)?;
        (set as *mut SetState).write(SetState {
            magic: MAGIC,
            set: tiers,
        });
        Ok(())
    })
}

/// The count of tier levels of the set's resident blob (1 or 2) into `*levels`.
#[no_mangle]
pub unsafe extern "C" fn animcomp_tier_set_levels(
    set: *const AnimcompTierSet,
    levels: *mut u32,
) -> Status {
    guard(|| {
        let out = out_ptr(levels, "levels")?;
        *out = tier_set(set)?.levels() as u32;
        Ok(())
    })
}

/// Validates the tier blob `tier` (`tier_size` bytes, 16-byte aligned) against the set's resident
/// blob, in time linear in its size, and attaches it; its level (1 or 2) is written to `*level`
/// when `level` is not NULL. Any thread may attach while others sample: calls that start after
/// this one returns read the tier. A tier of another clip or of another compression of it gives
/// `ANIMCOMP_STATUS_TIER_MISMATCH`; a corrupt one the status a corrupt blob gives (`BAD_MAGIC`,
/// `CHECKSUM_MISMATCH`, `CORRUPT_BLOB`...); a level already attached
/// `ANIMCOMP_STATUS_INVALID_ARGUMENT`. The tier's bytes must stay alive and unchanged until
/// `animcomp_tier_detach` returns them.
#[no_mangle]
pub unsafe extern "C" fn animcomp_tier_attach(
    set: *mut AnimcompTierSet,
    tier: *const c_void,
    tier_size: usize,
    level: *mut u32,
) -> Status {
    guard(|| {
        let s = tier_set(set)?;
        let bytes = in_slice(tier as *const u8, tier_size, "tier")?;
        let l = s.attach(bytes)?;
        if !level.is_null() {
            *level = l as u32;
        }
        Ok(())
    })
}

/// Detaches the tier of `level` (1 or 2) and returns once no sampling call reads it: its bytes may
/// then be freed or reused. Calls that start after the tier was withdrawn sample without it; a
/// detach waits (spinning, then yielding) only for the calls that started with it. Its address is
/// written to `*tier` when `tier` is not NULL (NULL when no tier of that level was attached). A
/// level other than 1 or 2 gives `ANIMCOMP_STATUS_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn animcomp_tier_detach(
    set: *mut AnimcompTierSet,
    level: u32,
    tier: *mut *const c_void,
) -> Status {
    guard(|| {
        let s = tier_set(set)?;
        if !(1..=2).contains(&level) {
            return Err(Error::InvalidArgument("tier level must be 1 or 2"));
        }
        let out = s.detach(level as u8);
        if !tier.is_null() {
            *tier = out.map_or(std::ptr::null(), |b| b.as_ptr() as *const c_void);
        }
        Ok(())
    })
}

/// The levels attached now as bits (bit 0: level 1, bit 1: level 2) into `*attached`.
#[no_mangle]
pub unsafe extern "C" fn animcomp_tier_set_attached(
    set: *const AnimcompTierSet,
    attached: *mut u32,
) -> Status {
    guard(|| {
        let out = out_ptr(attached, "attached")?;
        let a = tier_set(set)?.attached();
        *out = a[0] as u32 | (a[1] as u32) << 1;
        Ok(())
    })
}

/// Binds `*ctx` to the set's resident blob, at time 0, in constant time: every sampling call on
/// it reads the tiers attached when it starts. The set must stay where it is, initialised, while
/// the context (or a copy of it) is used. Binding a context again simply replaces it.
#[no_mangle]
pub unsafe extern "C" fn animcomp_decompressor_bind_tiers(
    ctx: *mut AnimcompDecompressor,
    set: *const AnimcompTierSet,
) -> Status {
    guard(|| {
        let ctx = out_ptr(ctx, "decompressor")?;
        let dec = Decompressor::bind_tiers(tier_set(set)?);
        (ctx as *mut State).write(State::new(dec));
        Ok(())
    })
}
