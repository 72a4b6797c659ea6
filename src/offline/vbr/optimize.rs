//! The per-segment bit-rate search.
//!
//! 1. Local pass: each animated sub-track gets the lowest rate whose error, measured in local
//!    space at the joint's dominant shell with every other channel exact, is within the joint's
//!    dominant precision.
//! 2. Raise pass (object space): joints in parent-first order; while a joint's error exceeds its
//!    precision at some sample of the segment, raise by one step the sub-track on its chain
//!    (itself or an ancestor) that lowers that error most per added bit.
//! 3. Lower pass (levels Default and Best): visit sub-tracks from the most to the least
//!    expensive, and lower each one step at a time while every joint below it stays within
//!    precision (or, if it already exceeded it, does not get worse).
//! 4. Keyframe pass (level Best and Default): drop interior samples of the segment that linear
//!    interpolation of their stored neighbours recovers within precision.
//!
//! Every error is the metric's [`vertex_error`] on object-space transforms composed from the
//! decoded values (the same arithmetic as the decoder), so a parent's actual quantisation error
//! is what its children are judged with.

use super::bitrate::{
    constant_field, encode_value, rate_bits, segment_field, RATE_CONSTANT, RATE_RAW,
};
use super::decode::{keyframe_position, lerp};
use super::rotation::from_stored;
use super::tracks::{Plan, SubTrack};
use crate::math::{Transform, Vec3};
use crate::offline::clip::RawClip;
use crate::offline::metric::{vertex_error, Metric};

mod groups;
pub use groups::SetProbe;

/// The search aims at this share of each joint's precision, so that float rounding between the
/// encoder's `f32` reference and the true error never lifts a measured error above the precision.
/// The search composes object-space transforms in `f32`: at positions of a few hundred units its
/// error estimate differs from a float64 evaluation of the same metric by up to 2.3e-4 (cmu-cc;
/// 1.6e-4 bandai, 7.9e-5 acl-regression, 4.8e-5 highrate), and at 0.995 the float64 error of
/// `vbr` blobs reached 0.999992 x precision (cmu-cc 005_14). At 0.98 the float64 worst is
/// 0.986 x precision on every shared set, for +0.17 to +0.22 % of size
/// (`import/tests/importers/error_bound_f64.rs` checks it).
pub const TARGET_MARGIN: f32 = 0.98;

/// How much searching to do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Effort {
    /// Run the lowering pass.
    pub lower: bool,
    /// Run the keyframe-dropping pass.
    pub drop_keys: bool,
    /// Share of the dominant precision the local pass aims for.
    pub local_fraction: f32,
}

/// The chosen storage of one segment.
#[derive(Debug, Clone)]
pub struct SegmentChoice {
    /// Keyframe mask.
    pub mask: u32,
    /// Rate index per animated sub-track and component.
    pub rates: Vec<[u8; 3]>,
    /// Segment range field per animated sub-track and component (as stored for its rate).
    pub fields: Vec<[u16; 3]>,
}

/// Shared, per-clip data for the search.
pub struct Searcher<'a> {
    clip: &'a RawClip,
    metric: &'a Metric<'a>,
    plan: &'a Plan,
    has_scale: bool,
    subtree: Vec<Vec<u32>>,
    parents: Vec<Option<usize>>,
    anim_of_joint: Vec<Vec<usize>>,
    inv_precision: Vec<f32>,
    shell: Vec<f32>,
    /// Whether the pose players see has scale (the metric's third vertex).
    metric_scale: bool,
}

