//! One build of the animcomp C library loaded at run time (`dlopen`), called through its C ABI
//! only, so two builds (a baseline commit and the working tree) can be timed side by side in one
//! process. Both export the same names: each is opened `RTLD_NOW | RTLD_LOCAL` and its symbols
//! are looked up on its own handle (and checked to lie inside it).
//!
//! Caller-owned C structs whose size may differ between builds (`AnimcompDecompressor`,
//! `AnimcompBlob`) live in oversized, 64-byte aligned buffers; a canary in the upper part of each
//! buffer proves the library wrote no further.

use animcomp::RawClip;
use std::ffi::{c_char, c_void, CStr, CString};
use std::path::{Path, PathBuf};

/// `ANIMCOMP_CHANNEL_ROTATION`.
pub const CHANNEL_ROTATION: u32 = 1;
/// `ANIMCOMP_CHANNEL_ALL` (rotation, translation, scale).
pub const CHANNEL_ALL: u32 = 7;
const LOOPING_CLAMP: u32 = 0;
/// `ANIMCOMP_LOOPING_WRAP`.
pub const LOOPING_WRAP: u32 = 1;
const ROUNDING_NONE: u32 = 0;
const CANARY: u8 = 0xa5;

/// `AnimcompRawClip` (identical at 612727e and since).
#[repr(C)]
struct RawClipC {
    num_joints: u32,
    num_samples: u32,
    sample_rate: f32,
    layout: u32,
    parents: *const i32,
    precisions: *const f32,
    shell_distances: *const f32,
    bind_pose: *const f32,
    rotations: *const f32,
    translations: *const f32,
    scales: *const f32,
    rotation_stride: u32,
    translation_stride: u32,
    scale_stride: u32,
    reserved0: u32,
    reserved: [u64; 5],
}

type CompressFn =
    unsafe extern "C" fn(*const RawClipC, *const c_void, *mut c_void, usize, *mut usize) -> i32;
type InitFn = unsafe extern "C" fn(*mut c_void, *const c_void, usize, *const c_void) -> i32;
type SeekFn = unsafe extern "C" fn(*mut c_void, f32, u32, u32) -> i32;
type SamplePoseFn = unsafe extern "C" fn(*const c_void, *mut f32, usize, usize) -> i32;
type MessageFn = unsafe extern "C" fn(i32) -> *const c_char;
type VersionFn = unsafe extern "C" fn() -> u32;
type BindFn = unsafe extern "C" fn(*mut c_void, *const c_void) -> i32;
type SettingsDefaultFn = unsafe extern "C" fn(*mut animcomp::ffi::AnimcompCompressSettings) -> i32;
type CacheSizeFn = unsafe extern "C" fn(*const c_void, *mut usize) -> i32;
type AttachFn = unsafe extern "C" fn(*mut c_void, *mut c_void, usize) -> i32;
type SampleJointsFn = unsafe extern "C" fn(
    *const c_void,
    *const u32,
    *const u32,
    usize,
    u32,
    *mut f32,
    usize,
    usize,
) -> i32;

/// A loaded build of the library.
pub struct Library {
    handle: *mut c_void,
    /// The file it was loaded from.
    pub path: PathBuf,
    compress: CompressFn,
    init: InitFn,
    seek: SeekFn,
    sample_pose: SamplePoseFn,
    message: MessageFn,
    format_version: VersionFn,
    /// `animcomp_blob_open` (validate once), when this build has it.
    blob_open: Option<InitFn>,
    /// `animcomp_decompressor_bind` (O(1) bind to an opened blob), when this build has it.
    bind: Option<BindFn>,
    /// `animcomp_sample_joints` (joint subsets, channel masks), when this build has it.
    sample_joints: Option<SampleJointsFn>,
    /// `animcomp_decompressor_playback_cache_size` and `animcomp_decompressor_attach_cache`
    /// (issue 25's playback cache), when this build has them.
    cache: Option<(CacheSizeFn, AttachFn)>,
    /// `animcomp_compress_settings_default`, when this build has it.
    settings_default: Option<SettingsDefaultFn>,
    /// Non-zero: [`Library::compress`] passes the default settings with this `vbr_layout`
    /// (`ANIMCOMP_VBR_LAYOUT_GROUPED`: format version 4) instead of NULL settings.
    pub vbr_layout: u32,
}

