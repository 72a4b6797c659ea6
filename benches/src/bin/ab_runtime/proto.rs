//! The format version 3 prototype (`animcomp::decompress::vbr::proto3`, issue 25) beside the two
//! builds: the new build's blobs converted, sampled through the Rust API (seek by
//! `seek::resolve`, then the whole pose), timed interleaved with both libraries' C ABI.

use crate::measure::{Plan, Side};
use animcomp::decompress::seek::{resolve, Looping, Rounding};
use animcomp::decompress::vbr::proto3::{Proto, ProtoCache};
use animcomp_bench::capi::CClip;
use animcomp_bench::timing::{cold_pass, interleave, median, warm_pass, CacheFlusher, FLUSH_BYTES};
use std::cell::RefCell;

/// The new build's blobs in the prototype layout (`None` where conversion is refused, or every
/// clip on a machine without AVX2).
pub struct ProtoSide {
    protos: Vec<Option<Proto>>,
    pose: Vec<f32>,
    /// Clips whose prototype poses differed from the new build's (bit for bit) at the first
    /// sixteen times.
    pub mismatches: usize,
}

impl ProtoSide {
    /// Converts every blob of `new`.
    pub fn new(new: &Side, max_joints: usize) -> ProtoSide {
        let protos = new
            .blobs
            .iter()
            .map(|b| {
                Proto::supported()
                    .then(|| Proto::convert(b.as_bytes()).ok())
                    .flatten()
            })
            .collect();
        ProtoSide {
            protos,
            pose: vec![0.0; max_joints * 10],
            mismatches: 0,
        }
    }

    /// Whether clip `c` has a prototype.
    pub fn has(&self, c: usize) -> bool {
        self.protos[c].is_some()
    }

    /// Bytes of clip `c`'s prototype layout.
    pub fn bytes(&self, c: usize) -> Option<usize> {
        self.protos[c].as_ref().map(Proto::size)
    }

    #[inline]
    fn pose(&mut self, c: usize, joints: usize, t: f32) {
        if let Some(p) = &self.protos[c] {
            let key = resolve(p.header(), t, Looping::Clamp, Rounding::None).unwrap();
            p.sample_pose(&key, &mut self.pose[..joints * 10], 10);
        }
    }

    /// Compares the prototype's poses with the new build's at `times`, counting a mismatch.
    pub fn check(&mut self, new: &mut Side, c: usize, joints: usize, times: &[f32]) {
        if !self.has(c) {
            return;
        }
        for &t in times {
            let a = new.pose_at(c, joints, t);
            self.pose(c, joints, t);
            if a.iter()
                .zip(&self.pose)
                .any(|(x, y)| x.to_bits() != y.to_bits())
            {
                self.mismatches += 1;
                return;
            }
        }
    }
}

/// Every tenth joint (`measure::subsets`' evenly spread list), ns per call, of the baseline,
/// the new build and the prototype, interleaved (warm, the warm times).
pub fn subset3(
    base: &mut Side,
    new: &mut Side,
    proto: &mut ProtoSide,
    c: usize,
    joints: usize,
    times: &[f32],
    plan: &Plan,
) -> Option<[f64; 3]> {
    if !proto.has(c) || !base.lib.has_sample_joints() || !new.lib.has_sample_joints() {
        return None;
    }
    let (even, _) = crate::measure::subsets(joints);
    let mut a = || warm_pass(times, &mut |t| base.joints_only(c, &even, t));
    let mut b = || warm_pass(times, &mut |t| new.joints_only(c, &even, t));
    let mut p = || {
        warm_pass(times, &mut |t| {
            if let Some(pr) = &proto.protos[c] {
                let key = resolve(pr.header(), t, Looping::Clamp, Rounding::None).unwrap();
                pr.sample_joints(&key, &even, &mut proto.pose, 10);
            }
        })
    };
    let mut r = interleave(plan.warm_rounds.div_ceil(2), &mut [&mut a, &mut b, &mut p]);
    Some([median(&mut r[0]), median(&mut r[1]), median(&mut r[2])])
}

/// Warm ns per pose of the baseline, the new build and the prototype, interleaved.
pub fn warm3(
    base: &mut Side,
    new: &mut Side,
    proto: &mut ProtoSide,
    c: usize,
    joints: usize,
    times: &[f32],
    plan: &Plan,
) -> (f64, f64, Option<f64>) {
    let has = proto.has(c);
    let mut a = || warm_pass(times, &mut |t| base.pose_only(c, joints, t));
    let mut b = || warm_pass(times, &mut |t| new.pose_only(c, joints, t));
    let mut p = || warm_pass(times, &mut |t| proto.pose(c, joints, t));
    let mut r = if has {
        interleave(plan.warm_rounds, &mut [&mut a, &mut b, &mut p])
    } else {
        interleave(plan.warm_rounds, &mut [&mut a, &mut b])
    };
    let pm = has.then(|| median(&mut r[2]));
    (median(&mut r[0]), median(&mut r[1]), pm)
}

