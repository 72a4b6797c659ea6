//! The grouped layout's playback cache on AVX2: each group's decoded samples (rotations rebuilt,
//! vectors before the clamp) kept in three slots, so a pose decodes only the samples its key
//! needs and the slots do not hold, then blends. A sample decoded for a key playing forward
//! brings the next one of its segment into the third slot, in the same pass over the groups
//! and their coefficients: the next key's new sample is then held. Poses are bit for bit
//! [`super::sample_pose`]'s.

use super::*;
use crate::runtime::vbr::grouped::cache::{self, Cache, COEF_BYTES, SLOTS};
use crate::runtime::vbr::grouped::common::{seg_of, segment_at, Far, Here, Src};

#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn load(c: &Cache, k: usize, g: usize, n: usize) -> [__m256; 4] {
    let slot = c.values.as_ptr().add(k * n + g) as *const f32;
    [0, 1, 2, 3].map(|i| _mm256_loadu_ps(slot.add(8 * i)))
}

/// A pose through the cache and its decode, compiled for the target features `$f` with `$put3`
/// writing a row of three floats (see `whole_pose!`): `sample_pose_cached` for AVX2,
/// `sample_pose_cached_512` for AVX-512 F and VL.
macro_rules! cached_pose {
    ($f:literal, $sample_pose_cached:ident, $fill:ident, $fill_ahead:ident, $sample_rows:ident, $put3:ident) => {
        /// Decodes sample `s` of every group into slot `k` and, with `AHEAD`, sample `s + 1`
        /// (in the same segment) into slot `k2`: one pass over the groups and their
        /// coefficients for both.
        #[inline]
        #[target_feature(enable = $f)]
        unsafe fn $fill<const AHEAD: bool>(
            view: &View,
            c: &mut Cache,
            s: u32,
            k: usize,
            k2: usize,
        ) {
            /// The fill with the frames where `S` places them.
            #[inline]
            #[target_feature(enable = $f)]
            unsafe fn fill_from<'a, S: Src<'a>, const AHEAD: bool>(
                view: &View<'a>,
                c: &mut Cache,
                s: u32,
                k: usize,
                k2: usize,
            ) {
                let data = view.data;
                const _: () = assert!(std::mem::size_of::<Coef>() <= COEF_BYTES);
                let (seg, local) = seg_of(s, view.seg_len);
                let at = segment_at(view, seg);
                let (pos, pos2) = if AHEAD {
                    S::place2(view, at, [local, local + 1])
                } else {
                    let pos = S::place(view, at, local);
                    (pos, pos)
                };
                let (mut meta, mut first_bit) = (pos.meta, 0usize);
                let mut record_offset = 0;
                let (base, base2) = (k * view.num_groups, k2 * view.num_groups);
                // The segment's group coefficients: computed once per segment, kept for the next samples.
                let known = c.head.coef_segment == seg;
                c.head.coef_segment = seg;
                for group_index in 0..view.num_groups {
                    let group = &GroupView::at(data.as_ptr(), record_offset);
                    record_offset += group.size;
                    let limit = if group.class == 0 { 1.0 } else { MAX_ABS_VALUE };
                    let slot = c.coefs.as_mut_ptr().add(group_index) as *mut Coef;
                    let coef = if known {
                        &*slot
                    } else {
                        slot.write(coef!(group, data.as_ptr().add(meta)));
                        &*slot
                    };
                    meta += group.meta;
                    let constant = _mm256_movemask_ps(coef.constant) as u8;
                    let mut put = |v: [__m256; 3], at: usize| {
                        let slot = c.values.as_mut_ptr().add(at + group_index) as *mut f32;
                        if group.class == 0 {
                            let q = rebuild(v, coef.drop);
                            for (i, x) in q.iter().enumerate() {
                                _mm256_storeu_ps(slot.add(8 * i), *x);
                            }
                        } else {
                            for (i, x) in v.iter().enumerate() {
                                _mm256_storeu_ps(slot.add(8 * i), *x);
                            }
                        }
                        *c.constant.get_unchecked_mut(at + group_index) = constant;
                    };
                    put(sample!(data, &pos, first_bit, coef, limit), base);
                    if AHEAD {
                        put(sample!(data, &pos2, first_bit, coef, limit), base2);
                    }
                    first_bit = first_bit.wrapping_add(coef.total);
                }
                c.head.held[k] = s;
                if AHEAD {
                    c.head.held[k2] = s + 1;
                }
            }
            if view.tiers.is_some() {
                fill_from::<Far, AHEAD>(view, c, s, k, k2)
            } else {
                fill_from::<Here, AHEAD>(view, c, s, k, k2)
            }
        }

        /// Decodes sample `s` into slot `k`, and the sample after it into slot `k2` when that
        /// one is in the same segment (where playback forward asks for it next).
        #[inline]
        #[target_feature(enable = $f)]
        unsafe fn $fill_ahead(view: &View, c: &mut Cache, s: u32, k: usize, k2: usize) {
            if s + 1 < view.num_samples
                && seg_of(s + 1, view.seg_len).0 == seg_of(s, view.seg_len).0
            {
                $fill::<true>(view, c, s, k, k2)
            } else {
                $fill::<false>(view, c, s, k, k2)
            }
        }

        /// A pose through the cache (see [`super::super::GroupedClip::sample_pose_cached_in`]);
        /// `SOA4`: into ozz blocks, as `whole_pose!`'s walk writes them.
        #[target_feature(enable = $f)]
        pub(in crate::runtime::vbr::grouped) unsafe fn $sample_pose_cached<const SOA4: bool>(
            view: &View,
            c: &mut Cache,
            key: &SampleKey,
            rows: PoseRows,
        ) {
            debug_assert!(
                c.values.len() == SLOTS * view.num_groups && c.coefs.len() == view.num_groups
            );
            // Near the previous key (playback, either direction, or wrapping to the first samples):
            // the slots may help. A random jump takes the plain walk and leaves the slots alone.
            let near = cache::near(c.head.last, key.i0);
            c.head.last = key.i0;
            if !near {
                return $sample_rows::<SOA4>(view, key, rows, 7);
            }
            if SOA4 {
                statics!(soa4 view, rows, 7);
            } else {
                statics!(rows view, rows, 7, $put3);
            }
            let one_sample = key.i1 == key.i0 || key.alpha <= 0.0;
            let held = c.head.held;
            let find = |s: u32| held.iter().position(|&h| h == s);
            // The slots other than `k` (the choice below is written for three slots).
            const _: () = assert!(SLOTS == 3);
            let others = |k: usize| [(k + 1) % SLOTS, (k + 2) % SLOTS];
            let (slot_a, slot_b) = match (
                find(key.i0),
                if one_sample { None } else { find(key.i1) },
            ) {
                (Some(a), None) if one_sample => (a, a),
                (Some(a), Some(b)) => (a, b),
                // Forward: the second sample is new; the one after it is decoded with it.
                (Some(a), None) => {
                    let [b, ahead] = others(a);
                    $fill_ahead(view, c, key.i1, b, ahead);
                    (a, b)
                }
                // Backward: the first sample is new.
                (None, Some(b)) => {
                    let [a, _] = others(b);
                    $fill::<false>(view, c, key.i0, a, a);
                    (a, b)
                }
                (None, None) => {
                    // Keep a slot that holds the sample after the first.
                    let after = find(key.i0.wrapping_add(1));
                    let a = after.map_or(0, |k| (k + 1) % SLOTS);
                    let [b, ahead] = others(a);
                    if one_sample {
                        if after.is_some() {
                            $fill::<false>(view, c, key.i0, a, a);
                        } else {
                            $fill_ahead(view, c, key.i0, a, b);
                        }
                        (a, a)
                    } else if key.i1 == key.i0 + 1 {
                        $fill_ahead(view, c, key.i0, a, b);
                        if c.head.held[b] != key.i1 {
                            $fill::<false>(view, c, key.i1, b, b);
                        }
                        (a, b)
                    } else {
                        $fill::<false>(view, c, key.i0, a, a);
                        $fill_ahead(view, c, key.i1, b, ahead);
                        (a, b)
                    }
                }
            };
            let seg = |s| super::super::common::seg_of(s, view.seg_len).0;
            let same_segment = !one_sample && seg(key.i0) == seg(key.i1);
            let alpha = key.alpha;
            let n = view.num_groups;
            let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
            let mut record_offset = 0;
            for group_index in 0..n {
                let group = &GroupView::at(view.data.as_ptr(), record_offset);
                record_offset += group.size;
                let a = load(c, slot_a, group_index, n);
                let (q, channel) = if group.class == 0 {
                    let q = if one_sample {
                        a
                    } else {
                        let q = nlerp(a, load(c, slot_b, group_index, n), alpha);
                        if same_segment {
                            // Constant over the segment: not blended (the walk's rule).
                            let constant = _mm256_set1_epi32(
                                *c.constant.get_unchecked(slot_a * n + group_index) as i32,
                            );
                            let constant = _mm256_castsi256_ps(_mm256_cmpeq_epi32(
                                _mm256_and_si256(constant, bits),
                                bits,
                            ));
                            [0, 1, 2, 3].map(|k| sel(constant, q[k], a[k]))
                        } else {
                            q
                        }
                    };
                    (q, 0usize)
                } else {
                    let v = if one_sample {
                        [a[0], a[1], a[2]]
                    } else {
                        let b = load(c, slot_b, group_index, n);
                        let s0 = _mm256_set1_ps(1.0 - alpha);
                        let s1 = _mm256_set1_ps(alpha);
                        [0, 1, 2].map(|k| {
                            _mm256_add_ps(_mm256_mul_ps(a[k], s0), _mm256_mul_ps(b[k], s1))
                        })
                    };
                    let max_abs = _mm256_set1_ps(MAX_ABS_VALUE);
                    let neg_max_abs = _mm256_set1_ps(-MAX_ABS_VALUE);
                    let v = v.map(|x| _mm256_min_ps(_mm256_max_ps(x, neg_max_abs), max_abs));
                    let channel = if group.class == 1 { 1 } else { 2 };
                    ([v[0], v[1], v[2], _mm256_setzero_ps()], channel)
                };
                store_group!(SOA4, q, group, rows, channel, $put3);
            }
        }
    };
}

cached_pose!(
    "avx2,bmi1,bmi2,lzcnt,popcnt",
    sample_pose_cached,
    fill,
    fill_ahead,
    sample_rows,
    put3
);
cached_pose!(
    "avx2,bmi1,bmi2,lzcnt,popcnt,avx512f,avx512vl",
    sample_pose_cached_512,
    fill_512,
    fill_ahead_512,
    sample_rows_512,
    put3_512
);
