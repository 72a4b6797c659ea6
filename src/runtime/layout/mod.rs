//! Poses in the engine's own layout: `f32` or `f64` elements, one record per joint (AoS), three
//! separate arrays (SoA), or ozz-animation's blocks of four joints (SoA4), with presets for
//! Unreal Engine 5 and 4 `FTransform`, Unity-style separate arrays and ozz `SoaTransform`.
//!
//! A layout is checked ([`PoseLayout::checked`]: once, for [`Decompressor::sample_pose_checked`],
//! or on every call of [`Decompressor::sample_pose_layout`]), then the pose is produced without
//! allocating, in one of these ways (see `docs/runtime.md`, "Poses in the engine's layout"):
//!
//! - the ten-float layout itself (`f32` AoS with rotation, translation, scale at bytes 0, 16, 28
//!   and a stride a multiple of 4 bytes) is the decoders' own output: no conversion;
//! - other `f32` AoS and SoA layouts of a `vbr` blob are written straight by the grouped
//!   decoder, which writes each channel's rows anywhere on every CPU (AVX-512, AVX2, SSE2, NEON,
//!   `simd128`, scalar), with or without the playback cache;
//! - `f32` ozz blocks of a `vbr` blob are written straight by the grouped decoder's AVX2 build
//!   (on AVX-512 machines too), with or without the playback cache: a group of consecutive joints a block
//!   row at a time under masks, other groups and the static channels a float a store; the lanes
//!   past the last joint are then set to the identity;
//! - a layout whose records cover their first 40 bytes with fields (the `f64` `FTransform` of
//!   Unreal 5 does: rotation 0..32, translation 32..56), and other ozz blocks (160 or 320 bytes
//!   of fields for four joints: `f64`, or another decoder), are decoded as
//!   ten-float rows into the caller's buffer and then widened or transposed in place, record by
//!   record (each record read whole before it is written): no byte outside the fields is
//!   written, no buffer of the library's is used;
//! - anything else (the `fixed` and `keys` codecs, `f64` SoA, selections) is decoded into a
//!   ten-float buffer on the stack (at most [`STAGE_JOINTS`] joints at a time) and scattered
//!   into the fields.
//!
//! Values are the ten-float decode's, bit for bit; `f64` values are their exact widening.

use super::{Decompressor, CHANNELS_ALL, CHANNEL_ROTATION, CHANNEL_SCALE, CHANNEL_TRANSLATION};
use crate::math::FLOATS_PER_JOINT;
use crate::{Error, Result};

mod sample;
mod write;

use write::put;

/// The element type of a layout's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Element {
    /// 32-bit floats.
    F32 = 0,
    /// 64-bit floats (the exact widening of the decoded `f32`).
    F64 = 1,
}

impl Element {
    /// Bytes per element.
    #[inline]
    pub const fn size(self) -> usize {
        match self {
            Element::F32 => 4,
            Element::F64 => 8,
        }
    }

    /// From its C value (`ANIMCOMP_ELEMENT_*`).
    pub fn from_u32(v: u32) -> Option<Self> {
        match v {
            0 => Some(Element::F32),
            1 => Some(Element::F64),
            _ => None,
        }
    }
}

/// How joints are laid out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum LayoutKind {
    /// One record per joint in one array: each channel at a byte offset within the record.
    Aos = 0,
    /// Three arrays, one per channel (rotation, translation, scale), each with its own stride.
    Soa = 1,
    /// ozz-animation `SoaTransform`: blocks of four joints, each block translation `x[4] y[4]
    /// z[4]`, rotation `x[4] y[4] z[4] w[4]`, scale `x[4] y[4] z[4]` (40 elements); the joint count
    /// rounded up to four, lanes past the last joint set to the identity transform.
    Soa4 = 2,
}

impl LayoutKind {
    /// From its C value (`ANIMCOMP_LAYOUT_*`).
    pub fn from_u32(v: u32) -> Option<Self> {
        match v {
            0 => Some(LayoutKind::Aos),
            1 => Some(LayoutKind::Soa),
            2 => Some(LayoutKind::Soa4),
            _ => None,
        }
    }
}

