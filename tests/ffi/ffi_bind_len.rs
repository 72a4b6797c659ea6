//! The bind pose has a length, always. `AnimcompDecompressOptions::bind_pose_len` is required
//! with a bind pose (0 gives `INVALID_ARGUMENT`) and checked against the blob's joint count
//! before a float is read: a short array gives `BUFFER_TOO_SMALL`, also when it ends at a guard
//! page (mmap + PROT_NONE), where reading one float too many would crash. An array of the exact
//! length is read up to its last float and no further.

use std::ffi::c_void;
use std::ptr::null;

use animcomp::clip::{generate_clip, GenerateOptions, RawClip};
use animcomp::ffi::*;
use animcomp::math::FLOATS_PER_JOINT;
use animcomp::offline::DefaultMode;
use animcomp::{compress, AlignedBlob, CodecChoice, CompressSettings, Status};

extern "C" {
    fn mmap(addr: *mut c_void, len: usize, prot: i32, flags: i32, fd: i32, off: i64)
        -> *mut c_void;
    fn mprotect(addr: *mut c_void, len: usize, prot: i32) -> i32;
    fn munmap(addr: *mut c_void, len: usize) -> i32;
}
const PROT_NONE: i32 = 0;
const PROT_READ: i32 = 1;
const PROT_WRITE: i32 = 2;
const MAP_PRIVATE: i32 = 2;
const MAP_ANONYMOUS: i32 = 0x20;
const PAGE: usize = 65_536; // a multiple of every page size Linux uses

/// `floats` copied so that their last byte is the last readable byte before a PROT_NONE page.
struct Guarded {
    base: *mut c_void,
    ptr: *const f32,
}

impl Guarded {
    fn new(floats: &[f32]) -> Guarded {
        let bytes = std::mem::size_of_val(floats);
        assert!(bytes <= PAGE);
        unsafe {
            let base = mmap(
                std::ptr::null_mut(),
                2 * PAGE,
                PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS,
                -1,
                0,
            );
            assert!(!base.is_null() && base as isize != -1, "mmap failed");
            assert_eq!(
                mprotect((base as *mut u8).add(PAGE).cast(), PAGE, PROT_NONE),
                0
            );
            let ptr = (base as *mut u8).add(PAGE - bytes) as *mut f32;
            std::ptr::copy_nonoverlapping(floats.as_ptr(), ptr, floats.len());
            Guarded { base, ptr }
        }
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        unsafe { munmap(self.base, 2 * PAGE) };
    }
}

fn bind_blob(joints: usize, codec: CodecChoice) -> (RawClip, AlignedBlob) {
    let clip = generate_clip(&GenerateOptions {
        joints,
        samples: 20,
        scale: true,
        ..Default::default()
    });
    let settings = CompressSettings {
        codec,
        default_mode: DefaultMode::BindPose,
        ..Default::default()
    };
    let blob = AlignedBlob::from_bytes(&compress(&clip, &settings).unwrap());
    (clip, blob)
}

fn bind_floats(clip: &RawClip) -> Vec<f32> {
    clip.bind_pose_floats().unwrap()
}

fn open(blob: &AlignedBlob, bind: *const f32, len: u64) -> Status {
    let mut o = AnimcompDecompressOptions {
        verify_checksum: 1,
        reserved0: 0,
        bind_pose: null(),
        bind_pose_len: 0,
        reserved: [0; 1],
    };
    unsafe { animcomp_decompress_options_default(&mut o) };
    assert_eq!(o.bind_pose_len, 0, "the default is 'no length'");
    o.bind_pose = bind;
    o.bind_pose_len = len;
    let b = blob.as_bytes();
    let mut h = AnimcompBlob {
        opaque: [0; ANIMCOMP_BLOB_WORDS],
    };
    let s1 = unsafe { animcomp_blob_open(&mut h, b.as_ptr().cast(), b.len(), &o) };
    let mut ctx = AnimcompDecompressor {
        opaque: [0; ANIMCOMP_DECOMPRESSOR_WORDS],
    };
    let s2 = unsafe { animcomp_decompressor_init(&mut ctx, b.as_ptr().cast(), b.len(), &o) };
    assert_eq!(s1, s2, "blob_open and decompressor_init agree");
    if s1 == Status::Ok {
        let mut pose = vec![0f32; 10 * 300];
        assert_eq!(
            unsafe { animcomp_sample_pose(&ctx, pose.as_mut_ptr(), pose.len(), 0) },
            Status::Ok
        );
    }
    s1
}

#[test]
fn short_bind_pose_with_a_length_is_refused_before_the_guard_page() {
    for codec in [CodecChoice::Fixed, CodecChoice::Vbr, CodecChoice::Keys] {
        // The attack: a blob of 200 joints, the caller's array holds 12 joints.
        let (clip, blob) = bind_blob(200, codec);
        let full = bind_floats(&clip);
        let short = Guarded::new(&full[..12 * FLOATS_PER_JOINT]);
        assert_eq!(
            open(&blob, short.ptr, 12 * FLOATS_PER_JOINT as u64),
            Status::BufferTooSmall,
            "{codec:?}"
        );
        // One float short.
        let almost = Guarded::new(&full[..full.len() - 1]);
        assert_eq!(
            open(&blob, almost.ptr, full.len() as u64 - 1),
            Status::BufferTooSmall
        );
        // The exact length, ending at the guard page: read to its last float, no further.
        let exact = Guarded::new(&full);
        assert_eq!(open(&blob, exact.ptr, full.len() as u64), Status::Ok);
        // Longer than needed is fine.
        assert_eq!(open(&blob, exact.ptr, 1 << 40), Status::Ok);
        // A bind pose without its length is refused, even of the right length.
        assert_eq!(open(&blob, exact.ptr, 0), Status::InvalidArgument);
        // A length without a pointer is a caller error.
        assert_eq!(open(&blob, null(), 10), Status::InvalidArgument);
        // No pointer at all: the blob needs a bind pose.
        assert_eq!(open(&blob, null(), 0), Status::BindPoseRequired);
    }
}

#[test]
fn bind_pose_length_is_ignored_for_blobs_without_bind_pose_defaults() {
    let clip = generate_clip(&GenerateOptions {
        joints: 50,
        samples: 10,
        ..Default::default()
    });
    let blob = AlignedBlob::from_bytes(&compress(&clip, &CompressSettings::default()).unwrap());
    // A one-joint array for a 50-joint blob that does not use it: never read.
    let one = Guarded::new(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
    assert_eq!(open(&blob, one.ptr, 10), Status::Ok);
    // Without its length it is refused all the same: a bind pose always has one.
    assert_eq!(open(&blob, one.ptr, 0), Status::InvalidArgument);
}