/// Cold ns of one pose per clip (median over passes) for the three, passes interleaved.
pub fn cold3(
    base: &mut Side,
    new: &mut Side,
    proto: &mut ProtoSide,
    clips: &[CClip],
    times: &[Vec<f32>],
    plan: &Plan,
) -> [Vec<f64>; 3] {
    let flusher = RefCell::new(CacheFlusher::new(FLUSH_BYTES));
    let n = clips.len();
    let mut per = [
        vec![Vec::new(); n],
        vec![Vec::new(); n],
        vec![Vec::new(); n],
    ];
    let [pa, pb, pc] = &mut per;
    let (mut ka, mut kb, mut kc) = (0usize, 0usize, 0usize);
    let at = |c: usize, k: usize| times[c][k % times[c].len()];
    let mut a = || {
        let k = ka;
        ka += 1;
        cold_pass(&mut flusher.borrow_mut(), pa, &mut |c| {
            base.pose_only(c, clips[c].joints, at(c, k))
        });
        0.0
    };
    let mut b = || {
        let k = kb;
        kb += 1;
        cold_pass(&mut flusher.borrow_mut(), pb, &mut |c| {
            new.pose_only(c, clips[c].joints, at(c, k))
        });
        0.0
    };
    let mut p = || {
        let k = kc;
        kc += 1;
        cold_pass(&mut flusher.borrow_mut(), pc, &mut |c| {
            proto.pose(c, clips[c].joints, at(c, k))
        });
        0.0
    };
    interleave(plan.cold_passes, &mut [&mut a, &mut b, &mut p]);
    let med = |v: &mut Vec<Vec<f64>>| v.iter_mut().map(|x| median(x)).collect::<Vec<f64>>();
    let [pa, pb, pc] = &mut per;
    [med(pa), med(pb), med(pc)]
}

/// The playback pattern's instances on the prototype (`playback::playback`): instance `i`
/// plays clip `i mod clips`' prototype from the same phases, with its own pose buffer.
pub struct ProtoInstances<'a> {
    protos: Vec<&'a Proto>,
    /// A playback cache per instance (when cached).
    caches: Option<Vec<ProtoCache>>,
    poses: Vec<Vec<f32>>,
    phase: Vec<f32>,
    frame: usize,
}

impl<'a> ProtoInstances<'a> {
    /// `None` unless every clip has a prototype.
    pub fn new(side: &'a ProtoSide, clips: &[CClip], phases: &[f32], cached: bool) -> Option<Self> {
        let mut protos = Vec::new();
        let mut poses = Vec::new();
        let mut phase = Vec::new();
        for (i, ph) in phases.iter().enumerate() {
            let c = i % clips.len();
            protos.push(side.protos[c].as_ref()?);
            poses.push(vec![0.0f32; clips[c].joints * 10]);
            phase.push(ph * clips[c].duration());
        }
        let caches = cached.then(|| protos.iter().map(|p| ProtoCache::new(p)).collect());
        Some(ProtoInstances {
            protos,
            caches,
            poses,
            phase,
            frame: 0,
        })
    }

    /// One round of `frames` frames (see `playback::Instances::round`).
    pub fn round(&mut self, frames: usize, flusher: Option<&RefCell<CacheFlusher>>) -> f64 {
        let mut per = Vec::with_capacity(frames);
        for _ in 0..frames {
            if let Some(f) = flusher {
                f.borrow_mut().flush();
            }
            let dt = self.frame as f32 / 60.0;
            self.frame += 1;
            let t0 = std::time::Instant::now();
            for i in 0..self.protos.len() {
                let p = self.protos[i];
                let key = resolve(
                    p.header(),
                    self.phase[i] + dt,
                    Looping::Wrap,
                    Rounding::None,
                )
                .unwrap();
                match &mut self.caches {
                    Some(c) => {
                        p.sample_pose_cached(&mut c[i], &key, &mut self.poses[i], 10);
                    }
                    None => p.sample_pose(&key, &mut self.poses[i], 10),
                }
            }
            per.push(t0.elapsed().as_nanos() as f64);
        }
        median(&mut per) / self.protos.len() as f64
    }
}
