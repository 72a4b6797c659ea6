//! The playback cache on every blob that validates (`docs/robustness.md`, "Fuzzing"), a part of
//! `harness.rs` (pulled in there as `mod cache`), so every fuzz target and replay test that runs
//! `decode_blob` or `check_rule` runs it too.
//!
//! For a blob that validates, with its decompressor `d`:
//! - **playback**: a script of seeks (forward at 60 fps with wrapping, every sample, backward,
//!   then steps drawn from the input: a frame forward or back, two frames, a jump anywhere, into
//!   the wrap span, one, two and three samples on, the same time again, every rounding policy)
//!   is sampled with and without one cache; the poses must be bit for bit the same and finite,
//!   and the cached pose at a wide stride must leave the padding alone;
//! - **another blob, same cache**: a copy of the blob at another address shares the cache with
//!   the first decompressor, alternately (the cache names its body and must refill itself);
//! - **scribbles**: random bytes over the filled cache, over its header words only (values at
//!   and around every count and `u32::MAX`) or over everything; sampling through it must return
//!   `Ok` and never read outside the blob or the cache (the cache is an allocation of exactly its
//!   size, so the fuzzers' AddressSanitizer sees a read past it); a cache whose tag is scribbled
//!   over, or zeroed as `animcomp_decompressor_attach_cache` does, gives the plain poses again;
//! - **the C ABI**: `animcomp_decompressor_init`, `animcomp_decompressor_attach_cache` (with a
//!   misaligned and a too-small cache refused) and `animcomp_sample_pose` give the plain poses,
//!   with every status checked (the C boundary turns a panic into `INTERNAL`, which fails here).

use super::{finiteness_checked, LOOPINGS, ROUNDINGS, SENTINEL, WIDE_STRIDE};
use animcomp::decompress::{DecompressOptions, Decompressor, Looping, Rounding};
use animcomp::ffi::{
    animcomp_decompress_options_default, animcomp_decompressor_attach_cache,
    animcomp_decompressor_init, animcomp_decompressor_playback_cache_size, animcomp_sample_pose,
    animcomp_seek, AnimcompDecompressOptions, AnimcompDecompressor, ANIMCOMP_DECOMPRESSOR_WORDS,
};
use animcomp::format::Header;
use animcomp::math::FLOATS_PER_JOINT;
use animcomp::{AlignedBlob, Status};

/// Header bytes of a filled cache that name what it was filled for: the tag and the identity
/// words (`src/runtime/vbr/cache.rs`: words 0..9).
const IDENTITY_BYTES: usize = 36;
/// Header words past the identity that index into the cache (segment, slots, last keys, record
/// bounds, loads, rotation slots): words 9..=20 of the 32 header words.
const HEAD_WORDS: std::ops::RangeInclusive<usize> = 9..=20;

/// Caller-owned cache memory: 16-byte aligned, exactly its size rounded up to 16 bytes, in an
/// allocation of its own.
pub struct CacheMem(Vec<u128>);

impl CacheMem {
    /// Memory for `bytes` bytes (contents zero).
    pub fn new(bytes: usize) -> CacheMem {
        CacheMem(vec![0u128; bytes.div_ceil(16)])
    }

    /// The memory as bytes.
    pub fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: the words of the vector viewed as bytes (u8 has no alignment or validity rule).
        unsafe {
            std::slice::from_raw_parts_mut(self.0.as_mut_ptr().cast::<u8>(), self.0.len() * 16)
        }
    }
}

/// xorshift64: the harness's randomness, seeded from the input.
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value).
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15 | 1)
    }
    /// The next 64 bits.
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// A float in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// One step of a playback script.
#[derive(Debug, Clone, Copy)]
enum Step {
    Seek(f32, Looping, Rounding),
    Sample(u32),
}

/// Where `step` leaves `d` (false when the seek is refused: a non-finite time).
fn go(d: &mut Decompressor, step: Step) -> bool {
    match step {
        Step::Seek(t, l, r) => d.seek(t, l, r).is_ok(),
        Step::Sample(i) => {
            d.seek_sample(i);
            true
        }
    }
}

