//! Deferred rotation blends: a walk finishes the `nlerp`s of up to [`CHUNK`] joints in a pass of
//! their own.

use super::walk::State;
use crate::math::{nlerp_shortest, Quat};
use crate::runtime::PoseOut;
use glam::Vec4;

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

    /// Blends every recorded rotation into `out`: four at a time ([`nlerp4`]), the rest one by
    /// one.
    #[inline(always)]
    pub(super) fn flush(&mut self, out: &mut PoseOut, alpha: f32) {
        let n = self.len.min(CHUNK);
        let stride = out.stride;
        let mut i = 0;
        while i + 4 <= n {
            let s = [
                self.slots[i] * stride,
                self.slots[i + 1] * stride,
                self.slots[i + 2] * stride,
                self.slots[i + 3] * stride,
            ];
            let a = [
                Vec4::from_slice(&out.data[s[0]..s[0] + 4]),
                Vec4::from_slice(&out.data[s[1]..s[1] + 4]),
                Vec4::from_slice(&out.data[s[2]..s[2] + 4]),
                Vec4::from_slice(&out.data[s[3]..s[3] + 4]),
            ];
            let b = [
                Vec4::from(self.second[i]),
                Vec4::from(self.second[i + 1]),
                Vec4::from(self.second[i + 2]),
                Vec4::from(self.second[i + 3]),
            ];
            let q = nlerp4(a, b, alpha);
            for k in 0..4 {
                q[k].write_to_slice(&mut out.data[s[k]..s[k] + 4]);
            }
            i += 4;
        }
        for (&slot, &q1) in self.slots[i..n].iter().zip(&self.second[i..n]) {
            let r = &mut out.data[slot * stride..][..4];
            let q = nlerp_shortest(Quat::from_slice(r), q1, alpha);
            r.copy_from_slice(&q.to_array());
        }
        self.len = 0;
    }
}

/// [`nlerp_shortest`] of four pairs of rotations (as `Vec4`s), bit for bit: on x86-64 the four in
/// the lanes of SSE2 registers (one square root and one division instruction for the four, where
/// one by one the blend is a chain of dependent scalar steps), each lane performing the scalar
/// blend's operations in its order (the dot products grouped `(x + z) + (y + w)` like glam's
/// SSE2 `dot`; the flip a sign-bit XOR like its negation); elsewhere one by one.
#[inline(always)]
pub(crate) fn nlerp4(a: [Vec4; 4], b: [Vec4; 4], t: f32) -> [Vec4; 4] {
    #[cfg(target_arch = "x86_64")]
    {
        use super::lanes::transpose4 as transpose;
        use core::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86-64 baseline; register operations only.
        unsafe {
            let [ax, ay, az, aw] = transpose([a[0].into(), a[1].into(), a[2].into(), a[3].into()]);
            let [bx, by, bz, bw] = transpose([b[0].into(), b[1].into(), b[2].into(), b[3].into()]);
            let dot = |p: [__m128; 4], q: [__m128; 4]| {
                _mm_add_ps(
                    _mm_add_ps(_mm_mul_ps(p[0], q[0]), _mm_mul_ps(p[2], q[2])),
                    _mm_add_ps(_mm_mul_ps(p[1], q[1]), _mm_mul_ps(p[3], q[3])),
                )
            };
            let d = dot([ax, ay, az, aw], [bx, by, bz, bw]);
            let flip = _mm_and_ps(_mm_cmplt_ps(d, _mm_setzero_ps()), _mm_set1_ps(-0.0));
            let tv = _mm_set1_ps(t);
            let lerp = |a: __m128, b: __m128| {
                _mm_add_ps(a, _mm_mul_ps(_mm_sub_ps(_mm_xor_ps(b, flip), a), tv))
            };
            let v = [lerp(ax, bx), lerp(ay, by), lerp(az, bz), lerp(aw, bw)];
            let len2 = dot(v, v);
            let r = _mm_div_ps(_mm_set1_ps(1.0), _mm_sqrt_ps(len2));
            // `len2 > 0` (false for a NaN, like the scalar test): the blend, else `a`.
            let ok = _mm_cmpgt_ps(len2, _mm_setzero_ps());
            let pick = |v: __m128, a: __m128| {
                _mm_or_ps(_mm_and_ps(ok, _mm_mul_ps(v, r)), _mm_andnot_ps(ok, a))
            };
            let q = transpose([
                pick(v[0], ax),
                pick(v[1], ay),
                pick(v[2], az),
                pick(v[3], aw),
            ]);
            [q[0].into(), q[1].into(), q[2].into(), q[3].into()]
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        [0, 1, 2, 3].map(|k| {
            Vec4::from(nlerp_shortest(
                Quat::from_vec4(a[k]),
                Quat::from_vec4(b[k]),
                t,
            ))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Quaternion-ish lanes: unit rotations, opposite hemispheres, zeros (a zero-length blend
    /// keeps `a`), NaNs and infinities, unnormalised values.
    fn lanes(x: &mut u64) -> Vec4 {
        let mut r = || {
            *x ^= *x << 13;
            *x ^= *x >> 7;
            *x ^= *x << 17;
            *x
        };
        match r() % 16 {
            0 => Vec4::ZERO,
            1 => Vec4::new(f32::NAN, 0.0, 0.0, 1.0),
            2 => Vec4::new(f32::INFINITY, 0.0, 0.0, 1.0),
            3 => Vec4::from_array([0, 1, 2, 3].map(|_| f32::from_bits(r() as u32))),
            _ => {
                let v = Vec4::from_array(
                    [0, 1, 2, 3].map(|_| (r() >> 40) as f32 / (1u64 << 23) as f32 - 1.0),
                );
                if r() % 4 == 0 {
                    v
                } else {
                    v.normalize_or_zero()
                }
            }
        }
    }

    #[test]
    fn nlerp4_is_nlerp_shortest_bit_for_bit() {
        let mut x = 0x0123_4567_89AB_CDEFu64;
        for i in 0..200_000u32 {
            let a = [0; 4].map(|_| lanes(&mut x));
            let mut b = [0; 4].map(|_| lanes(&mut x));
            if i % 3 == 0 {
                // b = -a or a: the dot's sign at its extremes.
                b[0] = -a[0];
                b[1] = a[1];
            }
            let t = match i % 5 {
                0 => 0.0,
                1 => 1.0,
                _ => (i as f32 * 0.618_034).fract(),
            };
            let got = nlerp4(a, b, t);
            for k in 0..4 {
                let want = Vec4::from(nlerp_shortest(
                    Quat::from_vec4(a[k]),
                    Quat::from_vec4(b[k]),
                    t,
                ));
                assert_eq!(
                    got[k].to_array().map(f32::to_bits),
                    want.to_array().map(f32::to_bits),
                    "{:?} {:?} {t}",
                    a[k],
                    b[k]
                );
            }
        }
    }
}
