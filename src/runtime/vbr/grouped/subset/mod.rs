//! Joint subsets on the grouped layout, portable: each requested channel decoded alone (one
//! lane of its group, whose first bit in a frame the segment stores). Bit for bit the `vbr`
//! decoder's joints.

use super::body::{record_head, Dir, RECORD_PER_SEGMENT, RECORD_WIDE_JOINTS, STARTS_EVERY};
use super::common::{
    default_value, positions, split, static_value, Far, Here, Src, ONE_SAMPLE, SAME_SEGMENT,
};
use super::lanes::{self, clamp_value, PAIR_BITS};
use super::{GroupedClip, Pos, View, SRC_ANIMATED, SRC_STATIC};
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::vbr::bitrate::{inv_max_q, rate_bits, RATE_RAW};
use crate::math::nlerp_shortest;
use crate::runtime::SampleKey;
use glam::Vec4;

mod lane;

#[cfg(target_arch = "x86_64")]
pub(super) use lane::start_less_width;
use lane::*;
#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    all(target_arch = "wasm32", target_feature = "simd128")
))]
pub(super) use lane::{lone_bits, lone_group};

/// What the lone-lane decode reads of the view, and the key's two samples: a few words
/// passed by reference instead of the whole view (which then need not be written to memory on
/// every call).
pub(super) struct Lone<'a, 't, S> {
    pub data: &'a [u8],
    pub dir: Dir,
    pub starts_at: usize,
    pub start_bytes: usize,
    pub start_mask: u64,
    pub a: Pos<S>,
    pub b: Pos<S>,
    pub alpha: f32,
    /// Interpolation weight 0 or equal samples.
    pub one_sample: bool,
    /// Both samples in one segment.
    pub same_segment: bool,
    /// Each group's first bit in a frame of `a`'s segment, then of `b`'s, when the selection
    /// summed them once ([`start_table`]); empty otherwise.
    pub table: &'t [u32],
}

/// Groups a selection's table of first bits covers ([`start_table`]; more are summed per lane).
pub(super) const TABLE_GROUPS: usize = 64;

impl GroupedClip {
    /// Samples the joints of `joints` (each below the joint count) at `key`, joint `j` into
    /// `out[j * stride..]` (the `vbr` decoder's `sample_joints` with every channel and slots
    /// equal to the joints). Bit for bit its whole pose's floats.
    pub fn sample_joints(&self, key: &SampleKey, joints: &[u32], out: &mut [f32], stride: usize) {
        // Lane by lane: fewer instructions than a whole group for one lane (`docs/runtime.md`).
        self.sample_joints_with(key, joints, out, stride, false)
    }

    /// [`GroupedClip::sample_joints`], decoding whole groups with AVX2 when `wide` (which must then be
    /// available), else lane by lane.
    pub fn sample_joints_with(
        &self,
        key: &SampleKey,
        joints: &[u32],
        out: &mut [f32],
        stride: usize,
        wide: bool,
    ) {
        assert!(key.i0 < self.header().num_samples && key.i1 < self.header().num_samples);
        self.view()
            .sample_joints_with(key, joints, |_, j| j as usize, 7, out, stride, wide)
    }

    /// The channels of `channels` (a `CHANNEL_*` mask) of the joints of `joints` at `key`, list
    /// entry `i` into slot `slots[i]` of `out` (10 floats per slot at `stride`), or slot `i`
    /// without `slots` (the runtime's joint selection). Lane by lane.
    pub fn sample_selection(
        &self,
        key: &SampleKey,
        joints: &[u32],
        slots: Option<&[u32]>,
        channels: u32,
        out: &mut [f32],
        stride: usize,
    ) {
        assert!(key.i0 < self.header().num_samples && key.i1 < self.header().num_samples);
        assert!(slots.is_none_or(|s| s.len() >= joints.len()));
        let slot = |i: usize, _: u32| slots.map_or(i, |s| s[i] as usize);
        self.view()
            .sample_joints_with(key, joints, slot, channels, out, stride, false)
    }
}