/// Components per channel: rotation x y z w, translation x y z, scale x y z.
const COMPONENTS: [usize; 3] = [4, 3, 3];
/// Each channel's first float in a ten-float row.
const ROW_AT: [usize; 3] = [0, 4, 7];
/// Each channel's first element in an ozz block, per component four lanes apart.
pub(crate) const SOA4_AT: [usize; 3] = [12, 0, 28];
/// Elements in an ozz block of four joints.
pub(crate) const SOA4_BLOCK: usize = 40;
/// The identity transform's ten floats.
const IDENTITY: [f32; 10] = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0];

/// Joints decoded per chunk on the stack for layouts that are scattered (40 bytes each).
pub const STAGE_JOINTS: usize = 128;

/// Where a pose's joints go: see the module documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PoseLayout {
    /// Element type.
    pub element: Element,
    /// Layout kind.
    pub kind: LayoutKind,
    /// Byte offsets of rotation, translation and scale: within a record (AoS), or of each array's
    /// first joint within its buffer (SoA); zero for SoA4.
    pub offsets: [usize; 3],
    /// Byte strides: the record stride three times (AoS), each array's stride (SoA); zero for
    /// SoA4 (blocks are `40 x element` bytes).
    pub strides: [usize; 3],
}

/// Presets (`ANIMCOMP_POSE_LAYOUT_PRESET_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum Preset {
    /// The ten-float pose, stride 10 (40 bytes).
    TenFloats = 0,
    /// Unreal Engine 5 `FTransform` (`TTransform<double>`, vectorized): `Rotation`,
    /// `Translation`, `Scale3D` as `VectorRegister4Double` (4 doubles, 32 bytes) at 0, 32, 64;
    /// 96 bytes, 16-byte aligned. The fourth double of translation and scale is not written.
    Unreal5Transform = 1,
    /// Unreal Engine 4 `FTransform` (vectorized): three `VectorRegister` (`__m128`) at 0, 16, 32;
    /// 48 bytes. The fourth float of translation and scale is not written.
    Unreal4Transform = 2,
    /// Unity-style separate arrays: rotation `quaternion` (float4 x y z w, 16 bytes), position
    /// `float3` (12 bytes), scale `float3` (12 bytes), as `NativeArray`s.
    UnitySeparate = 3,
    /// ozz-animation `SoaTransform` (160 bytes per four joints).
    OzzSoaTransform = 4,
}

impl Preset {
    /// From its C value.
    pub fn from_u32(v: u32) -> Option<Self> {
        Some(match v {
            0 => Preset::TenFloats,
            1 => Preset::Unreal5Transform,
            2 => Preset::Unreal4Transform,
            3 => Preset::UnitySeparate,
            4 => Preset::OzzSoaTransform,
            _ => return None,
        })
    }
}

impl PoseLayout {
    /// The ten-float pose (`f32` AoS, offsets 0, 16, 28, stride 40).
    pub const TEN_FLOATS: PoseLayout = PoseLayout::aos(Element::F32, [0, 16, 28], 40);
    /// [`Preset::Unreal5Transform`].
    pub const UNREAL5_TRANSFORM: PoseLayout = PoseLayout::aos(Element::F64, [0, 32, 64], 96);
    /// [`Preset::Unreal4Transform`].
    pub const UNREAL4_TRANSFORM: PoseLayout = PoseLayout::aos(Element::F32, [0, 16, 32], 48);
    /// [`Preset::UnitySeparate`].
    pub const UNITY_SEPARATE: PoseLayout = PoseLayout::soa(Element::F32, [0, 0, 0], [16, 12, 12]);
    /// [`Preset::OzzSoaTransform`].
    pub const OZZ_SOA_TRANSFORM: PoseLayout = PoseLayout::soa4(Element::F32);

    /// A record per joint, `stride` bytes apart, with the channels at byte `offsets`.
    pub const fn aos(element: Element, offsets: [usize; 3], stride: usize) -> Self {
        PoseLayout {
            element,
            kind: LayoutKind::Aos,
            offsets,
            strides: [stride; 3],
        }
    }