impl<'a> Searcher<'a> {
    /// Prepares the search for a clip.
    pub fn new(clip: &'a RawClip, metric: &'a Metric<'a>, plan: &'a Plan, has_scale: bool) -> Self {
        let nj = clip.num_joints();
        let parents: Vec<Option<usize>> = (0..nj).map(|j| clip.skeleton.parent(j)).collect();
        let mut subtree: Vec<Vec<u32>> = (0..nj).map(|j| vec![j as u32]).collect();
        for k in 0..nj {
            let mut a = parents[k];
            while let Some(p) = a {
                subtree[p].push(k as u32);
                a = parents[p];
            }
        }
        let mut anim_of_joint = vec![Vec::new(); nj];
        for (t, st) in plan.animated.iter().enumerate() {
            anim_of_joint[st.joint].push(t);
        }
        let inv_precision = clip
            .skeleton
            .joints
            .iter()
            .map(|j| 1.0 / (j.precision * TARGET_MARGIN))
            .collect();
        let shell = clip
            .skeleton
            .joints
            .iter()
            .map(|j| j.shell_distance)
            .collect();
        Searcher {
            clip,
            metric,
            plan,
            has_scale,
            subtree,
            parents,
            anim_of_joint,
            inv_precision,
            shell,
            metric_scale: metric.has_scale(),
        }
    }

    /// Searches the storage of the segment covering samples `start..start + count`.
    pub fn search(
        &self,
        start: usize,
        count: usize,
        seg_len: usize,
        effort: &Effort,
    ) -> SegmentChoice {
        let mut s = State::new(self, start, count, seg_len);
        s.local_pass(effort.local_fraction);
        s.full_update();
        s.raise_pass();
        if effort.lower {
            s.lower_pass();
        }
        if effort.drop_keys && count > 2 {
            s.keyframe_pass();
            if effort.lower {
                s.lower_pass();
            }
        }
        let fields = (0..self.plan.animated.len())
            .map(|t| {
                [0, 1, 2].map(|c| match s.rates[t][c] {
                    RATE_RAW => 0,
                    RATE_CONSTANT => s.const_fields[t][c],
                    _ => s.range_fields[t][c],
                })
            })
            .collect();
        SegmentChoice {
            mask: s.mask,
            rates: s.rates,
            fields,
        }
    }
}

/// A segment stored at fixed rates and ranges, whose keyframe mask can lose samples one at a
/// time: the error of each removal is measured with the searcher's own decode (the decoder's
/// arithmetic) and object-space metric. Quality tiers rank a segment's samples with it.
pub struct Probe<'s, 'a> {
    s: State<'s, 'a>,
    /// Scratch: the decoded components, local and player transforms, object transforms and
    /// errors of the samples a removal changes, to restore them.
    saved_cur: Vec<[f32; 3]>,
    saved_pose: Vec<(Transform, Transform, Transform, f32)>,
}

impl<'a> Searcher<'a> {
    /// The segment covering samples `start..start + count` stored as `choice` says (its mask,
    /// rates and ranges, as [`Self::search`] chose them).
    pub fn probe<'s>(
        &'s self,
        start: usize,
        count: usize,
        seg_len: usize,
        choice: &SegmentChoice,
    ) -> Probe<'s, 'a> {
        let mut s = State::new(self, start, count, seg_len);
        s.mask = choice.mask;
        for t in 0..self.plan.animated.len() {
            s.apply(t, choice.rates[t]);
            debug_assert!((0..3).all(|c| choice.fields[t][c]
                == match choice.rates[t][c] {
                    RATE_RAW => 0,
                    RATE_CONSTANT => s.const_fields[t][c],
                    _ => s.range_fields[t][c],
                }));
        }
        s.full_update();
        Probe {
            s,
            saved_cur: Vec::new(),
            saved_pose: Vec::new(),
        }
    }
}

impl Probe<'_, '_> {
    /// The samples stored (bit `i`: local sample `i`).
    pub fn mask(&self) -> u32 {
        self.s.mask
    }

    /// The segment's largest error over its samples and joints, as a multiple of each joint's
    /// precision times [`TARGET_MARGIN`] (the search's unit: 1 is what it aims at).
    pub fn max_error(&self) -> f32 {
        self.s.err.iter().fold(0.0, |a, &e| a.max(e))
    }

    /// The largest error (as [`Self::max_error`]) over the samples that removing stored
    /// interior sample `i` changes (those between its stored neighbours), with `i` removed. The
    /// segment is left as it was.
    pub fn removal_error(&mut self, i: usize) -> f32 {
        let (prev, next) = self.neighbours(i);
        self.save(prev, next);
        self.s.mask &= !(1u32 << i);
        let e = self.s.interpolate(prev, next);
        self.s.mask |= 1u32 << i;
        self.restore(prev, next);
        e
    }