impl<'a> View<'a> {
    /// [`GroupedClip::sample_joints_with`].
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn sample_joints_with(
        &self,
        key: &SampleKey,
        joints: &[u32],
        slot: impl Fn(usize, u32) -> usize,
        channels: u32,
        out: &mut [f32],
        stride: usize,
        wide: bool,
    ) {
        // The kinds' counts (`body::rank`) in one instruction where the CPU has one.
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT.
            return unsafe { self.select_popcnt(key, joints, &slot, channels, out, stride, wide) };
        }
        self.select(key, joints, &slot, channels, out, stride, wide)
    }

    /// [`View::select`] compiled with POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "popcnt")]
    unsafe fn select_popcnt(
        &self,
        key: &SampleKey,
        joints: &[u32],
        slot: &impl Fn(usize, u32) -> usize,
        channels: u32,
        out: &mut [f32],
        stride: usize,
        wide: bool,
    ) {
        self.select(key, joints, slot, channels, out, stride, wide)
    }

    /// [`View::sample_joints_with`].
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn select(
        &self,
        key: &SampleKey,
        joints: &[u32],
        slot: &impl Fn(usize, u32) -> usize,
        channels: u32,
        out: &mut [f32],
        stride: usize,
        wide: bool,
    ) {
        if self.tiers.is_some() {
            return self.select_far(key, joints, slot, channels, out, stride, wide);
        }
        self.select_in::<Here>(key, joints, slot, channels, out, stride, wide)
    }

    /// [`View::select`] with tiers attached: out of line.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn select_far(
        &self,
        key: &SampleKey,
        joints: &[u32],
        slot: &impl Fn(usize, u32) -> usize,
        channels: u32,
        out: &mut [f32],
        stride: usize,
        wide: bool,
    ) {
        self.select_in::<Far>(key, joints, slot, channels, out, stride, wide)
    }

    /// [`View::select`] with the frames where `S` places them.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn select_in<S: Src<'a>>(
        &self,
        key: &SampleKey,
        joints: &[u32],
        slot: &impl Fn(usize, u32) -> usize,
        channels: u32,
        out: &mut [f32],
        stride: usize,
        wide: bool,
    ) {
        assert!(!wide || super::Isa::Avx2.available());
        assert!(stride >= 10);
        let key_split = split(self, key);
        let (one_sample, same_segment) =
            (key_split.case == ONE_SAMPLE, key_split.case == SAME_SEGMENT);
        let (a, b) = positions::<S>(self, &key_split);
        let mut lone = Lone {
            data: self.data,
            dir: self.dir(),
            starts_at: self.starts_at,
            start_bytes: self.start_bytes,
            start_mask: self.start_mask(),
            a,
            b,
            alpha: key.alpha,
            one_sample,
            same_segment,
            table: &[],
        };
        // The whole-group decode (`wide`): every group's first bit summed once. (The lane
        // decodes find a group's first bit from what the segment stores and the group's width,
        // which they sum anyway: cheaper per lane than the table per call. A selection without
        // `wide` writes no table.)
        let mut table: [u32; 2 * TABLE_GROUPS];
        if wide {
            table = [0; 2 * TABLE_GROUPS];
            lone.table = start_table(&lone, self.num_groups, &mut table);
        }
        // Borrowed from here on (a rebinding `let lone = lone` moves its 176 bytes with `memcpy`).
        let lone = &lone;
        // Animated channels eight at a time across groups (AVX2, `avx2/gather.rs`), when every
        // entry has a slot of its own (slots in increasing order), so that deferring the
        // animated channels' writes cannot change which of two writes to one slot comes last.
        #[cfg(target_arch = "x86_64")]
        if !wide
            && joints.len() >= GATHERED
            && super::Isa::Avx2.available()
            && self.data.len() < 1 << 28
            && joints
                .windows(2)
                .enumerate()
                .all(|(i, w)| slot(i, w[0]) < slot(i + 1, w[1]))
        {
            let mut batches = [Batch::new(true), Batch::new(false)];
            self.each_channel(joints, slot, channels, out, stride, |o, ch, src, out| {
                let b = &mut batches[(ch != 0) as usize];
                b.push(src, o + crate::math::CHANNEL_OFFSETS[ch]);
                if b.n == 8 {
                    b.flush(lone, out);
                }
                None
            });
            for b in &mut batches {
                b.flush(lone, out);
            }
            return;
        }
        if !wide {
            self.each_channel(joints, slot, channels, out, stride, |_, ch, src, _| {
                let (g, l) = ((src >> 3) as usize, (src & 7) as usize);
                Some(lane_value_of(lone, g, l, ch == 0))
            });
            return;
        }
        let (a, b) = (&lone.a, &lone.b);
        // With AVX2 a channel's whole group is decoded (and kept for the next channel in it).
        let mut lanes = [[0.0f32; 4]; super::LANES];
        let mut last = usize::MAX;
        self.each_channel(joints, slot, channels, out, stride, |_, _, src, _| {
            let (g, l) = ((src >> 3) as usize, (src & 7) as usize);
            #[cfg(target_arch = "x86_64")]
            {
                if last != g {
                    let (first_bit_a, first_bit_b) = starts(lone, g);
                    // SAFETY: AVX2 is present (`wide`).
                    unsafe {
                        super::avx2::group_lanes(
                            self,
                            key,
                            key_split.case,
                            lone.dir.at(g),
                            a,
                            b,
                            (first_bit_a, first_bit_b),
                            &mut lanes,
                        )
                    };
                    last = g;
                }
                Some(lanes[l])
            }
            #[cfg(not(target_arch = "x86_64"))]
            unreachable!("wide needs AVX2 ({g}, {l})")
        });
    }

    /// The channels of `channels` of each entry of `joints` into its slot of `out` (10 floats
    /// at `stride`): a static or default channel's value written here, an animated one's
    /// (`src`: its group `<< 3 |` lane) from `animated(o, ch, src, out)`, `o` the slot's first
    /// float, which writes it itself when it returns `None`. The three forms of a selection
    /// differ only in `animated`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn each_channel(
        &self,
        joints: &[u32],
        slot: &impl Fn(usize, u32) -> usize,
        channels: u32,
        out: &mut [f32],
        stride: usize,
        mut animated: impl FnMut(usize, usize, u32, &mut [f32]) -> Option<[f32; 4]>,
    ) {
        let sources = self.sources();
        for (i, &j) in joints.iter().enumerate() {
            let o = slot(i, j) * stride;
            assert!(o + 10 <= out.len());
            let j = j as usize;
            for ch in 0..3 {
                if channels & (1 << ch) == 0 {
                    continue;
                }
                let src = sources.get(j, ch);
                let value = match src & (3 << 30) {
                    SRC_ANIMATED => match animated(o, ch, src, out) {
                        Some(v) => v,
                        None => continue,
                    },
                    SRC_STATIC => static_value(self, (src & 0xFFFF) as usize, ch),
                    _ => default_value(self, j, ch),
                };
                // Fixed sizes: a copy of a run-time length would call `memcpy`.
                let dst = &mut out[o..o + 10];
                match ch {
                    0 => dst[..4].copy_from_slice(&value),
                    1 => dst[4..7].copy_from_slice(&value[..3]),
                    _ => dst[7..10].copy_from_slice(&value[..3]),
                }
            }
        }
    }
}