    /// Three arrays (rotation, translation, scale): joint `j`'s channel `c` at byte
    /// `offsets[c] + j * strides[c]` of buffer `c`.
    pub const fn soa(element: Element, offsets: [usize; 3], strides: [usize; 3]) -> Self {
        PoseLayout {
            element,
            kind: LayoutKind::Soa,
            offsets,
            strides,
        }
    }

    /// ozz-style blocks of four joints.
    pub const fn soa4(element: Element) -> Self {
        PoseLayout {
            element,
            kind: LayoutKind::Soa4,
            offsets: [0; 3],
            strides: [0; 3],
        }
    }

    /// A preset.
    pub const fn preset(p: Preset) -> Self {
        match p {
            Preset::TenFloats => Self::TEN_FLOATS,
            Preset::Unreal5Transform => Self::UNREAL5_TRANSFORM,
            Preset::Unreal4Transform => Self::UNREAL4_TRANSFORM,
            Preset::UnitySeparate => Self::UNITY_SEPARATE,
            Preset::OzzSoaTransform => Self::OZZ_SOA_TRANSFORM,
        }
    }

    /// Buffers the layout takes: three for SoA, one otherwise.
    pub const fn buffers(&self) -> usize {
        match self.kind {
            LayoutKind::Soa => 3,
            _ => 1,
        }
    }

    /// Checks the layout's fields: offsets and strides multiples of the element size, fields
    /// within a record not overlapping, strides holding their fields, zero where unused.
    pub fn validate(&self) -> Result<()> {
        self.checked().map(|_| ())
    }

    /// The layout checked ([`PoseLayout::validate`]) once, with how its pose is written and what
    /// its buffers need: [`Decompressor::sample_pose_checked`] takes it and checks only the
    /// buffers on each call.
    #[inline]
    pub fn checked(&self) -> Result<CheckedLayout> {
        if !self.fields_ok() {
            return Err(self.why_invalid());
        }
        let (step, first, shift) = self.extents();
        let way = match self.kind {
            LayoutKind::Soa4 => Way::Blocks,
            _ if self.element == Element::F32 => {
                if self.kind == LayoutKind::Aos && self.offsets == [0, 16, 28] {
                    Way::Ten
                } else {
                    Way::Rows
                }
            }
            _ => self.without_rows(),
        };
        Ok(CheckedLayout {
            layout: *self,
            way,
            step,
            first,
            shift,
        })
    }

    /// The way of a valid AoS or SoA layout that the decoder does not write straight.
    fn without_rows(&self) -> Way {
        if self.rows_in_fields() {
            Way::InPlace
        } else {
            Way::Staged
        }
    }

    /// Whether the fields pass [`PoseLayout::validate`]: one pass without early exits (the
    /// reason is found by [`PoseLayout::why_invalid`]).
    #[inline]
    fn fields_ok(&self) -> bool {
        let m = self.element.size() - 1;
        let [o0, o1, o2] = self.offsets;
        let [s0, s1, s2] = self.strides;
        let e = self.element.size();
        let (n0, n1, n2) = (COMPONENTS[0] * e, COMPONENTS[1] * e, COMPONENTS[2] * e);
        match self.kind {
            LayoutKind::Soa4 => (o0 | o1 | o2 | s0 | s1 | s2) == 0,
            LayoutKind::Aos => {
                // An offset below the stride (itself at most `isize::MAX`) cannot wrap its field's
                // end; where an end wraps, `o < s` fails and the layout is refused anyway.
                let (e0, e1, e2) = (
                    o0.wrapping_add(n0),
                    o1.wrapping_add(n1),
                    o2.wrapping_add(n2),
                );
                (s1 == s0)
                    & (s2 == s0)
                    & (s0 <= isize::MAX as usize)
                    & ((s0 | o0 | o1 | o2) & m == 0)
                    & (o0 < s0)
                    & (o1 < s0)
                    & (o2 < s0)
                    & (e0 <= s0)
                    & (e1 <= s0)
                    & (e2 <= s0)
                    & ((o0 >= e1) | (o1 >= e0))
                    & ((o0 >= e2) | (o2 >= e0))
                    & ((o1 >= e2) | (o2 >= e1))
            }
            LayoutKind::Soa => {
                ((o0 | o1 | o2 | s0 | s1 | s2) & m == 0) & (s0 >= n0) & (s1 >= n1) & (s2 >= n2)
            }
        }
    }