    /// Removes stored interior sample `i`.
    pub fn remove(&mut self, i: usize) {
        let (prev, next) = self.neighbours(i);
        self.s.mask &= !(1u32 << i);
        self.s.interpolate(prev, next);
    }

    /// The stored samples before and after stored interior sample `i`.
    pub fn neighbours(&self, i: usize) -> (usize, usize) {
        let mask = self.s.mask;
        assert!(
            i > 0 && i + 1 < self.s.m && mask & (1 << i) != 0,
            "a stored interior sample"
        );
        let prev = 31 - (mask & ((1u32 << i) - 1)).leading_zeros() as usize;
        let next = i + 1 + (mask >> (i + 1)).trailing_zeros() as usize;
        (prev, next)
    }

    fn save(&mut self, prev: usize, next: usize) {
        let (m, nj) = (self.s.m, self.s.nj);
        self.saved_cur.clear();
        for t in 0..self.s.rates.len() {
            self.saved_cur
                .extend_from_slice(&self.s.cur[t * m + prev + 1..t * m + next]);
        }
        self.saved_pose.clear();
        for i in (prev + 1) * nj..next * nj {
            let s = &self.s;
            self.saved_pose
                .push((s.local[i], s.player[i], s.obj[i], s.err[i]));
        }
    }

    fn restore(&mut self, prev: usize, next: usize) {
        let (m, nj) = (self.s.m, self.s.nj);
        let len = next - prev - 1;
        for t in 0..self.s.rates.len() {
            self.s.cur[t * m + prev + 1..t * m + next]
                .copy_from_slice(&self.saved_cur[t * len..(t + 1) * len]);
        }
        for (k, i) in ((prev + 1) * nj..next * nj).enumerate() {
            let (l, p, o, e) = self.saved_pose[k];
            let s = &mut self.s;
            (s.local[i], s.player[i], s.obj[i], s.err[i]) = (l, p, o, e);
        }
    }
}

/// Per-segment working state.
struct State<'s, 'a> {
    x: &'s Searcher<'a>,
    seg: usize,
    start: usize,
    m: usize,
    nj: usize,
    mask: u32,
    rates: Vec<[u8; 3]>,
    range_fields: Vec<[u16; 3]>,
    const_fields: Vec<[u16; 3]>,
    local: Vec<Transform>,
    /// `local` as players see it (`Metric::to_player`: the base applied for additive clips).
    player: Vec<Transform>,
    obj: Vec<Transform>,
    /// Error / precision per sample and joint.
    err: Vec<f32>,
    /// Scratch: decoded components of one sub-track.
    comps: Vec<[f32; 3]>,
    /// Current decoded components per sub-track and sample (`t * m + s`).
    cur: Vec<[f32; 3]>,
    /// Raw object-space virtual vertices per sample and joint.
    raw_vertices: Vec<[Vec3; 3]>,
    /// Snapshot of (object transform, error) for [`Self::try_subtree`].
    snapshot: Vec<(Transform, f32)>,
}