/// Fewest channels of a kind decoded together with gathers (fewer are decoded lane by lane:
/// a gathered decode costs about as much for one lane as for eight).
#[cfg(target_arch = "x86_64")]
const GATHERED: usize = 4;

/// Animated channels of one kind (rotations or vectors) waiting to be decoded eight at a time.
#[cfg(target_arch = "x86_64")]
struct Batch {
    rot: bool,
    n: usize,
    g: [u32; 8],
    l: [u32; 8],
    /// Where each value goes in the output.
    dst: [usize; 8],
}

#[cfg(target_arch = "x86_64")]
impl Batch {
    fn new(rot: bool) -> Batch {
        Batch {
            rot,
            n: 0,
            g: [0; 8],
            l: [0; 8],
            dst: [0; 8],
        }
    }

    /// Adds the animated source `src` (group and lane), whose value goes to `out[dst..]`.
    #[inline(always)]
    fn push(&mut self, src: u32, dst: usize) {
        let i = self.n & 7;
        self.g[i] = src >> 3;
        self.l[i] = src & 7;
        self.dst[i] = dst;
        self.n = i + 1;
    }

    /// Decodes the waiting channels and writes them (rotations 4 floats, vectors 3).
    #[inline(never)]
    fn flush<'a, S: Src<'a>>(&mut self, lone: &Lone<'a, '_, S>, out: &mut [f32]) {
        if self.n == 0 {
            return;
        }
        let mut v = [[0.0f32; 4]; 8];
        // Lanes left to the lone-lane decode: raw ones, or all of a short batch.
        let alone = if self.n >= GATHERED {
            // SAFETY: AVX2 is present and the data shorter than 256 MB (the caller checked);
            // the groups and lanes are the joint map's, which the validator checked.
            unsafe { super::avx2::lanes8(lone, &self.g, &self.l, self.n, self.rot, &mut v) }
        } else {
            u32::MAX
        };
        for (i, x) in v.iter().enumerate().take(self.n) {
            let x = if alone & (1 << i) != 0 {
                let g = self.g[i] as usize;
                lane_value_of(lone, g, self.l[i] as usize, self.rot)
            } else {
                *x
            };
            let o = self.dst[i];
            if self.rot {
                out[o..o + 4].copy_from_slice(&x);
            } else {
                out[o..o + 3].copy_from_slice(&x[..3]);
            }
        }
        self.n = 0;
    }
}
