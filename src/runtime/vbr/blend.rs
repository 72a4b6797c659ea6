//! Deferred rotation blends: a walk finishes the `nlerp`s of up to [`CHUNK`] joints in a pass of
//! their own.

use super::walk::State;
use crate::math::{nlerp_shortest, Quat};
use crate::runtime::PoseOut;

/// Rotation blends a walk defers before finishing them in one pass. A blend (a square root and
/// a division) ends a long chain of dependent steps (unpacking, coefficients, the rebuild and its
/// square root); in the middle of a joint's decode the CPU cannot overlap that chain with the next
/// joint's, while in a pass of their own consecutive blends overlap. 8 measured best of 4, 8, 16
/// and 32 (a 22-joint pose pays for the buffers too).
pub(super) const CHUNK: usize = 8;
const _: () = assert!(CHUNK.is_power_of_two());

/// Rotation blends a walk left undone (see [`State::pending`]): the output slot whose rotation
/// holds the first sample, the second sample, for up to [`CHUNK`] joints; [`Blends::flush`]
/// finishes them with the same arithmetic as an immediate blend (bit for bit the same result).
pub(super) struct Blends {
    slots: [usize; CHUNK],
    second: [Quat; CHUNK],
    len: usize,
}

impl Blends {
    pub(super) fn new() -> Blends {
        Blends {
            slots: [0; CHUNK],
            second: [Quat::IDENTITY; CHUNK],
            len: 0,
        }
    }

    /// Records the blend `st` left pending for `slot`, if any, and finishes the recorded ones
    /// when [`CHUNK`] are waiting.
    #[inline(always)]
    pub(super) fn take<const M: u8>(&mut self, st: &mut State<M>, slot: usize, out: &mut PoseOut) {
        // Written whether or not a blend is pending (no branch); counted only if one is.
        // `len < CHUNK` here (a full buffer is flushed at once); the mask drops the bounds check.
        self.slots[self.len & (CHUNK - 1)] = slot;
        self.second[self.len & (CHUNK - 1)] = st.second;
        self.len += st.pending as usize;
        st.pending = false;
        if self.len == CHUNK {
            self.flush(out, st.alpha);
        }
    }

    /// Blends every recorded rotation into `out`.
    #[inline(always)]
    pub(super) fn flush(&mut self, out: &mut PoseOut, alpha: f32) {
        for (&slot, &q1) in self.slots[..self.len].iter().zip(&self.second) {
            let r = &mut out.data[slot * out.stride..][..4];
            let q = nlerp_shortest(Quat::from_slice(r), q1, alpha);
            r.copy_from_slice(&q.to_array());
        }
        self.len = 0;
    }
}
