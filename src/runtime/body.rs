//! Branch-free, always in-bounds reads of a codec body for the decoders' hot loops.
//!
//! A validated body never reads past its end (its last bit field is followed by the writer's 8
//! bytes of read-ahead padding, which validation requires), so a bounds check per read only
//! guards against what validation already excluded, yet costs a comparison and a branch each time
//! (about ten per animated sub-track). [`Body`] clamps the offset instead: a read that would run
//! past the end reads the body's last bytes. Memory safety never depends on validation: the
//! clamp keeps every read inside the slice whatever the offset; validation is what makes the
//! values right.

/// A body of at least [`Body::MIN_LEN`] bytes.
#[derive(Clone, Copy)]
pub struct Body<'a> {
    bytes: &'a [u8],
}

impl<'a> Body<'a> {
    /// The widest read.
    pub const MIN_LEN: usize = 16;

    /// `bytes` as a body, if it holds at least [`Body::MIN_LEN`] bytes.
    #[inline(always)]
    pub fn new(bytes: &'a [u8]) -> Option<Body<'a>> {
        (bytes.len() >= Self::MIN_LEN).then_some(Body { bytes })
    }

    /// The bytes.
    #[inline(always)]
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// `N` bytes at `offset`, or the last `N` bytes when fewer than `N` follow `offset`.
    #[inline(always)]
    fn load<const N: usize>(&self, offset: usize) -> [u8; N] {
        const { assert!(N <= Self::MIN_LEN) };
        let o = offset.min(self.bytes.len() - N);
        // SAFETY: `new` guarantees `len >= MIN_LEN >= N`, so `o + N <= len`: the read is inside
        // the slice. `[u8; N]` has no alignment or validity requirement.
        unsafe {
            self.bytes
                .as_ptr()
                .add(o)
                .cast::<[u8; N]>()
                .read_unaligned()
        }
    }

    /// A little-endian `u32` at `offset`.
    #[inline(always)]
    pub fn u32(&self, offset: usize) -> u32 {
        u32::from_le_bytes(self.load(offset))
    }

    /// A little-endian `u64` at `offset`.
    #[inline(always)]
    pub fn u64(&self, offset: usize) -> u64 {
        u64::from_le_bytes(self.load(offset))
    }

    /// A little-endian `u128` at `offset`.
    #[inline(always)]
    pub fn u128(&self, offset: usize) -> u128 {
        u128::from_le_bytes(self.load(offset))
    }

    /// Four little-endian `f32`s at `offset`.
    #[inline(always)]
    pub fn f32x4(&self, offset: usize) -> glam::Vec4 {
        let b: [u8; 16] = self.load(offset);
        glam::Vec4::from_array(core::array::from_fn(|i| {
            f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
        }))
    }

    /// The `bits`-wide field (at most 32 bits) at absolute bit offset `bit`.
    #[inline(always)]
    pub fn bits(&self, bit: usize, bits: u32) -> u32 {
        debug_assert!(bits <= 32);
        ((self.u64(bit >> 3) >> (bit & 7)) & ((1u64 << bits) - 1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::quantize::bits::read_bits;

    #[test]
    fn reads_inside_the_body_are_the_plain_reads() {
        let bytes: Vec<u8> = (0..64u32).map(|i| (i * 37 + 11) as u8).collect();
        let b = Body::new(&bytes).unwrap();
        for o in 0..=48 {
            assert_eq!(b.u128(o).to_le_bytes(), bytes[o..o + 16]);
        }
        for o in 0..=56 {
            assert_eq!(b.u64(o).to_le_bytes(), bytes[o..o + 8]);
        }
        for o in 0..=48 {
            let v = b.f32x4(o).to_array();
            for i in 0..4 {
                assert_eq!(v[i].to_le_bytes(), bytes[o + 4 * i..o + 4 * i + 4]);
            }
        }
        for o in 0..=60 {
            assert_eq!(b.u32(o).to_le_bytes(), bytes[o..o + 4]);
        }
        for bit in 0..=(56 * 8) {
            for n in [0, 1, 5, 15, 24, 32] {
                assert_eq!(b.bits(bit, n), read_bits(&bytes, bit, n), "{bit} {n}");
            }
        }
    }

    #[test]
    fn reads_past_the_end_stay_inside() {
        let bytes: Vec<u8> = (0..20u8).collect();
        let b = Body::new(&bytes).unwrap();
        assert_eq!(b.u64(19).to_le_bytes(), bytes[12..20]);
        assert_eq!(b.u128(usize::MAX).to_le_bytes(), bytes[4..20]);
        assert_eq!(b.u32(usize::MAX / 2).to_le_bytes(), bytes[16..20]);
        assert_eq!(b.bits(usize::MAX, 32), (b.u64(12) >> 7) as u32);
        assert!(Body::new(&bytes[..15]).is_none());
        assert!(Body::new(&bytes[..16]).is_some());
    }
}
