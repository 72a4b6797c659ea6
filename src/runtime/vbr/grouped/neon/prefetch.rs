//! The whole pose's prefetch hints on aarch64 (`prfm pldl1keep`): what `common::prefetch` and
//! `common::fetch` hint on x86-64 with `_mm_prefetch`, in the same places.

use super::super::common::Split;
use super::super::View;
use core::arch::asm;

/// A hint for the line of `p` (no fault for any address).
#[inline(always)]
pub(in crate::runtime::vbr::grouped) unsafe fn line(p: *const u8) {
    asm!(
        "prfm pldl1keep, [{0}]",
        in(reg) p,
        options(nostack, preserves_flags, readonly)
    );
}

/// Lines of `len` bytes at `p`.
#[inline(always)]
pub(in crate::runtime::vbr::grouped) unsafe fn fetch(p: *const u8, len: usize) {
    // Two lines a step.
    let mut o = 0;
    while o + 64 < len {
        line(p.add(o));
        line(p.add(o + 64));
        o += 128;
    }
    if o < len {
        line(p.add(o));
    }
    line(p.add(len.saturating_sub(1)));
}

/// `65536 / L` for segment lengths `L` of 1 to 32 (index `L % 32`: 32 at 0).
const RECIPROCALS: [u32; 32] = {
    let mut t = [0u32; 32];
    let mut l = 1;
    while l <= 32 {
        t[l % 32] = 65536 / l as u32;
        l += 1;
    }
    t
};

/// Hints for everything a whole pose reads: the segment table entries, the segments' metadata
/// and frames (their place estimated), the group records and the static channels; not what
/// the entry hinted already (`View::hinted`).
#[inline(always)]
pub(super) unsafe fn prefetch(p: &View, sp: &Split) {
    let d = p.data.as_ptr();
    let table = p.seg_table;
    let last = p.num_segments - 1;
    for s in sp.seg {
        let seg = s.min(last) as usize;
        line(d.add(table + p.table_bytes * seg));
    }
    // The entry hinted the body before the table, and the segments below `hinted`.
    let early = p.hinted != 0;
    if !early {
        fetch(d, table);
    }
    // A frame's estimated bytes, the segment's frame bytes / L (without a division).
    let inv = RECIPROCALS[p.seg_len as usize & 31] as usize;
    // Two samples of one segment (the usual key): its metadata once, and one window over
    // both frames (they follow one another).
    let n = if sp.seg[0] == sp.seg[1] { 1 } else { 2 };
    let span = if n == 1 {
        sp.local[1].abs_diff(sp.local[0]) as usize
    } else {
        0
    };
    for (s, local) in sp.seg.into_iter().zip(sp.local).take(n) {
        let local = if n == 1 {
            local.min(sp.local[1])
        } else {
            local
        };
        let seg = s.min(last) as usize;
        if (seg as u32) < p.hinted {
            continue;
        }
        let off = p.segment_offset(seg);
        let end = if seg as u32 == last {
            p.data.len() - p.tail
        } else {
            p.segment_offset(seg + 1)
        };
        let frames = off + p.segment_header(seg) + p.meta_bytes;
        fetch(d.add(off), frames - off);
        let len = end.saturating_sub(frames);
        let per = (len * inv) >> 16;
        let at = frames + per * local as usize;
        let lo = at.saturating_sub(64).max(frames).min(end);
        fetch(d.add(lo), (per * (span + 1) + 128).min(end - lo));
    }
    if early {
        // The entry hinted the body's last lines (`entry::TAIL_HINT`) with the rest.
        return;
    }
    // The constants' values and the kinds: the body's last bytes, hinted as one run.
    let from = p.static_values.as_ptr() as *const u8;
    let to = p.kinds.as_ptr_range().end as *const u8;
    fetch(from, (to as usize).saturating_sub(from as usize));
}
