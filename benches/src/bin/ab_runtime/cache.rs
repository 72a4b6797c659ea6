//! A cache of compressed blobs on disk, so a rerun does not compress again: one file per (exact
//! library file, exact clip content), under `target/ab-cache/`. Compression is deterministic, so
//! a cached blob is the blob the library would write; a rebuilt library has another hash and
//! compresses afresh.

use animcomp_bench::capi::{Blob, CClip, Fnv};
use std::path::{Path, PathBuf};

/// The cache folder of one library build.
pub struct BlobCache {
    dir: Option<PathBuf>,
}

impl BlobCache {
    /// The cache of the library file `lib` compressing with `vbr_layout` under `root` (`None`:
    /// no caching).
    pub fn new(root: Option<&Path>, lib: &Path, vbr_layout: u32) -> BlobCache {
        let dir = root.and_then(|r| {
            let bytes = std::fs::read(lib).ok()?;
            let mut h = Fnv::default();
            h.write(&bytes);
            if vbr_layout != 0 {
                h.write(&vbr_layout.to_le_bytes());
            }
            let d = r.join(format!("{:016x}", h.0));
            std::fs::create_dir_all(&d).ok()?;
            Some(d)
        });
        BlobCache { dir }
    }

    fn path(&self, clip: &CClip) -> Option<PathBuf> {
        Some(
            self.dir
                .as_ref()?
                .join(format!("{:016x}.blob", clip.fingerprint())),
        )
    }

    /// The cached blob of `clip`, if any.
    pub fn get(&self, clip: &CClip) -> Option<Blob> {
        let bytes = std::fs::read(self.path(clip)?).ok()?;
        Some(Blob::from_bytes(&bytes))
    }

    /// Stores `blob` as the blob of `clip` (best effort: a failed write only costs a recompression).
    pub fn put(&self, clip: &CClip, blob: &Blob) {
        if let Some(p) = self.path(clip) {
            let tmp = p.with_extension(format!("tmp{}", std::process::id()));
            if std::fs::write(&tmp, blob.as_bytes()).is_ok() {
                let _ = std::fs::rename(&tmp, &p);
            }
        }
    }
}