    /// Why [`PoseLayout::fields_ok`] refused the layout.
    #[cold]
    #[inline(never)]
    fn why_invalid(&self) -> Error {
        let e = self.element.size();
        match self.kind {
            LayoutKind::Soa4 => Error::InvalidArgument(
                "a SoA4 layout has no offsets or strides (they must be zero)",
            ),
            LayoutKind::Aos => {
                let s = self.strides[0];
                if self.strides != [s; 3] {
                    return Error::InvalidArgument("an AoS layout has one record stride");
                }
                if !s.is_multiple_of(e) || self.offsets.iter().any(|o| !o.is_multiple_of(e)) {
                    return Error::InvalidArgument(
                        "offsets and stride must be multiples of the element size",
                    );
                }
                if s > isize::MAX as usize {
                    return Error::InvalidArgument("the record stride overflows the address space");
                }
                let end = |c: usize| self.offsets[c].saturating_add(COMPONENTS[c] * e);
                if (0..3).any(|c| end(c) > s) {
                    return Error::InvalidArgument("the record stride must hold every field");
                }
                Error::InvalidArgument("fields overlap within a record")
            }
            LayoutKind::Soa => {
                if (0..3).any(|c| {
                    !self.offsets[c].is_multiple_of(e) || !self.strides[c].is_multiple_of(e)
                }) {
                    return Error::InvalidArgument(
                        "offsets and strides must be multiples of the element size",
                    );
                }
                Error::InvalidArgument("an array's stride must hold its field")
            }
        }
    }

    /// Per buffer, the bytes of each further step of slots and of the first, and the slots per
    /// step as a shift (two for SoA4's blocks of four): buffer `b` needs `((slots - 1) >> shift)
    /// * step[b] + first[b]` bytes for `slots > 0` (not checked for overflow here).
    fn extents(&self) -> ([usize; 3], [usize; 3], u32) {
        let e = self.element.size();
        let end = |c: usize| self.offsets[c].saturating_add(COMPONENTS[c] * e);
        match self.kind {
            LayoutKind::Soa4 => ([SOA4_BLOCK * e, 0, 0], [SOA4_BLOCK * e, 0, 0], 2),
            LayoutKind::Aos => (
                [self.strides[0], 0, 0],
                [end(0).max(end(1)).max(end(2)), 0, 0],
                0,
            ),
            LayoutKind::Soa => (self.strides, [end(0), end(1), end(2)], 0),
        }
    }

    /// Bytes buffer `b` needs for `slots` joints (`None` when it overflows the address space).
    pub fn required_bytes(&self, b: usize, slots: usize) -> Option<usize> {
        let (step, first, shift) = self.extents();
        need(step[b], first[b], shift, slots)
    }

    /// Checks the layout and buffers of `lens` bytes at addresses `addrs` for `slots` joints:
    /// [`PoseLayout::validate`], the buffer count, each address aligned to the element size, each
    /// length enough ([`Error::BufferTooSmall`] with the bytes the first short buffer needs).
    pub fn check(&self, addrs: &[usize], lens: &[usize], slots: usize) -> Result<()> {
        self.checked()?.check_buffers(addrs, lens, slots)
    }

    /// The byte position of component `k` of channel `c` of slot `s`, and its buffer.
    #[inline(always)]
    fn at(&self, s: usize, c: usize, k: usize) -> (usize, usize) {
        let e = self.element.size();
        match self.kind {
            LayoutKind::Aos => (0, s * self.strides[0] + self.offsets[c] + k * e),
            LayoutKind::Soa => (c, self.offsets[c] + s * self.strides[c] + k * e),
            LayoutKind::Soa4 => (0, ((s / 4) * SOA4_BLOCK + SOA4_AT[c] + 4 * k + s % 4) * e),
        }
    }

