//! The format version 4 prototype (`animcomp::decompress::vbr::grouped`, issue 25) beside the two
//! builds: the new build's blobs converted, sampled through the Rust API (seek by
//! `seek::resolve`, then the whole pose), timed interleaved with both libraries' C ABI.

use crate::measure::{Plan, Side};
use animcomp::decompress::seek::{resolve, Looping, Rounding};
use animcomp::decompress::vbr::grouped::{GroupedClip, GroupedClipCache, Isa};
use animcomp_bench::capi::CClip;
use animcomp_bench::timing::{cold_pass, interleave, median, warm_pass, CacheFlusher, FLUSH_BYTES};
use std::cell::RefCell;

/// The new build's blobs in the prototype layout (`None` where conversion is refused, or every
/// clip on a machine without AVX2).
pub struct ProtoSide {
    protos: Vec<Option<GroupedClip>>,
    /// The decoder of the whole poses: the widest available, or `AB_PROTO_ISA` (`avx512`, `avx2`, `sse2`,
    /// `scalar`) when set.
    pub isa: Isa,
    pose: Vec<f32>,
    /// Clips whose prototype poses differed from the new build's (bit for bit) at the first
    /// sixteen times.
    pub mismatches: usize,
}

impl ProtoSide {
    /// Converts every blob of `new` (none when the chosen decoder is not available here).
    pub fn new(new: &Side, max_joints: usize) -> ProtoSide {
        let isa = match std::env::var("AB_PROTO_ISA").as_deref() {
            Ok("sse2") => Isa::Sse2,
            Ok("scalar") => Isa::Scalar,
            Ok("avx2") => Isa::Avx2,
            Ok("avx512") => Isa::Avx512,
            _ => Isa::best(),
        };
        let protos = new
            .blobs
            .iter()
            .map(|b| {
                isa.available()
                    .then(|| GroupedClip::convert(b.as_bytes()).ok())
                    .flatten()
            })
            .collect();
        ProtoSide {
            protos,
            isa,
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
        self.protos[c].as_ref().map(GroupedClip::size)
    }

    #[inline]
    fn pose(&mut self, c: usize, joints: usize, t: f32) {
        if let Some(p) = &self.protos[c] {
            let key = resolve(p.header(), t, Looping::Clamp, Rounding::None).unwrap();
            p.sample_pose_isa(self.isa, &key, &mut self.pose[..joints * 10], 10);
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
/// the new build and the prototype (NaN without one, e.g. blobs the new build wrote as format
/// version 3), interleaved (warm, the warm times).
pub fn subset3(
    base: &mut Side,
    new: &mut Side,
    proto: &mut ProtoSide,
    c: usize,
    joints: usize,
    times: &[f32],
    plan: &Plan,
) -> Option<[f64; 3]> {
    if !base.lib.has_sample_joints() || !new.lib.has_sample_joints() {
        return None;
    }
    let has = proto.has(c);
    let (even, _) = crate::measure::subsets(joints);
    let r = warm_rounds(
        times,
        plan.warm_rounds.div_ceil(2),
        &mut |t| base.joints_only(c, &even, t),
        &mut |t| new.joints_only(c, &even, t),
        has.then_some(&mut |t| {
            if let Some(pr) = &proto.protos[c] {
                let key = resolve(pr.header(), t, Looping::Clamp, Rounding::None).unwrap();
                pr.sample_joints(&key, &even, &mut proto.pose, 10);
            }
        }),
    );
    Some([r.0, r.1, r.2.unwrap_or(f64::NAN)])
}

/// Warm passes over `times` of the three variants (the prototype's when given), interleaved
/// over `rounds`; ns per call, medians.
fn warm_rounds(
    times: &[f32],
    rounds: usize,
    base: &mut dyn FnMut(f32),
    new: &mut dyn FnMut(f32),
    proto: Option<&mut dyn FnMut(f32)>,
) -> (f64, f64, Option<f64>) {
    let has = proto.is_some();
    let mut a = || warm_pass(times, base);
    let mut b = || warm_pass(times, new);
    let mut proto = proto;
    let mut p = || proto.as_mut().map_or(0.0, |f| warm_pass(times, *f));
    let mut r = if has {
        interleave(rounds, &mut [&mut a, &mut b, &mut p])
    } else {
        interleave(rounds, &mut [&mut a, &mut b])
    };
    let pm = has.then(|| median(&mut r[2]));
    (median(&mut r[0]), median(&mut r[1]), pm)
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
    let mut fp = |t| proto.pose(c, joints, t);
    warm_rounds(
        times,
        plan.warm_rounds,
        &mut |t| base.pose_only(c, joints, t),
        &mut |t| new.pose_only(c, joints, t),
        if has { Some(&mut fp) } else { None },
    )
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
    let mut fa = |c, j, t| base.pose_only(c, j, t);
    let mut fb = |c, j, t| new.pose_only(c, j, t);
    let mut fp = |c, j, t| proto.pose(c, j, t);
    let mut a = cold_variant(&flusher, pa, clips, times, &mut fa);
    let mut b = cold_variant(&flusher, pb, clips, times, &mut fb);
    let mut p = cold_variant(&flusher, pc, clips, times, &mut fp);
    interleave(plan.cold_passes, &mut [&mut a, &mut b, &mut p]);
    drop((a, b, p));
    per.map(|mut v| v.iter_mut().map(|x| median(x)).collect())
}

/// One cold variant: pass `k` samples every clip once at its `k`-th time through `pose(clip,
/// joints, time)`, recording each pose's ns in `per`.
fn cold_variant<'a>(
    flusher: &'a RefCell<CacheFlusher>,
    per: &'a mut [Vec<f64>],
    clips: &'a [CClip],
    times: &'a [Vec<f32>],
    pose: &'a mut dyn FnMut(usize, usize, f32),
) -> impl FnMut() -> f64 + 'a {
    let mut k = 0usize;
    move || {
        cold_pass(&mut flusher.borrow_mut(), per, &mut |c| {
            pose(c, clips[c].joints, times[c][k % times[c].len()])
        });
        k += 1;
        0.0
    }
}

/// The playback pattern's instances on the prototype (`playback::playback`): instance `i`
/// plays clip `i mod clips`' prototype from the same phases, with its own pose buffer.
pub struct ProtoInstances<'a> {
    protos: Vec<&'a GroupedClip>,
    isa: Isa,
    /// A playback cache per instance (when cached).
    caches: Option<Vec<GroupedClipCache>>,
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
        let caches = cached.then(|| protos.iter().map(|p| GroupedClipCache::new(p)).collect());
        Some(ProtoInstances {
            protos,
            isa: side.isa,
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
                    None => {
                        p.sample_pose_isa(self.isa, &key, &mut self.poses[i], 10);
                    }
                }
            }
            per.push(t0.elapsed().as_nanos() as f64);
        }
        median(&mut per) / self.protos.len() as f64
    }
}