// SAFETY: the library's functions are thread-safe (include/animcomp.h: compression is, and
// decompression contexts are used by one thread at a time here); the handle is only closed on drop.
unsafe impl Send for Library {}
unsafe impl Sync for Library {}

/// An error of a C call: the function, the status and the library's message for it.
#[derive(Debug)]
pub struct CallError(pub String);

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn dl_error() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated string valid until the next dl call.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        "unknown dlopen error".into()
    } else {
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

impl Library {
    /// Loads the library at `path` and resolves its symbols (the issue-10 ones are optional).
    pub fn open(path: &Path) -> Result<Library, CallError> {
        let c = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| CallError(format!("{}: path holds a NUL byte", path.display())))?;
        // SAFETY: loading a library runs its initialisers; animcomp's have no side effects.
        let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        if handle.is_null() {
            return Err(CallError(format!("{}: {}", path.display(), dl_error())));
        }
        let sym = |name: &str| -> Option<*mut c_void> {
            let n = CString::new(name).ok()?;
            // SAFETY: handle is a live dlopen handle, n a NUL-terminated name.
            let p = unsafe { libc::dlsym(handle, n.as_ptr()) };
            (!p.is_null() && lies_in(p, path)).then_some(p)
        };
        let need = |name: &str| {
            sym(name).ok_or_else(|| CallError(format!("{}: no symbol {name}", path.display())))
        };
        // SAFETY: each symbol is the C function of that name declared in include/animcomp.h,
        // whose signature the fn types above transcribe.
        unsafe {
            Ok(Library {
                handle,
                path: path.to_path_buf(),
                compress: std::mem::transmute::<*mut c_void, CompressFn>(need(
                    "animcomp_compress",
                )?),
                init: std::mem::transmute::<*mut c_void, InitFn>(need(
                    "animcomp_decompressor_init",
                )?),
                seek: std::mem::transmute::<*mut c_void, SeekFn>(need("animcomp_seek")?),
                sample_pose: std::mem::transmute::<*mut c_void, SamplePoseFn>(need(
                    "animcomp_sample_pose",
                )?),
                message: std::mem::transmute::<*mut c_void, MessageFn>(need(
                    "animcomp_status_message",
                )?),
                format_version: std::mem::transmute::<*mut c_void, VersionFn>(need(
                    "animcomp_blob_format_version",
                )?),
                blob_open: sym("animcomp_blob_open")
                    .map(|p| std::mem::transmute::<*mut c_void, InitFn>(p)),
                bind: sym("animcomp_decompressor_bind")
                    .map(|p| std::mem::transmute::<*mut c_void, BindFn>(p)),
                sample_joints: sym("animcomp_sample_joints")
                    .map(|p| std::mem::transmute::<*mut c_void, SampleJointsFn>(p)),
                cache: sym("animcomp_decompressor_playback_cache_size")
                    .zip(sym("animcomp_decompressor_attach_cache"))
                    .map(|(a, b)| {
                        (
                            std::mem::transmute::<*mut c_void, CacheSizeFn>(a),
                            std::mem::transmute::<*mut c_void, AttachFn>(b),
                        )
                    }),
                settings_default: sym("animcomp_compress_settings_default")
                    .map(|p| std::mem::transmute::<*mut c_void, SettingsDefaultFn>(p)),
                vbr_layout: 0,
            })
        }
    }

    /// The blob format version this build writes.
    pub fn format_version(&self) -> u32 {
        // SAFETY: no arguments.
        unsafe { (self.format_version)() }
    }

    /// Whether this build has the validate-once / bind API of issue 10.
    pub fn has_bind(&self) -> bool {
        self.blob_open.is_some() && self.bind.is_some()
    }

    /// Whether this build has the playback cache.
    pub fn has_cache(&self) -> bool {
        self.cache.is_some()
    }

    /// A playback cache for the initialised context `ctx` (16-byte aligned words), attached to
    /// it; `None` when the build has no cache.
    pub fn attach_cache(&self, ctx: &mut Opaque<1024>) -> Result<Option<Vec<u128>>, CallError> {
        let Some((size, attach)) = self.cache else {
            return Ok(None);
        };
        let mut n = 0usize;
        // SAFETY: ctx was initialised by this build; n is writable.
        self.check("animcomp_decompressor_playback_cache_size", unsafe {
            size(ctx.ptr(), &mut n)
        })?;
        let mut mem = vec![0u128; n.div_ceil(16).max(1)];
        // SAFETY: mem is 16-byte aligned with at least n bytes; the caller keeps it alive (and
        // unmoved: a Vec's heap buffer) while the context is used.
        self.check("animcomp_decompressor_attach_cache", unsafe {
            attach(ctx.ptr_mut(), mem.as_mut_ptr().cast(), mem.len() * 16)
        })?;
        Ok(Some(mem))
    }

    /// Seeks to `time` with looping `looping` (interpolate).
    #[inline]
    pub fn seek_looping(
        &self,
        ctx: &mut Opaque<1024>,
        time: f32,
        looping: u32,
    ) -> Result<(), CallError> {
        // SAFETY: ctx was initialised by this build.
        let s = unsafe { (self.seek)(ctx.ptr_mut(), time, looping, ROUNDING_NONE) };
        self.check("animcomp_seek", s)
    }

    /// Whether this build has `animcomp_sample_joints`.
    pub fn has_sample_joints(&self) -> bool {
        self.sample_joints.is_some()
    }

    fn check(&self, what: &str, status: i32) -> Result<(), CallError> {
        if status == 0 {
            return Ok(());
        }
        // SAFETY: the message function accepts any integer and returns a static string.
        let m = unsafe { CStr::from_ptr((self.message)(status)) };
        Err(CallError(format!(
            "{what}: status {status}: {}",
            m.to_string_lossy()
        )))
    }

    /// Compresses `clip` with this build's default settings (`settings = NULL`), or with them
    /// and [`Library::vbr_layout`] when that is not 0.
    pub fn compress(&self, clip: &CClip) -> Result<Blob, CallError> {
        let raw = clip.raw();
        let mut size = 0usize;
        let settings = match (self.vbr_layout, self.settings_default) {
            (0, _) => None,
            (layout, Some(f)) => {
                // SAFETY: zeroed is a valid value of the plain C struct, which `f` fills.
                let mut s: animcomp::ffi::AnimcompCompressSettings = unsafe { std::mem::zeroed() };
                self.check("animcomp_compress_settings_default", unsafe { f(&mut s) })?;
                s.vbr_layout = layout;
                Some(s)
            }
            (_, None) => {
                return Err(CallError(format!(
                    "{}: no animcomp_compress_settings_default for vbr_layout",
                    self.path.display()
                )))
            }
        };
        let sp = settings.as_ref().map_or(std::ptr::null(), |s| {
            (s as *const animcomp::ffi::AnimcompCompressSettings).cast()
        });
        // SAFETY: raw points into `clip`, alive for the call; NULL out queries the size.
        let s = unsafe { (self.compress)(&raw, sp, std::ptr::null_mut(), 0, &mut size) };
        if s != 4 {
            self.check("animcomp_compress (size query)", s)?;
        }
        let mut blob = Blob::zeroed(size);
        // SAFETY: blob.ptr_mut() is 16-byte aligned with `size` writable bytes.
        let s = unsafe { (self.compress)(&raw, sp, blob.ptr_mut(), size, &mut size) };
        self.check("animcomp_compress", s)?;
        blob.len = size;
        Ok(blob)
    }

    /// `animcomp_decompressor_init(ctx, blob, NULL options)`: validate and bind.
    pub fn init(&self, ctx: &mut Opaque<1024>, blob: &Blob) -> Result<(), CallError> {
        // SAFETY: ctx is a writable 64-byte aligned buffer larger than the struct; blob is
        // 16-byte aligned with len bytes and outlives the context's use in this process.
        let s = unsafe { (self.init)(ctx.ptr_mut(), blob.ptr(), blob.len, std::ptr::null()) };
        self.check("animcomp_decompressor_init", s)
    }

    /// `animcomp_blob_open(handle, blob, NULL options)`; panics when the build lacks it.
    pub fn blob_open(&self, handle: &mut Opaque<4096>, blob: &Blob) -> Result<(), CallError> {
        let f = self.blob_open.expect("animcomp_blob_open");
        // SAFETY: as in `init`.
        let s = unsafe { f(handle.ptr_mut(), blob.ptr(), blob.len, std::ptr::null()) };
        self.check("animcomp_blob_open", s)
    }

    /// `animcomp_decompressor_bind(ctx, handle)`; panics when the build lacks it.
    pub fn bind(&self, ctx: &mut Opaque<1024>, handle: &Opaque<4096>) -> Result<(), CallError> {
        let f = self.bind.expect("animcomp_decompressor_bind");
        // SAFETY: handle was filled by animcomp_blob_open of this build; ctx is writable.
        let s = unsafe { f(ctx.ptr_mut(), handle.ptr()) };
        self.check("animcomp_decompressor_bind", s)
    }

    /// Seeks to `time` (clamp, interpolate).
    #[inline]
    pub fn seek(&self, ctx: &mut Opaque<1024>, time: f32) -> Result<(), CallError> {
        // SAFETY: ctx was initialised by this build.
        let s = unsafe { (self.seek)(ctx.ptr_mut(), time, LOOPING_CLAMP, ROUNDING_NONE) };
        self.check("animcomp_seek", s)
    }

    /// Samples the whole pose, 10 floats per joint, packed.
    #[inline]
    pub fn sample_pose(&self, ctx: &Opaque<1024>, out: &mut [f32]) -> Result<(), CallError> {
        // SAFETY: out is writable for out.len() floats; the library checks the length.
        let s = unsafe { (self.sample_pose)(ctx.ptr(), out.as_mut_ptr(), out.len(), 10) };
        self.check("animcomp_sample_pose", s)
    }

    /// `animcomp_sample_joints(ctx, joints, slots, channels, out, stride 10)`; panics when the
    /// build lacks it.
    #[inline]
    pub fn sample_joints(
        &self,
        ctx: &Opaque<1024>,
        joints: &[u32],
        slots: Option<&[u32]>,
        channels: u32,
        out: &mut [f32],
    ) -> Result<(), CallError> {
        let f = self.sample_joints.expect("animcomp_sample_joints");
        let slots = slots.map_or(std::ptr::null(), |s| s.as_ptr());
        // SAFETY: joints (and slots, same length) readable; out writable for out.len() floats.
        let s = unsafe {
            f(
                ctx.ptr(),
                joints.as_ptr(),
                slots,
                joints.len(),
                channels,
                out.as_mut_ptr(),
                out.len(),
                10,
            )
        };
        self.check("animcomp_sample_joints", s)
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        // SAFETY: the handle came from dlopen; nothing of the library is used after this.
        unsafe { libc::dlclose(self.handle) };
    }
}

