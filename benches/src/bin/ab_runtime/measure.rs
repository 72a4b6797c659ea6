//! The measurements of `ab_runtime`: warm, cold, bind, subset and memcpy floor, the baseline
//! ("base") and the new build interleaved (see `animcomp_bench::timing`).

use animcomp_bench::capi::{Blob, Library, Opaque, CHANNEL_ALL, CHANNEL_ROTATION};
use animcomp_bench::timing::{calibrate, interleave, median, time_batch, warm_pass};
use std::cell::RefCell;
use std::time::Duration;

/// Round counts and timing targets.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Warm rounds per clip (one 1000-pose pass of each variant per round).
    pub warm_rounds: usize,
    /// Cold passes per library over the whole set.
    pub cold_passes: usize,
    /// Rounds of bind timings per clip.
    pub bind_rounds: usize,
    /// Least duration of one batched bind timing.
    pub bind_batch: Duration,
}

/// One library's blobs and contexts (bound to its own blobs) for every clip of a set. Contexts
/// and handles are boxed so their addresses never move (a bound context may point into its
/// handle).
#[allow(clippy::vec_box)]
pub struct Side<'a> {
    /// The build.
    pub lib: &'a Library,
    /// One blob per clip, compressed by this build.
    pub blobs: Vec<Blob>,
    ctxs: Vec<Box<Opaque<1024>>>,
    handles: Vec<Box<Opaque<4096>>>,
    pose: Vec<f32>,
}

impl<'a> Side<'a> {
    /// Initialises a context on every blob (and opens every blob when the build can).
    pub fn new(lib: &'a Library, blobs: Vec<Blob>, max_joints: usize) -> Result<Self, String> {
        let mut ctxs = Vec::new();
        let mut handles = Vec::new();
        for b in &blobs {
            let mut c = Opaque::new();
            lib.init(&mut c, b).map_err(|e| e.0)?;
            c.check_canary("AnimcompDecompressor");
            ctxs.push(c);
            if lib.has_bind() {
                let mut h = Opaque::new();
                lib.blob_open(&mut h, b).map_err(|e| e.0)?;
                h.check_canary("AnimcompBlob");
                handles.push(h);
            }
        }
        Ok(Side {
            lib,
            blobs,
            ctxs,
            handles,
            pose: vec![0.0; max_joints * 10],
        })
    }

    /// Seek (clamp, interpolate) and whole-pose sample of clip `c` at `t`.
    #[inline]
    fn pose(&mut self, c: usize, joints: usize, t: f32) {
        self.lib.seek(&mut self.ctxs[c], t).unwrap();
        self.lib
            .sample_pose(&self.ctxs[c], &mut self.pose[..joints * 10])
            .unwrap();
    }

    /// Seek (clamp) and `animcomp_sample_joints` of `joints` (slots = joints) on clip `c`.
    #[inline]
    pub fn joints_only(&mut self, c: usize, joints: &[u32], t: f32) {
        self.lib.seek(&mut self.ctxs[c], t).unwrap();
        self.lib
            .sample_joints(
                &self.ctxs[c],
                joints,
                Some(joints),
                CHANNEL_ALL,
                &mut self.pose,
            )
            .unwrap();
    }

    /// [`Side::pose`] for callers outside this file.
    #[inline]
    pub fn pose_only(&mut self, c: usize, joints: usize, t: f32) {
        self.pose(c, joints, t)
    }

    /// The pose of clip `c` at `t`, copied out.
    pub fn pose_at(&mut self, c: usize, joints: usize, t: f32) -> Vec<f32> {
        self.pose(c, joints, t);
        self.pose[..joints * 10].to_vec()
    }
}

/// Warm figures of one clip: ns per pose, median over rounds.
#[derive(Debug, Clone, Copy, Default)]
pub struct Warm {
    /// Baseline.
    pub base: f64,
    /// New build.
    pub new: f64,
}

/// Bind figures of one clip, ns per call (median over rounds of batched calls).
#[derive(Debug, Clone, Copy, Default)]
pub struct Bind {
    /// Baseline `animcomp_decompressor_init` (validate + bind).
    pub base_init: f64,
    /// New build's `animcomp_decompressor_init`.
    pub new_init: f64,
    /// New build's `animcomp_blob_open` (validate once), when present.
    pub new_open: Option<f64>,
    /// New build's `animcomp_decompressor_bind` to an opened blob, when present.
    pub new_bind: Option<f64>,
}

/// Times every way to bind a context to clip `c`'s blob, all interleaved.
pub fn bind(base: &Side, new: &Side, c: usize, plan: &Plan) -> Bind {
    let (mut ca, mut cb, mut cc) = (
        Opaque::<1024>::new(),
        Opaque::<1024>::new(),
        Opaque::<1024>::new(),
    );
    let mut hb = Opaque::<4096>::new();
    let mut f_base = || base.lib.init(&mut ca, &base.blobs[c]).unwrap();
    let mut f_init = || new.lib.init(&mut cb, &new.blobs[c]).unwrap();
    let mut f_open = || new.lib.blob_open(&mut hb, &new.blobs[c]).unwrap();
    let mut f_bind = || new.lib.bind(&mut cc, &new.handles[c]).unwrap();
    let mut fs: Vec<&mut dyn FnMut()> = vec![&mut f_base, &mut f_init];
    if new.lib.has_bind() {
        fs.push(&mut f_open);
        fs.push(&mut f_bind);
    }
    let batches: Vec<usize> = fs
        .iter_mut()
        .map(|f| calibrate(plan.bind_batch, *f))
        .collect();
    let mut timers: Vec<Box<dyn FnMut() -> f64 + '_>> = fs
        .into_iter()
        .zip(batches)
        .map(|(f, n)| Box::new(move || time_batch(n, f)) as Box<dyn FnMut() -> f64>)
        .collect();
    let mut refs: Vec<&mut dyn FnMut() -> f64> = timers.iter_mut().map(|t| &mut **t as _).collect();
    let mut r = interleave(plan.bind_rounds, &mut refs);
    let mut m = r.iter_mut().map(|v| median(v));
    Bind {
        base_init: m.next().unwrap_or(0.0),
        new_init: m.next().unwrap_or(0.0),
        new_open: m.next(),
        new_bind: m.next(),
    }
}

