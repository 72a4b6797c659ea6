//! Lone lanes eight at a time: the animated channels of a sparse joint selection, each from
//! its own group, decoded side by side, one per 32-bit lane, every word of a lane's metadata
//! and fields gathered into the lanes (eight loads: on the AMD processor measured, a hardware
//! gather is no faster). The arithmetic is the group decode's (`widths!`, `mul_add!`,
//! `frame!`, [`rebuild`], [`nlerp`]), lane by lane the `vbr` decoder's, so the values are bit
//! for bit the lone-lane decode's (`subset/lane.rs`); a lane that stores raw `f32`s is left to that
//! decode.

use super::*;
use crate::runtime::vbr::grouped::body::{
    meta_bytes, record_bytes, record_head, RECORD_PER_SEGMENT,
};
use crate::runtime::vbr::grouped::subset::Lone;

/// The 32-bit words at byte offsets `at` of `d`: each starts in a validated record, segment
/// metadata or frame of the data (whose 32 bytes of padding cover the word), or in the group
/// directory (`d` its start, offsets `8 g` and `8 g + 4` of a group `g` the joint map names).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn gather(d: *const u8, at: __m256i) -> __m256i {
    let mut a = [0u32; 8];
    _mm256_storeu_si256(a.as_mut_ptr() as *mut __m256i, at);
    let w = |i: usize| (d.add(a[i] as usize) as *const i32).read_unaligned();
    _mm256_setr_epi32(w(0), w(1), w(2), w(3), w(4), w(5), w(6), w(7))
}

#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn splat(x: usize) -> __m256i {
    _mm256_set1_epi32(x as i32)
}

/// Eight lanes' decode in one segment.
struct Coef8 {
    mul: [__m256; 3],
    add: [__m256; 3],
    /// Each component's first bit relative to the frame's.
    bit: [__m256i; 3],
    mask: [__m256i; 3],
    /// Lanes whose three widths are 0.
    constant: __m256,
    /// Lanes with a raw component (a `movemask`).
    raw: i32,
    drop: __m256i,
    /// The group's bits in a frame.
    width: __m256i,
}