/// Whether the code address `p` lies in the file `path` (not in another build of the same name).
fn lies_in(p: *mut c_void, path: &Path) -> bool {
    // SAFETY: dladdr only reads the loader's tables and fills `info`.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    if unsafe { libc::dladdr(p, &mut info) } == 0 || info.dli_fname.is_null() {
        return false;
    }
    let f = unsafe { CStr::from_ptr(info.dli_fname) }
        .to_string_lossy()
        .into_owned();
    match (std::fs::canonicalize(&f), std::fs::canonicalize(path)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// A 64-byte aligned, zeroed buffer of `N` bytes standing for a caller-owned C struct whose size
/// this program does not know; its upper half is a canary the library must not touch.
#[repr(C, align(64))]
pub struct Opaque<const N: usize>([u8; N]);

impl<const N: usize> Opaque<N> {
    /// A zeroed buffer with its canary set, on the heap.
    pub fn new() -> Box<Self> {
        let mut b = Box::new(Opaque([0u8; N]));
        b.0[N / 2..].fill(CANARY);
        b
    }

    fn ptr(&self) -> *const c_void {
        self.0.as_ptr().cast()
    }

    fn ptr_mut(&mut self) -> *mut c_void {
        self.0.as_mut_ptr().cast()
    }

    /// Panics when the library wrote into the canary half (the C struct `what` is larger than
    /// assumed). Called after set-up, not in timed loops.
    pub fn check_canary(&self, what: &str) {
        assert!(
            self.0[N / 2..].iter().all(|&b| b == CANARY),
            "the library wrote more than {} bytes into an {what}: enlarge Opaque",
            N / 2
        );
    }
}

/// A blob in a 16-byte aligned buffer.
pub struct Blob {
    words: Vec<u128>,
    /// Size in bytes.
    pub len: usize,
}

impl Blob {
    /// A 16-byte aligned copy of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Blob {
        let mut b = Blob::zeroed(bytes.len());
        b.as_bytes_mut().copy_from_slice(bytes);
        b
    }

    /// The blob's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        // SAFETY: words holds at least len bytes, all initialised.
        unsafe { std::slice::from_raw_parts(self.ptr().cast(), self.len) }
    }

    fn as_bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in as_bytes, uniquely borrowed.
        unsafe { std::slice::from_raw_parts_mut(self.ptr_mut().cast(), self.len) }
    }

    fn zeroed(len: usize) -> Blob {
        Blob {
            words: vec![0; len.div_ceil(16).max(1)],
            len,
        }
    }

    fn ptr(&self) -> *const c_void {
        self.words.as_ptr().cast()
    }

    fn ptr_mut(&mut self) -> *mut c_void {
        self.words.as_mut_ptr().cast()
    }
}