/// Subset figures of one clip (new build), ns per pose including the seek.
#[derive(Debug, Clone, Copy, Default)]
pub struct Subset {
    /// `animcomp_sample_pose`, every joint, every channel.
    pub full: f64,
    /// `animcomp_sample_joints` of every joint, every channel.
    pub all_joints: f64,
    /// 10 % of the joints spread evenly, into their own slots of a whole-pose buffer.
    pub even10: f64,
    /// 10 % of the joints in one contiguous run (the first ones), into their own slots.
    pub contiguous10: f64,
    /// Every joint, rotations only.
    pub rotation_only: f64,
    /// Whether both 10 % subsets wrote exactly the floats `sample_pose` writes for those joints
    /// (at 16 of the times).
    pub matches_pose: bool,
}

/// The joints of the two 10 % subsets of a `joints`-joint clip: evenly spread, and contiguous.
pub fn subsets(joints: usize) -> (Vec<u32>, Vec<u32>) {
    let k = (joints as f64 / 10.0).round().max(1.0) as usize;
    let even = (0..k).map(|i| (i * joints / k) as u32).collect();
    let contiguous = (0..k as u32).collect();
    (even, contiguous)
}

/// Times `animcomp_sample_joints` variants against the whole pose on clip `c` (new build only;
/// `None` when the build lacks it).
pub fn subset(
    new: &mut Side,
    c: usize,
    joints: usize,
    times: &[f32],
    plan: &Plan,
) -> Option<Subset> {
    if !new.lib.has_sample_joints() {
        return None;
    }
    let (even, contiguous) = subsets(joints);
    let all: Vec<u32> = (0..joints as u32).collect();
    let mut matches_pose = true;
    for &t in times.iter().step_by(times.len().div_ceil(16).max(1)) {
        let pose = new.pose_at(c, joints, t);
        for js in [&even, &contiguous] {
            let mut out = vec![f32::NAN; joints * 10];
            new.lib
                .sample_joints(&new.ctxs[c], js, Some(js), CHANNEL_ALL, &mut out)
                .ok()?;
            matches_pose &= js.iter().all(|&j| {
                let r = j as usize * 10..j as usize * 10 + 10;
                out[r.clone()]
                    .iter()
                    .zip(&pose[r])
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            });
        }
    }
    let lib = new.lib;
    let ctxs = RefCell::new(&mut new.ctxs);
    let mut out = vec![0.0f32; joints * 10];
    let out = RefCell::new(&mut out[..]);
    let run = |js: &[u32], slots: Option<&[u32]>, ch: u32| {
        warm_pass(times, &mut |t| {
            let mut ctxs = ctxs.borrow_mut();
            lib.seek(&mut ctxs[c], t).unwrap();
            lib.sample_joints(&ctxs[c], js, slots, ch, &mut out.borrow_mut())
                .unwrap();
        })
    };
    let mut full = || {
        warm_pass(times, &mut |t| {
            let mut ctxs = ctxs.borrow_mut();
            lib.seek(&mut ctxs[c], t).unwrap();
            lib.sample_pose(&ctxs[c], &mut out.borrow_mut()).unwrap();
        })
    };
    let mut v_all = || run(&all, None, CHANNEL_ALL);
    let mut v_even = || run(&even, Some(&even), CHANNEL_ALL);
    let mut v_cont = || run(&contiguous, Some(&contiguous), CHANNEL_ALL);
    let mut v_rot = || run(&all, None, CHANNEL_ROTATION);
    let mut r = interleave(
        plan.warm_rounds.div_ceil(2),
        &mut [&mut full, &mut v_all, &mut v_even, &mut v_cont, &mut v_rot],
    );
    let mut m = r.iter_mut().map(|v| median(v));
    Some(Subset {
        full: m.next()?,
        all_joints: m.next()?,
        even10: m.next()?,
        contiguous10: m.next()?,
        rotation_only: m.next()?,
        matches_pose,
    })
}

/// Largest difference between the two builds' poses of clip `c` at `times` (rotations compared
/// up to sign): both decode the same clip within their error bounds.
pub fn max_pose_difference(
    base: &mut Side,
    new: &mut Side,
    c: usize,
    joints: usize,
    times: &[f32],
) -> f32 {
    let mut worst = 0.0f32;
    for &t in times {
        let (a, b) = (base.pose_at(c, joints, t), new.pose_at(c, joints, t));
        for (x, y) in a.chunks_exact(10).zip(b.chunks_exact(10)) {
            let d = |s: f32, r: std::ops::Range<usize>| {
                r.map(|i| (x[i] - s * y[i]).abs()).fold(0.0f32, f32::max)
            };
            worst = worst
                .max(d(1.0, 0..4).min(d(-1.0, 0..4)))
                .max(d(1.0, 4..10));
        }
    }
    worst
}
