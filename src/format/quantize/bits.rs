//! Bit packing: an LSB-first bit writer and a bounds-safe bit reader.
//!
//! Values of up to 32 bits are appended least-significant bit first into a little-endian byte
//! stream. The reader reads a 64-bit window, so the writer pads the stream with 8 zero bytes at
//! [`BitWriter::finish`]; a reader on a validated stream never needs a bounds branch per value.

/// Appends bit fields to a byte vector.
#[derive(Debug, Default, Clone)]
pub struct BitWriter {
    bytes: Vec<u8>,
    acc: u64,
    nbits: u32,
}

impl BitWriter {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends the low `bits` bits of `value` (`bits` <= 32).
    #[inline]
    pub fn write(&mut self, value: u32, bits: u32) {
        debug_assert!(bits <= 32);
        if bits == 0 {
            return;
        }
        let v = (value as u64) & ((1u64 << bits) - 1);
        self.acc |= v << self.nbits;
        self.nbits += bits;
        while self.nbits >= 8 {
            self.bytes.push(self.acc as u8);
            self.acc >>= 8;
            self.nbits -= 8;
        }
    }

    /// Bits written so far.
    pub fn bit_len(&self) -> usize {
        self.bytes.len() * 8 + self.nbits as usize
    }

    /// Pads to a whole byte with zero bits.
    pub fn align_to_byte(&mut self) {
        if self.nbits > 0 {
            self.bytes.push(self.acc as u8);
            self.acc = 0;
            self.nbits = 0;
        }
    }

    /// Flushes, appends 8 zero bytes of read-ahead padding, and returns the bytes.
    pub fn finish(mut self) -> Vec<u8> {
        self.align_to_byte();
        self.bytes.extend_from_slice(&[0u8; 8]);
        self.bytes
    }

    /// Flushes to a whole byte and returns the bytes without read-ahead padding.
    pub fn finish_unpadded(mut self) -> Vec<u8> {
        self.align_to_byte();
        self.bytes
    }
}

/// The `N` bytes of `data` at `offset`, zero past its end (never an out-of-bounds read): the
/// windows the bit readers take, which may reach past the last field.
#[inline(always)]
pub fn window<const N: usize>(data: &[u8], offset: usize) -> [u8; N] {
    match data.get(offset..offset + N) {
        Some(w) => w.try_into().unwrap(),
        None => {
            let mut w = [0u8; N];
            if offset < data.len() {
                let tail = &data[offset..];
                w[..tail.len()].copy_from_slice(tail);
            }
            w
        }
    }
}

/// Reads a `bits`-wide field at absolute bit offset `bit` of `data`.
///
/// Safe on any input: reads past the end yield zero bits instead of out-of-bounds access.
/// On a validated stream with 8 bytes of padding, the fast path always applies.
#[inline(always)]
pub fn read_bits(data: &[u8], bit: usize, bits: u32) -> u32 {
    debug_assert!(bits <= 32);
    let window = u64::from_le_bytes(window::<8>(data, bit >> 3));
    ((window >> (bit & 7)) & ((1u64 << bits) - 1)) as u32
}

/// Largest value of an unsigned `bits`-wide field.
#[inline(always)]
pub fn max_value(bits: u32) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}

/// Quantises `v` in [0, 1] to an unsigned `bits`-wide integer (round to nearest).
#[inline]
pub fn pack_unorm(v: f32, bits: u32) -> u32 {
    let m = max_value(bits) as f32;
    (v.clamp(0.0, 1.0) * m + 0.5).floor().min(m) as u32
}

/// Inverse of [`pack_unorm`].
#[inline(always)]
pub fn unpack_unorm(q: u32, bits: u32) -> f32 {
    q as f32 / max_value(bits) as f32
}

/// Quantises `v` in [-1, 1] to an unsigned `bits`-wide integer.
#[inline]
pub fn pack_snorm(v: f32, bits: u32) -> u32 {
    pack_unorm(v * 0.5 + 0.5, bits)
}

/// Inverse of [`pack_snorm`].
#[inline(always)]
pub fn unpack_snorm(q: u32, bits: u32) -> f32 {
    unpack_unorm(q, bits) * 2.0 - 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_mixed_widths() {
        let fields: Vec<(u32, u32)> = (0..500u32)
            .map(|i| (i.wrapping_mul(2_654_435_761), (i % 32) + 1))
            .collect();
        let mut w = BitWriter::new();
        for &(v, b) in &fields {
            w.write(v, b);
        }
        let total = w.bit_len();
        let bytes = w.finish();
        let mut bit = 0;
        for &(v, b) in &fields {
            assert_eq!(read_bits(&bytes, bit, b), v & max_value(b));
            bit += b as usize;
        }
        assert_eq!(bit, total);
    }

    #[test]
    fn reads_past_end_are_zero_not_oob() {
        let bytes = [0xFFu8; 3];
        assert_eq!(read_bits(&bytes, 20, 8), 0x0F);
        assert_eq!(read_bits(&bytes, 1000, 32), 0);
    }

    #[test]
    fn unorm_error_is_half_a_step() {
        for bits in [3u32, 8, 11, 16] {
            let step = 1.0 / max_value(bits) as f32;
            for i in 0..=1000 {
                let v = i as f32 / 1000.0;
                let r = unpack_unorm(pack_unorm(v, bits), bits);
                assert!((r - v).abs() <= step * 0.5 + 1e-6, "bits {bits} v {v}");
            }
        }
    }
}
