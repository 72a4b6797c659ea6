//! The playback cursor: caller-owned state that reads the key stream once, front to back, while
//! playing forward, and rebuilds itself from the key index on a backward or long forward seek.
//!
//! State (`u32` words, [`cursor_state_size`] of them, provided by the caller; nothing allocates):
//!
//! ```text
//! word 0        marker (initialised)
//! word 1        read position in the stream (entries consumed)
//! word 2        current position in samples (f32 bits)
//! word 3        stream entries read by forward playback (wrapping counter, for instrumentation)
//! word 4        rebuilds done (wrapping counter)
//! words 5-7     current sample key: i0, i1, alpha (f32 bits)
//! 8 + 21 x slot per slot: keys received r, then a ring of the last four received keys (key
//!               number x in place x mod 4), each as five words: key time, then the decoded
//!               value x y z w (f32 bits), so every key is dequantised once, when it is read
//!               and nothing moves when a key arrives
//! ```
//!
//! A key is consumed when the playhead reaches the time it is first needed (the time of the key
//! one before it for linear tracks, two before it for Catmull-Rom); the stream is sorted by that
//! time, so consuming is a linear read. Sampling then only reads the state, the slot table and
//! the pool; it evaluates exactly the keys the stateless path would find, so poses are
//! bit-identical to [`crate::runtime::Decompressor::sample_pose`].

use glam::Vec4;

use crate::format::CodecId;
use crate::format::{validate_blob, BlobFlags, Header};
use crate::math::{Transform, Vec3, FLOATS_PER_JOINT};
use crate::runtime::seek::{self, Looping, Rounding};
use crate::runtime::DecompressOptions;
use crate::runtime::{Defaults, SampleKey};
use crate::{Error, Result};

use super::keys::{
    blend, constant_value, decode_value, eval_slot_stateless, find_key, finish, set_channel,
};
use crate::format::keys::interp::{eval, Interp};
use crate::format::keys::layout::{channels, Kind, Layout, Slot, CH_ROTATION};

const MARKER: u32 = 0x4B43_5552; // "KCUR"
const HEAD_WORDS: usize = 8;
const SLOT_WORDS: usize = 21;
const KEY_WORDS: usize = 5;
/// A forward jump of more samples than this rebuilds the cursor instead of reading every key.
pub const REBUILD_DISTANCE: f32 = 256.0;

/// `u32` words of cursor state a blob needs (0 if the header is not a keys blob).
pub fn cursor_state_size(h: &Header) -> usize {
    if h.codec != CodecId::Keys {
        return 0;
    }
    HEAD_WORDS + SLOT_WORDS * h.num_joints as usize * channels(h)
}

/// A forward-playing cursor over a keys blob, with caller-owned state.
pub struct KeyCursor<'a> {
    header: Header,
    body: &'a [u8],
    lay: Layout,
    defaults: Defaults<'a>,
    state: &'a mut [u32],
}

impl<'a> KeyCursor<'a> {
    /// Validates `blob` (as [`crate::runtime::Decompressor::new`] does), binds `state` (at
    /// least [`cursor_state_size`] words) and positions the cursor at time 0.
    pub fn new(blob: &'a [u8], opts: &DecompressOptions<'a>, state: &'a mut [u32]) -> Result<Self> {
        let (header, body) = validate_blob(blob, opts.verify_checksum)?;
        let defaults = Self::defaults(&header, opts)?;
        let mut c = Self::bind(header, body, defaults, state)?;
        c.reset();
        c.consume(0.0);
        Ok(c)
    }

    /// Re-binds a state buffer initialised by [`KeyCursor::new`] on the same blob (for example
    /// across calls of a C API that keeps only the buffer). The blob is validated again; the
    /// state is used as is — a state that was not written by a cursor on this blob gives wrong
    /// poses but never unsafe reads (every index taken from it is clamped or range-checked).
    pub fn resume(
        blob: &'a [u8],
        opts: &DecompressOptions<'a>,
        state: &'a mut [u32],
    ) -> Result<Self> {
        let (header, body) = validate_blob(blob, opts.verify_checksum)?;
        let defaults = Self::defaults(&header, opts)?;
        if state.first() != Some(&MARKER) {
            return Err(Error::NotInitialized);
        }
        Self::bind(header, body, defaults, state)
    }

