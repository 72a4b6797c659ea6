//! Poses in the engine's own layout: `animcomp_pose_layout_preset`, `animcomp_pose_layout_size`,
//! `animcomp_sample_pose_layout`, `animcomp_sample_joints_layout` (see
//! [`crate::runtime::layout`]).

use super::guard::{guard, in_ref, in_slice, out_ptr};
use super::handles::state;
use super::types::{AnimcompDecompressor, AnimcompPoseBuffers, AnimcompPoseLayout};
use crate::runtime::{Element, LayoutKind, PoseLayout, Preset};
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
pub(crate) fn from_c(c: &AnimcompPoseLayout) -> Result<PoseLayout> {
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
    l.validate()?;
    Ok(l)
}

/// The caller's buffers for `layout` and `slots` joints, checked (null, alignment, sizes, the
/// address space, unused entries NULL and 0, SoA arrays not overlapping), as byte slices.
///
/// # Safety
/// Each used `data[b]` points to `size[b]` writable bytes, not aliased, alive for `'a`.
unsafe fn buffers<'a>(
    layout: &PoseLayout,
    b: &AnimcompPoseBuffers,
    slots: usize,
) -> Result<[&'a mut [u8]; 3]> {
    let used = layout.buffers();
    let (data, size) = b.arrays();
    let mut addrs = [0usize; 3];
    #[allow(clippy::needless_range_loop)] // three arrays indexed alike
    for i in 0..3 {
        let (p, n) = (data[i], size[i]);
        if i >= used {
            if !p.is_null() || n != 0 {
                return Err(Error::InvalidArgument(
                    "unused pose buffers must be NULL with size 0",
                ));
            }
            continue;
        }
        if p.is_null() {
            return Err(Error::NullPointer("pose buffer"));
        }
        if n > isize::MAX as usize || (p as usize).checked_add(n).is_none() {
            return Err(Error::InvalidArgument(
                "a pose buffer extends past the end of the address space",
            ));
        }
        addrs[i] = p as usize;
    }
    // `from_c` validated the layout.
    layout.check_buffers(&addrs[..used], &size[..used], slots)?;
    for i in 0..used {
        for k in i + 1..used {
            if addrs[i] < addrs[k] + size[k] && addrs[k] < addrs[i] + size[i] {
                return Err(Error::InvalidArgument("the pose buffers overlap"));
            }
        }
    }
    let mut out: [&'a mut [u8]; 3] = [&mut [], &mut [], &mut []];
    for (i, o) in out.iter_mut().enumerate().take(used) {
        *o = std::slice::from_raw_parts_mut(data[i] as *mut u8, size[i]);
    }
    Ok(out)
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
        for (b, x) in s.iter_mut().enumerate().take(l.buffers()) {
            *x = l.required_bytes(b, joints).ok_or(Error::InvalidArgument(
                "the pose's size overflows the address space",
            ))?;
        }
        std::ptr::copy_nonoverlapping(s.as_ptr(), sizes, 3);
        Ok(())
    })
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
        let mut bufs = buffers(&l, in_ref(out, "out")?, st.dec.num_joints())?;
        let bufs = &mut bufs[..l.buffers()];
        if st.cache.is_null() {
            st.dec.pose_layout(&l, bufs, None);
        } else {
            let cache = std::slice::from_raw_parts_mut(st.cache, st.cache_len as usize);
            st.dec.pose_layout(&l, bufs, Some(cache));
        }
        Ok(())
    })
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
        let joints = in_slice(joints, count, "joints")?;
        let slots = if out_slots.is_null() {
            None
        } else {
            Some(in_slice(out_slots, count, "out_slots")?)
        };
        let l = from_c(in_ref(layout, "layout")?)?;
        let nj = st.dec.num_joints() as u32;
        let mut need = 0usize;
        for (i, &j) in joints.iter().enumerate() {
            if j >= nj {
                return Err(Error::JointOutOfRange(j));
            }
            need = need.max(slots.map_or(i, |s| s[i] as usize) + 1);
        }
        let mut bufs = buffers(&l, in_ref(out, "out")?, need)?;
        st.dec
            .sample_joints_layout(joints, slots, channels, &l, &mut bufs[..l.buffers()])
    })
}
