//! The playback pattern (issue 25): `N` instances, each with its own clip (instance `i` plays clip
//! `i mod clips`) and its own context created once, from a random start phase, all advanced by
//! 1/60 s per frame (wrapping) and sampled once per frame into their own pose buffers. Variants,
//! interleaved round by round: the baseline, the new build without a cache, and the new build
//! with a playback cache attached to every context (when it has one). A flush variant writes
//! 32 MB before every frame (untimed), as an engine whose other work evicts the caches.
//!
//! Also the random-access check of the cache: the warm pattern (random times on one clip) on a
//! context with a cache attached against one without, same build.

use crate::measure::Side;
use animcomp_bench::capi::{CClip, Library, Opaque, LOOPING_WRAP};
use animcomp_bench::timing::{interleave, median, random_times, warm_pass, CacheFlusher};
use animcomp_bench::timing::{FLUSH_BYTES, TIMES_SEED};
use serde::Serialize;
use std::cell::RefCell;
use std::time::Instant;

/// Frames per round of one variant.
pub const FRAMES: usize = 600;

/// One playback configuration's figures: ns per pose (the median frame's, median over rounds).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct PlaybackRow {
    /// Playing instances.
    pub instances: usize,
    /// Whether 32 MB were written before every frame.
    pub flush: bool,
    /// Baseline.
    pub base_ns: f64,
    /// New build, no cache.
    pub new_ns: f64,
    /// New build with a cache per context, when it has the cache.
    pub new_cached_ns: Option<f64>,
    /// Baseline with a cache per context, when both builds have the cache (an A/B of two
    /// cache versions).
    pub base_cached_ns: Option<f64>,
    /// The format version 4 prototype (`proto.rs`), no cache.
    pub proto_ns: Option<f64>,
    /// The prototype with its playback cache per instance.
    pub proto_cached_ns: Option<f64>,
}

/// The instances of one variant: contexts, caches (kept alive while attached), pose buffers and
/// start phases.
#[allow(clippy::vec_box)]
struct Instances<'a> {
    lib: &'a Library,
    ctxs: Vec<Box<Opaque<1024>>>,
    _caches: Vec<Vec<u128>>,
    poses: Vec<Vec<f32>>,
    joints: Vec<usize>,
    phase: Vec<f32>,
    frame: usize,
}

impl<'a> Instances<'a> {
    fn new(side: &Side<'a>, clips: &[CClip], n: usize, cached: bool) -> Result<Self, String> {
        let mut ctxs = Vec::with_capacity(n);
        let mut caches = Vec::new();
        let mut poses = Vec::with_capacity(n);
        let mut joints = Vec::with_capacity(n);
        let phases = random_times(1.0, n, TIMES_SEED ^ 0x9a7b);
        let mut phase = Vec::with_capacity(n);
        for (i, ph) in phases.iter().enumerate() {
            let c = i % clips.len();
            let mut ctx = Opaque::new();
            side.lib.init(&mut ctx, &side.blobs[c]).map_err(|e| e.0)?;
            if cached {
                if let Some(m) = side.lib.attach_cache(&mut ctx).map_err(|e| e.0)? {
                    caches.push(m);
                }
            }
            ctxs.push(ctx);
            poses.push(vec![0.0f32; clips[c].joints * 10]);
            joints.push(clips[c].joints);
            phase.push(ph * clips[c].duration());
        }
        Ok(Instances {
            lib: side.lib,
            ctxs,
            _caches: caches,
            poses,
            joints,
            phase,
            frame: 0,
        })
    }

    /// Plays `FRAMES` frames (continuing from the last round), returns ns per pose of the
    /// median frame (a frame the shared machine preempted drops out, as in `warm_pass`); the
    /// flush before each frame is not timed.
    fn round(&mut self, flusher: Option<&RefCell<CacheFlusher>>) -> f64 {
        let mut frames = Vec::with_capacity(FRAMES);
        for _ in 0..FRAMES {
            if let Some(f) = flusher {
                f.borrow_mut().flush();
            }
            let dt = self.frame as f32 / 60.0;
            self.frame += 1;
            let t0 = Instant::now();
            for i in 0..self.ctxs.len() {
                let t = self.phase[i] + dt;
                self.lib
                    .seek_looping(&mut self.ctxs[i], t, LOOPING_WRAP)
                    .unwrap();
                let j = self.joints[i];
                self.lib
                    .sample_pose(&self.ctxs[i], &mut self.poses[i][..j * 10])
                    .unwrap();
            }
            frames.push(t0.elapsed().as_nanos() as f64);
        }
        median(&mut frames) / self.ctxs.len() as f64
    }
}

