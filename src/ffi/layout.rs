//! Poses in the engine's own layout: `animcomp_pose_layout_preset`, `animcomp_pose_layout_size`,
//! `animcomp_pose_layout_check`, `animcomp_sample_pose_layout` and `animcomp_sample_pose_checked`,
//! `animcomp_sample_joints_layout` and `animcomp_sample_joints_checked` (see
//! [`crate::runtime::layout`]).

use super::guard::{guard, in_ref, in_slice, out_ptr};
use super::handles::{state, State};
use super::types::{
    AnimcompCheckedPoseLayout, AnimcompDecompressor, AnimcompPoseBuffers, AnimcompPoseLayout,
};
use crate::runtime::{CheckedLayout, Element, LayoutKind, PoseLayout, Preset};
use crate::{Error, Result, Status};

/// The C struct of a Rust layout.
fn to_c(l: &PoseLayout) -> AnimcompPoseLayout {
    let (record, arrays) = match l.kind {
        LayoutKind::Aos => (l.strides[0], [0; 3]),
        _ => (0, l.strides),
    };
    AnimcompPoseLayout {
        element: l.element as u32,
        kind: l.kind as u32,
        rotation_offset: l.offsets[0] as u32,
        translation_offset: l.offsets[1] as u32,
        scale_offset: l.offsets[2] as u32,
        record_stride: record as u32,
        rotation_stride: arrays[0] as u32,
        translation_stride: arrays[1] as u32,
        scale_stride: arrays[2] as u32,
        reserved: [0; 3],
    }
}

/// The Rust layout of a C struct, range-checked and validated.
pub(crate) fn from_c(c: &AnimcompPoseLayout) -> Result<CheckedLayout> {
    let element = Element::from_u32(c.element).ok_or(Error::InvalidEnum {
        what: "element",
        value: c.element,
    })?;
    let kind = LayoutKind::from_u32(c.kind).ok_or(Error::InvalidEnum {
        what: "layout kind",
        value: c.kind,
    })?;
    if c.reserved != [0; 3] {
        return Err(Error::InvalidArgument(
            "reserved fields of AnimcompPoseLayout must be zero",
        ));
    }
    let offsets = [
        c.rotation_offset as usize,
        c.translation_offset as usize,
        c.scale_offset as usize,
    ];
    let arrays = [
        c.rotation_stride as usize,
        c.translation_stride as usize,
        c.scale_stride as usize,
    ];
    let l = match kind {
        LayoutKind::Aos => {
            if arrays != [0; 3] {
                return Err(Error::InvalidArgument(
                    "an AoS layout's per-array strides must be zero (record_stride is its stride)",
                ));
            }
            PoseLayout::aos(element, offsets, c.record_stride as usize)
        }
        LayoutKind::Soa => {
            if c.record_stride != 0 {
                return Err(Error::InvalidArgument(
                    "a SoA layout's record_stride must be zero",
                ));
            }
            PoseLayout::soa(element, offsets, arrays)
        }
        LayoutKind::Soa4 => {
            if offsets != [0; 3] || arrays != [0; 3] || c.record_stride != 0 {
                return Err(Error::InvalidArgument(
                    "a SoA4 layout has no offsets or strides (they must be zero)",
                ));
            }
            PoseLayout::soa4(element)
        }
    };
    l.checked()
}