/// The playback script for a blob of header `h`: the fixed part, then 64 steps from `rng`.
fn script(h: &Header, duration: f32, rng: &mut Rng) -> Vec<Step> {
    let start = if duration.is_finite() {
        duration / 3.0
    } else {
        0.0
    };
    let (clamp, wrap, none) = (Looping::Clamp, Looping::Wrap, Rounding::None);
    let mut s: Vec<Step> = (0..48)
        .map(|k| Step::Seek(start + k as f32 / 60.0, wrap, none))
        .collect();
    s.extend((0..h.num_samples.min(64)).map(Step::Sample));
    s.extend((0..24).map(|k| Step::Seek(start - k as f32 / 60.0, clamp, none)));
    let period = 1.0 / h.sample_rate;
    let mut t = start;
    for _ in 0..64 {
        let looping = LOOPINGS[rng.below(2) as usize];
        let rounding = if rng.below(4) == 0 {
            ROUNDINGS[rng.below(4) as usize]
        } else {
            none
        };
        match rng.below(10) {
            0 | 1 => t += 1.0 / 60.0,
            2 => t += 1.0 / 30.0,
            3 => t -= 1.0 / 60.0,
            4 => t = rng.unit() * duration,
            5 => t = duration - period * rng.unit() * 1.5,
            6 => {
                s.push(Step::Sample(rng.below(h.num_samples as u64 + 1) as u32));
                continue;
            }
            7 => {}
            _ => t += period * (1 + rng.below(3)) as f32,
        }
        s.push(Step::Seek(t, looping, rounding));
    }
    s
}