    /// Writes the channels of `channels` of the ten floats `t` at slot `s` of checked buffers.
    #[inline]
    pub(crate) fn write(&self, out: &mut [&mut [u8]], s: usize, t: &[f32], channels: u32) {
        let t = &t[..FLOATS_PER_JOINT];
        for c in 0..3 {
            if channels & (1 << c) == 0 {
                continue;
            }
            let n = COMPONENTS[c];
            let src = &t[ROW_AT[c]..ROW_AT[c] + n];
            if self.kind == LayoutKind::Soa4 {
                for (k, &v) in src.iter().enumerate() {
                    let (b, at) = self.at(s, c, k);
                    put(self.element, &mut out[b][at..], v);
                }
                continue;
            }
            // AoS and SoA: the components are consecutive elements.
            let (b, at) = self.at(s, c, 0);
            match self.element {
                Element::F32 => {
                    let d = &mut out[b][at..at + 4 * n];
                    // SAFETY: `d` holds `4 * n` bytes, `src` is `n` floats (checked above).
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            src.as_ptr().cast::<u8>(),
                            d.as_mut_ptr(),
                            4 * n,
                        )
                    };
                }
                Element::F64 => {
                    let d = &mut out[b][at..at + 8 * n];
                    for (k, &v) in src.iter().enumerate() {
                        d[8 * k..8 * k + 8].copy_from_slice(&(v as f64).to_ne_bytes());
                    }
                }
            }
        }
    }

    /// Whether ten-float rows at each record's start lie within its fields (AoS).
    fn rows_in_fields(&self) -> bool {
        if self.kind != LayoutKind::Aos || !self.strides[0].is_multiple_of(4) {
            return false;
        }
        let e = self.element.size();
        // Every 4-byte word of bytes 0..40 inside a field: the fields' words as bits.
        let mut words = 0u64;
        for (&o, &m) in self.offsets.iter().zip(&COMPONENTS) {
            let (first, n) = (o / 4, m * e / 4);
            if first < 10 {
                words |= ((1u64 << n) - 1) << first;
            }
        }
        words & 0x3ff == 0x3ff
    }
}

/// Bytes for `slots` joints of a buffer whose [`PoseLayout::extents`] are `step`, `first` and
/// `shift` (`None` past `isize::MAX`).
#[inline]
fn need(step: usize, first: usize, shift: u32, slots: usize) -> Option<usize> {
    Some(need_saturating(step, first, shift, slots)).filter(|n| *n <= isize::MAX as usize)
}

/// [`need`] without a branch for its overflow: a product or sum that overflows saturates at
/// `usize::MAX`, which no buffer holds.
#[inline(always)]
fn need_saturating(step: usize, first: usize, shift: u32, slots: usize) -> usize {
    let n = (slots.saturating_sub(1) >> shift)
        .saturating_mul(step)
        .saturating_add(first);
    if slots == 0 {
        0
    } else {
        n
    }
}

/// How a pose reaches a checked layout (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Way {
    /// The decoders' own ten-float rows.
    Ten = 0,
    /// `f32` AoS or SoA rows written straight by the grouped decoder (other codecs take the
    /// layout's fallback).
    Rows = 1,
    /// Ten-float rows at each record's start, widened or moved in place.
    InPlace = 2,
    /// ozz blocks: ten-float rows transposed in place.
    Blocks = 3,
    /// Through a ten-float buffer on the stack, scattered into the fields.
    Staged = 4,
}

/// A [`PoseLayout`] checked once ([`PoseLayout::checked`]): how a pose is written into it and
/// what its buffers need. A caller that writes many poses into one layout checks it once and
/// passes this to [`Decompressor::sample_pose_checked`], which checks only the buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckedLayout {
    layout: PoseLayout,
    way: Way,
    step: [usize; 3],
    first: [usize; 3],
    shift: u32,
}

impl CheckedLayout {
    /// The layout.
    pub fn layout(&self) -> &PoseLayout {
        &self.layout
    }

    /// Bytes buffer `b` needs for `slots` joints (`None` when it overflows the address space).
    #[inline]
    pub fn required_bytes(&self, b: usize, slots: usize) -> Option<usize> {
        need(self.step[b], self.first[b], self.shift, slots)
    }