/// The caller's buffers for `layout` and `slots` joints, checked (null, alignment, sizes, the
/// address space, unused entries NULL and 0, SoA arrays not overlapping), as byte slices.
///
/// Each condition is one comparison and a branch to [`why_refused`] (out of line), which finds
/// the reason in the documented order: a flag per condition, and-ed together, cost more
/// instructions than the branches, which a caller whose buffers pass always predicts.
///
/// # Safety
/// Each used `data[b]` points to `size[b]` writable bytes, not aliased, alive for `'a`.
#[inline(always)]
unsafe fn buffers<'a>(
    layout: &CheckedLayout,
    b: &AnimcompPoseBuffers,
    slots: usize,
) -> Result<[&'a mut [u8]; 3]> {
    let used = layout.layout().buffers();
    let (data, size) = b.arrays();
    let m = layout.layout().element.size() - 1;
    let a = data.map(|p| p as usize);
    for i in 0..3 {
        let (p, n) = (a[i], size[i]);
        let ok = if i < used {
            // Non-null, aligned, at most `isize::MAX` bytes, not past the end of the address
            // space (`p + n` does not wrap: `n <= !p`), and holding the layout's bytes.
            p != 0 && p & m == 0 && n <= isize::MAX as usize && n <= !p && layout.holds(i, slots, n)
        } else {
            (p | n) == 0
        };
        if !ok {
            return Err(why_refused(layout, b, slots));
        }
    }
    if used == 3 {
        // Each buffer ends before the other starts (the ends do not wrap: checked above).
        let end = [a[0] + size[0], a[1] + size[1], a[2] + size[2]];
        let apart = |i: usize, k: usize| a[i] >= end[k] || a[k] >= end[i];
        if !(apart(0, 1) && apart(0, 2) && apart(1, 2)) {
            return Err(why_refused(layout, b, slots));
        }
    }
    let mut out: [&'a mut [u8]; 3] = [&mut [], &mut [], &mut []];
    for (i, o) in out.iter_mut().enumerate().take(used) {
        *o = std::slice::from_raw_parts_mut(data[i] as *mut u8, size[i]);
    }
    Ok(out)
}

/// Why [`buffers`] refused the buffers, in the order the checks are documented.
#[cold]
#[inline(never)]
fn why_refused(layout: &CheckedLayout, b: &AnimcompPoseBuffers, slots: usize) -> Error {
    let used = layout.layout().buffers();
    let (data, size) = b.arrays();
    let mut addrs = [0usize; 3];
    for i in 0..3 {
        let (p, n) = (data[i], size[i]);
        if i >= used {
            if !p.is_null() || n != 0 {
                return Error::InvalidArgument("unused pose buffers must be NULL with size 0");
            }
            continue;
        }
        if p.is_null() {
            return Error::NullPointer("pose buffer");
        }
        if n > isize::MAX as usize || (p as usize).checked_add(n).is_none() {
            return Error::InvalidArgument(
                "a pose buffer extends past the end of the address space",
            );
        }
        addrs[i] = p as usize;
    }
    if let Err(e) = layout.check_buffers(&addrs[..used], &size[..used], slots) {
        return e;
    }
    Error::InvalidArgument("the pose buffers overlap")
}

/// Fills `*layout` with preset `preset` (`ANIMCOMP_POSE_PRESET_*`; another value gives
/// `ANIMCOMP_STATUS_INVALID_ENUM`).
#[no_mangle]
pub unsafe extern "C" fn animcomp_pose_layout_preset(
    preset: u32,
    layout: *mut AnimcompPoseLayout,
) -> Status {
    guard(|| {
        let out = out_ptr(layout, "layout")?;
        let p = Preset::from_u32(preset).ok_or(Error::InvalidEnum {
            what: "preset",
            value: preset,
        })?;
        out.write(to_c(&PoseLayout::preset(p)));
        Ok(())
    })
}

/// Checks `*layout` and writes into `sizes[0..3]` the bytes each buffer needs for `joints` joints
/// (or slots): one buffer for AoS and SoA4 (`sizes[1]`, `sizes[2]` are 0), three for SoA. An
/// invalid layout gives its status (`ANIMCOMP_STATUS_INVALID_ENUM`,
/// `ANIMCOMP_STATUS_INVALID_ARGUMENT`), a size past the address space
/// `ANIMCOMP_STATUS_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn animcomp_pose_layout_size(
    layout: *const AnimcompPoseLayout,
    joints: usize,
    sizes: *mut usize,
) -> Status {
    guard(|| {
        let l = from_c(in_ref(layout, "layout")?)?;
        let sizes = out_ptr(sizes, "sizes")?;
        let mut s = [0usize; 3];
        for (b, x) in s.iter_mut().enumerate().take(l.layout().buffers()) {
            *x = l.required_bytes(b, joints).ok_or(Error::InvalidArgument(
                "the pose's size overflows the address space",
            ))?;
        }
        std::ptr::copy_nonoverlapping(s.as_ptr(), sizes, 3);
        Ok(())
    })
}

