//! A 16-byte-aligned owned byte buffer, for holding blobs in Rust code.

/// Owned bytes whose start is 16-byte aligned (blobs must be).
#[derive(Clone)]
pub struct AlignedBlob {
    storage: Vec<u128>,
    len: usize,
}

impl AlignedBlob {
    /// Copies `bytes` into aligned storage.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        let mut storage = vec![0u128; bytes.len().div_ceil(16)];
        // SAFETY: u128 storage is plain bytes; we write exactly `bytes.len()` bytes into it.
        let dst = unsafe {
            std::slice::from_raw_parts_mut(storage.as_mut_ptr() as *mut u8, storage.len() * 16)
        };
        dst[..bytes.len()].copy_from_slice(bytes);
        AlignedBlob {
            storage,
            len: bytes.len(),
        }
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: the storage holds at least `len` initialised bytes.
        unsafe { std::slice::from_raw_parts(self.storage.as_ptr() as *const u8, self.len) }
    }

    /// The bytes, mutably (for tests that corrupt blobs).
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, exclusive borrow.
        unsafe { std::slice::from_raw_parts_mut(self.storage.as_mut_ptr() as *mut u8, self.len) }
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl std::fmt::Debug for AlignedBlob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AlignedBlob({} bytes)", self.len)
    }
}