/// A clip as the C ABI takes it: interleaved sample-major transforms and parent indices.
pub struct CClip {
    /// Name (for tables).
    pub name: String,
    /// Joints.
    pub joints: usize,
    /// Samples.
    pub samples: usize,
    /// Samples per second.
    pub rate: f32,
    parents: Vec<i32>,
    /// `samples x joints x 10` floats: `qx qy qz qw tx ty tz sx sy sz`.
    xf: Vec<f32>,
}

impl CClip {
    /// Transcribes an imported clip (precision and shell distance: the C defaults, 0.01 and 3).
    pub fn from_clip(clip: &RawClip) -> CClip {
        let nj = clip.num_joints();
        let n = clip.num_samples;
        let mut xf = Vec::with_capacity(n * nj * 10);
        for i in 0..n {
            for t in &clip.tracks {
                let x = t.get(i);
                xf.extend_from_slice(&x.rotation.to_array());
                xf.extend_from_slice(&x.translation.to_array());
                xf.extend_from_slice(&x.scale.to_array());
            }
        }
        CClip {
            name: clip.name.clone(),
            joints: nj,
            samples: n,
            rate: clip.sample_rate,
            parents: clip
                .skeleton
                .joints
                .iter()
                .map(|j| j.parent.map_or(-1, |p| p as i32))
                .collect(),
            xf,
        }
    }