impl<'s, 'a> State<'s, 'a> {
    fn new(x: &'s Searcher<'a>, start: usize, m: usize, seg_len: usize) -> Self {
        let nj = x.clip.num_joints();
        let mut local = vec![Transform::IDENTITY; m * nj];
        for s in 0..m {
            for j in 0..nj {
                let raw = x.clip.tracks[j].get(start + s);
                let f = &x.plan.fixed[j];
                let k = x.plan.kinds[j];
                local[s * nj + j] = Transform {
                    rotation: if k[0] >= super::layout::KIND_ANIMATED {
                        raw.rotation
                    } else {
                        f.rotation
                    },
                    translation: if k[1] == super::layout::KIND_ANIMATED {
                        raw.translation
                    } else {
                        f.translation
                    },
                    scale: if !x.has_scale {
                        Vec3::ONE
                    } else if k[2] == super::layout::KIND_ANIMATED {
                        raw.scale
                    } else {
                        f.scale
                    },
                };
            }
        }
        let na = x.plan.animated.len();
        let mut range_fields = vec![[0u16; 3]; na];
        let mut const_fields = vec![[0u16; 3]; na];
        for (t, st) in x.plan.animated.iter().enumerate() {
            for c in 0..3 {
                let (mut lo, mut hi) = (1.0f32, 0.0f32);
                let range = st.slot_range(c, st.drop_in(start / seg_len));
                for v in &st.values[start..start + m] {
                    let n = range.normalize(v[c]);
                    lo = lo.min(n);
                    hi = hi.max(n);
                }
                range_fields[t][c] = segment_field(lo, hi);
                const_fields[t][c] = constant_field((lo + hi) * 0.5);
            }
        }
        let mask = if m == 32 { u32::MAX } else { (1u32 << m) - 1 };
        let mut raw_vertices = vec![[Vec3::ZERO; 3]; m * nj];
        for s in 0..m {
            let raw = x.metric.raw_object_pose(start + s);
            for k in 0..nj {
                let d = x.shell[k];
                raw_vertices[s * nj + k] = [
                    Vec3::new(d, 0.0, 0.0),
                    Vec3::new(0.0, d, 0.0),
                    Vec3::new(0.0, 0.0, d),
                ]
                .map(|v| raw[k].transform_point(v));
            }
        }
        State {
            x,
            seg: start / seg_len,
            start,
            m,
            nj,
            mask,
            rates: vec![[RATE_RAW; 3]; na],
            range_fields,
            const_fields,
            obj: local.clone(),
            player: (0..m * nj)
                .map(|i| x.metric.to_player(start + i / nj, i % nj, &local[i]))
                .collect(),
            local,
            err: vec![0.0; m * nj],
            comps: vec![[0.0; 3]; m],
            cur: vec![[0.0; 3]; m * na],
            raw_vertices,
            snapshot: Vec::new(),
        }
    }

    /// Decodes sub-track `t` at `rates` into `self.comps` for every sample of the segment.
    fn decode(&mut self, t: usize, rates: [u8; 3]) {
        let st: &SubTrack = &self.x.plan.animated[t];
        let fields = [0, 1, 2].map(|c| {
            if rates[c] == RATE_CONSTANT {
                self.const_fields[t][c]
            } else {
                self.range_fields[t][c]
            }
        });
        let drop = st.drop_in(self.seg);
        for s in 0..self.m {
            if self.mask & (1 << s) != 0 {
                let v = &st.values[self.start + s];
                for c in 0..3 {
                    self.comps[s][c] =
                        encode_value(v[c], rates[c], fields[c], st.slot_range(c, drop)).1;
                }
            }
        }
        if self.mask.count_ones() as usize != self.m {
            for s in 0..self.m {
                if self.mask & (1 << s) == 0 {
                    let (_, w) = keyframe_position(self.mask, s as u32);
                    let prev = 31 - (self.mask & ((1u32 << s) - 1)).leading_zeros() as usize;
                    let next = s + 1 + (self.mask >> (s + 1)).trailing_zeros() as usize;
                    let (a, b) = (self.comps[prev], self.comps[next]);
                    self.comps[s] = [0, 1, 2].map(|c| lerp(a[c], b[c], w));
                }
            }
        }
    }

    /// Decodes sub-track `t` at `rates` into the lossy local pose.
    fn apply(&mut self, t: usize, rates: [u8; 3]) {
        self.rates[t] = rates;
        self.decode(t, rates);
        let m = self.m;
        self.cur[t * m..(t + 1) * m].copy_from_slice(&self.comps);
        self.rebuild(t);
    }

