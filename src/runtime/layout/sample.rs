//! The decompressor's entry points for poses and selections in a layout: the ways of the
//! module documentation chosen per checked layout.

use super::write::*;
use super::*;

impl Decompressor<'_> {
    /// Samples every joint into `out` in `layout` (one buffer, or three for
    /// [`LayoutKind::Soa`]): values bit for bit those of [`Decompressor::sample_pose`] (widened
    /// exactly for `f64`); bytes outside the fields are not written (SoA4 writes whole blocks,
    /// lanes past the last joint the identity). Does not allocate.
    pub fn sample_pose_layout(&self, layout: &PoseLayout, out: &mut [&mut [u8]]) -> Result<()> {
        self.sample_pose_checked(&layout.checked()?, out)
    }

    /// [`Decompressor::sample_pose_layout`] into a layout checked once: only the buffers are
    /// checked.
    #[inline]
    pub fn sample_pose_checked(&self, layout: &CheckedLayout, out: &mut [&mut [u8]]) -> Result<()> {
        layout.check_out(out, self.num_joints())?;
        self.pose_layout(layout, out, None);
        Ok(())
    }

    /// [`Decompressor::sample_pose_layout`] through a playback cache (as
    /// [`Decompressor::sample_pose_cached`]).
    pub fn sample_pose_layout_cached(
        &self,
        cache: &mut [u8],
        layout: &PoseLayout,
        out: &mut [&mut [u8]],
    ) -> Result<()> {
        let layout = layout.checked()?;
        layout.check_out(out, self.num_joints())?;
        let need = self.playback_cache_size();
        if cache.len() < need {
            return Err(Error::BufferTooSmall { required: need });
        }
        if need > 0 && !(cache.as_ptr() as usize).is_multiple_of(16) {
            return Err(Error::Misaligned);
        }
        self.pose_layout(&layout, out, Some(cache));
        Ok(())
    }

    /// [`Decompressor::sample_joints`] into `layout`: joint `joints[i]`'s channels of
    /// `channels` at slot `out_slots[i]` (or `i`). Only those fields are written.
    pub fn sample_joints_layout(
        &self,
        joints: &[u32],
        out_slots: Option<&[u32]>,
        channels: u32,
        layout: &PoseLayout,
        out: &mut [&mut [u8]],
    ) -> Result<()> {
        self.sample_joints_checked(joints, out_slots, channels, &layout.checked()?, out)
    }

    /// [`Decompressor::sample_joints_layout`] into a layout checked once.
    pub fn sample_joints_checked(
        &self,
        joints: &[u32],
        out_slots: Option<&[u32]>,
        channels: u32,
        checked: &CheckedLayout,
        out: &mut [&mut [u8]],
    ) -> Result<()> {
        let layout = &checked.layout;
        if channels == 0 || channels & !CHANNELS_ALL != 0 {
            return Err(Error::InvalidEnum {
                what: "channels",
                value: channels,
            });
        }
        if let Some(s) = out_slots {
            if s.len() != joints.len() {
                return Err(Error::InvalidArgument(
                    "out_slots must have one entry per joint",
                ));
            }
        }
        let nj = self.num_joints() as u32;
        let mut slots = 0usize;
        for (i, &j) in joints.iter().enumerate() {
            if j >= nj {
                return Err(Error::JointOutOfRange(j));
            }
            // Saturating: slot `u32::MAX` + 1 overflows a 32-bit `usize` (then refused as an
            // argument by the size check).
            slots = slots.max((out_slots.map_or(i, |s| s[i] as usize)).saturating_add(1));
        }
        checked.check_out(out, slots)?;
        match joints.len() {
            0..=8 => self.staged_joints::<80>(joints, out_slots, channels, layout, out),
            9..=32 => self.staged_joints::<320>(joints, out_slots, channels, layout, out),
            _ => self.staged_joints::<{ STAGE_JOINTS * FLOATS_PER_JOINT }>(
                joints, out_slots, channels, layout, out,
            ),
        }
    }

    /// A checked selection through a ten-float buffer of `F` floats on the stack, in chunks.
    fn staged_joints<const F: usize>(
        &self,
        joints: &[u32],
        out_slots: Option<&[u32]>,
        channels: u32,
        layout: &PoseLayout,
        out: &mut [&mut [u8]],
    ) -> Result<()> {
        let per = F / FLOATS_PER_JOINT;
        let mut stage = [0.0f32; F];
        for (k, chunk) in joints.chunks(per).enumerate() {
            let n = chunk.len();
            self.sample_joints(chunk, None, channels, &mut stage[..n * 10], 10)?;
            for (i, t) in stage[..n * 10].chunks_exact(10).enumerate() {
                let e = k * per + i;
                let s = out_slots.map_or(e, |s| s[e] as usize);
                layout.write(out, s, t, channels);
            }
        }
        Ok(())
    }

    /// The whole pose into checked buffers.
    #[inline]
    pub(crate) fn pose_layout(
        &self,
        checked: &CheckedLayout,
        out: &mut [&mut [u8]],
        mut cache: Option<&mut [u8]>,
    ) {
        let n = self.num_joints();
        if checked.way == Way::Blocks && checked.layout.element == Element::F32 && n > 0 {
            let p = out[0].as_mut_ptr().cast::<f32>();
            let straight = match cache.as_deref_mut() {
                None => self.sample_pose_soa4(p),
                Some(c) => self.sample_pose_cached_soa4(c, p),
            };
            if straight {
                // SAFETY: the buffer holds `ceil(n / 4)` blocks.
                unsafe { identity_lanes(p, n) };
                return;
            }
        }
        if checked.way == Way::Rows && n > 0 {
            let rows = Fields::new(&checked.layout, out).rows();
            let straight = match cache.as_deref_mut() {
                None => self.sample_pose_rows(rows),
                Some(c) => self.sample_pose_cached_rows(c, rows),
            };
            if straight {
                return;
            }
        }
        self.pose_layout_other(checked, out, cache)
    }

    /// [`Decompressor::pose_layout`] for every way but the decoder's straight rows.
    #[inline(never)]
    fn pose_layout_other(
        &self,
        checked: &CheckedLayout,
        out: &mut [&mut [u8]],
        cache: Option<&mut [u8]>,
    ) {
        let n = self.num_joints();
        if n == 0 {
            return;
        }
        let layout = &checked.layout;
        let decode = |floats: &mut [f32], stride: usize, cache: Option<&mut [u8]>| match cache {
            Some(c) => self.sample_pose_cached_checked(c, floats, stride),
            None => {
                // The buffer was checked for the layout, which holds the rows.
                let _ = self.sample_pose(floats, stride);
            }
        };
        let way = if checked.way == Way::Rows {
            layout.without_rows()
        } else {
            checked.way
        };
        match way {
            Way::Rows => {}
            Way::Ten => decode(as_floats(out[0]), layout.strides[0] / 4, cache),
            Way::InPlace => {
                // Rows at each record's start, then each record widened or moved from its own
                // bytes (read whole before it is written).
                let rs = layout.strides[0];
                decode(as_floats(out[0]), rs / 4, cache);
                let f = Fields::new(layout, out);
                let p = out[0].as_ptr();
                // SAFETY: the buffer holds `n` records of `rs` bytes (the last one up to its last
                // field), whose first 40 bytes are fields (`rows_in_fields`).
                unsafe {
                    match layout.element {
                        Element::F64 => {
                            (0..n).for_each(|j| f.put::<true>(j, &read_row(p.add(j * rs))))
                        }
                        Element::F32 => {
                            (0..n).for_each(|j| f.put::<false>(j, &read_row(p.add(j * rs))))
                        }
                    }
                }
            }
            Way::Blocks => {
                // Rows of 40 (f32) or 80 (f64) bytes: four make a block, transposed in place.
                let e = layout.element.size();
                decode(as_floats(out[0]), 10 * e / 4, cache);
                let (rb, block) = (10 * e, SOA4_BLOCK * e);
                let p = out[0].as_mut_ptr();
                // f32 blocks four rows at a time in registers where the CPU has 4-lane vectors.
                // SAFETY: the buffer holds `ceil(n / 4)` blocks of 160 bytes.
                if layout.element == Element::F32 && unsafe { blocks_in_place(p.cast::<f32>(), n) }
                {
                    return;
                }
                for b in 0..n.div_ceil(4) {
                    let mut rows = [IDENTITY; 4];
                    // SAFETY: the buffer holds `ceil(n / 4)` blocks; row `4 b + l` lies in block
                    // `b`.
                    unsafe {
                        for (l, r) in rows.iter_mut().enumerate() {
                            if 4 * b + l < n {
                                *r = read_row(p.add((4 * b + l) * rb));
                            }
                        }
                        match layout.element {
                            Element::F64 => put_block::<true>(p.add(b * block), &rows),
                            Element::F32 => put_block::<false>(p.add(b * block), &rows),
                        }
                    }
                }
            }
            Way::Staged if n <= 32 => self.staged::<320>(layout, out, cache),
            Way::Staged if n <= 64 => self.staged::<640>(layout, out, cache),
            Way::Staged => self.staged::<{ STAGE_JOINTS * FLOATS_PER_JOINT }>(layout, out, cache),
        }
    }

    /// A whole pose through a ten-float buffer of `F` floats on the stack (sized to the pose
    /// when it fits, so that small poses do not clear 5 KB), scattered into the fields.
    #[inline]
    fn staged<const F: usize>(
        &self,
        layout: &PoseLayout,
        out: &mut [&mut [u8]],
        cache: Option<&mut [u8]>,
    ) {
        let n = self.num_joints();
        let per = F / FLOATS_PER_JOINT;
        let mut stage = [0.0f32; F];
        if n <= per {
            let floats = &mut stage[..n * FLOATS_PER_JOINT];
            match cache {
                Some(c) => self.sample_pose_cached_checked(c, floats, FLOATS_PER_JOINT),
                None => {
                    let _ = self.sample_pose(floats, FLOATS_PER_JOINT);
                }
            }
            scatter(layout, out, 0, floats);
            return;
        }
        let mut ids = [0u32; STAGE_JOINTS];
        for first in (0..n).step_by(per) {
            let m = (n - first).min(per);
            for (i, x) in ids[..m].iter_mut().enumerate() {
                *x = (first + i) as u32;
            }
            let _ = self.sample_joints(&ids[..m], None, CHANNELS_ALL, &mut stage, 10);
            scatter(layout, out, first, &stage[..m * 10]);
        }
    }
}
