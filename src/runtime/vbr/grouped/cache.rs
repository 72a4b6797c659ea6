//! The playback cache in caller-owned memory (see `avx2/play.rs` for what it holds and how a
//! pose uses it).
//!
//! ```text
//! head (64 bytes): tag "ACP3", the blob's checksum, the body's address and length, the bind
//!   pose's address, the sample each slot holds, the last key's first sample, the segment whose
//!   coefficients are held, the group count, the tier generation it was filled under
//! up to 32 bytes to align the coefficients to 32 bytes
//! per group: its coefficients in the held segment (640 bytes)
//! per slot (three) and group: four components of eight lanes (128 bytes)
//! per slot and group: the lanes constant over the segment (a byte)
//! ```
//!
//! The memory is only ever read as plain words and floats. Its head names the clip it was
//! filled for; memory that names another clip (or none) is reset before use, so a cache moved
//! to another clip or context is refilled, never trusted.

use super::LANES;

/// Marks a cache in use ("ACP3").
const TAG: u32 = u32::from_le_bytes(*b"ACP3");
/// Nothing held.
pub(super) const NONE: u32 = u32::MAX;
/// Bytes of one group's coefficients (the AVX2 decoder's `Coef` fits).
pub(super) const COEF_BYTES: usize = 640;
/// Decoded samples held: the key's two and the one after (decoded with the second, ahead).
pub(super) const SLOTS: usize = 3;

/// The head of a cache.
#[repr(C)]
pub(super) struct Head {
    tag: u32,
    checksum: u32,
    body: u64,
    len: u64,
    bind: u64,
    /// Sample each slot holds.
    pub held: [u32; SLOTS],
    /// The last key's first sample.
    pub last: u32,
    /// Segment whose coefficients `coefs` holds.
    pub coef_segment: u32,
    groups: u32,
    /// The tier set's generation ([`crate::runtime::tiers`]; 0 without tiers).
    generation: u32,
    _pad: u32,
}

const HEAD: usize = std::mem::size_of::<Head>();
const _: () = assert!(HEAD == 64);

/// One group's coefficients, 32-byte aligned.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
pub(crate) struct CoefBytes(pub(crate) [u8; COEF_BYTES]);

/// The clip a cache is filled for: the body's address and length, the blob's checksum, the
/// bind pose's address and the generation of the attached tiers (samples decoded with other
/// tiers attached are other values).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Owner {
    pub body: u64,
    pub len: u64,
    pub checksum: u32,
    pub bind: u64,
    pub generation: u32,
}

/// A cache's parts, over caller memory.
pub(super) struct Cache<'a> {
    pub head: &'a mut Head,
    /// Per group.
    pub coefs: &'a mut [CoefBytes],
    /// Per slot and group.
    pub values: &'a mut [[[f32; LANES]; 4]],
    /// Per slot and group.
    pub constant: &'a mut [u8],
}

/// Whether a key whose first sample is `i0` is near the last key `last` (playback, either
/// direction, or wrapping to the first samples): only then may the slots help. A random jump
/// takes the plain walk and leaves the slots alone.
#[inline(always)]
pub(super) fn near(last: u32, i0: u32) -> bool {
    last != NONE && (i0.abs_diff(last) <= 2 || i0 <= 1)
}

/// A random jump's bookkeeping, before anything else of the cache is looked at: when `mem`
/// holds a cache whose last key is far from `i0`, records `i0` as the last key and returns true,
/// and the pose takes the plain walk, paying for the cache no more than these two words (a pose
/// that does not fit the cache takes the plain walk too). Otherwise false: the caller opens the
/// cache ([`Cache::new`], which checks its size and whose it is). The last key is a hint only:
/// memory filled for another clip is reset when the cache is next opened.
#[inline(always)]
pub(super) fn jump(mem: &mut [u8], i0: u32) -> bool {
    let base = mem.as_mut_ptr();
    if mem.len() < HEAD || !(base as usize).is_multiple_of(8) {
        return false;
    }
    // SAFETY: `mem` holds a head's bytes at an 8-byte-aligned address (checked above); any bit
    // pattern is a valid head.
    let h = unsafe { &mut *(base as *mut Head) };
    if h.tag != TAG || near(h.last, i0) {
        return false;
    }
    h.last = i0;
    true
}

/// Bytes of cache a clip of `groups` groups uses (a multiple of 16, as the C ABI promises).
pub(super) fn size(groups: usize) -> usize {
    (HEAD + 32 + groups * (COEF_BYTES + SLOTS * (4 * 4 * LANES + 1))).next_multiple_of(16)
}

impl<'a> Cache<'a> {
    /// The parts of `mem` for a clip of `groups` groups filled for `owner` (reset when it was
    /// filled for another), or `None` when `mem` is too small or not 8-byte aligned.
    #[inline(always)]
    pub fn new(mem: &'a mut [u8], groups: usize, owner: Owner) -> Option<Cache<'a>> {
        let base = mem.as_mut_ptr();
        if mem.len() < size(groups) || !(base as usize).is_multiple_of(8) {
            return None;
        }
        let coefs_at = (base as usize + HEAD).next_multiple_of(32) - base as usize;
        let values_at = coefs_at + groups * COEF_BYTES;
        let constant_at = values_at + SLOTS * groups * 4 * 4 * LANES;
        debug_assert!(constant_at + SLOTS * groups <= mem.len());
        // SAFETY: the parts are disjoint ranges of `mem` (sizes above), each aligned for its
        // type (8 for the head, 32 for the coefficients, 4 for the floats), and every bit
        // pattern is a valid value of these plain types.
        let c = unsafe {
            Cache {
                head: &mut *(base as *mut Head),
                coefs: std::slice::from_raw_parts_mut(base.add(coefs_at) as *mut CoefBytes, groups),
                values: std::slice::from_raw_parts_mut(
                    base.add(values_at) as *mut [[f32; LANES]; 4],
                    SLOTS * groups,
                ),
                constant: std::slice::from_raw_parts_mut(base.add(constant_at), SLOTS * groups),
            }
        };
        let h = &mut *c.head;
        let known = h.tag == TAG
            && h.groups as usize == groups
            && Owner {
                body: h.body,
                len: h.len,
                checksum: h.checksum,
                bind: h.bind,
                generation: h.generation,
            } == owner;
        if !known {
            *h = Head {
                tag: TAG,
                checksum: owner.checksum,
                body: owner.body,
                len: owner.len,
                bind: owner.bind,
                held: [NONE; SLOTS],
                last: NONE,
                coef_segment: NONE,
                groups: groups as u32,
                generation: owner.generation,
                _pad: 0,
            };
        }
        Some(c)
    }
}