    /// Whether `len` bytes (at most `isize::MAX`) hold buffer `b` for `slots` joints:
    /// [`CheckedLayout::required_bytes`] at most `len`, without a branch for its overflow (a
    /// product or sum that overflows saturates, and no `len` holds it).
    #[inline(always)]
    pub(crate) fn holds(&self, b: usize, slots: usize, len: usize) -> bool {
        need_saturating(self.step[b], self.first[b], self.shift, slots) <= len
    }

    /// Checks buffers of `lens` bytes at addresses `addrs` for `slots` joints: the buffer
    /// count, each address aligned to the element size, each length enough
    /// ([`Error::BufferTooSmall`] with the bytes the first short buffer needs).
    #[inline]
    pub fn check_buffers(&self, addrs: &[usize], lens: &[usize], slots: usize) -> Result<()> {
        let used = self.layout.buffers();
        if addrs.len() != used || lens.len() != used {
            return Err(Error::InvalidArgument(
                "a SoA layout takes three buffers, the others one",
            ));
        }
        let m = self.layout.element.size() - 1;
        for b in 0..used {
            if addrs[b] & m != 0 {
                return Err(Error::Misaligned);
            }
            let need = self.required_bytes(b, slots).ok_or(Error::InvalidArgument(
                "the pose's size overflows the address space",
            ))?;
            if lens[b] < need {
                return Err(Error::BufferTooSmall { required: need });
            }
        }
        Ok(())
    }

    /// Seven words that [`CheckedLayout::from_words`] turns back into this layout (for the C
    /// ABI's caller-owned copy).
    pub(crate) fn to_words(self) -> [u64; 7] {
        let l = &self.layout;
        [
            l.element as u64 | (l.kind as u64) << 8 | (self.way as u64) << 16,
            l.offsets[0] as u64,
            l.offsets[1] as u64,
            l.offsets[2] as u64,
            l.strides[0] as u64,
            l.strides[1] as u64,
            l.strides[2] as u64,
        ]
    }

    /// The layout [`CheckedLayout::to_words`] gave `w` (`None` for words it cannot give: any
    /// enum out of range, a field past `usize`). The caller vouches that the words are such a
    /// copy (the C ABI keeps a tag over them): the fields are not checked again.
    #[inline]
    pub(crate) fn from_words(w: &[u64; 7]) -> Option<CheckedLayout> {
        let way = |v: u64| {
            Some(match v & 0xff {
                0 => Way::Ten,
                1 => Way::Rows,
                2 => Way::InPlace,
                3 => Way::Blocks,
                4 => Way::Staged,
                _ => return None,
            })
        };
        let word = |v: u64| usize::try_from(v).ok();
        let layout = PoseLayout {
            element: Element::from_u32((w[0] & 0xff) as u32)?,
            kind: LayoutKind::from_u32((w[0] >> 8 & 0xff) as u32)?,
            offsets: [word(w[1])?, word(w[2])?, word(w[3])?],
            strides: [word(w[4])?, word(w[5])?, word(w[6])?],
        };
        let (step, first, shift) = layout.extents();
        Some(CheckedLayout {
            layout,
            way: way(w[0] >> 16)?,
            step,
            first,
            shift,
        })
    }

    /// [`CheckedLayout::check_buffers`] on Rust buffers.
    #[inline]
    fn check_out(&self, out: &[&mut [u8]], slots: usize) -> Result<()> {
        let mut addrs = [0usize; 3];
        let mut lens = [0usize; 3];
        let n = out.len().min(3);
        for (b, o) in out.iter().take(n).enumerate() {
            addrs[b] = o.as_ptr() as usize;
            lens[b] = o.len();
        }
        if out.len() != n {
            return Err(Error::InvalidArgument(
                "a SoA layout takes three buffers, the others one",
            ));
        }
        self.check_buffers(&addrs[..n], &lens[..n], slots)
    }
}

// The channel bits are the channel indices' powers of two.
const _: () =
    assert!(CHANNEL_ROTATION == 1 << 0 && CHANNEL_TRANSLATION == 1 << 1 && CHANNEL_SCALE == 1 << 2);
