//! Quality tiers at run time: the tier blobs attached to an opened resident blob, shared by
//! every thread that samples it.
//!
//! A [`TierSet`] lives beside an [`OpenBlob`] whose blob was compressed with tiers
//! ([`crate::format::tier`]). [`TierSet::attach`] validates a tier blob against the resident
//! blob (linear in the tier's bytes) and publishes it; [`TierSet::detach`] withdraws it and
//! returns once no sampling call reads it, so its bytes may then be freed or reused. A
//! decompressor bound with [`Decompressor::bind_tiers`](super::Decompressor::bind_tiers)
//! samples with whatever is attached when each call starts.
//!
//! The protocol (every operation sequentially consistent): a sampling call loads the two slots;
//! when both are empty it reads the resident blob alone and touches no counter. Otherwise it
//! increments the reader count, loads the slots again, samples, and decrements the count.
//! `detach` empties the slot, then waits until the count is zero: a call that saw the tier had
//! incremented the count before its second load, so `detach` waits for it, and a call that
//! loads after the slot was emptied does not see the tier. Calls that start after the slot was
//! emptied do not touch the count for that tier, so `detach` cannot be starved.
//!
//! Attach and detach take a writers' lock (an odd generation) and leave the next even
//! generation; a call reads the slots of one even generation, and a playback cache filled under
//! another generation is filled again, so it never blends samples of another set of tiers. A
//! call that finds nothing attached reads the resident blob as a decompressor without tiers
//! does (its cache generation 0, which no attached state has).

use std::marker::PhantomData;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicUsize, Ordering::SeqCst};

use super::OpenBlob;
use crate::format::{TierInfo, MAX_TIER_LEVELS};
use crate::runtime::vbr::grouped::body::View;
use crate::{Error, Result};

/// The tiers a sampling call reads when some level is attached.
#[derive(Debug, Clone, Copy, Default)]
pub struct Attached<'a> {
    /// Level 1's and level 2's tier blobs (validated, of their total size), when attached:
    /// the decoders find a segment's record in one only for a key whose samples the resident
    /// segments do not store.
    pub levels: [Option<&'a [u8]>; 2],
    /// The set's generation when the call started.
    pub generation: u32,
}

/// The tier slots of one opened resident blob. Attach and detach from any thread while others
/// sample; it must stay where it is (not moved) while decompressors are bound to it.
///
/// Attached bytes outlive the set, which the compiler checks:
///
/// ```compile_fail
/// # use animcomp::decompress::{OpenBlob, TierSet};
/// fn attach_a_temporary(open: &OpenBlob<'_>) {
///     let set = TierSet::new(open).unwrap();
///     for _ in 0..2 {
///         let bytes = vec![0u8; 64]; // freed at the end of each turn
///         let _ = set.attach(&bytes);
///     }
///     let _ = set.attached();
/// }
/// ```
#[derive(Debug)]
pub struct TierSet<'a> {
    open: OpenBlob<'a>,
    info: TierInfo,
    /// Each level's tier blob (its first byte; its size is in its header), null when detached.
    slots: [AtomicPtr<u8>; MAX_TIER_LEVELS as usize],
    readers: AtomicUsize,
    generation: AtomicU32,
    /// Invariant in `'a`: attached through `&self`, tier bytes must live as long as the set
    /// was made for, not as long as one call (a covariant `'a` let a shared reference to the
    /// set shrink it and attach a temporary).
    life: PhantomData<Invariant<'a>>,
}

/// A type invariant in `'a` (and `Send`, `Sync`).
type Invariant<'a> = fn(&'a [u8]) -> &'a [u8];

// SAFETY: the slots point at shared `&'a [u8]` tier bytes (read only).
unsafe impl Send for TierSet<'_> {}
// SAFETY: as above; every field is read and written through atomics.
unsafe impl Sync for TierSet<'_> {}

impl<'a> TierSet<'a> {
    /// The (empty) tier slots of `open`, a resident blob (compressed with tiers); an error for a
    /// blob without tiers.
    pub fn new(open: &OpenBlob<'a>) -> Result<Self> {
        let info = TierInfo::read(open.header(), open.blob()).ok_or(Error::InvalidArgument(
            "the blob was compressed without tiers",
        ))?;
        Ok(TierSet {
            open: *open,
            info,
            slots: Default::default(),
            readers: AtomicUsize::new(0),
            generation: AtomicU32::new(0),
            life: PhantomData,
        })
    }

    /// The resident blob's tier levels.
    pub fn levels(&self) -> u8 {
        self.info.levels
    }

