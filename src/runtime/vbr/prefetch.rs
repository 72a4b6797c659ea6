//! Prefetches of a whole pose: the reads of a cold pose form a chain of dependent cache misses
//! (segment table entry, segment header, frames); these hints start the later loads early.

use crate::format::vbr::layout::{View, READ_AHEAD};
use crate::runtime::body::Body;
use crate::runtime::SampleKey;

/// Asks the CPU to start loading the cache lines of `body[from..to]` (clamped to the body), so
/// the misses of a cold pose overlap instead of following one another. A hint: no effect on
/// results, no fault whatever the range (x86-64 only; elsewhere nothing).
#[inline(always)]
pub(super) fn prefetch(body: &[u8], from: usize, to: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let to = to.min(body.len());
        let mut o = from;
        while o < to {
            // SAFETY: prefetching never faults and reads nothing into the program; the address is
            // inside `body`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(body.as_ptr().add(o).cast()) };
            o += 64;
        }
        if from < to {
            // The line of the last byte (`from` need not be line-aligned).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(body.as_ptr().add(to - 1).cast()) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (body, from, to);
}

/// [`prefetch`] of the segment table entries of a key's two samples, the table at `segments`
/// with `seg_len` samples per segment.
#[inline(always)]
pub(super) fn prefetch_segment_entries(body: Body, segments: usize, seg_len: u32, key: &SampleKey) {
    for s in [key.i0, key.i1] {
        // The entry and the next one, whose offset ends the segment (`prefetch_frames_early`).
        let e = segments + 4 * (s / seg_len.max(1)) as usize;
        prefetch(body.bytes(), e, e + 8);
    }
}

/// [`prefetch`] of the segment at `off` (segment `seg`, stored frames from byte `data`; `samples`
/// in the clip) and of the stored frames of its local sample `local` and the next, before its
/// header is read: the frame size and the keyframe mask are in that header, so waiting for them
/// puts a second cache miss after the segment table's in a cold pose's chain
/// ([`estimated_frame`] says where the frames lie).
#[inline(always)]
pub(super) fn prefetch_frames_early(
    body: Body,
    v: &View,
    seg: u32,
    off: usize,
    data: usize,
    local: u32,
    samples: u32,
) {
    prefetch(body.bytes(), off, data);
    let at = |k: u32| estimated_frame(body, v, seg, data, k, samples);
    prefetch(body.bytes(), at(local), at(local + 2) + 8);
}

/// The byte where local sample `k`'s stored frame starts in segment `seg`, whose stored frames
/// start at byte `data`, estimated from the segment's size alone (its end is the next segment's
/// offset, or the read-ahead padding after the last segment) as if every sample were stored: then
/// the estimate is the frame's first byte or the byte after it (`tests`). When keyframes were
/// dropped it may be further off; it only places prefetches.
#[inline(always)]
pub(super) fn estimated_frame(
    body: Body,
    v: &View,
    seg: u32,
    data: usize,
    k: u32,
    samples: u32,
) -> usize {
    let last = seg + 1 >= v.num_segments;
    let (end, n) = if last {
        (
            body.bytes().len().saturating_sub(READ_AHEAD),
            samples.saturating_sub(seg * v.seg_len),
        )
    } else {
        (
            body.u32(v.segments + 4 * (seg + 1) as usize) as usize,
            v.seg_len,
        )
    };
    // In 64 bits: a hostile table entry may put `end` anywhere in the 32-bit range.
    let size = end.saturating_sub(data) as u64;
    data.saturating_add((size * k as u64 / n.max(1) as u64) as usize)
}

/// [`prefetch`] of a float buffer.
#[inline(always)]
pub(super) fn prefetch_floats(f: &[f32]) {
    // SAFETY: viewing initialised `f32`s as bytes; the slice covers exactly their memory.
    let bytes =
        unsafe { core::slice::from_raw_parts(f.as_ptr().cast::<u8>(), std::mem::size_of_val(f)) };
    prefetch(bytes, 0, bytes.len());
}