/// Checks `*layout` once (as `animcomp_sample_pose_layout` does on every call) and writes it,
/// checked, into `*checked` for `animcomp_sample_pose_checked` and
/// `animcomp_sample_joints_checked`. An invalid layout gives its status and leaves `*checked`
/// unwritten.
#[no_mangle]
pub unsafe extern "C" fn animcomp_pose_layout_check(
    layout: *const AnimcompPoseLayout,
    checked: *mut AnimcompCheckedPoseLayout,
) -> Status {
    guard(|| {
        let l = from_c(in_ref(layout, "layout")?)?;
        let out = out_ptr(checked, "checked")?;
        let w = l.to_words();
        let mut opaque = [0u64; 8];
        opaque[0] = tag(&w);
        opaque[1..].copy_from_slice(&w);
        out.write(AnimcompCheckedPoseLayout { opaque });
        Ok(())
    })
}

/// The tag of a checked layout's words, which catches a struct that
/// `animcomp_pose_layout_check` did not write (uninitialised, zeroed, one word changed, another
/// struct): a change of one word always changes it (each step is a bijection of that word).
#[inline]
fn tag(w: &[u64; 7]) -> u64 {
    let mut h = 0x6a09_e667_f3bc_c909u64;
    for &x in w {
        h = h.rotate_left(23) ^ x;
    }
    h.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// The layout in a struct written by `animcomp_pose_layout_check`.
#[inline]
fn from_checked(c: &AnimcompCheckedPoseLayout) -> Result<CheckedLayout> {
    let mut w = [0u64; 7];
    w.copy_from_slice(&c.opaque[1..]);
    if c.opaque[0] != tag(&w) {
        return Err(Error::InvalidArgument(
            "not a layout filled by animcomp_pose_layout_check",
        ));
    }
    CheckedLayout::from_words(&w).ok_or(Error::InvalidArgument(
        "not a layout filled by animcomp_pose_layout_check",
    ))
}

/// Samples every joint at the current position into `*out` in `*layout`: values bit for bit
/// those of `animcomp_sample_pose` (widened exactly to double for `ANIMCOMP_ELEMENT_F64`). Bytes
/// outside the layout's fields are not written (SoA4 writes whole blocks). Buffers are checked
/// first (NULL: `ANIMCOMP_STATUS_NULL_POINTER`; not aligned to the element size:
/// `ANIMCOMP_STATUS_MISALIGNED`; too small: `ANIMCOMP_STATUS_BUFFER_TOO_SMALL`, nothing written;
/// SoA arrays overlapping: `ANIMCOMP_STATUS_INVALID_ARGUMENT`). Goes through the attached playback
/// cache as `animcomp_sample_pose` does. Does not allocate.
#[no_mangle]
pub unsafe extern "C" fn animcomp_sample_pose_layout(
    ctx: *const AnimcompDecompressor,
    layout: *const AnimcompPoseLayout,
    out: *const AnimcompPoseBuffers,
) -> Status {
    guard(|| {
        let st = state(ctx)?;
        let l = from_c(in_ref(layout, "layout")?)?;
        pose_into(st, &l, in_ref(out, "out")?)
    })
}

/// `animcomp_sample_pose_layout` into a layout checked once by `animcomp_pose_layout_check`: only
/// the buffers are checked (as `animcomp_sample_pose_layout` checks them). A `*layout` that
/// `animcomp_pose_layout_check` did not fill gives `ANIMCOMP_STATUS_INVALID_ARGUMENT`.
#[no_mangle]
pub unsafe extern "C" fn animcomp_sample_pose_checked(
    ctx: *const AnimcompDecompressor,
    layout: *const AnimcompCheckedPoseLayout,
    out: *const AnimcompPoseBuffers,
) -> Status {
    guard(|| {
        let st = state(ctx)?;
        let l = from_checked(in_ref(layout, "layout")?)?;
        pose_into(st, &l, in_ref(out, "out")?)
    })
}

/// The whole pose into the caller's buffers `out` for `l` (checked here), through the
/// context's cache when one is attached.
///
/// # Safety
/// As [`buffers`]; `st`'s cache pointer and length are the attached cache's.
#[inline(always)]
unsafe fn pose_into(st: &State, l: &CheckedLayout, out: &AnimcompPoseBuffers) -> Result<()> {
    let mut bufs = buffers(l, out, st.dec.num_joints())?;
    let bufs = &mut bufs[..l.layout().buffers()];
    if st.cache.is_null() {
        st.dec.pose_layout(l, bufs, None);
    } else {
        let cache = std::slice::from_raw_parts_mut(st.cache, st.cache_len as usize);
        st.dec.pose_layout(l, bufs, Some(cache));
    }
    Ok(())
}

/// `animcomp_sample_joints` into `*layout`: joint `joints[i]`'s channels of `channels` at slot
/// `out_slots[i]` (or `i` when `out_slots` is NULL); only those fields are written. The buffers
/// must hold the largest slot; checked as `animcomp_sample_pose_layout`'s. Does not allocate.
#[no_mangle]
pub unsafe extern "C" fn animcomp_sample_joints_layout(
    ctx: *const AnimcompDecompressor,
    joints: *const u32,
    out_slots: *const u32,
    count: usize,
    channels: u32,
    layout: *const AnimcompPoseLayout,
    out: *const AnimcompPoseBuffers,
) -> Status {
    guard(|| {
        let st = state(ctx)?;
        let l = from_c(in_ref(layout, "layout")?)?;
        joints_into(
            st,
            joints,
            out_slots,
            count,
            channels,
            &l,
            in_ref(out, "out")?,
        )
    })
}

/// `animcomp_sample_joints_layout` into a layout checked once by `animcomp_pose_layout_check`.
#[no_mangle]
pub unsafe extern "C" fn animcomp_sample_joints_checked(
    ctx: *const AnimcompDecompressor,
    joints: *const u32,
    out_slots: *const u32,
    count: usize,
    channels: u32,
    layout: *const AnimcompCheckedPoseLayout,
    out: *const AnimcompPoseBuffers,
) -> Status {
    guard(|| {
        let st = state(ctx)?;
        let l = from_checked(in_ref(layout, "layout")?)?;
        joints_into(
            st,
            joints,
            out_slots,
            count,
            channels,
            &l,
            in_ref(out, "out")?,
        )
    })
}

/// The selection of `animcomp_sample_joints_layout` into `out` for `l`.
///
/// # Safety
/// `joints` and `out_slots` (unless NULL) point to `count` values; as [`buffers`].
unsafe fn joints_into(
    st: &State,
    joints: *const u32,
    out_slots: *const u32,
    count: usize,
    channels: u32,
    l: &CheckedLayout,
    out: &AnimcompPoseBuffers,
) -> Result<()> {
    let joints = in_slice(joints, count, "joints")?;
    let slots = if out_slots.is_null() {
        None
    } else {
        Some(in_slice(out_slots, count, "out_slots")?)
    };
    let nj = st.dec.num_joints() as u32;
    let mut need = 0usize;
    for (i, &j) in joints.iter().enumerate() {
        if j >= nj {
            return Err(Error::JointOutOfRange(j));
        }
        // Saturating: slot `u32::MAX` + 1 overflows a 32-bit `usize` (then refused by the
        // size check).
        need = need.max(slots.map_or(i, |s| s[i] as usize).saturating_add(1));
    }
    let mut bufs = buffers(l, out, need)?;
    st.dec.sample_joints_checked(
        joints,
        slots,
        channels,
        l,
        &mut bufs[..l.layout().buffers()],
    )
}