    /// A hash of everything `animcomp_compress` reads from this clip (FNV-1a over the counts,
    /// rate, parents and every float's bits), to recognise a clip already compressed.
    pub fn fingerprint(&self) -> u64 {
        let mut h = Fnv::default();
        h.write(&(self.joints as u64).to_le_bytes());
        h.write(&(self.samples as u64).to_le_bytes());
        h.write(&self.rate.to_bits().to_le_bytes());
        for p in &self.parents {
            h.write(&p.to_le_bytes());
        }
        for x in &self.xf {
            h.write(&x.to_bits().to_le_bytes());
        }
        h.0
    }

    /// Playable duration in seconds (clamped playback).
    pub fn duration(&self) -> f32 {
        self.samples.saturating_sub(1) as f32 / self.rate
    }

    fn raw(&self) -> RawClipC {
        RawClipC {
            num_joints: self.joints as u32,
            num_samples: self.samples as u32,
            sample_rate: self.rate,
            layout: 0,
            parents: self.parents.as_ptr(),
            precisions: std::ptr::null(),
            shell_distances: std::ptr::null(),
            bind_pose: std::ptr::null(),
            rotations: self.xf.as_ptr(),
            // SAFETY (of the offsets): xf holds at least one 10-float transform.
            translations: self.xf[4..].as_ptr(),
            scales: self.xf[7..].as_ptr(),
            rotation_stride: 10,
            translation_stride: 10,
            scale_stride: 10,
            reserved0: 0,
            reserved: [0; 5],
        }
    }
}

/// FNV-1a, 64 bits.
pub struct Fnv(pub u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    /// Adds `bytes`.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}