/// Times the playback pattern with `n` instances, every variant interleaved over `rounds` rounds.
pub fn playback(
    base: &Side,
    new: &Side,
    clips: &[CClip],
    n: usize,
    flush: bool,
    rounds: usize,
    proto: &crate::proto::ProtoSide,
) -> Result<PlaybackRow, String> {
    let mut a = Instances::new(base, clips, n, false)?;
    let mut b = Instances::new(new, clips, n, false)?;
    let mut c = Instances::new(new, clips, n, true)?;
    let mut d = Instances::new(base, clips, n, true)?;
    let cached = new.lib.has_cache();
    let base_cached = cached && base.lib.has_cache();
    let flusher = flush.then(|| RefCell::new(CacheFlusher::new(FLUSH_BYTES)));
    let f = flusher.as_ref();
    let mut va = || a.round(f);
    let mut vb = || b.round(f);
    let mut vc = || c.round(f);
    let mut vd = || d.round(f);
    let phases = random_times(1.0, n, TIMES_SEED ^ 0x9a7b);
    let mut p = crate::proto::ProtoInstances::new(proto, clips, &phases, false);
    let mut pc = crate::proto::ProtoInstances::new(proto, clips, &phases, true);
    let has_proto = p.is_some();
    let mut vp = || p.as_mut().map_or(0.0, |p| p.round(FRAMES, f));
    let mut vpc = || pc.as_mut().map_or(0.0, |p| p.round(FRAMES, f));
    let mut vs: Vec<&mut dyn FnMut() -> f64> = vec![&mut va, &mut vb];
    if cached {
        vs.push(&mut vc);
    }
    if base_cached {
        vs.push(&mut vd);
    }
    if has_proto {
        vs.push(&mut vp);
        vs.push(&mut vpc);
    }
    let mut r = interleave(rounds, &mut vs);
    let mut m = r.iter_mut().map(|v| median(v));
    let (base_ns, new_ns) = (m.next().unwrap_or(0.0), m.next().unwrap_or(0.0));
    let new_cached_ns = if cached { m.next() } else { None };
    let base_cached_ns = if base_cached { m.next() } else { None };
    Ok(PlaybackRow {
        instances: n,
        flush,
        base_ns,
        new_ns,
        new_cached_ns,
        base_cached_ns,
        proto_ns: if has_proto { m.next() } else { None },
        proto_cached_ns: if has_proto { m.next() } else { None },
    })
}

/// Warm random access on clip `c` with the new build, without and with a cache attached (ns per
/// pose, median over rounds); `None` when the build has no cache.
pub fn random_with_cache(
    new: &Side,
    c: usize,
    joints: usize,
    times: &[f32],
    rounds: usize,
) -> Result<Option<(f64, f64)>, String> {
    if !new.lib.has_cache() {
        return Ok(None);
    }
    let lib = new.lib;
    let mut plain = Opaque::new();
    lib.init(&mut plain, &new.blobs[c]).map_err(|e| e.0)?;
    let mut cached = Opaque::new();
    lib.init(&mut cached, &new.blobs[c]).map_err(|e| e.0)?;
    let _mem = lib.attach_cache(&mut cached).map_err(|e| e.0)?;
    let mut out = vec![0.0f32; joints * 10];
    let out = RefCell::new(&mut out[..]);
    let ctxs = RefCell::new([plain, cached]);
    let pass = |k: usize| {
        let mut g = ctxs.borrow_mut();
        let ctx = &mut g[k];
        warm_pass(times, &mut |t| {
            lib.seek(ctx, t).unwrap();
            lib.sample_pose(ctx, &mut out.borrow_mut()).unwrap();
        })
    };
    let mut va = || pass(0);
    let mut vb = || pass(1);
    let mut r = interleave(rounds, &mut [&mut va, &mut vb]);
    Ok(Some((median(&mut r[0]), median(&mut r[1]))))
}
