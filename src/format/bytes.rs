//! Little-endian byte writing and bounds-checked reading for codec bodies.
//!
//! Every read returns [`Error::CorruptBlob`] instead of reading past the end, so a codec's
//! `validate` can parse a hostile body with plain `?`.

use crate::{Error, Result};

/// Appends little-endian values to a byte vector.
#[derive(Debug, Default, Clone)]
pub struct ByteWriter {
    /// The bytes written so far.
    pub bytes: Vec<u8>,
}

impl ByteWriter {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }
    /// Current length.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }
    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
    /// Appends a byte.
    pub fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }
    /// Appends a u16.
    pub fn u16(&mut self, v: u16) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends a u32.
    pub fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends an f32.
    pub fn f32(&mut self, v: f32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }
    /// Appends raw bytes.
    pub fn raw(&mut self, v: &[u8]) {
        self.bytes.extend_from_slice(v);
    }
    /// Pads with zeros to a multiple of `align`.
    pub fn align(&mut self, align: usize) {
        while !self.bytes.len().is_multiple_of(align) {
            self.bytes.push(0);
        }
    }
    /// Overwrites a u32 previously written at `offset` (for back-patched offsets).
    pub fn patch_u32(&mut self, offset: usize, v: u32) {
        self.bytes[offset..offset + 4].copy_from_slice(&v.to_le_bytes());
    }
}

/// Reads little-endian values from a slice, failing cleanly at the end.
#[derive(Debug, Clone, Copy)]
pub struct ByteReader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> ByteReader<'a> {
    /// A reader at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        ByteReader { data, pos: 0 }
    }
    /// A reader at `offset` in `data` (checked).
    pub fn at(data: &'a [u8], offset: usize) -> Result<Self> {
        if offset > data.len() {
            return Err(Error::CorruptBlob("offset past the end of the body"));
        }
        Ok(ByteReader { data, pos: offset })
    }
    /// Current position.
    pub fn pos(&self) -> usize {
        self.pos
    }
    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }
    /// Takes the next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        match end {
            Some(e) => {
                let s = &self.data[self.pos..e];
                self.pos = e;
                Ok(s)
            }
            None => Err(Error::CorruptBlob("read past the end of the body")),
        }
    }
    /// Reads a byte.
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    /// Reads a u16.
    pub fn u16(&mut self) -> Result<u16> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    /// Reads a u32.
    pub fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    /// Reads an f32.
    pub fn f32(&mut self) -> Result<f32> {
        let b = self.take(4)?;
        Ok(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    /// Reads an f32 that must be finite.
    pub fn finite_f32(&mut self) -> Result<f32> {
        let v = self.f32()?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(Error::CorruptBlob("non-finite value stored in blob"))
        }
    }
}

/// Unchecked-by-contract but still safe reads for hot paths on an already validated body: a
/// corrupt body can only panic (caught at the C boundary), never read out of bounds.
#[inline(always)]
pub fn read_u32(data: &[u8], offset: usize) -> u32 {
    u32::from_le_bytes(data[offset..offset + 4].try_into().unwrap())
}

/// See [`read_u32`].
#[inline(always)]
pub fn read_f32(data: &[u8], offset: usize) -> f32 {
    f32::from_bits(read_u32(data, offset))
}

/// See [`read_u32`].
#[inline(always)]
pub fn read_u16(data: &[u8], offset: usize) -> u16 {
    u16::from_le_bytes(data[offset..offset + 2].try_into().unwrap())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_then_read() {
        let mut w = ByteWriter::new();
        w.u8(7);
        w.u16(0x1234);
        w.u32(0xDEAD_BEEF);
        w.f32(1.5);
        w.align(16);
        assert_eq!(w.len(), 16);
        let mut r = ByteReader::new(&w.bytes);
        assert_eq!(r.u8().unwrap(), 7);
        assert_eq!(r.u16().unwrap(), 0x1234);
        assert_eq!(r.u32().unwrap(), 0xDEAD_BEEF);
        assert_eq!(r.f32().unwrap(), 1.5);
        assert_eq!(r.remaining(), 5);
        assert!(r.take(6).is_err());
        assert!(r.take(usize::MAX).is_err());
        assert!(ByteReader::at(&w.bytes, 17).is_err());
    }
}