    /// Changes component `c` of sub-track `t` to `rate` (the other components keep theirs).
    #[allow(clippy::needless_range_loop)]
    fn apply_comp(&mut self, t: usize, c: usize, rate: u8) {
        self.rates[t][c] = rate;
        let st: &SubTrack = &self.x.plan.animated[t];
        let field = if rate == RATE_CONSTANT {
            self.const_fields[t][c]
        } else {
            self.range_fields[t][c]
        };
        let range = st.slot_range(c, st.drop_in(self.seg));
        let (m, mask) = (self.m, self.mask);
        let cur = &mut self.cur[t * m..(t + 1) * m];
        for s in 0..m {
            if mask & (1 << s) != 0 {
                cur[s][c] = encode_value(st.values[self.start + s][c], rate, field, range).1;
            }
        }
        if mask.count_ones() as usize != m {
            for s in 0..m {
                if mask & (1 << s) == 0 {
                    let (_, w) = keyframe_position(mask, s as u32);
                    let prev = 31 - (mask & ((1u32 << s) - 1)).leading_zeros() as usize;
                    let next = s + 1 + (mask >> (s + 1)).trailing_zeros() as usize;
                    cur[s][c] = lerp(cur[prev][c], cur[next][c], w);
                }
            }
        }
        self.rebuild(t);
    }

    /// Writes sub-track `t`'s current components into the lossy local pose.
    fn rebuild(&mut self, t: usize) {
        self.rebuild_range(t, 0..self.m);
    }

    /// [`Self::rebuild`] at the samples of `samples` only.
    fn rebuild_range(&mut self, t: usize, samples: std::ops::Range<usize>) {
        let st = &self.x.plan.animated[t];
        let (j, nj, m) = (st.joint, self.nj, self.m);
        let drop = st.drop_in(self.seg);
        for s in samples {
            let v = self.cur[t * m + s];
            let l = &mut self.local[s * nj + j];
            match st.channel {
                0 => l.rotation = from_stored(v, drop),
                1 => l.translation = Vec3::from_array(v),
                _ => l.scale = Vec3::from_array(v),
            }
            self.player[s * nj + j] = self.x.metric.to_player(self.start + s, j, l);
        }
    }

    fn local_pass(&mut self, fraction: f32) {
        let x = self.x;
        for t in 0..x.plan.animated.len() {
            let st = &x.plan.animated[t];
            let j = st.joint;
            let shell = x.plan.shells[j];
            let limit = shell.precision * fraction;
            let mut chosen = RATE_RAW;
            for rate in 0..RATE_RAW {
                self.decode(t, [rate; 3]);
                let mut ok = true;
                for s in 0..self.m {
                    let raw = x.clip.tracks[j].get(self.start + s);
                    let mut l = raw;
                    let v = self.comps[s];
                    match st.channel {
                        0 => l.rotation = from_stored(v, st.drop_in(self.seg)),
                        1 => l.translation = Vec3::from_array(v),
                        _ => l.scale = Vec3::from_array(v),
                    }
                    let (raw, l) = (
                        x.metric.to_player(self.start + s, j, &raw),
                        x.metric.to_player(self.start + s, j, &l),
                    );
                    if vertex_error(&raw, &l, shell.shell_distance, x.metric_scale) > limit {
                        ok = false;
                        break;
                    }
                }
                if ok {
                    chosen = rate;
                    break;
                }
            }
            self.apply(t, [chosen; 3]);
        }
    }

    #[inline]
    fn joint_error(&self, s: usize, k: usize, o: &Transform) -> f32 {
        // Same arithmetic as `metric::vertex_error`, with the raw vertices computed once.
        let raw = &self.raw_vertices[s * self.nj + k];
        let d = self.x.shell[k];
        let ex = (raw[0] - o.transform_point(Vec3::new(d, 0.0, 0.0))).length_squared();
        let ey = (raw[1] - o.transform_point(Vec3::new(0.0, d, 0.0))).length_squared();
        let mut e = ex.max(ey);
        if self.x.metric_scale {
            e = e.max((raw[2] - o.transform_point(Vec3::new(0.0, 0.0, d))).length_squared());
        }
        e.sqrt() * self.x.inv_precision[k]
    }