/// The decode of lane `l` of group `g` (per SIMD lane) in the segment whose metadata starts
/// at byte `seg_meta` of the data, rotations when `rot` (else vectors).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn coef8<S>(lone: &Lone<S>, seg_meta: usize, g: __m256i, l: __m256i, rot: bool) -> Coef8 {
    let d = lone.data.as_ptr();
    let one = _mm256_set1_epi32(1);
    let (record_offsets, meta) = offsets8(lone, g);
    let head = gather(d, record_offsets);
    let n = _mm256_and_si256(_mm256_srli_epi32::<8>(head), _mm256_set1_epi32(0xFF));
    let per_segment = _mm256_cmpeq_epi32(
        _mm256_and_si256(head, _mm256_set1_epi32((RECORD_PER_SEGMENT as i32) << 16)),
        _mm256_setzero_si256(),
    );
    let per_segment = _mm256_xor_si256(per_segment, _mm256_set1_epi32(-1));
    let m = _mm256_add_epi32(meta, splat(seg_meta));
    let n2 = _mm256_add_epi32(n, n);
    let n4 = _mm256_add_epi32(n2, n2);
    // Bytes of a component's rates: ceil(5 n / 8).
    let rb = _mm256_srli_epi32::<3>(_mm256_add_epi32(
        _mm256_add_epi32(n4, n),
        _mm256_set1_epi32(7),
    ));
    let rb3 = _mm256_add_epi32(_mm256_add_epi32(rb, rb), rb);
    let fields_at = _mm256_add_epi32(m, rb3);
    // Dropped components: per segment (after the range fields) or the record's.
    let drop_at = _mm256_blendv_epi8(
        _mm256_add_epi32(record_offsets, _mm256_set1_epi32(4)),
        _mm256_add_epi32(fields_at, _mm256_add_epi32(n4, n2)),
        per_segment,
    );
    let l2 = _mm256_add_epi32(l, l);
    let drop = _mm256_and_si256(
        _mm256_srlv_epi32(gather(d, drop_at), l2),
        _mm256_set1_epi32(3),
    );
    let l4 = _mm256_add_epi32(l2, l2);
    let head_bytes = record_head(lone.dir.parts().4 as usize) as i32;
    let ranges = _mm256_add_epi32(
        _mm256_add_epi32(record_offsets, _mm256_set1_epi32(head_bytes)),
        l4,
    );
    // Clip ranges of the three stored slots (slot c of a per-segment rotation group holds
    // component c + (c >= drop) of its four).
    let (mins, exts) = if rot {
        let r = |c: i32| {
            let k = _mm256_sub_epi32(
                _mm256_set1_epi32(c),
                _mm256_and_si256(
                    per_segment,
                    _mm256_cmpgt_epi32(_mm256_set1_epi32(c), _mm256_sub_epi32(drop, one)),
                ),
            );
            rotation_ranges_of(gather(
                d,
                _mm256_add_epi32(ranges, _mm256_mullo_epi32(n4, k)),
            ))
        };
        let (r0, r1, r2) = (r(0), r(1), r(2));
        ([r0.0, r1.0, r2.0], [r0.1, r1.1, r2.1])
    } else {
        let f = |c: i32| {
            let at = _mm256_add_epi32(ranges, _mm256_mullo_epi32(n4, _mm256_set1_epi32(c)));
            _mm256_castsi256_ps(gather(d, at))
        };
        ([f(0), f(1), f(2)], [f(3), f(4), f(5)])
    };
    let l5 = _mm256_add_epi32(l4, l);
    let mut c = Coef8 {
        mul: [_mm256_setzero_ps(); 3],
        add: [_mm256_setzero_ps(); 3],
        bit: [_mm256_setzero_si256(); 3],
        mask: [_mm256_setzero_si256(); 3],
        constant: _mm256_setzero_ps(),
        raw: 0,
        drop,
        width: _mm256_setzero_si256(),
    };
    let mut start = _mm256_setzero_si256();
    let mut any = _mm256_setzero_si256();
    let mut raw = _mm256_setzero_si256();
    for k in 0..3 {
        // The component's rates, 40 bits: the lane's own, and the widths of the lanes before
        // it (its field's offset) and of all lanes (the next component's start).
        let at = _mm256_add_epi32(m, _mm256_mullo_epi32(rb, _mm256_set1_epi32(k as i32)));
        let lo = gather(d, at);
        let hi = gather(d, _mm256_add_epi32(at, _mm256_set1_epi32(4)));
        let mut before = _mm256_setzero_si256();
        let mut total = _mm256_setzero_si256();
        for j in 0..8 {
            // Rate j: bits 5j to 5j + 4 of the 64 bits `hi:lo`.
            let s = 5 * j;
            let shr = |x: __m256i, s: i32| _mm256_srl_epi32(x, _mm_cvtsi32_si128(s));
            let r = if s + 5 <= 32 {
                shr(lo, s)
            } else if s >= 32 {
                shr(hi, s - 32)
            } else {
                _mm256_or_si256(shr(lo, s), _mm256_sll_epi32(hi, _mm_cvtsi32_si128(32 - s)))
            };
            let w = widths!(_mm256_and_si256(r, _mm256_set1_epi32(31))).0;
            let j = _mm256_set1_epi32(j);
            before = _mm256_add_epi32(before, _mm256_and_si256(w, _mm256_cmpgt_epi32(l, j)));
            total = _mm256_add_epi32(total, _mm256_and_si256(w, _mm256_cmpgt_epi32(n, j)));
        }
        // The lane's own rate (variable shifts by 32 or more give 0: of the three terms, those
        // of the other word's side vanish).
        let own = _mm256_or_si256(
            _mm256_or_si256(
                _mm256_srlv_epi32(lo, l5),
                _mm256_sllv_epi32(hi, _mm256_sub_epi32(_mm256_set1_epi32(32), l5)),
            ),
            _mm256_srlv_epi32(hi, _mm256_sub_epi32(l5, _mm256_set1_epi32(32))),
        );
        let r = _mm256_and_si256(own, _mm256_set1_epi32(31));
        let w = widths!(r);
        let bits = w.0;
        raw = _mm256_or_si256(raw, w.2);
        any = _mm256_or_si256(any, bits);
        let f_at = _mm256_add_epi32(
            fields_at,
            _mm256_add_epi32(_mm256_mullo_epi32(n2, _mm256_set1_epi32(k as i32)), l2),
        );
        let f = _mm256_and_si256(gather(d, f_at), _mm256_set1_epi32(0xFFFF));
        (c.mul[k], c.add[k]) = mul_add!(w, f, mins[k], exts[k]);
        c.bit[k] = _mm256_add_epi32(start, before);
        start = _mm256_add_epi32(start, total);
        c.mask[k] = _mm256_sub_epi32(_mm256_sllv_epi32(one, bits), one);
    }
    c.width = start;
    c.constant = _mm256_castsi256_ps(_mm256_cmpeq_epi32(any, _mm256_setzero_si256()));
    c.raw = _mm256_movemask_ps(_mm256_castsi256_ps(raw));
    c
}

