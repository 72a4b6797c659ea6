//! A segment stored at fixed rates and ranges whose samples can be removed per set of
//! sub-tracks (a group of the grouped layout, or one sub-track) rather than for every sub-track
//! at once: each set has a keyframe mask of its own, and a removed sample of a set is the blend
//! of the set's stored neighbours. No format stores such masks; this measures what they would
//! save ([`crate::offline::tiers::groups`]).

use super::{Searcher, SegmentChoice, State};
use crate::format::vbr::keyframe::{keyframe_position, lerp};
use crate::math::Transform;

/// [`super::Probe`] with one mask per set of sub-tracks.
pub struct SetProbe<'s, 'a> {
    s: State<'s, 'a>,
    /// The animated sub-tracks of each set.
    sets: Vec<Vec<usize>>,
    /// Each set's stored samples.
    masks: Vec<u32>,
    /// Each set's joints whose object transforms its values reach (its joints and their
    /// descendants), parents first.
    reach: Vec<Vec<usize>>,
    saved_cur: Vec<[f32; 3]>,
    saved_pose: Vec<(Transform, Transform, Transform, f32)>,
}

impl<'a> Searcher<'a> {
    /// The segment covering samples `start..start + count` stored as `choice` says, its
    /// animated sub-tracks split into `sets` (every sub-track in exactly one), each set storing
    /// the samples of `choice.mask`.
    pub fn set_probe<'s>(
        &'s self,
        start: usize,
        count: usize,
        seg_len: usize,
        choice: &SegmentChoice,
        sets: &[Vec<usize>],
    ) -> SetProbe<'s, 'a> {
        let p = self.probe(start, count, seg_len, choice);
        let nj = self.clip.num_joints();
        let reach = sets
            .iter()
            .map(|set| {
                let mut hit = vec![false; nj];
                for &t in set {
                    for &k in &self.subtree[self.plan.animated[t].joint] {
                        hit[k as usize] = true;
                    }
                }
                (0..nj).filter(|&k| hit[k]).collect()
            })
            .collect();
        SetProbe {
            s: p.s,
            sets: sets.to_vec(),
            masks: vec![choice.mask; sets.len()],
            reach,
            saved_cur: Vec::new(),
            saved_pose: Vec::new(),
        }
    }
}

impl SetProbe<'_, '_> {
    /// Set `g`'s stored samples.
    pub fn mask(&self, g: usize) -> u32 {
        self.masks[g]
    }

    /// Whether the values of sets `g` and `h` reach a common joint.
    pub fn interact(&self, g: usize, h: usize) -> bool {
        let (a, b) = (&self.reach[g], &self.reach[h]);
        a.iter().any(|k| b.binary_search(k).is_ok())
    }

    /// The segment's largest error over its samples and joints (the search's unit: a multiple
    /// of each joint's precision times the search's margin).
    pub fn max_error(&self) -> f32 {
        self.s.err.iter().fold(0.0, |a, &e| a.max(e))
    }

    /// The stored samples of set `g` before and after its stored interior sample `i`.
    pub fn neighbours(&self, g: usize, i: usize) -> (usize, usize) {
        let mask = self.masks[g];
        assert!(
            i > 0 && i + 1 < self.s.m && mask & (1 << i) != 0,
            "a stored interior sample"
        );
        let prev = 31 - (mask & ((1u32 << i) - 1)).leading_zeros() as usize;
        let next = i + 1 + (mask >> (i + 1)).trailing_zeros() as usize;
        (prev, next)
    }

    /// The largest error over the joints set `g` reaches at the samples between the neighbours
    /// of its stored interior sample `i`, with `i` removed from `g`; the segment is left as it
    /// was.
    pub fn removal_error(&mut self, g: usize, i: usize) -> f32 {
        let (prev, next) = self.neighbours(g, i);
        self.save(g, prev, next);
        self.masks[g] &= !(1u32 << i);
        let e = self.interpolate(g, prev, next);
        self.masks[g] |= 1u32 << i;
        self.restore(g, prev, next);
        e
    }

    /// Removes stored interior sample `i` from set `g`.
    pub fn remove(&mut self, g: usize, i: usize) {
        let (prev, next) = self.neighbours(g, i);
        self.masks[g] &= !(1u32 << i);
        self.interpolate(g, prev, next);
    }

    /// The decoded local transforms of sample `i` (every joint).
    pub fn local(&self, i: usize) -> &[Transform] {
        &self.s.local[i * self.s.nj..(i + 1) * self.s.nj]
    }

    fn interpolate(&mut self, g: usize, prev: usize, next: usize) -> f32 {
        let (m, nj, mask) = (self.s.m, self.s.nj, self.masks[g]);
        for &t in &self.sets[g] {
            let (a, b) = (self.s.cur[t * m + prev], self.s.cur[t * m + next]);
            for s in prev + 1..next {
                let (_, w) = keyframe_position(mask, s as u32);
                self.s.cur[t * m + s] = [0, 1, 2].map(|c| lerp(a[c], b[c], w));
            }
            self.s.rebuild_range(t, prev + 1..next);
        }
        let mut worst = 0.0f32;
        for s in prev + 1..next {
            for &k in &self.reach[g] {
                let st = &mut self.s;
                let o = match st.x.parents[k] {
                    Some(p) => Transform::mul(&st.obj[s * nj + p], &st.player[s * nj + k]),
                    None => st.player[s * nj + k],
                };
                st.obj[s * nj + k] = o;
                let e = st.joint_error(s, k, &o);
                st.err[s * nj + k] = e;
                worst = worst.max(e);
            }
        }
        worst
    }

    fn save(&mut self, g: usize, prev: usize, next: usize) {
        let (m, nj) = (self.s.m, self.s.nj);
        self.saved_cur.clear();
        for &t in &self.sets[g] {
            self.saved_cur
                .extend_from_slice(&self.s.cur[t * m + prev + 1..t * m + next]);
        }
        self.saved_pose.clear();
        for s in prev + 1..next {
            for &k in &self.reach[g] {
                let (st, i) = (&self.s, s * nj + k);
                self.saved_pose
                    .push((st.local[i], st.player[i], st.obj[i], st.err[i]));
            }
        }
    }

    fn restore(&mut self, g: usize, prev: usize, next: usize) {
        let (m, nj) = (self.s.m, self.s.nj);
        let len = next - prev - 1;
        for (n, &t) in self.sets[g].iter().enumerate() {
            self.s.cur[t * m + prev + 1..t * m + next]
                .copy_from_slice(&self.saved_cur[n * len..(n + 1) * len]);
        }
        let mut it = self.saved_pose.iter();
        for s in prev + 1..next {
            for &k in &self.reach[g] {
                let (l, p, o, e) = *it.next().expect("saved");
                let (st, i) = (&mut self.s, s * nj + k);
                (st.local[i], st.player[i], st.obj[i], st.err[i]) = (l, p, o, e);
            }
        }
    }
}
