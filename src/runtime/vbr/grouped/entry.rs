//! The runtime's entry points for a grouped body (a `vbr` blob of format version 5): what
//! `runtime::dispatch` calls, on a body the validator accepted.

use super::body::{Counts, View};
use super::{cache, Isa};
use crate::format::Header;
use crate::math::Transform;
use crate::runtime::segment_lines;
use crate::runtime::{
    BodyHint, Defaults, JointSelection, PoseOut, SampleKey, SegmentLines, CHANNELS_ALL,
};

/// The decoders' view of `body` with the defaults `d`.
#[inline(always)]
fn view<'a>(h: &Header, body: &'a [u8], d: &Defaults<'a>) -> View<'a> {
    let mut v = View::read(body, h);
    v.bind = d.bind_pose;
    v.tiers = d.tiers;
    v
}

/// What a playback cache records of the clip, bind pose and tiers it is filled for.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn owner(h: &Header, body: &[u8], d: &Defaults) -> cache::Owner {
    cache::Owner {
        body: body.as_ptr() as u64,
        len: body.len() as u64,
        checksum: h.checksum,
        bind: d.bind_pose.map_or(0, |b| b.as_ptr() as u64),
        generation: d.tiers.map_or(0, |a| a.generation),
    }
}

/// Panics unless the pose buffer holds every joint and the key is in the clip (the decoders
/// index without further checks; the runtime's callers have checked both).
#[inline(always)]
fn check(h: &Header, key: &SampleKey, out: &PoseOut) {
    let joints = h.num_joints as usize;
    assert!(out.stride >= 10 && out.data.len() >= PoseOut::required_len(joints, out.stride));
    assert!(key.i0 < h.num_samples && key.i1 < h.num_samples);
}

/// Where a pose's first dependent reads lie, found when the blob is opened: the segment table
/// (its offset in the body), the samples per segment and the first segments' lines. With it a
/// whole pose hints the body before the table, the key's table entry and its segment at once,
/// beside the body header, instead of after it and after the entry.
pub(crate) fn hint(h: &Header, body: &[u8]) -> BodyHint {
    if body.len() < super::body::HEADER {
        return BodyHint::default();
    }
    let c = Counts::read(body);
    let Some([data, values, _]) = c.sections(
        h.num_joints as usize,
        super::body::map_columns(h),
        body.len(),
    ) else {
        return BodyHint::default();
    };
    let table = data + c.seg_table as usize;
    let tb = c.table_bytes();
    // Segment starts from the table, then the last segment's end (with its padding).
    let n = c.num_segments as usize;
    let mut bounds = [0usize; segment_lines::BOUNDS];
    for (k, b) in bounds.iter_mut().enumerate().take(n + 1) {
        *b = data
            + match k < n {
                true => {
                    let w = crate::format::bytes::read_u32(body, table + tb * k);
                    (w & super::body::table_mask(tb)) as usize
                }
                false => values - data,
            };
    }
    BodyHint {
        first: table as u32,
        stride: c.seg_len as u8,
        segments: SegmentLines::new(&bounds[..(n + 1).min(segment_lines::BOUNDS)]),
    }
}

/// Bytes at the body's end a whole pose hints at its entry: the constants and kinds of most
/// clips (they end the body); the pose's own prefetch skips them when the entry hinted.
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(dead_code)
)]
pub(super) const TAIL_HINT: usize = 256;