/// The record and metadata offsets of the groups `g` (per lane): [`Dir::at`] in lanes.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn offsets8<S>(lone: &Lone<S>, g: __m256i) -> (__m256i, __m256i) {
    let (first, record_offsets, meta, first_ps, jb) = lone.dir.parts();
    let jb = jb as usize;
    let at = |x: u32| _mm256_set1_epi32(x as i32);
    // Each lane's channel: translations from `first[1]`, scales from `first[2]`.
    let t = _mm256_cmpgt_epi32(g, at(first[1].wrapping_sub(1)));
    let s = _mm256_cmpgt_epi32(g, at(first[2].wrapping_sub(1)));
    let pick =
        |x: [u32; 3]| _mm256_blendv_epi8(_mm256_blendv_epi8(at(x[0]), at(x[1]), t), at(x[2]), s);
    let k = _mm256_sub_epi32(g, pick(first));
    // Rotations: the full groups without per-segment drops, then those with; vectors: all
    // alike.
    let plain = _mm256_blendv_epi8(_mm256_min_epu32(k, at(first_ps)), k, t);
    let ps = _mm256_sub_epi32(k, plain);
    let plain_rec = _mm256_blendv_epi8(
        at(record_bytes(0, LANES, false, jb) as u32),
        at(record_bytes(1, LANES, false, jb) as u32),
        t,
    );
    let record_offsets = _mm256_add_epi32(
        pick(record_offsets),
        _mm256_add_epi32(
            _mm256_mullo_epi32(plain, plain_rec),
            _mm256_mullo_epi32(ps, at(record_bytes(0, LANES, true, jb) as u32)),
        ),
    );
    let meta = _mm256_add_epi32(
        pick(meta),
        _mm256_add_epi32(
            _mm256_mullo_epi32(plain, at(meta_bytes(LANES, false) as u32)),
            _mm256_mullo_epi32(ps, at(meta_bytes(LANES, true) as u32)),
        ),
    );
    (record_offsets, meta)
}

/// The first bits of groups `gs` in a frame of the segment of `pos`, whose lanes' coefficients
/// are `c` (`subset::start_less_width`: a stored first bit, less the group's width for an odd
/// group; once for a run of one group).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn starts8<S>(lone: &Lone<S>, pos: &Pos<S>, gs: &[u32; 8], c: &Coef8) -> __m256i {
    if !lone.table.is_empty() {
        // The selection's table: `a`'s segment, then `b`'s.
        let half = lone.table.len() / 2;
        let base = if std::ptr::eq(pos, &lone.a) { 0 } else { half };
        let s: [u32; 8] = std::array::from_fn(|i| lone.table[base + gs[i] as usize]);
        return _mm256_loadu_si256(s.as_ptr() as *const __m256i);
    }
    let (mut s, mut odd) = ([0u32; 8], [0u32; 8]);
    for i in 0..8 {
        (s[i], odd[i]) = if i > 0 && gs[i] == gs[i - 1] {
            (s[i - 1], odd[i - 1])
        } else {
            let (bit, odd) = super::super::subset::start_less_width(lone, pos, gs[i] as usize);
            (bit as u32, (odd as u32).wrapping_neg())
        };
    }
    let odd = _mm256_loadu_si256(odd.as_ptr() as *const __m256i);
    _mm256_sub_epi32(
        _mm256_loadu_si256(s.as_ptr() as *const __m256i),
        _mm256_and_si256(c.width, odd),
    )
}

/// The three components of the stored frames whose first bit is `frame` plus `starts`.
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn frame8(data: &[u8], frame: usize, starts: __m256i, c: &Coef8) -> [__m256; 3] {
    let d = data.as_ptr();
    let base = _mm256_add_epi32(splat(frame), starts);
    // A loop, not `map` with a closure: LLVM left the closure out of line in some builds (a
    // call per component, about 90 instructions more a cmu-cc selection).
    let mut v = [_mm256_setzero_ps(); 3];
    for (k, v) in v.iter_mut().enumerate() {
        let bit = _mm256_add_epi32(base, c.bit[k]);
        let w = gather(d, _mm256_srli_epi32::<3>(bit));
        let q = _mm256_and_si256(
            _mm256_srlv_epi32(w, _mm256_and_si256(bit, _mm256_set1_epi32(7))),
            c.mask[k],
        );
        *v = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(q), c.mul[k]), c.add[k]);
    }
    v
}