    fn defaults(header: &Header, opts: &DecompressOptions<'a>) -> Result<Defaults<'a>> {
        Ok(if header.has(BlobFlags::DEFAULTS_ARE_BIND_POSE) {
            let bind = opts.bind_pose.ok_or(Error::BindPoseRequired)?;
            if bind.len() < header.num_joints as usize * FLOATS_PER_JOINT {
                return Err(Error::InvalidArgument(
                    "bind pose shorter than 10 floats per joint",
                ));
            }
            Defaults::for_header(header, Some(bind))
        } else {
            Defaults::for_header(header, None)
        })
    }

    /// Whether `state` starts with the marker [`KeyCursor::new`] writes (for the crate's C layer,
    /// which refuses buffers that were never initialised).
    pub(crate) fn is_marked(state: &[u32]) -> bool {
        state.first() == Some(&MARKER)
    }

    /// Binds a state buffer to an already validated keys body (no reset). For the crate's C
    /// layer, which holds a validated decompressor.
    pub(crate) fn bind(
        header: Header,
        body: &'a [u8],
        defaults: Defaults<'a>,
        state: &'a mut [u32],
    ) -> Result<Self> {
        if header.codec != CodecId::Keys {
            return Err(Error::InvalidArgument(
                "a key cursor needs a blob written by the keys codec",
            ));
        }
        let need = cursor_state_size(&header);
        if state.len() < need {
            return Err(Error::BufferTooSmall { required: need * 4 });
        }
        // A curves-only blob has an empty joint body (0 joints, no slots, no keys).
        let lay = if header.num_joints == 0 {
            Layout::new(0, 0, 0, 0).expect("no overflow")
        } else {
            Layout::read(body)
        };
        Ok(KeyCursor {
            header,
            body,
            lay,
            defaults,
            state,
        })
    }

    /// Resets a bound cursor to time 0 (as [`KeyCursor::new`] leaves it), for the crate's C layer.
    pub(crate) fn start(&mut self) {
        self.reset();
        self.consume(0.0);
    }

    /// The current sample key.
    pub fn key(&self) -> SampleKey {
        SampleKey {
            i0: self.state[5],
            i1: self.state[6],
            alpha: f32::from_bits(self.state[7]),
        }
    }

    /// The blob header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Stream entries consumed so far (the read position).
    pub fn read_position(&self) -> usize {
        self.state[1] as usize
    }

    /// Stream entries read by forward playback since creation (wrapping).
    pub fn entries_read(&self) -> u32 {
        self.state[3]
    }

    /// Rebuilds (backward or long forward seeks) since creation (wrapping).
    pub fn rebuilds(&self) -> u32 {
        self.state[4]
    }

    /// Current position in samples.
    pub fn position(&self) -> f32 {
        f32::from_bits(self.state[2])
    }

    fn reset(&mut self) {
        let n = cursor_state_size(&self.header);
        self.state[..n].fill(0);
        self.state[0] = MARKER;
    }

    /// Moves to `time` seconds (same policies as the decompressor's `seek`).
    pub fn seek(&mut self, time: f32, looping: Looping, rounding: Rounding) -> Result<()> {
        let key = seek::resolve(&self.header, time, looping, rounding)?;
        self.seek_key(key);
        Ok(())
    }

    /// Moves to an exact sample (clamped to the sample count).
    pub fn seek_sample(&mut self, sample: u32) {
        let i = sample.min(self.header.num_samples - 1);
        self.seek_key(SampleKey {
            i0: i,
            i1: i,
            alpha: 0.0,
        });
    }

    /// Moves to a resolved sample key.
    pub fn seek_key(&mut self, key: SampleKey) {
        let last = self.header.num_samples - 1;
        let key = SampleKey {
            i0: key.i0.min(last),
            i1: key.i1.min(last),
            alpha: key.alpha.clamp(0.0, 1.0),
        };
        let pos = if key.i0.checked_add(1) == Some(key.i1) {
            key.i0 as f32 + key.alpha
        } else {
            key.i0 as f32
        };
        self.state[5] = key.i0;
        self.state[6] = key.i1;
        self.state[7] = key.alpha.to_bits();
        self.move_to(pos);
    }

    /// Moves the playhead to `pos` samples (clamped to the clip; no wrapping): forward by reading
    /// the stream (amortised constant work per channel), backward or far forward by rebuilding
    /// from the key index.
    pub fn advance_to(&mut self, pos: f32) {
        let last = self.header.num_samples - 1;
        let pos = if pos.is_finite() {
            pos.clamp(0.0, last as f32)
        } else {
            0.0
        };
        let i0 = (pos.floor() as u32).min(last);
        let alpha = pos - i0 as f32;
        let key = if alpha > 0.0 && i0 < last {
            SampleKey {
                i0,
                i1: i0 + 1,
                alpha,
            }
        } else {
            SampleKey {
                i0,
                i1: i0,
                alpha: 0.0,
            }
        };
        self.seek_key(key);
    }

    fn move_to(&mut self, pos: f32) {
        let cur = self.position();
        if pos < cur || pos - cur > REBUILD_DISTANCE {
            self.rebuild(pos);
        } else {
            self.consume(pos);
        }
        self.state[2] = pos.to_bits();
    }

    #[inline]
    fn slot_base(s: usize) -> usize {
        HEAD_WORDS + s * SLOT_WORDS
    }

    #[inline]
    fn key_time(&self, s: usize, x: usize) -> f32 {
        self.state[Self::slot_base(s) + 1 + KEY_WORDS * (x & 3)] as f32
    }

    /// Reads stream entries while the next one is needed at or before `pos`.
    fn consume(&mut self, pos: f32) {
        let nch = channels(&self.header);
        let nj = self.header.num_joints as usize;
        while (self.state[1] as usize) < self.lay.keys {
            let e = self.state[1] as usize;
            let jc = self.lay.entry_jc(self.body, e) as usize;
            let (joint, ch) = (jc & 0x3FFF, jc >> 14);
            if joint >= nj || ch >= nch {
                break; // unreachable on a validated body
            }
            let s = joint * nch + ch;
            let slot = self.lay.slot(self.body, s);
            let base = Self::slot_base(s);
            let r = self.state[base] as usize;
            let time = self.lay.entry_time(self.body, e);
            let need = if r == 0 {
                time as f32
            } else {
                let m = r.saturating_sub(slot.interp.lookbehind());
                self.key_time(s, m)
            };
            if need > pos {
                break;
            }
            let payload = self.lay.entry_payload(self.body, e);
            let value = decode_value(&self.lay, self.body, &slot, ch, time, payload);
            self.push(base, r, time, value);
            self.state[1] += 1;
            self.state[3] = self.state[3].wrapping_add(1);
        }
    }

    #[inline]
    fn push(&mut self, base: usize, r: usize, time: u16, value: Vec4) {
        let w = &mut self.state[base..base + SLOT_WORDS];
        // Key number r goes to place r mod 4 of the ring, over the key four before it.
        let at = 1 + KEY_WORDS * (r & 3);
        w[at] = time as u32;
        for (d, v) in w[at + 1..at + 5].iter_mut().zip(value.to_array()) {
            *d = v.to_bits();
        }
        w[0] = (r as u32).wrapping_add(1);
    }

    /// Rebuilds the state for playhead `pos` from the key index (binary search per track).
    fn rebuild(&mut self, pos: f32) {
        // Keep the counters and the sample key `seek_key` has just written (losing the key would
        // skip the blend of a wrap from the last sample to the first).
        let (entries, rebuilds) = (self.state[3], self.state[4]);
        let key: [u32; 3] = self.state[5..8].try_into().expect("three words");
        self.reset();
        self.state[3] = entries;
        self.state[4] = rebuilds.wrapping_add(1);
        self.state[5..8].copy_from_slice(&key);
        let mut read = 0usize;
        for s in 0..self.lay.slots {
            let slot = self.lay.slot(self.body, s);
            if slot.kind != Kind::Animated {
                continue;
            }
            let time = |i: usize| {
                self.lay
                    .entry_time(self.body, self.lay.key_pos(self.body, &slot, i))
                    as f32
            };
            // Keys received at `pos`: those whose need time <= pos.
            let r = if time(0) > pos {
                0
            } else {
                let k = find_key(slot.count, pos, time);
                (k + slot.interp.lookbehind() + 1).min(slot.count)
            };
            let base = Self::slot_base(s);
            let channel = s % channels(&self.header);
            for i in r.saturating_sub(4)..r {
                let e = self.lay.key_pos(self.body, &slot, i);
                let (t, p) = (
                    self.lay.entry_time(self.body, e),
                    self.lay.entry_payload(self.body, e),
                );
                let value = decode_value(&self.lay, self.body, &slot, channel, t, p);
                let have = self.state[base] as usize;
                self.push(base, have, t, value);
                read = read.max(e + 1);
            }
        }
        self.state[1] = read as u32;
    }

    /// Value of an animated slot at `t` from the received keys.
    fn eval_window(&self, s: usize, slot: &Slot, channel: usize, t: f32) -> Vec4 {
        let base = Self::slot_base(s);
        let r = self.state[base] as usize;
        if r == 0 {
            return eval_slot_stateless(&self.lay, self.body, slot, channel, t);
        }
        let lo = r.saturating_sub(4); // oldest key number in the window
        let hi = r - 1;
        let mut k = lo;
        for x in lo..=hi {
            if self.key_time(s, x) <= t {
                k = x;
            }
        }
        let last = slot.count.saturating_sub(1).min(hi);
        let mut ts = [0.0f32; 4];
        let mut vs = [Vec4::ZERO; 4];
        let w = &self.state[base..base + SLOT_WORDS];
        // Linear spans only read keys k and k+1 (as the stateless path).
        let range = match slot.interp {
            Interp::Linear => 1..3,
            Interp::CatmullRom => 0..4,
        };
        for i in range {
            let x =
                (k as isize + i as isize - 1).clamp(lo as isize, last.max(lo) as isize) as usize;
            let o = 1 + KEY_WORDS * (x & 3);
            ts[i] = w[o] as f32;
            vs[i] = Vec4::new(
                f32::from_bits(w[o + 1]),
                f32::from_bits(w[o + 2]),
                f32::from_bits(w[o + 3]),
                f32::from_bits(w[o + 4]),
            );
        }
        eval(slot.interp, ts, vs, t, channel == CH_ROTATION)
    }

    fn joint(&self, j: usize, nch: usize, key: &SampleKey, pos: f32) -> Transform {
        let mut t = self.defaults.get(j);
        for c in 0..nch {
            let s = j * nch + c;
            let slot = self.lay.slot(self.body, s);
            let v = match slot.kind {
                Kind::Default => continue,
                Kind::Constant => constant_value(&self.lay, self.body, &slot, c),
                Kind::Animated => {
                    let a = self.eval_window(s, &slot, c, pos);
                    if key.i0.checked_add(1) == Some(key.i1) || key.i1 == key.i0 {
                        a
                    } else {
                        // Wrapping from the last sample to the first.
                        let b = eval_slot_stateless(&self.lay, self.body, &slot, c, key.i1 as f32);
                        blend(a, b, key.alpha, c)
                    }
                }
            };
            set_channel(&mut t, c, v);
        }
        if nch < 3 {
            t.scale = Vec3::ONE;
        }
        finish(t)
    }

    /// Samples every joint at the cursor's position: 10 floats per joint at `stride`.
    pub fn sample_pose(&self, out: &mut [f32], stride: usize) -> Result<()> {
        let nj = self.header.num_joints as usize;
        crate::runtime::PoseOut::check_len(out.len(), nj, stride)?;
        let (nch, key, pos) = (channels(&self.header), self.key(), self.position());
        for j in 0..nj {
            self.joint(j, nch, &key, pos)
                .write_to(&mut out[j * stride..j * stride + FLOATS_PER_JOINT]);
        }
        Ok(())
    }

    /// Samples one joint at the cursor's position.
    pub fn sample_joint(&self, joint: u32) -> Result<Transform> {
        if joint >= self.header.num_joints {
            return Err(Error::JointOutOfRange(joint));
        }
        let (nch, key, pos) = (channels(&self.header), self.key(), self.position());
        Ok(self.joint(joint as usize, nch, &key, pos))
    }
}