/// Hints, before the body header is read, what a whole pose reads from the open blob's
/// [`hint`]: the line of the segment table entry of `key`'s first sample (the next entries,
/// which end its segment and start the next, are mostly in it), the body before the table
/// (header and group records), the body's last [`TAIL_HINT`] bytes and the lines of the key's
/// segments where the hint places them. Returns the segments placed, which the walk's
/// [`super::common::prefetch`] then skips with the body before the table.
#[inline(always)]
fn hint_entries(body: &[u8], hint: &BodyHint, key: &SampleKey) -> u32 {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    if hint.stride != 0 {
        let stride = hint.stride as u32;
        let seg = super::common::seg_of(key.i0, stride).0;
        let e = hint.first as usize + 4 * seg as usize;
        let p = body.as_ptr();
        // SAFETY: hints only, inside `body` (every range is cut at its end).
        unsafe {
            line(p.add(e.min(body.len().saturating_sub(1))));
            fetch(p, (hint.first as usize).min(body.len()));
            // The constants and kinds end the body: its last lines.
            let tail = body.len().saturating_sub(TAIL_HINT);
            fetch(p.add(tail), body.len() - tail);
            // The key's segments: the first sample's, and the second's when it is another.
            let next = super::common::seg_of(key.i1, stride).0;
            let second = hint.segments.segment(next).filter(|_| next != seg);
            for (from, to) in [hint.segments.segment(seg), second].into_iter().flatten() {
                if from < body.len() {
                    fetch(p.add(from), to.min(body.len()) - from);
                }
            }
        }
        return hint.segments.placed();
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = (body, hint, key);
    0
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use super::common::{fetch, line};

/// Samples a whole pose with the widest decoder this machine runs.
#[inline]
pub(crate) fn sample_pose(
    h: &Header,
    body: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    out: &mut PoseOut,
) {
    let hinted = hint_entries(body, hint, key);
    check(h, key, out);
    let mut v = view(h, body, d);
    v.hinted = hinted;
    // (Unused where only the portable decoder is built: wasm32 without `simd128`.)
    #[allow(unused_variables)]
    let (o, stride) = (out.data.as_mut_ptr(), out.stride);
    match Isa::best() {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX-512 F and VL are present; the key and the buffer were checked above.
        Isa::Avx512 => unsafe { super::avx2::sample_pose_512(&v, key, o, stride) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: AVX2 is present; the key and the buffer were checked above.
        Isa::Avx2 => unsafe { super::avx2::sample_pose(&v, key, o, stride) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the key and the buffer were checked above.
        Isa::Sse2 => unsafe { super::sse2::sample_pose(&v, key, o, stride) },
        #[cfg(target_arch = "aarch64")]
        // SAFETY: the key and the buffer were checked above.
        Isa::Neon => unsafe { super::neon::sample_pose(&v, key, o, stride) },
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        // SAFETY: the key and the buffer were checked above.
        Isa::Simd128 => unsafe { super::simd128::sample_pose(&v, key, o, stride) },
        _ => super::scalar::sample_pose(&v, key, out.data, stride),
    }
}

/// Samples a whole pose with each channel's rows at `rows` (the f32 fields of an engine's
/// layout) with the widest decoder this machine runs: every decoder writes rows anywhere. The
/// caller checked that `rows` hold every joint.
#[inline(always)]
pub(crate) fn sample_pose_rows(
    h: &Header,
    body: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    rows: crate::runtime::PoseRows,
) {
    pose_rows::<false>(h, body, hint, key, d, rows);
}

/// Samples a whole pose into ozz blocks of four joints at `out` with the AVX2 decoder (the
/// lanes past the last joint not written), or returns `false`, having written nothing, where
/// this machine runs another decoder. The caller checked that `out` holds `ceil(n / 4)` blocks
/// of 40 floats.
#[inline(always)]
pub(crate) fn sample_pose_soa4(
    h: &Header,
    body: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    out: *mut f32,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    return pose_rows::<true>(h, body, hint, key, d, crate::runtime::PoseRows::soa4(out));
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (h, body, hint, key, d, out);
        false
    }
}

/// [`sample_pose_rows`], or, `SOA4`, [`sample_pose_soa4`] into [`PoseRows::soa4`] rows: false,
/// having written nothing, where this machine runs no decoder of ozz blocks (any but AVX2).
///
/// [`PoseRows::soa4`]: crate::runtime::PoseRows
#[inline(always)]
fn pose_rows<const SOA4: bool>(
    h: &Header,
    body: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    rows: crate::runtime::PoseRows,
) -> bool {
    let isa = Isa::best();
    if SOA4 && !matches!(isa, Isa::Avx2 | Isa::Avx512) {
        return false;
    }
    let hinted = hint_entries(body, hint, key);
    assert!(key.i0 < h.num_samples && key.i1 < h.num_samples);
    let mut v = view(h, body, d);
    v.hinted = hinted;
    // SAFETY (every arm): the decoder's ISA is present (`Isa::best`); the key was checked
    // above, the rows by the caller.
    match isa {
        // Ozz blocks with the AVX2 build on AVX-512 machines too: one more copy of the walks
        // for the blocks, not two (the library's compile time).
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 if !SOA4 => unsafe { super::avx2::sample_rows_512::<false>(&v, key, rows, 7) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 | Isa::Avx2 => unsafe { super::avx2::sample_rows::<SOA4>(&v, key, rows, 7) },
        #[cfg(target_arch = "x86_64")]
        Isa::Sse2 => unsafe { super::sse2::sample_pose_rows(&v, key, rows) },
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => unsafe { super::neon::sample_pose_rows(&v, key, rows, 7) },
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        Isa::Simd128 => unsafe { super::simd128::sample_pose_rows(&v, key, rows, 7) },
        _ => unsafe { super::scalar::sample_rows(&v, key, rows, 7) },
    }
    true
}

/// [`sample_pose_rows`] through the playback cache in `mem` (as [`sample_pose_cached`];
/// without AVX2 there is no cache: the plain pose).
#[inline]
pub(crate) fn sample_pose_cached_rows(
    h: &Header,
    body: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    rows: crate::runtime::PoseRows,
    mem: &mut [u8],
) {
    cached_rows::<false>(h, body, hint, key, d, rows, mem);
}

/// [`sample_pose_soa4`] through the playback cache in `mem` (as [`sample_pose_cached`]):
/// false, having written nothing, where this machine runs another decoder than AVX2.
#[inline]
pub(crate) fn sample_pose_cached_soa4(
    h: &Header,
    body: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    out: *mut f32,
    mem: &mut [u8],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    return cached_rows::<true>(
        h,
        body,
        hint,
        key,
        d,
        crate::runtime::PoseRows::soa4(out),
        mem,
    );
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (h, body, hint, key, d, out, mem);
        false
    }
}

/// [`sample_pose_cached_rows`], or, `SOA4`, [`sample_pose_cached_soa4`] (false where there is
/// no AVX2).
#[inline(always)]
fn cached_rows<const SOA4: bool>(
    h: &Header,
    body: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    rows: crate::runtime::PoseRows,
    mem: &mut [u8],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if Isa::Avx2.available() {
        if cache::jump(mem, key.i0) {
            return pose_rows::<SOA4>(h, body, hint, key, d, rows);
        }
        assert!(key.i0 < h.num_samples && key.i1 < h.num_samples);
        let v = view(h, body, d);
        let owner = owner(h, body, d);
        if let Some(mut c) = cache::Cache::new(mem, v.num_groups, owner) {
            // SAFETY: AVX2 is present; the key was checked above, the rows by the caller; the
            // cache names this body and bind pose (reset otherwise).
            unsafe { super::avx2::sample_pose_cached::<SOA4>(Isa::best(), &v, &mut c, key, rows) };
            return true;
        }
    }
    let _ = mem;
    pose_rows::<SOA4>(h, body, hint, key, d, rows)
}

/// Samples a whole pose through the playback cache in `cache` (AVX2; otherwise, or with a
/// cache too small or misaligned, as [`sample_pose`]).
#[inline]
pub(crate) fn sample_pose_cached(
    h: &Header,
    body: &[u8],
    hint: &BodyHint,
    key: &SampleKey,
    d: &Defaults,
    out: &mut PoseOut,
    mem: &mut [u8],
) {
    #[cfg(target_arch = "x86_64")]
    if Isa::Avx2.available() {
        // A random jump costs what a pose without the cache costs, but for the cache's last
        // key: checked before the cache is opened, which would cost such a pose about 5 % more
        // on bandai (the `ab_runtime` harness).
        if cache::jump(mem, key.i0) {
            return sample_pose(h, body, hint, key, d, out);
        }
        check(h, key, out);
        let v = view(h, body, d);
        let owner = owner(h, body, d);
        if let Some(mut c) = cache::Cache::new(mem, v.num_groups, owner) {
            // SAFETY: AVX2 is present; the key and the buffer were checked above; the cache
            // names this body and bind pose (reset otherwise).
            unsafe {
                super::avx2::sample_pose_cached::<false>(
                    Isa::best(),
                    &v,
                    &mut c,
                    key,
                    crate::runtime::PoseRows::ten(out.data.as_mut_ptr(), out.stride),
                )
            };
            return;
        }
    }
    let _ = mem;
    sample_pose(h, body, hint, key, d, out)
}

/// Bytes of playback cache a context on `body` can use: from the body header's group counts
/// alone (a cached pose asks for it twice, through the C ABI).
pub(crate) fn cache_size(body: &[u8]) -> usize {
    cache::size(Counts::total(Counts::read(body).groups))
}

/// Samples joint `joint`.
pub(crate) fn sample_joint(
    h: &Header,
    body: &[u8],
    key: &SampleKey,
    joint: usize,
    d: &Defaults,
) -> Transform {
    assert!(key.i0 < h.num_samples && key.i1 < h.num_samples && joint < h.num_joints as usize);
    let mut t = [0.0f32; 10];
    view(h, body, d).sample_joints_with(key, &[joint as u32], |_, _| 0, 7, &mut t, 10, false);
    Transform::read_from(&t)
}

/// Samples a joint selection.
pub(crate) fn sample_joints(
    h: &Header,
    body: &[u8],
    key: &SampleKey,
    d: &Defaults,
    sel: &JointSelection,
    out: &mut PoseOut,
) {
    assert!(key.i0 < h.num_samples && key.i1 < h.num_samples);
    let avx2 = Isa::Avx2.available();
    let every = sel.slots.is_none()
        && sel.joints.len() == h.num_joints as usize
        && sel.joints.iter().enumerate().all(|(i, &j)| j as usize == i);
    // Every joint in order into its own slot, every channel: a whole pose (without the open
    // blob's hints, which a selection is not given).
    if every && sel.channels == CHANNELS_ALL {
        sample_pose(h, body, &BodyHint::default(), key, d, out);
        return;
    }
    // Every joint, rotations (and translations): the whole-pose walk, stopped before the
    // channels not asked for.
    if every && matches!(sel.channels, 1 | 3) && channel_walk() {
        check(h, key, out);
        let v = view(h, body, d);
        // SAFETY: `channel_walk` found the decoder; the key and the buffer were checked above.
        unsafe { sample_channels(&v, key, out.data.as_mut_ptr(), out.stride, sel.channels) };
        return;
    }
    // A dense selection (four joints or more, and a quarter of the joints or more, e.g. every
    // rotation for a retargeting engine) decodes each group it touches eight lanes at a time
    // with AVX2; a sparse one, or one of fewer joints (a small rig's joint or two), lane by
    // lane.
    let wide = avx2 && sel.joints.len() >= 4 && 4 * sel.joints.len() >= h.num_joints as usize;
    view(h, body, d).sample_joints_with(
        key,
        sel.joints,
        |i, _| sel.slot(i),
        sel.channels,
        out.data,
        out.stride,
        wide,
    );
}

/// Whether a SIMD decoder here walks a pose's first channels alone ([`sample_channels`]): AVX2
/// (or AVX-512) on x86-64, NEON on aarch64, `simd128` on wasm32 builds with it.
#[inline]
fn channel_walk() -> bool {
    #[cfg(target_arch = "x86_64")]
    return Isa::Avx2.available();
    #[cfg(any(
        target_arch = "aarch64",
        all(target_arch = "wasm32", target_feature = "simd128")
    ))]
    return true;
    #[allow(unreachable_code)]
    false
}

/// The whole pose's walk writing only the channels of `channels` (1 or 3) into `out`.
///
/// # Safety
/// [`channel_walk`] is true; the key is the clip's and `out` holds every joint at `stride`.
#[allow(unused_variables)]
unsafe fn sample_channels(v: &View, key: &SampleKey, out: *mut f32, stride: usize, channels: u32) {
    #[cfg(target_arch = "x86_64")]
    match Isa::best() {
        Isa::Avx512 => super::avx2::sample_channels_512(v, key, out, stride, channels),
        _ => super::avx2::sample_channels(v, key, out, stride, channels),
    }
    #[cfg(target_arch = "aarch64")]
    super::neon::sample_channels(v, key, out, stride, channels);
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    super::simd128::sample_channels(v, key, out, stride, channels);
}
