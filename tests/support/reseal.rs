//! Re-sealing a forged blob's checksum, so that a mutated blob gets past the checksum and
//! reaches the structural checks: the tests that forge blobs and the fuzz harness
//! (`fuzz/harness.rs`) share this one forger.

use animcomp::format::checksum::blob_checksum;
use animcomp::format::HEADER_SIZE;

/// Writes the checksum of `blob` into its header (bytes 12..16), computed as the validator
/// computes it: over the blob's declared total size when that lies in the buffer, else over the
/// whole buffer. A buffer shorter than a header is left alone.
pub fn reseal(blob: &mut [u8]) {
    if blob.len() < HEADER_SIZE {
        return;
    }
    let total = u32::from_le_bytes([blob[8], blob[9], blob[10], blob[11]]) as usize;
    let end = if (16..=blob.len()).contains(&total) {
        total
    } else {
        blob.len()
    };
    let c = blob_checksum(&blob[..end]);
    blob[12..16].copy_from_slice(&c.to_le_bytes());
}