/// The sample at `pos` (a dropped keyframe blended from its stored neighbours).
#[inline]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn sample8<'a, S: Src<'a>>(
    data: &'a [u8],
    pos: &Pos<S>,
    starts: __m256i,
    c: &Coef8,
) -> [__m256; 3] {
    let a = frame8(pos.data(data), pos.bit, starts, c);
    if pos.t > 0.0 {
        let (next, bit) = pos.next(data);
        let n = frame8(next, bit, starts, c);
        let t = _mm256_set1_ps(pos.t);
        return [0, 1, 2].map(|k| _mm256_add_ps(a[k], _mm256_mul_ps(_mm256_sub_ps(n[k], a[k]), t)));
    }
    a
}

/// Lane `lanes[i]` of group `groups[i]` for `i < count` (at most 8; all rotations when `rot`,
/// else all vectors) at the key of `lone`, into `out[i]` (rotations 4 floats, vectors 3 and a
/// zero). Returns a mask of the lanes left undecoded (raw `f32` components), which the caller
/// decodes alone. The data must be shorter than 256 MB (bit offsets are 32-bit lanes).
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
pub(in crate::runtime::vbr::grouped) unsafe fn lanes8<'a, S: Src<'a>>(
    lone: &Lone<'a, '_, S>,
    groups: &[u32; 8],
    lanes: &[u32; 8],
    count: usize,
    rot: bool,
    out: &mut [[f32; 4]; 8],
) -> u32 {
    debug_assert!((1..=8).contains(&count) && lone.data.len() < 1 << 28);
    // Unused SIMD lanes repeat the first request (valid reads, results dropped).
    let used = _mm256_cmpgt_epi32(splat(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    let first_g = splat(groups[0] as usize);
    let first_l = splat(lanes[0] as usize);
    let g = _mm256_blendv_epi8(
        first_g,
        _mm256_loadu_si256(groups.as_ptr() as *const __m256i),
        used,
    );
    let l = _mm256_blendv_epi8(
        first_l,
        _mm256_loadu_si256(lanes.as_ptr() as *const __m256i),
        used,
    );
    let gs: [u32; 8] = std::array::from_fn(|i| groups[if i < count { i } else { 0 }]);
    let (a, b) = (&lone.a, &lone.b);
    let coef_a = coef8(lone, a.meta, g, l, rot);
    let starts_a = starts8(lone, a, &gs, &coef_a);
    let va = sample8(lone.data, a, starts_a, &coef_a);
    let (vb, db, raw) = if lone.one_sample {
        (va, coef_a.drop, coef_a.raw)
    } else if lone.same_segment {
        (
            sample8(lone.data, b, starts_a, &coef_a),
            coef_a.drop,
            coef_a.raw,
        )
    } else {
        let coef_b = coef8(lone, b.meta, g, l, rot);
        let starts_b = starts8(lone, b, &gs, &coef_b);
        (
            sample8(lone.data, b, starts_b, &coef_b),
            coef_b.drop,
            coef_a.raw | coef_b.raw,
        )
    };
    let q = if rot {
        let qa = rebuild(va, coef_a.drop);
        if lone.one_sample {
            qa
        } else {
            let q = nlerp(qa, rebuild(vb, db), lone.alpha);
            if lone.same_segment {
                // Constant over the segment: not blended (the walk's rule).
                [0, 1, 2, 3].map(|k| sel(coef_a.constant, q[k], qa[k]))
            } else {
                q
            }
        }
    } else {
        let v = if lone.one_sample {
            va
        } else {
            let s0 = _mm256_set1_ps(1.0 - lone.alpha);
            let s1 = _mm256_set1_ps(lone.alpha);
            [0, 1, 2].map(|k| _mm256_add_ps(_mm256_mul_ps(va[k], s0), _mm256_mul_ps(vb[k], s1)))
        };
        let m = _mm256_set1_ps(MAX_ABS_VALUE);
        let nm = _mm256_set1_ps(-MAX_ABS_VALUE);
        let v = v.map(|x| _mm256_min_ps(_mm256_max_ps(x, nm), m));
        [v[0], v[1], v[2], _mm256_setzero_ps()]
    };
    store(
        q,
        &GroupView {
            class: 0,
            n: count,
            per_segment: false,
            meta: 0,
            joints: LANE_IDS,
            drops: 0,
            ranges: std::ptr::null(),
            size: 0,
        },
        out.as_mut_ptr() as *mut f32,
        4,
        0,
        false,
    );
    raw as u32 & ((1u32 << count) - 1)
}
