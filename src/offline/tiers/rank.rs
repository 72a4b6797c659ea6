//! Which tier level stores each sample: per segment, with the rates and ranges the search chose
//! for the full precision, interior samples are removed greedily, the one whose removal adds
//! the least error first, measured by the searcher's own decode and object-space metric
//! ([`Probe`]). Removals while the segment's error stays within the medium bound go to level 2
//! (the least important samples), further ones while it stays within the resident bound to
//! level 1; the rest stays resident. Segments are independent: interpolation never crosses one.

use crate::offline::vbr::optimize::{Probe, Searcher};
use crate::offline::vbr::Searched;
use crate::offline::EncodeContext;

/// The samples of one segment per fidelity (bit `i`: local sample `i`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SegmentMasks {
    /// What the full blob stores (the search's mask).
    pub full: u32,
    /// What the resident blob stores.
    pub resident: u32,
    /// What tier level `k + 1` stores (0 for a level the set does not have).
    pub levels: [u32; 2],
}

impl SegmentMasks {
    /// The samples stored with tier levels `1..=attached` attached.
    pub fn with_levels(&self, attached: usize) -> u32 {
        self.levels[..attached]
            .iter()
            .fold(self.resident, |m, &l| m | l)
    }
}

/// The bounds of the removals, as multiples of each joint's precision, from the least to the
/// most lossy phase with the level each phase's removals go to: `[(medium, 2), (resident, 1)]`
/// or `[(resident, 1)]`.
pub(crate) type Phases = [(f32, usize)];

/// Every segment's masks for `searched` (the search of `ctx`'s clip).
pub(crate) fn rank(ctx: &EncodeContext, searched: &Searched, phases: &Phases) -> Vec<SegmentMasks> {
    let searcher = Searcher::new(ctx.clip, ctx.metric, &searched.plan, ctx.has_scale);
    let n = ctx.clip.num_samples;
    let len = searched.seg_len;
    searched
        .segments
        .iter()
        .enumerate()
        .map(|(s, choice)| {
            let start = s * len;
            let count = (n - start).min(len);
            let mut probe = searcher.probe(start, count, len, choice);
            rank_segment(&mut probe, count, phases)
        })
        .collect()
}

/// The masks of one segment of `count` samples (the probe holds the full mask and is left at the
/// resident one).
pub(crate) fn rank_segment(probe: &mut Probe, count: usize, phases: &Phases) -> SegmentMasks {
    let full = probe.mask();
    let mut levels = [0u32; 2];
    let mut steps = Steps::new(count);
    for &(bound, level) in phases {
        while let Some((_, i)) = steps.remove_cheapest(probe, bound) {
            levels[level - 1] |= 1 << i;
        }
    }
    SegmentMasks {
        full,
        resident: probe.mask(),
        levels,
    }
}

/// The greedy removal of a segment's interior samples, one step at a time: each stored interior
/// sample's removal error is computed when first needed and again after a neighbour's removal
/// changed it.
pub(crate) struct Steps {
    cost: Vec<Option<f32>>,
}

impl Steps {
    /// No cost known yet, for a segment of `count` samples.
    pub fn new(count: usize) -> Steps {
        Steps {
            cost: vec![None; count],
        }
    }

    /// Removes the stored interior sample whose removal adds the least error, if that error is
    /// at most `bound` (the earliest sample on a tie; NaN is never taken), and returns the error
    /// and the sample; `None` when no sample qualifies.
    #[allow(clippy::needless_range_loop)]
    pub fn remove_cheapest(&mut self, probe: &mut Probe, bound: f32) -> Option<(f32, usize)> {
        let count = self.cost.len();
        let mut best: Option<(f32, usize)> = None;
        for i in 1..count.saturating_sub(1) {
            if probe.mask() & (1 << i) == 0 {
                continue;
            }
            let c = *self.cost[i].get_or_insert_with(|| probe.removal_error(i));
            if c <= bound && best.is_none_or(|(b, _)| c < b) {
                best = Some((c, i));
            }
        }
        let (c, i) = best?;
        let (prev, next) = probe.neighbours(i);
        probe.remove(i);
        self.cost[i] = None;
        self.cost[prev] = None;
        self.cost[next] = None;
        Some((c, i))
    }
}
