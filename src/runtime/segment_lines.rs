//! The places of a clip's first segments, kept in 22 bytes of the decompressor so that a cold
//! pose hints the lines of its segment at once, beside the segment table entry that gives the
//! segment's place exactly: the segment then no longer waits for that entry (see
//! `docs/runtime.md`).
//!
//! A bound (a segment's start, or the last segment's end) is kept as its 64-byte line in the
//! body, predicted from the first line and the mean segment length and corrected by a signed
//! byte. A hint only: a decoder reads the segment table all the same, so a place that is off
//! costs time, never a wrong pose.

/// Bounds kept: segments 0 to 15 are placed when the clip has that many.
pub const BOUNDS: usize = 17;

/// Bytes of a line.
const LINE: usize = 64;

/// The lines of the first segments' bounds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SegmentLines {
    /// Line of bound 0 (the first segment's start), counted from the body's first byte.
    base: u16,
    /// Mean lines per segment, in 256ths.
    step: u16,
    /// Segments placed (bounds `0..=placed` are known); 0 when none.
    placed: u8,
    /// Bound `k` lies in line `base + (k * step >> 8) + delta[k]`.
    delta: [i8; BOUNDS],
}

impl SegmentLines {
    /// The lines of `bounds`: byte offsets in the body of segment `k`'s start at `bounds[k]`,
    /// the last one the end of the segment before it. Only the first 17 bounds are kept; a
    /// bound too far from the prediction, or a body beyond 4 MiB, ends the segments placed.
    pub fn new(bounds: &[usize]) -> Self {
        let mut s = SegmentLines::default();
        let bounds = &bounds[..bounds.len().min(BOUNDS)];
        let line = |k: usize| bounds[k] / LINE;
        let Some(m) = bounds.len().checked_sub(1).filter(|&m| m > 0) else {
            return s;
        };
        let (first, last) = (line(0), line(m));
        if first > u16::MAX as usize || last < first {
            return s;
        }
        let step = ((last - first) * 256 + m / 2) / m;
        if step > u16::MAX as usize {
            return s;
        }
        (s.base, s.step) = (first as u16, step as u16);
        for k in 0..=m {
            match i8::try_from(line(k) as isize - s.predict(k) as isize) {
                Ok(d) => s.delta[k] = d,
                Err(_) => {
                    s.placed = k.saturating_sub(1) as u8;
                    return s;
                }
            }
        }
        s.placed = m as u8;
        s
    }

    /// Bound `k`'s line before its correction.
    #[inline(always)]
    fn predict(&self, k: usize) -> usize {
        self.base as usize + ((k * self.step as usize) >> 8)
    }

    /// Bound `k`'s line (`k <= placed`).
    #[inline(always)]
    fn line(&self, k: usize) -> usize {
        (self.predict(k) as isize + self.delta[k] as isize) as usize
    }

    /// Segments placed: those below it.
    #[inline(always)]
    pub fn placed(&self) -> u32 {
        self.placed as u32
    }

    /// The bytes of the body, from and to, that hold segment `s` (whole lines counted from
    /// the body's first byte: the range may reach one line past the body's end); `None` when
    /// the segment is not placed.
    #[inline(always)]
    pub fn segment(&self, s: u32) -> Option<(usize, usize)> {
        let s = s as usize;
        (s < self.placed as usize).then(|| (self.line(s) * LINE, (self.line(s + 1) + 1) * LINE))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every placed segment's range is the whole lines its bytes lie in.
    fn covers(bounds: &[usize], lines: &SegmentLines) {
        for s in 0..lines.placed as usize {
            let (from, to) = lines.segment(s as u32).unwrap();
            assert_eq!(from, bounds[s] / LINE * LINE, "segment {s}");
            assert_eq!(to, (bounds[s + 1] / LINE + 1) * LINE, "segment {s}");
        }
        assert_eq!(lines.segment(lines.placed as u32), None);
    }

    #[test]
    fn places_the_first_sixteen_segments() {
        // Segments of 700 to 1700 bytes after 2 KB of metadata, in an order far from even.
        let mut bounds = vec![2048];
        for k in 0..40usize {
            bounds.push(bounds[k] + 700 + (k * 7919) % 1000);
        }
        let lines = SegmentLines::new(&bounds);
        assert_eq!(lines.placed, 16);
        covers(&bounds, &lines);
        // A short clip: every segment placed, the last one up to its end.
        let short = SegmentLines::new(&bounds[..4]);
        assert_eq!(short.placed, 3);
        covers(&bounds[..4], &short);
    }

    #[test]
    fn a_bound_far_from_the_mean_ends_the_segments_placed() {
        // Segment 5 is 20 KB long among segments of 1 KB: the bounds before it lie far below
        // the mean's prediction, so fewer than six segments are placed.
        let mut bounds = vec![512];
        for k in 0..10usize {
            bounds.push(bounds[k] + if k == 5 { 20_000 } else { 1000 });
        }
        let lines = SegmentLines::new(&bounds);
        assert!(lines.placed >= 1 && lines.placed < 6, "{}", lines.placed);
        covers(&bounds, &lines);
        // Beyond 4 MiB nothing is placed; nor with fewer than two bounds.
        assert_eq!(SegmentLines::new(&[5 << 20, (5 << 20) + 900]).placed, 0);
        assert_eq!(SegmentLines::new(&[100]).placed, 0);
        assert_eq!(SegmentLines::new(&[]), SegmentLines::default());
    }
}