    /// Validates `tier` against the resident blob and attaches it at its level, which it
    /// returns. Refused: a tier of another clip or of another compression
    /// ([`Error::TierMismatch`]), a corrupt tier (as a blob is refused), and a level already
    /// attached ([`Error::InvalidArgument`]).
    pub fn attach(&self, tier: &'a [u8]) -> Result<u8> {
        let h = self.open.header();
        let view = View::read(&self.open.blob()[h.body_range()], h);
        let level = super::vbr::grouped::tiered::validate(h, &self.info, &view, tier)?;
        let slot = &self.slots[level as usize - 1];
        let g = self.lock();
        let free = slot.load(SeqCst).is_null();
        if free {
            slot.store(tier.as_ptr() as *mut u8, SeqCst);
        }
        self.unlock(g);
        if !free {
            return Err(Error::InvalidArgument("a tier of this level is attached"));
        }
        Ok(level)
    }

    /// Detaches the tier of `level` and returns it once no sampling call reads it (`None` when
    /// none was attached). Waits, spinning then yielding, for the calls that started with it.
    pub fn detach(&self, level: u8) -> Option<&'a [u8]> {
        let slot = self.slots.get((level as usize).wrapping_sub(1))?;
        let g = self.lock();
        let p = slot.swap(std::ptr::null_mut(), SeqCst);
        self.unlock(g);
        if p.is_null() {
            return None;
        }
        let mut spins = 0u32;
        while self.readers.load(SeqCst) != 0 {
            if spins < 64 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
        // SAFETY: `p` was attached from a `&'a [u8]` of at least its total size (validated).
        Some(unsafe { tier_bytes(p) })
    }

    /// Takes the writers' lock: makes the generation odd (a change in progress) and returns
    /// the even one it was.
    fn lock(&self) -> u32 {
        loop {
            let g = self.generation.load(SeqCst);
            if g.is_multiple_of(2)
                && self
                    .generation
                    .compare_exchange_weak(g, g.wrapping_add(1), SeqCst, SeqCst)
                    .is_ok()
            {
                return g;
            }
            std::hint::spin_loop();
        }
    }

    /// Ends a change begun at generation `g`: the next even generation.
    fn unlock(&self, g: u32) {
        // Never 0 again: 0 names the resident blob alone (see `read`).
        let next = match g.wrapping_add(2) {
            0 => 2,
            n => n,
        };
        self.generation.store(next, SeqCst);
    }

    /// Which levels are attached (index 0: level 1).
    pub fn attached(&self) -> [bool; 2] {
        [0, 1].map(|l| !self.slots[l].load(SeqCst).is_null())
    }

    /// The current generation: it changes with every attach and detach (odd while one runs).
    pub fn generation(&self) -> u32 {
        self.generation.load(SeqCst)
    }

    /// Runs `f` with the tiers attached now (`None`: none is); they stay readable until `f`
    /// returns.
    #[inline]
    pub(crate) fn read<R>(&self, f: impl FnOnce(Option<&Attached<'a>>) -> R) -> R {
        if self.slots.iter().all(|s| s.load(SeqCst).is_null()) {
            return f(None);
        }
        struct Reader<'r>(&'r AtomicUsize);
        impl Drop for Reader<'_> {
            fn drop(&mut self) {
                self.0.fetch_sub(1, SeqCst);
            }
        }
        self.readers.fetch_add(1, SeqCst);
        let _reader = Reader(&self.readers);
        let mut slots = [std::ptr::null_mut(); 2];
        // The slots of one even generation: read again when a change ran meanwhile.
        let generation = loop {
            let g = self.generation.load(SeqCst);
            if g % 2 == 1 {
                std::hint::spin_loop();
                continue;
            }
            for (p, slot) in slots.iter_mut().zip(&self.slots) {
                *p = slot.load(SeqCst);
            }
            if self.generation.load(SeqCst) == g {
                break g;
            }
        };
        if slots.iter().all(|p| p.is_null()) {
            return f(None);
        }
        // SAFETY: attached tiers were validated (their size is in their header) and stay
        // readable while the count is held.
        let levels = slots.map(|p| (!p.is_null()).then(|| unsafe { tier_bytes(p) }));
        f(Some(&Attached { levels, generation }))
    }

    /// The resident blob.
    pub fn open_blob(&self) -> &OpenBlob<'a> {
        &self.open
    }
}

/// The bytes of the validated tier blob at `p`.
///
/// # Safety
/// `p` is an attached tier blob, readable for its total size.
#[inline(always)]
unsafe fn tier_bytes<'a>(p: *const u8) -> &'a [u8] {
    // SAFETY: the total size (a `u32` at byte 8, 4-byte aligned as the blob is 16-byte
    // aligned) was validated against the bytes attached.
    let len = u32::from_le((p.add(8) as *const u32).read()) as usize;
    std::slice::from_raw_parts(p, len)
}