fn bits_equal(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Samples the current key of `d` without and with `cache` and checks that the two poses are
/// bit for bit the same (and finite, where the codec's finiteness is checked); with `wide`, the
/// cached pose is also written at a wide stride, which must leave the padding alone. Returns the
/// plain pose.
pub fn compare(d: &Decompressor, h: &Header, cache: &mut CacheMem, wide: bool) -> Vec<f32> {
    let nj = d.num_joints();
    let (mut plain, mut cached) = (vec![SENTINEL; nj * 10], vec![SENTINEL; nj * 10]);
    d.sample_pose(&mut plain, FLOATS_PER_JOINT)
        .expect("sample_pose");
    d.sample_pose_cached(cache.bytes(), &mut cached, FLOATS_PER_JOINT)
        .expect("sample_pose_cached with a big enough, aligned cache");
    assert!(
        bits_equal(&plain, &cached),
        "a pose through the playback cache differs at {:?} ({:?} codec):\n plain {plain:?}\n cached {cached:?}",
        d.key(),
        h.codec
    );
    if finiteness_checked(h.codec) {
        assert!(
            cached.iter().all(|x| x.is_finite()),
            "a non-finite pose through the playback cache at {:?}",
            d.key()
        );
    }
    if wide && nj > 0 {
        let mut w = vec![SENTINEL; (nj - 1) * WIDE_STRIDE + FLOATS_PER_JOINT];
        d.sample_pose_cached(cache.bytes(), &mut w, WIDE_STRIDE)
            .expect("sample_pose_cached at a wide stride");
        for j in 0..nj {
            let o = j * WIDE_STRIDE;
            assert!(
                bits_equal(&w[o..o + 10], &plain[j * 10..j * 10 + 10]),
                "joint {j} through the cache at stride {WIDE_STRIDE} differs at {:?}",
                d.key()
            );
            if j + 1 < nj {
                assert!(
                    w[o + 10..o + WIDE_STRIDE]
                        .iter()
                        .all(|x| x.to_bits() == SENTINEL.to_bits()),
                    "the cache wrote the stride padding of joint {j}"
                );
            }
        }
    }
    plain
}

/// Writes garbage into a filled cache, one of four ways picked by `rng`. Returns whether the tag
/// survives (the garbage may then be used; otherwise the cache must be refilled).
fn scribble(mem: &mut CacheMem, rng: &mut Rng, h: &Header) -> bool {
    let bytes = mem.bytes();
    let n = bytes.len();
    if n <= IDENTITY_BYTES {
        // No cache (a codec without one, or no joints): nothing to scribble on.
        return false;
    }
    match rng.below(5) {
        0 => {
            // Everything but the tag and identity.
            for b in bytes.iter_mut().skip(IDENTITY_BYTES) {
                *b = rng.next() as u8;
            }
            true
        }
        1 => {
            // Header words that index into the cache: counts, their neighbours, u32::MAX.
            let units = (n / 16) as u32;
            for w in HEAD_WORDS {
                if 4 * w + 4 > n || rng.below(3) == 0 {
                    continue;
                }
                let v = match rng.below(10) {
                    0 => 0,
                    1 => 1,
                    2 => 2,
                    3 => u32::MAX,
                    4 => u32::MAX - 1,
                    5 => units,
                    6 => units + 1,
                    7 => h.num_joints,
                    8 => h.num_samples,
                    _ => rng.next() as u32,
                };
                bytes[4 * w..4 * w + 4].copy_from_slice(&v.to_le_bytes());
            }
            true
        }
        2 => {
            // A sparse sprinkle of random words past the identity.
            for w in bytes[IDENTITY_BYTES.next_multiple_of(4)..].chunks_exact_mut(4) {
                if rng.below(8) == 0 {
                    w.copy_from_slice(&(rng.next() as u32).to_le_bytes());
                }
            }
            true
        }
        3 => {
            // Everything: the tag is gone (a random tag matches with odds 2^-32, then the
            // identity would have to match as well).
            for b in bytes.iter_mut() {
                *b = rng.next() as u8;
            }
            bytes[..4] == *b"ACPC"
        }
        _ => {
            // What attaching does: the first 16 bytes zeroed, the rest left as it was.
            let k = n.min(16);
            bytes[..k].fill(0);
            false
        }
    }
}

/// The playback cache on a validated blob: see the module docs. `bytes` is the blob `d` was made
/// from with `opts`; `seed` drives the script and the scribbles; `on_pose` sees every cached
/// pose that was checked against the plain one (stride 10). Returns how many poses were compared
/// through a cache of more than 0 bytes (0 for a codec without a cache).
pub fn check_playback_cache(
    d: &Decompressor,
    h: &Header,
    bytes: &[u8],
    opts: &DecompressOptions,
    seed: u64,
    on_pose: &mut dyn FnMut(&[f32]),
) -> usize {
    let need = d.playback_cache_size();
    let nj = d.num_joints();
    let mut rng = Rng::new(seed ^ (h.checksum as u64) << 32 ^ h.num_samples as u64);
    let duration = animcomp::decompress::clip_duration(h) as f32;
    let mut d = *d;
    let mut mem = CacheMem::new(need);
    // Bad cache arguments are errors, never a write.
    let mut pose = vec![0f32; nj * 10];
    if need > 0 {
        let mut small = CacheMem::new(need - 1);
        let short = &mut small.bytes()[..need - 1];
        assert_eq!(
            d.sample_pose_cached(short, &mut pose, 10).err(),
            Some(animcomp::Error::BufferTooSmall { required: need })
        );
        let mut big = CacheMem::new(need + 16);
        assert_eq!(
            d.sample_pose_cached(&mut big.bytes()[1..need + 1], &mut pose, 10)
                .err(),
            Some(animcomp::Error::Misaligned)
        );
    }
    // Playback.
    let steps = script(h, duration, &mut rng);
    let mut compared = 0;
    for (i, &step) in steps.iter().enumerate() {
        if go(&mut d, step) {
            let p = compare(&d, h, &mut mem, i % 5 == 0);
            on_pose(&p);
            compared += 1;
        }
    }
    // A copy of the blob at another address, sharing the cache with `d`, alternately.
    let copy = AlignedBlob::from_bytes(bytes);
    let mut e = Decompressor::new(copy.as_bytes(), opts).expect("a copy of a validated blob");
    assert_eq!(e.playback_cache_size(), need);
    let mut t = rng.unit() * duration;
    for k in 0..12 {
        let x = if k % 3 == 0 { &mut e } else { &mut d };
        if x.seek(t, Looping::Wrap, Rounding::None).is_ok() {
            compare(x, h, &mut mem, false);
        }
        t += 1.0 / 60.0;
    }
    // Scribbles.
    for _ in 0..8 {
        let mut t = rng.unit() * duration;
        let mut frame = |d: &mut Decompressor, mem: &mut CacheMem, t: f32, exact: bool| {
            if d.seek(t, Looping::Wrap, Rounding::None).is_err() {
                return;
            }
            if exact {
                compare(d, h, mem, false);
            } else {
                pose.fill(SENTINEL);
                d.sample_pose_cached(mem.bytes(), &mut pose, FLOATS_PER_JOINT)
                    .expect("sampling through a scribbled cache returns Ok");
            }
        };
        // Fill it by playing, scribble, play on (the garbage is used unless the tag is gone).
        for _ in 0..3 {
            frame(&mut d, &mut mem, t, true);
            t += 1.0 / 60.0;
        }
        let tag_kept = scribble(&mut mem, &mut rng, h);
        for k in 0..6 {
            frame(&mut d, &mut mem, t, !tag_kept);
            t += match k {
                2 => 0.0,
                4 => 0.25 * duration,
                _ => 1.0 / 60.0,
            };
        }
        // Whatever it held, a cache zeroed as attaching does gives the plain poses again.
        let k = mem.bytes().len().min(16);
        mem.bytes()[..k].fill(0);
        frame(&mut d, &mut mem, t, true);
        frame(&mut d, &mut mem, t + 1.0 / 60.0, true);
    }
    check_c_abi(&d, h, bytes, opts, duration);
    if need > 0 {
        compared
    } else {
        0
    }
}

/// The cache through the C ABI: see the module docs.
fn check_c_abi(
    d: &Decompressor,
    h: &Header,
    bytes: &[u8],
    opts: &DecompressOptions,
    duration: f32,
) {
    let nj = d.num_joints();
    let mut o = AnimcompDecompressOptions {
        verify_checksum: 0,
        reserved0: 0,
        bind_pose: std::ptr::null(),
        bind_pose_len: 0,
        reserved: [0; 1],
    };
    // SAFETY: a valid pointer to options.
    unsafe { animcomp_decompress_options_default(&mut o) };
    o.verify_checksum = opts.verify_checksum as u32;
    if let Some(b) = opts.bind_pose {
        o.bind_pose = b.as_ptr();
        o.bind_pose_len = b.len() as u64;
    }
    let mut ctx = AnimcompDecompressor {
        opaque: [0; ANIMCOMP_DECOMPRESSOR_WORDS],
    };
    // SAFETY: the blob, the options and the bind pose outlive the context (dropped at the end).
    let st =
        unsafe { animcomp_decompressor_init(&mut ctx, bytes.as_ptr().cast(), bytes.len(), &o) };
    if st != Status::Ok {
        // A bind pose shorter than the blob's joints (the harness sizes it from the header,
        // capped at MAX_JOINTS) is the only refusal of a blob that validated.
        assert_eq!(st, Status::BufferTooSmall, "init of a validated blob");
        return;
    }
    let mut need = usize::MAX;
    // SAFETY: an initialised context and a valid out pointer.
    let st = unsafe { animcomp_decompressor_playback_cache_size(&ctx, &mut need) };
    assert_eq!(st, Status::Ok);
    assert_eq!(
        need,
        d.playback_cache_size(),
        "the C and Rust cache sizes differ"
    );
    let mut mem = CacheMem::new(need + 16);
    let base = mem.bytes().as_mut_ptr();
    if need > 0 {
        // SAFETY: pointers into `mem`; a refused attach keeps nothing.
        unsafe {
            assert_eq!(
                animcomp_decompressor_attach_cache(&mut ctx, base.add(1).cast(), need),
                Status::Misaligned
            );
            assert_eq!(
                animcomp_decompressor_attach_cache(&mut ctx, base.cast(), need - 1),
                Status::BufferTooSmall
            );
        }
    }
    // Scribble the memory first: attaching must make it safe to use whatever it holds.
    for (i, b) in mem.bytes().iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(37) ^ 0x5A;
    }
    // SAFETY: `mem` holds need + 16 bytes, 16-byte aligned, and outlives the context's use.
    let st = unsafe { animcomp_decompressor_attach_cache(&mut ctx, base.cast(), need) };
    assert_eq!(st, Status::Ok);
    let mut plain = *d;
    let (mut a, mut b) = (vec![0f32; nj * 10], vec![0f32; nj * 10]);
    for k in 0..20 {
        let t = duration * 0.6 + k as f32 / 60.0 - if k == 12 { 0.3 * duration } else { 0.0 };
        let (looping, l) = if k % 2 == 0 {
            (Looping::Wrap, 1)
        } else {
            (Looping::Clamp, 0)
        };
        // SAFETY: an initialised context.
        let st = unsafe { animcomp_seek(&mut ctx, t, l, 0) };
        let ok = plain.seek(t, looping, Rounding::None).is_ok();
        assert_eq!(st == Status::Ok, ok, "seek({t}) through the C ABI: {st:?}");
        if !ok {
            continue;
        }
        plain.sample_pose(&mut a, 10).expect("sample_pose");
        // SAFETY: `b` holds nj x 10 floats; the cache is attached and alive.
        let st = unsafe { animcomp_sample_pose(&ctx, b.as_mut_ptr(), b.len(), 10) };
        assert_eq!(st, Status::Ok, "animcomp_sample_pose with a cache");
        assert!(
            bits_equal(&a, &b),
            "a pose through the C ABI's cache differs at t = {t} ({:?} codec)",
            h.codec
        );
    }
    // Detach before `mem` goes.
    // SAFETY: NULL detaches.
    let st = unsafe { animcomp_decompressor_attach_cache(&mut ctx, std::ptr::null_mut(), 0) };
    assert_eq!(st, Status::Ok);
}