    /// Like [`Self::update_subtree`] over every sample, but stops at the first joint that gets
    /// worse than both its old error and its precision, restores the subtree's object transforms
    /// and errors, and returns false (the caller restores the local pose).
    fn try_subtree(&mut self, j: usize) -> bool {
        let (nj, m) = (self.nj, self.m);
        self.snapshot.clear();
        let x = self.x;
        for &k in &x.subtree[j] {
            let k = k as usize;
            let parent = x.parents[k];
            for s in 0..m {
                let i = s * nj + k;
                self.snapshot.push((self.obj[i], self.err[i]));
                let o = match parent {
                    Some(p) => Transform::mul(&self.obj[s * nj + p], &self.player[i]),
                    None => self.player[i],
                };
                let e = self.joint_error(s, k, &o);
                if e > 1.0 && e > self.err[i] {
                    // Restore everything written so far.
                    let mut it = self.snapshot.iter();
                    'outer: for &k2 in &x.subtree[j] {
                        let k2 = k2 as usize;
                        for s2 in 0..m {
                            match it.next() {
                                Some(&(o2, e2)) => {
                                    self.obj[s2 * nj + k2] = o2;
                                    self.err[s2 * nj + k2] = e2;
                                }
                                None => break 'outer,
                            }
                        }
                    }
                    return false;
                }
                self.obj[i] = o;
                self.err[i] = e;
            }
        }
        true
    }

    /// With `prev` and `next` stored and every sample between them not, decodes those samples
    /// again (each sub-track's blend of its two stored values, as [`Self::decode`] does) and
    /// recomputes their object transforms and errors. Returns their largest error.
    fn interpolate(&mut self, prev: usize, next: usize) -> f32 {
        let m = self.m;
        for t in 0..self.rates.len() {
            let (a, b) = (self.cur[t * m + prev], self.cur[t * m + next]);
            for s in prev + 1..next {
                let (_, w) = keyframe_position(self.mask, s as u32);
                self.cur[t * m + s] = [0, 1, 2].map(|c| lerp(a[c], b[c], w));
            }
            self.rebuild_range(t, prev + 1..next);
        }
        let nj = self.nj;
        let mut worst = 0.0f32;
        for s in prev + 1..next {
            for k in 0..nj {
                let o = match self.x.parents[k] {
                    Some(p) => Transform::mul(&self.obj[s * nj + p], &self.player[s * nj + k]),
                    None => self.player[s * nj + k],
                };
                self.obj[s * nj + k] = o;
                let e = self.joint_error(s, k, &o);
                self.err[s * nj + k] = e;
                worst = worst.max(e);
            }
        }
        worst
    }

    fn full_update(&mut self) {
        let nj = self.nj;
        for s in 0..self.m {
            for k in 0..nj {
                let o = match self.x.parents[k] {
                    Some(p) => Transform::mul(&self.obj[s * nj + p], &self.player[s * nj + k]),
                    None => self.player[s * nj + k],
                };
                self.obj[s * nj + k] = o;
                self.err[s * nj + k] = self.joint_error(s, k, &o);
            }
        }
    }

    /// Recomputes the subtree of `j` at the samples in `samples`. Returns false when some joint
    /// got worse than both its old error and its precision.
    fn update_subtree(&mut self, j: usize, samples: std::ops::Range<usize>) -> bool {
        let nj = self.nj;
        let mut ok = true;
        for &k in &self.x.subtree[j] {
            let k = k as usize;
            let parent = self.x.parents[k];
            for s in samples.clone() {
                let o = match parent {
                    Some(p) => Transform::mul(&self.obj[s * nj + p], &self.player[s * nj + k]),
                    None => self.player[s * nj + k],
                };
                self.obj[s * nj + k] = o;
                let e = self.joint_error(s, k, &o);
                let old = &mut self.err[s * nj + k];
                if e > 1.0 && e > *old {
                    ok = false;
                }
                *old = e;
            }
        }
        ok
    }

    fn max_err(&self, k: usize) -> f32 {
        (0..self.m)
            .map(|s| self.err[s * self.nj + k])
            .fold(0.0, f32::max)
    }

    /// Error of joint `j` (max over samples) with the chain from `a` down to `j` recomputed.
    fn chain_error(&self, a: usize, j: usize, path: &mut Vec<usize>) -> f32 {
        path.clear();
        let mut k = j;
        loop {
            path.push(k);
            if k == a {
                break;
            }
            k = self.x.parents[k].expect("a is an ancestor of j");
        }
        let nj = self.nj;
        let mut worst = 0.0f32;
        for s in 0..self.m {
            let mut cur: Option<Transform> = self.x.parents[a].map(|p| self.obj[s * nj + p]);
            for &k in path.iter().rev() {
                let l = &self.player[s * nj + k];
                cur = Some(match cur {
                    Some(c) => Transform::mul(&c, l),
                    None => *l,
                });
            }
            worst = worst.max(self.joint_error(s, j, &cur.expect("path is not empty")));
        }
        worst
    }

    /// Runs [`Self::raise_once`] until no joint exceeds its precision (raising one sub-track can,
    /// rarely, move another joint's quantisation error up).
    fn raise_pass(&mut self) {
        for _ in 0..8 {
            if !self.raise_once() {
                break;
            }
        }
    }

    /// One parent-first raise sweep. Returns whether anything was raised.
    fn raise_once(&mut self) -> bool {
        let mut path = Vec::new();
        let mut cands = Vec::new();
        let mut raised = false;
        for j in 0..self.nj {
            let mut guard = 0;
            while self.max_err(j) > 1.0 && guard < 4096 {
                guard += 1;
                cands.clear();
                let mut a = Some(j);
                while let Some(k) = a {
                    for &t in &self.x.anim_of_joint[k] {
                        for c in 0..3 {
                            if self.rates[t][c] < RATE_RAW {
                                cands.push((t, c));
                            }
                        }
                    }
                    a = self.x.parents[k];
                }
                if cands.is_empty() {
                    break;
                }
                let before = self.max_err(j);
                let mut best: Option<(f32, (usize, usize))> = None;
                for &(t, c) in &cands {
                    let r = self.rates[t][c];
                    let a = self.x.plan.animated[t].joint;
                    self.apply_comp(t, c, r + 1);
                    let e = self.chain_error(a, j, &mut path);
                    self.apply_comp(t, c, r);
                    let cost = (rate_bits(r + 1) - rate_bits(r)) as f32;
                    let score = (before - e) / cost;
                    if best.is_none_or(|(b, _)| score > b) {
                        best = Some((score, (t, c)));
                    }
                }
                let (score, mut unit) = best.expect("candidates exist");
                if score <= 0.0 {
                    // No single step helps: raise the cheapest component on the chain.
                    unit = *cands
                        .iter()
                        .min_by_key(|&&(t, c)| (self.rates[t][c], t, c))
                        .unwrap();
                }
                let (t, c) = unit;
                self.apply_comp(t, c, self.rates[t][c] + 1);
                let a = self.x.plan.animated[t].joint;
                self.update_subtree(a, 0..self.m);
                raised = true;
            }
        }
        raised
    }

    fn lower_pass(&mut self) {
        let na = self.rates.len();
        let mut order: Vec<(usize, usize)> =
            (0..na).flat_map(|t| (0..3).map(move |c| (t, c))).collect();
        order.sort_by_key(|&(t, c)| (std::cmp::Reverse(self.rates[t][c]), t, c));
        {
            for (t, c) in order {
                let j = self.x.plan.animated[t].joint;
                while self.rates[t][c] > 0 {
                    let r = self.rates[t][c];
                    self.apply_comp(t, c, r - 1);
                    if !self.try_subtree(j) {
                        self.apply_comp(t, c, r);
                        break;
                    }
                }
            }
        }
    }

    fn keyframe_pass(&mut self) {
        let na = self.rates.len();
        for s in 1..self.m - 1 {
            let old = self.mask;
            self.mask &= !(1 << s);
            let prev = 31 - (self.mask & ((1u32 << s) - 1)).leading_zeros() as usize;
            let next = s + 1 + (self.mask >> (s + 1)).trailing_zeros() as usize;
            for t in 0..na {
                self.apply(t, self.rates[t]);
            }
            let mut ok = true;
            for root in 0..self.nj {
                if self.x.parents[root].is_none() && !self.update_subtree(root, prev + 1..next) {
                    ok = false;
                }
            }
            if !ok {
                self.mask = old;
                for t in 0..na {
                    self.apply(t, self.rates[t]);
                }
                for root in 0..self.nj {
                    if self.x.parents[root].is_none() {
                        self.update_subtree(root, prev + 1..next);
                    }
                }
            }
        }
    }
}
